//! LTE cell bearers with handovers, checked against timings computed by hand.

mod common;
use common::*;

/// IPv4 (20 B) + UDP (8 B) headers.
const HDR: u64 = 28;

/// Uplink 5 Mbit/s / 20 ms, downlink 20 Mbit/s / 10 ms; one 100 B message
/// each way every 100 ms; a handover completes at 10 s after a 3 s burst
/// loss, into a congested cell whose downlink delay is 500 ms.
fn lte(extra: &str) -> String {
    format!(
        r#"
record = ["delay", "handovers", "drops"]
[sim]
duration = "20s"
[[nodes]]
name = "ue"
[[nodes]]
name = "enb"
[[links]]
name = "radio"
ends = ["ue", "enb"]
rate = "5Mbps"
delay = "20ms"
reverse = {{ rate = "20Mbps", delay = "10ms" }}
[[flows]]
name = "up"
from = "ue"
to = "enb"
app = {{ kind = "periodic", size = "100B", interval = "100ms" }}
[[flows]]
name = "down"
from = "enb"
to = "ue"
app = {{ kind = "periodic", size = "100B", interval = "100ms" }}
start = "50ms"
{extra}
"#
    )
}

fn delays(out: &tern_sim::RunOutput, flow: &str) -> Vec<(f64, f64)> {
    let t = table(out, "delay");
    let names = texts(t, "flow");
    f64s(t, "sent")
        .into_iter()
        .zip(f64s(t, "delay"))
        .zip(names)
        .filter(|(_, n)| n == flow)
        .map(|(x, _)| x)
        .collect()
}

#[test]
fn asymmetric_bearers_have_their_own_rate_and_delay() {
    let out = run(&lte(""));
    // (100 + 28) B at 5 Mbit/s = 204.8 µs, + 20 ms; at 20 Mbit/s = 51.2 µs, + 10 ms.
    let up = (100 + HDR) as f64 * 8.0 / 5e6 + 0.020;
    let down = (100 + HDR) as f64 * 8.0 / 20e6 + 0.010;
    assert!(delays(&out, "up")
        .iter()
        .all(|&(_, d)| (d - up).abs() < 1e-9));
    assert!(delays(&out, "down")
        .iter()
        .all(|&(_, d)| (d - down).abs() < 1e-9));
}

#[test]
fn handover_loses_everything_in_the_burst_then_switches_cell() {
    let out = run(&lte(r#"
[links.cell]
handovers = [{ at = "10s", burst_loss = "3s", downlink = { delay = "500ms" } }]
"#));
    let up_tx = (100 + HDR) as f64 * 8.0 / 5e6;
    // Loss is decided when a packet is sent over the air: an uplink message is
    // lost iff its last bit leaves the UE in [7 s, 10 s).
    let got: Vec<f64> = delays(&out, "up").iter().map(|x| x.0).collect();
    let expected: Vec<f64> = (0..200)
        .map(|k| k as f64 * 0.1)
        .filter(|s| !(s + up_tx >= 7.0 - 1e-9 && s + up_tx < 10.0 - 1e-9))
        .collect();
    assert_eq!(got.len(), expected.len(), "uplink deliveries");
    for (g, e) in got.iter().zip(&expected) {
        assert!((g - e).abs() < 1e-9, "{g} vs {e}");
    }
    // The target cell's downlink delay applies to packets serialized from 10 s on.
    let down_tx = (100 + HDR) as f64 * 8.0 / 20e6;
    for (sent, d) in delays(&out, "down") {
        let expect = if sent >= 10.0 { 0.5 } else { 0.010 };
        assert!((d - down_tx - expect).abs() < 1e-9, "sent {sent}: {d}");
    }
    let h = table(&out, "handovers");
    assert_eq!(f64s(h, "time"), vec![10.0]);
    assert_eq!(f64s(h, "loss_start"), vec![7.0]);
    assert_eq!(u64s(h, "cell"), vec![1]);
    assert_eq!(texts(h, "ue"), vec!["ue".to_string()]);
}

/// The fate of a packet is the state of the cell it is sent in: one sent
/// 10 ms before the burst starts is delivered although it arrives inside it,
/// and one sent 10 ms before the handover completes is lost although it
/// arrives after (uplink delay 20 ms).
#[test]
fn loss_is_decided_when_a_packet_is_sent_over_the_air() {
    let out = run(&lte(r#"
[links.cell]
handovers = [{ at = "10s", burst_loss = "3s" }]
[[flows]]
name = "late"
from = "ue"
to = "enb"
app = { kind = "periodic", size = "100B", interval = "100ms" }
start = "90ms"
"#));
    let up_tx = (100 + HDR) as f64 * 8.0 / 5e6;
    let sent: Vec<f64> = delays(&out, "late").iter().map(|x| x.0).collect();
    let near = |t: f64| sent.iter().any(|s| (s - t).abs() < 1e-9);
    // Sent at 6.99 s: leaves at 6.99 s + 0.2 ms, arrives at 7.0102 s.
    assert!(6.99 + up_tx < 7.0 && 6.99 + up_tx + 0.020 > 7.0);
    assert!(near(6.99), "sent before the burst: delivered");
    // Sent at 9.99 s: leaves at 9.9902 s, would arrive at 10.0102 s.
    assert!(9.99 + up_tx < 10.0 && 9.99 + up_tx + 0.020 > 10.0);
    assert!(!near(9.99), "sent during the burst: lost");
    assert!(near(10.09), "sent after the handover: delivered");
}

#[test]
fn a_train_hands_over_at_regular_intervals_until_the_end() {
    let out = run(&lte(r#"
[links.cell]
train = { first = "4s", every = "5s", burst_loss = "1s", loss_direction = "reverse" }
"#));
    let h = table(&out, "handovers");
    assert_eq!(f64s(h, "time"), vec![4.0, 9.0, 14.0, 19.0]);
    assert_eq!(u64s(h, "cell"), vec![1, 2, 3, 4]);
    // Only the downlink loses: 4 bursts of 1 s at one message per 100 ms.
    assert_eq!(delays(&out, "up").len(), 200);
    assert_eq!(delays(&out, "down").len(), 200 - 40);
}

#[test]
fn a_train_with_zero_interval_is_rejected_with_its_key() {
    let text = lte("[links.cell]\ntrain = { first = \"4s\", every = \"0s\" }\n");
    let err = tern_sim::run_text("lte.toml", &text, &[], None)
        .err()
        .expect("rejected")
        .to_string();
    assert!(err.contains("links[0].cell.train.every"), "{err}");
    assert!(err.contains("lte.toml:"), "{err}");
}

#[test]
fn a_train_granting_nothing_is_rejected_with_its_key() {
    let text = lte(
        "[links.cell]\ntrain = { first = \"4s\", every = \"5s\", uplink = { rate = \"0bps\" } }\n",
    );
    let err = tern_sim::run_text("lte.toml", &text, &[], None)
        .err()
        .expect("rejected")
        .to_string();
    assert!(err.contains("links[0].cell.train.uplink.rate"), "{err}");
}

/// A cell whose uplink grant is `rate`, and one UDP message of 1000 B on the wire (972 B +
/// IPv4/UDP) every `interval`, `count` of them, from 0 s; 20 ms radio delay; a UE buffer
/// of 1000 packets (never full here).
fn granted(rate: &str, interval: &str, count: u32, extra: &str) -> String {
    format!(
        r#"
record = ["delay"]
[sim]
duration = "40s"
[[nodes]]
name = "ue"
[[nodes]]
name = "enb"
[[links]]
name = "radio"
ends = ["ue", "enb"]
rate = "{rate}"
delay = "20ms"
queue = {{ kind = "droptail", limit = "1000pkt" }}
[[flows]]
name = "up"
from = "ue"
to = "enb"
app = {{ kind = "periodic", size = "972B", interval = "{interval}", count = {count} }}
{extra}
"#
    )
}

/// A backlog drains at the granted rate: 50 packets of 1000 B offered every 10 ms to an
/// 80 kbit/s grant (100 ms each). The buffer never empties, so message k (sent at 10k ms)
/// waits for the k + 1 packets up to and including its own less what 10k ms of service
/// took away: ((k + 1) · 1000 B − 10k ms · 10 B/ms) · 8 / 80 kbit/s = 100 + 90k ms, then
/// 20 ms over the air.
#[test]
fn a_backlog_drains_at_the_granted_rate() {
    let out = run(&granted("80kbps", "10ms", 50, "[links.cell]\n"));
    let got = delays(&out, "up");
    assert_eq!(got.len(), 50);
    for (k, (sent, d)) in got.into_iter().enumerate() {
        let queued_bytes = (k as f64 + 1.0) * 1000.0 - sent * 1000.0 * 10.0;
        let expected = queued_bytes * 8.0 / 80e3 + 0.020;
        assert!((sent - k as f64 * 0.010).abs() < 1e-9);
        assert!(
            (d - (0.100 + 0.090 * k as f64 + 0.020)).abs() < 1e-6,
            "k {k}: {d}"
        );
        assert!((d - expected).abs() < 1e-6, "k {k}: {d} vs {expected}");
    }
}

/// The delay follows a rate schedule as a FIFO server's: 1000 B every 100 ms (80 kbit/s)
/// into a grant of 40 kbit/s that becomes 160 kbit/s at T = 10.05 s. The buffer is busy
/// from 0 s, so message k leaves when the cumulative service S(t) reaches its cumulative
/// arrivals, 8000 (k + 1) bits: S(t) = 40 000 t up to T (402 000 bits), then
/// 402 000 + 160 000 (t − T). Message 50 is in service at T with 2000 of its 8000 bits
/// sent: the rest takes 37.5 ms at the new rate (it would take 150 ms at the old one).
/// The backlog is gone when a departure comes before the next arrival: message 150 leaves
/// at 15.0875 s, message 151 is sent at 15.1 s and from then on each waits only its own
/// 50 ms of service.
#[test]
fn the_delay_follows_a_rate_schedule() {
    let expected = |k: usize| {
        let bits = 8000.0 * (k as f64 + 1.0);
        let sent = 0.1 * k as f64;
        let leaves = if k > 150 {
            sent + 8000.0 / 160e3
        } else if bits <= 402_000.0 {
            bits / 40e3
        } else {
            10.05 + (bits - 402_000.0) / 160e3
        };
        leaves - sent + 0.020
    };
    assert!((expected(50) - (10.0875 - 5.0 + 0.020)).abs() < 1e-9);
    // The change by the link's schedule, and by a handover into a cell granting more
    // (no burst loss): the same grant, the same delays.
    for extra in [
        "[links.cell]\n[[links.schedule]]\nat = \"10.05s\"\nrate = \"160kbps\"\ndirection = \"forward\"\n",
        "[links.cell]\nhandovers = [{ at = \"10.05s\", burst_loss = \"0s\", uplink = { rate = \"160kbps\" } }]\n",
    ] {
        let out = run(&granted("40kbps", "100ms", 300, extra));
        let got = delays(&out, "up");
        assert_eq!(got.len(), 300, "{extra}");
        for (k, (_, d)) in got.into_iter().enumerate() {
            assert!((d - expected(k)).abs() < 1e-6, "{extra} k {k}: {d} vs {}", expected(k));
        }
    }
}

/// On a wired link a packet keeps the rate it started with (ns-3's point-to-point device):
/// message 50 of the schedule above takes its whole 200 ms at 40 kbit/s, from 10 s.
#[test]
fn a_wired_link_keeps_the_rate_a_packet_started_with() {
    let extra = "[[links.schedule]]\nat = \"10.05s\"\nrate = \"160kbps\"\n";
    let out = run(&granted("40kbps", "100ms", 300, extra));
    let (sent, d) = delays(&out, "up")[50];
    assert!((sent + d - (10.2 + 0.020)).abs() < 1e-6, "{sent} {d}");
}

/// A W-CDMA bearer between `ue` and `rnc` with RLC AM, a CBR flood down it.
fn wcdma(extra_rlc: &str, flood: &str) -> String {
    wcdma_delay("20ms", extra_rlc, flood)
}

/// As [`wcdma`], with `delay` one way per PDU.
fn wcdma_delay(delay: &str, extra_rlc: &str, flood: &str) -> String {
    format!(
        r#"
record = ["delay", "rlc"]
[sim]
duration = "20s"
[[nodes]]
name = "ue"
[[nodes]]
name = "rnc"
[[links]]
name = "radio"
ends = ["ue", "rnc"]
rate = "64kbps"
delay = "{delay}"
reverse = {{ rate = "384kbps" }}
rlc = {{ {extra_rlc} }}
[[flows]]
name = "down"
from = "rnc"
to = "ue"
app = {{ kind = "cbr", rate = "{flood}", size = "1000B" }}
"#
    )
}

#[test]
fn rlc_bearer_carries_its_payload_rate_less_length_indicators() {
    // 384 kbit/s of RLC payload in 40 B PDUs = 12 PDUs per 10 ms TTI. Back-to-
    // back SDUs of L = 1028 B (1000 B + IPv4/UDP headers) need one 1-octet
    // length indicator each, so the IP throughput is 384 kbit/s · L / (L + 1).
    let out = run(&wcdma("", "600kbps"));
    let t = table(&out, "delay");
    let arrivals: Vec<f64> = f64s(t, "time");
    let (a, b) = (5.0, 15.0);
    let n = arrivals.iter().filter(|&&x| x >= a && x < b).count() as f64;
    let l = 1028.0;
    let expected = 384_000.0 * l / (l + 1.0) / (l * 8.0) * (b - a);
    assert!(
        (n - expected).abs() <= 1.0,
        "{n} SDUs delivered in 10 s, expected {expected}"
    );
    let rlc = reverse_rlc(&out);
    assert_eq!((rlc.pdus_lost, rlc.pdus_retransmitted), (0, 0));
}

#[test]
fn rlc_hides_pdu_loss_as_delay_and_delivers_in_order() {
    let out = run(&wcdma(
        r#"pdu_loss = { kind = "bernoulli", p = 0.05 }"#,
        "100kbps",
    ));
    let t = table(&out, "delay");
    let seqs = u64s(t, "seq");
    // In order and exactly once, none lost (MaxDAT is never reached at 5 %).
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "in order");
    let f = &out.summary.flows["down"];
    // None dropped: the only messages not delivered are those still on their way at the end.
    assert_eq!(f.messages_lost, f.messages_in_flight);
    assert!(f.messages_in_flight <= 1);
    let rlc = reverse_rlc(&out);
    assert!(rlc.pdus_lost > 0 && rlc.pdus_retransmitted >= rlc.pdus_lost / 2);
    // Loss shows as delay: the worst SDU waited for at least one STATUS round.
    let d = f.delay_s.as_ref().unwrap();
    assert!(d.max > d.min + 0.05, "{d:?}");
}

/// The RLC counters of the bearer's reverse direction (RNC to UE) in a `wcdma` run.
fn reverse_rlc(out: &tern_sim::RunOutput) -> &tern_sim::cellular::wcdma::RlcSummary {
    match &out.summary.links["radio"]["reverse"].detail {
        Some(tern_sim::scenario::LinkDetail::rlc(rlc)) => rlc,
        other => panic!("expected the RLC's counters, got {other:?}"),
    }
}

/// SDUs of a `wcdma` run that reached the UE in [5 s, 15 s).
fn delivered_5_to_15(out: &tern_sim::RunOutput) -> f64 {
    let arrivals = f64s(table(out, "delay"), "time");
    arrivals
        .iter()
        .filter(|&&x| (5.0..15.0).contains(&x))
        .count() as f64
}

/// The wcdma-profile study's bearer (40 ms per PDU one way, so the RLC's
/// poll-to-STATUS round trip is 10 ms TTI + 40 ms + 10 ms + 40 ms = 100 ms)
/// flooded at 500 kbit/s. Without loss it carries its payload rate less
/// one LI octet per 1028 B SDU, 384 kbit/s · L / (L + 1), as at 20 ms; with
/// 2 % PDU loss, a retransmission takes the place of every lost PDU, so it
/// carries no more. With window-based polling alone (Poll_Window 80 %, no
/// Poll_SDU), the 102 PDUs of headroom in a 512-PDU window go in 85 ms at 12
/// PDUs per TTI, before the poll's STATUS is back: the window stalls once
/// per cycle (with loss, gaps keep STATUS reports coming, TS 25.322 §9.7.2,
/// and it does not).
#[test]
fn rlc_without_loss_is_not_slower_than_with_loss() {
    let loss = r#"pdu_loss = { kind = "bernoulli", p = 0.02 }"#;
    let l = 1028.0;
    let expected = 384_000.0 * l / (l + 1.0) / (l * 8.0) * 10.0;
    let clean = delivered_5_to_15(&run(&wcdma_delay("40ms", "", "500kbps")));
    let lossy = delivered_5_to_15(&run(&wcdma_delay("40ms", loss, "500kbps")));
    assert!(
        (clean - expected).abs() <= 1.0,
        "{clean} SDUs, expected {expected}"
    );
    assert!(clean >= lossy, "0 %: {clean} SDUs, 2 %: {lossy}");
    // Window-based polling alone: each stall (at least 15 ms of 100 ms
    // round trip less 85 ms of headroom, every cycle of at most 0.5 s) costs
    // over 1 % of the bearer.
    let window_only = "poll_sdu = 0, poll_window = 80";
    let stalled = delivered_5_to_15(&run(&wcdma_delay("40ms", window_only, "500kbps")));
    assert!(
        stalled < expected * 0.99,
        "window-based only: {stalled} SDUs"
    );
}
