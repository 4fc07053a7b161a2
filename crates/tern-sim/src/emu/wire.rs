//! Real IPv4/TCP bytes at the boundary between a Tern TCP endpoint and a real host's
//! kernel (emulation): the parser of what a kernel sends. Tern's own segments are encoded
//! by the capture encoder ([`crate::trace::pcap::frame`]), the one encoder of Tern's bytes,
//! with the stream content of [`super::pattern`].

use crate::net::packet::IPV4_HEADER;
use crate::trace::pcap::{fold, sum_words, transport_checksum};
use tern_proto::tcp::{Flags, SackBlocks, Segment, SeqNum, TcpOptions, MAX_SACK_BLOCKS};

/// IPv4's protocol number of TCP (IANA).
pub use crate::net::body::PROTO_TCP;
/// The TCP header without options (RFC 9293 §3.1).
const TCP_HEADER: usize = 20;

/// Why a real host's packet is not a TCP segment Tern's TCP can take (the packet is dropped
/// and counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Shorter than its headers or than its IPv4 total length says.
    Truncated,
    /// Not IPv4, or an IHL below 5 (RFC 791 §3.1).
    BadIpHeader,
    /// The IPv4 header checksum does not verify (RFC 791 §3.1).
    IpChecksum,
    /// A fragment (MF set or a fragment offset, RFC 791 §3.2): Tern does not reassemble.
    Fragment,
    /// Another protocol than TCP.
    NotTcp,
    /// A TCP data offset below 5 words or beyond the segment (RFC 9293 §3.1).
    BadTcpHeader,
    /// The TCP checksum over the pseudo-header and the segment does not verify (RFC 9293
    /// §3.1).
    TcpChecksum,
    /// An option whose length is wrong or runs past the header (RFC 9293 §3.2).
    BadOption,
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WireError::Truncated => "truncated packet",
            WireError::BadIpHeader => "not an IPv4 header",
            WireError::IpChecksum => "bad IPv4 header checksum",
            WireError::Fragment => "IPv4 fragment",
            WireError::NotTcp => "not TCP",
            WireError::BadTcpHeader => "bad TCP data offset",
            WireError::TcpChecksum => "bad TCP checksum",
            WireError::BadOption => "malformed TCP option",
        })
    }
}

/// A real host's TCP segment: addresses, the segment as Tern's TCP reads it, and where its
/// payload lies in the packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub segment: Segment,
    pub payload: std::ops::Range<usize>,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parses an IPv4 packet carrying a TCP segment, verifying both checksums. Bytes past the
/// IPv4 total length are ignored (link padding).
pub fn parse_tcp(bytes: &[u8]) -> Result<Parsed, WireError> {
    // IPv4 (RFC 791 §3.1).
    if bytes.len() < IPV4_HEADER as usize {
        return Err(WireError::Truncated);
    }
    let ihl = usize::from(bytes[0] & 0x0f) * 4;
    if bytes[0] >> 4 != 4 || ihl < IPV4_HEADER as usize {
        return Err(WireError::BadIpHeader);
    }
    let total = usize::from(be16(bytes, 2));
    if total < ihl || bytes.len() < total {
        return Err(WireError::Truncated);
    }
    let bytes = &bytes[..total];
    if fold(sum_words(&bytes[..ihl], 0)) != 0 {
        return Err(WireError::IpChecksum);
    }
    // Flags and fragment offset: MF (0x2000) or a non-zero offset (low 13 bits).
    if be16(bytes, 6) & 0x3fff != 0 {
        return Err(WireError::Fragment);
    }
    if bytes[9] != PROTO_TCP {
        return Err(WireError::NotTcp);
    }
    let src = [bytes[12], bytes[13], bytes[14], bytes[15]];
    let dst = [bytes[16], bytes[17], bytes[18], bytes[19]];
    // TCP (RFC 9293 §3.1).
    let tcp = &bytes[ihl..];
    if tcp.len() < TCP_HEADER {
        return Err(WireError::Truncated);
    }
    let offset = usize::from(tcp[12] >> 4) * 4;
    if offset < TCP_HEADER || offset > tcp.len() {
        return Err(WireError::BadTcpHeader);
    }
    // Summed with its checksum field, a good segment folds to zero (RFC 1071 §1); a field
    // of 0xFFFF for a computed 0x0000 (one's-complement -0, RFC 1624 §3) does too.
    if transport_checksum(src, dst, PROTO_TCP, tcp.len() as u16, tcp) != 0 {
        return Err(WireError::TcpChecksum);
    }
    let f = tcp[13];
    let segment = Segment {
        src_port: be16(tcp, 0),
        dst_port: be16(tcp, 2),
        seq: SeqNum(be32(tcp, 4)),
        ack: SeqNum(be32(tcp, 8)),
        // URG, ECE and CWR (RFC 9293 §3.1, RFC 3168 §6.1) are not modelled: ignored, as a
        // stack that did not negotiate ECN ignores them.
        flags: Flags {
            fin: f & 0x01 != 0,
            syn: f & 0x02 != 0,
            rst: f & 0x04 != 0,
            psh: f & 0x08 != 0,
            ack: f & 0x10 != 0,
        },
        window: be16(tcp, 14),
        options: parse_options(&tcp[TCP_HEADER..offset])?,
        payload_len: (tcp.len() - offset) as u32,
    };
    Ok(Parsed {
        src,
        dst,
        segment,
        payload: ihl + offset..total,
    })
}

/// Parses TCP options (RFC 9293 §3.2): End of Option List (0) ends them, No-Operation (1)
/// is one byte, every other option is kind, length (≥ 2, within the header), data. Known
/// options must have their length: MSS 4 (RFC 9293 §3.2), window scale 3 (RFC 7323 §2.2),
/// SACK-permitted 2 (RFC 2018 §2), SACK 2 + 8n with 1 ≤ n ≤ 4 (RFC 2018 §3), timestamps 10
/// (RFC 7323 §3.2). Unknown options are skipped, as RFC 9293 §3.2 asks.
fn parse_options(mut b: &[u8]) -> Result<TcpOptions, WireError> {
    let mut o = TcpOptions::default();
    while let Some(&kind) = b.first() {
        match kind {
            0 => break,
            1 => {
                b = &b[1..];
                continue;
            }
            _ => {}
        }
        let len = usize::from(*b.get(1).ok_or(WireError::BadOption)?);
        if len < 2 || len > b.len() {
            return Err(WireError::BadOption);
        }
        let data = &b[2..len];
        match (kind, len) {
            (2, 4) => o.mss = Some(be16(data, 0)),
            (3, 3) => o.window_scale = Some(data[0]),
            (4, 2) => o.sack_permitted = true,
            (5, _) if (len - 2) % 8 == 0 && (1..=MAX_SACK_BLOCKS).contains(&((len - 2) / 8)) => {
                o.sack_blocks = data
                    .chunks_exact(8)
                    .map(|c| (SeqNum(be32(c, 0)), SeqNum(be32(c, 4))))
                    .collect::<SackBlocks>();
            }
            (8, 10) => o.timestamps = Some((be32(data, 0), be32(data, 4))),
            (2..=5 | 8, _) => return Err(WireError::BadOption),
            _ => {}
        }
        b = &b[len..];
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::NodeId;
    use crate::trace::pcap::tests::tcp_packet;
    use crate::trace::pcap::{frame, Capture, Framing, Payload};
    use crate::transport::tcp::pattern::pattern;

    /// A SYN as this machine's Linux 6.x sent it from a real node to a Tern node's server
    /// (the first packet of `wire.reverse.pcap` of an interop run, test_emulate.py):
    /// 198.18.0.2:52210 → 198.18.0.1:5001, MSS 1460, SACK-permitted, timestamps, window
    /// scale 10, in that layout, checksums as the kernel computed them.
    const LINUX_SYN: [u8; 60] = [
        0x45, 0x00, 0x00, 0x3c, 0xec, 0x80, 0x40, 0x00, 0x40, 0x06, 0xc2, 0x13, 0xc6, 0x12, 0x00,
        0x02, 0xc6, 0x12, 0x00, 0x01, 0xcb, 0xf2, 0x13, 0x89, 0x4d, 0xf0, 0x40, 0xbd, 0x00, 0x00,
        0x00, 0x00, 0xa0, 0x02, 0xfa, 0xf0, 0x92, 0xd3, 0x00, 0x00, 0x02, 0x04, 0x05, 0xb4, 0x04,
        0x02, 0x08, 0x0a, 0x43, 0xbd, 0x7c, 0x2a, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03, 0x03, 0x0a,
    ];

    fn emulation_addr(n: NodeId) -> [u8; 4] {
        crate::emu::real_addr(n)
    }

    fn data_segment() -> Segment {
        let mut o = TcpOptions {
            timestamps: Some((1000, 2000)),
            ..Default::default()
        };
        o.sack_blocks.push((SeqNum(5000), SeqNum(6448)));
        o.sack_blocks.push((SeqNum(u32::MAX - 10), SeqNum(3)));
        Segment {
            src_port: 49152,
            dst_port: 5001,
            seq: SeqNum(u32::MAX - 100),
            ack: SeqNum(77),
            flags: Flags {
                ack: true,
                psh: true,
                ..Default::default()
            },
            window: 512,
            options: o,
            payload_len: 1001,
        }
    }

    fn encode(seg: Segment, offset: u64) -> Vec<u8> {
        let p = tcp_packet(seg);
        let how = Framing {
            capture: Capture::Full,
            addr: emulation_addr,
            payload: Payload::Stream { offset },
        };
        let mut out = Vec::new();
        frame(&p, how, &mut out).unwrap();
        out
    }

    #[test]
    fn a_linux_syn_parses_with_its_options() {
        let p = parse_tcp(&LINUX_SYN).unwrap();
        assert_eq!(p.src, [198, 18, 0, 2]);
        assert_eq!(p.dst, [198, 18, 0, 1]);
        let s = &p.segment;
        assert_eq!((s.src_port, s.dst_port), (52210, 5001));
        assert_eq!(s.seq, SeqNum(0x4df0_40bd));
        assert!(s.flags.syn && !s.flags.ack);
        assert_eq!(s.window, 64240);
        assert_eq!(s.options.mss, Some(1460));
        assert_eq!(s.options.window_scale, Some(10));
        assert!(s.options.sack_permitted);
        assert_eq!(s.options.timestamps, Some((0x43bd_7c2a, 0)));
        assert_eq!(s.payload_len, 0);
        assert_eq!(p.payload, 60..60);
        // Tern's encoder lays a segment with these options out byte for byte as Linux did.
        let mut p = tcp_packet(s.clone());
        (p.uid, p.src, p.dst) = (0xec80, NodeId(1), NodeId(0));
        let how = Framing {
            capture: Capture::Full,
            addr: emulation_addr,
            payload: Payload::Zeros,
        };
        let mut out = Vec::new();
        frame(&p, how, &mut out).unwrap();
        assert_eq!(out, LINUX_SYN);
    }

    #[test]
    fn tern_segments_round_trip_with_their_pattern() {
        let seg = data_segment();
        let bytes = encode(seg.clone(), 300);
        assert_eq!(bytes.len() as u32, 20 + seg.wire_len());
        let p = parse_tcp(&bytes).unwrap();
        assert_eq!(p.segment, seg);
        assert_eq!(p.src, [198, 18, 0, 1]);
        let payload = &bytes[p.payload.clone()];
        assert_eq!(payload.len(), 1001);
        assert!(payload
            .iter()
            .enumerate()
            .all(|(k, &b)| b == pattern(300 + k as u64)));
    }

    #[test]
    fn damage_is_found_and_never_panics() {
        let good = encode(data_segment(), 0);
        // One payload bit flipped: the TCP checksum fails.
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(parse_tcp(&bad), Err(WireError::TcpChecksum));
        // The IPv4 header's TTL changed without its checksum.
        let mut bad = good.clone();
        bad[8] -= 1;
        assert_eq!(parse_tcp(&bad), Err(WireError::IpChecksum));
        // Cut anywhere: an error, never a panic; and every single-byte change is caught or
        // still parses (a change the checksums cannot see is one of equal sum).
        for n in 0..good.len() {
            assert!(parse_tcp(&good[..n]).is_err(), "cut at {n}");
        }
        for at in 0..60 {
            for v in [0u8, 1, 2, 5, 8, 10, 0x45, 0xff] {
                let mut b = good.clone();
                b[at] = v;
                let _ = parse_tcp(&b);
            }
        }
        // A fragment and UDP are refused.
        let mut frag = LINUX_SYN;
        frag[6] |= 0x20; // MF
        frag[10..12].copy_from_slice(&[0, 0]);
        let sum = crate::trace::pcap::internet_checksum(&frag[..20]);
        frag[10..12].copy_from_slice(&sum.to_be_bytes());
        assert_eq!(parse_tcp(&frag), Err(WireError::Fragment));
    }

    #[test]
    fn malformed_options_are_errors_and_unknown_ones_skipped() {
        let opts = |b: &[u8]| parse_options(b);
        assert_eq!(opts(&[2, 3, 5]), Err(WireError::BadOption)); // MSS of length 3
        assert_eq!(opts(&[8, 10, 0, 0]), Err(WireError::BadOption)); // runs past the header
        assert_eq!(opts(&[5, 6, 0, 0, 0, 0]), Err(WireError::BadOption)); // half a block
        assert_eq!(opts(&[30, 1]), Err(WireError::BadOption)); // length below 2
        assert_eq!(opts(&[7]), Err(WireError::BadOption)); // no length byte
                                                           // Unknown kind 30 (MPTCP) skipped; EOL ends the list whatever follows.
        let o = opts(&[30, 4, 0, 0, 3, 3, 9, 0, 0xde, 0xad]).unwrap();
        assert_eq!(o.window_scale, Some(9));
        assert_eq!(o.mss, None);
    }
}
