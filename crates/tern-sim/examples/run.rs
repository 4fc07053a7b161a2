//! Runs a scenario file and prints its summary, events/s and packets/s:
//! `cargo run --release -p tern-sim --example run -- FILE [KEY=VALUE ...]`. The wall time is
//! that of `World::run` (like ns-3's `Simulator::Run()`); building the world is timed apart.
//!
//! `TERN_DIGEST=1` prints a digest of each trace table kept in memory; `TERN_TRACE_DIR=DIR`
//! writes the traces to `DIR/<table>.parquet` as the run goes instead.

use std::time::Instant;

/// The allocator the Python extension installs too, so that times here are the product's.
#[global_allocator]
static HEAP: tern_sim::heap::HugePageHeap = tern_sim::heap::HugePageHeap;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run FILE [KEY=VALUE ...]");
        std::process::exit(2);
    };
    let overrides: Vec<(String, String)> = args
        .map(|a| {
            let (k, v) = a.split_once('=').expect("overrides are KEY=VALUE");
            (k.to_owned(), v.to_owned())
        })
        .collect();
    let text = std::fs::read_to_string(&path).expect("readable scenario file");
    let scenario = match tern_sim::load(&path, &text, &overrides, None) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let started = Instant::now();
    let mut world = tern_sim::World::build(&scenario);
    let built = started.elapsed().as_secs_f64();
    let started = Instant::now();
    if let Some(dir) = std::env::var_os("TERN_TRACE_DIR") {
        let config = tern_sim::trace::TraceConfig {
            dir: Some(dir.into()),
            ..Default::default()
        };
        world.trace_to(&config).unwrap_or_else(|e| panic!("{e}"));
    }
    let out = world.run(&mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let wall = started.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::to_string_pretty(&out.summary).expect("json")
    );
    let hops: u64 = out
        .summary
        .links
        .values()
        .flat_map(|d| d.values())
        .map(|c| c.tx_packets)
        .sum();
    // Peak resident memory of this process (Linux: VmHWM in /proc/self/status).
    let peak_kib = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<u64>().ok())
            })
        })
        .unwrap_or(0);
    if std::env::var_os("TERN_DIGEST").is_some() {
        for t in &out.tables {
            println!(
                "table {} rows {} digest {:016x}",
                t.name,
                t.rows(),
                digest(t)
            );
        }
        for file in &out.trace_files {
            println!("file {}", file.display());
        }
        for (name, bytes) in &out.captures {
            println!("capture {name} bytes {}", bytes.len());
        }
    }
    eprintln!(
        "wall {wall:.4} s, {} events ({:.0} events/s), {hops} link transmissions ({:.0} packets/s), peak RSS {:.1} MiB, traces held {:.1} MiB at most, world built in {built:.4} s",
        out.summary.events,
        out.summary.events as f64 / wall,
        hops as f64 / wall,
        peak_kib as f64 / 1024.0,
        out.trace_peak_bytes as f64 / f64::from(1 << 20)
    );
}

/// FNV-1a over a table's columns (names, values, labels): equal digests mean equal tables.
/// A null is digested as the placeholder it replaced (0 in `retransmits`; elsewhere NaN in
/// float columns, `u64::MAX` in integer ones, "" in text ones), so that digests compare
/// with runs from before nulls.
fn digest(t: &tern_sim::trace::Table) -> u64 {
    let zero = t.name == "retransmits";
    let (null_f64, null_u64) = if zero { (0.0, 0) } else { (f64::NAN, u64::MAX) };
    use tern_sim::trace::ColumnData;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for c in &t.columns {
        eat(c.name.as_bytes());
        let valid = |i: usize| c.is_valid(i);
        match &c.data {
            ColumnData::F64(v) => v.iter().enumerate().for_each(|(i, x)| {
                let x = if valid(i) { *x } else { null_f64 };
                eat(&x.to_bits().to_le_bytes())
            }),
            ColumnData::U64(v) => v.iter().enumerate().for_each(|(i, x)| {
                let x = if valid(i) { *x } else { null_u64 };
                eat(&x.to_le_bytes())
            }),
            ColumnData::Text { codes, labels } => {
                // Before nulls, "" was a label like any other, coded in order of first use.
                let mut old: Vec<String> = Vec::new();
                let mut code = |s: &str| match old.iter().position(|l| *l == s) {
                    Some(i) => i as u32,
                    None => {
                        old.push(s.to_owned());
                        old.len() as u32 - 1
                    }
                };
                let recoded: Vec<u32> = (0..codes.len())
                    .map(|i| {
                        if valid(i) {
                            code(&labels[codes[i] as usize])
                        } else {
                            code("")
                        }
                    })
                    .collect();
                recoded.iter().for_each(|x| eat(&x.to_le_bytes()));
                old.iter().for_each(|l| eat(l.as_bytes()));
            }
        }
    }
    h
}
