//! 802.11g: the ERP-OFDM rate set, and the rate controls on it.

use super::*;

fn ofdm(r: OfdmRate) -> DcfRate {
    DcfRate::Ofdm(r)
}

#[test]
fn erp_rate_set_and_exchange_airtimes() {
    let s = LegacyRateSet::erp_ofdm();
    let all: Vec<DcfRate> = OfdmRate::ALL.into_iter().map(ofdm).collect();
    assert_eq!(s.rates(), all);
    let two = LegacyRateSet::erp(&[OfdmRate::Mbps54, OfdmRate::Mbps6, OfdmRate::Mbps54]);
    assert_eq!(
        two.unwrap().rates(),
        [ofdm(OfdmRate::Mbps6), ofdm(OfdmRate::Mbps54)]
    );
    assert!(LegacyRateSet::erp(&[]).is_none());
    let band = Band::Ghz2_4;
    let r54 = ofdm(OfdmRate::Mbps54);
    for &r in s.rates() {
        assert_eq!(s.max_mpdus(r, 1500, band), 1, "no A-MPDU at {r:?}");
        assert_eq!(s.n_ss(r), 1);
    }
    // A 1500-byte IP packet in a non-QoS Data MPDU: 24 + 8 + 1500 + 4 = 1536 bytes.
    assert_eq!(s.mpdu_len(1500), 1536);
    // TXTIME (§17.4.3, + the 6 µs ERP signal extension of Clause 18): 16 + 8 · 1536 + 6 =
    // 12 310 bits in ⌈12 310 / 216⌉ = 57 symbols at 54 Mbit/s: 20 + 228 + 6 = 254 µs.
    assert_eq!(s.ppdu_txtime(r54, 1, 1500, band), SimTime::from_micros(254));
    // Overhead: SIFS 10 µs + the Ack (14 bytes, 134 bits with SERVICE and tail) at the
    // control-response rate + DIFS 10 + 2 · 9 = 28 µs + CWmin/2 = 7.5 slots = 67.5 µs.
    // At 54 Mbit/s the Ack goes at 24 Mbit/s: 2 symbols, 20 + 8 + 6 = 34 µs.
    assert_eq!(s.exchange_overhead(r54, band), SimTime::from_nanos(139_500));
    // At 9 Mbit/s it goes at 6 Mbit/s: 6 symbols, 20 + 24 + 6 = 50 µs.
    assert_eq!(
        s.exchange_overhead(ofdm(OfdmRate::Mbps9), band),
        SimTime::from_nanos(155_500)
    );
}

#[test]
fn ideal_erp_meets_the_target_and_is_monotone() {
    let ideal = IdealRate::with_defaults(LegacyRateSet::erp_ofdm());
    let s = LegacyRateSet::erp_ofdm();
    let mut last = s.slowest();
    for step in 0..=80 {
        let snr = -5.0 + 0.5 * f64::from(step);
        let r = ideal.choose(Some(snr));
        assert!(r.bps() >= last.bps(), "{snr} dB: {r:?} after {last:?}");
        last = r;
        // The rule: the choice reaches 99 % for a 1500-byte frame, the next faster rate
        // does not (unless nothing does, then the slowest).
        let pos = s.position(r).unwrap();
        let ok = |r: DcfRate| s.success(r, snr, 12_000) >= 0.99;
        assert!(ok(r) || pos == 0, "{snr} dB: {r:?}");
        if let Some(&next) = s.rates().get(pos + 1) {
            assert!(!ok(next), "{snr} dB: {next:?} also qualifies");
        }
    }
    assert_eq!(last, ofdm(OfdmRate::Mbps54));
}

#[test]
fn minstrel_erp_converges_to_the_throughput_optimum() {
    for (snr, seed) in ERP_SNRS {
        converges(
            &mut erp_minstrel(seed),
            LegacyRateSet::erp_ofdm(),
            Band::Ghz2_4,
            snr,
            seed,
        );
    }
}

#[test]
fn minstrel_erp_follows_an_snr_drop() {
    let (high, low) = (ERP_SNRS[3].0, ERP_SNRS[0].0);
    follows_a_drop(
        erp_minstrel(4),
        LegacyRateSet::erp_ofdm(),
        Band::Ghz2_4,
        high,
        low,
    );
}

#[test]
fn minstrel_erp_is_deterministic() {
    deterministic(erp_minstrel, LegacyRateSet::erp_ofdm(), Band::Ghz2_4, 15.0);
}

/// At a rate's failure: the retry chain steps down max_tp → max_tp2 → max_prob → 6 Mbit/s
/// for the retransmissions, an Ack returns it to max_tp, and once a statistics update
/// sees max_tp deliver nothing, another rate takes its place.
#[test]
fn minstrel_erp_at_a_rates_failure() {
    let rate = |mbps: u64| ofdm(OfdmRate::from_bps(mbps * 1_000_000).unwrap());
    let mut mi = Minstrel::new(
        MinstrelConfig {
            sampling: Sampling::Fraction(0.0),
            ..MinstrelConfig::new(LegacyRateSet::erp_ofdm(), Band::Ghz2_4)
        },
        RngStream::new(1, "unit"),
    );
    assert_eq!(
        (mi.max_tp(), mi.max_tp2(), mi.max_prob()),
        (rate(6), rate(9), rate(6))
    );
    // One interval: 54 and 48 Mbit/s deliver 95 %, 24 Mbit/s everything.
    let t0 = SimTime::ZERO;
    for k in 0..100u32 {
        mi.report(t0, rate(54), 1, u32::from(k % 20 != 0), 0);
        mi.report(t0, rate(48), 1, u32::from(k % 20 != 0), 0);
        mi.report(t0, rate(24), 1, 1, 0);
    }
    mi.report(SimTime(100 * MS), rate(24), 1, 1, 0);
    assert_eq!(mi.success_prob(rate(54)), Some(0.95));
    // Both valued at the 90 % cap: 54 first, 48 second; max_prob is the best-throughput
    // rate above 75 %: 54 Mbit/s.
    assert_eq!(
        (mi.max_tp(), mi.max_tp2(), mi.max_prob()),
        (rate(54), rate(48), rate(54))
    );
    // Frames at 54 Mbit/s fail: the chain goes 54, 48, 54 (max_prob), 6, 6.
    let t = SimTime(110 * MS);
    let chain = failing_chain(&mut mi, t, 1);
    assert_eq!(chain, [rate(54), rate(48), rate(54), rate(6), rate(6)]);
    mi.report(t, rate(6), 1, 1, 0);
    assert_eq!(mi.select(t).rate, rate(54));
    // 54 Mbit/s stops delivering for an interval: 0.75 · 0.95 + 0.25 · 0 = 0.7125 (the
    // failures above count too), below the 75 % of max_prob; 48 Mbit/s, now at about
    // 96 %, takes max_tp (0.7125 · 54 < 0.9 · 48).
    for _ in 0..50 {
        mi.report(SimTime(150 * MS), rate(54), 1, 0, 0);
        mi.report(SimTime(150 * MS), rate(48), 1, 1, 0);
    }
    mi.report(SimTime(210 * MS), rate(24), 1, 1, 0);
    assert!((mi.success_prob(rate(54)).unwrap() - 0.7125).abs() < 1e-12);
    assert_eq!(mi.max_tp(), rate(48));
    assert_eq!(mi.max_prob(), rate(48));
}
