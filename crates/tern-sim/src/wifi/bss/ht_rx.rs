//! The receiving side of the HT frame exchange: which MPDUs of an A-MPDU arrive (the error
//! model), the recipient's reordering buffer and Block Ack scoreboard (IEEE 802.11-2016
//! §10.24.7.6), what is passed up, and the driver's hook to give an MPDU up
//! ([`HtExchange::give_up`], where an AP-side receive strategy such as a retry-out index
//! acts on [`Outcome::received`]).

use super::super::error_model::ht_success_rate_db;
use super::super::frames::{mpdu_len, BLOCK_ACK_COMPRESSED};
use super::super::phy::{ht_control_response_rate, ofdm_txtime, HtMcs, HtTxVector, OfdmRate};
use super::exchange::{Cx, Tx};
use super::ht::{HtExchange, HtPpdu};
use super::outcome::{Outcome, RxAmpdu, RxMpdu};
use crate::engine::SimTime;

impl HtExchange {
    /// A lone PPDU ends: decides which MPDUs arrived, passes up what the recipient
    /// releases, and returns the airtime of the BlockAck, if one is sent (§10.24.7.5):
    /// at the control-response rate of the A-MPDU's MCS among the BSSBasicRateSet (the
    /// mandatory 6, 12 and 24 Mbit/s), or at 6 Mbit/s after a BlockAckReq (sent at 6).
    pub(super) fn receive_ppdu(&mut self, tx: &Tx, cx: &mut Cx<'_>) -> Option<SimTime> {
        let (ppdu, _) = self.entities[tx.entity].on_air.take().expect("on air");
        let (rate, answer) = match &ppdu {
            HtPpdu::Bar(ssn) => {
                let recipient = self.entities[tx.peer].recipients[tx.entity]
                    .as_mut()
                    .expect("linked peer");
                let released = recipient.on_bar(*ssn);
                let bitmap = recipient.block_ack(*ssn);
                self.pass_up(tx.entity, tx.peer, released, cx.out);
                (OfdmRate::Mbps6, Some((*ssn, bitmap)))
            }
            HtPpdu::Ampdu { mpdus, mcs, .. } => (
                ht_control_response_rate(*mcs, &OfdmRate::MANDATORY),
                self.receive_ampdu(tx, mpdus, *mcs, cx),
            ),
        };
        let answered = answer.is_some();
        self.entities[tx.entity].on_air = Some((ppdu, answer));
        if !answered {
            return None;
        }
        Some(ofdm_txtime(BLOCK_ACK_COMPRESSED, rate, self.phy.band))
    }

    /// The MPDUs of an A-MPDU at `mcs` reach the recipient: the BlockAck it answers with
    /// (starting SN, bitmap), `None` if no MPDU arrived.
    fn receive_ampdu(
        &mut self,
        tx: &Tx,
        mpdus: &[(u16, u64)],
        mcs: HtMcs,
        cx: &mut Cx<'_>,
    ) -> Option<(u16, u64)> {
        let snr_db = tx.snr_db;
        let mut got = Vec::new();
        let mut seen = Vec::new();
        for &(sn, uid) in mpdus {
            let frame = self.entities[tx.entity].held[&uid];
            let bits = u64::from(mpdu_len(frame.bytes)) * 8;
            let fcs_ok = cx.errors.arrives(snr_db, mcs.index(), bits, || {
                ht_success_rate_db(mcs, snr_db, bits)
            });
            if fcs_ok {
                got.push((sn, uid));
            }
            if cx.observe_rx {
                let misread = if fcs_ok {
                    0
                } else {
                    cx.errors.misread(snr_db, mcs, bits)
                };
                seen.push(RxMpdu {
                    sn,
                    fcs_ok,
                    packet: frame.packet,
                    misread,
                });
            }
        }
        // The MPDUs' draws come first, so that they are the same whether the header
        // decodes or not; a PPDU whose header fails reaches the MAC not at all.
        if !cx.errors.header_arrives(tx.header_snr_db) {
            return None;
        }
        if cx.observe_rx {
            cx.out.received.push(RxAmpdu {
                start: tx.start,
                from: tx.entity,
                to: tx.peer,
                rate_bps: HtTxVector::new(mcs, self.phy.width, self.phy.gi).data_rate_bps(),
                mpdus: seen,
            });
        }
        if got.is_empty() {
            return None;
        }
        let recipient = self.entities[tx.peer].recipients[tx.entity]
            .as_mut()
            .expect("linked peer");
        let mut released = Vec::new();
        let mut kept = Vec::with_capacity(got.len());
        for &(sn, uid) in &got {
            // What the recipient discards (a duplicate, or a copy of an MPDU its driver
            // gave up on) is not kept for passing up.
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
        self.pass_up(tx.entity, tx.peer, released, cx.out);
        Some((start, bitmap))
    }

    /// The driver of entity `at` declares the MPDU with SN `sn` from entity `from` lost
    /// ([`super::super::blockack::Recipient::give_up`]): its reordering buffer moves past
    /// it and passes up what it held behind it (in [`Outcome::delivered`]); the chip still
    /// acknowledges the MPDU if it arrives later.
    pub(super) fn give_up(&mut self, at: usize, from: usize, sn: u16, out: &mut Outcome) {
        if let Some(r) = self.entities[at].recipients[from].as_mut() {
            let released = r.give_up(sn);
            self.pass_up(from, at, released, out);
        }
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
    pub(super) fn reorder_start(&self, at: usize, from: usize) -> Option<u16> {
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
