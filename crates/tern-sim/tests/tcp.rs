//! TCP over simulated links, checked against ns-3 and against theory.
//!
//! ns-3 reference values come from `../shared/bench/ns3/` run with the
//! `ns3` 3.44.post0 wheel; the command is quoted beside each value.

mod common;
use common::*;
use tern_sim::RunOutput;

fn example(overrides: &[(&str, &str)]) -> RunOutput {
    let text = include_str!("../../../scenarios/examples/p2p-bulk.toml");
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tern_sim::run_text("p2p-bulk.toml", text, &overrides, None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn bulk_goodput_matches_ns3_within_5_percent() {
    // `python p2p_bulk.py --duration 60` (ns-3.44): goodput_mbps 9.619160533333334.
    let ns3 = 9.619160533333334e6;
    let out = example(&[]);
    let g = out.summary.flows["bulk"].goodput_bps;
    assert!((g / ns3 - 1.0).abs() < 0.05, "Tern {g} bit/s vs ns-3 {ns3}");
    // The 100-packet queue overflows now and then, as in ns-3 (71 drops there).
    assert!(out.summary.links["access"]["forward"].drops.queue > 0);
}

/// Mean goodput (bit/s) of p2p-bulk over seeds 1-4 with 1 % Bernoulli loss on data packets,
/// SACK on, delayed ACK off, plus `extra` overrides, and Mathis et al. 1997's prediction:
/// throughput = MSS / RTT · sqrt(3 / (2p)), for periodic loss and an ACK per segment. RTT
/// with no queue: 2 × 20 ms + 1500 B and 52 B serialized at 10 Mbit/s = 41.2416 ms. Also
/// checks that seed 1 run twice gives the same summary and traces.
fn mathis(extra: &[(&str, &str)]) -> (f64, f64) {
    let mss = 1448.0 * 8.0;
    let rtt = 0.040 + 1500.0 * 8.0 / 10e6 + 52.0 * 8.0 / 10e6;
    let expected = mss / rtt * (3.0f64 / (2.0 * 0.01)).sqrt();
    let text = include_str!("../../../scenarios/examples/p2p-bulk.toml");
    let overrides: Vec<(String, String)> = [
        ("links.access.loss.kind", "bernoulli"),
        ("links.access.loss.p", "0.01"),
        ("links.access.loss.direction", "forward"),
        ("flows.bulk.transport.delayed_ack", "false"),
    ]
    .iter()
    .chain(extra)
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let run = |seed| tern_sim::run_text("p2p-bulk.toml", text, &overrides, Some(seed)).unwrap();
    let (a, b) = (run(1), run(1));
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(a.tables, b.tables);
    let total: f64 = (1..=4)
        .map(|seed| run(seed).summary.flows["bulk"].goodput_bps)
        .sum();
    (total / 4.0, expected)
}

#[test]
fn goodput_under_random_loss_follows_the_mathis_formula() {
    let (g, expected) = mathis(&[]);
    assert!(
        (g / expected - 1.0).abs() < 0.20,
        "Tern {g} bit/s vs Mathis {expected}"
    );
}

/// PRR (RFC 9937) changes what is sent during fast recovery, not the window it ends at
/// (ssthresh, RFC 9937 §4), so the long-run throughput under random loss still follows
/// the congestion-avoidance law of Mathis et al.
#[test]
fn with_prr_goodput_under_random_loss_follows_the_mathis_formula() {
    let (g, expected) = mathis(&[("flows.bulk.transport.prr", "true")]);
    assert!(
        (g / expected - 1.0).abs() < 0.20,
        "Tern with PRR {g} bit/s vs Mathis {expected}"
    );
}

#[test]
fn rto_backoff_through_an_outage_matches_rfc6298_and_ns3() {
    // Everything dropped from 20 s to 23 s, both directions
    // (`python p2p_bulk_outage.py --duration 60` in ns-3.44: RTO expiries at
    // 20.9994624 s and 22.9994624 s, delivery resumes at 23.0619088 s).
    // RFC 6298: the last ACK arrives just before 20 s; the timer (RTO = 1 s,
    // the minimum, §2.4) expires 1 s later; the retransmission is lost, the
    // RTO doubles (§5.5) and expires 2 s later, just before the outage ends;
    // that retransmission gets through and its ACK returns one RTT later.
    let out = example(&[
        ("links.access.loss.kind", "outage"),
        (
            "links.access.loss.windows",
            r#"[{ at = "20s", for = "3s" }]"#,
        ),
        ("record", r#"["retransmits", "rto"]"#),
    ]);
    let t = table(&out, "retransmits");
    let kinds = match &t.columns.iter().find(|c| c.name == "kind").unwrap().data {
        tern_sim::trace::ColumnData::Text { codes, labels } => codes
            .iter()
            .map(|&c| labels[c as usize].clone())
            .collect::<Vec<_>>(),
        _ => unreachable!(),
    };
    let times = f64s(t, "time");
    let backoffs = common::opt_u64s(t, "backoff");
    let expiries: Vec<(f64, u64)> = kinds
        .iter()
        .zip(times.iter().zip(&backoffs))
        .filter(|(k, _)| *k == "rto_expiry")
        .map(|(_, (t, b))| (*t, b.expect("an expiry has its back-off")))
        .collect();
    // Only expiries have a back-off: the other rows hold null, not a made-up 0.
    assert!(kinds
        .iter()
        .zip(&backoffs)
        .all(|(k, b)| b.is_some() == (k == "rto_expiry")));
    assert_eq!(expiries.len(), 2, "{expiries:?}");
    assert!(
        (expiries[0].0 - 20.9994624).abs() < 0.01 && expiries[0].1 == 1,
        "{expiries:?}"
    );
    assert!(
        (expiries[1].0 - 22.9994624).abs() < 0.01 && expiries[1].1 == 2,
        "{expiries:?}"
    );
    assert_eq!(out.summary.flows["bulk"].tcp().unwrap().rto_expiries, 2);
    // ns-3: overall goodput 8.8745024 Mbit/s with the outage.
    let g = out.summary.flows["bulk"].goodput_bps;
    assert!((g / 8.8745024e6 - 1.0).abs() < 0.05, "{g}");
}

#[test]
fn codel_keeps_tcp_queueing_delay_near_target() {
    // With one responsive NewReno flow, CoDel (RFC 8289) holds the standing
    // queue near its 5 ms target, where the 100-packet DropTail queue sits
    // near full (~100 ms): the mean queueing delay stays under 3 × target.
    let out = example(&[("links.access.queue", r#"{ kind = "codel" }"#)]);
    let ch = &out.summary.links["access"]["forward"];
    let mean_delay = ch.queue_mean_bytes * 8.0 / 10e6;
    assert!(mean_delay < 0.015, "mean queueing delay {mean_delay} s");
    assert!(ch.drops.aqm > 0);
    let droptail = example(&[]);
    let dt = droptail.summary.links["access"]["forward"].queue_mean_bytes * 8.0 / 10e6;
    assert!(
        dt > 5.0 * mean_delay,
        "DropTail {dt} s vs CoDel {mean_delay} s"
    );
    // A queue of target × rate is smaller than the bandwidth-delay product, so
    // the Reno sawtooth (W from W_max/2 to W_max = BDP + B, growing one
    // segment per RTT) leaves the link idle while W < BDP. Utilisation is the
    // time average of min(W, BDP) / BDP over one linear tooth.
    let pkt = 1500.0 * 8.0 / 10e6;
    let bdp = (0.040 + pkt + 52.0 * 8.0 / 10e6) / pkt; // packets
    let b = 0.005 / pkt;
    let (w_max, w_min) = (bdp + b, (bdp + b) / 2.0);
    let below = (bdp - w_min) * (w_min + bdp) / 2.0 / bdp;
    let utilisation = (below + (w_max - bdp)) / (w_max - w_min);
    let expected = utilisation * 10e6 * 1448.0 / 1500.0;
    let g = out.summary.flows["bulk"].goodput_bps;
    assert!(
        (g / expected - 1.0).abs() < 0.05,
        "goodput {g} vs Reno sawtooth {expected}"
    );
}

#[test]
fn bounded_transfer_completes_and_closes() {
    // 1 MB over an idle 10 Mbit/s link: completion after at least the
    // serialization time of the data (1e6 / 1448 segments of 1500 B).
    let out = example(&[("flows.bulk.app.bytes", "1MB")]);
    let f = &out.summary.flows["bulk"];
    assert_eq!(f.bytes_delivered, 1_000_000);
    let tcp = f.tcp().unwrap();
    let done = tcp.completion_time_s.expect("completed");
    let min = (1_000_000f64 / 1448.0).ceil() * 1500.0 * 8.0 / 10e6 + 0.040;
    assert!(done > min && done < 2.0, "{done}");
    // Both sides closed; the client waits out TIME-WAIT (RFC 9293 §3.6).
    assert_eq!(tcp.state, "TimeWait");
}

#[test]
fn same_seed_same_outputs_under_loss() {
    let o = [
        ("links.access.loss.kind", "bernoulli"),
        ("links.access.loss.p", "0.02"),
    ];
    let a = example(&o);
    let b = example(&o);
    let sa = serde_json::to_string(&a.summary).unwrap();
    assert_eq!(sa, serde_json::to_string(&b.summary).unwrap());
    assert_eq!(a.tables, b.tables);
    let text = include_str!("../../../scenarios/examples/p2p-bulk.toml");
    let o: Vec<(String, String)> = o
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let c = tern_sim::run_text("x", text, &o, Some(99)).unwrap();
    assert_ne!(sa, serde_json::to_string(&c.summary).unwrap());
}

/// Two nodes on a fast link (1 Gbit/s, so serialization is negligible) with
/// the given one-way delay, and one TCP flow.
fn fast_link(delay: &str, duration: &str, flow: &str) -> String {
    p2p(
        "1Gbps",
        delay,
        r#"{ kind = "droptail", limit = "1000pkt" }"#,
        duration,
        flow,
    )
}

#[test]
fn initial_window_sets_the_slow_start_rounds_of_a_page_download() {
    // A 100 KB page (70 segments of 1448 B) over a 200 ms RTT, an ACK per
    // segment. Connection set-up takes one RTT, the request half of one, and
    // each slow-start round one RTT (RFC 5681 §3.1: cwnd grows by one SMSS per
    // ACK, so it doubles per round). The last byte arrives after
    // (1 + k) RTTs, k the rounds needed: with IW = 1 segment (RFC 1122)
    // 1+2+4+…: k = 7; with RFC 3390's 4380 B (3 segments), 3+6+12+24+48: k = 5.
    let rtt = 0.200;
    for (iw, rounds) in [("\"rfc1122\"", 7.0), ("\"rfc3390\"", 5.0), ("10", 3.0)] {
        let flow = format!(
            r#"
[[flows]]
name = "page"
from = "b"
to = "a"
app = {{ kind = "file", size = "100KB" }}
transport = {{ kind = "tcp", delayed_ack = false, initial_window = {iw} }}
"#
        );
        let out = run(&fast_link("100ms", "10s", &flow));
        let tcp = out.summary.flows["page"].tcp().cloned().unwrap();
        let t = tcp.transfer_time_s.expect("page completed");
        let expected = (1.0 + rounds) * rtt;
        assert!(
            (t - expected).abs() < 0.005,
            "IW {iw}: {t} s vs {expected} s"
        );
        assert_eq!(out.summary.flows["page"].bytes_delivered, 100_000);
    }
}

#[test]
fn head_of_line_blocking_after_an_outage_follows_the_rto_backoff() {
    // A 1000 B message every 100 ms over TCP (no delayed ACK), everything lost
    // from 10 s to 13 s. RFC 6298: the message sent at 10.0 s is lost; the
    // RTO (1 s, the minimum) fires at 11.0 s and the retransmission is lost;
    // the doubled RTO fires at 13.0 s and that copy gets through, 1048 B...
    // 1500 B serialized at 10 Mbit/s plus 20 ms later. Its application
    // delay is therefore 3 s + 1.2 ms + 20 ms, where UDP would give 21 ms.
    let text = p2p(
        "10Mbps",
        "20ms",
        r#"{ kind = "droptail", limit = "100pkt" }"#,
        "20s",
        "",
    ) + "loss = { kind = \"outage\", windows = [{ at = \"10s\", for = \"3s\" }] }\n"
        + r#"
[[flows]]
name = "msgs"
from = "a"
to = "b"
app = { kind = "periodic", size = "1000B", interval = "100ms" }
transport = { kind = "tcp", delayed_ack = false }
"#;
    let out = run(&text);
    let t = table(&out, "delay");
    let seqs = u64s(t, "seq");
    let delays = f64s(t, "delay");
    let at = |seq: u64| delays[seqs.iter().position(|&s| s == seq).expect("delivered")];
    assert!(at(99) < 0.05, "the message before the outage: {}", at(99));
    let first_lost = at(100);
    let expected = 3.0 + 1500.0 * 8.0 / 10e6 + 0.020;
    assert!(
        (first_lost - expected).abs() < 0.002,
        "{first_lost} vs {expected}"
    );
    // Every message is delivered exactly once and in order (TCP).
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
    assert_eq!(
        seqs.len() as u64,
        out.summary.flows["msgs"].messages_delivered
    );
}

/// A lossy Reno transfer recording every segment sent.
fn reno_segments() -> RunOutput {
    example(&[
        ("sim.duration", "5s"),
        ("links.access.loss.kind", "bernoulli"),
        ("links.access.loss.p", "0.01"),
        ("links.access.loss.direction", "forward"),
        ("flows.bulk.transport.sack", "false"),
        ("flows.bulk.transport.recovery", "reno"),
        ("record", r#"["segments"]"#),
    ])
}

#[test]
fn segments_trace_is_a_time_sequence_of_the_transfer() {
    let out = reno_segments();
    let t = table(&out, "segments");
    let (ends, seqs, lens) = (texts(t, "endpoint"), u64s(t, "seq"), u64s(t, "len"));
    let (acks, retx) = (opt_u64s(t, "ack"), u64s(t, "retransmission"));
    let tcp = out.summary.flows["bulk"].tcp().unwrap();
    // New data leaves in sequence order (RFC 9293 §3.8): each first transmission starts
    // where the previous one ended, from byte 1 (after the SYN, offset 0).
    let mut next = 1;
    for i in (0..ends.len()).filter(|&i| ends[i] == "client" && lens[i] > 0 && retx[i] == 0) {
        assert_eq!(seqs[i], next, "row {i}");
        next += lens[i];
    }
    // Every retransmission the sender counted is a row marked as one.
    let marked = (0..ends.len())
        .filter(|&i| ends[i] == "client" && retx[i] == 1)
        .count() as u64;
    assert_eq!(
        marked,
        tcp.retransmits_fast + tcp.retransmits_rto + tcp.retransmits_sack
    );
    assert!(marked > 0, "1 % loss over 5 s loses segments");
    // Cumulative ACKs of the receiver never go back (RFC 9293 §3.4), and acknowledge
    // the first data byte's offset onwards once the SYN is in.
    let server: Vec<u64> = (0..ends.len())
        .filter(|&i| ends[i] == "server")
        .map(|i| acks[i].expect("every server segment carries an ACK"))
        .collect();
    assert!(server.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(server[0], 1);
}

#[test]
fn segments_trace_is_deterministic() {
    let (a, b) = (reno_segments(), reno_segments());
    let (a, b) = (table(&a, "segments"), table(&b, "segments"));
    assert_eq!(f64s(a, "time"), f64s(b, "time"));
    assert_eq!(u64s(a, "seq"), u64s(b, "seq"));
    assert_eq!(opt_u64s(a, "ack"), opt_u64s(b, "ack"));
}

/// The first drop at the bottleneck and the first time ssthresh is set (the end of the
/// first slow start), CUBIC on the p2p example for 2 s, with or without HyStart++.
fn slow_start_end(hystart: &str) -> (f64, f64) {
    let out = example(&[
        ("sim.duration", "2s"),
        ("record", r#"["cwnd", "drops"]"#),
        ("flows.bulk.transport.cc", "cubic"),
        ("flows.bulk.transport.hystart", hystart),
    ]);
    let drops = f64s(table(&out, "drops"), "time");
    let cwnd = table(&out, "cwnd");
    let set = opt_u64s(cwnd, "ssthresh");
    let times = f64s(cwnd, "time");
    let exit = times[set
        .iter()
        .position(Option::is_some)
        .expect("slow start ends")];
    (drops.first().copied().unwrap_or(f64::INFINITY), exit)
}

#[test]
fn hystart_leaves_slow_start_before_the_queue_overflows() {
    // 10 Mbit/s, 40 ms RTT, 100 packets of queue: standard slow start (×1.5 per round with
    // delayed ACKs) overshoots BDP + queue (33 + 100 packets) and ends with a loss.
    // HyStart++ (RFC 9406 §4.2) sees the round's minimum RTT grow by RttThresh
    // (clamp(40 ms / 8, 4, 16) = 5 ms, four packets of standing queue) long before the
    // queue fills, and leaves slow start, through CSS, before any drop.
    let (drop, exit) = slow_start_end("false");
    assert!(
        drop < exit,
        "standard slow start: first drop {drop} s, exit {exit} s"
    );
    let (drop, exit) = slow_start_end("true");
    assert!(exit < drop, "HyStart++: exit {exit} s, first drop {drop} s");
}

/// A bounded transfer's goodput counts its own time, not the run's: 5 MB over p2p-bulk's
/// 10 Mbit/s, 40 ms round trip.
#[test]
fn goodput_of_a_bounded_transfer_is_over_its_own_time() {
    let bytes = 5e6;
    let at = |duration: &str| {
        let out = example(&[("flows.bulk.app.bytes", "5MB"), ("sim.duration", duration)]);
        out.summary.flows["bulk"].clone()
    };
    let (short, long) = (at("30s"), at("120s"));
    let t = short.tcp().unwrap().transfer_time_s.unwrap();
    assert_eq!(short.bytes_delivered as f64, bytes);
    assert_eq!(short.goodput_bps, bytes * 8.0 / t);
    // The run's length changes neither the transfer nor its goodput ...
    assert_eq!(short.goodput_bps, long.goodput_bps);
    // ... only the share of the run, kept under its own name.
    assert_eq!(short.goodput_over_run_bps, bytes * 8.0 / 30.0);
    assert_eq!(long.goodput_over_run_bps, bytes * 8.0 / 120.0);
    // At most the link's payload rate (1448 B of each 1500-B packet; link framing only
    // lowers it), at least that rate over the serialisation time plus 1 s (25 round trips,
    // far more than the handshake and slow start to the 50 kB bandwidth-delay product need).
    let payload = 10e6 * 1448.0 / 1500.0;
    let floor = bytes * 8.0 / (bytes * 8.0 / payload + 1.0);
    assert!(
        floor < short.goodput_bps && short.goodput_bps <= payload,
        "{} not in ({floor}, {payload}]",
        short.goodput_bps
    );
}
