//! Packet captures: real byte encodings of Tern's packets, written as
//! classic libpcap files that Wireshark and tcpdump read.
//!
//! Tern's packets carry sizes, not bytes (see [`crate::net::packet`]). This
//! module makes the bytes a real host would have sent:
//!
//! - **IPv4** (RFC 791 §3.1): 20-byte header without options, total length =
//!   [`Packet::size`], identification = low 16 bits of the packet uid, DF set,
//!   TTL 64, protocol 6 (TCP) or 17 (UDP), header checksum (RFC 791 §3.1,
//!   RFC 1071). Addresses come from node ids through [`node_addr`].
//! - **TCP** (RFC 9293 §3.1): every field of the [`Segment`], with the
//!   options laid out as Linux lays them out, byte for byte what
//!   [`TcpOptions::len`](tern_proto::tcp::TcpOptions::len) counts (see
//!   [`encode_tcp_options`](crate::transport::tcp::capture::encode_tcp_options)).
//! - **UDP** (RFC 768): Tern's UDP messages have no ports; they are derived
//!   from the flow id by [`udp_ports`](crate::transport::udp::capture::udp_ports). The first [`APP_HEADER_LEN`](crate::transport::udp::capture::APP_HEADER_LEN) payload
//!   bytes hold Tern's application header (see [`encode_app_header`](crate::transport::udp::capture::encode_app_header)) when
//!   the payload is long enough.
//! - **QUIC** (RFC 9000): the datagrams' real bytes, as the QUIC stack wrote them, always
//!   whole (packet protection covers part of the header, so a cut packet would not decode);
//!   ports from [`quic_ports`](crate::transport::quic::capture::quic_ports).
//!
//! Every other payload byte is zero in a capture. Checksums are computed over
//! the pseudo-header, the header and the payload as a real stack would; zero
//! bytes add nothing to a one's-complement sum, so the payload need not be
//! materialised to get them right (RFC 1071 §2).
//!
//! The same encoder makes the bytes a Tern TCP endpoint sends to a real host
//! in an emulation ([`crate::emu::wire`]): [`frame`] with [`Framing`] giving
//! the emulation's addresses and a TCP payload filled with the stream pattern
//! ([`Payload::Stream`]).
//!
//! How much of each packet goes into the file is a [`Capture`] choice: by
//! default the whole packet (zero-filled payload, captured length = wire
//! length), or only the headers (captured length < wire length, as
//! `tcpdump -s` would), which keeps files small for long bulk transfers.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub use super::addr::node_addr;
use crate::engine::SimTime;
use crate::net::body::PROTO_UDP;
use crate::net::packet::{Body, FlowId, NodeId, Packet, IPV4_HEADER};

/// Magic number of a classic pcap file with nanosecond timestamps.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// `LINKTYPE_RAW`: each record starts with an IPv4 (or IPv6) header.
pub const LINKTYPE_RAW: u32 = 101;
/// Snapshot length written in the file header: the largest IPv4 packet.
pub const SNAPLEN: u32 = 65_535;

/// The largest TCP header (RFC 9293 §3.1: data offset of 15 words): what a headers-only
/// capture keeps of a real host's packet past its IPv4 header.
const RAW_TRANSPORT_HEADER: usize = 60;

/// How a kind of transport's body appears on the wire past the IPv4 header: each
/// transport's `capture.rs` implements it for its variant of [`Body`], and the list of
/// transports ([`crate::transport`]) dispatches to it.
pub trait WireEncode {
    /// An error if its header cannot be encoded.
    fn check(&self) -> Result<(), EncodeError> {
        Ok(())
    }

    /// Appends its transport header with the checksum field zero, then whatever payload
    /// bytes are not zero (`payload` says what a TCP stream's are); returns the checksum
    /// field's offset from the header's start. The packet is `transport_len` bytes from
    /// the transport header on, and belongs to `flow`.
    fn encode(
        &self,
        flow: FlowId,
        transport_len: u16,
        payload: Payload,
        out: &mut Vec<u8>,
    ) -> usize;

    /// How many bytes at the end of what [`WireEncode::encode`] wrote a headers-only capture
    /// leaves out (payload written for the checksum only).
    fn headers_only_cut(&self, _payload: Payload) -> usize {
        0
    }
}

/// How much of each packet a [`PcapWriter`] stores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Capture {
    /// The whole packet, payload zero-filled (captured length = wire length).
    #[default]
    Full,
    /// IPv4 + TCP/UDP headers, plus Tern's application header for UDP
    /// messages that carry one; the record keeps the wire length as its
    /// original length, so readers mark the payload as not captured.
    Headers,
}

/// A packet that cannot be encoded in real IPv4/TCP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EncodeError {
    /// The TCP header (20 B + options) exceeds 60 bytes.
    TcpHeaderTooLong(u32),
    /// The packet exceeds the 65,535 bytes of IPv4's total length field.
    PacketTooLong(u32),
    /// The timestamp does not fit pcap's 32-bit seconds field.
    TimeTooLarge(SimTime),
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::TcpHeaderTooLong(n) => {
                write!(f, "TCP header of {n} bytes exceeds the 60 bytes allowed")
            }
            EncodeError::PacketTooLong(n) => {
                write!(f, "packet of {n} bytes exceeds IPv4's 65535 bytes")
            }
            EncodeError::TimeTooLarge(t) => {
                write!(
                    f,
                    "time {} s does not fit a pcap timestamp",
                    t.as_secs_f64()
                )
            }
        }
    }
}

impl std::error::Error for EncodeError {}

impl From<EncodeError> for io::Error {
    fn from(e: EncodeError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, e)
    }
}

/// Sum of `data` as big-endian 16-bit words (an odd last byte padded with a
/// zero), added into a wide accumulator; fold with [`fold`] (RFC 1071 §4.1).
pub(crate) fn sum_words(data: &[u8], mut acc: u64) -> u64 {
    let mut chunks = data.chunks_exact(2);
    for w in &mut chunks {
        acc += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u64::from(*last) << 8;
    }
    acc
}

/// Folds the carries into 16 bits and complements: the Internet checksum.
pub(crate) fn fold(mut acc: u64) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// The Internet checksum of `data` (RFC 1071).
pub fn internet_checksum(data: &[u8]) -> u16 {
    fold(sum_words(data, 0))
}

/// Checksum of a TCP or UDP segment whose first bytes are `known` and whose
/// remaining bytes up to `len` are zero, with the IPv4 pseudo-header
/// (RFC 9293 §3.1, RFC 768). `known` must start at an even offset of the
/// segment, which it does: it is the segment's start.
pub(crate) fn transport_checksum(
    src: [u8; 4],
    dst: [u8; 4],
    proto: u8,
    len: u16,
    known: &[u8],
) -> u16 {
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&src);
    pseudo[4..8].copy_from_slice(&dst);
    pseudo[9] = proto;
    pseudo[10..12].copy_from_slice(&len.to_be_bytes());
    fold(sum_words(known, sum_words(&pseudo, 0)))
}

/// What a TCP segment's payload bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    /// Zeros (captures: Tern's TCP carries lengths, not bytes).
    Zeros,
    /// The stream pattern of an emulation ([`crate::transport::tcp::pattern::pattern`]), the first
    /// payload byte being stream offset `offset`.
    Stream { offset: u64 },
}

/// How [`frame`] makes a packet's bytes.
#[derive(Clone, Copy, Debug)]
pub struct Framing {
    /// How much of the packet is kept.
    pub capture: Capture,
    /// The IPv4 address of a node.
    pub addr: fn(NodeId) -> [u8; 4],
    /// A TCP segment's payload bytes.
    pub payload: Payload,
}

impl Framing {
    /// A capture's framing: simulation addresses ([`node_addr`]), zero payload.
    pub fn capture(capture: Capture) -> Framing {
        Framing {
            capture,
            addr: node_addr,
            payload: Payload::Zeros,
        }
    }
}

/// Appends the bytes of `packet` to `out`: the whole packet for
/// [`Capture::Full`], its headers (and UDP application header) for
/// [`Capture::Headers`]. The wire length is always [`Packet::size`].
pub fn encode(packet: &Packet, capture: Capture, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    frame(packet, Framing::capture(capture), out)
}

/// Makes [`encoder`] from the transports' list: each slice's wire type implements
/// [`WireEncode`] (in its capture.rs); a real host's bytes have none.
#[doc(hidden)]
#[macro_export]
macro_rules! body_encoder {
    ( {} $($(#[$doc:meta])* $kind:ident => $slice:ident,)* ) => {
        /// The capture encoder of a packet's body; none for a real host's bytes, which are
        /// their own.
        fn encoder(body: &Body) -> Option<&dyn WireEncode> {
            match body {
                $(Body::$kind(b) => Some(b),)*
                Body::Raw(_) => None,
            }
        }
    };
}

crate::with_transports! { body_encoder {} }

/// Appends the bytes of `packet` to `out` as `how` says: the one encoder of captures and
/// of what Tern's endpoints send to real hosts.
pub fn frame(packet: &Packet, how: Framing, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let capture = how.capture;
    let total = packet.size();
    let total16 = u16::try_from(total).map_err(|_| EncodeError::PacketTooLong(total))?;
    let Some(wire) = encoder(&packet.body) else {
        let Body::Raw(bytes) = &packet.body else {
            unreachable!("every body but a real host's has an encoder")
        };
        // A real host's packet is already bytes, its checksums its kernel's.
        let keep = match capture {
            Capture::Full => bytes.len(),
            Capture::Headers => bytes.len().min(raw_headers_len(bytes)),
        };
        out.extend_from_slice(&bytes[..keep]);
        return Ok(());
    };
    wire.check()?;
    let (src, dst) = ((how.addr)(packet.src), (how.addr)(packet.dst));
    let start = out.len();

    // IPv4 header (RFC 791 §3.1).
    let proto = packet.body.ip_proto();
    let mut ip = [0u8; IPV4_HEADER as usize];
    ip[0] = 0x45; // version 4, IHL 5 words
    ip[2..4].copy_from_slice(&total16.to_be_bytes());
    ip[4..6].copy_from_slice(&(packet.uid as u16).to_be_bytes());
    ip[6] = 0x40; // flags: DF; fragment offset 0
    ip[8] = 64; // TTL
    ip[9] = proto;
    ip[12..16].copy_from_slice(&src);
    ip[16..20].copy_from_slice(&dst);
    let sum = internet_checksum(&ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    out.extend_from_slice(&ip);

    // Transport header and whatever payload bytes are not zero.
    let seg_start = out.len();
    let transport_len = total16 - IPV4_HEADER as u16;
    let at = seg_start + wire.encode(packet.flow, transport_len, how.payload, out);
    let sum = transport_checksum(src, dst, proto, transport_len, &out[seg_start..]);
    // RFC 768: a computed UDP checksum of zero is sent as all ones.
    let sum = if proto == PROTO_UDP && sum == 0 {
        0xffff
    } else {
        sum
    };
    out[at..at + 2].copy_from_slice(&sum.to_be_bytes());

    match capture {
        Capture::Full => out.resize(start + total as usize, 0),
        // Payload written for the checksum only is not kept.
        Capture::Headers => out.truncate(out.len() - wire.headers_only_cut(how.payload)),
    }
    Ok(())
}

/// The IPv4 header (its IHL, RFC 791 §3.1) and the largest transport header after it
/// (TCP's 60 bytes): what [`Capture::Headers`] keeps of a real host's packet.
fn raw_headers_len(bytes: &[u8]) -> usize {
    let ihl = bytes.first().map_or(0, |b| usize::from(b & 0x0f) * 4);
    ihl + RAW_TRANSPORT_HEADER
}

/// Writes packets to a classic libpcap file: nanosecond timestamps
/// (magic 0xa1b23c4d), version 2.4, link type `LINKTYPE_RAW` (raw IPv4).
///
/// One writer is one capture point (a link direction or an interface); the
/// caller decides which packets it sees. Records are written in call order,
/// which is time order when called from the event loop.
pub struct PcapWriter<W: Write> {
    out: W,
    capture: Capture,
    buf: Vec<u8>,
    packets: u64,
}

impl PcapWriter<BufWriter<File>> {
    /// Creates (or truncates) the file at `path` and writes the file header.
    pub fn create(path: impl AsRef<Path>) -> io::Result<Self> {
        PcapWriter::new(BufWriter::new(File::create(path)?))
    }
}

impl<W: Write> PcapWriter<W> {
    /// A writer storing whole packets ([`Capture::Full`]).
    pub fn new(out: W) -> io::Result<Self> {
        PcapWriter::with_capture(out, Capture::Full)
    }

    /// A writer storing what `capture` says; writes the file header.
    pub fn with_capture(mut out: W, capture: Capture) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes()); // version major
        h.extend_from_slice(&4u16.to_le_bytes()); // version minor
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone: UTC
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter {
            out,
            capture,
            buf: Vec::with_capacity(1600),
            packets: 0,
        })
    }

    /// Appends one record: `packet` as seen at simulated time `now`
    /// (written as seconds and nanoseconds since time zero).
    #[inline]
    pub fn write(&mut self, now: SimTime, packet: &Packet) -> io::Result<()> {
        let ns = now.as_nanos();
        let secs = u32::try_from(ns / 1_000_000_000).map_err(|_| EncodeError::TimeTooLarge(now))?;
        self.buf.clear();
        self.buf.extend_from_slice(&secs.to_le_bytes());
        self.buf
            .extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        self.buf.extend_from_slice(&[0; 8]); // lengths, filled below
        encode(packet, self.capture, &mut self.buf)?;
        let caplen = (self.buf.len() - 16) as u32;
        self.buf[8..12].copy_from_slice(&caplen.to_le_bytes());
        self.buf[12..16].copy_from_slice(&packet.size().to_le_bytes());
        self.out.write_all(&self.buf)?;
        self.packets += 1;
        Ok(())
    }

    /// Number of records written.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// The underlying writer.
    pub fn get_ref(&self) -> &W {
        &self.out
    }

    /// Flushes and returns the underlying writer.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::net::packet::{UdpKind, UdpMessage};
    use tern_proto::tcp::{Flags, Segment, SeqNum, TcpOptions};

    pub(crate) fn syn() -> Segment {
        Segment {
            src_port: 40000,
            dst_port: 80,
            seq: SeqNum(1000),
            flags: Flags {
                syn: true,
                ..Default::default()
            },
            window: 65535,
            options: TcpOptions {
                mss: Some(1460),
                window_scale: Some(7),
                sack_permitted: true,
                timestamps: Some((1, 0)),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// A packet of flow 0 from node 0 to node 1 carrying `seg`.
    pub(crate) fn tcp_packet(seg: Segment) -> Packet {
        Packet::new(0x1_2345, FlowId(0), 0, NodeId(0), NodeId(1), Body::Tcp(seg))
    }

    #[test]
    fn rfc1071_checksum_vectors() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to ddf2.
        assert_eq!(
            internet_checksum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            !0xddf2
        );
        // A well-known IPv4 header (192.168.0.1 -> 192.168.0.199, UDP) whose checksum is b861.
        let hdr = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(internet_checksum(&hdr), 0xb861);
        // Odd length: the last byte is padded with zero.
        assert_eq!(internet_checksum(&[0x12]), !0x1200);
    }

    #[test]
    fn ipv4_header_checksum_verifies() {
        let mut seg = syn();
        seg.payload_len = 1000;
        let p = tcp_packet(seg);
        let mut bytes = Vec::new();
        encode(&p, Capture::Headers, &mut bytes).unwrap();
        assert_eq!(bytes.len(), 60); // payload not captured
        let ip = &bytes[..20];
        // Summing a header with its checksum gives all ones (RFC 1071 §1).
        assert_eq!(fold(sum_words(ip, 0)), 0);
        assert_eq!(!fold(sum_words(ip, 0)), 0xffff);
        assert_eq!(u16::from_be_bytes([ip[2], ip[3]]), 1060);
        assert_eq!(u16::from_be_bytes([ip[4], ip[5]]), 0x2345);
        assert_eq!(&ip[12..20], &[10, 0, 0, 1, 10, 0, 0, 2]);
    }

    #[test]
    fn transport_checksums_verify_with_zero_payload() {
        let mut seg = syn();
        seg.payload_len = 1001; // odd length
        let udp = Packet::new(
            9,
            FlowId(3),
            0,
            NodeId(4),
            NodeId(2),
            Body::Udp(UdpMessage {
                kind: UdpKind::EchoReply,
                seq: 17,
                sent_at: SimTime::from_millis(1500),
                len: 101,
            }),
        );
        for p in [tcp_packet(seg), udp] {
            let mut bytes = Vec::new();
            encode(&p, Capture::Full, &mut bytes).unwrap();
            assert_eq!(bytes.len() as u32, p.size());
            let seg = &bytes[20..];
            let mut pseudo = Vec::new();
            pseudo.extend_from_slice(&bytes[12..20]);
            pseudo.extend_from_slice(&[0, bytes[9]]);
            pseudo.extend_from_slice(&(seg.len() as u16).to_be_bytes());
            assert_eq!(fold(sum_words(seg, sum_words(&pseudo, 0))), 0, "{p:?}");
        }
    }

    #[test]
    fn addresses() {
        assert_eq!(node_addr(NodeId(0)), [10, 0, 0, 1]);
        assert_eq!(node_addr(NodeId(255)), [10, 0, 1, 0]);
        assert_eq!(node_addr(NodeId(1000)), [10, 0, 3, 233]);
    }

    #[test]
    fn oversized_packets_are_errors() {
        let mut seg = syn();
        seg.options.sack_blocks = [(SeqNum(1), SeqNum(2)); 4].into_iter().collect();
        let mut out = Vec::new();
        assert_eq!(
            encode(&tcp_packet(seg), Capture::Full, &mut out),
            Err(EncodeError::TcpHeaderTooLong(76))
        );
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        let err = w.write(SimTime::from_secs(1 << 33), &tcp_packet(syn()));
        assert_eq!(err.unwrap_err().kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn file_and_record_headers() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write(SimTime::from_nanos(3_000_000_042), &tcp_packet(syn()))
            .unwrap();
        let b = w.into_inner().unwrap();
        assert_eq!(&b[0..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        assert_eq!(&b[20..24], &101u32.to_le_bytes());
        assert_eq!(&b[24..28], &3u32.to_le_bytes());
        assert_eq!(&b[28..32], &42u32.to_le_bytes());
        assert_eq!(&b[32..36], &60u32.to_le_bytes());
        assert_eq!(&b[36..40], &60u32.to_le_bytes());
        assert_eq!(b.len(), 24 + 16 + 60);
    }
}
