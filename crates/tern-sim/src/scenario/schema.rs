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

fn default_seed() -> u64 {
    1
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

/// An IEEE 802.11 BSS: the access point `ap` and its `stations`, all on one channel (every
/// member hears every other: no hidden terminals). Each station is joined to the AP by a
/// link named `<bss>-<station>` whose forward direction is the uplink. Routes treat those
/// like any other link.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiSpec {
    pub name: String,
    pub ap: String,
    pub stations: Vec<String>,
    pub standard: WifiStandard,
    /// 802.11b only: the data rate of every Data frame, 1, 2, 5.5 or 11 Mbit/s (default
    /// 11 Mbit/s). Acks go at the highest basic rate (1 or 2 Mbit/s) not above it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    /// 802.11b only: PLCP preamble, "long" (default, 192 µs) or "short" (96 µs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<PreambleSpec>,
    /// 802.11n only: "5GHz" (default) or "2.4GHz".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<BandSpec>,
    /// 802.11n only: channel width in MHz, 20 (default) or 40.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// 802.11n only: "long" (800 ns, default) or "short" (400 ns) guard interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_interval: Option<GuardIntervalSpec>,
    /// 802.11n only: spatial streams of every member, 1 (default, MCS 0–7) or 2 (MCS 0–15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<u8>,
    /// 802.11n only: how each sender picks the MCS of an A-MPDU (default Minstrel-HT, the
    /// Linux mac80211 default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_control: Option<RateControlSpec>,
    /// MAC transmit queue of each member, in packets (default 500, the size of ns-3's
    /// WifiMacQueue).
    #[serde(default = "wifi_queue")]
    pub queue: u32,
    /// Attempts before a frame is dropped: 802.11b per frame (default 7,
    /// dot11ShortRetryLimit), 802.11n per MPDU (default 30, ATH_MAX_SW_RETRIES of the Linux
    /// ath9k driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_limit: Option<u32>,
    /// MSDU lifetime: a packet still in the MAC queue this long after it entered is
    /// discarded (dot11EDCATableMSDULifetime, IEEE 802.11-2020 Annex C; default 512 ms = 500 TU, the
    /// standard's default; ns-3's WifiMacQueue MaxDelay is 500 ms). "0s" turns it off.
    #[serde(default = "msdu_lifetime")]
    pub lifetime: Duration,
    /// 802.11n only: A-MPDU limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ampdu: Option<AmpduSpec>,
    /// A fixed probability that an MPDU is received in error, on top of the SNR-based
    /// errors (default 0): for calibration.
    #[serde(default)]
    pub mpdu_error: f64,
    /// How the SNR between members follows from their positions.
    #[serde(default)]
    pub propagation: PropagationSpec,
}

/// A station's moves between the BSSs it is listed in. A station starts associated with
/// the first `[[wifi]]` BSS that lists it. A roam (IEEE 802.11-2020 §11.3.5.4,
/// reassociation) takes the station away from its AP for `disconnect` (scanning,
/// authentication, reassociation; the distribution system learns the new place at the
/// end): meanwhile its MAC queue keeps what it has and what it is given, up to its limit,
/// and sends nothing; the old AP discards what it held for the station and refuses more.
/// Either scheduled (`at`, `to`) or triggered by the RSSI of the APs' beacons
/// (`rssi_below`).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoamingSpec {
    /// A name, for `--set roaming.<name>.disconnect=3s`.
    pub name: String,
    pub station: String,
    /// Scheduled: when the station leaves its AP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Duration>,
    /// Scheduled: the BSS it joins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// RSSI-triggered: at every beacon interval (102.4 ms) at which its AP's beacons arrive
    /// weaker than this (dBm), the station roams to the strongest other AP of its BSSs, if
    /// that one is at least `hysteresis` stronger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rssi_below: Option<f64>,
    /// RSSI-triggered: dB a candidate AP must be stronger than the current one (default 5 dB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hysteresis: Option<f64>,
    /// Time without an association.
    pub disconnect: Duration,
}

fn msdu_lifetime() -> Duration {
    Duration(tern_proto::time::SimTime::from_micros(500 * 1024))
}

fn wifi_queue() -> u32 {
    500
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum WifiStandard {
    #[serde(rename = "802.11b")]
    Dot11b,
    #[serde(rename = "802.11n")]
    Dot11n,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PreambleSpec {
    Long,
    Short,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum BandSpec {
    #[serde(rename = "2.4GHz")]
    Ghz2_4,
    #[serde(rename = "5GHz")]
    Ghz5,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GuardIntervalSpec {
    Long,
    Short,
}

/// Rate adaptation of an 802.11n sender.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum RateControlSpec {
    /// Always this MCS (0–15).
    Constant { mcs: u8 },
    /// The best MCS for the current SNR, known exactly (an oracle).
    Ideal,
    /// Minstrel-HT-like: success-probability statistics per MCS, throughput ranking, sampling.
    Minstrel,
}

/// A-MPDU limits of an 802.11n sender.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AmpduSpec {
    /// MPDUs per A-MPDU, 1–64 (default 64, the HT Block Ack window).
    #[serde(default = "ampdu_mpdus")]
    pub max_mpdus: u32,
    /// PSDU bytes, up to 65 535 (default).
    #[serde(default = "ampdu_bytes")]
    pub max_bytes: u32,
    /// PPDU duration (default 5.484 ms, the HT-mixed L-SIG limit; Linux ath9k uses 4 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_duration: Option<Duration>,
}

fn ampdu_mpdus() -> u32 {
    64
}
fn ampdu_bytes() -> u32 {
    65_535
}

/// Log-distance path loss (Rappaport eq. 4.69) from positions to SNR. Defaults are ns-3's
/// YansWifiChannelHelper::Default() and YansWifiPhy: exponent 3, reference loss at 1 m from
/// Friis at the band's frequency, transmit power 16.0206 dBm, noise figure 7 dB.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PropagationSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
    /// Loss at 1 m, dB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_loss: Option<f64>,
    /// Transmit power of every member, dBm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_power: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_figure: Option<f64>,
    /// Standard deviation of log-normal shadowing, dB (default 0: none); one draw per
    /// `shadowing_interval` (default 1 s) and member pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowing: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shadowing_interval: Option<Duration>,
}

/// A full-duplex point-to-point link; each direction has its own queue.
/// "forward" is `ends[0]` → `ends[1]`. With `cell`, the link is an LTE cell
/// bearer whose UE is `ends[0]` (forward = uplink).
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
    /// The reverse direction's own rate, delay or queue, for asymmetric links
    /// (e.g. an LTE downlink faster than its uplink); unset fields follow the forward direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverse: Option<ReverseSpec>,
    /// Makes the link an LTE cell bearer with handovers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<CellSpec>,
    /// Makes the link a W-CDMA radio bearer with RLC acknowledged mode
    /// between `ends[0]` (the UE) and `ends[1]` (the RNC). `rate` is then the
    /// bearer's RLC payload rate (e.g. 384 kbit/s) and `delay` the one-way
    /// radio and processing delay of a PDU after its TTI; `queue` is not used
    /// (the RLC sender buffer is `rlc.buffer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rlc: Option<RlcSpec>,
}

/// RLC acknowledged mode (3GPP TS 25.322) on a W-CDMA bearer. Defaults: the
/// Release-99 interactive/background PS RAB of TS 34.108 §6.10 (336-bit
/// transport blocks, 10 ms TTI) with RLC parameters allowed by TS 25.331
/// §10.3.4 (see `tern_proto::rlc::Config` for each choice).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RlcSpec {
    /// AMD PDU size, header included (default 42 B: 40 B payload + 2 B header).
    #[serde(default = "pdu42")]
    pub pdu_size: Bytes,
    /// Transmission time interval (default 10 ms).
    #[serde(default = "ms10")]
    pub tti: Duration,
    /// Fixed processing delay per IP packet, after reassembly (default 0).
    #[serde(default = "zero")]
    pub sdu_delay: Duration,
    /// PDU errors on the radio (Bernoulli or Gilbert–Elliott, per PDU,
    /// STATUS PDUs included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdu_loss: Option<LossSpec>,
    /// Sender buffer per entity (default unbounded, as the study's RNC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
    /// Configured_Tx_Window_Size (and the receiver's window), in PDUs.
    #[serde(default = "window512")]
    pub window: u16,
    /// MaxDAT: a PDU is sent at most MaxDAT − 1 times, then its SDUs are discarded.
    #[serde(default = "maxdat15")]
    pub max_dat: u32,
    /// Timer_Poll.
    #[serde(default = "ms200")]
    pub timer_poll: Duration,
    /// Poll every this many PDUs (default: not configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_pdu: Option<u32>,
    /// Timer_Status_Prohibit.
    #[serde(default = "ms100")]
    pub timer_status_prohibit: Duration,
}

fn pdu42() -> Bytes {
    Bytes(42)
}
fn ms10() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(10))
}
fn window512() -> u16 {
    512
}
fn maxdat15() -> u32 {
    15
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReverseSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueSpec>,
}

/// An LTE cell bearer between a UE (`ends[0]`) and the network (`ends[1]`):
/// the uplink and downlink bearers are the link's two directions, and the UE
/// hands over between cells. Each handover is a burst-loss period (radio link
/// failure and re-establishment, in which every packet of the affected
/// directions is lost) ending when the handover completes; at completion the
/// new cell's rate and delay take effect and the UE gets a "handover
/// complete" event (the cell-id change the lte-switch study watches).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub handovers: Vec<HandoverSpec>,
    /// A train passing cells: handovers at `first`, `first + every`, ….
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub train: Option<TrainSpec>,
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandoverSpec {
    /// When the handover completes.
    pub at: Duration,
    /// Length of the burst-loss period that ends at `at` (default 3 s, the
    /// loss period measured on a train in the lte-switch study, Fig. 2).
    #[serde(default = "s3")]
    pub burst_loss: Duration,
    /// Directions that lose packets during the burst (default both).
    #[serde(default)]
    pub loss_direction: Direction,
    /// The target cell's uplink bearer, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<BearerSpec>,
    /// The target cell's downlink bearer, where it differs (a congested
    /// target cell has a large delay).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink: Option<BearerSpec>,
}

/// Rate and/or delay of a bearer in a new cell.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BearerSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
}

/// Handovers at regular intervals, as on a train passing cells.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrainSpec {
    /// Completion time of the first handover.
    pub first: Duration,
    pub every: Duration,
    /// Number of handovers (default: until the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u32>,
    /// Burst-loss period before each completion (default 3 s, as `handovers`).
    #[serde(default = "s3")]
    pub burst_loss: Duration,
    #[serde(default)]
    pub loss_direction: Direction,
    /// Every target cell's uplink bearer, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uplink: Option<BearerSpec>,
    /// Every target cell's downlink bearer, where it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink: Option<BearerSpec>,
}

impl CellSpec {
    /// Every handover, from the list and the train, in order of completion;
    /// the train's stop at the first whose burst loss starts at or after `end`.
    pub fn all_handovers(&self, end: tern_proto::time::SimTime) -> Vec<HandoverSpec> {
        let mut all = self.handovers.clone();
        if let Some(t) = &self.train {
            let count = t.count.map_or(u64::MAX, u64::from);
            let mut at = t.first.0;
            let mut k = 0;
            while k < count && at.saturating_sub(t.burst_loss.0) < end {
                all.push(HandoverSpec {
                    at: Duration(at),
                    burst_loss: t.burst_loss,
                    loss_direction: t.loss_direction,
                    uplink: t.uplink.clone(),
                    downlink: t.downlink.clone(),
                });
                at += t.every.0;
                k += 1;
            }
        }
        all.sort_by_key(|h| h.at.0);
        all
    }
}

fn s3() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(3))
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
    /// Send the messages over two TCP connections and switch to the spare one
    /// after a handover's burst loss (`ConnectionSwitcher`; TCP periodic flows
    /// from the UE of an LTE cell link).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switcher: Option<SwitcherSpec>,
    /// Pins the flow to one interface of a host with several: the name of a link or an
    /// 802.11 BSS that `from` is on. The client's packets leave by it and the server's
    /// arrive by it, whatever the routes say (a host's address on that interface, as a
    /// socket bound to it). Default: the routes decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// `ConnectionSwitcher` settings. Defaults are the lte-switch study's trial
/// parameters (§4: T_recvinterval 3 s, T_switch 10 s, 100 ms message period).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SwitcherSpec {
    /// "notice": switch on the server's loss-start notice (the mechanism);
    /// "oracle": switch exactly when the handover completes (the ideal);
    /// "never": one connection, no notices (the baseline).
    #[serde(default)]
    pub policy: SwitchPolicy,
    /// T_recvinterval: receive gap after which the server sends loss-start notices.
    #[serde(default = "s3")]
    pub recv_interval: Duration,
    /// T_switch: a notice switches only if it arrives within this long after a handover.
    #[serde(default = "s10")]
    pub switch_window: Duration,
    /// Period of repeated notices (the study's downlink message period, 100 ms).
    #[serde(default = "ms100")]
    pub notice_interval: Duration,
    /// UDP payload of a notice (the study's 50-byte downlink messages).
    #[serde(default = "b50")]
    pub notice_size: Bytes,
    /// Whether the spare connection is opened at the start (the study) or
    /// only when switching (an ablation: the cost of the handshake).
    #[serde(default)]
    pub spare: SpareSpec,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SwitchPolicy {
    #[default]
    Notice,
    Oracle,
    Never,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SpareSpec {
    #[default]
    PreEstablished,
    OnDemand,
}

fn s10() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(10))
}
fn ms100() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(100))
}
fn b50() -> Bytes {
    Bytes(50)
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
    /// Constant bit rate: messages of `size` spaced `size * 8 / rate` apart
    /// (the rate counts application payload, as iperf does).
    Cbr { rate: DataRate, size: Bytes },
    /// Bulk transfer over TCP (like iperf): `bytes` in all, or unlimited.
    /// The completion time is recorded.
    Bulk {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bytes: Option<Bytes>,
    },
    /// A page download over TCP: the client sends a request, the server
    /// answers with `size` bytes and closes. The transfer time runs from the
    /// flow's start (connection set-up included) to the last byte read.
    File {
        size: Bytes,
        /// Request size (default 100 B, a short HTTP/1.0 GET line; no study gives one).
        #[serde(default = "request_size")]
        request: Bytes,
    },
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

fn request_size() -> Bytes {
    Bytes(100)
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
    /// TCP (RFC 9293) with the options below.
    Tcp(TcpSpec),
    /// QUIC (RFC 9000/9001/9002) over UDP, with TLS 1.3.
    Quic(super::quic::QuicSpec),
}

impl TransportSpec {
    /// The TCP settings, for a TCP flow; every other transport carries datagrams.
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match self {
            TransportSpec::Tcp(spec) => Some(spec),
            _ => None,
        }
    }

    /// The QUIC settings, for a QUIC flow.
    pub fn quic(&self) -> Option<&super::quic::QuicSpec> {
        match self {
            TransportSpec::Quic(spec) => Some(spec),
            _ => None,
        }
    }

    /// Whether the transport is a reliable byte stream (TCP, QUIC) rather than datagrams.
    pub fn is_stream(&self) -> bool {
        !matches!(self, TransportSpec::Udp)
    }
}

/// A TCP endpoint's settings; both ends of a flow use them. Defaults follow
/// the RFCs, not a particular operating system.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// Congestion control: "newreno" (RFC 5681, RFC 6582) or "cubic" (RFC 9438).
    #[serde(default)]
    pub cc: CcSpec,
    /// SACK (RFC 2018) with RFC 6675 loss recovery; off = NewReno recovery.
    #[serde(default = "yes")]
    pub sack: bool,
    /// Timestamps option (RFC 7323 §3) for RTT samples.
    #[serde(default = "yes")]
    pub timestamps: bool,
    /// Window scale option (RFC 7323 §2).
    #[serde(default = "yes")]
    pub window_scale: bool,
    /// Maximum segment size; default: path MTU − 40 B (RFC 9293 §3.7.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    /// Initial window: a number of segments (RFC 6928 uses 10) or "rfc1122"
    /// (1 segment), "rfc2581" (2), "rfc3390" (min(4·MSS, max(2·MSS, 4380 B))).
    #[serde(default)]
    pub initial_window: InitialWindowSpec,
    /// Delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2).
    #[serde(default = "yes")]
    pub delayed_ack: bool,
    /// Longest an ACK is delayed (RFC 1122 allows up to 500 ms; 200 ms is usual).
    #[serde(default = "ms200")]
    pub delayed_ack_timeout: Duration,
    /// ACK at least every this many full-sized segments (RFC 5681 §4.2: 2).
    #[serde(default = "two")]
    pub delayed_ack_segments: u32,
    /// Lower bound of the RTO (RFC 6298 §2.4: 1 s; Linux uses 200 ms).
    #[serde(default = "s1")]
    pub min_rto: Duration,
    /// Upper bound of the backed-off RTO (RFC 6298 §2.5 allows ≥ 60 s; Linux 120 s).
    #[serde(default = "s60")]
    pub max_rto: Duration,
    /// RTO before the first RTT sample (RFC 6298 §2.1: 1 s).
    #[serde(default = "s1")]
    pub initial_rto: Duration,
    /// Send buffer (bytes the application may have written but not yet acknowledged).
    #[serde(default = "mib1")]
    pub send_buffer: Bytes,
    /// Receive buffer; bounds the advertised window (e.g. 8460B for Windows 98,
    /// 16KiB for FreeBSD 2.2.8, per the wcdma-profile study).
    #[serde(default = "mib1")]
    pub recv_buffer: Bytes,
    /// F-RTO (RFC 5682) detection of spurious retransmission timeouts, with the
    /// Eifel response (RFC 4015). Off by default (RFC 6298 behaviour); Linux,
    /// and so Android, turns it on (`net.ipv4.tcp_frto = 2`).
    #[serde(default)]
    pub frto: bool,
    /// React to the host's link coming back (an 802.11 station joining its new AP, a cellular
    /// handover completing) as draft-schuetz-tcpm-tcp-rlci proposes: if retransmission
    /// timeouts have backed off, retransmit the oldest unacknowledged segment at once and
    /// restart the timer from the un-backed-off RTO. Off by default (standard TCP is not
    /// told of link changes).
    #[serde(default)]
    pub rlci: bool,
    /// Most bytes of this connection queued below TCP in the sender's first-hop
    /// device, as Linux TCP Small Queues (128 KiB, the original
    /// `tcp_limit_output_bytes`). Set it huge (e.g. "1GB") to turn it off.
    #[serde(default = "kib128")]
    pub tsq: Bytes,
}

impl Default for TcpSpec {
    fn default() -> Self {
        toml::from_str("").expect("every TCP field has a default")
    }
}

fn yes() -> bool {
    true
}
fn two() -> u32 {
    2
}
fn ms200() -> Duration {
    Duration(tern_proto::time::SimTime::from_millis(200))
}
fn s1() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(1))
}
fn s60() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(60))
}
fn mib1() -> Bytes {
    Bytes(1 << 20)
}
fn kib128() -> Bytes {
    Bytes(128 * 1024)
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcSpec {
    #[default]
    Newreno,
    Cubic,
}

/// TCP's initial window: segments, or the rule of an RFC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum InitialWindowSpec {
    Segments(u32),
    Rule(IwRule),
}

impl Default for InitialWindowSpec {
    fn default() -> Self {
        InitialWindowSpec::Rule(IwRule::Rfc3390)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IwRule {
    /// One segment (RFC 1122).
    Rfc1122,
    /// Two segments (RFC 2581).
    Rfc2581,
    /// min(4·MSS, max(2·MSS, 4380 B)) (RFC 2414, RFC 3390).
    Rfc3390,
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
    /// TCP congestion window, ssthresh and bytes in flight at every change.
    Cwnd,
    /// TCP SRTT, RTTVAR and RTO at every RTT sample.
    Rto,
    /// Every TCP retransmission (fast, RTO, SACK recovery, probe) and RTO expiry.
    Retransmits,
    /// Every completed handover of a cellular link.
    Handovers,
    /// `ConnectionSwitcher` events: notices sent and received, switches.
    Switcher,
    /// RLC AM per TTI and direction: sender buffer, PDUs sent and retransmitted;
    /// and (table `rlc_sdu`) every SDU's delay across the RLC.
    Rlc,
    /// 802.11: every PPDU on the air (sender, receiver, kind, rate and MCS, MPDUs sent and
    /// acknowledged, collision, the receiver's SNR).
    Wifi,
    /// 802.11: every MPDU a receiver's PHY delivered, with a good or a bad FCS, and its
    /// sequence number (what a receiver's driver sees).
    #[serde(rename = "wifi_rx")]
    WifiRx,
    /// 802.11 roaming: every time a station leaves an AP or joins one.
    Roaming,
    /// 802.11: the RSSI of every AP's beacons at each of its stations, every beacon
    /// interval (102.4 ms).
    Rssi,
    /// QUIC: each endpoint's congestion window, smoothed RTT and sent/lost packet counts
    /// per path, at every change.
    Quic,
    /// A packet capture per link direction (`<link>.<direction>.pcap`), taken
    /// as each packet starts leaving its interface, with real IPv4/TCP/UDP headers.
    Pcap,
}

impl RecordKind {
    pub fn table_name(self) -> &'static str {
        match self {
            RecordKind::Queue => "queue",
            RecordKind::Delay => "delay",
            RecordKind::Drops => "drops",
            RecordKind::Rtt => "rtt",
            RecordKind::Cwnd => "cwnd",
            RecordKind::Rto => "rto",
            RecordKind::Retransmits => "retransmits",
            RecordKind::Handovers => "handovers",
            RecordKind::Switcher => "switcher",
            RecordKind::Rlc => "rlc",
            RecordKind::Wifi => "wifi",
            RecordKind::WifiRx => "wifi_rx",
            RecordKind::Roaming => "roaming",
            RecordKind::Rssi => "rssi",
            RecordKind::Quic => "quic",
            RecordKind::Pcap => "pcap",
        }
    }
}
