//! The PHY and MAC parameters of a BSS.

use super::super::frames::AmpduLimits;
use super::super::phy::{Band, ChannelWidth, DsssPreamble, DsssRate, GuardInterval, PhyTiming};
use crate::engine::SimTime;

/// The PHY of a BSS and the parameters that follow from it.
#[derive(Clone, Debug)]
pub enum Phy {
    /// 802.11b: DSSS/HR-DSSS at one data rate (Clauses 15, 16).
    Dsss {
        rate: DsssRate,
        preamble: DsssPreamble,
    },
    /// 802.11n HT-mixed format (Clause 19).
    Ht {
        band: Band,
        width: ChannelWidth,
        gi: GuardInterval,
    },
}

impl Phy {
    /// aSlotTime, aSIFSTime, aCWmin, aCWmax of the PHY.
    pub fn timing(&self) -> PhyTiming {
        match self {
            Phy::Dsss { .. } => PhyTiming::DSSS,
            Phy::Ht { band, .. } => PhyTiming::ht(*band),
        }
    }

    /// aRxPHYStartDelay: 192 µs for DSSS with the long preamble, 96 µs with the short one
    /// (Table 16-4), 33 µs for HT (Table 19-25).
    pub fn rx_phy_start_delay(&self) -> SimTime {
        match self {
            Phy::Dsss {
                preamble: DsssPreamble::Long,
                ..
            } => SimTime::from_micros(192),
            Phy::Dsss { .. } => SimTime::from_micros(96),
            Phy::Ht { .. } => SimTime::from_micros(33),
        }
    }

    /// The AIFSN of the access category used for data: 2 for the DCF (DIFS = SIFS + 2 slots),
    /// 3 for EDCA best effort (Table 9-155).
    pub fn aifsn(&self) -> u32 {
        match self {
            Phy::Dsss { .. } => 2,
            Phy::Ht { .. } => 3,
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
}
