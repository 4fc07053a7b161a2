//! Mechanisms proposed by the studies, named for what they do. Each is a plain state
//! machine ([`switcher`]) fed events with the current time; where it sits above transports
//! ([`switched`]) the glue is a [`crate::transport::Transport`] of its own.

pub mod records;
pub mod rssi_quic;
pub(crate) use records::records;
pub mod rssi_scheduler;
pub mod summary;
pub mod switched;
pub mod switcher;
pub mod tfrc_handover;

use crate::transport::build_cx::BuildCx;
use crate::transport::{Cmd, Transport, TransportSpec};

/// The transport of a flow (its slice's, `transport::build`), with the mechanism its
/// settings put above it, if any: a TCP flow's connection switcher, a QUIC flow's enabled
/// RSSI-threshold scheduler or a TFRC flow's handover countermeasures, which the mechanism
/// builds from its transport's parts.
pub fn build(spec: &TransportSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    let flow = cx.flow;
    match spec {
        TransportSpec::Tcp(s) => match &flow.switcher {
            Some(sw) => switched::build(s, sw, cx),
            None => crate::transport::build(spec, cx),
        },
        TransportSpec::Quic(s) => match s.rssi_scheduler.as_ref().filter(|r| r.enabled) {
            Some(r) => rssi_quic::build(s, r, cx),
            None => crate::transport::build(spec, cx),
        },
        TransportSpec::Tfrc(s) => tfrc_handover::build(s, cx),
        _ => crate::transport::build(spec, cx),
    }
}
