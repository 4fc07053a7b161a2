//! Unit tests of the rate controllers, against the rules in the parent module's docs.

use super::super::bss::DcfRate;
use super::super::error_model::ht_success_rate_db;
use super::super::phy::{ChannelWidth, GuardInterval, HtMcs, OfdmRate};
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
    let mut rc = RateControl::<HtRateSet>::constant(mcs(5));
    assert_eq!(rc.last_choice(), None);
    for k in 0..100u64 {
        let t = SimTime::from_millis(k);
        assert_eq!(rc.select(t, Some(k as f64 - 50.0)), mcs(5));
        rc.report(t, mcs(5), 16, (k % 17) as u32, 0);
    }
    assert_eq!(
        rc.last_choice(),
        Some(RateChoice {
            rate: mcs(5),
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

/// The synthetic channel: every MPDU at rate k succeeds independently with the error
/// model's probability for a 1500-byte IP packet's MPDU at the current SNR. The MAC sends
/// PPDUs of up to 16 MPDUs (fewer where the PPDU limit binds; one at a legacy rate) back
/// to back, each followed by its exchange overhead.
struct Channel<S: RateSet> {
    rates: S,
    band: Band,
    rng: RngStream,
}

struct RunLog<R> {
    /// (time, choice, max_tp after the report)
    events: Vec<(SimTime, RateChoice<R>, R)>,
}

impl<R: Copy + Eq + std::fmt::Debug> RunLog<R> {
    /// Most used rate of `set` in [from, to) (ties to the faster).
    fn most_used<S: RateSet<Rate = R>>(&self, set: &S, from: SimTime, to: SimTime) -> R {
        let mut counts = vec![0u32; set.rates().len()];
        for (t, c, _) in &self.events {
            if *t >= from && *t < to {
                counts[set.position(c.rate).unwrap()] += 1;
            }
        }
        let best = (0..counts.len()).max_by_key(|&i| counts[i]).unwrap();
        set.rates()[best]
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

impl<S: RateSet> Channel<S> {
    fn new(rates: S, band: Band, seed: u64) -> Channel<S> {
        Channel {
            rates,
            band,
            rng: RngStream::new(seed, "test/channel"),
        }
    }

    /// MPDUs per PPDU at `rate`.
    fn mpdus(&self, rate: S::Rate) -> u32 {
        self.rates.max_mpdus(rate, 1500, self.band).clamp(1, 16)
    }

    fn mpdu_success(&self, rate: S::Rate, snr_db: f64) -> f64 {
        let bits = 8 * u64::from(self.rates.mpdu_len(1500));
        self.rates.success(rate, snr_db, bits)
    }

    /// Airtime of one exchange at `rate`: PPDU plus overhead.
    fn exchange(&self, rate: S::Rate) -> SimTime {
        let n = self.mpdus(rate);
        self.rates.ppdu_txtime(rate, n, 1500, self.band)
            + self.rates.exchange_overhead(rate, self.band)
    }

    fn run(
        &mut self,
        rc: &mut RateControl<S>,
        snr_at: impl Fn(SimTime) -> f64,
        until: SimTime,
    ) -> RunLog<S::Rate> {
        let mut now = SimTime::ZERO;
        let mut events = Vec::new();
        while now < until {
            let snr = snr_at(now);
            let m = rc.select(now, Some(snr));
            let n = self.mpdus(m);
            let p = self.mpdu_success(m, snr);
            let ok = (0..n).filter(|_| self.rng.bernoulli(p)).count() as u32;
            now += self.exchange(m);
            rc.report(now, m, n, ok, 0);
            let max_tp = match rc.algorithm() {
                Algorithm::Minstrel(mi) => mi.max_tp(),
                _ => m,
            };
            events.push((now, rc.last_choice().unwrap(), max_tp));
        }
        RunLog { events }
    }

    /// The throughput-optimal rate of this channel by hand: argmax over the set of the
    /// expected goodput p_k · n_k / (TXTIME_k + overhead_k), the delivered MPDUs per
    /// second of airtime if every exchange went at rate k.
    fn optimum(&self, snr_db: f64) -> S::Rate {
        let score = |r: S::Rate| {
            let air = self.exchange(r).as_nanos() as f64;
            self.mpdu_success(r, snr_db) * f64::from(self.mpdus(r)) / air
        };
        let set = self.rates.rates();
        let best = set
            .iter()
            .copied()
            .max_by(|&a, &b| score(a).total_cmp(&score(b)))
            .unwrap();
        // The SNRs used are away from ties: the runner-up is clearly worse.
        let second = set
            .iter()
            .copied()
            .filter(|&r| r != best)
            .map(score)
            .fold(0.0, f64::max);
        assert!(second < 0.95 * score(best), "near tie at {snr_db} dB");
        best
    }
}

fn minstrel(rates: HtRateSet, seed: u64) -> RateControl {
    RateControl::minstrel(
        MinstrelConfig::new(rates, Band::Ghz5),
        RngStream::new(seed, "test/rate"),
    )
}

fn erp_minstrel(seed: u64) -> RateControl<LegacyRateSet> {
    RateControl::minstrel(
        MinstrelConfig::new(LegacyRateSet::erp_ofdm(), Band::Ghz2_4),
        RngStream::new(seed, "test/rate"),
    )
}

/// Runs `rc` on a fixed SNR for 2 s and checks that it settles on the channel's optimum
/// (most used rate and max_tp over the last second), and how much it samples: about 10 %
/// of the PPDUs while some rate could beat max_tp; nothing once max_tp is the fastest rate
/// of the set and delivers more than 90 % (no rate could beat it).
fn converges<S: RateSet>(rc: &mut RateControl<S>, rates: S, band: Band, snr: f64, seed: u64) {
    let mut channel = Channel::new(rates.clone(), band, seed);
    let want = channel.optimum(snr);
    let log = channel.run(rc, |_| snr, SimTime::from_secs(2));
    let got = log.most_used(&rates, SimTime::from_secs(1), SimTime::from_secs(2));
    assert_eq!(got, want, "{snr} dB");
    let Algorithm::Minstrel(mi) = rc.algorithm() else {
        unreachable!()
    };
    assert_eq!(mi.max_tp(), want, "{snr} dB");
    let f = log.sample_fraction(SimTime::ZERO, SimTime::from_secs(2));
    let late = log.sample_fraction(SimTime::from_secs(1), SimTime::from_secs(2));
    let fastest = *rates.rates().last().unwrap();
    println!("{snr} dB: {want:?}, sample fraction {f:.4} (0–2 s), {late:.4} (1–2 s)");
    if want == fastest && channel.mpdu_success(want, snr) > MINSTREL_PROB_CAP {
        assert!(late < 0.01, "{snr} dB: sample fraction {late}");
    } else {
        // Hundreds to thousands of PPDUs: 10 % ± 3 standard deviations at 500.
        assert!((0.06..=0.14).contains(&f), "{snr} dB: sample fraction {f}");
    }
}

#[test]
fn minstrel_converges_to_the_throughput_optimum() {
    for (snr, seed) in [(15.0, 1), (20.0, 2), (25.0, 3)] {
        converges(&mut minstrel(set(15), seed), set(15), Band::Ghz5, snr, seed);
    }
}

#[test]
fn minstrel_single_stream_set() {
    converges(&mut minstrel(set(7), 3), set(7), Band::Ghz5, 15.0, 3);
}

/// The SNR drops from `high` to `low` at 2 s: max_tp, the optimum of `high` before, moves
/// to a slower rate within 1 s (the retry chain carries the frames meanwhile) and the
/// controller settles on the optimum of `low`.
fn follows_a_drop<S: RateSet>(mut rc: RateControl<S>, rates: S, band: Band, high: f64, low: f64) {
    let drop_at = SimTime::from_secs(2);
    let mut channel = Channel::new(rates.clone(), band, 4);
    let want_low = channel.optimum(low);
    let want_high = channel.optimum(high);
    let log = channel.run(
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
    assert_eq!(before, want_high);
    let rate = |r: S::Rate| rates.data_rate_bps(r);
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
    let settled = log.most_used(
        &rates,
        drop_at + SimTime::from_secs(1),
        SimTime::from_secs(4),
    );
    assert_eq!(settled, want_low);
}

#[test]
fn minstrel_follows_an_snr_drop() {
    follows_a_drop(minstrel(set(15), 4), set(15), Band::Ghz5, 25.0, 12.0);
}

/// The same seed gives the same decisions, event for event; another seed other ones.
fn deterministic<S: RateSet>(make: impl Fn(u64) -> RateControl<S>, rates: S, band: Band, snr: f64) {
    let trace = |seed| {
        let mut rc = make(seed);
        let log =
            Channel::new(rates.clone(), band, 9).run(&mut rc, |_| snr, SimTime::from_millis(500));
        log.events
            .into_iter()
            .map(|(t, c, m)| (t, c.rate, c.sample, m))
            .collect::<Vec<_>>()
    };
    assert_eq!(trace(5), trace(5));
    assert_ne!(trace(5), trace(6));
}

#[test]
fn minstrel_is_deterministic() {
    deterministic(|seed| minstrel(set(15), seed), set(15), Band::Ghz5, 20.0);
}

/// The rates of five PPDUs of `mpdus` MPDUs at `t`, none of which gets an acknowledgement:
/// the retry chain.
fn failing_chain<S: RateSet>(mi: &mut Minstrel<S>, t: SimTime, mpdus: u32) -> Vec<S::Rate> {
    (0..5)
        .map(|_| {
            let rate = mi.select(t).rate;
            mi.report(t, rate, mpdus, 0, 0);
            rate
        })
        .collect()
}

/// Linux 3.x's chain under ath9k (`super::retry_chain`): max_tp (MCS 4), max_tp2 and
/// max_prob (both MCS 0 here) for their try counts, two each with A-MPDUs of some 13
/// MPDUs (a try at MCS 4 lasts 62 symbols · 4 µs · 13 = 3.2 ms, two pass 6 ms), then
/// max_tp again as a new aggregate would.
#[test]
fn linux_3_tries_each_chain_rate_its_count_then_starts_again() {
    let mut mi = MinstrelHt::new(
        MinstrelConfig {
            sampling: Sampling::Fraction(0.0),
            linux_chain: true,
            ..MinstrelConfig::new(set(7), Band::Ghz5)
        },
        RngStream::new(1, "unit"),
    );
    mi.report(SimTime::ZERO, mcs(0), 2, 2, 0);
    mi.report(SimTime::ZERO, mcs(4), 16, 12, 0);
    mi.report(SimTime(100 * MS), mcs(4), 16, 4, 0);
    assert_eq!(
        (mi.max_tp(), mi.max_tp2(), mi.max_prob()),
        (mcs(4), mcs(0), mcs(0))
    );
    let t = SimTime(110 * MS);
    let rates: Vec<HtMcs> = (0..7)
        .map(|_| {
            let rate = mi.select(t).rate;
            mi.report(t, rate, 13, 0, 0);
            rate
        })
        .collect();
    let expect = [4, 4, 0, 0, 0, 0, 4].map(mcs);
    assert_eq!(rates, expect);
    mi.report(t, mcs(4), 13, 1, 0);
    assert_eq!(mi.select(t).rate, mcs(4));
}

/// A probe under Linux 3.x and ath9k: mac80211 fills the probe's rate series with the probed
/// rate once, then the rate table's later slots, max_tp2 and max_prob with their counts
/// (`rate_control_fill_sta_table`), and ath9k sends the probe frame alone through that series
/// (`ath_lookup_rate` gives a probe an aggregate limit of 0). Here max_tp is MCS 5 (50 % of
/// 52 Mbit/s), max_tp2 MCS 4 (60 % of 39), max_prob MCS 2 (all of 19.5); with 13-MPDU
/// A-MPDUs each gets two tries (a try at MCS 4 lasts 62 symbols · 4 µs · 13 = 3.2 ms, two
/// pass 6 ms).
#[test]
fn linux_3_probe_goes_alone_through_a_series_of_max_tp2_then_max_prob() {
    let mut mi = MinstrelHt::new(
        MinstrelConfig {
            sampling: Sampling::Fraction(1.0),
            linux_chain: true,
            ..MinstrelConfig::new(set(7), Band::Ghz5)
        },
        RngStream::new(1, "unit"),
    );
    mi.report(SimTime::ZERO, mcs(2), 13, 13, 0);
    mi.report(SimTime::ZERO, mcs(4), 20, 12, 0);
    mi.report(SimTime(100 * MS), mcs(5), 16, 8, 0);
    assert_eq!(
        (mi.max_tp(), mi.max_tp2(), mi.max_prob()),
        (mcs(5), mcs(4), mcs(2))
    );
    // Aggregates are sized for the slowest rate of the table: max_prob.
    assert_eq!(mi.slowest_of_table(), mcs(2));
    let t = SimTime(110 * MS);
    let mut series = Vec::new();
    for _ in 0..6 {
        let choice = mi.select(t);
        // The probe's frame alone, at every try of its series.
        let alone = choice.sample || mi.in_probe_series();
        series.push((choice.rate.index(), choice.sample, alone));
        mi.report(t, choice.rate, if alone { 1 } else { 13 }, 0, 0);
    }
    // A probe of a rate that could beat max_tp (MCS 6 or 7), then the table's later slots
    // for the same lone frame, then that frame along the same series again (ath9k keeps
    // its probe flag and probed rate through the software retry).
    let (probe, again) = (series[0], series[5]);
    assert!(probe.1 && probe.0 >= 6 && probe.2, "{series:?}");
    assert_eq!(again, probe, "{series:?}");
    assert!(mi.retries_probe_frame());
    assert_eq!(
        series[1..5],
        [
            (4, false, true),
            (4, false, true),
            (2, false, true),
            (2, false, true)
        ],
        "{series:?}"
    );
    // An acknowledgement ends the probe's series.
    let choice = mi.select(t);
    mi.report(t, choice.rate, 1, 0, 0);
    assert!(mi.in_probe_series());
    let choice = mi.select(t);
    mi.report(t, choice.rate, 1, 1, 0);
    assert!(!mi.in_probe_series());
    // The frame acknowledged, the next probe is a new one.
    mi.probe_frame_done();
    let choice = mi.select(t);
    assert!(choice.sample && !mi.retries_probe_frame());
}

#[test]
fn minstrel_statistics_and_retry_chain() {
    // Exchange overhead in 5 GHz: 16 + 32 + 43 + 7.5 · 9 µs.
    assert_eq!(
        set(7).exchange_overhead(mcs(0), Band::Ghz5),
        SimTime::from_nanos(158_500)
    );
    let mut mi = MinstrelHt::new(
        MinstrelConfig {
            sampling: Sampling::Fraction(0.0),
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
    assert_eq!(mi.select(t0).rate, mcs(0));
    // An interval in which MCS 4 delivered 3/4 and MCS 0 everything.
    mi.report(t0, mcs(0), 2, 2, 0);
    mi.report(t0, mcs(4), 16, 12, 0);
    assert_eq!(mi.success_prob(mcs(4)), None, "no update before 100 ms");
    mi.report(SimTime(100 * MS), mcs(4), 16, 4, 0);
    // First measurement taken as is: 16/32.
    assert_eq!(mi.success_prob(mcs(4)), Some(0.5));
    assert_eq!(mi.success_prob(mcs(0)), Some(1.0));
    assert_eq!(mi.max_tp(), mcs(4));
    assert_eq!(mi.max_tp2(), mcs(0));
    // MCS 4 at 50 % is not reliable: max_prob is MCS 0.
    assert_eq!(mi.max_prob(), mcs(0));
    // Then an interval of full success at MCS 4: 0.75·0.5 + 0.25·1 = 0.625.
    mi.report(SimTime(150 * MS), mcs(4), 16, 16, 0);
    mi.report(SimTime(200 * MS), mcs(4), 16, 16, 0);
    assert_eq!(mi.success_prob(mcs(4)), Some(0.625));
    assert!(mi.expected_throughput(mcs(4)) > mi.expected_throughput(mcs(0)));
    // Below 10 %: no throughput.
    mi.report(SimTime(250 * MS), mcs(7), 16, 1, 0);
    mi.report(SimTime(300 * MS), mcs(7), 16, 0, 0);
    assert_eq!(mi.success_prob(mcs(7)), Some(1.0 / 32.0));
    assert_eq!(mi.expected_throughput(mcs(7)), 0.0);
    // Retry chain: max_tp, max_tp2, max_prob, slowest, slowest; success resets. (The
    // failed report at MCS 7 above already advanced the chain: reset it first.)
    let t = SimTime(310 * MS);
    mi.report(t, mcs(0), 2, 2, 0);
    let chain = failing_chain(&mut mi, t, 16);
    assert_eq!(chain, [mcs(4), mcs(0), mcs(0), mcs(0), mcs(0)]);
    mi.report(t, mcs(0), 2, 1, 0);
    assert_eq!(mi.select(t).rate, mcs(4));
    // Foreign MCS and empty reports are ignored.
    mi.report(t, mcs(12), 16, 16, 0);
    mi.report(t, mcs(4), 0, 0, 0);
    assert_eq!(mi.success_prob(mcs(12)), None);
}

// ---------------------------------------------------------------------------------------
// 802.11g ERP-OFDM rates (Linux minstrel_ht's OFDM group)
// ---------------------------------------------------------------------------------------

/// Fixed SNRs (dB) and seeds for the ERP runs, spread over the rates: the channel's optimum
/// ([`Channel::optimum`], from the error model and the TXTIMEs) is 6, 18, 24 and 54 Mbit/s,
/// each clear of a tie (asserted there).
const ERP_SNRS: [(f64, u64); 4] = [(5.0, 1), (10.0, 2), (15.0, 3), (25.0, 4)];

/// Linux 3.x minstrel_ht's probing rate (`minstrel_ht_tx_status`, `minstrel_get_sample_rate`):
/// after a probe's status the next one waits 16 + 2 × ⌊average A-MPDU length⌋ frames. The
/// channel delivers every MPDU up to 39 Mbit/s and none faster, so that some rate is always
/// worth probing and every probe fails; its lone frame (ath9k sends a probe alone) then
/// gets through at max_tp2 on its series, and that acknowledgement is the submission's one
/// status (ath9k reports none for the failed probe try alone, `status`). A cycle is k
/// A-MPDUs of 10 new MPDUs, the probe and its retry: k + 1 statuses, of 10 MPDUs and of
/// 1, so k = 4 averages 41 / 5 = 8.2 MPDUs, a wait of 32 frames, which four A-MPDUs fill:
/// one probe every sixth PPDU. At most 8 probes per MCS group (16 with MCS 0-15) per 50 ms
/// interval: with 0.25 ms PPDUs, 200 per interval, that cap binds at 16/200. If every
/// other A-MPDU after a probe carries only frames sent before, the 32 frames take four new
/// A-MPDUs with three retransmissions between them: seven A-MPDUs (an average of 71 / 8 =
/// 8.9 MPDUs, the same wait), the probe and its retry, one probe every ninth PPDU, as
/// mac80211 asks the rate control once per frame, not per transmission (counting
/// transmissions: every sixth).
#[test]
fn linux_3_probes_once_per_16_plus_twice_the_ampdu_length_frames() {
    let set = HtRateSet::up_to(mcs(15), ChannelWidth::Mhz20, GuardInterval::Long);
    let fraction = |ppdu: SimTime, retransmissions: bool| {
        let mut rc = RateControl::minstrel(
            MinstrelConfig::linux_3(set.clone(), Band::Ghz5),
            RngStream::new(7, "test/rate"),
        );
        let (mut samples, mut ppdus, mut since_probe) = (0u32, 0u32, 0u32);
        let mut now = SimTime::ZERO;
        while now < SimTime::from_secs(10) {
            let m = rc.select(now, None);
            let probe = rc.last_choice().unwrap().sample;
            let alone = rc.probe_alone();
            let n = if alone { 1 } else { 10 };
            // With `retransmissions`, every other A-MPDU after a probe carries frames sent
            // before, which the rate control does not see again; a probe's retry neither.
            let again = (alone && !probe) || (retransmissions && !alone && since_probe % 2 == 1);
            if probe {
                since_probe = 0;
            } else if !alone {
                since_probe += 1;
            }
            rc.frames_queued(if again { 0 } else { n });
            let ok = if set.data_rate_bps(m) <= 39e6 { n } else { 0 };
            if now >= SimTime::from_secs(1) {
                ppdus += 1;
                samples += u32::from(probe);
            }
            now += ppdu;
            rc.report(now, m, n, ok, 0);
            if alone && ok > 0 {
                rc.probe_frame_done();
            }
        }
        f64::from(samples) / f64::from(ppdus)
    };
    let f = fraction(SimTime::from_millis(1), false);
    assert!(
        (f - 1.0 / 6.0).abs() < 0.01,
        "one probe in {:.2} PPDUs",
        1.0 / f
    );
    let f = fraction(SimTime::from_micros(250), false);
    assert!((f - 16.0 / 200.0).abs() < 0.005, "{f}");
    let f = fraction(SimTime::from_millis(1), true);
    assert!(
        (f - 1.0 / 9.0).abs() < 0.01,
        "one probe in {:.2} PPDUs",
        1.0 / f
    );
}

mod erp;
mod status;
