//! A TFRC or DCCP flow from its scenario settings: their checks and the flow's transport.

use super::{tfrc_wire, TfrcApp, TfrcTransport};
use crate::net::packet::IPV4_HEADER;
use super::spec::TfrcSpec;
use crate::scenario::{AppSpec, CheckCx, ScenarioError};
use crate::transport::{Cmd, Transport};
use crate::transport::build_cx::{boxed, BuildCx};

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

/// The flow's transport: bulk data or the application's messages.
pub fn build(spec: &TfrcSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
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
    boxed(TfrcTransport::new(spec, app, f.start.0))
}
