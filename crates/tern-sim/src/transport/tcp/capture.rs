//! TCP segments in a capture, and in what an emulation's Tern endpoint sends a kernel
//! (RFC 9293 §3.1): every field of the [`Segment`], options laid out as Linux lays them out.

use super::pattern::pattern;
use crate::net::packet::FlowId;
use crate::trace::pcap::{EncodeError, Payload, WireEncode};
use tern_proto::tcp::{Segment, TcpOptions};

/// Largest TCP header: the data offset is a 4-bit count of 32-bit words.
const TCP_MAX_HEADER: u32 = 60;

impl WireEncode for Segment {
    fn check(&self) -> Result<(), EncodeError> {
        if self.header_len() > TCP_MAX_HEADER {
            return Err(EncodeError::TcpHeaderTooLong(self.header_len()));
        }
        Ok(())
    }

    fn encode(&self, _: FlowId, _: u16, payload: Payload, out: &mut Vec<u8>) -> usize {
        encode_tcp(self, out);
        if let Payload::Stream { offset } = payload {
            out.extend((0..u64::from(self.payload_len)).map(|k| pattern(offset + k)));
        }
        16
    }

    /// The stream pattern is written for the checksum only.
    fn headers_only_cut(&self, payload: Payload) -> usize {
        match payload {
            Payload::Stream { .. } => self.payload_len as usize,
            Payload::Zeros => 0,
        }
    }
}

/// Appends the TCP options to `out` in Linux's layout
/// (`tcp_options_write()`), each group padded to 32 bits with NOPs:
///
/// ```text
/// MSS                  02 04 mss(2)                          RFC 9293 §3.2
/// SACK-perm + TS       04 02 08 0a TSval(4) TSecr(4)         RFC 2018 §2, RFC 7323 §3
/// TS alone             01 01 08 0a TSval(4) TSecr(4)
/// SACK-perm alone      01 01 04 02
/// window scale         01 03 03 shift                        RFC 7323 §2
/// SACK blocks          01 01 05 2+8n (left(4) right(4))*n    RFC 2018 §3
/// ```
///
/// A Linux SYN is thus `MSS, SACK-perm, TS, NOP, WS` (20 bytes).
pub fn encode_tcp_options(o: &TcpOptions, out: &mut Vec<u8>) {
    if let Some(mss) = o.mss {
        out.extend_from_slice(&[2, 4]);
        out.extend_from_slice(&mss.to_be_bytes());
    }
    match (o.timestamps, o.sack_permitted) {
        (Some((tsval, tsecr)), sack_ok) => {
            out.extend_from_slice(if sack_ok { &[4, 2] } else { &[1, 1] });
            out.extend_from_slice(&[8, 10]);
            out.extend_from_slice(&tsval.to_be_bytes());
            out.extend_from_slice(&tsecr.to_be_bytes());
        }
        (None, true) => out.extend_from_slice(&[1, 1, 4, 2]),
        (None, false) => {}
    }
    if let Some(shift) = o.window_scale {
        out.extend_from_slice(&[1, 3, 3, shift]);
    }
    if !o.sack_blocks.is_empty() {
        out.extend_from_slice(&[1, 1, 5, (2 + 8 * o.sack_blocks.len()) as u8]);
        for (left, right) in o.sack_blocks.iter() {
            out.extend_from_slice(&left.0.to_be_bytes());
            out.extend_from_slice(&right.0.to_be_bytes());
        }
    }
}

/// TCP header (RFC 9293 §3.1) with its checksum field left zero.
fn encode_tcp(seg: &Segment, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&seg.src_port.to_be_bytes());
    out.extend_from_slice(&seg.dst_port.to_be_bytes());
    out.extend_from_slice(&seg.seq.0.to_be_bytes());
    out.extend_from_slice(&seg.ack.0.to_be_bytes());
    let words = (seg.header_len() / 4) as u8;
    let f = seg.flags;
    let flags = u8::from(f.fin)
        | u8::from(f.syn) << 1
        | u8::from(f.rst) << 2
        | u8::from(f.psh) << 3
        | u8::from(f.ack) << 4;
    out.extend_from_slice(&[words << 4, flags]);
    out.extend_from_slice(&seg.window.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    encode_tcp_options(&seg.options, out);
    assert_eq!(
        (out.len() - start) as u32,
        seg.header_len(),
        "encoded TCP header differs from Segment::header_len for {:?}",
        seg.options
    );
}

#[cfg(test)]
mod tests {
    use super::encode_tcp_options;
    use crate::trace::pcap::tests::{syn, tcp_packet};
    use crate::trace::pcap::{encode, Capture};
    use tern_proto::tcp::{SeqNum, TcpOptions};

    #[test]
    fn syn_options_are_linux_layout() {
        let mut out = Vec::new();
        encode_tcp_options(&syn().options, &mut out);
        assert_eq!(
            out,
            [
                2, 4, 0x05, 0xb4, // MSS 1460
                4, 2, // SACK permitted
                8, 10, 0, 0, 0, 1, 0, 0, 0, 0, // TSval 1, TSecr 0
                1, 3, 3, 7, // NOP, window scale 7
            ]
        );
        let p = tcp_packet(syn());
        let mut bytes = Vec::new();
        encode(&p, Capture::Full, &mut bytes).unwrap();
        assert_eq!(bytes.len(), 60);
        assert_eq!(bytes[32] >> 4, 10); // data offset: 40 bytes
        assert_eq!(bytes[33], 0x02); // SYN
        assert_eq!(&bytes[40..60], &out[..]);
    }

    #[test]
    fn other_option_layouts_match_header_len() {
        let cases = [
            TcpOptions {
                timestamps: Some((7, 9)),
                ..Default::default()
            },
            TcpOptions {
                sack_permitted: true,
                mss: Some(536),
                ..Default::default()
            },
            TcpOptions {
                timestamps: Some((7, 9)),
                sack_blocks: [(SeqNum(1), SeqNum(2)); 3].into_iter().collect(),
                ..Default::default()
            },
            TcpOptions {
                sack_blocks: [(SeqNum(1), SeqNum(2)); 4].into_iter().collect(),
                ..Default::default()
            },
        ];
        for o in cases {
            let mut out = Vec::new();
            encode_tcp_options(&o, &mut out);
            assert_eq!(out.len() as u32, o.len(), "{o:?}");
        }
        let mut out = Vec::new();
        encode_tcp_options(
            &TcpOptions {
                timestamps: Some((7, 9)),
                ..Default::default()
            },
            &mut out,
        );
        assert_eq!(out, [1, 1, 8, 10, 0, 0, 0, 7, 0, 0, 0, 9]);
    }
}
