//! What this transport's packets carry, the type its variant of `net::packet::Body` holds
//! (the net layer: imports only `net` and `tern-proto`).

use crate::net::packet::QuicDatagram;

/// A QUIC flow's packets: UDP datagrams of its connection.
pub type OnWire = QuicDatagram;
