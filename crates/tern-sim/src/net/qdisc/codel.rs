//! CoDel, Controlled Delay active queue management (RFC 8289).
//!
//! Decisions are made at dequeue from each packet's sojourn time, following
//! the pseudocode of RFC 8289 §5: a packet may be dropped once the sojourn has
//! stayed above `target` for at least `interval` (§5.4, `dodequeue`); while in
//! the dropping state, drops are spaced by the control law
//! `interval / sqrt(count)` (§5.5, §5.6), and `count` resumes near its last
//! value when dropping restarts soon after it stopped (§5.6).

use super::{Fifo, Queued};
use crate::engine::SimTime;
use crate::scenario::units::QueueLimit;

#[derive(Debug)]
pub struct CoDel {
    pub(super) fifo: Fifo,
    target: SimTime,
    interval: SimTime,
    /// Largest packet size: a queue holding no more than this is never
    /// considered standing (RFC 8289 §5.4, `MAXPACKET`).
    max_packet: u64,
    /// When the sojourn first stayed above target (plus `interval`), or `None`.
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    last_count: u32,
    dropping: bool,
}

impl CoDel {
    pub fn new(target: SimTime, interval: SimTime, limit: QueueLimit, max_packet: u32) -> Self {
        CoDel {
            fifo: Fifo::new(limit),
            target,
            interval,
            max_packet: u64::from(max_packet),
            first_above_time: None,
            drop_next: SimTime::ZERO,
            count: 0,
            last_count: 0,
            dropping: false,
        }
    }

    /// The control law, RFC 8289 §5.6: `t + interval / sqrt(count)`.
    fn control_law(&self, t: SimTime, count: u32) -> SimTime {
        let step = self.interval.as_nanos() as f64 / libm::sqrt(f64::from(count.max(1)));
        t + SimTime(step as u64)
    }

    /// RFC 8289 §5.4 `dodequeue`: the head packet and whether it may be dropped.
    fn dodequeue(&mut self, now: SimTime) -> (Option<Queued>, bool) {
        let Some(q) = self.fifo.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_sub(q.enqueued_at);
        if sojourn < self.target || self.fifo.bytes() <= self.max_packet {
            self.first_above_time = None;
            return (Some(q), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.interval);
                (Some(q), false)
            }
            Some(t) => (Some(q), now >= t),
        }
    }

    /// RFC 8289 §5.5 `dequeue`.
    pub fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Queued>) -> Option<Queued> {
        let (mut head, ok_to_drop) = self.dodequeue(now);
        if head.is_none() {
            // Empty queue: nothing standing, leave the dropping state.
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok_to_drop {
                // Sojourn fell below target: leave the dropping state.
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                dropped.extend(head.take());
                self.count += 1;
                let (next, ok) = self.dodequeue(now);
                head = next;
                if ok {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok_to_drop {
            dropped.extend(head.take());
            let (next, _) = self.dodequeue(now);
            head = next;
            self.dropping = true;
            // If we were dropping recently, resume near the old drop rate.
            let delta = self.count.wrapping_sub(self.last_count);
            self.count = if delta > 1
                && delta < u32::MAX / 2
                && now.saturating_sub(self.drop_next) < self.interval.saturating_mul(16)
            {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now, self.count);
            self.last_count = self.count;
        }
        head
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::PacketRef;

    fn pkt(at: SimTime) -> Queued {
        Queued {
            packet: any_ref(),
            size: 1500,
            enqueued_at: at,
        }
    }

    fn any_ref() -> PacketRef {
        // Handles are opaque; the qdisc never dereferences them.
        crate::net::packet::PacketPool::default()
            .insert(
                crate::net::packet::FlowId(0),
                crate::net::packet::NodeId(0),
                crate::net::packet::NodeId(0),
                crate::net::packet::Body::Udp(crate::net::packet::UdpMessage {
                    kind: crate::net::packet::UdpKind::Data,
                    seq: 0,
                    sent_at: SimTime::ZERO,
                    len: 0,
                }),
            )
            .expect("an empty pool has room")
    }

    #[test]
    fn no_drop_below_target() {
        let mut c = CoDel::new(
            SimTime::from_millis(5),
            SimTime::from_millis(100),
            QueueLimit::Packets(1000),
            1500,
        );
        let mut dropped = Vec::new();
        for i in 0..100u64 {
            c.fifo.push(pkt(SimTime::from_millis(i))).unwrap();
        }
        // Each packet waits 4 ms < target.
        for i in 0..100u64 {
            assert!(c
                .dequeue(SimTime::from_millis(i + 4), &mut dropped)
                .is_some());
        }
        assert!(dropped.is_empty());
    }

    #[test]
    fn first_drop_after_one_interval_above_target() {
        let interval = SimTime::from_millis(100);
        let mut c = CoDel::new(
            SimTime::from_millis(5),
            interval,
            QueueLimit::Packets(10_000),
            1500,
        );
        let mut dropped = Vec::new();
        for _ in 0..1000 {
            c.fifo.push(pkt(SimTime::ZERO)).unwrap();
        }
        // Sojourn above target from t = 10 ms on; RFC 8289 §5.4: no drop until
        // it has stayed above for a whole interval.
        let t0 = SimTime::from_millis(10);
        c.dequeue(t0, &mut dropped);
        c.dequeue(t0 + SimTime::from_millis(99), &mut dropped);
        assert!(dropped.is_empty());
        c.dequeue(t0 + interval, &mut dropped);
        assert_eq!(dropped.len(), 1);
        // Next drop after interval/sqrt(1) = 100 ms, then 100/sqrt(2) ≈ 70.7 ms.
        assert_eq!(c.drop_next, t0 + interval + interval);
        c.dequeue(t0 + SimTime::from_millis(199), &mut dropped);
        assert_eq!(dropped.len(), 1);
        c.dequeue(t0 + SimTime::from_millis(200), &mut dropped);
        assert_eq!(dropped.len(), 2);
        assert_eq!(c.count, 2);
        assert_eq!(
            c.drop_next,
            t0 + SimTime::from_millis(200) + SimTime(70_710_678)
        );
    }
}
