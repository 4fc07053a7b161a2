//! Multipath QUIC (draft-ietf-quic-multipath-21, noq-proto) over a client with two interfaces:
//! what noq's scheduler does with available and backup paths, and abandoning a path.

mod common;
use common::*;
use tern_sim::transport::quic::QuicPathSummary;
use tern_sim::RunOutput;

/// `ue` reaches `router` by `wlan` and by `cell` (each `access`: rate, delay, queue), `router`
/// reaches `server` over 1 Gbit/s, 1 ms; one QUIC file download (an HTTP/3 GET of `size`)
/// over the two paths `paths`.
fn two_paths(access: &str, size: &str, paths: &str, duration: &str) -> String {
    two_links([access, access], "\"quic\"", size, paths, duration)
}

/// [`two_paths`] with its own `[wlan, cell]` links, recording `record`.
fn two_links(links: [&str; 2], record: &str, size: &str, paths: &str, duration: &str) -> String {
    let core =
        "rate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = { kind = \"droptail\", limit = \"1000pkt\" }";
    two_homed_get(duration, record, [links[0], links[1], core], size, paths)
}

/// 10 Mbit/s, 10 ms, a queue of 50 packets: more than the bandwidth-delay product of a
/// path (10 Mbit/s × 24 ms ≈ 30 000 B ≈ 20 packets), so each path can run at its rate.
const ACCESS: &str = r#"rate = "10Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "50pkt" }"#;

/// The download of `size` over `paths` in `duration` on [`ACCESS`] links: the run, its
/// paths' summaries (in the order of `paths`) and the transfer time (s).
fn get(size: &str, paths: &str, duration: &str) -> (RunOutput, Vec<QuicPathSummary>, f64) {
    let out = run(&two_paths(ACCESS, size, paths, duration));
    let q = out.summary.flows["get"].quic().cloned().unwrap();
    let paths = q.paths.values().cloned().collect();
    (out, paths, q.transfer_time_s.expect("completed"))
}

/// Packets the server sent on path `k` before `before` (s), from the `quic` trace.
fn server_packets_on(out: &RunOutput, k: u64, before: f64) -> u64 {
    let q = table(out, "quic");
    let sent: Vec<u64> = texts(q, "endpoint")
        .into_iter()
        .zip(u64s(q, "path"))
        .zip(f64s(q, "time").into_iter().zip(u64s(q, "sent_packets")))
        .filter_map(|((e, p), (time, n))| (e == "server" && p == k && time < before).then_some(n))
        .collect();
    sent.last().copied().unwrap_or(0)
}

/// The body's time at `rate` bit/s less nothing: a lower bound on any transfer.
fn at_rate(bytes: f64, rate: f64) -> f64 {
    bytes * 8.0 / rate
}

#[test]
fn two_equal_available_paths_share_the_transfer() {
    // noq sends each packet on the first path (by id) with room in its congestion window:
    // with both paths window-limited in a bulk transfer, each carries about half.
    let (out, p, t) = get("5MB", r#"{ via = "wlan" }, { via = "cell" }"#, "10s");
    let keys: Vec<&String> = out.summary.flows["get"]
        .quic()
        .unwrap()
        .paths
        .keys()
        .collect();
    assert_eq!(keys, ["wlan", "cell"]);
    let total: u64 = p.iter().map(|p| p.udp_bytes_received).sum();
    for path in &p {
        let share = path.udp_bytes_received as f64 / total as f64;
        assert!((0.4..=0.6).contains(&share), "{path:?}: share {share}");
        assert_eq!(path.status, "available");
    }
    assert_eq!(out.summary.flows["get"].bytes_delivered, 5_000_000);
    // Faster than one path could carry the body (4 s at 10 Mbit/s), never faster than both
    // (2 s); within 25 % of that bound (the handshake, slow start on each path and the losses
    // of DropTail queues: about 150 of 3 600 packets here).
    let both = at_rate(5e6, 20e6);
    assert!(t > both && t < 1.25 * both, "transfer {t} s");
}

#[test]
fn a_backup_path_carries_data_only_once_no_available_path_is_left() {
    // cell is a backup path: while wlan (available) is open, noq sends no data on cell (only
    // the path's validation, PATH_CHALLENGE/RESPONSE, and the status frames); once the
    // client abandons wlan at 1 s, cell carries the rest.
    let (out, p, t) = get(
        "5MB",
        r#"{ via = "wlan", abandon_at = "1s" }, { via = "cell", status = "backup" }"#,
        "10s",
    );
    assert_eq!(
        (p[0].status.as_str(), p[1].status.as_str()),
        ("closed", "backup")
    );
    assert_eq!(out.summary.flows["get"].bytes_delivered, 5_000_000);
    // The server's packets on cell before 1 s: path validation and acknowledgements only.
    let early = server_packets_on(&out, 1, 1.0);
    assert!(early <= 5, "{early} packets on the backup path before 1 s");
    // Then the body's remainder: wlan carried at most 1 s at 10 Mbit/s (1.25 MB) before it
    // was abandoned, so cell carries at least the rest of 5 MB.
    let wlan_most = 10e6 / 8.0;
    assert!(p[1].udp_bytes_received as f64 > 5e6 - wlan_most, "{p:?}");
    assert!(t > at_rate(5e6, 10e6), "transfer {t} s");
}

#[test]
fn a_backup_path_stays_idle_beside_an_available_one() {
    let (_, p, t) = get(
        "2MB",
        r#"{ via = "wlan" }, { via = "cell", status = "backup" }"#,
        "5s",
    );
    // Validation and status frames, no stream data: a handful of packets, those of path
    // validation padded to at least 1200 B (RFC 9000 §8.2.1), none above the 1472-B
    // datagrams of a 1500-B MTU.
    assert!(
        p[1].packets_sent <= 5 && p[1].udp_bytes_sent <= 5 * 1472,
        "{p:?}"
    );
    // So the transfer takes at least what one path needs for the body (1.6 s).
    assert!(t > at_rate(2e6, 10e6), "transfer {t} s");
}

#[test]
fn same_seed_same_multipath_run() {
    let text = two_paths(
        ACCESS,
        "1MB",
        r#"{ via = "wlan", abandon_at = "0.5s" }, { via = "cell" }"#,
        "3s",
    );
    same_runs(&text);
}

/// The events named `name` of a qlog that name a path, with its id (`path_id` in the data,
/// or in the packet header for packet events; draft-ietf-quic-qlog-quic-events-12).
fn events_by_path<'a>(
    log: &'a [serde_json::Value],
    name: &str,
) -> Vec<(u64, &'a serde_json::Value)> {
    log.iter()
        .filter(|e| e["name"] == name)
        .filter_map(|e| {
            let data = &e["data"];
            let id = data["path_id"].as_u64();
            Some((id.or_else(|| data["header"]["path_id"].as_u64())?, e))
        })
        .collect()
}

#[test]
fn the_qlog_files_carry_each_path() {
    // Two available paths, Wi-Fi 10 ms and cellular 40 ms one way (10 Mbit/s each, then 1 ms
    // of core): both endpoints' qlogs (draft-ietf-quic-qlog-quic-events-12 as the stack
    // writes them, renamed for qvis) tell the paths apart on every packet, every recovery
    // metric and every loss-detection timer, so each path can be read on its own.
    let cell = ACCESS.replace("\"10ms\"", "\"40ms\"");
    let both = r#"{ via = "wlan" }, { via = "cell" }"#;
    let text = two_links([ACCESS, &cell], "\"qlog\"", "2MB", both, "5s");
    let out = run(&text);
    let q = out.summary.flows["get"].quic().cloned().unwrap();
    let server = records(log(&out, "get.server.sqlog"));
    let client = records(log(&out, "get.client.sqlog"));
    // Every packet either endpoint logs names its path.
    for (log, name) in [
        (&server, "transport:packet_sent"),
        (&client, "transport:packet_received"),
    ] {
        let all = log.iter().filter(|e| e["name"] == name).count();
        assert_eq!(events_by_path(log, name).len(), all, "{name}");
    }
    let sent = events_by_path(&server, "transport:packet_sent");
    let metrics = events_by_path(&server, "recovery:metrics_updated");
    let timers = events_by_path(&server, "recovery:loss_timer_updated");
    for (k, (path, one_way_ms)) in q.paths.values().zip([10.0, 40.0]).enumerate() {
        let k = k as u64;
        // The server's packets on the path, as many as its stack counts (the summary's
        // per-path count is the stack's own PathStats).
        let on_k = sent.iter().filter(|(id, _)| *id == k).count() as u64;
        assert_eq!(on_k, path.packets_sent, "path {k}");
        assert!(on_k > 100, "path {k}: {on_k} packets");
        // RTT state is per path (RFC 9002 per path, draft-ietf-quic-multipath-21 §5.3-5.4).
        // The client sends its PATH_ACKs on whichever path it sends on, mostly Wi-Fi (the
        // first path with room), and an RTT sample counts from the packet's sending to its
        // acknowledgement's arrival (§5.4: acknowledgements may come back on another path):
        // the path's minimum RTT is its own way out, d + 1 ms, plus Wi-Fi's way back, 11 ms,
        // plus at most a 1500-B packet's 1.2 ms at 10 Mbit/s and the acknowledgement's.
        let min_rtt = metrics
            .iter()
            .filter(|(id, _)| *id == k)
            .filter_map(|(_, e)| e["data"]["min_rtt"].as_f64())
            .next_back()
            .unwrap_or_else(|| panic!("no min_rtt for path {k}"));
        let base = (one_way_ms + 1.0) + (10.0 + 1.0);
        assert!(
            (base..base + 3.0).contains(&min_rtt),
            "path {k}: min_rtt {min_rtt} ms, propagation {base} ms"
        );
        assert!(
            timers
                .iter()
                .any(|(id, e)| *id == k && e["data"]["timer_type"] == "loss_timeout"),
            "path {k}"
        );
    }
}

/// Log-distance path loss with the test's parameters: 20 dBm, 40 dB at 1 m, exponent 3.
fn rssi_at(d: f64) -> f64 {
    20.0 - 40.0 - 30.0 * d.log10()
}

/// The mpquic-rssi set-up in small: `ue` is a station of the AP `ap` (802.11n, 5 GHz; 1 Gbit/s
/// wire to `router`) and has a 10 Mbit/s, 20 ms `cell` link to `router`; it walks from 50 m to
/// 250 m from the AP at 20 m/s while downloading from `server` over both paths, the RSSI
/// scheduler setting their status with T1 = −75 dBm, T2 = −85 dBm.
fn walking_away(hysteresis: f64) -> String {
    walk(
        "6s",
        ([50, 250], 20),
        "rate = \"1Gbps\"\ndelay = \"1ms\"",
        "50pkt",
        "propagation = { exponent = 3, reference_loss = 40, tx_power = 20 }",
        "100MB",
        &format!("t1 = -75, t2 = -85, hysteresis = {hysteresis}"),
    )
}

/// `ue`, a station of the AP `ap` (802.11n) whose wire (`wire`: rate, delay, queue) leads to
/// `router`, and with a 10 Mbit/s, 20 ms `cell` link (a queue of `cell_queue`) to `router`,
/// walks along x from `xs[0]` to `xs[1]` m at `speed` m/s while downloading `size` from
/// `server` (1 Gbit/s, 1 ms behind `router`) over both paths, the RSSI scheduler (`rssi`, the
/// fields of its table) setting their status.
fn walk(
    duration: &str,
    (xs, speed): ([u32; 2], u32),
    wire: &str,
    cell_queue: &str,
    radio: &str,
    size: &str,
    rssi: &str,
) -> String {
    let [from, to] = xs;
    format!(
        r#"
record = ["path_status", "quic", "delay"]
[sim]
duration = "{duration}"
[[nodes]]
name = "ap"
position = [0, 0, 0]
[[nodes]]
name = "ue"
position = [{from}, 0, 0]
moves = [{{ walk_to = [{to}, 0, 0], speed = {speed} }}]
[[nodes]]
name = "router"
[[nodes]]
name = "server"
[[links]]
name = "wire"
ends = ["ap", "router"]
{wire}
[[links]]
name = "cell"
ends = ["ue", "router"]
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "{cell_queue}" }}
[[links]]
name = "core"
ends = ["router", "server"]
rate = "1Gbps"
delay = "1ms"
[[wifi]]
name = "wlan"
ap = "ap"
stations = ["ue"]
standard = "802.11n"
{radio}
[[flows]]
name = "get"
from = "ue"
to = "server"
app = {{ kind = "file", size = "{size}" }}
[flows.transport]
kind = "quic"
paths = [{{ via = "wlan" }}, {{ via = "cell" }}]
rssi_scheduler = {{ {rssi} }}
"#
    )
}

#[test]
fn the_rssi_scheduler_changes_class_at_the_first_sample_past_each_threshold() {
    let out = run(&walking_away(0.0));
    let t = table(&out, "path_status");
    // Samples every beacon interval (102.4 ms) from 0; at sample k the station is at
    // x = 50 + 20 t m from the AP.
    let sample = |k: u32| f64::from(k) * 0.1024;
    let x = |t: f64| (50.0 + 20.0 * t).min(250.0);
    let first_below = |dbm: f64| {
        let k = (0..).find(|&k| rssi_at(x(sample(k))) <= dbm).unwrap();
        sample(k)
    };
    let times = f64s(t, "time");
    assert_eq!(texts(t, "new_class"), ["strong", "middle", "weak"]);
    assert_eq!(texts(t, "old_class"), ["none", "strong", "middle"]);
    let expected = [0.0, first_below(-75.0), first_below(-85.0)];
    for (got, want) in times.iter().zip(expected) {
        assert!((got - want).abs() < 1e-9, "{times:?} vs {expected:?}");
    }
    for (got, want) in f64s(t, "rssi_dbm").iter().zip(&times) {
        assert!((got - rssi_at(x(*want))).abs() < 1e-9);
    }
    assert_eq!(texts(t, "wifi_new"), ["available", "available", "backup"]);
    assert_eq!(texts(t, "cell_new"), ["backup", "available", "available"]);
    // While the class is strong the cellular path carries no data: the server's packets on
    // it before the second change are the path's validation and acknowledgements only.
    let cell_early = server_packets_on(&out, 1, times[1]);
    assert!(cell_early <= 5, "{cell_early} packets on cell while strong");
    let paths = &out.summary.flows["get"].quic().unwrap().paths;
    assert!(paths["cell"].udp_bytes_received > 1_000_000, "{paths:?}");
    assert_eq!(
        (paths["wlan"].status.as_str(), paths["cell"].status.as_str()),
        ("backup", "available")
    );
}

#[test]
fn same_seed_same_rssi_scheduled_run() {
    let text = walking_away(3.0);
    same_runs(&text);
}

#[test]
fn a_multipath_flow_sends_datagrams_that_fit_its_smallest_interface() {
    // cell carries IP packets of at most 1280 B: no path may be probed above 1280 − 28 B of
    // IPv4 and UDP headers, though the routed path (wlan) takes 1500 B.
    let cell = format!("{ACCESS}\nmtu = \"1280B\"");
    let both = r#"{ via = "wlan" }, { via = "cell" }"#;
    let text = two_links([ACCESS, &cell], "\"quic\"", "2MB", both, "3s");
    let out = run(&text);
    let q = out.summary.flows["get"].quic().cloned().unwrap();
    assert_eq!(out.summary.flows["get"].bytes_delivered, 2_000_000);
    // Path 0's discovered size (PMTUD, RFC 9000 §14.3) stops at the shared bound.
    assert_eq!(q.final_mtu, 1252);
}

#[test]
fn a_disabled_rssi_scheduler_is_plain_multipath() {
    // `enabled = false` (the study's plain-MPQUIC variant): the same run, bit for bit, as
    // the flow without a scheduler; both paths stay available and no status changes.
    let with = walking_away(0.0).replace("hysteresis = 0 }", "hysteresis = 0, enabled = false }");
    let without = walking_away(0.0).replace(
        "rssi_scheduler = { t1 = -75, t2 = -85, hysteresis = 0 }\n",
        "",
    );
    assert_ne!(with, walking_away(0.0));
    assert!(!without.contains("rssi_scheduler"));
    let (a, b) = (run(&with), run(&without));
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(a.tables, b.tables);
    let paths = &a.summary.flows["get"].quic().unwrap().paths;
    assert!(paths.values().all(|p| p.status == "available"), "{paths:?}");
}

#[test]
fn the_get_response_is_traced_as_it_is_read() {
    // Each read of the response is a `delay` row: the rows tile the response's byte stream
    // (each starts where the previous ended), the last is read at the completion time, and
    // they add up to the body plus its HTTP/3 frame headers (RFC 9114 §7.1: a HEADERS and a
    // DATA frame header, a few bytes each).
    let text = two_paths(ACCESS, "1MB", r#"{ via = "wlan" }, { via = "cell" }"#, "3s");
    assert!(text.contains("record = [\"quic\"]"));
    let text = text.replace("record = [\"quic\"]", "record = [\"quic\", \"delay\"]");
    let out = run(&text);
    let d = table(&out, "delay");
    let (seq, size, time) = (u64s(d, "seq"), u64s(d, "size"), f64s(d, "time"));
    for i in 1..seq.len() {
        assert_eq!(seq[i], seq[i - 1] + size[i - 1], "row {i}");
    }
    let total: u64 = size.iter().sum();
    assert!((1_000_000..1_000_100).contains(&total), "{total} B");
    let q = out.summary.flows["get"].quic().unwrap();
    assert_eq!(*time.last().unwrap(), q.completion_time_s.unwrap());
}

/// The mpquic-rssi stall in small: `ue` walks from 250 m to 400 m from the AP at 10 m/s with
/// the study's propagation (14 dBm, 30.10 dB at 1 m, exponent 3) on 802.11n in 2.4 GHz (the
/// study's walk is now on 802.11g; the stall is the transport's and needs only a radio that
/// dies); the AP's wire
/// is a 1 Mbit/s link with a 1000-packet queue, so the Wi-Fi path's queue holds most of the
/// stream's flow-control window (1.25 MiB, seconds at 1 Mbit/s) when the scheduler (normal
/// migration, T1 = T2 = −90 dBm) sets the path backup, and the radio dies before it drains.
/// `abandon` adds the scheduler's `abandon_below`.
fn out_of_range(abandon: &str) -> String {
    walk(
        "30s",
        ([250, 400], 10),
        "rate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = { kind = \"droptail\", limit = \"1000pkt\" }",
        "100pkt",
        "band = \"2.4GHz\"\npropagation = { exponent = 3, reference_loss = 30.10, tx_power = 14 }",
        "10MB",
        &format!("t1 = -90, t2 = -90{abandon}"),
    )
}

#[test]
fn abandoning_the_dead_wifi_path_ends_the_stall_after_the_stacks_drain() {
    let rssi = |d: f64| 14.0 - 30.10 - 30.0 * d.log10();
    // Sample k at k beacon intervals; the first at or below `dbm`.
    let first_at_or_below = |dbm: f64| {
        let k = (0..)
            .find(|&k| rssi((250.0 + 10.0 * f64::from(k) * 0.1024).min(400.0)) <= dbm)
            .unwrap();
        f64::from(k) * 0.1024
    };
    let (t_backup, t_abandon) = (first_at_or_below(-90.0), first_at_or_below(-91.0));

    // Without abandoning: the packets in the backup path's queue die with the radio, no later
    // packet on that path is ever acknowledged, so none is declared lost (draft-21 §5.7), and
    // the stream's window stays held by them: the download stalls to the end.
    let stalled = run(&out_of_range(""));
    let d = table(&stalled, "delay");
    let last_read = f64s(d, "time").into_iter().fold(0.0, f64::max);
    assert!(stalled.summary.flows["get"].bytes_delivered < 10_000_000);
    assert!(last_read < t_abandon + 5.0, "last read at {last_read} s");

    let text = out_of_range(", abandon_below = -91");
    let out = run(&text.replacen(r#"record = ["#, r#"record = ["qlog", "#, 1));
    let t = table(&out, "path_status");
    assert_eq!(texts(t, "wifi_new"), ["available", "backup", "abandoned"]);
    let times = f64s(t, "time");
    for (got, want) in times.iter().zip([0.0, t_backup, t_abandon]) {
        assert!((got - want).abs() < 1e-9, "{times:?}");
    }
    let q = out.summary.flows["get"].quic().cloned().unwrap();
    assert_eq!(q.paths["wlan"].status, "closed");
    assert_eq!(out.summary.flows["get"].bytes_delivered, 10_000_000);

    // The stall ends when the server drops the abandoned path, three PTOs of that path after
    // the PATH_ABANDON (noq-proto; draft-21 §3.4's 3 PTO), each PTO at least the path's
    // smoothed RTT (RFC 9002 §6.2.1): the reads resume no sooner than t_abandon + 3 srtt,
    // srtt the server's on Wi-Fi when it was abandoned.
    let qt = table(&out, "quic");
    // The server's smoothed RTT on path 0 at time `t` (s), from the `quic` trace.
    let srtt_at = |t: f64| {
        texts(qt, "endpoint")
            .into_iter()
            .zip(u64s(qt, "path"))
            .zip(f64s(qt, "time").into_iter().zip(f64s(qt, "srtt")))
            .filter(|((e, p), (time, _))| e == "server" && *p == 0 && *time <= t)
            .map(|(_, (_, s))| s)
            .next_back()
            .unwrap()
    };
    let srtt = srtt_at(t_abandon);
    let d = table(&out, "delay");
    let (time, size) = (f64s(d, "time"), u64s(d, "size"));
    let resume = *time.iter().find(|&&x| x > t_abandon + 1.0).unwrap();
    assert!(
        resume >= t_abandon + 3.0 * srtt,
        "resumed at {resume} s, srtt {srtt} s"
    );
    // Exactly when, from the server's qlog (noq-proto 1.4, src/connection/mod.rs): on the
    // client's PATH_ABANDON the server abandons path 0 (`abandon_path`: no more probes on it,
    // its PTO timer stopped) and arms its `discard_path` timer (PathTimer::PathDrained) for
    // three PTOs of that path (draft-21 §3.4: the path's state is kept for 3 PTO); only when
    // that expires does `discard_path` declare the packets still in flight lost, so that their
    // data goes out again, on cellular. PTO = smoothed RTT + max(4 RTT variance, 1 ms) +
    // max_ack_delay (RFC 9002 §6.2.1), the client's max_ack_delay being 25 ms (RFC 9000
    // §18.2 default).
    let server = records(log(&out, "get.server.sqlog"));
    let discard: Vec<&serde_json::Value> = events_by_path(&server, "recovery:loss_timer_updated")
        .into_iter()
        .filter(|(id, e)| *id == 0 && e["data"]["timer_type"] == "discard_path")
        .map(|(_, e)| e)
        .collect();
    let event = |kind: &str| {
        *discard
            .iter()
            .find(|e| e["data"]["event_type"] == kind)
            .unwrap_or_else(|| panic!("no discard_path {kind}: {discard:?}"))
    };
    let (set, expired) = (event("set"), event("expired"));
    let ms = |e: &serde_json::Value, f: &str| e[f].as_f64().unwrap();
    let t_set = ms(set, "time") / 1e3;
    // The PATH_ABANDON goes over cellular: 20 ms and its queue after the sample.
    assert!(
        (t_abandon..t_abandon + 0.2).contains(&t_set),
        "set at {t_set} s"
    );
    // At least three times the smoothed RTT of the path then (the `quic` trace: the stack's
    // PathStats) plus 1 ms (the timer granularity, kGranularity) and 25 ms. The qlog cannot
    // say more: the stack logs a path's metrics only after a datagram sent or received on
    // that path, and path 0's acknowledgements came over cellular since the radio failed,
    // so its last RTT estimates are not in the log.
    let srtt_then = srtt_at(t_set);
    let delta = set["data"]["delta"].as_f64().unwrap();
    assert!(
        delta >= 3.0 * (srtt_then * 1e3 + 1.0 + 25.0),
        "discard_path in {delta} ms, srtt {srtt_then} s"
    );
    let t_discard = ms(expired, "time") / 1e3;
    assert!((t_discard - (t_set + delta / 1e3)).abs() < 1e-4);
    // The reads resume only once the path's packets are declared lost.
    assert!(
        resume > t_discard,
        "resumed at {resume} s, discarded at {t_discard} s"
    );
    // Then the rest comes over cellular at its 10 Mbit/s, after at most a slow start from the
    // initial window to the path's bandwidth-delay product (10 Mbit/s × 42 ms ≈ 52 kB:
    // log2(52 kB / 12 kB) ≈ 2 RTTs, each under 42 ms + the 100-packet queue's 120 ms): 1 s.
    // Some of the rest may have arrived before, over Wi-Fi, held behind the hole: at most the
    // stream's flow-control window, 1.25 MiB (RFC 9000 §4.1).
    let rest: u64 = time
        .iter()
        .zip(&size)
        .filter(|(x, _)| **x >= resume)
        .map(|(_, s)| s)
        .sum();
    let done = q.completion_time_s.unwrap();
    let at_rate = |bytes: f64| bytes * 8.0 / 10e6;
    let window = 1.25 * 1024.0 * 1024.0;
    assert!(
        done - resume >= at_rate(rest as f64 - window)
            && done - resume <= at_rate(rest as f64) + 1.0,
        "{rest} B from {resume} s to {done} s"
    );
}

#[test]
fn same_seed_same_abandoning_run() {
    // The first 10 s of the run above: the abandonment (at 6.45 s) included.
    let text = out_of_range(", abandon_below = -91").replace("\"30s\"", "\"10s\"");
    let a = same_runs(&text);
    let wifi = texts(table(&a, "path_status"), "wifi_new");
    assert_eq!(wifi.last().map(String::as_str), Some("abandoned"));
}

#[test]
fn an_abandon_level_must_be_a_level() {
    let text =
        walking_away(0.0).replace("hysteresis = 0 }", "hysteresis = 0, abandon_below = nan }");
    let e = error_of(&text);
    assert!(
        e.contains("rssi_scheduler.abandon_below") && e.contains("expected a level in dBm"),
        "{e}"
    );
}
