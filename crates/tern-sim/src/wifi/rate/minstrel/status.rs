//! What Minstrel learns from a PPDU's outcome: the retry chain moves on at every try; the
//! statistics take a hardware submission's status, which under ath9k
//! ([`MinstrelConfig::linux_chain`](super::MinstrelConfig::linux_chain)) comes only when a
//! frame of the submission completes.
//!
//! # ath9k's status rule
//!
//! ath9k hands the hardware an A-MPDU with its rate series; the hardware walks the series
//! until a Block Ack comes or the series is spent, and the driver gets one completion
//! (`ath_tx_complete_aggr`, drivers/net/wireless/ath/ath9k/xmit.c). It passes a status to
//! mac80211's rate control (`ath_tx_rc_status`) with the first frame of the aggregate that
//! completes, acknowledged or given up after ATH_MAX_SW_RETRIES (the `rc_update` flag,
//! set when `acked_cnt` or `txfail_cnt` reaches 1); that status carries the series' try
//! counts up to the entry that ended it, the aggregate's frame count and how many were
//! acknowledged. Frames that are neither go back to the TID's software queue for a
//! software retry, and when every frame does, as when a fade takes the whole series,
//! minstrel_ht hears nothing of the submission. minstrel_ht's `minstrel_ht_tx_status`
//! (net/mac80211/rc80211_minstrel_ht.c) then counts each series entry's tries times the
//! frame count as attempts and the acknowledged frames as successes of the last entry,
//! counts the A-MPDU's length, arms the next probe, checks the "sudden death" of the
//! multi-stream rates and, once the update interval is over, updates the statistics: all
//! of it per status, so none of it happens in a submission that completes no frame.
//!
//! Tern's MAC reports each try of the series as a PPDU ([`Minstrel::report`]), with the
//! MPDUs acknowledged and those given up; with `linux_chain` the tries are kept until the
//! submission ends (an acknowledgement, or the chain back at max_tp) and accounted only if
//! a frame completed in it. Without it every try is a status of its own.

use super::super::RateSet;
use super::Minstrel;
use crate::engine::SimTime;

impl<S: RateSet> Minstrel<S> {
    /// The outcome of a PPDU sent at `rate`: `attempted` MPDUs, `succeeded` acknowledged,
    /// `dropped` given up by the MAC after it (their last try). Reports for a rate outside
    /// the configured set, or with `attempted` = 0, are ignored; `succeeded` is capped at
    /// `attempted`. The retry chain moves on (an acknowledgement returns it to max_tp);
    /// the statistics take the try as the module documentation says.
    pub fn report(
        &mut self,
        now: SimTime,
        rate: S::Rate,
        attempted: u32,
        succeeded: u32,
        dropped: u32,
    ) {
        let Some(index) = self.config.rates.position(rate) else {
            return;
        };
        if attempted == 0 {
            return;
        }
        let succeeded = succeeded.min(attempted);
        let linux = self.config.linux_chain;
        if succeeded > 0 {
            self.chain.restart();
            self.probe_series = false;
        } else {
            let (chain, probe) = self.chain_after_failure(index);
            self.chain = chain;
            if probe {
                self.probe_series = true;
            } else if self.pending_sample != Some(index) {
                // A spent series ends the probe's: its frame goes back to the software
                // queue.
                self.probe_series &= !self.chain.at_head();
            }
        }
        self.pending_sample = None;
        if !linux {
            self.account(now, &[(index, attempted)], succeeded);
            return;
        }
        self.series.push((index, attempted));
        self.series_completed |= succeeded > 0 || dropped > 0;
        if succeeded > 0 || self.chain.at_head() {
            let tries = std::mem::take(&mut self.series);
            if self.series_completed {
                self.account(now, &tries, succeeded);
            }
            self.series = tries;
            self.series.clear();
            self.series_completed = false;
        }
    }

    /// True if a try at `rate`, the last selected, that gets no acknowledgement ends its
    /// hardware submission: with `linux_chain` when the chain is then back at max_tp (the
    /// series spent, ath9k's software retry next); without it every try is a submission.
    pub fn failure_ends_series(&self, rate: S::Rate) -> bool {
        let Some(index) = self.config.rates.position(rate) else {
            return true;
        };
        !self.config.linux_chain || self.chain_after_failure(index).0.at_head()
    }

    /// The retry chain after a try at rate `index` got no acknowledgement, and whether it
    /// was a Linux 3.x probe, whose own series follows: the probed rate once, then the
    /// table's max_tp2 and max_prob with their counts (`rate_control_fill_sta_table`).
    fn chain_after_failure(&self, index: usize) -> (super::RetryChain, bool) {
        let linux = self.config.linux_chain;
        let mut chain = self.chain;
        let mut counts = self.chain_counts();
        if self.pending_sample != Some(index) {
            chain.failed(&counts[..if linux { 3 } else { 4 }], linux);
            (chain, false)
        } else if linux {
            counts[0] = 1;
            chain.failed(&counts[..3], true);
            (chain, true)
        } else {
            (chain, false)
        }
    }

    /// One status: each try's MPDUs count as attempts of its rate, `succeeded` as
    /// successes of the last; the A-MPDU's length (the last try's) and one A-MPDU for the
    /// average; then the probe counter, the stream rules and the update.
    fn account(&mut self, now: SimTime, tries: &[(usize, u32)], succeeded: u32) {
        for &(i, attempted) in tries {
            self.rates[i].attempts += u64::from(attempted);
        }
        let &(last, mpdus) = tries.last().expect("a try");
        self.rates[last].successes += u64::from(succeeded);
        self.interval_mpdus += u64::from(mpdus);
        self.interval_ampdus += 1;
        let avg = self.avg_ampdu_mpdus;
        if let Some(s) = self.sampler.as_mut() {
            s.on_status(avg);
        }
        if self.config.stream_rules {
            self.sudden_death();
        }
        self.maybe_update(now);
    }
}
