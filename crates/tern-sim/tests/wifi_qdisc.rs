//! A qdisc in front of an 802.11 station's MAC queue (`wifi.qdisc`, as Linux's interface
//! qdisc in front of the driver's queue): the two stages' limits add up, the wait is the
//! whole backlog's (Little's law), CoDel (RFC 8289) holds the qdisc's standing delay near its
//! target, bad values are refused by key, and runs are deterministic.

mod common;

use common::{error_of, f64s, mean_rtt, run, table, texts, u64s, wifi_upload};
use tern_sim::RunOutput;

/// The MAC queue: ath9k's 123 frames (ATH_MAX_QDEPTH = ATH_TXBUF / 4 - ATH_TXBUF_RESERVE).
const MAC: u64 = 123;
/// Seconds simulated.
const DURATION: f64 = 20.0;

/// The shared upload (see [`common::wifi_upload`]) with no MPDU errors, a 4 MiB send buffer
/// and the `MAC`-frame MAC queue. `qdisc`: the `qdisc = ...` line, or empty for none.
fn upload(qdisc: &str) -> String {
    wifi_upload(
        r#""rtt", "queue", "drops""#,
        &format!("{DURATION}s"),
        &format!("queue = {MAC}\n{qdisc}"),
        "send_buffer = \"4MiB\"\nrecv_buffer = \"6MiB\"",
    )
}

/// Pings sent after this (s) are past TCP's slow start.
const WARM: f64 = 5.0;

/// The station's uplink queue trace: most packets it held.
fn max_uplink_queue(out: &RunOutput) -> u64 {
    let q = table(out, "queue");
    let links = texts(q, "link");
    let dirs = texts(q, "direction");
    u64s(q, "packets")
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| links[i] == "wlan-sta" && dirs[i] == "forward")
        .map(|(_, n)| n)
        .max()
        .unwrap_or(0)
}

/// Drops of the station's uplink by reason.
fn drops(out: &RunOutput, reason: &str) -> usize {
    let d = table(out, "drops");
    texts(d, "reason").iter().filter(|r| *r == reason).count()
}

/// A DropTail qdisc of 1000 packets (Linux's txqueuelen) in front of the 123-frame MAC
/// queue: a bulk TCP sender with no TSQ fills both, so the device holds at most
/// 1000 + 123 packets, and the queue overflows (TCP's losses are tail drops). Without the
/// qdisc the device holds at most the MAC's 123. The ping waits behind the whole backlog:
/// by Little's law its wait is the mean backlog L over the packets sent per second λ; the
/// rest of its RTT is its own PPDU and the reply's (at most 5.484 ms each, the HT-mixed
/// L-SIG limit); 5 % more is allowed for periodic rather than random pings and the run's end.
#[test]
fn the_qdisc_and_the_mac_queue_add_up() {
    let out = run(&upload(
        r#"qdisc = { kind = "droptail", limit = "1000pkt" }"#,
    ));
    assert_eq!(max_uplink_queue(&out), 1000 + MAC);
    assert!(drops(&out, "queue") > 0);
    let up = &out.summary.links["wlan-sta"]["forward"];
    assert_eq!(up.queue_max_packets, 1000 + MAC);
    let little = up.queue_mean_packets / (up.tx_packets as f64 / DURATION);
    let ping = out.summary.flows["ping"].rtt_s.as_ref().unwrap().mean;
    assert!(
        (ping - little).abs() < 0.05 * ping + 2.0 * 5.484e-3,
        "ping RTT {ping} s, L/λ {little} s"
    );
    let bare = run(&upload(""));
    assert_eq!(max_uplink_queue(&bare), MAC);
}

/// CoDel (RFC 8289, target 5 ms, interval 100 ms) as the qdisc: it drops at dequeue once
/// the qdisc's sojourn has stayed above target for an interval (§5.4), so the qdisc holds
/// about target's worth of packets and the ping's wait is the MAC queue's 123 frames plus
/// about 5 ms. Each frame takes at least 1500 B × 8 / 13 Mbit/s = 0.92 ms of airtime, and at
/// most the time per packet measured in the run (λ⁻¹); allowed above: one interval (CoDel's
/// reaction time, §4.3) and the two PPDUs of the ping and its reply (5.484 ms each).
/// DropTail's ping also waits behind the qdisc's standing backlog (after each tail drop
/// CUBIC keeps 0.7 of its window, RFC 9438 §4.6): more than twice as long.
#[test]
fn codel_holds_the_qdisc_near_its_target() {
    let codel = run(&upload(r#"qdisc = { kind = "codel" }"#));
    let droptail = run(&upload(
        r#"qdisc = { kind = "droptail", limit = "1000pkt" }"#,
    ));
    assert!(drops(&codel, "aqm") > 0);
    assert_eq!(drops(&codel, "queue"), 0);
    let up = &codel.summary.links["wlan-sta"]["forward"];
    let per_packet = DURATION / up.tx_packets as f64;
    let rtt = mean_rtt(&codel, WARM);
    let floor = MAC as f64 * 1500.0 * 8.0 / 13e6;
    let ceiling = MAC as f64 * per_packet + 0.005 + 0.100 + 2.0 * 5.484e-3;
    assert!(
        (floor..ceiling).contains(&rtt),
        "CoDel: ping RTT {rtt} s, expected {floor}..{ceiling}"
    );
    let dt = mean_rtt(&droptail, WARM);
    assert!(dt > 2.0 * rtt, "DropTail {dt} s, CoDel {rtt} s");
}

#[test]
fn runs_with_a_qdisc_are_deterministic() {
    let text = upload(r#"qdisc = { kind = "codel" }"#);
    let (a, b) = (run(&text), run(&text));
    assert_eq!(
        serde_json::to_string(&a.summary).unwrap(),
        serde_json::to_string(&b.summary).unwrap()
    );
    assert_eq!(f64s(table(&a, "rtt"), "rtt"), f64s(table(&b, "rtt"), "rtt"));
}

#[test]
fn bad_qdiscs_are_refused_by_key() {
    let e = error_of(&upload(r#"qdisc = { kind = "droptail", limit = "0pkt" }"#));
    assert!(
        e.contains("wifi[0].qdisc") && e.contains("above zero"),
        "{e}"
    );
    let e = error_of(&upload(r#"qdisc = { kind = "fifo" }"#));
    assert!(e.contains("qdisc"), "{e}");
}

/// TCP Small Queues of `linux-3.13` on an 802.11 station: the charge of a segment (its skb's
/// truesize, 4352 B) ends only at the frame's transmit status, so the driver's frames count
/// against tcp_limit_output_bytes as the qdisc's do. In Linux 3.13 the skb keeps its owner
/// from `tcp_transmit_skb` (`skb_set_owner_w`, destructor `tcp_wfree`) through the qdisc,
/// `dev_hard_start_xmit` (net/core/dev.c: no early orphaning, `skb_orphan_try` went after
/// 3.4), `ieee80211_subif_start_xmit` (net/mac80211/tx.c: a cloned skb is re-headed in place
/// by `pskb_expand_head`, owner kept) and ath9k's `ath_tx_start` (the TID's software queue)
/// until `ath_txq_unlock_complete` hands it to `ieee80211_tx_status` (net/mac80211/status.c),
/// which orphans or frees it after the Block Ack. So at most 131072 / 4352 + 1 = 31 of the
/// upload's segments wait in the station's qdisc and 123-frame MAC queue together (the
/// pacing term, 2 · cwnd / srtt / 1024, stays below 128 KiB at 13 Mbit/s), plus at most one
/// ping (one every 100 ms, each gone within a few ms of airtime). Were the charge given back
/// when the MAC queue took a frame, TSQ would bound the qdisc alone and the MAC queue would
/// fill to its 123 frames (next test).
#[test]
fn linux_small_queues_count_the_mac_queue_until_tx_status() {
    let text = upload(r#"qdisc = { kind = "droptail", limit = "1000pkt" }"#)
        .replace("tsq = \"1GB\"\n", "profile = \"linux-3.13\"\n");
    let out = run(&text);
    let most = max_uplink_queue(&out);
    let segments = 131_072 / 4352 + 1;
    assert!(
        (segments..=segments + 1).contains(&most),
        "the station held at most {most} packets, expected {segments} segments (+ 1 ping)"
    );
    assert_eq!(drops(&out, "queue"), 0);
}

/// The same station with the charge ending where Linux up to 3.4 ended it
/// (`tsq_charge_ends = "driver"`: `skb_orphan_try` in `dev_hard_start_xmit`, net/core/dev.c,
/// orphaned the skb as the qdisc handed it to the driver): TSQ then bounds the qdisc alone,
/// to the same 131072 / 4352 + 1 = 31 segments, while the frames of the 123-frame MAC queue
/// wait uncharged below it. The qdisc holds packets only while the MAC queue is full, so the
/// station holds at most 123 + 31 packets, plus at most one ping; and it reaches that, as
/// each frame the MAC queue takes from the qdisc lets TCP hand one more segment down. Nothing
/// overflows the 1000-packet qdisc.
#[test]
fn small_queues_charged_until_the_driver_bound_the_qdisc_alone() {
    let text = upload(r#"qdisc = { kind = "droptail", limit = "1000pkt" }"#).replace(
        "tsq = \"1GB\"\n",
        "profile = \"linux-3.13\"\ntsq_charge_ends = \"driver\"\n",
    );
    let out = run(&text);
    let most = max_uplink_queue(&out);
    let segments = 131_072 / 4352 + 1;
    assert!(
        (MAC + segments..=MAC + segments + 1).contains(&most),
        "the station held at most {most} packets, expected {MAC} frames + {segments} segments (+ 1 ping)"
    );
    assert_eq!(drops(&out, "queue"), 0);
    let e = error_of(&text.replace("\"driver\"", "\"qdisc\""));
    assert!(e.contains("tsq_charge_ends"), "{e}");
}
