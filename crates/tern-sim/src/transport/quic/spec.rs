//! A QUIC flow's settings (`transport = { kind = "quic", … }`): what the scenario may set on
//! the QUIC stack Tern drives (noq-proto; docs/design.md, dependency notes). Both ends use them.

use crate::scenario::units::{Bytes, Duration};
use crate::scenario::{CheckCx, PathSeg, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A QUIC endpoint's settings. Defaults are RFC 9000/9002's or, where the RFCs leave the
/// choice open, the stack's.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuicSpec {
    /// Congestion control: "newreno" (RFC 9002 §7), "cubic" (RFC 9438) or "bbr" (the
    /// stack's BBRv3, draft-ietf-ccwg-bbr).
    #[serde(default)]
    pub cc: QuicCcSpec,
    /// Initial congestion window in bytes; default RFC 9002 §7.2:
    /// min(10 · max_datagram_size, max(14 720 B, 2 · max_datagram_size)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_window: Option<Bytes>,
    /// Datagram size before path MTU discovery: 1200 B, the least every QUIC path carries
    /// (RFC 9000 §14).
    #[serde(default = "b1200")]
    pub initial_mtu: Bytes,
    /// Packetization-layer path MTU discovery (RFC 8899 via RFC 9000 §14.3), probing up to
    /// `max_udp_payload`.
    #[serde(default = "yes")]
    pub mtu_discovery: bool,
    /// Largest UDP payload the endpoints send; default: the path MTU less 28 B of IPv4/UDP
    /// headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_udp_payload: Option<Bytes>,
    /// The ACK frequency extension (draft-ietf-quic-ack-frequency); off: ACK every second
    /// ack-eliciting packet (RFC 9000 §13.2.2).
    #[serde(default)]
    pub ack_frequency: bool,
    /// Flow control: bytes a stream may have in flight (RFC 9000 §4.1).
    #[serde(default = "mib1_25")]
    pub stream_window: Bytes,
    /// Flow control: bytes the whole connection may have in flight (RFC 9000 §4.1).
    #[serde(default = "mib16")]
    pub connection_window: Bytes,
    /// Bytes the sending application may have written but not yet acknowledged.
    #[serde(default = "mib10")]
    pub send_buffer: Bytes,
    /// Idle timeout (RFC 9000 §10.1).
    #[serde(default = "s30")]
    pub idle_timeout: Duration,
    /// Multipath QUIC (draft-ietf-quic-multipath-21, as noq-proto implements it): one path
    /// per entry, the k-th leaving the client by the interface named by its `via`. Path 0
    /// carries the handshake; the client opens the others once it is connected. Empty (the
    /// default): one path, routed (or pinned by the flow's `via`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<QuicPathSpec>,
    /// Multipath: the order in which each transmission tries the paths that may carry it
    /// (status and validation decide which may; the first with room in its congestion window
    /// and pacer sends). "lowest_id" (the default, noq-proto's own: path-id order, so the
    /// first available path fills and the others take what it has no room for); "min_rtt"
    /// (the lowest smoothed RTT first, ties by id: the lowest-latency scheduler of mp-quic,
    /// De Coninck and Bonaventure, CoNEXT 2017, and XQUIC's `xqc_minrtt_scheduler_cb`,
    /// `src/transport/scheduler/xqc_scheduler_minrtt.c`); "round_robin" (path-id order
    /// starting after the path of the previous transmission). The stack's own scheduler with
    /// Tern's patch (`crates/noq-proto-patched`, `TransportConfig::path_scheduler`).
    #[serde(default)]
    pub scheduler: QuicScheduler,
    /// The RSSI-threshold scheduler of the mpquic-rssi study (`mech::rssi_scheduler`): it sets
    /// path 0 (Wi-Fi: `via` an 802.11 BSS) and path 1 (cellular) available or backup from the
    /// client's Wi-Fi RSSI, overriding their `status`. Needs exactly these two paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rssi_scheduler: Option<RssiSchedulerSpec>,
}

/// The RSSI-threshold scheduler's parameters (paper 003, §3).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RssiSchedulerSpec {
    /// Above it (dBm), Wi-Fi only (the paper's proposed setting: −75 dBm).
    pub t1: f64,
    /// At or below it (dBm), cellular only; at most `t1` (the paper's proposed: −90 dBm).
    pub t2: f64,
    /// How often the RSSI is sampled; default 102.4 ms, one beacon interval (IEEE 802.11's
    /// default beacon period of 100 TU), how often the RSSI Tern models changes. The paper does
    /// not say.
    #[serde(default = "beacon_interval")]
    pub period: Duration,
    /// dB above a threshold the RSSI must reach to move to a better class; default 0, the
    /// paper's rule (it has no hysteresis).
    #[serde(default)]
    pub hysteresis: f64,
    /// At or below it (dBm), or once the client has no RSSI (not associated), the client
    /// abandons the Wi-Fi path (PATH_ABANDON; draft-ietf-quic-multipath-21 §3.3: an endpoint
    /// that finds a path broken may close it); none by default (the paper's rule only sets
    /// the path backup). See `mech::rssi_scheduler`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandon_below: Option<f64>,
    /// Whether the scheduler sets the paths' status (default true); false leaves both paths
    /// at their `status` (plain MPQUIC, the paper's third variant), so that a sweep can turn
    /// the mechanism on and off (`--set flows.<flow>.transport.rssi_scheduler.enabled=false`).
    #[serde(default = "yes")]
    pub enabled: bool,
    /// The node whose Wi-Fi RSSI the scheduler reads: by default the client (`from`), a
    /// station of the BSS path 0 goes via. Name a station node when the client reaches its
    /// Wi-Fi radio over a link (path 0 `via` that link): a station's radio modelled as its
    /// own node, so that what the client's interface does to received packets (a shaper's
    /// queue, as Mininet-WiFi's `ifb` puts on a station's ingress) sits after the radio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub station: Option<String>,
}

fn beacon_interval() -> Duration {
    Duration(tern_proto::time::SimTime::from_micros(102_400))
}

/// One path of a multipath QUIC connection.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QuicPathSpec {
    /// A link or 802.11 BSS the flow's client (`from`) is on: the path's client address is
    /// its interface there.
    pub via: String,
    /// The path's status as the client sets it and signals it (draft-ietf-quic-multipath-21
    /// PATH_STATUS_AVAILABLE / PATH_STATUS_BACKUP frames): "available" (the default) or
    /// "backup", used for data only while no available path is validated.
    #[serde(default)]
    pub status: QuicPathStatus,
    /// When the client abandons the path (a PATH_ABANDON frame, draft-ietf-quic-multipath-21),
    /// counted from the run's start; never by default. Path 0 carries the handshake, so it is
    /// abandoned no earlier than the handshake's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abandon_at: Option<Duration>,
}

/// A multipath QUIC connection's path order (see [`QuicSpec::scheduler`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuicScheduler {
    #[default]
    LowestId,
    MinRtt,
    RoundRobin,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuicPathStatus {
    #[default]
    Available,
    Backup,
}

impl Default for QuicSpec {
    fn default() -> Self {
        toml::from_str("").expect("every QUIC field has a default")
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuicCcSpec {
    #[default]
    Newreno,
    Cubic,
    Bbr,
}

fn yes() -> bool {
    true
}
fn b1200() -> Bytes {
    Bytes(1200)
}
fn mib1_25() -> Bytes {
    Bytes(1_250_000)
}
fn mib16() -> Bytes {
    Bytes(16 << 20)
}
fn mib10() -> Bytes {
    Bytes(10 << 20)
}
fn s30() -> Duration {
    Duration(tern_proto::time::SimTime::from_secs(30))
}

/// Its settings in a scenario (`transport = { kind = "quic", … }`).
pub type Spec = QuicSpec;

/// A reliable stream: a message is late, never lost.
pub const STREAM: bool = true;

/// QUIC's windows and buffers: each of 0 B would let nothing be sent (RFC 9000 §4.1: a
/// sender may not send beyond the limits its peer advertises; RFC 9002 §7.2: the congestion
/// window never falls below two datagrams); a connection whose every path is abandoned has
/// none left to carry it (draft-ietf-quic-multipath-21 §3.3: abandoning the last path is
/// closing the connection).
pub fn check(q: &QuicSpec, cx: &CheckCx<'_, '_>) -> Result<(), ScenarioError> {
    let windows = [
        ("connection_window", q.connection_window.0),
        ("stream_window", q.stream_window.0),
        ("send_buffer", q.send_buffer.0),
    ];
    for (name, bytes) in windows {
        if bytes == 0 {
            return Err(cx.error(
                &[name],
                "expected more than 0 bytes (a window of 0 B lets nothing be sent)",
            ));
        }
    }
    // RFC 9002 §7.2: kMinimumWindow = 2 * max_datagram_size, the datagram being at least
    // 1200 B (RFC 9000 §14) before path MTU discovery.
    let least = 2 * q.initial_mtu.0;
    if let Some(w) = q.initial_window.filter(|w| w.0 < least) {
        return Err(cx.error(
            &["initial_window"],
            format!(
                "expected at least {least} bytes (RFC 9002 §7.2: the congestion window is never \
                 below two datagrams of initial_mtu = {} B), got {w}",
                q.initial_mtu
            ),
        ));
    }
    let last = q.paths.len().saturating_sub(1);
    if q.paths.len() >= 2 && q.paths.iter().all(|p| p.abandon_at.is_some()) {
        let mut p = cx.field(&["paths"]);
        p.extend([PathSeg::Index(last), PathSeg::Key("abandon_at".into())]);
        return Err(cx.source.error(
            &p,
            "every path is abandoned, which would leave the connection no path \
             (draft-ietf-quic-multipath-21 §3.3); keep at least one path without abandon_at",
        ));
    }
    if let Some(r) = &q.rssi_scheduler {
        check_rssi_scheduler(cx, r)?;
    }
    Ok(())
}

/// The RSSI scheduler's thresholds: levels in dBm, `t2` at most `t1`, a non-negative
/// hysteresis, a sampling period above zero.
fn check_rssi_scheduler(cx: &CheckCx<'_, '_>, r: &RssiSchedulerSpec) -> Result<(), ScenarioError> {
    let here = |name: &str| cx.field(&["rssi_scheduler", name]);
    let src = cx.source;
    for (name, level) in [("t1", r.t1), ("t2", r.t2)] {
        if !level.is_finite() {
            return Err(src.error(&here(name), format!("expected a level in dBm, got {level}")));
        }
    }
    if r.t2 > r.t1 {
        return Err(src.error(
            &here("t2"),
            format!("expected t2 at most t1 ({} dBm), got {} dBm", r.t1, r.t2),
        ));
    }
    if r.period.0.as_nanos() == 0 {
        return Err(src.error(&here("period"), "expected a period above zero"));
    }
    if !(r.hysteresis >= 0.0 && r.hysteresis.is_finite()) {
        return Err(src.error(
            &here("hysteresis"),
            format!("expected 0 dB or more, got {}", r.hysteresis),
        ));
    }
    if r.abandon_below.is_some_and(|a| !a.is_finite()) {
        return Err(src.error(
            &here("abandon_below"),
            format!("expected a level in dBm, got {:?}", r.abandon_below),
        ));
    }
    Ok(())
}

