//! 802.11 roaming: a station leaves one AP and joins another, on a schedule or when the RSSI
//! of its AP's beacons falls; its MAC queue keeps packets meanwhile; routes follow it.

mod common;

use common::{f64s, table, texts, u64s};
use tern_sim::engine::SimTime;
use tern_sim::net::packet::NodeId;
use tern_sim::World;

/// A flow between the station and the server: `app` and `transport` as in a scenario.
fn flow(name: &str, (from, to): (&str, &str), app: &str, transport: &str, start: &str) -> String {
    format!(
        "[[flows]]\nname = \"{name}\"\nfrom = \"{from}\"\nto = \"{to}\"\napp = {app}\n\
         transport = {transport}\nstart = \"{start}\"\n"
    )
}

/// A ping from the server to the station every 100 ms.
fn ping(start: &str) -> String {
    let app = r#"{ kind = "ping", size = "64B", interval = "100ms" }"#;
    flow("ping", ("server", "sta"), app, r#"{ kind = "udp" }"#, start)
}

/// A scheduled roam of the station to `bss2`.
fn roam_to_bss2(at: &str, disconnect: &str) -> String {
    format!(
        "[[roaming]]\nname = \"handover\"\nstation = \"sta\"\nat = \"{at}\"\nto = \"bss2\"\n\
         disconnect = \"{disconnect}\"\n"
    )
}

/// A mobile station `sta` in two BSSs (`bss1` of `ap1` at the origin, `bss2` of `ap2` 100 m
/// away on the x axis), both APs wired to `server` (100 Mbit/s, 1 ms). `wifi` goes into both
/// `[[wifi]]` tables; `sta` continues the station's node table (position, moves) and may
/// add flows and roaming tables after it.
fn two_aps(duration: &str, wifi: &str, sta: &str) -> String {
    format!(
        r#"
record = ["delay", "drops", "roaming", "wifi", "rssi", "rtt"]
[sim]
duration = "{duration}"
[[nodes]]
name = "server"
[[nodes]]
name = "ap1"
position = [0, 0, 0]
[[nodes]]
name = "ap2"
position = [100, 0, 0]
[[links]]
name = "w1"
ends = ["ap1", "server"]
rate = "100Mbps"
delay = "1ms"
[[links]]
name = "w2"
ends = ["ap2", "server"]
rate = "100Mbps"
delay = "1ms"
[[wifi]]
name = "bss1"
ap = "ap1"
stations = ["sta"]
{wifi}
[[wifi]]
name = "bss2"
ap = "ap2"
stations = ["sta"]
{wifi}
[[nodes]]
name = "sta"
{sta}
"#
    )
}

/// The tfrc-handover set-up in small: 802.11b, a 50-packet MAC queue, 629 B every 10 ms
/// from the station; at 5 s it leaves AP1 and joins AP2 2.5 s later. A ping from the server
/// probes the downlink.
fn scheduled_roam() -> String {
    two_aps(
        "10s",
        "standard = \"802.11b\"\nqueue = 50\nlifetime = \"0s\"",
        &format!(
            "position = [20, 0, 0]\n{}{}{}",
            flow(
                "up",
                ("sta", "server"),
                r#"{ kind = "periodic", size = "629B", interval = "10ms" }"#,
                r#"{ kind = "udp" }"#,
                "1s"
            ),
            ping("1.05s"),
            roam_to_bss2("5s", "2.5s")
        ),
    )
}

#[test]
fn a_scheduled_roam_holds_the_queue_and_moves_the_routes() {
    let out = common::run(&scheduled_roam());
    let roam = table(&out, "roaming");
    let (times, events) = (f64s(roam, "time"), texts(roam, "event"));
    assert_eq!(events, ["left", "joined"]);
    assert_eq!(texts(roam, "from_bss"), ["bss1", "bss1"]);
    assert_eq!(texts(roam, "to_bss"), ["bss2", "bss2"]);
    // It leaves at 5 s or at the end of an exchange on the air then (< 2 ms at 11 Mbit/s).
    let (left, joined) = (times[0], times[1]);
    assert!((5.0..5.002).contains(&left), "left at {left}");
    assert!((joined - left - 2.5).abs() < 1e-9, "joined at {joined}");

    // Uplink: the messages made while the station is away wait in its queue up to its
    // limit (50); the later ones are dropped there.
    let drops = table(&out, "drops");
    let (drop_t, reasons, flows) = (
        f64s(drops, "time"),
        texts(drops, "reason"),
        texts(drops, "flow"),
    );
    let up_queue: Vec<f64> = (0..drop_t.len())
        .filter(|&i| flows[i] == "up" && reasons[i] == "queue")
        .map(|i| drop_t[i])
        .collect();
    // Messages at 1 s + 10 ms·n; those made in [left, joined] (at the join itself the
    // queue is still full: the station has not sent anything yet).
    let us = |t: f64| (t * 1e6).round() as i64;
    let made = (0..1000)
        .map(|n| 1_000_000 + 10_000 * n)
        .filter(|t| (us(left)..=us(joined)).contains(t))
        .count();
    assert_eq!(up_queue.len(), made - 50, "made {made} while away");
    assert!(up_queue.iter().all(|t| (left..=joined).contains(t)));
    // The held ones arrive after the join, oldest first: the first waited ≈ the gap.
    let delay = table(&out, "delay");
    let (d_t, d_flow, d_seq, d_delay) = (
        f64s(delay, "time"),
        texts(delay, "flow"),
        u64s(delay, "seq"),
        f64s(delay, "delay"),
    );
    let after: Vec<usize> = (0..d_t.len())
        .filter(|&i| d_flow[i] == "up" && d_t[i] >= joined)
        .collect();
    let first = after[0];
    eprintln!(
        "left {left} s, joined {joined} s; {} queue drops (made {made}); first held message waited {} s; 50th delivered at {} s",
        up_queue.len(),
        d_delay[first],
        d_t[after[49]]
    );
    assert!(
        (d_delay[first] - (joined - left)).abs() < 0.02,
        "first held message waited {} s",
        d_delay[first]
    );
    // 50 held messages go out back to back, each well under 2 ms at 11 Mbit/s.
    let held: Vec<usize> = after.iter().copied().take(50).collect();
    assert!(held.windows(2).all(|w| d_seq[w[1]] == d_seq[w[0]] + 1));
    assert!(
        d_t[held[49]] - joined < 0.1,
        "the queue drained by {}",
        d_t[held[49]]
    );
    // Every delivered message went once.
    let mut seqs: Vec<u64> = (0..d_t.len())
        .filter(|&i| d_flow[i] == "up")
        .map(|i| d_seq[i])
        .collect();
    let n = seqs.len();
    seqs.dedup();
    assert_eq!(seqs.len(), n);

    // Downlink: AP1 refuses what reaches it for the departed station; after the join the
    // wired side routes via AP2 and pings are answered again.
    let refused: Vec<f64> = (0..drop_t.len())
        .filter(|&i| reasons[i] == "disassociated")
        .map(|i| drop_t[i])
        .collect();
    assert_eq!(
        refused.len(),
        25,
        "one ping request every 100 ms while away"
    );
    assert!(refused.iter().all(|t| (left..joined).contains(t)));
    let rtt = table(&out, "rtt");
    let replies = f64s(rtt, "time");
    assert!(replies.iter().any(|&t| t > joined && t < joined + 0.2));
    // After the join, every frame of the station is in BSS 2, none in BSS 1.
    let wifi = table(&out, "wifi");
    let (w_t, w_bss, w_from) = (f64s(wifi, "time"), texts(wifi, "bss"), texts(wifi, "from"));
    for i in 0..w_t.len() {
        if w_from[i] == "sta" {
            let expected = if w_t[i] < left { "bss1" } else { "bss2" };
            assert_eq!(w_bss[i], expected, "frame at {}", w_t[i]);
            assert!(
                !(left..joined).contains(&w_t[i]),
                "sent while away at {}",
                w_t[i]
            );
        }
    }
}

/// Log-distance path loss with the test's parameters: 20 dBm, 40 dB at 1 m, exponent 3.
fn rssi_at(d: f64) -> f64 {
    20.0 - 40.0 - 30.0 * d.log10()
}

/// 802.11n at 5 GHz; the station walks from 10 m to 90 m from AP1 (towards AP2) at 5 m/s
/// with an uplink and a ping, and roams when AP1's beacons fall below −70 dBm and AP2's
/// are 5 dB stronger.
fn rssi_roam() -> String {
    two_aps(
        "20s",
        "standard = \"802.11n\"\npropagation = { exponent = 3, reference_loss = 40, tx_power = 20 }",
        &format!(
            r#"position = [10, 0, 0]
moves = [{{ walk_to = [90, 0, 0], speed = 5 }}]
{}{}[[roaming]]
name = "roam"
station = "sta"
rssi_below = -70
hysteresis = 5
disconnect = "50ms"
"#,
            flow(
                "up",
                ("sta", "server"),
                r#"{ kind = "cbr", rate = "2Mbps", size = "1000B" }"#,
                r#"{ kind = "udp" }"#,
                "0s"
            ),
            ping("0s")
        ),
    )
}

#[test]
fn an_rssi_triggered_roam_starts_at_the_first_beacon_past_both_thresholds() {
    let out = common::run(&rssi_roam());
    // Beacons every 100 TU = 102.4 ms from 0; at beacon k the station is at x = 10 + 5t.
    let beacon = |k: u32| f64::from(k) * 0.1024;
    let x = |t: f64| (10.0 + 5.0 * t).min(90.0);
    let k = (0..)
        .find(|&k| {
            let (ap1, ap2) = (rssi_at(x(beacon(k))), rssi_at(100.0 - x(beacon(k))));
            ap1 < -70.0 && ap2 >= ap1 + 5.0
        })
        .unwrap();
    let expected = beacon(k);
    let roam = table(&out, "roaming");
    let times = f64s(roam, "time");
    eprintln!(
        "expected the roam at beacon {k} ({expected} s); left {} s, joined {} s",
        times[0], times[1]
    );
    assert_eq!(texts(roam, "event"), ["left", "joined"]);
    // Left at that beacon, or at the end of the exchange on the air then (an A-MPDU, ≤ 5.5 ms).
    assert!(
        (expected..expected + 0.006).contains(&times[0]),
        "left at {} s, expected the beacon at {expected} s",
        times[0]
    );
    assert!((times[1] - times[0] - 0.05).abs() < 1e-9);
    assert!((f64s(roam, "rssi_dbm")[0] - rssi_at(x(times[0]))).abs() < 1e-9);
    // The `rssi` trace: each AP's beacons at the station, from the positions.
    let rssi = table(&out, "rssi");
    let (t, bss, dbm, assoc) = (
        f64s(rssi, "time"),
        texts(rssi, "bss"),
        f64s(rssi, "rssi_dbm"),
        u64s(rssi, "associated"),
    );
    for i in 0..t.len() {
        let d = if bss[i] == "bss1" {
            x(t[i])
        } else {
            100.0 - x(t[i])
        };
        assert!((dbm[i] - rssi_at(d)).abs() < 1e-9, "row {i}");
        // Associated with AP1 before the roam, with AP2 after it, with neither between.
        // (The beacon that triggers the roam is measured before the station leaves.)
        let with = if t[i] <= times[0] {
            "bss1"
        } else if t[i] >= times[1] {
            "bss2"
        } else {
            ""
        };
        assert_eq!(assoc[i] == 1, bss[i] == with, "row {i} at {}", t[i]);
    }
    // The uplink goes on after the roam (through AP2): deliveries resume within 0.2 s.
    let delay = table(&out, "delay");
    let (d_t, d_flow) = (f64s(delay, "time"), texts(delay, "flow"));
    assert!(
        (0..d_t.len()).any(|i| d_flow[i] == "up" && (times[1]..times[1] + 0.2).contains(&d_t[i]))
    );
    // Same run twice: identical tables.
    assert_eq!(common::run(&rssi_roam()).tables, out.tables);
}

/// A TCP upload across a 3 s roam; with `rlci`, the sender is told the link is back.
fn tcp_roam(rlci: bool) -> String {
    two_aps(
        "12s",
        "standard = \"802.11b\"",
        &format!(
            "position = [20, 0, 0]\n{}{}",
            flow(
                "up",
                ("sta", "server"),
                r#"{ kind = "bulk" }"#,
                &format!("{{ kind = \"tcp\", rlci = {rlci} }}"),
                "0s"
            ),
            roam_to_bss2("4s", "3s")
        ),
    )
    .replace("record = [", "record = [\"retransmits\", ")
}

#[test]
fn tcp_hears_of_the_roam_only_when_it_asks_to() {
    for rlci in [false, true] {
        let out = common::run(&tcp_roam(rlci));
        let joined = f64s(table(&out, "roaming"), "time")[1];
        let rtx = table(&out, "retransmits");
        let (t, kind) = (f64s(rtx, "time"), texts(rtx, "kind"));
        // Timeouts fired while the station was away (RTO ≪ 3 s).
        assert!((0..t.len()).any(|i| kind[i] == "rto_expiry" && t[i] < joined));
        let speculative: Vec<f64> = (0..t.len())
            .filter(|&i| kind[i] == "speculative")
            .map(|i| t[i])
            .collect();
        if rlci {
            // The draft's rule: the oldest unacknowledged segment goes at once.
            assert_eq!(speculative, [joined], "rlci on");
        } else {
            assert!(speculative.is_empty(), "rlci off");
        }
        let goodput = out.summary.flows["up"].goodput_bps;
        eprintln!("rlci {rlci}: joined {joined} s, goodput {goodput} bit/s");
    }
}

/// What a mechanism on the station reads: the RSSI of its AP's beacons where it is now.
#[test]
fn mechanisms_read_the_rssi_of_the_station_s_ap() {
    let s = tern_sim::load("rssi.toml", &rssi_roam(), &[], None).unwrap();
    let node = |name: &str| NodeId(s.nodes.iter().position(|n| n.name == name).unwrap() as u32);
    let mut world = World::build(&s);
    // At 0 s the station is 10 m from AP1, at 2 s 20 m (5 m/s).
    let at = |t: u64| SimTime::from_millis(t);
    assert!((world.rssi_dbm(node("sta"), at(0)).unwrap() - rssi_at(10.0)).abs() < 1e-9);
    assert!((world.rssi_dbm(node("sta"), at(2000)).unwrap() - rssi_at(20.0)).abs() < 1e-9);
    // Not a station: nothing to read.
    assert_eq!(world.rssi_dbm(node("server"), at(0)), None);
}

/// Countermeasure D of the tfrc-handover study (`discard_older_than`): the same roam with a
/// play-out deadline of 150 ms (ITU-T G.114). While away the station discards, before each
/// new frame, the frames that entered its queue more than 150 ms ago, so its 50-frame queue
/// holds at most the 16 messages of the last 150 ms (one every 10 ms) and refuses none; at
/// the join it discards again, so the first held message delivered after it waited at most
/// 150 ms plus its own exchange (< 2 ms at 11 Mbit/s) instead of the whole gap.
#[test]
fn a_play_out_deadline_discards_stale_frames_during_the_gap() {
    let text = scheduled_roam().replace(
        "disconnect = \"2.5s\"\n",
        "disconnect = \"2.5s\"\ndiscard_older_than = \"150ms\"\n",
    );
    let out = common::run(&text);
    let roam = f64s(table(&out, "roaming"), "time");
    let (left, joined) = (roam[0], roam[1]);
    let drops = table(&out, "drops");
    let (drop_t, reasons, flows) = (
        f64s(drops, "time"),
        texts(drops, "reason"),
        texts(drops, "flow"),
    );
    let up = |reason: &str| -> Vec<f64> {
        (0..drop_t.len())
            .filter(|&i| flows[i] == "up" && reasons[i] == reason)
            .map(|i| drop_t[i])
            .collect()
    };
    assert!(up("queue").is_empty(), "refused: {:?}", up("queue"));
    let stale = up("deadline");
    // About 250 messages made while away, at most 16 kept.
    assert!(stale.len() >= 250 - 16, "{} discarded", stale.len());
    assert!(stale.iter().all(|t| (left..=joined).contains(t)));
    let delay = table(&out, "delay");
    let (d_t, d_flow, d_delay) = (
        f64s(delay, "time"),
        texts(delay, "flow"),
        f64s(delay, "delay"),
    );
    let first = (0..d_t.len())
        .find(|&i| d_flow[i] == "up" && d_t[i] >= joined)
        .expect("delivered after the join");
    assert!(d_delay[first] <= 0.152, "waited {} s", d_delay[first]);
}

/// Countermeasure A of the tfrc-handover study (`rate_from_bss_load`): a DCCP flow from the
/// station sets its rate, when the station leaves AP1 and again when it joins AP2, to its
/// fair share at AP2 from AP2's BSS Load. No station is associated there (Station Count 0),
/// so the share is the back-to-back rate of one 802.11b station (`wifi::bss_load`'s test:
/// a 665-byte IP packet, 629 B of payload, per 1320 µs), of which TFRC counts the payload:
/// 629 B / 1320 µs = 3 812 121 bit/s.
#[test]
fn a_tfrc_sender_sets_its_rate_from_the_new_ap_s_bss_load() {
    let text = two_aps(
        "6s",
        "standard = \"802.11b\"\nqueue = 50\nlifetime = \"0s\"",
        &format!(
            "position = [20, 0, 0]\n{}{}",
            flow(
                "up",
                ("sta", "server"),
                r#"{ kind = "periodic", size = "629B", interval = "10ms" }"#,
                r#"{ kind = "tfrc", rate_from_bss_load = true }"#,
                "1s"
            ),
            roam_to_bss2("3s", "1s")
        ),
    )
    .replace("record = [", "record = [\"tfrc\", ");
    let out = common::run(&text);
    let roam = f64s(table(&out, "roaming"), "time");
    let tfrc = table(&out, "tfrc");
    let (t, event, x) = (
        f64s(tfrc, "time"),
        texts(tfrc, "event"),
        f64s(tfrc, "x_bps"),
    );
    let set: Vec<usize> = (0..t.len()).filter(|&i| event[i] == "estimate").collect();
    assert_eq!(set.iter().map(|&i| t[i]).collect::<Vec<_>>(), roam);
    for i in set {
        assert!((x[i] - 629.0 * 8.0 / 1320e-6).abs() < 1e-6, "{}", x[i]);
    }
}
