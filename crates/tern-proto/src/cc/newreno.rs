//! Reno congestion control (RFC 5681 §3.1). The NewReno part, fast recovery
//! with partial ACKs (RFC 6582), lives in the recovery strategy.

use super::{
    half_flight, slow_start_increase, AckEvent, CongestionControl, FrtoFallbackEvent, LossEvent,
    SpuriousRtoEvent,
};
use crate::time::SimTime;

/// RFC 5681 slow start and congestion avoidance with appropriate byte
/// counting (RFC 5681 §3.1 / RFC 3465): in congestion avoidance cwnd grows
/// by one SMSS once a full window of bytes has been acknowledged.
#[derive(Clone, Debug)]
pub struct NewReno {
    smss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last congestion-avoidance increase.
    bytes_acked_ca: u64,
}

impl NewReno {
    /// `ssthresh` starts "arbitrarily high" (RFC 5681 §3.1): `u64::MAX`.
    pub fn new(smss: u32, iw: u64) -> Self {
        NewReno {
            smss: u64::from(smss),
            cwnd: iw,
            ssthresh: u64::MAX,
            bytes_acked_ca: 0,
        }
    }
}

impl CongestionControl for NewReno {
    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if self.cwnd < self.ssthresh {
            self.cwnd += slow_start_increase(ev.bytes_acked, self.smss);
            return;
        }
        self.bytes_acked_ca += ev.bytes_acked;
        if self.bytes_acked_ca >= self.cwnd {
            self.bytes_acked_ca -= self.cwnd;
            self.cwnd += self.smss;
        }
    }

    /// RFC 5681 §3.2 step 2: `ssthresh = max(FlightSize/2, 2*SMSS)`; the
    /// window used during recovery is `ssthresh` plus the recovery
    /// strategy's inflation (step 3).
    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.ssthresh = half_flight(ev.flight_size, self.smss);
        self.cwnd = self.ssthresh;
        self.bytes_acked_ca = 0;
    }

    /// RFC 5681 §3.1 eq. 4 (unless `hold_ssthresh`) and the loss window: `cwnd = 1 SMSS`.
    fn on_rto(&mut self, ev: &LossEvent) {
        if !ev.hold_ssthresh {
            self.ssthresh = half_flight(ev.flight_size, self.smss);
        }
        self.cwnd = self.smss;
        self.bytes_acked_ca = 0;
    }

    fn boxed_clone(&self) -> Box<dyn CongestionControl> {
        Box::new(self.clone())
    }

    /// RFC 4015 §2: cwnd and ssthresh as computed by the Eifel response.
    fn on_spurious_rto(&mut self, ev: &SpuriousRtoEvent) {
        self.cwnd = ev.cwnd.max(self.smss);
        self.ssthresh = ev.ssthresh;
        self.bytes_acked_ca = 0;
    }

    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.cwnd = ev.cwnd.max(self.smss);
    }

    fn exit_slow_start(&mut self, _now: SimTime) {
        self.ssthresh = self.cwnd;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn ack(bytes: u64) -> AckEvent {
        AckEvent {
            now: SimTime::ZERO,
            bytes_acked: bytes,
            rtt: None,
            srtt: None,
            in_flight: 0,
        }
    }

    #[test]
    fn slow_start_then_avoidance() {
        let mut cc = NewReno::new(1000, 2000);
        cc.on_ack(&ack(1000));
        cc.on_ack(&ack(3000)); // at most one SMSS per ACK
        assert_eq!(cc.cwnd(), 4000);
        cc.on_congestion_event(&LossEvent {
            now: SimTime::ZERO,
            flight_size: 8000,
            hold_ssthresh: false,
        });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (4000, 4000));
        for _ in 0..3 {
            cc.on_ack(&ack(1000));
        }
        assert_eq!(cc.cwnd(), 4000);
        cc.on_ack(&ack(1000)); // a full window acked: +1 SMSS
        assert_eq!(cc.cwnd(), 5000);
        cc.on_rto(&LossEvent {
            now: SimTime::ZERO,
            flight_size: 3000,
            hold_ssthresh: false,
        });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (1000, 2000));
    }
}
