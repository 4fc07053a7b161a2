//! PROBE_RTT's hold, alike in BBR v1 and v3 (tcp_bbr.c `bbr_update_min_rtt`, its PROBE_RTT
//! part; draft-ietf-ccwg-bbr "ProbeRTT", `BBRHandleProbeRTT`): once the flight is down to
//! PROBE_RTT's window, the window is held for 200 ms and until a packet-timed round has
//! passed.

use crate::time::SimTime;

/// The hold's state (`probe_rtt_done_stamp`, `probe_rtt_round_done`).
#[derive(Clone, Debug, Default)]
pub(in crate::cc) struct ProbeRttHold {
    done_stamp: Option<SimTime>,
    round_done: bool,
}

impl ProbeRttHold {
    /// Entering PROBE_RTT: no hold yet.
    pub(in crate::cc) fn enter(&mut self) {
        self.done_stamp = None;
    }

    /// A sample in PROBE_RTT at `now` with `in_flight` packets, PROBE_RTT's window being
    /// `window` packets; `round_start` when the sample starts a round. When the hold begins a
    /// new round starts with it (`next_rtt_delivered` = `delivered`, the connection's
    /// delivered count). True once a round has passed in the hold: PROBE_RTT may end if
    /// 200 ms have too.
    pub(in crate::cc) fn step(
        &mut self,
        now: SimTime,
        (in_flight, window): (u64, u64),
        round_start: bool,
        (next_rtt_delivered, delivered): (&mut u64, u64),
    ) -> bool {
        if self.done_stamp.is_none() {
            if in_flight <= window {
                self.done_stamp = Some(now + super::PROBE_RTT_TIME);
                self.round_done = false;
                *next_rtt_delivered = delivered;
            }
            return false;
        }
        self.round_done |= round_start;
        self.round_done
    }

    /// The 200 ms have passed (`after(tcp_jiffies32, probe_rtt_done_stamp)`).
    pub(in crate::cc) fn expired(&self, now: SimTime) -> bool {
        self.done_stamp.is_some_and(|d| now > d)
    }
}
