//! Small-scale fading on 802.11n links, end to end: with `propagation.fading` a frame and
//! its retries milliseconds later fall in the same fade, so an MPDU that failed is more
//! likely to fail again; without it the FCS draws are independent.

mod common;

use common::{error_of, one_station_bss, table, texts, u64s};
use std::collections::BTreeMap;

/// A station 20 m from its AP sending 40 Mbit/s of UDP at MCS 7: a mean SNR of 24 dB
/// (16 dBm, log-distance n = 3 at 5.18 GHz, 7 dB noise figure), where Rayleigh fading gives
/// MCS 7 a PER of roughly 0.2. `propagation`: the BSS's propagation table.
fn scenario(propagation: &str, seed: u64) -> String {
    scenario_at(20, 7, propagation, seed)
}

/// [`scenario`] with the station `distance` m from the AP at MCS `mcs`.
fn scenario_at(distance: u32, mcs: u8, propagation: &str, seed: u64) -> String {
    let bss = one_station_bss(distance, mcs);
    format!(
        r#"record = ["wifi_rx"]
[sim]
duration = "2s"
seed = {seed}
{bss}propagation = {propagation}
[[flows]]
name = "up"
from = "sta"
to = "ap"
app = {{ kind = "cbr", rate = "40Mbps", size = "1400B" }}
transport = {{ kind = "udp" }}
"#
    )
}

/// Over the station's MPDU receptions at the AP (`wifi_rx`): (receptions, failed ones,
/// receptions that follow a failed one of the same MPDU, those that failed again).
fn failure_counts(text: &str) -> [u64; 4] {
    let out = common::run(text);
    let rx = table(&out, "wifi_rx");
    let (from, sn, ok) = (texts(rx, "from"), u64s(rx, "sn"), u64s(rx, "fcs_ok"));
    let mut failed_before = BTreeMap::new();
    let mut c = [0u64; 4];
    for i in (0..sn.len()).filter(|&i| from[i] == "sta") {
        let bad = ok[i] == 0;
        c[0] += 1;
        c[1] += u64::from(bad);
        if failed_before.get(&sn[i]) == Some(&true) {
            c[2] += 1;
            c[3] += u64::from(bad);
        }
        failed_before.insert(sn[i], bad);
    }
    c
}

/// P(retry fails | previous attempt failed) against P(fail), each a binomial proportion:
/// returns (conditional, unconditional, 4 standard errors of their difference).
fn probabilities(c: [u64; 4]) -> (f64, f64, f64) {
    let p = c[1] as f64 / c[0] as f64;
    let q = c[3] as f64 / c[2] as f64;
    let se = (p * (1.0 - p) / c[0] as f64 + q * (1.0 - q) / c[2] as f64).sqrt();
    (q, p, 4.0 * se)
}

#[test]
fn with_fading_an_mpdu_that_failed_tends_to_fail_again() {
    // The TGn fade lasts tens of ms (f_d = 5.8 Hz): the retry a few ms later sees nearly
    // the same SNR, so failures cluster.
    let c = failure_counts(&scenario("{ fading = {} }", 1));
    let (q, p, tol) = probabilities(c);
    assert!(c[2] >= 200, "too few retries to judge: {c:?}");
    assert!(
        q > p + tol,
        "P(fail | failed) = {q}, P(fail) = {p} ± {tol}: {c:?}"
    );
    // Deep fades: a retry after a failure fails more often than not.
    assert!(q > 0.5, "{q}");
}

#[test]
fn without_fading_the_failures_are_independent() {
    // No fading, 5 m from the AP (SNR 42 dB: no SNR errors) and a fixed MPDU error rate of
    // 0.3: each FCS draw is independent, so P(fail | failed) = P(fail) = 0.3.
    let text = scenario("{}", 1)
        .replace("[20, 0, 0]", "[5, 0, 0]")
        .replace("propagation = {}", "propagation = {}\nmpdu_error = 0.3");
    let c = failure_counts(&text);
    let (q, p, tol) = probabilities(c);
    assert!(c[2] >= 200, "too few retries to judge: {c:?}");
    assert!(
        (q - p).abs() <= tol,
        "P(fail | failed) = {q}, P(fail) = {p} ± {tol}: {c:?}"
    );
}

#[test]
fn runs_with_fading_are_deterministic() {
    let text = scenario("{ fading = { k_factor = 2.0 } }", 7);
    assert_eq!(failure_counts(&text), failure_counts(&text));
    assert_ne!(
        failure_counts(&text),
        failure_counts(&scenario("{ fading = { k_factor = 2.0 } }", 8))
    );
}

#[test]
fn receive_diversity_cuts_the_failures_and_is_deterministic() {
    // Three MRC branches (radio/fading.rs): at 20 m MCS 7's Rayleigh PER of about 0.2 falls
    // by far more than the run's spread (Gamma(3, 1) seldom fades 10 dB: P = 1.5e-4).
    let one = failure_counts(&scenario("{ fading = {} }", 1));
    let text = scenario("{ fading = { rx_antennas = 3 } }", 1);
    let three = failure_counts(&text);
    assert_eq!(three, failure_counts(&text));
    let rate = |c: [u64; 4]| c[1] as f64 / c[0] as f64;
    assert!(
        rate(one) > 0.1 && rate(three) < rate(one) / 4.0,
        "{one:?} {three:?}"
    );
    // One antenna is the default.
    assert_eq!(
        one,
        failure_counts(&scenario("{ fading = { rx_antennas = 1 } }", 1))
    );
}

#[test]
fn bad_fading_values_name_the_key() {
    let e = error_of(&scenario("{ fading = { rx_antennas = 0 } }", 1));
    assert!(e.contains("rx_antennas") && e.contains("1 to 4"), "{e}");
    let e = error_of(&scenario("{ fading = { k_factor = -1 } }", 1));
    assert!(e.contains("fading") && e.contains("k_factor"), "{e}");
    let e = error_of(&scenario("{ fading = { environment_speed = -0.5 } }", 1));
    assert!(
        e.contains("environment_speed") && e.contains("0 or more"),
        "{e}"
    );
    let e = error_of(&scenario("{ fading = { doppler = 3 } }", 1));
    assert!(e.contains("doppler"), "{e}");
    let e = error_of(&scenario(
        "{ fading = { model = \"B\", tx_antennas = 5 } }",
        1,
    ));
    assert!(e.contains("tx_antennas") && e.contains("1 to 4"), "{e}");
}

#[test]
fn two_transmit_antennas_help_a_code_with_margin_and_hurt_one_near_its_threshold() {
    // One stream on two antennas with the HT cyclic shifts (radio/tgn.rs). The mean power
    // over the subcarriers varies half as much (radio tests: 2.8 independent branches
    // instead of 1.4 on TGn model B), so deep fades, where a code with a wide margin fails,
    // grow rarer: the outage probability at a threshold x below the mean falls about as
    // x^L with L the branches. But the shifts also notch each realisation's spectrum (at
    // equal branch amplitudes one subcarrier in eight carries nothing, two lose 5 dB), and
    // the mutual information a subcarrier carries is concave in its SNR, so the effective
    // SNR (wifi/esm.rs) falls below the mean power's: near its threshold a code fails more
    // often. MCS 0 at 40 m (15 dB mean SNR: margin) and at 80 m (6 dB: threshold), MCS 7 at
    // 20 m (24 dB: threshold); TGn model B, one receive antenna; one transmit antenna is the
    // default.
    let fading = |tx| format!("{{ fading = {{ model = \"B\", rx_antennas = 1{tx} }} }}");
    let rate = |c: [u64; 4]| c[1] as f64 / c[0] as f64;
    for (distance, mcs, margin) in [(40, 0, true), (80, 0, false), (20, 7, false)] {
        let one = failure_counts(&scenario_at(distance, mcs, &fading(""), 3));
        let explicit = failure_counts(&scenario_at(distance, mcs, &fading(", tx_antennas = 1"), 3));
        assert_eq!(one, explicit);
        let two = failure_counts(&scenario_at(distance, mcs, &fading(", tx_antennas = 2"), 3));
        let (a, b) = (rate(one), rate(two));
        if margin {
            assert!(b < a / 2.0, "MCS {mcs} at {distance} m: {one:?} {two:?}");
        } else {
            assert!(b > a * 1.2, "MCS {mcs} at {distance} m: {one:?} {two:?}");
        }
    }
}

#[test]
fn a_tgn_channel_is_deterministic_and_flat_is_the_default() {
    // The TGn tapped delay line (radio/tgn.rs): a run is a function of its seed; "flat" is
    // the one-gain-per-PPDU model, the default.
    let text = scenario("{ fading = { model = \"B\", rx_antennas = 2 } }", 3);
    let b = failure_counts(&text);
    assert_eq!(b, failure_counts(&text));
    assert!(b[1] > 0, "{b:?}");
    assert_ne!(
        b,
        failure_counts(&scenario(
            "{ fading = { model = \"B\", rx_antennas = 2 } }",
            4
        ))
    );
    assert_eq!(
        failure_counts(&scenario("{ fading = {} }", 3)),
        failure_counts(&scenario("{ fading = { model = \"flat\" } }", 3))
    );
}

#[test]
fn an_unknown_fading_model_names_the_key() {
    let e = error_of(&scenario("{ fading = { model = \"G\" } }", 1));
    assert!(
        e.contains("model") && e.contains("TGn") && e.contains("\"G\""),
        "{e}"
    );
}
