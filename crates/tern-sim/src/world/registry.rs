//! Which transport a flow of a scenario gets: one line per kind (and per mechanism that
//! drives its own transports).

use crate::app::{MessageSource, MessageStream};
use crate::mech::rssi_quic::RssiScheduledQuic;
use crate::mech::rssi_scheduler::Config as RssiConfig;
use crate::mech::switched::{SpareRecipe, SwitchedTcp};
use crate::mech::switcher::{Config as SwitcherConfig, ConnectionSwitcher, Policy};
use crate::net::packet::IPV4_HEADER;
use crate::scenario::{AppSpec, FlowSpec, SpareSpec, SwitchPolicy, TransportSpec};
use crate::trace::QlogFiles;
use crate::transport::quic::{QlogUse, QuicApp, QuicTransport};
use crate::transport::small_queues::SmallQueues;
use crate::transport::tcp::{self, TcpApp, TcpConfigs, TcpConn, TcpTransport};
use crate::transport::tfrc::{tfrc_wire, TfrcApp, TfrcTransport};
use crate::transport::udp::UdpTransport;
use crate::transport::{Cmd, Transport};
use std::sync::Arc;
use tern_proto::tcp::Config;

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
    let quic_trace = shared.quic_trace;
    let start = f.start.0;
    match &f.transport {
        TransportSpec::Udp => boxed(UdpTransport::new(
            source.expect("validated: UDP has a source"),
        )),
        TransportSpec::Quic(spec) => {
            let qlog = match qlog {
                Some(q) => QlogUse::Files(
                    ["client", "server"].map(|side| q.add(format!("{}.{side}.sqlog", f.name))),
                ),
                None if quic_trace => QlogUse::PtoCount,
                None => QlogUse::Off,
            };
            let quic = QuicTransport::new(
                &f.name,
                spec,
                seed,
                mtu,
                start,
                QuicApp::new(&f.app, source),
                qlog,
            );
            match spec.rssi_scheduler.as_ref().filter(|r| r.enabled) {
                None => boxed(quic),
                Some(r) => {
                    let config = RssiConfig {
                        t1_dbm: r.t1,
                        t2_dbm: r.t2,
                        period: r.period.0,
                        hysteresis_db: r.hysteresis,
                        abandon_below_dbm: r.abandon_below,
                    };
                    boxed(RssiScheduledQuic::new(quic, config, start))
                }
            }
        }
        TransportSpec::Tfrc(spec) => {
            let app = match (&f.app, source) {
                (AppSpec::Bulk { bytes }, _) => TfrcApp::Bulk {
                    total: bytes.map(|b| b.0),
                    // Path MTU less IPv4 and the data header (checked to fit).
                    segment: spec.segment.map_or_else(
                        || mtu - IPV4_HEADER - tfrc_wire(spec.wire).data_header(),
                        |b| b.0 as u32,
                    ),
                },
                (_, Some(source)) => TfrcApp::Messages(source),
                (_, None) => unreachable!("validated: TFRC carries bulk or messages"),
            };
            boxed(TfrcTransport::new(spec, app, start))
        }
        TransportSpec::Tcp(spec) => {
            let config = shared.tcp_configs.intern(tcp::config(spec, mtu));
            let tsq = SmallQueues {
                limit: spec.tsq.0,
                truesize: u32::try_from(spec.tsq_truesize.0).expect("validated: at most 128 KiB"),
                pacing: spec.tsq_pacing,
            };
            let mut conn = tcp_conn(f, index, seed, config.clone(), tsq, source);
            conn.set_cwnd_rtt_events(shared.tcp_events);
            match &f.switcher {
                None => boxed(TcpTransport::new(conn, start)),
                Some(sw) => {
                    // The spare has its own ports and random streams.
                    let spare = SpareRecipe {
                        name: format!("{}#2", f.name),
                        port_index: index + 8192,
                        seed,
                        config,
                        tsq,
                    };
                    // Without switching there is no spare to open.
                    let on_demand =
                        sw.spare == SpareSpec::OnDemand || sw.policy == SwitchPolicy::Never;
                    let mech = ConnectionSwitcher::new(SwitcherConfig {
                        policy: match sw.policy {
                            SwitchPolicy::Notice => Policy::Notice,
                            SwitchPolicy::Oracle => Policy::Oracle,
                            SwitchPolicy::Never => Policy::Never,
                        },
                        recv_interval: sw.recv_interval.0,
                        switch_window: sw.switch_window.0,
                        notice_interval: sw.notice_interval.0,
                    });
                    let notice_size = sw.notice_size.0 as u32;
                    boxed(SwitchedTcp::new(
                        conn,
                        mech,
                        notice_size,
                        spare,
                        on_demand,
                        start,
                    ))
                }
            }
        }
    }
}

/// A transport and its first commands, boxed.
fn boxed<T: Transport + 'static>((t, first): (T, Vec<Cmd>)) -> (Box<dyn Transport>, Vec<Cmd>) {
    (Box::new(t), first)
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
