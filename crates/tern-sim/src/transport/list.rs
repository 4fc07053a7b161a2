//! The macro behind the one list of transports ([`crate::transport`]): from one line per
//! kind, `Kind => slice`, it declares the slice's module and makes everything that
//! dispatches on the kind, so that nothing outside a slice names the kinds.
//!
//! A slice `transport/<slice>/` provides:
//! - in `spec.rs` (the scenario layer: it imports only `scenario`): `Spec`, its settings in
//!   a scenario (`transport = { kind = "<slice>", … }`); `check(spec, cx)`, the checks of
//!   them the types do not make (a window of 0 B), with the scenario at hand
//!   ([`crate::scenario::CheckCx`]); `STREAM`, whether it is a reliable byte stream (its
//!   messages are late, never lost). The scenario's `TransportSpec` is made from these
//!   (`transport_spec!`, scenario/schema/flow.rs);
//! - `build(spec, cx)`: the flow's [`super::Transport`] and its first commands
//!   ([`crate::transport::build_cx::BuildCx`]); mechanisms above it are built by `mech::build`;
//! - in `wire.rs` (the net layer: it imports only `net` and `tern-proto`): `OnWire`, the
//!   type its packets carry, which `net::packet::Body` holds (`packet_body!`, net/body.rs);
//!   it implements [`super::WireBody`] (sizes) and, in capture.rs,
//!   [`crate::trace::pcap::WireEncode`] (capture bytes);
//! - `Summary`: what it adds to its flows' summaries, implementing [`super::KindSummary`]
//!   (its fields, flattened into the flow's: `tcp`, `quic`, `tfrc`, each under the slice's
//!   name); an empty enum for a kind that adds nothing;
//! - `records!`: its trace record kinds and their tables, gathered with every other
//!   slice's into [`crate::trace::RecordKind`] and the trace tables (see
//!   [`crate::trace::records`]); it may list none.
//!
//! The macro makes [`super::TransportSummary`] (a variant `Kind(slice::Summary)` per line)
//! and the dispatch: [`super::build`] and the summary's transfer time.

/// Makes the transports' modules and [`super::TransportSummary`] from the list (see the
/// module doc).
#[doc(hidden)]
#[macro_export]
macro_rules! transports {
    ( {} $($(#[$doc:meta])* $kind:ident => $slice:ident,)* ) => {
        $(pub mod $slice;)*

        /// The transport of a flow, built by its kind's slice.
        pub fn build(
            spec: &TransportSpec,
            cx: $crate::transport::build_cx::BuildCx<'_>,
        ) -> (Box<dyn Transport>, Vec<Cmd>) {
            match spec {
                $(TransportSpec::$kind(spec) => $slice::build(spec, cx),)*
            }
        }
    };
}
