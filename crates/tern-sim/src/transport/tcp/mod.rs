//! A TCP flow: a client endpoint at the flow's source, a server endpoint at
//! its destination, and the application on top (bulk transfer or a message
//! stream).
//!
//! The world drives each endpoint as `tern_proto::tcp::Connection` documents:
//! after every input, application I/O, then transmit until nothing is left
//! (or TCP Small Queues says stop), then drain trace events, then re-arm the
//! endpoint's single wake-up.

pub mod capture;
pub mod wire;
pub use wire::OnWire;
mod config;
pub mod pattern;
pub mod records;
pub(crate) use records::records;
pub mod spec;
pub mod summary;
pub(crate) mod setup;
mod trace;

pub use config::{config, TcpConfigs};
pub use summary::{Summary, TcpSummary};
use trace::trace_events;

use super::small_queues::SmallQueues;
use super::{
    small_queue_limit, Arrival, Cmd, Io, LinkObserver, Side, SmallQueueRoom, Transport,
    TransportReport, WireBody,
};
use crate::app::{Delivered, MessageSink, MessageStream};
use crate::engine::{RngStream, SimTime, Wake};
use crate::net::body::PROTO_TCP;
use crate::net::packet::{Body, IPV4_HEADER};
use crate::scenario::TcpSpec;
use crate::trace::{DelayRecord, Traces};
use records::SegmentRecord;
use std::sync::Arc;
use tern_proto::tcp::{Config, Connection, Segment, State};

/// One endpoint and its bookkeeping in the world, first and aligned to a cache line (its
/// TCP Small Queues count is the world's, [`super::SmallQueueRoom`]).
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Endpoint {
    /// This endpoint's pending wake-up.
    pub wake: Wake,
    /// TCP Small Queues: its limit and what a packet counts against it.
    pub tsq: SmallQueues,
    /// Offset after the highest byte sent so far (for the `segments` trace:
    /// a segment starting below it is a retransmission).
    sent_max: u64,
    pub conn: Connection,
}

impl Endpoint {
    /// Records segment `seg`, just taken from the connection, in the `segments` table.
    fn trace_segment(
        &mut self,
        now: SimTime,
        flow: &str,
        side: Side,
        seg: &Segment,
        traces: &mut Traces,
    ) {
        let (seq, ack) = self.conn.sent_offsets(seg);
        let len = seg.payload_len;
        let end = seq + u64::from(len) + u64::from(seg.flags.syn) + u64::from(seg.flags.fin);
        traces.record(&SegmentRecord {
            time: now,
            flow,
            endpoint: side.as_str(),
            seq,
            len,
            ack,
            retransmission: end > seq && seq < self.sent_max,
        });
        self.sent_max = self.sent_max.max(end);
    }

    fn new(conn: Connection, tsq: SmallQueues) -> Self {
        Endpoint {
            wake: Wake::default(),
            tsq,
            sent_max: 0,
            conn,
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
    /// head-of-line blocking shows. Boxed: the other applications' state fits in the
    /// connection's first cache lines.
    Messages(Box<MessageStream>),
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

/// One TCP connection of a flow: the client endpoint at the flow's source, the server
/// endpoint at its destination, and the application on top.
#[derive(Debug)]
pub struct TcpConn {
    pub ends: [Endpoint; 2],
    pub app: TcpApp,
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

impl TcpConn {
    /// A flow whose client connects at `start`. Initial sequence numbers
    /// come from the flow's own random streams.
    pub fn new(
        name: &str,
        index: u32,
        seed: u64,
        config: Arc<Config>,
        tsq: SmallQueues,
        start: SimTime,
        app: TcpApp,
    ) -> TcpConn {
        let isn =
            |side: &str| RngStream::new(seed, &format!("flow/{name}/tcp/{side}/isn")).next_u32();
        // Ephemeral client ports from the IANA dynamic range (RFC 6335 §6).
        let client_port = 49152 + (index % 16384) as u16;
        let server_port = 5001;
        let client = Connection::connect(config.clone(), isn("client"), start)
            .with_ports(client_port, server_port);
        let server = Connection::listen(config, isn("server")).with_ports(server_port, client_port);
        TcpConn {
            ends: [Endpoint::new(client, tsq), Endpoint::new(server, tsq)],
            app,
            written: 0,
            read: 0,
            completed_at: None,
            sink: MessageSink::default(),
            client_port,
            server_port,
        }
    }

    /// Whether both endpoints queue the congestion window and RTT events (only the
    /// `cwnd` and `rto` traces read them; see
    /// [`Connection::set_cwnd_rtt_events`]).
    pub fn set_cwnd_rtt_events(&mut self, on: bool) {
        for end in &mut self.ends {
            end.conn.set_cwnd_rtt_events(on);
        }
    }

    /// The application's next message (message apps only): its seq and length.
    pub fn next_message(&mut self, now: SimTime) -> Option<(u64, u32)> {
        match &mut self.app {
            TcpApp::Messages(m) => {
                let msg = m.source.emit(now);
                Some((msg.seq, msg.len))
            }
            TcpApp::Bulk { .. } | TcpApp::File { .. } => None,
        }
    }

    /// The application writes message `seq` of `len` bytes into this
    /// connection now (message apps only).
    pub fn write_message(&mut self, now: SimTime, seq: u64, len: u32) {
        if let TcpApp::Messages(m) = &mut self.app {
            m.write(now, seq, len);
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
            TcpApp::Messages(m) => {
                if m.backlog() > 0 {
                    let n = conn.write(m.backlog());
                    m.taken(n);
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
    pub fn app_read(&mut self, now: SimTime, delivered: impl FnMut(Delivered)) {
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
            TcpApp::Messages(m) => m.read_up_to(self.read, now, &mut self.sink, delivered),
        }
    }

    /// Drives endpoint `side` after an input (`tern_proto::tcp::Connection` documents the
    /// order): application I/O, then transmit while TCP Small Queues allows (the endpoint's
    /// room in `io`, less what this call sends; Linux lets at least one packet through),
    /// then trace events, then re-arm its wake-up. Messages the server's
    /// application completes are passed to `delivered`; `key` is the connection's index in
    /// its flow.
    pub fn pump(
        &mut self,
        now: SimTime,
        side: Side,
        key: u8,
        io: &mut Io<'_>,
        mut delivered: impl FnMut(&Delivered),
    ) {
        match side {
            Side::Client => self.client_io(now),
            Side::Server => {
                let (traces, flow) = (&mut *io.traces, io.flow);
                self.app_read(now, |d| {
                    if traces.wants::<DelayRecord>() {
                        traces.record(&d.record(now, flow, u64::from(key) + 1));
                    }
                    delivered(&d);
                });
                self.server_write();
            }
        }
        let end = &mut self.ends[side.index()];
        // The room against the kernel's limit (the world counts against `tsq.limit` alone).
        let mut room = io.small_queues[2 * usize::from(key) + side.index()];
        let limit = small_queue_limit(end.tsq.limit);
        if let (Some(rate), true) = (end.conn.pacing_rate(), limit != SmallQueueRoom::MAX) {
            // A paced socket's limit is about 1 ms at its pacing rate, at least two
            // packets (`tcp_small_queue_check`: `max(2 · truesize, sk_pacing_rate >> 10)`,
            // not capped by tcp_limit_output_bytes when pacing), in place of the static one.
            let two_packets = 2 * end.tsq.charge(IPV4_HEADER + end.conn.smss() + 60);
            let paced = small_queue_limit(rate >> 10).max(two_packets);
            room = room - limit + paced;
        } else {
            room = room.saturating_add(end.tsq.raise(&end.conn));
        }
        while room >= 0 {
            let mut seg = Segment::default();
            if !end.conn.poll_transmit_into(now, &mut seg) {
                break;
            }
            room -= end.tsq.charge(IPV4_HEADER + seg.wire_len());
            if io.traces.wants::<SegmentRecord>() {
                end.trace_segment(now, io.flow, side, &seg, io.traces);
            }
            io.cmds.push(Cmd::Send {
                side,
                key,
                body: Body::Tcp(seg),
            });
        }
        if end.conn.has_events() {
            trace_events(&mut end.conn, now, io.flow, side, io.traces);
        }
        io.cmds.push(Cmd::Arm { side, key });
    }

    /// The wake-up endpoint `side` needs, if a new event must be queued.
    pub fn arm(&mut self, now: SimTime, side: Side) -> Option<SimTime> {
        let end = &mut self.ends[side.index()];
        end.wake.arm(now, end.conn.poll_timeout()?)
    }

    /// A wake-up of endpoint `side` fired: its timer runs if due, then it is driven.
    pub fn on_wake(&mut self, now: SimTime, side: Side) {
        let end = &mut self.ends[side.index()];
        end.wake.fire(now);
        if end.conn.poll_timeout().is_some_and(|t| t <= now) {
            end.conn.handle_timeout(now);
        }
    }

    /// The counters of the sending endpoint; `start` is the flow's start.
    pub fn summary(&self, start: SimTime) -> TcpSummary {
        let client = &self.ends[Side::Client.index()].conn;
        let st = client.stats();
        TcpSummary {
            completion_time_s: self.completed_at.map(SimTime::as_secs_f64),
            transfer_time_s: self
                .completed_at
                .map(|c| c.saturating_sub(start).as_secs_f64()),
            segments_sent: st.segments_sent,
            retransmits_fast: st.retransmits_fast,
            retransmits_rto: st.retransmits_rto,
            retransmits_sack: st.retransmits_sack,
            dupacks_received: st.dupacks_received,
            rto_expiries: st.rto_expiries,
            spurious_rtos: st.spurious_rtos,
            final_cwnd: client.cwnd(),
            final_srtt_s: client.srtt().map(SimTime::as_secs_f64),
            state: format!("{:?}", client.state()),
        }
    }

    /// Messages sent by the application (message apps), or 0.
    pub fn messages_sent(&self) -> u64 {
        match &self.app {
            TcpApp::Messages(m) => m.source.sent,
            TcpApp::Bulk { .. } | TcpApp::File { .. } => 0,
        }
    }
}

/// A flow over one TCP connection.
#[derive(Debug)]
pub struct TcpTransport {
    conn: TcpConn,
}

impl TcpTransport {
    /// The flow, and its first commands: the source's first message (message apps) and the
    /// client opening the connection at `start`.
    pub fn new(conn: TcpConn, start: SimTime) -> (TcpTransport, Vec<Cmd>) {
        let mut first = Vec::new();
        if let TcpApp::Messages(m) = &conn.app {
            first.extend(m.source.schedule.next().map(Cmd::Tick));
        }
        first.push(Cmd::WakeAt {
            at: start,
            side: Side::Client,
            key: 0,
        });
        (TcpTransport { conn }, first)
    }
}

/// The application's next message (message apps): written into `to` (which may be another
/// connection than `from`'s under a switcher), and its successor's tick asked for.
pub fn app_tick(now: SimTime, from: &mut TcpConn, io: &mut Io<'_>) -> Option<(u64, u32)> {
    let msg = from.next_message(now);
    if let TcpApp::Messages(m) = &from.app {
        if let Some(t) = m.source.schedule.next() {
            io.cmds.push(Cmd::Tick(t));
        }
    }
    msg
}

impl Transport for TcpTransport {
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        if let Some((seq, len)) = app_tick(now, &mut self.conn, io) {
            self.conn.write_message(now, seq, len);
        }
        self.conn.pump(now, Side::Client, 0, io, |_| {});
    }

    /// The segment is read where its packet lies.
    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        let Body::Tcp(seg) = packet.body() else {
            unreachable!("a TCP flow carries segments")
        };
        self.conn.ends[side.index()].conn.handle_segment(now, seg);
        self.conn.pump(now, side, 0, io, |_| {});
    }

    fn handle_timeout(&mut self, now: SimTime, side: Side, _key: u8, io: &mut Io<'_>) {
        self.conn.on_wake(now, side);
        self.conn.pump(now, side, 0, io, |_| {});
    }

    fn poll_timeout(&mut self, now: SimTime, side: Side, _key: u8) -> Option<SimTime> {
        self.conn.arm(now, side)
    }

    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        Some(self)
    }

    fn small_queues(&self) -> Option<(SmallQueues, u8)> {
        Some((self.conn.ends[0].tsq, 1))
    }

    fn speaks_tcp(&self) -> bool {
        true
    }

    fn first_hop_room(&mut self, now: SimTime, side: Side, _key: u8, io: &mut Io<'_>) {
        self.conn.pump(now, side, 0, io, |_| {});
    }

    fn report(&self, start: SimTime) -> TransportReport {
        TransportReport {
            kind: "tcp",
            messages_sent: self.conn.messages_sent(),
            bytes_sent: self.conn.written,
            sink: self.conn.sink.clone(),
            bytes_delivered: self.conn.delivered_bytes(),
            reliable: true,
            detail: Some(
                Summary {
                    tcp: self.conn.summary(start),
                    switcher: None,
                }
                .into(),
            ),
        }
    }
}

/// A connection hears of its node's link going down and coming back
/// ([`tern_proto::tcp::Connection::on_connectivity`]).
impl LinkObserver for TcpTransport {
    fn handle_link(&mut self, now: SimTime, side: Side, up: bool, io: &mut Io<'_>) {
        self.conn.ends[side.index()].conn.on_connectivity(now, up);
        self.conn.pump(now, side, 0, io, |_| {});
    }
}

pub use setup::build;
pub use spec::{check, Spec, STREAM};

/// The TCP settings of a flow, for a TCP flow.
impl super::TransportSpec {
    pub fn tcp(&self) -> Option<&TcpSpec> {
        match self {
            super::TransportSpec::Tcp(spec) => Some(spec),
            _ => None,
        }
    }
}


impl WireBody for Segment {
    #[inline]
    fn transport_len(&self) -> u32 {
        self.wire_len()
    }

    fn ip_proto(&self) -> u8 {
        PROTO_TCP
    }
}
