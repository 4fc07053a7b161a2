//! The multipath path order (`transport.scheduler`, noq-proto's `poll_transmit` with Tern's
//! patch `0003-path-scheduler.patch`): each transmission goes to the first path in the
//! scheduler's order that may send and has room in its congestion window and pacer.
//!
//! The set-up makes every transmission find both paths with room, so that the order alone
//! decides: a stream window of 6 000 B (RFC 9000 §4.1: at most that much of the stream in
//! flight) is half the initial congestion window (RFC 9002 §7.2: 10 × 1 200 B), and below
//! the pacer's smallest burst (noq's `Pacer`: at least 10 datagrams), which refills at
//! 1.25 × window / RTT, more than the 6 000 B per round trip flow control lets through; no
//! queue builds (6 000 B per RTT is under 10 Mbit/s on either path), so nothing is lost.
//! Path 0 (`wlan`) has a 100 ms round trip, path 1 (`cell`) 10 ms.

mod common;
use common::*;

/// The two links, `wlan` 10 Mbit/s / 50 ms and `cell` 10 Mbit/s / 5 ms (50-packet queues),
/// a 200 kB download with the path order `scheduler`.
fn download(scheduler: &str) -> (u64, u64) {
    let wlan =
        "rate = \"10Mbps\"\ndelay = \"50ms\"\nqueue = { kind = \"droptail\", limit = \"50pkt\" }";
    let cell =
        "rate = \"10Mbps\"\ndelay = \"5ms\"\nqueue = { kind = \"droptail\", limit = \"50pkt\" }";
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
    let out = run(&two_homed("20s", "", [wlan, cell, core], &flow));
    let f = &out.summary.flows["get"];
    assert_eq!(f.bytes_delivered, 200_000, "{scheduler}: incomplete");
    let q = f.quic.as_ref().unwrap();
    (
        q.paths["wlan"].udp_bytes_received,
        q.paths["cell"].udp_bytes_received,
    )
}

fn cell_share(scheduler: &str) -> f64 {
    let (wlan, cell) = download(scheduler);
    cell as f64 / (wlan + cell) as f64
}

#[test]
fn min_rtt_moves_the_download_to_the_lower_rtt_path() {
    // Once path 1 has an RTT sample (10 ms against path 0's 100 ms) it is tried first and
    // always has room: all but the first round trip's data goes over it. Path-id order tries
    // path 0 first, so it puts less on path 1.
    let min_rtt = cell_share("min_rtt");
    assert!(min_rtt > 0.9, "cell share {min_rtt}");
    let lowest_id = cell_share("lowest_id");
    assert!(
        lowest_id < min_rtt,
        "lowest_id {lowest_id}, min_rtt {min_rtt}"
    );
}

#[test]
fn round_robin_alternates_the_paths() {
    // Each transmission starts after the previous one's path and both always have room: the
    // packets alternate, so each path carries about half of the bytes (the handshake's and
    // the first round trip's packets on path 0 alone aside).
    let share = cell_share("round_robin");
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
