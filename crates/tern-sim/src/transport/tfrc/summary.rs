//! What TFRC adds to its flows' summaries: the sender's and receiver's counters (`tfrc`).

use crate::summary::{FlowSummary, KindSummary, TransportSummary};
use serde::Serialize;

/// A TFRC flow's part of its summary, flattened into the flow's fields.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The TFRC sender's and receiver's counters (TFRC and DCCP flows).
    pub tfrc: TfrcSummary,
}

/// A TFRC flow has no bounded transfer.
impl KindSummary for Summary {}

/// A TFRC flow (RFC 5348; DCCP CCID 3, RFC 4342): the sender's rate control and the
/// receiver's loss events.
#[derive(Clone, Debug, Serialize)]
pub struct TfrcSummary {
    /// "dccp" or "udp".
    pub wire: &'static str,
    /// From the flow's start to the DCCP handshake completing at the client (0 over UDP).
    pub handshake_time_s: Option<f64>,
    pub data_packets_sent: u64,
    /// Messages the application offered while the send buffer was full, dropped there.
    pub send_buffer_drops: u64,
    pub feedback_received: u64,
    pub nofeedback_expiries: u64,
    /// Payload bytes of the data packets sent.
    pub data_bytes_sent: u64,
    /// The allowed rate X at the end.
    pub final_rate_bps: f64,
    /// The receiver's loss event rate p at the end (RFC 5348 §5.4).
    pub final_p: f64,
    pub loss_events: u64,
    /// Data packets the receiver found missing (RFC 5348 §5.1).
    pub lost_packets: u64,
    pub final_rtt_s: Option<f64>,
}

impl FlowSummary {
    /// The TFRC sender's and receiver's counters (TFRC and DCCP flows).
    pub fn tfrc(&self) -> Option<&TfrcSummary> {
        match &self.detail {
            Some(TransportSummary::Tfrc(s)) => Some(&s.tfrc),
            _ => None,
        }
    }
}
