//! The queue against a sort by (time, insertion order): fixed cases, vector buckets, digit
//! boundaries and random interleavings of schedules, looks ahead and pops.

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

/// `pop_before(end)` takes only events due before `end` (not at it), leaves the rest
/// pending in order, and does not move the clock when it takes none.
#[test]
fn pop_before_stops_at_the_end() {
    let mut q = EventQueue::new();
    q.schedule(SimTime(20), "b");
    q.schedule(SimTime(10), "a");
    q.schedule(SimTime(20), "c");
    assert_eq!(q.pop_before(SimTime(20)), Some((SimTime(10), "a")));
    assert_eq!(q.pop_before(SimTime(20)), None);
    assert_eq!((q.now(), q.len()), (SimTime(10), 2));
    assert_eq!(q.pop_before(SimTime(21)), Some((SimTime(20), "b")));
    assert_eq!(q.pop(), Some((SimTime(20), "c")));
    assert_eq!(q.pop_before(SimTime::MAX), None);
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

/// Buckets filed as vectors (more than `VEC_PENDING` pending) and as lists again as the
/// queue drains, many events due at the same times, and pops interleaved: the order of
/// a sort by (time, insertion order).
#[test]
fn large_buckets_keep_the_order() {
    let mut q = EventQueue::new();
    let mut reference = std::collections::BTreeSet::new();
    for n in 0..VEC_PENDING + 20_000 {
        // 100 distinct due times 1 µs apart, 1 ms ahead: a few buckets, many events each.
        let at = q.now().0 + 1_000_000 + (n as u64 * 7919 % 100) * 1000;
        q.schedule(SimTime(at), n);
        reference.insert((at, n));
        if n > VEC_PENDING && n % 4 == 3 {
            let expected = reference.pop_first();
            assert_eq!(q.pop().map(|(t, e)| (t.0, e)), expected);
        }
    }
    let rest: Vec<_> = std::iter::from_fn(|| q.pop())
        .map(|(t, e)| (t.0, e))
        .collect();
    assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
}

/// Above `VEC_PENDING` pending and back below: vector buckets moving down relative to
/// their floor (events due at it or not, some to lists of the lowest level, which later
/// schedules turn into vectors), ties, looks ahead followed by earlier schedules, and
/// times near `u64::MAX`: the order of a sort by (time, insertion order).
#[test]
fn vector_moves_keep_the_order() {
    let mut q = EventQueue::new();
    let mut reference = std::collections::BTreeSet::new();
    let mut x = 1u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // Insertion numbers, the events.
    let mut seq = 0usize;
    for n in 0..3 * VEC_PENDING {
        let r = next();
        let now = q.now().0;
        let at = match r % 8 {
            // The same few instants, far and near.
            0 => (now | 0xffff) + 1,
            1 => now + (r >> 3) % 64,
            2 => now,
            3 => u64::MAX - (r >> 3) % 3,
            _ => now + (r >> 3) % (1 << (6 * (r % 5) + 6)),
        };
        q.schedule(SimTime(at), seq);
        reference.insert((at, seq));
        seq += 1;
        // Grow past `VEC_PENDING`, then drain below it; the times near `u64::MAX` are
        // popped last, with the rest.
        let pops = match n < 2 * VEC_PENDING {
            true => (n % 3 == 0) as usize,
            false => 2,
        };
        for _ in 0..pops {
            if reference.first().is_some_and(|e| e.0 < u64::MAX / 2) {
                // Rarely: each files every event again.
                if r % 509 == 0 {
                    let peeked = q.peek_time();
                    assert_eq!(peeked, reference.first().map(|e| SimTime(e.0)));
                    if let Some(t) = peeked {
                        // Before the time found, after the present.
                        let at = q.now().0 + (t.0 - q.now().0) / 2;
                        q.schedule(SimTime(at), seq);
                        reference.insert((at, seq));
                        seq += 1;
                    }
                }
                let expected = reference.pop_first();
                assert_eq!(q.pop().map(|(t, e)| (t.0, e)), expected);
            }
        }
        assert_eq!(q.len(), reference.len());
    }
    let rest: Vec<_> = std::iter::from_fn(|| q.pop())
        .map(|(t, e)| (t.0, e))
        .collect();
    assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
}

proptest! {
    /// Due times from 2 before to 2 after the boundaries of every digit level (where an
    /// event's level changes): a delay of 2^shift, or the next multiple of 2^shift, with
    /// `last` itself crossing such boundaries as events pop: the order of a sort by
    /// (time, insertion order).
    #[test]
    fn digit_boundaries_keep_the_order(
        ops in prop::collection::vec((0u8..3, 0..64u32.div_ceil(DIGIT_BITS), 0u64..5), 1..300)
    ) {
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        for (n, (op, level, offset)) in ops.into_iter().enumerate() {
            if op == 0 {
                let expected = reference.pop_first();
                prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), expected);
            } else {
                let shift = level * DIGIT_BITS;
                let now = q.now().0;
                let near = if op == 1 {
                    now.saturating_add(1 << shift)
                } else {
                    ((now >> shift) + 1) << shift
                };
                let at = near.saturating_add(offset).saturating_sub(2).max(now);
                q.schedule(SimTime(at), n);
                reference.insert((at, n));
            }
        }
        let rest: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, e)| (t.0, e)).collect();
        prop_assert_eq!(rest, reference.into_iter().collect::<Vec<_>>());
    }

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
