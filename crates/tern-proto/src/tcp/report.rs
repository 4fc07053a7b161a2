//! What a connection reports to its driver: trace records drained with
//! [`Connection::poll_event`] and the counters of [`Connection::stats`].

use super::wire::SeqNum;
use super::State;
#[cfg(doc)]
use super::{Config, Connection};
use crate::time::SimTime;

/// Why a segment was sent again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RetransmitKind {
    /// Fast retransmit (RFC 5681 §3.2) or NewReno partial ACK (RFC 6582).
    Fast,
    /// Retransmission timeout (RFC 6298 §5.4), including SYN retries.
    Rto,
    /// Lost per RFC 6675 IsLost() during SACK recovery.
    SackRecovery,
    /// Zero-window probe resent by the persist timer (RFC 9293 §3.8.6.1).
    Probe,
    /// Speculative retransmission of the oldest unacknowledged segment when
    /// lower-layer connectivity is restored during retransmission-timer
    /// back-off ([`Connection::on_connectivity`], [`Config::rlci`];
    /// draft-schuetz-tcpm-tcp-rlci).
    Speculative,
}

/// Trace records, drained with [`Connection::poll_event`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Effective congestion window (including NewReno inflation), ssthresh or the
    /// pacing rate (bytes per second, `None` when the connection does not pace) changed.
    CwndChanged {
        cwnd: u64,
        ssthresh: u64,
        pacing_rate: Option<u64>,
    },
    RttUpdated {
        srtt: SimTime,
        rttvar: SimTime,
        rto: SimTime,
    },
    Retransmit {
        kind: RetransmitKind,
        seq: SeqNum,
        len: u32,
    },
    /// The retransmission timer fired; `backoff` counts consecutive expiries
    /// and `rto` is the new, backed-off timeout.
    RtoExpired {
        backoff: u32,
        rto: SimTime,
    },
    StateChanged(State),
    /// Fast recovery started; it ends once `recover` is acknowledged.
    RecoveryStarted {
        recover: SeqNum,
    },
    RecoveryEnded,
    /// A new zero-window probe was sent.
    WindowProbe {
        seq: SeqNum,
    },
    /// The connection was reset or gave up after too many retries.
    Aborted,
    /// F-RTO (RFC 5682) found the last retransmission timeout spurious; the
    /// Eifel response (RFC 4015 §2) set the congestion window and ssthresh
    /// to these values and the sender resumes with new data.
    SpuriousRto {
        cwnd: u64,
        ssthresh: u64,
    },
}

/// Counters for reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Stats {
    // The counters every segment moves first: they share a cache line
    // ([`Connection`]'s layout).
    pub segments_sent: u64,
    pub segments_received: u64,
    /// Payload bytes sent, retransmissions included.
    pub bytes_sent: u64,
    /// Sequence space newly acknowledged by the peer (FIN included).
    pub bytes_acked: u64,
    /// Stream bytes received in order.
    pub bytes_delivered: u64,
    pub dupacks_received: u64,
    pub retransmits_fast: u64,
    pub retransmits_rto: u64,
    pub retransmits_sack: u64,
    pub retransmits_probe: u64,
    /// Speculative retransmissions on restored connectivity
    /// ([`RetransmitKind::Speculative`]).
    pub retransmits_speculative: u64,
    pub rto_expiries: u64,
    /// Retransmission timeouts that F-RTO (RFC 5682) found spurious.
    pub spurious_rtos: u64,
    pub window_probes: u64,
    /// Segments dropped by PAWS (RFC 7323 §5.3 R1): a TSval older than TS.Recent.
    pub paws_dropped: u64,
}
