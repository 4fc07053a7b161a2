//! The seam where an access point's driver may act on what it receives, beyond the
//! standard's receive reordering (IEEE 802.11-2020 §10.25.6.6): after the chip has
//! acknowledged an A-MPDU and the reordering buffer has taken its intact MPDUs, a strategy
//! sees every MPDU of it (intact or with a bad FCS, [`super::bss::RxAmpdu`]) and may declare
//! some lost. The device then gives each up ([`super::bss::Bss::give_up`]): the reordering
//! buffer stops waiting for it, and what was held behind it goes up at once unless another
//! missing MPDU before it still holds the window. Without a strategy the AP is the standard
//! receiver.

/// One MPDU of a received A-MPDU, as the AP's driver sees it. Its fields are read from
/// the bytes as received, so when the FCS failed they may be wrong
/// ([`super::bss::RxMpdu::sn_read`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeenMpdu {
    /// The sequence number read from its MAC header.
    pub sn: u16,
    pub fcs_ok: bool,
    /// Whether it reads as carrying a TCP segment (the IPv4 Protocol field behind the
    /// LLC/SNAP header).
    pub tcp: bool,
    /// Its sequence number and whether it carries TCP, as sent: what a driver reading every
    /// header right would see (`exact_headers`, a bound for a sensitivity).
    pub sent: (u16, bool),
}

/// An MPDU the driver declares lost, and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Declared {
    pub sn: u16,
    /// Receptions with a bad FCS counted for it.
    pub failures: u32,
    /// The limit the failures exceeded.
    pub index: u32,
    /// The station's smoothed receive data rate the limit came from, bit/s.
    pub ewma_bps: f64,
}

/// A received A-MPDU, after its intact MPDUs went into the reordering buffer.
#[derive(Clone, Copy, Debug)]
pub struct ApAmpdu<'a> {
    /// The sending station (its entity number in the BSS).
    pub station: usize,
    /// Data rate of the PPDU, bit/s.
    pub rate_bps: f64,
    /// Where the reordering window of the station's agreement now starts (WinStartB).
    pub win_start: u16,
    /// Every MPDU of it, in the order of the A-MPDU.
    pub mpdus: &'a [SeenMpdu],
}

/// An AP-side receive strategy.
pub trait ApRxStrategy {
    /// An A-MPDU reached the AP's driver. Returns the MPDUs to declare lost, in
    /// sequence-number order from the window's start.
    fn on_ampdu(&mut self, a: &ApAmpdu<'_>) -> Vec<Declared>;
}
