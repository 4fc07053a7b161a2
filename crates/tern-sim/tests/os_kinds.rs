//! The wlan-bufferbloat study's Windows 10 and OS X 10.11 stations (study.toml, kinds
//! `windows10` and `macos1011`) on the shared lossy 802.11n upload: what their TCP settings
//! imply by theory, and that their runs are deterministic.

mod common;

use common::{mean_rtt, table, wifi_upload};
use tern_sim::RunOutput;

/// `windows10`: Compound TCP (set by `run`: the shared upload's transport says "cubic"),
/// IW10, 300 ms minimum RTO, a send buffer that never binds.
const WINDOWS10: &str = r#"initial_window = 10
min_rto = "300ms"
send_buffer = "6MiB"
recv_buffer = "6MiB""#;

/// `macos1011`: XNU 3248's CUBIC (beta 0.8, no fast convergence), IW 8, and its send
/// buffer tcp_sendspace = 1448 × 256 = 370688 B.
const MACOS1011: &str = r#"cubic_beta = 0.8
cubic_fast_convergence = false
initial_window = 8
min_rto = "200ms"
frto = true
send_buffer = "370688B"
recv_buffer = "6MiB""#;

/// The shared upload at 13 Mbit/s (MCS 1), MPDU error rate 0.1, Tern's 500-frame MAC queue.
fn run(tcp: &str, duration: &str, seed: u64) -> RunOutput {
    let text = wifi_upload("\"rtt\", \"cwnd\"", duration, "mpdu_error = 0.1", tcp);
    let cc = if tcp == WINDOWS10 { "ctcp" } else { "cubic" };
    let set = [("flows.upload.transport.cc".to_string(), cc.to_string())];
    tern_sim::run_text("os", &text, &set, Some(seed)).unwrap()
}

/// OS X's send buffer holds at most 370688 / 1448 = 256 segments, in flight or not yet
/// sent, so no more than 256 of the upload's packets can wait in the station's queue: the
/// ping's RTT is bounded by 256 + 1 packets' airtime (each at least 1500 B × 8 / 13 Mbit/s
/// = 0.92 ms; 1.5 ms allowed for the A-MPDU's preamble, Block Ack and retries at an error
/// rate of 0.1). Windows' send buffer never binds, so its window grows until the 500-frame
/// queue overflows, and CTCP's delay window is zero under such a queue (diff ≫ γ = 30
/// segments): it is Reno, halving to no less than half the queue, so its ping waits longer
/// than OS X's.
#[test]
fn the_send_buffer_bounds_the_os_x_queue_and_not_the_windows_one() {
    let (mac, win) = (run(MACOS1011, "20s", 1), run(WINDOWS10, "20s", 1));
    let (rtt_mac, rtt_win) = (mean_rtt(&mac, 5.0), mean_rtt(&win, 5.0));
    assert!(rtt_mac < 257.0 * 1.5e-3, "macos1011: {rtt_mac} s");
    assert!(rtt_mac > 0.5 * 256.0 * 0.92e-3, "macos1011: {rtt_mac} s");
    // Reno's sawtooth in a 500-frame queue keeps more than 250 frames queued on average.
    assert!(rtt_win > 250.0 * 0.92e-3, "windows10: {rtt_win} s");
    assert!(
        rtt_win > rtt_mac,
        "windows10 {rtt_win} s, macos1011 {rtt_mac} s"
    );
}

/// The same kind and seed give identical outputs; another seed other ones.
#[test]
fn runs_of_the_os_kinds_are_deterministic() {
    for tcp in [WINDOWS10, MACOS1011] {
        let (a, b, c) = (run(tcp, "3s", 1), run(tcp, "3s", 1), run(tcp, "3s", 2));
        let json = |o: &RunOutput| serde_json::to_string(&o.summary).unwrap();
        assert_eq!(json(&a), json(&b));
        assert_eq!(a.tables, b.tables);
        assert_ne!(json(&a), json(&c));
        assert!(table(&a, "cwnd").rows() > 0);
    }
}

/// A beta_cubic outside (0, 1) is refused, naming the key and what was expected.
#[test]
fn a_bad_cubic_beta_is_refused_by_key() {
    for beta in ["1.0", "0", "-0.5"] {
        let text = wifi_upload("", "1s", "", &format!("cubic_beta = {beta}"));
        let msg = common::error_of(&text);
        assert!(
            msg.contains("cubic_beta") && msg.contains("between 0 and 1"),
            "{beta}: {msg}"
        );
    }
}
