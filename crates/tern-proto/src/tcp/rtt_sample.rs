//! Which RTT sample an ACK gives, by the configured [`RttSource`]: the timestamp echo
//! first (RFC 7323 §4.1) or the acknowledged segments' send times first (Linux 3.13 on,
//! net/ipv4/tcp_input.c `tcp_ack_update_rtt`).
//!
//! Call order, within `process_ack`: the SACK blocks are applied first
//! ([`Scoreboard::apply_sack_timed`](super::scoreboard::Scoreboard::apply_sack_timed)),
//! then an ACK of new data takes [`Connection::new_ack_rtt`] after removing what it
//! acknowledges, and any other ACK [`Connection::sack_only_rtt`], before loss recovery
//! reads the ACK (as `tcp_clean_rtx_queue` runs before `tcp_fastretrans_alert`).

use super::config::RttSource;
use super::scoreboard::{Acked, Sacked};
use super::{Connection, Segment};
use crate::time::SimTime;

/// The RTT samples of one ACK of new data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct AckRtt {
    /// For the RTO estimator (Linux's `seq_rtt`).
    pub estimator: Option<SimTime>,
    /// For the congestion controller (Linux's `ca_rtt_us`).
    pub controller: Option<SimTime>,
    /// For the delivery-rate sample (Linux's `rs->rtt_us`).
    pub rate: Option<SimTime>,
}

impl Connection {
    /// The timestamp echo's RTT, when timestamps are in use and the segment has one.
    fn ts_echo_rtt(&self, now: SimTime, seg: &Segment) -> Option<SimTime> {
        match (self.ts_ok, seg.options.timestamps) {
            (true, Some((_, tsecr))) => Some(self.ts_sample(now, tsecr)),
            _ => None,
        }
    }

    /// RTT sample of the handshake's last segment. [`RttSource::TsEcrFirst`]: the TS
    /// echo, else the SYN's (SYN-ACK's) send time if it was not retransmitted (Karn).
    /// [`RttSource::PacketTimingFirst`]: the other way round (Linux: `tcp_clean_rtx_queue`
    /// acknowledging the SYN in SYN-SENT; `tcp_synack_rtt_meas` in SYN-RECV, which takes
    /// the SYN-ACK's time unless the connection retransmitted, `total_retrans`).
    pub(super) fn handshake_rtt(&self, now: SimTime, seg: &Segment) -> Option<SimTime> {
        let timed = (self.syn_retries == 0)
            .then_some(self.syn_sent_at)
            .flatten()
            .map(|t| now.saturating_sub(t));
        let echo = self.ts_echo_rtt(now, seg);
        match self.cfg.rtt_source {
            RttSource::TsEcrFirst => echo.or(timed),
            RttSource::PacketTimingFirst => timed.or(echo),
        }
    }

    /// The samples of an ACK of new data that removed `acked` from the queue and newly
    /// SACKed `sacked`.
    pub(super) fn new_ack_rtt(
        &self,
        now: SimTime,
        seg: &Segment,
        acked: &Acked,
        sacked: &Sacked,
    ) -> AckRtt {
        let since = |t: SimTime| now.saturating_sub(t);
        match self.cfg.rtt_source {
            RttSource::TsEcrFirst => {
                let karn = acked.karn_sample_from().map(since);
                let estimator = self.ts_echo_rtt(now, seg).or(karn);
                // The rate sample times the newest acknowledged segment to the nanosecond
                // (timestamps tick in milliseconds).
                AckRtt {
                    estimator,
                    controller: estimator,
                    rate: karn.or(estimator),
                }
            }
            RttSource::PacketTimingFirst => {
                // `tcp_clean_rtx_queue`: seq_rtt and ca_rtt from first_ackt and last_ackt
                // unless retransmitted data was acknowledged; then from the SACKed ones.
                let (mut seq, mut ca) = match acked.retransmitted {
                    false => (acked.first_sent.map(since), acked.last_sent.map(since)),
                    true => (None, None),
                };
                if sacked.first_sent.is_some() {
                    ca = sacked.last_sent.map(since);
                }
                // `tcp_ack_update_rtt`: the SACK sample, then the echo (this ACK acknowledges
                // new data).
                seq = seq.or(sacked.first_sent.map(since));
                if seq.is_none() {
                    seq = self.ts_echo_rtt(now, seg);
                    ca = seq;
                }
                AckRtt {
                    estimator: seq,
                    controller: ca,
                    rate: ca,
                }
            }
        }
    }

    /// [`RttSource::PacketTimingFirst`] on an ACK that acknowledges nothing new: the
    /// lowest newly SACKed segment's RTT feeds the estimator and the rate sample, and
    /// restarts the retransmission timer if that segment was sent before the first
    /// unacknowledged one was last sent (`tcp_clean_rtx_queue`: "Do not re-arm RTO if the
    /// sack RTT is measured from data sent after when the head was last (re)transmitted").
    /// Nothing with [`RttSource::TsEcrFirst`].
    pub(super) fn sack_only_rtt(&mut self, now: SimTime, sacked: &Sacked) {
        if self.cfg.rtt_source != RttSource::PacketTimingFirst {
            return;
        }
        let Some(first) = sacked.first_sent else {
            return;
        };
        let r = now.saturating_sub(first);
        self.take_rtt_sample(r);
        if let Some(s) = self.sampling.as_deref_mut() {
            let ca = sacked.last_sent.map_or(r, |t| now.saturating_sub(t));
            s.ack_rtt = Some(ca);
            s.min_rtt = Some(s.min_rtt.map_or(ca, |m| m.min(ca)));
        }
        if self.sb.first().is_some_and(|head| first < head.sent_at) {
            self.rearm_rto(now);
        }
    }
}
