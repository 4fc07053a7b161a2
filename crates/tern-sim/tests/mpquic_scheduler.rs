//! The multipath path order (`transport.scheduler`, noq-proto's `poll_transmit` with Tern's
//! patch `0003-path-scheduler.patch`): each transmission goes to the first path in the
//! scheduler's order that may send and passes its congestion and pacing checks
//! (`path_congestion_check`: in flight plus one datagram within the congestion window, and a
//! datagram's worth of pacer tokens).
//!
//! The set-ups keep the congestion window out of the way: a stream window of 6 000 B (RFC
//! 9000 §4.1: at most that much of the stream in flight) is half the initial congestion
//! window (RFC 9002 §7.2: 10 × 1 200 B); 6 000 B per round trip is under 10 Mbit/s on either
//! path, so no queue builds and nothing is lost. What is left is noq's pacer (`Pacer`,
//! `src/connection/pacing.rs`): a token bucket refilled at 1.25 × cwnd / SRTT whose capacity
//! is cwnd / SRTT × 10 ms (`MAX_BURST_INTERVAL`) but at least one MTU, and at most
//! 10 datagrams' worth once cwnd / SRTT × 2 ms is below that (`MIN_BURST_SIZE`); a datagram
//! waits until the bucket holds a full segment (the path's MTU).

mod common;
use common::*;
use serde_json::Value;
use tern_sim::RunOutput;

/// The largest datagram on these 1500-B links: 1500 − 20 (IPv4) − 8 (UDP), noq's MTU
/// discovery's ceiling here.
const MTU: f64 = 1472.0;

/// `ue` downloads 200 kB over `wlan` (path 0, 10 Mbit/s, `wlan_delay` each way) and `cell`
/// (path 1, 10 Mbit/s, `cell_delay` each way), 50-packet queues, with the path order
/// `scheduler` and a 6 000 B stream window; both endpoints' qlogs are kept.
fn download(scheduler: &str, wlan_delay: &str, cell_delay: &str) -> RunOutput {
    let link = |delay: &str| {
        format!(
            "rate = \"10Mbps\"\ndelay = \"{delay}\"\n\
             queue = {{ kind = \"droptail\", limit = \"50pkt\" }}"
        )
    };
    let core =
        "rate = \"1Gbps\"\ndelay = \"0ms\"\nqueue = { kind = \"droptail\", limit = \"1000pkt\" }";
    let flow = format!(
        r#"[[flows]]
name = "get"
from = "ue"
to = "server"
app = {{ kind = "file", size = "200kB" }}
transport = {{ kind = "quic", stream_window = "6000B", scheduler = "{scheduler}", paths = [{{ via = "wlan" }}, {{ via = "cell" }}] }}"#
    );
    let links = [&link(wlan_delay), &link(cell_delay), core];
    let out = run(&two_homed("20s", "\"qlog\"", links, &flow));
    let f = &out.summary.flows["get"];
    assert_eq!(f.bytes_delivered, 200_000, "{scheduler}: incomplete");
    assert_eq!(f.quic().unwrap().packets_lost, 0, "{scheduler}");
    out
}

/// The slow-Wi-Fi set-up: path 0 a 100 ms round trip, path 1 10 ms.
fn slow_wifi(scheduler: &str) -> RunOutput {
    download(scheduler, "50ms", "5ms")
}

/// Path 1's share of the UDP bytes the client received.
fn cell_share(out: &RunOutput) -> f64 {
    let q = out.summary.flows["get"].quic().unwrap();
    let (wlan, cell) = (
        q.paths["wlan"].udp_bytes_received,
        q.paths["cell"].udp_bytes_received,
    );
    cell as f64 / (wlan + cell) as f64
}

/// The server's qlog events after its header.
fn server_events(out: &RunOutput) -> Vec<Value> {
    records(log(out, "get.server.sqlog"))
        .into_iter()
        .skip(1)
        .collect()
}

/// A packet the server sent: time (ms), path, whether it is in flight (carries a frame other
/// than ACK, PATH_ACK and PADDING: RFC 9002 §2, the packets the pacer and the window count),
/// STREAM bytes, and path 0's congestion window (B) and smoothed RTT (ms) as last logged.
struct Sent {
    t: f64,
    path: u64,
    in_flight: bool,
    stream: u64,
    cwnd0: f64,
    srtt0: f64,
    in_flight0: f64,
}

fn sent_packets(events: &[Value]) -> Vec<Sent> {
    let (mut cwnd0, mut srtt0, mut in_flight0) = (f64::NAN, f64::NAN, 0.0);
    let mut out = Vec::new();
    for e in events {
        let d = &e["data"];
        if e["name"] == "recovery:metrics_updated" && d["path_id"].as_u64().unwrap_or(0) == 0 {
            cwnd0 = d["congestion_window"].as_f64().unwrap_or(cwnd0);
            srtt0 = d["smoothed_rtt"].as_f64().unwrap_or(srtt0);
            in_flight0 = d["bytes_in_flight"].as_f64().unwrap_or(in_flight0);
        }
        if e["name"] != "transport:packet_sent" || d["header"]["packet_type"] != "1RTT" {
            continue;
        }
        let frames = d["frames"].as_array().unwrap();
        let kind = |f: &Value| f["frame_type"].as_str().unwrap().to_owned();
        out.push(Sent {
            t: e["time"].as_f64().unwrap(),
            path: d["header"]["path_id"].as_u64().unwrap(),
            in_flight: frames
                .iter()
                .any(|f| !["ack", "path_ack", "padding"].contains(&kind(f).as_str())),
            stream: frames
                .iter()
                .filter(|f| kind(f) == "stream")
                .map(|f| f["raw"]["length"].as_u64().unwrap())
                .sum(),
            cwnd0,
            srtt0,
            in_flight0,
        });
    }
    out
}

/// STREAM bytes the server sent on path 0 and on path 1.
fn stream_bytes(sent: &[Sent]) -> [u64; 2] {
    let on = |p| sent.iter().filter(|s| s.path == p).map(|s| s.stream).sum();
    [on(0), on(1)]
}

#[test]
fn lowest_id_keeps_the_stream_on_path_0_while_its_pacer_holds_the_window() {
    // Path 0 a 10 ms round trip, path 1 2 ms. Path 0's pacer holds cwnd / SRTT × 10 ms
    // >= 12 000 B / 11 ms × 10 ms > 10 000 B, more than the at most 5 datagrams (7 360 B) one
    // 6 000 B credit can release at once, and refills faster (1.25 × cwnd per SRTT) than flow
    // control lets the stream through (6 000 B per round trip): path 0, tried first, always
    // passes both checks, so noq's own order puts every STREAM frame on it.
    let out = download("lowest_id", "5ms", "1ms");
    let [on0, on1] = stream_bytes(&sent_packets(&server_events(&out)));
    assert!(on0 >= 200_000, "path 0: {on0} B of stream");
    assert_eq!(on1, 0, "path 1 carried stream bytes");
    // The lower-RTT path first (min-RTT) moves the stream to path 1 in the same set-up, so the
    // test tells the orders apart.
    let min_rtt = download("min_rtt", "5ms", "1ms");
    let [_, min_rtt_on1] = stream_bytes(&sent_packets(&server_events(&min_rtt)));
    assert!(min_rtt_on1 > 100_000, "min_rtt: {min_rtt_on1} B on path 1");
}

#[test]
fn lowest_id_sends_on_path_1_only_while_path_0s_pacer_is_empty() {
    // Path 0 a 100 ms round trip: its pacer holds cwnd / SRTT × 10 ms = 12 000 B / 100 ms ×
    // 10 ms = 1 200 B, raised to one MTU, so one datagram at a time; it refills one MTU in
    // MTU × SRTT / (1.25 × cwnd), about 9.8 ms. When a MAX_STREAM_DATA frame releases several
    // datagrams at once, path 0 takes the first and noq's own order passes the rest to the
    // next path with room, path 1. So path 1 carries about half the stream though path 0's
    // congestion window always had room: what the pacer, not the order, sends there.
    let out = slow_wifi("lowest_id");
    let sent = sent_packets(&server_events(&out));
    let on1: Vec<&Sent> = sent
        .iter()
        .filter(|s| s.path == 1 && s.stream > 0)
        .collect();
    assert!(!on1.is_empty());
    for s in &on1 {
        // Path 0's pacer capacity below two datagrams of the minimum size (1 200 B).
        let capacity = s.cwnd0 / s.srtt0 * 10.0;
        assert!(capacity < 2400.0, "at {} ms: capacity {capacity}", s.t);
        // Its window had room for one more datagram: congestion did not block it.
        assert!(s.in_flight0 + MTU <= s.cwnd0, "at {} ms: window full", s.t);
        // Its pacer was empty: path 0 sent a packet in flight within the refill time of one
        // MTU (after that the bucket holds a full datagram and path 0 would have sent).
        let refill = MTU * s.srtt0 / (1.25 * s.cwnd0);
        let last0 = sent
            .iter()
            .filter(|p| p.path == 0 && p.in_flight && p.t <= s.t)
            .map(|p| p.t)
            .next_back()
            .expect("path 0 sent first");
        assert!(
            s.t - last0 < refill,
            "at {} ms: path 0 idle since {last0} ms (refill {refill} ms)",
            s.t
        );
    }
    // One datagram at a time: path 0 never sends two STREAM datagrams at one instant.
    for w in sent.windows(2) {
        let both0 = w.iter().all(|s| s.path == 0 && s.stream > 0);
        assert!(!(both0 && w[0].t == w[1].t), "two at {} ms", w[0].t);
    }
    // So each credit's first datagram goes on path 0 and the rest on path 1: both carry a
    // large part of the stream.
    let [on0, on1] = stream_bytes(&sent);
    let share1 = on1 as f64 / (on0 + on1) as f64;
    assert!(
        (0.25..0.75).contains(&share1),
        "path 1's stream share {share1}"
    );
}

#[test]
fn min_rtt_moves_the_download_to_the_lower_rtt_path() {
    // Once path 1 has an RTT sample (10 ms against path 0's 100 ms) it is tried first and
    // always has room: all but the first round trip's data goes over it.
    let min_rtt = cell_share(&slow_wifi("min_rtt"));
    assert!(min_rtt > 0.9, "cell share {min_rtt}");
}

#[test]
fn round_robin_alternates_the_paths() {
    // Each transmission starts after the previous one's path and both always have room: the
    // packets alternate, so each path carries about half of the bytes (the handshake's and
    // the first round trip's packets on path 0 alone aside).
    let share = cell_share(&slow_wifi("round_robin"));
    assert!((0.4..=0.6).contains(&share), "cell share {share}");
}

#[test]
fn an_unknown_scheduler_is_refused_by_name() {
    let flow = "[[flows]]\nname = \"get\"\nfrom = \"ue\"\nto = \"server\"\n\
                app = { kind = \"file\", size = \"1kB\" }\n\
                transport = { kind = \"quic\", scheduler = \"fastest\", \
                paths = [{ via = \"wlan\" }, { via = \"cell\" }] }";
    let e = error_of(&two_homed("1s", "", [STEADY, STEADY, STEADY], flow));
    assert!(e.contains("fastest") && e.contains("min_rtt"), "{e}");
}
