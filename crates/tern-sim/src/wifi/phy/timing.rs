//! The PHY-dependent MAC timing (slot, SIFS, CWmin/CWmax, DIFS, AIFS, EIFS), the EDCA
//! parameters and the control-response rate rule (IEEE Std 802.11-2020 §10.3.2.3, §10.2.3.2,
//! §10.6.6.5); re-exported by the parent module.

use super::{us, Band, DsssRate, HtMcs, OfdmRate};
use crate::engine::SimTime;

// ---------------------------------------------------------------------------------------
// PHY-dependent MAC timing, DCF and EDCA parameters
// ---------------------------------------------------------------------------------------

/// The PHY characteristics the MAC times itself with: aSlotTime, aSIFSTime, aCWmin, aCWmax.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PhyTiming {
    pub slot: SimTime,
    pub sifs: SimTime,
    pub cw_min: u32,
    pub cw_max: u32,
}

impl PhyTiming {
    /// 802.11b DSSS/HR-DSSS (the DSSS and HR/DSSS PHY characteristics tables of Clauses 15 and 16):
    /// slot 20 µs, SIFS 10 µs, CWmin 31, CWmax 1023.
    pub const DSSS: PhyTiming = PhyTiming {
        slot: us(20),
        sifs: us(10),
        cw_min: 31,
        cw_max: 1023,
    };

    /// OFDM in 5 GHz, 20/40 MHz: Clause 17 (Table 17-21) and HT in 5 GHz (Table 19-25):
    /// slot 9 µs, SIFS 16 µs, CWmin 15, CWmax 1023.
    pub const OFDM_5GHZ: PhyTiming = PhyTiming {
        slot: us(9),
        sifs: us(16),
        cw_min: 15,
        cw_max: 1023,
    };

    /// HT (and ERP) in 2.4 GHz with the short slot (Table 19-25, Clause 18): slot 9 µs,
    /// SIFS 10 µs (followed by the 6 µs signal extension), CWmin 15, CWmax 1023. A BSS with
    /// 802.11b members uses the 20 µs long slot instead.
    pub const HT_2_4GHZ: PhyTiming = PhyTiming {
        slot: us(9),
        sifs: us(10),
        cw_min: 15,
        cw_max: 1023,
    };

    /// ERP (802.11g, Clause 18) in a BSS whose members are all ERP stations, which use the
    /// short slot (the ERP characteristics of Clause 18: aSlotTime 9 µs, or 20 µs once a
    /// non-ERP station is in the BSS, not modelled):
    /// the same characteristics as HT in 2.4 GHz, SIFS 10 µs (each OFDM PPDU ends with the
    /// 6 µs signal extension), CWmin 15, CWmax 1023.
    pub const ERP: PhyTiming = PhyTiming::HT_2_4GHZ;

    /// The HT timing for a band.
    pub const fn ht(band: Band) -> PhyTiming {
        match band {
            Band::Ghz2_4 => PhyTiming::HT_2_4GHZ,
            Band::Ghz5 => PhyTiming::OFDM_5GHZ,
        }
    }

    /// DIFS = aSIFSTime + 2 · aSlotTime (§10.3.2.3.5): 50 µs for DSSS, 34 µs for 5 GHz OFDM.
    pub const fn difs(&self) -> SimTime {
        SimTime(self.sifs.0 + 2 * self.slot.0)
    }

    /// AIFS[AC] = aSIFSTime + AIFSN[AC] · aSlotTime (§10.3.2.3.6): 43 µs for best effort
    /// (AIFSN 3) in 5 GHz.
    pub const fn aifs(&self, aifsn: u32) -> SimTime {
        SimTime(self.sifs.0 + aifsn as u64 * self.slot.0)
    }

    /// EIFS for DCF = aSIFSTime + AckTxTime + DIFS (§10.3.2.3.7), where AckTxTime is the
    /// time to send an Ack at the lowest mandatory rate of the PHY (304 µs for DSSS at
    /// 1 Mbit/s with long preamble → EIFS 364 µs; 44 µs at 6 Mbit/s in 5 GHz → 94 µs). With
    /// EDCA, replace DIFS by AIFS[AC]: see [`PhyTiming::eifs_edca`].
    pub const fn eifs(&self, ack_txtime: SimTime) -> SimTime {
        SimTime(self.sifs.0 + ack_txtime.0 + self.difs().0)
    }

    /// EIFS − DIFS + AIFS[AC] as used by an EDCA station (§10.3.2.3.7).
    pub const fn eifs_edca(&self, ack_txtime: SimTime, aifsn: u32) -> SimTime {
        SimTime(self.sifs.0 + ack_txtime.0 + self.aifs(aifsn).0)
    }
}

/// The lowest-rate Ack TXTIME that EIFS uses, for 802.11b: 14 bytes at 1 Mbit/s, long
/// preamble = 192 + 112 = 304 µs.
pub const DSSS_EIFS_ACK_TXTIME: SimTime = us(304);

/// EDCA access category (§10.2.3.2, Table 10-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessCategory {
    Background,
    BestEffort,
    Video,
    Voice,
}

/// EDCA parameters of one access category. TXOP limits are left to the MAC (0 for AC_BE and
/// AC_BK: one frame exchange, or one A-MPDU, per access).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EdcaParams {
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
}

impl EdcaParams {
    /// The default EDCA Parameter Set of a non-AP STA (§9.4.2.28, Table 9-155 in 2020;
    /// the dot11EDCATable defaults): AC_BK AIFSN 7, CW aCWmin..aCWmax; AC_BE AIFSN 3,
    /// aCWmin..aCWmax; AC_VI AIFSN 2, (aCWmin+1)/2 − 1..aCWmin; AC_VO AIFSN 2,
    /// (aCWmin+1)/4 − 1..(aCWmin+1)/2 − 1. For HT in 5 GHz, best effort is AIFSN 3,
    /// CW 15..1023.
    #[allow(clippy::manual_div_ceil)] // written as the standard writes it
    pub const fn default_for(ac: AccessCategory, timing: &PhyTiming) -> EdcaParams {
        let (a, b) = (timing.cw_min, timing.cw_max);
        match ac {
            AccessCategory::Background => EdcaParams {
                aifsn: 7,
                cw_min: a,
                cw_max: b,
            },
            AccessCategory::BestEffort => EdcaParams {
                aifsn: 3,
                cw_min: a,
                cw_max: b,
            },
            AccessCategory::Video => EdcaParams {
                aifsn: 2,
                cw_min: (a + 1) / 2 - 1,
                cw_max: a,
            },
            AccessCategory::Voice => EdcaParams {
                aifsn: 2,
                cw_min: (a + 1) / 4 - 1,
                cw_max: (a + 1) / 2 - 1,
            },
        }
    }

    /// AIFS of this category under `timing`.
    pub const fn aifs(&self, timing: &PhyTiming) -> SimTime {
        timing.aifs(self.aifsn)
    }
}

// ---------------------------------------------------------------------------------------
// Control-response rate (§10.6.6.5)
// ---------------------------------------------------------------------------------------

/// The rate of a control response (Ack, BlockAck, CTS) carried in a non-HT OFDM PPDU
/// (§10.6.6.5.2): the highest rate of the BSSBasicRateSet that is ≤ `reference` (the rate of
/// the eliciting frame, or the non-HT reference rate of its HT MCS, see
/// [`ht_control_response_rate`]); if none, the highest mandatory rate (6, 12, 24 Mbit/s)
/// that is ≤ `reference`. The modulation-class condition is met since all are Clause 17.
pub fn ofdm_control_response_rate(reference: OfdmRate, basic: &[OfdmRate]) -> OfdmRate {
    basic
        .iter()
        .copied()
        .filter(|r| *r <= reference)
        .max()
        .or_else(|| {
            OfdmRate::MANDATORY
                .iter()
                .copied()
                .filter(|r| *r <= reference)
                .max()
        })
        .unwrap_or(OfdmRate::Mbps6)
}

/// Control-response rate for a frame sent at HT `mcs`: [`ofdm_control_response_rate`] of the
/// MCS's non-HT reference rate. With basic rates {6, 12, 24}: MCS 0 → 6, MCS 1–2 → 12,
/// MCS 3–7 → 24 Mbit/s.
pub fn ht_control_response_rate(mcs: HtMcs, basic: &[OfdmRate]) -> OfdmRate {
    ofdm_control_response_rate(mcs.non_ht_reference_rate(), basic)
}

/// Control-response rate after a DSSS/HR-DSSS frame at `data` (§10.6.6.5.2): the highest
/// basic rate ≤ `data`, else `data` itself (every Clause 15/16 rate is mandatory for an
/// HR/DSSS PHY).
pub fn dsss_control_response_rate(data: DsssRate, basic: &[DsssRate]) -> DsssRate {
    basic
        .iter()
        .copied()
        .filter(|r| *r <= data)
        .max()
        .unwrap_or(data)
}
