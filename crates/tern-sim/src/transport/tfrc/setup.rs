//! A TFRC or DCCP flow's transport from its scenario settings (their checks are in spec.rs).

use super::{tfrc_wire, TfrcApp, TfrcTransport};
use crate::net::packet::IPV4_HEADER;
use super::spec::TfrcSpec;
use crate::scenario::AppSpec;
use crate::transport::{Cmd, Transport};
use crate::transport::build_cx::{boxed, BuildCx};


/// The flow's transport, boxed.
pub fn build(spec: &TfrcSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    boxed(transport(spec, cx))
}

/// The flow's TFRC transport itself (bulk data or the application's messages), and its
/// first commands.
pub fn transport(spec: &TfrcSpec, cx: BuildCx<'_>) -> (TfrcTransport, Vec<Cmd>) {
    let f = cx.flow;
    let app = match (&f.app, cx.source) {
        (AppSpec::Bulk { bytes }, _) => TfrcApp::Bulk {
            total: bytes.map(|b| b.0),
            // Path MTU less IPv4 and the data header (checked to fit).
            segment: spec.segment.map_or_else(
                || cx.mtu - IPV4_HEADER - tfrc_wire(spec.wire).data_header(),
                |b| b.0 as u32,
            ),
        },
        (_, Some(source)) => TfrcApp::Messages(source),
        (_, None) => unreachable!("validated: TFRC carries bulk or messages"),
    };
    TfrcTransport::new(spec, app, f.start.0)
}
