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
