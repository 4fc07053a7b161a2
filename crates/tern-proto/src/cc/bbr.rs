//! BBR v1 as Linux's net/ipv4/tcp_bbr.c (mainline; Cardwell et al., "BBR: Congestion-Based
//! Congestion Control", ACM Queue 14(5), 2016): a model of the path — the windowed maximum
//! delivery rate over 10 round trips and the minimum RTT over 10 s — sets the pacing rate
//! (`pacing_gain · bw`) and the window (`cwnd_gain · bw · min_rtt`), through the modes
//! STARTUP, DRAIN, PROBE_BW (an eight-phase gain cycle) and PROBE_RTT. Each method names
//! the kernel function it follows.
//!
//! Units: the kernel counts windows in packets and rates in packets per µs; here windows
//! are kept in packets of `smss` bytes as the kernel's (`cwnd()` reports bytes) and rates in
//! bytes per second, with the transport's byte counts turned into packets by rounding up.
//! Time is exact (nanoseconds) where the kernel has jiffies or µs. Not modelled: TSO (Tern
//! sends one segment at a time; the cwnd budget for it, `bbr_quantization_budget`, is kept
//! as the kernel computes it), `is_ack_delayed`, `sk_max_pacing_rate` (unlimited).

use super::minmax::MaxFilter;
use super::{
    AckEvent, CongestionControl, FrtoFallbackEvent, LossEvent, RateSample, RttSample,
    SpuriousRtoEvent,
};
use crate::time::SimTime;
use aggregation::AckAggregation;
use probe_rtt::ProbeRttHold;

/// Fixed-point unit of gains (`BBR_UNIT`, 1 << `BBR_SCALE`).
pub(super) const UNIT: u64 = 256;
/// STARTUP's gains, 2/ln 2 (`bbr_high_gain`).
const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1;
/// DRAIN's pacing gain, its inverse (`bbr_drain_gain`).
const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
/// PROBE_BW's cwnd gain (`bbr_cwnd_gain`).
const CWND_GAIN: u64 = UNIT * 2;
/// PROBE_BW's pacing-gain cycle (`bbr_pacing_gain`).
const PACING_GAIN: [u64; 8] = [
    UNIT * 5 / 4,
    UNIT * 3 / 4,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
];
/// The first phase is drawn among this many (`bbr_cycle_rand`).
const CYCLE_RAND: u64 = 7;
/// Window of the bandwidth filter in rounds (`bbr_bw_rtts`).
const BW_RTTS: u64 = 10;
/// Window of the min-RTT filter (`bbr_min_rtt_win_sec`).
const MIN_RTT_WIN: SimTime = SimTime(10_000_000_000);
/// Time spent at the minimum window in PROBE_RTT (`bbr_probe_rtt_mode_ms`; v3's too).
pub(super) const PROBE_RTT_TIME: SimTime = SimTime(200_000_000);
/// Below this pacing rate, one segment per TSO burst (`bbr_min_tso_rate`, bit/s).
const MIN_TSO_RATE: u64 = 1_200_000;
/// Pacing margin, percent (`bbr_pacing_margin_percent`).
const PACING_MARGIN: u64 = 1;
/// Minimum window target, packets (`bbr_cwnd_min_target`).
const CWND_MIN_TARGET: u64 = 4;
/// STARTUP's growth threshold and patience (`bbr_full_bw_thresh`, `bbr_full_bw_cnt`).
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// Long-term sampling (`bbr_lt_intvl_min_rtts`, `bbr_lt_loss_thresh`, `bbr_lt_bw_ratio`,
/// `bbr_lt_bw_diff` in bytes/s, `bbr_lt_bw_max_rtts`).
const LT_INTVL_MIN_RTTS: u32 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
/// Window of the ACK-aggregation filter in rounds (`bbr_extra_acked_win_rtts`).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// The initial window in packets (`TCP_INIT_CWND`).
const INIT_CWND: u64 = 10;
/// `GSO_MAX_SIZE − 1 − MAX_TCP_HEADER` (65 536 − 1 − 320 on x86-64).
const GSO_BUDGET: u64 = 65_536 - 1 - 320;

/// BBR's modes (`enum bbr_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Linux's congestion-avoidance states that BBR tells apart (`icsk_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum CaState {
    Open,
    Recovery,
    Loss,
}

impl CaState {
    /// The state the transport reports with a rate sample.
    pub(super) fn of(rs: &RateSample) -> Self {
        if rs.in_loss {
            CaState::Loss
        } else if rs.in_recovery {
            CaState::Recovery
        } else {
            CaState::Open
        }
    }
}

/// The BBR control block (`struct bbr`).
#[derive(Clone, Debug)]
pub struct Bbr {
    smss: u64,
    /// The window in packets (`tp->snd_cwnd`).
    cwnd: u64,
    ssthresh: u64,
    pacing_rate: u64,
    srtt: Option<SimTime>,
    mode: Mode,
    min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    probe_rtt: ProbeRttHold,
    bw: MaxFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_mstamp: SimTime,
    cycle_idx: usize,
    prev_ca_state: CaState,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_last_delivered: u64,
    lt_last_stamp: SimTime,
    lt_last_lost: u64,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    full_bw: u64,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    aggregation: AckAggregation,
    /// Bytes delivered so far (`tp->delivered`, in bytes), as of the last sample.
    delivered: u64,
    rng: u64,
}

impl Bbr {
    /// `bbr_init` for a sender of MSS `smss` and initial window `iw` bytes.
    pub fn new(smss: u32, iw: u64) -> Self {
        let smss = u64::from(smss.max(1));
        let mut b = Bbr {
            smss,
            cwnd: iw.div_ceil(smss).max(1),
            ssthresh: u64::MAX,
            pacing_rate: 0,
            srtt: None,
            mode: Mode::Startup,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt: ProbeRttHold::default(),
            bw: MaxFilter::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: SimTime::ZERO,
            cycle_idx: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: SimTime::ZERO,
            lt_last_lost: 0,
            pacing_gain: 0,
            cwnd_gain: 0,
            full_bw_reached: false,
            full_bw_cnt: 0,
            full_bw: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            aggregation: AckAggregation::default(),
            delivered: 0,
            rng: 0x9e37_79b9_7f4a_7c15,
        };
        b.init_pacing_rate_from_rtt();
        b
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The bandwidth estimate in bytes per second (`bbr_bw`).
    pub fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.bw.get()
        }
    }

    /// The minimum RTT estimate.
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }

    fn random_below(&mut self, n: u64) -> u64 {
        random_below(&mut self.rng, n)
    }

    /// `bbr_rate_bytes_per_sec`: `rate · gain`, less the pacing margin.
    pub(super) fn rate_with_gain(rate: u64, gain: u64) -> u64 {
        let r = u128::from(rate) * u128::from(gain) / u128::from(UNIT);
        (r * u128::from(100 - PACING_MARGIN) / 100) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: `high_gain · cwnd / srtt` (1 ms before any RTT).
    fn init_pacing_rate_from_rtt(&mut self) {
        self.has_seen_rtt = self.srtt.is_some();
        self.pacing_rate = initial_pacing_rate(self.cwnd * self.smss, self.srtt, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: only upwards until the pipe is full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64) {
        let rate = Self::rate_with_gain(bw, gain);
        if !self.has_seen_rtt && self.srtt.is_some() {
            self.init_pacing_rate_from_rtt();
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_goal`: segments per burst the pacing rate allows, at least 1 or 2.
    fn tso_segs_goal(&self) -> u64 {
        let min_segs = if self.pacing_rate < MIN_TSO_RATE / 8 {
            1
        } else {
            2
        };
        let bytes = (self.pacing_rate >> 10).min(GSO_BUDGET);
        (bytes / self.smss).max(min_segs)
    }

    /// `bbr_save_cwnd`: the last good window, kept through recovery and PROBE_RTT.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_bdp`.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        bdp(bw, self.min_rtt, gain, self.smss, INIT_CWND)
    }

    /// `bbr_quantization_budget`: room for bursts, an even window, and +2 in the
    /// probing phase.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`.
    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`.
    fn packets_in_net_at_edt(&self, now: SimTime, edt: SimTime, inflight_now: u64) -> u64 {
        let at_edt = inflight_now
            + if self.pacing_gain > UNIT {
                self.tso_segs_goal()
            } else {
                0
            };
        in_net_at_edt(now, edt, at_edt, self.bw(), self.smss)
    }

    /// `bbr_ack_aggregation_cwnd`, once the pipe is full.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        self.aggregation.cwnd(self.bw(), self.smss)
    }

    fn packets(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.smss)
    }
}

/// A uniform draw below `n` (`get_random_u32_below`) from the SplitMix64 stream `state`.
pub(super) fn random_below(state: &mut u64, n: u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % n
}

/// `bbr_init_pacing_rate_from_rtt`: a window of `cwnd` bytes per SRTT (a nominal 1 ms
/// before any RTT sample, at least 1 µs) times `gain`, less the pacing margin.
pub(super) fn initial_pacing_rate(cwnd: u64, srtt: Option<SimTime>, gain: u64) -> u64 {
    let rtt = srtt.map_or(1_000_000, |s| s.0.max(1_000));
    let bw = (u128::from(cwnd) * 1_000_000_000 / u128::from(rtt)) as u64;
    Bbr::rate_with_gain(bw, gain)
}

/// `bbr_bdp`: `⌈bw · min_rtt · gain⌉` packets of `smss` bytes for `bw` in bytes/s and `gain`
/// in 1/256; `init_cwnd` before any RTT sample.
pub(super) fn bdp(bw: u64, min_rtt: Option<SimTime>, gain: u64, smss: u64, init_cwnd: u64) -> u64 {
    let Some(min_rtt) = min_rtt else {
        return init_cwnd;
    };
    let w = u128::from(bw) * u128::from(min_rtt.0) * u128::from(gain);
    let per_packet = u128::from(UNIT) * 1_000_000_000 * u128::from(smss);
    w.div_ceil(per_packet) as u64
}

/// `bbr_packets_in_net_at_edt`: of `inflight_at_edt` packets, what will still be in the
/// network when the segment the pacer holds leaves at `edt`, at `bw` bytes/s.
pub(super) fn in_net_at_edt(
    now: SimTime,
    edt: SimTime,
    inflight_at_edt: u64,
    bw: u64,
    smss: u64,
) -> u64 {
    let wait = edt.max(now) - now;
    let delivered = (u128::from(bw) * u128::from(wait.0) / 1_000_000_000) as u64 / smss;
    inflight_at_edt.saturating_sub(delivered)
}

pub(super) mod aggregation;
mod model;
pub(super) mod probe_rtt;
#[cfg(test)]
pub(super) mod steady_path;

/// The [`CongestionControl`] methods BBR v1 and v3 answer alike: the window (in packets
/// kept, in bytes reported) and ssthresh, no per-ACK growth, rate samples wanted, the
/// controller's pacing always on, samples held application-limited in PROBE_RTT, the seed,
/// the copy, and `bbr_cwnd_event(CA_EVENT_TX_START)` (after idle, an ACK-aggregation epoch
/// starts, PROBE_BW paces at the estimate and PROBE_RTT may end).
macro_rules! bbr_common_methods {
    () => {
        fn cwnd(&self) -> u64 {
            self.cwnd * self.smss
        }

        fn ssthresh(&self) -> u64 {
            self.ssthresh
        }

        /// The window is set from rate samples (`cong_control`), not per ACK.
        fn on_ack(&mut self, _ev: &AckEvent) {}

        fn wants_rate_samples(&self) -> bool {
            true
        }

        fn pacing_rate(&self) -> Option<u64> {
            Some(self.pacing_rate)
        }

        fn needs_pacing(&self) -> bool {
            true
        }

        fn holds_app_limited(&self) -> bool {
            self.mode == Mode::ProbeRtt
        }

        fn on_tx_start(&mut self, now: SimTime, app_limited: bool) {
            if !app_limited {
                return;
            }
            self.idle_restart = true;
            self.aggregation.restart(now);
            match self.mode {
                Mode::ProbeBw => self.set_pacing_rate(self.bw(), UNIT),
                Mode::ProbeRtt => self.check_probe_rtt_done(now),
                _ => {}
            }
        }

        fn reseed(&mut self, seed: u64) {
            self.rng = seed;
        }

        fn boxed_clone(&self) -> Box<dyn CongestionControl> {
            Box::new(self.clone())
        }
    };
}
pub(super) use bbr_common_methods;

impl CongestionControl for Bbr {
    /// `bbr_ssthresh`: entering recovery keeps ssthresh and saves the window.
    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        self.save_cwnd();
    }

    /// `tcp_enter_loss` (`bbr_ssthresh`, a window of one packet) then
    /// `bbr_set_state(TCP_CA_Loss)`.
    fn on_rto(&mut self, _ev: &LossEvent) {
        self.save_cwnd();
        self.cwnd = 1;
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        let rs = RateSample {
            losses: 1,
            ..RateSample::default()
        };
        self.lt_bw_sampling(&rs);
    }

    fn on_rtt_sample(&mut self, ev: &RttSample) {
        self.srtt = Some(ev.srtt);
    }

    /// `bbr_main`.
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.update_model(rs);
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain);
        self.set_cwnd(rs, self.packets(rs.acked_sacked), bw, self.cwnd_gain);
    }

    bbr_common_methods!();

    /// `bbr_undo_cwnd`: the window stays; full-pipe detection and long-term sampling
    /// start again.
    fn on_spurious_rto(&mut self, _ev: &SpuriousRtoEvent) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.reset_lt_bw_sampling();
    }

    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.cwnd = self.packets(ev.cwnd).max(1);
    }

    /// BBR leaves STARTUP by its own full-pipe estimate, not HyStart's.
    fn exit_slow_start(&mut self, _now: SimTime) {}
}

#[cfg(test)]
mod tests;
