//! 802.11 MACs against analytic models: Bianchi's DCF saturation throughput (802.11b) and
//! the MAC efficiency of one saturated 802.11n station with A-MPDU and Block Ack.

mod common;

use tern_sim::engine::SimTime;
use tern_sim::wifi::analytic::{
    bianchi_saturation, ht_single_station_throughput, Backoff, DcfTimes,
};
use tern_sim::wifi::frames::{dcf_mpdu_len, max_ampdu_mpdus, ACK};
use tern_sim::wifi::phy::{
    dsss_txtime, AccessCategory, Band, ChannelWidth, DsssPreamble, DsssRate, EdcaParams,
    GuardInterval, HtMcs, HtTxVector, OfdmRate, PhyTiming, DSSS_EIFS_ACK_TXTIME,
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
    let ip = payload + 28;
    let data = dsss_txtime(dcf_mpdu_len(ip), DsssRate::Mbps11, DsssPreamble::Long).unwrap();
    let ack = dsss_txtime(ACK, DsssRate::Mbps2, DsssPreamble::Long).unwrap();
    let bits = u64::from(payload) * 8;
    let times = DcfTimes {
        slot: t.slot,
        success: data + t.sifs + ack + t.difs(),
        collision: data + t.eifs(DSSS_EIFS_ACK_TXTIME),
        payload: SimTime::from_nanos(bits * 1000 / 11),
        payload_bits: bits,
    };
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
