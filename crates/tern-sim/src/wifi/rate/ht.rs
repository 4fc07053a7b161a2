//! The MCSs of an 802.11n HT link (Clause 19) as a [`RateSet`]: A-MPDUs answered by a
//! compressed Block Ack.

use super::super::error_model::ht_success_rate_db;
use super::super::frames::{ampdu_len_uniform, max_ampdu_mpdus, mpdu_len, BLOCK_ACK_COMPRESSED};
use super::super::phy::{
    ofdm_txtime, AccessCategory, Band, ChannelWidth, EdcaParams, GuardInterval, HtMcs, HtTxVector,
    OfdmRate, PhyTiming,
};
use super::RateSet;
use crate::engine::SimTime;

/// The MCSs a link may use, at a fixed channel width and guard interval.
///
/// Kept sorted by PHY data rate, slowest first (equal rates, e.g. MCS 1 and MCS 8: lower
/// index first, i.e. fewer streams and a shorter preamble).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HtRateSet {
    mcs: Vec<HtMcs>,
    width: ChannelWidth,
    gi: GuardInterval,
}

impl HtRateSet {
    /// The given MCSs (duplicates removed, sorted by data rate). `None` if `mcs` is empty.
    pub fn new(mcs: &[HtMcs], width: ChannelWidth, gi: GuardInterval) -> Option<HtRateSet> {
        if mcs.is_empty() {
            return None;
        }
        let mut mcs = mcs.to_vec();
        mcs.sort_by_key(|m| (m.n_dbps(width), m.index()));
        mcs.dedup();
        Some(HtRateSet { mcs, width, gi })
    }

    /// MCS 0 up to and including `max`: e.g. MCS 0–7 for one spatial stream, 0–15 for two.
    pub fn up_to(max: HtMcs, width: ChannelWidth, gi: GuardInterval) -> HtRateSet {
        let all: Vec<HtMcs> = (0..=max.index()).filter_map(HtMcs::new).collect();
        HtRateSet::new(&all, width, gi).expect("MCS 0 is always in the range")
    }

    /// The MCSs, slowest first.
    pub fn mcs(&self) -> &[HtMcs] {
        &self.mcs
    }

    pub fn width(&self) -> ChannelWidth {
        self.width
    }

    pub fn gi(&self) -> GuardInterval {
        self.gi
    }

    /// The TXVECTOR for sending at `mcs` in this set's width and guard interval.
    pub fn tx_vector(&self, mcs: HtMcs) -> HtTxVector {
        HtTxVector::new(mcs, self.width, self.gi)
    }
}

impl RateSet for HtRateSet {
    type Rate = HtMcs;

    fn rates(&self) -> &[HtMcs] {
        &self.mcs
    }

    fn data_rate_bps(&self, mcs: HtMcs) -> f64 {
        self.tx_vector(mcs).data_rate_bps()
    }

    fn n_ss(&self, mcs: HtMcs) -> u64 {
        mcs.n_ss()
    }

    fn success(&self, mcs: HtMcs, snr_db: f64, bits: u64) -> f64 {
        ht_success_rate_db(mcs, snr_db, bits)
    }

    fn mpdu_len(&self, ip_bytes: u32) -> u32 {
        mpdu_len(ip_bytes)
    }

    /// What fits in one PPDU ([`max_ampdu_mpdus`]: at MCS 0 only two 1500-byte MPDUs fit in
    /// 5.484 ms).
    fn max_mpdus(&self, mcs: HtMcs, ip_bytes: u32, band: Band) -> u32 {
        max_ampdu_mpdus(ip_bytes, self.tx_vector(mcs), band)
    }

    fn ppdu_txtime(&self, mcs: HtMcs, n: u32, ip_bytes: u32, band: Band) -> SimTime {
        let psdu = ampdu_len_uniform(n, mpdu_len(ip_bytes));
        self.tx_vector(mcs).txtime(psdu, band)
    }

    /// SIFS + a compressed Block Ack at 24 Mbit/s + AIFS (best effort) + CWmin/2 slots
    /// (158.5 µs in 5 GHz), the same for every MCS.
    fn exchange_overhead(&self, _mcs: HtMcs, band: Band) -> SimTime {
        let timing = PhyTiming::ht(band);
        let be = EdcaParams::default_for(AccessCategory::BestEffort, &timing);
        let backoff_half_ns = timing.slot.as_nanos() * u64::from(timing.cw_min) / 2;
        timing.sifs
            + ofdm_txtime(BLOCK_ACK_COMPRESSED, OfdmRate::Mbps24, band)
            + be.aifs(&timing)
            + SimTime::from_nanos(backoff_half_ns)
    }
}
