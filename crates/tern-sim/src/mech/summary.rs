//! What a `ConnectionSwitcher` adds to its flow's summary (beside the flow's `tcp`): its
//! counters are plain data in TCP's summary (`transport::tcp::summary`), read here.

use crate::summary::FlowSummary;
pub use crate::transport::tcp::summary::SwitcherSummary;
use crate::transport::TransportSummary;

impl FlowSummary {
    /// What a `ConnectionSwitcher` did (switched flows).
    pub fn switcher(&self) -> Option<&SwitcherSummary> {
        match &self.detail {
            Some(TransportSummary::Tcp(s)) => s.switcher.as_ref(),
            _ => None,
        }
    }
}
