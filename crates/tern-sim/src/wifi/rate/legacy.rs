//! The data rates of a non-HT link as a [`RateSet`]: 802.11g's ERP-OFDM rates (Clause 18,
//! with the OFDM rates of Clause 17, Table 17-4: 6–54 Mbit/s), one MPDU per exchange,
//! answered by an Ack (the DCF, §10.3.2.11).
//!
//! Linux mac80211's `minstrel_ht` drives such a station with its "OFDM group", the eight
//! OFDM rates, through the same statistics as its MCS groups (see [`super::minstrel`]).

use super::super::bss::DcfRate;
use super::super::frames::dcf_mpdu_len;
use super::super::phy::{Band, OfdmRate, PhyTiming};
use super::RateSet;
use crate::engine::SimTime;

/// Non-HT data rates, slowest first, with the DCF timing of their BSS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegacyRateSet {
    rates: Vec<DcfRate>,
    timing: PhyTiming,
}

impl LegacyRateSet {
    /// The given OFDM rates of an ERP BSS of ERP stations only ([`PhyTiming::ERP`]: short
    /// slot), duplicates removed, sorted. `None` if `rates` is empty.
    pub fn erp(rates: &[OfdmRate]) -> Option<LegacyRateSet> {
        if rates.is_empty() {
            return None;
        }
        let mut rates = rates.to_vec();
        rates.sort();
        rates.dedup();
        Some(LegacyRateSet {
            rates: rates.into_iter().map(DcfRate::Ofdm).collect(),
            timing: PhyTiming::ERP,
        })
    }

    /// All eight ERP-OFDM rates, 6 to 54 Mbit/s: what an 802.11g station supports
    /// (Clause 18; hostapd's `hw_mode=g` rate set, Mininet-WiFi's mode g).
    pub fn erp_ofdm() -> LegacyRateSet {
        LegacyRateSet::erp(&OfdmRate::ALL).expect("eight rates")
    }
}

impl RateSet for LegacyRateSet {
    type Rate = DcfRate;

    fn rates(&self) -> &[DcfRate] {
        &self.rates
    }

    fn data_rate_bps(&self, rate: DcfRate) -> f64 {
        rate.bps() as f64
    }

    fn n_ss(&self, _rate: DcfRate) -> u64 {
        1
    }

    fn success(&self, rate: DcfRate, snr_db: f64, bits: u64) -> f64 {
        rate.success(snr_db, bits)
    }

    fn mpdu_len(&self, ip_bytes: u32) -> u32 {
        dcf_mpdu_len(ip_bytes)
    }

    /// One: non-HT PPDUs carry no A-MPDU.
    fn max_mpdus(&self, _rate: DcfRate, _ip_bytes: u32, _band: Band) -> u32 {
        1
    }

    /// One non-QoS Data MPDU per PPDU (`n` is 1).
    fn ppdu_txtime(&self, rate: DcfRate, n: u32, ip_bytes: u32, _band: Band) -> SimTime {
        debug_assert_eq!(n, 1, "no aggregation at non-HT rates");
        rate.txtime(dcf_mpdu_len(ip_bytes))
    }

    /// SIFS + the Ack at the control-response rate for `rate` ([`DcfRate::ack_txtime`]) +
    /// DIFS + CWmin/2 slots: 10 + 28 (Ack at 24 Mbit/s with its signal extension) + 28 +
    /// 67.5 µs = 133.5 µs at 24–54 Mbit/s in an ERP BSS.
    fn exchange_overhead(&self, rate: DcfRate, _band: Band) -> SimTime {
        let t = &self.timing;
        let backoff_half_ns = t.slot.as_nanos() * u64::from(t.cw_min) / 2;
        t.sifs + rate.ack_txtime() + t.difs() + SimTime::from_nanos(backoff_half_ns)
    }
}
