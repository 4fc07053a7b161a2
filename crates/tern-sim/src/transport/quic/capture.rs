//! QUIC datagrams in a capture: their real bytes, always whole (packet protection covers
//! part of the header, so a cut packet would not decode), in UDP (RFC 9000 §12.2).

use crate::net::packet::{FlowId, QuicDatagram};
use crate::trace::pcap::{Payload, WireEncode};

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

impl WireEncode for QuicDatagram {
    fn encode(&self, flow: FlowId, transport_len: u16, _: Payload, out: &mut Vec<u8>) -> usize {
        let (sport, dport) = quic_ports(flow, self.from_client);
        out.extend_from_slice(&sport.to_be_bytes());
        out.extend_from_slice(&dport.to_be_bytes());
        out.extend_from_slice(&transport_len.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.bytes);
        6
    }
}
