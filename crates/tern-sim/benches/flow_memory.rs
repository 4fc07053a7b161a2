//! Heap bytes per flow of a world with many flows, counted by a global allocator that
//! wraps the system one and keeps the bytes live and their peak:
//! `cargo bench -p tern-sim --bench flow_memory -- FILE...` (for instance the dumbbells
//! of `benches/make_dumbbell.py` with 10 to 10 000 flows).
//!
//! For each scenario (run without traces, `record=[]`): the heap the world holds once
//! built, and the most it holds while running, both divided by the number of flows. The
//! process's peak resident memory (what `examples/run` prints) also counts the parsed
//! scenario file and the summary written at the end; this counts the world alone.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

fn grew(by: u64) {
    let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size() as u64);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size() as u64, Ordering::Relaxed);
        grew(new_size as u64);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn main() {
    // `cargo bench` passes `--bench`; every other argument is a scenario file.
    for path in std::env::args().skip(1).filter(|a| !a.starts_with("--")) {
        let text = std::fs::read_to_string(&path).expect("readable scenario file");
        let overrides = [("record".to_owned(), "[]".to_owned())];
        let scenario = tern_sim::load(&path, &text, &overrides, None).expect("scenario loads");
        let flows = scenario.flows.len() as f64;
        let before = LIVE.load(Ordering::Relaxed);
        let world = tern_sim::World::build(&scenario);
        let built = LIVE.load(Ordering::Relaxed) - before;
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let out = world.run(&mut |_| true).expect("run completes");
        let peak = PEAK.load(Ordering::Relaxed) - before;
        println!(
            "{path}: {flows} flows, world built {:.0} B per flow, at most {:.0} B per flow \
             while running ({} events)",
            built as f64 / flows,
            peak as f64 / flows,
            out.summary.events
        );
    }
}
