//! A message flow under a [`ConnectionSwitcher`]: the application's messages over two TCP
//! connections and the server's loss-start notices over UDP, as one [`Transport`] the
//! world drives. The connections are plain [`TcpConn`]s and know nothing of the mechanism;
//! this is the application-level glue above them (the study's UE and server programs).

use super::records::SwitcherRecord;
use super::summary::SwitcherSummary;
use super::switcher::{Config as SwitcherConfig, ConnectionSwitcher, Decision, Notice, Policy};
use crate::app::{MessageSource, MessageStream};
use crate::engine::{SimTime, Wake};
use crate::net::packet::{Body, UdpKind, UdpMessage};
use crate::scenario::{SpareSpec, SwitchPolicy, SwitcherSpec, TcpSpec};
use crate::transport::build_cx::{boxed, BuildCx};
use crate::transport::small_queues::SmallQueues;
use crate::transport::tcp::{app_tick, setup, TcpApp, TcpConn};
use crate::transport::{Arrival, Cmd, Io, LinkObserver, Side, Transport, TransportReport};
use std::sync::Arc;
use tern_proto::tcp::Config;

/// The key of the server's notice timer among the flow's endpoints (the connections are
/// 0 and 1).
const NOTICE: u8 = u8::MAX;

/// Everything needed to open the spare connection later.
#[derive(Debug)]
pub struct SpareRecipe {
    pub name: String,
    pub port_index: u32,
    pub seed: u64,
    pub config: Arc<Config>,
    pub tsq: SmallQueues,
}

impl SpareRecipe {
    /// The spare connection, connecting at `now`, carrying messages.
    pub fn open(&self, now: SimTime) -> TcpConn {
        TcpConn::new(
            &self.name,
            self.port_index,
            self.seed,
            self.config.clone(),
            self.tsq,
            now,
            TcpApp::Messages(Box::new(MessageStream::new(MessageSource::silent()))),
        )
    }
}

/// The switched flow: connection 0 first, the spare as connection 1 once open.
#[derive(Debug)]
pub struct SwitchedTcp {
    conns: Vec<TcpConn>,
    mech: ConnectionSwitcher,
    notice_size: u32,
    /// The server's pending notice wake-up.
    wake: Wake,
    /// How to open the spare connection when it is opened on demand.
    spare: Option<SpareRecipe>,
}

impl SwitchedTcp {
    /// The flow, and its first commands: the source's first message and the client opening
    /// the first connection (and the spare, unless it opens on demand) at `start`.
    pub fn new(
        first: TcpConn,
        mech: ConnectionSwitcher,
        notice_size: u32,
        spare: SpareRecipe,
        on_demand: bool,
        start: SimTime,
    ) -> (SwitchedTcp, Vec<Cmd>) {
        let mut cmds = Vec::new();
        if let TcpApp::Messages(m) = &first.app {
            cmds.extend(m.source.schedule.next().map(Cmd::Tick));
        }
        cmds.push(Cmd::WakeAt {
            at: start,
            side: Side::Client,
            key: 0,
        });
        let mut conns = vec![first];
        if !on_demand {
            conns.push(spare.open(start));
            cmds.push(Cmd::WakeAt {
                at: start,
                side: Side::Client,
                key: 1,
            });
        }
        let t = SwitchedTcp {
            conns,
            mech,
            notice_size,
            wake: Wake::default(),
            spare: on_demand.then_some(spare),
        };
        (t, cmds)
    }

    /// The connection a segment belongs to, from its client port.
    fn conn_of(&self, seg: &tern_proto::tcp::Segment, to_server: bool) -> usize {
        let client_port = if to_server {
            seg.src_port
        } else {
            seg.dst_port
        };
        self.conns
            .iter()
            .position(|c| c.client_port == client_port)
            .expect("a segment of one of the flow's connections")
    }

    /// Drives connection `k` at `side`; at the server, messages feed the mechanism and its
    /// notice timer is re-armed.
    fn pump(&mut self, now: SimTime, k: usize, side: Side, io: &mut Io<'_>) {
        let mech = &mut self.mech;
        self.conns[k].pump(now, side, k as u8, io, |d| {
            mech.on_message(now, k, d.sent_at)
        });
        if side == Side::Server {
            io.cmds.push(Cmd::Arm {
                side: Side::Server,
                key: NOTICE,
            });
        }
    }

    /// Server: send the notice that is due.
    fn notice_due(&mut self, now: SimTime, io: &mut Io<'_>) {
        self.wake.fire(now);
        if let Some(notice) = self.mech.poll_notice(now) {
            let msg = UdpMessage {
                kind: UdpKind::Notice,
                seq: self.mech.notices_sent - 1,
                sent_at: notice.last_sent,
                len: self.notice_size,
            };
            io.traces.record(&SwitcherRecord {
                time: now,
                flow: io.flow,
                event: "notice_sent",
                last_sent: Some(notice.last_sent),
                decision: None,
            });
            io.cmds.push(Cmd::Send {
                side: Side::Server,
                key: NOTICE,
                body: Body::Udp(msg),
            });
        }
        io.cmds.push(Cmd::Arm {
            side: Side::Server,
            key: NOTICE,
        });
    }

    /// UE: a notice arrived, or (`notice` is `None`) a handover completed.
    fn at_ue(&mut self, now: SimTime, notice: Option<Notice>, io: &mut Io<'_>) {
        let (event, switch, decision) = match notice {
            Some(n) => {
                let d = self.mech.on_notice(now, n);
                ("notice_received", d == Decision::Switch, Some(d))
            }
            None => ("handover", self.mech.on_handover(now), None),
        };
        if io.traces.wants::<SwitcherRecord>() {
            // The decision's name, as written in the trace: "switch", "outsidewindow", …
            let decision = decision.map(|d| format!("{d:?}").to_lowercase());
            io.traces.record(&SwitcherRecord {
                time: now,
                flow: io.flow,
                event,
                last_sent: notice.map(|n| n.last_sent),
                decision: decision.as_deref(),
            });
            if switch {
                io.traces.record(&SwitcherRecord {
                    time: now,
                    flow: io.flow,
                    event: "switch",
                    last_sent: None,
                    decision: None,
                });
            }
        }
        if switch {
            if let Some(spare) = self.spare.take() {
                // Opened on demand: the handshake starts now.
                self.conns.push(spare.open(now));
                io.cmds.push(Cmd::WakeAt {
                    at: now,
                    side: Side::Client,
                    key: 1,
                });
            }
        }
    }
}

impl Transport for SwitchedTcp {
    /// Every message comes from the first connection's source and goes on the connection
    /// in use.
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        let k = self.mech.active();
        if let Some((seq, len)) = app_tick(now, &mut self.conns[0], io) {
            self.conns[k].write_message(now, seq, len);
        }
        self.pump(now, k, Side::Client, io);
    }

    /// The flow's packets are its connections' segments, read where they lie, and the
    /// server's notices (UDP).
    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        if let Body::Tcp(seg) = packet.body() {
            let k = self.conn_of(seg, side == Side::Server);
            self.conns[k].ends[side.index()]
                .conn
                .handle_segment(now, seg);
            self.pump(now, k, side, io);
        } else if let Body::Udp(msg) = packet.body() {
            debug_assert_eq!(msg.kind, UdpKind::Notice);
            let notice = Notice {
                last_sent: msg.sent_at,
            };
            self.at_ue(now, Some(notice), io);
        }
    }

    fn handle_timeout(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>) {
        if key == NOTICE {
            return self.notice_due(now, io);
        }
        let k = usize::from(key);
        self.conns[k].on_wake(now, side);
        self.pump(now, k, side, io);
    }

    fn poll_timeout(&mut self, now: SimTime, side: Side, key: u8) -> Option<SimTime> {
        if key == NOTICE {
            return self.wake.arm(now, self.mech.poll_timeout()?);
        }
        self.conns[usize::from(key)].arm(now, side)
    }

    /// The two connections (keys 0 and 1, the spare counted before it opens); a notice
    /// (key [`NOTICE`]) is not TCP and has no Small Queues count.
    fn small_queues(&self) -> Option<(SmallQueues, u8)> {
        Some((self.conns[0].ends[0].tsq, 2))
    }

    fn first_hop_room(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>) {
        self.pump(now, usize::from(key), side, io);
    }

    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        Some(self)
    }

    fn report(&self, start: SimTime) -> TransportReport {
        let mut sink = crate::app::MessageSink::default();
        for c in &self.conns {
            sink.received += c.sink.received;
            sink.received_bytes += c.sink.received_bytes;
            sink.delays.extend_from_slice(&c.sink.delays);
        }
        TransportReport {
            kind: "tcp",
            messages_sent: self.conns[0].messages_sent(),
            bytes_sent: self.conns.iter().map(|c| c.written).sum(),
            sink,
            bytes_delivered: self.conns.iter().map(TcpConn::delivered_bytes).sum(),
            reliable: true,
            detail: Some(
                crate::transport::tcp::Summary {
                    tcp: self.conns[0].summary(start),
                    switcher: Some(SwitcherSummary {
                        switched_at_s: self.mech.switched_at().map(SimTime::as_secs_f64),
                        notices_sent: self.mech.notices_sent,
                        notices_received: self.mech.notices_received,
                        handovers_seen: self.mech.handovers_seen,
                        spare_tcp: self.conns.get(1).map(|c| c.summary(start)),
                    }),
                }
                .into(),
            ),
        }
    }
}

/// Both connections hear of the link; the UE's mechanism hears of its handovers.
impl LinkObserver for SwitchedTcp {
    fn handle_link(&mut self, now: SimTime, side: Side, up: bool, io: &mut Io<'_>) {
        for k in 0..self.conns.len() {
            self.conns[k].ends[side.index()]
                .conn
                .on_connectivity(now, up);
            self.pump(now, k, side, io);
        }
    }

    fn handle_handover(&mut self, now: SimTime, side: Side, io: &mut Io<'_>) {
        if side == Side::Client {
            self.at_ue(now, None, io);
        }
    }
}

/// A TCP flow whose settings ask for a connection switcher (`switcher = { … }`, `sw`): its
/// first connection (`transport::tcp::setup::connection`) and the spare's recipe under the
/// switcher.
pub fn build(spec: &TcpSpec, sw: &SwitcherSpec, cx: BuildCx<'_>) -> (Box<dyn Transport>, Vec<Cmd>) {
    let f = cx.flow;
    let (index, seed, start) = (cx.index, cx.seed, f.start.0);
    let (conn, config, tsq) = setup::connection(spec, cx);
    // The spare has its own ports and random streams.
    let spare = SpareRecipe {
        name: format!("{}#2", f.name),
        port_index: index + 8192,
        seed,
        config,
        tsq,
    };
    // Without switching there is no spare to open.
    let on_demand = sw.spare == SpareSpec::OnDemand || sw.policy == SwitchPolicy::Never;
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
