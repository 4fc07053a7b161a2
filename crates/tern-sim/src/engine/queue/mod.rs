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
//! so the cost per event grows slowly with the number pending (a binary heap's pop is a
//! chain of cache misses once the heap outgrows the cache).
//!
//! A bucket held in a vector (below) moves down relative to its floor instead, the earliest
//! time it can hold (`last` with that bucket's digit put in and the digits below cleared):
//! no pass over the vector for its earliest time, and no event is copied through a slot on
//! its way from vector to vector. When nothing then falls in bucket 0, the search for the
//! first non-empty bucket goes on. Lists keep the move relative to their earliest event:
//! relative to the floor, the scenarios' short lists (about ten events) needed one more
//! search each time and cost 0.9-2.2 % more instructions (benches/RESULTS.md).
//!
//! Memory layout, two ways by size. While fewer than [`VEC_PENDING`] events are pending, a
//! bucket is a list threaded through the slots of one slab, where the slot freed last is
//! used first: filing an event writes that slot, still in cache, and the bucket's ends in
//! one small array. With more, the slab outgrows the cache and a list moving down would be
//! a walk of cache misses, so buckets filed then are vectors of their own, read in sequence
//! when they move down, except the events a vector's move sends to the lowest level, which
//! are emptied next, while their slots are in cache: they go to lists (at 1 M pending, the
//! lowest level's buckets hold about two events each, and vectors of their own made each
//! pop a vector's move). One vector per bucket always (the layout before) scattered the
//! scenarios' schedules over as many heap buffers as buckets in use, whose stores missed the
//! cache and made the queue 31 % of the 10-flow dumbbell's run; lists always made 1 M
//! pending 20 times slower than 1 k. Both measured in benches/RESULTS.md.
//!
//! Digits of 6 bits stay (benches/RESULTS.md): on the 10-flow
//! dumbbell each event moves down about once (the 10 ms propagation's arrivals come ~11
//! to a 262 µs bucket). Digits of 8, 9 or 10 bits made `move_list_down` cheaper but saved
//! at most 0.3 % of the run's instructions (8 bits; 9 and 10 bits added 2-3 %) and missed
//! the first-level data cache 3-37 % more (a larger array of list ends); buckets 262 µs or
//! more ahead kept as vectors cut the 1 000-flow dumbbell's misses 3 % but cost 2-7 % more
//! instructions and missed more on the other scenarios.
//!
//! Bucket indices come from a table of the levels by highest differing bit (no division by
//! [`DIGIT_BITS`]) and are masked to a power-of-two array size, so that filing one needs no
//! bounds check; bucket 0's test is inlined where events are popped, the search behind it
//! is not. Measured (benches/RESULTS.md) with the vector moves above, these took the
//! hold benchmark's pop + push from 268 to 257 instructions at 1 000 pending, 625 to 362 at
//! 100 000 and 498 to 319 at 1 000 000 (callgrind), and the scenarios' instructions down
//! 0.3-0.7 %. Tried there and not kept: a sorted run of the earliest events filled from small
//! buckets (more mispredicted branches than the radix moves it saved), lists moved relative
//! to their floor (above), a summary word of the non-empty bitmap words (more instructions
//! than the scan), 7-bit digits (more misses on the dumbbells) and `schedule` filing straight
//! into a vector without a slot (6 % fewer instructions at 1 M pending, 0.4-0.7 % more in the
//! scenarios).
//!
//! Insertion order among events due at the same time needs no sequence number: all of them
//! always sit in the same bucket (the bucket is a function of the time and `last` alone),
//! every bucket is kept in the order its events arrived (moving a bucket down or turning
//! its list into a vector preserves its order, and appends after events that are all due
//! at other times), and bucket 0 is read from the front. The property tests below check
//! the order against a sort by (time, insertion order). Measured against
//! `std::collections::BinaryHeap` in `benches/event_queue.rs`.
//!
//! The slab and the vectors grow by fallible allocation (`try_reserve`): an event the
//! allocator has no room for is not filed and the queue says it is
//! [`exhausted`](EventQueue::exhausted), so that a run whose pending events outgrow the
//! memory stops with an error (`RunError::Memory`) instead of the process aborting. The
//! growth is asked for once per reallocation, out of line, when a push finds its vector
//! full; the push itself then writes into room known to be there ([`push_reserved`]), with
//! no second capacity test and no infallible growth path inlined beside it.

use super::SimTime;

/// Bits per digit of the due time: a trade between the number of times an event moves
/// (at most once per digit) and the number of buckets (chosen by measurement).
const DIGIT_BITS: u32 = 6;
/// Buckets per digit level.
const RADIX: usize = 1 << DIGIT_BITS;
/// Bucket 0 (events due at `last`), then `RADIX` buckets per level.
const BUCKETS: usize = 1 + 64usize.div_ceil(DIGIT_BITS as usize) * RADIX;
/// Entries of the per-bucket arrays: `BUCKETS` rounded up to a power of two, so that a
/// bucket index masked with `ENTRIES - 1` needs no bounds check.
const ENTRIES: usize = BUCKETS.next_power_of_two();
/// Words of the bitmaps of buckets, likewise a power of two.
const WORDS: usize = ENTRIES / 64;
/// For each position of the highest bit in which a time differs from `last`: the first
/// bucket of that bit's level and the shift of that level's digit.
const LEVELS: [(u16, u8); 64] = {
    let mut levels = [(0, 0); 64];
    let mut bit = 0;
    while bit < 64 {
        let level = bit as u32 / DIGIT_BITS;
        levels[bit] = (
            (1 + level as usize * RADIX) as u16,
            (level * DIGIT_BITS) as u8,
        );
        bit += 1;
    }
    levels
};
/// Events pending from which buckets are filed as vectors: below, the slab (24 B per event
/// in a run) stays in cache and lists are cheaper.
const VEC_PENDING: usize = 1 << 16;
/// Levels below which a vector's events moving down are filed in lists even above
/// [`VEC_PENDING`]: the lowest level's buckets are emptied next, while their slots are in
/// cache.
const LIST_LEVELS: u32 = 1;
/// The end of a list.
const NIL: u32 = u32::MAX;

/// A slot of the slab: an event, its due time, and the next slot of its bucket (or of the
/// free list).
struct Slot<E> {
    time: u64,
    next: u32,
    event: E,
}

/// A bucket's list: its first and last slot.
#[derive(Clone, Copy)]
struct List {
    head: u32,
    tail: u32,
}

const EMPTY: List = List {
    head: NIL,
    tail: NIL,
};

/// A priority queue of events ordered by due time, ties broken by insertion order.
/// Events are `Copy` (small handles: a freed slot keeps its stale event until reused).
pub struct EventQueue<E> {
    slots: Vec<Slot<E>>,
    /// First free slot (freed last), linked through `next`.
    free: u32,
    /// Bucket 0 holds the events due at `last`; bucket `1 + l * RADIX + d` the events whose
    /// time first differs from `last` in digit `l`, where their digit is `d`. Each is in
    /// the order its events were filed.
    lists: [List; ENTRIES],
    /// The events of the buckets filed as vectors, `(due time, event)`.
    vecs: Vec<Vec<(u64, E)>>,
    /// Bit `b % 64` of word `b / 64` set when bucket `b`'s events are in its vector.
    in_vec: [u64; WORDS],
    /// Bit `b % 64` of word `b / 64` set when bucket `b` (not 0) has events.
    occupied: [u64; WORDS],
    len: usize,
    /// Whether an event was lost because the allocator refused room for it.
    exhausted: bool,
    /// The time popped last, or found earliest while refilling bucket 0.
    last: u64,
    now: SimTime,
    popped: u64,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            slots: Vec::new(),
            free: NIL,
            lists: [EMPTY; ENTRIES],
            vecs: (0..BUCKETS).map(|_| Vec::new()).collect(),
            in_vec: [0; WORDS],
            occupied: [0; WORDS],
            len: 0,
            exhausted: false,
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
    ///
    /// Inlined, with [`EventQueue::link`], into its callers: the time and the event then
    /// reach their slot in registers. Out of line, they were written to the stack piece by
    /// piece and read back whole, a failed store-to-load forwarding on every schedule that
    /// profiles of the wired scenarios showed.
    #[inline(always)]
    pub fn schedule(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.max(self.now).0;
        if time < self.last {
            // Only after `peek_time` looked ahead without popping.
            self.rebase(time);
        }
        let Some(i) = self.alloc(time, event) else {
            return;
        };
        self.len += 1;
        self.link(i, time);
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
        Some(self.take_first())
    }

    /// Removes the earliest event if it is due before `end`, and advances the clock to its
    /// time; otherwise leaves it pending. What a run's loop asks, in one look at bucket 0
    /// instead of [`EventQueue::peek_time`] and [`EventQueue::pop`] each looking.
    #[inline]
    pub fn pop_before(&mut self, end: SimTime) -> Option<(SimTime, E)> {
        if !self.refill() || self.last >= end.0 {
            return None;
        }
        Some(self.take_first())
    }

    /// Takes the first event of bucket 0 (which [`EventQueue::refill`] found not empty).
    #[inline(always)]
    fn take_first(&mut self) -> (SimTime, E) {
        let i = self.lists[0].head;
        let (event, next) = {
            let slot = &self.slots[i as usize];
            (slot.event, slot.next)
        };
        self.lists[0].head = next;
        if next == NIL {
            self.lists[0].tail = NIL;
        }
        self.release(i);
        self.len -= 1;
        self.popped += 1;
        self.now = SimTime(self.last);
        (self.now, event)
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

    /// Whether an event was lost because the allocator refused room for it: the run that
    /// owns the queue must stop.
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// An event that has no room (the allocator refused it) is lost: counted out, and the
    /// queue marked [`exhausted`](EventQueue::exhausted).
    #[cold]
    fn lose_one(&mut self) {
        self.exhausted = true;
        self.len -= 1;
    }

    /// Appends `(time, event)` to bucket `b`'s vector, if the allocator gives it room
    /// (else the event is lost: [`EventQueue::lose_one`]).
    #[inline(always)]
    fn push_vec(&mut self, b: usize, time: u64, event: E) {
        let v = &mut self.vecs[b];
        if v.len() == v.capacity() && !grow(v) {
            return self.lose_one();
        }
        // SAFETY: not full (`len < capacity`, as `len <= capacity` always), or grown.
        unsafe { push_reserved(v, (time, event)) };
    }

    /// A slot holding `event`, due at `time`, linked nowhere: the slot freed last, or a new
    /// one; `None` (the queue then [`exhausted`](EventQueue::exhausted)) when a new one is
    /// needed and the allocator refuses the room, or slot numbers ran out.
    #[inline(always)]
    fn alloc(&mut self, time: u64, event: E) -> Option<u32> {
        let slot = Slot {
            time,
            next: NIL,
            event,
        };
        match self.free {
            NIL => {
                let full = self.slots.len() == self.slots.capacity();
                if full && !self.grow_slots() {
                    self.exhausted = true;
                    return None;
                }
                // SAFETY: not full (`len < capacity`, as `len <= capacity` always), or grown.
                unsafe { push_reserved(&mut self.slots, slot) };
                Some((self.slots.len() - 1) as u32)
            }
            i => {
                self.free = self.slots[i as usize].next;
                self.slots[i as usize] = slot;
                Some(i)
            }
        }
    }

    /// Room for one more slot, if the allocator gives it and slot numbers (32-bit, `NIL`
    /// excluded) last.
    #[cold]
    #[inline(never)]
    fn grow_slots(&mut self) -> bool {
        self.slots.len() < NIL as usize && grow(&mut self.slots)
    }

    /// Returns slot `i` to the free list.
    #[inline(always)]
    fn release(&mut self, i: u32) {
        self.slots[i as usize].next = self.free;
        self.free = i;
    }

    /// Files slot `i`, due at `time` and linked nowhere, in its bucket relative to `last`
    /// (which is not after `time`): appended to the bucket's list, or to its vector (then
    /// the slot is freed) when it is one or [`VEC_PENDING`] events are pending.
    #[inline(always)]
    fn link(&mut self, i: u32, time: u64) {
        self.link_as::<true>(i, time);
    }

    /// [`EventQueue::link`], where `VEC` false says that the bucket is known to be a list
    /// (fewer than [`VEC_PENDING`] pending, and the bucket not a vector).
    #[inline(always)]
    fn link_as<const VEC: bool>(&mut self, i: u32, time: u64) {
        let b = match time ^ self.last {
            0 => 0,
            x => {
                let b = Self::bucket(time, x);
                let (w, bit) = Self::bit(b);
                self.occupied[w] |= bit;
                if VEC && (self.len >= VEC_PENDING || self.in_vec[w] & bit != 0) {
                    return self.file_in_vec(b, i);
                }
                b
            }
        };
        let list = &mut self.lists[b];
        match list.tail {
            NIL => list.head = i,
            t => self.slots[t as usize].next = i,
        }
        list.tail = i;
    }

    /// The bucket (not 0, below [`ENTRIES`]) of `time`, where `x`, not 0, is `time ^ last`.
    #[inline(always)]
    fn bucket(time: u64, x: u64) -> usize {
        let (first, shift) = LEVELS[63 - x.leading_zeros() as usize];
        (first as usize + ((time >> shift) as usize & (RADIX - 1))) & (ENTRIES - 1)
    }

    /// The word and the bit of bucket `b` in the bitmaps.
    #[inline(always)]
    fn bit(b: usize) -> (usize, u64) {
        ((b / 64) & (WORDS - 1), 1 << (b % 64))
    }

    /// Appends slot `i`'s event to bucket `b`'s vector (moving the bucket's list there
    /// first if it has one), and frees the slot.
    #[inline(never)]
    fn file_in_vec(&mut self, b: usize, i: u32) {
        let list = std::mem::replace(&mut self.lists[b], EMPTY);
        let (w, bit) = Self::bit(b);
        self.in_vec[w] |= bit;
        let mut j = list.head;
        while j != NIL {
            let slot = &self.slots[j as usize];
            let (next, time, event) = (slot.next, slot.time, slot.event);
            self.push_vec(b, time, event);
            self.release(j);
            j = next;
        }
        let slot = &self.slots[i as usize];
        let (time, event) = (slot.time, slot.event);
        self.push_vec(b, time, event);
        self.release(i);
    }

    /// Makes bucket 0 hold the earliest events; returns `false` if the queue is empty.
    #[inline(always)]
    fn refill(&mut self) -> bool {
        self.lists[0].head != NIL || self.refill_from_buckets()
    }

    /// [`EventQueue::refill`] when bucket 0 is empty.
    #[inline(never)]
    fn refill_from_buckets(&mut self) -> bool {
        loop {
            if self.lists[0].head != NIL {
                return true;
            }
            let Some(b) = self.first_occupied() else {
                return false;
            };
            let (w, bit) = Self::bit(b);
            self.occupied[w] &= !bit;
            let list = std::mem::replace(&mut self.lists[b], EMPTY);
            if self.in_vec[w] & bit != 0 {
                self.in_vec[w] &= !bit;
                self.move_vec_down(b);
            } else if list.head == list.tail {
                // The common case: one event, which becomes bucket 0.
                self.last = self.slots[list.head as usize].time;
                self.lists[0] = list;
                return true;
            } else {
                self.move_list_down(list.head);
                return true;
            }
        }
    }

    /// The earliest time bucket `b` (not 0, the first non-empty one) can hold: `last` with
    /// the digit of `b`'s level replaced by `b`'s and the digits below it cleared. Not
    /// before `last` (`b`'s digit is above `last`'s) and not after any event pending.
    fn floor(&self, b: usize) -> u64 {
        let level = ((b - 1) / RADIX) as u32;
        let digit = ((b - 1) % RADIX) as u64;
        let shift = level * DIGIT_BITS;
        let above = shift + DIGIT_BITS;
        let high = if above >= 64 {
            0
        } else {
            self.last >> above << above
        };
        high | digit << shift
    }

    /// Files the events of the list starting at `first` (a bucket just emptied, the first
    /// non-empty one) again, relative to the earliest of their times, which becomes `last`.
    /// In list order, so that events due at the same time keep their order.
    #[inline(never)]
    fn move_list_down(&mut self, first: u32) {
        let mut earliest = u64::MAX;
        let mut i = first;
        while i != NIL {
            let slot = &self.slots[i as usize];
            earliest = earliest.min(slot.time);
            i = slot.next;
        }
        self.last = earliest;
        // The events go to buckets below the one they left, which were empty and so not
        // vectors: with fewer than `VEC_PENDING` pending, all of them are lists.
        let lists_only = self.len < VEC_PENDING;
        let mut i = first;
        while i != NIL {
            let slot = &mut self.slots[i as usize];
            let (next, time) = (slot.next, slot.time);
            slot.next = NIL;
            if lists_only {
                self.link_as::<false>(i, time);
            } else {
                self.link(i, time);
            }
            i = next;
        }
    }

    /// Files the events of bucket `b`'s vector (the first non-empty bucket) again, like
    /// [`EventQueue::move_list_down`], keeping the vector's capacity. With
    /// [`VEC_PENDING`] or more pending, those bound for the lowest [`LIST_LEVELS`] go to
    /// lists and the others straight to vectors (no slot in between).
    #[inline(never)]
    fn move_vec_down(&mut self, b: usize) {
        let mut from = std::mem::take(&mut self.vecs[b]);
        self.last = self.floor(b);
        if self.len >= VEC_PENDING {
            for (time, event) in from.drain(..) {
                let x = time ^ self.last;
                if x < 1 << (LIST_LEVELS * DIGIT_BITS) {
                    match self.alloc(time, event) {
                        Some(i) => self.link_as::<false>(i, time),
                        None => self.lose_one(),
                    }
                } else {
                    let c = Self::bucket(time, x);
                    let (w, bit) = Self::bit(c);
                    self.occupied[w] |= bit;
                    self.in_vec[w] |= bit;
                    self.push_vec(c, time, event);
                }
            }
        } else {
            for (time, event) in from.drain(..) {
                match self.alloc(time, event) {
                    Some(i) => self.link(i, time),
                    None => self.lose_one(),
                }
            }
        }
        self.vecs[b] = from;
    }

    /// The lowest non-empty bucket (other than 0), if any.
    fn first_occupied(&self) -> Option<usize> {
        self.occupied
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| (i * 64 + w.trailing_zeros() as usize) & (ENTRIES - 1))
    }

    /// Files every event again relative to an earlier `last` (`time`, which is not before
    /// `now`): needed when an event is scheduled before the time a `peek_time` found.
    /// Buckets are visited in order (bucket 0's events, due at the old `last`, first), so
    /// events due at the same time keep their order.
    #[cold]
    #[inline(never)]
    fn rebase(&mut self, time: u64) {
        let mut all: Vec<(u64, E)> = Vec::new();
        if all.try_reserve_exact(self.len).is_err() {
            // Every event is kept where it is; the run stops at its next check.
            self.exhausted = true;
            return;
        }
        for b in 0..BUCKETS {
            let mut i = std::mem::replace(&mut self.lists[b], EMPTY).head;
            while i != NIL {
                let slot = &self.slots[i as usize];
                let next = slot.next;
                all.push((slot.time, slot.event));
                self.release(i);
                i = next;
            }
            all.append(&mut self.vecs[b]);
        }
        self.occupied = [0; WORDS];
        self.in_vec = [0; WORDS];
        self.last = time;
        for (t, e) in all {
            match self.alloc(t, e) {
                Some(i) => self.link(i, t),
                None => self.lose_one(),
            }
        }
    }
}

/// Room for at least one more element in the full vector `v`, if the allocator gives it:
/// `try_reserve(1)`, which grows the capacity geometrically (at least doubling it), so that
/// this runs once per reallocation.
#[cold]
#[inline(never)]
fn grow<T>(v: &mut Vec<T>) -> bool {
    v.try_reserve(1).is_ok()
}

/// Appends `x` to `v`, which has room for it.
///
/// # Safety
///
/// `v.len() < v.capacity()`: the caller found the vector not full, or [`grow`] succeeded.
#[inline(always)]
unsafe fn push_reserved<T>(v: &mut Vec<T>, x: T) {
    let n = v.len();
    debug_assert!(n < v.capacity(), "room reserved ahead");
    // SAFETY: slot `n` lies within the allocation (`n < capacity`, the caller's promise)
    // and is not initialized (`n` is the length); writing it and then counting it in the
    // length is what `Vec::push` does once it has room.
    unsafe {
        v.as_mut_ptr().add(n).write(x);
        v.set_len(n + 1);
    }
}

#[cfg(test)]
mod tests;
