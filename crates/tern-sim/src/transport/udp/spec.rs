//! UDP's settings in a scenario and their checks (the scenario layer: imports only
//! `scenario`).

use crate::scenario::{CheckCx, ScenarioError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// UDP's settings in a scenario: none (`transport = { kind = "udp" }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {}

/// Its settings in a scenario.
pub type Spec = UdpSpec;

/// Datagrams: a message lost is lost.
pub const STREAM: bool = false;

/// Nothing to check beyond the types.
pub fn check(_: &UdpSpec, _: &CheckCx<'_, '_>) -> Result<(), ScenarioError> {
    Ok(())
}
