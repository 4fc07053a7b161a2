//! Transports as the world drives them (DESIGN.md, "Seams are traits").
//!
//! A [`Transport`] is everything of one flow between the applications and the packets: its
//! endpoints at the flow's two nodes (sans-IO state machines of `tern-proto` behind it) and
//! the application glue on top. The world calls it on every input — a packet for one of its
//! endpoints, a timer, the application's next message, its first-hop device freeing room,
//! a node's link going down or coming back — and it answers with [`Cmd`]s (send this,
//! queue that wake-up), which the world carries out in order. The world has no branch per
//! kind of transport; a new one is a new folder here and one line in
//! [`with_transports!`](crate::with_transports).

pub mod build_cx;
#[macro_use]
mod list;
pub mod small_queues;

/// The transports, one line each: `Kind => slice`, the slice being `transport/<slice>/`
/// (see [`list`] for what a slice provides and what the line generates). The line's doc
/// comment documents the kind's packets. Other lists are made from this one by passing a
/// macro: `with_transports! { then { args } }` expands `then! { { args } <the lines> }`.
#[doc(hidden)]
#[macro_export]
macro_rules! with_transports {
    ($then:ident { $($args:tt)* }) => {
        $crate::$then! {
            { $($args)* }
            /// A UDP datagram of one of Tern's applications (RFC 768).
            Udp => udp,
            /// A TCP segment (RFC 9293).
            Tcp => tcp,
            /// A UDP datagram of a QUIC connection (RFC 9000 §12.2), its bytes real.
            Quic => quic,
            /// A TFRC packet, over UDP or as DCCP (RFC 5348, RFC 4340).
            Tfrc => tfrc,
        }
    };
}

crate::with_transports! { transports {} }

use crate::app::MessageSink;
use crate::engine::SimTime;
pub use crate::net::packet::{Body, WireBody};
use crate::net::packet::{PacketPool, PacketRef, UdpMessage};
pub use crate::scenario::TransportSpec;
pub use crate::summary::{KindSummary, TransportSummary};
use crate::trace::{DelayRecord, Traces};
use crate::wifi::bss_load::BssLoad;

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
    /// sent: the world asks [`Transport::poll_timeout`] for its time (the one-pending-wake-up rule).
    Arm { side: Side, key: u8 },
    /// Queue a wake-up of endpoint `key` at `side` at `at` unconditionally (a connection
    /// opening).
    WakeAt { at: SimTime, side: Side, key: u8 },
    /// The application's next message is due at `at` ([`Transport::handle_tick`]).
    Tick(SimTime),
    /// Read the RSSI of the client's 802.11 interface at `at` ([`LinkObserver::handle_rssi`]).
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
#[inline]
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
    /// The counters of its kind, if it has any.
    pub detail: Option<TransportSummary>,
}

/// The most endpoint keys of a flow that TCP Small Queues counts
/// ([`Transport::small_queues`]): a switched flow's two connections.
pub const SMALL_QUEUE_KEYS: u8 = 2;

/// A packet of the flow delivered to one of its endpoints: read where it lies
/// ([`Arrival::body`]) or moved out ([`Arrival::into_body`]). The world frees it after the
/// call if the transport did not move it out.
pub struct Arrival<'a>(Held<'a>);

enum Held<'a> {
    /// In the world's packet pool.
    Pool(&'a mut PacketPool, PacketRef),
    /// Made for the call (a kernel's segment parsed from its bytes, in an emulation).
    Owned(Body),
}

impl<'a> Arrival<'a> {
    /// The packet `p` of `pool`.
    #[inline]
    pub(crate) fn pooled(pool: &'a mut PacketPool, p: PacketRef) -> Self {
        Arrival(Held::Pool(pool, p))
    }

    /// A body that is in no pool.
    pub fn owned(body: Body) -> Self {
        Arrival(Held::Owned(body))
    }

    /// The packet's body, read in place.
    #[inline]
    pub fn body(&self) -> &Body {
        match &self.0 {
            Held::Pool(pool, p) => &pool.get(*p).body,
            Held::Owned(body) => body,
        }
    }

    /// The packet's body, moved out (the packet is freed).
    #[inline]
    pub fn into_body(self) -> Body {
        match self.0 {
            Held::Pool(pool, p) => pool.take(p).body,
            Held::Owned(body) => body,
        }
    }
}

/// A flow's transport as the world drives it: the endpoints at the flow's two nodes and
/// the application glue above them.
///
/// The methods follow quinn-proto's taxonomy of `Connection`: inputs are `handle_*`, which
/// change state and push [`Cmd`]s into [`Io`]; outputs are `poll_*`, which only say what is
/// due; the rest are getters.
///
/// Call order, as the world keeps it:
/// 1. The commands returned by the transport's constructor are carried out first (its first
///    [`Cmd::Tick`] and [`Cmd::WakeAt`]).
/// 2. Whenever an input is due — the application's tick ([`Transport::handle_tick`]), a
///    packet for one of its endpoints ([`Transport::handle_packet`]), a wake-up of an endpoint
///    ([`Transport::handle_timeout`]), and, for a transport that has them, the link events of
///    [`Transport::observer`] and TCP Small Queues' [`Transport::first_hop_room`] — the world
///    calls it, then carries out the commands it pushed, in order.
/// 3. Carrying out a [`Cmd::Arm`] calls [`Transport::poll_timeout`] for that endpoint at
///    once; a time it returns is queued as a wake-up (one pending wake-up per endpoint, see
///    [`crate::engine::Wake`]).
/// 4. At the end of the run, [`Transport::report`] and [`Transport::tls_key_log`].
///
/// A wrapper that adds to a transport implements [`Forward`] instead and gets every method
/// forwarded but those it overrides.
pub trait Transport {
    /// The application's message source ticked (a [`Cmd::Tick`] fired).
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>);

    /// A packet of this flow arrived at `side`'s node.
    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>);

    /// A wake-up of endpoint `key` at `side` fired.
    fn handle_timeout(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>);

    /// When endpoint `key` at `side` next wants waking, if a new event must be queued for it
    /// (see [`crate::engine::Wake`]).
    fn poll_timeout(&mut self, now: SimTime, side: Side, key: u8) -> Option<SimTime>;

    /// The end-of-run report; `start` is the flow's start.
    fn report(&self, start: SimTime) -> TransportReport;

    /// The part of the transport that hears of its nodes' links and radios, if it does.
    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        None
    }

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
}

/// What a transport or a mechanism hears of its nodes' links and radios, each when it
/// happens; every event is optional (a default that ignores it).
///
/// Order at a handover: [`LinkObserver::handle_bss_load`] (802.11, the AP being joined),
/// [`LinkObserver::handle_link`] down, [`LinkObserver::handle_link`] up, then
/// [`LinkObserver::handle_handover`]. RSSI samples come only as asked by
/// [`Cmd::SampleRssi`].
pub trait LinkObserver {
    /// The RSSI (dBm) of the beacons of the AP the client's node is associated with, read
    /// as asked by [`Cmd::SampleRssi`]; `None` when it is in no BSS.
    fn handle_rssi(&mut self, _now: SimTime, _rssi_dbm: Option<f64>, _io: &mut Io<'_>) {}

    /// `side`'s node lost its link, or got it back.
    fn handle_link(&mut self, _now: SimTime, _side: Side, _up: bool, _io: &mut Io<'_>) {}

    /// `side`'s node is about to roam to an AP whose beacons carry this BSS Load (just
    /// before [`LinkObserver::handle_link`] reports the link down).
    fn handle_bss_load(&mut self, _now: SimTime, _side: Side, _load: &BssLoad, _io: &mut Io<'_>) {}

    /// `side`'s node went through a handover (cell or BSS change), after
    /// [`LinkObserver::handle_link`] reports the link back.
    fn handle_handover(&mut self, _now: SimTime, _side: Side, _io: &mut Io<'_>) {}
}

/// A transport that wraps another and adds to it (a mechanism above a transport): every
/// [`Transport`] method goes to [`Forward::inner`] but those the wrapper overrides here,
/// so that a wrapper cannot forget one.
pub trait Forward {
    /// The transport wrapped.
    type Inner: Transport;

    fn inner(&self) -> &Self::Inner;

    fn inner_mut(&mut self) -> &mut Self::Inner;

    /// The wrapper's [`Transport::observer`]; the inner transport's unless overridden.
    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        self.inner_mut().observer()
    }
}

impl<W: Forward> Transport for W {
    #[inline]
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        self.inner_mut().handle_tick(now, io)
    }

    #[inline]
    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        self.inner_mut().handle_packet(now, side, packet, io)
    }

    #[inline]
    fn handle_timeout(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>) {
        self.inner_mut().handle_timeout(now, side, key, io)
    }

    #[inline]
    fn poll_timeout(&mut self, now: SimTime, side: Side, key: u8) -> Option<SimTime> {
        self.inner_mut().poll_timeout(now, side, key)
    }

    fn report(&self, start: SimTime) -> TransportReport {
        self.inner().report(start)
    }

    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        Forward::observer(self)
    }

    fn small_queues(&self) -> Option<(small_queues::SmallQueues, u8)> {
        self.inner().small_queues()
    }

    fn first_hop_room(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>) {
        self.inner_mut().first_hop_room(now, side, key, io)
    }

    fn tls_key_log(&self) -> String {
        self.inner().tls_key_log()
    }

    fn speaks_tcp(&self) -> bool {
        self.inner().speaks_tcp()
    }
}
