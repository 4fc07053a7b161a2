//! A TCP flow: a client endpoint at the flow's source, a server endpoint at
//! its destination, and the application on top (bulk transfer or a message
//! stream).
//!
//! The world drives each endpoint as `tern_proto::tcp::Connection` documents:
//! after every input, application I/O, then transmit until nothing is left
//! (or TCP Small Queues says stop), then drain trace events, then re-arm the
//! endpoint's single wake-up.

use crate::app::{MessageSink, MessageSource};
use crate::engine::{RngStream, SimTime};
use crate::mech::switcher::ConnectionSwitcher;
use crate::scenario::{CcSpec, InitialWindowSpec, IwRule, TcpSpec};
use std::collections::VecDeque;
use tern_proto::tcp::{CcKind, Config, Connection, DelayedAck, InitialWindow, Segment, State};

/// Which end of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The flow's source: opens the connection and sends the data.
    Client,
    /// The flow's destination: accepts the connection and reads.
    Server,
}

impl Side {
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Client => "client",
            Side::Server => "server",
        }
    }
}

/// The protocol configuration of `spec` on a path of MTU `mtu`.
pub fn config(spec: &TcpSpec, mtu: u32) -> Config {
    Config {
        mss: spec.mss.map(|b| b.0 as u32),
        mtu,
        cc: match spec.cc {
            CcSpec::Newreno => CcKind::NewReno,
            CcSpec::Cubic => CcKind::Cubic,
        },
        sack: spec.sack,
        timestamps: spec.timestamps,
        window_scale: spec.window_scale,
        initial_window: match spec.initial_window {
            InitialWindowSpec::Segments(n) => InitialWindow::Segments(n),
            InitialWindowSpec::Rule(IwRule::Rfc1122) => InitialWindow::Rfc1122,
            InitialWindowSpec::Rule(IwRule::Rfc2581) => InitialWindow::Rfc2581,
            InitialWindowSpec::Rule(IwRule::Rfc3390) => InitialWindow::Rfc3390,
        },
        delayed_ack: spec.delayed_ack.then_some(DelayedAck {
            max_delay: spec.delayed_ack_timeout.0,
            every: spec.delayed_ack_segments,
        }),
        min_rto: spec.min_rto.0,
        max_rto: spec.max_rto.0,
        initial_rto: spec.initial_rto.0,
        send_buffer: spec.send_buffer.0,
        recv_buffer: spec.recv_buffer.0,
        frto: spec.frto,
        rlci: spec.rlci,
        ..Config::default()
    }
}

/// One endpoint and its bookkeeping in the world.
#[derive(Debug)]
pub struct Endpoint {
    pub conn: Connection,
    /// Due time of this endpoint's pending wake-up event, if one is queued.
    pub wake_at: Option<SimTime>,
    /// Bytes of this endpoint's packets still in its first-hop device (TSQ).
    pub below: u64,
}

impl Endpoint {
    fn new(conn: Connection) -> Self {
        Endpoint {
            conn,
            wake_at: None,
            below: 0,
        }
    }
}

/// The application of a TCP flow.
#[derive(Debug)]
pub enum TcpApp {
    /// Writes `total` bytes (or without end) as fast as TCP accepts them.
    Bulk { total: Option<u64> },
    /// Writes a message per tick of its source; the receiver maps stream
    /// offsets back to messages to measure application-level delay, so
    /// head-of-line blocking shows.
    Messages {
        source: MessageSource,
        /// Bytes the application has written that TCP has not accepted yet.
        backlog: u64,
        /// Messages in the stream not yet fully read: (end offset, seq, sent at, length).
        pending: VecDeque<(u64, u64, SimTime, u32)>,
        /// Stream offset after the last message written.
        stream_end: u64,
    },
    /// Sends a `request`; the server answers with `size` bytes and closes.
    File {
        request: u64,
        size: u64,
        /// Response bytes the server's TCP has accepted.
        answered: u64,
        /// Response bytes the client has read.
        received: u64,
    },
}

/// A message delivered to the receiving application.
pub struct Delivered {
    pub seq: u64,
    pub sent_at: SimTime,
    pub len: u32,
}

#[derive(Debug)]
pub struct TcpFlow {
    pub ends: [Endpoint; 2],
    pub app: TcpApp,
    pub tsq_limit: u64,
    /// Bytes TCP accepted from the sending application.
    pub written: u64,
    /// Bytes the receiving application read.
    pub read: u64,
    /// When the last byte of a bounded bulk transfer reached the receiver, or
    /// the last byte of a file response reached the client.
    pub completed_at: Option<SimTime>,
    /// Application-level delays of delivered messages.
    pub sink: MessageSink,
    pub client_port: u16,
    pub server_port: u16,
}

impl TcpFlow {
    /// A flow whose client connects at `start`. Initial sequence numbers
    /// come from the flow's own random streams.
    pub fn new(
        name: &str,
        index: u32,
        seed: u64,
        config: Config,
        tsq_limit: u64,
        start: SimTime,
        app: TcpApp,
    ) -> TcpFlow {
        let isn =
            |side: &str| RngStream::new(seed, &format!("flow/{name}/tcp/{side}/isn")).next_u32();
        // Ephemeral client ports from the IANA dynamic range (RFC 6335 §6).
        let client_port = 49152 + (index % 16384) as u16;
        let server_port = 5001;
        let client = Connection::connect(config.clone(), isn("client"), start)
            .with_ports(client_port, server_port);
        let server = Connection::listen(config, isn("server")).with_ports(server_port, client_port);
        TcpFlow {
            ends: [Endpoint::new(client), Endpoint::new(server)],
            app,
            tsq_limit,
            written: 0,
            read: 0,
            completed_at: None,
            sink: MessageSink::default(),
            client_port,
            server_port,
        }
    }

    /// The application's next message (message apps only): its seq and length.
    pub fn next_message(&mut self, now: SimTime) -> Option<(u64, u32)> {
        match &mut self.app {
            TcpApp::Messages { source, .. } => {
                let msg = source.emit(now);
                Some((msg.seq, msg.len))
            }
            TcpApp::Bulk { .. } | TcpApp::File { .. } => None,
        }
    }

    /// The application writes message `seq` of `len` bytes into this
    /// connection now (message apps only).
    pub fn write_message(&mut self, now: SimTime, seq: u64, len: u32) {
        if let TcpApp::Messages {
            backlog,
            pending,
            stream_end,
            ..
        } = &mut self.app
        {
            *stream_end += u64::from(len);
            *backlog += u64::from(len);
            pending.push_back((*stream_end, seq, now, len));
        }
    }

    /// The client application's I/O: it hands TCP what it can take (like a
    /// program on a blocking socket, only once the connection is open) and,
    /// for a file transfer, reads the response.
    pub fn client_io(&mut self, now: SimTime) {
        let conn = &mut self.ends[Side::Client.index()].conn;
        if let TcpApp::File { size, received, .. } = &mut self.app {
            let n = conn.readable();
            if n > 0 {
                *received += conn.read(n);
                if *received >= *size && self.completed_at.is_none() {
                    self.completed_at = Some(now);
                    conn.close();
                }
            }
        }
        if !matches!(conn.state(), State::Established | State::CloseWait) {
            return;
        }
        match &mut self.app {
            TcpApp::Bulk { total } => {
                let want = total.map_or(u64::MAX, |t| t - self.written);
                if want > 0 {
                    self.written += conn.write(want);
                }
                if total.is_some_and(|t| self.written == t) {
                    // All data handed over: close our side (FIN after the data).
                    conn.close();
                }
            }
            TcpApp::Messages { backlog, .. } => {
                if *backlog > 0 {
                    let n = conn.write(*backlog);
                    *backlog -= n;
                    self.written += n;
                }
            }
            TcpApp::File { request, .. } => {
                if self.written < *request {
                    self.written += conn.write(*request - self.written);
                }
            }
        }
    }

    /// The server application answers a complete file request, then closes.
    pub fn server_write(&mut self) {
        let conn = &mut self.ends[Side::Server.index()].conn;
        if let TcpApp::File {
            request,
            size,
            answered,
            ..
        } = &mut self.app
        {
            let open = matches!(conn.state(), State::Established | State::CloseWait);
            if open && self.read >= *request && *answered < *size {
                *answered += conn.write(*size - *answered);
                if *answered == *size {
                    conn.close();
                }
            }
        }
    }

    /// Application bytes delivered: the response for a file transfer, the
    /// data read by the server otherwise.
    pub fn delivered_bytes(&self) -> u64 {
        match &self.app {
            TcpApp::File { received, .. } => *received,
            _ => self.read,
        }
    }

    /// The receiving application reads everything available; messages
    /// completed by the read are passed to `delivered`.
    pub fn app_read(&mut self, now: SimTime, mut delivered: impl FnMut(Delivered)) {
        let conn = &mut self.ends[Side::Server.index()].conn;
        let n = conn.readable();
        if n > 0 {
            self.read += conn.read(n);
        }
        if conn.state() == State::CloseWait && conn.readable() == 0 {
            // End of stream read: the receiving application closes too.
            conn.close();
        }
        if n == 0 {
            return;
        }
        match &mut self.app {
            TcpApp::Bulk { total } => {
                if self.completed_at.is_none() && total.is_some_and(|t| self.read >= t) {
                    self.completed_at = Some(now);
                }
            }
            TcpApp::File { .. } => {}
            TcpApp::Messages { pending, .. } => {
                while let Some(&(end, seq, sent_at, len)) = pending.front() {
                    if end > self.read {
                        break;
                    }
                    pending.pop_front();
                    let delay = now.saturating_sub(sent_at);
                    self.sink.received += 1;
                    self.sink.received_bytes += u64::from(len);
                    self.sink.delays.push(delay.as_nanos());
                    delivered(Delivered { seq, sent_at, len });
                }
            }
        }
    }

    /// Messages sent by the application (message apps), or 0.
    pub fn messages_sent(&self) -> u64 {
        match &self.app {
            TcpApp::Messages { source, .. } => source.sent,
            TcpApp::Bulk { .. } | TcpApp::File { .. } => 0,
        }
    }
}

/// The TCP connections of a flow: one, or two under a `ConnectionSwitcher`
/// (connection `k` is the `k + 1`-th; the spare is opened at the start or on
/// demand).
#[derive(Debug)]
pub struct TcpTransport {
    pub conns: Vec<TcpFlow>,
    pub switcher: Option<Box<Switched>>,
}

/// A flow's `ConnectionSwitcher` and what the world needs to drive it.
#[derive(Debug)]
pub struct Switched {
    pub mech: ConnectionSwitcher,
    pub notice_size: u32,
    /// Due time of the pending server-side wake-up, if one is queued.
    pub wake_at: Option<SimTime>,
    /// How to open the spare connection when it is opened on demand.
    pub spare: Option<SpareRecipe>,
}

/// Everything needed to build the spare connection later.
#[derive(Debug)]
pub struct SpareRecipe {
    pub name: String,
    pub port_index: u32,
    pub seed: u64,
    pub config: Config,
    pub tsq_limit: u64,
}

impl SpareRecipe {
    /// The spare connection, connecting at `now`, carrying messages.
    pub fn open(&self, now: SimTime) -> TcpFlow {
        TcpFlow::new(
            &self.name,
            self.port_index,
            self.seed,
            self.config.clone(),
            self.tsq_limit,
            now,
            TcpApp::Messages {
                source: MessageSource::silent(),
                backlog: 0,
                pending: VecDeque::new(),
                stream_end: 0,
            },
        )
    }
}

impl TcpTransport {
    /// The connection a segment belongs to, from its ports.
    pub fn conn_of(&self, seg: &Segment, to_server: bool) -> usize {
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

    /// Messages the application sent (all on the first connection's source).
    pub fn messages_sent(&self) -> u64 {
        self.conns[0].messages_sent()
    }

    /// Bytes TCP accepted from the sending application, over all connections.
    pub fn written(&self) -> u64 {
        self.conns.iter().map(|c| c.written).sum()
    }

    pub fn delivered_bytes(&self) -> u64 {
        self.conns.iter().map(TcpFlow::delivered_bytes).sum()
    }

    /// The receiving application's record of every connection, merged.
    pub fn sink(&self) -> MessageSink {
        let mut all = MessageSink::default();
        for c in &self.conns {
            all.received += c.sink.received;
            all.received_bytes += c.sink.received_bytes;
            all.delays.extend_from_slice(&c.sink.delays);
        }
        all
    }
}
