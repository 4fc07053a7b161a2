//! Helpers shared by the scenario-level tests.
#![allow(dead_code)]

use tern_sim::trace::{Column, ColumnData, Table};
use tern_sim::RunOutput;

/// The error a bad scenario gets (panics if it is accepted or if loading panics).
pub fn error_of(text: &str) -> String {
    match std::panic::catch_unwind(|| tern_sim::load("bad.toml", text, &[], None)) {
        Ok(Ok(_)) => panic!("accepted:\n{text}"),
        Ok(Err(e)) => e.to_string(),
        Err(_) => panic!("panicked on:\n{text}"),
    }
}

pub fn run(text: &str) -> RunOutput {
    tern_sim::run_text("test.toml", text, &[], None).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `text` twice and checks that both runs give the same summary and the same trace
/// tables, bit for bit (determinism); returns the first.
pub fn same_runs(text: &str) -> RunOutput {
    let (a, b) = (run(text), run(text));
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(a.tables, b.tables);
    a
}

/// The records of a JSON-SEQ file (RFC 7464: each starts with RS, 0x1E, and ends with LF).
pub fn records(log: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(log)
        .unwrap()
        .split('\u{1e}')
        .filter(|r| !r.trim().is_empty())
        .map(|r| serde_json::from_str(r).unwrap_or_else(|e| panic!("{e}: {r}")))
        .collect()
}

/// The captured file `name` of a run (a qlog, a pcap).
pub fn log<'a>(out: &'a RunOutput, name: &str) -> &'a [u8] {
    let (_, log) = out.captures.iter().find(|(n, _)| n == name).expect(name);
    log
}

pub fn table<'a>(out: &'a RunOutput, name: &str) -> &'a Table {
    out.tables
        .iter()
        .find(|t| t.name == name)
        .expect("table recorded")
}

/// A column that is never null.
fn column<'a>(t: &'a Table, col: &str) -> &'a Column {
    let c = t.column(col).expect("column");
    assert!(c.valid.is_none(), "{col} is nullable: read it with opt_*");
    c
}

/// A nullable column's values, `None` where null.
fn nullable<T: Copy>(
    t: &Table,
    col: &str,
    values: impl Fn(&ColumnData) -> Vec<T>,
) -> Vec<Option<T>> {
    let c = t.column(col).expect("column");
    values(&c.data)
        .into_iter()
        .enumerate()
        .map(|(i, v)| c.is_valid(i).then_some(v))
        .collect()
}

fn f64_values(data: &ColumnData) -> Vec<f64> {
    match data {
        ColumnData::F64(v) => v.clone(),
        other => panic!("not floats: {other:?}"),
    }
}

fn u64_values(data: &ColumnData) -> Vec<u64> {
    match data {
        ColumnData::U64(v) => v.clone(),
        other => panic!("not integers: {other:?}"),
    }
}

pub fn f64s(t: &Table, col: &str) -> Vec<f64> {
    f64_values(&column(t, col).data)
}

pub fn u64s(t: &Table, col: &str) -> Vec<u64> {
    u64_values(&column(t, col).data)
}

/// A nullable float column.
pub fn opt_f64s(t: &Table, col: &str) -> Vec<Option<f64>> {
    nullable(t, col, f64_values)
}

/// A nullable integer column.
pub fn opt_u64s(t: &Table, col: &str) -> Vec<Option<u64>> {
    nullable(t, col, u64_values)
}

/// Two nodes `a` and `b` on one link named `l` (with TOML keys `link`), recording `record`,
/// with `sim` the keys of `[sim]`, plus extra TOML.
fn one_link(record: &str, sim: &str, link: &str, extra: &str) -> String {
    format!(
        r#"
record = [{record}]
[sim]
{sim}
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "l"
ends = ["a", "b"]
{link}
{extra}
"#
    )
}

/// Two nodes `a` and `b` on one link named `l`, plus extra TOML.
pub fn p2p(rate: &str, delay: &str, queue: &str, duration: &str, extra: &str) -> String {
    let link = format!("rate = \"{rate}\"\ndelay = \"{delay}\"\nqueue = {queue}");
    let sim = format!("duration = \"{duration}\"");
    one_link(r#""queue", "delay", "drops", "rtt""#, &sim, &link, extra)
}

/// `ue` with two interfaces: links `wlan` and `cell` to `router` (each given as its TOML
/// keys), `router` to `server` over `core`; `links[3]` are those three, `flows` the TOML
/// after them; `record`, the list of traces.
pub fn two_homed(duration: &str, record: &str, links: [&str; 3], flows: &str) -> String {
    let [wlan, cell, core] = links;
    format!(
        r#"
record = [{record}]
[sim]
duration = "{duration}"
[[nodes]]
name = "ue"
[[nodes]]
name = "router"
[[nodes]]
name = "server"
[[links]]
name = "wlan"
ends = ["ue", "router"]
{wlan}
[[links]]
name = "cell"
ends = ["ue", "router"]
{cell}
[[links]]
name = "core"
ends = ["router", "server"]
{core}
{flows}
"#
    )
}

/// [`two_homed`] with one flow, `get`: `ue` downloads a file of `size` (an HTTP/3 GET) from
/// `server` over the QUIC paths `paths` (TOML, e.g. `{ via = "wlan" }, { via = "cell" }`).
pub fn two_homed_get(
    duration: &str,
    record: &str,
    links: [&str; 3],
    size: &str,
    paths: &str,
) -> String {
    two_homed(
        duration,
        record,
        links,
        &format!(
            r#"[[flows]]
name = "get"
from = "ue"
to = "server"
app = {{ kind = "file", size = "{size}" }}
transport = {{ kind = "quic", paths = [{paths}] }}"#
        ),
    )
}

pub fn texts(t: &Table, col: &str) -> Vec<String> {
    match &column(t, col).data {
        ColumnData::Text { labels, codes } => {
            codes.iter().map(|&c| labels[c as usize].clone()).collect()
        }
        other => panic!("{col} is {other:?}"),
    }
}

/// Two nodes on one link, one QUIC flow from `a` to `b` with `app` and extra transport
/// settings, recording `record`.
pub fn quic_link(link: &str, duration: &str, app: &str, transport: &str, record: &str) -> String {
    let sim = format!("duration = \"{duration}\"\nseed = 1");
    let flow = format!(
        "[[flows]]\nname = \"f\"\nfrom = \"a\"\nto = \"b\"\napp = {app}\n\
         transport = {{ kind = \"quic\"{transport} }}"
    );
    one_link(record, &sim, link, &flow)
}

/// 10 Mbit/s, 20 ms each way (40 ms RTT), a DropTail queue of one bandwidth-delay product:
/// 10 Mbit/s × 40 ms = 50 000 B = 33.3 packets of 1500 B, so 34.
pub const STEADY: &str = r#"rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "34pkt" }"#;

/// An 802.11n BSS `wlan` of one station `sta` `distance` m from its AP `ap`, at a constant
/// `mcs`: the two `[[nodes]]` and a `[[wifi]]` table left open for more keys.
pub fn one_station_bss(distance: u32, mcs: u8) -> String {
    format!(
        r#"[[nodes]]
name = "ap"
[[nodes]]
name = "sta"
position = [{distance}, 0, 0]
[[wifi]]
name = "wlan"
ap = "ap"
stations = ["sta"]
standard = "802.11n"
rate_control = {{ kind = "constant", mcs = {mcs} }}
"#
    )
}

/// A station 5 m from its AP uploads with TCP CUBIC to a server behind a 1 Gbit/s, 1 ms
/// wire and pings it every 100 ms (a 64-byte ICMP-sized echo, 56 B of payload), from 0 s to
/// `duration`. 802.11n at MCS 1 (13 Mbit/s, 20 MHz, long GI: IEEE 802.11-2020 Table 19-27);
/// TCP Small Queues is off (the wlan-bufferbloat study's "no countermeasure" Linux, TSQ
/// limit raised); the MAC discards nothing by age (`lifetime = "0s"`: Linux mac80211 and
/// ath9k keep no MSDU lifetime). `wifi` and `tcp` are more keys of the `[[wifi]]` table and
/// of `[flows.transport]`.
pub fn wifi_upload(record: &str, duration: &str, wifi: &str, tcp: &str) -> String {
    let bss = one_station_bss(5, 1);
    format!(
        r#"record = [{record}]
[sim]
duration = "{duration}"
{bss}lifetime = "0s"
{wifi}
[[nodes]]
name = "server"
[[links]]
name = "wire"
ends = ["ap", "server"]
rate = "1Gbps"
delay = "1ms"
[[flows]]
name = "upload"
from = "sta"
to = "server"
app = {{ kind = "bulk" }}
[flows.transport]
kind = "tcp"
cc = "cubic"
tsq = "1GB"
{tcp}
[[flows]]
name = "ping"
from = "sta"
to = "server"
app = {{ kind = "ping", size = "56B", interval = "100ms" }}
"#
    )
}

/// The wlan-bufferbloat study's upload (`scenarios/wlan-bufferbloat/upload.toml`) for 20 s
/// at its far end, on its primary channel (TGn model B, Rayleigh at TGn's 1.2 km/h, two
/// receive chains) at 95 m, where whole rate series fail in the fades, with `extra`
/// overrides after those; recording `wifi`, seed 1.
pub fn wlan_far_end(extra: &[(&str, &str)]) -> RunOutput {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/wlan-bufferbloat/upload.toml"
    ))
    .unwrap();
    let primary = [
        ("sim.duration", "20s"),
        ("record", "[\"wifi\"]"),
        ("nodes.sta.position", "[95, 0, 0]"),
        ("wifi.wlan.propagation.fading.rx_antennas", "2"),
        ("wifi.wlan.propagation.fading.model", "\"B\""),
        ("wifi.wlan.propagation.fading.k_factor", "0"),
        (
            "wifi.wlan.propagation.fading.environment_speed",
            "0.3333333333333333",
        ),
    ];
    let overrides: Vec<(String, String)> = primary
        .iter()
        .chain(extra)
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tern_sim::run_text("w", &text, &overrides, Some(1)).unwrap()
}

/// Mean ping RTT (s) of the pings sent after `warm` seconds (the `rtt` trace).
pub fn mean_rtt(out: &RunOutput, warm: f64) -> f64 {
    let rtt = table(out, "rtt");
    let (time, v) = (f64s(rtt, "time"), f64s(rtt, "rtt"));
    let after: Vec<f64> = (0..v.len())
        .filter(|&i| time[i] - v[i] >= warm)
        .map(|i| v[i])
        .collect();
    after.iter().sum::<f64>() / after.len() as f64
}

/// The process's mapped address space now (`VmSize` of /proc/self/status, proc(5)), in bytes.
#[cfg(target_os = "linux")]
pub fn vm_size() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("readable status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmSize in /proc/self/status");
    kib << 10
}
