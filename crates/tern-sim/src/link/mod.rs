//! Link technologies: how each `[[links]]` entry becomes a device.
//!
//! A link is point-to-point ([`p2p`]) unless it gives one technology's table; the
//! technologies are listed once, in [`with_links!`](crate::with_links). Each lives in its
//! own folder: its table, checks and summary detail (`spec.rs`, implementing
//! [`LinkTable`](crate::scenario::LinkTable)), its model, and its [`Technology`]
//! implementation, which builds the device and checks the table against the model. From
//! the list the scenario side gets its link types ([`crate::scenario::LinkSpec`]) and the
//! world its dispatch (`world::build::links`: `check_models`, `build`, made by
//! [`link_dispatch!`](crate::link_dispatch)): nothing else matches on technologies. This
//! module is below the technologies (they import it); the dispatch is above them.
//!
//! Call order, per link: [`LinkTable::check`] and [`Technology::check_models`] when the
//! scenario is loaded, before any run; [`Technology::build`] when the world is built, whose
//! [`Build::starts`] the world queues in order after the link's own scheduled changes.

pub mod p2p;

use crate::engine::SimTime;
use crate::net::device::{Device, IfaceId};
use crate::net::packet::NodeId;
use crate::radio::mobility::Mobility;
use crate::scenario::units::DataRate;
use crate::scenario::{LinkCheck, LinkSpec, LinkTable, ScenarioError};

/// The link technologies with a table of their own in `[[links]]`, one line each:
/// `Variant(key) in module`. The table `key = { … }` makes a link `LinkTech::Variant`, and
/// `crate::module::Variant` implements [`LinkTable`] and [`Technology`]. A module under
/// `link/` is declared by its line. The line's doc comment documents the table.
#[doc(hidden)]
#[macro_export]
macro_rules! with_links {
    ($then:ident { $($args:tt)* }) => {
        $crate::$then! {
            { $($args)* }
            /// Makes the link an LTE cell bearer with handovers.
            Lte(cell) in cellular::lte,
            /// Makes the link a W-CDMA radio bearer with RLC acknowledged mode
            /// between `ends[0]` (the UE) and `ends[1]` (the RNC). `rate` is then the
            /// bearer's RLC payload rate (e.g. 384 kbit/s) and `delay` the one-way
            /// radio and processing delay of a PDU after its TTI; `queue` is not used
            /// (the RLC sender buffer is `rlc.buffer`).
            Wcdma(rlc) in cellular::wcdma,
        }
    };
}

/// A link technology's model side (its scenario side is its [`LinkTable`]).
pub(crate) trait Technology: LinkTable {
    /// The checks of the table that need the model, after the scenario's own (see
    /// [`LinkTable::check`]); errors name the file, line and key through `cx`.
    fn check_models(
        _link: &LinkSpec,
        _spec: &Self::Spec,
        _cx: &LinkCheck<'_, '_>,
    ) -> Result<(), ScenarioError> {
        Ok(())
    }

    /// The device of `link`; what it needs from the world before the run goes in
    /// [`Build::starts`].
    fn build(link: &LinkSpec, spec: &Self::Spec, cx: &mut Build<'_>) -> Box<dyn Device>;
}

/// What a link's builder knows of the world, and what it asks of it.
pub(crate) struct Build<'a> {
    pub seed: u64,
    /// The end of the run.
    pub end: SimTime,
    /// The link's forward interface; the reverse one follows it.
    pub first: IfaceId,
    /// The node at `ends[0]`.
    pub near: NodeId,
    /// Where a node is over time, by name (for distance loss models).
    pub mobility: &'a dyn Fn(&str) -> Mobility,
    /// What the world queues before the run, in this order.
    pub starts: Vec<Start>,
}

/// Something a link's device needs queued before the run.
pub(crate) enum Start {
    /// A change of an interface's rate and/or delay at `at`, as a scheduled change.
    Change {
        at: SimTime,
        iface: IfaceId,
        rate: Option<DataRate>,
        delay: Option<SimTime>,
    },
    /// A wake-up of the device with `token` at `at`.
    Wake { at: SimTime, token: u32 },
}

/// Declares a technology's module when it lives under `link/`.
#[doc(hidden)]
#[macro_export]
macro_rules! link_module {
    (link :: $name:ident) => {
        pub mod $name;
    };
    ($($other:tt)*) => {};
}

/// Declares the modules of the technologies that live under `link/`.
#[doc(hidden)]
#[macro_export]
macro_rules! link_modules {
    ( {} $( $(#[doc = $vd:literal])* $v:ident($key:ident) in $($m:ident)::+ , )* ) => {
        $( $crate::link_module!($($m)::+); )*
    };
}

crate::with_links! { link_modules {} }

/// The dispatch over the list of technologies: `check_models` and `build`, expanded where
/// the world is built (above every technology, as a registry is).
#[doc(hidden)]
#[macro_export]
macro_rules! link_dispatch {
    ( {} $( $(#[doc = $vd:literal])* $v:ident($key:ident) in $($m:ident)::+ , )* ) => {
        /// The checks of `link`'s technology that need its model.
        pub(crate) fn check_models(
            link: &$crate::scenario::LinkSpec,
            cx: &$crate::scenario::LinkCheck<'_, '_>,
        ) -> Result<(), $crate::scenario::ScenarioError> {
            use $crate::link::Technology;
            match &link.tech {
                $crate::scenario::LinkTech::P2p => Ok(()),
                $(
                    $crate::scenario::LinkTech::$v(spec) => {
                        <$crate::$($m)::+::$v as Technology>::check_models(link, spec, cx)
                    }
                )*
            }
        }

        /// The device of `link`.
        pub(crate) fn build(
            link: &$crate::scenario::LinkSpec,
            cx: &mut $crate::link::Build<'_>,
        ) -> Box<dyn $crate::net::device::Device> {
            use $crate::link::{p2p, Technology};
            match &link.tech {
                $crate::scenario::LinkTech::P2p => {
                    Box::new(p2p::point_to_point(link, cx, |_| p2p::Extras::default()))
                }
                $(
                    $crate::scenario::LinkTech::$v(spec) => {
                        <$crate::$($m)::+::$v as Technology>::build(link, spec, cx)
                    }
                )*
            }
        }
    };
}
