//! What an 802.11n receiver's driver sees (every MPDU, good FCS or bad, with its sequence
//! number: the `wifi_rx` trace and `Outcome::received`), and what it may do about it
//! (give an MPDU up: `Bss::give_up`).

mod common;

use common::{f64s, one_station_bss, table, texts, u64s};
use std::collections::BTreeSet;
use tern_sim::engine::SimTime;
use tern_sim::net::packet::{Body, FlowId, NodeId, PacketPool, UdpKind, UdpMessage};
use tern_sim::wifi::build;

/// An 802.11n BSS of one station 5 m from its AP, at MCS 7 with a fixed MPDU error rate;
/// `rest`: top-level keys (before its first `[[`), then tables.
fn one_station(mpdu_error: f64, rest: &str) -> String {
    let (top, flows) = rest.split_at(rest.find("[[").unwrap_or(rest.len()));
    let bss = one_station_bss(5, 7);
    format!(
        r#"{top}
[sim]
duration = "3s"
{bss}mpdu_error = {mpdu_error}
{flows}"#
    )
}

/// The `wifi` and `wifi_rx` traces and a UDP upload of 1400-byte datagrams at `rate` from
/// the station to its AP.
fn traced_upload(rate: &str) -> String {
    format!(
        r#"record = ["wifi", "wifi_rx"]
[[flows]]
name = "up"
from = "sta"
to = "ap"
app = {{ kind = "cbr", rate = "{rate}", size = "1400B" }}
transport = {{ kind = "udp" }}
"#
    )
}

/// The receiver's driver view (`wifi_rx`): every MPDU of every A-MPDU that was not lost in
/// a collision, with its SN, and a bad FCS in the fixed error rate's share of them.
#[test]
fn the_driver_sees_every_mpdu_with_its_sequence_number_and_fcs() {
    let text = one_station(0.2, &traced_upload("40Mbps"));
    let out = common::run(&text);
    let rx = table(&out, "wifi_rx");
    let (sn, ok, rate) = (u64s(rx, "sn"), u64s(rx, "fcs_ok"), f64s(rx, "rate_mbps"));
    let wifi = table(&out, "wifi");
    let (kind, mpdus, acked) = (
        texts(wifi, "kind"),
        u64s(wifi, "mpdus"),
        u64s(wifi, "acked"),
    );
    let ampdus: Vec<usize> = (0..kind.len()).filter(|&i| kind[i] == "ampdu").collect();
    // One driver row per MPDU sent (a single station: no collisions), a good FCS per MPDU
    // acknowledged.
    let sent: u64 = ampdus.iter().map(|&i| mpdus[i]).sum();
    assert_eq!(sn.len() as u64, sent);
    assert_eq!(
        ok.iter().sum::<u64>(),
        ampdus.iter().map(|&i| acked[i]).sum::<u64>()
    );
    // MCS 7, 20 MHz, long GI: 65 Mbit/s (Table 19-27).
    assert!(rate.iter().all(|&r| (r - 65.0).abs() < 1e-9));
    // At 5 m the SNR is high: the errors are the fixed 20 %, within 4 standard deviations.
    let n = sn.len() as f64;
    let bad = n - ok.iter().sum::<u64>() as f64;
    let sd = (n * 0.2 * 0.8).sqrt();
    assert!((bad - 0.2 * n).abs() < 4.0 * sd, "{bad} bad of {n}");
    // SNs count up from 0 modulo 4096; a retransmission repeats an earlier SN.
    assert_eq!(sn[0], 0);
    let max_new = sn.iter().fold((0u64, true), |(hi, fine), &s| {
        (hi.max(s), fine && s <= hi + 64)
    });
    assert!(max_new.1, "an SN jumped ahead of the window");
    // At that SNR the decoded bits are right: the fixed error rate fails a frame elsewhere
    // than in its header, and the driver reads every SN as sent.
    assert_eq!(u64s(rx, "sn_read"), sn);
}

/// A PPDU whose PHY header the AP cannot decode reaches its driver not at all: no MPDU of
/// it, good or bad, and no BlockAck. One station 108 m from its AP at MCS 0 (no fading:
/// one SNR, about 2.25 dB, for every PPDU): a 1400-byte MPDU at BPSK ½ never gets through
/// there, while the 72 header bits do with the probability the error model gives them
/// (`ht_header_success_rate_db`, anchored to ns-3's NIST spot values): the share of
/// A-MPDUs the driver sees is that probability, within 5 standard deviations.
#[test]
fn the_driver_sees_no_mpdu_of_a_ppdu_whose_header_failed() {
    let rest = traced_upload("2Mbps");
    let bss = one_station_bss(108, 0);
    let out = common::run(&format!("{rest}\n[sim]\nduration = \"3s\"\n{bss}"));
    let wifi = table(&out, "wifi");
    let (kind, time, mpdus, snr) = (
        texts(wifi, "kind"),
        f64s(wifi, "time"),
        u64s(wifi, "mpdus"),
        f64s(wifi, "snr_db"),
    );
    let rx = table(&out, "wifi_rx");
    let rx_time = f64s(rx, "time");
    let ampdus: Vec<usize> = (0..kind.len()).filter(|&i| kind[i] == "ampdu").collect();
    let mut seen = 0usize;
    for &i in &ampdus {
        let rows = rx_time.iter().filter(|&&t| t == time[i]).count() as u64;
        // All of the PPDU's MPDUs, or none.
        assert!(
            rows == 0 || rows == mpdus[i],
            "{rows} of {} MPDUs",
            mpdus[i]
        );
        seen += usize::from(rows > 0);
    }
    let n = ampdus.len() as f64;
    let p = tern_sim::wifi::error_model::ht_header_success_rate_db(snr[ampdus[0]]);
    assert!(
        snr.iter().all(|&s| s == snr[ampdus[0]]),
        "one SNR without fading"
    );
    assert!(p > 0.5 && p < 0.95, "the header succeeds with {p}");
    let sd = (n * p * (1.0 - p)).sqrt();
    assert!(
        (seen as f64 - p * n).abs() < 5.0 * sd,
        "seen {seen} of {n}, expected {:.1}",
        p * n
    );
    assert_eq!(
        u64s(rx, "fcs_ok").iter().sum::<u64>(),
        0,
        "no MPDU gets through"
    );
    // At MCS 0 an MPDU's header fields are sent as the PHY header is, BPSK ½: where the
    // header decodes, the Viterbi decoder reads the 12 SN bits of a failed MPDU right
    // all but rarely (`misread`).
    let (sn, sn_read) = (u64s(rx, "sn"), u64s(rx, "sn_read"));
    let misread = sn.iter().zip(&sn_read).filter(|(a, b)| a != b).count();
    assert!(
        misread * 100 <= sn.len(),
        "{misread} of {} misread",
        sn.len()
    );
    // A misread SN differs from the true one in its 12 bits only.
    assert!(sn_read.iter().all(|&s| s < 4096));
}

/// A driver reads a failed MPDU's SN from the bits as its PHY decodes them
/// (`wifi::bss::misread`): one station 60 m from its AP at MCS 4 (16-QAM ¾) without fading,
/// where the BPSK PHY header decodes and the data mostly fails. The share of failed MPDUs
/// whose SN the driver misreads is the model's at that SNR, drawn here apart, within 5
/// standard deviations; a misread SN differs from the true one in its 12 bits only.
#[test]
fn the_driver_reads_a_failed_mpdus_sn_as_the_decoder_decodes_it() {
    use tern_sim::wifi::error_model::{db_to_linear, ht_success_rate_db, uncoded_ber};
    let rest = traced_upload("4Mbps");
    let bss = one_station_bss(60, 4);
    let out = common::run(&format!("{rest}\n[sim]\nduration = \"3s\"\n{bss}"));
    let snr = f64s(table(&out, "wifi"), "snr_db")[0];
    let rx = table(&out, "wifi_rx");
    let (sn, sn_read, ok) = (u64s(rx, "sn"), u64s(rx, "sn_read"), u64s(rx, "fcs_ok"));
    let mcs4 = tern_sim::wifi::phy::HtMcs::new(4).unwrap();
    let bits = u64::from(tern_sim::wifi::frames::mpdu_len(1400 + 28)) * 8;
    let failed = 1.0 - ht_success_rate_db(mcs4, snr, bits);
    let p = uncoded_ber(mcs4.modulation(), db_to_linear(snr));
    let mut rng = tern_sim::engine::RngStream::new(11, "test-misread");
    let draws = 20_000;
    let q = (0..draws)
        .filter(|_| {
            tern_sim::wifi::bss::misread::draw(p, mcs4.code_rate(), failed, &mut rng) & 0xfff != 0
        })
        .count() as f64
        / draws as f64;
    let bad: Vec<usize> = (0..sn.len()).filter(|&i| ok[i] == 0).collect();
    let n = bad.len() as f64;
    assert!(
        n > 300.0 && q > 0.05 && q < 0.95,
        "{n} failed at {snr} dB, q {q}, p {p}"
    );
    let misread = bad.iter().filter(|&&i| sn[i] != sn_read[i]).count() as f64;
    let sd = (n * q * (1.0 - q)).sqrt() + n * (q * (1.0 - q) / draws as f64).sqrt();
    assert!(
        (misread - q * n).abs() < 5.0 * sd,
        "{misread} of {n} SNs misread, expected {:.1}",
        q * n
    );
    assert!(sn_read.iter().all(|&s| s < 4096));
}

/// A driver that gives up on every MPDU the moment it arrives with a bad FCS (the extreme
/// of the wlan-bufferbloat study's retry-out index, index 0): nothing waits in the
/// reordering buffer for a retransmission, the given-up packets never reach the AP's IP
/// layer, and the station's retransmissions of them are still acknowledged, so the
/// station's MAC is not held up.
#[test]
fn a_driver_that_gives_up_at_once_delivers_in_order_without_waiting() {
    let text = one_station(0.3, "");
    let s = tern_sim::load("driver.toml", &text, &[], None).unwrap();
    let mut bss = build::bss(&s.wifi[0], &s.nodes, 1);
    bss.observe_rx = true;
    let mut pool = PacketPool::default();
    let n = 400u64;
    let mut uids = Vec::new();
    for seq in 0..n {
        let msg = UdpMessage {
            kind: UdpKind::Data,
            seq,
            sent_at: SimTime::ZERO,
            len: 1400,
        };
        let p = pool
            .insert(FlowId(0), NodeId(1), NodeId(0), Body::Udp(msg))
            .expect("room for a packet");
        let pkt = pool.get(p);
        uids.push(pkt.uid);
        bss.enqueue(SimTime::ZERO, 1, 0, p, pkt.uid, pkt.size())
            .unwrap();
    }
    let (mut delivered, mut acked, mut given_up) = (Vec::new(), 0u64, BTreeSet::new());
    while let Some(t) = bss.next_wake() {
        let mut outs = vec![bss.wake(t)];
        let received = std::mem::take(&mut outs[0].received);
        for a in received {
            for m in a.mpdus.iter().filter(|m| !m.fcs_ok) {
                given_up.insert(pool.get(m.packet).uid);
                outs.push(bss.give_up(a.to, a.from, m.sn));
            }
        }
        for out in outs {
            acked += out.acked.len() as u64;
            assert!(out.dropped.is_empty(), "no MPDU reaches the retry limit");
            for (_, _, p) in out.delivered {
                delivered.push(pool.get(p).uid);
            }
        }
    }
    // Every packet was acknowledged to the station, given up or not.
    assert_eq!(acked, n);
    // Delivered in order, each once, and never one given up (a late intact copy is ignored).
    assert!(delivered.windows(2).all(|w| w[0] < w[1]));
    let delivered_set: BTreeSet<u64> = delivered.iter().copied().collect();
    assert!(delivered_set.is_disjoint(&given_up));
    // Every packet was delivered or given up.
    assert_eq!(delivered.len() + given_up.len(), n as usize);
    // With 30 % of MPDUs failing on their first attempt, about 30 % are given up.
    let share = given_up.len() as f64 / n as f64;
    let sd = (0.3 * 0.7 / n as f64).sqrt();
    assert!((share - 0.3).abs() < 4.0 * sd, "{share} given up");
}
