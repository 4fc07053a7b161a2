//! Frequency-selective small-scale fading: the IEEE 802.11 TGn tapped-delay-line channel
//! models, evaluated on the data subcarriers of an OFDM PPDU.
//!
//! # Model
//!
//! V. Erceg et al., "TGn Channel Models", IEEE 802.11-03/940r4, May 2004: each model is a
//! tapped delay line whose taps (10 ns apart near the start, wider later) are grouped in
//! overlapping clusters; a tap's mean power is the sum of its clusters' powers (the model
//! tables give each cluster's power per tap in dB). Every tap fades independently and is
//! Rayleigh beyond the model's breakpoint distance (NLOS); a line-of-sight link adds a
//! direct wave to the first tap only (Rician K on tap 1). The models, by rms delay spread:
//!
//! | model | environment (TGn) | rms delay spread | taps |
//! |---|---|---|---|
//! | B | residential | 15 ns | 9 (0-80 ns), 2 clusters |
//! | C | residential or small office | 30 ns | 14 (0-200 ns), 2 clusters |
//! | D | typical office | 50 ns | 18 (0-390 ns), 3 clusters |
//! | E | large office | 100 ns | 18 (0-730 ns), 4 clusters |
//!
//! (model A, one tap, is the frequency-flat fading of [`super::fading`]; F is not modelled).
//! Each tap's complex gain is a [`FadingProcess`] (Zheng & Xiao's sum of sinusoids at the
//! link's Doppler shift, TGn's 1.2 km/h environmental speed) with TGn's bell-shaped Doppler
//! spectrum, A = 9 ([`DopplerSpectrum::Bell`], [`TGN_BELL_A`]), scaled by the
//! square root of the tap's mean power; the powers are normalised to sum to 1, so the
//! mean power on every subcarrier is 1 and the path loss alone sets the mean SNR. TGn's
//! antenna correlation (per-cluster angular spreads) is not modelled: receive antennas fade
//! independently, as in [`super::fading`].
//!
//! The channel's frequency response on a subcarrier at offset f from the carrier is the
//! Fourier transform of the delay line, H(f, t) = Σₗ hₗ(t)·e^{−j2π f τₗ}
//! (J. G. Proakis, *Digital Communications*, 4th ed., §14.1). With independent taps its
//! frequency correlation is E[H(f)H*(f + Δ)] = Σₗ Pₗ·e^{j2π Δ τₗ} (the spaced-frequency
//! correlation function is the Fourier transform of the power-delay profile, Proakis
//! §14.1-1), which this module's tests check against the realised channel.
//!
//! # Subcarriers
//!
//! An HT PPDU's data subcarriers (IEEE 802.11-2020 Table 19-6: N_SD, Δ_F; §19.3.11.10:
//! the pilot subcarriers): 52 at 20 MHz, indices ±1 … ±28 without the pilots ±7 and ±21; 108 at
//! 40 MHz, ±2 … ±58 without the pilots ±11, ±25 and ±53; spacing Δ_F = 312.5 kHz
//! (Table 19-6). [`data_subcarrier_offsets`] lists them in Hz.
//!
//! # Use and cost
//!
//! The caller evaluates the response at each PPDU's start: the PPDU (at most 5.5 ms) is far
//! shorter than the coherence time (tens of ms at 1.2 km/h), as for the flat model. The
//! phasors e^{−j2π f τₗ} are computed once per link; a PPDU costs one sum of sinusoids per
//! tap and one complex multiply-add per tap and subcarrier, no FFT.

use super::fading::{DopplerSpectrum, Fading, FadingProcess, TGN_BELL_A};
use crate::engine::{RngStream, SimTime};
use core::f64::consts::PI;

/// HT subcarrier spacing Δ_F, Hz (IEEE 802.11-2020 Table 19-6: 20 MHz / 64).
pub const SUBCARRIER_SPACING_HZ: f64 = 312_500.0;

/// A TGn channel model (IEEE 802.11-03/940r4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TgnModel {
    B,
    C,
    D,
    E,
}

/// Tap delays (ns) and each cluster's power per tap (dB; `None` where the cluster has no
/// tap), as tabulated in IEEE 802.11-03/940r4 (Appendix C, models B-E).
struct Profile {
    delays_ns: &'static [f64],
    clusters: &'static [&'static [Option<f64>]],
}

const N: Option<f64> = None;

const B_DELAYS: [f64; 9] = [0., 10., 20., 30., 40., 50., 60., 70., 80.];
const B_C1: [Option<f64>; 9] = [
    Some(0.0),
    Some(-5.4),
    Some(-10.8),
    Some(-16.2),
    Some(-21.7),
    N,
    N,
    N,
    N,
];
const B_C2: [Option<f64>; 9] = [
    N,
    N,
    Some(-3.2),
    Some(-6.3),
    Some(-9.4),
    Some(-12.5),
    Some(-15.6),
    Some(-18.7),
    Some(-21.8),
];

const C_DELAYS: [f64; 14] = [
    0., 10., 20., 30., 40., 50., 60., 70., 80., 90., 110., 140., 170., 200.,
];
const C_C1: [Option<f64>; 14] = [
    Some(0.0),
    Some(-2.1),
    Some(-4.3),
    Some(-6.5),
    Some(-8.6),
    Some(-10.8),
    Some(-13.0),
    Some(-15.2),
    Some(-17.3),
    Some(-19.5),
    N,
    N,
    N,
    N,
];
const C_C2: [Option<f64>; 14] = [
    N,
    N,
    N,
    N,
    N,
    N,
    Some(-5.0),
    Some(-7.2),
    Some(-9.3),
    Some(-11.5),
    Some(-13.7),
    Some(-15.8),
    Some(-18.0),
    Some(-20.2),
];

const D_DELAYS: [f64; 18] = [
    0., 10., 20., 30., 40., 50., 60., 70., 80., 90., 110., 140., 170., 200., 240., 290., 340., 390.,
];
const D_C1: [Option<f64>; 18] = [
    Some(0.0),
    Some(-0.9),
    Some(-1.7),
    Some(-2.6),
    Some(-3.5),
    Some(-4.3),
    Some(-5.2),
    Some(-6.1),
    Some(-6.9),
    Some(-7.8),
    Some(-9.0),
    Some(-11.1),
    Some(-13.7),
    Some(-16.3),
    Some(-19.3),
    Some(-23.2),
    N,
    N,
];
const D_C2: [Option<f64>; 18] = [
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    Some(-6.6),
    Some(-9.5),
    Some(-12.1),
    Some(-14.7),
    Some(-17.4),
    Some(-21.9),
    Some(-25.5),
    N,
];
const D_C3: [Option<f64>; 18] = [
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    Some(-18.8),
    Some(-23.2),
    Some(-25.2),
    Some(-26.7),
];

const E_DELAYS: [f64; 18] = [
    0., 10., 20., 30., 50., 80., 110., 140., 180., 230., 280., 330., 380., 430., 490., 560., 640.,
    730.,
];
const E_C1: [Option<f64>; 18] = [
    Some(-2.6),
    Some(-3.0),
    Some(-3.5),
    Some(-3.9),
    Some(-4.5),
    Some(-5.6),
    Some(-6.9),
    Some(-8.2),
    Some(-9.8),
    Some(-11.7),
    Some(-13.9),
    Some(-16.1),
    Some(-18.3),
    Some(-20.5),
    Some(-22.9),
    N,
    N,
    N,
];
const E_C2: [Option<f64>; 18] = [
    N,
    N,
    N,
    N,
    Some(-1.8),
    Some(-3.2),
    Some(-4.5),
    Some(-5.8),
    Some(-7.1),
    Some(-9.9),
    Some(-10.3),
    Some(-14.3),
    Some(-14.7),
    Some(-18.7),
    Some(-19.9),
    Some(-22.4),
    N,
    N,
];
const E_C3: [Option<f64>; 18] = [
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    Some(-7.9),
    Some(-9.6),
    Some(-14.2),
    Some(-13.8),
    Some(-18.6),
    Some(-18.1),
    Some(-22.8),
    N,
    N,
    N,
];
const E_C4: [Option<f64>; 18] = [
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    N,
    Some(-20.6),
    Some(-20.5),
    Some(-20.7),
    Some(-24.6),
];

impl TgnModel {
    /// Parses "B", "C", "D" or "E" (case-insensitive).
    pub fn parse(name: &str) -> Option<TgnModel> {
        match name.to_ascii_uppercase().as_str() {
            "B" => Some(TgnModel::B),
            "C" => Some(TgnModel::C),
            "D" => Some(TgnModel::D),
            "E" => Some(TgnModel::E),
            _ => None,
        }
    }

    fn profile(self) -> Profile {
        match self {
            TgnModel::B => Profile {
                delays_ns: &B_DELAYS,
                clusters: &[&B_C1, &B_C2],
            },
            TgnModel::C => Profile {
                delays_ns: &C_DELAYS,
                clusters: &[&C_C1, &C_C2],
            },
            TgnModel::D => Profile {
                delays_ns: &D_DELAYS,
                clusters: &[&D_C1, &D_C2, &D_C3],
            },
            TgnModel::E => Profile {
                delays_ns: &E_DELAYS,
                clusters: &[&E_C1, &E_C2, &E_C3, &E_C4],
            },
        }
    }

    /// The taps as (delay s, mean power), the powers summed over clusters and normalised
    /// to a total of 1.
    pub fn taps(self) -> Vec<(f64, f64)> {
        let p = self.profile();
        let powers: Vec<f64> = (0..p.delays_ns.len())
            .map(|l| {
                p.clusters
                    .iter()
                    .filter_map(|c| c[l])
                    .map(|db| libm::pow(10.0, db / 10.0))
                    .sum()
            })
            .collect();
        let total: f64 = powers.iter().sum();
        p.delays_ns
            .iter()
            .zip(powers)
            .map(|(d, w)| (d * 1e-9, w / total))
            .collect()
    }

    /// The rms delay spread of the normalised power-delay profile, s.
    pub fn rms_delay_spread(self) -> f64 {
        let taps = self.taps();
        let mean: f64 = taps.iter().map(|(t, p)| t * p).sum();
        let second: f64 = taps.iter().map(|(t, p)| t * t * p).sum();
        libm::sqrt(second - mean * mean)
    }
}

/// The data subcarriers' offsets from the carrier, Hz, of an HT PPDU `width_mhz` wide (20
/// or 40; IEEE 802.11-2020 Table 19-6 and §19.3.11.10: 52 or 108 data subcarriers, pilots excluded).
pub fn data_subcarrier_offsets(width_mhz: u32) -> Vec<f64> {
    let (edge, inner, pilots): (i32, i32, &[i32]) = if width_mhz >= 40 {
        (58, 2, &[11, 25, 53])
    } else {
        (28, 1, &[7, 21])
    };
    (-edge..=edge)
        .filter(|k| k.abs() >= inner && !pilots.contains(&k.abs()))
        .map(|k| f64::from(k) * SUBCARRIER_SPACING_HZ)
        .collect()
}

/// The cyclic shift T_CS, s, of transmit chain `i` of `n_tx` in the HT portion of an HT
/// PPDU (IEEE Std 802.11n-2009, Table 20-9): 0 for one chain; 0 and −400 ns for two; 0,
/// −400 and −200 ns for three; 0, −400, −200 and −600 ns for four. `n_tx` is 1-4.
pub fn ht_cyclic_shift(n_tx: usize, i: usize) -> f64 {
    const NS: [&[f64]; 4] = [
        &[0.0],
        &[0.0, -400.0],
        &[0.0, -400.0, -200.0],
        &[0.0, -400.0, -200.0, -600.0],
    ];
    NS[n_tx - 1][i] * 1e-9
}

/// One realisation of a TGn channel from one transmitter to one receive antenna: a fading
/// process per tap, and the phasors e^{−j2π f_k τₗ} of every data subcarrier k.
///
/// A transmitter that sends one stream from several antennas ([`TgnProcess::expanded`])
/// is one such delay line per transmit antenna, each delayed by the antenna's cyclic shift
/// and scaled by 1/√N_TX: their sum is the channel the receive antenna sees.
#[derive(Clone, Debug)]
pub struct TgnProcess {
    /// (√Pₗ, hₗ's fading process) per tap (of every transmit antenna in turn).
    taps: Vec<(f64, FadingProcess)>,
    /// phasor[k · taps + l] = e^{−j2π f_k τₗ} as (re, im).
    phasors: Vec<(f64, f64)>,
    subcarriers: usize,
}

/// Most taps of one delay line (models D and E).
const MAX_TAPS: usize = 18;

/// Most transmit antennas of one expanded process (802.11n: four).
pub const MAX_TX_ANTENNAS: usize = 4;

impl TgnProcess {
    /// Draws the taps of `model`: tap l from the stream `<stream>/tap<l>`; the Rician K of
    /// `fading` applies to the first tap only (TGn's LOS condition), every other tap is
    /// Rayleigh. `offsets_hz` are the subcarriers ([`data_subcarrier_offsets`]).
    pub fn new(
        model: TgnModel,
        fading: Fading,
        offsets_hz: &[f64],
        seed: u64,
        stream: &str,
    ) -> Result<Self, String> {
        Self::expanded(model, fading, offsets_hz, seed, &[(stream.to_owned(), 0.0)])
    }

    /// One stream sent from N_TX antennas with cyclic shifts (spatial expansion), seen by
    /// one receive antenna: `antennas` holds, per transmit antenna, the stream its delay
    /// line draws from (as in [`TgnProcess::new`]) and its cyclic shift T_CS, s. An OFDM
    /// symbol shifted cyclically by T_CS is subcarrier k multiplied by e^{−j2π f_k T_CS}
    /// ([`ht_cyclic_shift`]), so antenna i's taps act as if delayed by T_CS; the transmit
    /// power is split over the antennas, amplitude 1/√N_TX, and the mean power on every
    /// subcarrier stays 1. With N_TX = 1 and T_CS = 0 this is [`TgnProcess::new`].
    pub fn expanded(
        model: TgnModel,
        fading: Fading,
        offsets_hz: &[f64],
        seed: u64,
        antennas: &[(String, f64)],
    ) -> Result<Self, String> {
        let taps = model.taps();
        let spectrum = DopplerSpectrum::Bell(TGN_BELL_A);
        Self::lines(
            &taps,
            spectrum,
            fading,
            offsets_hz,
            seed,
            antennas,
            &|s, l| format!("{s}/tap{l}"),
        )
    }

    /// [`TgnProcess::expanded`] over frequency-flat fading (TGn's model A, one tap): each
    /// transmit antenna's gain a [`FadingProcess`] with Clarke's spectrum drawn from the
    /// stream named in `antennas` itself, as the flat channel of [`super::fading`] draws
    /// one antenna's. The cyclic shifts alone make the channel frequency-selective.
    pub fn flat_expanded(
        fading: Fading,
        offsets_hz: &[f64],
        seed: u64,
        antennas: &[(String, f64)],
    ) -> Result<Self, String> {
        let one_tap = [(0.0, 1.0)];
        let spectrum = DopplerSpectrum::Clarke;
        Self::lines(
            &one_tap,
            spectrum,
            fading,
            offsets_hz,
            seed,
            antennas,
            &|s, _| s.to_owned(),
        )
    }

    /// One delay line `taps` (delay s, mean power; powers summing to 1) per transmit antenna
    /// of `antennas` (stream, cyclic shift), tap l of antenna i drawing from
    /// `tap_stream(stream_i, l)` with `spectrum`; the Rician K of `fading` on the first tap.
    fn lines(
        taps_def: &[(f64, f64)],
        spectrum: DopplerSpectrum,
        fading: Fading,
        offsets_hz: &[f64],
        seed: u64,
        antennas: &[(String, f64)],
        tap_stream: &dyn Fn(&str, usize) -> String,
    ) -> Result<Self, String> {
        if antennas.is_empty() || antennas.len() > MAX_TX_ANTENNAS {
            return Err(format!(
                "expected 1 to {MAX_TX_ANTENNAS} transmit antennas, got {}",
                antennas.len()
            ));
        }
        let scale = 1.0 / antennas.len() as f64;
        let mut taps = Vec::with_capacity(taps_def.len() * antennas.len());
        let mut delays = Vec::with_capacity(taps.capacity());
        for (stream, shift) in antennas {
            for (l, &(tau, power)) in taps_def.iter().enumerate() {
                let f = Fading {
                    doppler_hz: fading.doppler_hz,
                    k_factor: if l == 0 { fading.k_factor } else { 0.0 },
                };
                let mut rng = RngStream::new(seed, &tap_stream(stream, l));
                let process = FadingProcess::with_spectrum(f, spectrum, &mut rng)?;
                taps.push((libm::sqrt(power * scale), process));
                delays.push(tau + shift);
            }
        }
        let mut phasors = Vec::with_capacity(offsets_hz.len() * delays.len());
        for &f in offsets_hz {
            for &tau in &delays {
                let arg = -2.0 * PI * f * tau;
                phasors.push((libm::cos(arg), libm::sin(arg)));
            }
        }
        Ok(TgnProcess {
            taps,
            phasors,
            subcarriers: offsets_hz.len(),
        })
    }

    /// Number of subcarriers the response is evaluated on.
    pub fn subcarriers(&self) -> usize {
        self.subcarriers
    }

    /// Adds |H(f_k, t)|² of every subcarrier k to `power[k]` (so that summing over antennas
    /// is maximal-ratio combining per subcarrier). `power` has [`Self::subcarriers`] entries.
    pub fn add_power(&self, t: SimTime, power: &mut [f64]) {
        let n = self.taps.len();
        let mut h = [(0.0, 0.0); MAX_TAPS * MAX_TX_ANTENNAS];
        for (l, (amp, p)) in self.taps.iter().enumerate() {
            let (re, im) = p.gain(t);
            h[l] = (amp * re, amp * im);
        }
        for (k, out) in power.iter_mut().enumerate().take(self.subcarriers) {
            let row = &self.phasors[k * n..(k + 1) * n];
            let (mut re, mut im) = (0.0, 0.0);
            for (&(hr, hi), &(c, s)) in h[..n].iter().zip(row) {
                re += hr * c - hi * s;
                im += hr * s + hi * c;
            }
            *out += re * re + im * im;
        }
    }
}

#[cfg(test)]
#[path = "tgn_tests.rs"]
mod tests;
