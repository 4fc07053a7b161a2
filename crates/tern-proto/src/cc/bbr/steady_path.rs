//! A synthetic path for the BBR tests: each ACK delivers one packet, spaced at the
//! bottleneck rate, and each sample measures that rate over at most one BDP; the sender
//! puts in flight what its pacing rate allows between ACKs, within its window. The RTT is
//! 40 ms for the first second and 45 ms after (a standing queue).

use crate::cc::RateSample;
use crate::time::SimTime;

/// The path's state.
pub(in crate::cc) struct SteadyPath {
    pub now: SimTime,
    pub gap: SimTime,
    rate: u64,
    bdp: u64,
    smss: u64,
    total: u64,
    in_flight: u64,
}

impl SteadyPath {
    /// A path of `rate` bytes/s and a BDP of `bdp` bytes, packets of `smss` bytes.
    pub fn new(rate: u64, bdp: u64, smss: u64) -> Self {
        SteadyPath {
            now: SimTime::ZERO,
            gap: SimTime(smss * 1_000_000_000 / rate),
            rate,
            bdp,
            smss,
            total: 0,
            in_flight: 0,
        }
    }

    /// The next ACK's rate sample.
    pub fn ack(&mut self) -> RateSample {
        self.now += self.gap;
        self.total += self.smss;
        let delivered = self.total.min(self.bdp);
        let prior_in_flight = self.in_flight;
        self.in_flight = self.in_flight.saturating_sub(self.smss);
        let rtt_ms = if self.now < SimTime::from_millis(1000) {
            40
        } else {
            45
        };
        RateSample {
            now: self.now,
            delivered,
            interval: SimTime(delivered * 1_000_000_000 / self.rate),
            rtt: SimTime::from_millis(rtt_ms),
            prior_delivered: self.total - delivered,
            total_delivered: self.total,
            delivered_time: self.now,
            acked_sacked: self.smss,
            prior_in_flight,
            in_flight: self.in_flight,
            pacing_edt: self.now,
            ..RateSample::default()
        }
    }

    /// The sender's transmissions until the next ACK at `pacing_rate`, within `cwnd` bytes.
    pub fn send(&mut self, pacing_rate: u64, cwnd: u64) {
        let sent = pacing_rate * self.gap.0 / 1_000_000_000;
        self.in_flight = (self.in_flight + sent).min(cwnd);
    }
}
