//! What this transport's packets carry, the type its variant of `net::packet::Body` holds
//! (the net layer: imports only `net` and `tern-proto`).

use crate::net::packet::UdpMessage;

/// A UDP flow's packets: its application's datagrams.
pub type OnWire = UdpMessage;
