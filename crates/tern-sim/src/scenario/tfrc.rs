//! A TFRC flow's settings (`transport = { kind = "tfrc", … }`): TCP-Friendly Rate Control
//! (RFC 5348, or RFC 3448's rules) over UDP, or DCCP with CCID 3 (RFC 4340, RFC 4342).

use super::units::{Bytes, Duration};
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
    /// Packets with higher sequence numbers that must arrive before the receiver counts a
    /// missing one lost: RFC 5348 §5.1's NDUPACK = 3 (ns-2's receiver: 1, `numPkts_`).
    #[serde(default = "three")]
    pub ndupack: u32,
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

fn zero() -> Duration {
    Duration(tern_proto::time::SimTime::ZERO)
}
fn rfc_rtt_gain() -> f64 {
    0.1
}
fn rfc_intervals() -> u32 {
    tern_proto::tfrc::loss::N as u32
}
fn three() -> u32 {
    3
}
fn five() -> u32 {
    5
}
