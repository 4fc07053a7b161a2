//! Tests of [`super::FadingProcess`] against Clarke's model: exponential power, J₀
//! autocorrelation, the MRC gain, and determinism (the Rayleigh-averaged PER of 802.11n's
//! error model is tested beside that model, in `wifi::error_model`).

use super::*;

/// Realisations of the ensemble, each from the same test stream in turn.
fn ensemble(n: usize, fading: Fading, name: &str) -> Vec<FadingProcess> {
    let mut rng = RngStream::new(11, name);
    (0..n)
        .map(|_| FadingProcess::new(fading, &mut rng).unwrap())
        .collect()
}

const RAYLEIGH_10HZ: Fading = Fading {
    doppler_hz: 10.0,
    k_factor: 0.0,
};

/// Four standard errors of a binomial proportion p estimated from n samples.
fn four_sigma(p: f64, n: usize) -> f64 {
    4.0 * libm::sqrt(p * (1.0 - p) / n as f64)
}

#[test]
fn the_power_gain_is_exponential_with_mean_one() {
    // Clarke: |h|² ~ Exp(1), CDF 1 − e^{−x}. The ensemble at one time, N = 20 000: each
    // empirical CDF value is a binomial proportion, held to 4 standard errors (a false
    // alarm about 6·10⁻⁵ per point).
    let n = 20_000;
    let t = SimTime::from_millis(1234);
    let powers: Vec<f64> = ensemble(n, RAYLEIGH_10HZ, "radio/fading/cdf")
        .iter()
        .map(|p| p.power(t))
        .collect();
    for x in [0.05, 0.1, 0.5, 1.0, 2.0, 3.0] {
        let expect = 1.0 - libm::exp(-x);
        let got = powers.iter().filter(|&&p| p <= x).count() as f64 / n as f64;
        assert!(
            (got - expect).abs() <= four_sigma(expect, n),
            "P(|h|² ≤ {x}) = {got}, Exp(1) gives {expect}"
        );
    }
    // Mean 1: Exp(1) has standard deviation 1, so the mean's standard error is 1/√N.
    let mean = powers.iter().sum::<f64>() / n as f64;
    assert!((mean - 1.0).abs() <= 4.0 / libm::sqrt(n as f64), "{mean}");
}

#[test]
fn the_autocorrelation_is_bessel_j0() {
    // E[h(t)·h*(t + τ)] = J₀(2π·f_d·τ) (Zheng & Xiao's ensemble property). The estimate
    // averages Re(h(t)·h*(t + τ)) over N realisations; for a complex Gaussian pair with
    // correlation ρ that product has variance (1 + ρ²)/2 ≤ 1, so 4/√N bounds the error
    // (0.028 for N = 20 000). Lags up to past the first zero of J₀ (2.405/(2π·10) = 38 ms).
    let n = 20_000;
    let procs = ensemble(n, RAYLEIGH_10HZ, "radio/fading/acf");
    let t0 = SimTime::from_millis(500);
    for lag_ms in [0u64, 2, 10, 20, 38, 60, 100] {
        let t1 = t0 + SimTime::from_millis(lag_ms);
        let est = correlation(&procs, t0, t1);
        let expect = libm::j0(2.0 * PI * 10.0 * lag_ms as f64 * 1e-3);
        assert!(
            (est - expect).abs() <= 4.0 / libm::sqrt(n as f64),
            "lag {lag_ms} ms: {est} vs J0 = {expect}"
        );
    }
}

/// The autocorrelation of the bell spectrum S(x) ∝ 1/(1 + A·x²), |x| ≤ 1, at the lag
/// f_d·τ = `fd_tau`: its Fourier transform ∫₀¹ cos(2π·fd_tau·x)/(1 + A·x²) dx over
/// ∫₀¹ dx/(1 + A·x²) = atan(√A)/√A, by composite Simpson with 2000 steps.
pub(crate) fn bell_autocorrelation(a: f64, fd_tau: f64) -> f64 {
    let f = |x: f64| libm::cos(2.0 * PI * fd_tau * x) / (1.0 + a * x * x);
    let steps = 2000;
    let h = 1.0 / steps as f64;
    let mut integral = f(0.0) + f(1.0);
    for i in 1..steps {
        integral += if i % 2 == 1 { 4.0 } else { 2.0 } * f(i as f64 * h);
    }
    integral * h / 3.0 / (libm::atan(libm::sqrt(a)) / libm::sqrt(a))
}

#[test]
fn the_bell_quantile_inverts_its_cdf() {
    // G(x) = atan(√A·x)/atan(√A) is the CDF of |f|/f_d under 1/(1 + A·x²) on [0, 1].
    let bell = DopplerSpectrum::Bell(TGN_BELL_A);
    let r = libm::sqrt(TGN_BELL_A);
    for u in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0] {
        let x = bell.quantile(u);
        let cdf = libm::atan(r * x) / libm::atan(r);
        assert!((cdf - u).abs() < 1e-12, "u {u}: x {x}, G(x) {cdf}");
    }
    // Half the bell's power lies below f_d·tan(atan(3)/2)/3 = 0.18·f_d; Clarke's median is
    // cos(π/4) = 0.71·f_d.
    assert!((bell.quantile(0.5) - libm::tan(libm::atan(3.0) / 2.0) / 3.0).abs() < 1e-12);
    assert!((DopplerSpectrum::Clarke.quantile(0.5) - 0.5f64.sqrt()).abs() < 1e-12);
}

#[test]
fn the_bell_spectrum_has_its_fourier_transform_as_autocorrelation() {
    // TGn's bell (A = 9) at f_d = 10 Hz: E[h(t)·h*(t + τ)] is the spectrum's transform
    // (the tiling draws the frequencies distributed as the spectrum), 4/√N as for J₀.
    // At 38 ms J₀ is at its first zero while the bell still correlates at 0.64: the fades
    // are slower at the same f_d.
    let n = 20_000;
    let mut rng = RngStream::new(11, "radio/fading/bell");
    let bell = DopplerSpectrum::Bell(TGN_BELL_A);
    let procs: Vec<FadingProcess> = (0..n)
        .map(|_| FadingProcess::with_spectrum(RAYLEIGH_10HZ, bell, &mut rng).unwrap())
        .collect();
    let t0 = SimTime::from_millis(500);
    let mean_power = procs.iter().map(|p| p.power(t0)).sum::<f64>() / n as f64;
    assert!(
        (mean_power - 1.0).abs() <= 4.0 / libm::sqrt(n as f64),
        "{mean_power}"
    );
    for lag_ms in [0u64, 10, 38, 60, 100, 200] {
        let t1 = t0 + SimTime::from_millis(lag_ms);
        let est = correlation(&procs, t0, t1);
        let expect = bell_autocorrelation(TGN_BELL_A, 10.0 * lag_ms as f64 * 1e-3);
        assert!(
            (est - expect).abs() <= 4.0 / libm::sqrt(n as f64),
            "lag {lag_ms} ms: {est} vs the bell's {expect}"
        );
    }
    assert!(bell_autocorrelation(TGN_BELL_A, 0.38) > 0.6);
}

#[test]
fn a_bell_spectrum_with_a_non_positive_a_is_refused() {
    let mut rng = RngStream::new(1, "radio/fading/bad-bell");
    for a in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let bell = DopplerSpectrum::Bell(a);
        assert!(FadingProcess::with_spectrum(RAYLEIGH_10HZ, bell, &mut rng).is_err());
    }
}

#[test]
fn a_rician_direct_wave_keeps_the_mean_power_and_narrows_the_fades() {
    // Mean power 1 for any K; deep fades (|h|² ≤ 0.1) get rarer: the Rician CDF at small x
    // is about (1 + K)·e^{−K}·x, 0.1·5·e^{−4} = 0.009 for K = 4 vs 0.095 for Rayleigh.
    let n = 20_000;
    let t = SimTime::from_millis(700);
    let rice = Fading {
        doppler_hz: 10.0,
        k_factor: 4.0,
    };
    let powers: Vec<f64> = ensemble(n, rice, "radio/fading/rice")
        .iter()
        .map(|p| p.power(t))
        .collect();
    let mean = powers.iter().sum::<f64>() / n as f64;
    // Var|h|² = (1 + 2K)/(1 + K)² for Rician power with mean 1.
    let sd = libm::sqrt(9.0) / 5.0;
    assert!(
        (mean - 1.0).abs() <= 4.0 * sd / libm::sqrt(n as f64),
        "{mean}"
    );
    let deep = powers.iter().filter(|&&p| p <= 0.1).count() as f64 / n as f64;
    assert!(deep < 0.02, "{deep}");
}

/// The MRC power gain of `branches` independent processes per realisation, at `t`: each
/// realisation takes that many processes in turn from the ensemble's stream.
pub(crate) fn mrc_ensemble(n: usize, branches: usize, name: &str, t: SimTime) -> Vec<f64> {
    ensemble(n * branches, RAYLEIGH_10HZ, name)
        .chunks(branches)
        .map(|c| mrc_power(c, t))
        .collect()
}

#[test]
fn the_mrc_gain_is_gamma_n_with_mean_n() {
    // Σᵢ|hᵢ|² over N independent Exp(1) branches is Gamma(N, 1): Erlang CDF
    // 1 − e^{−x}·Σ_{k<N} xᵏ/k!. 20 000 realisations; each empirical CDF value a binomial
    // proportion held to 4 standard errors; the mean N held to 4·√N/√20 000 (Var = N).
    let n = 20_000;
    let t = SimTime::from_millis(901);
    for branches in [2usize, 3] {
        let gains = mrc_ensemble(n, branches, &format!("radio/fading/mrc{branches}"), t);
        for x in [0.1, 0.5, 1.0, 2.0, 4.0] {
            let mut term = 1.0;
            let mut sum = 0.0;
            for k in 0..branches {
                sum += term;
                term *= x / (k + 1) as f64;
            }
            let expect = 1.0 - libm::exp(-x) * sum;
            let got = gains.iter().filter(|&&g| g <= x).count() as f64 / n as f64;
            assert!(
                (got - expect).abs() <= four_sigma(expect, n).max(4.0 / n as f64),
                "N = {branches}: P(gain ≤ {x}) = {got}, Gamma gives {expect}"
            );
        }
        let mean = gains.iter().sum::<f64>() / n as f64;
        let tol = 4.0 * libm::sqrt(branches as f64 / n as f64);
        assert!(
            (mean - branches as f64).abs() <= tol,
            "N = {branches}: {mean}"
        );
    }
}

#[test]
fn the_diversity_order_is_antennas_minus_streams_plus_one_at_least_one() {
    // Zero-forcing: N − N_SS + 1 (Winters, Salz & Gitlin 1994), floored at 1.
    for (antennas, n_ss, order) in [
        (1, 1, 1),
        (1, 2, 1),
        (2, 1, 2),
        (2, 2, 1),
        (3, 1, 3),
        (3, 2, 2),
        (4, 4, 1),
    ] {
        assert_eq!(diversity_order(antennas, n_ss), order, "{antennas} {n_ss}");
    }
}

#[test]
fn the_same_seed_and_name_give_the_same_fades() {
    let draw = |seed, name: &str| {
        let p = FadingProcess::new(RAYLEIGH_10HZ, &mut RngStream::new(seed, name)).unwrap();
        (0..50u64)
            .map(|k| p.power(SimTime::from_millis(7 * k)))
            .collect::<Vec<_>>()
    };
    assert_eq!(draw(3, "wifi/x/fading/0->1"), draw(3, "wifi/x/fading/0->1"));
    assert_ne!(draw(3, "wifi/x/fading/0->1"), draw(3, "wifi/x/fading/1->0"));
    assert_ne!(draw(3, "wifi/x/fading/0->1"), draw(4, "wifi/x/fading/0->1"));
}

#[test]
fn the_doppler_shift_and_bad_parameters() {
    // TGn: 1.2 km/h at 5.18 GHz, f_d = v/λ = 0.3333 m/s / 0.05788 m = 5.759 Hz.
    let fd = Fading::doppler_hz(TGN_ENVIRONMENT_SPEED, 5.18e9);
    assert!((fd - 5.759).abs() < 1e-3, "{fd}");
    let mut rng = RngStream::new(0, "x");
    for (doppler_hz, k_factor) in [
        (-1.0, 0.0),
        (f64::NAN, 0.0),
        (1.0, -0.5),
        (1.0, f64::INFINITY),
    ] {
        let f = Fading {
            doppler_hz,
            k_factor,
        };
        assert!(FadingProcess::new(f, &mut rng).is_err(), "{f:?}");
    }
}

#[test]
fn a_channel_combines_its_named_branches_and_both_directions_share_one_element() {
    // The link's channel matrix, one named stream per element (`radio::element`): 1 -> 0's
    // antenna b receives element (b of 0, 0 of 1), 0 -> 1's antenna b element (0 of 0, b of
    // 1). Reciprocity: the element both directions receive on their antenna 0 is one
    // stream, so with one antenna the two directions fade alike, bit for bit; with three
    // they share that branch and no other.
    use crate::radio::mobility::{Mobility, Position};
    use crate::radio::propagation::LogDistance;
    use crate::radio::tgn::TgnModel;
    use crate::radio::{LinkFading, RadioChannel};
    let channel = |rx_antennas, model| {
        let at = |x| Mobility::Static(Position::new(x, 0.0, 0.0));
        RadioChannel::new(
            "w",
            5,
            vec![at(0.0), at(10.0)],
            LogDistance::default_5ghz(),
            16.0,
            20e6,
            7.0,
            None,
        )
        .with_fading(LinkFading {
            environment_speed: TGN_ENVIRONMENT_SPEED,
            freq_hz: 5.18e9,
            k_factor: 0.0,
            rx_antennas,
            tx_antennas: 1,
            model,
            width_mhz: 20,
        })
        .unwrap()
    };
    let fading = Fading {
        doppler_hz: Fading::doppler_hz(TGN_ENVIRONMENT_SPEED, 5.18e9),
        k_factor: 0.0,
    };
    let branch = |stream: &str| FadingProcess::new(fading, &mut RngStream::new(5, stream)).unwrap();
    let shared = branch("w/fading/0-1/0-0");
    let (up1, up2) = (branch("w/fading/0-1/1-0"), branch("w/fading/0-1/2-0"));
    let (down1, down2) = (branch("w/fading/0-1/0-1"), branch("w/fading/0-1/0-2"));
    let (mut one, mut three) = (channel(1, None), channel(3, None));
    let (mut tgn_one, mut tgn_three) =
        (channel(1, Some(TgnModel::B)), channel(3, Some(TgnModel::B)));
    let db = |p: f64| 10.0 * libm::log10(p);
    let mut differ = 0;
    for k in 0..20u64 {
        let t = SimTime::from_millis(13 * k);
        for n_ss in [1, 2] {
            assert_eq!(
                one.fading_db(1, 0, t, n_ss).to_bits(),
                db(shared.power(t)).to_bits()
            );
            assert_eq!(
                one.fading_db(0, 1, t, n_ss).to_bits(),
                db(shared.power(t)).to_bits()
            );
        }
        let p0 = shared.power(t);
        assert_eq!(
            three.fading_db(1, 0, t, 1),
            db(p0 + up1.power(t) + up2.power(t))
        );
        assert_eq!(three.fading_db(1, 0, t, 2), db(p0 + up1.power(t)));
        assert_eq!(
            three.fading_db(0, 1, t, 1),
            db(p0 + down1.power(t) + down2.power(t))
        );
        assert_eq!(three.fading_db(0, 1, t, 3), db(p0));
        // TGn: with one antenna, the same frequency response both ways; with three, a
        // three-stream PPDU's single branch (diversity order 1) is the shared element.
        let (up, down) = (tgn_one.snr_db(1, 0, t), tgn_one.snr_db(0, 1, t));
        assert_eq!(up.to_bits(), down.to_bits());
        let (up, down) = (
            tgn_three.snr_db_streams(1, 0, t, 3),
            tgn_three.snr_db_streams(0, 1, t, 3),
        );
        assert_eq!(up.to_bits(), down.to_bits());
        if tgn_three.snr_db(1, 0, t) != tgn_three.snr_db(0, 1, t) {
            differ += 1;
        }
    }
    assert_eq!(
        differ, 20,
        "a further antenna of each end receives an element of its own"
    );
}

/// The ensemble's estimate of E[g(t0)·g*(t1)] (real part): the autocorrelation at t1 − t0.
fn correlation(procs: &[FadingProcess], t0: SimTime, t1: SimTime) -> f64 {
    procs
        .iter()
        .map(|p| {
            let (a, b) = (p.gain(t0), p.gain(t1));
            a.0 * b.0 + a.1 * b.1
        })
        .sum::<f64>()
        / procs.len() as f64
}
