//! TFRC packets on the wire: over UDP with the header fields of RFC 5348 §3.2, or as DCCP
//! packets (RFC 4340) of CCID 3 (RFC 4342). Only their sizes count on links; the fields a
//! TFRC endpoint reads travel as plain values. The application's message is the caller's
//! type `M` ([`Payload`]); the capture bytes of these packets are in [`super::capture`].

use crate::time::SimTime;
use std::num::NonZeroU64;

/// The UDP header, RFC 768.
pub const UDP_HEADER: u32 = 8;

/// What a data packet carries for the application: only its length counts here.
pub trait Payload: Copy {
    /// Payload bytes.
    fn bytes(&self) -> u32;
}

/// How a TFRC flow's packets are framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    /// UDP carrying the TFRC header fields of RFC 5348 §3.2.
    Udp,
    /// DCCP with CCID 3 (RFC 4340, RFC 4342).
    Dccp,
}

/// TFRC data header over UDP, RFC 5348 §3.2.1: sequence number, timestamp and the
/// sender's RTT estimate, 32 bits each.
pub const TFRC_DATA_HEADER: u32 = 12;
/// TFRC feedback over UDP, RFC 5348 §3.2.2: timestamp echo (t_recvdata), t_delay,
/// X_recv and p, 32 bits each.
pub const TFRC_FEEDBACK: u32 = 16;

/// DCCP generic header with 48-bit sequence numbers (X = 1), RFC 4340 §5.1.
pub const DCCP_GENERIC: u32 = 16;
/// The handover notice of the tfrc-handover study's countermeasure B on a data packet: over
/// DCCP a two-byte option (type and length) numbered 184, the first of CCID 3's option
/// numbers reserved for experimental and testing use (RFC 4342 §8), padded to a
/// word (§5.8); over UDP one more 32-bit word after RFC 5348 §3.2.1's three.
pub const HANDOVER_NOTICE: u32 = 4;
/// Acknowledgement Number subheader with X = 1, RFC 4340 §5.3.
pub const DCCP_ACK_SUB: u32 = 8;
/// Service Code of DCCP-Request and DCCP-Response, RFC 4340 §5.5–5.6.
pub const DCCP_SERVICE_CODE: u32 = 4;
/// Reset Code and Data 1–3 of DCCP-Reset, RFC 4340 §5.6.
pub const DCCP_RESET_FIELDS: u32 = 4;
/// A Change L/R or Confirm L/R option with a one-byte value (the CCID), RFC 4340 §6.1.
pub const DCCP_FEATURE_OPTION: u32 = 4;
/// Elapsed Time with its 4-byte form (t_delay in 10 µs units past 0.65 s), RFC 4340 §13.2.
pub const DCCP_ELAPSED_TIME: u32 = 6;
/// Receive Rate option, RFC 4342 §8.3.
pub const CCID3_RECEIVE_RATE: u32 = 6;
/// Loss Event Rate option, RFC 4342 §8.5.
pub const CCID3_LOSS_EVENT_RATE: u32 = 6;
/// Loss Intervals option header (type, length, Skip Length), RFC 4342 §8.6.
pub const CCID3_LOSS_INTERVALS_HEAD: u32 = 3;
/// One loss interval of the Loss Intervals option (Lossless Length, E + Loss Length, Data
/// Length), RFC 4342 §8.6.1.
pub const CCID3_LOSS_INTERVAL: u32 = 9;

/// Options are padded to a multiple of 32 bits (RFC 4340 §5.8: Data Offset counts words).
fn padded(options: u32) -> u32 {
    options.div_ceil(4) * 4
}

/// The DCCP packet types a CCID 3 half-connection uses (RFC 4340 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DccpType {
    Request,
    Response,
    Data,
    Ack,
    Close,
    Reset,
}

impl DccpType {
    /// The Type field (RFC 4340 §5.1, Table 1).
    pub fn code(self) -> u8 {
        match self {
            DccpType::Request => 0,
            DccpType::Response => 1,
            DccpType::Data => 2,
            DccpType::Ack => 3,
            DccpType::Close => 6,
            DccpType::Reset => 7,
        }
    }
}

/// The Loss Event Rate option's value for "no loss event yet" (RFC 4342 §8.5: 2^32 − 1).
pub const NO_LOSS: u32 = u32::MAX;

impl Wire {
    /// Transport header bytes in front of a data packet's payload: UDP and RFC 5348
    /// §3.2.1's fields, or DCCP-Data's generic header (CCVal carrying the window counter,
    /// RFC 4342 §8.1; no options).
    pub fn data_header(self) -> u32 {
        match self {
            Wire::Udp => UDP_HEADER + TFRC_DATA_HEADER,
            Wire::Dccp => DCCP_GENERIC,
        }
    }
}

/// The sender's RTT estimate as a data packet carries it (RFC 5348 §3.2.1), none before the
/// first sample: one word (nanoseconds plus one, so that zero means none). Every field of a
/// data packet is kept narrow because the simulator's packet slot holds the largest body of
/// any transport and is laid out in 64-byte lines: this body must stay within 72 bytes for a
/// slot to take two lines, not three.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rtt(Option<NonZeroU64>);

impl Rtt {
    /// No estimate yet.
    pub const NONE: Rtt = Rtt(None);

    /// The estimate.
    pub fn get(self) -> Option<SimTime> {
        self.0.map(|n| SimTime(n.get() - 1))
    }
}

impl From<Option<SimTime>> for Rtt {
    fn from(rtt: Option<SimTime>) -> Rtt {
        Rtt(rtt.and_then(|t| NonZeroU64::new(t.0.saturating_add(1))))
    }
}

/// What a TFRC packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body<M> {
    /// A data packet (RFC 5348 §3.2.1) with one application message.
    Data {
        seq: u64,
        /// The sender's timestamp and RTT estimate.
        ts: SimTime,
        rtt: Rtt,
        msg: M,
        /// Sent while the sender's link was down in a handover (countermeasure B's notice,
        /// [`HANDOVER_NOTICE`]).
        in_handover: bool,
        /// The sender's round (ns-2's `round_id`; it adds no bytes here), saturating at
        /// `u32::MAX`.
        round: u32,
        /// DCCP's window counter (RFC 4342 §8.1), unwrapped and saturating at `u32::MAX`:
        /// the CCVal field carries it modulo 16.
        ccval: u32,
    },
    /// Receiver feedback (RFC 5348 §3.2.2); over DCCP a DCCP-Ack with CCID 3's options.
    Feedback {
        /// The newest data sequence number received (DCCP's Acknowledgement Number).
        ack: u64,
        t_recvdata: SimTime,
        t_delay: SimTime,
        /// X_recv in bytes per second, as RFC 4342 §8.3's Receive Rate option carries it.
        x_recv: u32,
        /// 1/p rounded, as RFC 4342 §8.5's Loss Event Rate option carries it
        /// ([`NO_LOSS`] for p = 0).
        p_inv: u32,
        /// Closed loss intervals the receiver reports (RFC 4342 §8.6), open one aside.
        intervals: u32,
    },
    /// A DCCP control packet (handshake, close); never sent over UDP.
    Control { kind: DccpType, seq: u64, ack: u64 },
}

/// A TFRC packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet<M> {
    pub wire: Wire,
    pub body: Body<M>,
}

impl<M: Payload> Packet<M> {
    /// Transport header, options and payload in bytes: what the packet adds to IPv4.
    pub fn transport_len(&self) -> u32 {
        match (self.wire, &self.body) {
            (
                wire,
                Body::Data {
                    msg, in_handover, ..
                },
            ) => wire.data_header() + msg.bytes() + if *in_handover { HANDOVER_NOTICE } else { 0 },
            (Wire::Udp, Body::Feedback { .. }) => UDP_HEADER + TFRC_FEEDBACK,
            (Wire::Udp, Body::Control { .. }) => {
                unreachable!("TFRC over UDP has no connection set-up")
            }
            // DCCP-Ack with the options RFC 4342 §8 makes the receiver send: Elapsed Time,
            // Receive Rate, Loss Event Rate and Loss Intervals (the open interval and the
            // closed ones). The Send Ack Vector feature stays off (RFC 4342 §5).
            (Wire::Dccp, Body::Feedback { intervals, .. }) => {
                let options = DCCP_ELAPSED_TIME
                    + CCID3_RECEIVE_RATE
                    + CCID3_LOSS_EVENT_RATE
                    + CCID3_LOSS_INTERVALS_HEAD
                    + CCID3_LOSS_INTERVAL * (intervals + 1);
                DCCP_GENERIC + DCCP_ACK_SUB + padded(options)
            }
            (Wire::Dccp, Body::Control { kind, .. }) => dccp_control_len(*kind),
        }
    }

    /// Whether this is a data packet (an application message on its way).
    pub fn is_data(&self) -> bool {
        matches!(self.body, Body::Data { .. })
    }
}

/// Sizes of DCCP's control packets (RFC 4340 §5.5–5.6). The Request asks for CCID 3 in
/// both directions (Change R(CCID), Change L(CCID), §10), the Response confirms them.
fn dccp_control_len(kind: DccpType) -> u32 {
    match kind {
        DccpType::Request => DCCP_GENERIC + DCCP_SERVICE_CODE + padded(2 * DCCP_FEATURE_OPTION),
        DccpType::Response => {
            DCCP_GENERIC + DCCP_ACK_SUB + DCCP_SERVICE_CODE + padded(2 * DCCP_FEATURE_OPTION)
        }
        DccpType::Ack | DccpType::Close => DCCP_GENERIC + DCCP_ACK_SUB,
        DccpType::Reset => DCCP_GENERIC + DCCP_ACK_SUB + DCCP_RESET_FIELDS,
        DccpType::Data => unreachable!("data packets carry a message"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Payload for u32 {
        fn bytes(&self) -> u32 {
            *self
        }
    }

    fn msg(len: u32) -> u32 {
        len
    }

    /// RFC 4340 §5.1 (16 B with X = 1) and §5.3 (8 B acknowledgement subheader); RFC 4342
    /// §8: 6 + 6 + 6 + 3 + 9·(k+1) bytes of options, padded to words.
    #[test]
    fn dccp_sizes_follow_rfc_4340_and_4342() {
        let data = Packet {
            wire: Wire::Dccp,
            body: Body::Data {
                seq: 1,
                ts: SimTime::ZERO,
                rtt: Rtt::NONE,
                msg: msg(629),
                in_handover: false,
                round: 0,
                ccval: 0,
            },
        };
        assert_eq!(data.transport_len(), 16 + 629);
        // With the handover notice: a 2-byte option padded to 4.
        let Body::Data {
            seq, ts, rtt, msg, ..
        } = data.body
        else {
            unreachable!()
        };
        let marked = Packet {
            wire: Wire::Dccp,
            body: Body::Data {
                seq,
                ts,
                rtt,
                msg,
                in_handover: true,
                round: 0,
                ccval: 0,
            },
        };
        assert_eq!(marked.transport_len(), 16 + 4 + 629);
        let fb = |intervals| Packet::<u32> {
            wire: Wire::Dccp,
            body: Body::Feedback {
                ack: 1,
                t_recvdata: SimTime::ZERO,
                t_delay: SimTime::ZERO,
                x_recv: 0,
                p_inv: NO_LOSS,
                intervals,
            },
        };
        // 18 + 3 + 9 = 30 B of options → 32.
        assert_eq!(fb(0).transport_len(), 16 + 8 + 32);
        // 18 + 3 + 81 = 102 → 104.
        assert_eq!(fb(8).transport_len(), 16 + 8 + 104);
        let req = Packet::<u32> {
            wire: Wire::Dccp,
            body: Body::Control {
                kind: DccpType::Request,
                seq: 0,
                ack: 0,
            },
        };
        assert_eq!(req.transport_len(), 16 + 4 + 8);
    }

    /// RFC 5348 §3.2: three 32-bit fields on data, four on feedback, over an 8-byte UDP header.
    #[test]
    fn udp_sizes_follow_rfc_5348() {
        let data = Packet {
            wire: Wire::Udp,
            body: Body::Data {
                seq: 1,
                ts: SimTime::ZERO,
                rtt: Rtt::NONE,
                msg: msg(1000),
                in_handover: false,
                round: 0,
                ccval: 0,
            },
        };
        assert_eq!(data.transport_len(), 8 + 12 + 1000);
    }
}
