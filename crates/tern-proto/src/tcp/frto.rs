//! F-RTO, forward RTO-recovery: detection of spurious retransmission
//! timeouts (RFC 5682), and the Eifel response (RFC 4015 §2) to a timeout
//! found spurious. Enabled by [`Config::frto`](super::Config::frto).
//!
//! A timeout is spurious when the segments it declared lost were only
//! delayed, e.g. after a sudden rise of the path's RTT (a handover into a
//! congested cell) past a stale RTO. Conventional recovery (RFC 5681 §3.1,
//! RFC 6298 §5) then halves ssthresh, collapses cwnd to one segment and
//! resends the whole window, go-back-N, although it was delivered. F-RTO
//! retransmits only the first segment and lets the next two ACKs decide:
//! if they acknowledge segments that were never retransmitted, the timeout
//! was spurious and the sender goes on with new data.
//!
//! The SACK-enhanced algorithm (RFC 5682 §3) runs when SACK was negotiated,
//! the basic one (§2) otherwise. Steps and where they live:
//!
//! * **Step 1** (`frto_on_rto`, called by `on_rto`): on the
//!   timeout retransmit only the first unacknowledged segment (SACK
//!   scoreboard reset as for any RTO). Not entered, and conventional RTO
//!   recovery is used instead, when an earlier recovery is unfinished:
//!   §2: "already in RTO recovery AND recover >= SND.UNA"; §3:
//!   "RecoveryPoint >= SND.UNA" (fast or RTO recovery). A timeout that
//!   expires again while waiting in step 2 goes back to step 1 (§3 step 2
//!   says so; we do the same in §2, where waiting in step 2 is not
//!   conventional RTO recovery): the first segment is resent once more and
//!   F-RTO goes on. A timeout after step 2b takes conventional recovery
//!   (`recover` / RecoveryPoint, set in step 2, is then >= SND.UNA).
//! * **Step 2** (`frto_on_ack`, first ACK): store the highest
//!   sequence number sent so far in `recover` / RecoveryPoint. **2a**:
//!   conventional recovery if the ACK acknowledges everything outstanding
//!   (it "covers recover"), or, basic algorithm only, if it is a duplicate
//!   ACK or does not acknowledge all of the segment resent in step 1; the
//!   SACK-enhanced algorithm instead stays in step 2 on those, the SACK
//!   information having updated the scoreboard. **2b**: otherwise send up
//!   to two new, previously unsent segments (when the receiver's window
//!   and the application allow: [`Connection::poll_transmit`] sends them
//!   ahead of everything but forced retransmissions, outside cwnd and
//!   without sender SWS avoidance, RFC 5682 §2 step 2b) and go to step 3.
//!   With no new data to send, or a closed window, take the recommended
//!   action of §2 step 2b / §3 step 2b: conventional recovery (the
//!   alternatives of Appendix A are not implemented).
//! * **Step 3** (second ACK; other kinds of ACK, e.g. window updates or
//!   data from the peer, are ignored). **3b**, spurious: basic, the ACK
//!   advances the window; SACK-enhanced, it acknowledges (cumulatively or
//!   by SACK) data not acknowledged before, and nothing above
//!   RecoveryPoint. **3a**, otherwise: conventional recovery.
//!
//! "Conventional recovery" taken up by F-RTO marks lost the window that
//! was outstanding at the timeout, minus the segment F-RTO already resent
//! and anything SACKed, and lets slow start resend it; new segments sent
//! in step 2b are not resent (a genuine loss of those is left to the
//! timer). Until then the congestion controller ran exactly as in
//! conventional recovery (cwnd 1 SMSS after the timeout, at most +1 SMSS
//! per new ACK in slow start): F-RTO only chooses which segments to send.
//! On falling back in step 2 cwnd is capped at 2 SMSS ("like a regular TCP
//! would do", §3 step 2a); in step 3a it is set to 3 SMSS, the most the RFC
//! allows ("two round-trip times have elapsed since the RTO, and a
//! conventional TCP sender would have increased cwnd to 3", §2 step 3a):
//! the two new segments may still be in flight, and without SACK nothing
//! takes them out of `pipe`.
//!
//! **Response** (RFC 4015 §2, on 3b; [`Event::SpuriousRto`],
//! [`Stats::spurious_rtos`](super::Stats::spurious_rtos)):
//!
//! * before the first timeout updates cwnd and ssthresh, save
//!   `pipe_prev = max(FlightSize, ssthresh)`, `SRTT_prev = SRTT + 2G`,
//!   `RTTVAR_prev = RTTVAR`, and a copy of the congestion controller
//!   (backed-off timeouts that stay in F-RTO keep the first copy);
//! * (DET) is F-RTO; a detection sets SpuriousRecovery to SPUR_TO;
//! * step (8), "resume the transmission with previously unsent data"
//!   (SND.NXT <- SND.MAX): F-RTO marked only the first segment lost, so
//!   after detection nothing is queued for retransmission and new data
//!   follows;
//! * "reverse the congestion control state": `cwnd <- FlightSize +
//!   min(bytes_acked, IW)`, `ssthresh <- pipe_prev`, applied to the saved
//!   controller so CUBIC also gets back W_max, K, its epoch and W_est
//!   (RFC 9438 §4.9). No ECN is modelled, so the ECN-Echo exception does
//!   not arise;
//! * RTO re-initialisation: on the first RTT sample from an ACK of data
//!   sent after the timeout, `SRTT <- max(SRTT_prev, m)`,
//!   `RTTVAR <- max(RTTVAR_prev, m/2)`, `RTO <- SRTT + max(G, 4*RTTVAR)`,
//!   so the timer stops firing early on the longer path. RTT samples keep
//!   coming from timestamps (RFC 7323) or Karn's rule as before.
//!
//! **Linux's response** ([`SpuriousRtoResponse::LinuxUndo`]) replaces the Eifel response
//! on 3b: cwnd and ssthresh go back to the larger of their current values and the ones
//! saved at the timeout (`prior_cwnd`, `prior_ssthresh`), the controller keeps the state
//! the timeout gave it, and the RTO is not re-initialised (see the variant's
//! documentation for the kernel functions).
//!
//! With the basic algorithm, step 3b also sets `recover <- SND.UNA` (RFC
//! 5682 §2), so a loss after the spurious timeout can be repaired by fast
//! retransmit at once; the SACK-enhanced algorithm keeps RecoveryPoint as
//! set in step 2.
//!
//! **Restored connectivity** (`rlci`, [`Config::rlci`](super::Config::rlci)):
//! the speculative retransmission happens only while no ACK has arrived
//! since the timeout, i.e. in step 1 / waiting for the first ACK of step 2
//! (`AwaitFirstAck`). It resends the same segment step 1 resent, exactly
//! as a further timeout in step 2 does ("back to step 1"), so F-RTO goes on
//! unchanged: the segment's ACK is still "the first ACK after the
//! retransmission" and never counts as evidence of a spurious timeout,
//! which needs ACKs of never-retransmitted data. The state saved for the
//! Eifel response is kept. With
//! [`Config::rlci_reset_path`](super::Config::rlci_reset_path), a link-up
//! abandons F-RTO (`frto_abandon`, conventional recovery) and drops a
//! pending Eifel RTO re-initialisation: both would restore the old path's
//! congestion and RTT state onto the new path.

use super::{Connection, Event, RetransmitKind, SpuriousRtoResponse};
use crate::cc::{CongestionControl, FrtoFallbackEvent, SpuriousRtoEvent};
use crate::time::SimTime;

/// The kind of an acceptable ACK, as F-RTO steps 2 and 3 tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AckKind {
    /// Advances SND.UNA.
    New,
    /// A duplicate ACK (RFC 5681 §2; with SACK, RFC 6675 §2).
    Dup,
    /// Neither (a window update, an ACK riding on data): ignored.
    Other,
}

/// One ACK as F-RTO sees it, after the scoreboard has been updated.
#[derive(Clone, Copy, Debug)]
pub(super) struct AckInfo {
    pub kind: AckKind,
    /// SND.UNA before this ACK.
    pub prev_una: u64,
    /// The cumulative acknowledgment (an offset).
    pub ack: u64,
    /// Bytes newly SACKed by this ACK.
    pub newly_sacked: u64,
    /// Highest right edge among this ACK's SACK blocks (0 if none).
    pub sack_high: u64,
}

/// Where the algorithm stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Step 1 done (first unacknowledged segment resent); waiting for the
    /// first new ACK (step 2).
    AwaitFirstAck,
    /// Step 2b done (up to two new segments sent); waiting for the next ACK
    /// (step 3).
    AwaitSecondAck,
}

/// Where F-RTO gave up (it bounds cwnd differently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fallback {
    Step2,
    Step3,
}

/// State kept before the first timeout of an episode for the Eifel
/// response (RFC 4015 §2).
#[derive(Debug)]
struct Saved {
    /// `pipe_prev = max(FlightSize, ssthresh)`.
    pipe_prev: u64,
    /// `SRTT_prev = SRTT + 2*G` (none before any RTT sample).
    srtt_prev: Option<SimTime>,
    /// `RTTVAR_prev = RTTVAR`.
    rttvar_prev: SimTime,
    /// The congestion controller as it was.
    cc: Box<dyn CongestionControl>,
    /// Linux's `prior_cwnd` (`tcp_enter_loss`): cwnd before the timeout.
    prior_cwnd: u64,
    /// Linux's `prior_ssthresh = tcp_current_ssthresh()` at the timeout.
    prior_ssthresh: u64,
}

/// F-RTO in progress.
#[derive(Debug)]
pub(super) struct Frto {
    step: Step,
    /// SND.NXT when the first timeout fired: data below it was sent before
    /// the timeout (the "highest sequence number transmitted so far" of
    /// §2 step 1).
    high: u64,
    /// End of the segment resent in step 1.
    retx_end: u64,
    /// `recover` / RecoveryPoint as stored in step 2.
    recovery_point: u64,
    /// New segments still to be sent under step 2b.
    new_quota: u8,
    saved: Saved,
}

/// Pending RTO re-initialisation of the Eifel response (RFC 4015 §2).
#[derive(Clone, Copy, Debug)]
pub(super) struct EifelRto {
    srtt_prev: SimTime,
    rttvar_prev: SimTime,
    /// Data at or above this offset was sent after the timeout.
    sent_after: u64,
}

impl Connection {
    /// RFC 5682 step 1, on a data retransmission timeout, before the
    /// congestion controller reacts. Returns whether F-RTO handles this
    /// timeout (retransmit only the first segment) rather than conventional
    /// recovery.
    pub(super) fn frto_on_rto(&mut self) -> bool {
        if !self.cfg.frto {
            return false;
        }
        match self.frto.as_ref().map(|f| f.step) {
            // Expired again in step 2: back to step 1, whose test gives the
            // same answer as before (nothing moved recover / RecoveryPoint).
            // The state saved before the first timeout is kept.
            Some(Step::AwaitFirstAck) => return true,
            // After step 2b, recover / RecoveryPoint >= SND.UNA.
            Some(Step::AwaitSecondAck) => {
                self.frto = None;
                return false;
            }
            None => {}
        }
        let unfinished = self.send.snd_una < self.recover;
        let blocked = if self.sack_ok {
            // §3 step 1: RecoveryPoint >= SND.UNA.
            unfinished
        } else {
            // §2 step 1: already in RTO recovery AND recover >= SND.UNA.
            self.rto_recovery && unfinished
        };
        let Some(first) = self.sb.first() else {
            return false;
        };
        if blocked {
            return false;
        }
        let retx_end = first.end();
        let ssthresh = self.cc.ssthresh();
        let saved = Saved {
            pipe_prev: self.sb.flight_size().max(ssthresh),
            srtt_prev: self
                .rtt
                .srtt()
                .map(|s| s + self.rtt.granularity().saturating_mul(2)),
            rttvar_prev: self.rtt.rttvar(),
            cc: self.cc.boxed_clone(),
            prior_cwnd: self.cc.cwnd(),
            prior_ssthresh: self.current_ssthresh(),
        };
        if !self.sack_ok {
            // §2 step 1: store the highest sequence number sent in recover.
            self.recover = self.send.snd_nxt;
        }
        self.frto = Some(Box::new(Frto {
            step: Step::AwaitFirstAck,
            high: self.send.snd_nxt,
            retx_end,
            recovery_point: self.recover,
            new_quota: 0,
            saved,
        }));
        true
    }

    /// Linux's `tcp_current_ssthresh` (include/net/tcp.h): in a window reduction (an
    /// unfinished fast recovery) ssthresh; otherwise max(ssthresh, ¾·cwnd), the three
    /// quarters taken in whole segments as `(cwnd >> 1) + (cwnd >> 2)`.
    fn current_ssthresh(&self) -> u64 {
        let ssthresh = self.cc.ssthresh();
        if self.send.snd_una < self.recover && !self.rto_recovery {
            return ssthresh;
        }
        let smss = u64::from(self.smss);
        let segs = self.cc.cwnd() / smss;
        ssthresh.max(((segs >> 1) + (segs >> 2)) * smss)
    }

    /// Whether F-RTO is running (fast recovery is not entered meanwhile:
    /// RFC 5682 §3 step 2 only updates the scoreboard on duplicate ACKs).
    pub(super) fn frto_active(&self) -> bool {
        self.frto.is_some()
    }

    /// Steps 2 and 3 for one acceptable ACK, after SND.UNA, the scoreboard
    /// and the congestion controller have processed it.
    pub(super) fn frto_on_ack(&mut self, now: SimTime, a: &AckInfo) {
        let Some(f) = self.frto.as_ref() else {
            return;
        };
        match f.step {
            Step::AwaitFirstAck => match a.kind {
                AckKind::Other => {}
                // §2 step 2a: a duplicate ACK, or an ACK not covering all
                // of the segment resent in step 1. §3 step 2: wait for the
                // ACK of the retransmitted data; the SACK information has
                // been applied to the scoreboard.
                AckKind::Dup => {
                    if !self.sack_ok {
                        self.frto_conventional(now, Fallback::Step2);
                    }
                }
                AckKind::New if a.ack < f.retx_end => {
                    if !self.sack_ok {
                        self.frto_conventional(now, Fallback::Step2);
                    }
                }
                AckKind::New => {
                    // Step 2: recover / RecoveryPoint <- highest sequence
                    // number transmitted so far.
                    let rp = self.send.snd_nxt;
                    self.recover = rp;
                    if a.ack >= rp {
                        // 2a: covers recover (all outstanding data acked).
                        self.frto_conventional(now, Fallback::Step2);
                    } else if self.frto_can_send_new() {
                        // 2b: up to two new segments, then step 3.
                        if let Some(f) = self.frto.as_mut() {
                            f.recovery_point = rp;
                            f.step = Step::AwaitSecondAck;
                            f.new_quota = 2;
                        }
                    } else {
                        // 2b, nothing new can be sent: conventional.
                        self.frto_conventional(now, Fallback::Step2);
                    }
                }
            },
            Step::AwaitSecondAck => {
                let rp = f.recovery_point;
                let spurious = match (a.kind, self.sack_ok) {
                    (AckKind::Other, _) => return,
                    // §2 step 3b: the ACK advances the window.
                    (AckKind::New, false) => true,
                    // §2 step 3a: a duplicate ACK.
                    (AckKind::Dup, false) => false,
                    // §3 step 3b: acknowledges (cumulatively or by SACK)
                    // data not acknowledged before, and nothing above
                    // RecoveryPoint; else 3a (also a duplicate ACK without
                    // new SACK information below RecoveryPoint).
                    (_, true) => {
                        let beyond = a.ack > rp || a.sack_high > rp;
                        !beyond && (a.ack > a.prev_una || a.newly_sacked > 0)
                    }
                };
                if spurious {
                    self.frto_spurious(now, a);
                } else {
                    self.frto_conventional(now, Fallback::Step3);
                }
            }
        }
    }

    /// Step 2b can send something new: unsent data with room in the peer's
    /// window, or a FIN not yet sent.
    fn frto_can_send_new(&self) -> bool {
        if self.send.unsent() == 0 {
            return self.send.fin_pending();
        }
        let wnd_room = (self.send.snd_una + self.snd_wnd).saturating_sub(self.send.snd_nxt);
        wnd_room > 0
    }

    /// Takes one of the step 2b transmissions, if any is left.
    pub(super) fn frto_take_new_quota(&mut self) -> bool {
        match self.frto.as_mut() {
            Some(f) if f.new_quota > 0 => {
                f.new_quota -= 1;
                true
            }
            _ => false,
        }
    }

    /// Gives up the remaining step 2b transmissions (nothing left to send).
    pub(super) fn frto_drop_new_quota(&mut self) {
        if let Some(f) = self.frto.as_mut() {
            f.new_quota = 0;
        }
    }

    /// Back to conventional RTO recovery (RFC 5682 steps 2a, 2b without new
    /// data, 3a): resend in slow start the window outstanding at the
    /// timeout, except the segment already resent and SACKed data.
    fn frto_conventional(&mut self, now: SimTime, at: Fallback) {
        if !self.frto_abandon() {
            return;
        }
        let smss = u64::from(self.smss);
        let cwnd = match at {
            // §3 step 2a: "no more than 2 * MSS, like a regular TCP".
            Fallback::Step2 => self.cc.cwnd().min(2 * smss),
            // §2/§3 step 3a: "no more than 3 * MSS".
            Fallback::Step3 => 3 * smss,
        };
        if cwnd != self.cc.cwnd() {
            self.cc.on_frto_fallback(&FrtoFallbackEvent { now, cwnd });
        }
    }

    /// Gives up F-RTO for conventional RTO recovery, leaving cwnd alone:
    /// marks lost the window outstanding at the timeout, except the segment
    /// already resent and SACKed data. Returns whether F-RTO was running.
    /// `frto_conventional` then bounds cwnd; restored connectivity with
    /// [`Config::rlci_reset_path`](super::Config::rlci_reset_path) calls it
    /// directly to give up without a verdict because the path changed (the
    /// congestion controller is being restarted).
    pub(super) fn frto_abandon(&mut self) -> bool {
        let Some(f) = self.frto.take() else {
            return false;
        };
        self.sb
            .mark_lost_range(f.retx_end, f.high, RetransmitKind::Rto);
        // RFC 6582 §3.2 step 1 / RFC 6675 §5.1, as at any RTO.
        self.recover = self.send.snd_nxt;
        self.rto_recovery = true;
        true
    }

    /// Step 3b: the timeout was spurious; the Eifel response (RFC 4015 §2) or Linux's undo
    /// ([`SpuriousRtoResponse`]).
    fn frto_spurious(&mut self, now: SimTime, a: &AckInfo) {
        let Some(f) = self.frto.take() else {
            return;
        };
        if !self.sack_ok {
            // RFC 5682 §2 step 3b: recover <- SND.UNA.
            self.recover = self.send.snd_una;
        }
        self.rto_recovery = false;
        match self.cfg.spurious_rto_response {
            SpuriousRtoResponse::Eifel => {
                // "Reverse the congestion control state":
                // cwnd <- FlightSize + min(bytes_acked, IW); ssthresh <- pipe_prev.
                let bytes_acked = a.ack - a.prev_una;
                let iw = self.cfg.initial_window.bytes(self.smss);
                let ev = SpuriousRtoEvent {
                    now,
                    cwnd: self.sb.flight_size() + bytes_acked.min(iw),
                    ssthresh: f.saved.pipe_prev,
                };
                let mut cc = f.saved.cc;
                cc.on_spurious_rto(&ev);
                self.cc = cc;
                // The RTO re-initialisation waits for a sample of new data.
                self.eifel_rto = f.saved.srtt_prev.map(|srtt_prev| {
                    Box::new(EifelRto {
                        srtt_prev,
                        rttvar_prev: f.saved.rttvar_prev,
                        sent_after: f.high,
                    })
                });
            }
            SpuriousRtoResponse::LinuxUndo => {
                // tcp_undo_cwnd_reduction: cwnd <- undo_cwnd() = max(cwnd, prior_cwnd);
                // ssthresh <- prior_ssthresh if larger. The controller stays as the
                // timeout left it.
                let ev = SpuriousRtoEvent {
                    now,
                    cwnd: self.cc.cwnd().max(f.saved.prior_cwnd),
                    ssthresh: self.cc.ssthresh().max(f.saved.prior_ssthresh),
                };
                self.cc.on_spurious_rto(&ev);
            }
        }
        self.stats.spurious_rtos += 1;
        self.events.push_back(Event::SpuriousRto {
            cwnd: self.cwnd(),
            ssthresh: self.ssthresh(),
        });
    }

    /// RTT sample `r` from an ACK up to `ack`: applies the Eifel RTO
    /// re-initialisation when it is the first sample for data sent after a
    /// spurious timeout. Returns false when the sample is left to RFC 6298.
    pub(super) fn eifel_rtt_sample(&mut self, ack: u64, r: SimTime) -> bool {
        match self.eifel_rto.as_deref() {
            Some(&e) if ack > e.sent_after => {
                self.eifel_rto = None;
                self.rtt
                    .restart_after_spurious_rto(e.srtt_prev, e.rttvar_prev, r);
                self.report_rtt(r);
                true
            }
            _ => false,
        }
    }
}
