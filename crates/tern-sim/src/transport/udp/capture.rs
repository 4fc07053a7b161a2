//! UDP datagrams of Tern's applications in a capture (RFC 768): ports from the flow id, and
//! the application header at the start of the payload when it fits.

use crate::net::packet::{FlowId, UdpKind, UdpMessage};
use crate::trace::pcap::{Payload, WireEncode};

/// Bytes of Tern's application header at the start of a UDP payload.
pub const APP_HEADER_LEN: usize = 20;

/// Tern's application header, big-endian:
/// byte 0 kind (0 data, 1 echo request, 2 echo reply, 3 loss-start notice),
/// bytes 1–3 zero, bytes 4–11 seq, bytes 12–19 `sent_at` in nanoseconds
/// (`T_lastsent` in a notice).
pub fn encode_app_header(m: &UdpMessage) -> [u8; APP_HEADER_LEN] {
    let mut h = [0u8; APP_HEADER_LEN];
    h[0] = match m.kind {
        UdpKind::Data => 0,
        UdpKind::EchoRequest => 1,
        UdpKind::EchoReply => 2,
        UdpKind::Notice => 3,
    };
    h[4..12].copy_from_slice(&m.seq.to_be_bytes());
    h[12..20].copy_from_slice(&m.sent_at.as_nanos().to_be_bytes());
    h
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

impl WireEncode for UdpMessage {
    fn encode(&self, flow: FlowId, transport_len: u16, _: Payload, out: &mut Vec<u8>) -> usize {
        let (sport, dport) = udp_ports(flow, self.kind);
        out.extend_from_slice(&sport.to_be_bytes());
        out.extend_from_slice(&dport.to_be_bytes());
        out.extend_from_slice(&transport_len.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        if self.len as usize >= APP_HEADER_LEN {
            out.extend_from_slice(&encode_app_header(self));
        }
        6
    }
}

#[cfg(test)]
mod tests {
    use super::udp_ports;
    use crate::net::packet::{FlowId, UdpKind};

    #[test]
    fn ports() {
        assert_eq!(udp_ports(FlowId(2), UdpKind::Data), (49154, 5002));
        assert_eq!(udp_ports(FlowId(2), UdpKind::EchoReply), (5002, 49154));
        assert_eq!(udp_ports(FlowId(16_384 + 2), UdpKind::Data), (49154, 5002));
    }
}
