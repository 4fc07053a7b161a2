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
    let flow = &out.summary.flows["bulk"];
    Figures {
        goodput: flow.goodput_bps,
        queue_mean: q.queue_mean_packets,
        queue_max: q.queue_max_packets,
        retransmits: flow.tcp.as_ref().map_or(0, |t| {
            t.retransmits_fast + t.retransmits_rto + t.retransmits_sack
        }),
        mean_cwnd: area / (end - t[0]) / 1448.0,
    }
}

#[test]
fn print_figures() {
    for (cc, loss) in [("bbr3", 0.0), ("bbr", 0.0), ("bbr3", 0.01), ("bbr", 0.01)] {
        eprintln!("{cc} {loss}: {:?}", p2p(cc, loss));
    }
}
