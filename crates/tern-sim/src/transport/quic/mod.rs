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

mod app;
mod config;
mod tls;

pub use app::QuicApp;

use super::{Cmd, Io, Side, Transport, TransportReport};
use crate::engine::{RngStream, SimTime, Wake};
use crate::net::packet::{Body, QuicDatagram};
use crate::scenario::QuicSpec;
use crate::summary::QuicSummary;
use crate::trace::{DelayRecord, QuicRecord};
use app::AppState;
use bytes::BytesMut;
use noq_proto::{
    ClientConfig, Connection, ConnectionHandle, DatagramEvent, Endpoint, Event, FourTuple, PathId,
    PathStats,
};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
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

/// The addresses the stack sees: they only name the two ends inside it (the IP headers on the
/// wire come from the world's node addresses).
fn addrs() -> [SocketAddr; 2] {
    [
        SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 49152),
        SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)), 443),
    ]
}

/// One end of the flow: its QUIC endpoint, its connection once there is one, and its
/// random stream for TLS.
struct End {
    endpoint: Endpoint,
    conn: Option<(ConnectionHandle, Connection)>,
    wake: Wake,
    entropy: RngStream,
    /// The stack's statistics of the connection's one path, as of its last input.
    stats: Option<PathStats>,
}

/// What an endpoint is driven for.
enum Input {
    Datagram(Vec<u8>),
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
    epoch: Epoch,
    app: AppState,
    start: SimTime,
    /// When the client's handshake completed (RFC 9001 §4.1.1).
    connected_at: Option<SimTime>,
    buf: Vec<u8>,
}

impl QuicTransport {
    /// The flow `name` on a path of MTU `mtu`, and its first commands: the source's first
    /// message (message apps) and the client opening the connection at `start`.
    pub fn new(
        name: &str,
        spec: &QuicSpec,
        seed: u64,
        mtu: u32,
        start: SimTime,
        app: QuicApp,
    ) -> (QuicTransport, Vec<Cmd>) {
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
            stats: None,
        };
        let server = config::server(spec, mtu, seed, name, clock.clone());
        let ends = [end("client", None), end("server", Some(Arc::new(server)))];
        let mut first = Vec::new();
        if let QuicApp::Messages { source, .. } = &app {
            first.extend(source.schedule.next().map(Cmd::Tick));
        }
        first.push(Cmd::WakeAt {
            at: start,
            side: Side::Client,
            key: 0,
        });
        let keys = Arc::new(KeyLogLines::default());
        let t = QuicTransport {
            ends,
            client_config: Some(config::client(
                spec,
                mtu,
                seed,
                name,
                clock.clone(),
                keys.clone(),
            )),
            clock,
            keys,
            // The one reading of the machine's clock: an origin, never a decision's input.
            epoch: Epoch {
                base: Instant::now(),
            },
            app: AppState::new(app),
            start,
            connected_at: None,
            buf: Vec::new(),
        };
        (t, first)
    }

    /// Drives endpoint `side` after `input` (see the module docs).
    fn drive(&mut self, now: SimTime, side: Side, input: Input, io: &mut Io<'_>) {
        self.clock.set(now.as_nanos());
        let t = self.epoch.instant(now);
        let [local, peer] = match side {
            Side::Client => addrs(),
            Side::Server => {
                let [c, s] = addrs();
                [s, c]
            }
        };
        let QuicTransport {
            ends,
            client_config,
            app,
            connected_at,
            buf,
            ..
        } = self;
        let End {
            endpoint,
            conn,
            entropy,
            stats,
            ..
        } = &mut ends[side.index()];
        let mut out: Vec<Vec<u8>> = Vec::new();
        let (traces, flow) = (&mut *io.traces, io.flow);
        tls::with_entropy(entropy, || {
            match input {
                Input::Datagram(bytes) => {
                    let path = FourTuple::new(peer, Some(local.ip()));
                    let event = endpoint.handle(t, path, None, BytesMut::from(&bytes[..]), buf);
                    match event {
                        Some(DatagramEvent::NewConnection(incoming)) => {
                            match endpoint.accept(incoming, t, buf, None) {
                                Ok(c) => *conn = Some(c),
                                Err(e) => out.extend(e.response.map(|r| buf[..r.size].to_vec())),
                            }
                        }
                        Some(DatagramEvent::ConnectionEvent(_, event)) => {
                            if let Some((_, c)) = conn {
                                c.handle_event(event);
                            }
                        }
                        Some(DatagramEvent::Response(r)) => out.push(buf[..r.size].to_vec()),
                        None => {}
                    }
                    buf.clear();
                }
                Input::Wake => match conn {
                    Some((_, c)) => {
                        if c.poll_timeout().is_some_and(|d| d <= t) {
                            c.handle_timeout(t);
                        }
                    }
                    None => {
                        if let Some(cfg) = client_config.take() {
                            let c = endpoint
                                .connect(t, cfg, peer, tls::SERVER_NAME)
                                .expect("a fresh endpoint can connect");
                            *conn = Some(c);
                        }
                    }
                },
                Input::App => {}
            }
            let Some((ch, c)) = conn else { return };
            while let Some(event) = c.poll() {
                if let (Side::Client, Event::Connected) = (side, event) {
                    connected_at.get_or_insert(now);
                }
            }
            match side {
                Side::Client if connected_at.is_some() => app.client_io(now, c),
                Side::Client => {}
                Side::Server => app.server_io(now, c, |d| {
                    traces.record(&DelayRecord {
                        time: now,
                        flow,
                        seq: d.seq,
                        sent: d.sent_at,
                        delay: now.saturating_sub(d.sent_at),
                        size: d.len,
                        conn: 1,
                    });
                }),
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
                    out.push(buf[..tx.size].to_vec());
                    buf.clear();
                }
                if !more {
                    break;
                }
            }
            let now_stats = c.path_stats(PathId::ZERO);
            if let (true, Some(s)) = (traces.wants::<QuicRecord>(), &now_stats) {
                let changed = stats.as_ref().is_none_or(|old| {
                    (old.cwnd, old.rtt, old.lost_packets) != (s.cwnd, s.rtt, s.lost_packets)
                });
                if changed {
                    traces.record(&QuicRecord {
                        time: now,
                        flow,
                        endpoint: side.as_str(),
                        // `PathId::ZERO`, the one path of single-path QUIC.
                        path: 0,
                        cwnd: s.cwnd,
                        srtt: SimTime::from_nanos(s.rtt.as_nanos() as u64),
                        sent_packets: s.sent_packets,
                        lost_packets: s.lost_packets,
                        congestion_events: s.congestion_events,
                        mtu: u64::from(s.current_mtu),
                    });
                }
            }
            *stats = now_stats;
        });
        for bytes in out {
            io.cmds.push(Cmd::Send {
                side,
                key: 0,
                body: Body::Quic(QuicDatagram {
                    from_client: side == Side::Client,
                    bytes,
                }),
            });
        }
        io.cmds.push(Cmd::Arm { side, key: 0 });
    }

    /// The end that sends the application's data: the server for a file transfer.
    fn sender(&self) -> &End {
        match self.app.app {
            QuicApp::File { .. } => &self.ends[Side::Server.index()],
            _ => &self.ends[Side::Client.index()],
        }
    }

    fn summary(&self) -> QuicSummary {
        let since = |t: Option<SimTime>| t.map(|t| t.saturating_sub(self.start).as_secs_f64());
        let sender = self.sender();
        let st = sender.stats.as_ref();
        let rtt = sender.conn.as_ref().and_then(|(_, c)| c.rtt(PathId::ZERO));
        QuicSummary {
            handshake_time_s: since(self.connected_at),
            first_byte_time_s: since(self.app.first_byte_at),
            completion_time_s: self.app.completed_at.map(SimTime::as_secs_f64),
            transfer_time_s: since(self.app.completed_at),
            packets_sent: st.map_or(0, |s| s.sent_packets),
            packets_lost: st.map_or(0, |s| s.lost_packets),
            bytes_lost: st.map_or(0, |s| s.lost_bytes),
            datagrams_sent: st.map_or(0, |s| s.udp_tx.datagrams),
            udp_bytes_sent: st.map_or(0, |s| s.udp_tx.bytes),
            congestion_events: st.map_or(0, |s| s.congestion_events),
            final_cwnd: st.map_or(0, |s| s.cwnd),
            final_mtu: st.map_or(0, |s| u64::from(s.current_mtu)),
            final_srtt_s: rtt.map(|r| r.as_secs_f64()),
        }
    }
}

impl Transport for QuicTransport {
    fn on_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        self.app.tick(now);
        if let QuicApp::Messages { source, .. } = &self.app.app {
            io.cmds.extend(source.schedule.next().map(Cmd::Tick));
        }
        self.drive(now, Side::Client, Input::App, io);
    }

    fn on_packet(&mut self, now: SimTime, side: Side, body: Body, io: &mut Io<'_>) {
        let Body::Quic(d) = body else {
            unreachable!("a QUIC flow carries QUIC datagrams")
        };
        self.drive(now, side, Input::Datagram(d.bytes), io);
    }

    fn on_wake(&mut self, now: SimTime, side: Side, _key: u8, io: &mut Io<'_>) {
        self.ends[side.index()].wake.fire(now);
        self.drive(now, side, Input::Wake, io);
    }

    fn arm(&mut self, now: SimTime, side: Side, _key: u8) -> Option<SimTime> {
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
            tcp: None,
            quic: Some(self.summary()),
            tfrc: None,
            switcher: None,
        }
    }
}
