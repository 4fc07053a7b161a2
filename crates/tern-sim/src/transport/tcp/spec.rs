//! A TCP flow's settings (`transport = { kind = "tcp", … }`): what the scenario may set on
//! Tern's TCP (`tern_proto::tcp`). Both ends use them.

use crate::scenario::schema::defaults::*;
use crate::scenario::units::{Bytes, Duration};
use crate::scenario::{CheckCx, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A TCP endpoint's settings; both ends of a flow use them. Defaults follow
/// the RFCs, not a particular operating system; `profile` names a real host's.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// A named host profile ("rfc", "linux-3.13", "linux-6", "android", "windows10-1607",
    /// "macos-10.11", "freebsd-2.2.8", "4.4bsd-lite", "ns3"): its keys, each with its source
    /// (listed here under `x-keys`), fill in those the transport does not write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::scenario::tcp_profile::schema")]
    pub profile: Option<crate::scenario::tcp_profile::TcpProfile>,
    /// Congestion control: "newreno" (RFC 5681, RFC 6582), "cubic" (RFC 9438), "ctcp"
    /// (Compound TCP, draft-sridharan-tcpm-ctcp-02: Windows' from Server 2008 to Windows 10
    /// 1703), "bbr" (BBR v1 as Linux's tcp_bbr.c) or "bbr3" (BBRv3, draft-ietf-ccwg-bbr);
    /// BBR paces whatever `pacing` says.
    #[serde(default)]
    pub cc: CcSpec,
    /// CUBIC's multiplicative decrease beta_cubic (RFC 9438 §4.6: 0.7, Linux's too; Apple's
    /// XNU 3248, OS X 10.11, backs off by 0.2: 0.8).
    #[serde(default = "cubic_beta")]
    pub cubic_beta: f64,
    /// CUBIC fast convergence (RFC 9438 §4.7; on in Linux, off by default in XNU 3248).
    #[serde(default = "yes")]
    pub cubic_fast_convergence: bool,
    /// SACK (RFC 2018) with RFC 6675 loss recovery; off = `recovery` below.
    #[serde(default = "yes")]
    pub sack: bool,
    /// Loss recovery without SACK: "newreno" (RFC 6582: a partial ACK resends the next
    /// hole and recovery goes on) or "reno" (RFC 5681 §3.2 / RFC 2581 §3.2 as 4.4BSD-Lite,
    /// Stevens & Wright, TCP/IP Illustrated Vol. 2 ch. 29: the first ACK of new data ends
    /// recovery, so a second loss in the window needs another fast retransmit or the RTO).
    #[serde(default)]
    pub recovery: RecoverySpec,
    /// With SACK: Proportional Rate Reduction (RFC 9937) sets what fast recovery sends on
    /// each ACK, in place of RFC 6675's cwnd − pipe. Linux (since 3.2) and ns-3
    /// (`TcpPrrRecovery`, its default `RecoveryType`) use it; off by default.
    #[serde(default)]
    pub prr: bool,
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
    /// How the delayed-ACK timeout is chosen: "fixed" (RFC 1122 §4.2.3.2: always
    /// `delayed_ack_timeout`, an ACK every `delayed_ack_segments`) or "linux" (Linux's
    /// adaptive ATO from the data's inter-arrival time, 40 ms to `delayed_ack_timeout`
    /// (TCP_DELACK_MAX) for interactive data or 500 ms for bulk, bounded by the RTT; up to
    /// 16 quick ACKs at the start and after out-of-order data; an ACK once more than one
    /// full-sized segment is unacknowledged: net/ipv4/tcp_input.c `tcp_event_data_recv`,
    /// `__tcp_ack_snd_check`, tcp_output.c `tcp_send_delayed_ack`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub delayed_ack_rule: DelayedAckRuleSpec,
    /// Lower bound of the RTO (RFC 6298 §2.4: 1 s; Linux uses 200 ms).
    #[serde(default = "s1")]
    pub min_rto: Duration,
    /// How the RTO follows the RTT samples: "rfc6298" (RFC 6298 §2: max(min_rto, SRTT +
    /// 4·RTTVAR)) or "linux" (Linux `tcp_rtt_estimator` / `__tcp_set_rto`, net/ipv4/
    /// tcp_input.c and include/net/tcp.h: SRTT + RTTVAR with RTTVAR four mean deviations
    /// but at least min_rto, tracked per round trip: the minimum adds to SRTT).
    #[serde(default, skip_serializing_if = "is_default")]
    pub rto_rule: RtoRuleSpec,
    /// Where an ACK's RTT sample comes from: "ts_ecr_first" (RFC 7323 §4.1: the timestamp
    /// echo of an ACK of new data, else Karn's rule on the newest acknowledged segment; no
    /// sample from SACK) or "packet_timing_first" (Linux 3.13 on, net/ipv4/tcp_input.c
    /// `tcp_ack_update_rtt`: the send time of the oldest cumulatively acknowledged
    /// segment never retransmitted, none if retransmitted data is acknowledged; else of the
    /// lowest newly SACKed one, from any ACK; else the echo).
    #[serde(default, skip_serializing_if = "is_default")]
    pub rtt_source: RttSourceSpec,
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
    /// With `frto`, what a spurious timeout restores: "eifel" (RFC 4015 §2: cwnd is
    /// FlightSize plus min(bytes_acked, IW), ssthresh pipe_prev, the controller and RTO as
    /// before the timeout) or "linux_undo" (Linux's `tcp_try_undo_loss`,
    /// `tcp_undo_cwnd_reduction`: cwnd is max(cwnd, prior_cwnd), ssthresh max(ssthresh,
    /// prior_ssthresh)).
    #[serde(default, skip_serializing_if = "is_default")]
    pub spurious_rto_response: SpuriousRtoResponseSpec,
    /// HyStart++ (RFC 9406): the initial slow start ends when the round trip grows by
    /// clamp(RTT/8, 4 ms, 16 ms), through five rounds of Conservative Slow Start, before
    /// a queue overflows. Off by default (RFC 5681 slow start); Windows and FreeBSD ship
    /// it, Linux's CUBIC has the older HyStart of Ha and Rhee with the same delay rule.
    #[serde(default)]
    pub hystart: bool,
    /// Grow cwnd only while the sender is cwnd-limited (RFC 7661 §4.3, RFC 2861; the test is
    /// Linux's `tcp_is_cwnd_limited` of 2.6.18-3.19: the flight within 3 segments of cwnd):
    /// a sender held back by its send buffer, the peer's window or its application keeps
    /// cwnd near its flight. On by default, as Linux, Windows' and ns-3's CUBIC do; off is
    /// RFC 5681 §3.1's growth on every ACK (4.4BSD).
    #[serde(default = "yes")]
    pub cwnd_limited_growth: bool,
    /// NewReno's congestion-avoidance growth: "bytes" (RFC 5681 §3.1's byte counting, RFC
    /// 3465: one SMSS per cwnd of bytes acknowledged) or "per_ack" (RFC 5681 §3.1 eq. 3,
    /// SMSS·SMSS/cwnd on each ACK, which delayed ACKs halve: ns-3's `TcpNewReno`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub ca_increase: CaIncreaseSpec,
    /// What a loss halves (RFC 5681 eq. 4) at a fast retransmit and a timeout:
    /// "flight_size" (the RFCs) or "pipe" (RFC 6675's pipe, as ns-3's `TcpSocketBase` does
    /// with SACK; needs `sack`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub loss_flight: LossFlightSpec,
    /// Linux's internal pacing (`tcp_pacing_check`): data segments leave at the pacing
    /// rate, `cwnd / srtt` × 200 % in slow start and × 120 % after
    /// (`tcp_update_pacing_rate`) or the controller's own (BBR); TCP Small Queues then
    /// holds about 1 ms of it (`sk_pacing_rate >> 10`). Off by default, as Linux without
    /// the `fq` qdisc or a controller that asks for it.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pacing: bool,
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
    /// TCP Small Queues: what each packet below TCP counts against `tsq`. Linux counts
    /// `sk_wmem_alloc`, each skb's truesize (its buffer as allocated plus the `sk_buff`;
    /// `skb_set_owner_w` in `tcp_transmit_skb`), not its IP bytes: set it to that truesize.
    /// 0 (the default) counts each packet's IP bytes.
    #[serde(default = "zero_bytes")]
    pub tsq_truesize: Bytes,
    /// TCP Small Queues' limit is max(`tsq`, pacing rate / 1024), the pacing rate being
    /// 2 × max(cwnd, flight) / srtt, as Linux 3.12-3.x's `tcp_write_xmit` has it
    /// (net/ipv4/tcp_output.c; `tcp_update_pacing_rate`, net/ipv4/tcp_input.c). Off: the
    /// limit is `tsq` alone.
    #[serde(default)]
    pub tsq_pacing: bool,
    /// TCP Small Queues: where a packet's charge ends on an 802.11 station. "tx-status" (the
    /// default): at the frame's transmit status, so the MAC (driver) queue's frames count as
    /// the qdisc's do, as Linux 3.13 keeps the skb's owner until `ieee80211_tx_status`
    /// (net/mac80211/status.c). "driver": when the MAC queue takes the frame from the qdisc,
    /// as Linux up to 3.4 orphaned an skb in `dev_hard_start_xmit` (net/core/dev.c,
    /// `skb_orphan_try`), so TSQ bounds the qdisc alone. Other links end it when the packet
    /// leaves them either way.
    #[serde(default, skip_serializing_if = "is_default")]
    pub tsq_charge_ends: TsqChargeEndsSpec,
}

/// Where TCP Small Queues' charge of a packet ends on an 802.11 station (`tsq_charge_ends`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum TsqChargeEndsSpec {
    /// At the frame's transmit status (Linux 3.5 on: no early orphaning).
    #[default]
    TxStatus,
    /// When the driver's MAC queue takes the frame (Linux up to 3.4, `skb_orphan_try`).
    Driver,
}

impl Default for TcpSpec {
    fn default() -> Self {
        toml::from_str("").expect("every TCP field has a default")
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcSpec {
    #[default]
    Newreno,
    Cubic,
    Ctcp,
    Bbr,
    Bbr3,
}

/// How TCP's delayed-ACK timeout is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DelayedAckRuleSpec {
    /// RFC 1122 §4.2.3.2: a fixed timer.
    #[default]
    Fixed,
    /// Linux's adaptive ATO and quick-ACK mode.
    Linux,
}

/// How TCP's RTO follows its RTT samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RtoRuleSpec {
    /// RFC 6298 §2.
    #[default]
    Rfc6298,
    /// Linux (`tcp_rtt_estimator`, `__tcp_set_rto`).
    Linux,
}

/// Where TCP's RTT samples come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RttSourceSpec {
    /// RFC 7323 §4.1: the timestamp echo first.
    #[default]
    TsEcrFirst,
    /// Linux 3.13 on (`tcp_ack_update_rtt`): the segments' send times first.
    PacketTimingFirst,
}

/// The response to a timeout F-RTO found spurious.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpuriousRtoResponseSpec {
    /// RFC 4015 §2.
    #[default]
    Eifel,
    /// Linux's undo (net/ipv4/tcp_input.c `tcp_try_undo_loss`).
    LinuxUndo,
}

/// Whether a key holds its default, which resolved scenarios leave out: they stay as they
/// were before the key existed.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// NewReno's congestion-avoidance growth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaIncreaseSpec {
    /// Byte counting (RFC 5681 §3.1, RFC 3465).
    #[default]
    Bytes,
    /// RFC 5681 §3.1 eq. 3, per ACK.
    PerAck,
}

/// The flight RFC 5681 eq. 4 halves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LossFlightSpec {
    /// FlightSize (RFC 5681).
    #[default]
    FlightSize,
    /// RFC 6675's pipe (ns-3).
    Pipe,
}

/// TCP loss recovery when SACK is not in use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RecoverySpec {
    /// RFC 6582.
    #[default]
    Newreno,
    /// RFC 5681 §3.2 (4.4BSD-Lite).
    Reno,
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

/// Its settings in a scenario (`transport = { kind = "tcp", … }`).
pub type Spec = TcpSpec;

/// A reliable stream: a message is late, never lost.
pub const STREAM: bool = true;

/// TCP's settings are checked where they are read (`scenario::validate`, the profiles).
pub fn check(_: &TcpSpec, _: &CheckCx<'_, '_>) -> Result<(), ScenarioError> {
    Ok(())
}
