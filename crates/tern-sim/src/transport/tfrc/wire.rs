//! What this transport's packets carry, the type its variant of `net::packet::Body` holds
//! (the net layer: imports only `net` and `tern-proto`).

use crate::net::packet::UdpMessage;
use tern_proto::dccp::Packet;

/// A TFRC flow's packets, each carrying at most one of the application's messages.
pub type OnWire = Packet<UdpMessage>;
