//! `tern_sim::heap::HugePageHeap` marks for transparent huge pages the heap's growth and
//! the blocks glibc maps on its own, as `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` would.
//!
//! Without the test harness (`harness = false`): the harness runs each test on a thread of
//! its own, whose small allocations come from one of glibc's per-thread arenas rather than
//! the heap. The kernel's record of the advice is the `hg` flag of the mapping in
//! `/proc/self/smaps` (proc(5)).

use std::hint::black_box;

#[global_allocator]
static HEAP: tern_sim::heap::HugePageHeap = tern_sim::heap::HugePageHeap;

/// The `VmFlags` of the mapping of `/proc/self/smaps` that holds `addr`.
fn vm_flags(addr: usize) -> String {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("readable smaps");
    let mut inside = false;
    for line in smaps.lines() {
        if let Some((range, _)) = line.split_once(' ') {
            if let Some((lo, hi)) = range.split_once('-') {
                if let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                {
                    inside = (lo..hi).contains(&addr);
                    continue;
                }
            }
        }
        if inside {
            if let Some(flags) = line.strip_prefix("VmFlags:") {
                return flags.trim().to_owned();
            }
        }
    }
    panic!("no mapping holds {addr:#x}");
}

fn main() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        println!("heap: not Linux with glibc, where HugePageHeap is the system allocator; nothing to check");
        return;
    }
    if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
        println!("heap: this kernel has no transparent huge pages; nothing to check");
        return;
    }
    // 8 MiB in one block: glibc maps it apart from the heap.
    let large = black_box(vec![1u8; 8 << 20]);
    let flags = vm_flags(large.as_ptr() as usize + (4 << 20));
    assert!(
        flags.split(' ').any(|f| f == "hg"),
        "large block not marked: {flags}"
    );
    // 48 MiB in blocks of 1 000 B: the heap grows at least once past its first 32 MiB.
    let small: Vec<Box<[u8; 1000]>> = (0..48_000).map(|i| Box::new([i as u8; 1000])).collect();
    let probe = &*small[40_000] as *const [u8; 1000] as usize;
    let flags = vm_flags(probe);
    assert!(
        flags.split(' ').any(|f| f == "hg"),
        "heap growth not marked: {flags}"
    );
    black_box(&small);
    println!("heap: large block and heap growth marked for huge pages: ok");
}
