//! Building a W-CDMA bearer, and the RLC's own check of the bearer's configuration.

use super::spec::{RlcSpec, Wcdma};
use super::{config, WcdmaBearer};
use crate::link::{Build, Technology};
use crate::net::device::Device;
use crate::scenario::{LinkCheck, LinkSpec, ScenarioError};

impl Technology for Wcdma {
    fn check_models(
        _link: &LinkSpec,
        rlc: &RlcSpec,
        cx: &LinkCheck<'_, '_>,
    ) -> Result<(), ScenarioError> {
        let Err(e) = config(rlc).validate() else {
            return Ok(());
        };
        // The RLC's own check names its field; the scenario's key and value here.
        let (field, given) = match e.field {
            "pdu_size" => ("pdu_size", rlc.pdu_size.to_string()),
            "tx_window" | "rx_window" => ("window", rlc.window.to_string()),
            "max_dat" => ("max_dat", rlc.max_dat.to_string()),
            "poll_pdu" => ("poll_pdu", rlc.poll_pdu.unwrap_or(0).to_string()),
            "timer_poll" => ("timer_poll", rlc.timer_poll.to_string()),
            "timer_poll_prohibit" => (
                "timer_poll_prohibit",
                rlc.timer_poll_prohibit
                    .map_or_else(String::new, |d| d.to_string()),
            ),
            other => (other, String::from("a value out of range")),
        };
        Err(cx.error(
            &["rlc", field],
            format!("expected {}, got {given}", e.expected),
        ))
    }

    fn build(link: &LinkSpec, rlc: &RlcSpec, cx: &mut Build<'_>) -> Box<dyn Device> {
        Box::new(WcdmaBearer::new(link, rlc, cx.seed, cx.first))
    }
}
