//! Rate adaptation: which rate the MAC sends the next PPDU at, for 802.11n HT links (an
//! MCS per A-MPDU, [`HtRateSet`]) and for 802.11g ERP-OFDM links (a data rate per MPDU,
//! [`LegacyRateSet`]).
//!
//! # Interface
//!
//! The MAC owns one [`RateControl`] per destination and, for every transmission attempt (a
//! retransmission is a new attempt):
//!
//! 1. calls [`RateControl::select`] to get the rate, sends the PPDU at it, then
//! 2. calls [`RateControl::report`] with the number of MPDUs sent and the number
//!    acknowledged: for an A-MPDU those the Block Ack acknowledged (0 when the Block Ack, or
//!    the whole PPDU, was lost); for a single MPDU 1 or 0 (its Ack came back or not).
//!
//! What varies is the rate of the [`RateSet`]: the MCS at the caller's fixed channel width
//! and guard interval, or the non-HT data rate. [`RateControl::last_choice`] tells a trace
//! which rate was chosen last and whether it was a sampling (probing) transmission.
//!
//! # Algorithms
//!
//! * [`Algorithm::Constant`]: always the same rate.
//! * [`Algorithm::Ideal`] ([`IdealRate`]): an oracle that knows the SNR of the next frame and
//!   picks the fastest rate whose predicted success rate for a reference frame reaches
//!   1 − target PER.
//! * [`Algorithm::Minstrel`] ([`Minstrel`]): a model of Linux mac80211's `minstrel_ht`,
//!   learning per-rate delivery ratios from the acknowledgements; the same algorithm for HT
//!   MCSs and for legacy OFDM rates, as in the kernel (see [`minstrel`]).
//!
//! The algorithms are variants of one enum rather than implementations of a trait: the set
//! is closed and small, dispatch is a `match` without trait objects, and the enum derives
//! `Clone`/`Debug`, so a station's whole state stays plain data. What differs between HT
//! and legacy rates (airtimes, error model, aggregation) is behind the [`RateSet`] trait.
//!
//! # Determinism
//!
//! No clocks, no hashing, no global state. The only randomness is Minstrel's sampling, drawn
//! from the [`RngStream`] the caller hands over, in a fixed order (one draw per `select`
//! outside the retry chain, plus one more when a sample is taken). Float arithmetic feeding
//! decisions is IEEE `+ − × ÷` and `libm`, so a run is bit-identical on every machine.

use super::phy::Band;
use crate::engine::{RngStream, SimTime};
use std::fmt::Debug;

mod ht;
mod legacy;
pub mod minstrel;
pub mod retry_chain;
pub mod sampling;
mod streams;

pub use ht::HtRateSet;
pub use legacy::LegacyRateSet;
pub use minstrel::{
    Minstrel, MinstrelConfig, MinstrelHt, MINSTREL_MAX_PROB_THRESHOLD, MINSTREL_MIN_PROB,
    MINSTREL_PROB_CAP, MINSTREL_SAMPLE_MAX_SLOWDOWN,
};
pub use sampling::Sampling;

/// The rates a link may use and what the rate controllers need to know of each: kept sorted
/// by PHY data rate, slowest first.
pub trait RateSet: Clone + Debug {
    /// One rate of the set: an HT MCS, a legacy data rate.
    type Rate: Copy + Eq + Debug;

    /// The rates, slowest first.
    fn rates(&self) -> &[Self::Rate];

    /// The PHY data rate of `rate`, bit/s.
    fn data_rate_bps(&self, rate: Self::Rate) -> f64;

    /// Spatial streams `rate` uses (the SNR per stream depends on it with receive
    /// diversity: radio/fading.rs).
    fn n_ss(&self, rate: Self::Rate) -> u64;

    /// Probability that an MPDU of `bits` bits sent at `rate` arrives at `snr_db` (dB, per
    /// spatial stream), per the error model.
    fn success(&self, rate: Self::Rate, snr_db: f64, bits: u64) -> f64;

    /// The MPDU (bytes) carrying an IP packet of `ip_bytes`: a QoS Data MPDU for HT, a
    /// non-QoS one for legacy rates.
    fn mpdu_len(&self, ip_bytes: u32) -> u32;

    /// Most MPDUs carrying `ip_bytes` IP bytes each that one PPDU at `rate` can hold in
    /// `band`: 1 without aggregation.
    fn max_mpdus(&self, rate: Self::Rate, ip_bytes: u32, band: Band) -> u32;

    /// TXTIME of a PPDU at `rate` carrying `n` MPDUs of `ip_bytes` IP bytes each.
    fn ppdu_txtime(&self, rate: Self::Rate, n: u32, ip_bytes: u32, band: Band) -> SimTime;

    /// The airtime of one frame exchange beyond its PPDU: SIFS, the response (Block Ack or
    /// Ack), the AIFS or DIFS before the next one, and the mean initial backoff, CWmin/2
    /// slots.
    fn exchange_overhead(&self, rate: Self::Rate, band: Band) -> SimTime;

    /// The slowest (most robust) rate of the set.
    fn slowest(&self) -> Self::Rate {
        self.rates()[0]
    }

    /// Where `rate` is in [`RateSet::rates`].
    fn position(&self, rate: Self::Rate) -> Option<usize> {
        self.rates().iter().position(|&r| r == rate)
    }
}

/// What a rate controller decided for one PPDU (for rate traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateChoice<R> {
    pub rate: R,
    /// True if the rate was picked to probe it (Minstrel sampling), not as the current best
    /// estimate.
    pub sample: bool,
}

/// A rate controller: one of the [`Algorithm`]s plus the last decision, for traces.
#[derive(Clone, Debug)]
pub struct RateControl<S: RateSet = HtRateSet> {
    algorithm: Algorithm<S>,
    last: Option<RateChoice<S::Rate>>,
}

/// The rate adaptation algorithms (see the module documentation).
#[derive(Clone, Debug)]
pub enum Algorithm<S: RateSet = HtRateSet> {
    /// Always this rate.
    Constant(S::Rate),
    Ideal(IdealRate<S>),
    /// Boxed: its random stream makes it much larger than the other variants.
    Minstrel(Box<Minstrel<S>>),
}

impl<S: RateSet> RateControl<S> {
    pub fn new(algorithm: Algorithm<S>) -> RateControl<S> {
        RateControl {
            algorithm,
            last: None,
        }
    }

    /// Always `rate`.
    pub fn constant(rate: S::Rate) -> RateControl<S> {
        RateControl::new(Algorithm::Constant(rate))
    }

    /// The SNR oracle with the default reference frame and target PER
    /// ([`IdealRate::with_defaults`]).
    pub fn ideal(rates: S) -> RateControl<S> {
        RateControl::new(Algorithm::Ideal(IdealRate::with_defaults(rates)))
    }

    /// Minstrel with `config`, sampling from `rng` (give it a stream of its own, e.g.
    /// `RngStream::new(seed, "wifi/ap/sta3/rate")`).
    pub fn minstrel(config: MinstrelConfig<S>, rng: RngStream) -> RateControl<S> {
        RateControl::new(Algorithm::Minstrel(Box::new(Minstrel::new(config, rng))))
    }

    /// The rate for the next attempt at time `now`. `snr_db` is the SNR (dB, per spatial
    /// stream) the next PPDU will be received with, as an oracle would know it, the same
    /// for every rate; only [`Algorithm::Ideal`] uses it, the others ignore it.
    pub fn select(&mut self, now: SimTime, snr_db: Option<f64>) -> S::Rate {
        match snr_db {
            Some(snr) => self.select_by_streams(now, &mut |_| snr),
            None => self.choose_with(now, None),
        }
    }

    /// [`RateControl::select`] with the SNR per spatial stream as a function of the
    /// candidate rate (with receive diversity it depends on its N_SS, radio/fading.rs; over a
    /// frequency-selective channel on its modulation too, wifi/esm.rs).
    pub fn select_by_streams(
        &mut self,
        now: SimTime,
        snr_db: &mut dyn FnMut(S::Rate) -> f64,
    ) -> S::Rate {
        self.choose_with(now, Some(snr_db))
    }

    fn choose_with(
        &mut self,
        now: SimTime,
        snr_db: Option<&mut dyn FnMut(S::Rate) -> f64>,
    ) -> S::Rate {
        let choice = match &mut self.algorithm {
            Algorithm::Constant(rate) => RateChoice {
                rate: *rate,
                sample: false,
            },
            Algorithm::Ideal(ideal) => RateChoice {
                rate: ideal.choose_by_streams(snr_db),
                sample: false,
            },
            Algorithm::Minstrel(minstrel) => minstrel.select(now),
        };
        self.last = Some(choice);
        choice.rate
    }

    /// Feedback for the PPDU last selected: sent at `rate` with `attempted` MPDUs, of which
    /// `succeeded` were acknowledged and `dropped` given up after it. Only Minstrel learns
    /// from it ([`Minstrel::report`]).
    pub fn report(
        &mut self,
        now: SimTime,
        rate: S::Rate,
        attempted: u32,
        succeeded: u32,
        dropped: u32,
    ) {
        if let Algorithm::Minstrel(minstrel) = &mut self.algorithm {
            minstrel.report(now, rate, attempted, succeeded, dropped);
        }
    }

    /// `frames` new frames reached the driver (not retransmissions): Minstrel's Linux 3.x
    /// probing counts them ([`Minstrel::frames_queued`]). The HT MAC calls it as it takes
    /// frames into its aggregates.
    pub fn frames_queued(&mut self, frames: u32) {
        if let Algorithm::Minstrel(minstrel) = &mut self.algorithm {
            minstrel.frames_queued(frames);
        }
    }

    /// True if the last decision's probe re-sends the probe frame of an earlier, spent
    /// series ([`Minstrel::retries_probe_frame`]).
    pub fn retries_probe_frame(&self) -> bool {
        match &self.algorithm {
            Algorithm::Minstrel(m) => m.retries_probe_frame(),
            _ => false,
        }
    }

    /// True if the hardware submission of the last decision's PPDU at `rate` ends should
    /// it get no acknowledgement ([`Minstrel::failure_ends_series`]); every PPDU is a
    /// submission of its own for the other rate controls.
    pub fn failure_ends_series(&self, rate: S::Rate) -> bool {
        match &self.algorithm {
            Algorithm::Minstrel(m) => m.failure_ends_series(rate),
            _ => true,
        }
    }

    /// True for Minstrel with Linux 3.x's retry chain under ath9k
    /// ([`MinstrelConfig::linux_chain`]): the MAC then applies ath9k's retry limit per
    /// submission ([`super::blockack::Originator::per_submission`]).
    pub fn ath9k_series(&self) -> bool {
        matches!(&self.algorithm, Algorithm::Minstrel(m) if m.linux_chain())
    }

    /// The MAC's rate-control probe frame was acknowledged or given up, or the
    /// association ended ([`Minstrel::probe_frame_done`]).
    pub fn probe_frame_done(&mut self) {
        if let Algorithm::Minstrel(minstrel) = &mut self.algorithm {
            minstrel.probe_frame_done();
        }
    }

    /// The rate an A-MPDU of the last decision is sized for: the slowest rate of the rate
    /// table Minstrel hands the driver ([`Minstrel::slowest_of_table`], as ath9k sizes
    /// it), the chosen rate otherwise.
    pub fn sizing_rate(&self) -> Option<S::Rate> {
        let last = self.last?;
        Some(match &self.algorithm {
            Algorithm::Minstrel(m) => m.slowest_of_table(),
            _ => last.rate,
        })
    }

    /// True if the last decision's PPDU carries one MPDU alone: a rate-control probe, or
    /// the retry of a failed Linux 3.x probe along its series (ath9k aggregates nothing
    /// behind a probe frame: `ath_lookup_rate` gives it an aggregate limit of 0).
    pub fn probe_alone(&self) -> bool {
        let sample = self.last.is_some_and(|c| c.sample);
        sample
            || match &self.algorithm {
                Algorithm::Minstrel(m) => m.in_probe_series(),
                _ => false,
            }
    }

    /// The last decision of [`RateControl::select`], `None` before the first.
    pub fn last_choice(&self) -> Option<RateChoice<S::Rate>> {
        self.last
    }

    pub fn algorithm(&self) -> &Algorithm<S> {
        &self.algorithm
    }
}

// ---------------------------------------------------------------------------------------
// Ideal
// ---------------------------------------------------------------------------------------

/// An SNR oracle: the fastest rate of the set whose success probability for a reference
/// frame of `reference_bytes` at the given SNR, per the error model
/// ([`RateSet::success`] with `nbits` = 8 · `reference_bytes`), is at least
/// 1 − `target_per`. If none qualifies, the slowest rate of the set. Without an SNR, the
/// slowest rate.
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
pub struct IdealRate<S: RateSet = HtRateSet> {
    rates: S,
    reference_bits: u64,
    target_per: f64,
}

impl<S: RateSet> IdealRate<S> {
    /// Default reference frame: a 1500-byte MPDU.
    pub const DEFAULT_REFERENCE_BYTES: u32 = 1500;
    /// Default target packet error rate for the reference frame: 1 %.
    pub const DEFAULT_TARGET_PER: f64 = 0.01;

    /// Panics unless 0 < `target_per` < 1 and `reference_bytes` > 0.
    pub fn new(rates: S, reference_bytes: u32, target_per: f64) -> IdealRate<S> {
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
    pub fn with_defaults(rates: S) -> IdealRate<S> {
        IdealRate::new(
            rates,
            Self::DEFAULT_REFERENCE_BYTES,
            Self::DEFAULT_TARGET_PER,
        )
    }

    /// The oracle's rate at `snr_db` (see the type documentation).
    pub fn choose(&self, snr_db: Option<f64>) -> S::Rate {
        match snr_db {
            Some(snr) => self.choose_by_streams(Some(&mut |_| snr)),
            None => self.choose_by_streams(None),
        }
    }

    /// The oracle's rate when the SNR per stream depends on the rate (its number of spatial
    /// streams, its modulation): each candidate r is judged at `snr_db(r)`.
    pub fn choose_by_streams(&self, snr_db: Option<&mut dyn FnMut(S::Rate) -> f64>) -> S::Rate {
        let Some(snr_db) = snr_db else {
            return self.rates.slowest();
        };
        let needed = 1.0 - self.target_per;
        let set = &self.rates;
        set.rates()
            .iter()
            .rev()
            .copied()
            .find(|&r| set.success(r, snr_db(r), self.reference_bits) >= needed)
            .unwrap_or_else(|| set.slowest())
    }
}

#[cfg(test)]
mod tests;
