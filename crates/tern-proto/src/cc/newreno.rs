//! Reno congestion control (RFC 5681 §3.1). The NewReno part, fast recovery
//! with partial ACKs (RFC 6582), lives in the recovery strategy.

use super::{
    half_flight, slow_start_increase, AckEvent, CongestionControl, FrtoFallbackEvent, LossEvent,
    SpuriousRtoEvent,
};
use crate::time::SimTime;

/// NewReno's congestion-avoidance growth (RFC 5681 §3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaIncrease {
    /// Byte counting, RFC 5681 §3.1's recommended way (RFC 3465): one SMSS each time a
    /// cwnd's worth of bytes has been acknowledged, however many ACKs carried them.
    #[default]
    ByteCounting,
    /// RFC 5681 §3.1 eq. 3, which a TCP "MAY" use: `cwnd += max(1, SMSS*SMSS/cwnd)` on each
    /// ACK of new data, so delayed ACKs (one per two segments) halve the growth. ns-3's
    /// `TcpNewReno::CongestionAvoidance` (src/internet/model/tcp-congestion-ops.cc, ns-3.44).
    PerAck,
}

/// RFC 5681 slow start and congestion avoidance: by default with appropriate byte
/// counting (RFC 5681 §3.1 / RFC 3465), cwnd growing by one SMSS once a full window of
/// bytes has been acknowledged; or by eq. 3 per ACK ([`CaIncrease`]).
#[derive(Clone, Debug)]
pub struct NewReno {
    smss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// Bytes acknowledged since the last congestion-avoidance increase.
    bytes_acked_ca: u64,
    increase: CaIncrease,
}

impl NewReno {
    /// `ssthresh` starts "arbitrarily high" (RFC 5681 §3.1): `u64::MAX`.
    pub fn new(smss: u32, iw: u64, increase: CaIncrease) -> Self {
        NewReno {
            smss: u64::from(smss),
            cwnd: iw,
            ssthresh: u64::MAX,
            bytes_acked_ca: 0,
            increase,
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
        if self.increase == CaIncrease::PerAck {
            if ev.bytes_acked > 0 {
                self.cwnd += (self.smss * self.smss / self.cwnd).max(1);
            }
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
        let mut cc = NewReno::new(1000, 2000, CaIncrease::ByteCounting);
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

    /// One window of 10 000 B acknowledged by five delayed ACKs of two segments each, in
    /// congestion avoidance from cwnd = 10 SMSS. Byte counting (RFC 3465) adds one SMSS;
    /// RFC 5681 eq. 3 adds SMSS*SMSS/cwnd per ACK, in whole bytes: 1 000 000 / 10 000 = 100,
    /// then / 10 100 = 99, / 10 199 = 98, / 10 297 = 97, / 10 394 = 96, i.e. +490 B, about
    /// half an SMSS (RFC 5681 §3.1 notes eq. 3 under-grows with delayed ACKs).
    #[test]
    fn per_ack_growth_is_eq3_and_halved_by_delayed_acks() {
        let grown = |increase| {
            let mut cc = NewReno::new(1000, 10_000, increase);
            cc.exit_slow_start(SimTime::ZERO);
            for _ in 0..5 {
                cc.on_ack(&ack(2000));
            }
            cc.on_ack(&ack(0)); // acknowledges nothing new: no growth
            cc.cwnd()
        };
        assert_eq!(grown(CaIncrease::ByteCounting), 11_000);
        assert_eq!(grown(CaIncrease::PerAck), 10_490);
    }
}
