//! What a slice is given to build the transport of one flow (`<kind>::build(spec, cx)`,
//! called through the transports' list by the registry, `world::registry`).

use crate::app::MessageSource;
use crate::scenario::FlowSpec;
use crate::trace::QlogFiles;
use crate::transport::tcp::TcpConfigs;
use crate::transport::{Cmd, Transport};

/// What the transports of a world's flows share as they are built.
#[derive(Default)]
pub struct Shared {
    /// The scenario records the `quic` trace.
    pub quic_trace: bool,
    /// The scenario records the `cwnd` or the `rto` trace: TCP connections queue the
    /// events they come from ([`tern_proto::tcp::Connection::set_cwnd_rtt_events`]).
    pub tcp_events: bool,
    /// The TCP connections' configurations, each kept once.
    pub tcp_configs: TcpConfigs,
}

/// What a slice is given to build the transport of one flow.
pub struct BuildCx<'a> {
    /// The flow.
    pub flow: &'a FlowSpec,
    /// Its index in the scenario.
    pub index: u32,
    pub seed: u64,
    /// The MTU of its path.
    pub mtu: u32,
    /// The application's message source, if it has one.
    pub source: Option<MessageSource>,
    /// Where a QUIC flow's qlog files go, when the scenario records them.
    pub qlog: Option<&'a mut QlogFiles>,
    pub shared: &'a mut Shared,
}

/// A transport and its first commands, boxed.
pub fn boxed<T: Transport + 'static>((t, first): (T, Vec<Cmd>)) -> (Box<dyn Transport>, Vec<Cmd>) {
    (Box::new(t), first)
}
