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

    pub fn push(&mut self, q: Queued) {
        self.bytes += u64::from(q.size);
        self.items.push_back(q);
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

    /// Offers a packet; gives it back if the queue refuses it (tail drop).
    pub fn enqueue(&mut self, q: Queued) -> Result<(), Queued> {
        let fifo = self.fifo_mut();
        if fifo.fits(q.size) {
            fifo.push(q);
            Ok(())
        } else {
            Err(q)
        }
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
