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

/// The transport of a flow whose settings put a mechanism above it (a TCP flow's connection
/// switcher, a QUIC flow's enabled RSSI-threshold scheduler), the mechanism building it from
/// its transport's parts; `cx` back when the flow asks for none.
pub fn build<'a>(
    spec: &TransportSpec,
    cx: BuildCx<'a>,
) -> Result<(Box<dyn Transport>, Vec<Cmd>), BuildCx<'a>> {
    let flow = cx.flow;
    match spec {
        TransportSpec::Tcp(s) => match &flow.switcher {
            Some(sw) => Ok(switched::build(s, sw, cx)),
            None => Err(cx),
        },
        TransportSpec::Quic(s) => match s.rssi_scheduler.as_ref().filter(|r| r.enabled) {
            Some(r) => Ok(rssi_quic::build(s, r, cx)),
            None => Err(cx),
        },
        _ => Err(cx),
    }
}
