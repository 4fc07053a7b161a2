//! Minstrel: Linux mac80211's rate control (`minstrel_ht`), for HT MCSs and legacy rates.

use super::super::phy::Band;
use super::retry_chain::{self, RetryChain};
use super::sampling::{LinuxSampler, Sampling};
use super::streams::{self, GroupLeaders};
use super::{HtRateSet, RateChoice, RateSet};
use crate::engine::{RngStream, SimTime};

mod probe;
mod status;

/// Success probability below which a rate's expected throughput counts as zero (Linux
/// minstrel_ht: 10 %).
pub const MINSTREL_MIN_PROB: f64 = 0.10;
/// Success probability above which the throughput estimate stops growing (Linux
/// minstrel_ht caps it at 90 % "to account for collision related packet error rate
/// fluctuation"): among rates that all deliver ≥ 90 %, the fastest wins.
pub const MINSTREL_PROB_CAP: f64 = 0.90;
/// Rates whose airtime per MPDU exceeds this multiple of max_prob's are never sampled
/// (minstrel_ht: "3 times slower than the current max probability rate").
pub const MINSTREL_SAMPLE_MAX_SLOWDOWN: f64 = 3.0;
/// A rate whose success probability exceeds this is "reliable enough" for `max_prob`,
/// which then goes to the reliable rate with the best throughput (minstrel_ht: 75 %).
pub const MINSTREL_MAX_PROB_THRESHOLD: f64 = 0.75;

/// Parameters of [`Minstrel`]. [`MinstrelConfig::new`] gives the defaults; adjust the
/// public fields as needed.
#[derive(Clone, Debug)]
pub struct MinstrelConfig<S: RateSet = HtRateSet> {
    pub rates: S,
    pub band: Band,
    /// IP packet size the throughput estimate assumes.
    /// Default 1500 bytes. (Linux uses a fixed 1200-byte average packet for its duration
    /// tables.)
    pub ip_bytes: u32,
    /// Statistics update interval. Default 100 ms, the current Linux minstrel_ht value
    /// (`HZ / 10`, as in classic minstrel). An intermediate revision used 50 ms; the patch
    /// "mac80211: minstrel_ht: increase stats update interval" (January 2021) went back to
    /// 100 ms because the shorter interval spent too many frames on probing.
    pub update_interval: SimTime,
    /// Weight of the old value in the EWMA of the success probability and of the A-MPDU
    /// length. Default 0.75 (classic minstrel's EWMA level 75 %, minstrel_ht's 96/128).
    pub ewma_old_weight: f64,
    /// When to probe and which rate. Default [`Sampling::Fraction`] of 10 % (classic
    /// minstrel's "look-around rate"); [`MinstrelConfig::linux_3`]: Linux 3.x's rules.
    pub sampling: Sampling,
    /// Success probability above which the throughput estimate stops growing. Default
    /// [`MINSTREL_PROB_CAP`] (90 %); Linux 3.10-3.13 computes the capped value but then
    /// uses the uncapped one (`minstrel_ht_calc_tp`), i.e. 1.
    pub prob_cap: f64,
    /// A-MPDU length (MPDUs) assumed until the first statistics update measures one.
    /// Default 16 (what Linux assumes for fast rates before it has measured one). Legacy
    /// rates carry one MPDU per PPDU whatever this says ([`RateSet::max_mpdus`]).
    pub initial_ampdu_mpdus: u32,
    /// Linux 3.x's spatial-stream rules (`super::streams`): max_prob with fewer streams
    /// than max_tp, and the "sudden death of spatial multiplexing" downgrade. Default off;
    /// on in [`MinstrelConfig::linux_3`].
    pub stream_rules: bool,
    /// Linux 3.x's retry chain under ath9k (`super::retry_chain`): max_tp, max_tp2,
    /// max_prob, each tried its `minstrel_calc_retransmit` count, then from max_tp again.
    /// Default off (each of max_tp, max_tp2, max_prob and the slowest rate once, staying at
    /// the slowest); on in [`MinstrelConfig::linux_3`].
    pub linux_chain: bool,
}

impl<S: RateSet> MinstrelConfig<S> {
    /// The defaults documented on each field, for `rates` in `band`.
    pub fn new(rates: S, band: Band) -> MinstrelConfig<S> {
        MinstrelConfig {
            rates,
            band,
            ip_bytes: 1500,
            update_interval: SimTime::from_millis(100),
            ewma_old_weight: 0.75,
            sampling: Sampling::Fraction(0.10),
            prob_cap: MINSTREL_PROB_CAP,
            initial_ampdu_mpdus: 16,
            stream_rules: false,
            linux_chain: false,
        }
    }

    /// Linux 3.10-3.13 `minstrel_ht` (the wlan-bufferbloat study's Linux 3.13 station):
    /// statistics every 50 ms (`minstrel_ht_tx_status` updates after `update_interval / 2`
    /// of the default 100 ms), [`Sampling::Linux3`] probing, the uncapped success
    /// probability in the throughput estimate, its spatial-stream rules and retry chain.
    pub fn linux_3(rates: S, band: Band) -> MinstrelConfig<S> {
        MinstrelConfig {
            update_interval: SimTime::from_millis(50),
            sampling: Sampling::Linux3,
            prob_cap: 1.0,
            stream_rules: true,
            linux_chain: true,
            ..MinstrelConfig::new(rates, band)
        }
    }
}

/// Statistics of one rate.
#[derive(Clone, Debug)]
struct RateStats<R> {
    rate: R,
    /// Most MPDUs of `ip_bytes` a PPDU at this rate can carry (PPDU and length limits; 1
    /// for a legacy rate).
    max_mpdus: u32,
    /// MPDUs attempted / acknowledged in the current interval.
    attempts: u64,
    successes: u64,
    /// EWMA success probability; `None` until the first interval with attempts.
    prob: Option<f64>,
    /// Expected airtime per MPDU (ns), with the PPDU preamble and the exchange overhead
    /// amortised over the average A-MPDU.
    airtime_ns: f64,
    /// The exchange's airtime beyond the PPDU ([`RateSet::exchange_overhead`]).
    overhead: SimTime,
    /// Expected throughput (IP bit/s) at the current `prob`.
    tp: f64,
    /// Statistics intervals in a row without an attempt (`sample_skipped`).
    skipped: u32,
}

/// A Minstrel-HT-like rate controller, modelled on the design of Linux mac80211's
/// `minstrel_ht` (net/mac80211/rc80211_minstrel_ht.c, Felix Fietkau; itself derived from
/// Derek Smithies' minstrel and John Bicket's SampleRate), as described in its source
/// comments and the linux-wireless discussions. Written from that description, not from
/// its code. Below, "A-MPDU" stands for the PPDU sent: an A-MPDU at an MCS, a single MPDU
/// at a legacy rate.
///
/// # What is modelled
///
/// * **Per-rate statistics** from Block Ack (or Ack) feedback: MPDUs attempted and
///   acknowledged in the current update interval ([`MinstrelConfig::update_interval`],
///   100 ms).
/// * **Success probability**: at each update, every rate attempted during the interval gets
///   p ← w·p + (1 − w)·(succ/att) with w = 0.75; the first measurement of a rate is taken
///   as is (as Linux does when a rate has no history). Rates not attempted keep their
///   estimate. Newer Linux replaced this EWMA by a noise-filtering second-order moving
///   average; the classic 75 % EWMA is used here.
/// * **Expected throughput**: tp = min(p, 90 %) · (IP payload bits / airtime per MPDU),
///   zero if p < 10 %. The airtime per MPDU is the TXTIME of an A-MPDU of n̄ MPDUs at that
///   rate plus the exchange overhead ([`RateSet::exchange_overhead`]: SIFS, Block Ack, AIFS,
///   mean backoff), divided by n̄,
///   where n̄ is an EWMA of the A-MPDU lengths reported (as Linux's `avg_ampdu_len`),
///   rounded and capped by what fits in one PPDU at that rate
///   ([`RateSet::max_mpdus`]: at MCS 0 only two 1500-byte MPDUs fit in 5.484 ms).
/// * **Rate set** after each update: `max_tp` and `max_tp2`, the best and second-best
///   throughput (ties: higher p, then the slower rate); `max_prob`, the best-throughput rate
///   among those with p > 75 %, or the highest-p rate if none is that reliable (minstrel_ht's
///   rule; classic minstrel used 95 %).
/// * **Multi-rate retry chain**: max_tp → max_tp2 → max_prob → slowest rate, one try each,
///   staying at the slowest; with [`MinstrelConfig::linux_chain`] Linux 3.x's under ath9k
///   ([`super::retry_chain`]): max_tp, max_tp2, max_prob, each for its try count, then from
///   max_tp again. The MAC asks for each retransmission separately: after a PPDU got
///   nothing acknowledged the next `select` walks the chain; any acknowledgement returns to
///   max_tp. No sampling within it. A failed probe goes on, with the Linux chain, at
///   max_tp2 and then max_prob (the probe's series, `rate_control_fill_sta_table`: the
///   probed rate once, then the table's later entries); otherwise the retransmission goes
///   at max_tp.
/// * **Sampling, Linux 3.x** ([`Sampling::Linux3`], [`MinstrelConfig::linux_3`], what an
///   802.11n station of a scenario uses): the probing counters, sample table and candidate
///   tests of Linux 3.10-3.13 `minstrel_ht` (see [`super::sampling::LinuxSampler`] and
///   `Minstrel::linux_accepts`): one probe per 16 + 2 × the average A-MPDU length frames,
///   at most 8 per MCS group per statistics interval, of the next sample-table rate that is
///   not in the current rate table, not above 95 % success, and, if slower than max_tp2,
///   idle for 20 intervals (three such per interval). The MAC sends a probe alone, through
///   its whole series ([`Minstrel::in_probe_series`]): ath9k's `ath_lookup_rate` gives a
///   frame flagged as a rate-control probe an aggregate limit of 0, so `ath_tx_form_aggr`
///   adds nothing behind it, and the hardware retries that one frame along the series.
///   A probe frame whose series is spent without an acknowledgement goes back to the
///   head of ath9k's software queue still flagged as a probe, with its probed rate as the
///   first of its rates (`ath_tx_complete_aggr` and `ath_set_rates` clear neither), so it
///   is sent alone along the probe's series again, until it is acknowledged or given up
///   ([`Minstrel::probe_frame_done`]); no new probe is taken meanwhile.
/// * **Sampling, fraction** ([`Sampling::Fraction`], the default of
///   [`MinstrelConfig::new`]): each A-MPDU at the head of the chain is, with probability
///   10 %, a sample candidate. The sample rate is drawn
///   uniformly (one [`RngStream`] draw) from the rates that
///   1. are not max_tp, max_tp2 or max_prob (Linux: "don't use sampling for the currently
///      used rates"),
///   2. take at most 3× max_prob's airtime per MPDU (Linux: not "3 times slower than the
///      current max probability rate"), and
///   3. *could beat max_tp*: their throughput at full success (capped at 90 % like every
///      estimate) exceeds max_tp's current estimate.
///
///   If none qualifies, the A-MPDU goes at max_tp and is not a sample, so the sampled
///   fraction is 10 % only while some rate could still improve throughput: at the fastest
///   rate of the set with ≥ 90 % delivery, sampling stops. Rule 3 stands for Linux's "do
///   not sample if the probability is already higher than 95 %" (a rate with p ≥ 90 % is
///   already valued at its full-success throughput, so it cannot pass) and for its
///   reluctance to sample rates slower than max_tp (newer minstrel_ht mostly samples
///   faster rates); rates that failed remain eligible while they could beat max_tp.
/// * **Start**: no statistics; ties go to the slower rate, so max_tp and max_prob are the
///   slowest rate and max_tp2 the next slowest. Sampling then finds the faster rates, which
///   take over at the next updates. Starting low means the first A-MPDUs get through; the
///   climb takes a few update intervals.
///
/// # Legacy (non-HT) rates
///
/// Since Linux 5.12 the same `minstrel_ht` also drives stations without HT ("mac80211:
/// minstrel_ht: add support for OFDM rates on non-HT clients", Felix Fietkau, January 2021:
/// an OFDM group of the eight rates 6–54 Mbit/s, `minstrel_ht_update_ofdm`, next to the CCK
/// group; "mac80211: remove legacy minstrel rate control" then removed the classic
/// `rc80211_minstrel.c`). A legacy group goes through the same statistics, ranking,
/// max_prob rule and sampling as an MCS group; only the airtime differs: one frame per PPDU
/// and the per-frame overhead (`overhead_legacy`), where an MCS divides `overhead` by the
/// average A-MPDU length. So here: [`Minstrel`] over a [`super::LegacyRateSet`] is the same
/// code, with one MPDU per PPDU ([`RateSet::max_mpdus`] = 1), its TXTIME and the Ack
/// exchange's overhead ([`RateSet::exchange_overhead`]), one report per MPDU.
///
/// # Not modelled
///
/// MCS groups across widths/GIs (fixed by the caller), the CCK group (1–11 Mbit/s) that the
/// kernel adds for a non-HT station in 2.4 GHz and the legacy fallback rates of an HT
/// station (a set holds one kind of rate: the MCSs, or the ERP-OFDM rates), Linux 3.x's
/// spatial-stream rules unless [`MinstrelConfig::stream_rules`] is set (`super::streams`:
/// max_prob with fewer streams than max_tp, the "sudden death of spatial multiplexing"),
/// RTS/CTS protection of samples and of the chain's later entries, and integer fixed-point
/// arithmetic (except in the try counts).
#[derive(Clone, Debug)]
pub struct Minstrel<S: RateSet = HtRateSet> {
    config: MinstrelConfig<S>,
    rng: RngStream,
    /// Indexed like `config.rates.rates()`, slowest first.
    rates: Vec<RateStats<S::Rate>>,
    /// EWMA of reported A-MPDU lengths (MPDUs; one for legacy rates).
    avg_ampdu_mpdus: f64,
    /// MPDUs and PPDUs reported in the current interval.
    interval_mpdus: u64,
    interval_ampdus: u64,
    /// Start of the current interval; `None` before the first call.
    interval_start: Option<SimTime>,
    max_tp: usize,
    max_tp2: usize,
    max_prob: usize,
    /// Position in the retry chain: 0 = max_tp, 1 = max_tp2, 2 = max_prob, 3 = slowest.
    chain: RetryChain,
    /// The rate (index into `rates`) of the last select if it was a sample.
    pending_sample: Option<usize>,
    /// A failed Linux 3.x probe is still being retried along its series.
    probe_series: bool,
    /// With `linux_chain`: the probed rate of a probe frame not yet acknowledged or given
    /// up ([`Minstrel::probe_frame_done`]).
    probe_pending: Option<usize>,
    /// The last select re-sends that frame ([`Minstrel::retries_probe_frame`]).
    reprobe: bool,
    /// With `linux_chain`: the tries of the hardware submission under way, (rate, MPDUs)
    /// each, and whether a frame of it has completed (acknowledged or given up); ath9k
    /// reports the submission's status only then ([`Minstrel::report`]).
    series: Vec<(usize, u32)>,
    series_completed: bool,
    /// Linux 3.x's probing state, with [`Sampling::Linux3`].
    sampler: Option<LinuxSampler>,
    /// Each MCS group's two best rates at the last update (with `stream_rules`).
    groups: Vec<GroupLeaders>,
}

/// Minstrel over HT MCSs: Linux's `minstrel_ht` for an HT station.
pub type MinstrelHt = Minstrel<HtRateSet>;

impl<S: RateSet> Minstrel<S> {
    /// Panics on an invalid configuration: zero update interval, EWMA weight outside
    /// [0, 1), sample fraction outside [0, 1], zero initial A-MPDU length or IP size.
    pub fn new(config: MinstrelConfig<S>, mut rng: RngStream) -> Minstrel<S> {
        assert!(
            config.update_interval > SimTime::ZERO,
            "update interval must be positive"
        );
        assert!(
            (0.0..1.0).contains(&config.ewma_old_weight),
            "EWMA weight must be in [0, 1)"
        );
        if let Sampling::Fraction(f) = config.sampling {
            assert!(
                (0.0..=1.0).contains(&f),
                "sample fraction must be in [0, 1]"
            );
        }
        assert!(config.initial_ampdu_mpdus > 0 && config.ip_bytes > 0);
        let set = &config.rates;
        let rates = set
            .rates()
            .iter()
            .map(|&rate| RateStats {
                rate,
                max_mpdus: set.max_mpdus(rate, config.ip_bytes, config.band),
                attempts: 0,
                successes: 0,
                prob: None,
                airtime_ns: 0.0,
                overhead: set.exchange_overhead(rate, config.band),
                tp: 0.0,
                skipped: 0,
            })
            .collect();
        let sampler = (config.sampling == Sampling::Linux3).then(|| {
            // minstrel_ht's MCS groups: the rates of one stream count, slowest first.
            let mut groups: Vec<(u64, Vec<usize>)> = Vec::new();
            for (i, &rate) in set.rates().iter().enumerate() {
                let n = set.n_ss(rate);
                match groups.iter_mut().find(|(k, _)| *k == n) {
                    Some((_, g)) => g.push(i),
                    None => groups.push((n, vec![i])),
                }
            }
            LinuxSampler::new(groups.into_iter().map(|(_, g)| g).collect(), &mut rng)
        });
        let mut m = Minstrel {
            avg_ampdu_mpdus: f64::from(config.initial_ampdu_mpdus),
            config,
            rng,
            rates,
            interval_mpdus: 0,
            interval_ampdus: 0,
            interval_start: None,
            max_tp: 0,
            max_tp2: 0,
            max_prob: 0,
            chain: RetryChain::default(),
            pending_sample: None,
            probe_series: false,
            probe_pending: None,
            reprobe: false,
            series: Vec::new(),
            series_completed: false,
            sampler,
            groups: Vec::new(),
        };
        m.recompute_rate_set();
        m
    }

    /// The rate for the next PPDU (see the type documentation for the rules).
    pub fn select(&mut self, now: SimTime) -> RateChoice<S::Rate> {
        // minstrel_ht updates its statistics from a status only; Linux 3.x's
        // `minstrel_ht_get_rate` does not (see `status`).
        if !self.config.linux_chain {
            self.maybe_update(now);
        }
        let chain = [self.max_tp, self.max_tp2, self.max_prob, 0];
        let mut index = chain[self.chain.position()];
        self.reprobe = false;
        let mut sample = false;
        let probe = match self.config.sampling {
            _ if !self.chain.at_head() => None,
            // ath9k retries a probe frame whose series is spent along that series again.
            _ if self.probe_pending.is_some() => {
                self.reprobe = true;
                self.probe_pending
            }
            Sampling::Fraction(f) => self.fraction_sample(f),
            Sampling::Linux3 => self.linux_sample(),
        };
        if self.config.linux_chain && probe.is_some() && !self.reprobe {
            self.probe_pending = probe;
        }
        if let Some(probe) = probe {
            index = probe;
            sample = true;
        }
        self.pending_sample = sample.then_some(index);
        RateChoice {
            rate: self.rates[index].rate,
            sample,
        }
    }

    /// `frames` new frames reached the driver (Linux calls `minstrel_ht_get_rate` once for
    /// each): Linux 3.x's probe wait counts them down.
    pub fn frames_queued(&mut self, frames: u32) {
        if let Some(s) = self.sampler.as_mut() {
            s.on_frames(frames);
        }
    }

    /// The try counts of the chain's entries (`super::retry_chain`).
    fn chain_counts(&self) -> [u32; 4] {
        if !self.config.linux_chain {
            return [1; 4];
        }
        let r = |i: usize| {
            (
                self.rates[i].prob,
                self.config.rates.data_rate_bps(self.rates[i].rate),
            )
        };
        let chain = [r(self.max_tp), r(self.max_tp2), r(self.max_prob)];
        retry_chain::linux3_counts(chain, self.avg_ampdu_mpdus)
    }

    /// Linux 3.x's "sudden death of spatial multiplexing" (`super::streams`).
    fn sudden_death(&mut self) {
        let set = &self.config.rates;
        for (slot, primary) in [(&mut self.max_tp, true), (&mut self.max_tp2, false)] {
            let r = &self.rates[*slot];
            if streams::died(r.attempts, r.successes) {
                let down = streams::downgrade(&self.groups, set.n_ss(r.rate), primary);
                *slot = down.unwrap_or(*slot);
            }
        }
    }

    /// The slowest rate of the rate table minstrel_ht hands the driver (max_tp, max_tp2,
    /// max_prob): ath9k sizes an A-MPDU for it (`ath_lookup_rate`, drivers/net/wireless/
    /// ath/ath9k/xmit.c: the smallest 4 ms frame length over the first frame's series).
    pub fn slowest_of_table(&self) -> S::Rate {
        let set = &self.config.rates;
        [self.max_tp, self.max_tp2, self.max_prob]
            .into_iter()
            .map(|i| self.rates[i].rate)
            .min_by(|&a, &b| set.data_rate_bps(a).total_cmp(&set.data_rate_bps(b)))
            .expect("three rates")
    }

    /// True while a failed Linux 3.x probe is retried along its series (the probed rate
    /// once, then max_tp2 and max_prob): ath9k's hardware retries the probe's lone frame,
    /// so the MAC adds no frame to these tries either.
    pub fn in_probe_series(&self) -> bool {
        self.probe_series
    }

    /// Whether Linux 3.x's retry chain under ath9k is on ([`MinstrelConfig::linux_chain`]).
    pub fn linux_chain(&self) -> bool {
        self.config.linux_chain
    }

    /// True when the next PPDU starts a hardware submission: the retry chain is at max_tp.
    pub fn at_chain_head(&self) -> bool {
        self.chain.at_head()
    }

    /// The rate with the best expected throughput.
    pub fn max_tp(&self) -> S::Rate {
        self.rates[self.max_tp].rate
    }

    /// The rate with the second-best expected throughput.
    pub fn max_tp2(&self) -> S::Rate {
        self.rates[self.max_tp2].rate
    }

    /// The most reliable rate (see the type documentation).
    pub fn max_prob(&self) -> S::Rate {
        self.rates[self.max_prob].rate
    }

    /// The estimated success probability of `rate` as of the last update; `None` if it was
    /// never measured or is not in the set.
    pub fn success_prob(&self, rate: S::Rate) -> Option<f64> {
        self.config
            .rates
            .position(rate)
            .and_then(|i| self.rates[i].prob)
    }

    /// The expected throughput (IP bit/s) of `rate` as of the last update; 0 if unmeasured,
    /// below 10 % success, or not in the set.
    pub fn expected_throughput(&self, rate: S::Rate) -> f64 {
        self.config
            .rates
            .position(rate)
            .map_or(0.0, |i| self.rates[i].tp)
    }

    /// Starts the first interval on the first call; closes the interval once it has lasted
    /// `update_interval`.
    fn maybe_update(&mut self, now: SimTime) {
        let start = *self.interval_start.get_or_insert(now);
        if now.saturating_sub(start) >= self.config.update_interval {
            self.update_stats();
            self.interval_start = Some(now);
        }
    }

    fn ewma(&self, old: f64, new: f64) -> f64 {
        let w = self.config.ewma_old_weight;
        w * old + (1.0 - w) * new
    }

    fn update_stats(&mut self) {
        if self.interval_ampdus > 0 {
            let measured = self.interval_mpdus as f64 / self.interval_ampdus as f64;
            self.avg_ampdu_mpdus = self.ewma(self.avg_ampdu_mpdus, measured);
        }
        self.interval_mpdus = 0;
        self.interval_ampdus = 0;
        if let Some(s) = self.sampler.as_mut() {
            s.on_update();
        }
        for i in 0..self.rates.len() {
            let r = &mut self.rates[i];
            if r.attempts == 0 {
                r.skipped += 1;
                continue;
            }
            r.skipped = 0;
            let current = r.successes as f64 / r.attempts as f64;
            let prob = match r.prob {
                None => current,
                Some(old) => self.ewma(old, current),
            };
            let r = &mut self.rates[i];
            r.prob = Some(prob);
            r.attempts = 0;
            r.successes = 0;
        }
        self.recompute_rate_set();
    }

    /// Airtime per MPDU at rate `i` with the current average A-MPDU length.
    fn airtime_per_mpdu_ns(&self, i: usize) -> f64 {
        let r = &self.rates[i];
        let n = (libm::round(self.avg_ampdu_mpdus) as u32).clamp(1, r.max_mpdus.max(1));
        let c = &self.config;
        let ppdu = c.rates.ppdu_txtime(r.rate, n, c.ip_bytes, c.band);
        (ppdu + r.overhead).as_nanos() as f64 / f64::from(n)
    }

    /// Expected throughput (IP bit/s) of rate `i` at success probability `prob`.
    fn throughput(&self, i: usize, prob: f64) -> f64 {
        if prob < MINSTREL_MIN_PROB {
            return 0.0;
        }
        let bits = 8.0 * f64::from(self.config.ip_bytes);
        prob.min(self.config.prob_cap) * bits * 1e9 / self.rates[i].airtime_ns
    }

    /// Refreshes airtimes and throughputs and picks max_tp, max_tp2 and max_prob.
    fn recompute_rate_set(&mut self) {
        for i in 0..self.rates.len() {
            let airtime = self.airtime_per_mpdu_ns(i);
            self.rates[i].airtime_ns = airtime;
            let tp = self.throughput(i, self.rates[i].prob.unwrap_or(0.0));
            self.rates[i].tp = tp;
        }
        let prob = |r: &RateStats<S::Rate>| r.prob.unwrap_or(0.0);
        // Best first: higher throughput, then higher probability, then the slower rate
        // (lower position; `sort_by` is stable).
        let mut order: Vec<usize> = (0..self.rates.len()).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&self.rates[a], &self.rates[b]);
            rb.tp
                .total_cmp(&ra.tp)
                .then_with(|| prob(rb).total_cmp(&prob(ra)))
        });
        self.max_tp = order[0];
        self.max_tp2 = order.get(1).copied().unwrap_or(order[0]);
        let reliable = order
            .iter()
            .copied()
            .find(|&i| prob(&self.rates[i]) > MINSTREL_MAX_PROB_THRESHOLD);
        self.max_prob = reliable.unwrap_or_else(|| {
            // Highest probability; ties to the slower rate.
            (0..self.rates.len()).fold(0, |best, i| {
                if prob(&self.rates[i]) > prob(&self.rates[best]) {
                    i
                } else {
                    best
                }
            })
        });
        if self.config.stream_rules {
            let set = &self.config.rates;
            let n_ss: Vec<u64> = self.rates.iter().map(|r| set.n_ss(r.rate)).collect();
            let tp: Vec<f64> = self.rates.iter().map(|r| r.tp).collect();
            let p: Vec<f64> = self.rates.iter().map(prob).collect();
            self.groups = streams::group_leaders(&n_ss, &tp, &p);
            self.max_prob = streams::max_prob(&n_ss, &tp, &p, n_ss[self.max_tp]);
        }
    }
}
