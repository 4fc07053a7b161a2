//! The PHY and MAC parameters of a BSS.

use super::super::error_model::{db_to_linear, dsss_success_rate, ofdm_rate_success_rate};
use super::super::frames::{AmpduLimits, ACK};
use super::super::phy::{
    dsss_control_response_rate, dsss_txtime, ofdm_control_response_rate, ofdm_txtime, Band,
    ChannelWidth, DsssPreamble, DsssRate, GuardInterval, OfdmRate, PhyTiming, DSSS_EIFS_ACK_TXTIME,
};
use crate::engine::SimTime;

/// The PHY of a BSS and the parameters that follow from it.
#[derive(Clone, Debug)]
pub enum Phy {
    /// 802.11b: DSSS/HR-DSSS at one data rate (Clauses 15, 16).
    Dsss {
        rate: DsssRate,
        preamble: DsssPreamble,
    },
    /// 802.11g: ERP-OFDM (Clause 18, with the OFDM PPDUs and rates of Clause 17) in the
    /// 2.4 GHz band, in a BSS of ERP stations only (short slot, no protection). Like
    /// 802.11b it uses the DCF: one MPDU per exchange, answered by an Ack. `rate`: every
    /// Data frame at this rate; `None`: each sender picks the rate of each frame to each
    /// peer with its rate control.
    Erp { rate: Option<OfdmRate> },
    /// 802.11n HT-mixed format (Clause 19).
    Ht {
        band: Band,
        width: ChannelWidth,
        gi: GuardInterval,
    },
}

impl Phy {
    /// Whether the PHY uses the DCF (802.11b, 802.11g): one MPDU per exchange, an Ack.
    pub fn is_dcf(&self) -> bool {
        matches!(self, Phy::Dsss { .. } | Phy::Erp { .. })
    }

    /// Whether each sender adapts its rate per peer: 802.11n, and 802.11g without a fixed
    /// rate.
    pub fn adapts_rate(&self) -> bool {
        matches!(self, Phy::Ht { .. } | Phy::Erp { rate: None })
    }

    /// aSlotTime, aSIFSTime, aCWmin, aCWmax of the PHY.
    pub fn timing(&self) -> PhyTiming {
        match self {
            Phy::Dsss { .. } => PhyTiming::DSSS,
            Phy::Erp { .. } => PhyTiming::ERP,
            Phy::Ht { band, .. } => PhyTiming::ht(*band),
        }
    }

    /// aRxPHYStartDelay: 192 µs for DSSS with the long preamble, 96 µs with the short one
    /// (Table 16-4), 25 µs for 20 MHz OFDM (Table 17-21; ERP-OFDM PPDUs are Clause 17's),
    /// 33 µs for HT (Table 19-25).
    pub fn rx_phy_start_delay(&self) -> SimTime {
        match self {
            Phy::Dsss {
                preamble: DsssPreamble::Long,
                ..
            } => SimTime::from_micros(192),
            Phy::Dsss { .. } => SimTime::from_micros(96),
            Phy::Erp { .. } => SimTime::from_micros(25),
            Phy::Ht { .. } => SimTime::from_micros(33),
        }
    }

    /// The AIFSN of the access category used for data: 2 for the DCF (DIFS = SIFS + 2 slots),
    /// 3 for EDCA best effort (Table 9-155).
    pub fn aifsn(&self) -> u32 {
        match self {
            Phy::Dsss { .. } | Phy::Erp { .. } => 2,
            Phy::Ht { .. } => 3,
        }
    }

    /// The Ack TXTIME that EIFS uses (§10.3.2.3.7): an Ack "at the lowest PHY mandatory
    /// rate". For 802.11b and for ERP, whose mandatory rates include the DSSS 1 Mbit/s of
    /// Clause 15 (Clause 18), that is 1 Mbit/s with the long preamble: 304 µs; for HT, 6 Mbit/s
    /// OFDM.
    pub fn eifs_ack_txtime(&self) -> SimTime {
        match self {
            Phy::Dsss { .. } | Phy::Erp { .. } => DSSS_EIFS_ACK_TXTIME,
            Phy::Ht { band, .. } => ofdm_txtime(ACK, OfdmRate::Mbps6, *band),
        }
    }
}

/// The data rate of a DCF PHY (802.11b or 802.11g), which sends one MPDU per exchange and
/// gets an Ack back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DcfRate {
    Dsss(DsssRate, DsssPreamble),
    Ofdm(OfdmRate),
}

impl DcfRate {
    /// The fixed DCF rate of `phy`, `None` for HT and for an 802.11g BSS that adapts its
    /// rates.
    pub fn of(phy: &Phy) -> Option<DcfRate> {
        match *phy {
            Phy::Dsss { rate, preamble } => Some(DcfRate::Dsss(rate, preamble)),
            Phy::Erp { rate } => rate.map(DcfRate::Ofdm),
            Phy::Ht { .. } => None,
        }
    }

    pub fn bps(self) -> u64 {
        match self {
            DcfRate::Dsss(rate, _) => rate.bps(),
            DcfRate::Ofdm(rate) => rate.bps(),
        }
    }

    /// TXTIME of a PPDU carrying `bytes` PSDU octets: §16.3.4 (DSSS; the preamble and rate
    /// were validated together) or §17.4.3 plus the 6 µs ERP signal extension (Clause 18).
    pub fn txtime(self, bytes: u32) -> SimTime {
        match self {
            DcfRate::Dsss(rate, preamble) => {
                dsss_txtime(bytes, rate, preamble).expect("validated preamble and rate")
            }
            DcfRate::Ofdm(rate) => ofdm_txtime(bytes, rate, Band::Ghz2_4),
        }
    }

    /// TXTIME of the Ack answering a Data frame at this rate, at the control-response rate
    /// of §10.6.6.5.2: for 802.11b the highest basic rate (1, 2 Mbit/s) not above it; for
    /// 802.11g the highest mandatory OFDM rate (6, 12, 24 Mbit/s) not above it: a BSS of
    /// 802.11g stations has the DSSS rates as its basic rates (hostapd's default for
    /// hw_mode=g, and Linux mac80211's), none of the OFDM modulation class, so the rule falls
    /// back to the mandatory rates of the eliciting frame's class.
    pub fn ack_txtime(self) -> SimTime {
        match self {
            DcfRate::Dsss(rate, preamble) => {
                let ack = dsss_control_response_rate(rate, &[DsssRate::Mbps1, DsssRate::Mbps2]);
                dsss_txtime(ACK, ack, preamble).expect("1 and 2 Mbit/s")
            }
            DcfRate::Ofdm(rate) => {
                ofdm_txtime(ACK, ofdm_control_response_rate(rate, &[]), Band::Ghz2_4)
            }
        }
    }

    /// Probability that an MPDU of `bits` bits arrives at `snr_db`: the DSSS models or the
    /// NIST OFDM model (see `error_model`).
    pub fn success(self, snr_db: f64, bits: u64) -> f64 {
        let snr = db_to_linear(snr_db);
        match self {
            DcfRate::Dsss(rate, _) => dsss_success_rate(rate, snr, bits),
            DcfRate::Ofdm(rate) => ofdm_rate_success_rate(rate, snr, bits),
        }
    }

    /// A key of this rate for the success cache, apart from the HT MCS indices (0–31).
    pub fn cache_key(self) -> u8 {
        match self {
            DcfRate::Dsss(rate, _) => u8::MAX - rate as u8,
            DcfRate::Ofdm(rate) => u8::MAX - 4 - rate as u8,
        }
    }
}

/// The MAC parameters of a BSS, shared by the AP and its stations.
#[derive(Clone, Debug)]
pub struct Config {
    pub phy: Phy,
    /// MAC transmit queue of each entity, in packets (frames held by a Block Ack originator
    /// count too).
    pub queue_limit: usize,
    /// 802.11b: transmission attempts of a frame before it is dropped; 802.11n: per MPDU.
    pub retry_limit: u32,
    pub ampdu: AmpduLimits,
    /// Fixed per-MPDU error rate (for calibration), on top of the SNR-based errors.
    pub mpdu_error: f64,
    /// MSDU lifetime (dot11EDCATableMSDULifetime, IEEE 802.11-2020 Annex C): a frame still waiting in
    /// the MAC queue this long after it entered is discarded.
    pub lifetime: Option<SimTime>,
    /// 802.11n: how long a received MPDU may wait in a reordering buffer behind a gap
    /// before the gap is given up on (Linux mac80211's HT_RX_REORDER_BUF_TIMEOUT,
    /// [`super::super::blockack::Recipient::with_reorder_timeout`]); `None`: until a
    /// BlockAckReq, as the standard has it.
    pub reorder_timeout: Option<SimTime>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> SimTime {
        SimTime::from_micros(x)
    }

    #[test]
    fn erp_exchange_times_follow_clauses_17_and_18() {
        // 20 µs preamble and SIGNAL + 4 µs per symbol of N_DBPS bits (16 SERVICE + 8 · bytes
        // + 6 tail) + the 6 µs signal extension (§17.4.3, Clause 18).
        let r54 = DcfRate::Ofdm(OfdmRate::Mbps54);
        assert_eq!(r54.txtime(1536), us(20 + 4 * 57 + 6));
        // The Ack (14 B, 134 bits) at the highest mandatory rate ≤ the data rate
        // (§10.6.6.5.2): 24 Mbit/s after 54, 12 after 18, 6 after 9.
        assert_eq!(r54.ack_txtime(), us(20 + 4 * 2 + 6));
        assert_eq!(
            DcfRate::Ofdm(OfdmRate::Mbps18).ack_txtime(),
            us(20 + 4 * 3 + 6)
        );
        assert_eq!(
            DcfRate::Ofdm(OfdmRate::Mbps9).ack_txtime(),
            us(20 + 4 * 6 + 6)
        );
        // 802.11b at 11 Mbit/s, long preamble: the Ack at 2 Mbit/s, 192 + 56 µs.
        let b11 = DcfRate::Dsss(DsssRate::Mbps11, DsssPreamble::Long);
        assert_eq!(b11.ack_txtime(), us(248));
        // The short slot, SIFS 10 µs: DIFS 28 µs; EIFS with the 304-µs DSSS Ack.
        let erp = Phy::Erp {
            rate: Some(OfdmRate::Mbps54),
        };
        assert_eq!(erp.timing().difs(), us(28));
        assert_eq!(erp.timing().eifs(erp.eifs_ack_txtime()), us(10 + 304 + 28));
        assert_eq!(erp.aifsn(), 2);
    }

    #[test]
    fn dcf_cache_keys_are_apart_from_each_other_and_from_ht_mcs() {
        let mut keys: Vec<u8> = DsssRate::ALL
            .iter()
            .map(|&r| DcfRate::Dsss(r, DsssPreamble::Long).cache_key())
            .chain(OfdmRate::ALL.iter().map(|&r| DcfRate::Ofdm(r).cache_key()))
            .collect();
        assert!(keys.iter().all(|&k| k > 31));
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 12);
    }
}
