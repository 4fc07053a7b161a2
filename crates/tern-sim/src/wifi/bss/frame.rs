//! A packet in a MAC entity's queue, as the BSS hands it to the frame exchange.

use crate::engine::SimTime;
use crate::net::packet::PacketRef;

/// A packet waiting in, or carried by, a MAC.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    pub(super) peer: usize,
    pub(super) packet: PacketRef,
    pub(super) uid: u64,
    /// IP bytes.
    pub(super) bytes: u32,
    /// When it entered the MAC (a station that roams keeps the time it entered the MAC of
    /// its first AP: the MSDU lifetime counts from there).
    pub(super) since: SimTime,
}

impl Frame {
    pub fn packet(&self) -> PacketRef {
        self.packet
    }
}
