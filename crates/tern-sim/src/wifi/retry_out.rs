//! The retry-out index: an access point's receiver-side countermeasure to bufferbloat in
//! 802.11n upload TCP ("AP-side countermeasure to bufferbloat in IEEE 802.11n upload TCP",
//! University of Electro-Communications, IPSJ Journal 58(2), 2017; the wlan-bufferbloat
//! study, `scenarios/wlan-bufferbloat/`).
//!
//! A station's MAC retries an MPDU up to its own limit (30 in ath9k), so at a low data rate
//! TCP sees no loss and its window fills the station's send queue. The AP cannot change
//! the station's limit, but its driver can act as if a lower one had run out (§3.1):
//!
//! * per station, an EWMA of the data rate of every received A-MPDU, weight 0.25
//!   (§3.2 (1)), picks the *retry-out index* from Table 1: below 25 Mbit/s 2, below
//!   50 Mbit/s 5, below 100 Mbit/s 8, else not applied ([`IndexRule::paper`]); §4.4 also
//!   runs a fixed index (2, 5 or 8) instead ([`IndexRule::Fixed`]);
//! * per MPDU, the receptions with a bad FCS are counted from the sequence number in the
//!   CRC-failed MPDU's header, which the chip passes to the driver as decoded, so it may be
//!   wrong (§3.1; [`super::bss::RxMpdu::sn_read`]); it is trusted unless it contradicts the
//!   reordering window (§3.1, §3.2 (3)): a failed MPDU whose SN reads outside
//!   [WinStartB, WinStartB + 63] is not counted, one misread inside it is counted against
//!   the SN it reads as. Whether it carries TCP is read from its IPv4 Protocol octet, as
//!   decoded too. The count covers both selective retransmissions and whole-A-MPDU
//!   timeouts (§3.2 (3));
//! * when an MPDU carrying TCP has failed more times than the index in force (§3.2 (2):
//!   estimated retransmissions above the index; Fig. 3: the third failed reception with
//!   index 2), it is declared lost ([`Declared`]): the device stops waiting for it ("moves on
//!   to the next MPDU", §3.2 (2)), passes up what was held behind it, and an intact copy
//!   arriving later is acknowledged by the chip but ignored by the driver (§3.2 (4);
//!   [`super::blockack::Recipient::give_up`]). Other MPDUs follow the standard rules: a
//!   missing MPDU that does not carry TCP (a ping) before a declared one is not skipped
//!   with it, it keeps holding the reordering window until it arrives, a BlockAckReq
//!   passes it or the reorder-release timeout gives it up.
//!
//! The count of an SN is forgotten once it arrives intact or the window moves past it; a
//! declared SN is not counted again while the window still holds it (behind a gap).

use super::ap_rx::{ApAmpdu, ApRxStrategy, Declared};
use super::blockack::{sn_offset, RECIPIENT_WIN_SIZE};
use std::collections::{BTreeMap, BTreeSet};

/// EWMA weight of a new A-MPDU's data rate (§3.2 (1): smoothing coefficient 0.25).
pub const PAPER_WEIGHT: f64 = 0.25;

/// One row of the index table: smoothed rates below `below_bps` (and at or above the
/// previous row's) get `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub below_bps: u64,
    pub index: u32,
}

/// Table 1 of the paper: < 25 Mbit/s → 2, 25–50 → 5, 50–100 → 8, ≥ 100 → not applied.
pub const PAPER_TABLE: [Step; 3] = [
    Step {
        below_bps: 25_000_000,
        index: 2,
    },
    Step {
        below_bps: 50_000_000,
        index: 5,
    },
    Step {
        below_bps: 100_000_000,
        index: 8,
    },
];

/// How the index follows the smoothed rate.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexRule {
    /// Rows in increasing `below_bps`; at or above the last row's bound the index is not
    /// applied.
    Table(Vec<Step>),
    /// The same index at every rate (§4.4).
    Fixed(u32),
}

impl IndexRule {
    /// Table 1 of the paper ([`PAPER_TABLE`]).
    pub fn paper() -> IndexRule {
        IndexRule::Table(PAPER_TABLE.to_vec())
    }

    /// The index at smoothed rate `bps`, if one applies.
    pub fn index(&self, bps: f64) -> Option<u32> {
        match self {
            IndexRule::Fixed(i) => Some(*i),
            IndexRule::Table(steps) => steps
                .iter()
                .find(|s| bps < s.below_bps as f64)
                .map(|s| s.index),
        }
    }
}

/// The parameters: EWMA weight and index rule.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryOutConfig {
    /// Weight of each new A-MPDU's rate in the EWMA, in (0, 1].
    pub weight: f64,
    pub rule: IndexRule,
    /// Read failed MPDUs' headers as sent ([`super::ap_rx::SeenMpdu::sent`]) instead of as decoded: an
    /// idealised driver, for a sensitivity.
    pub exact_headers: bool,
}

impl RetryOutConfig {
    /// The paper's: weight 0.25, Table 1.
    pub fn paper() -> RetryOutConfig {
        RetryOutConfig {
            weight: PAPER_WEIGHT,
            rule: IndexRule::paper(),
            exact_headers: false,
        }
    }
}

/// What the AP keeps for one station.
#[derive(Clone, Debug, Default)]
struct Station {
    /// Smoothed data rate of the received A-MPDUs, bit/s (the first A-MPDU's rate at first).
    ewma_bps: Option<f64>,
    /// Receptions with a bad FCS, per SN in the reordering window.
    failures: BTreeMap<u16, u32>,
    /// SNs declared lost that the window has not passed yet.
    declared: BTreeSet<u16>,
}

/// The retry-out index of an AP, for all its stations. Sans-IO: fed what the driver sees
/// ([`ApRxStrategy::on_ampdu`]), it answers which MPDUs to declare lost.
#[derive(Clone, Debug)]
pub struct RetryOutIndex {
    cfg: RetryOutConfig,
    stations: BTreeMap<usize, Station>,
}

impl RetryOutIndex {
    pub fn new(cfg: RetryOutConfig) -> RetryOutIndex {
        RetryOutIndex {
            cfg,
            stations: BTreeMap::new(),
        }
    }

    /// The smoothed rate of `station`'s A-MPDUs so far, bit/s.
    pub fn ewma_bps(&self, station: usize) -> Option<f64> {
        self.stations.get(&station).and_then(|s| s.ewma_bps)
    }

    /// The bad-FCS receptions counted for `station`'s SN `sn`.
    pub fn failures(&self, station: usize, sn: u16) -> u32 {
        self.stations
            .get(&station)
            .and_then(|s| s.failures.get(&sn).copied())
            .unwrap_or(0)
    }
}

impl ApRxStrategy for RetryOutIndex {
    fn on_ampdu(&mut self, a: &ApAmpdu<'_>) -> Vec<Declared> {
        let (rate_bps, win_start) = (a.rate_bps, a.win_start);
        let st = self.stations.entry(a.station).or_default();
        let w = self.cfg.weight;
        let ewma = st
            .ewma_bps
            .map_or(rate_bps, |old| (1.0 - w) * old + w * rate_bps);
        st.ewma_bps = Some(ewma);
        let in_window = |sn: u16| sn_offset(win_start, sn) < RECIPIENT_WIN_SIZE;
        // SNs the window has moved past are done with (passed up, skipped or given up).
        st.failures.retain(|&sn, _| in_window(sn));
        st.declared.retain(|&sn| in_window(sn));
        let mut candidates = Vec::new();
        for m in a.mpdus {
            let (sn, tcp) = if self.cfg.exact_headers {
                m.sent
            } else {
                (m.sn, m.tcp)
            };
            if st.declared.contains(&sn) {
                continue;
            }
            if m.fcs_ok {
                st.failures.remove(&sn);
            } else if in_window(sn) {
                *st.failures.entry(sn).or_insert(0) += 1;
                if tcp {
                    candidates.push(sn);
                }
            }
        }
        let Some(index) = self.cfg.rule.index(ewma) else {
            return Vec::new();
        };
        candidates.sort_by_key(|&sn| sn_offset(win_start, sn));
        candidates.dedup();
        let mut declared = Vec::new();
        for sn in candidates {
            // A misread SN may be one an intact MPDU of the same A-MPDU carried.
            let Some(&failures) = st.failures.get(&sn) else {
                continue;
            };
            if failures > index {
                st.failures.remove(&sn);
                st.declared.insert(sn);
                declared.push(Declared {
                    sn,
                    failures,
                    index,
                    ewma_bps: ewma,
                });
            }
        }
        declared
    }
}

#[cfg(test)]
mod tests;
