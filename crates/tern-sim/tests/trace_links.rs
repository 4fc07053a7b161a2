//! Trace-driven link directions against the trace itself and against mahimahi's `mm-link`
//! (src/frontend/link_queue.cc, `LinkQueue::rationalize` and `read_packet`), restated
//! here as mm-link runs it: arrivals stamped in whole milliseconds, each stamp first using
//! every opportunity up to it, then queueing the packet.

mod common;
use common::*;
use std::collections::{BTreeMap, VecDeque};

/// mahimahi's `PACKET_SIZE`, and the IP size of a UDP datagram of 1476 B.
const OPPORTUNITY: u64 = 1504;
/// IPv4 (20 B) + UDP (8 B) headers.
const HDR: u64 = 28;

/// A trace of `ms` milliseconds with gaps, single and double opportunities.
fn irregular(ms: u64) -> Vec<u64> {
    let mut v = Vec::new();
    for m in 1..=ms {
        match (m * 7) % 10 {
            0..=4 => v.push(m),
            5 => v.extend([m, m]),
            _ => {}
        }
    }
    v
}

fn write_trace(name: &str, times: &[u64]) -> String {
    let path = std::env::temp_dir().join(format!("tern-{}-{name}", std::process::id()));
    let text: String = times.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

fn scenario(file: &str, duration: &str, flows: &str) -> String {
    format!(
        r#"
record = ["delay", "drops"]
[sim]
duration = "{duration}"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "l"
ends = ["a", "b"]
delay = "10ms"
mtu = "1504B"
queue = {{ kind = "droptail", limit = "100000pkt" }}
trace = {{ kind = "mahimahi", file = "{file}" }}
{flows}
"#
    )
}

fn ns(t: f64) -> u64 {
    (t * 1e9).round() as u64
}

/// The instant (ms) of opportunity `n` of a repeating trace (period: its last instant).
fn time_of(times: &[u64], n: usize) -> u64 {
    (n / times.len()) as u64 * times.last().unwrap() + times[n % times.len()]
}

/// A saturated link delivers exactly one 1504 B packet per opportunity: the packets
/// arrive at the opportunities' instants plus the delay, so the bytes delivered in each
/// second are 1504 B times the opportunities in it (the trace repeats every 1000 ms, so
/// each second has the same count).
#[test]
fn a_saturated_trace_delivers_the_bytes_of_its_opportunities() {
    let times = irregular(1000);
    let file = write_trace("saturated.down", &times);
    let flows = r#"
[[flows]]
name = "f"
from = "a"
to = "b"
app = { kind = "cbr", rate = "20Mbps", size = "1476B" }
start = "0.2s"
stop = "4.8s"
"#;
    let out = same_runs(&scenario(&file, "5s", flows));
    let t = table(&out, "delay");
    let arrivals: Vec<u64> = f64s(t, "time").into_iter().map(ns).collect();
    assert!(u64s(t, "size").iter().all(|&s| s + HDR == OPPORTUNITY));
    // From 1 s to 4 s the queue never empties (20 Mbit/s offered, 8.4 on average served).
    let window = |t: u64| (1_000_000_000..4_000_000_000).contains(&t);
    let got: Vec<u64> = arrivals
        .iter()
        .map(|&t| t - 10_000_000)
        .filter(|&t| window(t))
        .collect();
    let expected: Vec<u64> = (0..)
        .map(|n| time_of(&times, n) * 1_000_000)
        .skip_while(|&t| !window(t))
        .take_while(|&t| window(t))
        .collect();
    assert_eq!(got, expected);
    let mut per_second: BTreeMap<u64, u64> = BTreeMap::new();
    for t in got {
        *per_second.entry(t / 1_000_000_000).or_default() += OPPORTUNITY;
    }
    let per_period = times.len() as u64 * OPPORTUNITY;
    assert_eq!(
        per_second.values().copied().collect::<Vec<_>>(),
        [per_period; 3]
    );
}

/// mm-link's delivery schedule for packets `(arrival ns, IP bytes)` in queue order: the
/// departure (ms) of each, from its `rationalize` loop.
fn mm_link(times: &[u64], arrivals: &[(u64, u64)]) -> Vec<u64> {
    let mut departures = vec![0; arrivals.len()];
    let mut next = 0;
    let mut queue: VecDeque<(usize, u64)> = VecDeque::new();
    let mut in_transit: Option<(usize, u64)> = None;
    let mut rationalize = |now: u64, queue: &mut VecDeque<(usize, u64)>| {
        while time_of(times, next) <= now {
            let this = time_of(times, next);
            next += 1;
            let mut left = OPPORTUNITY;
            while left > 0 {
                if in_transit.is_none() {
                    match queue.pop_front() {
                        Some(p) => in_transit = Some(p),
                        None => break,
                    }
                }
                let (k, bytes) = in_transit.as_mut().unwrap();
                let sent = left.min(*bytes);
                *bytes -= sent;
                left -= sent;
                if *bytes == 0 {
                    departures[*k] = this;
                    in_transit = None;
                }
            }
        }
    };
    for (k, &(at, size)) in arrivals.iter().enumerate() {
        rationalize(at / 1_000_000, &mut queue);
        queue.push_back((k, size));
    }
    // Long enough after the last arrival for the queue (below 100 000 packets) to drain.
    let last = arrivals.last().map_or(0, |a| a.0 / 1_000_000);
    rationalize(last + 200_000, &mut queue);
    departures
}

/// Two streams of unequal packets share a sparse trace below saturation: packets share
/// opportunities and straddle them, the queue empties and fills. Every packet arrives at
/// the far end 10 ms after the departure mm-link gives it.
#[test]
fn departures_follow_mm_link_schedule() {
    let times = irregular(500);
    let file = write_trace("mixed.down", &times);
    let flows = r#"
[[flows]]
name = "big"
from = "a"
to = "b"
app = { kind = "periodic", size = "1000B", interval = "2ms" }
start = "0.1s"
stop = "2.9s"
[[flows]]
name = "small"
from = "a"
to = "b"
app = { kind = "periodic", size = "200B", interval = "0.7ms" }
start = "0.10035s"   # never at the instant of a big packet: 0.35 + 0.7k is never even
stop = "2.9s"
"#;
    let out = run(&scenario(&file, "3s", flows));
    let t = table(&out, "delay");
    let mut packets: Vec<(u64, u64, u64)> = f64s(t, "sent")
        .into_iter()
        .zip(u64s(t, "size"))
        .zip(f64s(t, "time"))
        .map(|((sent, size), time)| (ns(sent), size + HDR, ns(time)))
        .collect();
    assert!(packets.len() > 5000);
    assert!(out.summary.links["l"].values().all(|c| c.drops.queue == 0));
    packets.sort();
    let arrivals: Vec<(u64, u64)> = packets.iter().map(|p| (p.0, p.1)).collect();
    let expected = mm_link(&times, &arrivals);
    let got: Vec<u64> = packets.iter().map(|p| p.2 - 10_000_000).collect();
    let expected: Vec<u64> = expected.iter().map(|ms| ms * 1_000_000).collect();
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        let lo = i.saturating_sub(4);
        panic!(
            "first difference at packet {i}: got {:?}, mm-link {:?}, packets {:?}",
            &got[lo..i + 4],
            &expected[lo..i + 4],
            &packets[lo..i + 4]
        );
    }
    // Some packets straddled two opportunities, some shared one.
    assert!(expected.windows(2).any(|w| w[0] == w[1]));
}

/// The shipped example runs from its own folder's relative paths, deterministically, and
/// each direction carries no more than its trace offers: the downlink trace's mean rate
/// (its opportunities · 1504 B per 20 s) bounds the download's goodput.
#[test]
fn the_trace_example_runs() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/examples");
    let path = format!("{dir}/trace-cell.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let run = || tern_sim::run_text(&path, &text, &[], None).unwrap();
    let (a, b) = (run(), run());
    assert_eq!(a.tables, b.tables);
    let down = std::fs::read_to_string(format!("{dir}/../traces/walk-lte.down")).unwrap();
    let mean_bps = down.lines().count() as f64 * OPPORTUNITY as f64 * 8.0 / 20.0;
    let goodput = a.summary.flows["download"].goodput_bps;
    assert!(
        goodput > 0.0 && goodput < mean_bps,
        "{goodput} of {mean_bps}"
    );
}

/// A trace that cannot be read is refused when the scenario is loaded, naming the key,
/// the trace file and its line.
#[test]
fn bad_traces_are_refused_with_file_line_and_key() {
    let bad = write_trace("bad.down", &[]);
    std::fs::write(&bad, "1\n2\nthree\n").unwrap();
    let e = error_of(&scenario(&bad, "1s", ""));
    assert!(
        e.contains("links[0].trace") || e.contains("links.l.trace"),
        "{e}"
    );
    assert!(e.contains(&format!("{bad}:3:")), "{e}");
    let e = error_of(&scenario("/nonexistent/x.down", "1s", ""));
    assert!(
        e.contains("/nonexistent/x.down") && e.contains("cannot read"),
        "{e}"
    );
    let shape = |kind: &str| {
        format!(
            r#"
[sim]
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "l"
ends = ["a", "b"]
delay = "1ms"
trace = {kind}
"#
        )
    };
    let e = error_of(&shape(
        r#"{ kind = "on-off", rate = "1kbps", on = "1ms", off = "1ms" }"#,
    ));
    assert!(e.contains("no opportunity"), "{e}");
    let e = error_of(&shape(
        r#"{ kind = "square", high = "1Mbps", low = "0bps", period = "1.5ms" }"#,
    ));
    assert!(e.contains("whole number of milliseconds"), "{e}");
    // Sizes that would exhaust time or memory are refused, not attempted.
    let walk = r#"{ kind = "random-walk", start = "1Mbps", step = "1kbps", every = "1ns", min = "1kbps", max = "2Mbps", length = "1000min" }"#;
    assert!(error_of(&shape(walk)).contains("steps"));
    let e = error_of(&shape(
        r#"{ kind = "on-off", rate = "1Gbps", on = "2000min", off = "1s" }"#,
    ));
    assert!(e.contains("at most a day"), "{e}");
    let e = error_of(&shape(
        r#"{ kind = "on-off", rate = "1Gbps", on = "1000min", off = "1s" }"#,
    ));
    assert!(e.contains("more than 20000000 opportunities"), "{e}");
    let e = error_of(&shape(
        r#"{ kind = "mahimahi", file = "x", opportunity = "0B" }"#,
    ));
    assert!(e.contains("at least one byte"), "{e}");
    // Without a trace, the rate is required.
    let e = error_of(
        &shape("{ kind = \"mahimahi\", file = \"x\" }\nreverse = { delay = \"2ms\" }")
            .replace("trace = { kind = \"mahimahi\", file = \"x\" }", ""),
    );
    assert!(e.contains("rate"), "{e}");
}
