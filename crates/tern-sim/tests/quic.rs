//! QUIC over simulated links (noq-proto driven in simulated time), checked against hand
//! computations from the link parameters and RFC 9000/9002.

mod common;
use common::*;
use tern_sim::RunOutput;

/// Two nodes on one link, one QUIC flow from `a` to `b` with `app` and extra transport
/// settings, recording `record`.
fn quic_link(link: &str, duration: &str, app: &str, transport: &str, record: &str) -> String {
    format!(
        r#"
record = [{record}]
[sim]
duration = "{duration}"
seed = 1
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "l"
ends = ["a", "b"]
{link}
[[flows]]
name = "f"
from = "a"
to = "b"
app = {app}
transport = {{ kind = "quic"{transport} }}
"#
    )
}

/// 10 Mbit/s, 20 ms each way (40 ms RTT), a DropTail queue of one bandwidth-delay product:
/// 10 Mbit/s × 40 ms = 50 000 B = 33.3 packets of 1500 B, so 34.
const STEADY: &str = r#"rate = "10Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "34pkt" }"#;

fn with_seed(text: &str, seed: u64) -> RunOutput {
    tern_sim::run_text("quic.toml", text, &[], Some(seed)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn same_seed_same_outputs_and_captures() {
    // Random loss both ways, so recovery, PTOs and MTU probing all take part.
    let link = format!("{STEADY}\nloss = {{ kind = \"bernoulli\", p = 0.01 }}");
    let text = quic_link(
        &link,
        "5s",
        r#"{ kind = "periodic", size = "1000B", interval = "5ms" }"#,
        "",
        r#""delay", "quic", "pcap""#,
    );
    let a = with_seed(&text, 7);
    let b = with_seed(&text, 7);
    let sa = serde_json::to_string(&a.summary).unwrap();
    assert_eq!(sa, serde_json::to_string(&b.summary).unwrap());
    assert_eq!(a.tables, b.tables);
    // Byte for byte: connection ids, TLS randoms, key shares, so every encrypted byte.
    assert!(!a.captures.is_empty());
    assert_eq!(a.captures, b.captures);
    let q = a.summary.flows["f"].quic.as_ref().unwrap();
    assert!(q.packets_lost > 0, "the loss took part: {q:?}");
    assert!(a.summary.flows["f"].messages_delivered > 900);
    // The sender's last row of the `quic` trace has the summary's count (a row is written at
    // every change).
    let t = table(&a, "quic");
    let client = texts(t, "endpoint").into_iter().map(|e| e == "client");
    let lost: Vec<u64> = client
        .zip(u64s(t, "lost_packets"))
        .filter_map(|(c, n)| c.then_some(n))
        .collect();
    assert_eq!(lost.last(), Some(&q.packets_lost));
    let c = with_seed(&text, 8);
    assert_ne!(sa, serde_json::to_string(&c.summary).unwrap());
    assert_ne!(a.captures, c.captures);
}

#[test]
fn first_response_byte_two_round_trips_after_the_client_starts() {
    // 1 Gbit/s, so a 1500-B packet takes 12 µs to serialise; 25 ms each way.
    let link = r#"rate = "1Gbps"
delay = "25ms"
queue = { kind = "droptail", limit = "1000pkt" }"#;
    let text = quic_link(
        link,
        "2s",
        r#"{ kind = "file", size = "10000B", request = "100B" }"#,
        "",
        "",
    );
    let out = run(&text);
    let q = out.summary.flows["f"].quic.clone().unwrap();
    // Client Initial → server Initial + Handshake (one round trip: the client is connected,
    // RFC 9001 §4.1.1); request → first response byte (a second one). At most 6 datagrams
    // of ≤ 1500 B lie on that path, each serialised in 12 µs.
    let (rtt, slack) = (0.050, 6.0 * 12e-6);
    let hs = q.handshake_time_s.unwrap();
    assert!(
        (hs - rtt).abs() <= slack,
        "handshake {hs} s, expected {rtt} s"
    );
    let first = q.first_byte_time_s.unwrap();
    assert!(
        (first - 2.0 * rtt).abs() <= slack,
        "first response byte {first} s, expected {} s",
        2.0 * rtt
    );
    assert_eq!(out.summary.flows["f"].bytes_delivered, 10_000);
    assert!(q.completion_time_s.is_some());
}

#[test]
fn steady_state_goodput_is_the_link_rate_less_headers_and_near_tcp() {
    let text = quic_link(
        STEADY,
        "60s",
        r#"{ kind = "bulk" }"#,
        r#", cc = "newreno""#,
        "",
    );
    let out = run(&text);
    let quic = out.summary.flows["f"].goodput_bps;
    let q = out.summary.flows["f"].quic.clone().unwrap();
    assert_eq!(q.final_mtu, 1472, "PMTUD found the 1500-B path: {q:?}");
    // A full 1500-B packet: IPv4 20 + UDP 8 + short header (1 flags + 8 connection id +
    // 1–2 packet number, RFC 9000 §17.3.1) + STREAM frame (1 type + 1 stream id + 4 offset
    // for offsets of 16 KiB to 1 GiB, no length as the last frame, §19.8) + 16 AEAD tag
    // (RFC 9001 §5.3) = 59–60 B, leaving 1440–1441 B of application data.
    let expected = 10e6 * 1440.0 / 1500.0;
    assert!(
        (quic / expected - 1.0).abs() < 0.03,
        "QUIC {quic} bit/s vs {expected} bit/s"
    );
    let tcp_text = text.replace(
        r#"transport = { kind = "quic", cc = "newreno" }"#,
        r#"transport = { kind = "tcp", cc = "newreno" }"#,
    );
    let tcp = run(&tcp_text).summary.flows["f"].goodput_bps;
    assert!(
        (quic / tcp - 1.0).abs() < 0.05,
        "QUIC {quic} bit/s vs TCP {tcp} bit/s"
    );
}

#[test]
fn messages_reach_the_receiver_with_their_one_way_delay() {
    // 1000-B messages every 10 ms on an idle 10 Mbit/s, 20 ms link: each fits one packet
    // (≤ 1500 B), so its delay is 20 ms plus ≤ 1.2 ms of serialisation.
    let text = quic_link(
        STEADY,
        "3s",
        r#"{ kind = "periodic", size = "1000B", interval = "10ms" }"#,
        "",
        r#""delay""#,
    );
    let out = run(&text);
    let f = &out.summary.flows["f"];
    // All but those sent in the last ~21 ms (still on their way at the end).
    assert!(
        f.messages_delivered + 3 >= f.messages_sent,
        "{} of {}",
        f.messages_delivered,
        f.messages_sent
    );
    let delays = f64s(table(&out, "delay"), "delay");
    let sent = f64s(table(&out, "delay"), "sent");
    assert_eq!(delays.len() as u64, f.messages_delivered);
    assert!(delays.iter().all(|&d| d >= 0.020));
    // Messages written before the handshake completed (no 0-RTT) wait for it, and the pacer
    // spreads that first burst over a round trip; after 100 ms none waits.
    for (s, d) in sent.iter().zip(&delays) {
        assert!(*s < 0.1 || *d <= 0.0212, "sent at {s} s, delay {d} s");
    }
}
