//! Path loss, shadowing, received signal strength and SNR.
//!
//! A received power is built as a link budget, all in dB:
//!
//! ```text
//! rssi_dbm = tx_power_dbm − (path_loss_db(d) + shadowing_db)
//! snr_db   = rssi_dbm − noise_floor_dbm(bandwidth, noise_figure)
//! ```
//!
//! * Path loss is the log-distance model ([`LogDistance`]) of T. S. Rappaport,
//!   *Wireless Communications: Principles and Practice*, 2nd ed., §4.9.1,
//!   eqs. 4.68–4.69, anchored at a reference distance d₀ by the Friis
//!   free-space loss ([`friis_reference_loss_db`], Rappaport §4.3).
//! * Shadowing is log-normal (Rappaport §4.9.2): a zero-mean Gaussian in dB
//!   ([`Shadowing`]), held constant per link over a decorrelation interval
//!   ([`ShadowingProcess`]).
//! * Noise is thermal noise kTB at T₀ = 290 K plus the receiver's noise figure
//!   ([`noise_floor_dbm`]).
//!
//! Antenna gains are not modelled separately: fold them into the transmit power
//! (ns-3's `TxGain`/`RxGain` default to 0 dB as well).
//!
//! Every transcendental function comes from `libm` and every random draw from a
//! named [`RngStream`], so results are bit-identical on every machine.

use crate::engine::{RngStream, SimTime};

/// Speed of light in vacuum, m/s (exact by the SI definition of the metre).
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;

/// Boltzmann constant, J/K (exact since the 2019 SI redefinition).
pub const BOLTZMANN: f64 = 1.380_649e-23;

/// Standard reference temperature for noise figures, K (T₀ of the IEEE noise
/// figure definition).
pub const NOISE_REFERENCE_TEMPERATURE: f64 = 290.0;

/// Default receiver noise figure, dB: ns-3's `WifiPhy::RxNoiseFigure` default.
pub const DEFAULT_NOISE_FIGURE_DB: f64 = 7.0;

/// Default transmit power, dBm: ns-3's `WifiPhy::TxPowerStart`/`TxPowerEnd`
/// default, 16.0206 dBm = 40 mW, kept for comparisons with ns-3. Real access
/// points typically transmit at about 20 dBm (100 mW).
pub const DEFAULT_TX_POWER_DBM: f64 = 16.0206;

/// Free-space path loss at distance `d0` (m) for carrier frequency `freq_hz`,
/// in dB: 20·log₁₀(4π·d₀·f/c), with c = [`SPEED_OF_LIGHT`].
///
/// This is the Friis transmission equation (Rappaport §4.3, eq. 4.1) with unit
/// antenna gains and no system loss, written as a loss. It is only valid in the
/// far field, which is why it serves as the reference point of
/// [`LogDistance`] rather than as a model of its own.
pub fn friis_reference_loss_db(freq_hz: f64, d0: f64) -> f64 {
    20.0 * libm::log10(4.0 * core::f64::consts::PI * d0 * freq_hz / SPEED_OF_LIGHT)
}

/// Log-distance path loss (Rappaport §4.9.1, eqs. 4.68–4.69):
///
/// ```text
/// PL(d) = PL(d₀) + 10·n·log₁₀(d / d₀)   for d ≥ d₀
/// PL(d) = PL(d₀)                        for d < d₀
/// ```
///
/// with n the path loss exponent (2 in free space, about 2.7–3.5 in urban
/// cellular, 1.6–1.8 in line-of-sight indoor and 4–6 obstructed in buildings,
/// Rappaport Table 4.2) and PL(d₀) the loss at the reference distance d₀.
///
/// ns-3's `LogDistancePropagationLossModel` defaults to n = 3, d₀ = 1 m and
/// PL(d₀) = 46.6777 dB, the Friis loss at 1 m for 5.15 GHz computed with
/// c = 3·10⁸ m/s (46.6839 dB with the exact c). The constructors here compute
/// PL(d₀) from the actual channel frequency with the exact c.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogDistance {
    /// Path loss exponent n.
    pub exponent: f64,
    /// Reference distance d₀, m.
    pub reference_distance: f64,
    /// Loss at the reference distance PL(d₀), dB.
    pub reference_loss_db: f64,
}

impl LogDistance {
    /// Channel 1 of the 2.4 GHz band (2.412 GHz): n = 3, d₀ = 1 m,
    /// PL(d₀) = Friis at 1 m ≈ 40.10 dB.
    pub fn default_2_4ghz() -> Self {
        Self::with_friis_reference(2.412e9, 3.0)
    }

    /// Channel 36 of the 5 GHz band (5.18 GHz): n = 3, d₀ = 1 m,
    /// PL(d₀) = Friis at 1 m ≈ 46.73 dB.
    pub fn default_5ghz() -> Self {
        Self::with_friis_reference(5.18e9, 3.0)
    }

    /// Exponent `exponent`, d₀ = 1 m and PL(d₀) the Friis loss at 1 m for
    /// `freq_hz`.
    pub fn with_friis_reference(freq_hz: f64, exponent: f64) -> Self {
        LogDistance {
            exponent,
            reference_distance: 1.0,
            reference_loss_db: friis_reference_loss_db(freq_hz, 1.0),
        }
    }

    /// Path loss at distance `d` (m), dB. Distances below d₀ (including 0, two
    /// nodes at the same place) get PL(d₀).
    pub fn loss_db(&self, d: f64) -> f64 {
        if d < self.reference_distance {
            return self.reference_loss_db;
        }
        self.reference_loss_db + 10.0 * self.exponent * libm::log10(d / self.reference_distance)
    }

    /// Checks that the parameters are finite, the exponent non-negative and
    /// the reference distance positive.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.exponent.is_finite() && self.exponent >= 0.0) {
            return Err(format!(
                "path loss exponent must be a finite number >= 0, got {}",
                self.exponent
            ));
        }
        if !(self.reference_distance.is_finite() && self.reference_distance > 0.0) {
            return Err(format!(
                "reference distance must be a finite number > 0 m, got {}",
                self.reference_distance
            ));
        }
        if !self.reference_loss_db.is_finite() {
            return Err(format!(
                "reference loss must be finite, got {}",
                self.reference_loss_db
            ));
        }
        Ok(())
    }
}

/// Received power, dBm, of a signal sent at `tx_power_dbm` that loses
/// `loss_db` on the way (path loss plus shadowing).
pub fn rssi_dbm(tx_power_dbm: f64, loss_db: f64) -> f64 {
    tx_power_dbm - loss_db
}

/// Receiver noise floor, dBm: thermal noise kT₀B plus the noise figure,
///
/// ```text
/// N = 10·log₁₀(k·T₀·1000) + 10·log₁₀(B) + NF
/// ```
///
/// with k = [`BOLTZMANN`], T₀ = 290 K and the factor 1000 converting W to mW.
/// The first term is −173.975 dBm/Hz, the "−174 dBm/Hz" of link budgets,
/// computed here exactly rather than rounded: 20 MHz with a 7 dB noise figure
/// gives −93.965 dBm.
pub fn noise_floor_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    10.0 * libm::log10(BOLTZMANN * NOISE_REFERENCE_TEMPERATURE * 1000.0)
        + 10.0 * libm::log10(bandwidth_hz)
        + noise_figure_db
}

/// Signal-to-noise ratio, dB, of a signal received at `rssi_dbm` over a noise
/// floor of `noise_floor_dbm`.
pub fn snr_db(rssi_dbm: f64, noise_floor_dbm: f64) -> f64 {
    rssi_dbm - noise_floor_dbm
}

/// A standard normal deviate N(0, 1) by the Box–Muller transform (G. E. P. Box
/// and M. E. Muller, "A Note on the Generation of Random Normal Deviates",
/// Ann. Math. Statist. 29(2), 1958):
/// z = √(−2·ln u₁)·cos(2π·u₂) with u₁, u₂ independent uniforms.
///
/// Uses two uniforms per deviate and discards the sine companion, so a
/// stream's k-th deviate is always made of its draws 2k and 2k + 1. u₁ is
/// taken as 1 − [`RngStream::uniform`], in (0, 1], so ln u₁ is finite.
pub fn standard_normal(rng: &mut RngStream) -> f64 {
    let u1 = 1.0 - rng.uniform();
    let u2 = rng.uniform();
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
}

/// Log-normal shadowing (Rappaport §4.9.2): an extra loss X_σ in dB, Gaussian
/// with mean 0 and standard deviation `sigma_db`, added to the path loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shadowing {
    pub sigma_db: f64,
}

impl Shadowing {
    /// One sample of X_σ, dB.
    pub fn sample_db(&self, rng: &mut RngStream) -> f64 {
        self.sigma_db * standard_normal(rng)
    }

    /// Checks that σ is finite and non-negative.
    pub fn validate(&self) -> Result<(), String> {
        if self.sigma_db.is_finite() && self.sigma_db >= 0.0 {
            Ok(())
        } else {
            Err(format!(
                "shadowing sigma must be a finite number >= 0 dB, got {}",
                self.sigma_db
            ))
        }
    }
}

/// The shadowing of one link as a piecewise-constant process: one sample of
/// [`Shadowing`] per decorrelation `interval`, held for the whole interval.
///
/// Time is cut into intervals [k·interval, (k + 1)·interval); the value in
/// interval k is the (k + 1)-th sample of the process's stream. Intervals that
/// no query falls in still consume their sample, so the value at a given time
/// depends only on the master seed, the stream's name and the interval index,
/// not on when or how often the link was queried before: two runs that send
/// different traffic over the same link see the same shadowing. The cost is one
/// sample per elapsed interval, so keep the interval long compared with packet
/// times (a decorrelation distance of a few metres divided by the node speed).
///
/// Queries must come in non-decreasing time order, as the event loop delivers
/// them; a query for an interval before the last one queried panics.
///
/// Use one process per link, each with its own stream (for instance named
/// after the link): keyed by the unordered node pair for a reciprocal channel,
/// or by (transmitter, receiver) for independent directions.
#[derive(Clone, Debug)]
pub struct ShadowingProcess {
    shadowing: Shadowing,
    interval: SimTime,
    rng: RngStream,
    /// The interval index of the last sample drawn and that sample, dB.
    current: Option<(u64, f64)>,
}

impl ShadowingProcess {
    /// A process drawing from `rng`; errors if σ is invalid or `interval` is 0.
    pub fn new(shadowing: Shadowing, interval: SimTime, rng: RngStream) -> Result<Self, String> {
        shadowing.validate()?;
        if interval == SimTime::ZERO {
            return Err("shadowing decorrelation interval must be > 0".into());
        }
        Ok(ShadowingProcess {
            shadowing,
            interval,
            rng,
            current: None,
        })
    }

    /// The shadowing loss at `now`, dB.
    pub fn sample_db(&mut self, now: SimTime) -> f64 {
        let index = now.as_nanos() / self.interval.as_nanos();
        let (mut at, mut value) = match self.current {
            Some(current) => current,
            None => (0, self.shadowing.sample_db(&mut self.rng)),
        };
        assert!(
            index >= at,
            "shadowing queried at {now}, in an interval before the last one queried"
        );
        while at < index {
            value = self.shadowing.sample_db(&mut self.rng);
            at += 1;
        }
        self.current = Some((at, value));
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn friis_reference_losses() {
        let l24 = friis_reference_loss_db(2.412e9, 1.0);
        assert!(close(l24, 40.0953, 0.001), "{l24}");
        let l515 = friis_reference_loss_db(5.15e9, 1.0);
        assert!(close(l515, 46.6839, 0.001), "{l515}");
        // ns-3's LogDistancePropagationLossModel default, 46.6777 dB, is Friis
        // at 1 m for 5.15 GHz with c = 3e8 m/s: scaling f by c_exact/3e8 makes
        // f/c the same as with that approximation.
        let ns3 = friis_reference_loss_db(5.15e9 * SPEED_OF_LIGHT / 3e8, 1.0);
        assert!(close(ns3, 46.6777, 0.001), "{ns3}");
        // Free-space loss grows by 20 dB per decade of distance.
        let d10 = friis_reference_loss_db(2.412e9, 10.0);
        assert!(close(d10 - l24, 20.0, 1e-9), "{d10}");
    }

    #[test]
    fn default_models() {
        let m = LogDistance::default_2_4ghz();
        assert_eq!(m.exponent, 3.0);
        assert_eq!(m.reference_distance, 1.0);
        assert_eq!(m.reference_loss_db, friis_reference_loss_db(2.412e9, 1.0));
        let m = LogDistance::default_5ghz();
        assert_eq!(m.exponent, 3.0);
        assert!(close(m.reference_loss_db, 46.7344, 0.001), "{m:?}");
        m.validate().unwrap();
    }

    #[test]
    fn log_distance_is_flat_below_d0_and_monotone_above() {
        let m = LogDistance {
            exponent: 3.0,
            reference_distance: 2.0,
            reference_loss_db: 40.0,
        };
        assert_eq!(m.loss_db(0.0), 40.0);
        assert_eq!(m.loss_db(1.0), 40.0);
        assert_eq!(m.loss_db(2.0), 40.0);
        let mut last = m.loss_db(0.0);
        for i in 1..=2000 {
            let l = m.loss_db(f64::from(i) * 0.25);
            assert!(l >= last, "loss decreased at {} m", f64::from(i) * 0.25);
            last = l;
        }
    }

    #[test]
    fn log_distance_adds_ten_n_db_per_decade() {
        for n in [2.0, 3.0, 3.5] {
            let m = LogDistance {
                exponent: n,
                ..LogDistance::default_2_4ghz()
            };
            for d in [1.0, 3.0, 10.0, 42.0] {
                let step = m.loss_db(10.0 * d) - m.loss_db(d);
                assert!(close(step, 10.0 * n, 1e-9), "n={n} d={d}: {step}");
            }
        }
        let m = LogDistance::default_2_4ghz();
        assert!(close(m.loss_db(100.0), m.reference_loss_db + 60.0, 1e-9));
    }

    #[test]
    fn log_distance_validation() {
        let ok = LogDistance::default_2_4ghz();
        assert!(ok.validate().is_ok());
        let bad = [
            LogDistance {
                exponent: -1.0,
                ..ok
            },
            LogDistance {
                exponent: f64::NAN,
                ..ok
            },
            LogDistance {
                reference_distance: 0.0,
                ..ok
            },
            LogDistance {
                reference_loss_db: f64::INFINITY,
                ..ok
            },
        ];
        for m in bad {
            assert!(m.validate().is_err(), "{m:?}");
        }
    }

    #[test]
    fn noise_floor_and_link_budget() {
        let kt = noise_floor_dbm(1.0, 0.0);
        assert!(close(kt, -173.975, 0.001), "{kt}");
        let n = noise_floor_dbm(20e6, DEFAULT_NOISE_FIGURE_DB);
        // −93.9649 dBm: the "−174 + 73 + 7 = −94 dBm" of link budgets.
        assert!(close(n, -93.9649, 0.0001), "{n}");
        // 16.0206 dBm is 40 mW.
        assert!(close(10.0 * libm::log10(40.0), DEFAULT_TX_POWER_DBM, 1e-4));
        let rssi = rssi_dbm(DEFAULT_TX_POWER_DBM, 80.0);
        assert!(close(rssi, -63.9794, 1e-9), "{rssi}");
        assert!(close(snr_db(rssi, n), rssi - n, 0.0));
        assert!(close(snr_db(-60.0, -94.0), 34.0, 0.0));
    }

    #[test]
    fn shadowing_samples_are_gaussian_with_the_given_sigma() {
        let sh = Shadowing { sigma_db: 8.0 };
        let mut rng = RngStream::new(42, "radio/shadowing/test");
        let n = 20_000;
        let xs: Vec<f64> = (0..n).map(|_| sh.sample_db(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let std = libm::sqrt(var);
        assert!(
            mean.abs() < 4.0 * sh.sigma_db / libm::sqrt(n as f64),
            "{mean}"
        );
        assert!(close(std, sh.sigma_db, 0.03 * sh.sigma_db), "{std}");
        // About 68.3 % within one sigma (standard error ≈ 0.33 %).
        let within = xs.iter().filter(|x| x.abs() < sh.sigma_db).count() as f64 / n as f64;
        assert!(close(within, 0.6827, 0.015), "{within}");
    }

    #[test]
    fn shadowing_is_deterministic_per_seed_and_name() {
        let sh = Shadowing { sigma_db: 6.0 };
        let draw = |seed, name| {
            let mut rng = RngStream::new(seed, name);
            (0..16).map(|_| sh.sample_db(&mut rng)).collect::<Vec<_>>()
        };
        assert_eq!(draw(1, "a"), draw(1, "a"));
        assert_ne!(draw(1, "a"), draw(1, "b"));
        assert_ne!(draw(1, "a"), draw(2, "a"));
        assert!(Shadowing { sigma_db: -1.0 }.validate().is_err());
        assert!(Shadowing { sigma_db: f64::NAN }.validate().is_err());
        assert!(Shadowing { sigma_db: 0.0 }.validate().is_ok());
    }

    fn process(name: &str) -> ShadowingProcess {
        ShadowingProcess::new(
            Shadowing { sigma_db: 8.0 },
            SimTime::from_millis(100),
            RngStream::new(7, name),
        )
        .unwrap()
    }

    #[test]
    fn shadowing_process_is_piecewise_constant() {
        let mut p = process("link");
        let first = p.sample_db(SimTime::ZERO);
        assert_eq!(p.sample_db(SimTime::from_millis(50)), first);
        assert_eq!(p.sample_db(SimTime(100_000_000 - 1)), first);
        let second = p.sample_db(SimTime::from_millis(100));
        assert_ne!(second, first);
        assert_eq!(p.sample_db(SimTime::from_millis(199)), second);
        assert_ne!(p.sample_db(SimTime::from_millis(200)), second);
        // The first sample is the stream's first shadowing draw.
        let mut rng = RngStream::new(7, "link");
        assert_eq!(first, Shadowing { sigma_db: 8.0 }.sample_db(&mut rng));
    }

    #[test]
    fn shadowing_process_ignores_the_query_pattern() {
        let mut dense = process("link");
        let every: Vec<f64> = (0..50)
            .map(|k| dense.sample_db(SimTime::from_millis(100 * k + 10)))
            .collect();
        let mut sparse = process("link");
        for k in [3u64, 4, 17, 49] {
            assert_eq!(
                sparse.sample_db(SimTime::from_millis(100 * k + 99)),
                every[k as usize]
            );
        }
        // Another link's process is independent.
        let mut other = process("other");
        assert_ne!(other.sample_db(SimTime::ZERO), every[0]);
    }

    #[test]
    #[should_panic(expected = "before the last one queried")]
    fn shadowing_process_rejects_going_back_in_time() {
        let mut p = process("link");
        p.sample_db(SimTime::from_millis(250));
        p.sample_db(SimTime::from_millis(150));
    }

    #[test]
    fn shadowing_process_rejects_bad_parameters() {
        let rng = || RngStream::new(0, "x");
        let sh = Shadowing { sigma_db: 4.0 };
        assert!(ShadowingProcess::new(sh, SimTime::ZERO, rng()).is_err());
        assert!(ShadowingProcess::new(Shadowing { sigma_db: -4.0 }, SimTime(1), rng()).is_err());
    }
}
