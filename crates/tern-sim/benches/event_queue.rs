//! The bare event queue: the "hold" model (pop the earliest event, push one a
//! random time later) with 1 k, 100 k and 1 M events pending. One iteration is one
//! pop plus one push, so events/s = 1 / (time per iteration).
//!
//! `event_queue_hold` is Tern's queue; `binary_heap_hold` is the same work on
//! `std::collections::BinaryHeap` keyed by (time, insertion number), the queue Tern
//! used before, as a reference measured in the same sitting.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use tern_sim::engine::{EventQueue, RngStream, SimTime};

const PENDING: [u64; 3] = [1_000, 100_000, 1_000_000];

/// A random delay of up to 1 ms, in nanoseconds.
fn delay(rng: &mut RngStream) -> u64 {
    1 + rng.next_u64() % 1_000_000
}

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue_hold");
    for pending in PENDING {
        let mut rng = RngStream::new(1, "bench");
        let mut q: EventQueue<u64> = EventQueue::new();
        for i in 0..pending {
            q.schedule(SimTime(delay(&mut rng)), i);
        }
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::from_parameter(pending), &pending, |b, _| {
            b.iter(|| {
                let (t, e) = q.pop().expect("queue never empties");
                q.schedule(t + SimTime(delay(&mut rng)), black_box(e));
            })
        });
    }
    group.finish();
}

fn binary_heap(c: &mut Criterion) {
    let mut group = c.benchmark_group("binary_heap_hold");
    for pending in PENDING {
        let mut rng = RngStream::new(1, "bench");
        let mut q: BinaryHeap<Reverse<(u64, u64, u64)>> = BinaryHeap::new();
        for i in 0..pending {
            q.push(Reverse((delay(&mut rng), i, i)));
        }
        let mut seq = pending;
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::from_parameter(pending), &pending, |b, _| {
            b.iter(|| {
                let Reverse((t, _, e)) = q.pop().expect("queue never empties");
                q.push(Reverse((t + delay(&mut rng), seq, black_box(e))));
                seq += 1;
            })
        });
    }
    group.finish();
}

criterion_group!(benches, hold, binary_heap);
criterion_main!(benches);
