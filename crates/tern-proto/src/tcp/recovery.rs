//! Loss recovery strategies, separate from congestion control.
//!
//! * [`Recovery::Reno`]: the fast retransmit / fast recovery of RFC 5681
//!   §3.2 (RFC 2581 §3.2 before it) as 4.4BSD-Lite implements it
//!   (duplicate-ACK processing in `tcp_input.c`; Stevens & Wright, *TCP/IP
//!   Illustrated Vol. 2*, ch. 29):
//!   the third duplicate ACK retransmits the first unacknowledged segment
//!   and sets cwnd = ssthresh + 3·SMSS, each further duplicate ACK adds one
//!   SMSS, and the first ACK of new data — partial or not — deflates cwnd
//!   to ssthresh and ends recovery (RFC 5681 §3.2 step 6). A second loss in
//!   the same window needs three new duplicate ACKs (a second fast
//!   retransmit and a second halving) or the RTO. There is no `recover`
//!   point: that guard is NewReno's (RFC 6582 §3.2 step 1).
//! * [`Recovery::NewReno`]: RFC 6582 fast retransmit / fast recovery with
//!   partial ACKs (the "careful" variant of §3.2 step 1 is applied by the
//!   connection through `recover`). During recovery the window is inflated
//!   by one SMSS per duplicate ACK (RFC 6582 §3.2 steps 2-5), kept here as
//!   `inflation` on top of the controller's cwnd.
//! * [`Recovery::Sack`]: RFC 6675 conservative SACK-based recovery. Loss is
//!   inferred by IsLost() over the scoreboard, the sending limit is
//!   `cwnd - pipe`, and NextSeg() sends lost segments first (rule 1), then
//!   new data (rule 2). Rules 3 and 4 (rescue retransmissions) are not
//!   implemented: the RTO covers those cases. With [`Config::prr`], what each
//!   ACK lets recovery send is Proportional Rate Reduction's (RFC 9937,
//!   [`Prr`]) instead of `cwnd - pipe`.
//!
//! [`Config::prr`]: super::Config::prr

use super::prr::Prr;
use super::scoreboard::Scoreboard;
use super::RetransmitKind;

/// Recovery without SACK (with SACK negotiated, RFC 6675 is used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RecoveryKind {
    /// RFC 6582: partial ACKs retransmit the next hole and keep recovery.
    #[default]
    NewReno,
    /// RFC 5681 §3.2 / 4.4BSD-Lite: the first new ACK ends recovery.
    Reno,
}

/// What a partial ACK during recovery asks of the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialAck {
    /// Stay in recovery and resend the first unacknowledged segment now.
    Retransmit,
    /// Stay in recovery; the strategy chooses what to send.
    Stay,
    /// Leave recovery (Reno).
    Exit,
}

/// The recovery strategy of one connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recovery {
    Reno {
        /// +1 SMSS per duplicate ACK (RFC 5681 §3.2 steps 4-5).
        inflation: i64,
    },
    NewReno {
        /// Window adjustment during fast recovery: +1 SMSS per duplicate
        /// ACK, minus data acknowledged by partial ACKs (may be negative).
        inflation: i64,
    },
    Sack {
        /// Proportional Rate Reduction's state during a recovery episode, when it is
        /// on (`None` otherwise, or outside recovery).
        prr: Option<Prr>,
        /// PRR is on ([`super::Config::prr`]).
        use_prr: bool,
    },
}

impl Recovery {
    pub fn new(sack: bool, kind: RecoveryKind, use_prr: bool) -> Self {
        match (sack, kind) {
            (true, _) => Recovery::Sack { prr: None, use_prr },
            (false, RecoveryKind::NewReno) => Recovery::NewReno { inflation: 0 },
            (false, RecoveryKind::Reno) => Recovery::Reno { inflation: 0 },
        }
    }

    /// Whether a new recovery may start only once HighACK has passed the
    /// previous `recover` point (RFC 6582 §3.2 step 1, RFC 6675 §5). Reno
    /// has no such point (RFC 5681 §3.2; 4.4BSD-Lite counts duplicate ACKs
    /// afresh after every new ACK).
    pub fn guards_recover_point(&self) -> bool {
        !matches!(self, Recovery::Reno { .. })
    }

    /// Whether the loss-recovery trigger fired: DupThresh duplicate ACKs
    /// (RFC 5681 §3.2 step 2), or with SACK also IsLost(HighACK+1)
    /// (RFC 6675 §5 step 3).
    #[inline]
    pub fn should_enter(&self, dupacks: u32, sb: &Scoreboard, dup_thresh: u32, smss: u32) -> bool {
        match self {
            Recovery::Reno { .. } | Recovery::NewReno { .. } => dupacks == dup_thresh,
            Recovery::Sack { .. } => dupacks >= dup_thresh || sb.first_is_lost(dup_thresh, smss),
        }
    }

    /// Enter recovery: the first unacked segment is retransmitted at once
    /// (RFC 5681 §3.2 step 4 / RFC 6675 §5 step 4.2).
    /// With PRR, `recover_fs` is its RecoverFS (RFC 9937 §4).
    pub fn on_enter(&mut self, sb: &mut Scoreboard, dup_thresh: u32, smss: u32, recover_fs: u64) {
        sb.mark_first_lost(RetransmitKind::Fast);
        match self {
            // RFC 5681 §3.2 step 3 / RFC 6582 §3.2 step 2: cwnd = ssthresh + 3*SMSS.
            Recovery::Reno { inflation } | Recovery::NewReno { inflation } => {
                *inflation = i64::from(dup_thresh) * i64::from(smss)
            }
            Recovery::Sack { prr, use_prr } => {
                *prr = use_prr.then(|| Prr::enter(recover_fs));
                sb.mark_lost_rfc6675(dup_thresh, smss, RetransmitKind::SackRecovery)
            }
        }
    }

    /// PRR's state while it governs what recovery sends.
    pub fn prr(&mut self) -> Option<&mut Prr> {
        match self {
            Recovery::Sack { prr, .. } => prr.as_mut(),
            _ => None,
        }
    }

    /// What recovery may send now, if PRR decides it (RFC 9937 `sndcnt`).
    pub fn prr_allowance(&self) -> Option<u64> {
        match self {
            Recovery::Sack { prr: Some(p), .. } => Some(p.allowance()),
            _ => None,
        }
    }

    /// A further duplicate ACK during recovery.
    pub fn on_dupack(&mut self, sb: &mut Scoreboard, dup_thresh: u32, smss: u32) {
        match self {
            // RFC 5681 §3.2 step 4 / RFC 6582 §3.2 step 3: inflate by one SMSS.
            Recovery::Reno { inflation } | Recovery::NewReno { inflation } => {
                *inflation += i64::from(smss)
            }
            Recovery::Sack { .. } => {
                sb.mark_lost_rfc6675(dup_thresh, smss, RetransmitKind::SackRecovery)
            }
        }
    }

    /// A partial ACK (advances HighACK but not past `recover`).
    pub fn on_partial_ack(
        &mut self,
        sb: &mut Scoreboard,
        acked: u64,
        dup_thresh: u32,
        smss: u32,
    ) -> PartialAck {
        match self {
            // RFC 5681 §3.2 step 6: any ACK of new data ends recovery,
            // cwnd = ssthresh (4.4BSD-Lite `tcp_input.c`, TCP/IP
            // Illustrated Vol. 2 ch. 29; the deflation is `on_exit`).
            Recovery::Reno { .. } => PartialAck::Exit,
            // RFC 6582 §3.2 step 5: retransmit the first unacked segment,
            // deflate by the amount acked, add back one SMSS if >= SMSS acked.
            Recovery::NewReno { inflation } => {
                sb.mark_first_lost(RetransmitKind::Fast);
                *inflation -= acked as i64;
                if acked >= u64::from(smss) {
                    *inflation += i64::from(smss);
                }
                PartialAck::Retransmit
            }
            Recovery::Sack { .. } => {
                sb.mark_lost_rfc6675(dup_thresh, smss, RetransmitKind::SackRecovery);
                PartialAck::Stay
            }
        }
    }

    /// Recovery ended (full ACK, Reno's first new ACK, or RTO): deflate the
    /// window (RFC 5681 §3.2 step 6; RFC 6582 §3.2 step 6 option 2:
    /// cwnd = ssthresh).
    pub fn on_exit(&mut self) {
        match self {
            Recovery::Reno { inflation } | Recovery::NewReno { inflation } => *inflation = 0,
            Recovery::Sack { prr, .. } => *prr = None,
        }
    }

    /// Window added on top of the controller's cwnd.
    pub fn inflation(&self) -> i64 {
        match self {
            Recovery::Reno { inflation } | Recovery::NewReno { inflation } => *inflation,
            Recovery::Sack { .. } => 0,
        }
    }
}
