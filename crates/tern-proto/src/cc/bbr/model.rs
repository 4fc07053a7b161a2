//! BBR's path model and control, per rate sample: `bbr_update_model` and `bbr_set_cwnd`
//! with the functions they call, in the kernel's order.

use super::*;

impl Bbr {
    /// `bbr_update_model`.
    pub(super) fn update_model(&mut self, rs: &RateSample) {
        self.delivered = rs.total_delivered;
        self.update_bw(rs);
        self.update_ack_aggregation(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(rs);
        self.update_min_rtt(rs);
        self.update_gains();
    }

    fn valid(rs: &RateSample) -> bool {
        rs.interval.0 > 0
    }

    /// `bbr_update_bw`: round counting and the max-bandwidth filter.
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if !Self::valid(rs) {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs);
        let bw = (u128::from(rs.delivered) * 1_000_000_000 / u128::from(rs.interval.0)) as u64;
        if !rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_ack_aggregation`.
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        let acked = self.packets(rs.acked_sacked);
        if acked == 0 || !Self::valid(rs) {
            return;
        }
        let bw = self.bw();
        self.aggregation.update(
            self.round_start,
            EXTRA_ACKED_WIN_RTTS,
            acked,
            bw,
            self.smss,
            rs.delivered_time,
            self.cwnd,
        );
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let elapsed = rs.delivered_time.saturating_sub(self.cycle_mstamp);
        let is_full_length = self.min_rtt.is_some_and(|m| elapsed > m);
        if self.pacing_gain == UNIT {
            return is_full_length;
        }
        let inflight =
            self.packets_in_net_at_edt(rs.now, rs.pacing_edt, self.packets(rs.prior_in_flight));
        let bw = self.bw.get();
        if self.pacing_gain > UNIT {
            return is_full_length
                && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, UNIT)
    }

    /// `bbr_advance_cycle_phase`.
    fn advance_cycle_phase(&mut self, delivered_time: SimTime) {
        self.cycle_idx = (self.cycle_idx + 1) % PACING_GAIN.len();
        self.cycle_mstamp = delivered_time;
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase(rs.delivered_time);
        }
    }

    /// `bbr_reset_probe_bw_mode`: a random first phase other than the probing one's
    /// predecessor, then the next.
    fn reset_probe_bw_mode(&mut self, delivered_time: SimTime) {
        self.mode = Mode::ProbeBw;
        self.cycle_idx = PACING_GAIN.len() - 1 - self.random_below(CYCLE_RAND) as usize;
        self.advance_cycle_phase(delivered_time);
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, delivered_time: SimTime) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(delivered_time);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, delivered_time: SimTime, lost: u64) {
        self.lt_last_stamp = delivered_time;
        self.lt_last_delivered = self.delivered;
        self.lt_last_lost = lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    pub(super) fn reset_lt_bw_sampling(&mut self) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        let (stamp, lost) = (self.lt_last_stamp, self.lt_last_lost);
        self.reset_lt_bw_sampling_interval(stamp, lost);
    }

    /// `bbr_lt_bw_interval_done`: two consistent lossy intervals mean a policer.
    fn lt_bw_interval_done(&mut self, bw: u64, rs: &RateSample) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * UNIT <= LT_BW_RATIO * self.lt_bw
                || Self::rate_with_gain(diff, UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = (bw + self.lt_bw) / 2;
                self.lt_use_bw = true;
                self.pacing_gain = UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(rs.delivered_time, rs.total_lost);
    }

    /// `bbr_lt_bw_sampling`: long-term bandwidth over lossy intervals of 4–16 rounds.
    pub(super) fn lt_bw_sampling(&mut self, rs: &RateSample) {
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling();
                    self.reset_probe_bw_mode(rs.delivered_time);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(rs.delivered_time, rs.total_lost);
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_bw_sampling();
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling();
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = rs.total_lost.saturating_sub(self.lt_last_lost);
        let delivered = rs.total_delivered.saturating_sub(self.lt_last_delivered);
        if delivered == 0 || lost * UNIT < LT_LOSS_THRESH * delivered {
            return;
        }
        // The kernel times the interval in whole milliseconds.
        let t_ms = rs.delivered_time.0 / 1_000_000 - self.lt_last_stamp.0 / 1_000_000;
        if t_ms < 1 {
            return;
        }
        let bw = delivered * 1000 / t_ms;
        self.lt_bw_interval_done(bw, rs);
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % growth fill the pipe.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh =
            (u128::from(self.full_bw) * u128::from(FULL_BW_THRESH) / u128::from(UNIT)) as u64;
        if self.bw.get() >= thresh {
            self.full_bw = self.bw.get();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, rs: &RateSample) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.ssthresh = self.inflight(self.bw.get(), UNIT) * self.smss;
        }
        if self.mode == Mode::Drain
            && self.packets_in_net_at_edt(rs.now, rs.pacing_edt, self.packets(rs.in_flight))
                <= self.inflight(self.bw.get(), UNIT)
        {
            self.reset_probe_bw_mode(rs.delivered_time);
        }
    }

    /// `bbr_check_probe_rtt_done`.
    pub(super) fn check_probe_rtt_done(&mut self, now: SimTime) {
        if !self.probe_rtt.expired(now) {
            return;
        }
        self.min_rtt_stamp = now;
        self.cwnd = self.cwnd.max(self.prior_cwnd);
        self.reset_mode(now);
    }

    /// `bbr_update_min_rtt`: the 10 s min-RTT filter and PROBE_RTT.
    fn update_min_rtt(&mut self, rs: &RateSample) {
        let now = rs.now;
        let expired = now > self.min_rtt_stamp + MIN_RTT_WIN;
        if rs.rtt != SimTime::MAX && (self.min_rtt.is_none_or(|m| rs.rtt < m) || expired) {
            self.min_rtt = Some(rs.rtt);
            self.min_rtt_stamp = now;
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt.enter();
        }
        if self.mode == Mode::ProbeRtt {
            // The transport marks its samples application-limited meanwhile
            // (`holds_app_limited`).
            let flight = (self.packets(rs.in_flight), CWND_MIN_TARGET);
            let round = (&mut self.next_rtt_delivered, rs.total_delivered);
            if self.probe_rtt.step(now, flight, self.round_start, round) {
                self.check_probe_rtt_done(now);
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw => (
                if self.lt_use_bw {
                    UNIT
                } else {
                    PACING_GAIN[self.cycle_idx]
                },
                CWND_GAIN,
            ),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: packet conservation in the first round of
    /// recovery, the saved window after it; `Some` when conservation sets the window.
    fn recover_or_restore(&mut self, rs: &RateSample, acked: u64) -> (u64, bool) {
        let state = CaState::of(rs);
        let prev = self.prev_ca_state;
        let mut cwnd = self.cwnd;
        let in_flight = self.packets(rs.in_flight);
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(self.packets(rs.losses)).max(1);
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = rs.total_delivered;
            cwnd = in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: slow start towards `cwnd_gain · BDP` (plus the aggregation
    /// allowance), down to it once the pipe is full; 4 packets in PROBE_RTT.
    pub(super) fn set_cwnd(&mut self, rs: &RateSample, acked: u64, bw: u64, gain: u64) {
        let mut cwnd = self.cwnd;
        if acked > 0 {
            let (c, conserving) = self.recover_or_restore(rs, acked);
            cwnd = c;
            if !conserving {
                let target =
                    self.quantization_budget(self.bdp(bw, gain) + self.ack_aggregation_cwnd());
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || rs.total_delivered < INIT_CWND * self.smss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        self.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            self.cwnd = self.cwnd.min(CWND_MIN_TARGET);
        }
    }
}
