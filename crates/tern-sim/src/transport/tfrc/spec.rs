//! A TFRC flow's settings (`transport = { kind = "tfrc", … }`): TCP-Friendly Rate Control
//! (RFC 5348, or RFC 3448's rules) over UDP, or DCCP with CCID 3 (RFC 4340, RFC 4342).

use crate::scenario::units::{Bytes, Duration};
use crate::scenario::{CheckCx, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A TFRC half-connection's settings. Defaults are the RFCs'.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TfrcSpec {
    /// "dccp": DCCP with CCID 3 (RFC 4340, RFC 4342), with its handshake and its headers
    /// and options; "udp": TFRC's header fields of RFC 5348 §3.2 over UDP.
    #[serde(default)]
    pub wire: TfrcWireSpec,
    /// "rfc5348" (the current specification), or "rfc3448" (the rules RFC 4342 and
    /// studies before 2008 used: 1 packet/s to start, 2·X_recv of the newest feedback).
    #[serde(default)]
    pub profile: TfrcProfileSpec,
    /// What the no-feedback timer does while no loss has been reported (p = 0; RFC 3448 and
    /// RFC 5348 §4.4). "erratum-1458": X is halved, down to s/t_mbi (RFC 5348; RFC 3448 as
    /// amended by its verified erratum 1458; ns-2.35's `Agent/TFRC` and Linux's CCID 3 from
    /// its rfc3448bis rewrite). "rfc3448-original": the cached X_recv is halved and X
    /// recomputed by §4.3 (4), which in slow start keeps X at s/R or above (RFC 3448 as
    /// published; Linux's CCID 3 before that rewrite); only with profile "rfc3448". Default:
    /// the profile's own text, "rfc3448-original" with "rfc3448", "erratum-1458" with
    /// "rfc5348".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nofeedback_rule: Option<TfrcNofeedbackRuleSpec>,
    /// Over which interval the receiver measures the receive rate X_recv it reports.
    /// "since-last-feedback": the bytes since its last feedback over the time since then,
    /// DCCP's Receive Rate option (RFC 4342 §8.3; Linux's CCID 3; ns-2.35's TFRCSink once
    /// an RTT has passed), so the first report after a silence averages over the silence.
    /// "last-rtt": the bytes received within the most recent R_m, over R_m (RFC 5348 §6.2).
    /// "since-last-feedback-or-last-rtt": ns-2.35's TFRCSink (tfrc-sink.cc, `est_thput`),
    /// since the last feedback once an RTT has passed, else over the RTT before the newest
    /// arrival. The synthesized first loss interval (RFC 5348 §6.3.1) uses the same rate;
    /// with "since-last-feedback" the last reported X_recv only when no byte arrived since
    /// the last feedback (Linux's CCID 3, ccid3.c `ccid3_first_li`).
    /// "linux-ccid3": Linux's CCID 3 (ccid3.c, `ccid3_hc_rx_send_feedback`): as
    /// "since-last-feedback", but a feedback sent for a new loss event reports the X_recv
    /// of the previous feedback again (a fresh measurement only if that was 0), and the
    /// next one measures from it.
    /// Default: the wire's specification, "since-last-feedback" with "dccp", "last-rtt"
    /// with "udp".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_rate: Option<TfrcReceiveRateSpec>,
    /// Segment size s of a bulk application's packets (payload); default: the path MTU
    /// less the IPv4 and transport headers. Message applications send their messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<Bytes>,
    /// Lower bound of t_RTO in the throughput equation: RFC 5348 §3.1 says t_RTO = 4R
    /// (0 s) and allows max(4R, 1 s).
    #[serde(default = "zero")]
    pub min_rto: Duration,
    /// History discounting of the loss intervals (RFC 5348 §5.5, optional there; ns-2's
    /// `discount_ 1`).
    #[serde(default)]
    pub history_discounting: bool,
    /// Oscillation prevention (RFC 5348 §4.5, optional there; ns-2's `ca_ 1`).
    #[serde(default)]
    pub oscillation_prevention: bool,
    /// RTTs in the no-feedback timeout max(k·R, 2s/X): RFC 5348 §4.3 step 6 (RFC 3448
    /// alike) says 4; ns-2.35's `Agent/TFRC` uses 2 (tfrc.cc, `t = 2*rtt_`). Above 0, at
    /// most 64. Default 4.
    #[serde(default = "four")]
    pub nofeedback_rtts: f64,
    /// ns-2.35's rate change (`Agent/TFRC`, tfrc.cc, `increase_rate`; in no RFC): once
    /// a loss event has been reported, X rises by at most s/R per RTT since the last
    /// feedback (two at most) towards the equation's rate, where RFC 5348 §4.3 (4) sets
    /// it at once; the receive limit 2·X_recv is at least s/R; and ns-2's send timer (a
    /// feedback out of slow start leaves the next packet's time, a no-feedback expiry
    /// sends at once). Default false.
    #[serde(default)]
    pub additive_increase: bool,
    /// Filter constant q of the sender's RTT average R = q·R + (1 − q)·R_sample and of the
    /// oscillation prevention's square-root average: RFC 5348 §4.3 step 2 (RFC 3448 alike)
    /// says 0.9; ns-2.35's `Agent/TFRC` uses its `df_`, 0.95 (tfrc.cc, `update_rtt`). At
    /// least 0, below 1. Default 0.9.
    #[serde(default = "rfc_rtt_filter", deserialize_with = "rtt_filter")]
    pub rtt_filter: f64,
    /// Packets with higher sequence numbers that must arrive before the receiver counts a
    /// missing one lost: RFC 5348 §5.1's NDUPACK = 3 (ns-2's receiver: 1, `numPkts_`).
    #[serde(default = "three")]
    pub ndupack: u32,
    /// Which lost packets open a new loss event. "interpolated": RFC 5348 §5.2 (each lost
    /// packet's time interpolated between the arrivals around it; a new event if more than
    /// an RTT after the current one's first loss), so a hole spanning k RTTs makes about k
    /// events. "round": ns-2.35's TFRCSink with `PreciseLoss_ 1` (moreover, the arrival
    /// revealing the loss must carry a later sender round, counted from feedback and
    /// no-feedback expiries): a hole is one loss event, as with DCCP's window counter (RFC
    /// 4342 §10.2). "window-counter": DCCP's CCID 3 (RFC 4342 §10.2 with the window
    /// counter of §8.1; Linux's CCID 3): a new event only if the packet before the loss was
    /// sent more than an RTT (4 quarter-RTT counts) after the one before the current event,
    /// so a hole is one loss event. Default: the wire's specification, "window-counter"
    /// with "dccp", "interpolated" with "udp".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_grouping: Option<TfrcLossGroupingSpec>,
    /// The receiver's first loss interval, closed by its first loss event.
    /// "synthesized": RFC 5348 §6.3.1 (RFC 3448 alike), the interval whose loss event rate
    /// gives by the equation the receive rate at that moment (Linux's CCID 3; ns-2.35's
    /// TFRCSink by default). "counted": counted like every later interval (§5.3), from the
    /// flow's first packet to the first lost one (ns-2.35's TFRCSink with
    /// `AdjustHistoryAfterSS_ 0`). Default "synthesized".
    #[serde(default)]
    pub first_interval: TfrcFirstIntervalSpec,
    /// Packets the sending application may have queued in the transport before new
    /// messages are dropped; default 5, Linux DCCP's `net.dccp.default.tx_qlen`.
    #[serde(default = "five")]
    pub send_buffer: u32,
    /// Countermeasure B of the tfrc-handover study (Otsuka, Tamura, Ishihara, §4.5 B; in no
    /// RFC): data sent while the client's link is down in a handover carries a notice,
    /// and the receiver leaves those packets out of its feedback and starts its
    /// observations afresh with the first packet after the handover.
    #[serde(default)]
    pub handover_notice: bool,
    /// Countermeasure A of the tfrc-handover study (§4.5 A, in no RFC): when the client's
    /// station leaves its AP to roam, the sender sets its rate to the station's fair share
    /// at the AP it joins, estimated from that AP's BSS Load element (IEEE 802.11-2020
    /// §9.4.2.27: Station Count; `tern_sim::wifi::bss_load`), and sets it again when the
    /// link is back (the no-feedback timer halves it during the disconnection). Only an
    /// 802.11b BSS gives an estimate.
    #[serde(default)]
    pub rate_from_bss_load: bool,
    /// Countermeasure C of the tfrc-handover study (§4.5 C, in no RFC): for this long after
    /// a handover the newest observations weigh more (`recent_rtt_gain`,
    /// `recent_intervals`); 0 s: off. Not in the paper: the study sweeps it.
    #[serde(default = "zero")]
    pub recent_window: Duration,
    /// Countermeasure C: the weight of the newest RTT sample in R = (1 − g)·R + g·R_sample
    /// within `recent_window`; default RFC 5348 §4.3's 0.1 (no change). Swept by the study.
    #[serde(default = "rfc_rtt_gain")]
    pub recent_rtt_gain: f64,
    /// Countermeasure C: loss intervals averaged within `recent_window`, with RFC 5348
    /// §5.4's weights for that n; default the RFC's 8 (no change). Swept by the study.
    #[serde(default = "rfc_intervals")]
    pub recent_intervals: u32,
}

impl Default for TfrcSpec {
    fn default() -> Self {
        toml::from_str("").expect("every TFRC field has a default")
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TfrcWireSpec {
    #[default]
    Dccp,
    Udp,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TfrcProfileSpec {
    #[default]
    Rfc5348,
    Rfc3448,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub enum TfrcNofeedbackRuleSpec {
    #[serde(rename = "erratum-1458")]
    Erratum1458,
    #[serde(rename = "rfc3448-original")]
    Rfc3448Original,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TfrcReceiveRateSpec {
    SinceLastFeedback,
    LastRtt,
    SinceLastFeedbackOrLastRtt,
    #[serde(rename = "linux-ccid3")]
    LinuxCcid3,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TfrcLossGroupingSpec {
    #[default]
    Interpolated,
    Round,
    WindowCounter,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TfrcFirstIntervalSpec {
    #[default]
    Synthesized,
    Counted,
}

impl TfrcSpec {
    /// The receive-rate interval in force: the one given, or the wire's.
    pub fn receive_rate(&self) -> TfrcReceiveRateSpec {
        self.receive_rate.unwrap_or(match self.wire {
            TfrcWireSpec::Dccp => TfrcReceiveRateSpec::SinceLastFeedback,
            TfrcWireSpec::Udp => TfrcReceiveRateSpec::LastRtt,
        })
    }

    /// The loss event grouping in force: the one given, or the wire's.
    pub fn loss_grouping(&self) -> TfrcLossGroupingSpec {
        self.loss_grouping.unwrap_or(match self.wire {
            TfrcWireSpec::Dccp => TfrcLossGroupingSpec::WindowCounter,
            TfrcWireSpec::Udp => TfrcLossGroupingSpec::Interpolated,
        })
    }

    /// The no-feedback rule in force: the one given, or the profile's own.
    pub fn nofeedback_rule(&self) -> TfrcNofeedbackRuleSpec {
        self.nofeedback_rule.unwrap_or(match self.profile {
            TfrcProfileSpec::Rfc5348 => TfrcNofeedbackRuleSpec::Erratum1458,
            TfrcProfileSpec::Rfc3448 => TfrcNofeedbackRuleSpec::Rfc3448Original,
        })
    }
}

fn zero() -> Duration {
    Duration(tern_proto::time::SimTime::ZERO)
}
fn rfc_rtt_filter() -> f64 {
    tern_proto::dccp::tfrc::sender::Q
}
/// A filter constant in [0, 1): 1 would never let R move.
fn rtt_filter<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let q = f64::deserialize(d)?;
    if (0.0..1.0).contains(&q) {
        Ok(q)
    } else {
        Err(serde::de::Error::custom(format!(
            "rtt_filter: expected a filter constant of at least 0 and below 1, got {q}"
        )))
    }
}
fn rfc_rtt_gain() -> f64 {
    0.1
}
fn rfc_intervals() -> u32 {
    tern_proto::dccp::tfrc::loss::N as u32
}
fn four() -> f64 {
    4.0
}
fn three() -> u32 {
    3
}
fn five() -> u32 {
    5
}

/// Its settings in a scenario (`transport = { kind = "tfrc", … }`).
pub type Spec = TfrcSpec;

/// Datagrams: a message lost is lost.
pub const STREAM: bool = false;

/// Countermeasures A and B of the tfrc-handover study act on the client's 802.11 roams
/// (`[[roaming]]`): on a flow whose client never roams they would silently do nothing.
pub fn check(t: &TfrcSpec, cx: &CheckCx<'_, '_>) -> Result<(), ScenarioError> {
    let f = cx.flow;
    if cx.scenario.roaming.iter().any(|r| r.station == f.from) {
        return Ok(());
    }
    let on = [
        ("handover_notice", t.handover_notice),
        ("rate_from_bss_load", t.rate_from_bss_load),
    ];
    if let Some((name, _)) = on.into_iter().find(|(_, on)| *on) {
        return Err(cx.error(
            &[name],
            format!(
                "acts on the client's 802.11 handovers, and {:?} (from) roams in no \
                 [[roaming]] entry: make the client a roaming station or remove {name}",
                f.from
            ),
        ));
    }
    Ok(())
}
