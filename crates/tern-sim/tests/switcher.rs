//! `ConnectionSwitcher` over an LTE handover (scenarios/lte-switch/effect.toml),
//! checked against timings computed by hand from the scenario's parameters.

mod common;
use common::*;

const EFFECT: &str = include_str!("../../../scenarios/lte-switch/effect.toml");

fn run_with(overrides: &[(&str, &str)]) -> tern_sim::RunOutput {
    let o: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    tern_sim::run_text("effect.toml", EFFECT, &o, None).unwrap_or_else(|e| panic!("{e}"))
}

/// (seq, sent, delay, conn) of the flow's delivered messages.
fn messages(out: &tern_sim::RunOutput, flow: &str) -> Vec<(u64, f64, f64, u64)> {
    let t = table(out, "delay");
    let names = texts(t, "flow");
    let (seq, sent, delay, conn) = (
        u64s(t, "seq"),
        f64s(t, "sent"),
        f64s(t, "delay"),
        u64s(t, "conn"),
    );
    (0..names.len())
        .filter(|&i| names[i] == flow)
        .map(|i| (seq[i], sent[i], delay[i], conn[i]))
        .collect()
}

/// Bytes on the wire of a 1000 B message in one TCP segment with the
/// timestamps option: 20 (IPv4) + 20 + 12 (TCP + TS) + 1000.
const SEG: f64 = 1052.0;

/// One-way delay of a lone message in the target cell: uplink serialization
/// at 5 Mbit/s + 670 ms, then 1 Gbit/s + 30 ms.
fn target_cell_delay() -> f64 {
    SEG * 8.0 / 5e6 + 0.670 + SEG * 8.0 / 1e9 + 0.030
}

#[test]
fn every_message_arrives_once_and_the_switch_cuts_the_delay() {
    let out = run_with(&[]);
    let msgs = messages(&out, "tcp");
    let f = &out.summary.flows["tcp"];
    // Exactly once: every delivered seq is distinct, and the count adds up.
    let mut seqs: Vec<u64> = msgs.iter().map(|m| m.0).collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), msgs.len(), "a message was delivered twice");
    assert_eq!(f.messages_delivered + f.messages_in_flight, f.messages_sent);
    // The server last heard from the UE before the loss (17 s) from the
    // message sent at 16.9 s, which arrived after the source cell's path:
    // 5 Mbit/s + 20 ms, 1 Gbit/s + 30 ms. Its notices go out 3 s later and
    // every 100 ms. A 50 B notice crosses 1 Gbit/s + 30 ms to the eNB and is
    // sent over the air at 20 Mbit/s; its fate is decided there: one sent
    // before the handover completes (20 s) is lost in the burst. The first one
    // sent at or after 20 s reaches the UE 20 ms later (the target cell's
    // downlink is the source cell's) and switches it.
    let last_arrival = 16.9 + SEG * 8.0 / 5e6 + 0.020 + SEG * 8.0 / 1e9 + 0.030;
    let notice = 78.0;
    let sw = f.switcher().expect("switcher summary");
    let switched = sw.switched_at_s.expect("switched");
    let over_air = |k: u32| {
        last_arrival + 3.0 + 0.1 * f64::from(k) + notice * 8.0 / 1e9 + 0.030 + notice * 8.0 / 20e6
    };
    let first = (0..).find(|&k| over_air(k) >= 20.0).unwrap();
    assert!(
        first > 0,
        "the first notice is sent over the air during the burst"
    );
    assert!(sw.notices_sent > u64::from(first));
    let reach = over_air(first) + 0.020;
    assert!(
        (switched - reach).abs() < 1e-6,
        "switched at {switched}, expected {reach}"
    );
    // The message sent just before the switch waited for #1's backed-off
    // retransmissions; the one after went on #2 in the target cell's delay.
    let before = msgs
        .iter()
        .filter(|m| m.1 < switched)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let after = msgs
        .iter()
        .filter(|m| m.1 > switched)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let (before, after) = (before.unwrap(), after.unwrap());
    assert_eq!((before.3, after.3), (1, 2));
    assert!(
        (after.2 - target_cell_delay()).abs() < 1e-6,
        "after: {}",
        after.2
    );
    // At least 90 % lower (the study's criterion).
    assert!(
        after.2 < 0.1 * before.2,
        "before {} after {}",
        before.2,
        after.2
    );
    // No message after the switch went on #1.
    assert!(msgs.iter().all(|m| m.1 < switched || m.3 == 2));
}

#[test]
fn oracle_switches_at_handover_completion() {
    let out = run_with(&[("flows.tcp.switcher.policy", "oracle")]);
    let sw = out.summary.flows["tcp"].switcher().unwrap();
    assert_eq!(sw.switched_at_s, Some(20.0));
}

#[test]
fn a_spare_opened_on_demand_pays_for_its_handshake() {
    let out = run_with(&[("flows.tcp.switcher.spare", "on-demand")]);
    let f = &out.summary.flows["tcp"];
    let switched = f.switcher().unwrap().switched_at_s.unwrap();
    let msgs = messages(&out, "tcp");
    let first = msgs
        .iter()
        .filter(|m| m.3 == 2)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .expect("messages on #2");
    // The first message on #2 waits for the SYN / SYN-ACK exchange across the
    // target cell: it cannot arrive before SYN up (at least the target cell's
    // 0.7 s uplink one-way delay), SYN-ACK down (0.05 s: its downlink is the
    // source cell's) and itself up (0.7 s).
    assert!(first.1 >= switched);
    assert!(
        first.1 + first.2 >= switched + 0.7 + 0.05 + 0.7,
        "{first:?}"
    );
    let spare = f.switcher().unwrap().spare_tcp.as_ref().unwrap();
    assert_eq!(spare.state, "Established");
}

#[test]
fn a_switcher_away_from_a_cell_is_rejected_with_its_key() {
    let err = tern_sim::run_text(
        "effect.toml",
        EFFECT,
        &[("flows.tcp.from".into(), "enb".into())],
        None,
    )
    .err()
    .expect("rejected")
    .to_string();
    assert!(err.contains("flows[0].switcher"), "{err}");
}

/// Why the spare connection is slower than a lone message for a while after
/// the switch: its RTO still comes from its only RTT sample, the handshake in
/// the source cell (2 × (20 + 30) ms = 100 ms), so RFC 6298 (2.2)-(2.4) gives
/// SRTT + 4·RTTVAR = 3 × 100 ms = 300 ms (above Linux's 200 ms minimum). The
/// first message on #2 leaves at the first 100 ms tick after the switch; the
/// RTT through the target cell is (670 + 30) ms up + (20 + 30) ms down =
/// 0.75 s, so the timer expires at +0.3 s, and backed off (RFC 6298 §5.5) it
/// would next expire at +0.9 s, after the first ACK is back (0.75 s plus at
/// most the delayed-ACK wait for the next message, 100 ms). The expiry is
/// spurious and F-RTO (RFC 5682) finds it: one detection. The Eifel response
/// (RFC 4015 §2) then re-initialises the RTO from a 0.75 s sample (SRTT
/// 0.75 s, RTTVAR 0.375 s: 2.25 s), above the RTT, so the RTO never expires
/// again on #2.
#[test]
fn the_spare_times_out_once_spuriously_and_then_never() {
    let out = run_with(&[]);
    let spare = out.summary.flows["tcp"]
        .switcher()
        .and_then(|s| s.spare_tcp.as_ref())
        .expect("spare connection");
    let (rto, rtt) = (0.3, 0.670 + 0.030 + 0.020 + 0.030);
    // Expiries before the first ACK can return (1.4 s, + 0.1 s delayed ACK).
    let expiries = [rto, rto + 2.0 * rto, rto + 2.0 * rto + 4.0 * rto]
        .iter()
        .filter(|&&t| t < rtt)
        .count();
    assert!(rto + 2.0 * rto + 4.0 * rto > rtt + 0.1);
    assert_eq!(expiries, 1);
    assert_eq!(spare.rto_expiries, expiries as u64);
    assert_eq!(spare.spurious_rtos, 1);
    assert_eq!(spare.retransmits_rto, expiries as u64);
}
