//! Transports as the world drives them (DESIGN.md, "Seams are traits").
//!
//! A [`Transport`] is everything of one flow between the applications and the packets: its
//! endpoints at the flow's two nodes (sans-IO state machines of `tern-proto` behind it) and
//! the application glue on top. The world calls it on every input — a packet for one of its
//! endpoints, a timer, the application's next message, its first-hop device freeing room,
//! a node's link going down or coming back — and it answers with [`Cmd`]s (send this,
//! queue that wake-up), which the world carries out in order. The world has no branch per
//! kind of transport; a new one is a new file here and one line in
//! `world/registry.rs`.

pub mod quic;
pub mod small_queues;
pub mod tcp;
pub mod tfrc;
pub mod udp;

use crate::app::MessageSink;
use crate::engine::SimTime;
use crate::net::packet::{Body, UdpMessage};
use crate::summary::{QuicSummary, SwitcherSummary, TcpSummary, TfrcSummary};
use crate::trace::{DelayRecord, Traces};
use tern_proto::tcp::Segment;

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

/// What a transport asks the world to do, carried out in order.
#[derive(Debug)]
pub enum Cmd {
    /// Send a packet from `side`'s node, from the transport's endpoint `key`.
    Send { side: Side, key: u8, body: Body },
    /// Queue a wake-up of endpoint `key` at `side` once the packets asked for so far are
    /// sent: the world asks [`Transport::arm`] for its time (the one-pending-wake-up rule).
    Arm { side: Side, key: u8 },
    /// Queue a wake-up of endpoint `key` at `side` at `at` unconditionally (a connection
    /// opening).
    WakeAt { at: SimTime, side: Side, key: u8 },
    /// The application's next message is due at `at` ([`Transport::on_tick`]).
    Tick(SimTime),
    /// Read the RSSI of the client's 802.11 interface at `at` ([`Transport::on_rssi`]).
    SampleRssi(SimTime),
}

/// TCP Small Queues' account of one endpoint, which the world keeps (Linux
/// `tcp_small_queue_check`, net/ipv4/tcp_output.c, compares the bytes of a socket's packets
/// not yet gone from its host's queues, `sk_wmem_alloc`, with its limit): the bytes it may
/// still hand its first-hop device before it is held back, its limit less what its packets
/// there count ([`SmallQueues::charge`]: taken when the world hands a packet to that
/// device, given back when the packet leaves it: serialized, acknowledged or dropped there).
/// Below 0 the endpoint is held back: Linux sends while `sk_wmem_alloc` ≤ limit (3.12-3.x
/// `tcp_write_xmit`: `if (atomic_read(&sk->sk_wmem_alloc) > limit) break;`), so a packet
/// goes when the room is 0 or more, and one always goes when nothing is there.
pub type SmallQueueRoom = i64;

/// The room of an endpoint with nothing in its first hop, for a limit of `limit` bytes.
/// A limit over `i64::MAX` is taken as `i64::MAX`, which changes nothing: the bytes in a
/// first-hop device are IPv4 packets held in the packet pool, each at most 65 535 bytes
/// and in a 128-byte slot, so within a 2^48-byte address space fewer than 2^57 bytes,
/// and neither limit is ever reached.
pub fn small_queue_limit(limit: u64) -> SmallQueueRoom {
    SmallQueueRoom::try_from(limit).unwrap_or(SmallQueueRoom::MAX)
}

/// What a transport is given on each call: where its commands go, the trace tables, the
/// flow's name for them, and its endpoints' Small Queues room.
pub struct Io<'a> {
    pub cmds: &'a mut Vec<Cmd>,
    pub traces: &'a mut Traces,
    /// The flow's name (a reference to the world's copy, read only when a trace is written).
    pub flow: &'a String,
    /// The room of endpoint `key` at `side` is `small_queues[2 * key + side.index()]`, for
    /// the keys [`Transport::small_queues`] declares (empty for a transport that declares
    /// none).
    pub small_queues: &'a [SmallQueueRoom],
}

/// The receiving application gets datagram message `msg` at `now`: its sink keeps it, and
/// the delay table gets its one-way delay.
pub(crate) fn deliver(sink: &mut MessageSink, now: SimTime, msg: &UdpMessage, io: &mut Io<'_>) {
    sink.receive(now, msg);
    io.traces.record(&DelayRecord {
        time: now,
        flow: io.flow,
        seq: msg.seq,
        sent: msg.sent_at,
        delay: now.saturating_sub(msg.sent_at),
        size: msg.len,
        conn: 0,
    });
}

/// What a flow's transport reports at the end of a run.
pub struct TransportReport {
    pub kind: &'static str,
    pub messages_sent: u64,
    /// Application bytes the transport accepted.
    pub bytes_sent: u64,
    /// The receiving application's record (messages, bytes, delays).
    pub sink: MessageSink,
    /// Application bytes delivered.
    pub bytes_delivered: u64,
    /// Whether messages can be lost (datagrams) or only delayed (a reliable stream).
    pub reliable: bool,
    pub tcp: Option<TcpSummary>,
    pub quic: Option<QuicSummary>,
    pub tfrc: Option<TfrcSummary>,
    pub switcher: Option<SwitcherSummary>,
}

/// The most endpoint keys of a flow that TCP Small Queues counts
/// ([`Transport::small_queues`]): a switched flow's two connections.
pub const SMALL_QUEUE_KEYS: u8 = 2;

/// Every endpoint pair the world drives.
pub trait Transport {
    /// The application's message source ticked (a [`Cmd::Tick`] fired).
    fn on_tick(&mut self, now: SimTime, io: &mut Io<'_>);

    /// A packet of this flow arrived at `side`'s node.
    fn on_packet(&mut self, now: SimTime, side: Side, body: Body, io: &mut Io<'_>);

    /// A TCP segment of this flow arrived at `side`'s node, read where its packet lies (the
    /// world frees the packet after the call, instead of moving it out first). The same as
    /// [`Transport::on_packet`] with the segment as body, which is what it calls unless the
    /// transport reads segments in place.
    fn on_segment(&mut self, now: SimTime, side: Side, seg: &Segment, io: &mut Io<'_>) {
        self.on_packet(now, side, Body::Tcp(seg.clone()), io);
    }

    /// A wake-up of endpoint `key` at `side` fired.
    fn on_wake(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>);

    /// When endpoint `key` at `side` next wants waking, if a new event must be queued for it
    /// (see [`crate::engine::Wake`]).
    fn arm(&mut self, now: SimTime, side: Side, key: u8) -> Option<SimTime>;

    /// TCP Small Queues: the limit of each of the transport's endpoints, bytes, and how many
    /// keys count (endpoints `0..keys` at either side, at most [`SMALL_QUEUE_KEYS`]), if any
    /// do; asked once, when the world is built. The world then keeps each such endpoint's
    /// [`SmallQueueRoom`] (in [`Io`]) and calls [`Transport::first_hop_room`] when one held
    /// back has room again.
    fn small_queues(&self) -> Option<(small_queues::SmallQueues, u8)> {
        None
    }

    /// TCP Small Queues: endpoint `key` at `side` was held back (no [`SmallQueueRoom`] left)
    /// and a packet leaving its first-hop device gave it room again:
    /// it may send more (Linux `tcp_tsq_handler`, run from `tcp_wfree` when a throttled
    /// socket's packet is freed).
    fn first_hop_room(&mut self, _now: SimTime, _side: Side, _key: u8, _io: &mut Io<'_>) {}

    /// The RSSI (dBm) of the beacons of the AP the client's node is associated with, read
    /// as asked by [`Cmd::SampleRssi`]; `None` when it is in no BSS.
    fn on_rssi(&mut self, _now: SimTime, _rssi_dbm: Option<f64>, _io: &mut Io<'_>) {}

    /// `side`'s node lost its link, or got it back.
    fn on_link(&mut self, _now: SimTime, _side: Side, _up: bool, _io: &mut Io<'_>) {}

    /// `side`'s node is about to roam to an AP whose beacons carry this BSS Load (just
    /// before [`Transport::on_link`] reports the link down).
    fn on_bss_load(
        &mut self,
        _now: SimTime,
        _side: Side,
        _load: &crate::wifi::bss_load::BssLoad,
        _io: &mut Io<'_>,
    ) {
    }

    /// `side`'s node went through a handover (cell or BSS change), after [`Transport::on_link`].
    fn on_handover(&mut self, _now: SimTime, _side: Side, _io: &mut Io<'_>) {}

    /// The secrets of the flow's TLS sessions as NSS key log lines, which decrypt its packets
    /// in captures (QUIC); empty for a transport without TLS.
    fn tls_key_log(&self) -> String {
        String::new()
    }

    /// Whether the flow is one TCP connection, whose endpoint can speak to a kernel's TCP
    /// in real bytes when the other end is a real node (emulation, [`crate::emu::wire`]).
    fn speaks_tcp(&self) -> bool {
        false
    }

    /// The end-of-run report; `start` is the flow's start.
    fn report(&self, start: SimTime) -> TransportReport;
}
