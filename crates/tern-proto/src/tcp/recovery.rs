//! Loss recovery strategies, separate from congestion control.
//!
//! * [`Recovery::NewReno`]: RFC 6582 fast retransmit / fast recovery with
//!   partial ACKs (the "careful" variant of §3.2 step 1 is applied by the
//!   connection through `recover`). During recovery the window is inflated
//!   by one SMSS per duplicate ACK (RFC 6582 §3.2 steps 2-5), kept here as
//!   `inflation` on top of the controller's cwnd.
//! * [`Recovery::Sack`]: RFC 6675 conservative SACK-based recovery. Loss is
//!   inferred by IsLost() over the scoreboard, the sending limit is
//!   `cwnd - pipe`, and NextSeg() sends lost segments first (rule 1), then
//!   new data (rule 2). Rules 3 and 4 (rescue retransmissions) are not
//!   implemented: the RTO covers those cases.

use super::scoreboard::Scoreboard;
use super::RetransmitKind;

/// The recovery strategy of one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    NewReno {
        /// Window adjustment during fast recovery: +1 SMSS per duplicate
        /// ACK, minus data acknowledged by partial ACKs (may be negative).
        inflation: i64,
    },
    Sack,
}

impl Recovery {
    pub fn new(sack: bool) -> Self {
        if sack {
            Recovery::Sack
        } else {
            Recovery::NewReno { inflation: 0 }
        }
    }

    /// Whether the loss-recovery trigger fired: DupThresh duplicate ACKs
    /// (RFC 5681 §3.2 step 2), or with SACK also IsLost(HighACK+1)
    /// (RFC 6675 §5 step 3).
    pub fn should_enter(&self, dupacks: u32, sb: &Scoreboard, dup_thresh: u32, smss: u32) -> bool {
        match self {
            Recovery::NewReno { .. } => dupacks == dup_thresh,
            Recovery::Sack => dupacks >= dup_thresh || sb.first_is_lost(dup_thresh, smss),
        }
    }

    /// Enter recovery: the first unacked segment is retransmitted at once
    /// (RFC 5681 §3.2 step 4 / RFC 6675 §5 step 4.2).
    pub fn on_enter(&mut self, sb: &mut Scoreboard, dup_thresh: u32, smss: u32) {
        sb.mark_first_lost(RetransmitKind::Fast);
        match self {
            // RFC 6582 §3.2 step 2: cwnd = ssthresh + 3*SMSS.
            Recovery::NewReno { inflation } => *inflation = i64::from(dup_thresh) * i64::from(smss),
            Recovery::Sack => sb.mark_lost_rfc6675(dup_thresh, smss, RetransmitKind::SackRecovery),
        }
    }

    /// A further duplicate ACK during recovery.
    pub fn on_dupack(&mut self, sb: &mut Scoreboard, dup_thresh: u32, smss: u32) {
        match self {
            // RFC 6582 §3.2 step 3: inflate by one SMSS.
            Recovery::NewReno { inflation } => *inflation += i64::from(smss),
            Recovery::Sack => sb.mark_lost_rfc6675(dup_thresh, smss, RetransmitKind::SackRecovery),
        }
    }

    /// A partial ACK (advances HighACK but not past `recover`). Returns
    /// true when the first unacked segment must be resent immediately.
    pub fn on_partial_ack(
        &mut self,
        sb: &mut Scoreboard,
        acked: u64,
        dup_thresh: u32,
        smss: u32,
    ) -> bool {
        match self {
            // RFC 6582 §3.2 step 5: retransmit the first unacked segment,
            // deflate by the amount acked, add back one SMSS if >= SMSS acked.
            Recovery::NewReno { inflation } => {
                sb.mark_first_lost(RetransmitKind::Fast);
                *inflation -= acked as i64;
                if acked >= u64::from(smss) {
                    *inflation += i64::from(smss);
                }
                true
            }
            Recovery::Sack => {
                sb.mark_lost_rfc6675(dup_thresh, smss, RetransmitKind::SackRecovery);
                false
            }
        }
    }

    /// Recovery ended (full ACK or RTO): deflate the window (RFC 6582
    /// §3.2 step 6 option 2, cwnd = ssthresh).
    pub fn on_exit(&mut self) {
        if let Recovery::NewReno { inflation } = self {
            *inflation = 0;
        }
    }

    /// Window added on top of the controller's cwnd.
    pub fn inflation(&self) -> i64 {
        match self {
            Recovery::NewReno { inflation } => *inflation,
            Recovery::Sack => 0,
        }
    }
}
