//! Heap allocations per packet on the point-to-point TCP path, counted by a global
//! allocator that wraps the system one: `cargo bench -p tern-sim --bench allocs`.
//!
//! Runs `scenarios/examples/p2p-bulk.toml` without traces (`record=[]`, so the trace
//! tables' growth is not counted) for two durations and prints the allocations made
//! while the world runs (building it excluded), per packet created, for each run and
//! at the margin between them: the margin leaves out what a run allocates once (buffers
//! growing to their working size), so it is the cost of one more packet.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting calls to `alloc` and `realloc`.
struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations while running the scenario for `duration`, and the packets it created.
fn count(path: &str, text: &str, duration: &str) -> (u64, u64) {
    let overrides = [
        ("sim.duration".to_owned(), duration.to_owned()),
        ("record".to_owned(), "[]".to_owned()),
    ];
    let scenario = tern_sim::load(path, text, &overrides, None).expect("scenario loads");
    let world = tern_sim::World::build(&scenario);
    let before = ALLOCS.load(Ordering::Relaxed);
    let out = world.run(&mut |_| true).expect("run completes");
    let allocs = ALLOCS.load(Ordering::Relaxed) - before;
    (allocs, out.summary.packets)
}

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/examples/p2p-bulk.toml"
    );
    let text = std::fs::read_to_string(path).expect("readable scenario");
    let (a1, p1) = count(path, &text, "30s");
    let (a2, p2) = count(path, &text, "60s");
    for (d, a, p) in [("30 s", a1, p1), ("60 s", a2, p2)] {
        println!(
            "p2p-bulk {d}: {a} allocations during the run, {p} packets, {:.4} per packet",
            a as f64 / p as f64
        );
    }
    println!(
        "margin 30 s -> 60 s: {} allocations for {} more packets, {:.4} per packet",
        a2 - a1,
        p2 - p1,
        (a2 - a1) as f64 / (p2 - p1) as f64
    );
}
