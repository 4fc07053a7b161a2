//! Point-to-point links. A duplex link is two [`Channel`]s, one per direction,
//! each with its transmit queue, transmitter, propagation delay and loss model.
//!
//! A packet offered to an idle channel starts serializing at once; it takes
//! exactly `size * 8 / rate` (rounded up to the nanosecond) and its last bit
//! reaches the far end `delay` later. Loss is decided at that moment.

use super::loss::LossModel;
use super::packet::{NodeId, PacketRef};
use super::qdisc::{Qdisc, Queued};
use crate::engine::SimTime;
use crate::scenario::units::DataRate;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChanId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
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
}

/// Counters of one direction of a link.
#[derive(Clone, Debug, Default)]
pub struct ChannelStats {
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub delivered_packets: u64,
    pub drops_queue: u64,
    pub drops_aqm: u64,
    pub drops_loss: u64,
    pub max_queue_packets: usize,
    pub max_queue_bytes: u64,
    /// ∫ queue length dt, in packet·ns and byte·ns (for time averages).
    pub queue_packet_ns: u128,
    pub queue_byte_ns: u128,
    last_change: SimTime,
}

/// One direction of a point-to-point link.
pub struct Channel {
    pub link: String,
    pub dir: Dir,
    pub from: NodeId,
    pub to: NodeId,
    pub mtu: u32,
    pub rate: DataRate,
    pub delay: SimTime,
    qdisc: Qdisc,
    /// Loss models applied in order; a packet is lost if any of them loses it
    /// (every model is consulted, so each one's random stream advances the same
    /// way whatever the others decide).
    pub loss: Vec<LossModel>,
    in_service: Option<PacketRef>,
    pub stats: ChannelStats,
}

/// What became of a packet offered to a channel.
pub enum Offer {
    /// The transmitter was idle: serialization ends at the given time.
    Transmitting(SimTime),
    Queued,
    /// The queue was full.
    Dropped,
}

impl Channel {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        link: String,
        dir: Dir,
        from: NodeId,
        to: NodeId,
        mtu: u32,
        rate: DataRate,
        delay: SimTime,
        qdisc: Qdisc,
        loss: Vec<LossModel>,
    ) -> Self {
        Channel {
            link,
            dir,
            from,
            to,
            mtu,
            rate,
            delay,
            qdisc,
            loss,
            in_service: None,
            stats: ChannelStats::default(),
        }
    }

    /// Integrates the queue length up to `now`; call before every change.
    fn account(&mut self, now: SimTime) {
        let dt = u128::from(now.saturating_sub(self.stats.last_change).as_nanos());
        self.stats.queue_packet_ns += self.qdisc.packets() as u128 * dt;
        self.stats.queue_byte_ns += u128::from(self.qdisc.bytes()) * dt;
        self.stats.last_change = now;
    }

    fn note_max(&mut self) {
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.qdisc.packets());
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.qdisc.bytes());
    }

    fn start(&mut self, now: SimTime, packet: PacketRef, size: u32) -> SimTime {
        self.in_service = Some(packet);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += u64::from(size);
        now + self.rate.tx_time(u64::from(size))
    }

    /// Offers a packet of `size` bytes for transmission at `now`.
    pub fn offer(&mut self, now: SimTime, packet: PacketRef, size: u32) -> Offer {
        if self.in_service.is_none() {
            return Offer::Transmitting(self.start(now, packet, size));
        }
        self.account(now);
        let q = Queued {
            packet,
            size,
            enqueued_at: now,
        };
        match self.qdisc.enqueue(q) {
            Ok(()) => {
                self.note_max();
                Offer::Queued
            }
            Err(_) => {
                self.stats.drops_queue += 1;
                Offer::Dropped
            }
        }
    }

    /// Serialization of the packet in service ended at `now`. Returns it with
    /// the time its last bit reaches the far end, and the end time of the next
    /// serialization if another packet was waiting. Packets the queue
    /// discipline dropped on the way are appended to `dropped`.
    pub fn finish(
        &mut self,
        now: SimTime,
        dropped: &mut Vec<Queued>,
    ) -> (PacketRef, SimTime, Option<SimTime>) {
        let done = self
            .in_service
            .take()
            .expect("finish without a packet in service");
        self.account(now);
        let before = dropped.len();
        let next = self.qdisc.dequeue(now, dropped);
        self.stats.drops_aqm += (dropped.len() - before) as u64;
        let next_end = next.map(|q| self.start(now, q.packet, q.size));
        (done, now + self.delay, next_end)
    }

    /// Whether the packet whose last bit arrives at `now` is lost.
    pub fn is_lost(&mut self, now: SimTime) -> bool {
        self.loss
            .iter_mut()
            .fold(false, |lost, m| m.is_lost(now) | lost)
    }

    /// Closes the queue-length integral at the end of the run.
    pub fn close(&mut self, now: SimTime) {
        self.account(now);
    }

    /// The packet being serialized, if any.
    pub fn in_service(&self) -> Option<PacketRef> {
        self.in_service
    }

    pub fn queue_packets(&self) -> usize {
        self.qdisc.packets()
    }

    pub fn queue_bytes(&self) -> u64 {
        self.qdisc.bytes()
    }
}
