//! The UDP datagrams of Tern's own applications: the UDP header size and the application
//! header every message carries (kind, sequence number, send time).

use crate::engine::SimTime;

/// UDP header (RFC 768).
pub const UDP_HEADER: u32 = 8;

/// What a UDP datagram of one of Tern's applications carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UdpKind {
    /// An application message (periodic, cbr).
    Data,
    /// A ping request, answered by the far end.
    EchoRequest,
    /// The answer to an [`UdpKind::EchoRequest`], with the request's seq and send time.
    EchoReply,
    /// A mechanism's control message between the flow's applications (the
    /// `ConnectionSwitcher`'s loss-start notice, server → UE, whose `sent_at` carries
    /// `T_lastsent`, the send time of the last message the server received).
    Notice,
}

/// The application header of Tern's UDP messages: every message carries its
/// sequence number and send time, so the receiver can measure one-way delay and loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpMessage {
    pub kind: UdpKind,
    pub seq: u64,
    pub sent_at: SimTime,
    /// UDP payload length in bytes.
    pub len: u32,
}

/// A TFRC data packet carries one message (`tern_proto::dccp`).
impl tern_proto::dccp::Payload for UdpMessage {
    fn bytes(&self) -> u32 {
        self.len
    }
}
