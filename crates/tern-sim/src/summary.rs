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
    /// `tfrc`, and `switcher` beside `tcp` for a switched flow), from its slice's `Summary`
    /// (`transport/<kind>/summary.rs`); none for UDP.
    #[serde(flatten)]
    pub detail: Option<TransportSummary>,
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

/// What a kind of transport adds to its flows' summaries (its slice's `Summary`): fields
/// serialized into the flow's own.
pub trait KindSummary: serde::Serialize {
    /// The time of a bounded transfer that completed, from the flow's start (s); none by
    /// default.
    fn transfer_time_s(&self) -> Option<f64> {
        None
    }
}

/// Makes [`TransportSummary`] from the transports' list
/// ([`with_transports!`](crate::with_transports)): a variant per kind holding its slice's
/// `summary::Summary` (each slice's summary.rs, of this layer).
#[doc(hidden)]
#[macro_export]
macro_rules! transport_summary {
    ( {} $($(#[$doc:meta])* $kind:ident => $slice:ident,)* ) => {
/// What a flow's kind of transport adds to its summary, flattened into the flow's
/// fields (`"tcp": {…}`); none for a kind whose `Summary` is empty.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(untagged)]
pub enum TransportSummary {
    $($kind($crate::transport::$slice::summary::Summary),)*
}

impl TransportSummary {
    /// The time of a bounded transfer that completed, from the flow's start (s).
    pub fn transfer_time_s(&self) -> Option<f64> {
        match self {
            $(TransportSummary::$kind(s) => KindSummary::transfer_time_s(s),)*
        }
    }
}

$(
    impl From<$crate::transport::$slice::summary::Summary> for TransportSummary {
        fn from(s: $crate::transport::$slice::summary::Summary) -> Self {
            TransportSummary::$kind(s)
        }
    }
)*
    };
}

crate::with_transports! { transport_summary {} }
