//! A client whose Wi-Fi radio is its own node (the mpquic-rssi set-up): the link between the
//! radio and the client carries what Mininet-WiFi's tc does on the station's interface (the
//! downlink shaped after the radio, as with its `ifb`), the RSSI scheduler reads the radio's
//! RSSI (`rssi_scheduler.station`), and routes name the radio's BSS (`[[routes]]` via a BSS).

mod common;
use common::*;

/// `ue` reaches the AP `ap` (802.11n, 5 GHz) through its radio `radio` over the link `wlan`
/// (`shaping`: rate, delay and queue, radio → ue forward) and has a 10 Mbit/s, 20 ms `cell`
/// link to `router`; the radio walks from 50 m to `to` m at 20 m/s while `ue` downloads
/// `size` from `server` over both paths, the scheduler reading the radio's RSSI.
fn split(duration: &str, to: u32, shaping: &str, size: &str, rssi: &str) -> String {
    let routes = r#"[{ node = "radio", to = "server", via = "air" },
          { node = "router", to = "radio", via = "wire" }]"#;
    format!(
        r#"
record = ["path_status", "delay", "queue"]
sim = {{ duration = "{duration}" }}
nodes = [{{ name = "ap", position = [0, 0, 0] }},
         {{ name = "radio", position = [50, 0, 0], moves = [{{ walk_to = [{to}, 0, 0], speed = 20 }}] }},
         {{ name = "ue" }}, {{ name = "router" }}, {{ name = "server" }}]
links = [{{ name = "wlan", ends = ["radio", "ue"], {shaping} }},
         {{ name = "wire", ends = ["ap", "router"], rate = "1Gbps", delay = "1ms" }},
         {{ name = "cell", ends = ["ue", "router"], rate = "10Mbps", delay = "20ms" }},
         {{ name = "core", ends = ["router", "server"], rate = "1Gbps", delay = "1ms" }}]
routes = {routes}
[[wifi]]
name = "air"
ap = "ap"
stations = ["radio"]
standard = "802.11n"
propagation = {{ exponent = 3, reference_loss = 40, tx_power = 20 }}
[[flows]]
name = "get"
from = "ue"
to = "server"
app = {{ kind = "file", size = "{size}" }}
transport = {{ kind = "quic", paths = [{{ via = "wlan" }}, {{ via = "cell" }}], rssi_scheduler = {{ {rssi} }} }}
"#
    )
}

/// The 2 Mbit/s shaping of the radio's link (a 1000-packet queue, netem's default limit).
const SHAPED: &str =
    r#"rate = "2Mbps", delay = "1ms", queue = { kind = "droptail", limit = "1000pkt" }"#;
const PROPOSED: &str = "t1 = -75, t2 = -85, station = \"radio\"";
/// Plain multipath (both paths available throughout), reading the radio's RSSI.
const PLAIN: &str = "t1 = -75, t2 = -85, enabled = false, station = \"radio\"";

#[test]
fn the_scheduler_reads_the_radios_rssi_and_the_wifi_path_goes_through_the_radio() {
    let out = run(&split("4s", 130, SHAPED, "2MB", PROPOSED));
    // The first sample, at 0 s, is the radio's RSSI at 50 m (log-distance: 20 dBm − 40 dB −
    // 30 log10(50)), not "none" (the client itself is in no BSS).
    let rssi = f64s(table(&out, "path_status"), "rssi_dbm");
    assert!(
        (rssi[0] - (20.0 - 40.0 - 30.0 * 50f64.log10())).abs() < 1e-6,
        "{rssi:?}"
    );
    // The download is done within the run, so every packet the radio received from the AP
    // left it over the shaped link: path 0 runs server → AP → radio → ue.
    assert!(out.summary.flows["get"].bytes_delivered == 2_000_000);
    let links = &out.summary.links;
    let (air, wlan) = (&links["air-radio"]["reverse"], &links["wlan"]["forward"]);
    assert!(wlan.tx_packets > 100, "{wlan:?}");
    assert_eq!(air.delivered_packets, wlan.tx_packets);
}

/// (time, packets, bytes) of the `wlan` link's forward queue (radio → ue) at each change.
fn wlan_queue(out: &tern_sim::RunOutput) -> Vec<(f64, u64, u64)> {
    let t = table(out, "queue");
    let (time, link, dir) = (f64s(t, "time"), texts(t, "link"), texts(t, "direction"));
    let (packets, bytes) = (u64s(t, "packets"), u64s(t, "bytes"));
    (0..time.len())
        .filter(|&k| link[k] == "wlan" && dir[k] == "forward")
        .map(|k| (time[k], packets[k], bytes[k]))
        .collect()
}

#[test]
fn what_is_past_the_radio_drains_after_the_radio_dies_at_the_shapers_rate() {
    // Plain multipath keeps the Wi-Fi path busy until the radio, walking from 50 m to 300 m,
    // loses the AP (its RSSI, −20 − 30 log10(d) dBm, nears the noise floor past 200 m, at
    // about 8 s). What the radio received before is in the shaper's queue, after the radio.
    let out = run(&split("20s", 300, SHAPED, "100MB", PLAIN));
    let q = wlan_queue(&out);
    // The last packet the radio handed to the shaper: the queue's last growth.
    let last_in = (1..q.len())
        .rev()
        .find(|&k| q[k].1 > q[k - 1].1)
        .expect("the queue grew");
    let (t_in, backlog, bytes) = q[last_in];
    let (t_empty, ..) = *q[last_in..].iter().find(|e| e.1 == 0).expect("it drains");
    assert!(
        backlog > 100 && t_in > 5.0 && t_in < 15.0,
        "{:?}",
        q[last_in]
    );
    // A rate limiter empties a backlog of B bytes in B × 8 / rate (tc's netem rate, a TBF or
    // an HTB class alike): the queue (what waits behind the packet in service) is empty when
    // its last packet starts, within a packet's time (1500 B at 2 Mbit/s, 6 ms) of that.
    let expected = t_in + bytes as f64 * 8.0 / 2e6;
    assert!(
        (t_empty - expected).abs() <= 2.0 * 1500.0 * 8.0 / 2e6,
        "empty at {t_empty} s, expected {expected} s ({backlog} packets, {bytes} B from {t_in} s)"
    );
    // All of it reached the client: nothing was dropped on the way from the radio.
    let links = &out.summary.links;
    let (air, wlan) = (&links["air-radio"]["reverse"], &links["wlan"]["forward"]);
    assert_eq!(air.delivered_packets, wlan.tx_packets);
    assert_eq!(wlan.drops.queue + wlan.drops.loss, 0, "{wlan:?}");
}

#[test]
fn a_split_radio_run_is_deterministic() {
    let text = split("3s", 130, SHAPED, "1MB", PROPOSED);
    same_runs(&text);
}

#[test]
fn the_station_must_be_a_station_at_the_far_end_of_path_0() {
    let text = split(
        "1s",
        60,
        SHAPED,
        "1MB",
        "t1 = -75, t2 = -85, station = \"router\"",
    );
    let e = error_of(&text);
    assert!(
        e.contains("rssi_scheduler.station") && e.contains("expected a station of an 802.11 BSS"),
        "{e}"
    );
    let text = split("1s", 60, SHAPED, "1MB", PROPOSED).replace(
        "paths = [{ via = \"wlan\" }, { via = \"cell\" }]",
        "paths = [{ via = \"cell\" }, { via = \"wlan\" }]",
    );
    let e = error_of(&text);
    assert!(
        e.contains("rssi_scheduler.station")
            && e.contains(
                "expected path 0 via a link between \"ue\" and the station \"radio\", got \"cell\""
            ),
        "{e}"
    );
}

#[test]
fn a_route_names_a_bss_only_of_a_station() {
    let text = split("1s", 60, SHAPED, "1MB", PROPOSED).replace(
        r#"{ node = "router", to = "radio", via = "wire" }"#,
        r#"{ node = "router", to = "radio", via = "air" }"#,
    );
    let e = error_of(&text);
    assert!(
        e.contains("routes[1].via")
            && e.contains(
                "no link named \"air\", nor an 802.11 BSS that \"router\" is a station of"
            ),
        "{e}"
    );
}
