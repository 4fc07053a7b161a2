//! The heap of a run: the system allocator, asking Linux for transparent huge pages
//! (2 MiB) for the memory it grows into.
//!
//! With many flows, nearly every packet reads per-flow state (the connection, its
//! scoreboard, the flow, its interfaces and devices) that no other packet touched since,
//! spread over tens of MiB at 1 000 flows and hundreds at 10 000. With 4 KiB pages each
//! of those reads also misses the TLB, and in a virtual machine a TLB miss walks two page
//! tables. Huge pages cover that memory with 512 times fewer TLB entries. The kernel gives
//! them only to memory marked `MADV_HUGEPAGE` when `/sys/kernel/mm/transparent_hugepage/
//! enabled` is `madvise` (the usual default); glibc marks its own heap only when started
//! with `GLIBC_TUNABLES=glibc.malloc.hugetlb=1`, which a library cannot set. So this
//! allocator does what that tunable does (glibc `malloc/malloc.c`, `madvise_thp`): it
//! makes the heap grow by 32 MiB (`GROWTH`) at a time (`M_TOP_PAD`) and marks every new
//! stretch of it, and every block large enough to hold a huge page, before they are first
//! written. (The tunable also rounds each growth to a huge page; a library cannot, so the
//! heap grows in large steps instead, of which only the partial pages at either end miss
//! out.)
//!
//! glibc's allocator is kept rather than replaced: it lays out the objects of one flow,
//! allocated one after the other when the world is built, next to each other, which a
//! size-class allocator (mimalloc was measured) does not. Measured in benches/RESULTS.md
//! ("Huge pages for the heap").
//!
//! Only glibc's main heap (the one `brk` grows, which the main thread allocates from) and
//! large blocks are marked: a thread other than the main one allocates small blocks from
//! one of glibc's per-thread arenas, which stay as they are. A run goes on the thread that
//! calls it: the main thread of `tern run`, of `examples/run` and of a sweep's worker
//! process. Elsewhere than Linux with glibc this is the system allocator unchanged. The binaries
//! that run worlds (the Python extension, `examples/run`) install it with
//! `#[global_allocator]`; the library itself does not, so that benches can count
//! allocations with their own.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with transparent huge pages for the memory it grows into.
pub struct HugePageHeap;

// SAFETY: every call is forwarded unchanged to the system allocator; what is added only
// gives the kernel advice about memory the allocator already owns (see `advise`). Not
// inlined, as the system allocator's entry points are not: inlined into every caller that
// may allocate, they made the packet path's functions larger (2-3 % more instructions on
// p2p bulk, measured with callgrind) although it allocates nothing.
unsafe impl GlobalAlloc for HugePageHeap {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        thp::before_alloc();
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.alloc(layout) };
        thp::after_alloc(p, layout.size());
        p
    }

    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        thp::before_alloc();
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.alloc_zeroed(layout) };
        thp::after_alloc(p, layout.size());
        p
    }

    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        thp::before_alloc();
        // SAFETY: the caller's contract, forwarded.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        thp::after_alloc(p, new_size);
        p
    }

    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, forwarded.
        unsafe { System.dealloc(ptr, layout) };
        thp::after_free();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod thp {
    use nix::libc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The size of a transparent huge page on x86-64 and on arm64 with 4 KiB pages.
    const HUGE: usize = 2 << 20;
    /// How much the heap grows by at least: each growth starts and ends inside a huge
    /// page, which was touched before or will be only in part, so of 32 MiB at least
    /// 30 MiB (15 whole pages) can be huge. Memory reserved this way but not written
    /// costs address space only.
    const GROWTH: usize = 32 << 20;

    extern "C" {
        /// glibc's `sbrk`; `sbrk(0)` returns the heap's end without a system call once
        /// the heap exists (the `libc` crate does not declare it for Linux).
        fn sbrk(increment: libc::intptr_t) -> *mut libc::c_void;
    }

    /// The end of the heap up to which it has been marked; 0 until the first allocation.
    static MARKED_TO: AtomicUsize = AtomicUsize::new(0);

    fn heap_end() -> usize {
        // SAFETY: `sbrk(0)` only reads the current program break.
        unsafe { sbrk(0) as usize }
    }

    /// On the first allocation: the heap grows by at least `GROWTH` at a time, and what
    /// it held before is left as it was.
    pub fn before_alloc() {
        if MARKED_TO.load(Ordering::Relaxed) == 0 {
            // SAFETY: `mallopt` sets a tuning parameter of glibc's allocator; no
            // allocation is under way in this thread here.
            unsafe { libc::mallopt(libc::M_TOP_PAD, GROWTH as libc::c_int) };
            let _ = MARKED_TO.compare_exchange(0, heap_end(), Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// After an allocation of `size` bytes at `p`: marks what the heap grew by, and the
    /// huge pages that fit in a block glibc mapped on its own (large blocks).
    pub fn after_alloc(p: *mut u8, size: usize) {
        let end = heap_end();
        let marked = MARKED_TO.fetch_max(end, Ordering::Relaxed);
        if end > marked {
            advise(marked, end);
        }
        if !p.is_null() && size >= 2 * HUGE {
            advise(p as usize, p as usize + size);
        }
    }

    /// After a free, which may have shrunk the heap: what it grows into again is new
    /// memory, to be marked again.
    pub fn after_free() {
        let end = heap_end();
        if end < MARKED_TO.load(Ordering::Relaxed) {
            MARKED_TO.store(end, Ordering::Relaxed);
        }
    }

    /// Marks the whole huge pages inside `[start, end)` `MADV_HUGEPAGE`.
    fn advise(start: usize, end: usize) {
        let from = start.next_multiple_of(HUGE);
        let to = end & !(HUGE - 1);
        if to > from {
            // SAFETY: the range lies inside memory the allocator owns (the heap, or a
            // block it returned); MADV_HUGEPAGE only sets how the kernel backs it and
            // changes no content. A failure (THP disabled) is advice not taken.
            unsafe { libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE) };
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod thp {
    pub fn before_alloc() {}
    pub fn after_alloc(_: *mut u8, _: usize) {}
    pub fn after_free() {}
}
