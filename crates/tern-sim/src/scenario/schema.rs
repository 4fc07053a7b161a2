//! The scenario file format, defined once: serde reads it (unknown keys are
//! rejected), schemars prints it as JSON Schema (`tern schema`).
//!
//! Defaults that stand for a tool or a standard say so beside the field.

use super::units::{Bytes, DataRate, Duration, QueueLimit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A Tern experiment: a topology, the traffic on it, and what to record.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub sim: SimSpec,
    /// The hosts and routers; names are referred to by links, flows and routes.
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// Explicit routes; where none is given, packets follow the path with the
    /// fewest hops (ties broken by the order of the links in the file).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<RouteSpec>,
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Traces to write as tables (one Parquet file each).
    #[serde(default)]
    pub record: Vec<RecordKind>,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Simulated time at which the run stops.
    pub duration: Duration,
    /// Master seed; every component draws from its own stream derived from it.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The Tern version that resolved this scenario (written into `scenario.toml`
    /// of a run; informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tern_version: Option<String>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
}

/// A full-duplex point-to-point link; each direction has its own queue.
/// "forward" is `ends[0]` → `ends[1]`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub name: String,
    pub ends: [String; 2],
    pub rate: DataRate,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Transmit queue of each direction. Default: DropTail, 100 packets (the
    /// default of ns-3's point-to-point device queue).
    #[serde(default)]
    pub queue: QueueSpec,
    /// IP MTU of the link (default 1500 B, Ethernet).
    #[serde(default = "default_mtu")]
    pub mtu: Bytes,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossSpec>,
    /// Changes of rate or delay at given times.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<LinkChange>,
}

fn default_mtu() -> Bytes {
    Bytes(1500)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Both directions, each with its own state and random stream.
    #[default]
    Both,
    /// `ends[0]` → `ends[1]`.
    Forward,
    /// `ends[1]` → `ends[0]`.
    Reverse,
}

impl Direction {
    pub fn covers_forward(self) -> bool {
        self != Direction::Reverse
    }
    pub fn covers_reverse(self) -> bool {
        self != Direction::Forward
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum QueueSpec {
    /// First in, first out; arrivals to a full queue are dropped.
    Droptail { limit: QueueLimit },
    /// Controlled Delay AQM, RFC 8289.
    Codel {
        /// Acceptable standing queue delay (RFC 8289 §4.4: 5 ms).
        #[serde(default = "codel_target")]
        target: Duration,
        /// Sliding window over which the minimum sojourn is taken (RFC 8289 §4.5: 100 ms).
        #[serde(default = "codel_interval")]
        interval: Duration,
        /// Hard limit; arrivals beyond it are tail-dropped (Linux default: 1000 packets).
        #[serde(default = "codel_limit")]
        limit: QueueLimit,
    },
}

impl Default for QueueSpec {
    fn default() -> Self {
        QueueSpec::Droptail {
            limit: QueueLimit::Packets(100),
        }
    }
}

fn codel_target() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(5))
}
fn codel_interval() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(100))
}
fn codel_limit() -> QueueLimit {
    QueueLimit::Packets(1000)
}

/// Packet loss on a link, decided per packet when its last bit reaches the
/// receiving end (as ns-3's receive error models do).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LossSpec {
    /// Each packet is lost independently with probability `p`.
    Bernoulli {
        p: f64,
        #[serde(default)]
        direction: Direction,
    },
    /// Two-state Markov burst loss (Gilbert 1960, Elliott 1963), stepped once
    /// per packet: the state moves first, then the packet is lost with the new
    /// state's loss probability.
    GilbertElliott {
        /// P(good → bad) per packet.
        good_to_bad: f64,
        /// P(bad → good) per packet; the mean sojourn in bad is `1 / bad_to_good` packets.
        bad_to_good: f64,
        /// Loss probability in the good state (default 0).
        #[serde(default)]
        loss_good: f64,
        /// Loss probability in the bad state (default 1).
        #[serde(default = "one")]
        loss_bad: f64,
        #[serde(default)]
        direction: Direction,
    },
    /// Everything is dropped from `at` for `for`.
    Outage {
        windows: Vec<OutageWindow>,
        #[serde(default)]
        direction: Direction,
    },
}

impl LossSpec {
    /// The directions the model applies to.
    pub fn direction(&self) -> Direction {
        match self {
            LossSpec::Bernoulli { direction, .. }
            | LossSpec::GilbertElliott { direction, .. }
            | LossSpec::Outage { direction, .. } => *direction,
        }
    }
}

fn one() -> f64 {
    1.0
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageWindow {
    pub at: Duration,
    #[serde(rename = "for")]
    pub length: Duration,
}

/// A change of a link's rate and/or delay at time `at`. A packet already being
/// serialized or propagated keeps the old values.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkChange {
    pub at: Duration,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    #[serde(default)]
    pub direction: Direction,
}

/// Packets from `node` to `to` leave over link `via`.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub node: String,
    pub to: String,
    pub via: String,
}

/// An application talking from one node to another over a transport.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    pub name: String,
    pub from: String,
    pub to: String,
    pub app: AppSpec,
    #[serde(default)]
    pub transport: TransportSpec,
    /// When the application starts (default 0 s).
    #[serde(default = "zero")]
    pub start: Duration,
    /// When the application stops sending (default: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
}

fn zero() -> Duration {
    Duration(tern_proto::time::SimTime::ZERO)
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum AppSpec {
    /// A message of `size` every `interval`; each carries its send time and a
    /// sequence number, and the receiver records its one-way delay.
    Periodic {
        size: Bytes,
        interval: Duration,
        /// Stop after this many messages (default: until `stop` or the end).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        count: Option<u64>,
    },
    /// Constant bit rate: messages of `size` spaced `size * 8 / rate` apart.
    Cbr { rate: DataRate, size: Bytes },
    /// Echo request every `interval`, answered by the far end; RTTs are recorded.
    Ping {
        /// Payload size (default 56 B, as iputils ping).
        #[serde(default = "ping_size")]
        size: Bytes,
        /// Default 1 s, as iputils ping.
        #[serde(default = "ping_interval")]
        interval: Duration,
    },
}

fn ping_size() -> Bytes {
    Bytes(56)
}
fn ping_interval() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(1))
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum TransportSpec {
    /// UDP (RFC 768): 8-byte header, no delivery guarantee.
    #[default]
    Udp,
}

/// Trace tables a run can record.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Deserialize, Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// Queue length (packets, bytes) of every link direction at every change.
    Queue,
    /// One-way delay of every message delivered to an application.
    Delay,
    /// Every dropped packet, with where and why.
    Drops,
    /// Round-trip times of ping replies.
    Rtt,
}

impl RecordKind {
    pub fn table_name(self) -> &'static str {
        match self {
            RecordKind::Queue => "queue",
            RecordKind::Delay => "delay",
            RecordKind::Drops => "drops",
            RecordKind::Rtt => "rtt",
        }
    }
}
