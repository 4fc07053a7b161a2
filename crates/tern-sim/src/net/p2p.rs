//! Point-to-point links (wired, and the LTE cell's bearer as a rate/delay pipe). A duplex
//! link is one [`PointToPoint`] device with two interfaces, one per direction, each with
//! its transmit queue, transmitter, propagation delay and loss models.
//!
//! A packet offered to an idle transmitter starts serializing at once; it takes exactly
//! `size * 8 / rate` (rounded up to the nanosecond) and its last bit reaches the far end
//! `delay` later. Loss is decided at that moment (as ns-3's receive error models), or, on a
//! radio hop ([`LossAt::Departure`]), when its last bit leaves the transmitter: the fate of a
//! packet sent over the air is the state of the cell it is sent in, not the one it would
//! reach the far end in (an LTE handover's burst loss ends when the handover completes, and a
//! packet sent just before is lost although it would arrive after).

use super::device::{Action, Device, DeviceCx, DropKind, Enqueued, IfaceId, Outgoing, QueueStats};
use super::loss::LossModel;
use super::packet::PacketRef;
use super::qdisc::{Qdisc, Queued};
use super::service::ServiceRate;
use crate::engine::SimTime;
use crate::scenario::units::DataRate;
use crate::tracelink::service::TraceService;

/// One direction of a point-to-point link.
///
/// Laid out for the packet path: what every packet reads or writes (the packet in service,
/// the interface, the rate, the delay, when the queue last changed) comes first, in one
/// cache line (the transmitter is aligned to one), then the queue; the loss models and the
/// queue's statistics (written only while packets wait) after. With thousands of flows
/// each flow's access links are out of the caches when its next packet comes, and the
/// compiler's order spread those fields over four lines (benches/RESULTS.md, "Cost per
/// packet flat in the number of flows").
#[repr(C, align(64))]
pub struct Transmitter {
    in_service: Option<(PacketRef, u32)>,
    /// The interface this direction sends by (set by [`PointToPoint::new`]).
    iface: IfaceId,
    /// When the loss models decide a packet's fate (set by [`PointToPoint::deciding_loss`]).
    loss_at: LossAt,
    pub rate: DataRate,
    pub delay: SimTime,
    /// Link-layer bytes serialized with every packet (a PPP header's 2 on ns-3's links).
    framing: u32,
    last_change: SimTime,
    qdisc: Qdisc,
    /// Loss models applied in order; a packet is lost if any of them loses it (every model
    /// is consulted, so each one's random stream advances the same way whatever the others
    /// decide).
    loss: Vec<LossModel>,
    queue: QueueStats,
    /// A scheduled bearer's rate over time (an LTE cell's grants) or a trace of delivery
    /// opportunities: when set, it times each packet's departure and `rate` is only
    /// reported.
    service: Option<Box<Service>>,
}

/// How a direction without a fixed rate serves its packets.
pub enum Service {
    /// At the rate of each instant ([`ServiceRate::finish`]).
    Rate(ServiceRate),
    /// In a trace's delivery opportunities ([`TraceService::finish`]).
    Trace(TraceService),
}

impl Service {
    /// When the last of `bytes` that start at `now` (having arrived at `arrived`) has left.
    /// Out of line: a fixed-rate link's packets ([`Transmitter::start`]) never come here.
    #[inline(never)]
    fn finish(&mut self, now: SimTime, bytes: u64, arrived: SimTime) -> SimTime {
        match self {
            Service::Rate(s) => s.finish(now, bytes),
            Service::Trace(t) => t.finish(arrived, bytes),
        }
    }
}

impl Transmitter {
    pub fn new(rate: DataRate, delay: SimTime, qdisc: Qdisc, loss: Vec<LossModel>) -> Self {
        Transmitter {
            in_service: None,
            iface: IfaceId(0),
            loss_at: LossAt::Arrival,
            rate,
            delay,
            framing: 0,
            last_change: SimTime::ZERO,
            qdisc,
            loss,
            queue: QueueStats::default(),
            service: None,
        }
    }

    /// The same transmitter, serving at `service`'s rate of each instant: a change of rate
    /// applies to the rest of the packet being sent (a scheduled radio bearer, see
    /// [`ServiceRate`]), where a wired link's packet keeps the rate it started with.
    pub fn with_service(mut self, service: ServiceRate) -> Self {
        self.service = Some(Box::new(Service::Rate(service)));
        self
    }

    /// The same transmitter, sending in `trace`'s delivery opportunities (and reporting its
    /// mean rate as its rate); framing bytes count as the packet's.
    pub fn with_trace(mut self, trace: TraceService) -> Self {
        self.rate = DataRate(trace.trace().mean_rate());
        self.service = Some(Box::new(Service::Trace(trace)));
        self
    }

    /// Integrates the queue length up to `now`; called before every change. An empty queue
    /// adds nothing (and its statistics are not touched).
    fn account(&mut self, now: SimTime) {
        let packets = self.qdisc.packets();
        if packets > 0 {
            let dt = u128::from(now.saturating_sub(self.last_change).as_nanos());
            self.queue.packet_ns += packets as u128 * dt;
            self.queue.byte_ns += u128::from(self.qdisc.bytes()) * dt;
        }
        self.last_change = now;
    }

    fn note_max(&mut self) {
        self.queue.max_packets = self.queue.max_packets.max(self.qdisc.packets());
        self.queue.max_bytes = self.queue.max_bytes.max(self.qdisc.bytes());
    }

    /// The same transmitter, serializing `bytes` of link-layer framing with every packet.
    pub fn with_framing(mut self, bytes: u32) -> Self {
        self.framing = bytes;
        self
    }

    /// Starts serializing `p`, which arrived at `arrived`: when its last bit (and its
    /// framing's) has left.
    #[inline]
    fn start(&mut self, now: SimTime, p: PacketRef, size: u32, arrived: SimTime) -> SimTime {
        self.in_service = Some((p, size));
        let bytes = u64::from(size) + u64::from(self.framing);
        match self.service.as_deref_mut() {
            None => now + self.rate.tx_time(bytes),
            Some(service) => service.finish(now, bytes, arrived),
        }
    }
}

/// The actions for packets the queue discipline dropped as it dequeued (CoDel), in order:
/// each leaves its first hop, then is dropped. Out of line: a DropTail queue never drops
/// there, and the loop over an empty vector cost every packet of a p2p link two
/// instructions.
#[inline(never)]
#[cold]
fn aqm_drops(iface: IfaceId, dropped: Vec<Queued>, cx: &mut DeviceCx<'_>) {
    for q in dropped {
        cx.push(Action::LeftFirstHop { iface, p: q.packet });
        cx.push(Action::Drop {
            iface,
            p: q.packet,
            reason: "aqm",
            kind: DropKind::Aqm,
        });
    }
}

/// When a link's loss models decide a packet's fate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossAt {
    /// When its last bit reaches the far end (wired links).
    Arrival,
    /// When its last bit leaves the transmitter (a radio hop).
    Departure,
}

/// A duplex point-to-point link: port 0 forward (interface `first`), port 1 reverse (the
/// next interface).
pub struct PointToPoint {
    dirs: [Transmitter; 2],
}

impl PointToPoint {
    pub fn new(first: IfaceId, mut forward: Transmitter, mut reverse: Transmitter) -> Self {
        forward.iface = first;
        reverse.iface = IfaceId(first.0 + 1);
        PointToPoint {
            dirs: [forward, reverse],
        }
    }

    /// The same link, deciding loss at `at`.
    pub fn deciding_loss(mut self, at: LossAt) -> Self {
        for tx in &mut self.dirs {
            tx.loss_at = at;
        }
        self
    }

    /// Whether a packet is lost at `now` by `port`'s loss models (every model is asked).
    fn lost(&mut self, now: SimTime, port: u32) -> bool {
        self.dirs[port as usize]
            .loss
            .iter_mut()
            .fold(false, |lost, m| m.is_lost(now) | lost)
    }
}

impl Device for PointToPoint {
    fn enqueue(&mut self, now: SimTime, out: Outgoing<'_>, cx: &mut DeviceCx<'_>) -> Enqueued {
        let (iface, port, p, pkt) = (out.iface, out.port, out.p, out.pkt);
        let size = pkt.size();
        let tx = &mut self.dirs[port as usize];
        if tx.in_service.is_none() {
            let done = tx.start(now, p, size, now);
            cx.push(Action::Wake {
                at: done,
                token: port,
            });
            cx.push(Action::Transmit { iface, p });
            return Ok(());
        }
        tx.account(now);
        let q = Queued {
            packet: p,
            size,
            enqueued_at: now,
        };
        tx.qdisc.enqueue(q)?;
        tx.note_max();
        cx.queue_changed(iface);
        Ok(())
    }

    /// Serialization of the packet in service on `port` ended: it travels to the far end,
    /// and the next one in the queue (if the discipline lets one through) starts.
    fn wake(&mut self, now: SimTime, port: u32, cx: &mut DeviceCx<'_>) {
        let tx = &self.dirs[port as usize];
        let iface = tx.iface;
        let lost = tx.loss_at == LossAt::Departure && self.lost(now, port);
        let tx = &mut self.dirs[port as usize];
        let (done, _) = tx.in_service.take().expect("a packet in service");
        tx.account(now);
        let queued_before = tx.qdisc.packets();
        let mut dropped = Vec::new();
        let next = tx.qdisc.dequeue(now, &mut dropped);
        let changed = tx.qdisc.packets() != queued_before;
        if !lost {
            cx.push(Action::Arrive {
                at: now + tx.delay,
                iface,
                p: done,
            });
        }
        if let Some(q) = next {
            let end = tx.start(now, q.packet, q.size, q.enqueued_at);
            cx.push(Action::Wake {
                at: end,
                token: port,
            });
            cx.push(Action::Transmit { iface, p: q.packet });
        }
        cx.push(Action::LeftFirstHop { iface, p: done });
        if lost {
            cx.push(Action::Drop {
                iface,
                p: done,
                reason: "loss",
                kind: DropKind::Loss,
            });
        }
        if !dropped.is_empty() {
            aqm_drops(iface, dropped, cx);
        }
        if changed {
            cx.queue_changed(iface);
        }
    }

    fn lost_on_arrival(&mut self, now: SimTime, port: u32) -> bool {
        self.dirs[port as usize].loss_at == LossAt::Arrival && self.lost(now, port)
    }

    fn may_lose_on_arrival(&self, port: u32) -> bool {
        let tx = &self.dirs[port as usize];
        tx.loss_at == LossAt::Arrival && !tx.loss.is_empty()
    }

    fn reconfigure(&mut self, port: u32, rate: Option<DataRate>, delay: Option<SimTime>) {
        let tx = &mut self.dirs[port as usize];
        if let Some(r) = rate {
            tx.rate = r;
        }
        if let Some(d) = delay {
            tx.delay = d;
        }
    }

    fn queue_len(&self, port: u32) -> (usize, u64) {
        let q = &self.dirs[port as usize].qdisc;
        (q.packets(), q.bytes())
    }

    fn queue_stats(&self, port: u32) -> QueueStats {
        self.dirs[port as usize].queue.clone()
    }

    fn close(&mut self, end: SimTime) {
        for tx in &mut self.dirs {
            tx.account(end);
        }
    }
}
