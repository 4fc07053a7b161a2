//! Where a Tern TCP endpoint meets a real host's kernel (emulation).
//!
//! A TCP flow with one end on a real node and the other on a Tern node is an *interop*
//! flow: the Tern node's endpoint runs, the real node's endpoint is its kernel's (the flow's
//! own endpoint there stays silent). Every segment the Tern endpoint sends is made into a
//! real IPv4/TCP packet when it leaves its node ([`Boundary::encode_sent`]: the capture encoder,
//! emulation addresses, the stream [`pattern`] as payload), so it crosses the scenario's
//! devices as the bytes the kernel will get; every packet the kernel sends to the Tern node
//! crosses them as its own bytes and is parsed when it arrives ([`Boundary::parse_received`]:
//! IPv4 and TCP checksums verified, options read), its payload checked against the pattern.
//! A malformed packet is dropped and counted, never a panic.
//!
//! Addresses: in an emulation every node, real or not, has the address
//! [`real_addr`](super::real_addr) of its index in 198.18.0.0/15, so the kernel routes to a
//! Tern node through its TUN device as to a real one. Ports: a Tern client connects from
//! 49152 + the flow's index to port 5001; a Tern server listens on port 5001. One interop
//! flow per pair of a Tern node and a real node: the pair names the flow.

use indexmap::IndexMap;

use super::wire::{parse_tcp, PROTO_TCP};
use super::{node_at, real_addr, EMULATED};
use crate::net::packet::{Body, FlowId, NodeId, Packet, IPV4_HEADER};
use crate::summary::InteropSummary;
use crate::trace::pcap::{frame, Capture, Framing, Payload};
use crate::transport::tcp::pattern::pattern;
use crate::transport::Side;
use tern_proto::tcp::{Segment, SeqNum};

/// Where a stream's sequence numbers are: the stream offset (SYN = 0, first data byte = 1)
/// of one sequence number, the highest seen, to unwrap the next ones (RFC 9293 §3.4).
#[derive(Clone, Copy, Debug)]
struct Cursor {
    offset: u64,
    seq: SeqNum,
}

impl Cursor {
    /// The stream offset of `seq`, within 2^31 of the highest seen.
    fn offset(&mut self, seq: SeqNum) -> u64 {
        let off = (self.offset as i64 + i64::from(seq.diff(self.seq))).max(0) as u64;
        if off > self.offset {
            *self = Cursor { offset: off, seq };
        }
        off
    }

    /// The stream offset of the first payload byte of `seg` (the SYN takes offset 0), the
    /// stream starting at the SYN `isn`.
    fn data_offset(cursor: &mut Option<Cursor>, seg: &Segment) -> Option<u64> {
        if seg.flags.syn {
            *cursor = Some(Cursor {
                offset: 0,
                seq: seg.seq,
            });
            return Some(0);
        }
        cursor.as_mut().map(|c| c.offset(seg.seq).saturating_sub(1))
    }
}

/// One interop flow.
#[derive(Debug)]
struct Peer {
    tern_node: NodeId,
    real_node: NodeId,
    /// The Tern endpoint's stream (from its SYN) and the kernel's.
    sent: Option<Cursor>,
    received: Option<Cursor>,
    stats: InteropSummary,
}

/// The interop flows of an emulation, which nodes are real, and the bytes leaving the
/// world for them.
#[derive(Debug, Default)]
pub(crate) struct Boundary {
    real: Vec<bool>,
    peers: Vec<Option<Peer>>,
    /// Per flow: its client's and its server's node is real (their endpoints stay silent).
    silent: Vec<[bool; 2]>,
    /// Bytes delivered to real nodes ([`super::Port`]), waiting to be written to their TUN
    /// devices.
    pub delivered: Vec<(NodeId, Vec<u8>)>,
}

impl Boundary {
    /// The boundary of an emulation whose real nodes are `real` (by node index), for the
    /// flows `(name, client node, server node, speaks TCP)`. A flow between a real and a
    /// Tern node must be TCP: its error says which is not.
    pub fn new(real: Vec<bool>, flows: &[(&str, NodeId, NodeId, bool)]) -> Result<Self, String> {
        let mut b = Boundary {
            real,
            ..Boundary::default()
        };
        for &(name, src, dst, tcp) in flows {
            let (src_real, dst_real) = (b.is_real(src), b.is_real(dst));
            b.silent.push([src_real, dst_real]);
            let peer = match (src_real, dst_real) {
                (false, true) => Some((Side::Client, src, dst)),
                (true, false) => Some((Side::Server, dst, src)),
                _ => None,
            };
            let peer = peer.map(|(tern, tern_node, real_node)| Peer {
                tern_node,
                real_node,
                sent: None,
                received: None,
                stats: InteropSummary {
                    tern_side: tern.as_str(),
                    ..InteropSummary::default()
                },
            });
            if peer.is_some() && !tcp {
                return Err(format!(
                    "flow {name:?} joins a real node and a Tern node: only a TCP flow (one \
                     connection) can, Tern's TCP speaking to the kernel's"
                ));
            }
            if let Some(p) = &peer {
                let taken = b
                    .peers
                    .iter()
                    .flatten()
                    .any(|q| (q.tern_node, q.real_node) == (p.tern_node, p.real_node));
                if taken {
                    return Err(format!(
                        "flow {name:?}: a second TCP flow between the same Tern node and real \
                         node (one per pair: the pair names the flow)"
                    ));
                }
            }
            b.peers.push(peer);
        }
        Ok(b)
    }

    /// Whether `node` is a real node (never in a simulation).
    pub fn is_real(&self, node: NodeId) -> bool {
        self.real.get(node.0 as usize).copied().unwrap_or(false)
    }

    /// Per side (client, server), whether the endpoint of flow `f` is on a real node, where
    /// the kernel's endpoint stands in for it: it must send nothing and need no wake-up.
    pub fn silent(&self, f: FlowId) -> [bool; 2] {
        self.silent.get(f.0 as usize).copied().unwrap_or_default()
    }

    /// The interop flow of a real host's packet from `src` to the Tern node `dst`, if it is
    /// TCP (IPv4 protocol field, RFC 791 §3.1) and such a flow joins them.
    pub fn flow_of(&self, src: NodeId, dst: NodeId, bytes: &[u8]) -> Option<FlowId> {
        if bytes.get(9) != Some(&PROTO_TCP) {
            return None;
        }
        let f = self.peers.iter().position(|p| {
            p.as_ref()
                .is_some_and(|p| p.real_node == src && p.tern_node == dst)
        })?;
        Some(FlowId(f as u32))
    }

    /// The bytes of `packet`, a segment flow `f`'s Tern endpoint sends to its real peer, if
    /// it is one: IPv4/TCP as the capture encoder makes them, with the emulation's addresses
    /// and the stream pattern as payload.
    pub fn encode_sent(&mut self, f: FlowId, packet: &Packet) -> Option<Vec<u8>> {
        let peer = self.peers.get_mut(f.0 as usize)?.as_mut()?;
        let Body::Tcp(seg) = &packet.body else {
            return None;
        };
        if packet.dst != peer.real_node {
            return None;
        }
        let offset = Cursor::data_offset(&mut peer.sent, seg)?;
        let how = Framing {
            capture: Capture::Full,
            addr: real_addr,
            payload: Payload::Stream { offset },
        };
        let mut out = Vec::with_capacity(packet.size() as usize);
        // Tern's segments fit (its TCP keeps its header within 60 bytes and its packets
        // within the path MTU); one that did not would be a bug, reported as dropped.
        if frame(packet, how, &mut out).is_err() {
            peer.stats.unencodable += 1;
            return None;
        }
        peer.stats.segments_out += 1;
        peer.stats.payload_bytes_out += u64::from(seg.payload_len);
        Some(out)
    }

    /// The segment a real host sent to flow `f`'s Tern endpoint, parsed, with its payload
    /// checked against the stream pattern; `None` (counted) if it is malformed.
    pub fn parse_received(&mut self, f: FlowId, bytes: &[u8]) -> Option<Segment> {
        let peer = self.peers.get_mut(f.0 as usize)?.as_mut()?;
        let parsed = match parse_tcp(bytes) {
            Ok(p) => p,
            Err(_) => {
                peer.stats.malformed += 1;
                return None;
            }
        };
        let seg = parsed.segment;
        peer.stats.segments_in += 1;
        let payload = &bytes[parsed.payload];
        if !payload.is_empty() {
            match Cursor::data_offset(&mut peer.received, &seg) {
                Some(offset) => {
                    peer.stats.payload_bytes_checked += payload.len() as u64;
                    peer.stats.mismatched_bytes += payload
                        .iter()
                        .zip(offset..)
                        .filter(|&(&b, i)| b != pattern(i))
                        .count() as u64;
                }
                None => peer.stats.payload_bytes_unchecked += payload.len() as u64,
            }
        } else if seg.flags.syn {
            Cursor::data_offset(&mut peer.received, &seg);
        }
        Some(seg)
    }

    /// A packet real node `src` wrote to its TUN device, as it enters the world there: its
    /// flow ([`EMULATED`] to another real node, else the interop flow joining `src` to the
    /// Tern node it is for), its destination node and its body, the bytes as they are.
    /// `None` for what is not IPv4, or neither for another real node nor a TCP segment for
    /// a Tern node an interop flow joins to `src`.
    pub fn enter(&self, src: NodeId, bytes: &[u8]) -> Option<(FlowId, NodeId, Body)> {
        // RFC 791 §3.1: version 4, destination address at bytes 16–19.
        let dst = (bytes.len() >= IPV4_HEADER as usize && bytes[0] >> 4 == 4)
            .then(|| node_at([bytes[16], bytes[17], bytes[18], bytes[19]]))
            .flatten()
            .filter(|d| *d != src)?;
        // To a real node as it is; to a Tern node as a segment of the interop flow joining
        // them (parsed when it arrives, [`super::Interop`]).
        let flow = if self.is_real(dst) {
            EMULATED
        } else {
            self.flow_of(src, dst, bytes)?
        };
        Some((flow, dst, Body::Raw(bytes.to_vec())))
    }

    /// The body packet `packet` of flow `f`, sent to a real node, takes as it leaves its
    /// node: a Tern endpoint's segment to a real host becomes its real bytes
    /// ([`Boundary::encode_sent`]); `None` for every other packet.
    pub fn encode(&mut self, f: FlowId, packet: &Packet) -> Option<Body> {
        self.encode_sent(f, packet).map(Body::Raw)
    }

    /// What crossed each interop flow's boundary, by flow name.
    pub fn summary(&self, names: impl Iterator<Item = String>) -> IndexMap<String, InteropSummary> {
        names
            .zip(&self.peers)
            .filter_map(|(name, p)| Some((name, p.as_ref()?.stats.clone())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tern_proto::tcp::Flags;

    fn seg(seq: u32, syn: bool, len: u32) -> Segment {
        Segment {
            seq: SeqNum(seq),
            flags: Flags {
                syn,
                ack: !syn,
                ..Default::default()
            },
            payload_len: len,
            ..Default::default()
        }
    }

    #[test]
    fn stream_offsets_unwrap_across_the_sequence_space() {
        // ISN just below 2^32: the first data byte is offset 0 whatever the wrap.
        let mut c = None;
        let isn = u32::MAX - 5;
        assert_eq!(Cursor::data_offset(&mut c, &seg(isn, true, 0)), Some(0));
        assert_eq!(
            Cursor::data_offset(&mut c, &seg(isn.wrapping_add(1), false, 10)),
            Some(0)
        );
        assert_eq!(
            Cursor::data_offset(&mut c, &seg(isn.wrapping_add(11), false, 10)),
            Some(10)
        );
        // A retransmission of the first bytes, after later ones.
        assert_eq!(
            Cursor::data_offset(&mut c, &seg(isn.wrapping_add(1), false, 10)),
            Some(0)
        );
        // Past 4 GiB: offsets keep counting (each step under 2^31), the sequence number
        // of offset 2^32 being that of offset 0.
        for k in 1..=5u64 {
            let off = k << 30;
            let s = isn.wrapping_add(1).wrapping_add(off as u32);
            assert_eq!(Cursor::data_offset(&mut c, &seg(s, false, 1)), Some(off));
        }
        // Without a SYN seen, no offset.
        assert_eq!(Cursor::data_offset(&mut None, &seg(5, false, 1)), None);
    }

    /// A real host's packet enters by its IPv4 header (RFC 791 §3.1: version in the first
    /// nibble, protocol at byte 9, destination at bytes 16–19) and is parsed at its Tern
    /// destination.
    #[test]
    fn what_enters_and_what_leaves() {
        let (tern, real, other) = (NodeId(0), NodeId(1), NodeId(2));
        let mut b = Boundary::new(vec![false, true, true], &[("up", tern, real, true)]).unwrap();
        let packet = |to: NodeId, proto: u8| {
            let mut p = vec![0u8; 40];
            p[0] = 0x45;
            p[9] = proto;
            p[16..20].copy_from_slice(&real_addr(to));
            p
        };
        let tcp = packet(tern, PROTO_TCP);
        // To the Tern node: the interop flow's; to another real node: no flow's.
        let (f, dst, body) = b.enter(real, &tcp).unwrap();
        assert_eq!((f, dst), (FlowId(0), tern));
        assert!(matches!(&body, Body::Raw(bytes) if *bytes == tcp));
        assert_eq!(b.enter(real, &packet(other, 17)).unwrap().0, EMULATED);
        // Not TCP to a Tern node, to itself, not IPv4, shorter than a header: left out.
        assert!(b.enter(real, &packet(tern, 17)).is_none());
        assert!(b.enter(real, &packet(real, PROTO_TCP)).is_none());
        let mut v6 = tcp.clone();
        v6[0] = 0x60;
        assert!(b.enter(real, &v6).is_none());
        assert!(b.enter(real, &tcp[..19]).is_none());

        // At the Tern node the bytes are parsed: these are no valid segment (zero total
        // length, no checksums), dropped and counted.
        assert!(b.parse_received(FlowId(0), &tcp).is_none());
        assert_eq!(b.peers[0].as_ref().unwrap().stats.malformed, 1);
    }

    #[test]
    fn only_tcp_may_join_a_real_and_a_tern_node() {
        let real = vec![false, true, false];
        let (a, b, c) = (NodeId(0), NodeId(1), NodeId(2));
        let ok = Boundary::new(
            real.clone(),
            &[
                ("up", a, b, true),
                ("down", b, c, true),
                ("sim", a, c, false),
            ],
        )
        .unwrap();
        assert_eq!(ok.silent(FlowId(0)), [false, true]);
        assert_eq!(ok.silent(FlowId(1)), [true, false]);
        assert_eq!(ok.silent(FlowId(2)), [false, false]);
        let tcp = [0u8, 0, 0, 0, 0, 0, 0, 0, 0, 6];
        assert_eq!(ok.flow_of(b, a, &tcp), Some(FlowId(0)));
        assert_eq!(ok.flow_of(b, c, &tcp), Some(FlowId(1)));
        assert_eq!(ok.flow_of(b, c, &[0u8; 10]), None); // not TCP
        let err = Boundary::new(real.clone(), &[("ping", a, b, false)]).unwrap_err();
        assert!(
            err.contains("\"ping\"") && err.contains("only a TCP flow"),
            "{err}"
        );
        let err = Boundary::new(real, &[("x", a, b, true), ("y", b, a, true)]).unwrap_err();
        assert!(err.contains("\"y\""), "{err}");
    }
}
