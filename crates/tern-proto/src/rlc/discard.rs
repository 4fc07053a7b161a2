//! SDU discard after MaxDAT transmissions (TS 25.322 §9.7.3) with explicit
//! signalling: the sender's side of the Move Receiving Window procedure
//! (§11.6), the MRW SUFI, Timer_MRW (§9.5) and MRW_ACK. The receiver's
//! side is in `rx`.

use super::pdu::{AmdPdu, Sn, Sufi};
use super::tx::{MrwState, PduState, SduEnd, TxPdu};
use super::{Event, RlcAm};
use crate::time::SimTime;

impl RlcAm {
    /// SDU discard after MaxDAT transmissions (§9.7.3) with explicit
    /// signalling (§11.6): drops every SDU with segments in PDUs
    /// VT(A)..=`x`, stops retransmitting the PDUs that carry only dropped
    /// data, and starts (or extends) the MRW procedure towards the end of
    /// the last dropped SDU.
    pub(super) fn tx_discard(&mut self, x: u64) {
        let mut last = None;
        for s in self.tx.sdus.iter_mut() {
            if s.first_pdu.is_none_or(|f| f > x) {
                break;
            }
            last = Some(s.seq);
            if !s.discarded {
                s.discarded = true;
                self.tx.buffered_bytes -= u64::from(s.len);
                self.tx.buffered_sdus -= 1;
                self.stats.sdus_discarded += 1;
                self.stats.sdu_bytes_discarded += u64::from(s.len);
                self.events.push_back(Event::SduDiscarded {
                    id: s.id,
                    len: s.len,
                });
            }
        }
        let Some(last) = last else {
            return;
        };
        let next_starts_in = self
            .tx
            .sdu_mut(last + 1)
            .and_then(|n| n.first_pdu)
            .unwrap_or(u64::MAX);
        let vt_s = self.tx.vt_s;
        let s = self.tx.sdu_mut(last).expect("last discarded SDU is queued");
        let (target, n_length) = match s.end {
            // The next SDU starts in the PDU holding the end LI: the
            // receiver skips the first `index` SDUs of that PDU.
            Some(SduEnd::Li { pdu, index }) if next_starts_in == pdu => (pdu, index),
            // Nothing live after it in that PDU (padding, or the PDU is full).
            Some(SduEnd::Li { pdu, .. }) | Some(SduEnd::PduEnd { pdu }) => (pdu + 1, 0),
            // Its LI = 0 will open PDU VT(S), which is kept as is: the stream
            // stays consistent, the receiver restarts at VT(S).
            Some(SduEnd::Li0Pending) => (vt_s, 0),
            None => {
                // Partly sent: drop the unsent tail, counted as PDU VT(S)
                // discarded before transmission (see the module notes).
                let rest = s.len - s.segmented;
                s.segmented = s.len;
                s.last_pdu = vt_s;
                self.tx.unsent_bytes -= u64::from(rest);
                self.tx.seg_seq = last + 1;
                self.tx.pdus.push_back(TxPdu {
                    pdu: AmdPdu {
                        sn: Sn::new(vt_s),
                        poll: false,
                        sdu_ends_at_pdu_end: false,
                        lis: Vec::new(),
                        data: Vec::new(),
                        size: self.cfg.pdu_size,
                    },
                    vt_dat: 0,
                    state: PduState::Discarded,
                });
                self.tx.vt_s += 1;
                (vt_s + 1, 0)
            }
        };
        for abs in self.tx.vt_a..target.min(self.tx.vt_s) {
            self.tx.retx.remove(&abs);
            let p = self.tx.pdu_mut(abs).expect("PDU in window");
            if p.state == PduState::Outstanding {
                p.state = PduState::Discarded;
            }
        }
        // A later discard reaches at least as far as an earlier one (the
        // PDUs below the earlier SN_MRW are no longer outstanding).
        let (target, n_length) = match self.tx.mrw {
            Some(old) if (old.target, old.n_length) > (target, n_length) => {
                (old.target, old.n_length)
            }
            _ => (target, n_length),
        };
        self.tx.mrw = Some(MrwState {
            target,
            n_length,
            send: true,
            deadline: None,
        });
    }

    /// The MRW SUFI if one is due; starts Timer_MRW.
    pub(super) fn tx_take_mrw(&mut self, now: SimTime) -> Option<Sufi> {
        let m = self.tx.mrw.as_mut().filter(|m| m.send)?;
        m.send = false;
        m.deadline = Some(now + self.cfg.timer_mrw);
        let (sn_mrw, n_length) = (Sn::new(m.target), m.n_length);
        self.stats.mrw_sent += 1;
        self.events.push_back(Event::MrwSent { sn_mrw, n_length });
        Some(Sufi::Mrw { sn_mrw, n_length })
    }

    /// MRW_ACK (§11.6): the procedure ends when SN_ACK ≥ SN_MRW (with
    /// N = N_LENGTH if equal); every PDU below SN_ACK (the peer's VR(R)) is
    /// then received or discarded at the peer.
    pub(super) fn tx_on_mrw_ack(&mut self, sn_ack: Sn, n: u8) {
        let Some(m) = self.tx.mrw else {
            return;
        };
        let Some(abs) = self.tx.unwrap(sn_ack) else {
            return;
        };
        if abs > m.target || (abs == m.target && n == m.n_length) {
            self.tx.mrw = None;
            for a in self.tx.vt_a..abs {
                self.tx_mark_acked(a);
            }
            self.events.push_back(Event::MrwAcked { sn_ack });
            self.tx_advance();
        }
    }
}
