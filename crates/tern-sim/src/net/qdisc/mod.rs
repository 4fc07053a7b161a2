//! Queue disciplines of a link direction's transmit queue.
//!
//! The queue holds packets waiting for the transmitter; the packet being
//! serialized is not in it (as in ns-3's point-to-point device and Linux qdiscs).

mod codel;
mod droptail;

pub use codel::CoDel;
pub use droptail::DropTail;

use crate::engine::SimTime;
use crate::net::packet::PacketRef;
use crate::scenario::units::QueueLimit;
use crate::scenario::QueueSpec;
use std::collections::VecDeque;

/// The reason of a tail drop: the queue is at its limit.
pub const QUEUE_FULL: &str = "queue";
/// The reason a packet under the queue's limit is refused when the memory for it ran out.
pub const OUT_OF_MEMORY: &str = "out of memory";

/// A packet waiting in a queue, with what the disciplines need to know of it.
#[derive(Clone, Copy, Debug)]
pub struct Queued {
    pub packet: PacketRef,
    pub size: u32,
    pub enqueued_at: SimTime,
}

/// A FIFO with its packet and byte counts and a limit in packets or bytes.
#[derive(Debug)]
pub struct Fifo {
    items: VecDeque<Queued>,
    bytes: u64,
    limit: QueueLimit,
}

impl Fifo {
    pub fn new(limit: QueueLimit) -> Self {
        Fifo {
            items: VecDeque::new(),
            bytes: 0,
            limit,
        }
    }

    /// Whether a packet of `size` bytes fits under the limit.
    pub fn fits(&self, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.items.len() as u64) < n,
            QueueLimit::Bytes(b) => self.bytes + u64::from(size) <= b,
        }
    }

    /// Appends a packet; gives it back if the allocator refuses the room for it (a limit
    /// beyond the machine's memory, filled), leaving the queue as it was.
    pub fn push(&mut self, q: Queued) -> Result<(), Queued> {
        if self.items.len() == self.items.capacity() && self.items.try_reserve(1).is_err() {
            return Err(q);
        }
        self.bytes += u64::from(q.size);
        self.items.push_back(q);
        Ok(())
    }

    pub fn pop(&mut self) -> Option<Queued> {
        let q = self.items.pop_front()?;
        self.bytes -= u64::from(q.size);
        Some(q)
    }

    pub fn packets(&self) -> usize {
        self.items.len()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// A queue discipline: DropTail or CoDel.
#[derive(Debug)]
pub enum Qdisc {
    DropTail(DropTail),
    CoDel(CoDel),
}

impl Qdisc {
    /// `mtu` is the link's maximum packet size (CoDel's `maxpacket`).
    pub fn from_spec(spec: &QueueSpec, mtu: u32) -> Qdisc {
        match spec {
            QueueSpec::Droptail { limit } => Qdisc::DropTail(DropTail::new(*limit)),
            QueueSpec::Codel {
                target,
                interval,
                limit,
            } => Qdisc::CoDel(CoDel::new(target.0, interval.0, *limit, mtu)),
        }
    }

    /// Offers a packet; says why if the queue refuses it: [`QUEUE_FULL`] (a tail drop) or
    /// [`OUT_OF_MEMORY`] (under its limit, but the allocator refused the room: the run must
    /// stop, see [`crate::world::RunError::Memory`]).
    pub fn enqueue(&mut self, q: Queued) -> Result<(), &'static str> {
        let fifo = self.fifo_mut();
        if !fifo.fits(q.size) {
            return Err(QUEUE_FULL);
        }
        fifo.push(q).map_err(|_| OUT_OF_MEMORY)
    }

    /// Takes the next packet to transmit; packets the discipline drops on the
    /// way (CoDel) are appended to `dropped`.
    pub fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Queued>) -> Option<Queued> {
        match self {
            Qdisc::DropTail(d) => d.dequeue(),
            Qdisc::CoDel(c) => c.dequeue(now, dropped),
        }
    }

    fn fifo_mut(&mut self) -> &mut Fifo {
        match self {
            Qdisc::DropTail(d) => &mut d.fifo,
            Qdisc::CoDel(c) => &mut c.fifo,
        }
    }

    fn fifo(&self) -> &Fifo {
        match self {
            Qdisc::DropTail(d) => &d.fifo,
            Qdisc::CoDel(c) => &c.fifo,
        }
    }

    pub fn packets(&self) -> usize {
        self.fifo().packets()
    }

    pub fn bytes(&self) -> u64 {
        self.fifo().bytes()
    }
}
