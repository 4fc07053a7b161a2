//! RLC AM entity configuration (the "RLC info" of TS 25.331 §10.3.4.23,
//! protocol parameters of TS 25.322 §9.6, timers of §9.5).
//!
//! `Config::default()` models the Release-99 interactive/background PS
//! bearer of the wcdma-profile study: 336-bit transport blocks, SDU discard
//! after MaxDAT with explicit signalling, polling on the last segment of
//! every SDU, on the last PDU in the buffer and the retransmission buffer and
//! on a poll timer, STATUS on polls and on detected gaps.

use core::fmt;

use super::pdu::{AMD_HEADER_LEN, MAX_PDU_SIZE_7BIT_LI, SN_MODULUS};
use crate::time::SimTime;

/// Configuration of one AM entity. All fields are public.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// AMD and STATUS PDU size in octets (header included): 42 B = 336
    /// bits, the transport block of the TS 34.108 §6.10 PS RABs (RLC
    /// payload 320 bits + 16-bit AMD header). At most 126 B, so that 7-bit
    /// LIs apply (TS 25.322 §9.2.2.8); at least 12 B so that a STATUS PDU
    /// can carry an MRW_ACK, an MRW, a NACK and an ACK together.
    pub pdu_size: u32,
    /// Configured_Tx_Window_Size (TS 25.322 §9.6 f): new PDUs are sent only
    /// while VT(S) < VT(MS) = VT(A) + window. 512 (an allowed value of the
    /// "Transmission window size" in TS 25.331 §10.3.4.23) covers 384 kbit/s x 350 ms / 336 bit ≈ 400
    /// PDUs, so the window does not limit the bearer at usual RLC round-trip
    /// times. At most 2046: half the SN space less the one SN an
    /// untransmitted discarded SDU tail may take (see the module notes), so
    /// that no SN is ever ambiguous.
    pub tx_window: u16,
    /// Configured_Rx_Window_Size (TS 25.322 §9.6 g): PDUs with SN ≥ VR(MR) =
    /// VR(R) + window are discarded. Must be at least the peer's
    /// `tx_window`; at most 2046.
    pub rx_window: u16,
    /// MaxDAT (TS 25.322 §9.6 a): a PDU is sent at most MaxDAT - 1 times;
    /// when VT(DAT) reaches MaxDAT the SDUs with segments in PDUs VT(A)..=SN
    /// are discarded (§9.7.3, "SDU discard after MaxDAT number of
    /// transmissions") and signalled with an MRW SUFI (§11.6). Default 15,
    /// an allowed value of "Max_DAT" in TS 25.331 §10.3.4.25 (1..40): 14
    /// transmissions.
    /// At least 2.
    pub max_dat: u32,
    /// Timer_Poll (TS 25.322 §9.5 a): re-poll when no STATUS covering the
    /// last poll has arrived. 200 ms (an allowed value of TS 25.331 §10.3.4.4
    /// "Polling info"), chosen above
    /// the RLC round trip of a DCH bearer (2 TTIs + Iub + processing,
    /// about 100-150 ms). `None` disables it (not recommended: a lost
    /// STATUS then stalls the link until new data arrives).
    pub timer_poll: Option<SimTime>,
    /// Poll_PDU (TS 25.322 §9.6 b): poll every Poll_PDU PDUs sent (new or
    /// retransmitted). `None` (the default) does not configure it.
    pub poll_pdu: Option<u32>,
    /// Poll_SDU (TS 25.322 §9.6 c, §9.7.1 "Every Poll_SDU SDU"): poll in the
    /// PDU that holds the last segment of every Poll_SDU-th SDU (VT(SDU),
    /// §9.4). Default 1, with the two "last PDU" polls and no window-based
    /// polling, as in the interactive/background PS radio bearer of a
    /// RADIO BEARER SETUP captured from a W-CDMA network
    /// (sharetechnote.com, "RLC for DRB": poll-SDU sdu1,
    /// lastTransmissionPDU-Poll and lastRetransmissionPDU-Poll TRUE,
    /// pollWindow and timerPollProhibit omitted). TS 25.331 §10.3.4.4 allows
    /// 1, 4, 16, 64 (its ASN.1 `Poll-SDU`); `None` does not configure it.
    pub poll_sdu: Option<u32>,
    /// Poll_Window in percent (TS 25.322 §9.6 d): poll on every new PDU sent
    /// while J = (VT(S) - VT(A)) / Configured_Tx_Window_Size x 100 ≥
    /// Poll_Window, VT(S) taken before the PDU is submitted. Default `None`
    /// (not configured, see `poll_sdu`); TS 25.331 §10.3.4.4 allows 50, 60,
    /// 70, 80, 85, 90, 95, 99. A window-based poll comes back as a STATUS one
    /// RLC round trip later, so a Poll_Window whose headroom,
    /// (100 - Poll_Window) % of the window, is sent in less than that round
    /// trip stalls the window once per cycle when nothing else polls.
    /// Independently of this setting, the PDU that fills the window always
    /// polls (a Tern safeguard against a stalled window).
    pub poll_window: Option<u8>,
    /// "Last transmission PDU poll" (TS 25.322 §9.7.1): poll on the last new
    /// PDU when the buffer holds nothing more. Default on.
    pub poll_last_transmission: bool,
    /// Timer_Poll_Prohibit (TS 25.322 §9.5 b): after a poll is submitted, no
    /// other poll is sent until it expires; polls triggered meanwhile are
    /// delayed to its expiry and sent as one (§9.7.1). `None` (the default,
    /// omitted in the configuration `poll_sdu` cites) does not configure it.
    pub timer_poll_prohibit: Option<SimTime>,
    /// "Last retransmission PDU poll" (TS 25.322 §9.7.1): poll on the last
    /// PDU of the retransmission buffer. Default on.
    pub poll_last_retransmission: bool,
    /// Timer_Status_Prohibit (TS 25.322 §9.5 f): minimum interval between
    /// STATUS reports; a report triggered meanwhile is sent when it expires.
    /// 100 ms (an allowed value of TS 25.331 §10.3.4.1
    /// "Downlink RLC STATUS info"), chosen below `timer_poll` so that a
    /// re-poll is always answered. `None` disables it. Timer_EPC is not
    /// modelled, so a report sent before an earlier NACK's retransmission
    /// has arrived NACKs that PDU again: a prohibit time below the RLC
    /// round trip causes duplicate retransmissions (each counts in VT(DAT)).
    pub timer_status_prohibit: Option<SimTime>,
    /// "Missing PDU Indicator" (TS 25.322 §9.7.2): send a STATUS as soon as
    /// a gap in the received SNs is detected. Default on.
    pub missing_pdu_indicator: bool,
    /// Timer_MRW (TS 25.322 §9.5): resend the MRW SUFI until it is
    /// acknowledged. 200 ms (an allowed value of TS 25.331 §10.3.4.25), chosen
    /// above the RLC round trip like `timer_poll`. MaxMRW (reset after too
    /// many MRW transmissions) is not modelled: the MRW is resent forever.
    pub timer_mrw: SimTime,
    /// "Use special value of the HE field" (TS 25.322 §9.2.2.7, Release 5):
    /// an SDU that ends exactly at the end of a PDU without LIs is marked
    /// with HE = 2 instead of an LI = 0 in the next PDU. Default off
    /// (Release 99).
    pub special_he: bool,
    /// Capacity of the SDU buffer ahead of segmentation, in SDU octets: an
    /// SDU is refused (tail drop) when the octets not yet placed in any PDU,
    /// its own included, would exceed it. Octets already sent wait for their
    /// acknowledgement in the retransmission buffer and do not count: they
    /// are in the bearer's pipe, not in its queue (Sågfors, Ludwig, Meyer,
    /// Peisa, "Buffer management for rate-varying 3G wireless links
    /// supporting TCP traffic", IEEE VTC 2003: the RLC buffer is sized
    /// against the link's pipe capacity; EURANE's ns-2 RLC AM, Ericsson, bounds
    /// the same queue, `maxRBSize_`, by refusing the SDU that does not fit).
    /// TS 25.322 sets no size: it is the implementation's memory. `None`:
    /// unbounded (a queue in front of the entity decides).
    pub tx_buffer_bytes: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            pdu_size: 42,
            tx_window: 512,
            rx_window: 512,
            max_dat: 15,
            timer_poll: Some(SimTime::from_millis(200)),
            poll_pdu: None,
            poll_sdu: Some(1),
            poll_window: None,
            poll_last_transmission: true,
            timer_poll_prohibit: None,
            poll_last_retransmission: true,
            timer_status_prohibit: Some(SimTime::from_millis(100)),
            missing_pdu_indicator: true,
            timer_mrw: SimTime::from_millis(200),
            special_he: false,
            tx_buffer_bytes: None,
        }
    }
}

/// Why a [`Config`] was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The offending field.
    pub field: &'static str,
    /// What was expected.
    pub expected: &'static str,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rlc.{}: expected {}", self.field, self.expected)
    }
}

impl std::error::Error for ConfigError {}

/// Smallest PDU that fits a STATUS PDU with MRW_ACK, MRW, one LIST pair and
/// ACK: 4 + 20 + 24 + 24 + 16 = 88 bits → 11 octets, rounded up.
pub const MIN_PDU_SIZE: u32 = 12;

impl Config {
    /// Checks the ranges documented on each field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |field, expected| Err(ConfigError { field, expected });
        if !(MIN_PDU_SIZE..=MAX_PDU_SIZE_7BIT_LI).contains(&self.pdu_size) {
            return err("pdu_size", "12..=126 octets (7-bit length indicators)");
        }
        let max = SN_MODULUS / 2 - 2;
        if self.tx_window == 0 || self.tx_window > max {
            return err("tx_window", "1..=2046 PDUs");
        }
        if self.rx_window == 0 || self.rx_window > max {
            return err("rx_window", "1..=2046 PDUs");
        }
        if self.max_dat < 2 {
            return err("max_dat", "at least 2 (MaxDAT - 1 transmissions)");
        }
        if self.poll_pdu == Some(0) {
            return err("poll_pdu", "at least 1 PDU");
        }
        if self.poll_sdu == Some(0) {
            return err("poll_sdu", "at least 1 SDU");
        }
        if self.poll_window.is_some_and(|w| w == 0 || w > 100) {
            return err("poll_window", "1..=100 percent");
        }
        if self.timer_poll == Some(SimTime::ZERO) {
            return err("timer_poll", "a positive duration");
        }
        if self.timer_poll_prohibit == Some(SimTime::ZERO) {
            return err("timer_poll_prohibit", "a positive duration");
        }
        if self.timer_mrw == SimTime::ZERO {
            return err("timer_mrw", "a positive duration");
        }
        Ok(())
    }

    /// Octets of an AMD PDU after the fixed header (data, LIs, padding).
    pub fn payload_size(&self) -> u32 {
        self.pdu_size - AMD_HEADER_LEN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_336_bit_pdus() {
        let c = Config::default();
        c.validate().unwrap();
        assert_eq!(c.pdu_size * 8, 336);
        assert_eq!(c.payload_size() * 8, 320);
    }

    #[test]
    fn rejects_out_of_range() {
        let bad = Config {
            pdu_size: 127,
            ..Config::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "pdu_size");
        let bad = Config {
            tx_window: 2047,
            ..Config::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "tx_window");
        let bad = Config {
            max_dat: 1,
            ..Config::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "max_dat");
    }
}
