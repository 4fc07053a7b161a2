//! Which transport a flow of a scenario gets: its kind's slice builds it
//! (`transport/<kind>/`, through the list of transports), with the mechanisms that drive
//! its own transports.

use crate::app::MessageSource;
use crate::scenario::FlowSpec;
use crate::trace::QlogFiles;
use crate::transport::build_cx::BuildCx;
pub use crate::transport::build_cx::Shared;
use crate::transport::{Cmd, Transport};

/// The transport of flow `f` (the `index`-th of the scenario) on a path of MTU `mtu`, and
/// its first commands. `source` is the application's message source, if it has one. A QUIC
/// flow's qlog files are added to `qlog` when the scenario records them.
pub fn build(
    f: &FlowSpec,
    index: u32,
    seed: u64,
    mtu: u32,
    source: Option<MessageSource>,
    qlog: Option<&mut QlogFiles>,
    shared: &mut Shared,
) -> (Box<dyn Transport>, Vec<Cmd>) {
    let cx = BuildCx {
        flow: f,
        index,
        seed,
        mtu,
        source,
        qlog,
        shared,
    };
    // The slice's transport, under the mechanism the flow's settings ask for, if any.
    crate::mech::build(&f.transport, cx)
}
