//! The bare event queue: the "hold" model (pop the earliest event, push one a
//! random time later) with 1 k and 100 k events pending. One iteration is one
//! pop plus one push, so events/s = 1 / (time per iteration).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tern_sim::engine::{EventQueue, RngStream, SimTime};

fn hold(c: &mut Criterion) {
    let mut group = c.benchmark_group("event_queue_hold");
    for pending in [1_000u64, 100_000] {
        let mut rng = RngStream::new(1, "bench");
        let mut q: EventQueue<u64> = EventQueue::new();
        for i in 0..pending {
            q.schedule(SimTime(rng.next_u64() % 1_000_000), i);
        }
        group.throughput(Throughput::Elements(1));
        group.bench_with_input(BenchmarkId::from_parameter(pending), &pending, |b, _| {
            b.iter(|| {
                let (t, e) = q.pop().expect("queue never empties");
                q.schedule(t + SimTime(1 + rng.next_u64() % 1_000_000), black_box(e));
            })
        });
    }
    group.finish();
}

criterion_group!(benches, hold);
criterion_main!(benches);
