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
    /// spatial stream) the next PPDU will be received with, as an oracle would know it, the
    /// same for every MCS; only [`Algorithm::Ideal`] uses it, the others ignore it.
    pub fn select(&mut self, now: SimTime, snr_db: Option<f64>) -> HtMcs {
        match snr_db {
            Some(snr) => self.select_by_streams(now, &mut |_| snr),
            None => self.choose_with(now, None),
        }
    }

    /// [`RateControl::select`] with the SNR per spatial stream as a function of the MCS's
    /// number of streams N_SS (with receive diversity it depends on N_SS: radio/fading.rs).
    pub fn select_by_streams(&mut self, now: SimTime, snr_db: &mut dyn FnMut(u64) -> f64) -> HtMcs {
        self.choose_with(now, Some(snr_db))
    }

    fn choose_with(&mut self, now: SimTime, snr_db: Option<&mut dyn FnMut(u64) -> f64>) -> HtMcs {
        let choice = match &mut self.algorithm {
            Algorithm::Constant(mcs) => RateChoice {
                mcs: *mcs,
                sample: false,
            },
            Algorithm::Ideal(ideal) => RateChoice {
                mcs: ideal.choose_by_streams(snr_db),
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
        match snr_db {
            Some(snr) => self.choose_by_streams(Some(&mut |_| snr)),
            None => self.choose_by_streams(None),
        }
    }

    /// The oracle's MCS when the SNR per stream depends on the MCS's number of spatial
    /// streams: each candidate is judged at `snr_db(N_SS)`.
    pub fn choose_by_streams(&self, snr_db: Option<&mut dyn FnMut(u64) -> f64>) -> HtMcs {
        let Some(snr_db) = snr_db else {
            return self.rates.slowest();
        };
        let needed = 1.0 - self.target_per;
        self.rates
            .mcs()
            .iter()
            .rev()
            .copied()
            .find(|&m| ht_success_rate_db(m, snr_db(m.n_ss()), self.reference_bits) >= needed)
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
mod tests;
