//! BBRv3's per-ACK steps (draft-ietf-ccwg-bbr-06 "Per-ACK Steps": `BBRUpdateModelAndState`,
//! then `BBRUpdateControlParameters`), in the order of the v3 kernel's `bbr_main`.

use super::*;

impl Bbr3 {
    /// `bbr_main` after the loss hooks: round counting, the model, the gains, then pacing
    /// rate and window.
    pub(super) fn update(&mut self, rs: &RateSample, tx_in_flight: u64, lost: u64) {
        self.update_round_start(rs);
        if self.round_start {
            self.rounds_since_probe = (self.rounds_since_probe + 1).min(0xff);
        }
        let sample_bw = if valid(rs) {
            (u128::from(rs.delivered) * 1_000_000_000).div_ceil(u128::from(rs.interval.0)) as u64
        } else {
            0
        };
        self.update_latest_delivery_signals(rs, sample_bw);
        self.update_congestion_signals(rs, sample_bw);
        self.update_ack_aggregation(rs);
        self.check_loss_too_high_in_startup(rs, tx_in_flight, lost);
        self.check_full_bw_reached(rs, sample_bw);
        self.check_drain(rs);
        self.update_cycle_phase(rs, sample_bw, tx_in_flight, lost);
        self.update_min_rtt(rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain);
        self.set_cwnd(rs, bw);
        self.bound_cwnd_for_inflight_model();
        if self.loss_round_start {
            // `bbr_advance_latest_delivery_signals`.
            self.bw_latest = sample_bw;
            self.inflight_latest = self.packets(rs.delivered);
        }
    }

    /// `bbr_update_round_start` (draft "Tracking Packet-Timed Round Trips").
    fn update_round_start(&mut self, rs: &RateSample) {
        self.round_start = false;
        if valid(rs) && rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.round_start = true;
        }
    }

    /// `bbr_update_latest_delivery_signals` (draft `BBRUpdateLatestDeliverySignals`): the
    /// most delivered per sample this loss round, and the loss round's end.
    fn update_latest_delivery_signals(&mut self, rs: &RateSample, sample_bw: u64) {
        self.loss_round_start = false;
        if !valid(rs) || rs.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(sample_bw);
        self.inflight_latest = self.inflight_latest.max(self.packets(rs.delivered));
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = rs.total_delivered;
            self.loss_round_start = true;
        }
    }

    /// `bbr_update_congestion_signals` (draft `BBRUpdateCongestionSignals`): the max
    /// filter, and once per loss round the short-term bounds.
    fn update_congestion_signals(&mut self, rs: &RateSample, sample_bw: u64) {
        if !valid(rs) || rs.acked_sacked == 0 {
            return;
        }
        if !rs.is_app_limited || sample_bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(sample_bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.loss_in_round = false;
    }

    /// `bbr_adapt_lower_bounds` (draft `BBRAdaptLowerBoundsFromCongestion`): outside
    /// probing, a round with loss cuts `bw_lo` and `inflight_lo` by `BBRBeta`, but not
    /// below what the round delivered.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bandwidth() || !self.loss_in_round {
            return;
        }
        if self.bw_lo == u64::MAX {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == u64::MAX {
            self.inflight_lo = self.cwnd;
        }
        let cut = |v: u64| (u128::from(v) * u128::from(LOSS_CUT) / u128::from(UNIT)) as u64;
        self.bw_lo = self.bw_latest.max(cut(self.bw_lo)).max(1);
        self.inflight_lo = self.inflight_latest.max(cut(self.inflight_lo));
    }

    /// `bbr_reset_lower_bounds`.
    fn reset_lower_bounds(&mut self) {
        self.bw_lo = u64::MAX;
        self.inflight_lo = u64::MAX;
    }

    /// `bbr_reset_congestion_signals`.
    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.loss_in_cycle = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }

    /// `bbr_update_ack_aggregation`: the filter spans one round before the pipe is full.
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        let acked = self.packets(rs.acked_sacked);
        if acked == 0 || !valid(rs) {
            return;
        }
        let win = if self.full_bw_reached {
            EXTRA_ACKED_WIN_RTTS
        } else {
            1
        };
        let bw = self.bw();
        self.aggregation.update(
            self.round_start,
            win,
            acked,
            bw,
            self.smss,
            rs.delivered_time,
            self.cwnd,
        );
    }

    /// `bbr_check_loss_too_high_in_startup` (draft "Exiting Startup Based on Packet
    /// Loss"): at the end of a round in recovery with six loss events and too high a loss
    /// rate, the pipe is full and `inflight_hi` is the larger of the BDP and what the round
    /// delivered.
    fn check_loss_too_high_in_startup(&mut self, rs: &RateSample, tx_in_flight: u64, lost: u64) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 && self.loss_events_in_round < 0xf {
            self.loss_events_in_round += 1;
        }
        if self.loss_round_start
            && rs.in_recovery
            && self.loss_events_in_round >= FULL_LOSS_CNT
            && is_inflight_too_high(lost, tx_in_flight)
        {
            self.full_bw_reached = true;
            self.inflight_hi = self.inflight(self.max_bw(), UNIT).max(self.inflight_latest);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// `bbr_check_full_bw_reached` (draft `BBRCheckStartupFullBandwidth`): three rounds
    /// without a sample 25 % above the last plateau.
    fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: u64) {
        if self.full_bw_now || rs.is_app_limited {
            return;
        }
        let thresh =
            (u128::from(self.full_bw) * u128::from(FULL_BW_THRESH) / u128::from(UNIT)) as u64;
        if sample_bw >= thresh {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// `bbr_check_drain` (draft "Drain"): DRAIN once the pipe is full, PROBE_BW_DOWN once
    /// the flight is down to the BDP.
    fn check_drain(&mut self, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = self.inflight(self.max_bw(), UNIT) * self.smss;
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(rs, self.packets(rs.in_flight))
                <= self.inflight(self.max_bw(), UNIT)
        {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(rs.now);
        }
    }

    /// `bbr_raise_inflight_hi_slope`: each round of PROBE_UP doubles the growth of
    /// `inflight_hi` (draft `BBRRaiseInflightLongtermSlope`).
    fn raise_inflight_hi_slope(&mut self) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (self.cwnd / growth).max(1);
    }

    /// `bbr_probe_inflight_hi_upward` (draft `BBRProbeInflightLongtermUpward`).
    fn probe_inflight_hi_upward(&mut self, rs: &RateSample) {
        if !self.is_cwnd_limited(rs) || self.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += self.packets(rs.acked_sacked);
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope();
        }
    }

    /// `tp->is_cwnd_limited`, read from the flight when the ACK came.
    fn is_cwnd_limited(&self, rs: &RateSample) -> bool {
        self.packets(rs.prior_in_flight) + 1 >= self.cwnd
    }

    /// `bbr_adapt_upper_bounds` (draft `BBRAdaptLongtermModel`): the end of a probe's
    /// feedback advances the max filter; too much loss lowers `inflight_hi`, a safe larger
    /// flight raises it. True when it decided a phase change.
    fn adapt_upper_bounds(&mut self, rs: &RateSample, tx_in_flight: u64, lost: u64) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.is_app_limited && self.bw_hi[1] > 0 {
                // `bbr_advance_max_bw_filter`.
                self.bw_hi = [self.bw_hi[1], 0];
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill(0);
                return true;
            }
        }
        if is_inflight_too_high(lost, tx_in_flight) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(rs.now, rs.is_app_limited, tx_in_flight);
            }
        } else if self.inflight_hi != u64::MAX {
            self.inflight_hi = self.inflight_hi.max(tx_in_flight);
            if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
                self.probe_inflight_hi_upward(rs);
            }
        }
        false
    }

    /// `bbr_pick_probe_wait` (draft `BBRPickProbeWait`): 0 or 1 rounds already counted,
    /// and 2 s plus a uniform draw below 1 s.
    pub(super) fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = random_below(&mut self.rng, BW_PROBE_RAND_ROUNDS);
        let us = random_below(&mut self.rng, BW_PROBE_RAND_US);
        self.probe_wait = BW_PROBE_BASE + SimTime(us * 1_000);
    }

    /// `bbr_is_reno_coexistence_probe_time` (draft `BBRIsRenoCoexistenceProbeTime`): as
    /// many rounds as the target flight in packets, at most 63.
    pub(super) fn is_reno_coexistence_probe_time(&self) -> bool {
        self.rounds_since_probe >= BW_PROBE_MAX_ROUNDS.min(self.target_inflight())
    }

    /// `bbr_check_time_to_probe_bw` (draft `BBRCheckTimeToProbeBW`; the ECN re-probe is not
    /// modelled).
    fn check_time_to_probe_bw(&mut self, now: SimTime) -> bool {
        if now > self.cycle_stamp + self.probe_wait || self.is_reno_coexistence_probe_time() {
            self.start_probe_refill(0);
            return true;
        }
        false
    }

    /// `bbr_inflight_with_headroom` (draft `BBRInflightWithHeadroom`): 85 % of
    /// `inflight_hi`, at least the minimum target.
    pub(super) fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == u64::MAX {
            return u64::MAX;
        }
        let headroom = (self.inflight_hi * HEADROOM / UNIT).max(1);
        self.inflight_hi
            .saturating_sub(headroom)
            .max(CWND_MIN_TARGET)
    }

    /// `bbr_start_bw_probe_refill` (draft "ProbeBW_REFILL").
    fn start_probe_refill(&mut self, up_rounds: u32) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = up_rounds;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_rtt_delivered = self.delivered;
        self.phase = Phase::Refill;
    }

    /// `bbr_start_bw_probe_up` (draft "ProbeBW_UP").
    fn start_probe_up(&mut self, now: SimTime, sample_bw: u64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_rtt_delivered = self.delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope();
    }

    /// `bbr_start_bw_probe_down` (draft "ProbeBW_DOWN"): a new cycle, its wait drawn.
    pub(super) fn start_probe_down(&mut self, now: SimTime) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = u64::MAX;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_rtt_delivered = self.delivered;
        self.phase = Phase::Down;
    }

    /// `bbr_start_bw_probe_cruise` (draft "ProbeBW_CRUISE").
    fn start_probe_cruise(&mut self) {
        if self.inflight_lo != u64::MAX {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// `bbr_update_cycle_phase` (draft `BBRUpdateProbeBWCyclePhase`).
    fn update_cycle_phase(
        &mut self,
        rs: &RateSample,
        sample_bw: u64,
        tx_in_flight: u64,
        lost: u64,
    ) {
        if !self.full_bw_reached || self.adapt_upper_bounds(rs, tx_in_flight, lost) {
            return;
        }
        if self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = self.packets_in_net_at_edt(rs, self.packets(rs.prior_in_flight));
        let bw = self.max_bw();
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(rs.now);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(rs.now, sample_bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if self.is_cwnd_limited(rs) && self.cwnd >= self.inflight_hi {
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(rs.now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(rs.now) {
                    return;
                }
                // `bbr_check_time_to_cruise`.
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(bw, UNIT)
                {
                    self.start_probe_cruise();
                }
            }
        }
    }

    /// `bbr_update_min_rtt` (draft "ProbeRTT"): the 5 s filter times PROBE_RTT, the 10 s
    /// one keeps `min_rtt`.
    fn update_min_rtt(&mut self, rs: &RateSample) {
        let now = rs.now;
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + PROBE_RTT_WIN;
        if rs.rtt != SimTime::MAX
            && (self.probe_rtt_min.is_none_or(|m| rs.rtt < m) || probe_rtt_expired)
        {
            self.probe_rtt_min = Some(rs.rtt);
            self.probe_rtt_min_stamp = now;
        }
        let min_rtt_expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt.enter();
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_rtt_delivered = self.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            // The transport marks its samples application-limited meanwhile
            // (`holds_app_limited`).
            let window = self.probe_rtt_cwnd();
            let in_flight = self.packets(rs.in_flight);
            let delivered = self.delivered;
            let round_start = self.round_start;
            if self.probe_rtt.step(
                now,
                (in_flight, window),
                round_start,
                (&mut self.next_rtt_delivered, delivered),
            ) {
                self.check_probe_rtt_done(now);
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_check_probe_rtt_done`, then `bbr_exit_probe_rtt`: PROBE_BW resumes cruising
    /// with a new probe wait (STARTUP if the pipe was never full).
    pub(super) fn check_probe_rtt_done(&mut self, now: SimTime) {
        if !self.probe_rtt.expired(now) {
            return;
        }
        self.probe_rtt_min_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(now);
            self.start_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_update_gains` (draft "Pacing Rate" and "cwnd" gains per state).
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (STARTUP_PACING_GAIN, STARTUP_CWND_GAIN),
            Mode::Drain => (DRAIN_GAIN, STARTUP_CWND_GAIN),
            Mode::ProbeBw => match self.phase {
                Phase::Up => (UP_GAIN, CWND_GAIN + PROBE_UP_CWND_GAIN_EXTRA),
                Phase::Down => (DOWN_GAIN, CWND_GAIN),
                Phase::Cruise | Phase::Refill => (UNIT, CWND_GAIN),
            },
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// `bbr_set_cwnd` (draft `BBRSetCwnd`): towards `cwnd_gain · BDP` plus the aggregation
    /// allowance, slow-start-like until the pipe is full; PROBE_RTT's window.
    fn set_cwnd(&mut self, rs: &RateSample, bw: u64) {
        let acked = self.packets(rs.acked_sacked);
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let target = self.quantization_budget(
                self.bdp(bw, self.cwnd_gain) + self.aggregation.cwnd(bw, self.smss),
            );
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || cwnd < 2 * self.init_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(CWND_MIN_TARGET);
        }
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
    }

    /// `bbr_bound_cwnd_for_inflight_model` (draft `BBRBoundCwndForModel`): `inflight_hi`
    /// while probing or draining, 85 % of it in CRUISE and PROBE_RTT, and `inflight_lo`.
    fn bound_cwnd_for_inflight_model(&mut self) {
        let mut cap = u64::MAX;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt || self.mode == Mode::ProbeBw {
            cap = self.inflight_with_headroom();
        }
        cap = cap.min(self.inflight_lo).max(CWND_MIN_TARGET);
        self.cwnd = self.cwnd.min(cap);
    }
}

/// A sample with a positive interval (`rs->interval_us > 0`).
fn valid(rs: &RateSample) -> bool {
    rs.interval.0 > 0
}
