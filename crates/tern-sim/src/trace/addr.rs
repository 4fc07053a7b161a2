//! Where a simulated packet appears to come from and go to in a capture: IPv4 addresses of
//! nodes and the ports of each kind of flow (UDP messages, QUIC, TFRC/DCCP). One module, so
//! that the capture encoders of every transport share it.

use crate::net::packet::{FlowId, NodeId, UdpKind};

/// The IPv4 address of a node: `10.a.b.c` where `a.b.c` is node id + 1 as a
/// 24-bit big-endian number, so node 0 is 10.0.0.1, node 255 is 10.0.1.0 and
/// node 1000 is 10.0.3.233 (10.0.x.y for the first 65,535 nodes). Ids are
/// taken modulo 2^24.
pub fn node_addr(node: NodeId) -> [u8; 4] {
    let [_, a, b, c] = node.0.wrapping_add(1).to_be_bytes();
    [10, a, b, c]
}

/// The (source, destination) UDP ports of a message of `flow`.
///
/// The flow's sender uses port 49152 + f and its receiver port 5000 + f,
/// with f = flow id mod 16384 (so both stay within 16 bits); data and echo
/// requests go sender → receiver, echo replies and loss-start notices come
/// back with the ports swapped.
pub fn udp_ports(flow: FlowId, kind: UdpKind) -> (u16, u16) {
    let f = (flow.0 % 16_384) as u16;
    let (client, server) = (49_152 + f, 5_000 + f);
    match kind {
        UdpKind::Data | UdpKind::EchoRequest => (client, server),
        UdpKind::EchoReply | UdpKind::Notice => (server, client),
    }
}

/// The (source, destination) UDP ports of a QUIC datagram of `flow`: the client (the flow's
/// source) uses 49152 + f as for UDP messages, the server 443, the port Wireshark decodes as
/// QUIC without being told.
pub fn quic_ports(flow: FlowId, from_client: bool) -> (u16, u16) {
    let client = 49_152 + (flow.0 % 16_384) as u16;
    if from_client {
        (client, 443)
    } else {
        (443, client)
    }
}

/// The (source, destination) ports of a TFRC packet of `flow`: the sender's 49152 + f,
/// the receiver's 5000 + f, as for UDP messages.
pub fn tfrc_ports(flow: FlowId, from_sender: bool) -> (u16, u16) {
    udp_ports(
        flow,
        if from_sender {
            UdpKind::Data
        } else {
            UdpKind::EchoReply
        },
    )
}
