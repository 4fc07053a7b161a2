//! HyStart++ (RFC 9406): the initial slow start of any controller, left early when the
//! round trip grows, through a Conservative Slow Start (CSS) that undoes a false exit.
//!
//! [`HyStartPlusPlus`] wraps a controller and only steers its slow start (§4.2):
//! - Rounds: a round ends with the ACK that covers what was in flight when it began (the
//!   RFC's `windowEnd = SND.NXT`, counted in bytes as the controller sees them); that
//!   ACK's RTT sample is the next round's first.
//! - Each round keeps the smallest RTT sample of its ACKs (`currentRoundMinRTT`).
//! - Slow start: growth is the controller's own (RFC 5681's `min(N, SMSS)` per ACK, which
//!   is within the RFC's `L` limit). After `N_RTT_SAMPLE` samples of a round, an increase
//!   of `RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)` over the last round's
//!   minimum leaves slow start for CSS, with that round's minimum as `cssBaselineMinRtt`.
//! - CSS: slow start's growth divided by `CSS_GROWTH_DIVISOR` (4): `min(N, SMSS) / 4`
//!   per ACK. A round whose minimum falls back
//!   below the baseline resumes slow start (the exit was a false positive); after
//!   `CSS_ROUNDS` (5) rounds the controller enters congestion avoidance at the current
//!   window ([`CongestionControl::exit_slow_start`]).
//! - A loss, or a retransmission timeout, ends HyStart++: the controller reacts as
//!   usual, and every later slow start is the standard one (§4.2: HyStart++ is for the
//!   initial slow start, when ssthresh is still "arbitrarily high").

use super::{
    slow_start_increase, AckEvent, AppLimitedEvent, CongestionControl, FrtoFallbackEvent,
    LossEvent, LostPacket, RateSample, RttSample, SpuriousRtoEvent,
};
use crate::time::SimTime;

/// MIN_RTT_THRESH (RFC 9406 §4.3).
pub const MIN_RTT_THRESH: SimTime = SimTime::from_millis(4);
/// MAX_RTT_THRESH (§4.3).
pub const MAX_RTT_THRESH: SimTime = SimTime::from_millis(16);
/// MIN_RTT_DIVISOR (§4.3).
pub const MIN_RTT_DIVISOR: u64 = 8;
/// N_RTT_SAMPLE (§4.3): RTT samples a round needs before it is compared.
pub const N_RTT_SAMPLE: u32 = 8;
/// CSS_GROWTH_DIVISOR (§4.3).
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// CSS_ROUNDS (§4.3).
pub const CSS_ROUNDS: u32 = 5;

/// Where the initial slow start is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Standard slow start, watching the round trip.
    SlowStart,
    /// Conservative Slow Start: `rounds` rounds done since the RTT rose to `baseline`.
    Css { baseline: SimTime, rounds: u32 },
    /// Left: congestion avoidance, or any state after a loss.
    Done,
}

/// A controller whose initial slow start follows HyStart++ (RFC 9406).
#[derive(Debug)]
pub struct HyStartPlusPlus {
    inner: Box<dyn CongestionControl>,
    smss: u64,
    phase: Phase,
    /// `lastRoundMinRTT` and `currentRoundMinRTT` (None: infinity).
    last_round_min: Option<SimTime>,
    round_min: Option<SimTime>,
    /// `rttSampleCount` of the current round.
    samples: u32,
    /// Bytes still to be acknowledged before the round ends (None before the first ACK).
    round_left: Option<u64>,
}

impl HyStartPlusPlus {
    /// `inner`'s initial slow start under HyStart++, for sender MSS `smss`.
    pub fn new(inner: Box<dyn CongestionControl>, smss: u32) -> Self {
        HyStartPlusPlus {
            inner,
            smss: u64::from(smss),
            phase: Phase::SlowStart,
            last_round_min: None,
            round_min: None,
            samples: 0,
            round_left: None,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Counts `ev`'s bytes against the round; true when a new round begins with it.
    fn next_round(&mut self, ev: &AckEvent) -> bool {
        let ended = self.round_left.is_none_or(|left| ev.bytes_acked >= left);
        if ended {
            self.last_round_min = self.round_min.take();
            self.samples = 0;
            self.round_left = Some(ev.in_flight.saturating_sub(ev.bytes_acked));
        } else if let Some(left) = &mut self.round_left {
            *left -= ev.bytes_acked;
        }
        ended
    }

    /// Whether the current round has enough samples to be compared with a known last round.
    fn comparable(&self) -> Option<(SimTime, SimTime)> {
        if self.samples < N_RTT_SAMPLE {
            return None;
        }
        Some((self.round_min?, self.last_round_min?))
    }
}

/// `RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))`.
pub fn rtt_thresh(last_round_min: SimTime) -> SimTime {
    SimTime(last_round_min.0 / MIN_RTT_DIVISOR).clamp(MIN_RTT_THRESH, MAX_RTT_THRESH)
}

impl CongestionControl for HyStartPlusPlus {
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }

    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if self.phase == Phase::Done || self.inner.cwnd() >= self.inner.ssthresh() {
            self.phase = Phase::Done;
            return self.inner.on_ack(ev);
        }
        if self.next_round(ev) {
            if let Phase::Css { rounds, .. } = &mut self.phase {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    self.phase = Phase::Done;
                    self.inner.exit_slow_start(ev.now);
                    return self.inner.on_ack(ev);
                }
            }
        }
        if let Some(rtt) = ev.rtt {
            self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
            self.samples += 1;
        }
        match self.phase {
            Phase::SlowStart => {
                self.inner.on_ack(ev);
                if let Some((now_min, last_min)) = self.comparable() {
                    if now_min >= last_min + rtt_thresh(last_min) {
                        self.phase = Phase::Css {
                            baseline: now_min,
                            rounds: 0,
                        };
                    }
                }
            }
            Phase::Css { baseline, .. } => {
                if self
                    .comparable()
                    .is_some_and(|(now_min, _)| now_min < baseline)
                {
                    // A false exit: the round trip came back down.
                    self.phase = Phase::SlowStart;
                    self.inner.on_ack(ev);
                } else {
                    // The controller's slow start adds min(N, SMSS); a quarter of that.
                    let grow = slow_start_increase(ev.bytes_acked, self.smss) / CSS_GROWTH_DIVISOR;
                    self.inner.on_ack(&AckEvent {
                        bytes_acked: grow,
                        ..*ev
                    });
                }
            }
            Phase::Done => unreachable!("handled above"),
        }
    }

    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.phase = Phase::Done;
        self.inner.on_congestion_event(ev);
    }

    fn on_rto(&mut self, ev: &LossEvent) {
        self.phase = Phase::Done;
        self.inner.on_rto(ev);
    }

    fn on_rtt_sample(&mut self, ev: &RttSample) {
        self.inner.on_rtt_sample(ev);
    }

    fn on_rate_sample(&mut self, ev: &RateSample) {
        self.inner.on_rate_sample(ev);
    }

    fn on_packet_lost(&mut self, ev: &LostPacket) {
        self.inner.on_packet_lost(ev);
    }

    fn wants_rate_samples(&self) -> bool {
        self.inner.wants_rate_samples()
    }

    fn pacing_rate(&self) -> Option<u64> {
        self.inner.pacing_rate()
    }

    fn needs_pacing(&self) -> bool {
        self.inner.needs_pacing()
    }

    fn holds_app_limited(&self) -> bool {
        self.inner.holds_app_limited()
    }

    fn on_tx_start(&mut self, now: SimTime, app_limited: bool) {
        self.inner.on_tx_start(now, app_limited);
    }

    fn reseed(&mut self, seed: u64) {
        self.inner.reseed(seed);
    }

    fn on_app_limited(&mut self, ev: &AppLimitedEvent) {
        self.inner.on_app_limited(ev);
    }

    fn exit_slow_start(&mut self, now: SimTime) {
        self.phase = Phase::Done;
        self.inner.exit_slow_start(now);
    }

    fn boxed_clone(&self) -> Box<dyn CongestionControl> {
        Box::new(HyStartPlusPlus {
            inner: self.inner.boxed_clone(),
            ..*self
        })
    }

    fn on_spurious_rto(&mut self, ev: &SpuriousRtoEvent) {
        self.inner.on_spurious_rto(ev);
    }

    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.inner.on_frto_fallback(ev);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::NewReno;

    const SMSS: u64 = 1000;
    const IW: u64 = 10 * SMSS;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// A sender that keeps cwnd in flight, and receives one ACK per segment in order.
    struct Sender {
        cc: HyStartPlusPlus,
        una: u64,
        nxt: u64,
        now: SimTime,
        acks: u32,
        /// The RFC's rounds, kept here independently (in bytes): `windowEnd` and how many
        /// rounds have begun.
        window_end: u64,
        rounds: u32,
    }

    impl Sender {
        fn new() -> Self {
            Sender {
                cc: HyStartPlusPlus::new(
                    Box::new(NewReno::new(
                        SMSS as u32,
                        IW,
                        crate::cc::CaIncrease::ByteCounting,
                    )),
                    SMSS as u32,
                ),
                una: 0,
                nxt: IW,
                now: SimTime::ZERO,
                acks: 0,
                window_end: 0,
                rounds: 0,
            }
        }

        /// The next segment's ACK, with RTT sample `rtt`.
        fn ack(&mut self, rtt: SimTime) {
            self.now += ms(1);
            self.acks += 1;
            if self.una + SMSS >= self.window_end {
                // §4.2: the ACK of windowEnd ends a round; windowEnd = SND.NXT. Its RTT
                // sample is the new round's first.
                self.window_end = self.nxt;
                self.rounds += 1;
            }
            self.cc.on_ack(&AckEvent {
                now: self.now,
                bytes_acked: SMSS,
                rtt: Some(rtt),
                srtt: Some(rtt),
                in_flight: self.nxt - self.una,
            });
            self.una += SMSS;
            self.nxt = self.nxt.max(self.una + self.cc.cwnd());
        }
    }

    #[test]
    fn rtt_thresh_is_an_eighth_clamped_to_4_and_16_ms() {
        assert_eq!(rtt_thresh(ms(20)), ms(4)); // 2.5 ms -> 4
        assert_eq!(rtt_thresh(ms(80)), ms(10));
        assert_eq!(rtt_thresh(ms(400)), ms(16)); // 50 ms -> 16
    }

    #[test]
    fn a_steady_round_trip_is_standard_slow_start() {
        let mut s = Sender::new();
        for _ in 0..300 {
            s.ack(ms(100));
        }
        // RFC 5681: one SMSS per ACK of a full segment.
        assert_eq!(s.cc.cwnd(), IW + 300 * SMSS);
        assert_eq!(s.cc.phase(), Phase::SlowStart);
    }

    /// RTT 100 ms, then `high` from the third round on (ACK 28: rounds begin at the ACKs
    /// 1, 10, 28, 64 while each ACK adds a segment and sends two).
    fn rise_to(high: SimTime) -> Sender {
        let mut s = Sender::new();
        while s.acks < 27 {
            s.ack(ms(100));
        }
        assert_eq!(s.rounds, 2);
        s.ack(high);
        assert_eq!(s.rounds, 3);
        for _ in 0..7 {
            s.ack(high);
        }
        s
    }

    #[test]
    fn a_rise_of_rtt_thresh_enters_css_at_the_rounds_eighth_sample() {
        // RttThresh of 100 ms is 12.5 ms.
        let mut s = rise_to(ms(112));
        assert_eq!(s.cc.phase(), Phase::SlowStart);
        s.ack(ms(112));
        assert_eq!(s.cc.phase(), Phase::SlowStart);
        let s = rise_to(SimTime::from_micros(112_500));
        assert_eq!(
            s.cc.phase(),
            Phase::Css {
                baseline: SimTime::from_micros(112_500),
                rounds: 0
            }
        );
        // Slow start's growth up to and with the 8th sample (ACK 35).
        assert_eq!(s.cc.cwnd(), IW + 35 * SMSS);
    }

    #[test]
    fn css_grows_a_quarter_for_five_rounds_then_avoidance_begins() {
        let mut s = rise_to(ms(120));
        let entered = s.rounds;
        let before = s.cc.cwnd();
        s.ack(ms(120));
        assert_eq!(s.cc.cwnd(), before + SMSS / CSS_GROWTH_DIVISOR);
        // An ACK of two segments (delayed ACKs) grows slow start by min(N, SMSS) = one
        // SMSS, so CSS by a quarter of that too.
        let mut other = rise_to(ms(120));
        let before = other.cc.cwnd();
        other.cc.on_ack(&AckEvent {
            now: other.now,
            bytes_acked: 2 * SMSS,
            rtt: Some(ms(120)),
            srtt: Some(ms(120)),
            in_flight: 50 * SMSS,
        });
        assert_eq!(other.cc.cwnd(), before + SMSS / CSS_GROWTH_DIVISOR);
        while s.rounds < entered + CSS_ROUNDS {
            assert!(matches!(s.cc.phase(), Phase::Css { .. }), "ACK {}", s.acks);
            s.ack(ms(120));
        }
        // The ACK that began the fifth round after CSS began ended it.
        assert_eq!(s.cc.phase(), Phase::Done);
        let at_exit = s.cc.ssthresh();
        assert!(at_exit <= s.cc.cwnd() && s.cc.cwnd() < at_exit + SMSS);
        // Congestion avoidance (RFC 5681 §3.1): about one SMSS per window of ACKs.
        let cwnd = s.cc.cwnd();
        for _ in 0..cwnd / SMSS {
            s.ack(ms(120));
        }
        assert!(
            s.cc.cwnd() - cwnd <= SMSS + SMSS / 10,
            "{}",
            s.cc.cwnd() - cwnd
        );
    }

    #[test]
    fn a_round_trip_that_falls_back_below_the_baseline_resumes_slow_start() {
        let mut s = rise_to(ms(120));
        assert!(matches!(s.cc.phase(), Phase::Css { .. }));
        let round = s.rounds;
        while s.rounds == round {
            s.ack(ms(120));
        }
        // The next round (its first sample was 120 ms): at its 8th sample its minimum is
        // below the 120 ms baseline, and slow start resumes.
        for _ in 0..6 {
            s.ack(ms(119));
        }
        assert!(matches!(s.cc.phase(), Phase::Css { .. }));
        let cwnd = s.cc.cwnd();
        s.ack(ms(119));
        assert_eq!(s.cc.phase(), Phase::SlowStart);
        assert_eq!(s.cc.cwnd(), cwnd + SMSS);
    }

    #[test]
    fn a_loss_ends_hystart_and_the_controller_reacts_as_usual() {
        let mut s = Sender::new();
        s.ack(ms(100));
        s.cc.on_congestion_event(&LossEvent {
            now: s.now,
            flight_size: 20 * SMSS,
            hold_ssthresh: false,
        });
        assert_eq!(s.cc.phase(), Phase::Done);
        // NewReno: ssthresh = FlightSize / 2 (RFC 5681 eq. 4), cwnd = ssthresh.
        assert_eq!((s.cc.cwnd(), s.cc.ssthresh()), (10 * SMSS, 10 * SMSS));
    }
}
