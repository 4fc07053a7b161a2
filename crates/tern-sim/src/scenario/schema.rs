//! The scenario file format, defined once: serde reads it (unknown keys are
//! rejected), schemars prints it as JSON Schema (`tern schema`).
//!
//! Defaults that stand for a tool or a standard say so beside the field.

pub(crate) mod defaults;
mod flow;
mod link;
mod trace;
mod wifi;

pub use flow::*;
pub use link::*;
pub use trace::*;
pub use wifi::*;

use super::units::Duration;
use defaults::*;
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
    /// IEEE 802.11 BSSs: an access point and its stations on one shared channel.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wifi: Vec<WifiSpec>,
    /// Stations moving between the BSSs they are listed in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roaming: Vec<RoamingSpec>,
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

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    /// Where the node is, in metres `[x, y, z]` (default the origin). Radio nodes' SNR
    /// follows from the distance between them (see `wifi.propagation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 3]>,
    /// How the node moves from `position`: pauses and straight walks, in order (e.g. stay
    /// 3 s at the AP, then walk away at 10 m/s: `[{ pause = "3s" }, { walk_to = [100, 0, 0],
    /// speed = 10 }]`). Default: it stays.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<MoveSpec>,
    /// Emulation only (`tern emulate`): the node is a real Linux host, a network namespace
    /// whose TUN device's packets enter Tern at this node, with an address in 198.18.0.0/15
    /// (RFC 2544 §C.2.2's benchmarking range). A simulation ignores it. Default: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub real: bool,
    /// Emulation only: shell commands run in the real node's namespace when the run starts,
    /// side by side; `{name}` stands for the address of node `name` (e.g.
    /// `"ping -c 10 {server}"`). The run ends when they have all ended, or at
    /// `sim.duration`. Default: none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<String>,
}

/// One leg of a node's path.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(
    untagged,
    deny_unknown_fields,
    expecting = "a leg: { pause = \"3s\" } or { walk_to = [x, y, z], speed = metres per second }"
)]
pub enum MoveSpec {
    /// Stay where it is for this long.
    Pause { pause: Duration },
    /// Walk in a straight line to `walk_to` (metres) at `speed` (m/s).
    Walk { walk_to: [f64; 3], speed: f64 },
}
