//! Checks of a flow's transport settings that its type allows but the protocol does not
//! (a QUIC flow-control window of 0 B), or that need the rest of the scenario (a
//! countermeasure against 802.11 handovers on a flow whose client never roams).

use super::quic::{QuicSpec, RssiSchedulerSpec};
use super::rules::{at, key};
use super::schema::TfrcSpec;
use super::{FlowSpec, Scenario, ScenarioError, Source};
use crate::scenario::PathSeg;

/// A flow's transport settings, flow `i` of `s`.
pub(super) fn check(
    s: &Scenario,
    src: &Source,
    i: usize,
    f: &FlowSpec,
) -> Result<(), ScenarioError> {
    if let Some(q) = f.transport.quic() {
        check_quic(src, i, q)?;
    }
    if let Some(t) = f.transport.tfrc() {
        check_tfrc(s, src, i, f, t)?;
    }
    Ok(())
}

fn field(i: usize, name: &str) -> Vec<PathSeg> {
    let mut p = at("flows", i, "transport");
    p.push(key(name));
    p
}

/// QUIC's windows and buffers: each of 0 B would let nothing be sent (RFC 9000 §4.1: a
/// sender may not send beyond the limits its peer advertises; RFC 9002 §7.2: the congestion
/// window never falls below two datagrams); a connection whose every path is abandoned has
/// none left to carry it (draft-ietf-quic-multipath-21 §3.3: abandoning the last path is
/// closing the connection).
fn check_quic(src: &Source, i: usize, q: &QuicSpec) -> Result<(), ScenarioError> {
    let windows = [
        ("connection_window", q.connection_window.0),
        ("stream_window", q.stream_window.0),
        ("send_buffer", q.send_buffer.0),
    ];
    for (name, bytes) in windows {
        if bytes == 0 {
            return Err(src.error(
                &field(i, name),
                "expected more than 0 bytes (a window of 0 B lets nothing be sent)",
            ));
        }
    }
    // RFC 9002 §7.2: kMinimumWindow = 2 * max_datagram_size, the datagram being at least
    // 1200 B (RFC 9000 §14) before path MTU discovery.
    let least = 2 * q.initial_mtu.0;
    if let Some(w) = q.initial_window.filter(|w| w.0 < least) {
        return Err(src.error(
            &field(i, "initial_window"),
            format!(
                "expected at least {least} bytes (RFC 9002 §7.2: the congestion window is never \
                 below two datagrams of initial_mtu = {} B), got {w}",
                q.initial_mtu
            ),
        ));
    }
    let last = q.paths.len().saturating_sub(1);
    if q.paths.len() >= 2 && q.paths.iter().all(|p| p.abandon_at.is_some()) {
        let mut p = field(i, "paths");
        p.extend([PathSeg::Index(last), key("abandon_at")]);
        return Err(src.error(
            &p,
            "every path is abandoned, which would leave the connection no path \
             (draft-ietf-quic-multipath-21 §3.3); keep at least one path without abandon_at",
        ));
    }
    if let Some(r) = &q.rssi_scheduler {
        check_rssi_scheduler(src, i, r)?;
    }
    Ok(())
}

/// The RSSI scheduler's thresholds: levels in dBm, `t2` at most `t1`, a non-negative
/// hysteresis, a sampling period above zero.
fn check_rssi_scheduler(
    src: &Source,
    i: usize,
    r: &RssiSchedulerSpec,
) -> Result<(), ScenarioError> {
    let here = |name: &str| {
        let mut p = field(i, "rssi_scheduler");
        p.push(key(name));
        p
    };
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

/// Countermeasures A and B of the tfrc-handover study act on the client's 802.11 roams
/// (`[[roaming]]`): on a flow whose client never roams they would silently do nothing.
fn check_tfrc(
    s: &Scenario,
    src: &Source,
    i: usize,
    f: &FlowSpec,
    t: &TfrcSpec,
) -> Result<(), ScenarioError> {
    if s.roaming.iter().any(|r| r.station == f.from) {
        return Ok(());
    }
    let on = [
        ("handover_notice", t.handover_notice),
        ("rate_from_bss_load", t.rate_from_bss_load),
    ];
    if let Some((name, _)) = on.into_iter().find(|(_, on)| *on) {
        return Err(src.error(
            &field(i, name),
            format!(
                "acts on the client's 802.11 handovers, and {:?} (from) roams in no \
                 [[roaming]] entry: make the client a roaming station or remove {name}",
                f.from
            ),
        ));
    }
    Ok(())
}
