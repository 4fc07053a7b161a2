//! noq-proto 1.4.0 (the multipath fork of quinn-proto: a sans-IO QUIC state machine), built
//! from the crate published on crates.io with Tern's patches applied (`build.rs`,
//! `patches/`); the workspace's `[patch.crates-io]` uses it in place of the published crate.
//!
//! - `0001-multipath-key-phase-by-path.patch`: a receiver compared packet numbers of different
//!   paths when choosing the keys of a packet sent before a key update, and dropped the
//!   packets of one path that arrived after the other path's first packet with the new keys
//!   (draft-ietf-quic-multipath, "Key Phase Update Process": the Key Phase bit tells).
//! - `0002-qlog-key-updated-and-lost-path.patch`: qlog `key_updated` events
//!   (draft-ietf-quic-qlog-quic-events-12 §6.1) and the path of each lost packet in
//!   `packet_lost` (§7, with §8's `PacketHeader.path_id`).
//!
//! The published crate's own crate-level attributes, restated (its `lib.rs`, lines 15-28):
//! `no_std` with `alloc` and `std` linked explicitly. Its lints are not Tern's: warnings are
//! allowed here as Cargo caps them for any crate from a registry.

#![no_std]
#![allow(warnings, clippy::all)]

include!(concat!(env!("OUT_DIR"), "/noq-proto/src/lib.rs"));
