//! What TCP adds to its flows' summaries: the sending endpoint's counters (`tcp`), and
//! beside them what a `ConnectionSwitcher` above it did (`switcher`).

use crate::summary::{FlowSummary, KindSummary, TransportSummary};
use serde::Serialize;

/// A TCP flow's part of its summary, flattened into the flow's fields.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The sending TCP endpoint's counters (the first connection).
    pub tcp: TcpSummary,
    /// A flow under a `ConnectionSwitcher`: what the switcher did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switcher: Option<SwitcherSummary>,
}

impl KindSummary for Summary {
    fn transfer_time_s(&self) -> Option<f64> {
        self.tcp.transfer_time_s
    }
}

/// Counters of a flow's sending TCP endpoint.
#[derive(Clone, Debug, Serialize)]
pub struct TcpSummary {
    /// When the last byte of a bounded bulk transfer (or of a file response)
    /// reached the receiving application.
    pub completion_time_s: Option<f64>,
    /// `completion_time_s` less the flow's start: the transfer time,
    /// connection set-up included.
    pub transfer_time_s: Option<f64>,
    pub segments_sent: u64,
    pub retransmits_fast: u64,
    pub retransmits_rto: u64,
    pub retransmits_sack: u64,
    /// Duplicate ACKs the sender received (RFC 5681 §2 definition).
    pub dupacks_received: u64,
    pub rto_expiries: u64,
    /// Timeouts F-RTO found spurious (RFC 5682).
    pub spurious_rtos: u64,
    pub final_cwnd: u64,
    pub final_srtt_s: Option<f64>,
    /// Connection state at the end of the run.
    pub state: String,
}

impl FlowSummary {
    /// The sending TCP endpoint's counters (TCP flows; the first connection).
    pub fn tcp(&self) -> Option<&TcpSummary> {
        match &self.detail {
            Some(TransportSummary::Tcp(s)) => Some(&s.tcp),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
/// What a connection switcher above the flow (`mech::switched`) did, filled in by it.
pub struct SwitcherSummary {
    /// When the UE moved new messages to the spare connection.
    pub switched_at_s: Option<f64>,
    pub notices_sent: u64,
    pub notices_received: u64,
    pub handovers_seen: u64,
    /// The spare connection's sending endpoint, once opened.
    pub spare_tcp: Option<TcpSummary>,
}
