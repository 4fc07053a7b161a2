//! The one event queue of a run.
//!
//! Events are ordered by the key `(time, insertion sequence)`: events due at the same
//! instant run in the order they were scheduled, which makes every run reproducible
//! without relying on the queue's internal layout.
//!
//! The queue is a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for
//! the shortest path problem", J. ACM 1990) on the due time, with digits of
//! [`DIGIT_BITS`] bits. It relies on times being monotone: nothing is scheduled before
//! the time popped last (`last`). An event whose time first differs from `last` in digit
//! `l` (counting from the lowest) is filed in the bucket of that level and of its own
//! digit there; events due exactly at `last` are in bucket 0. Buckets in index order hold
//! ever later events, so popping takes bucket 0's events or, when it is empty, finds the
//! earliest event of the first non-empty bucket, makes its time `last`, and moves that
//! bucket's events into lower buckets. Each event moves down once per digit level at most,
//! along contiguous vectors, so the cost per event grows slowly with the number pending
//! (a binary heap's pop is a chain of cache misses once the heap outgrows the cache).
//!
//! Insertion order among events due at the same time needs no sequence number: all of them
//! always sit in the same bucket (the bucket is a function of the time and `last` alone),
//! every bucket is a vector kept in the order its events arrived (moving a bucket down
//! preserves its order, and appends after events that are all due at other times), and
//! bucket 0 is read from the front. The property test below checks the order against a
//! sort by (time, insertion order). Measured against `std::collections::BinaryHeap` in
//! `benches/event_queue.rs`.

use super::SimTime;
use std::collections::VecDeque;

/// Bits per digit of the due time: a trade between the number of times an event moves
/// (at most once per digit) and the number of buckets (chosen by measurement).
const DIGIT_BITS: u32 = 6;
/// Buckets per digit level.
const RADIX: usize = 1 << DIGIT_BITS;
/// Buckets 1.. (bucket 0 is kept apart): `RADIX` per level.
const BUCKETS: usize = 1 + 64usize.div_ceil(DIGIT_BITS as usize) * RADIX;
/// Words of the bitmap of non-empty buckets.
const WORDS: usize = BUCKETS.div_ceil(64);

struct Entry<E> {
    time: u64,
    event: E,
}

/// A priority queue of events ordered by due time, ties broken by insertion order.
pub struct EventQueue<E> {
    /// The events due at `last`, in insertion order.
    zero: VecDeque<E>,
    /// Bucket `1 + l * RADIX + d`: the events whose time first differs from `last` in
    /// digit `l`, where their digit is `d`, in the order they were filed (index 0 unused).
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit `b % 64` of word `b / 64` set when bucket `b` has events.
    occupied: [u64; WORDS],
    len: usize,
    /// The time popped last, or found earliest while refilling bucket 0.
    last: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            zero: VecDeque::new(),
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            len: 0,
            last: 0,
            now: SimTime::ZERO,
            popped: 0,
        }
    }

    /// The time of the event popped last (the current simulated time).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at absolute time `at`. Scheduling in the past is a
    /// model bug: the event is clamped to the present so time never runs backwards.
    pub fn schedule(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now).0;
        if time < self.last {
            // Only after `peek_time` looked ahead without popping.
            self.rebase(time);
        }
        self.put(Entry { time, event });
        self.len += 1;
    }

    /// Schedules `event` after `delay` from now.
    pub fn schedule_in(&mut self, delay: SimTime, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Due time of the next event, if any. Takes `&mut self` because finding it may
    /// move events between buckets.
    pub fn peek_time(&mut self) -> Option<SimTime> {
        self.refill().then_some(SimTime(self.last))
    }

    /// Removes the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        if !self.refill() {
            return None;
        }
        let event = self.zero.pop_front().expect("refilled");
        self.len -= 1;
        self.popped += 1;
        self.now = SimTime(self.last);
        Some((self.now, event))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of events executed so far.
    pub fn events_popped(&self) -> u64 {
        self.popped
    }

    /// Files an entry in its bucket relative to `last` (which is not after it).
    #[inline]
    fn put(&mut self, e: Entry<E>) {
        let x = e.time ^ self.last;
        if x == 0 {
            self.zero.push_back(e.event);
            return;
        }
        let level = (63 - x.leading_zeros()) / DIGIT_BITS;
        let digit = (e.time >> (level * DIGIT_BITS)) as usize & (RADIX - 1);
        let b = 1 + level as usize * RADIX + digit;
        self.occupied[b / 64] |= 1 << (b % 64);
        self.buckets[b].push(e);
    }

    /// Makes bucket 0 hold the earliest events; returns `false` if the queue is empty.
    fn refill(&mut self) -> bool {
        if !self.zero.is_empty() {
            return true;
        }
        let Some(b) = self.first_occupied() else {
            return false;
        };
        self.occupied[b / 64] &= !(1 << (b % 64));
        if self.buckets[b].len() == 1 {
            // The common case: nothing else to move down.
            let e = self.buckets[b].pop().expect("one event");
            self.last = e.time;
            self.zero.push_back(e.event);
            return true;
        }
        let mut from = std::mem::take(&mut self.buckets[b]);
        self.last = from.iter().map(|e| e.time).min().expect("occupied bucket");
        // In order, so that events due at the same time keep their order.
        for e in from.drain(..) {
            self.put(e);
        }
        // Keep the emptied vector's capacity for the next events of that bucket.
        self.buckets[b] = from;
        true
    }

    /// The lowest non-empty bucket (other than 0), if any.
    fn first_occupied(&self) -> Option<usize> {
        self.occupied
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// Files every event again relative to an earlier `last` (`time`, which is not before
    /// `now`): needed when an event is scheduled before the time a `peek_time` found.
    /// Buckets are visited in order, so events due at the same time keep their order.
    fn rebase(&mut self, time: u64) {
        let zero = std::mem::take(&mut self.zero);
        let mut all: Vec<Entry<E>> = Vec::with_capacity(self.len);
        for b in 1..BUCKETS {
            all.append(&mut self.buckets[b]);
        }
        self.occupied = [0; WORDS];
        let last = std::mem::replace(&mut self.last, time);
        // Bucket 0's events are due at the old `last`, before every other event.
        for event in zero {
            self.put(Entry { time: last, event });
        }
        for e in all {
            self.put(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pops_in_time_order_then_insertion_order() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(30), "c");
        q.schedule(SimTime(10), "a1");
        q.schedule(SimTime(20), "b");
        q.schedule(SimTime(10), "a2");
        q.schedule(SimTime(10), "a3");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, ["a1", "a2", "a3", "b", "c"]);
        assert_eq!(q.now(), SimTime(30));
        assert_eq!(q.events_popped(), 5);
        assert!(q.is_empty());
    }

    #[test]
    fn schedule_in_is_relative_to_last_pop() {
        let mut q = EventQueue::new();
        q.schedule(SimTime(100), 1);
        q.pop();
        q.schedule_in(SimTime(5), 2);
        assert_eq!(q.peek_time(), Some(SimTime(105)));
        assert_eq!(q.pop(), Some((SimTime(105), 2)));
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn times_in_the_highest_digit() {
        let mut q = EventQueue::new();
        for (i, t) in [u64::MAX, 1 << 63, (1 << 60) + 1, 1 << 60, 3]
            .into_iter()
            .enumerate()
        {
            q.schedule(SimTime(t), i);
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(order, [4, 3, 2, 1, 0]);
    }

    proptest! {
        /// Any interleaving of schedules (at the present or later, including far-off and
        /// equal times), looks ahead and pops gives the order of a sort by (time,
        /// insertion order).
        #[test]
        fn same_order_as_a_sort_by_time_then_insertion(
            ops in prop::collection::vec((0u8..5, 0u64..4, 0u32..40), 1..400)
        ) {
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, usize)> = Vec::new();
            let mut n = 0usize;
            for (op, scale, x) in ops {
                if op == 0 {
                    let expected = reference.iter().copied().min();
                    prop_assert_eq!(q.peek_time(), expected.map(|(t, _)| SimTime(t)));
                    let got = q.pop().map(|(t, e)| (t.0, e));
                    prop_assert_eq!(got, expected);
                    reference.retain(|r| Some(*r) != expected);
                } else if op == 1 {
                    let expected = reference.iter().map(|(t, _)| SimTime(*t)).min();
                    prop_assert_eq!(q.peek_time(), expected);
                } else {
                    let delay = u64::from(x) << (scale * 16);
                    let at = q.now().0 + delay;
                    q.schedule(SimTime(at), n);
                    reference.push((at, n));
                    n += 1;
                }
                prop_assert_eq!(q.len(), reference.len());
            }
            reference.sort();
            let rest: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.0, e)).collect();
            prop_assert_eq!(rest, reference);
        }
    }
}
