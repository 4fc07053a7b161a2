//! Tests of [`super::TgnProcess`] against the TGn models' definition: each model's rms
//! delay spread, the HT subcarrier map, unit mean power per subcarrier, and the frequency
//! correlation the power-delay profile implies.

use super::*;

const RAYLEIGH: Fading = Fading {
    doppler_hz: 5.76,
    k_factor: 0.0,
};

/// `n` independent realisations (one named stream each), the power of every subcarrier at
/// time `t`.
fn powers(model: TgnModel, width: u32, n: usize, t: SimTime) -> Vec<Vec<f64>> {
    let offsets = data_subcarrier_offsets(width);
    (0..n)
        .map(|i| {
            let p =
                TgnProcess::new(model, RAYLEIGH, &offsets, 7, &format!("tgn/test/{i}")).unwrap();
            let mut out = vec![0.0; p.subcarriers()];
            p.add_power(t, &mut out);
            out
        })
        .collect()
}

#[test]
fn each_model_has_its_rms_delay_spread() {
    // IEEE 802.11-03/940r4: B 15 ns, C 30 ns, D 50 ns, E 100 ns, nominal; the published
    // tap tables give 15.6, 33.4, 50.2 and 99.0 ns (C's cluster 2 lengthens it): within 12 %.
    for (model, ns) in [
        (TgnModel::B, 15.0),
        (TgnModel::C, 30.0),
        (TgnModel::D, 50.0),
        (TgnModel::E, 100.0),
    ] {
        let got = model.rms_delay_spread() * 1e9;
        assert!(
            (got - ns).abs() < 0.12 * ns,
            "{model:?}: {got} ns, expected {ns}"
        );
        let total: f64 = model.taps().iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }
}

#[test]
fn the_ht_data_subcarriers_are_52_and_108_without_pilots_or_dc() {
    for (width, count, pilots, edge) in
        [(20, 52, &[7, 21][..], 28), (40, 108, &[11, 25, 53][..], 58)]
    {
        let offsets = data_subcarrier_offsets(width);
        assert_eq!(offsets.len(), count);
        let index: Vec<i32> = offsets
            .iter()
            .map(|f| libm::round(f / SUBCARRIER_SPACING_HZ) as i32)
            .collect();
        assert!(!index.contains(&0));
        assert_eq!(index.iter().map(|k| k.abs()).max(), Some(edge));
        for p in pilots {
            assert!(!index.contains(p) && !index.contains(&-p), "pilot {p}");
        }
    }
}

#[test]
fn the_mean_power_of_every_subcarrier_is_one() {
    // Taps normalised to unit total power: E|H(f)|² = Σ Pₗ = 1 on every subcarrier, so the
    // path loss alone sets the mean SNR. 3000 realisations: |H|² is Exp(1) (std 1), the
    // mean's standard error 0.018; held to 4 of them.
    let n = 3000;
    let p = powers(TgnModel::C, 20, n, SimTime::from_millis(500));
    for k in [0, 13, 26, 51] {
        let mean = p.iter().map(|r| r[k]).sum::<f64>() / n as f64;
        assert!(
            (mean - 1.0).abs() < 4.0 / libm::sqrt(n as f64),
            "subcarrier {k}: {mean}"
        );
    }
}

#[test]
fn the_frequency_correlation_follows_the_power_delay_profile() {
    // Independent Rayleigh taps: H(f) is complex Gaussian with E[H(f)H*(f+Δ)] = R(Δ) =
    // Σ Pₗ e^{j2πΔτₗ}, and for complex Gaussians the correlation coefficient of the
    // powers is |R(Δ)|² (Proakis §14.1). 3000 realisations: the coefficient's standard
    // error is at most 1/√3000 = 0.018; held to 0.08.
    let n = 3000;
    for model in [TgnModel::B, TgnModel::D] {
        let taps = model.taps();
        let p = powers(model, 20, n, SimTime::from_millis(100));
        let offsets = data_subcarrier_offsets(20);
        for (a, b) in [(0, 1), (0, 8), (0, 20), (10, 40), (0, 51)] {
            let delta = offsets[b] - offsets[a];
            let (re, im) = taps.iter().fold((0.0, 0.0), |(re, im), &(tau, w)| {
                let arg = 2.0 * core::f64::consts::PI * delta * tau;
                (re + w * libm::cos(arg), im + w * libm::sin(arg))
            });
            let expect = re * re + im * im;
            let (xa, xb): (Vec<f64>, Vec<f64>) = p.iter().map(|r| (r[a], r[b])).unzip();
            let got = correlation(&xa, &xb);
            assert!(
                (got - expect).abs() < 0.08,
                "{model:?} Δ = {delta} Hz: {got} against |R|² = {expect}"
            );
        }
    }
}

fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let cov: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let vy: f64 = y.iter().map(|b| (b - my) * (b - my)).sum();
    cov / libm::sqrt(vx * vy)
}

#[test]
fn a_realisation_is_a_pure_function_of_seed_stream_and_time() {
    let offsets = data_subcarrier_offsets(40);
    let make = || TgnProcess::new(TgnModel::B, RAYLEIGH, &offsets, 3, "tgn/det").unwrap();
    let (a, b) = (make(), make());
    let t = SimTime::from_millis(2500);
    let (mut pa, mut pb) = (vec![0.0; 108], vec![0.0; 108]);
    b.add_power(SimTime::from_millis(10), &mut vec![0.0; 108]);
    a.add_power(t, &mut pa);
    b.add_power(t, &mut pb);
    assert_eq!(
        pa.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        pb.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
}

#[test]
fn every_tap_fades_with_tgn_bell_spectrum() {
    // A Rayleigh subcarrier's power P = |H|² has cov(P(t), P(t + τ)) = |ρ(τ)|² (complex
    // Gaussian: E[|H₁|²|H₂|²] = 1 + |ρ|²), and every tap has the same ρ, so H's correlation
    // is the taps': the bell's (A = 9). At f_d = 5.76 Hz and τ = 40 ms the bell gives
    // |ρ|² = 0.72, Clarke's J₀² 0.29. The product P₁P₂ has E[P₁²P₂²] = 4(1 + 4|ρ|² + |ρ|⁴),
    // a standard deviation of 3.8 at |ρ|² = 0.72, so 16 000 realisations hold the estimate
    // to 4 · 3.8/√16 000 = 0.12.
    let n = 16_000;
    let (t0, t1) = (SimTime::from_millis(300), SimTime::from_millis(340));
    let offsets = data_subcarrier_offsets(20);
    let mut sum = 0.0;
    for i in 0..n {
        let p =
            TgnProcess::new(TgnModel::B, RAYLEIGH, &offsets, 9, &format!("tgn/bell/{i}")).unwrap();
        let (mut a, mut b) = (vec![0.0; p.subcarriers()], vec![0.0; p.subcarriers()]);
        p.add_power(t0, &mut a);
        p.add_power(t1, &mut b);
        sum += a[10] * b[10];
    }
    let cov = sum / n as f64 - 1.0;
    let rho = crate::radio::fading::tests::bell_autocorrelation(TGN_BELL_A, 5.76 * 0.040);
    assert!(
        (cov - rho * rho).abs() <= 0.12,
        "cov {cov}, bell |ρ|² {}",
        rho * rho
    );
    assert!((cov - libm::j0(2.0 * PI * 5.76 * 0.040).powi(2)).abs() > 0.12);
}

/// `n` independent realisations of one stream sent from `n_tx` antennas with the HT cyclic
/// shifts, the power of every subcarrier at `t`.
fn expanded_powers(n_tx: usize, n: usize, t: SimTime) -> Vec<Vec<f64>> {
    let offsets = data_subcarrier_offsets(20);
    (0..n)
        .map(|r| {
            let antennas: Vec<(String, f64)> = (0..n_tx)
                .map(|i| (format!("tgn/csd/{r}/{i}"), ht_cyclic_shift(n_tx, i)))
                .collect();
            let p = TgnProcess::expanded(TgnModel::B, RAYLEIGH, &offsets, 11, &antennas).unwrap();
            let mut out = vec![0.0; p.subcarriers()];
            p.add_power(t, &mut out);
            out
        })
        .collect()
}

#[test]
fn cyclic_shifts_decorrelate_the_subcarriers_as_the_shifted_delay_line_says() {
    // One stream from N_TX antennas, antenna i's delay line shifted by T_i and scaled by
    // 1/√N_TX: E[H(f)H*(f+Δ)] = R(Δ)·(1/N_TX)·Σᵢ e^{j2πΔTᵢ}, R the delay line's own
    // correlation, and the powers' correlation coefficient is its squared modulus (Proakis
    // §14.1). Two antennas, 0 and −400 ns (802.11n Table 20-9): subcarriers 1.25 MHz apart
    // are uncorrelated, 2.5 MHz apart as correlated as without the shift. 3000
    // realisations, standard error at most 0.018; held to 0.08. The mean power stays 1.
    let n = 3000;
    let taps = TgnModel::B.taps();
    let p = expanded_powers(2, n, SimTime::from_millis(100));
    let offsets = data_subcarrier_offsets(20);
    let (mut low, mut high) = (0, 0);
    for (a, b) in [(0, 1), (0, 2), (0, 4), (0, 7), (10, 14), (20, 30), (0, 51)] {
        let delta = offsets[b] - offsets[a];
        let phasor = |tau: f64| {
            let arg = 2.0 * core::f64::consts::PI * delta * tau;
            (libm::cos(arg), libm::sin(arg))
        };
        let r = taps.iter().fold((0.0, 0.0), |(re, im), &(tau, w)| {
            let (c, s) = phasor(tau);
            (re + w * c, im + w * s)
        });
        let shifts = (0..2).fold((0.0, 0.0), |(re, im), i| {
            let (c, s) = phasor(ht_cyclic_shift(2, i));
            (re + c / 2.0, im + s / 2.0)
        });
        let (re, im) = (
            r.0 * shifts.0 - r.1 * shifts.1,
            r.0 * shifts.1 + r.1 * shifts.0,
        );
        let expect = re * re + im * im;
        low += usize::from(expect < 0.05);
        high += usize::from(expect > 0.8);
        let (xa, xb): (Vec<f64>, Vec<f64>) = p.iter().map(|r| (r[a], r[b])).unzip();
        let got = correlation(&xa, &xb);
        assert!(
            (got - expect).abs() < 0.08,
            "Δ = {delta} Hz: {got} against {expect}"
        );
    }
    assert!(low >= 1 && high >= 1, "both regimes checked: {low} {high}");
    for k in [0, 26, 51] {
        let mean = p.iter().map(|r| r[k]).sum::<f64>() / n as f64;
        assert!(
            (mean - 1.0).abs() < 4.0 / libm::sqrt(n as f64),
            "{k}: {mean}"
        );
    }
}

#[test]
fn two_shifted_antennas_halve_the_spread_of_the_power_a_robust_code_sees() {
    // A low-rate code sees about the mean power over the K data subcarriers, X = hᴴ·A·h
    // with h the taps (every antenna's, each delayed by its cyclic shift, of powers pₗ)
    // and A_lm = (1/K)·Σₖ e^{−j2π f_k (τₗ − τₘ)}. For circular Gaussian taps
    // E[X] = Σ pₗ = 1 and Var[X] = tr((P·A)²) = Σₗₘ pₗ·pₘ·|A_lm|²; 1/Var[X] is the number of
    // independent exponential branches X behaves like (its diversity order). Model B from
    // one antenna: Var 0.700 (1.4 branches); from two with 0 and −400 ns: 0.352 (2.8). The
    // realised variance over 4000 realisations (relative standard error under 5 %) is held
    // to 15 % of the formula.
    let n = 4000;
    let t = SimTime::from_millis(700);
    let offsets = data_subcarrier_offsets(20);
    let theory = |n_tx: usize| {
        let taps: Vec<(f64, f64)> = (0..n_tx)
            .flat_map(|i| {
                let shift = ht_cyclic_shift(n_tx, i);
                TgnModel::B
                    .taps()
                    .into_iter()
                    .map(move |(tau, w)| (tau + shift, w / n_tx as f64))
            })
            .collect();
        let mut var = 0.0;
        for &(tl, pl) in &taps {
            for &(tm, pm) in &taps {
                let a = offsets
                    .iter()
                    .map(|f| libm::cos(2.0 * core::f64::consts::PI * f * (tl - tm)))
                    .sum::<f64>()
                    / offsets.len() as f64;
                var += pl * pm * a * a;
            }
        }
        var
    };
    let realised = |n_tx: usize| {
        let means: Vec<f64> = expanded_powers(n_tx, n, t)
            .iter()
            .map(|r| mean(r))
            .collect();
        mean_and_variance(&means).1
    };
    let (one, two) = (theory(1), theory(2));
    assert!(
        (one - 0.700).abs() < 0.001 && (two - 0.352).abs() < 0.001,
        "{one} {two}"
    );
    for (n_tx, expect) in [(1, one), (2, two)] {
        let got = realised(n_tx);
        assert!(
            (got / expect - 1.0).abs() < 0.15,
            "{n_tx} antennas: variance {got} against {expect}"
        );
    }
}

#[test]
fn over_flat_fading_one_antenna_is_the_flat_gain_and_two_shifted_ones_two_branches() {
    // Model A's one tap: from one antenna every subcarrier sees the flat process's own
    // |h|² (same stream, bit for bit); from two with 0 and −400 ns the subcarriers' mean
    // power is (|h₀|² + |h₁|²)/2 plus a cross term weighted by (1/K)·Σₖ cos(2π f_k·400 ns)
    // = −2/52, so Var = ¼·(2 + 2·(2/52)²) = 0.5007: two branches. 4000 realisations,
    // held to 15 %.
    let offsets = data_subcarrier_offsets(20);
    let t = SimTime::from_millis(300);
    let one = TgnProcess::flat_expanded(RAYLEIGH, &offsets, 5, &[("flat/x".into(), 0.0)]).unwrap();
    let flat = FadingProcess::new(RAYLEIGH, &mut RngStream::new(5, "flat/x")).unwrap();
    let mut p = vec![0.0; offsets.len()];
    one.add_power(t, &mut p);
    for v in &p {
        assert!(
            (v - flat.power(t)).abs() < 1e-12 * flat.power(t).max(1.0),
            "{v}"
        );
    }
    let n = 4000;
    let means: Vec<f64> = (0..n)
        .map(|r| {
            let antennas: Vec<(String, f64)> = (0..2)
                .map(|i| (format!("flat/{r}/{i}"), ht_cyclic_shift(2, i)))
                .collect();
            let q = TgnProcess::flat_expanded(RAYLEIGH, &offsets, 5, &antennas).unwrap();
            let mut out = vec![0.0; offsets.len()];
            q.add_power(t, &mut out);
            mean(&out)
        })
        .collect();
    let (m, var) = mean_and_variance(&means);
    let expect = 0.25 * (2.0 + 2.0 * (2.0f64 / 52.0).powi(2));
    assert!((var / expect - 1.0).abs() < 0.15, "{var} against {expect}");
    assert!((m - 1.0).abs() < 4.0 * libm::sqrt(expect / n as f64), "{m}");
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The sample mean and the unbiased sample variance of `x`.
fn mean_and_variance(x: &[f64]) -> (f64, f64) {
    let m = mean(x);
    let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (x.len() - 1) as f64;
    (m, var)
}
