//! Unit tests of PHY rates and TXTIMEs, with values from IEEE Std 802.11-2020.

use super::*;

fn mcs(i: u8) -> HtMcs {
    HtMcs::new(i).unwrap()
}

#[test]
fn dsss_preambles() {
    assert_eq!(DsssPreamble::Long.duration(), us(192));
    assert_eq!(DsssPreamble::Short.duration(), us(96));
    assert_eq!(dsss_txtime(14, DsssRate::Mbps1, DsssPreamble::Short), None);
}

/// IEEE 802.11-2007 Table 18-2 "Example of LENGTH calculations for CCK" (11 Mbit/s:
/// 1023..1026 B → 744..747 µs) and the 5.5/2/1 Mbit/s values ns-3's tx-duration-test
/// computes by hand from the same clause.
#[test]
fn dsss_txtime_matches_length_examples() {
    let long = DsssPreamble::Long;
    let short = DsssPreamble::Short;
    for (bytes, d11, d55, d2, d1) in [
        (1023, 744, 1488, 4092, 8184),
        (1024, 745, 1490, 4096, 8192),
        (1025, 746, 1491, 4100, 8200),
        (1026, 747, 1493, 4104, 8208),
    ] {
        assert_eq!(
            dsss_txtime(bytes, DsssRate::Mbps11, long),
            Some(us(d11 + 192))
        );
        assert_eq!(
            dsss_txtime(bytes, DsssRate::Mbps11, short),
            Some(us(d11 + 96))
        );
        assert_eq!(
            dsss_txtime(bytes, DsssRate::Mbps5_5, short),
            Some(us(d55 + 96))
        );
        assert_eq!(
            dsss_txtime(bytes, DsssRate::Mbps2, long),
            Some(us(d2 + 192))
        );
        assert_eq!(
            dsss_txtime(bytes, DsssRate::Mbps1, long),
            Some(us(d1 + 192))
        );
    }
    // ACK (14 B) at 1 Mbit/s long preamble: 304 µs; at 11 Mbit/s: 203 µs; 1536 B at
    // 11 Mbit/s: 1310 µs (values ns-3 tests against published tables).
    assert_eq!(
        dsss_txtime(14, DsssRate::Mbps1, long),
        Some(DSSS_EIFS_ACK_TXTIME)
    );
    assert_eq!(dsss_txtime(14, DsssRate::Mbps11, long), Some(us(203)));
    assert_eq!(dsss_txtime(1536, DsssRate::Mbps11, long), Some(us(1310)));
    assert_eq!(dsss_txtime(76, DsssRate::Mbps11, long), Some(us(248)));
}

#[test]
fn dsss_timing() {
    let t = PhyTiming::DSSS;
    assert_eq!(t.difs(), us(50));
    assert_eq!(t.eifs(DSSS_EIFS_ACK_TXTIME), us(364));
    assert_eq!((t.cw_min, t.cw_max), (31, 1023));
}

/// 802.11a/g durations: 54 Mbit/s 1536 B → 248 µs, 76 B → 32 µs, 14 B → 24 µs
/// (+6 µs in 2.4 GHz), the values of the O'Reilly throughput tables ns-3 tests against.
#[test]
fn ofdm_txtime_values() {
    let r = OfdmRate::Mbps54;
    assert_eq!(ofdm_txtime(1536, r, Band::Ghz5), us(248));
    assert_eq!(ofdm_txtime(76, r, Band::Ghz5), us(32));
    assert_eq!(ofdm_txtime(14, r, Band::Ghz5), us(24));
    assert_eq!(ofdm_txtime(1536, r, Band::Ghz2_4), us(254));
    // Control responses: ACK 14 B, BlockAck 32 B.
    assert_eq!(ofdm_txtime(14, OfdmRate::Mbps6, Band::Ghz5), us(44));
    assert_eq!(ofdm_txtime(14, OfdmRate::Mbps24, Band::Ghz5), us(28));
    assert_eq!(ofdm_txtime(32, OfdmRate::Mbps6, Band::Ghz5), us(68));
    assert_eq!(ofdm_txtime(32, OfdmRate::Mbps12, Band::Ghz5), us(44));
    assert_eq!(ofdm_txtime(32, OfdmRate::Mbps24, Band::Ghz5), us(32));
    for r in OfdmRate::ALL {
        assert_eq!(r.bps(), r.n_dbps() * 1_000_000 / 4);
    }
    assert_eq!(OfdmRate::Mbps54.bps(), 54_000_000);
}

/// MCS tables of §19.5 (Tables 19-27 ff.), data rates in Mbit/s for MCS 0–15 at 20/40 MHz,
/// long/short GI. The standard prints short-GI rates to one decimal.
#[test]
fn ht_rate_table_matches_standard() {
    #[rustfmt::skip]
    let table: [(u8, f64, f64, f64, f64); 16] = [
        // mcs, 20 LGI, 20 SGI, 40 LGI, 40 SGI
        (0, 6.5, 7.2, 13.5, 15.0),
        (1, 13.0, 14.4, 27.0, 30.0),
        (2, 19.5, 21.7, 40.5, 45.0),
        (3, 26.0, 28.9, 54.0, 60.0),
        (4, 39.0, 43.3, 81.0, 90.0),
        (5, 52.0, 57.8, 108.0, 120.0),
        (6, 58.5, 65.0, 121.5, 135.0),
        (7, 65.0, 72.2, 135.0, 150.0),
        (8, 13.0, 14.4, 27.0, 30.0),
        (9, 26.0, 28.9, 54.0, 60.0),
        (10, 39.0, 43.3, 81.0, 90.0),
        (11, 52.0, 57.8, 108.0, 120.0),
        (12, 78.0, 86.7, 162.0, 180.0),
        (13, 104.0, 115.6, 216.0, 240.0),
        (14, 117.0, 130.0, 243.0, 270.0),
        (15, 130.0, 144.4, 270.0, 300.0),
    ];
    use ChannelWidth::*;
    use GuardInterval::*;
    for (i, a, b, c, d) in table {
        let m = mcs(i);
        for (w, g, expect) in [
            (Mhz20, Long, a),
            (Mhz20, Short, b),
            (Mhz40, Long, c),
            (Mhz40, Short, d),
        ] {
            let got = HtTxVector::new(m, w, g).data_rate_bps() / 1e6;
            assert!(
                (got - expect).abs() < 0.051,
                "MCS{i} {w:?} {g:?}: {got} vs {expect}"
            );
        }
    }
    // Exact values of the standard's MCS tables and the 3/4-stream corners.
    assert_eq!(HtTxVector::new(mcs(7), Mhz20, Long).data_rate_bps(), 65e6);
    assert_eq!(
        HtTxVector::new(mcs(15), Mhz40, Short).data_rate_bps(),
        300e6
    );
    assert_eq!(HtTxVector::new(mcs(23), Mhz20, Long).data_rate_bps(), 195e6);
    assert_eq!(
        HtTxVector::new(mcs(31), Mhz40, Short).data_rate_bps(),
        600e6
    );
    // N_DBPS of Table 19-27 (20 MHz, 1 SS) and N_ES of the 40 MHz 3-SS table.
    let n20: Vec<u64> = (0..8).map(|i| mcs(i).n_dbps(Mhz20)).collect();
    assert_eq!(n20, [26, 52, 78, 104, 156, 208, 234, 260]);
    assert_eq!(mcs(15).n_es(Mhz40), 1);
    assert_eq!(mcs(20).n_es(Mhz40), 1);
    assert_eq!(mcs(21).n_es(Mhz40), 2);
    assert_eq!(mcs(31).n_es(Mhz20), 1);
    assert_eq!(mcs(28).n_es(Mhz40), 2);
    assert!(HtMcs::new(32).is_none());
}

/// HT-mixed TXTIME. Long-GI values equal ns-3's tx-duration-test (MCS 7, 1536/76/14 B:
/// 228/48/40 µs at 20 MHz, 128/44/40 µs at 40 MHz). Short GI follows §19.4.3 (data field
/// rounded up to 4 µs), where ns-3 has N_SYM · 3.6 µs: MCS 7 40 MHz SGI 1536 B is
/// 36 + 4·⌈0.9·23⌉ = 120 µs here vs 118.8 µs in ns-3.
#[test]
fn ht_txtime_values() {
    use ChannelWidth::*;
    use GuardInterval::*;
    let t = |i, w, g, b| HtTxVector::new(mcs(i), w, g).txtime(b, Band::Ghz5);
    assert_eq!(t(7, Mhz20, Long, 1536), us(228));
    assert_eq!(t(7, Mhz20, Long, 76), us(48));
    assert_eq!(t(7, Mhz20, Long, 14), us(40));
    assert_eq!(t(7, Mhz40, Long, 1536), us(128));
    assert_eq!(t(7, Mhz40, Long, 76), us(44));
    assert_eq!(t(7, Mhz40, Long, 14), us(40));
    assert_eq!(t(7, Mhz40, Short, 1536), us(120));
    assert_eq!(t(0, Mhz20, Short, 1536), us(1744)); // ns-3: 1742.4 µs
                                                    // Signal extension in 2.4 GHz.
    let v = HtTxVector::new(mcs(7), Mhz20, Long);
    assert_eq!(v.txtime(1536, Band::Ghz2_4), us(234));
    // Preamble grows with the HT-LTFs.
    assert_eq!(HtTxVector::new(mcs(15), Mhz20, Long).preamble(), us(40));
    assert_eq!(HtTxVector::new(mcs(23), Mhz20, Long).preamble(), us(48));
    // Every duration is a whole number of ns and, at SGI, ends on a 4 µs boundary.
    for b in [1u32, 100, 1500, 65_535] {
        let d = HtTxVector::new(mcs(5), Mhz40, Short).data_duration(b);
        assert_eq!(d.as_nanos() % 4_000, 0);
    }
}

#[test]
fn ht_l_sig_and_max_ppdu() {
    assert_eq!(ht_mf_max_ppdu(Band::Ghz5), us(5484));
    assert_eq!(ht_mf_max_ppdu(Band::Ghz2_4), us(5490));
    assert_eq!(
        ht_l_sig_length(ht_mf_max_ppdu(Band::Ghz5), Band::Ghz5),
        4095
    );
    assert_eq!(
        ht_l_sig_length(ht_mf_max_ppdu(Band::Ghz2_4), Band::Ghz2_4),
        4095
    );
    assert_eq!(ht_l_sig_length(us(5488), Band::Ghz5), 4098);
    // 228 µs PPDU: (228 − 20)/4 = 52 symbols → 153 octets at 6 Mbit/s.
    assert_eq!(ht_l_sig_length(us(228), Band::Ghz5), 153);
    assert!(HT_APPDU_MAX_TIME > ht_mf_max_ppdu(Band::Ghz5));
}

#[test]
fn edca_and_ofdm_timing() {
    let t = PhyTiming::OFDM_5GHZ;
    assert_eq!(t.difs(), us(34));
    let be = EdcaParams::default_for(AccessCategory::BestEffort, &t);
    assert_eq!((be.aifsn, be.cw_min, be.cw_max), (3, 15, 1023));
    assert_eq!(be.aifs(&t), us(43));
    let vo = EdcaParams::default_for(AccessCategory::Voice, &t);
    assert_eq!((vo.aifsn, vo.cw_min, vo.cw_max), (2, 3, 7));
    let vi = EdcaParams::default_for(AccessCategory::Video, &t);
    assert_eq!((vi.cw_min, vi.cw_max), (7, 15));
    assert_eq!(t.eifs(ofdm_txtime(14, OfdmRate::Mbps6, Band::Ghz5)), us(94));
    assert_eq!(t.eifs_edca(us(44), 3), us(103));
    assert_eq!(PhyTiming::ht(Band::Ghz2_4).sifs, us(10));
}

#[test]
fn control_response_rates() {
    use OfdmRate::*;
    let basic = [Mbps6, Mbps12, Mbps24];
    let got: Vec<OfdmRate> = (0..8)
        .map(|i| ht_control_response_rate(mcs(i), &basic))
        .collect();
    assert_eq!(
        got,
        [Mbps6, Mbps12, Mbps12, Mbps24, Mbps24, Mbps24, Mbps24, Mbps24]
    );
    assert_eq!(ht_control_response_rate(mcs(15), &basic), Mbps24);
    assert_eq!(ofdm_control_response_rate(Mbps54, &[Mbps6]), Mbps6);
    // No basic rate ≤ reference: highest mandatory rate ≤ reference.
    assert_eq!(ofdm_control_response_rate(Mbps18, &[Mbps24]), Mbps12);
    assert_eq!(ofdm_control_response_rate(Mbps9, &[]), Mbps6);
    use DsssRate::*;
    assert_eq!(dsss_control_response_rate(Mbps11, &[Mbps1, Mbps2]), Mbps2);
    assert_eq!(dsss_control_response_rate(Mbps1, &[Mbps2]), Mbps1);
}
