//! The W-CDMA bearer's table in `[[links]]` (`rlc = { … }`), its checks, and what each
//! direction adds to the summary (the sending RLC entity's counters).

use crate::scenario::schema::defaults::{
    maxdat15, ms10, ms100, ms200, pdu42, sdu1, window512, zero,
};
use crate::scenario::units::{Bytes, Duration};
use crate::scenario::{LinkCheck, LinkSpec, LinkTable, LossSpec, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The W-CDMA bearer technology (`rlc = { … }`).
pub struct Wcdma;

impl LinkTable for Wcdma {
    type Spec = RlcSpec;
    type Detail = RlcSummary;

    fn check(link: &LinkSpec, rlc: &RlcSpec, cx: &LinkCheck<'_, '_>) -> Result<(), ScenarioError> {
        if link.trace.is_some() || link.trace_of(true).is_some() {
            return Err(cx.error(
                &["trace"],
                "a W-CDMA bearer (rlc) is timed by its TTIs, not by a trace",
            ));
        }
        if link.framing.0 > 0 {
            return Err(cx.error(
                &["framing"],
                "a W-CDMA bearer times RLC PDUs (rlc.pdu_size), not framed packets",
            ));
        }
        if link.loss.is_some() {
            return Err(cx.error(
                &["loss"],
                "an RLC bearer loses PDUs, not packets: put the loss model in rlc.pdu_loss",
            ));
        }
        if rlc.tti.0.as_nanos() == 0 {
            return Err(cx.error(&["rlc", "tti"], "expected a TTI above zero"));
        }
        if let Some(loss) = rlc.pdu_loss.as_ref() {
            if matches!(
                loss,
                LossSpec::Outage { .. } | LossSpec::MininetWifiDistance { .. }
            ) {
                return Err(cx.error(
                    &["rlc", "pdu_loss"],
                    "expected a PDU error model: bernoulli or gilbert-elliott",
                ));
            }
            cx.check_loss(&["rlc", "pdu_loss"], loss)?;
        }
        // The values TS 25.331 §10.3.4.4 ("Polling info") can signal.
        if ![0, 1, 4, 16, 64].contains(&rlc.poll_sdu) {
            return Err(cx.error(
                &["rlc", "poll_sdu"],
                "expected 1, 4, 16 or 64 SDUs (TS 25.331 §10.3.4.4), or 0 (not configured)",
            ));
        }
        if rlc
            .poll_window
            .is_some_and(|w| ![50, 60, 70, 80, 85, 90, 95, 99].contains(&w))
        {
            return Err(cx.error(
                &["rlc", "poll_window"],
                "expected 50, 60, 70, 80, 85, 90, 95 or 99 percent (TS 25.331 §10.3.4.4)",
            ));
        }
        // The scenario's `window` sets both RLC windows; name it as the file does.
        if !(1..=2046).contains(&rlc.window) {
            return Err(cx.error(
                &["rlc", "window"],
                "expected 1 to 2046 PDUs (TS 25.322 §9.6)",
            ));
        }
        Ok(())
    }
}

/// The sending RLC entity's counters of one direction of a W-CDMA bearer (the summary's
/// `links.<name>.<direction>.rlc`).
#[derive(Clone, Debug, Serialize)]
pub struct RlcSummary {
    /// AMD and STATUS PDUs sent on this direction's radio.
    pub pdus_sent: u64,
    /// Of those, lost on the radio.
    pub pdus_lost: u64,
    pub pdus_retransmitted: u64,
    pub status_pdus_sent: u64,
    pub polls_sent: u64,
    /// SDUs dropped after MaxDAT.
    pub sdus_discarded: u64,
    /// SDUs refused by a full `rlc.buffer` (tail drop).
    pub sdus_refused: u64,
    /// Most SDU octets held at once: queued or sent and not yet acknowledged.
    pub max_buffer_bytes: u64,
    /// Most SDU octets queued at once ahead of segmentation (what `rlc.buffer` bounds).
    pub max_queued_bytes: u64,
}

/// RLC acknowledged mode (3GPP TS 25.322) on a W-CDMA bearer. Defaults: the
/// Release-99 interactive/background PS RAB of TS 34.108 §6.10 (336-bit
/// transport blocks, 10 ms TTI) with RLC parameters allowed by TS 25.331
/// §10.3.4 (see `tern_proto::rlc::Config` for each choice).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RlcSpec {
    /// AMD PDU size, header included (default 42 B: 40 B payload + 2 B header).
    #[serde(default = "pdu42")]
    pub pdu_size: Bytes,
    /// Transmission time interval (default 10 ms).
    #[serde(default = "ms10")]
    pub tti: Duration,
    /// Fixed processing delay per IP packet, after reassembly (default 0).
    #[serde(default = "zero")]
    pub sdu_delay: Duration,
    /// PDU errors on the radio (Bernoulli or Gilbert–Elliott, per PDU,
    /// STATUS PDUs included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdu_loss: Option<LossSpec>,
    /// The sending entity's SDU buffer ahead of segmentation, in SDU octets: an IP packet
    /// that would take it over is dropped (tail drop); octets sent and waiting for their
    /// acknowledgement do not count (see `tern_proto::rlc::Config::tx_buffer_bytes`).
    /// Default unbounded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<Bytes>,
    /// Configured_Tx_Window_Size (and the receiver's window), in PDUs.
    #[serde(default = "window512")]
    pub window: u16,
    /// MaxDAT: a PDU is sent at most MaxDAT − 1 times, then its SDUs are discarded.
    #[serde(default = "maxdat15")]
    pub max_dat: u32,
    /// Timer_Poll.
    #[serde(default = "ms200")]
    pub timer_poll: Duration,
    /// Poll every this many PDUs (default: not configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_pdu: Option<u32>,
    /// Poll in the PDU that ends every this many SDUs (TS 25.322 §9.7.1; 1, 4, 16 or 64,
    /// TS 25.331 §10.3.4.4); 0: not configured. Default 1, as a W-CDMA network's PS bearer
    /// (see `tern_proto::rlc::Config::poll_sdu`).
    #[serde(default = "sdu1")]
    pub poll_sdu: u32,
    /// Window-based polling: poll on every new PDU while the window is at least this many
    /// percent full (50, 60, 70, 80, 85, 90, 95 or 99, TS 25.331 §10.3.4.4; default: not
    /// configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_window: Option<u8>,
    /// Timer_Poll_Prohibit: the shortest interval between polls (default: not configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_poll_prohibit: Option<Duration>,
    /// Timer_Status_Prohibit.
    #[serde(default = "ms100")]
    pub timer_status_prohibit: Duration,
}
