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
    let scenario = match tern_sim::scenario::load(&path, &text, &overrides, None) {
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
    eprintln!(
        "wall {wall:.3} s, {} events ({:.0} events/s), {hops} link transmissions ({:.0} packets/s), peak RSS {:.1} MiB",
        out.summary.events,
        out.summary.events as f64 / wall,
        hops as f64 / wall,
        peak_kib as f64 / 1024.0
    );
}
