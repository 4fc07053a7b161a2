//! When Minstrel probes a rate, and which: the look-around of Linux 3.x `minstrel_ht`
//! (net/mac80211/rc80211_minstrel_ht.c of Linux 3.10-3.13: `minstrel_ht_tx_status`,
//! `minstrel_get_sample_rate`, `minstrel_next_sample_idx`, `init_sample_table`), or a fixed
//! fraction of the PPDUs.
//!
//! The state here is the counters and the sample table; the rules that need the rate
//! statistics (which candidate is acceptable) are in [`super::Minstrel`].

use crate::engine::RngStream;

/// How Minstrel decides to probe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// Each PPDU at the head of the retry chain is, with this probability, a probe of a
    /// rate drawn uniformly among those that could beat max_tp (Tern's generic model,
    /// classic minstrel's 10 % look-around rate).
    Fraction(f64),
    /// Linux 3.10-3.13 `minstrel_ht` ([`LinuxSampler`]).
    Linux3,
}

/// Columns of the sample table (rc80211_minstrel.h SAMPLE_COLUMNS).
pub const SAMPLE_COLUMNS: usize = 10;
/// Rates per MCS group (rc80211_minstrel_ht.h MCS_GROUP_RATES).
pub const GROUP_RATES: usize = 8;

/// Linux 3.x minstrel_ht's probing counters and sample table.
///
/// * After each transmit status (an A-MPDU's Block Ack, or its absence), if no probe is
///   pending or waiting, the next one is armed: `sample_wait` = 16 + 2 × the truncated
///   average A-MPDU length frames, one try (`minstrel_ht_tx_status`), at most `sample_count`
///   times per statistics interval (8 per MCS group, reset at each update).
/// * Each frame given to the rate control first counts `sample_wait` down; once it is zero
///   and a try is armed, the frame asks for a candidate (`minstrel_get_sample_rate`): the
///   next entry of the sample table, walking the groups round-robin; a refused candidate
///   leaves the try armed for the next frame.
///
/// Linux counts frames as mac80211 hands them to the rate control, one call each, once per
/// frame (a retransmission stays in the driver and is not counted again); Tern's MAC asks
/// once per PPDU, so the count goes down by the new frames the MAC takes into its
/// aggregates ([`LinuxSampler::on_frames`]), and a PPDU asks for up to
/// [`LinuxSampler::frames_per_ask`] candidates (as many frames as an average A-MPDU holds
/// would).
#[derive(Clone, Debug)]
pub struct LinuxSampler {
    /// Frames to let pass before the next probe (`sample_wait`).
    wait: u64,
    /// Probes armed (`sample_tries`).
    tries: u32,
    /// Probes that may still be armed in this statistics interval (`sample_count`).
    count: u32,
    /// Probes of slow rates taken in this interval (`sample_slow`).
    pub(super) slow: u32,
    /// Rate positions of each MCS group, slowest first.
    groups: Vec<Vec<usize>>,
    /// `table[column][i]`: a permutation of 0..8 per column.
    table: [[u8; GROUP_RATES]; SAMPLE_COLUMNS],
    /// Per group, the (index, column) the next candidate of that group comes from.
    cursor: Vec<(usize, usize)>,
    /// The group the next candidate comes from (`sample_group`).
    group: usize,
}

impl LinuxSampler {
    /// For rates grouped as `groups` (positions, each group's rates in index order), the
    /// sample table drawn from `rng` as `init_sample_table` draws it from the kernel's
    /// random bytes: in each column, rate i goes to slot (i + r) mod 8, or the next free one.
    /// Starts as `minstrel_ht_update_caps` does with multi-rate retry: 16 probes allowed, no
    /// wait, four tries.
    pub fn new(groups: Vec<Vec<usize>>, rng: &mut RngStream) -> LinuxSampler {
        let mut table = [[u8::MAX; GROUP_RATES]; SAMPLE_COLUMNS];
        for column in table.iter_mut() {
            for i in 0..GROUP_RATES {
                let r = (rng.next_u64() % 256) as usize;
                let mut slot = (i + r) % GROUP_RATES;
                while column[slot] != u8::MAX {
                    slot = (slot + 1) % GROUP_RATES;
                }
                column[slot] = i as u8;
            }
        }
        LinuxSampler {
            wait: 0,
            tries: 4,
            count: 16,
            slow: 0,
            cursor: vec![(0, 0); groups.len()],
            groups,
            table,
            group: 0,
        }
    }

    /// The group of rate position `rate`.
    pub fn group_of(&self, rate: usize) -> usize {
        self.groups
            .iter()
            .position(|g| g.contains(&rate))
            .expect("every rate is in a group")
    }

    /// Whether a probe may be asked for now (the wait is over and a try is armed).
    pub fn armed(&self) -> bool {
        self.wait == 0 && self.tries > 0
    }

    /// Candidates one PPDU may ask for: as many as the frames of an average A-MPDU.
    pub fn frames_per_ask(avg_ampdu: f64) -> usize {
        (libm::floor(avg_ampdu) as usize).max(1)
    }

    /// The next candidate of the sample table (a rate position; `None` for a table entry
    /// past the end of a short group), then the cursor moves on: to the next group, whose
    /// index moves one on (and its column at the end of a column).
    pub fn next_candidate(&mut self) -> Option<usize> {
        let (index, column) = self.cursor[self.group];
        let candidate = self.groups[self.group]
            .get(usize::from(self.table[column][index]))
            .copied();
        self.group = (self.group + 1) % self.groups.len();
        let c = &mut self.cursor[self.group];
        c.0 += 1;
        if c.0 >= GROUP_RATES {
            c.0 = 0;
            c.1 = (c.1 + 1) % SAMPLE_COLUMNS;
        }
        candidate
    }

    /// A candidate was taken: one try fewer.
    pub fn took(&mut self) {
        self.tries -= 1;
    }

    /// `frames` new frames reached the driver: the wait goes down by them.
    pub fn on_frames(&mut self, frames: u32) {
        self.wait = self.wait.saturating_sub(u64::from(frames));
    }

    /// A PPDU got its status: if nothing is waiting or armed, the next probe is armed 16 +
    /// 2 × ⌊`avg_ampdu`⌋ frames ahead.
    pub fn on_status(&mut self, avg_ampdu: f64) {
        if self.wait == 0 && self.tries == 0 && self.count > 0 {
            self.wait = 16 + 2 * libm::floor(avg_ampdu) as u64;
            self.tries = 1;
            self.count -= 1;
        }
    }

    /// A statistics update: 8 probes per group allowed in the next interval ("try to sample
    /// all available rates during each interval"), slow probes counted afresh.
    pub fn on_update(&mut self) {
        self.slow = 0;
        self.count = 8 * self.groups.len() as u32;
    }
}
