//! Linux 3.x `minstrel_ht`'s rules about spatial streams, which guard a multi-stream rate
//! against the fast fades that hit spatial multiplexing first (net/mac80211/
//! rc80211_minstrel_ht.c of Linux 3.10-3.14; the wlan-bufferbloat station runs 3.13):
//!
//! * **max_prob uses fewer streams than max_tp** (`minstrel_ht_update_stats`: "max_prob_rate
//!   must use only one stream, as a tradeoff between delivery probability and throughput
//!   during strong fluctuations"). Within each MCS group (one stream count here: the width
//!   and guard interval are fixed) the rates are walked slowest first, skipping those whose
//!   throughput estimate is zero (success below 10 %); a rate becomes the group's max_prob
//!   when it beats the group's current one in throughput while its success probability
//!   exceeds 3/4, or when its probability is simply higher. Across the groups with at most
//!   `max(1, streams(max_tp) − 1)` streams, the group max_prob with the best throughput is
//!   the station's; if none has a throughput above zero, the slowest rate.
//! * **Sudden death of spatial multiplexing** (`minstrel_ht_tx_status`,
//!   `minstrel_downgrade_rate`): after each transmit status, if max_tp has more than 30 MPDU
//!   attempts in the current statistics interval and less than 20 % of them succeeded, max_tp
//!   drops at once to the best-throughput rate (as of the last statistics update) of the
//!   nearest group with fewer streams; the same for max_tp2, to that group's second best.
//!   The next statistics update picks the rates afresh.
//!
//! Written from the kernel's source comments and behaviour as described above, not from its
//! code; Tern's floating-point estimates stand for the kernel's fixed-point ones.

/// The two best rates of one MCS group (one spatial-stream count), as of the last
/// statistics update: indices into the controller's rate list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GroupLeaders {
    pub n_ss: u64,
    pub max_tp: usize,
    pub max_tp2: usize,
}

/// MPDU attempts in the current interval above which max_tp's delivery is judged
/// (`minstrel_ht_tx_status`: `attempts > 30`).
pub(super) const SUDDEN_DEATH_ATTEMPTS: u64 = 30;
/// Delivery ratio below which max_tp is abandoned for fewer streams (`< 20 %`).
pub(super) const SUDDEN_DEATH_RATIO: f64 = 0.20;

/// Each group's best and second-best rate by throughput (ties: higher probability, then
/// the slower rate), groups in increasing stream count. `n_ss`, `tp` and `prob` are
/// indexed like the rate list, which is ordered slowest first within each stream count.
pub(super) fn group_leaders(n_ss: &[u64], tp: &[f64], prob: &[f64]) -> Vec<GroupLeaders> {
    let mut counts: Vec<u64> = n_ss.to_vec();
    counts.sort_unstable();
    counts.dedup();
    counts
        .into_iter()
        .map(|n| {
            let mut members: Vec<usize> = (0..n_ss.len()).filter(|&i| n_ss[i] == n).collect();
            // Stable: among equals the slower (earlier) rate stays first.
            members.sort_by(|&a, &b| tp[b].total_cmp(&tp[a]).then(prob[b].total_cmp(&prob[a])));
            GroupLeaders {
                n_ss: n,
                max_tp: members[0],
                max_tp2: members.get(1).copied().unwrap_or(members[0]),
            }
        })
        .collect()
}

/// Linux 3.x's max_prob (see the module documentation), given max_tp's stream count.
pub(super) fn max_prob(n_ss: &[u64], tp: &[f64], prob: &[f64], max_tp_streams: u64) -> usize {
    let allowed = max_tp_streams.saturating_sub(1).max(1);
    let mut best: Option<(usize, f64)> = None;
    for group in group_leaders(n_ss, tp, prob) {
        if group.n_ss > allowed {
            continue;
        }
        let mut chosen: Option<usize> = None;
        let (mut cur_prob, mut cur_prob_tp) = (0.0, 0.0);
        for i in (0..n_ss.len()).filter(|&i| n_ss[i] == group.n_ss) {
            if tp[i] <= 0.0 {
                continue;
            }
            if (tp[i] > cur_prob_tp && prob[i] > 0.75) || prob[i] > cur_prob {
                chosen = Some(i);
                cur_prob = prob[i];
                cur_prob_tp = tp[i];
            }
        }
        if let Some(i) = chosen {
            if best.is_none_or(|(_, t)| tp[i] > t) {
                best = Some((i, tp[i]));
            }
        }
    }
    best.map_or(0, |(i, _)| i)
}

/// The rate `current` (of `streams` streams) falls to when its delivery dies: the leader
/// (`primary`: best, else second best) of the nearest group with fewer streams; `None`
/// when no group has fewer.
pub(super) fn downgrade(groups: &[GroupLeaders], streams: u64, primary: bool) -> Option<usize> {
    groups
        .iter()
        .rev()
        .find(|g| g.n_ss < streams)
        .map(|g| if primary { g.max_tp } else { g.max_tp2 })
}

/// Whether a rate with `attempts` MPDU attempts and `successes` acknowledged in the current
/// interval has died (`minstrel_ht_tx_status`).
pub(super) fn died(attempts: u64, successes: u64) -> bool {
    attempts > SUDDEN_DEATH_ATTEMPTS && (successes as f64) < SUDDEN_DEATH_RATIO * attempts as f64
}

#[cfg(test)]
mod tests {
    use super::super::super::phy::{Band, ChannelWidth, GuardInterval, HtMcs};
    use super::super::minstrel::{MinstrelConfig, MinstrelHt};
    use super::super::{HtRateSet, Sampling};
    use super::*;
    use crate::engine::{RngStream, SimTime};

    fn mcs(i: u8) -> HtMcs {
        HtMcs::new(i).unwrap()
    }

    /// A Linux 3.x controller over MCS 0-15 (20 MHz, long GI) without probes, after one
    /// 50 ms interval in which MCS 0, MCS 4 (39 Mbit/s, one stream) and MCS 12 (78 Mbit/s,
    /// two streams) delivered every MPDU. Each report is a status of its own (no ath9k
    /// submission gathers them: `linux_chain` off), as minstrel_ht's stream rules read
    /// statuses.
    fn after_clean_interval(stream_rules: bool) -> MinstrelHt {
        let set = HtRateSet::up_to(mcs(15), ChannelWidth::Mhz20, GuardInterval::Long);
        let mut mi = MinstrelHt::new(
            MinstrelConfig {
                sampling: Sampling::Fraction(0.0),
                stream_rules,
                linux_chain: false,
                ..MinstrelConfig::linux_3(set, Band::Ghz5)
            },
            RngStream::new(1, "unit"),
        );
        let t0 = SimTime::ZERO;
        mi.select(t0);
        mi.report(t0, mcs(0), 2, 2, 0);
        mi.report(t0, mcs(4), 16, 16, 0);
        mi.report(t0, mcs(12), 16, 16, 0);
        mi.report(SimTime::from_millis(50), mcs(0), 1, 1, 0);
        mi
    }

    /// minstrel_ht_update_stats: max_prob takes at most max(1, streams(max_tp) − 1)
    /// streams. Both MCS 4 and MCS 12 are fully reliable; MCS 12 is max_tp, so max_prob is
    /// the best one-stream rate, MCS 4, where the stream-blind rule takes MCS 12.
    #[test]
    fn max_prob_uses_fewer_streams_than_max_tp() {
        let mi = after_clean_interval(true);
        assert_eq!((mi.max_tp(), mi.max_tp2()), (mcs(12), mcs(4)));
        assert_eq!(mi.max_prob(), mcs(4));
        assert_eq!(after_clean_interval(false).max_prob(), mcs(12));
    }

    /// minstrel_ht_tx_status: more than 30 MPDU attempts at max_tp in the interval with
    /// less than 20 % delivered move max_tp to the one-stream group's best rate at once.
    #[test]
    fn sudden_death_of_spatial_multiplexing() {
        let t = SimTime::from_millis(60);
        let mut mi = after_clean_interval(true);
        mi.report(t, mcs(12), 30, 0, 0);
        assert_eq!(mi.max_tp(), mcs(12), "30 attempts are not enough");
        mi.report(t, mcs(12), 1, 0, 0);
        assert_eq!(mi.max_tp(), mcs(4), "31 are");
        assert_eq!(mi.select(t).rate, mcs(4));
        let mut mi = after_clean_interval(true);
        mi.report(t, mcs(12), 31, 7, 0);
        mi.report(t, mcs(12), 4, 0, 0);
        assert_eq!(mi.max_tp(), mcs(12), "7 of 35 is not below 20 %");
        mi.report(t, mcs(12), 1, 0, 0);
        assert_eq!(mi.max_tp(), mcs(4), "7 of 36 is");
        let mut blind = after_clean_interval(false);
        blind.report(t, mcs(12), 32, 0, 0);
        assert_eq!(blind.max_tp(), mcs(12));
    }

    /// The per-group walk, slowest first: a rate above 3/4 with more throughput wins, else
    /// only a higher probability; rates without throughput are skipped.
    #[test]
    fn max_prob_walk_within_a_group() {
        let n_ss = [1, 1, 1, 2];
        // MCS 0 certain; MCS 1 at 0.8 with more throughput; MCS 2 at 0.5; MCS 8 best.
        let tp = [6.0, 10.0, 9.0, 20.0];
        let prob = [1.0, 0.8, 0.5, 0.9];
        assert_eq!(max_prob(&n_ss, &tp, &prob, 2), 1);
        // Nothing above 3/4 but MCS 0: the higher probability keeps it.
        let prob = [0.7, 0.6, 0.65, 0.9];
        assert_eq!(max_prob(&n_ss, &tp, &prob, 2), 0);
        // No throughput anywhere allowed: the slowest rate.
        assert_eq!(max_prob(&n_ss, &[0.0, 0.0, 0.0, 5.0], &prob, 2), 0);
        let groups = group_leaders(&n_ss, &tp, &prob);
        assert_eq!(downgrade(&groups, 2, true), Some(1));
        assert_eq!(downgrade(&groups, 2, false), Some(2));
        assert_eq!(downgrade(&groups, 1, true), None);
    }
}
