//! Unit tests of the rate controllers, against the rules in the parent module's docs.

use super::*;

fn mcs(i: u8) -> HtMcs {
    HtMcs::new(i).unwrap()
}

fn set(max: u8) -> HtRateSet {
    HtRateSet::up_to(mcs(max), ChannelWidth::Mhz20, GuardInterval::Long)
}

const MS: u64 = 1_000_000;

#[test]
fn rate_set_is_sorted_by_rate() {
    let s = set(15);
    let idx: Vec<u8> = s.mcs().iter().map(|m| m.index()).collect();
    assert_eq!(idx, [0, 1, 8, 2, 3, 9, 4, 10, 5, 11, 6, 7, 12, 13, 14, 15]);
    let s = HtRateSet::new(
        &[mcs(7), mcs(0), mcs(7)],
        ChannelWidth::Mhz40,
        GuardInterval::Short,
    )
    .unwrap();
    assert_eq!(s.mcs(), [mcs(0), mcs(7)]);
    assert_eq!(s.slowest(), mcs(0));
    assert!(HtRateSet::new(&[], ChannelWidth::Mhz20, GuardInterval::Long).is_none());
}

#[test]
fn constant_returns_constant() {
    let mut rc = RateControl::constant(mcs(5));
    assert_eq!(rc.last_choice(), None);
    for k in 0..100u64 {
        let t = SimTime::from_millis(k);
        assert_eq!(rc.select(t, Some(k as f64 - 50.0)), mcs(5));
        rc.report(t, mcs(5), 16, (k % 17) as u32);
    }
    assert_eq!(
        rc.last_choice(),
        Some(RateChoice {
            mcs: mcs(5),
            sample: false
        })
    );
}

#[test]
fn ideal_picks_by_snr_and_is_monotone() {
    for (max, top) in [(7, 7), (15, 15)] {
        let mut rc = RateControl::ideal(set(max));
        let low = rc.select(SimTime::ZERO, Some(5.0));
        assert!(low.index() % 8 <= 1, "5 dB with MCS 0–{max}: {low:?}");
        assert_eq!(rc.select(SimTime::ZERO, Some(35.0)), mcs(top));
        assert_eq!(rc.select(SimTime::ZERO, None), mcs(0));
        assert_eq!(rc.select(SimTime::ZERO, Some(-5.0)), mcs(0));
        let mut last = mcs(0);
        for step in 0..=100 {
            let snr = -10.0 + 0.5 * f64::from(step);
            let m = rc.select(SimTime::ZERO, Some(snr));
            assert!(
                m.n_dbps(ChannelWidth::Mhz20) >= last.n_dbps(ChannelWidth::Mhz20) && m >= last,
                "{snr} dB: {m:?} after {last:?}"
            );
            last = m;
        }
        // The rule itself: the choice meets the target, the next faster MCS does not.
        let ideal = IdealRate::with_defaults(set(max));
        let m = ideal.choose(Some(18.0));
        assert!(ht_success_rate_db(m, 18.0, 12_000) >= 0.99);
        let pos = set(max).mcs().iter().position(|&x| x == m).unwrap();
        if let Some(&next) = set(max).mcs().get(pos + 1) {
            assert!(ht_success_rate_db(next, 18.0, 12_000) < 0.99);
        }
    }
}

/// The synthetic channel: every MPDU at MCS k succeeds independently with the error
/// model's probability for a 1538-byte MPDU at the current SNR. The MAC sends
/// A-MPDUs of up to 16 MPDUs (fewer where the PPDU limit binds) back to back.
struct Channel {
    rates: HtRateSet,
    band: Band,
    rng: RngStream,
}

struct RunLog {
    /// (time, choice, max_tp after the report)
    events: Vec<(SimTime, RateChoice, HtMcs)>,
}

impl RunLog {
    /// Most used MCS in [from, to) (ties to the higher index).
    fn most_used(&self, from: SimTime, to: SimTime) -> HtMcs {
        let mut counts = [0u32; 32];
        for (t, c, _) in &self.events {
            if *t >= from && *t < to {
                counts[usize::from(c.mcs.index())] += 1;
            }
        }
        let best = (0..32).max_by_key(|&i| counts[i]).unwrap();
        mcs(best as u8)
    }

    fn sample_fraction(&self, from: SimTime, to: SimTime) -> f64 {
        let window: Vec<_> = self
            .events
            .iter()
            .filter(|(t, _, _)| *t >= from && *t < to)
            .collect();
        let samples = window.iter().filter(|(_, c, _)| c.sample).count();
        samples as f64 / window.len() as f64
    }
}

fn mpdu_success(m: HtMcs, snr_db: f64) -> f64 {
    ht_success_rate_db(m, snr_db, 8 * u64::from(mpdu_len(1500)))
}

impl Channel {
    fn new(rates: HtRateSet, seed: u64) -> Channel {
        Channel {
            rates,
            band: Band::Ghz5,
            rng: RngStream::new(seed, "test/channel"),
        }
    }

    fn run(
        &mut self,
        rc: &mut RateControl,
        snr_at: impl Fn(SimTime) -> f64,
        until: SimTime,
    ) -> RunLog {
        let overhead = MinstrelConfig::new(self.rates.clone(), self.band).exchange_overhead;
        let mut now = SimTime::ZERO;
        let mut events = Vec::new();
        while now < until {
            let snr = snr_at(now);
            let m = rc.select(now, Some(snr));
            let tx = self.rates.tx_vector(m);
            let n = max_ampdu_mpdus(1500, tx, self.band).clamp(1, 16);
            let p = mpdu_success(m, snr);
            let ok = (0..n).filter(|_| self.rng.bernoulli(p)).count() as u32;
            let psdu = ampdu_len_uniform(n, mpdu_len(1500));
            now += tx.txtime(psdu, self.band) + overhead;
            rc.report(now, m, n, ok);
            let max_tp = match rc.algorithm() {
                Algorithm::Minstrel(mi) => mi.max_tp(),
                _ => m,
            };
            events.push((now, rc.last_choice().unwrap(), max_tp));
        }
        RunLog { events }
    }
}

fn minstrel(rates: HtRateSet, seed: u64) -> RateControl {
    RateControl::minstrel(
        MinstrelConfig::new(rates, Band::Ghz5),
        RngStream::new(seed, "test/rate"),
    )
}

/// The throughput-optimal MCS by hand: argmax over the set of p_k · (PHY rate)_k.
fn hand_optimum(rates: &HtRateSet, snr_db: f64) -> HtMcs {
    let score = |m: HtMcs| mpdu_success(m, snr_db) * rates.tx_vector(m).data_rate_bps();
    let best = rates
        .mcs()
        .iter()
        .copied()
        .max_by(|&a, &b| score(a).total_cmp(&score(b)))
        .unwrap();
    // The SNRs used are away from ties: the runner-up is clearly worse.
    let second = rates
        .mcs()
        .iter()
        .copied()
        .filter(|&m| m != best)
        .map(score)
        .fold(0.0, f64::max);
    assert!(second < 0.95 * score(best), "near tie at {snr_db} dB");
    best
}

#[test]
fn minstrel_converges_to_the_throughput_optimum() {
    for (snr, seed) in [(15.0, 1), (20.0, 2), (25.0, 3)] {
        let rates = set(15);
        let want = hand_optimum(&rates, snr);
        let mut rc = minstrel(rates.clone(), seed);
        let log = Channel::new(rates, seed).run(&mut rc, |_| snr, SimTime::from_secs(2));
        let got = log.most_used(SimTime::from_secs(1), SimTime::from_secs(2));
        assert_eq!(got, want, "{snr} dB");
        let Algorithm::Minstrel(mi) = rc.algorithm() else {
            unreachable!()
        };
        assert_eq!(mi.max_tp(), want, "{snr} dB");
        // Sampling: about 10 % of the A-MPDUs while some rate could beat max_tp; at
        // 25 dB max_tp is MCS 15, the fastest, delivering > 90 %: nothing could beat
        // it, so sampling stops once the climb is over.
        let f = log.sample_fraction(SimTime::ZERO, SimTime::from_secs(2));
        let late = log.sample_fraction(SimTime::from_secs(1), SimTime::from_secs(2));
        println!("{snr} dB: sample fraction {f:.4} (0–2 s), {late:.4} (1–2 s)");
        if want == mcs(15) {
            assert!(late < 0.01, "{snr} dB: sample fraction {late}");
        } else {
            // ~500 A-MPDUs: 10 % ± 3 standard deviations.
            assert!((0.06..=0.14).contains(&f), "{snr} dB: sample fraction {f}");
        }
    }
}

#[test]
fn minstrel_single_stream_set() {
    let rates = set(7);
    let want = hand_optimum(&rates, 15.0);
    let mut rc = minstrel(rates.clone(), 3);
    let log = Channel::new(rates, 3).run(&mut rc, |_| 15.0, SimTime::from_secs(2));
    assert_eq!(
        log.most_used(SimTime::from_secs(1), SimTime::from_secs(2)),
        want
    );
}

#[test]
fn minstrel_follows_an_snr_drop() {
    let rates = set(15);
    let drop_at = SimTime::from_secs(2);
    let (high, low) = (25.0, 12.0);
    let want_low = hand_optimum(&rates, low);
    let mut rc = minstrel(rates.clone(), 4);
    let log = Channel::new(rates.clone(), 4).run(
        &mut rc,
        |t| if t < drop_at { high } else { low },
        SimTime::from_secs(4),
    );
    let before = log
        .events
        .iter()
        .rev()
        .find(|(t, _, _)| *t < drop_at)
        .unwrap()
        .2;
    assert_eq!(before, hand_optimum(&rates, high));
    let rate = |m: HtMcs| rates.tx_vector(m).data_rate_bps();
    let moved = log
        .events
        .iter()
        .find(|(t, _, max_tp)| *t >= drop_at && rate(*max_tp) < rate(before))
        .expect("max_tp never moved down")
        .0;
    assert!(
        moved - drop_at <= SimTime::from_secs(1),
        "max_tp moved down {} after the drop",
        moved - drop_at
    );
    // And it settles on the new optimum.
    let settled = log.most_used(drop_at + SimTime::from_secs(1), SimTime::from_secs(4));
    assert_eq!(settled, want_low);
}

#[test]
fn minstrel_is_deterministic() {
    let trace = |seed| {
        let rates = set(15);
        let mut rc = minstrel(rates.clone(), seed);
        let log = Channel::new(rates, 9).run(&mut rc, |_| 20.0, SimTime::from_millis(500));
        log.events
            .into_iter()
            .map(|(t, c, m)| (t, c.mcs, c.sample, m))
            .collect::<Vec<_>>()
    };
    assert_eq!(trace(5), trace(5));
    assert_ne!(trace(5), trace(6));
}

#[test]
fn minstrel_statistics_and_retry_chain() {
    // Default exchange overhead in 5 GHz: 16 + 32 + 43 + 7.5 · 9 µs.
    assert_eq!(
        MinstrelConfig::new(set(7), Band::Ghz5).exchange_overhead,
        SimTime::from_nanos(158_500)
    );
    let mut mi = MinstrelHt::new(
        MinstrelConfig {
            sample_fraction: 0.0,
            ..MinstrelConfig::new(set(7), Band::Ghz5)
        },
        RngStream::new(1, "unit"),
    );
    // Start: everything at the slowest MCS.
    assert_eq!(
        (mi.max_tp(), mi.max_tp2(), mi.max_prob()),
        (mcs(0), mcs(1), mcs(0))
    );
    let t0 = SimTime::ZERO;
    assert_eq!(mi.select(t0).mcs, mcs(0));
    // An interval in which MCS 4 delivered 3/4 and MCS 0 everything.
    mi.report(t0, mcs(0), 2, 2);
    mi.report(t0, mcs(4), 16, 12);
    assert_eq!(mi.success_prob(mcs(4)), None, "no update before 100 ms");
    mi.report(SimTime(100 * MS), mcs(4), 16, 4);
    // First measurement taken as is: 16/32.
    assert_eq!(mi.success_prob(mcs(4)), Some(0.5));
    assert_eq!(mi.success_prob(mcs(0)), Some(1.0));
    assert_eq!(mi.max_tp(), mcs(4));
    assert_eq!(mi.max_tp2(), mcs(0));
    // MCS 4 at 50 % is not reliable: max_prob is MCS 0.
    assert_eq!(mi.max_prob(), mcs(0));
    // Then an interval of full success at MCS 4: 0.75·0.5 + 0.25·1 = 0.625.
    mi.report(SimTime(150 * MS), mcs(4), 16, 16);
    mi.report(SimTime(200 * MS), mcs(4), 16, 16);
    assert_eq!(mi.success_prob(mcs(4)), Some(0.625));
    assert!(mi.expected_throughput(mcs(4)) > mi.expected_throughput(mcs(0)));
    // Below 10 %: no throughput.
    mi.report(SimTime(250 * MS), mcs(7), 16, 1);
    mi.report(SimTime(300 * MS), mcs(7), 16, 0);
    assert_eq!(mi.success_prob(mcs(7)), Some(1.0 / 32.0));
    assert_eq!(mi.expected_throughput(mcs(7)), 0.0);
    // Retry chain: max_tp, max_tp2, max_prob, slowest, slowest; success resets. (The
    // failed report at MCS 7 above already advanced the chain: reset it first.)
    let t = SimTime(310 * MS);
    mi.report(t, mcs(0), 2, 2);
    let mut chain = Vec::new();
    for _ in 0..5 {
        let c = mi.select(t);
        chain.push(c.mcs);
        mi.report(t, c.mcs, 16, 0);
    }
    assert_eq!(chain, [mcs(4), mcs(0), mcs(0), mcs(0), mcs(0)]);
    mi.report(t, mcs(0), 2, 1);
    assert_eq!(mi.select(t).mcs, mcs(4));
    // Foreign MCS and empty reports are ignored.
    mi.report(t, mcs(12), 16, 16);
    mi.report(t, mcs(4), 0, 0);
    assert_eq!(mi.success_prob(mcs(12)), None);
}
