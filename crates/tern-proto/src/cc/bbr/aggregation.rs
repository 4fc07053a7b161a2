//! ACK aggregation (tcp_bbr.c `bbr_update_ack_aggregation`, `bbr_ack_aggregation_cwnd`; the
//! same in BBR v1 and v3, and draft-ietf-ccwg-bbr "Estimating BBR.extra_acked"): the most
//! data ACKed beyond `bw · interval` over an epoch, the larger of two windows of a few round
//! trips each, added to the window so that the sender keeps sending through ACK silences.

use crate::time::SimTime;

/// Gain applied to the estimate (`bbr_extra_acked_gain`, 1.0).
const EXTRA_ACKED_GAIN: u64 = super::UNIT;
/// An epoch ends when this many packets were ACKed in it (`bbr_ack_epoch_acked_reset_thresh`).
const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
/// The allowance is at most this much time at the bandwidth (`bbr_extra_acked_max_us`).
const EXTRA_ACKED_MAX: SimTime = SimTime(100_000_000);

/// The aggregation estimator's state (`ack_epoch_mstamp`, `ack_epoch_acked`,
/// `extra_acked[2]`, `extra_acked_win_rtts`, `extra_acked_win_idx` of `struct bbr`).
#[derive(Clone, Debug, Default)]
pub(in crate::cc) struct AckAggregation {
    epoch_start: SimTime,
    epoch_acked: u64,
    extra: [u64; 2],
    win_rtts: u32,
    win_idx: usize,
}

impl AckAggregation {
    /// A new epoch starts at `now` (`CA_EVENT_TX_START` after idle).
    pub(in crate::cc) fn restart(&mut self, now: SimTime) {
        self.epoch_start = now;
        self.epoch_acked = 0;
    }

    /// Takes one ACK of `acked` packets delivered at `delivered_time`, with bandwidth
    /// estimate `bw` (bytes/s), window `cwnd` (packets) and the window of the filter in
    /// rounds, `win_rtts`; `round_start` when the ACK starts a round.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::cc) fn update(
        &mut self,
        round_start: bool,
        win_rtts: u32,
        acked: u64,
        bw: u64,
        smss: u64,
        delivered_time: SimTime,
        cwnd: u64,
    ) {
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(0x1f);
            if self.win_rtts >= win_rtts {
                self.win_rtts = 0;
                self.win_idx = 1 - self.win_idx;
                self.extra[self.win_idx] = 0;
            }
        }
        let epoch = delivered_time.saturating_sub(self.epoch_start);
        let mut expected = (u128::from(bw) * u128::from(epoch.0) / 1_000_000_000) as u64 / smss;
        if self.epoch_acked <= expected || self.epoch_acked + acked >= ACK_EPOCH_ACKED_RESET {
            self.epoch_acked = 0;
            self.epoch_start = delivered_time;
            expected = 0;
        }
        self.epoch_acked = (self.epoch_acked + acked).min(0xfffff);
        let extra = (self.epoch_acked - expected.min(self.epoch_acked)).min(cwnd);
        let slot = &mut self.extra[self.win_idx];
        *slot = (*slot).max(extra);
    }

    /// The estimate, packets (`bbr_extra_acked`).
    pub(in crate::cc) fn extra_acked(&self) -> u64 {
        self.extra[0].max(self.extra[1])
    }

    /// The window allowance, packets (`bbr_ack_aggregation_cwnd`): the estimate times its
    /// gain, at most 100 ms at `bw`.
    pub(in crate::cc) fn cwnd(&self, bw: u64, smss: u64) -> u64 {
        let max_aggr =
            (u128::from(bw) * u128::from(EXTRA_ACKED_MAX.0) / 1_000_000_000) as u64 / smss;
        (EXTRA_ACKED_GAIN * self.extra_acked() / super::UNIT).min(max_aggr)
    }
}
