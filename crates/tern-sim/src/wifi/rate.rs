//! Rate adaptation for 802.11n HT links: which MCS the MAC sends the next A-MPDU at.
//!
//! # Interface
//!
//! The MAC owns one [`RateControl`] per destination and, for every A-MPDU transmission
//! attempt (a retransmission is a new attempt):
//!
//! 1. calls [`RateControl::select`] to get the MCS, sends the A-MPDU at it, then
//! 2. calls [`RateControl::report`] with the number of MPDUs sent and the number the Block
//!    Ack acknowledged (0 when the Block Ack, or the whole PPDU, was lost).
//!
//! Channel width and guard interval are fixed by the caller ([`HtRateSet`]); only the MCS
//! varies. [`RateControl::last_choice`] tells a trace which MCS was chosen last and whether
//! it was a sampling (probing) transmission.
//!
//! # Algorithms
//!
//! * [`Algorithm::Constant`]: always the same MCS.
//! * [`Algorithm::Ideal`] ([`IdealRate`]): an oracle that knows the SNR of the next frame and
//!   picks the fastest MCS whose predicted success rate for a reference frame reaches
//!   1 − target PER.
//! * [`Algorithm::Minstrel`] ([`MinstrelHt`]): a model of Linux mac80211's `minstrel_ht`,
//!   learning per-MCS delivery ratios from Block Ack feedback.
//!
//! The algorithms are variants of one enum rather than implementations of a trait: the set
//! is closed and small, dispatch is a `match` without trait objects, and the enum derives
//! `Clone`/`Debug`, so a station's whole state stays plain data.
//!
//! # Determinism
//!
//! No clocks, no hashing, no global state. The only randomness is Minstrel's sampling, drawn
//! from the [`RngStream`] the caller hands over, in a fixed order (one draw per `select`
//! outside the retry chain, plus one more when a sample is taken). Float arithmetic feeding
//! decisions is IEEE `+ − × ÷` and `libm`, so a run is bit-identical on every machine.

use super::error_model::ht_success_rate_db;
use super::frames::{ampdu_len_uniform, max_ampdu_mpdus, mpdu_len, BLOCK_ACK_COMPRESSED};
use super::phy::{
    ofdm_txtime, AccessCategory, Band, ChannelWidth, EdcaParams, GuardInterval, HtMcs, HtTxVector,
    OfdmRate, PhyTiming,
};
use crate::engine::{RngStream, SimTime};

/// What a rate controller decided for one A-MPDU (for rate traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateChoice {
    pub mcs: HtMcs,
    /// True if the MCS was picked to probe a rate (Minstrel sampling), not as the current
    /// best estimate.
    pub sample: bool,
}

/// The MCSs a link may use, at a fixed channel width and guard interval.
///
/// Kept sorted by PHY data rate, slowest first (equal rates, e.g. MCS 1 and MCS 8: lower
/// index first, i.e. fewer streams and a shorter preamble).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HtRateSet {
    mcs: Vec<HtMcs>,
    width: ChannelWidth,
    gi: GuardInterval,
}

impl HtRateSet {
    /// The given MCSs (duplicates removed, sorted by data rate). `None` if `mcs` is empty.
    pub fn new(mcs: &[HtMcs], width: ChannelWidth, gi: GuardInterval) -> Option<HtRateSet> {
        if mcs.is_empty() {
            return None;
        }
        let mut mcs = mcs.to_vec();
        mcs.sort_by_key(|m| (m.n_dbps(width), m.index()));
        mcs.dedup();
        Some(HtRateSet { mcs, width, gi })
    }

    /// MCS 0 up to and including `max`: e.g. MCS 0–7 for one spatial stream, 0–15 for two.
    pub fn up_to(max: HtMcs, width: ChannelWidth, gi: GuardInterval) -> HtRateSet {
        let all: Vec<HtMcs> = (0..=max.index()).filter_map(HtMcs::new).collect();
        HtRateSet::new(&all, width, gi).expect("MCS 0 is always in the range")
    }

    /// The MCSs, slowest first.
    pub fn mcs(&self) -> &[HtMcs] {
        &self.mcs
    }

    pub fn width(&self) -> ChannelWidth {
        self.width
    }

    pub fn gi(&self) -> GuardInterval {
        self.gi
    }

    /// The TXVECTOR for sending at `mcs` in this set's width and guard interval.
    pub fn tx_vector(&self, mcs: HtMcs) -> HtTxVector {
        HtTxVector::new(mcs, self.width, self.gi)
    }

    /// The slowest (most robust) MCS of the set.
    pub fn slowest(&self) -> HtMcs {
        self.mcs[0]
    }

    fn position(&self, mcs: HtMcs) -> Option<usize> {
        self.mcs.iter().position(|&m| m == mcs)
    }
}

/// A rate controller: one of the [`Algorithm`]s plus the last decision, for traces.
#[derive(Clone, Debug)]
pub struct RateControl {
    algorithm: Algorithm,
    last: Option<RateChoice>,
}

/// The rate adaptation algorithms (see the module documentation).
#[derive(Clone, Debug)]
pub enum Algorithm {
    /// Always this MCS.
    Constant(HtMcs),
    Ideal(IdealRate),
    /// Boxed: its random stream makes it much larger than the other variants.
    Minstrel(Box<MinstrelHt>),
}

impl RateControl {
    pub fn new(algorithm: Algorithm) -> RateControl {
        RateControl {
            algorithm,
            last: None,
        }
    }

    /// Always `mcs`.
    pub fn constant(mcs: HtMcs) -> RateControl {
        RateControl::new(Algorithm::Constant(mcs))
    }

    /// The SNR oracle with the default reference frame and target PER
    /// ([`IdealRate::with_defaults`]).
    pub fn ideal(rates: HtRateSet) -> RateControl {
        RateControl::new(Algorithm::Ideal(IdealRate::with_defaults(rates)))
    }

    /// Minstrel-HT with `config`, sampling from `rng` (give it a stream of its own, e.g.
    /// `RngStream::new(seed, "wifi/ap/sta3/rate")`).
    pub fn minstrel(config: MinstrelConfig, rng: RngStream) -> RateControl {
        RateControl::new(Algorithm::Minstrel(Box::new(MinstrelHt::new(config, rng))))
    }

    /// The MCS for the next A-MPDU attempt at time `now`. `snr_db` is the SNR (dB, per
    /// spatial stream) the next PPDU will be received with, as an oracle would know it; only
    /// [`Algorithm::Ideal`] uses it, the others ignore it.
    pub fn select(&mut self, now: SimTime, snr_db: Option<f64>) -> HtMcs {
        let choice = match &mut self.algorithm {
            Algorithm::Constant(mcs) => RateChoice {
                mcs: *mcs,
                sample: false,
            },
            Algorithm::Ideal(ideal) => RateChoice {
                mcs: ideal.choose(snr_db),
                sample: false,
            },
            Algorithm::Minstrel(minstrel) => minstrel.select(now),
        };
        self.last = Some(choice);
        choice.mcs
    }

    /// Feedback for the A-MPDU last selected: sent at `mcs` with `attempted` MPDUs, of which
    /// the Block Ack acknowledged `succeeded` (0 if the Block Ack was lost). Only Minstrel
    /// learns from it.
    pub fn report(&mut self, now: SimTime, mcs: HtMcs, attempted: u32, succeeded: u32) {
        if let Algorithm::Minstrel(minstrel) = &mut self.algorithm {
            minstrel.report(now, mcs, attempted, succeeded);
        }
    }

    /// The last decision of [`RateControl::select`], `None` before the first.
    pub fn last_choice(&self) -> Option<RateChoice> {
        self.last
    }

    pub fn algorithm(&self) -> &Algorithm {
        &self.algorithm
    }
}

// ---------------------------------------------------------------------------------------
// Ideal
// ---------------------------------------------------------------------------------------

/// An SNR oracle: the fastest MCS of the set whose success probability for a reference
/// frame of `reference_bytes` at the given SNR, per the error model
/// ([`ht_success_rate_db`] with `nbits` = 8 · `reference_bytes`), is at least
/// 1 − `target_per`. If none qualifies, the slowest MCS of the set. Without an SNR, the
/// slowest MCS.
///
/// ns-3's `IdealWifiManager` instead keeps, per mode, the SNR at which the error model
/// reaches a bit error rate of 10⁻⁶, and picks the fastest mode whose threshold is below the
/// last SNR reported by the receiver. The defaults here (1500-byte reference frame, 1 %
/// target PER) are about the same criterion: 1 − (1 − 10⁻⁶)^12 000 ≈ 1.2 %. The difference
/// is that this oracle uses the SNR of the frame about to be sent, not a stale report.
///
/// Because the error model gives every spatial stream the same SNR, a two-stream MCS is as
/// robust as the one-stream MCS with the same modulation and coding, so with MCS 0–15 the
/// oracle goes from MCS 0 (nothing qualifies) straight to MCS 8–15. The choice never
/// decreases as the SNR increases: success probabilities are monotone in SNR.
#[derive(Clone, Debug)]
pub struct IdealRate {
    rates: HtRateSet,
    reference_bits: u64,
    target_per: f64,
}

impl IdealRate {
    /// Default reference frame: a 1500-byte MPDU.
    pub const DEFAULT_REFERENCE_BYTES: u32 = 1500;
    /// Default target packet error rate for the reference frame: 1 %.
    pub const DEFAULT_TARGET_PER: f64 = 0.01;

    /// Panics unless 0 < `target_per` < 1 and `reference_bytes` > 0.
    pub fn new(rates: HtRateSet, reference_bytes: u32, target_per: f64) -> IdealRate {
        assert!(reference_bytes > 0, "reference frame must not be empty");
        assert!(
            target_per > 0.0 && target_per < 1.0,
            "target PER must be in (0, 1), got {target_per}"
        );
        IdealRate {
            rates,
            reference_bits: 8 * u64::from(reference_bytes),
            target_per,
        }
    }

    /// 1500-byte reference frame, 1 % target PER.
    pub fn with_defaults(rates: HtRateSet) -> IdealRate {
        IdealRate::new(
            rates,
            IdealRate::DEFAULT_REFERENCE_BYTES,
            IdealRate::DEFAULT_TARGET_PER,
        )
    }

    /// The oracle's MCS at `snr_db` (see the type documentation).
    pub fn choose(&self, snr_db: Option<f64>) -> HtMcs {
        let Some(snr_db) = snr_db else {
            return self.rates.slowest();
        };
        let needed = 1.0 - self.target_per;
        self.rates
            .mcs()
            .iter()
            .rev()
            .copied()
            .find(|&m| ht_success_rate_db(m, snr_db, self.reference_bits) >= needed)
            .unwrap_or_else(|| self.rates.slowest())
    }
}

// ---------------------------------------------------------------------------------------
// Minstrel-HT
// ---------------------------------------------------------------------------------------

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

/// Parameters of [`MinstrelHt`]. [`MinstrelConfig::new`] gives the defaults; adjust the
/// public fields as needed.
#[derive(Clone, Debug)]
pub struct MinstrelConfig {
    pub rates: HtRateSet,
    pub band: Band,
    /// IP packet size the throughput estimate assumes (the MPDU is [`mpdu_len`] of it).
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
    /// Fraction of A-MPDUs, outside the retry chain, that are considered for sampling.
    /// Default 10 % (classic minstrel's "look-around rate").
    pub sample_fraction: f64,
    /// A-MPDU length (MPDUs) assumed until the first statistics update measures one.
    /// Default 16 (what Linux assumes for fast rates before it has measured one).
    pub initial_ampdu_mpdus: u32,
    /// Per-A-MPDU airtime on top of the PPDU, amortised over its MPDUs in the throughput
    /// estimate (Linux amortises a per-frame overhead, preamble and acknowledgement, over
    /// its average A-MPDU length the same way).
    /// Default: SIFS + a compressed Block Ack at 24 Mbit/s + AIFS (best effort) + the mean
    /// initial backoff CWmin/2 slots, in `band` (158.5 µs in 5 GHz).
    pub exchange_overhead: SimTime,
}

impl MinstrelConfig {
    /// The defaults documented on each field.
    pub fn new(rates: HtRateSet, band: Band) -> MinstrelConfig {
        let timing = PhyTiming::ht(band);
        let be = EdcaParams::default_for(AccessCategory::BestEffort, &timing);
        let backoff_half_ns = timing.slot.as_nanos() * u64::from(timing.cw_min) / 2;
        let exchange_overhead = timing.sifs
            + ofdm_txtime(BLOCK_ACK_COMPRESSED, OfdmRate::Mbps24, band)
            + be.aifs(&timing)
            + SimTime::from_nanos(backoff_half_ns);
        MinstrelConfig {
            rates,
            band,
            ip_bytes: 1500,
            update_interval: SimTime::from_millis(100),
            ewma_old_weight: 0.75,
            sample_fraction: 0.10,
            initial_ampdu_mpdus: 16,
            exchange_overhead,
        }
    }
}

/// Statistics of one MCS.
#[derive(Clone, Debug)]
struct RateStats {
    mcs: HtMcs,
    /// Most MPDUs of `ip_bytes` an A-MPDU at this MCS can carry (PPDU and length limits).
    max_mpdus: u32,
    /// MPDUs attempted / acknowledged in the current interval.
    attempts: u64,
    successes: u64,
    /// EWMA success probability; `None` until the first interval with attempts.
    prob: Option<f64>,
    /// Expected airtime per MPDU (ns), with the PPDU preamble and the exchange overhead
    /// amortised over the average A-MPDU.
    airtime_ns: f64,
    /// Expected throughput (IP bit/s) at the current `prob`.
    tp: f64,
}

/// A Minstrel-HT-like rate controller, modelled on the design of Linux mac80211's
/// `minstrel_ht` (net/mac80211/rc80211_minstrel_ht.c, Felix Fietkau; itself derived from
/// Derek Smithies' minstrel and John Bicket's SampleRate), as described in its source
/// comments and the linux-wireless discussions. Written from that description, not from
/// its code.
///
/// # What is modelled
///
/// * **Per-MCS statistics** from Block Ack feedback: MPDUs attempted and acknowledged in the
///   current update interval ([`MinstrelConfig::update_interval`], 100 ms).
/// * **Success probability**: at each update, every MCS attempted during the interval gets
///   p ← w·p + (1 − w)·(succ/att) with w = 0.75; the first measurement of an MCS is taken
///   as is (as Linux does when a rate has no history). MCSs not attempted keep their
///   estimate. Newer Linux replaced this EWMA by a noise-filtering second-order moving
///   average; the classic 75 % EWMA is used here.
/// * **Expected throughput**: tp = min(p, 90 %) · (IP payload bits / airtime per MPDU),
///   zero if p < 10 %. The airtime per MPDU is the TXTIME of an A-MPDU of n̄ MPDUs at that
///   MCS plus the exchange overhead (SIFS, Block Ack, AIFS, mean backoff), divided by n̄,
///   where n̄ is an EWMA of the A-MPDU lengths reported (as Linux's `avg_ampdu_len`),
///   rounded and capped by what fits in one PPDU at that MCS
///   ([`max_ampdu_mpdus`]: at MCS 0 only two 1500-byte MPDUs fit in 5.484 ms).
/// * **Rate set** after each update: `max_tp` and `max_tp2`, the best and second-best
///   throughput (ties: higher p, then the slower MCS); `max_prob`, the best-throughput MCS
///   among those with p > 75 %, or the highest-p MCS if none is that reliable (minstrel_ht's
///   rule; classic minstrel used 95 %).
/// * **Multi-rate retry chain**: minstrel hands the driver a chain best throughput →
///   second best → best probability (classic minstrel then the lowest base rate) and the
///   hardware walks it on failures; here the chain is max_tp → max_tp2 → max_prob →
///   slowest MCS. Here the MAC asks for
///   each retransmission separately, so the chain is walked across calls: after an A-MPDU
///   at a chain rate got nothing acknowledged, the next `select` returns the next chain
///   entry; any acknowledgement returns to max_tp. The failure of a sample does not advance
///   the chain (the retransmission goes at max_tp, as in Linux where the sample rate heads
///   a chain followed by the normal rates). No sampling in the retry chain.
/// * **Sampling**: each A-MPDU at the head of the chain is, with probability
///   [`MinstrelConfig::sample_fraction`] (10 %), a sample candidate. The sample MCS is drawn
///   uniformly (one [`RngStream`] draw) from the MCSs that
///   1. are not max_tp, max_tp2 or max_prob (Linux: "don't use sampling for the currently
///      used rates"),
///   2. take at most 3× max_prob's airtime per MPDU (Linux: not "3 times slower than the
///      current max probability rate"), and
///   3. *could beat max_tp*: their throughput at full success (capped at 90 % like every
///      estimate) exceeds max_tp's current estimate.
///
///   If none qualifies, the A-MPDU goes at max_tp and is not a sample, so the sampled
///   fraction is 10 % only while some rate could still improve throughput: at the fastest
///   MCS of the set with ≥ 90 % delivery, sampling stops. Rule 3 stands for Linux's "do
///   not sample if the probability is already higher than 95 %" (a rate with p ≥ 90 % is
///   already valued at its full-success throughput, so it cannot pass) and for its
///   reluctance to sample rates slower than max_tp (newer minstrel_ht mostly samples
///   faster rates). Rates that failed earlier remain eligible while they could beat max_tp,
///   so the controller climbs back when the channel improves.
/// * **Start**: no statistics; ties go to the slower rate, so max_tp and max_prob are the
///   slowest MCS and max_tp2 the next slowest. Sampling then finds the faster rates, which
///   take over at the next updates. Starting low means the first A-MPDUs get through; the climb takes a few
///   update intervals.
///
/// # Not modelled
///
/// MCS groups across widths/GIs (fixed by the caller), legacy CCK/OFDM fallback rates, the
/// "sudden death of spatial multiplexing" downgrade of older versions (a fast switch to fewer
/// streams when max_tp's delivery collapses; here max_tp follows only at stats updates),
/// per-rate retry counts within the chain (each chain rate is tried once per A-MPDU here),
/// RTS/CTS protection of samples, Linux's deterministic sample tables and skip counters
/// (replaced by the random draw above), and integer fixed-point arithmetic.
#[derive(Clone, Debug)]
pub struct MinstrelHt {
    config: MinstrelConfig,
    rng: RngStream,
    /// Indexed like `config.rates.mcs()`, slowest first.
    rates: Vec<RateStats>,
    /// EWMA of reported A-MPDU lengths (MPDUs).
    avg_ampdu_mpdus: f64,
    /// MPDUs and A-MPDUs reported in the current interval.
    interval_mpdus: u64,
    interval_ampdus: u64,
    /// Start of the current interval; `None` before the first call.
    interval_start: Option<SimTime>,
    max_tp: usize,
    max_tp2: usize,
    max_prob: usize,
    /// Position in the retry chain: 0 = max_tp, 1 = max_tp2, 2 = max_prob, 3 = slowest.
    retry_stage: usize,
    /// The MCS (index into `rates`) of the last select if it was a sample.
    pending_sample: Option<usize>,
}

const RETRY_CHAIN_LEN: usize = 4;

impl MinstrelHt {
    /// Panics on an invalid configuration: zero update interval, EWMA weight outside
    /// [0, 1), sample fraction outside [0, 1], zero initial A-MPDU length or IP size.
    pub fn new(config: MinstrelConfig, rng: RngStream) -> MinstrelHt {
        assert!(
            config.update_interval > SimTime::ZERO,
            "update interval must be positive"
        );
        assert!(
            (0.0..1.0).contains(&config.ewma_old_weight),
            "EWMA weight must be in [0, 1)"
        );
        assert!(
            (0.0..=1.0).contains(&config.sample_fraction),
            "sample fraction must be in [0, 1]"
        );
        assert!(config.initial_ampdu_mpdus > 0 && config.ip_bytes > 0);
        let rates = config
            .rates
            .mcs()
            .iter()
            .map(|&mcs| RateStats {
                mcs,
                max_mpdus: max_ampdu_mpdus(
                    config.ip_bytes,
                    config.rates.tx_vector(mcs),
                    config.band,
                ),
                attempts: 0,
                successes: 0,
                prob: None,
                airtime_ns: 0.0,
                tp: 0.0,
            })
            .collect();
        let mut m = MinstrelHt {
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
            retry_stage: 0,
            pending_sample: None,
        };
        m.recompute_rate_set();
        m
    }

    /// The MCS for the next A-MPDU (see the type documentation for the rules).
    pub fn select(&mut self, now: SimTime) -> RateChoice {
        self.maybe_update(now);
        let chain = [self.max_tp, self.max_tp2, self.max_prob, 0];
        let mut index = chain[self.retry_stage];
        let mut sample = false;
        if self.retry_stage == 0 && self.rng.bernoulli(self.config.sample_fraction) {
            let candidates = self.sample_candidates();
            if !candidates.is_empty() {
                let k = (self.rng.uniform() * candidates.len() as f64) as usize;
                index = candidates[k.min(candidates.len() - 1)];
                sample = true;
            }
        }
        self.pending_sample = sample.then_some(index);
        RateChoice {
            mcs: self.rates[index].mcs,
            sample,
        }
    }

    /// Accounts the Block Ack outcome of an A-MPDU sent at `mcs`. Reports for an MCS
    /// outside the configured set, or with `attempted` = 0, are ignored; `succeeded` is
    /// capped at `attempted`.
    pub fn report(&mut self, now: SimTime, mcs: HtMcs, attempted: u32, succeeded: u32) {
        let Some(index) = self.config.rates.position(mcs) else {
            return;
        };
        if attempted == 0 {
            return;
        }
        let succeeded = succeeded.min(attempted);
        let r = &mut self.rates[index];
        r.attempts += u64::from(attempted);
        r.successes += u64::from(succeeded);
        self.interval_mpdus += u64::from(attempted);
        self.interval_ampdus += 1;
        if succeeded > 0 {
            self.retry_stage = 0;
        } else if self.pending_sample != Some(index) {
            self.retry_stage = (self.retry_stage + 1).min(RETRY_CHAIN_LEN - 1);
        }
        self.pending_sample = None;
        self.maybe_update(now);
    }

    /// The MCS with the best expected throughput.
    pub fn max_tp(&self) -> HtMcs {
        self.rates[self.max_tp].mcs
    }

    /// The MCS with the second-best expected throughput.
    pub fn max_tp2(&self) -> HtMcs {
        self.rates[self.max_tp2].mcs
    }

    /// The most reliable MCS (see the type documentation).
    pub fn max_prob(&self) -> HtMcs {
        self.rates[self.max_prob].mcs
    }

    /// The estimated success probability of `mcs` as of the last update; `None` if it was
    /// never measured or is not in the set.
    pub fn success_prob(&self, mcs: HtMcs) -> Option<f64> {
        self.config
            .rates
            .position(mcs)
            .and_then(|i| self.rates[i].prob)
    }

    /// The expected throughput (IP bit/s) of `mcs` as of the last update; 0 if unmeasured,
    /// below 10 % success, or not in the set.
    pub fn expected_throughput(&self, mcs: HtMcs) -> f64 {
        self.config
            .rates
            .position(mcs)
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
        for i in 0..self.rates.len() {
            let r = &self.rates[i];
            if r.attempts == 0 {
                continue;
            }
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
        let psdu = ampdu_len_uniform(n, mpdu_len(self.config.ip_bytes));
        let ppdu = self
            .config
            .rates
            .tx_vector(r.mcs)
            .txtime(psdu, self.config.band);
        (ppdu + self.config.exchange_overhead).as_nanos() as f64 / f64::from(n)
    }

    /// Expected throughput (IP bit/s) of rate `i` at success probability `prob`.
    fn throughput(&self, i: usize, prob: f64) -> f64 {
        if prob < MINSTREL_MIN_PROB {
            return 0.0;
        }
        let bits = 8.0 * f64::from(self.config.ip_bytes);
        prob.min(MINSTREL_PROB_CAP) * bits * 1e9 / self.rates[i].airtime_ns
    }

    /// Refreshes airtimes and throughputs and picks max_tp, max_tp2 and max_prob.
    fn recompute_rate_set(&mut self) {
        for i in 0..self.rates.len() {
            let airtime = self.airtime_per_mpdu_ns(i);
            self.rates[i].airtime_ns = airtime;
            let tp = self.throughput(i, self.rates[i].prob.unwrap_or(0.0));
            self.rates[i].tp = tp;
        }
        let prob = |r: &RateStats| r.prob.unwrap_or(0.0);
        // Best first: higher throughput, then higher probability, then the slower MCS
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
            // Highest probability; ties to the slower MCS.
            (0..self.rates.len()).fold(0, |best, i| {
                if prob(&self.rates[i]) > prob(&self.rates[best]) {
                    i
                } else {
                    best
                }
            })
        });
    }

    /// Rates worth probing now, slowest first (see the type documentation).
    fn sample_candidates(&self) -> Vec<usize> {
        let best = self.rates[self.max_tp].tp;
        let slowest_allowed = MINSTREL_SAMPLE_MAX_SLOWDOWN * self.rates[self.max_prob].airtime_ns;
        (0..self.rates.len())
            .filter(|&i| i != self.max_tp && i != self.max_tp2 && i != self.max_prob)
            .filter(|&i| self.rates[i].airtime_ns <= slowest_allowed)
            .filter(|&i| self.throughput(i, 1.0) > best)
            .collect()
    }
}

#[cfg(test)]
mod tests {
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
}
