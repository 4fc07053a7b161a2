//! A QUIC flow's transport from its scenario settings (their checks are in spec.rs; the
//! RSSI scheduler its settings may turn on is put above it by `mech::rssi_quic::build`).

use super::{QlogUse, QuicApp, QuicTransport};
use super::spec::QuicSpec;
use crate::transport::{Cmd, Transport};
use crate::transport::build_cx::{boxed, BuildCx};

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
