//! Runs a scenario file and prints its summary, events/s and packets/s:
//! `cargo run --release -p tern-sim --example run -- FILE [KEY=VALUE ...]`.

use std::time::Instant;

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
    let out = tern_sim::World::build(&scenario)
        .run(&mut |_| true)
        .expect("not interrupted");
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
        for (name, bytes) in &out.captures {
            println!("capture {name} bytes {}", bytes.len());
        }
    }
    eprintln!(
        "wall {wall:.3} s, {} events ({:.0} events/s), {hops} link transmissions ({:.0} packets/s), peak RSS {:.1} MiB",
        out.summary.events,
        out.summary.events as f64 / wall,
        hops as f64 / wall,
        peak_kib as f64 / 1024.0
    );
}

/// FNV-1a over a table's columns (names, values, labels): equal digests mean equal tables.
fn digest(t: &tern_sim::trace::Table) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for c in &t.columns {
        eat(c.name.as_bytes());
        match &c.data {
            tern_sim::trace::ColumnData::F64(v) => {
                v.iter().for_each(|x| eat(&x.to_bits().to_le_bytes()))
            }
            tern_sim::trace::ColumnData::U64(v) => v.iter().for_each(|x| eat(&x.to_le_bytes())),
            tern_sim::trace::ColumnData::Text { codes, labels } => {
                codes.iter().for_each(|x| eat(&x.to_le_bytes()));
                labels.iter().for_each(|l| eat(l.as_bytes()));
            }
        }
    }
    h
}
