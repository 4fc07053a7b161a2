//! Capture bytes of TFRC packets: over UDP, the UDP header and RFC 5348 §3.2's fields;
//! as DCCP, the real DCCP header (RFC 4340 §5) with CCID 3's options (RFC 4342 §8), so that
//! Wireshark decodes them. The caller writes the IPv4 header in front and fills in the
//! checksum (DCCP's sits at the same offset as UDP's, RFC 4340 §9).

use super::wire::{Body, DccpType, Packet, Payload, Wire};
use crate::time::SimTime;

/// DCCP options of RFC 4340 §5.8 and RFC 4342 §8, by type.
const OPT_CHANGE_L: u8 = 32;
const OPT_CONFIRM_L: u8 = 33;
const OPT_CHANGE_R: u8 = 34;
const OPT_CONFIRM_R: u8 = 35;
const OPT_ELAPSED_TIME: u8 = 43;
/// The handover notice ([`super::wire::HANDOVER_NOTICE`]): the first of CCID 3's option numbers
/// reserved for experimental and testing use (184-190, RFC 4342 §8 and IANA's CCID 3 registry;
/// 128 is RFC 6323's RTT Estimate).
const OPT_HANDOVER_NOTICE: u8 = 184;
const OPT_LOSS_EVENT_RATE: u8 = 192;
const OPT_LOSS_INTERVALS: u8 = 193;
const OPT_RECEIVE_RATE: u8 = 194;
/// The CCID feature (RFC 4340 §10) and its value 3 (RFC 4342).
const FEATURE_CCID: u8 = 1;
const CCID3: u8 = 3;

/// Microseconds, the unit of the TFRC-over-UDP timestamps, truncated to 32 bits.
fn micros(t: SimTime) -> u32 {
    (t.as_nanos() / 1_000) as u32
}

/// Whether the packet goes from the half-connection's sender (the client) to its receiver.
pub fn from_sender<M>(body: &Body<M>) -> bool {
    !matches!(
        body,
        Body::Feedback { .. }
            | Body::Control {
                kind: DccpType::Response,
                ..
            }
    )
}

/// Appends `t`'s transport header (and options) to `out`, from port `sport` to `dport`;
/// `len` is its transport length. The checksum is left zero.
pub fn encode<M: Payload>(t: &Packet<M>, (sport, dport): (u16, u16), len: u16, out: &mut Vec<u8>) {
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    match t.wire {
        Wire::Udp => {
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            udp_fields(&t.body, out);
        }
        Wire::Dccp => dccp(&t.body, t.transport_len(), out),
    }
}

/// RFC 5348 §3.2.1–3.2.2, 32 bits each: timestamps and RTT in microseconds.
fn udp_fields<M>(body: &Body<M>, out: &mut Vec<u8>) {
    let words = match *body {
        Body::Data {
            seq,
            ts,
            rtt,
            in_handover,
            ..
        } => {
            let mut words = vec![
                seq as u32,
                micros(ts),
                micros(rtt.get().unwrap_or(SimTime::ZERO)),
            ];
            if in_handover {
                words.push(u32::from(OPT_HANDOVER_NOTICE) << 24 | 2 << 16);
            }
            words
        }
        Body::Feedback {
            t_recvdata,
            t_delay,
            x_recv,
            p_inv,
            ..
        } => vec![micros(t_recvdata), micros(t_delay), x_recv, p_inv],
        Body::Control { .. } => unreachable!("TFRC over UDP has no connection set-up"),
    };
    for w in words {
        out.extend_from_slice(&w.to_be_bytes());
    }
}

/// The DCCP header after the ports (RFC 4340 §5.1), with the acknowledgement subheader
/// (§5.3), the Request/Response fields (§5.5–5.6) and the options.
fn dccp<M: Payload>(body: &Body<M>, transport_len: u32, out: &mut Vec<u8>) {
    let ccval = match *body {
        Body::Data { ccval, .. } => (ccval % 16) as u8,
        _ => 0,
    };
    let (kind, seq, ack) = match *body {
        Body::Data { seq, .. } => (DccpType::Data, seq, None),
        Body::Feedback { ack, .. } => (DccpType::Ack, ack, Some(ack)),
        Body::Control { kind, seq, ack } => (kind, seq, (kind != DccpType::Request).then_some(ack)),
    };
    let mut rest = Vec::with_capacity(64);
    if let Some(ack) = ack {
        rest.extend_from_slice(&[0, 0]);
        rest.extend_from_slice(&ack.to_be_bytes()[2..]);
    }
    match (kind, *body) {
        (DccpType::Request, _) => {
            rest.extend_from_slice(&[0; 4]); // Service Code
            rest.extend_from_slice(&[OPT_CHANGE_L, 4, FEATURE_CCID, CCID3]);
            rest.extend_from_slice(&[OPT_CHANGE_R, 4, FEATURE_CCID, CCID3]);
        }
        (DccpType::Response, _) => {
            rest.extend_from_slice(&[0; 4]);
            rest.extend_from_slice(&[OPT_CONFIRM_L, 4, FEATURE_CCID, CCID3]);
            rest.extend_from_slice(&[OPT_CONFIRM_R, 4, FEATURE_CCID, CCID3]);
        }
        (DccpType::Reset, _) => rest.extend_from_slice(&[0; 4]),
        (
            _,
            Body::Data {
                in_handover: true, ..
            },
        ) => rest.extend_from_slice(&[OPT_HANDOVER_NOTICE, 2]),
        (
            _,
            Body::Feedback {
                t_delay,
                x_recv,
                p_inv,
                intervals,
                ..
            },
        ) => {
            // Elapsed Time in hundredths of milliseconds (RFC 4340 §13.2).
            let elapsed = (t_delay.as_nanos() / 10_000) as u32;
            rest.extend_from_slice(&[OPT_ELAPSED_TIME, 6]);
            rest.extend_from_slice(&elapsed.to_be_bytes());
            rest.extend_from_slice(&[OPT_RECEIVE_RATE, 6]);
            rest.extend_from_slice(&x_recv.to_be_bytes());
            rest.extend_from_slice(&[OPT_LOSS_EVENT_RATE, 6]);
            rest.extend_from_slice(&p_inv.to_be_bytes());
            let n = intervals as usize + 1;
            rest.extend_from_slice(&[OPT_LOSS_INTERVALS, (3 + 9 * n) as u8, 0]);
            rest.resize(rest.len() + 9 * n, 0);
        }
        _ => {}
    }
    // Padding options (type 0) to a whole number of words (RFC 4340 §5.8).
    rest.resize(rest.len().div_ceil(4) * 4, 0);
    // Ports (written by the caller), then 12 more bytes of the generic header (X = 1).
    let header = 16 + rest.len();
    let payload = match body {
        Body::Data { msg, .. } => msg.bytes() as usize,
        _ => 0,
    };
    debug_assert_eq!(header + payload, transport_len as usize, "{kind:?}");
    out.push((header / 4) as u8); // Data Offset
    out.push(ccval << 4); // CCVal: the window counter mod 16 (RFC 4342 §8.1); CsCov 0
    out.extend_from_slice(&[0, 0]); // checksum, filled in by the caller
    out.push((kind.code() << 1) | 1); // Res, Type, X = 1
    out.push(0);
    out.extend_from_slice(&seq.to_be_bytes()[2..]);
    out.extend_from_slice(&rest);
}
