//! RTT estimation and retransmission timeout (RFC 6298).

use crate::time::SimTime;

/// SRTT/RTTVAR estimator and RTO with exponential back-off (RFC 6298 §2, §5).
#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimTime>,
    rttvar: SimTime,
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
            rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity: g,
        }
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
