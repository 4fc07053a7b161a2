//! The Tern world: a deterministic discrete-event simulator of transport
//! protocols over wired, cellular and wireless links.
//!
//! ```text
//! scenario::load(text) -> Scenario -> World::build -> World::run -> RunOutput { summary, tables }
//! ```

pub mod app;
pub mod cellular;
pub mod engine;
pub mod mech;
pub mod net;
pub mod radio;
pub mod scenario;
pub mod summary;
pub mod trace;
pub mod transport;
pub mod wifi;
pub mod world;

pub use world::{RunError, RunOutput, World};

/// Loads, builds and runs a scenario in one call (no progress reporting).
pub fn run_text(
    name: &str,
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<RunOutput, scenario::ScenarioError> {
    let s = scenario::load(name, text, overrides, seed)?;
    let out = World::build(&s).run(&mut |_| true);
    Ok(out.expect("a run without a stop request always finishes"))
}
