//! What a BSS reports: the packets it delivered, acknowledged or dropped, every
//! transmission (the `wifi` trace) and what receivers' drivers saw (the `wifi_rx` trace).

use crate::engine::SimTime;
use crate::net::packet::PacketRef;

/// What a transmission did, for the `wifi` trace and the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct TxRecord {
    pub start: SimTime,
    pub entity: usize,
    pub peer: usize,
    /// "data", "ampdu" or "bar".
    pub kind: &'static str,
    /// Data rate of the PPDU, bit/s; the HT MCS index if HT.
    pub rate_bps: f64,
    pub mcs: Option<u8>,
    pub mpdus: u32,
    pub acked: u32,
    pub collision: bool,
    pub snr_db: f64,
    /// Whether the rate control chose the rate to probe it (Minstrel's sampling).
    pub probe: bool,
    /// MPDUs given up after this try.
    pub dropped: u32,
    /// Whether this try ended the sender's submission of its frames (`WifiRecord`).
    pub series_end: bool,
}

/// One A-MPDU as a receiver's driver sees it: every MPDU the PHY passed up, with a good or
/// a bad FCS. ath9k hands CRC-failed A-MPDU subframes to the driver with their MAC header
/// (so their sequence numbers can be read, if not trusted), which is what a receiver-side
/// mechanism builds on. Not reported: MPDUs lost in a collision (the PHY did not lock on).
#[derive(Clone, Debug, PartialEq)]
pub struct RxAmpdu {
    pub start: SimTime,
    pub from: usize,
    pub to: usize,
    /// Data rate of the PPDU, bit/s.
    pub rate_bps: f64,
    pub mpdus: Vec<RxMpdu>,
}

/// One MPDU of an [`RxAmpdu`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxMpdu {
    pub sn: u16,
    pub fcs_ok: bool,
    pub packet: PacketRef,
    /// Which bits of the header fields the driver reads came through wrong
    /// ([`super::misread`]): 0 when the FCS is good.
    pub misread: u32,
}

impl RxMpdu {
    /// The sequence number the driver reads from the MPDU's MAC header.
    pub fn sn_read(&self) -> u16 {
        super::misread::sn_read(self.sn, self.misread)
    }

    /// The IPv4 Protocol number the driver reads, the packet's being `protocol`.
    pub fn protocol_read(&self, protocol: u8) -> u8 {
        super::misread::protocol_read(protocol, self.misread)
    }
}

/// Counters of a BSS, for the summary.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub ppdus: u64,
    pub collisions: u64,
    pub mpdus_sent: u64,
    pub mpdus_failed: u64,
    pub dropped_retry: u64,
    pub dropped_queue: u64,
    pub dropped_lifetime: u64,
    pub busy: SimTime,
}

/// What the world has to act on after [`Bss::wake`] or [`Bss::enqueue`].
#[derive(Default)]
pub struct Outcome {
    /// Packets that reached entity `.1` from entity `.0`, to be passed up now, in order.
    pub delivered: Vec<(usize, usize, PacketRef)>,
    /// Packets the sender's MAC is done with (acknowledged): (from, to, packet).
    pub acked: Vec<(usize, usize, PacketRef)>,
    /// Packets dropped after the retry limit: (from, to, packet).
    pub dropped: Vec<(usize, usize, PacketRef)>,
    /// Packets discarded at the end of their MSDU lifetime: (from, to, packet).
    pub expired: Vec<(usize, usize, PacketRef)>,
    /// Packets the AP held for a station that left: (from, to, packet).
    pub disassociated: Vec<(usize, usize, PacketRef)>,
    /// What receivers' drivers saw, when [`Bss::observe_rx`] is set.
    pub received: Vec<RxAmpdu>,
    /// Every transmission, when [`Bss::observe_tx`] is set.
    pub transmissions: Vec<TxRecord>,
}

impl Outcome {
    /// Empties every list, keeping their buffers.
    pub fn clear(&mut self) {
        self.delivered.clear();
        self.acked.clear();
        self.dropped.clear();
        self.expired.clear();
        self.disassociated.clear();
        self.received.clear();
        self.transmissions.clear();
    }
}
