//! PHY rates and PPDU durations (TXTIME) for IEEE 802.11b DSSS/HR-DSSS (Clauses 15 and 16),
//! non-HT OFDM (Clause 17, and Clause 18 ERP-OFDM in 2.4 GHz: 802.11g's data rates, and the
//! control responses of 802.11n) and 802.11n HT (Clause 19), plus the PHY-dependent MAC timing (slot, SIFS,
//! CWmin/CWmax, DIFS, AIFS, EIFS) and the control-response rate rule.
//!
//! Clause numbers are those of IEEE Std 802.11-2020. Every duration is an exact integer
//! number of nanoseconds: 802.11b durations are whole microseconds, OFDM symbols are 4 µs
//! (long GI) or 3.6 µs (short GI), and each TXTIME formula rounds up to whole symbols (or
//! whole microseconds) with integer arithmetic, as the standard's TXTIME formulas do.

use crate::engine::SimTime;

const fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

/// Frequency band. It decides SIFS and slot (see [`PhyTiming`]) and whether OFDM PPDUs end
/// with a signal extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Band {
    Ghz2_4,
    Ghz5,
}

impl Band {
    /// The signal extension that follows every OFDM PPDU (ERP-OFDM and HT) in the 2.4 GHz
    /// band: 6 µs (aSignalExtension, Clause 18 ERP; "SignalExtension" in the HT TXTIME
    /// formula, §19.4.3), none in 5 GHz. It gives a 2.4 GHz receiver the same decoding time
    /// as a 16 µs SIFS although the 2.4 GHz SIFS is 10 µs. DSSS PPDUs never have one.
    pub const fn signal_extension(self) -> SimTime {
        match self {
            Band::Ghz2_4 => us(6),
            Band::Ghz5 => SimTime::ZERO,
        }
    }
}

// ---------------------------------------------------------------------------------------
// 802.11b: DSSS (Clause 15) and HR/DSSS (Clause 16)
// ---------------------------------------------------------------------------------------

/// An 802.11b data rate: DSSS 1 and 2 Mbit/s (DBPSK, DQPSK; Clause 15) and HR/DSSS 5.5 and
/// 11 Mbit/s (CCK; Clause 16). PBCC is not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DsssRate {
    Mbps1,
    Mbps2,
    Mbps5_5,
    Mbps11,
}

impl DsssRate {
    pub const ALL: [DsssRate; 4] = [
        DsssRate::Mbps1,
        DsssRate::Mbps2,
        DsssRate::Mbps5_5,
        DsssRate::Mbps11,
    ];

    /// The rate in kbit/s (exact).
    pub const fn kbps(self) -> u64 {
        match self {
            DsssRate::Mbps1 => 1_000,
            DsssRate::Mbps2 => 2_000,
            DsssRate::Mbps5_5 => 5_500,
            DsssRate::Mbps11 => 11_000,
        }
    }

    /// The rate in bit/s (exact).
    pub const fn bps(self) -> u64 {
        self.kbps() * 1_000
    }
}

/// The 802.11b PLCP preamble format (§15.3.3 long, §16.2.2 long and short).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DsssPreamble {
    /// SYNC 128 + SFD 16 bits = 144 µs, then the 48-bit PLCP header at 1 Mbit/s = 48 µs.
    Long,
    /// SYNC 56 + SFD 16 bits = 72 µs at 1 Mbit/s, then the PLCP header at 2 Mbit/s = 24 µs.
    /// Not allowed with a 1 Mbit/s PSDU (§16.2.2.3).
    Short,
}

/// Long PLCP preamble (aPreambleLength, Clause 15 and 16 PHY characteristics): 144 µs.
pub const DSSS_LONG_PREAMBLE: SimTime = us(144);
/// Long PLCP header (aPLCPHeaderLength): 48 bits at 1 Mbit/s = 48 µs.
pub const DSSS_LONG_PLCP_HEADER: SimTime = us(48);
/// Short PLCP preamble (§16.2.2.3): 72 µs.
pub const DSSS_SHORT_PREAMBLE: SimTime = us(72);
/// Short PLCP header: 48 bits at 2 Mbit/s = 24 µs.
pub const DSSS_SHORT_PLCP_HEADER: SimTime = us(24);

impl DsssPreamble {
    /// PLCP preamble plus PLCP header: 192 µs (long) or 96 µs (short).
    pub const fn duration(self) -> SimTime {
        match self {
            DsssPreamble::Long => SimTime(DSSS_LONG_PREAMBLE.0 + DSSS_LONG_PLCP_HEADER.0),
            DsssPreamble::Short => SimTime(DSSS_SHORT_PREAMBLE.0 + DSSS_SHORT_PLCP_HEADER.0),
        }
    }

    /// Whether a PSDU at `rate` may follow this preamble: the short preamble is only for
    /// 2, 5.5 and 11 Mbit/s (§16.2.2.3).
    pub const fn allowed_with(self, rate: DsssRate) -> bool {
        !matches!((self, rate), (DsssPreamble::Short, DsssRate::Mbps1))
    }
}

/// TXTIME of an 802.11b PPDU carrying `bytes` PSDU octets (MAC header + body + FCS):
/// preamble + PLCP header + ⌈8·bytes / rate⌉ µs (§16.3.4 TXTIME; the PLCP LENGTH field of
/// §16.2.3.5 holds exactly that ceiling in µs, which matters at 5.5 and 11 Mbit/s).
/// `None` for the short preamble at 1 Mbit/s.
pub fn dsss_txtime(bytes: u32, rate: DsssRate, preamble: DsssPreamble) -> Option<SimTime> {
    if !preamble.allowed_with(rate) {
        return None;
    }
    // 8·bytes bits at rate kbit/s = 8000·bytes / kbps µs, rounded up to whole µs.
    let payload_us = (8_000 * u64::from(bytes)).div_ceil(rate.kbps());
    Some(preamble.duration() + us(payload_us))
}

// ---------------------------------------------------------------------------------------
// Modulation and coding, shared by the OFDM PHYs and the error model
// ---------------------------------------------------------------------------------------

/// Subcarrier modulation of an OFDM PHY (§17.3.5.8; Clause 19 Data field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Modulation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
}

impl Modulation {
    /// Coded bits per subcarrier per spatial stream, N_BPSCS.
    pub const fn bits_per_subcarrier(self) -> u64 {
        match self {
            Modulation::Bpsk => 1,
            Modulation::Qpsk => 2,
            Modulation::Qam16 => 4,
            Modulation::Qam64 => 6,
        }
    }
}

/// Convolutional (BCC) code rate R (§17.3.5.6, §19.3.11.6): the K = 7 rate-1/2 mother code,
/// punctured to 2/3, 3/4 or (HT only) 5/6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CodeRate {
    R1_2,
    R2_3,
    R3_4,
    R5_6,
}

impl CodeRate {
    /// (numerator, denominator).
    pub const fn ratio(self) -> (u64, u64) {
        match self {
            CodeRate::R1_2 => (1, 2),
            CodeRate::R2_3 => (2, 3),
            CodeRate::R3_4 => (3, 4),
            CodeRate::R5_6 => (5, 6),
        }
    }
}

/// SERVICE field length in bits, prepended to the PSDU in every OFDM PHY (§17.3.5.2).
pub const OFDM_SERVICE_BITS: u64 = 16;
/// Tail bits per BCC encoder (§17.3.5.3, §19.3.11.4).
pub const OFDM_TAIL_BITS: u64 = 6;

// ---------------------------------------------------------------------------------------
// Non-HT OFDM (Clause 17; Clause 18 ERP-OFDM in 2.4 GHz): 802.11g's data rates and the
// control-response rates
// ---------------------------------------------------------------------------------------

/// A 20 MHz non-HT OFDM rate (Clause 17, Table 17-4): the data rates of 802.11g (ERP-OFDM,
/// Clause 18) and the rates of ACK, BlockAck and BlockAckReq sent by HT stations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OfdmRate {
    Mbps6,
    Mbps9,
    Mbps12,
    Mbps18,
    Mbps24,
    Mbps36,
    Mbps48,
    Mbps54,
}

/// OFDM preamble (L-STF 8 µs + L-LTF 8 µs) plus SIGNAL (4 µs), §17.4.3: 20 µs.
pub const OFDM_PREAMBLE_AND_SIGNAL: SimTime = us(20);
/// Non-HT OFDM symbol (3.2 µs + 0.8 µs GI), T_SYM of §17.4.3: 4 µs.
pub const OFDM_SYMBOL: SimTime = us(4);

impl OfdmRate {
    pub const ALL: [OfdmRate; 8] = [
        OfdmRate::Mbps6,
        OfdmRate::Mbps9,
        OfdmRate::Mbps12,
        OfdmRate::Mbps18,
        OfdmRate::Mbps24,
        OfdmRate::Mbps36,
        OfdmRate::Mbps48,
        OfdmRate::Mbps54,
    ];

    /// The rates every Clause 17 PHY must support (Clause 17: 6, 12 and 24 Mbit/s), which
    /// are the fallback of the control-response rule.
    pub const MANDATORY: [OfdmRate; 3] = [OfdmRate::Mbps6, OfdmRate::Mbps12, OfdmRate::Mbps24];

    /// Data bits per OFDM symbol, N_DBPS (Table 17-4).
    pub const fn n_dbps(self) -> u64 {
        match self {
            OfdmRate::Mbps6 => 24,
            OfdmRate::Mbps9 => 36,
            OfdmRate::Mbps12 => 48,
            OfdmRate::Mbps18 => 72,
            OfdmRate::Mbps24 => 96,
            OfdmRate::Mbps36 => 144,
            OfdmRate::Mbps48 => 192,
            OfdmRate::Mbps54 => 216,
        }
    }

    /// The rate in bit/s: N_DBPS per 4 µs symbol (exact).
    pub const fn bps(self) -> u64 {
        self.n_dbps() * 250_000
    }

    /// The rate of `bps` bit/s, if there is one.
    pub fn from_bps(bps: u64) -> Option<OfdmRate> {
        OfdmRate::ALL.into_iter().find(|r| r.bps() == bps)
    }

    pub const fn modulation(self) -> Modulation {
        match self {
            OfdmRate::Mbps6 | OfdmRate::Mbps9 => Modulation::Bpsk,
            OfdmRate::Mbps12 | OfdmRate::Mbps18 => Modulation::Qpsk,
            OfdmRate::Mbps24 | OfdmRate::Mbps36 => Modulation::Qam16,
            OfdmRate::Mbps48 | OfdmRate::Mbps54 => Modulation::Qam64,
        }
    }

    pub const fn code_rate(self) -> CodeRate {
        match self {
            OfdmRate::Mbps6 | OfdmRate::Mbps12 | OfdmRate::Mbps24 => CodeRate::R1_2,
            OfdmRate::Mbps48 => CodeRate::R2_3,
            OfdmRate::Mbps9 | OfdmRate::Mbps18 | OfdmRate::Mbps36 | OfdmRate::Mbps54 => {
                CodeRate::R3_4
            }
        }
    }
}

/// TXTIME of a non-HT OFDM PPDU (§17.4.3, Equation 17-29 in 2016 numbering):
/// 20 µs + 4 µs · ⌈(16 + 8·bytes + 6) / N_DBPS⌉, plus the 6 µs ERP signal extension in
/// 2.4 GHz (Clause 18). E.g. a 14-byte ACK takes 44 µs at 6 Mbit/s and 28 µs at 24 Mbit/s.
pub fn ofdm_txtime(bytes: u32, rate: OfdmRate, band: Band) -> SimTime {
    let bits = OFDM_SERVICE_BITS + 8 * u64::from(bytes) + OFDM_TAIL_BITS;
    let n_sym = bits.div_ceil(rate.n_dbps());
    OFDM_PREAMBLE_AND_SIGNAL + OFDM_SYMBOL.saturating_mul(n_sym) + band.signal_extension()
}

// ---------------------------------------------------------------------------------------
// 802.11n HT (Clause 19)
// ---------------------------------------------------------------------------------------

/// HT channel width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChannelWidth {
    Mhz20,
    Mhz40,
}

impl ChannelWidth {
    /// Data subcarriers N_SD (Table 19-6 / §19.3.2): 52 at 20 MHz, 108 at 40 MHz.
    pub const fn data_subcarriers(self) -> u64 {
        match self {
            ChannelWidth::Mhz20 => 52,
            ChannelWidth::Mhz40 => 108,
        }
    }
}

/// HT guard interval (§19.3.2, Table 19-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardInterval {
    /// 800 ns GI: symbol T_SYML = 4 µs.
    Long,
    /// 400 ns GI: symbol T_SYMS = 3.6 µs.
    Short,
}

/// T_SYML, the long-GI HT symbol (Table 19-6): 4 µs.
pub const HT_SYMBOL_LONG_GI: SimTime = us(4);
/// T_SYMS, the short-GI HT symbol (Table 19-6): 3.6 µs.
pub const HT_SYMBOL_SHORT_GI: SimTime = SimTime::from_nanos(3_600);

impl GuardInterval {
    pub const fn symbol(self) -> SimTime {
        match self {
            GuardInterval::Long => HT_SYMBOL_LONG_GI,
            GuardInterval::Short => HT_SYMBOL_SHORT_GI,
        }
    }
}

/// An HT MCS index 0–31 (equal modulation on 1–4 spatial streams, §19.5 Tables 19-27 to
/// 19-41). MCS 32 and the unequal-modulation MCSs 33–76 are not modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct HtMcs(u8);

impl HtMcs {
    /// `None` outside 0..=31.
    pub const fn new(index: u8) -> Option<HtMcs> {
        if index <= 31 {
            Some(HtMcs(index))
        } else {
            None
        }
    }

    pub const fn index(self) -> u8 {
        self.0
    }

    /// Number of spatial streams N_SS: MCS 0–7 → 1, 8–15 → 2, 16–23 → 3, 24–31 → 4.
    pub const fn n_ss(self) -> u64 {
        self.0 as u64 / 8 + 1
    }

    /// Modulation of the MCS (the same on every stream for MCS 0–31).
    pub const fn modulation(self) -> Modulation {
        match self.0 % 8 {
            0 => Modulation::Bpsk,
            1 | 2 => Modulation::Qpsk,
            3 | 4 => Modulation::Qam16,
            _ => Modulation::Qam64,
        }
    }

    pub const fn code_rate(self) -> CodeRate {
        match self.0 % 8 {
            0 | 1 | 3 => CodeRate::R1_2,
            5 => CodeRate::R2_3,
            2 | 4 | 6 => CodeRate::R3_4,
            _ => CodeRate::R5_6,
        }
    }

    /// Data bits per OFDM symbol, N_DBPS = N_SD · N_BPSCS · R · N_SS (§19.3.11, Tables
    /// 19-27 ff.); always an integer.
    pub const fn n_dbps(self, width: ChannelWidth) -> u64 {
        let (num, den) = self.code_rate().ratio();
        width.data_subcarriers() * self.modulation().bits_per_subcarrier() * self.n_ss() * num / den
    }

    /// Number of BCC encoders N_ES as listed in the MCS tables: one encoder carries at most
    /// 300 Mbit/s at short GI, i.e. N_DBPS ≤ 1080; above that two (MCS 21–23 and 28–31 at
    /// 40 MHz; no HT MCS 0–31 needs more than two).
    pub const fn n_es(self, width: ChannelWidth) -> u64 {
        if self.n_dbps(width) <= 1080 {
            1
        } else {
            2
        }
    }

    /// The non-HT reference rate of the MCS: the Clause 17 rate with the same modulation and
    /// coding rate, 64-QAM 5/6 mapping to 54 Mbit/s (used by the control-response rule of
    /// §10.6.6.5).
    pub const fn non_ht_reference_rate(self) -> OfdmRate {
        match self.0 % 8 {
            0 => OfdmRate::Mbps6,
            1 => OfdmRate::Mbps12,
            2 => OfdmRate::Mbps18,
            3 => OfdmRate::Mbps24,
            4 => OfdmRate::Mbps36,
            5 => OfdmRate::Mbps48,
            _ => OfdmRate::Mbps54,
        }
    }
}

/// HT-mixed-format legacy part (§19.3.9, Table 19-6): L-STF 8 + L-LTF 8 + L-SIG 4 µs.
pub const HT_MF_LEGACY_PREAMBLE: SimTime = us(20);
/// HT-SIG: two 4 µs symbols (Table 19-6).
pub const HT_SIG: SimTime = us(8);
/// HT-STF in the mixed format (Table 19-6): 4 µs.
pub const HT_STF: SimTime = us(4);
/// One HT-LTF (Table 19-6): 4 µs.
pub const HT_LTF: SimTime = us(4);
/// aPPDUMaxTime of the HT PHY (Table 19-25): 10 ms. It bounds HT-greenfield PPDUs; an
/// HT-mixed PPDU is bounded more tightly by its L-SIG, see [`ht_mf_max_ppdu`].
pub const HT_APPDU_MAX_TIME: SimTime = SimTime::from_millis(10);
/// Largest L-SIG LENGTH (12-bit field of the SIGNAL/L-SIG, Clause 17): 4095.
pub const L_SIG_MAX_LENGTH: u64 = 4095;

/// The TXVECTOR parameters of an HT-mixed-format PPDU that decide its rate and duration
/// (no STBC, BCC coding, no extension HT-LTFs: N_STS = N_SS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HtTxVector {
    pub mcs: HtMcs,
    pub width: ChannelWidth,
    pub gi: GuardInterval,
}

impl HtTxVector {
    pub const fn new(mcs: HtMcs, width: ChannelWidth, gi: GuardInterval) -> Self {
        HtTxVector { mcs, width, gi }
    }

    pub const fn n_dbps(&self) -> u64 {
        self.mcs.n_dbps(self.width)
    }

    /// The PHY data rate in bit/s: N_DBPS per symbol. Exact at long GI (N_DBPS · 250 000);
    /// at short GI N_DBPS / 3.6 µs is rounded to the nearest f64 (for reports and the error
    /// model, never for durations).
    pub fn data_rate_bps(&self) -> f64 {
        match self.gi {
            GuardInterval::Long => (self.n_dbps() * 250_000) as f64,
            GuardInterval::Short => self.n_dbps() as f64 * 1e9 / 3_600.0,
        }
    }

    /// Number of HT-LTFs, N_LTF = N_DLTF (Table 19-13): 1, 2, 4, 4 for 1–4 streams.
    pub const fn n_ltf(&self) -> u64 {
        match self.mcs.n_ss() {
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }

    /// The HT-mixed preamble before the Data field: 20 µs legacy + HT-SIG 8 µs + HT-STF
    /// 4 µs + N_LTF · 4 µs, i.e. 36 µs for one stream, 40 µs for two, 48 µs for three or four.
    pub const fn preamble(&self) -> SimTime {
        SimTime(HT_MF_LEGACY_PREAMBLE.0 + HT_SIG.0 + HT_STF.0 + HT_LTF.0 * self.n_ltf())
    }

    /// Number of Data-field symbols for a PSDU of `bytes` octets with BCC and no STBC
    /// (Clause 19 Data field, Equation 19-32 in the 2016 numbering):
    /// N_SYM = ⌈(8·bytes + 16 + 6·N_ES) / N_DBPS⌉.
    pub const fn n_sym(&self, bytes: u32) -> u64 {
        let bits =
            8 * bytes as u64 + OFDM_SERVICE_BITS + OFDM_TAIL_BITS * self.mcs.n_es(self.width);
        bits.div_ceil(self.n_dbps())
    }

    /// Duration of the Data field. Long GI: N_SYM · 4 µs. Short GI: the HT-mixed TXTIME
    /// formula of §19.4.3 rounds the short-GI data symbols up to a whole number of 4 µs
    /// legacy symbols, T_SYML · ⌈T_SYMS · N_SYM / T_SYML⌉ = 4 µs · ⌈9·N_SYM / 10⌉, so that
    /// the PPDU ends on a legacy symbol boundary as announced by L-SIG. (ns-3 uses
    /// N_SYM · 3.6 µs instead; the difference is below 4 µs.)
    pub const fn data_duration(&self, bytes: u32) -> SimTime {
        let n_sym = self.n_sym(bytes);
        match self.gi {
            GuardInterval::Long => SimTime(HT_SYMBOL_LONG_GI.0 * n_sym),
            GuardInterval::Short => SimTime(HT_SYMBOL_LONG_GI.0 * (9 * n_sym).div_ceil(10)),
        }
    }

    /// TXTIME of an HT-mixed-format PPDU with a PSDU of `bytes` octets (§19.4.3):
    /// preamble + Data field + signal extension (6 µs in 2.4 GHz, §19.4.3 "SignalExtension").
    /// E.g. 1536 bytes at MCS 7, 20 MHz, long GI: 36 + 48 · 4 = 228 µs in 5 GHz.
    pub const fn txtime(&self, bytes: u32, band: Band) -> SimTime {
        SimTime(self.preamble().0 + self.data_duration(bytes).0 + band.signal_extension().0)
    }
}

/// The L-SIG LENGTH an HT-mixed PPDU of duration `txtime` announces to legacy stations
/// (§19.3.9.3.5): ⌈(TXTIME − SignalExtension − 20 µs) / 4 µs⌉ · 3 − 3.
pub fn ht_l_sig_length(txtime: SimTime, band: Band) -> u64 {
    let after_lsig = txtime
        .saturating_sub(band.signal_extension())
        .saturating_sub(HT_MF_LEGACY_PREAMBLE);
    let symbols = after_lsig.as_nanos().div_ceil(OFDM_SYMBOL.as_nanos());
    (symbols * 3).saturating_sub(3)
}

/// Longest HT-mixed-format PPDU: the L-SIG LENGTH field must not exceed 4095, which with the
/// formula of [`ht_l_sig_length`] allows TXTIME − SignalExtension ≤ 20 + 4 · 1366 = 5484 µs.
/// This is tighter than the HT aPPDUMaxTime of 10 ms ([`HT_APPDU_MAX_TIME`], which only
/// binds HT-greenfield PPDUs), so it is the limit that applies to HT-mixed A-MPDUs; ns-3
/// uses the same 5.484 ms. 5490 µs in 2.4 GHz, 5484 µs in 5 GHz.
pub const fn ht_mf_max_ppdu(band: Band) -> SimTime {
    let symbols = (L_SIG_MAX_LENGTH + 3) / 3;
    SimTime(HT_MF_LEGACY_PREAMBLE.0 + OFDM_SYMBOL.0 * symbols + band.signal_extension().0)
}

pub mod bcc;
mod timing;
pub use timing::*;

#[cfg(test)]
mod tests;
