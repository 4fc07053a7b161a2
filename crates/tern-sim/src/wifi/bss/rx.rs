//! The receiving side of a frame exchange: which MPDUs arrive (the error model), the
//! recipient's reordering buffer and Block Ack scoreboard, what is passed up, and the
//! driver's hook to give an MPDU up ([`Bss::give_up`], where an AP-side receive strategy
//! such as a retry-out index acts on [`Outcome::received`]).

use super::super::error_model::ht_success_rate_db;
use super::super::frames::{dcf_mpdu_len, mpdu_len};
use super::super::phy::HtTxVector;
use super::{Bss, Outcome, Payload, Phy, RxAmpdu, RxMpdu, Tx};
use crate::engine::SimTime;
use std::collections::BTreeMap;

impl Bss {
    /// A lone transmission ends: decides which MPDUs arrived, passes up what the receiver
    /// releases, and returns the receiver's response.
    pub(super) fn receive(&mut self, tx: &Tx, out: &mut Outcome) -> Response {
        let snr_db = tx.snr_db;
        match (&tx.what, &self.cfg.phy) {
            (Payload::Single { frame: f, rate }, _) => {
                let bits = u64::from(dcf_mpdu_len(f.bytes)) * 8;
                let p_snr = self.success.get(snr_db, rate.cache_key(), bits, || {
                    rate.success(snr_db, bits)
                });
                if self.error_rng.uniform() < (1.0 - self.cfg.mpdu_error) * p_snr {
                    out.delivered.push((tx.entity, tx.peer, f.packet));
                    Response::Ack
                } else {
                    Response::None
                }
            }
            (Payload::Bar(ssn), Phy::Ht { .. }) => {
                let recipient = self.entities[tx.peer].recipients[tx.entity]
                    .as_mut()
                    .expect("HT peer");
                let released = recipient.on_bar(*ssn);
                let bitmap = recipient.block_ack(*ssn);
                self.pass_up(tx.entity, tx.peer, released, out);
                Response::BlockAck {
                    start: *ssn,
                    bitmap,
                }
            }
            (Payload::Ampdu { mpdus, mcs }, Phy::Ht { width, gi, .. }) => {
                let mut got = Vec::new();
                let mut seen = Vec::new();
                for &(sn, uid) in mpdus {
                    let frame = self.entities[tx.entity].held[&uid];
                    let bits = u64::from(mpdu_len(frame.bytes)) * 8;
                    let p_snr = self.success.get(snr_db, mcs.index(), bits, || {
                        ht_success_rate_db(*mcs, snr_db, bits)
                    });
                    let fcs_ok = self.error_rng.uniform() < (1.0 - self.cfg.mpdu_error) * p_snr;
                    if fcs_ok {
                        got.push((sn, uid));
                    }
                    if self.observe_rx {
                        seen.push(RxMpdu {
                            sn,
                            fcs_ok,
                            packet: frame.packet,
                        });
                    }
                }
                if self.observe_rx {
                    out.received.push(RxAmpdu {
                        start: tx.start,
                        from: tx.entity,
                        to: tx.peer,
                        rate_bps: HtTxVector::new(*mcs, *width, *gi).data_rate_bps(),
                        mpdus: seen,
                    });
                }
                if got.is_empty() {
                    return Response::None;
                }
                let recipient = self.entities[tx.peer].recipients[tx.entity]
                    .as_mut()
                    .expect("HT peer");
                let mut released = Vec::new();
                let mut kept = Vec::with_capacity(got.len());
                for &(sn, uid) in &got {
                    // What the recipient discards (a duplicate, or a copy of an MPDU its
                    // driver gave up on) is not kept for passing up.
                    let discarded = recipient.duplicates() + recipient.ignored();
                    released.extend(recipient.on_mpdu_at(tx.end, sn, uid));
                    if recipient.duplicates() + recipient.ignored() == discarded {
                        kept.push(uid);
                    }
                }
                // Retransmissions come first in SN order, so the first MPDU has the lowest SN.
                let start = mpdus[0].0;
                let bitmap = recipient.block_ack(start);
                for uid in kept {
                    let f = self.entities[tx.entity].held[&uid];
                    self.entities[tx.peer].reorder.insert(uid, f);
                }
                self.pass_up(tx.entity, tx.peer, released, out);
                Response::BlockAck { start, bitmap }
            }
            _ => unreachable!("payload matches the PHY"),
        }
    }

    /// The driver of entity `at` declares the MPDU with SN `sn` from entity `from` lost
    /// ([`Recipient::give_up`]): its reordering buffer moves past it and passes up what it
    /// held behind it (in [`Outcome::delivered`]); the chip still acknowledges the MPDU if
    /// it arrives later. For a receiver-side mechanism acting on [`Outcome::received`].
    pub fn give_up(&mut self, at: usize, from: usize, sn: u16) -> Outcome {
        let mut out = Outcome::default();
        if let Some(r) = self.entities[at].recipients[from].as_mut() {
            let released = r.give_up(sn);
            self.pass_up(from, at, released, &mut out);
        }
        out
    }

    /// Runs the reorder-release timeouts due at `now`: what each reordering buffer then
    /// releases is passed up.
    pub(super) fn reorder_timeouts(&mut self, now: SimTime, out: &mut Outcome) {
        for to in 0..self.entities.len() {
            for from in 0..self.entities.len() {
                let Some(r) = self.entities[to].recipients[from].as_mut() else {
                    continue;
                };
                if r.poll_timeout().is_some_and(|t| t <= now) {
                    let released = r.handle_timeout(now);
                    self.pass_up(from, to, released, out);
                }
            }
        }
    }

    /// WinStartB of entity `at`'s reordering buffer for MPDUs from entity `from`, if the
    /// two have a Block Ack agreement.
    pub fn reorder_start(&self, at: usize, from: usize) -> Option<u16> {
        self.entities[at].recipients[from]
            .as_ref()
            .map(|r| r.win_start())
    }

    /// Delivers the packets entity `to`'s recipient released, by uid, to the world.
    pub(super) fn pass_up(&mut self, from: usize, to: usize, uids: Vec<u64>, out: &mut Outcome) {
        for uid in uids {
            let f = self.entities[to].reorder.remove(&uid).expect("received");
            out.delivered.push((from, to, f.packet));
        }
    }
}

/// What a receiver answered.
pub(super) enum Response {
    /// Nothing (collision, or no MPDU received): the sender's timeout runs.
    None,
    /// 802.11b Ack.
    Ack,
    /// Compressed BlockAck: starting SN and bitmap.
    BlockAck { start: u16, bitmap: u64 },
}

/// Frame success rates already computed, by (SNR bits, rate, frame bits): the error model's
/// special functions cost far more than a MAC exchange, and a static station sees one SNR.
/// A pure function cached, so results are the same with or without it.
#[derive(Default)]
pub(super) struct SuccessCache(BTreeMap<(u64, u8, u64), f64>);

impl SuccessCache {
    /// Entries kept before the cache starts over (moving stations see ever new SNRs).
    const LIMIT: usize = 4096;

    pub(super) fn get(
        &mut self,
        snr_db: f64,
        rate: u8,
        bits: u64,
        compute: impl FnOnce() -> f64,
    ) -> f64 {
        if self.0.len() >= Self::LIMIT {
            self.0.clear();
        }
        *self
            .0
            .entry((snr_db.to_bits(), rate, bits))
            .or_insert_with(compute)
    }
}
