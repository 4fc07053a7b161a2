//! The Tern world: a deterministic discrete-event simulator of transport
//! protocols over wired, cellular and wireless links.
//!
//! ```text
//! load(text) -> Scenario -> World::build -> World::run -> RunOutput { summary, tables }
//! ```
//!
//! Layers, each importing only those below it (docs/design.md; `tests/layers.rs` checks
//! it): `engine`, `radio`, `trace` (records and sinks), `scenario` (the description),
//! `tracelink`, `summary`, `net` (packets, the `Device` trait, point-to-point links, routes),
//! the trace's captures, `app`, the link models (`link`, `cellular`, `wifi`), `transport`,
//! `mech` (the studies' mechanisms), `emu`, and `world` on top.

pub mod app;
pub mod cellular;
pub mod emu;
pub mod engine;
pub mod heap;
pub mod link;
pub mod mech;
pub mod net;
pub mod radio;
pub mod scenario;
pub mod summary;
pub mod trace;
pub mod tracelink;
pub mod transport;
pub mod wifi;
pub mod world;

pub use world::{RunError, RunOutput, World};

/// Reads a scenario from TOML `text` (named `name` in errors), applies `overrides`
/// (`("links.access.rate", "5Mbps")`, elements of arrays picked by their `name`), and
/// checks everything a run needs: the scenario's own rules, then routes, path MTUs and the
/// models' own checks. `seed`, when given, replaces `sim.seed`. Each 802.11 BSS comes back
/// with its standard's defaults written out ([`wifi::build::with_defaults`]), so that the
/// resolved scenario shows them.
pub fn load(
    name: &str,
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<scenario::Scenario, scenario::ScenarioError> {
    let mut s = scenario::load_with(name, text, overrides, seed, world::check::check)?;
    for w in &mut s.wifi {
        *w = wifi::build::with_defaults(w);
    }
    Ok(s)
}

/// Loads, builds and runs a scenario in one call (no progress reporting).
pub fn run_text(
    name: &str,
    text: &str,
    overrides: &[(String, String)],
    seed: Option<u64>,
) -> Result<RunOutput, scenario::ScenarioError> {
    let s = load(name, text, overrides, seed)?;
    let out = World::build(&s).run(&mut |_| true);
    Ok(out.expect("a run without a stop request always finishes"))
}
