//! Which rate Minstrel probes next: a fixed fraction of the PPDUs, or Linux 3.x
//! `minstrel_ht`'s look-around (`minstrel_get_sample_rate`); the counters and the sample table
//! are in [`super::super::sampling`].

use super::super::sampling::LinuxSampler;
use super::super::RateSet;
use super::{Minstrel, MINSTREL_SAMPLE_MAX_SLOWDOWN};

impl<S: RateSet> Minstrel<S> {
    /// The MAC's probe frame was acknowledged or given up (or the association ended):
    /// with `linux_chain` the next PPDU at the head of the chain is no longer that frame's
    /// retry along the probe's series (see the type documentation).
    pub fn probe_frame_done(&mut self) {
        self.probe_pending = None;
    }

    /// True if the last select's probe is the retry of a probe frame whose series was
    /// spent, not a new probe: the MAC sends that frame alone again.
    pub fn retries_probe_frame(&self) -> bool {
        self.reprobe
    }

    /// [`Sampling::Fraction`]: with probability `f`, a rate drawn uniformly among the
    /// candidates.
    pub(super) fn fraction_sample(&mut self, f: f64) -> Option<usize> {
        if !self.rng.bernoulli(f) {
            return None;
        }
        let candidates = self.sample_candidates();
        if candidates.is_empty() {
            return None;
        }
        let k = (self.rng.uniform() * candidates.len() as f64) as usize;
        Some(candidates[k.min(candidates.len() - 1)])
    }

    /// [`Sampling::Linux3`]: once the wait is over and a try armed, the next candidates of
    /// the sample table until one is acceptable ([`Minstrel::linux_accepts`]), one per
    /// frame of an average A-MPDU.
    pub(super) fn linux_sample(&mut self) -> Option<usize> {
        if !self.sampler.as_ref()?.armed() {
            return None;
        }
        for _ in 0..LinuxSampler::frames_per_ask(self.avg_ampdu_mpdus) {
            let sampler = self.sampler.as_mut().expect("checked");
            let Some(c) = sampler.next_candidate() else {
                continue;
            };
            if self.linux_accepts(c) {
                self.sampler.as_mut().expect("checked").took();
                return Some(c);
            }
        }
        None
    }

    /// `minstrel_get_sample_rate`'s tests of candidate `c` (Linux 3.10-3.13): not a rate of
    /// the current table ("sampling might add some overhead ... don't use sampling for the
    /// currently used rates"); not already above 95 % success; and a rate no faster than
    /// max_tp2 that uses more streams than max_prob may (one fewer than max_tp's, at least
    /// one) or is no faster than max_prob ("lower rates get sampled only occasionally") only
    /// after 20 statistics intervals without an attempt, and at most three such per
    /// interval. A rate's airtime in the kernel's table falls as its data rate rises, so
    /// "no faster" stands for its "duration at least".
    fn linux_accepts(&mut self, c: usize) -> bool {
        if c == self.max_tp || c == self.max_tp2 || c == self.max_prob {
            return false;
        }
        if self.rates[c].prob.unwrap_or(0.0) > 0.95 {
            return false;
        }
        let set = &self.config.rates;
        let bps = |i: usize| set.data_rate_bps(self.rates[i].rate);
        let max_prob_streams = set
            .n_ss(self.rates[self.max_tp].rate)
            .saturating_sub(1)
            .max(1);
        let slow = bps(c) <= bps(self.max_tp2)
            && (max_prob_streams < set.n_ss(self.rates[c].rate) || bps(c) <= bps(self.max_prob));
        if slow {
            if self.rates[c].skipped < 20 {
                return false;
            }
            let sampler = self.sampler.as_mut().expect("Linux sampling");
            sampler.slow += 1;
            if sampler.slow > 3 {
                return false;
            }
        }
        true
    }

    /// Rates worth probing now, slowest first (see the type documentation).
    pub(super) fn sample_candidates(&self) -> Vec<usize> {
        let best = self.rates[self.max_tp].tp;
        let slowest_allowed = MINSTREL_SAMPLE_MAX_SLOWDOWN * self.rates[self.max_prob].airtime_ns;
        (0..self.rates.len())
            .filter(|&i| i != self.max_tp && i != self.max_tp2 && i != self.max_prob)
            .filter(|&i| self.rates[i].airtime_ns <= slowest_allowed)
            .filter(|&i| self.throughput(i, 1.0) > best)
            .collect()
    }
}
