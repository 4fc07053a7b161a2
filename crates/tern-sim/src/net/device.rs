//! The seam between the world and every link or MAC model (DESIGN.md, "Seams are traits").
//!
//! A node sends a packet out of one of its interfaces ([`Iface`]); the interface belongs to
//! a [`Device`] — one direction of a point-to-point link, a W-CDMA bearer, an 802.11 BSS —
//! which carries the packet to the interface's far end some time later, or drops it. A
//! device never touches the rest of the world: it answers with [`Action`]s (wake me at,
//! this packet reaches the far end at, this one is dropped, this node's link went down),
//! which the world carries out in the order given. The world has no branch per kind of
//! device.

use crate::engine::SimTime;
pub use crate::net::packet::IfaceId;
use crate::net::packet::{Body, NodeId, Packet, PacketPool, PacketRef};
use crate::scenario::units::DataRate;
use crate::summary::{ChannelSummary, Summary};
use crate::trace::{QueueRecord, Traces};

/// A device of the world, in build order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevId(pub u32);

/// Which way along a link an interface sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `ends[0]` → `ends[1]` (a station's uplink on 802.11).
    Forward,
    Reverse,
}

impl Dir {
    pub fn as_str(self) -> &'static str {
        match self {
            Dir::Forward => "forward",
            Dir::Reverse => "reverse",
        }
    }

    /// 0 for forward, 1 for reverse.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Counters of one interface, kept by the world from the devices' actions (those counted
/// per packet first: see [`Iface`]).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct IfaceStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub delivered_packets: u64,
    pub drops_queue: u64,
    pub drops_aqm: u64,
    pub drops_loss: u64,
}

/// Queue occupancy of an interface over the run (devices with a transmit queue).
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub max_packets: usize,
    pub max_bytes: u64,
    /// ∫ queue length dt, in packet·ns and byte·ns (for time averages).
    pub packet_ns: u128,
    pub byte_ns: u128,
}

/// A transmit queue's length and its [`QueueStats`], for devices that count what they hold
/// themselves.
#[derive(Clone, Debug, Default)]
pub struct QueueMeter {
    pub packets: usize,
    pub bytes: u64,
    pub stats: QueueStats,
    last_change: SimTime,
}

impl QueueMeter {
    /// `packets` packets of `bytes` bytes in all join the queue at `now`.
    pub fn add(&mut self, now: SimTime, packets: usize, bytes: u64) {
        self.account(now);
        self.packets += packets;
        self.bytes += bytes;
        self.stats.max_packets = self.stats.max_packets.max(self.packets);
        self.stats.max_bytes = self.stats.max_bytes.max(self.bytes);
    }

    /// `packets` packets of `bytes` bytes in all leave the queue at `now`.
    pub fn remove(&mut self, now: SimTime, packets: usize, bytes: u64) {
        self.account(now);
        self.packets -= packets;
        self.bytes -= bytes;
    }

    /// Integrates the length up to `now` (before a change, and at the end of the run).
    pub fn account(&mut self, now: SimTime) {
        let dt = u128::from(now.saturating_sub(self.last_change).as_nanos());
        self.stats.packet_ns += self.packets as u128 * dt;
        self.stats.byte_ns += u128::from(self.bytes) * dt;
        self.last_change = now;
    }
}

/// One direction out of a node: what the world knows of it whatever its device.
///
/// Laid out for the packet path: what every hop reads or counts (the ends, the device and
/// its port, whether arrivals are checked for loss, the sent and delivered counters) comes
/// first and the interface is aligned to a cache line, so a hop touches one line of it
/// whatever the number of interfaces; the name and the nominal rate (read for the summary)
/// follow. With thousands of flows the interfaces no longer fit the first-level cache, and
/// the layout the compiler chose spread those fields over two lines (benches/RESULTS.md,
/// "Cost per packet flat in the number of flows").
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Iface {
    pub from: NodeId,
    pub to: NodeId,
    pub device: DevId,
    /// The interface's number within its device.
    pub port: u32,
    /// Whether the device may lose a packet when it reaches the far end
    /// ([`Device::may_lose_on_arrival`], asked once): if not, arrivals do not call it.
    pub arrival_loss: bool,
    pub dir: Dir,
    /// Largest IP packet, bytes.
    pub mtu: u32,
    pub stats: IfaceStats,
    /// Nominal rate, for the utilisation in the summary.
    pub rate: DataRate,
    /// The link's name (`<bss>-<station>` for an 802.11 association).
    pub link: String,
}

/// Why a packet is dropped, for the interface counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropKind {
    /// Refused by a full queue.
    Queue,
    /// Dropped by the queue discipline (CoDel).
    Aqm,
    /// Lost on the way (loss model, retry limit, lifetime, RLC discard, disassociation).
    Loss,
}

/// What a device asks the world to do, carried out in order.
#[derive(Clone, Copy, Debug)]
pub enum Action {
    /// Call [`Device::wake`] with `token` at `at` (the device keeps its own [`crate::engine::Wake`]).
    Wake { at: SimTime, token: u32 },
    /// The packet starts leaving by `iface` (counted as sent, and captured).
    Transmit { iface: IfaceId, p: PacketRef },
    /// The packet's last bit reaches the far end of `iface` at `at`.
    Arrive {
        at: SimTime,
        iface: IfaceId,
        p: PacketRef,
    },
    /// The packet left its sender's first-hop device (serialized, acknowledged or dropped
    /// there): TCP Small Queues may let its transport send more.
    LeftFirstHop { iface: IfaceId, p: PacketRef },
    /// An 802.11 MAC (driver) queue took the packet from the qdisc, or from the host when
    /// there is none: TCP Small Queues' charge ends here when it ends at the driver.
    EnteredDriver { iface: IfaceId, p: PacketRef },
    /// The packet left an 802.11 MAC (driver) queue (transmit status, dropped or moved
    /// away): TCP Small Queues' charge ends here unless it ended when the queue took it.
    LeftDriver { iface: IfaceId, p: PacketRef },
    /// The packet is gone.
    Drop {
        iface: IfaceId,
        p: PacketRef,
        reason: &'static str,
        kind: DropKind,
    },
    /// The queue of `iface` changed length (for the `queue` trace).
    QueueChanged { iface: IfaceId },
    /// The packet left the world through a port to the real world (its bytes taken for a
    /// real host): it is freed.
    Left { p: PacketRef },
    /// A node lost its link (an 802.11 station left its AP).
    LinkDown(NodeId),
    /// A node about to change its point of attachment read the load of the one it joins
    /// (an 802.11 station, the BSS Load of the AP): its transports hear of it
    /// (countermeasure A of the tfrc-handover study).
    BssLoad(NodeId, JoinLoad),
    /// A node's link is back (after a roam): transports hear of it, and see a handover.
    LinkUp(NodeId),
    /// Which interfaces are usable changed: routes are computed again.
    Reroute,
}

/// What a node about to join a new point of attachment reads of it in advance: how many
/// stations it serves and its PHY (an 802.11 station reads the AP's BSS Load element, IEEE
/// 802.11-2020 §9.4.2.27, and its Supported Rates and DSSS Parameter Set). Plain numbers,
/// so that this layer names no link technology; the 802.11 model reads them back
/// (`wifi::bss_load::BssLoad`, which converts both ways).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JoinLoad {
    /// Stations associated with it (the element's Station Count).
    pub stations: u32,
    /// Its PHY's data rate, kbit/s.
    pub rate_kbps: u32,
    /// Whether its PHY uses the short PLCP preamble.
    pub short_preamble: bool,
}

/// What a device is given to act: where its actions go, the trace tables, and the packets.
pub struct DeviceCx<'a> {
    pub actions: &'a mut Vec<Action>,
    pub traces: &'a mut Traces,
    pub pool: &'a PacketPool,
}

impl DeviceCx<'_> {
    pub fn push(&mut self, a: Action) {
        self.actions.push(a);
    }

    /// The queue of `iface` changed length: an [`Action::QueueChanged`] if the `queue`
    /// trace is recorded (nothing else reads it).
    #[inline]
    pub fn queue_changed(&mut self, iface: IfaceId) {
        if self.traces.wants::<QueueRecord>() {
            self.actions.push(Action::QueueChanged { iface });
        }
    }
}

/// A packet handed to a device to send: out of interface `iface`, the device's `port`;
/// `pkt` is the packet `p` names, read where it lies in the pool.
#[derive(Clone, Copy)]
pub struct Outgoing<'a> {
    pub iface: IfaceId,
    pub port: u32,
    pub p: PacketRef,
    pub pkt: &'a Packet,
}

/// A device's answer to [`Device::enqueue`]: taken, or refused and why.
pub type Enqueued = Result<(), &'static str>;

/// A link or MAC model behind one or more interfaces.
///
/// A device that wraps another and adds to it (an LTE cell around its point-to-point
/// bearer) implements [`Forward`] instead and gets every method forwarded but those it
/// overrides there.
pub trait Device {
    /// Takes packet `out.p` to send out of interface `out.iface` (its `out.port` within this
    /// device) at `now`, or refuses it, saying why (a drop counted against the queue).
    fn enqueue(&mut self, now: SimTime, out: Outgoing<'_>, cx: &mut DeviceCx<'_>) -> Enqueued;

    /// A wake-up this device asked for ([`Action::Wake`]) is due.
    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>);

    /// Whether a packet whose last bit reaches the far end of `port` at `now` is lost there
    /// (loss decided on arrival, as ns-3's error models on a receiving device).
    fn lost_on_arrival(&mut self, _now: SimTime, _port: u32) -> bool {
        false
    }

    /// Whether [`Device::lost_on_arrival`] can ever answer yes for `port` (asked once,
    /// when the world is built): a device that never loses packets on arrival is not called
    /// at every arrival.
    fn may_lose_on_arrival(&self, _port: u32) -> bool {
        false
    }

    /// A scheduled change of rate or propagation delay of `port` (links' `schedule`).
    fn reconfigure(&mut self, _port: u32, _rate: Option<DataRate>, _delay: Option<SimTime>) {}

    /// Packets and bytes waiting in `port`'s transmit queue now.
    fn queue_len(&self, _port: u32) -> (usize, u64) {
        (0, 0)
    }

    /// Queue occupancy of `port` over the run so far.
    fn queue_stats(&self, _port: u32) -> QueueStats {
        QueueStats::default()
    }

    /// The run ends at `end`: close time integrals.
    fn close(&mut self, _end: SimTime) {}

    /// Whether routes may use `port` now (an 802.11 station's association with an AP it
    /// is not with is not).
    fn usable(&self, _port: u32) -> bool {
        true
    }

    /// RSSI (dBm) at `node` of the AP it is associated with, for radios.
    fn rssi_dbm(&mut self, _node: NodeId, _now: SimTime) -> Option<f64> {
        None
    }

    /// Adds what the device knows of `port` to its row of the summary.
    fn report_port(&self, _port: u32, _row: &mut ChannelSummary) {}

    /// Adds the device's own section to the summary.
    fn report(&self, _end: SimTime, _summary: &mut Summary) {}

    /// The body packet `pkt`, bound for the node behind `port`, takes from its sender on, if
    /// the device carries it as other bytes than Tern's (a port to the real world: the
    /// bytes the real host will read, so that links and captures carry them); `None`
    /// keeps it as it is. Asked only of ports, as the packet is sent.
    fn frame(&mut self, _port: u32, _pkt: &Packet) -> Option<Body> {
        None
    }
}

/// A device that wraps another and adds to it: every [`Device`] method goes to
/// [`Forward::inner`] but those the wrapper overrides here, so that a wrapper cannot forget
/// one (the device counterpart of [`crate::transport::Forward`]).
pub trait Forward {
    /// The device wrapped.
    type Inner: Device;

    fn inner(&self) -> &Self::Inner;

    fn inner_mut(&mut self) -> &mut Self::Inner;

    /// The wrapper's [`Device::wake`]; the inner device's unless overridden.
    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>) {
        self.inner_mut().wake(now, token, cx)
    }
}

impl<W: Forward> Device for W {
    #[inline]
    fn enqueue(&mut self, now: SimTime, out: Outgoing<'_>, cx: &mut DeviceCx<'_>) -> Enqueued {
        self.inner_mut().enqueue(now, out, cx)
    }

    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>) {
        Forward::wake(self, now, token, cx)
    }

    fn lost_on_arrival(&mut self, now: SimTime, port: u32) -> bool {
        self.inner_mut().lost_on_arrival(now, port)
    }

    fn may_lose_on_arrival(&self, port: u32) -> bool {
        self.inner().may_lose_on_arrival(port)
    }

    fn reconfigure(&mut self, port: u32, rate: Option<DataRate>, delay: Option<SimTime>) {
        self.inner_mut().reconfigure(port, rate, delay)
    }

    fn queue_len(&self, port: u32) -> (usize, u64) {
        self.inner().queue_len(port)
    }

    fn queue_stats(&self, port: u32) -> QueueStats {
        self.inner().queue_stats(port)
    }

    fn close(&mut self, end: SimTime) {
        self.inner_mut().close(end)
    }

    fn usable(&self, port: u32) -> bool {
        self.inner().usable(port)
    }

    fn rssi_dbm(&mut self, node: NodeId, now: SimTime) -> Option<f64> {
        self.inner_mut().rssi_dbm(node, now)
    }

    fn report_port(&self, port: u32, row: &mut ChannelSummary) {
        self.inner().report_port(port, row)
    }

    fn report(&self, end: SimTime, summary: &mut Summary) {
        self.inner().report(end, summary)
    }

    fn frame(&mut self, port: u32, pkt: &Packet) -> Option<Body> {
        self.inner_mut().frame(port, pkt)
    }
}
