//! The TCP throughput equation of TFRC (RFC 5348 §3.1, unchanged from RFC 3448 §3.1).

/// The allowed transmit rate in bytes per second, RFC 5348 §3.1 equation (1):
///
/// ```text
///                               s
/// X_Bps = ----------------------------------------------------------
///         R*sqrt(2*b*p/3) + (t_RTO * (3*sqrt(3*b*p/8)*p*(1+32*p^2)))
/// ```
///
/// `s` is the segment size in bytes, `r` the round-trip time and `t_rto` the TCP
/// retransmission timeout in seconds, `p` the loss event rate (0 < p ≤ 1) and `b` the
/// packets acknowledged by one TCP acknowledgement (§3.1 recommends b = 1).
pub fn throughput(s: f64, r: f64, p: f64, t_rto: f64, b: f64) -> f64 {
    let first = r * libm::sqrt(2.0 * b * p / 3.0);
    let second = t_rto * (3.0 * libm::sqrt(3.0 * b * p / 8.0) * p * (1.0 + 32.0 * p * p));
    s / (first + second)
}

/// The loss event rate at which [`throughput`] gives `x` bytes per second: the receiver's
/// synthetic first loss interval is 1/p of it (RFC 5348 §6.3.1). The equation falls
/// monotonically in p, so bisection on p in (0, 1] finds it to the last bit.
pub fn loss_rate_for(x: f64, s: f64, r: f64, t_rto: f64, b: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    if throughput(s, r, hi, t_rto, b) >= x {
        return hi;
    }
    // 64 halvings narrow [0, 1] below f64 resolution.
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if throughput(s, r, mid, t_rto, b) > x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §3.1 by hand, s = 1000 B, R = 100 ms, p = 1 %, b = 1, t_RTO = 4R = 0.4 s:
    /// R·sqrt(2p/3) = 0.1 · 0.0816497 = 0.00816497;
    /// t_RTO·3·sqrt(3p/8)·p·(1+32p²) = 0.4 · 0.1837117 · 0.010032 = 0.00073720;
    /// X = 1000 / 0.00890217 = 112 332 B/s.
    #[test]
    fn equation_matches_section_3_1_by_hand() {
        let x = throughput(1000.0, 0.1, 0.01, 0.4, 1.0);
        assert!((x - 112_332.0).abs() < 2.0, "{x}");
    }

    /// The example of the ns-2 reference's README: 1 % loss, R = 41 ms, t_RTO = 4R,
    /// s = 1000 B gives 2.19 Mbit/s.
    #[test]
    fn equation_gives_the_ns2_readme_example() {
        let mbit = throughput(1000.0, 0.041, 0.01, 0.164, 1.0) * 8.0 / 1e6;
        assert!((mbit - 2.19).abs() < 0.005, "{mbit}");
    }

    /// Without loss the rate is unbounded, and it falls as p grows (the bisection relies on it).
    #[test]
    fn equation_falls_with_p() {
        assert!(throughput(1000.0, 0.1, 0.0, 0.4, 1.0).is_infinite());
        let rates: Vec<f64> = [1e-4, 1e-3, 1e-2, 0.1, 1.0]
            .iter()
            .map(|&p| throughput(1000.0, 0.1, p, 0.4, 1.0))
            .collect();
        assert!(rates.windows(2).all(|w| w[0] > w[1]), "{rates:?}");
    }

    /// §6.3.1 at the tfrc-handover study's numbers (s = 629 B, X_recv at most the
    /// application's 503.2 kbit/s = 62 900 B/s, t_RTO = 4R). Without the t_RTO term the
    /// equation is X = s/(R·sqrt(2p/3)), so 1/p = (2/3)·W² with W = X_recv·R/s packets per
    /// RTT: R = 0.26 s gives W = 26.0 and 1/p = 450.7. At p = 1/468 the t_RTO term,
    /// 1.04·3·sqrt(3p/8)·p·(1 + 32p²) = 1.89e-4, adds 1.9 % to R·sqrt(2p/3) = 9.81e-3, so
    /// the same X needs 1/p about 3.9 % larger: 468. R = 0.773 s gives W = 77.3, 3983.5
    /// without the term and about 4000 with it.
    #[test]
    fn first_interval_at_the_study_s_rates() {
        let interval = |r: f64| 1.0 / loss_rate_for(62_900.0, 629.0, r, 4.0 * r, 1.0);
        let small = interval(0.26);
        assert!((small - 468.0).abs() < 1.0, "{small}");
        let large = interval(0.773);
        assert!((large - 4000.0).abs() < 10.0, "{large}");
        // Without the t_RTO term the interval grows exactly with R²: twice R, four times it.
        let bare = |r: f64| 1.0 / loss_rate_for(62_900.0, 629.0, r, 0.0, 1.0);
        let ratio = bare(0.52) / bare(0.26);
        assert!((ratio - 4.0).abs() < 1e-6, "{ratio}");
        // With t_RTO = 4R the term adds 12·p·sqrt(9/16) = 9p to R·sqrt(2p/3) (relative), so 1/p
        // is about 18p larger than the bare value: 3.85 % at 1/p = 468 and 1.03 % at twice R
        // (1/p ≈ 4 · 450.7 = 1803); the ratio is 4 · 1.0103 / 1.0385 = 3.891.
        let ratio = interval(0.52) / small;
        assert!((ratio - 3.891).abs() < 0.01, "{ratio}");
    }

    /// §6.3.1: the inverse gives back the p the rate was computed from.
    #[test]
    fn inverse_finds_p() {
        let x = throughput(1000.0, 0.1, 0.01, 0.4, 1.0);
        let p = loss_rate_for(x, 1000.0, 0.1, 0.4, 1.0);
        assert!((p - 0.01).abs() < 1e-12, "{p}");
    }
}
