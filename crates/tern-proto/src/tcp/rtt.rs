//! RTT estimation and retransmission timeout (RFC 6298, or Linux's rule).

use super::config::{Config, RtoRule};
use crate::time::SimTime;

/// SRTT/RTTVAR estimator and RTO with exponential back-off (RFC 6298 §2, §5).
///
/// With [`RtoRule::Linux`] the estimator is Linux's (`tcp_rtt_estimator` in
/// net/ipv4/tcp_input.c, `__tcp_set_rto` in include/net/tcp.h), after Jacobson's SIGCOMM
/// '88 code: SRTT as RFC 6298; `mdev` = 3/4·mdev + |R − SRTT| (four mean deviations),
/// with a gain of 1/32 instead of 1/4 for a sample below SRTT; RTTVAR rises at once to
/// the largest `mdev` of the round trip and decays once per round trip by a quarter of its
/// excess over that maximum, which starts every round at `min_rto`; so RTTVAR ≥ `min_rto`
/// and RTO = SRTT + RTTVAR. The first sample R gives SRTT = R, mdev = 2R and RTTVAR =
/// max(2R, `min_rto`). Linux rounds the RTO to its clock tick (jiffies); Tern keeps
/// nanoseconds.
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimTime>,
    rttvar: SimTime,
    rule: RtoRule,
    /// Linux: `mdev` (four mean deviations), its largest value this round trip, and the
    /// send offset whose acknowledgment ends the round trip (`rtt_seq`).
    mdev: SimTime,
    mdev_max: SimTime,
    rtt_seq: u64,
    /// Base RTO before back-off, already clamped to `[min_rto, max_rto]`.
    rto: SimTime,
    /// Number of consecutive expiries (RFC 6298 §5.5 doublings).
    backoff: u32,
    min_rto: SimTime,
    max_rto: SimTime,
    granularity: SimTime,
}

impl RttEstimator {
    pub fn new(initial_rto: SimTime, min_rto: SimTime, max_rto: SimTime, g: SimTime) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: SimTime::ZERO,
            rule: RtoRule::Rfc6298,
            mdev: SimTime::ZERO,
            mdev_max: SimTime::ZERO,
            rtt_seq: 0,
            rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity: g,
        }
    }

    /// The estimator of a connection configured by `cfg`.
    pub fn of(cfg: &Config) -> Self {
        RttEstimator {
            rule: cfg.rto_rule,
            ..RttEstimator::new(
                cfg.initial_rto,
                cfg.min_rto,
                cfg.max_rto,
                cfg.clock_granularity,
            )
        }
    }

    /// Feeds one measurement R taken when the acknowledged send offset is `una` and the
    /// next to send `nxt` (Linux's rule ends a round trip when `una` passes the `nxt` of
    /// its start; RFC 6298 needs neither).
    pub fn on_sample_at(&mut self, r: SimTime, una: u64, nxt: u64) {
        match self.rule {
            RtoRule::Rfc6298 => self.on_sample(r),
            RtoRule::Linux => self.on_sample_linux(r, una, nxt),
        }
    }

    /// Linux's `tcp_rtt_estimator` and `__tcp_set_rto` (see the type's documentation).
    fn on_sample_linux(&mut self, r: SimTime, una: u64, nxt: u64) {
        let min = self.min_rto;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.mdev = r.saturating_mul(2);
                self.rttvar = self.mdev.max(min);
                self.mdev_max = self.rttvar;
                self.rtt_seq = nxt;
            }
            Some(srtt) => {
                let err = i128::from(r.0) - i128::from(srtt.0);
                self.srtt = Some(SimTime((i128::from(srtt.0) + err / 8) as u64));
                let quarter = i128::from(self.mdev.0 / 4);
                let step = if err < 0 {
                    // A sample below SRTT moves mdev with gain 1/4 · 1/8 when it raises it.
                    let up = -err - quarter;
                    if up > 0 {
                        up / 8
                    } else {
                        up
                    }
                } else {
                    err - quarter
                };
                self.mdev = SimTime((i128::from(self.mdev.0) + step).max(0) as u64);
                if self.mdev > self.mdev_max {
                    self.mdev_max = self.mdev;
                    self.rttvar = self.rttvar.max(self.mdev_max);
                }
                if una > self.rtt_seq {
                    // A round trip ended: RTTVAR decays toward its largest mdev.
                    if self.mdev_max < self.rttvar {
                        self.rttvar = self.rttvar - SimTime((self.rttvar - self.mdev_max).0 / 4);
                    }
                    self.rtt_seq = nxt;
                    self.mdev_max = min;
                }
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = (srtt + self.rttvar).min(self.max_rto);
        self.backoff = 0;
    }

    /// Feeds one measurement R (RFC 6298 §2.2/§2.3, alpha = 1/8, beta = 1/4,
    /// K = 4) and clears the back-off: a valid sample means the path answers
    /// again (Karn's algorithm keeps the backed-off RTO until then).
    pub fn on_sample(&mut self, r: SimTime) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimTime(r.0 / 2);
            }
            Some(srtt) => {
                let err = srtt.0.abs_diff(r.0);
                self.rttvar = SimTime((3 * self.rttvar.0 + err) / 4);
                self.srtt = Some(SimTime((7 * srtt.0 + r.0) / 8));
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        let rto = srtt + self.granularity.max(self.rttvar.saturating_mul(4));
        // RFC 6298 §2.4 (minimum) and §2.5 (maximum).
        self.rto = rto.max(self.min_rto).min(self.max_rto);
        self.backoff = 0;
    }

    /// Timer expiry: double the RTO, capped at `max_rto` (RFC 6298 §5.5).
    pub fn on_expiry(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }

    /// RFC 6298 §5.7: after a SYN timeout, start data transfer with an RTO of
    /// at least 3 s.
    pub fn reinit_after_syn_timeout(&mut self) {
        self.rto = self.rto.max(SimTime::from_secs(3)).min(self.max_rto);
        self.backoff = 0;
    }

    /// RTO re-initialisation of the Eifel response after a spurious timeout
    /// (RFC 4015 §2), applied to the first RTT sample `m` taken for data
    /// sent after the timeout:
    /// `SRTT <- max(SRTT_prev, m)`, `RTTVAR <- max(RTTVAR_prev, m/2)`,
    /// `RTO <- SRTT + max(G, 4*RTTVAR)`, where `SRTT_prev = SRTT + 2*G` and
    /// `RTTVAR_prev = RTTVAR` were saved when the timeout fired. Clears the
    /// back-off like any valid sample.
    pub fn restart_after_spurious_rto(
        &mut self,
        srtt_prev: SimTime,
        rttvar_prev: SimTime,
        m: SimTime,
    ) {
        let srtt = srtt_prev.max(m);
        self.srtt = Some(srtt);
        self.rttvar = rttvar_prev.max(SimTime(m.0 / 2));
        let rto = srtt + self.granularity.max(self.rttvar.saturating_mul(4));
        self.rto = rto.max(self.min_rto).min(self.max_rto);
        self.backoff = 0;
    }

    /// Forgets the exponential back-off without an RTT sample, so that
    /// [`rto`](Self::rto) is the base RTO again. Not part of RFC 6298 (whose
    /// back-off lasts until a valid sample, §5.5 and Karn's algorithm):
    /// used by the response to a restored lower-layer connectivity
    /// indication (draft-schuetz-tcpm-tcp-rlci), where the timeouts were
    /// caused by the outage, not by congestion.
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
    }

    /// The granularity G of RFC 6298 §2.
    pub fn granularity(&self) -> SimTime {
        self.granularity
    }

    /// Current (backed-off) RTO.
    pub fn rto(&self) -> SimTime {
        let factor = 1u64.checked_shl(self.backoff.min(63)).unwrap_or(u64::MAX);
        self.rto.saturating_mul(factor).min(self.max_rto)
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    pub fn srtt(&self) -> Option<SimTime> {
        self.srtt
    }

    pub fn rttvar(&self) -> SimTime {
        self.rttvar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(
            SimTime::from_secs(1),
            SimTime::from_millis(200),
            SimTime::from_secs(60),
            SimTime::from_millis(1),
        )
    }

    #[test]
    fn first_and_second_sample() {
        let mut e = est();
        e.on_sample(SimTime::from_millis(100));
        assert_eq!(e.srtt(), Some(SimTime::from_millis(100)));
        assert_eq!(e.rttvar(), SimTime::from_millis(50));
        // 100 + 4*50 = 300 ms.
        assert_eq!(e.rto(), SimTime::from_millis(300));
        e.on_sample(SimTime::from_millis(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5.
        assert_eq!(e.rttvar(), SimTime::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimTime::from_micros(112_500)));
        assert_eq!(e.rto(), SimTime::from_micros(362_500));
    }

    #[test]
    fn eifel_rto_restart() {
        let mut e = est();
        e.on_sample(SimTime::from_millis(100));
        e.on_expiry();
        // Saved at the timeout: SRTT_prev = 100 + 2*1 ms, RTTVAR_prev = 50 ms.
        // First sample after the spurious timeout: 1.4 s.
        e.restart_after_spurious_rto(
            SimTime::from_millis(102),
            SimTime::from_millis(50),
            SimTime::from_millis(1400),
        );
        assert_eq!(e.srtt(), Some(SimTime::from_millis(1400)));
        assert_eq!(e.rttvar(), SimTime::from_millis(700));
        // 1400 + 4*700 = 4200 ms, back-off cleared.
        assert_eq!(e.rto(), SimTime::from_millis(4200));
        // A sample below SRTT_prev keeps the saved, more conservative values.
        e.restart_after_spurious_rto(
            SimTime::from_millis(102),
            SimTime::from_millis(50),
            SimTime::from_millis(60),
        );
        assert_eq!(e.srtt(), Some(SimTime::from_millis(102)));
        assert_eq!(e.rttvar(), SimTime::from_millis(50));
        assert_eq!(e.rto(), SimTime::from_millis(302));
    }

    fn linux() -> RttEstimator {
        RttEstimator {
            rule: RtoRule::Linux,
            ..est()
        }
    }

    #[test]
    fn linux_rule_adds_the_minimum_to_srtt() {
        // Worked by hand from tcp_rtt_estimator / __tcp_set_rto with rto_min 200 ms.
        let ms = SimTime::from_millis;
        let mut e = linux();
        // First 40 ms sample: mdev 80, RTTVAR max(80, 200) = 200, RTO 40 + 200.
        e.on_sample_at(ms(40), 1, 10);
        assert_eq!(e.rto(), ms(240));
        // RFC 6298 would give max(200, 40 + 4·20) = 200 ms.
        let mut rfc = est();
        rfc.on_sample(ms(40));
        assert_eq!(rfc.rto(), ms(200));
        // Steady 40 ms: mdev decays (60, 45, ...), RTTVAR stays at the 200 ms floor.
        for k in 0..20 {
            e.on_sample_at(ms(40), 10 + 10 * k, 20 + 10 * k);
            assert_eq!(e.rto(), ms(240));
        }
        assert_eq!(e.rttvar(), ms(200));
        // A 440 ms sample: SRTT 40 + 400/8 = 90; mdev = 3/4·mdev + 400 > 200 raises
        // RTTVAR at once: RTO = 90 + RTTVAR, above 490 ms.
        let before = e.mdev;
        e.on_sample_at(ms(440), 500, 600);
        assert_eq!(e.srtt(), Some(ms(90)));
        let mdev = SimTime(before.0 - before.0 / 4) + ms(400);
        assert_eq!(e.rttvar(), mdev);
        assert_eq!(e.rto(), ms(90) + mdev);
        // Later samples at 90 ms, each ending a round trip (SND.UNA past the SND.NXT of
        // the round's start): RTTVAR decays by a quarter of its excess over the round's
        // largest mdev (at least 200 ms) and settles at 200 ms (to the 4 ns the integer
        // quarter leaves).
        let mut last = e.rttvar();
        for k in 0..100u64 {
            e.on_sample_at(ms(90), 601 + 100 * k, 700 + 100 * k);
            assert!(e.rttvar() <= last && e.rttvar() >= ms(200));
            last = e.rttvar();
        }
        assert!(e.rttvar() - ms(200) < SimTime(4), "{:?}", e.rttvar());
        assert_eq!(e.rto(), ms(90) + e.rttvar());
    }

    #[test]
    fn min_rto_and_backoff_cap() {
        let mut e = est();
        e.on_sample(SimTime::from_millis(10));
        assert_eq!(e.rto(), SimTime::from_millis(200));
        let mut seen = vec![];
        for _ in 0..12 {
            e.on_expiry();
            seen.push(e.rto().0 / 1_000_000);
        }
        assert_eq!(
            seen,
            vec![400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000, 60000, 60000]
        );
    }
}
