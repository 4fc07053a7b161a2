//! The seam between channel access ([`super::Bss`]) and frame exchange: what a MAC entity
//! does once the medium is its own, as IEEE 802.11-2016 separates the coordination function
//! that grants a transmit opportunity (§10.3.4.3, §10.22.2) from the frame exchange
//! sequences run in it (§10.3.2, §10.24). ns-3 draws the same line between its
//! `ChannelAccessManager` and its frame-exchange managers.
//!
//! **Call order** for one transmit opportunity of entity `i` (the BSS drives it):
//! 1. [`FrameExchange::start`] when `i`'s backoff ends: the exchange picks the PPDU and
//!    says who it is for, how long it lasts and at what SNR it arrives;
//! 2. [`FrameExchange::receive`] when the PPDU ends, only if it was alone on the medium:
//!    the receiver decides what arrived and answers (the airtime of its Ack or BlockAck,
//!    `None` if it sends none);
//! 3. [`FrameExchange::conclude`] always, last: the sender's side (retries, drops, rate
//!    control), which tells the BSS whether the contention window goes back to CWmin.
//!
//! Between transmit opportunities the BSS hands frames in ([`FrameExchange::queue`]),
//! asks whether an entity has something to send, lets frames age out
//! ([`FrameExchange::expire`]) and runs receive-side timeouts
//! ([`FrameExchange::run_timeouts`]). The payload of a PPDU never leaves its exchange, so
//! a DCF Ack cannot meet an A-MPDU: each exchange keeps its own frames on the air.

use super::super::error_model::{
    db_to_linear, ht_header_success_rate_db, ht_success_rate_db, uncoded_ber, HT_HEADER_BITS,
};
use super::super::phy::HtMcs;
use super::frame::Frame;
use super::misread;
use super::outcome::{Counters, Outcome, TxRecord};
use crate::engine::{RngStream, SimTime};
use crate::radio::RadioChannel;
use std::collections::{BTreeMap, VecDeque};

/// One transmission on the medium, as channel access sees it.
pub(crate) struct Tx {
    pub entity: usize,
    pub peer: usize,
    pub start: SimTime,
    pub end: SimTime,
    /// The receiver's SNR for this PPDU, dB.
    pub snr_db: f64,
    /// The receiver's SNR for the PPDU's PHY header, dB ([`Ppdu::header_snr_db`]).
    pub header_snr_db: f64,
}

/// The PPDU an exchange sends when it gets the medium.
pub(crate) struct Ppdu {
    pub peer: usize,
    pub airtime: SimTime,
    /// The receiver's SNR for this PPDU, dB.
    pub snr_db: f64,
    /// The receiver's SNR for the PPDU's PHY header, dB: an HT-mixed PPDU's L-SIG and
    /// HT-SIG go out as one stream at BPSK ½ whatever the MCS (IEEE 802.11-2016 Clause 19,
    /// the L-SIG and HT-SIG fields of the HT-mixed format), so the receiver combines them
    /// over all its antennas; a non-HT PPDU's header shares the payload's SNR.
    pub header_snr_db: f64,
}

/// What an exchange borrows from its BSS for one call.
pub(crate) struct Cx<'a> {
    pub radio: &'a mut RadioChannel,
    pub errors: &'a mut Errors,
    pub counters: &'a mut Counters,
    pub out: &'a mut Outcome,
    /// Whether to report every received A-MPDU in [`Outcome::received`].
    pub observe_rx: bool,
}

/// The frame exchange sequences of a BSS's MAC entities (entity 0 is the AP). See the
/// module documentation for the order of calls.
pub(crate) trait FrameExchange {
    /// Entity `i`'s MAC queue: frames not yet sent (or, with Block Ack, not yet handed to
    /// an originator), in arrival order.
    fn queue(&mut self, i: usize) -> &mut VecDeque<Frame>;
    /// The frames entity `i` holds: queued, or awaiting acknowledgement.
    fn backlog(&self, i: usize) -> usize;
    /// Whether entity `i` has a frame to send.
    fn has_traffic(&self, i: usize) -> bool;
    /// Discards the queued frames that have waited `lifetime` (the MSDU lifetime), never
    /// one being retried; returns the earliest time a frame kept can reach its lifetime
    /// ([`expire_queue`]), [`SimTime::MAX`] if none is queued.
    fn expire(&mut self, now: SimTime, lifetime: SimTime, cx: &mut Cx<'_>) -> SimTime;
    /// Entity `i` has the medium at `now`: the PPDU it sends.
    fn start(&mut self, now: SimTime, i: usize, cx: &mut Cx<'_>) -> Ppdu;
    /// `tx` ended alone on the medium: what arrived, and the airtime of the response (Ack
    /// or BlockAck, sent SIFS later), if one is sent.
    fn receive(&mut self, tx: &Tx, cx: &mut Cx<'_>) -> Option<SimTime>;
    /// The sender's side of `tx`, collided or not: fills the exchange's part of `record`
    /// and says whether CW returns to CWmin (a success or a drop, §10.22.2.2).
    fn conclude(&mut self, now: SimTime, tx: &Tx, record: &mut TxRecord, cx: &mut Cx<'_>) -> bool;
    /// Station `k` leaves the AP: what the pair's agreements and queues become (see
    /// [`super::Bss::disassociate`]).
    fn leave(&mut self, k: usize, out: &mut Outcome);
    /// The next receive-side timeout (a reordering buffer's release), if any.
    fn next_timeout(&self) -> Option<SimTime>;
    /// Runs the receive-side timeouts due at `now`.
    fn run_timeouts(&mut self, now: SimTime, out: &mut Outcome);
}

/// Discards the frames of entity `i`'s `queue` from position `skip` on that have waited
/// `lifetime`, oldest first, stopping at the first younger one; returns when that one
/// reaches its lifetime ([`SimTime::MAX`] if there is none). Frames are queued in the
/// order they entered the MAC, so no frame behind it reaches its lifetime earlier.
#[inline]
pub(crate) fn expire_queue(
    i: usize,
    queue: &mut VecDeque<Frame>,
    skip: usize,
    (now, lifetime): (SimTime, SimTime),
    cx: &mut Cx<'_>,
) -> SimTime {
    while let Some(f) = queue.get(skip) {
        if now.saturating_sub(f.since) < lifetime {
            return f.since + lifetime;
        }
        let f = queue.remove(skip).expect("present");
        cx.counters.dropped_lifetime += 1;
        cx.out.expired.push((i, f.peer, f.packet));
    }
    SimTime::MAX
}

/// Whether each MPDU arrives: independently, with probability (1 − the fixed per-MPDU
/// error rate) × the error model's success rate at the PPDU's SNR; whether the receiver
/// decodes a PPDU's PHY header; and what a driver reads from a failed MPDU's header
/// ([`misread`]). The last two are drawn from streams of their own, so that the MPDUs'
/// draws are the same with or without them.
pub(crate) struct Errors {
    rng: RngStream,
    headers: RngStream,
    fields: RngStream,
    cache: SuccessCache,
    /// Uncoded bit error rates, by (SNR, MCS).
    raw: SuccessCache,
    mpdu_error: f64,
}

impl Errors {
    pub fn new(rng: RngStream, headers: RngStream, fields: RngStream, mpdu_error: f64) -> Errors {
        Errors {
            rng,
            headers,
            fields,
            cache: SuccessCache::default(),
            raw: SuccessCache::default(),
            mpdu_error,
        }
    }

    /// Draws the error pattern of the header fields a driver reads from an MPDU of `bits`
    /// bits at `mcs` that failed its FCS at `snr_db` ([`misread::draw`]), given the
    /// probability that it failed: the fixed per-MPDU error rate or the error model's.
    pub fn misread(&mut self, snr_db: f64, mcs: HtMcs, bits: u64) -> u32 {
        let raw = self.raw.get(snr_db, mcs.index(), 0, || {
            uncoded_ber(mcs.modulation(), db_to_linear(snr_db))
        });
        let success = self.cache.get(snr_db, mcs.index(), bits, || {
            ht_success_rate_db(mcs, snr_db, bits)
        });
        let failed = 1.0 - (1.0 - self.mpdu_error) * success;
        misread::draw(raw, mcs.code_rate(), failed, &mut self.fields)
    }

    /// Draws whether the receiver decodes an HT-mixed PPDU's PHY header at `snr_db`
    /// ([`ht_header_success_rate_db`]). An HT receiver that fails the L-SIG parity or the
    /// HT-SIG CRC ends the reception (IEEE 802.11-2016 Clause 19, the HT receive
    /// procedure; Clause 17 for the L-SIG's parity): its MAC sees no MPDU of the PPDU, good
    /// or bad, and sends no BlockAck.
    #[inline]
    pub fn header_arrives(&mut self, snr_db: f64) -> bool {
        let p = self.cache.get(snr_db, HEADER_KEY, HT_HEADER_BITS, || {
            ht_header_success_rate_db(snr_db)
        });
        self.headers.uniform() < p
    }

    /// Draws whether an MPDU of `bits` bits at rate `key` arrives at `snr_db`; `success`
    /// computes the error model's success rate (cached by SNR, rate and length).
    #[inline]
    pub fn arrives(
        &mut self,
        snr_db: f64,
        key: u8,
        bits: u64,
        success: impl FnOnce() -> f64,
    ) -> bool {
        let p_snr = self.cache.get(snr_db, key, bits, success);
        self.rng.uniform() < (1.0 - self.mpdu_error) * p_snr
    }
}

/// The success cache's rate key for the HT PHY header, apart from every rate's: HT MCS
/// indices 0-31, DCF rates from 255 down ([`super::config::DcfRate::cache_key`]).
const HEADER_KEY: u8 = 128;

/// Frame success rates already computed, by (SNR bits, rate, frame bits): the error model's
/// special functions cost far more than a MAC exchange, and a static station sees one SNR.
/// A pure function cached, so results are the same with or without it.
#[derive(Default)]
struct SuccessCache(BTreeMap<(u64, u8, u64), f64>);

impl SuccessCache {
    /// Entries kept before the cache starts over (moving stations see ever new SNRs).
    const LIMIT: usize = 4096;

    fn get(&mut self, snr_db: f64, rate: u8, bits: u64, compute: impl FnOnce() -> f64) -> f64 {
        if self.0.len() >= Self::LIMIT {
            self.0.clear();
        }
        *self
            .0
            .entry((snr_db.to_bits(), rate, bits))
            .or_insert_with(compute)
    }
}
