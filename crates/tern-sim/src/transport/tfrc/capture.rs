//! TFRC packets in a capture: over UDP, or as DCCP (RFC 4340) with CCID 3's options
//! (`tern_proto::dccp::capture`).

use crate::transport::udp::capture::udp_ports;
use crate::net::packet::{FlowId, UdpKind, UdpMessage};
use crate::trace::pcap::{Payload, WireEncode};
use tern_proto::dccp::{capture, Packet};

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

impl WireEncode for Packet<UdpMessage> {
    /// DCCP's checksum sits at the same offset as UDP's (RFC 4340 §9).
    fn encode(&self, flow: FlowId, transport_len: u16, _: Payload, out: &mut Vec<u8>) -> usize {
        let ports = tfrc_ports(flow, capture::from_sender(&self.body));
        capture::encode(self, ports, transport_len, out);
        6
    }
}
