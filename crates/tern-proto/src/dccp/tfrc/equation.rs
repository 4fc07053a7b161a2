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

    /// §6.3.1: the inverse gives back the p the rate was computed from.
    #[test]
    fn inverse_finds_p() {
        let x = throughput(1000.0, 0.1, 0.01, 0.4, 1.0);
        let p = loss_rate_for(x, 1000.0, 0.1, 0.4, 1.0);
        assert!((p - 0.01).abs() < 1e-12, "{p}");
    }
}
