//! The summary of a run: per flow and per link direction, written as `summary.json`.
//! These are the types; [`crate::world::report`] fills them in at the end of a run.

use indexmap::IndexMap;
use serde::Serialize;

/// Percentiles of a sample by the nearest-rank method: the p-th percentile
/// is the smallest value with at least p % of the sample at or below it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Distribution {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub max: f64,
}

impl Distribution {
    /// Summarises durations in nanoseconds, reported in seconds.
    pub fn of_nanos(values: &[u64]) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len();
        let rank = |p: u64| v[((p as usize * n).div_ceil(100)).clamp(1, n) - 1] as f64 / 1e9;
        let sum: u128 = v.iter().map(|&x| u128::from(x)).sum();
        Some(Distribution {
            count: n as u64,
            mean: (sum as f64 / n as f64) / 1e9,
            min: v[0] as f64 / 1e9,
            p50: rank(50),
            p90: rank(90),
            p99: rank(99),
            max: v[n - 1] as f64 / 1e9,
        })
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct FlowSummary {
    pub app: &'static str,
    pub transport: &'static str,
    pub from: String,
    pub to: String,
    pub messages_sent: u64,
    pub messages_delivered: u64,
    /// Sent and not delivered by the end of the run: messages_sent − messages_delivered.
    pub messages_lost: u64,
    /// Of the lost messages, those still somewhere in the network when the run ended
    /// (queued, held in a reordering buffer, propagating; over a reliable stream, every
    /// message not delivered).
    pub messages_in_flight: u64,
    pub bytes_sent: u64,
    pub bytes_delivered: u64,
    /// Application bytes delivered × 8 over the flow's own time: for a bounded transfer that
    /// completed (a `bulk` of `bytes`, a `file`), its transfer time (`tcp.transfer_time_s`,
    /// `quic.transfer_time_s`: from the flow's start, connection set-up included, to the last
    /// byte read); otherwise end of run − flow start.
    pub goodput_bps: f64,
    /// Application bytes delivered × 8 / (end of run − flow start), whether or not the
    /// transfer finished earlier: the flow's share of the whole run.
    pub goodput_over_run_bps: f64,
    /// messages_lost / messages_sent.
    pub loss_rate: f64,
    /// One-way delay of delivered messages (data flows), in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_s: Option<Distribution>,
    /// Round-trip times (ping), in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_s: Option<Distribution>,
    /// The counters of the flow's kind of transport, each under its own key (`tcp`, `quic`,
    /// `tfrc`, and `switcher` beside `tcp` for a switched flow); none for UDP.
    #[serde(flatten)]
    pub detail: Option<TransportSummary>,
}

/// What one kind of transport adds to its flows' summaries: written as the fields of the
/// flow (`"tcp": {…}`), not under a key of its own.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum TransportSummary {
    /// The sending TCP endpoint's counters (the first connection).
    Tcp { tcp: TcpSummary },
    /// The QUIC connection's counters.
    Quic { quic: QuicSummary },
    /// The TFRC sender's and receiver's counters (TFRC and DCCP flows).
    Tfrc { tfrc: TfrcSummary },
    /// A flow under a `ConnectionSwitcher`: its first connection's counters and what the
    /// switcher did.
    Switched {
        tcp: TcpSummary,
        switcher: SwitcherSummary,
    },
}

impl TransportSummary {
    /// The time of a bounded transfer that completed, from the flow's start (s).
    pub fn transfer_time_s(&self) -> Option<f64> {
        match self {
            TransportSummary::Tcp { tcp } | TransportSummary::Switched { tcp, .. } => {
                tcp.transfer_time_s
            }
            TransportSummary::Quic { quic } => quic.transfer_time_s,
            TransportSummary::Tfrc { .. } => None,
        }
    }
}

impl FlowSummary {
    /// The sending TCP endpoint's counters (TCP flows; the first connection).
    pub fn tcp(&self) -> Option<&TcpSummary> {
        match &self.detail {
            Some(TransportSummary::Tcp { tcp } | TransportSummary::Switched { tcp, .. }) => {
                Some(tcp)
            }
            _ => None,
        }
    }

    /// The QUIC connection's counters (QUIC flows).
    pub fn quic(&self) -> Option<&QuicSummary> {
        match &self.detail {
            Some(TransportSummary::Quic { quic }) => Some(quic),
            _ => None,
        }
    }

    /// The TFRC sender's and receiver's counters (TFRC and DCCP flows).
    pub fn tfrc(&self) -> Option<&TfrcSummary> {
        match &self.detail {
            Some(TransportSummary::Tfrc { tfrc }) => Some(tfrc),
            _ => None,
        }
    }

    /// What a `ConnectionSwitcher` did (switched flows).
    pub fn switcher(&self) -> Option<&SwitcherSummary> {
        match &self.detail {
            Some(TransportSummary::Switched { switcher, .. }) => Some(switcher),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SwitcherSummary {
    /// When the UE moved new messages to the spare connection.
    pub switched_at_s: Option<f64>,
    pub notices_sent: u64,
    pub notices_received: u64,
    pub handovers_seen: u64,
    /// The spare connection's sending endpoint, once opened.
    pub spare_tcp: Option<TcpSummary>,
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

#[derive(Clone, Debug, Serialize)]
pub struct Drops {
    /// Arrivals to a full queue.
    pub queue: u64,
    /// Dropped by the queue discipline (CoDel).
    pub aqm: u64,
    /// Lost to the link's loss model.
    pub loss: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ChannelSummary {
    pub from: String,
    pub to: String,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub delivered_packets: u64,
    pub drops: Drops,
    /// Time-averaged number of packets waiting (not counting the one in service).
    pub queue_mean_packets: f64,
    pub queue_max_packets: u64,
    pub queue_mean_bytes: f64,
    pub queue_max_bytes: u64,
    /// Fraction of the run the transmitter was busy (an upper bound when the
    /// rate changed during the run; not meaningful on an RLC bearer).
    pub utilization: f64,
    /// What the link's technology adds (a W-CDMA bearer's `rlc`), under its table's key.
    #[serde(flatten)]
    pub detail: Option<crate::scenario::LinkDetail>,
}

/// Up to this many link directions (links and 802.11 associations, each two), every one is
/// in a summary's `links`; past it, only those that carried or dropped a packet.
pub const LIST_EVERY_DIRECTION: usize = 1_000;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub tern_version: &'static str,
    pub seed: u64,
    pub duration_s: f64,
    /// Events executed by the engine.
    pub events: u64,
    /// Packets created (every IP packet, whatever became of it).
    pub packets: u64,
    pub flows: IndexMap<String, FlowSummary>,
    /// Per link, per direction (`forward` = ends[0] → ends[1]). In a network of more than
    /// [`LIST_EVERY_DIRECTION`] directions, those that carried nothing are left out (and
    /// counted in `idle_directions`): the summary grows with what happened, not with the
    /// topology.
    pub links: IndexMap<String, IndexMap<&'static str, ChannelSummary>>,
    /// Link directions left out of `links` for having carried nothing (none in a network of
    /// at most [`LIST_EVERY_DIRECTION`] directions).
    #[serde(skip_serializing_if = "is_zero")]
    pub idle_directions: u64,
    /// Per 802.11 BSS.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub wifi: IndexMap<String, WifiSummary>,
    /// Only in an emulation (`tern emulate`): timing fidelity and the real hosts' packets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emulation: Option<EmulationSummary>,
}

/// How an emulation went: how late the engine ran its events against the wall clock, and
/// what the real hosts sent and received.
#[derive(Clone, Debug, Serialize)]
pub struct EmulationSummary {
    /// Always false: real kernels and applications do not repeat themselves.
    pub deterministic: bool,
    /// Wall time the engine ran, in seconds.
    pub wall_s: f64,
    /// Lateness of the events run: wall time at which each ran minus its due time.
    pub lateness: LatenessSummary,
    /// Whether some event ran later than `lateness.warn_us`: the run fell behind, and its
    /// timing is less faithful than the bound.
    pub behind: bool,
    /// Whether the engine ran with real-time scheduling priority (`SCHED_FIFO`, root only).
    pub realtime_priority: bool,
    /// Packets read from the real nodes' TUN devices and written to them.
    pub packets_in: u64,
    pub bytes_in: u64,
    pub packets_out: u64,
    pub bytes_out: u64,
    /// Real packets not taken in: not IPv4 (or shorter than an IPv4 header), or for an
    /// address that is no real node's.
    pub ignored: u64,
    /// Real packets dropped for want of a route (e.g. during an outage).
    pub unroutable: u64,
    /// Per interop flow (a TCP flow between a Tern node and a real node, Tern's TCP
    /// speaking to the kernel's): what crossed between them.
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub interop: IndexMap<String, InteropSummary>,
}

/// What crossed between a Tern TCP endpoint and a kernel's ([`crate::emu::wire`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct InteropSummary {
    /// The side of the flow whose endpoint is Tern's: `client` (it sends the data) or
    /// `server` (it receives it).
    pub tern_side: &'static str,
    /// Segments Tern's endpoint sent, made into real packets, and their payload bytes.
    pub segments_out: u64,
    pub payload_bytes_out: u64,
    /// Segments that could not be encoded (none expected; each would be a bug).
    pub unencodable: u64,
    /// The kernel's segments that reached Tern's endpoint, parsed.
    pub segments_in: u64,
    /// The kernel's packets dropped as malformed: bad checksum, truncated, bad option.
    pub malformed: u64,
    /// Payload bytes received and checked against the stream pattern, and those that
    /// differed from it (0 for a byte-exact stream).
    pub payload_bytes_checked: u64,
    pub mismatched_bytes: u64,
    /// Payload bytes received before any SYN was seen (no offset to check them at).
    pub payload_bytes_unchecked: u64,
}

/// A lateness distribution, in microseconds (to the microsecond).
#[derive(Clone, Debug, Serialize)]
pub struct LatenessSummary {
    pub events: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
    /// The bound past which the run is reported behind, and the events past it.
    pub warn_us: f64,
    pub over_warn: u64,
    /// The bound past which the run stops with an error.
    pub fail_us: f64,
}

/// The counters of one 802.11 BSS.
#[derive(Clone, Debug, Serialize)]
pub struct WifiSummary {
    /// PPDUs sent (each of the senders in a collision counts).
    pub ppdus: u64,
    /// Slots in which two or more members started sending.
    pub collisions: u64,
    /// MPDU transmissions (first attempts and retries) and those not acknowledged.
    pub mpdus_sent: u64,
    pub mpdus_failed: u64,
    pub dropped_retry_limit: u64,
    pub dropped_queue_full: u64,
    pub dropped_lifetime: u64,
    /// Fraction of the run the medium carried a PPDU or an Ack/BlockAck.
    pub airtime: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        // 1..=100 ns: p50 = 50, p90 = 90, p99 = 99 (nearest rank).
        let v: Vec<u64> = (1..=100).collect();
        let d = Distribution::of_nanos(&v).unwrap();
        assert_eq!(d.p50, 50e-9);
        assert_eq!(d.p90, 90e-9);
        assert_eq!(d.p99, 99e-9);
        assert_eq!(d.min, 1e-9);
        assert_eq!(d.max, 100e-9);
        assert!((d.mean - 50.5e-9).abs() < 1e-18);
        let one = Distribution::of_nanos(&[7]).unwrap();
        assert_eq!((one.p50, one.p99), (7e-9, 7e-9));
    }
}
