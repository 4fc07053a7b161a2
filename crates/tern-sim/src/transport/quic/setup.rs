//! A QUIC flow from its scenario settings: their checks and the flow's transport, under
//! the RSSI scheduler when its settings turn it on.

use super::{QlogUse, QuicApp, QuicTransport};
use super::spec::{QuicSpec, RssiSchedulerSpec};
use crate::scenario::{CheckCx, PathSeg, ScenarioError};
use crate::transport::{Cmd, Transport};
use crate::transport::build_cx::{boxed, BuildCx};

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

/// The flow's transport; its qlog files are added when the scenario records them. The
/// RSSI-threshold scheduler the flow's settings may ask for is put above it by its mechanism
/// (`mech::rssi_quic::build`).
pub fn build(spec: &QuicSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    boxed(transport(spec, cx))
}

/// The flow's QUIC transport itself, and its first commands.
pub fn transport(spec: &QuicSpec, cx: BuildCx<'_>) -> (QuicTransport, Vec<Cmd>) {
    let f = cx.flow;
    let qlog = match cx.qlog {
        Some(q) => QlogUse::Files(
            ["client", "server"].map(|side| q.add(format!("{}.{side}.sqlog", f.name))),
        ),
        None if cx.shared.quic_trace => QlogUse::PtoCount,
        None => QlogUse::Off,
    };
    QuicTransport::new(
        &f.name,
        spec,
        cx.seed,
        cx.mtu,
        f.start.0,
        QuicApp::new(&f.app, cx.source),
        qlog,
    )
}
