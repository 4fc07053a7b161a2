//! A link direction served by a delivery trace: which opportunity carries each packet's
//! last byte (mahimahi's `LinkQueue::rationalize`, see the module above).
//!
//! Call order: the transmitter calls [`TraceService::finish`] for each packet it starts, in
//! queue order, with the time it starts (when the previous one left, or its arrival at an
//! idle transmitter) and the time it arrived; the packet leaves at the returned instant.

use super::DeliveryTrace;
use crate::engine::SimTime;
use std::sync::Arc;

/// The delivery trace and how far its opportunities are used.
#[derive(Clone, Debug)]
pub struct TraceService {
    trace: Arc<DeliveryTrace>,
    /// The first opportunity (counted over the repetitions) not yet used up.
    next: u64,
    /// Bytes left in `next`.
    left: u32,
}

impl TraceService {
    pub fn new(trace: Arc<DeliveryTrace>) -> Self {
        let left = trace.opportunity;
        TraceService {
            trace,
            next: 0,
            left,
        }
    }

    /// The trace served.
    pub fn trace(&self) -> &DeliveryTrace {
        &self.trace
    }

    /// When a packet of `bytes` that arrived at `arrived` leaves, taking its bytes from the
    /// opportunities after its arrival: first the rest of the one the previous packet
    /// ended in (if that one comes after this packet's arrival), then whole ones.
    pub fn finish(&mut self, arrived: SimTime, bytes: u64) -> SimTime {
        let first = self.trace.first_after(arrived);
        if first > self.next {
            self.next = first;
            self.left = self.trace.opportunity;
        }
        let mut need = bytes;
        loop {
            let take = need.min(u64::from(self.left));
            need -= take;
            self.left -= take as u32;
            if need == 0 {
                let at = self.trace.time_of(self.next);
                if self.left == 0 {
                    self.next += 1;
                    self.left = self.trace.opportunity;
                }
                return at;
            }
            self.next += 1;
            self.left = self.trace.opportunity;
        }
    }
}
