//! The multi-rate retry chain a rate control hands the driver, and how many times the
//! hardware tries each of its rates before the next.
//!
//! # Linux 3.10-3.13 `minstrel_ht` under ath9k
//!
//! `minstrel_ht_update_rates` (net/mac80211/rc80211_minstrel_ht.c) builds a rate table of
//! three entries on hardware with four rate slots (ath9k: `hw->max_rates = 4`): max_tp,
//! max_tp2, max_prob, then an end marker. `minstrel_ht_set_rate` gives each entry a try
//! count: 2 if the rate's EWMA success probability is below 20 % (or not computed yet),
//! otherwise what `minstrel_calc_retransmit` fits into a 6 ms segment
//! (`mp->segment_size = 6000` µs): starting from two tries, one more try is added while the
//! time of all tries so far stays below 6 ms and the count below the hardware's limit
//! (ath9k: `hw->max_rate_tries = 10`). A try costs its data time (the rate's duration of a
//! 1200-byte frame, `group->duration`, times the integer part of the station's average
//! A-MPDU length), the per-frame overhead `mi->overhead` (a 0-byte frame plus a 10-byte
//! Ack at 6 Mbit/s, 48 + 60 = 108 µs in 5 GHz, `ieee80211_frame_duration`) and its mean
//! contention time (9 µs slots times half the contention window, which starts at 15 and
//! doubles plus one per try up to 1023). The second and third entries are sent with
//! RTS/CTS (`offset > 0`) and take the RTS variant of the count, whose overhead adds two
//! Ack durations (228 µs). The integer arithmetic is the kernel's. With ath9k's 4 ms
//! aggregates two tries already exceed 6 ms, so every entry is tried twice.
//!
//! ath9k (drivers/net/wireless/ath/ath9k/xmit.c, `ath_buf_set_rate`) programs the chain
//! into the descriptor as series 0-2 with those counts (`Tries`); the hardware retransmits
//! an A-MPDU that gets no Block Ack at all at the same series until its count is spent,
//! then at the next series. Once the chain is spent the frames go back to the TID's
//! software queue (a software retry) and the next aggregate is formed with the current
//! rate table from its first entry again (`ath_set_rates` per aggregate). An A-MPDU with a
//! Block Ack ends the chain; its failed MPDUs are retried in a new aggregate, again from
//! the first entry. A rate-control probe's series is the probed rate once, then the
//! table's max_tp2 and max_prob with their counts (`rate_control_fill_sta_table`,
//! net/mac80211/rate.c, fills the slots after the probe's from the table's same slots).
//!
//! # Call order
//!
//! [`RetryChain::position`] gives the chain entry for the next PPDU;
//! [`RetryChain::failed`] after a PPDU at that entry got no acknowledgement at all, with
//! the entries' try counts; [`RetryChain::restart`] after any acknowledgement.

/// minstrel's segment size, µs (`mp->segment_size`).
pub const SEGMENT_US: u32 = 6000;
/// ath9k's `hw->max_rate_tries`.
pub const ATH9K_MAX_RATE_TRIES: u32 = 10;
/// minstrel's contention window bounds (`mp->cw_min`, `mp->cw_max`) and its slot time (µs).
const CW_MIN: u32 = 15;
const CW_MAX: u32 = 1023;
const T_SLOT_US: u32 = 9;
/// `mi->overhead` in 5 GHz: `ieee80211_frame_duration` of a 0-byte frame (48 µs) and of a
/// 10-byte Ack (60 µs) at 6 Mbit/s, each with its SIFS, 16 µs preamble and 4 µs SIGNAL.
pub const OVERHEAD_US: u32 = 108;
/// `mi->overhead_rtscts`: the overhead plus two Ack durations.
pub const OVERHEAD_RTSCTS_US: u32 = OVERHEAD_US + 2 * 60;

/// The duration (ns) of a 1200-byte frame's data symbols at `data_rate_bps` with 4 µs
/// symbols (long GI): minstrel_ht's `MCS_DURATION` over its `AVG_PKT_SIZE` of 1200 bytes.
pub fn duration_1200_ns(data_rate_bps: f64) -> u32 {
    let bits_per_symbol = libm::round(data_rate_bps * 4e-6).max(1.0) as u32;
    (1200 * 8_u32).div_ceil(bits_per_symbol) * 4000
}

/// The try count of a chain entry (`minstrel_ht_set_rate` with `minstrel_calc_retransmit`):
/// `prob` the rate's EWMA success probability (`None`: never measured), `duration_ns`
/// from [`duration_1200_ns`], `avg_ampdu_len` the station's average A-MPDU length, `rts`
/// for the second and third entries.
pub fn linux3_tries(prob: Option<f64>, duration_ns: u32, avg_ampdu_len: f64, rts: bool) -> u32 {
    let p = prob.unwrap_or(0.0);
    if p < 0.20 {
        return 2;
    }
    let ampdu_len = avg_ampdu_len.max(0.0) as u32;
    let data = (u64::from(duration_ns) * u64::from(ampdu_len) / 1000) as u32;
    let mut cw = CW_MIN;
    let mut ctime = (T_SLOT_US * cw) >> 1;
    cw = ((cw << 1) | 1).min(CW_MAX);
    ctime += (T_SLOT_US * cw) >> 1;
    cw = ((cw << 1) | 1).min(CW_MAX);
    let mut tx_time = ctime + 2 * (OVERHEAD_US + data);
    let mut tx_time_rts = ctime + 2 * (OVERHEAD_RTSCTS_US + data);
    let (mut count, mut count_rts) = (2, 2);
    loop {
        let ctime = (T_SLOT_US * cw) >> 1;
        cw = ((cw << 1) | 1).min(CW_MAX);
        tx_time += ctime + OVERHEAD_US + data;
        tx_time_rts += ctime + OVERHEAD_RTSCTS_US + data;
        if tx_time_rts < SEGMENT_US {
            count_rts += 1;
        }
        if tx_time >= SEGMENT_US {
            break;
        }
        count += 1;
        if count >= ATH9K_MAX_RATE_TRIES {
            break;
        }
    }
    if rts {
        count_rts
    } else {
        count
    }
}

/// The try counts of Linux 3.x's chain max_tp, max_tp2 (RTS/CTS), max_prob (RTS/CTS),
/// each given as (EWMA success probability, data rate in bit/s), and a fourth entry of one
/// try (unused by a chain of three), for an average A-MPDU length `avg_ampdu_len`.
pub fn linux3_counts(chain: [(Option<f64>, f64); 3], avg_ampdu_len: f64) -> [u32; 4] {
    let tries = |(prob, bps): (Option<f64>, f64), rts: bool| {
        linux3_tries(prob, duration_1200_ns(bps), avg_ampdu_len, rts)
    };
    [
        tries(chain[0], false),
        tries(chain[1], true),
        tries(chain[2], true),
        1,
    ]
}

/// Where a PPDU stands in its retry chain.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetryChain {
    /// Chain entry (0 = the first rate).
    entry: usize,
    /// Tries already spent at this entry.
    tries: u32,
}

impl RetryChain {
    /// The chain entry of the next PPDU.
    pub fn position(&self) -> usize {
        self.entry
    }

    /// True at the first try of the first entry: a new aggregate, where a probe may go.
    pub fn at_head(&self) -> bool {
        self.entry == 0 && self.tries == 0
    }

    /// A PPDU at the current entry got nothing acknowledged. `counts[i]` is entry i's try
    /// count. With `wrap`, a spent chain starts again at entry 0 (ath9k's software retry);
    /// without it the last entry is kept.
    pub fn failed(&mut self, counts: &[u32], wrap: bool) {
        self.tries += 1;
        if self.tries < counts[self.entry].max(1) {
            return;
        }
        self.tries = 0;
        if self.entry + 1 < counts.len() {
            self.entry += 1;
        } else if wrap {
            self.entry = 0;
        }
    }

    /// An acknowledgement ends the chain.
    pub fn restart(&mut self) {
        *self = RetryChain::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1200_byte_frame_at_mcs_7_and_15_lasts_37_and_19_symbols() {
        // 9600 bits over 260 (MCS 7, 65 Mbit/s) and 520 bits per 4 µs symbol (MCS 15).
        assert_eq!(duration_1200_ns(65e6), 37 * 4000);
        assert_eq!(duration_1200_ns(130e6), 19 * 4000);
        assert_eq!(duration_1200_ns(6.5e6), 370 * 4000);
    }

    #[test]
    fn the_try_counts_follow_minstrel_calc_retransmit() {
        // MCS 15, average A-MPDU length 4: data 76 000 · 4 / 1000 = 304 µs a try. Contention
        // of the first two tries 67 + 139 = 206 µs; after two tries 206 + 2 · (108 + 304) =
        // 1030 µs, then + 283 + 412, + 571 + 412, + 1147 + 412 = 4267 µs at five tries, and
        // the sixth (+ 2299 + 412 = 6978) passes 6 ms: five. With RTS (228 µs overhead):
        // 1270, 2085, 3188, 4867, then 7698: five as well.
        let d = duration_1200_ns(130e6);
        assert_eq!(linux3_tries(Some(0.9), d, 4.0, false), 5);
        assert_eq!(linux3_tries(Some(0.9), d, 4.0, true), 5);
        // 4.9 is truncated to 4, as MINSTREL_TRUNC does.
        assert_eq!(linux3_tries(Some(0.9), d, 4.9, false), 5);
        // Average length 32: 2432 µs a try, 5286 µs after two, 8109 after three: two.
        assert_eq!(linux3_tries(Some(0.9), d, 32.0, false), 2);
        assert_eq!(linux3_tries(Some(0.9), d, 32.0, true), 2);
        // Below 20 % success, or never measured: two.
        assert_eq!(linux3_tries(Some(0.15), d, 4.0, false), 2);
        assert_eq!(linux3_tries(None, d, 4.0, false), 2);
        // One MPDU at MCS 15 (76 µs): 206 + 2 · 184 = 574, then + 283, 571, 1147, 2299
        // (+ 184 each): 5610 at six tries, + 4603 + 184 at the seventh: six; the RTS
        // variant (304 µs a try) reaches 814, 1401, 2276, 3727 at five, then 6330: five.
        assert_eq!(linux3_tries(Some(0.5), d, 1.0, false), 6);
        assert_eq!(linux3_tries(Some(0.5), d, 1.0, true), 5);
    }

    #[test]
    fn the_chain_spends_each_count_then_wraps_or_stays() {
        let mut c = RetryChain::default();
        let mut seen = Vec::new();
        for _ in 0..8 {
            seen.push((c.position(), c.at_head()));
            c.failed(&[2, 2, 2], true);
        }
        let positions: Vec<usize> = seen.iter().map(|s| s.0).collect();
        assert_eq!(positions, [0, 0, 1, 1, 2, 2, 0, 0]);
        assert!(seen[0].1 && !seen[1].1 && !seen[2].1 && seen[6].1);
        c.restart();
        assert!(c.at_head());
        let mut c = RetryChain::default();
        let mut positions = Vec::new();
        for _ in 0..6 {
            positions.push(c.position());
            c.failed(&[1, 1, 1, 1], false);
        }
        assert_eq!(positions, [0, 1, 2, 3, 3, 3]);
    }
}
