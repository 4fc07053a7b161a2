//! Checks of a flow's transport settings that its type allows but the protocol does not
//! (a QUIC flow-control window of 0 B), or that need the rest of the scenario (a
//! countermeasure against 802.11 handovers on a flow whose client never roams): each
//! transport's own (`transport/<kind>/`), given the flow and its scenario.

use super::rules::{at, key};
use super::{FlowSpec, PathSeg, Scenario, ScenarioError, Source};

/// A flow's transport settings, flow `i` of `s`.
pub(super) fn check(
    s: &Scenario,
    src: &Source,
    i: usize,
    f: &FlowSpec,
) -> Result<(), ScenarioError> {
    let cx = CheckCx {
        scenario: s,
        source: src,
        index: i,
        flow: f,
    };
    f.transport.check(&cx)
}

/// What a transport's checks are given: flow `index` of the scenario, and where its
/// errors point.
pub struct CheckCx<'a, 's> {
    pub scenario: &'a Scenario,
    pub(crate) source: &'a Source<'s>,
    pub index: usize,
    pub flow: &'a FlowSpec,
}

impl CheckCx<'_, '_> {
    /// The path of a key under the flow's `transport`: `flows[i].transport.<keys>`.
    pub(crate) fn field(&self, keys: &[&str]) -> Vec<PathSeg> {
        let mut p = at("flows", self.index, "transport");
        p.extend(keys.iter().map(|k| key(k)));
        p
    }

    /// An error at a key under the flow's `transport`, with the file's line.
    pub fn error(&self, keys: &[&str], message: impl Into<String>) -> ScenarioError {
        self.source.error(&self.field(keys), message)
    }
}
