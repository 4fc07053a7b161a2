//! Tests of the mutual-information effective SNR ([`super::effective_snr`]) from theory.

use super::*;

const ALL: [Modulation; 4] = [
    Modulation::Bpsk,
    Modulation::Qpsk,
    Modulation::Qam16,
    Modulation::Qam64,
];

#[test]
fn a_flat_channel_maps_to_its_own_snr() {
    for m in ALL {
        for db in [-25.0, -3.3, 0.0, 7.1, 18.06, 29.9, 44.0] {
            let snr = libm::pow(10.0, db / 10.0);
            let got = effective_snr(m, &[snr; 52]);
            if normalised_mi(m, snr) > 1.0 - 1e-9 {
                // Saturated to double precision: the lowest SNR of the plateau.
                let (a, b) = (normalised_mi(m, got), normalised_mi(m, snr));
                assert!(
                    got <= snr * 1.001 && (a - b).abs() < 1e-6,
                    "{m:?} {db} dB: {got} {a}"
                );
                continue;
            }
            assert!(
                (10.0 * libm::log10(got) - db).abs() < 1e-9,
                "{m:?} at {db} dB: {got}"
            );
        }
    }
}

#[test]
fn the_mutual_information_lies_below_shannon_and_saturates_at_the_bits_per_symbol() {
    // A constellation's mutual information is at most the Gaussian-input capacity
    // log₂(1 + γ) (complex; BPSK: ½log₂(1 + 2γ), one real dimension), approaches it as
    // γ → 0, and tends to log₂ M bits as γ → ∞ (Proakis §7.1-2).
    for m in ALL {
        let bits = m.bits_per_subcarrier() as f64;
        for db in [-10.0, -3.0, 0.0, 5.0, 10.0, 15.0, 20.0] {
            let g = libm::pow(10.0, db / 10.0);
            let shannon = match m {
                Modulation::Bpsk => 0.5 * libm::log2(1.0 + 2.0 * g),
                _ => libm::log2(1.0 + g),
            };
            let mi = normalised_mi(m, g) * bits;
            assert!(mi <= shannon + 1e-9, "{m:?} {db} dB: {mi} > {shannon}");
        }
        let g = 0.001;
        let shannon = match m {
            Modulation::Bpsk => 0.5 * libm::log2(1.0 + 2.0 * g),
            _ => libm::log2(1.0 + g),
        };
        assert!(normalised_mi(m, g) * bits / shannon > 0.99, "{m:?} low SNR");
        assert!(normalised_mi(m, 1e5) > 1.0 - 1e-9, "{m:?} high SNR");
    }
}

#[test]
fn a_selective_channel_maps_below_its_mean_and_above_its_worst() {
    // The normalised MI is concave in γ, so by Jensen I⁻¹(mean I(γₖ)) ≤ mean γₖ; it is
    // increasing, so the result lies between the smallest and largest γₖ.
    let snrs: Vec<f64> = (0..52)
        .map(|k| libm::pow(10.0, (5.0 + 20.0 * libm::sin(k as f64 * 0.3).abs()) / 10.0))
        .collect();
    let mean = snrs.iter().sum::<f64>() / snrs.len() as f64;
    let (lo, hi) = snrs
        .iter()
        .fold((f64::MAX, 0.0_f64), |(a, b), &s| (a.min(s), b.max(s)));
    for m in ALL {
        let e = effective_snr(m, &snrs);
        assert!(e <= mean && e >= lo && e <= hi, "{m:?}: {e} (mean {mean})");
    }
}

#[test]
fn half_the_subcarriers_erased_carry_half_the_information() {
    // Half the subcarriers at no SNR and half at an SNR where I is saturated: the mean
    // normalised MI is ½, so the effective SNR is where the modulation's I reaches ½.
    for m in ALL {
        let mut snrs = vec![0.0; 26];
        snrs.extend([1e4; 26]);
        let e = effective_snr(m, &snrs);
        assert!((normalised_mi(m, e) - 0.5).abs() < 2e-3, "{m:?}: {e}");
    }
}
