//! TCP BBRv3 over the shared point-to-point link, against the path's own figures and
//! against BBR v1 on the same link.

mod common;
use common::*;

/// What [`p2p`] measures.
#[derive(Debug)]
struct Figures {
    goodput: f64,
    queue_mean: f64,
    queue_max: u64,
    retransmits: u64,
    /// Mean window over the run, packets of 1448 B, time-weighted.
    mean_cwnd: f64,
    /// Instants the window fell to 20 packets or below from above.
    dips: Vec<f64>,
}

/// The shared p2p scenario (`scenarios/examples/p2p-bulk.toml`: 10 Mbit/s, 20 ms, a
/// 100-packet DropTail queue) for 30 s with controller `cc`, without TCP Small Queues (so
/// that the controller alone sets the queue), random loss `loss` per packet on the link.
fn p2p(cc: &str, loss: f64) -> Figures {
    let text = include_str!("../../../scenarios/examples/p2p-bulk.toml");
    let set = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    let mut overrides = vec![
        set("flows.bulk.transport.cc", cc),
        set("flows.bulk.transport.tsq", "8589934592GiB"),
        set("sim.duration", "30s"),
        set("record", r#"["cwnd"]"#),
    ];
    if loss > 0.0 {
        overrides.push(set(
            "links.access.loss",
            &format!(r#"{{ kind = "bernoulli", p = {loss} }}"#),
        ));
    }
    let run = || tern_sim::run_text("p2p-bulk.toml", text, &overrides, None).unwrap();
    let out = run();
    // Determinism: the same scenario and seed give the same summary.
    assert_eq!(
        serde_json::to_string(&out.summary).unwrap(),
        serde_json::to_string(&run().summary).unwrap()
    );
    let q = &out.summary.links["access"]["forward"];
    let c = table(&out, "cwnd");
    let (t, w) = (f64s(c, "time"), u64s(c, "cwnd"));
    let mut area = 0.0;
    for i in 1..t.len() {
        area += (t[i] - t[i - 1]) * w[i - 1] as f64;
    }
    let end = 30.0;
    area += (end - t[t.len() - 1]) * w[w.len() - 1] as f64;
    let dips = (1..t.len())
        .filter(|&i| w[i] <= 20 * 1448 && w[i - 1] > 20 * 1448)
        .map(|i| t[i])
        .collect();
    let flow = &out.summary.flows["bulk"];
    Figures {
        goodput: flow.goodput_bps,
        queue_mean: q.queue_mean_packets,
        queue_max: q.queue_max_packets,
        retransmits: flow.tcp().map_or(0, |t| {
            t.retransmits_fast + t.retransmits_rto + t.retransmits_sack
        }),
        mean_cwnd: area / (end - t[0]) / 1448.0,
        dips,
    }
}

/// BBRv3 alone on the link, against the path's figures. The link carries 10 Mbit/s ·
/// 1448 / 1500 = 9.653 Mbit/s of payload (IPv4 20 B, TCP 32 B with timestamps); in CRUISE
/// BBR paces 1 % below its estimate (`bbr_pacing_margin_percent`): 9.557 Mbit/s. PROBE_RTT
/// comes every 5 s (draft `ProbeRTTInterval`): five times in 30 s, each 200 ms plus a round
/// (≤ 0.3 s) at half the BDP, so at most 0.15 s of sending lost each; STARTUP and the
/// handshake cost at most 1 s. Goodput ≥ 9.557 · (30 − 5 · 0.15 − 1) / 30 = 9.00 Mbit/s,
/// 90 % of the link. PROBE_RTT's window is half the BDP: ⌈1.2067 MB/s · 41.2 ms / 2 / 1448⌉
/// = 18 packets (payload rate; 40 ms plus a packet's 1.2 ms serialization), under 20; the
/// first comes 5 s after the first RTT sample (one handshake and one data round, ≈ 0.08 s),
/// each next one 5 s after the previous ended (≤ 0.3 s after it began).
///
/// Against BBR v1 on the same link (tcp_bbr.c, `cc = "bbr"`): v1's STARTUP window is 2.89
/// BDP and it probes at 1.25 every 8 rounds; v3's STARTUP window is 2 BDP, it probes every
/// min(63, BDP in packets) = 35 rounds and its DOWN phase paces at 0.91 until the flight is
/// under the BDP. Both its largest and its mean queue are below v1's.
#[test]
fn bbr3_fills_the_link_with_a_smaller_queue_than_v1() {
    let v3 = p2p("bbr3", 0.0);
    let v1 = p2p("bbr", 0.0);
    eprintln!("no loss: v3 {v3:?}\nno loss: v1 {v1:?}");
    let payload = 10e6 * 1448.0 / 1500.0;
    let lower = payload * 0.99 * (30.0 - 5.0 * 0.15 - 1.0) / 30.0;
    assert!(v3.goodput >= lower && v3.goodput <= payload, "{v3:?}");
    assert_eq!(v3.retransmits, 0, "{v3:?}");
    assert_eq!(v3.dips.len(), 5, "{v3:?}");
    assert!(v3.dips[0] > 5.04 && v3.dips[0] < 5.2, "{v3:?}");
    for pair in v3.dips.windows(2) {
        let gap = pair[1] - pair[0];
        assert!((5.2..=5.3 + 0.05).contains(&gap), "{v3:?}");
    }
    assert!(v3.queue_max < v1.queue_max, "{v3:?} {v1:?}");
    assert!(v3.queue_mean < v1.queue_mean, "{v3:?} {v1:?}");
}

/// With 1 % random loss on the link (Bernoulli, per packet), v1 carries on: it reacts to
/// loss only through packet conservation in a recovery round and its policer detector,
/// which needs 20 % loss over an interval (`bbr_lt_loss_thresh` = 50/256); its goodput is its
/// loss-free one less the 1 % resent and the recovery rounds: at least 97 % of it. v3 takes
/// loss as a signal: a probe whose flight of under 52 packets (two BDPs here) loses one
/// packet is over the 2 % threshold (⌊n · 5/256⌋ = 0 for n < 52) and sets `inflight_hi`,
/// which happens in 1 − 0.99^35 ≈ 30 % of rounds; outside probing each lossy round cuts
/// `inflight_lo` to 0.7 of itself (`BBRBeta`) down to what the round delivered. Its mean
/// window is below 0.7 of v1's, and its goodput below v1's.
#[test]
fn with_one_percent_random_loss_bbr3_backs_off_and_v1_does_not() {
    let v1_clean = p2p("bbr", 0.0);
    let v1 = p2p("bbr", 0.01);
    let v3 = p2p("bbr3", 0.01);
    eprintln!("1 % loss: v3 {v3:?}\n1 % loss: v1 {v1:?}\nno loss: v1 {v1_clean:?}");
    assert!(v1.goodput >= 0.97 * v1_clean.goodput, "{v1:?} {v1_clean:?}");
    assert!(v3.mean_cwnd < 0.7 * v1.mean_cwnd, "{v3:?} {v1:?}");
    assert!(v3.goodput < v1.goodput, "{v3:?} {v1:?}");
    assert!(v3.retransmits > 0 && v1.retransmits > 0);
}
