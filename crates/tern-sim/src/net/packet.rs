//! Packets as they cross links: plain structs whose sizes count on the wire
//! (IPv4 20 B + transport header + payload). No bytes are carried but QUIC's (a real
//! QUIC stack writes them); other encodings are made only where needed (packet captures).

/// A packet's body is one transport's: the list of transports makes it.
pub use super::body::{Body, WireBody};
pub use super::udp::{UdpKind, UdpMessage, UDP_HEADER};

/// IPv4 header without options (RFC 791 §3.1).
pub const IPV4_HEADER: u32 = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// An interface: one direction out of a node onto a device, numbered in scenario order
/// (link `i` has `2i` forward and `2i + 1` reverse; 802.11 associations follow, uplink
/// then downlink).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IfaceId(pub u32);

/// Interfaces a packet must take whatever the routes say: `first` out of its source (a
/// socket bound to an interface), `last` into its destination (sent to the destination's
/// address on that interface). Multipath transports pin each path this way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pin {
    pub first: Option<IfaceId>,
    pub last: Option<IfaceId>,
}

/// A UDP datagram of a QUIC connection (RFC 9000 §12.2): the payload's real bytes, as the
/// QUIC stack wrote them, so packet captures show them (and a TLS key log decrypts them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuicDatagram {
    /// Sent by the connection's client (the flow's source), or by its server.
    pub from_client: bool,
    /// The connection's path it belongs to (multipath QUIC): the index of the client's
    /// interface, which its IP addresses would name.
    pub path: u8,
    /// The UDP payload: one or more coalesced QUIC packets (RFC 9000 §12.2).
    pub bytes: Vec<u8>,
}

/// An IP packet in the simulated network. Made by [`Packet::new`]; nothing but `pin` changes
/// afterwards (the pool hands out shared references), so its size is computed once.
///
/// Laid out for the packet path: what a hop reads (addresses, pin, size, flow) is in the
/// first cache line of the packet, aligned to one, and the body, read only where the packet
/// is delivered, after it. With many flows a packet's slot has left the caches by the time
/// the packet reaches the next hop, and the compiler's order spread those fields over both
/// lines (benches/RESULTS.md, "Cost per packet flat in the number of flows").
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Packet {
    pub src: NodeId,
    pub dst: NodeId,
    pub flow: FlowId,
    /// [`Packet::size`], computed when the packet is made: it is read at every hop (the
    /// device, the link counters, TCP Small Queues), and a TCP segment's options make it a
    /// chain of branches.
    size: u32,
    pub pin: Pin,
    /// Which of the flow's endpoints at `src` sent it (its connection, for a flow of several).
    pub key: u8,
    /// Unique within a run, in creation order.
    pub uid: u64,
    pub body: Body,
}

impl Packet {
    /// A packet of endpoint `key` of `flow`, from `src` to `dst`, pinned nowhere.
    #[inline]
    pub fn new(uid: u64, flow: FlowId, key: u8, src: NodeId, dst: NodeId, body: Body) -> Self {
        let mut p = Self::new_unsized(uid, flow, key, src, dst, body);
        p.size = IPV4_HEADER + p.body.transport_len();
        p
    }

    /// [`Packet::new`] with its size not yet set (0): the pool sets it once the packet
    /// is in its slot ([`PacketPool::insert_keyed`]).
    #[inline]
    fn new_unsized(uid: u64, flow: FlowId, key: u8, src: NodeId, dst: NodeId, body: Body) -> Self {
        Packet {
            uid,
            flow,
            key,
            src,
            dst,
            pin: Pin::default(),
            size: 0,
            body,
        }
    }

    /// Size on the link: IPv4 header + transport header + payload.
    pub fn size(&self) -> u32 {
        self.size
    }
}

/// Handle to a packet stored in a [`PacketPool`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PacketRef(u32);

/// Storage for the packets alive in the network, so that events and queues
/// carry a 4-byte handle instead of the packet.
///
/// It grows with the packets alive, never by what a queue's limit would allow; a growth
/// the allocator refuses (a queue limit of billions of packets filled by a fast source)
/// leaves the pool as it was and marks it [`PacketPool::exhausted`], so that the run can
/// stop with an error instead of the process aborting.
#[derive(Default)]
pub struct PacketPool {
    slots: Vec<Option<Packet>>,
    free: Vec<u32>,
    next_uid: u64,
    /// Packets alive when the allocator refused more room, if it did.
    exhausted: Option<usize>,
}

impl PacketPool {
    /// Stores a new packet of the flow's first endpoint, giving it the next uid; `None` if
    /// there is no memory left for it (see [`PacketPool::exhausted`]).
    pub fn insert(
        &mut self,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        body: Body,
    ) -> Option<PacketRef> {
        self.insert_keyed(flow, 0, src, dst, body)
    }

    /// Stores a new packet sent by endpoint `key` of the flow, giving it the next uid;
    /// `None` if there is no memory left for it (see [`PacketPool::exhausted`]).
    #[inline]
    pub fn insert_keyed(
        &mut self,
        flow: FlowId,
        key: u8,
        src: NodeId,
        dst: NodeId,
        body: Body,
    ) -> Option<PacketRef> {
        // The packet is built where it is stored, not built first and then copied in.
        let slot = match self.free.pop() {
            Some(i) => i,
            None => {
                // Handles are 32-bit; past that, or when the allocator refuses to double
                // the slots, the pool stays as it is.
                let room = self.slots.len() < u32::MAX as usize
                    && (self.slots.len() < self.slots.capacity()
                        || self.slots.try_reserve(1).is_ok());
                if !room {
                    self.exhausted.get_or_insert(self.slots.len());
                    return None;
                }
                self.slots.push(None);
                (self.slots.len() - 1) as u32
            }
        };
        let uid = self.next_uid;
        self.next_uid += 1;
        // The body is moved into the slot whole, then its size is read there: built from
        // the body's fields one by one instead, the packet took half as many instructions
        // again.
        let p =
            self.slots[slot as usize].insert(Packet::new_unsized(uid, flow, key, src, dst, body));
        p.size = IPV4_HEADER + p.body.transport_len();
        Some(PacketRef(slot))
    }

    /// The number of packets alive when the memory ran out for one more, if it did: the run
    /// must stop, its network no longer what the scenario describes.
    pub fn exhausted(&self) -> Option<usize> {
        self.exhausted
    }

    /// Marks the memory as run out elsewhere (a link's queue or the event queue could not
    /// grow), with the packets alive now, unless the pool ran out first.
    pub fn mark_exhausted(&mut self) {
        let alive = self.slots.len() - self.free.len();
        self.exhausted.get_or_insert(alive);
    }

    /// Pins a packet to interfaces (see [`Pin`]).
    pub fn pin(&mut self, r: PacketRef, pin: Pin) {
        if let Some(p) = self.slots[r.0 as usize].as_mut() {
            p.pin = pin;
        }
    }

    /// Replaces a packet's body by one of the same size (its real bytes, in an emulation).
    pub fn set_body(&mut self, r: PacketRef, body: Body) {
        if let Some(p) = self.slots[r.0 as usize].as_mut() {
            debug_assert_eq!(p.body.transport_len(), body.transport_len());
            p.body = body;
        }
    }

    #[inline]
    pub fn get(&self, r: PacketRef) -> &Packet {
        self.slots[r.0 as usize]
            .as_ref()
            .expect("packet handle used after release")
    }

    /// Removes the packet (delivered or dropped) and returns it.
    #[inline]
    pub fn take(&mut self, r: PacketRef) -> Packet {
        let p = self.slots[r.0 as usize]
            .take()
            .expect("packet handle used after release");
        self.free.push(r.0);
        p
    }

    /// Removes the packet (delivered or dropped) where it lies, without moving it out.
    pub fn release(&mut self, r: PacketRef) {
        let slot = &mut self.slots[r.0 as usize];
        assert!(slot.is_some(), "packet handle used after release");
        *slot = None;
        self.free.push(r.0);
    }

    /// Removes the packet if it is still there (a transport may have moved it out).
    #[inline]
    pub fn discard(&mut self, r: PacketRef) {
        let slot = &mut self.slots[r.0 as usize];
        if slot.take().is_some() {
            self.free.push(r.0);
        }
    }

    /// Packets still in the network (queued, in service or propagating).
    pub fn live(&self) -> impl Iterator<Item = &Packet> {
        self.slots.iter().flatten()
    }

    /// Number of packets created so far.
    pub fn created(&self) -> u64 {
        self.next_uid
    }
}

#[cfg(test)]
mod tests {
    use super::Packet;

    /// The layout [`Packet`]'s documentation promises: the hop fields in the first 64-byte
    /// line and the body in the second, so a slot is two cache lines. A transport whose wire
    /// body grows past what the second line holds makes every packet of every transport three
    /// lines, and a queue of them stops fitting in L1 (benches/RESULTS.md, "Three builds in
    /// the same sitting").
    #[test]
    fn a_packet_slot_is_two_cache_lines() {
        assert_eq!(std::mem::align_of::<Packet>(), 64);
        assert_eq!(std::mem::size_of::<Packet>(), 128);
    }
}
