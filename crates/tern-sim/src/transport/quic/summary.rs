//! What QUIC adds to its flows' summaries: the connection's counters (`quic`).

use crate::summary::{FlowSummary, KindSummary, TransportSummary};
use indexmap::IndexMap;
use serde::Serialize;

/// A QUIC flow's part of its summary, flattened into the flow's fields.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// The QUIC connection's counters.
    pub quic: QuicSummary,
}

impl KindSummary for Summary {
    fn transfer_time_s(&self) -> Option<f64> {
        self.quic.transfer_time_s
    }
}

/// A QUIC flow's connection: times seen by the applications, and the counters of the
/// endpoint that sends the data (the server for a file transfer, else the client) from the
/// stack's own statistics of its one path.
#[derive(Clone, Debug, Serialize)]
pub struct QuicSummary {
    /// From the flow's start to the client's handshake completing (RFC 9001 §4.1.1).
    pub handshake_time_s: Option<f64>,
    /// From the flow's start to the receiving application's first byte (the response's
    /// first byte at the client, for a file transfer).
    pub first_byte_time_s: Option<f64>,
    /// When the last byte of a bounded bulk transfer (or of a file response) was read.
    pub completion_time_s: Option<f64>,
    /// `completion_time_s` less the flow's start, handshake included.
    pub transfer_time_s: Option<f64>,
    /// QUIC packets sent (several may share a UDP datagram, RFC 9000 §12.2).
    pub packets_sent: u64,
    /// Packets declared lost (RFC 9002 §6.1), MTU probes included.
    pub packets_lost: u64,
    pub bytes_lost: u64,
    pub datagrams_sent: u64,
    /// UDP payload bytes sent.
    pub udp_bytes_sent: u64,
    /// Congestion events (RFC 9002 §7.3.2: at most one per round trip).
    pub congestion_events: u64,
    pub final_cwnd: u64,
    /// The largest UDP payload the path was found to carry.
    pub final_mtu: u64,
    /// Smoothed RTT (RFC 9002 §5.3) at the end.
    pub final_srtt_s: Option<f64>,
    /// How and when the connection ended before the run did (absent if it was still open):
    /// an error, or the idle timeout of a connection the applications left open once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub connection_closed: Option<ConnectionEnd>,
    /// Multipath QUIC: each path by its client interface's name (`via`), so the results
    /// store has a column per path and field (`quic_paths_wlan_udp_bytes_received`). Counts
    /// above are their sums; the cwnd, MTU and RTT above are path 0's.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub paths: IndexMap<String, QuicPathSummary>,
}

/// One path of a multipath QUIC flow at the end of a run, from the stack's statistics at the
/// endpoint that sends the data (and received bytes at the other).
#[derive(Clone, Debug, Serialize)]
pub struct QuicPathSummary {
    /// Its index in the flow's `transport.paths`.
    pub path: u64,
    /// The client's status of the path at the end: "available", "backup" or "closed"
    /// (abandoned).
    pub status: String,
    /// UDP payload bytes the data's sender sent on it, and its receiver received.
    pub udp_bytes_sent: u64,
    pub udp_bytes_received: u64,
    pub packets_sent: u64,
    pub packets_lost: u64,
    pub final_cwnd: u64,
    pub final_srtt_s: Option<f64>,
}

/// How a QUIC connection ended (RFC 9000 §10): the first endpoint whose stack reported it
/// lost (noq's `Event::ConnectionLost`).
#[derive(Clone, Debug, Serialize)]
pub struct ConnectionEnd {
    /// Simulated time of the report (s).
    pub at_s: f64,
    /// "client" or "server".
    pub endpoint: &'static str,
    /// The stack's words for it: an idle timeout ("timed out", §10.1), an error this
    /// endpoint closed the connection for ("the endpoint encountered an internal error …:
    /// too many gaps in stream buffer"), or the peer's CONNECTION_CLOSE ("closed by peer: …").
    pub reason: String,
}

impl FlowSummary {
    /// The QUIC connection's counters (QUIC flows).
    pub fn quic(&self) -> Option<&QuicSummary> {
        match &self.detail {
            Some(TransportSummary::Quic(s)) => Some(&s.quic),
            _ => None,
        }
    }
}
