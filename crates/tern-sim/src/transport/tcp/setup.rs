//! A TCP flow's transport from its scenario settings: one connection (a connection
//! switcher, `switcher = { … }`, is put above it by `mech::switched::build`).

use super::{config, TcpApp, TcpConn, TcpTransport};
use crate::app::{MessageSource, MessageStream};
use crate::scenario::{AppSpec, FlowSpec, TcpSpec};
use crate::transport::tcp::spec::TsqChargeEndsSpec;
use crate::transport::small_queues::SmallQueues;
use crate::transport::{Cmd, Transport};
use crate::transport::build_cx::{boxed, BuildCx};
use std::sync::Arc;
use tern_proto::tcp::Config;


/// The flow's transport: one TCP connection. A connection switcher the flow's settings ask
/// for (`switcher = { … }`) is put above TCP by its mechanism (`mech::switched::build`).
pub fn build(spec: &TcpSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    let start = cx.flow.start.0;
    let (conn, _, _) = connection(spec, cx);
    boxed(TcpTransport::new(conn, start))
}

/// The flow's (first) TCP connection, with the configuration and TCP Small Queues settings
/// a second connection of the same flow shares.
pub fn connection(spec: &TcpSpec, cx: BuildCx<'_>) -> (TcpConn, Arc<Config>, SmallQueues) {
    let (f, index, seed) = (cx.flow, cx.index, cx.seed);
    let config = cx.shared.tcp_configs.intern(config(spec, cx.mtu));
    let tsq = SmallQueues {
        limit: spec.tsq.0,
        truesize: u32::try_from(spec.tsq_truesize.0).expect("validated: at most 128 KiB"),
        pacing: spec.tsq_pacing,
        at_driver: spec.tsq_charge_ends == TsqChargeEndsSpec::Driver,
    };
    let mut conn = tcp_conn(f, index, seed, config.clone(), tsq, cx.source);
    conn.set_cwnd_rtt_events(cx.shared.tcp_events);
    (conn, config, tsq)
}

/// The flow's (first) TCP connection with its application.
fn tcp_conn(
    f: &FlowSpec,
    index: u32,
    seed: u64,
    config: Arc<Config>,
    tsq: SmallQueues,
    source: Option<MessageSource>,
) -> TcpConn {
    let app = match (&f.app, source) {
        (AppSpec::Bulk { bytes }, _) => TcpApp::Bulk {
            total: bytes.map(|b| b.0),
        },
        (AppSpec::File { size, request }, _) => TcpApp::File {
            request: request.0,
            size: size.0,
            answered: 0,
            received: 0,
        },
        (_, Some(source)) => TcpApp::Messages(Box::new(MessageStream::new(source))),
        (_, None) => unreachable!("every app but bulk and file has a source"),
    };
    TcpConn::new(&f.name, index, seed, config, tsq, f.start.0, app)
}
