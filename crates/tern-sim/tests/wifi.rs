//! 802.11 MACs against analytic models: Bianchi's DCF saturation throughput (802.11b) and
//! the MAC efficiency of one saturated 802.11n station with A-MPDU and Block Ack.

mod common;

use tern_sim::wifi::analytic::{
    bianchi_saturation, ht_single_station_throughput, Backoff, DcfTimes,
};
use tern_sim::wifi::frames::max_ampdu_mpdus;
use tern_sim::wifi::phy::{
    AccessCategory, Band, ChannelWidth, DsssPreamble, DsssRate, EdcaParams, GuardInterval, HtMcs,
    HtTxVector, OfdmRate, PhyTiming,
};

/// `n` stations each sending `rate` of UDP datagrams of `size` payload bytes to the AP of
/// one BSS (`wifi` holds the BSS's settings after `standard`).
fn saturated(n: usize, wifi: &str, rate: &str, size: u32, duration: &str) -> String {
    let mut s = format!("[sim]\nduration = \"{duration}\"\n[[nodes]]\nname = \"ap\"\n");
    for i in 1..=n {
        s += &format!("[[nodes]]\nname = \"s{i}\"\n");
    }
    let stations: Vec<String> = (1..=n).map(|i| format!("\"s{i}\"")).collect();
    s += &format!(
        "[[wifi]]\nname = \"wlan\"\nap = \"ap\"\nstations = [{}]\n{wifi}\n",
        stations.join(", ")
    );
    for i in 1..=n {
        s += &format!(
            "[[flows]]\nname = \"f{i}\"\nfrom = \"s{i}\"\nto = \"ap\"\n\
             app = {{ kind = \"cbr\", rate = \"{rate}\", size = \"{size}B\" }}\n\
             transport = {{ kind = \"udp\" }}\n"
        );
    }
    s
}

/// UDP payload bit/s delivered to the AP, all flows together.
fn goodput(text: &str) -> f64 {
    let out = common::run(text);
    let bytes: u64 = out.summary.flows.values().map(|f| f.bytes_delivered).sum();
    bytes as f64 * 8.0 / out.summary.duration_s
}

/// Bianchi's model with the channel times this MAC has: 802.11b at 11 Mbit/s, long
/// preamble, Ack at 2 Mbit/s (the highest basic rate ≤ 11 Mbit/s), δ = 0; after a collision
/// the stations that heard it wait EIFS (§10.3.2.3.7), so T_c = TXTIME(data) + EIFS.
fn bianchi_802_11b(n: u32, payload: u32) -> f64 {
    let t = PhyTiming::DSSS;
    let times =
        DcfTimes::dsss(payload + 28, payload, DsssRate::Mbps11, DsssPreamble::Long).unwrap();
    bianchi_saturation(n, Backoff::from_cw(t.cw_min, t.cw_max).unwrap(), &times).bps
}

#[test]
fn dcf_saturation_matches_bianchi() {
    for n in [1, 5, 10, 20, 50] {
        let text = saturated(n, "standard = \"802.11b\"", "12Mbps", 1472, "20s");
        let sim = goodput(&text);
        let model = bianchi_802_11b(n as u32, 1472);
        let err = sim / model - 1.0;
        println!(
            "N = {n:2}: Tern {:.4} Mbit/s, Bianchi {:.4} Mbit/s ({:+.2} %)",
            sim / 1e6,
            model / 1e6,
            err * 100.0
        );
        assert!(err.abs() < 0.05, "N = {n}: {sim} vs {model}");
    }
}

/// One saturated 802.11n station: its goodput is n MPDUs of payload per exchange of AIFS +
/// mean backoff (CWmin/2 slots) + A-MPDU + SIFS + BlockAck, with n the most MPDUs that fit
/// the A-MPDU limits (64 MPDUs, 65 535 B, 5.484 ms PPDU).
#[test]
fn ht_single_station_matches_mac_efficiency() {
    let cases = [
        (
            0,
            ChannelWidth::Mhz20,
            GuardInterval::Long,
            "width = 20",
            "10Mbps",
        ),
        (
            7,
            ChannelWidth::Mhz20,
            GuardInterval::Long,
            "width = 20",
            "80Mbps",
        ),
        (
            15,
            ChannelWidth::Mhz40,
            GuardInterval::Short,
            "width = 40\nguard_interval = \"short\"\nstreams = 2",
            "350Mbps",
        ),
    ];
    for (mcs, width, gi, settings, offered) in cases {
        let wifi = format!(
            "standard = \"802.11n\"\n{settings}\nrate_control = {{ kind = \"constant\", mcs = {mcs} }}"
        );
        let sim = goodput(&saturated(1, &wifi, offered, 1472, "5s"));
        let tx = HtTxVector::new(HtMcs::new(mcs).unwrap(), width, gi);
        let band = Band::Ghz5;
        let n = max_ampdu_mpdus(1500, tx, band);
        let edca = EdcaParams::default_for(AccessCategory::BestEffort, &PhyTiming::ht(band));
        let ip = ht_single_station_throughput(tx, band, n, 1500, &edca, &OfdmRate::MANDATORY);
        let model = ip * 1472.0 / 1500.0;
        let err = sim / model - 1.0;
        println!(
            "MCS {mcs:2} ({n} MPDUs): Tern {:.3} Mbit/s, model {:.3} Mbit/s ({:+.2} %)",
            sim / 1e6,
            model / 1e6,
            err * 100.0
        );
        assert!(err.abs() < 0.03, "MCS {mcs}: {sim} vs {model}");
    }
}

/// The set-up of ns-3's `wifi_ht_upload.py` (scenarios/examples/wifi-ht-upload.toml) against
/// that script's results, run with ns-3.44 (`pip install ns3==3.44.post0`),
/// `python wifi_ht_upload.py --mcs M --distance D --run N`:
///
/// * MCS 7 at 10 m, runs 1–3: goodput 50.382, 50.335, 49.992 Mbit/s; ping RTT median 94.70,
///   97.90, 93.25 ms;
/// * MCS 1 at 28 m, runs 1–7: goodput 10.330, 10.423, 10.176, 10.186, 10.295, 10.232,
///   10.358 Mbit/s; ping median 204.4, 381.4, 202.6, 207.4, 389.9, 209.6, 373.1 ms. The ping
///   is bimodal: in 4 of the 7 runs TCP's first fast retransmission waits in the full
///   500-packet MAC queue past its 500 ms lifetime, the RTO that follows halves ssthresh
///   (from ns-3's BytesInFlight, which leaves out SACKed and lost segments) and the queue
///   stays shorter.
///
/// Tern's goodput must be within 5 % of the runs' mean and its ping median within the
/// runs' range widened by 10 %. (At 28 m MCS 7 depends on the error model: the script's
/// table-based model loses 12.6 % of MPDUs, the NIST model all of them, in ns-3 as in Tern;
/// the 10 m runs give the same numbers under both models.)
#[test]
fn ht_tcp_upload_matches_ns3() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/examples/wifi-ht-upload.toml"
    ))
    .unwrap();
    let set = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let range = |v: &[f64]| {
        (
            v.iter().copied().fold(f64::MAX, f64::min),
            v.iter().copied().fold(0.0, f64::max),
        )
    };
    let cases: [(&str, &str, &[f64], &[f64]); 2] = [
        (
            "7",
            "[10, 0, 0]",
            &[50.382, 50.335, 49.992],
            &[94.70, 97.90, 93.25],
        ),
        (
            "1",
            "[28, 0, 0]",
            &[10.330, 10.423, 10.176, 10.186, 10.295, 10.232, 10.358],
            &[204.4, 381.4, 202.6, 207.4, 389.9, 209.6, 373.1],
        ),
    ];
    for (mcs, position, ns3_goodput, ns3_ping) in cases {
        let overrides = [
            set("wifi.wlan.rate_control.mcs", mcs),
            set("nodes.sta.position", position),
        ];
        let out = tern_sim::run_text("wifi-ht-upload.toml", &text, &overrides, None).unwrap();
        let flows = &out.summary.flows;
        let goodput = flows["upload"].goodput_bps / 1e6;
        let ping = flows["ping"].rtt_s.as_ref().unwrap().p50 * 1e3;
        let (lo, hi) = range(ns3_ping);
        println!(
            "MCS {mcs}: goodput Tern {goodput:.3} / ns-3 mean {:.3} Mbit/s, ping median Tern \
             {ping:.1} ms / ns-3 {lo:.1}–{hi:.1} ms",
            mean(ns3_goodput)
        );
        assert!(
            (goodput / mean(ns3_goodput) - 1.0).abs() < 0.05,
            "MCS {mcs} goodput"
        );
        assert!(
            (0.9 * lo..=1.1 * hi).contains(&ping),
            "MCS {mcs} ping median {ping}"
        );
    }
}

/// Every random element of the Wi-Fi model at once — backoff, MPDU errors at a walking
/// station's SNR, shadowing, Minstrel's sampling, TCP — gives byte-identical outputs for the
/// same seed, and different ones for another seed. Minstrel tries several MCSs (its choices
/// show in the `wifi` trace).
#[test]
fn wifi_runs_are_deterministic() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scenarios/examples/wifi-ht-upload.toml"
    ))
    .unwrap();
    let overrides: Vec<(String, String)> = [
        ("sim.duration", "6s"),
        ("wifi.wlan.rate_control", "{ kind = \"minstrel\" }"),
        ("wifi.wlan.propagation.shadowing", "4"),
        (
            "nodes.sta.moves",
            "[{ pause = \"2s\" }, { walk_to = [40, 0, 0], speed = 5 }]",
        ),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let run = |seed| tern_sim::run_text("w", &text, &overrides, Some(seed)).unwrap();
    let (a, b, c) = (run(1), run(1), run(2));
    let sa = serde_json::to_string(&a.summary).unwrap();
    assert_eq!(sa, serde_json::to_string(&b.summary).unwrap());
    assert_eq!(a.tables, b.tables);
    assert_ne!(sa, serde_json::to_string(&c.summary).unwrap());
    let wifi = common::table(&a, "wifi");
    let mut mcs: Vec<u64> = common::opt_f64s(wifi, "mcs")
        .into_iter()
        .flatten()
        .map(|m| m as u64)
        .collect();
    mcs.sort_unstable();
    mcs.dedup();
    assert!(mcs.len() >= 3, "Minstrel used only {mcs:?}");
    assert!(a.summary.flows["upload"].goodput_bps > 1e6);
}
