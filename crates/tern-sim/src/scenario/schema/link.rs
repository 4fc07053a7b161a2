//! `[[links]]`: point-to-point links, LTE cells, W-CDMA bearers, queues, loss models,
//! schedules, and `[[routes]]`.

use super::super::units::{Bytes, DataRate, Duration, QueueLimit};
use super::defaults::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A full-duplex point-to-point link; each direction has its own queue.
/// "forward" is `ends[0]` → `ends[1]`. With `cell`, the link is an LTE cell
/// bearer whose UE is `ends[0]` (forward = uplink).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub name: String,
    pub ends: [String; 2],
    /// The rate of each direction without a `trace` (required unless both have one).
    #[serde(default = "zero_rate")]
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
    /// Link-layer bytes added to every packet's serialization time in both directions
    /// (default 0 B: a bare IP packet; queue limits in bytes still count IP bytes). ns-3's
    /// `PointToPointNetDevice` puts a 2-byte PPP header (RFC 1661 §2, protocol field only) on
    /// every packet before it times the transmission (ns-3.44,
    /// src/point-to-point/model/point-to-point-net-device.cc, `AddHeader` and
    /// `TransmitStart`), so `framing = "2B"` gives its serialization times.
    #[serde(default = "zero_bytes", skip_serializing_if = "is_zero_bytes")]
    pub framing: Bytes,
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
    /// Both directions' capacity from a trace of delivery opportunities (mahimahi's
    /// `mm-link`) instead of `rate`; `reverse.trace` gives the reverse its own. The queue
    /// in front is `queue` as on any link; loss models and an LTE cell's handover bursts
    /// still apply (a cell's granted rates do not: the trace is the capacity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<super::trace::TraceSpec>,
}

fn zero_rate() -> DataRate {
    DataRate(0)
}

impl LinkSpec {
    /// The trace of one direction (`reverse`: the reverse's own, else the link's).
    pub fn trace_of(&self, reverse: bool) -> Option<&super::trace::TraceSpec> {
        let own = self.reverse.as_ref().and_then(|r| r.trace.as_ref());
        if reverse {
            own.or(self.trace.as_ref())
        } else {
            self.trace.as_ref()
        }
    }
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
    /// Poll in the PDU that ends every this many SDUs (TS 25.322 §9.7.1; 1, 4, 16 or 64,
    /// TS 25.331 §10.3.4.4); 0: not configured. Default 1, as a W-CDMA network's PS bearer
    /// (see `tern_proto::rlc::Config::poll_sdu`).
    #[serde(default = "sdu1")]
    pub poll_sdu: u32,
    /// Window-based polling: poll on every new PDU while the window is at least this many
    /// percent full (50, 60, 70, 80, 85, 90, 95 or 99, TS 25.331 §10.3.4.4; default: not
    /// configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_window: Option<u8>,
    /// Timer_Poll_Prohibit: the shortest interval between polls (default: not configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_poll_prohibit: Option<Duration>,
    /// Timer_Status_Prohibit.
    #[serde(default = "ms100")]
    pub timer_status_prohibit: Duration,
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
    /// The reverse direction's own trace of delivery opportunities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<super::trace::TraceSpec>,
}

/// An LTE cell bearer between a UE (`ends[0]`) and the network (`ends[1]`):
/// the uplink and downlink bearers are the link's two directions, and the UE
/// hands over between cells. Each handover is a burst-loss period (radio link
/// failure and re-establishment, in which every packet of the affected
/// directions is lost) ending when the handover completes; at completion the
/// new cell's rate and delay take effect and the UE gets a "handover
/// complete" event (the cell-id change the lte-switch study watches).
///
/// Each direction is a scheduled bearer: its queue (`queue`, `reverse.queue`; for the
/// uplink, the UE's buffer) drains at the rate the cell's scheduler grants — the link's
/// `rate` (`reverse.rate`), its `schedule` changes, and each target cell's `uplink.rate`
/// / `downlink.rate` from its handover's completion. A change of rate applies to the rest
/// of the packet being sent, as a UE fills each subframe's grant from its buffer and
/// segments a packet across grants (3GPP TS 36.321 §5.4.3.1, TS 36.322 §4.2.1.2): the
/// buffer is a FIFO server with a time-varying rate, so a packet that finds `Q` bytes
/// ahead of it waits `Q · 8 / rate` at a constant rate, and a crowded cell's delay builds
/// while the grant is below what the UE offers and drains when it is above (see
/// `net/service.rs`). The grant is the UE's share of the cell: the standard leaves the
/// scheduler to the vendor (TS 36.300 §11), and a proportional-fair one with N backlogged
/// UEs of similar channel quality gives each about 1/N of the cell's uplink over time
/// (Jalali, Padovani, Pankaj, VTC 2000). Loss in a handover's burst is decided when a
/// packet's last byte leaves, so the burst takes the packets that reach the head of the
/// buffer then, not those sent then.
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
    /// The rate the new cell grants the bearer (bit/s), from completion on, until a later
    /// `schedule` change or handover: the rest of a packet being sent goes at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<DataRate>,
    /// The new cell's one-way radio delay, for packets that leave from completion on.
    /// It is the same for every packet: a congested cell's waiting is its queue at a low
    /// `rate`, which builds and drains, not a larger delay.
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
    /// Mininet-WiFi's distance loss on a station's interface (its tc mode): each packet is
    /// lost independently with the netem `loss` Mininet-WiFi sets for the distance `d` (m)
    /// between node `station` and node `ap` at that moment (`net::loss::mininet_wifi_loss`).
    /// With `Mininet_wifi(ifb=True)` it shapes both the interface and its IFB device, so both
    /// directions (the default).
    MininetWifiDistance {
        station: String,
        ap: String,
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
            | LossSpec::Outage { direction, .. }
            | LossSpec::MininetWifiDistance { direction, .. } => *direction,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageWindow {
    pub at: Duration,
    #[serde(rename = "for")]
    pub length: Duration,
}

/// A change of a link's rate and/or delay at time `at`. A packet already being
/// serialized or propagated keeps the old values (as ns-3's point-to-point device), except
/// on an LTE cell (`cell`), where a new rate is the scheduler's new grant and applies to
/// the rest of the packet being sent.
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

/// Packets from `node` to `to` leave over link `via`, or over its association with the
/// 802.11 BSS `via` when `node` is a station of it (a station's way out by its radio).
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    pub node: String,
    pub to: String,
    pub via: String,
}
