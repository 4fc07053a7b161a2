//! Timers: retransmission (RFC 6298 §5), persist (RFC 9293 §3.8.6.1),
//! delayed ACK (RFC 1122 §4.2.3.2) and TIME-WAIT (RFC 9293 §3.6).

use super::{Connection, Event, RetransmitKind, State};
use crate::cc::{half_flight, LossEvent};
use crate::time::SimTime;

impl Connection {
    /// Earliest pending deadline, if any.
    pub fn poll_timeout(&self) -> Option<SimTime> {
        let earliest = |a: Option<SimTime>, b: Option<SimTime>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let retransmit = earliest(self.rto_deadline, self.persist_deadline);
        let other = earliest(self.ack.deadline, self.tw_deadline);
        let pacing = self.sampling.as_deref().and_then(|s| s.pacing_deadline);
        earliest(earliest(retransmit, other), pacing)
    }

    /// Fires every timer whose deadline is at or before `now`; harmless
    /// when nothing is due.
    pub fn handle_timeout(&mut self, now: SimTime) {
        self.now = now;
        if self.tw_deadline.is_some_and(|d| d <= now) {
            self.tw_deadline = None;
            self.set_state(State::Closed);
            return;
        }
        self.ack.on_timeout(now, self.rtt.rto());
        // The pacing timer only lets held data go: the next `poll_transmit` sends it.
        if let Some(s) = self.sampling.as_deref_mut() {
            if s.pacing_deadline.is_some_and(|d| d <= now) {
                s.pacing_deadline = None;
            }
        }
        if self.rto_deadline.is_some_and(|d| d <= now) {
            self.on_rto(now);
        }
        if self.persist_deadline.is_some_and(|d| d <= now) {
            // Back off like the RTO (RFC 9293 §3.8.6.1), capped at max_rto.
            self.persist_backoff = self.persist_backoff.saturating_add(1);
            self.probe_pending = true;
            self.persist_deadline = Some(now + self.persist_interval());
        }
        self.update_persist(now);
        self.report_cc();
    }

    fn persist_interval(&self) -> SimTime {
        let factor = 1u64
            .checked_shl(self.persist_backoff.min(63))
            .unwrap_or(u64::MAX);
        self.rtt.rto().saturating_mul(factor).min(self.cfg.max_rto)
    }

    /// Retransmission timeout (RFC 6298 §5.4-5.6): retransmit the earliest
    /// unacknowledged segment, double the RTO, restart the timer. For data,
    /// RFC 5681 §3.1 collapses cwnd to one segment and RFC 6675 §5.1 /
    /// RFC 2018 §8 end SACK recovery and discard SACK state; everything
    /// outstanding is resent, paced by slow start, unless F-RTO (RFC 5682,
    /// see `frto`) takes the timeout and resends only the first segment.
    fn on_rto(&mut self, now: SimTime) {
        let handshake = matches!(self.state, State::SynSent | State::SynReceived);
        let data_outstanding = self.sb.iter().any(|s| !s.probe);
        if !handshake && !data_outstanding {
            self.rto_deadline = None;
            return;
        }
        let retries = if handshake {
            self.syn_retries += 1;
            self.syn_retries > self.cfg.syn_retries
        } else {
            self.rto_retries += 1;
            self.rto_retries > self.cfg.max_retries
        };
        if retries {
            self.abort();
            return;
        }
        self.rtt.on_expiry();
        self.stats.rto_expiries += 1;
        self.events.push_back(Event::RtoExpired {
            backoff: self.rtt.backoff(),
            rto: self.rtt.rto(),
        });
        self.rto_deadline = Some(now + self.rtt.rto());
        if handshake {
            self.syn_pending = true;
            return;
        }
        // F-RTO step 1 (RFC 5682), deciding before cwnd and ssthresh change
        // (the Eifel response saves them, RFC 4015 §2).
        let frto = self.frto_on_rto();
        self.eifel_rto = None;
        let flight_size = self.loss_flight();
        let loss = LossEvent {
            now,
            flight_size,
            hold_ssthresh: self.rto_holds_ssthresh(flight_size),
        };
        self.exit_recovery();
        self.dupacks = 0;
        self.sb.clear_sacks();
        if frto {
            // RFC 5682 step 1: resend only the first unacknowledged segment.
            self.sb.mark_first_lost(RetransmitKind::Rto);
        } else {
            // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: no new recovery until
            // everything sent so far is acknowledged.
            self.recover = self.send.snd_nxt;
            self.rto_recovery = true;
            self.sb.mark_all_lost(RetransmitKind::Rto);
        }
        // The controller hears of the segments marked lost before the timeout itself, as
        // Linux's `tcp_enter_loss` marks them (`tcp_timeout_mark_lost`) before it calls
        // `ssthresh` and sets `TCP_CA_Loss`.
        if self.sampling.is_some() {
            self.report_losses(now);
        }
        self.cc.on_rto(&loss);
        self.force_retx = true;
    }

    /// Whether a timeout keeps ssthresh (RFC 5681 §3.1). When the timer has already resent
    /// the first unacknowledged segment (the recovery of an earlier timeout is unfinished),
    /// "the value of ssthresh is held constant". Otherwise ssthresh must be set to *no
    /// more than* `max(FlightSize/2, 2*SMSS)` (eq. 4); during SACK fast recovery FlightSize
    /// also counts the segments sent and SACKed since recovery began while a lost
    /// retransmission held HighACK back (it can be many times cwnd after a second of
    /// RFC 6675 §5 step C), so eq. 4 would raise the ssthresh this loss episode set
    /// (RFC 6675 §5 step 4.2): keep the lower value. Linux does the same (`tcp_enter_loss`
    /// leaves ssthresh alone when the timeout falls inside a recovery episode).
    fn rto_holds_ssthresh(&self, flight_size: u64) -> bool {
        self.rto_recovery
            || (self.in_recovery
                && half_flight(flight_size, u64::from(self.smss)) >= self.cc.ssthresh())
    }

    /// RFC 6298 §5.2/§5.3: stop the timer when nothing is outstanding,
    /// otherwise restart it on an ACK of new data.
    pub(super) fn rearm_rto(&mut self, now: SimTime) {
        self.rto_deadline = self
            .sb
            .iter()
            .any(|s| !s.probe)
            .then(|| now + self.rtt.rto());
    }

    /// Starts the persist timer when the peer's window is closed with data
    /// waiting and nothing else outstanding; stops it when the window
    /// opens, resending an unanswered probe byte at once.
    pub(super) fn update_persist(&mut self, now: SimTime) {
        if !self.state.is_synchronized() {
            return;
        }
        // Whether data other than a probe is outstanding is asked last: it reads the
        // scoreboard, and the window is almost never zero.
        if self.snd_wnd == 0 && self.send.unsent() > 0 && !self.sb.iter().any(|s| !s.probe) {
            if self.persist_deadline.is_none() {
                self.persist_backoff = 0;
                self.persist_deadline = Some(now + self.persist_interval());
                self.rto_deadline = None;
            }
        } else if self.snd_wnd > 0 && self.persist_deadline.is_some() {
            self.persist_deadline = None;
            self.persist_backoff = 0;
            if self.sb.end_probing() {
                self.sb.mark_first_lost(RetransmitKind::Probe);
                self.force_retx = true;
            }
        }
    }
}
