//! What a `ConnectionSwitcher` adds to its flow's summary (beside the flow's `tcp`).

use crate::summary::FlowSummary;
use crate::transport::TransportSummary;
use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct SwitcherSummary {
    /// When the UE moved new messages to the spare connection.
    pub switched_at_s: Option<f64>,
    pub notices_sent: u64,
    pub notices_received: u64,
    pub handovers_seen: u64,
    /// The spare connection's sending endpoint, once opened.
    pub spare_tcp: Option<crate::transport::tcp::TcpSummary>,
}

impl FlowSummary {
    /// What a `ConnectionSwitcher` did (switched flows).
    pub fn switcher(&self) -> Option<&SwitcherSummary> {
        match &self.detail {
            Some(TransportSummary::Tcp(s)) => s.switcher.as_ref(),
            _ => None,
        }
    }
}
