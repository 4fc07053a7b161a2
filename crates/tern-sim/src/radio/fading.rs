//! Small-scale fading: a time-correlated complex channel gain h(t) per pair of antennas,
//! whose power |h(t)|² multiplies the received power on top of path loss and shadowing.
//!
//! # Model
//!
//! Clarke's flat-fading model (R. H. Clarke, "A statistical theory of mobile-radio
//! reception", Bell Syst. Tech. J. 47(6), 1968; Rappaport, *Wireless Communications*, 2nd
//! ed., §5.7.1): many scattered waves arrive from uniformly distributed directions, so the
//! in-phase and quadrature parts of h are Gaussian, |h| is Rayleigh, |h|² exponential, and
//! the autocorrelation of each part is J₀(2π·f_d·τ) with f_d the maximum Doppler shift.
//!
//! It is generated with the sum-of-sinusoids simulator of Y. R. Zheng and C. Xiao,
//! "Simulation models with correct statistical properties for Rayleigh fading channels",
//! IEEE Trans. Commun. 51(6):920–928, June 2003 (their improved statistical model), with M
//! sinusoids and ω_d = 2π·f_d:
//!
//! ```text
//! X_c(t) = (2/√M) · Σₙ cos(ψₙ) · cos(ω_d·t·cos αₙ + φ)
//! X_s(t) = (2/√M) · Σₙ sin(ψₙ) · cos(ω_d·t·cos αₙ + φ)
//! αₙ = (2πn − π + θ) / (4M),   n = 1 … M
//! ```
//!
//! with φ, θ and every ψₙ independent and uniform on [−π, π). Averaged over those random
//! phases, each quadrature part has the autocorrelation J₀(ω_d·τ) exactly (the angles αₙ
//! tile [0, π/2) with one uniform draw per tile), the two parts are uncorrelated, and
//! E[X_c² + X_s²] = 2; here h = (X_c + j·X_s)/√2, so E|h|² = 1 and the mean received power
//! stays the path-loss-and-shadowing one.
//!
//! A line-of-sight component makes it Rician with factor K (C. Xiao, Y. R. Zheng and N. C.
//! Beaulieu, "Novel sum-of-sinusoids simulation models for Rayleigh and Rician fading
//! channels", IEEE Trans. Wireless Commun. 5(12), 2006):
//! h_K(t) = (h(t) + √K·e^{j(ω_d·t·cos θ₀ + φ₀)}) / √(1 + K), with φ₀ uniform and θ₀ the
//! direction of the direct wave (drawn uniform here: no geometry is modelled); K = 0 is
//! Rayleigh.
//!
//! # Parameters (IEEE 802.11 TGn channel models)
//!
//! V. Erceg et al., "TGn Channel Models", IEEE 802.11-03/940r4, May 2004: indoor channels
//! vary because people and objects move while the stations stand still; the document takes
//! an environmental speed v₀ = 1.2 km/h and f_d = v₀/λ ([`TGN_ENVIRONMENT_SPEED`]; 5.76 Hz
//! at 5.18 GHz, a coherence time of tens of milliseconds, so an A-MPDU and its retries a
//! few milliseconds later share a fade). A moving station adds its own speed. Beyond the
//! breakpoint distance of its model (5–30 m for models B–F) a TGn link is NLOS and every
//! tap is Rayleigh (K = 0). TGn's channels are frequency-selective (several taps,
//! [`super::tgn`]); this process alone is flat, one gain per transmission. The TGn document
//! itself could not be retrieved where this was written (no copy in the searchable corpora):
//! the 1.2 km/h, f_d = v₀/λ, the breakpoint distances, the NLOS-Rayleigh taps and the bell
//! spectrum below are cited from its widely reproduced summary, without section numbers.
//!
//! # Doppler spectrum
//!
//! [`DopplerSpectrum::Clarke`] is the U-shaped spectrum of isotropic scattering around a
//! moving receiver, S(f) ∝ 1/√(1 − (f/f_d)²), autocorrelation J₀(2π·f_d·τ). TGn's
//! stations stand still and the scatterers move; its taps' Doppler spectrum is the bell
//! [`DopplerSpectrum::Bell`], S(f) ∝ 1/(1 + A·(f/f_d)²) for |f| ≤ f_d, with A = 9 so that
//! S(f_d) is a tenth of S(0) (IEEE 802.11-03/940r4, Doppler components; the same spectrum,
//! A = 9 by default, is MATLAB's `doppler('Bell')` used by its `wlanTGnChannel`). Some
//! 63 % of its power lies below f_d/3: at the same f_d its correlation falls to 0.5 in
//! about twice the time Clarke's does (0.08/f_d against 0.04/f_d). Its autocorrelation is
//! its Fourier transform,
//! ρ(τ) = ∫₀¹ cos(2π·f_d·τ·x)/(1 + A·x²) dx / (atan(√A)/√A).
//!
//! Both are generated the same way: Zheng & Xiao's tiling draws the n-th sinusoid's
//! normalised frequency xₙ = fₙ/f_d at the quantile uₙ = (n − ½ + θ/2π)/M of the one-sided
//! spectrum, uniform within its tile [(n − 1)/M, n/M) over θ, so that averaged over θ the
//! frequencies are distributed as the spectrum and the autocorrelation is exactly its
//! transform. Clarke's quantile function is x = cos(π·u/2) (their αₙ = π·uₙ/2); the bell's,
//! from its CDF G(x) = atan(√A·x)/atan(√A), is x = tan(u·atan(√A))/√A.
//!
//! # Use
//!
//! One [`FadingProcess`] per element of a link's channel matrix (a transmit and a receive
//! antenna), made from its own named [`RngStream`](crate::engine::RngStream); the two
//! directions of a link share every element, as the reciprocal channel of one frequency
//! does (`radio::element`). One gain per PPDU holds for a sender's antenna 0 alone; one
//! stream from several transmit antennas is judged per subcarrier (`radio::tgn`). All its
//! randomness is drawn when it is made, and [`FadingProcess::gain`] is then a pure function of time, so the fade at a time does
//! not depend on which frames were sent before. The caller evaluates it at each
//! transmission's start: all MPDUs of an A-MPDU share that fade (the PPDU lasts at most
//! 5.5 ms ≪ the coherence time), a retry sees the fade at its own time.
//!
//! # Receive diversity (maximal-ratio combining)
//!
//! A receiver with N antennas (receive chains) sees N fading processes from the
//! transmitter's antenna, independent (antennas spaced half a wavelength or more apart, Clarke's model: J₀(2π·d/λ)
//! falls to its first zero at d = 0.38 λ), each from its own named random stream. Maximal-ratio
//! combining weights each branch by its conjugate gain, so the post-combining SNR is the sum
//! of the branch SNRs (A. Goldsmith, *Wireless Communications*, Cambridge University Press,
//! 2005, §7.2.4): γ_Σ = γ̄·Σᵢ|hᵢ|², with γ̄ the per-antenna mean SNR of the link budget. With
//! Rayleigh branches Σᵢ|hᵢ|² is Gamma(N, 1) (χ² with 2N degrees of freedom over 2), mean N:
//! [`mrc_power`] is not normalised, so the array gain 10·log₁₀ N is counted. It is physical:
//! the link budget (path loss, transmit power, 0 dBi antennas, one chain's noise figure) is
//! that of one antenna, every antenna collects that mean power, and the chains' noises are
//! independent, so coherent combining adds signal powers against one noise power
//! (Goldsmith, §7.2.4: the average combined SNR is N·γ̄).
//!
//! With N_SS spatial streams (MCS 8–31) the N antennas must also separate the streams. Tern
//! abstracts the MIMO receiver as zero-forcing: each stream's post-ZF SNR is its per-stream
//! mean SNR times a Gamma(N − N_SS + 1, 1) gain, diversity order N − N_SS + 1 (J. H. Winters,
//! J. Salz and R. D. Gitlin, "The impact of antenna diversity on the capacity of wireless
//! communication systems", IEEE Trans. Commun. 42(2/3/4):1740–1751, 1994; D. A. Gore, R. W.
//! Heath and A. J. Paulraj, "Transmit selection in spatial multiplexing systems", IEEE
//! Commun. Lett. 6(11), 2002: the post-ZF SNR of a stream is χ² with 2(N − N_SS + 1)
//! degrees of freedom). Here: the gain of an MCS with N_SS streams is the
//! MRC sum over the first max(1, N − N_SS + 1) branches ([`diversity_order`]); the max(1, ·)
//! keeps a two-stream MCS usable on a one-antenna receiver, as the single-branch model did
//! (the SNR → PER model already counts the per-stream SNR). It is an abstraction: real
//! receivers (MMSE, ML) do somewhat better than ZF, and the streams' gains are not
//! independent of each other here (all streams of a PPDU share the first branches).

use super::propagation::SPEED_OF_LIGHT;
use crate::engine::{RngStream, SimTime};
use core::f64::consts::PI;

/// Sinusoids per quadrature part, M. Zheng & Xiao show M = 8 already matches the
/// Rayleigh statistics closely; 16 keeps the deviation of the envelope distribution from
/// Rayleigh below the sampling precision of this module's tests.
pub const SINUSOIDS: usize = 16;

/// The TGn models' environmental speed, 1.2 km/h in m/s (IEEE 802.11-03/940r4, Doppler
/// section: "v₀ = 1.2 km/h" for indoor channels with stationary stations).
pub const TGN_ENVIRONMENT_SPEED: f64 = 1.2 / 3.6;

/// TGn's bell-spectrum constant A: S(f_d) = S(0)/(1 + A) = S(0)/10 (IEEE 802.11-03/940r4).
pub const TGN_BELL_A: f64 = 9.0;

/// The shape of the Doppler spectrum (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DopplerSpectrum {
    /// Clarke's U-shaped spectrum, autocorrelation J₀(2π·f_d·τ).
    Clarke,
    /// The bell S(f) ∝ 1/(1 + A·(f/f_d)²), |f| ≤ f_d, with this A (TGn: [`TGN_BELL_A`]).
    Bell(f64),
}

impl DopplerSpectrum {
    /// The normalised frequency |f|/f_d at the quantile `u` ∈ [0, 1] of the one-sided
    /// spectrum (the inverse of its CDF).
    pub fn quantile(self, u: f64) -> f64 {
        match self {
            DopplerSpectrum::Clarke => libm::cos(PI * u / 2.0),
            DopplerSpectrum::Bell(a) => {
                let r = libm::sqrt(a);
                libm::tan(u * libm::atan(r)) / r
            }
        }
    }
}

/// Parameters of a link's fading.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fading {
    /// Maximum Doppler shift f_d, Hz.
    pub doppler_hz: f64,
    /// Rician K factor (linear, power of the direct wave over the scattered power); 0 is
    /// Rayleigh.
    pub k_factor: f64,
}

impl Fading {
    /// f_d = v/λ = v·f/c for a speed `speed` (m/s) at carrier frequency `freq_hz`.
    pub fn doppler_hz(speed: f64, freq_hz: f64) -> f64 {
        speed * freq_hz / SPEED_OF_LIGHT
    }

    /// Checks that f_d and K are finite and not negative.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.doppler_hz.is_finite() && self.doppler_hz >= 0.0) {
            return Err(format!(
                "Doppler shift must be a finite number >= 0 Hz, got {}",
                self.doppler_hz
            ));
        }
        if !(self.k_factor.is_finite() && self.k_factor >= 0.0) {
            return Err(format!(
                "Rician K factor must be a finite number >= 0, got {}",
                self.k_factor
            ));
        }
        Ok(())
    }
}

/// One realisation of the fading of a link direction (see the module documentation).
#[derive(Clone, Debug)]
pub struct FadingProcess {
    /// ω_d = 2π·f_d, rad/s.
    omega: f64,
    /// xₙ = fₙ/f_d (cos αₙ for Clarke's spectrum), and (cos ψₙ, sin ψₙ) scaled by 2/√M and by 1/√(2(1 + K)).
    cos_alpha: [f64; SINUSOIDS],
    weight: [(f64, f64); SINUSOIDS],
    phi: f64,
    /// √(K/(1 + K)), cos θ₀ and φ₀ of the direct wave.
    los: (f64, f64, f64),
}

impl FadingProcess {
    /// Draws a realisation with Clarke's spectrum ([`Self::with_spectrum`]).
    pub fn new(fading: Fading, rng: &mut RngStream) -> Result<Self, String> {
        Self::with_spectrum(fading, DopplerSpectrum::Clarke, rng)
    }

    /// Draws a realisation with the Doppler spectrum `spectrum` from `rng`: θ, φ, then
    /// ψ₁ … ψ_M, then θ₀ and φ₀ (always, so a stream's draws depend on neither K nor the
    /// spectrum).
    pub fn with_spectrum(
        fading: Fading,
        spectrum: DopplerSpectrum,
        rng: &mut RngStream,
    ) -> Result<Self, String> {
        fading.validate()?;
        if let DopplerSpectrum::Bell(a) = spectrum {
            if !(a.is_finite() && a > 0.0) {
                return Err(format!(
                    "the bell Doppler spectrum's A must be a finite number > 0, got {a}"
                ));
            }
        }
        let mut phase = || PI * (2.0 * rng.uniform() - 1.0);
        let theta = phase();
        let phi = phase();
        let m = SINUSOIDS as f64;
        let scale = 2.0 / libm::sqrt(m) / libm::sqrt(2.0 * (1.0 + fading.k_factor));
        let mut cos_alpha = [0.0; SINUSOIDS];
        let mut weight = [(0.0, 0.0); SINUSOIDS];
        for n in 0..SINUSOIDS {
            cos_alpha[n] = match spectrum {
                DopplerSpectrum::Clarke => {
                    libm::cos((2.0 * PI * (n + 1) as f64 - PI + theta) / (4.0 * m))
                }
                DopplerSpectrum::Bell(_) => {
                    let u = ((n + 1) as f64 - 0.5 + theta / (2.0 * PI)) / m;
                    spectrum.quantile(u)
                }
            };
            let psi = phase();
            weight[n] = (scale * libm::cos(psi), scale * libm::sin(psi));
        }
        let theta0 = phase();
        let phi0 = phase();
        let los_amp = libm::sqrt(fading.k_factor / (1.0 + fading.k_factor));
        Ok(FadingProcess {
            omega: 2.0 * PI * fading.doppler_hz,
            cos_alpha,
            weight,
            phi,
            los: (los_amp, libm::cos(theta0), phi0),
        })
    }

    /// The complex gain h(t) = (re, im), E|h|² = 1.
    pub fn gain(&self, t: SimTime) -> (f64, f64) {
        let wt = self.omega * (t.as_nanos() as f64 * 1e-9);
        let (mut re, mut im) = (0.0, 0.0);
        for n in 0..SINUSOIDS {
            let c = libm::cos(wt * self.cos_alpha[n] + self.phi);
            re += self.weight[n].0 * c;
            im += self.weight[n].1 * c;
        }
        let (amp, cos_theta0, phi0) = self.los;
        if amp > 0.0 {
            let arg = wt * cos_theta0 + phi0;
            re += amp * libm::cos(arg);
            im += amp * libm::sin(arg);
        }
        (re, im)
    }

    /// The power gain |h(t)|².
    pub fn power(&self, t: SimTime) -> f64 {
        let (re, im) = self.gain(t);
        re * re + im * im
    }
}

/// The diversity order of a receiver with `rx_antennas` chains for an MCS with `n_ss`
/// spatial streams: max(1, N − N_SS + 1) (zero-forcing separation of the streams; see the
/// module documentation).
pub fn diversity_order(rx_antennas: usize, n_ss: u64) -> usize {
    let n_ss = usize::try_from(n_ss).unwrap_or(usize::MAX);
    (rx_antennas + 1).saturating_sub(n_ss).max(1)
}

/// The maximal-ratio-combined power gain Σᵢ|hᵢ(t)|² of `branches` at `t` (Goldsmith 2005,
/// §7.2.4; not normalised: its mean is the number of branches). One branch gives exactly
/// [`FadingProcess::power`].
pub fn mrc_power(branches: &[FadingProcess], t: SimTime) -> f64 {
    branches.iter().map(|b| b.power(t)).sum()
}

#[cfg(test)]
#[path = "fading_tests.rs"]
pub(crate) mod tests;
