//! A QUIC flow (RFC 9000/9001/9002): a real sans-IO QUIC stack, noq-proto, driven in
//! simulated time. A client endpoint at the flow's source opens one connection to a server
//! endpoint at its destination; the application (see [`app`]) runs on one stream.
//!
//! Each endpoint is driven as the stack documents (`noq_proto::Connection`): after every
//! input — a datagram, a wake-up, the application's next message — the application's
//! events and I/O, then the stack's endpoint events, then transmit until it has nothing
//! more (or its pacer says wait), then one wake-up at its next timeout (`engine::Wake`).
//! The stack's `Instant` is a base instant taken once per flow plus the simulated time, so
//! no decision depends on the wall clock (two runs in one process have different bases); its random inputs are seeded (see [`config`]
//! and [`tls`]). Datagrams carry the stack's real bytes: their size on the wire is exact
//! (IPv4 20 B + UDP 8 B + the QUIC datagram).

pub mod capture;
pub mod wire;
pub use wire::OnWire;
pub mod records;
pub(crate) use records::records;
pub mod spec;
pub mod summary;
pub(crate) mod setup;

mod app;
mod config;
mod h3;
mod paths;
mod qlog;
pub mod qvis;
mod streams;
mod tls;

pub use app::QuicApp;
pub use qlog::QlogUse;

use super::{Arrival, Cmd, Io, Side, Transport, TransportReport, WireBody};
use crate::engine::{RngStream, SimTime, Wake};
use crate::net::body::PROTO_UDP;
use crate::net::packet::{Body, QuicDatagram, UDP_HEADER};
use spec::{QuicPathStatus, QuicSpec};
pub use summary::{ConnectionEnd, QuicPathSummary, QuicSummary, Summary};
use records::QuicRecord;
use app::AppState;
use bytes::BytesMut;
use indexmap::IndexMap;
use noq_proto::{
    ClientConfig, Connection, ConnectionHandle, DatagramEvent, Endpoint, Event, FourTuple,
    PathEvent, PathId, PathStats, PathStatus,
};
use paths::{client_addr, server_addr, Paths};
use qlog::Qlog;
use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tls::{KeyLogLines, SimClock};

/// The stack's clock: `base` (any instant, used only as an origin) plus simulated time.
#[derive(Clone, Copy)]
struct Epoch {
    base: Instant,
}

impl Epoch {
    fn instant(self, t: SimTime) -> Instant {
        self.base + Duration::from_nanos(t.as_nanos())
    }

    fn sim_time(self, i: Instant) -> SimTime {
        SimTime::from_nanos(i.saturating_duration_since(self.base).as_nanos() as u64)
    }
}

/// One end of the flow: its QUIC endpoint, its connection once there is one, and its
/// random stream for TLS.
struct End {
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    wake: Wake,
    entropy: RngStream,
}

/// What an endpoint is driven for.
enum Input {
    /// A datagram that came by path `.0`.
    Datagram(u8, Vec<u8>),
    Wake,
    App,
}

/// A flow over one QUIC connection.
pub struct QuicTransport {
    ends: [End; 2],
    /// Taken when the client connects.
    client_config: Option<ClientConfig>,
    clock: Arc<SimClock>,
    keys: Arc<KeyLogLines>,
    /// The endpoints' qlog, when the scenario records "qlog" or the `quic` trace (which
    /// takes the PTO count from it).
    qlog: Option<Qlog>,
    epoch: Epoch,
    app: AppState,
    start: SimTime,
    /// When the client's handshake completed (RFC 9001 §4.1.1).
    connected_at: Option<SimTime>,
    /// The connection's end as the first endpoint to report it saw it (RFC 9000 §10: an
    /// idle timeout, a CONNECTION_CLOSE sent for an error or received).
    closed: Option<ConnectionEnd>,
    paths: Paths,
    buf: Vec<u8>,
}

impl QuicTransport {
    /// The flow `name` on a path of MTU `mtu`, and its first commands: the source's first
    /// message (message apps) and the client opening the connection at `start`; the
    /// endpoints log qlog for `qlog`.
    pub fn new(
        name: &str,
        spec: &QuicSpec,
        seed: u64,
        mtu: u32,
        start: SimTime,
        app: QuicApp,
        qlog: QlogUse,
    ) -> (QuicTransport, Vec<Cmd>) {
        // The one reading of the machine's clock: an origin, never a decision's input.
        let epoch = Epoch {
            base: Instant::now(),
        };
        let qlog = Qlog::new(name, epoch.base, qlog);
        let clock = Arc::new(SimClock::default());
        let max_udp = config::max_udp_payload(spec, mtu);
        let end = |side: &str, server| End {
            endpoint: Endpoint::new(
                Arc::new(config::endpoint(seed, name, side, max_udp)),
                server,
                true,
            ),
            conn: None,
            wake: Wake::default(),
            entropy: config::stream(seed, name, side, "tls"),
        };
        let setup = config::Setup {
            spec,
            mtu,
            seed,
            flow: name,
            clock: clock.clone(),
            qlog: qlog.as_ref(),
            alpn: app.alpn(),
        };
        let server = config::server(&setup);
        let ends = [end("client", None), end("server", Some(Arc::new(server)))];
        let mut first = Vec::new();
        if let QuicApp::Messages(m) = &app {
            first.extend(m.source.schedule.next().map(Cmd::Tick));
        }
        let paths = Paths::new(&spec.paths);

        for at in std::iter::once(start).chain(paths.wake_ups()) {
            first.push(Cmd::WakeAt {
                at,
                side: Side::Client,
                key: 0,
            });
        }
        let keys = Arc::new(KeyLogLines::default());
        let client_config = Some(config::client(&setup, keys.clone()));
        let t = QuicTransport {
            ends,
            client_config,
            clock,
            keys,
            qlog,
            epoch,
            app: AppState::new(app),
            start,
            connected_at: None,
            closed: None,
            paths,
            buf: Vec::new(),
        };
        (t, first)
    }

    /// Drives endpoint `side` after `input` (see the module docs).
    fn drive(&mut self, now: SimTime, side: Side, input: Input, io: &mut Io<'_>) {
        self.clock.set(now.as_nanos());
        let t = self.epoch.instant(now);
        let QuicTransport {
            ends,
            client_config,
            app,
            connected_at,
            closed,
            paths,
            buf,
            start,
            qlog,
            ..
        } = self;
        let End {
            endpoint,
            conn,
            entropy,
            ..
        } = &mut ends[side.index()];
        // Datagrams to send, each with its path.
        let mut out: Vec<(u8, Vec<u8>)> = Vec::new();
        let client = side == Side::Client;
        let (traces, flow) = (&mut *io.traces, io.flow);
        tls::with_entropy(entropy, || {
            match input {
                Input::Datagram(k, bytes) => {
                    let path = match side {
                        Side::Client => FourTuple::new(server_addr(), Some(client_addr(k).ip())),
                        Side::Server => FourTuple::new(client_addr(k), Some(server_addr().ip())),
                    };
                    let event = endpoint.handle(t, path, None, BytesMut::from(&bytes[..]), buf);
                    match event {
                        Some(DatagramEvent::NewConnection(incoming)) => {
                            match endpoint.accept(incoming, t, buf, None) {
                                Ok(c) => *conn = Some(c),
                                Err(e) => {
                                    out.extend(e.response.map(|r| (k, buf[..r.size].to_vec())))
                                }
                            }
                        }
                        Some(DatagramEvent::ConnectionEvent(_, event)) => {
                            if let Some((_, c)) = conn {
                                c.handle_event(event);
                            }
                        }
                        Some(DatagramEvent::Response(r)) => out.push((k, buf[..r.size].to_vec())),
                        None => {}
                    }
                    buf.clear();
                }
                Input::Wake => match conn {
                    Some((_, c)) if c.poll_timeout().is_some_and(|d| d <= t) => {
                        c.handle_timeout(t);
                    }
                    Some(_) => {}
                    // The client connects at the flow's start (earlier wake-ups are for its
                    // paths: `abandon_at`).
                    None if now >= *start => {
                        if let Some(cfg) = client_config.take() {
                            let c = endpoint
                                .connect(t, cfg, server_addr(), tls::SERVER_NAME)
                                .expect("a fresh endpoint can connect");
                            *conn = Some(c);
                        }
                    }
                    None => {}
                },
                Input::App => {}
            }
            let Some((ch, c)) = conn else { return };
            while let Some(event) = c.poll() {
                match event {
                    Event::Connected if client => {
                        connected_at.get_or_insert(now);
                    }
                    // The server adopts the client's status of a path (see `paths`).
                    Event::Path(PathEvent::RemoteStatus { id, status, .. }) if !client => {
                        paths.peer_status(id, status);
                    }
                    Event::Path(PathEvent::Discarded { id, path_stats, .. }) => {
                        paths.discarded(side.index(), id, *path_stats);
                    }
                    Event::ConnectionLost { reason } => {
                        closed.get_or_insert_with(|| ConnectionEnd {
                            at_s: now.as_secs_f64(),
                            endpoint: side.as_str(),
                            reason: reason.to_string(),
                        });
                    }
                    _ => {}
                }
            }
            if client && connected_at.is_some() && paths.multipath() {
                paths.open(c, t);
                paths.abandon(c, now, t);
            }
            if !client {
                paths.adopt(c);
            }
            match side {
                Side::Client if connected_at.is_some() => {
                    app.client_io(now, c, |d| traces.record(&d.record(now, flow, 1)))
                }
                Side::Client => {}
                Side::Server => app.server_io(now, c, |d| traces.record(&d.record(now, flow, 1))),
            }
            loop {
                let mut more = false;
                while let Some(event) = c.poll_endpoint_events() {
                    more = true;
                    if let Some(event) = endpoint.handle_event(*ch, event) {
                        c.handle_event(event);
                    }
                }
                while let Some(tx) = c.poll_transmit(t, NonZeroUsize::MIN, buf) {
                    let k = match side {
                        Side::Client => tx.src_ip.map_or(0, paths::index_of),
                        Side::Server => paths::index_of(tx.destination.ip()),
                    };
                    out.push((k, buf[..tx.size].to_vec()));
                    buf.clear();
                }
                if !more {
                    break;
                }
            }
            let wants = traces.wants::<QuicRecord>();
            // Each path's PTO count and bytes in flight, by path index, from the stack's
            // qlog (see `qlog`).
            let ptos: Vec<(u8, (qlog::Recovery, bool))> = match qlog {
                Some(q) if wants => c
                    .paths()
                    .into_iter()
                    .filter_map(|id| {
                        Some((paths::index(c, id, client)?, q.recovery(side.index(), id)))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            for (k, old, s) in paths.update_stats(side.index(), c) {
                let (recovery, recovery_changed) = ptos
                    .iter()
                    .find(|(i, _)| *i == k)
                    .map_or((qlog::Recovery::default(), false), |&(_, p)| p);
                let changed = recovery_changed
                    || old.is_none_or(|old| {
                        (old.cwnd, old.rtt, old.lost_packets) != (s.cwnd, s.rtt, s.lost_packets)
                    });
                if wants && changed {
                    traces.record(&QuicRecord {
                        time: now,
                        flow,
                        endpoint: side.as_str(),
                        path: u64::from(k),
                        cwnd: s.cwnd,
                        bytes_in_flight: recovery.bytes_in_flight,
                        srtt: SimTime::from_nanos(s.rtt.as_nanos() as u64),
                        pto_count: u64::from(recovery.pto_count),
                        sent_packets: s.sent_packets,
                        lost_packets: s.lost_packets,
                        congestion_events: s.congestion_events,
                        mtu: u64::from(s.current_mtu),
                    });
                }
            }
        });
        for (path, bytes) in out {
            io.cmds.push(Cmd::Send {
                side,
                key: path,
                body: Body::Quic(QuicDatagram {
                    from_client: side == Side::Client,
                    path,
                    bytes,
                }),
            });
        }
        io.cmds.push(Cmd::Arm { side, key: 0 });
    }

    /// The client sets path `k`'s status to `status` (a multipath flow), signalled at once.
    pub fn set_path_status(
        &mut self,
        now: SimTime,
        statuses: &[(usize, QuicPathStatus)],
        io: &mut Io<'_>,
    ) {
        for &(k, status) in statuses {
            self.paths.want(k, status);
        }
        self.drive(now, Side::Client, Input::App, io);
    }

    /// The client abandons path `k` now (a multipath flow; a PATH_ABANDON frame, sent at once).
    pub fn abandon_path(&mut self, now: SimTime, k: usize, io: &mut Io<'_>) {
        self.paths.abandon_from(k, now);
        self.drive(now, Side::Client, Input::App, io);
    }

    /// The side that sends the application's data: the server for a file transfer.
    fn sender(&self) -> Side {
        match self.app.app {
            QuicApp::File(_) => Side::Server,
            _ => Side::Client,
        }
    }

    fn summary(&self) -> QuicSummary {
        let since = |t: Option<SimTime>| t.map(|t| t.saturating_sub(self.start).as_secs_f64());
        let sender = self.sender();
        let last = &self.paths.last[sender.index()];
        let sum = |f: fn(&PathStats) -> u64| last.iter().flatten().map(f).sum::<u64>();
        let first = last[0].as_ref();
        let conn = self.ends[sender.index()].conn.as_ref();
        let rtt = conn.and_then(|(_, c)| c.rtt(PathId::ZERO));
        QuicSummary {
            handshake_time_s: since(self.connected_at),
            first_byte_time_s: since(self.app.first_byte_at),
            completion_time_s: self.app.completed_at.map(SimTime::as_secs_f64),
            transfer_time_s: since(self.app.completed_at),
            packets_sent: sum(|s| s.sent_packets),
            packets_lost: sum(|s| s.lost_packets),
            bytes_lost: sum(|s| s.lost_bytes),
            datagrams_sent: sum(|s| s.udp_tx.datagrams),
            udp_bytes_sent: sum(|s| s.udp_tx.bytes),
            congestion_events: sum(|s| s.congestion_events),
            final_cwnd: first.map_or(0, |s| s.cwnd),
            final_mtu: first.map_or(0, |s| u64::from(s.current_mtu)),
            final_srtt_s: rtt.map(|r| r.as_secs_f64()),
            connection_closed: self.closed.clone(),
            paths: self.path_summaries(sender),
        }
    }

    /// Each path of a multipath flow, as its data's sender and receiver saw it.
    fn path_summaries(&self, sender: Side) -> IndexMap<String, QuicPathSummary> {
        if !self.paths.multipath() {
            return IndexMap::new();
        }
        let receiver = 1 - sender.index();
        let client = self.ends[Side::Client.index()].conn.as_ref();
        self.paths
            .specs
            .iter()
            .enumerate()
            .map(|(k, spec)| {
                let tx = self.paths.last[sender.index()][k].as_ref();
                let rx = self.paths.last[receiver][k].as_ref();
                let status = client
                    .and_then(|(_, c)| {
                        let id = c
                            .paths()
                            .into_iter()
                            .find(|&id| paths::index(c, id, true) == Some(k as u8))?;
                        c.path_status(id).ok()
                    })
                    .map_or("closed", |s| match s {
                        PathStatus::Available => "available",
                        PathStatus::Backup => "backup",
                    });
                let summary = QuicPathSummary {
                    path: k as u64,
                    status: status.to_owned(),
                    udp_bytes_sent: tx.map_or(0, |s| s.udp_tx.bytes),
                    udp_bytes_received: rx.map_or(0, |s| s.udp_rx.bytes),
                    packets_sent: tx.map_or(0, |s| s.sent_packets),
                    packets_lost: tx.map_or(0, |s| s.lost_packets),
                    final_cwnd: tx.map_or(0, |s| s.cwnd),
                    final_srtt_s: tx.map(|s| s.rtt.as_secs_f64()),
                };
                (spec.via.clone(), summary)
            })
            .collect()
    }
}

impl Transport for QuicTransport {
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        self.app.tick(now);
        if let QuicApp::Messages(m) = &self.app.app {
            io.cmds.extend(m.source.schedule.next().map(Cmd::Tick));
        }
        self.drive(now, Side::Client, Input::App, io);
    }

    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        let Body::Quic(d) = packet.into_body() else {
            unreachable!("a QUIC flow carries QUIC datagrams")
        };
        self.drive(now, side, Input::Datagram(d.path, d.bytes), io);
    }

    fn handle_timeout(&mut self, now: SimTime, side: Side, _key: u8, io: &mut Io<'_>) {
        self.ends[side.index()].wake.fire(now);
        self.drive(now, side, Input::Wake, io);
    }

    fn poll_timeout(&mut self, now: SimTime, side: Side, _key: u8) -> Option<SimTime> {
        let end = &mut self.ends[side.index()];
        let at = end.conn.as_ref()?.1.poll_timeout()?;
        end.wake.arm(now, self.epoch.sim_time(at))
    }

    fn tls_key_log(&self) -> String {
        self.keys.text()
    }

    fn report(&self, _start: SimTime) -> TransportReport {
        TransportReport {
            kind: "quic",
            messages_sent: self.app.messages_sent(),
            bytes_sent: self.app.written,
            sink: self.app.sink.clone(),
            bytes_delivered: self.app.delivered_bytes(),
            reliable: true,
            detail: Some(
                Summary {
                    quic: self.summary(),
                }
                .into(),
            ),
        }
    }
}

pub use setup::build;
pub use spec::{check, Spec, STREAM};

/// The QUIC settings of a flow, for a QUIC flow.
impl super::TransportSpec {
    pub fn quic(&self) -> Option<&QuicSpec> {
        match self {
            super::TransportSpec::Quic(spec) => Some(spec),
            _ => None,
        }
    }
}


impl WireBody for QuicDatagram {
    #[inline]
    fn transport_len(&self) -> u32 {
        UDP_HEADER + self.bytes.len() as u32
    }

    fn ip_proto(&self) -> u8 {
        PROTO_UDP
    }
}
