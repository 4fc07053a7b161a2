//! What this transport's packets carry, the type its variant of `net::packet::Body` holds
//! (the net layer: imports only `net` and `tern-proto`).

use tern_proto::tcp::Segment;

/// A TCP flow's packets: its segments.
pub type OnWire = Segment;
