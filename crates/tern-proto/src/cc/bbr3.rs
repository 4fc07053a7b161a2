//! BBRv3 as draft-ietf-ccwg-bbr-06 ("BBR Congestion Control", Cardwell, Swett, Beshay)
//! specifies it, with Google's v3 kernel code (github.com/google/bbr, branch v3,
//! net/ipv4/tcp_bbr.c) where the draft leaves a choice. Section names below are the
//! draft's; each method names the kernel function it follows.
//!
//! Against BBR v1 (`cc/bbr.rs`) the model gains bounds from loss (draft "Updating the
//! Model Upon Packet Loss"): a long-term `inflight_hi` (the draft's `inflight_longterm`)
//! set when a bandwidth probe meets more than 2 % loss, cut to
//! `max(tx_in_flight, 0.7 · target)` (`BBRBeta` = 0.7), and short-term `bw_lo`/`inflight_lo`
//! (`bw_shortterm`/`inflight_shortterm`) cut by the same factor in each lossy round outside
//! probing. STARTUP paces at 2.77 (4 ln 2) with cwnd gain 2 and also ends on six loss
//! events in a round above the loss threshold; the max-bandwidth filter keeps two PROBE_BW
//! cycles (draft "BBR.max_bw Max Filter"); PROBE_BW cycles through DOWN (pacing gain 0.91),
//! CRUISE (1.0), REFILL (1.0, one round) and UP (1.25, cwnd gain 2.25), probing again after
//! a random 2–3 s or `min(63, BDP)` rounds, whichever first (draft "Time Scale for
//! Bandwidth Probing"); PROBE_RTT comes when the min RTT of the last 5 s is 5 s old and
//! holds cwnd at half the BDP for 200 ms and a round (draft "ProbeRTT").
//!
//! Units as in v1: windows in packets of `smss` bytes, rates in bytes per second, gains in
//! 1/256. A packet's flight when it was sent and the losses since (`rs->tx_in_flight`,
//! `rs->lost`) come from the transport's delivery-rate snapshot of that packet, as the v3
//! kernel stamps them on each skb (`tcp::rate`): for the newest packet an ACK delivers in
//! the [`RateSample`], and for each packet marked lost in a [`LostPacket`]
//! (`bbr_skb_marked_lost`, once per packet); they are counted in bytes and read here in
//! packets of `smss` bytes, rounded up.
//!
//! Departures from the kernel:
//! - ECN (`ecn_alpha`, `ecn_thresh`, `bbr_ecn_lower_bounds`, the ECN re-probe) is not
//!   modelled: Tern marks no packet CE and its TCP does not negotiate ECN, so BBRv3 runs as
//!   the kernel's does on a path without ECN (`ecn_eligible` never set). The kernel uses
//!   ECN only on routes marked `ecn_low`, off by default.
//! - `tp->is_cwnd_limited` is read as "the flight reached the window less one packet"
//!   when the ACK came.
//! - The app-limited fast path (`bbr_run_fast_path`, a CPU saving) is not taken.
//! - A tail-loss probe that repaired a loss (`bbr_run_loss_probe_recovery`) is not
//!   signalled: Tern's TCP has no TLP.

use super::bbr::aggregation::AckAggregation;
use super::bbr::bbr_common_methods;
use super::bbr::probe_rtt::ProbeRttHold;
use super::bbr::{bdp, in_net_at_edt, initial_pacing_rate, random_below, Bbr, CaState, UNIT};
use super::{
    AckEvent, CongestionControl, FrtoFallbackEvent, LossEvent, LostPacket, RateSample, RttSample,
    SpuriousRtoEvent,
};
use crate::time::SimTime;

pub use super::bbr::Mode;

/// STARTUP's pacing gain, 4 ln 2 ≈ 2.77 (draft "Startup": `BBRStartupPacingGain`;
/// `bbr_startup_pacing_gain`).
const STARTUP_PACING_GAIN: u64 = UNIT * 277 / 100 + 1;
/// STARTUP's and DRAIN's cwnd gain, 2 (`bbr_startup_cwnd_gain`).
const STARTUP_CWND_GAIN: u64 = UNIT * 2;
/// DRAIN's pacing gain (draft "Drain": 1/2.885; `bbr_drain_gain`).
const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
/// PROBE_BW's cwnd gain (draft "ProbeBW": `BBRDefaultCwndGain` = 2; `bbr_cwnd_gain`).
const CWND_GAIN: u64 = UNIT * 2;
/// PROBE_UP adds a quarter to the cwnd gain (`bbr_bw_probe_cwnd_gain` = 1, in UNIT/4).
const PROBE_UP_CWND_GAIN_EXTRA: u64 = UNIT / 4;
/// Pacing gain of each PROBE_BW phase (draft "ProbeBW_UP" 1.25, "ProbeBW_DOWN" 0.91,
/// "ProbeBW_CRUISE" and "ProbeBW_REFILL" 1.0; `bbr_pacing_gain`).
const UP_GAIN: u64 = UNIT * 5 / 4;
const DOWN_GAIN: u64 = UNIT * 91 / 100;
/// Smallest window aimed at, packets (`bbr_cwnd_min_target`).
const CWND_MIN_TARGET: u64 = 4;
/// Full-pipe estimate: three rounds without 25 % growth (draft "Exiting Startup Based on
/// Bandwidth Plateau"; `bbr_full_bw_thresh`, `bbr_full_bw_cnt`).
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// Window of the ACK-aggregation filter in rounds (`bbr_extra_acked_win_rtts`; one round
/// before the pipe is full).
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// The loss response's multiplicative cut: `1 − bbr_beta` = 1 − 0.3 (draft `BBRBeta` = 0.7).
const LOSS_CUT: u64 = UNIT - UNIT * 30 / 100;
/// Highest tolerated loss rate per flight when probing (draft `BBRLossThresh` = 2 %;
/// `bbr_loss_thresh` = 5/256).
const LOSS_THRESH: u64 = UNIT * 2 / 100;
/// STARTUP ends on this many loss events in a round of recovery above the loss threshold
/// (draft "Exiting Startup Based on Packet Loss"; `bbr_full_loss_cnt`).
const FULL_LOSS_CNT: u32 = 6;
/// Share of `inflight_hi` left unused in CRUISE and PROBE_RTT (draft `BBRHeadroom` = 0.15;
/// `bbr_inflight_headroom`).
const HEADROOM: u64 = UNIT * 15 / 100;
/// Reno-coexistence bound on the rounds between probes and their random part
/// (`bbr_bw_probe_max_rounds`, `bbr_bw_probe_rand_rounds`).
const BW_PROBE_MAX_ROUNDS: u64 = 63;
const BW_PROBE_RAND_ROUNDS: u64 = 2;
/// Wall-clock wait before probing: 2 s plus up to 1 s at random, drawn in µs (draft
/// "Time Scale for Bandwidth Probing"; `bbr_bw_probe_base_us`, `bbr_bw_probe_rand_us`).
const BW_PROBE_BASE: SimTime = SimTime(2_000_000_000);
const BW_PROBE_RAND_US: u64 = 1_000_000;
/// Window of the min-RTT filter (`bbr_min_rtt_win_sec`).
const MIN_RTT_WIN: SimTime = SimTime(10_000_000_000);
/// Window of the PROBE_RTT min-RTT filter (draft `ProbeRTTInterval` = 5 s;
/// `bbr_probe_rtt_win_ms`).
const PROBE_RTT_WIN: SimTime = SimTime(5_000_000_000);
/// PROBE_RTT's window, a share of the BDP (draft `BBRProbeRTTCwndGain` = 0.5).
const PROBE_RTT_CWND_GAIN: u64 = UNIT / 2;
/// `GSO_LEGACY_MAX_SIZE` and the burst budget below it (`− 1 − MAX_TCP_HEADER`).
const GSO_LEGACY_MAX_SIZE: u64 = 65_536;
const GSO_BUDGET: u64 = GSO_LEGACY_MAX_SIZE - 1 - 320;
/// Halve the RTT-based burst allowance per 2^9 µs of min RTT (`bbr_tso_rtt_shift`).
const TSO_RTT_SHIFT: u64 = 9;
/// `sysctl_tcp_min_tso_segs`.
const MIN_TSO_SEGS: u64 = 2;

/// PROBE_BW's phases (draft "ProbeBW"; `enum bbr_pacing_gain_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up,
    Down,
    Cruise,
    Refill,
}

/// How the incoming ACKs relate to bandwidth probing (`enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// The BBRv3 control block (`struct bbr` of the v3 kernel).
#[derive(Clone, Debug)]
pub struct Bbr3 {
    smss: u64,
    /// The window in packets (`tp->snd_cwnd`).
    cwnd: u64,
    init_cwnd: u64,
    ssthresh: u64,
    pacing_rate: u64,
    srtt: Option<SimTime>,
    has_seen_rtt: bool,
    mode: Mode,
    phase: Phase,
    ack_phase: AckPhase,
    prev_ca_state: CaState,
    min_rtt: Option<SimTime>,
    min_rtt_stamp: SimTime,
    probe_rtt_min: Option<SimTime>,
    probe_rtt_min_stamp: SimTime,
    probe_rtt: ProbeRttHold,
    /// Bytes delivered so far (`tp->delivered`), as of the latest sample.
    delivered: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    rounds_since_probe: u64,
    cycle_stamp: SimTime,
    probe_wait: SimTime,
    idle_restart: bool,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_now: bool,
    full_bw_cnt: u32,
    full_bw: u64,
    prior_cwnd: u64,
    aggregation: AckAggregation,
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    loss_in_cycle: bool,
    loss_events_in_round: u32,
    bw_latest: u64,
    inflight_latest: u64,
    /// The two-cycle max-bandwidth filter (`bw_hi[2]`), bytes/s.
    bw_hi: [u64; 2],
    /// Short-term bounds, `u64::MAX` when unset (`bw_lo`, `inflight_lo`).
    bw_lo: u64,
    inflight_lo: u64,
    /// Long-term bound, `u64::MAX` when unset (`inflight_hi`).
    inflight_hi: u64,
    undo_bw_lo: u64,
    undo_inflight_lo: u64,
    undo_inflight_hi: u64,
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    bw_probe_up_rounds: u32,
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    stopped_risky_probe: bool,
    rng: u64,
}

impl Bbr3 {
    /// `bbr_init` for a sender of MSS `smss` and initial window `iw` bytes.
    pub fn new(smss: u32, iw: u64) -> Self {
        let smss = u64::from(smss.max(1));
        let cwnd = iw.div_ceil(smss).max(1);
        let mut b = Bbr3 {
            smss,
            cwnd,
            init_cwnd: cwnd.min(0x7f),
            ssthresh: u64::MAX,
            pacing_rate: 0,
            srtt: None,
            has_seen_rtt: false,
            mode: Mode::Startup,
            phase: Phase::Up,
            ack_phase: AckPhase::Init,
            prev_ca_state: CaState::Open,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt: ProbeRttHold::default(),
            delivered: 0,
            next_rtt_delivered: 0,
            round_start: false,
            rounds_since_probe: 0,
            cycle_stamp: SimTime::ZERO,
            probe_wait: SimTime::ZERO,
            idle_restart: false,
            pacing_gain: STARTUP_PACING_GAIN,
            cwnd_gain: STARTUP_CWND_GAIN,
            full_bw_reached: false,
            full_bw_now: false,
            full_bw_cnt: 0,
            full_bw: 0,
            prior_cwnd: 0,
            aggregation: AckAggregation::default(),
            // Loss rounds start once the first flight is delivered.
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            loss_in_cycle: false,
            loss_events_in_round: 0,
            bw_latest: 0,
            inflight_latest: 0,
            bw_hi: [0; 2],
            bw_lo: u64::MAX,
            inflight_lo: u64::MAX,
            inflight_hi: u64::MAX,
            undo_bw_lo: 0,
            undo_inflight_lo: 0,
            undo_inflight_hi: 0,
            bw_probe_up_cnt: u64::MAX,
            bw_probe_up_acks: 0,
            bw_probe_up_rounds: 0,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            rng: 0x9e37_79b9_7f4a_7c15,
        };
        b.pacing_rate = initial_pacing_rate(b.cwnd * smss, None, STARTUP_PACING_GAIN);
        b
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The PROBE_BW phase, in PROBE_BW.
    pub fn phase(&self) -> Option<Phase> {
        (self.mode == Mode::ProbeBw).then_some(self.phase)
    }

    /// The current pacing and cwnd gains, in 1/256.
    pub fn gains(&self) -> (u64, u64) {
        (self.pacing_gain, self.cwnd_gain)
    }

    /// The long-term in-flight bound in packets, `None` while unset (`inflight_hi`).
    pub fn inflight_hi(&self) -> Option<u64> {
        (self.inflight_hi != u64::MAX).then_some(self.inflight_hi)
    }

    /// The short-term in-flight bound in packets, `None` while unset (`inflight_lo`).
    pub fn inflight_lo(&self) -> Option<u64> {
        (self.inflight_lo != u64::MAX).then_some(self.inflight_lo)
    }

    /// The wall-clock wait before the next bandwidth probe (`probe_wait_us`).
    pub fn probe_wait(&self) -> SimTime {
        self.probe_wait
    }

    /// The windowed maximum bandwidth, bytes/s (`bbr_max_bw`).
    pub fn max_bw(&self) -> u64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth estimate, bytes/s: the maximum within the short-term bound (`bbr_bw`).
    pub fn bw(&self) -> u64 {
        self.max_bw().min(self.bw_lo)
    }

    /// The minimum RTT estimate.
    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }

    fn packets(&self, bytes: u64) -> u64 {
        bytes.div_ceil(self.smss)
    }

    /// `bbr_set_pacing_rate`: only upwards until the pipe is full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64) {
        if !self.has_seen_rtt && self.srtt.is_some() {
            self.has_seen_rtt = true;
            self.pacing_rate =
                initial_pacing_rate(self.cwnd * self.smss, self.srtt, STARTUP_PACING_GAIN);
        }
        let rate = Bbr::rate_with_gain(bw, gain);
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_tso_segs_goal`: the bytes 1 ms at the pacing rate carries, plus 64 kB halved
    /// per 512 µs of min RTT, in segments; at least `tcp_min_tso_segs`.
    fn tso_segs_goal(&self) -> u64 {
        let mut bytes = self.pacing_rate >> 10;
        let r = self
            .min_rtt
            .map_or(u64::MAX, |m| (m.0 / 1_000) >> TSO_RTT_SHIFT);
        if r < 32 {
            bytes += GSO_LEGACY_MAX_SIZE >> r;
        }
        (bytes.min(GSO_BUDGET) / self.smss).max(MIN_TSO_SEGS)
    }

    /// `bbr_quantization_budget`: at least three bursts and the minimum target, +2 in
    /// PROBE_UP.
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd.max(3 * self.tso_segs_goal()).max(CWND_MIN_TARGET);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_bdp`.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        bdp(bw, self.min_rtt, gain, self.smss, self.init_cwnd)
    }

    /// `bbr_inflight`: the BDP at `gain` with the quantization budget.
    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_target_inflight`: the BDP, unless congestion cut the window below it.
    fn target_inflight(&self) -> u64 {
        self.inflight(self.bw(), UNIT).min(self.cwnd)
    }

    /// `bbr_packets_in_net_at_edt`.
    fn packets_in_net_at_edt(&self, rs: &RateSample, inflight_now: u64) -> u64 {
        let extra = if self.pacing_gain > UNIT {
            self.tso_segs_goal()
        } else {
            0
        };
        in_net_at_edt(
            rs.now,
            rs.pacing_edt,
            inflight_now + extra,
            self.bw(),
            self.smss,
        )
    }

    /// `bbr_probe_rtt_cwnd`: half the BDP, at least the minimum target (draft "ProbeRTT").
    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN)
            .max(CWND_MIN_TARGET)
    }

    /// `bbr_save_cwnd`.
    fn save_cwnd(&mut self) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = self.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(self.cwnd);
        }
    }

    /// `bbr_is_probing_bandwidth`: STARTUP, REFILL and UP.
    fn is_probing_bandwidth(&self) -> bool {
        self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Refill | Phase::Up))
    }

    /// `bbr_reset_full_bw`.
    fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    /// `bbr_note_loss`: the round of the first loss ends when what is in flight now is
    /// delivered.
    fn note_loss(&mut self) {
        if !self.loss_in_round {
            self.loss_round_delivered = self.delivered;
        }
        self.loss_in_round = true;
        self.loss_in_cycle = true;
    }

    /// `bbr_handle_inflight_too_high` (draft `BBRHandleInflightTooHigh`): once per probe,
    /// `inflight_hi = max(tx_in_flight, 0.7 · target)`, and PROBE_UP ends.
    fn handle_inflight_too_high(&mut self, now: SimTime, app_limited: bool, tx_in_flight: u64) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !app_limited {
            self.inflight_hi = tx_in_flight.max(self.target_inflight() * LOSS_CUT / UNIT);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_probe_down(now);
        }
    }
}

/// `bbr_is_inflight_too_high` (draft `IsInflightTooHigh`): more than `BBRLossThresh` of
/// the flight lost, in packets.
pub(crate) fn is_inflight_too_high(lost: u64, tx_in_flight: u64) -> bool {
    lost > 0 && tx_in_flight > 0 && lost > tx_in_flight * LOSS_THRESH / UNIT
}

/// `bbr_inflight_hi_from_lost_skb` (draft `BBRInflightLongtermFromLostPacket`): the flight
/// at which the loss rate crossed the threshold, for the last `pcount` of `lost` packets
/// lost out of a flight of `tx_in_flight`, solving
/// `(lost_prev + prefix) / (inflight_prev + prefix) = BBRLossThresh` for `prefix`.
pub(crate) fn inflight_hi_from_lost(tx_in_flight: u64, lost: u64, pcount: u64) -> u64 {
    let (Some(inflight_prev), Some(lost_prev)) =
        (tx_in_flight.checked_sub(pcount), lost.checked_sub(pcount))
    else {
        return u64::MAX;
    };
    let loss_budget = (inflight_prev * LOSS_THRESH).div_ceil(UNIT);
    let prefix = if lost_prev >= loss_budget {
        0
    } else {
        ((loss_budget - lost_prev) * UNIT) / (UNIT - LOSS_THRESH)
    };
    inflight_prev + prefix
}

mod model;

impl CongestionControl for Bbr3 {
    /// `bbr_ssthresh`: save the window and, for undo, the loss-adapted bounds.
    fn on_congestion_event(&mut self, _ev: &LossEvent) {
        self.save_cwnd();
        self.undo_bw_lo = self.bw_lo;
        self.undo_inflight_lo = self.inflight_lo;
        self.undo_inflight_hi = self.inflight_hi;
    }

    /// `tcp_enter_loss` after the segments in flight were marked lost (each through
    /// [`Self::on_packet_lost`]): `bbr_ssthresh`, the window at one packet, then
    /// `bbr_set_state(TCP_CA_Loss)`.
    fn on_rto(&mut self, ev: &LossEvent) {
        self.on_congestion_event(ev);
        self.cwnd = 1;
        self.prev_ca_state = CaState::Loss;
        self.reset_full_bw();
        if !self.is_probing_bandwidth() && self.inflight_lo == u64::MAX {
            self.inflight_lo = self.cwnd.max(self.prior_cwnd);
        }
    }

    fn on_rtt_sample(&mut self, ev: &RttSample) {
        self.srtt = Some(ev.srtt);
    }

    /// `bbr_skb_marked_lost`: every lost packet starts or extends a loss round; while the
    /// samples reflect a bandwidth probe, a packet whose flight lost more than 2 % since it
    /// was sent brings `inflight_hi` down to where the loss rate crossed the threshold
    /// (`bbr_inflight_hi_from_lost_skb`; draft `BBRHandleLostPacket`).
    fn on_packet_lost(&mut self, ev: &LostPacket) {
        self.note_loss();
        if !self.bw_probe_samples || !ev.has_snapshot {
            return;
        }
        let (tx_in_flight, lost) = (self.packets(ev.tx_in_flight), self.packets(ev.lost));
        if is_inflight_too_high(lost, tx_in_flight) {
            let at = inflight_hi_from_lost(tx_in_flight, lost, self.packets(ev.bytes));
            self.handle_inflight_too_high(ev.now, ev.is_app_limited, at);
        }
    }

    /// `bbr_main`.
    fn on_rate_sample(&mut self, rs: &RateSample) {
        self.delivered = rs.total_delivered;
        let (tx_in_flight, lost) = (self.packets(rs.tx_in_flight), self.packets(rs.lost));
        let state = CaState::of(rs);
        if self.prev_ca_state == CaState::Loss && state != CaState::Loss {
            // `bbr_set_state` → `bbr_exit_loss_recovery`.
            self.cwnd = self.cwnd.max(self.prior_cwnd);
        }
        self.update(rs, tx_in_flight, lost);
        self.prev_ca_state = state;
        self.loss_in_cycle |= lost > 0;
    }

    bbr_common_methods!();

    /// `bbr_undo_cwnd`: full-pipe detection restarts, the loss-adapted bounds go back to
    /// what they were before the episode, and the window to the one saved (on a copy
    /// taken before the timeout, the larger of the two).
    fn on_spurious_rto(&mut self, _ev: &SpuriousRtoEvent) {
        self.reset_full_bw();
        self.loss_in_round = false;
        self.bw_lo = self.bw_lo.max(self.undo_bw_lo);
        self.inflight_lo = self.inflight_lo.max(self.undo_inflight_lo);
        self.inflight_hi = self.inflight_hi.max(self.undo_inflight_hi);
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.cwnd = self.packets(ev.cwnd).max(1);
    }

    /// BBR leaves STARTUP by its own full-pipe estimate, not HyStart's.
    fn exit_slow_start(&mut self, _now: SimTime) {}
}

#[cfg(test)]
mod tests;
