//! CUBIC congestion control (RFC 9438).
//!
//! Windows in the CUBIC formulas are in segments and time in seconds, as in
//! the RFC; the cube root uses `libm::cbrt` so results are identical on all
//! platforms.

use super::{
    bytes_to_segments, segments_to_bytes, slow_start_increase, AckEvent, CongestionControl,
    FrtoFallbackEvent, LossEvent, SpuriousRtoEvent,
};
use crate::time::SimTime;

/// C (RFC 9438 §5.1).
pub const C: f64 = 0.4;
/// beta_cubic (RFC 9438 §4.6).
pub const BETA: f64 = 0.7;

/// alpha_cubic = 3 * (1 - beta_cubic) / (1 + beta_cubic) (RFC 9438 §4.3):
/// the Reno-friendly additive increase until W_est reaches cwnd_prior.
pub fn alpha(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// The choices RFC 9438 leaves to an implementation, and which implementations make
/// differently: beta_cubic (§4.6: 0.7; Apple's XNU 3248 backs off by 0.2, i.e. 0.8,
/// `tcp_cubic_backoff` in bsd/netinet/tcp_cubic.c) and fast convergence (§4.7: optional;
/// on in Linux, off by default in XNU, `tcp_cubic_fast_convergence = 0`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicOptions {
    pub beta: f64,
    pub fast_convergence: bool,
}

impl Default for CubicOptions {
    fn default() -> Self {
        CubicOptions {
            beta: BETA,
            fast_convergence: true,
        }
    }
}

/// W_cubic(t) = C*(t-K)^3 + W_max (RFC 9438 §4.2 eq. 1), in segments.
pub fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    let d = t - k;
    C * d * d * d + w_max
}

/// K = cbrt((W_max - cwnd_epoch)/C) (RFC 9438 §4.2 eq. 2), in seconds.
pub fn k_secs(w_max: f64, cwnd_epoch: f64) -> f64 {
    libm::cbrt(((w_max - cwnd_epoch) / C).max(0.0))
}

/// CUBIC state. `cwnd` is kept in (fractional) segments.
#[derive(Clone, Debug)]
pub struct Cubic {
    smss: f64,
    cwnd: f64,
    ssthresh: f64,
    /// W_max: window just before the last reduction (segments).
    w_max: f64,
    /// cwnd_prior used for the Reno-friendly alpha switch (§4.3).
    cwnd_prior: f64,
    k: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch_start: Option<SimTime>,
    /// W_est of the Reno-friendly region (§4.3 eq. 4), segments.
    w_est: f64,
    opts: CubicOptions,
}

impl Cubic {
    pub fn new(smss: u32, iw: u64, opts: CubicOptions) -> Self {
        let smss = f64::from(smss);
        Cubic {
            smss,
            cwnd: iw as f64 / smss,
            ssthresh: f64::INFINITY,
            w_max: 0.0,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start: None,
            w_est: 0.0,
            opts,
        }
    }

    /// K of the current epoch, seconds (for tests and traces).
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max in segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    fn begin_epoch(&mut self, now: SimTime) {
        self.epoch_start = Some(now);
        if self.cwnd < self.w_max {
            self.k = k_secs(self.w_max, self.cwnd);
        } else {
            // No reduction to recover from (first CA stage, or after an RTO
            // per §4.8): K = 0 and W_max = current window.
            self.k = 0.0;
            self.w_max = self.cwnd;
        }
        self.w_est = self.cwnd;
    }

    /// Reduction shared by fast recovery and RTO (§4.6, §4.7).
    fn reduce(&mut self) {
        self.epoch_start = None;
        self.cwnd_prior = self.cwnd;
        // Fast convergence (§4.7): release bandwidth when W_max shrinks.
        self.w_max = if self.opts.fast_convergence && self.cwnd < self.w_max {
            self.cwnd * (1.0 + self.opts.beta) / 2.0
        } else {
            self.cwnd
        };
        // §4.6 uses cwnd (it notes implementations may use cwnd rather than
        // flight_size when the flow is not application limited).
        self.ssthresh = (self.cwnd * self.opts.beta).max(2.0);
    }
}

impl CongestionControl for Cubic {
    fn cwnd(&self) -> u64 {
        (self.cwnd * self.smss) as u64
    }

    fn ssthresh(&self) -> u64 {
        segments_to_bytes(self.ssthresh, self.smss)
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        let acked_segs = ev.bytes_acked as f64 / self.smss;
        if self.cwnd < self.ssthresh {
            self.cwnd += slow_start_increase(ev.bytes_acked, self.smss as u64) as f64 / self.smss;
            return;
        }
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.begin_epoch(ev.now);
                ev.now
            }
        };
        let t = ev.now.saturating_sub(start).as_secs_f64();
        let rtt = ev.srtt.unwrap_or(SimTime::ZERO).as_secs_f64();
        // Reno-friendly estimate (§4.3 eq. 4); alpha becomes 1 once W_est
        // reaches cwnd_prior.
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            alpha(self.opts.beta)
        };
        self.w_est += alpha * acked_segs / self.cwnd;
        if w_cubic(t, self.k, self.w_max) < self.w_est {
            self.cwnd = self.cwnd.max(self.w_est);
            return;
        }
        // Concave/convex regions (§4.4, §4.5): target = W_cubic(t + RTT)
        // clamped to [cwnd, 1.5*cwnd]; cwnd += (target - cwnd)/cwnd per segment.
        let target = w_cubic(t + rtt, self.k, self.w_max).clamp(self.cwnd, 1.5 * self.cwnd);
        self.cwnd += (target - self.cwnd) / self.cwnd * acked_segs;
    }

    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        self.reduce();
        self.cwnd = self.ssthresh;
    }

    /// §4.8: ssthresh via beta_cubic, cwnd = 1 segment; the next CA stage
    /// starts with K = 0 and W_max = cwnd at its start. `hold_ssthresh` does not
    /// apply: beta_cubic scales cwnd, which a long recovery does not inflate.
    fn on_rto(&mut self, _ev: &LossEvent) {
        self.reduce();
        self.w_max = 0.0;
        self.cwnd = 1.0;
    }

    fn boxed_clone(&self) -> Box<dyn CongestionControl> {
        Box::new(self.clone())
    }

    /// Undo of a spurious timeout (RFC 9438 §4.9 lets CUBIC restore the
    /// state it had before a spurious congestion event): this is the copy
    /// taken before the timeout, so W_max, K, the epoch and W_est are the
    /// pre-timeout ones; cwnd and ssthresh come from the Eifel response
    /// (RFC 4015 §2).
    fn on_spurious_rto(&mut self, ev: &SpuriousRtoEvent) {
        self.cwnd = (ev.cwnd as f64 / self.smss).max(1.0);
        self.ssthresh = bytes_to_segments(ev.ssthresh, self.smss);
    }

    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.cwnd = (ev.cwnd as f64 / self.smss).max(1.0);
    }

    /// RFC 9438 §4.10: leaving the first slow start without a loss, W_max is undefined:
    /// cwnd_prior = cwnd, and congestion avoidance begins with K = 0 and W_max = cwnd
    /// (what `begin_epoch` does with no earlier reduction).
    fn exit_slow_start(&mut self, _now: SimTime) {
        self.ssthresh = self.cwnd;
        self.cwnd_prior = self.cwnd;
        self.epoch_start = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_fast_convergence() -> CubicOptions {
        CubicOptions {
            fast_convergence: false,
            ..CubicOptions::default()
        }
    }

    fn ack_at(cc: &mut Cubic, now: SimTime, bytes: u64) {
        cc.on_ack(&AckEvent {
            now,
            bytes_acked: bytes,
            rtt: None,
            srtt: None,
            in_flight: 0,
        });
    }

    #[test]
    fn window_at_k_equals_w_max() {
        // eq. 1 at t = K gives exactly W_max.
        let k = k_secs(100.0, 70.0);
        assert!((k - libm::cbrt(30.0 / 0.4)).abs() < 1e-12);
        assert_eq!(w_cubic(k, k, 100.0), 100.0);

        let mut cc = Cubic::new(1000, 100_000, no_fast_convergence());
        cc.ssthresh = 1.0; // force congestion avoidance
        cc.on_congestion_event(&LossEvent {
            now: SimTime::ZERO,
            flight_size: 100_000,
            hold_ssthresh: false,
        });
        assert_eq!(cc.cwnd(), 70_000); // beta * W_max
        assert_eq!(cc.w_max(), 100.0);
        // ACK a segment every millisecond until t = K.
        let mut now = SimTime::ZERO;
        ack_at(&mut cc, now, 1000);
        let k = cc.k();
        assert!((k - libm::cbrt(30.0 / 0.4)).abs() < 1e-9, "K = {k}");
        let k_ns = (k * 1e9) as u64;
        while now.0 < k_ns {
            now += SimTime::from_millis(1);
            ack_at(&mut cc, now, 1000);
        }
        let w = cc.cwnd() as f64 / 1000.0;
        assert!((w - 100.0).abs() < 1.0, "W(K) = {w}, expected W_max = 100");
        // Halfway to K the window is W_cubic(K/2) (within one segment).
        let expect_half = w_cubic(k / 2.0, k, 100.0);
        assert!(expect_half < 100.0 && expect_half > 70.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max() {
        let mut cc = Cubic::new(1000, 100_000, CubicOptions::default());
        let ev = LossEvent {
            now: SimTime::ZERO,
            flight_size: 0,
            hold_ssthresh: false,
        };
        cc.on_congestion_event(&ev); // W_max = 100, cwnd = 70
        cc.on_congestion_event(&ev); // 70 < 100: W_max = 70 * 1.7 / 2 = 59.5
        assert!((cc.w_max() - 59.5).abs() < 1e-9);
        assert_eq!(cc.cwnd(), 49_000);
    }

    #[test]
    fn spurious_rto_undo_keeps_pre_timeout_state() {
        let mut cc = Cubic::new(1000, 100_000, CubicOptions::default());
        cc.on_congestion_event(&LossEvent {
            now: SimTime::ZERO,
            flight_size: 100_000,
            hold_ssthresh: false,
        });
        let k = cc.k();
        let w_max = cc.w_max();
        assert_eq!(w_max, 100.0);
        let saved = cc.clone();
        cc.on_rto(&LossEvent {
            now: SimTime::from_secs(1),
            flight_size: 70_000,
            hold_ssthresh: false,
        });
        assert_eq!(cc.w_max(), 0.0);
        // The connection restores the copy taken before the timeout and
        // applies the Eifel response's cwnd and ssthresh (RFC 4015 §2).
        let mut cc = saved;
        cc.on_spurious_rto(&SpuriousRtoEvent {
            now: SimTime::from_secs(2),
            cwnd: 72_000,
            ssthresh: 70_000,
        });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (72_000, 70_000));
        assert_eq!((cc.w_max(), cc.k()), (w_max, k));
        cc.on_spurious_rto(&SpuriousRtoEvent {
            now: SimTime::from_secs(2),
            cwnd: 72_000,
            ssthresh: u64::MAX,
        });
        assert_eq!(cc.ssthresh(), u64::MAX);
    }

    #[test]
    fn xnu_backs_off_by_a_fifth_without_fast_convergence() {
        // XNU 3248: tcp_cubic_backoff = 0.2 (beta_cubic = 0.8), fast convergence off.
        let mut cc = Cubic::new(
            1000,
            100_000,
            CubicOptions {
                beta: 0.8,
                fast_convergence: false,
            },
        );
        let ev = LossEvent {
            now: SimTime::ZERO,
            flight_size: 0,
            hold_ssthresh: false,
        };
        cc.on_congestion_event(&ev); // W_max = 100, cwnd = 0.8 * 100
        assert_eq!((cc.cwnd(), cc.w_max()), (80_000, 100.0));
        cc.on_congestion_event(&ev); // no fast convergence: W_max = cwnd = 80
        assert_eq!((cc.cwnd(), cc.w_max()), (64_000, 80.0));
        // K = cbrt(W_max * (1 - beta) / C) (RFC 9438 §4.2 eq. 2 with cwnd_epoch = beta * W_max).
        ack_at(&mut cc, SimTime::ZERO, 1000);
        assert!((cc.k() - libm::cbrt(80.0 * 0.2 / 0.4)).abs() < 1e-9);
        // The Reno-friendly region's alpha for that beta (§4.3): 3 * 0.2 / 1.8 = 1/3.
        assert!((alpha(0.8) - 1.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn rto_resets_to_one_segment_with_beta_ssthresh() {
        let mut cc = Cubic::new(1000, 50_000, CubicOptions::default());
        cc.on_rto(&LossEvent {
            now: SimTime::ZERO,
            flight_size: 50_000,
            hold_ssthresh: false,
        });
        assert_eq!(cc.cwnd(), 1000);
        assert_eq!(cc.ssthresh(), 35_000);
    }
}
