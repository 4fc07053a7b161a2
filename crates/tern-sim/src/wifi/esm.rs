//! Effective-SNR mapping: one SNR that stands for an OFDM PPDU's per-subcarrier SNRs in
//! the AWGN error model ([`super::error_model`]), by mutual information.
//!
//! # Model
//!
//! Mutual-information effective SNR mapping (MIESM; K. Brueninghaus, D. Astély, T. Sälzer,
//! S. Visuri, A. Alexiou, S. Karger and G.-A. Seraji, "Link performance models for system
//! level simulations of broadband radio access systems", IEEE PIMRC 2005): a coded OFDM
//! block over subcarriers with SNRs γ₁ … γ_N decodes about as an AWGN block whose SNR
//! carries the same mean mutual information per coded bit,
//!
//! ```text
//! γ_eff = I⁻¹( (1/N) · Σₖ I(γₖ) )
//! ```
//!
//! with I the mutual information of the subcarriers' constellation over an AWGN channel,
//! normalised by its bits per symbol (the "received bit information rate", RBIR, of the
//! IEEE 802.16m evaluation methodology, IEEE 802.16m-08/004r5 §4.3, which IEEE 802.11ax's
//! evaluation methodology, IEEE 802.11-14/0571r12, takes over for Wi-Fi's PHY
//! abstraction). No calibration factor (β = 1): Brueninghaus et al. find MIESM's β close
//! to 1 for BICM, unlike the exponential mapping (EESM), whose β must be fitted per MCS. A
//! frequency-flat block maps to its own SNR.
//!
//! I of a square M-QAM constellation with equiprobable points is twice that of its √M-PAM
//! component at the same SNR per dimension; BPSK is 2-PAM with the whole symbol energy in
//! one dimension. For L-PAM with points ±a, ±3a, … (mean energy ρ over a unit-variance
//! Gaussian noise n), the constellation-constrained capacity is (e.g. Proakis, *Digital
//! Communications*, 4th ed., §7.1-2; G. Ungerboeck, IEEE Trans. Inf. Theory 28(1), 1982)
//!
//! ```text
//! I_L(ρ) = log₂ L − (1/L) Σᵢ E_n[ log₂ Σⱼ exp(−(dᵢⱼ² + 2·dᵢⱼ·n)/2) ],  dᵢⱼ = xᵢ − xⱼ
//! ```
//!
//! integrated here by the trapezoidal rule over n ∈ [−7.5, 7.5] in steps of 1/8 (for a
//! Gaussian weight and a smooth integrand its error falls exponentially with the step).
//! The normalised I of each modulation is tabulated once per process on an SNR grid of
//! −20 … 45 dB in 1/8 dB steps and interpolated linearly in dB; the inverse is the exact
//! inverse of that interpolation, so the flat-channel identity holds to rounding (where
//! I has saturated to 1 in double precision, the inverse gives the lowest SNR of that
//! plateau: every SNR on it decodes every MCS of the modulation alike). Outside
//! the grid: below it I is proportional to γ (the table's first point extrapolated
//! linearly in γ); above it every MCS decodes (the grid's top is returned).

use super::phy::Modulation;
use std::sync::OnceLock;

const GRID_LOW_DB: f64 = -20.0;
const GRID_STEP_DB: f64 = 0.125;
const GRID_POINTS: usize = 521;
const NOISE_STEP: f64 = 0.125;
const NOISE_HALF_POINTS: i32 = 60;

/// Normalised mutual information (0 … 1) of `modulation` at SNR `snr` (linear, symbol
/// energy over noise power), computed by quadrature (see the module documentation).
pub fn normalised_mi(modulation: Modulation, snr: f64) -> f64 {
    match modulation {
        Modulation::Bpsk => pam_mi(2, 2.0 * snr),
        Modulation::Qpsk => pam_mi(2, snr),
        Modulation::Qam16 => pam_mi(4, snr) / 2.0,
        Modulation::Qam64 => pam_mi(8, snr) / 3.0,
    }
}

/// Mutual information, bits, of L-PAM of mean energy `rho` in unit-variance real noise.
fn pam_mi(levels: usize, rho: f64) -> f64 {
    let l = levels as f64;
    let a = libm::sqrt(3.0 * rho / (l * l - 1.0));
    let points: Vec<f64> = (0..levels)
        .map(|i| (2.0 * i as f64 - l + 1.0) * a)
        .collect();
    let norm = 1.0 / libm::sqrt(2.0 * core::f64::consts::PI);
    let mut expectation = 0.0;
    for step in -NOISE_HALF_POINTS..=NOISE_HALF_POINTS {
        let n = f64::from(step) * NOISE_STEP;
        let weight = norm * libm::exp(-n * n / 2.0) * NOISE_STEP;
        let mut inner = 0.0;
        for &xi in &points {
            let s: f64 = points
                .iter()
                .map(|&xj| {
                    let d = xi - xj;
                    libm::exp(-(d * d + 2.0 * d * n) / 2.0)
                })
                .sum();
            inner += libm::log2(s);
        }
        expectation += weight * inner / l;
    }
    (libm::log2(l) - expectation).clamp(0.0, libm::log2(l))
}

fn index(modulation: Modulation) -> usize {
    match modulation {
        Modulation::Bpsk => 0,
        Modulation::Qpsk => 1,
        Modulation::Qam16 => 2,
        Modulation::Qam64 => 3,
    }
}

/// The tables of normalised MI on the dB grid, one per modulation, made on first use.
fn tables() -> &'static [Vec<f64>; 4] {
    static TABLES: OnceLock<[Vec<f64>; 4]> = OnceLock::new();
    TABLES.get_or_init(|| {
        let grid = |m: Modulation| -> Vec<f64> {
            (0..GRID_POINTS)
                .map(|i| {
                    let db = GRID_LOW_DB + i as f64 * GRID_STEP_DB;
                    normalised_mi(m, libm::pow(10.0, db / 10.0))
                })
                .collect()
        };
        [
            grid(Modulation::Bpsk),
            grid(Modulation::Qpsk),
            grid(Modulation::Qam16),
            grid(Modulation::Qam64),
        ]
    })
}

/// Normalised MI of `snr` (linear) by the tabulated interpolation.
fn mi_interp(table: &[f64], snr: f64) -> f64 {
    if snr <= 0.0 {
        return 0.0;
    }
    let x = (10.0 * libm::log10(snr) - GRID_LOW_DB) / GRID_STEP_DB;
    if x <= 0.0 {
        // Below the grid: I ∝ γ.
        let low = libm::pow(10.0, GRID_LOW_DB / 10.0);
        return table[0] * snr / low;
    }
    let i = x as usize;
    if i >= GRID_POINTS - 1 {
        return table[GRID_POINTS - 1];
    }
    let frac = x - i as f64;
    table[i] + frac * (table[i + 1] - table[i])
}

/// The inverse of [`mi_interp`]: the SNR (linear) whose interpolated MI is `mi`.
fn mi_inverse(table: &[f64], mi: f64) -> f64 {
    let low = libm::pow(10.0, GRID_LOW_DB / 10.0);
    if mi <= table[0] {
        return low * mi / table[0];
    }
    // First grid point at or above mi (the table rises monotonically).
    let hi = table.partition_point(|&v| v < mi);
    if hi == GRID_POINTS {
        return libm::pow(
            10.0,
            (GRID_LOW_DB + (GRID_POINTS - 1) as f64 * GRID_STEP_DB) / 10.0,
        );
    }
    let lo = hi - 1;
    let span = table[hi] - table[lo];
    let frac = if span > 0.0 {
        (mi - table[lo]) / span
    } else {
        0.0
    };
    let db = GRID_LOW_DB + (lo as f64 + frac) * GRID_STEP_DB;
    libm::pow(10.0, db / 10.0)
}

/// The effective SNR (linear) of subcarriers with SNRs `snrs` (linear) carrying
/// `modulation`: I⁻¹ of their mean normalised MI (see the module documentation).
pub fn effective_snr(modulation: Modulation, snrs: &[f64]) -> f64 {
    if snrs.is_empty() {
        return 0.0;
    }
    let table = &tables()[index(modulation)];
    let mean = snrs.iter().map(|&s| mi_interp(table, s)).sum::<f64>() / snrs.len() as f64;
    mi_inverse(table, mean)
}

#[cfg(test)]
#[path = "esm_tests.rs"]
mod tests;
