//! `[[links]]`: point-to-point links and the link technologies that build on them (LTE
//! cells, W-CDMA bearers), queues, loss models, schedules, and `[[routes]]`.
//!
//! A link is point-to-point unless one technology's table is given (`cell = { … }`,
//! `rlc = { … }`): [`LinkSpec::tech`] is the one it is. The technologies are listed once,
//! in [`crate::with_links`]; each one's table, checks and summary detail live in its own
//! folder (its [`LinkTable`] implementation) and its model in the same folder
//! (`crate::link::Technology`). From that list [`link_spec!`](crate::link_spec) makes the
//! file's form of a link ([`LinkToml`], one optional table per technology), the checked form
//! ([`LinkSpec`], whose [`LinkTech`] holds exactly one), and the summary's [`LinkDetail`].

use super::super::units::{Bytes, DataRate, Duration, QueueLimit};
use super::super::{ScenarioError, Source};
use super::defaults::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A link technology's scenario side: the table that makes a `[[links]]` entry one of its
/// links, the checks of that table, and what it adds to each direction's summary.
pub trait LinkTable {
    /// The contents of the technology's table.
    type Spec: Clone
        + std::fmt::Debug
        + PartialEq
        + Serialize
        + for<'de> Deserialize<'de>
        + JsonSchema;
    /// What each direction adds to its row of the summary's `links` ([`NoDetail`] for
    /// nothing), under the table's key.
    type Detail: Clone + std::fmt::Debug + Serialize;
    /// The scenario's own checks of the table (`link` is the whole entry): they run with
    /// the other checks of the file, before the models' (see `crate::link::Technology`).
    fn check(
        link: &LinkSpec,
        spec: &Self::Spec,
        cx: &LinkCheck<'_, '_>,
    ) -> Result<(), ScenarioError>;
}

/// The summary detail of a technology that adds none (it is never made).
#[derive(Clone, Debug, Serialize)]
pub enum NoDetail {}

/// Where a link's checks report: the file and the link's index in `links`.
pub struct LinkCheck<'a, 's> {
    src: &'a Source<'s>,
    index: usize,
    scenario: &'a super::Scenario,
}

impl<'a, 's> LinkCheck<'a, 's> {
    pub(crate) fn new(src: &'a Source<'s>, scenario: &'a super::Scenario, index: usize) -> Self {
        LinkCheck {
            src,
            index,
            scenario,
        }
    }

    /// An error at key `keys` of the link (e.g. `["cell", "train", "every"]`), naming the
    /// file, line and key as every scenario error does.
    pub fn error(&self, keys: &[&str], message: impl Into<String>) -> ScenarioError {
        self.src.error(&self.path(keys), message)
    }

    /// An error at a key path of the link with array indices in it.
    pub(crate) fn error_at(
        &self,
        path: &[super::super::PathSeg],
        message: impl Into<String>,
    ) -> ScenarioError {
        self.src
            .error(&super::super::rules::link_path(self.index, path), message)
    }

    /// The full path of key `keys` of the link.
    pub(crate) fn path(&self, keys: &[&str]) -> Vec<super::super::PathSeg> {
        let segs: Vec<_> = keys.iter().map(|k| super::super::rules::key(k)).collect();
        super::super::rules::link_path(self.index, &segs)
    }

    /// The checks of a loss model at key `keys` of the link, as of the link's own `loss`.
    pub fn check_loss(&self, keys: &[&str], loss: &LossSpec) -> Result<(), ScenarioError> {
        super::super::rules::check_loss(self.scenario, self.src, self.path(keys), loss)
    }

    /// The whole scenario.
    pub fn scenario(&self) -> &super::Scenario {
        self.scenario
    }
}

/// Makes [`LinkToml`], [`LinkSpec`], [`LinkTech`] and [`LinkDetail`] from the link's common
/// fields (given here) and the list of technologies ([`crate::with_links`]), so that a
/// technology is one line of that list.
#[doc(hidden)]
#[macro_export]
macro_rules! link_spec {
    (
        {
            $(#[doc = $sdoc:literal])*
            head { $( $(#[doc = $hd:literal])* $(#[serde($($hs:tt)*)])? $hf:ident : $ht:ty, )* }
            tail { $( $(#[doc = $td:literal])* $(#[serde($($ts:tt)*)])? $tf:ident : $tt:ty, )* }
        }
        $( $(#[doc = $vd:literal])* $v:ident($key:ident) in $($m:ident)::+ , )*
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
        #[serde(deny_unknown_fields, rename = "LinkSpec")]
        pub struct LinkToml {
            $( $(#[doc = $hd])* $(#[serde($($hs)*)])? pub $hf: $ht, )*
            $(
                $(#[doc = $vd])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $key: Option<<$crate::$($m)::+::$v as $crate::scenario::LinkTable>::Spec>,
            )*
            $( $(#[doc = $td])* $(#[serde($($ts)*)])? pub $tf: $tt, )*
        }

        $(#[doc = $sdoc])*
        #[derive(Clone, Debug)]
        pub struct LinkSpec {
            $( $(#[doc = $hd])* pub $hf: $ht, )*
            /// What the link is: point-to-point, or the one technology whose table is given.
            pub tech: LinkTech,
            $( $(#[doc = $td])* pub $tf: $tt, )*
        }

        /// What a link is; a link with no technology's table is point-to-point.
        #[derive(Clone, Debug, PartialEq)]
        pub enum LinkTech {
            /// A point-to-point link: its common fields only.
            P2p,
            $( $(#[doc = $vd])* $v(<$crate::$($m)::+::$v as $crate::scenario::LinkTable>::Spec), )*
        }

        impl LinkTech {
            /// The key of the technology's table (`None` for point-to-point).
            pub fn key(&self) -> Option<&'static str> {
                match self {
                    LinkTech::P2p => None,
                    $( LinkTech::$v(_) => Some(stringify!($key)), )*
                }
            }

            /// The scenario's own checks of the technology's table.
            pub(crate) fn check(
                &self,
                link: &LinkSpec,
                cx: &LinkCheck<'_, '_>,
            ) -> Result<(), ScenarioError> {
                match self {
                    LinkTech::P2p => Ok(()),
                    $(
                        LinkTech::$v(spec) => {
                            <$crate::$($m)::+::$v as $crate::scenario::LinkTable>::check(link, spec, cx)
                        }
                    )*
                }
            }
        }

        /// What a technology adds to a direction's row of the summary, under its table's key.
        #[derive(Clone, Debug, Serialize)]
        #[allow(non_camel_case_types)]
        pub enum LinkDetail {
            $( $key(<$crate::$($m)::+::$v as $crate::scenario::LinkTable>::Detail), )*
        }

        impl TryFrom<LinkToml> for LinkSpec {
            type Error = String;

            fn try_from(raw: LinkToml) -> Result<LinkSpec, String> {
                let mut given: Vec<(&str, LinkTech)> = Vec::new();
                $(
                    if let Some(spec) = raw.$key {
                        given.push((stringify!($key), LinkTech::$v(spec)));
                    }
                )*
                if given.len() > 1 {
                    let keys: Vec<String> = given.iter().map(|(k, _)| format!("`{k}`")).collect();
                    return Err(format!(
                        "conflicting field `{}`: a link is one technology, but {} are given \
                         (keep one; without any the link is point-to-point)",
                        given[1].0,
                        keys.join(" and ")
                    ));
                }
                Ok(LinkSpec {
                    $( $hf: raw.$hf, )*
                    tech: given.pop().map_or(LinkTech::P2p, |(_, t)| t),
                    $( $tf: raw.$tf, )*
                })
            }
        }

        impl From<LinkSpec> for LinkToml {
            fn from(link: LinkSpec) -> LinkToml {
                #[allow(unused_mut)]
                let mut raw = LinkToml {
                    $( $hf: link.$hf, )*
                    $( $key: None, )*
                    $( $tf: link.$tf, )*
                };
                match link.tech {
                    LinkTech::P2p => {}
                    $( LinkTech::$v(spec) => raw.$key = Some(spec), )*
                }
                raw
            }
        }
    };
}

crate::with_links! { link_spec {
    /// A full-duplex point-to-point link; each direction has its own queue.
    /// "forward" is `ends[0]` → `ends[1]`. With `cell`, the link is an LTE cell
    /// bearer whose UE is `ends[0]` (forward = uplink).
    head {
        name: String,
        ends: [String; 2],
        /// The rate of each direction without a `trace` (required unless both have one).
        #[serde(default = "zero_rate")]
        rate: DataRate,
        /// One-way propagation delay.
        delay: Duration,
        /// Transmit queue of each direction. Default: DropTail, 100 packets (the
        /// default of ns-3's point-to-point device queue).
        #[serde(default)]
        queue: QueueSpec,
        /// IP MTU of the link (default 1500 B, Ethernet).
        #[serde(default = "default_mtu")]
        mtu: Bytes,
        /// Link-layer bytes added to every packet's serialization time in both directions
        /// (default 0 B: a bare IP packet; queue limits in bytes still count IP bytes). ns-3's
        /// `PointToPointNetDevice` puts a 2-byte PPP header (RFC 1661 §2, protocol field only) on
        /// every packet before it times the transmission (ns-3.44,
        /// src/point-to-point/model/point-to-point-net-device.cc, `AddHeader` and
        /// `TransmitStart`), so `framing = "2B"` gives its serialization times.
        #[serde(default = "zero_bytes", skip_serializing_if = "is_zero_bytes")]
        framing: Bytes,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        loss: Option<LossSpec>,
        /// Changes of rate or delay at given times.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        schedule: Vec<LinkChange>,
        /// The reverse direction's own rate, delay or queue, for asymmetric links
        /// (e.g. an LTE downlink faster than its uplink); unset fields follow the forward direction.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reverse: Option<ReverseSpec>,
    }
    tail {
        /// Both directions' capacity from a trace of delivery opportunities (mahimahi's
        /// `mm-link`) instead of `rate`; `reverse.trace` gives the reverse its own. The queue
        /// in front is `queue` as on any link; loss models and an LTE cell's handover bursts
        /// still apply (a cell's granted rates do not: the trace is the capacity).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trace: Option<super::trace::TraceSpec>,
    }
} }

impl<'de> Deserialize<'de> for LinkSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        LinkSpec::try_from(LinkToml::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl Serialize for LinkSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        LinkToml::from(self.clone()).serialize(s)
    }
}

impl JsonSchema for LinkSpec {
    fn schema_name() -> String {
        LinkToml::schema_name()
    }

    fn json_schema(generator: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
        LinkToml::json_schema(generator)
    }
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

    /// The rate of one direction: the reverse's own, else the link's.
    pub fn rate_of(&self, reverse: bool) -> DataRate {
        let own = self.reverse.as_ref().filter(|_| reverse);
        own.and_then(|r| r.rate).unwrap_or(self.rate)
    }

    /// The one-way delay of one direction: the reverse's own, else the link's.
    pub fn delay_of(&self, reverse: bool) -> Duration {
        let own = self.reverse.as_ref().filter(|_| reverse);
        own.and_then(|r| r.delay).unwrap_or(self.delay)
    }
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
