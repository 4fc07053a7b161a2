//! Compound TCP (draft-sridharan-tcpm-ctcp-02, "Compound TCP: A New TCP Congestion Control
//! for High-Speed and Long Distance Networks"; Tan, Song, Zhang and Sridharan, INFOCOM 2006):
//! the congestion control of Windows' TCP from Windows Server 2008 until CUBIC replaced it
//! (Windows 10 1709).
//!
//! The draft's control law, windows in segments:
//! - the send window is `win = min(cwnd + dwnd, awnd)`: a loss-based component `cwnd` (Reno)
//!   plus a delay-based one `dwnd`; the receiver's `awnd` is the transport's business;
//! - `cwnd` grows as Reno's, but by `1/win` per acknowledged segment in congestion avoidance
//!   (so that `win`, not `cwnd`, takes one more segment per round trip from it); slow start
//!   is standard (RFC 5681) and leaves `dwnd` at zero;
//! - once per round trip, with `baseRTT` the smallest RTT seen and `RTT` the smoothed one,
//!   `Expected = win/baseRTT`, `Actual = win/RTT` and `diff = (Expected - Actual)·baseRTT`
//!   (the segments the connection keeps queued in the network). Then
//!   `dwnd += (α·win^k − 1)⁺` if `diff < γ`, else `dwnd = (dwnd − ζ·diff)⁺`;
//! - on a loss, `cwnd = cwnd/2` and `dwnd = (win·(1 − β) − cwnd/2)⁺`, so the window
//!   becomes `win·(1 − β)` (no less than the halved `cwnd`).
//!
//! Parameters: α = 1/8, β = 1/2, k = 3/4 (with which the window grows as HighSpeed TCP's,
//! RFC 3649), ζ = 1, γ = 30 packets. The delay-based component "only kicks in when cwnd is
//! larger than some threshold, currently set to 38 packets assuming 1500 byte MTU" (the
//! draft, p. 11; the same value as RFC 3649's Low_Window), and "dwnd is initialized to zero
//! while the connection is in slow start" (p. 6); the `dwnd` recursion is the draft's
//! equation (3), p. 7. Those three quotations, with their page numbers, are the only parts
//! of draft-sridharan-tcpm-ctcp-02 that could be read where this was written (they are
//! quoted in a comment on the draft to the IRTF ICCRG list, November 2008); the draft's body
//! itself (its section numbers, and the values of α, β, k, ζ, γ) could not be retrieved, so
//! those constants follow the published equations of Tan et al. (INFOCOM 2006, §3) and are
//! not checked against the draft's text. The threshold is applied to `cwnd`, the loss-based
//! component, as the draft words it. What is not modelled: the automatic tuning of γ (TUBE)
//! proposed later; the bookkeeping of which segments' ACKs a round counts (here: a round
//! ends once a window's worth of bytes is acknowledged); Windows' own choices beyond the published ones.
//!
//! Behaviour that matters for a deep queue: as soon as more than γ segments wait in it,
//! `diff ≥ γ` and `dwnd` shrinks to zero within a few rounds; CTCP is then Reno.

use super::{
    bytes_to_segments, half_flight, segments_to_bytes, slow_start_increase, AckEvent,
    CongestionControl, FrtoFallbackEvent, LossEvent, RttSample, SpuriousRtoEvent,
};
use crate::time::SimTime;

/// α: scale of the delay-based increase (draft's control law).
pub const ALPHA: f64 = 1.0 / 8.0;
/// β: multiplicative decrease of `win` on a loss.
pub const BETA: f64 = 0.5;
/// k: exponent of the delay-based increase (3/4: HighSpeed TCP's growth).
pub const K: f64 = 0.75;
/// ζ: how fast `dwnd` gives way once `diff ≥ γ`.
pub const ZETA: f64 = 1.0;
/// γ: segments queued in the network above which CTCP sees early congestion.
pub const GAMMA: f64 = 30.0;
/// low_wnd: `dwnd` grows only while `cwnd` is larger than this (segments); the draft, p. 11:
/// "currently set to 38 packets assuming 1500 byte MTU".
pub const LOW_WND: f64 = 38.0;

/// CTCP state. `cwnd` and `dwnd` are kept in (fractional) segments.
#[derive(Clone, Debug)]
pub struct Ctcp {
    smss: f64,
    /// Loss-based component (segments).
    cwnd: f64,
    /// Delay-based component (segments).
    dwnd: f64,
    /// Slow-start threshold (segments); infinite until the first loss.
    ssthresh: f64,
    /// baseRTT: the smallest RTT sample (seconds).
    base_rtt: Option<f64>,
    /// The smoothed RTT after the latest sample (seconds).
    srtt: Option<f64>,
    /// Segments acknowledged in the current round, and `win` when it began.
    round_acked: f64,
    round_win: f64,
}

impl Ctcp {
    pub fn new(smss: u32, iw: u64) -> Self {
        let smss = f64::from(smss);
        let cwnd = iw as f64 / smss;
        Ctcp {
            smss,
            cwnd,
            dwnd: 0.0,
            ssthresh: f64::INFINITY,
            base_rtt: None,
            srtt: None,
            round_acked: 0.0,
            round_win: cwnd,
        }
    }

    /// `win = cwnd + dwnd` in segments (the receiver's window is applied by the transport).
    pub fn win(&self) -> f64 {
        self.cwnd + self.dwnd
    }

    /// The delay-based component, segments.
    pub fn dwnd(&self) -> f64 {
        self.dwnd
    }

    /// `diff = (win/baseRTT − win/RTT)·baseRTT`, segments; `None` before any RTT sample.
    pub fn diff(&self) -> Option<f64> {
        let (base, rtt) = (self.base_rtt?, self.srtt?);
        Some(self.win() * (1.0 - base / rtt.max(base)))
    }

    /// The once-per-round update of `dwnd`.
    fn end_round(&mut self) {
        if let Some(diff) = self.diff() {
            if diff < GAMMA {
                if self.cwnd > LOW_WND {
                    self.dwnd += (ALPHA * self.win().powf(K) - 1.0).max(0.0);
                }
            } else {
                self.dwnd = (self.dwnd - ZETA * diff).max(0.0);
            }
        }
        self.round_acked = 0.0;
        self.round_win = self.win();
    }

    fn restart_round(&mut self) {
        self.round_acked = 0.0;
        self.round_win = self.win();
    }
}

impl CongestionControl for Ctcp {
    fn cwnd(&self) -> u64 {
        (self.win() * self.smss) as u64
    }

    fn ssthresh(&self) -> u64 {
        segments_to_bytes(self.ssthresh, self.smss)
    }

    fn on_ack(&mut self, ev: &AckEvent) {
        if self.win() < self.ssthresh {
            self.cwnd += slow_start_increase(ev.bytes_acked, self.smss as u64) as f64 / self.smss;
            self.restart_round();
            return;
        }
        let acked = ev.bytes_acked as f64 / self.smss;
        self.cwnd += acked / self.win();
        self.round_acked += acked;
        if self.round_acked >= self.round_win {
            self.end_round();
        }
    }

    /// The draft's loss response: `cwnd/2`, and `dwnd` so that `win` becomes `win·(1 − β)`.
    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        let win = self.win();
        self.cwnd = (self.cwnd / 2.0).max(2.0);
        self.dwnd = (win * (1.0 - BETA) - self.cwnd).max(0.0);
        self.ssthresh = self.win();
        self.restart_round();
    }

    /// A timeout is standard TCP's (RFC 5681 §3.1): ssthresh from the flight, one segment,
    /// and the delay-based component starts over from zero (ssthresh kept on `hold_ssthresh`).
    fn on_rto(&mut self, ev: &LossEvent) {
        if !ev.hold_ssthresh {
            self.ssthresh = half_flight(ev.flight_size, self.smss as u64) as f64 / self.smss;
        }
        self.cwnd = 1.0;
        self.dwnd = 0.0;
        self.restart_round();
    }

    fn on_rtt_sample(&mut self, ev: &RttSample) {
        let rtt = ev.rtt.as_secs_f64();
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        self.srtt = Some(ev.srtt.as_secs_f64());
    }

    fn boxed_clone(&self) -> Box<dyn CongestionControl> {
        Box::new(self.clone())
    }

    /// RFC 4015 §2: the window of the Eifel response, all of it in the loss-based component.
    fn on_spurious_rto(&mut self, ev: &SpuriousRtoEvent) {
        self.cwnd = (ev.cwnd as f64 / self.smss).max(1.0);
        self.dwnd = 0.0;
        self.ssthresh = bytes_to_segments(ev.ssthresh, self.smss);
        self.restart_round();
    }

    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.cwnd = (ev.cwnd as f64 / self.smss).max(1.0);
        self.dwnd = 0.0;
        self.restart_round();
    }

    fn exit_slow_start(&mut self, _now: SimTime) {
        self.ssthresh = self.win();
        self.restart_round();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1000;

    /// A connection in congestion avoidance with `cwnd` segments, RTT samples `base` then
    /// `rtt` (milliseconds; the smoothed RTT is taken to be `rtt`).
    fn in_avoidance(cwnd: u64, base: u64, rtt: u64) -> Ctcp {
        let mut cc = Ctcp::new(SMSS as u32, cwnd * SMSS);
        cc.exit_slow_start(SimTime::ZERO);
        sample(&mut cc, base, base);
        sample(&mut cc, rtt, rtt);
        cc
    }

    fn sample(cc: &mut Ctcp, rtt_ms: u64, srtt_ms: u64) {
        cc.on_rtt_sample(&RttSample {
            now: SimTime::ZERO,
            rtt: SimTime::from_millis(rtt_ms),
            srtt: SimTime::from_millis(srtt_ms),
        });
    }

    fn ack(cc: &mut Ctcp, segments: u64) {
        cc.on_ack(&AckEvent {
            now: SimTime::ZERO,
            bytes_acked: segments * SMSS,
            rtt: None,
            srtt: None,
            in_flight: 0,
        });
    }

    fn loss(flight_segments: u64) -> LossEvent {
        LossEvent {
            now: SimTime::ZERO,
            flight_size: flight_segments * SMSS,
            hold_ssthresh: false,
        }
    }

    fn win(cc: &Ctcp) -> f64 {
        cc.cwnd() as f64 / SMSS as f64
    }

    #[test]
    fn an_empty_path_grows_the_window_by_alpha_win_to_the_k_per_round() {
        // baseRTT = RTT: nothing queued, diff = 0 < γ. One ACK covering the round's 100
        // segments: cwnd += 100/100 = 1, then dwnd += α·101^k − 1 (the draft's increase).
        let mut cc = in_avoidance(100, 10, 10);
        assert_eq!(cc.diff(), Some(0.0));
        ack(&mut cc, 100);
        let expect = 101.0 + (0.125 * 101f64.powf(0.75) - 1.0);
        assert!(
            (win(&cc) - expect).abs() < 1e-2,
            "win {} vs {expect}",
            win(&cc)
        );
        assert!((cc.dwnd() - 2.982).abs() < 1e-3, "dwnd {}", cc.dwnd());
        // Growth per round follows α·win^k: the next round adds α·win^k (1 from cwnd).
        let before = cc.win();
        ack(&mut cc, before.ceil() as u64);
        let grown = cc.win() - before;
        let expect =
            before.ceil() / before + (0.125 * (before + before.ceil() / before).powf(0.75) - 1.0);
        assert!(
            (grown - expect).abs() < 1e-6,
            "grew {grown}, expected {expect}"
        );
    }

    #[test]
    fn below_low_wnd_it_is_reno() {
        // cwnd = 20 ≤ low_wnd = 38 (the draft, p. 11): one segment per round, no delay-based growth.
        let mut cc = in_avoidance(20, 10, 10);
        for _ in 0..5 {
            let w = cc.win().ceil() as u64;
            ack(&mut cc, w);
        }
        assert_eq!(cc.dwnd(), 0.0);
        assert!((win(&cc) - 25.0).abs() < 1e-2, "win {}", win(&cc));
    }

    #[test]
    fn the_delay_window_starts_once_cwnd_exceeds_38() {
        // The draft (p. 11): dwnd only grows while cwnd > 38 packets. From cwnd 37 one round
        // takes cwnd to 38 (not above it): no delay window; the next round, to 39: it grows.
        let mut cc = in_avoidance(37, 10, 10);
        ack(&mut cc, 37);
        assert!((win(&cc) - 38.0).abs() < 1e-2 && cc.dwnd() == 0.0);
        ack(&mut cc, 38);
        assert!(
            (cc.dwnd() - (0.125 * 39f64.powf(0.75) - 1.0)).abs() < 1e-9,
            "{}",
            cc.dwnd()
        );
    }

    #[test]
    fn a_queue_of_gamma_or_more_gives_back_the_delay_window() {
        // Grow dwnd on an empty path (base = RTT = 10 ms) for a few rounds ...
        let mut cc = in_avoidance(200, 10, 10);
        for _ in 0..8 {
            let w = cc.win().ceil() as u64;
            ack(&mut cc, w);
        }
        let dwnd = cc.dwnd();
        assert!(dwnd > 30.0, "dwnd {dwnd}");
        // ... then the queue builds: RTT 12 ms, diff = win·(1 − 10/12) = win/6 ≥ γ = 30.
        sample(&mut cc, 12, 12);
        let diff = cc.diff().unwrap();
        assert!((diff - cc.win() / 6.0).abs() < 1e-9 && diff >= GAMMA);
        let w = cc.win().ceil() as u64;
        let cwnd_before = cc.win() - dwnd;
        ack(&mut cc, w);
        // dwnd = (dwnd − ζ·diff)⁺ with diff taken on the round's final window.
        let cwnd_after = cwnd_before + w as f64 / (cwnd_before + dwnd);
        let diff = (cwnd_after + dwnd) / 6.0;
        let expect = (dwnd - diff).max(0.0);
        assert!(
            (cc.dwnd() - expect).abs() < 1e-2,
            "dwnd {} vs {expect}",
            cc.dwnd()
        );
        // A standing queue of hundreds of segments (RTT 10× base): dwnd is gone and CTCP
        // is Reno, one segment per round.
        sample(&mut cc, 100, 100);
        for _ in 0..3 {
            let w = cc.win().ceil() as u64;
            ack(&mut cc, w);
        }
        assert_eq!(cc.dwnd(), 0.0);
        let before = cc.win();
        ack(&mut cc, before.ceil() as u64);
        assert!((cc.win() - before - before.ceil() / before).abs() < 1e-9);
    }

    #[test]
    fn a_loss_halves_the_whole_window() {
        // win = cwnd + dwnd = 60 + 40 = 100: cwnd → 30, dwnd → 100·(1 − β) − 30 = 20,
        // win → 50 = win·(1 − β).
        let mut cc = in_avoidance(60, 10, 10);
        cc.dwnd = 40.0;
        cc.on_congestion_event(&loss(100));
        assert_eq!((cc.cwnd, cc.dwnd), (30.0, 20.0));
        assert_eq!((cc.cwnd(), cc.ssthresh()), (50 * SMSS, 50 * SMSS));
        // With no delay window, it is Reno's halving.
        let mut cc = in_avoidance(80, 10, 10);
        cc.on_congestion_event(&loss(80));
        assert_eq!((cc.cwnd(), cc.dwnd()), (40 * SMSS, 0.0));
    }

    #[test]
    fn a_timeout_restarts_from_one_segment_without_the_delay_window() {
        let mut cc = in_avoidance(60, 10, 10);
        cc.dwnd = 40.0;
        cc.on_rto(&loss(100));
        assert_eq!(
            (cc.cwnd(), cc.ssthresh(), cc.dwnd()),
            (SMSS, 50 * SMSS, 0.0)
        );
        // Slow start (RFC 5681): one SMSS per ACK, dwnd untouched.
        ack(&mut cc, 1);
        ack(&mut cc, 1);
        assert_eq!((cc.cwnd(), cc.dwnd()), (3 * SMSS, 0.0));
    }
}
