//! Transmitting side: segmentation and concatenation (TS 25.322 §11.3.2),
//! polling (§9.7.1, with Timer_Poll and Timer_Poll_Prohibit of §9.5 a-b),
//! and selective-repeat retransmission on STATUS reports (§11.5). SDU
//! discard after MaxDAT with explicit signalling (§9.7.3, §11.6), which
//! scheduling a retransmission may start, is in `discard`.
//!
//! Sequence numbers are kept internally as unbounded `u64` counts of PDUs
//! (`abs`); the 12-bit SN on the wire is `abs mod 4096`. Received SNs are
//! unwrapped relative to VT(A), which is unambiguous because the window is
//! less than half the SN space.

use std::collections::{BTreeSet, VecDeque};

use super::pdu::{AmdPdu, Chunk, Li, Sn};
use super::{Event, RlcAm};
use crate::time::SimTime;

/// State of a sent AMD PDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PduState {
    /// Waiting for an acknowledgement.
    Outstanding,
    Acked,
    /// Holds only discarded SDUs; never sent again, waits for the MRW_ACK
    /// (or an ACK) to leave the window.
    Discarded,
}

#[derive(Clone, Debug)]
pub(super) struct TxPdu {
    /// The PDU as first built (poll bit cleared).
    pub pdu: AmdPdu,
    /// VT(DAT) (§9.4): times this PDU has been scheduled for transmission.
    pub vt_dat: u32,
    pub state: PduState,
}

/// Where the end of an SDU is signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SduEnd {
    /// By LI number `index` (1-based) of PDU `pdu`.
    Li { pdu: u64, index: u8 },
    /// By HE = 2 at the end of PDU `pdu`.
    PduEnd { pdu: u64 },
    /// It filled the last PDU exactly; the LI = 0 opening the next PDU is
    /// still to be sent.
    Li0Pending,
}

#[derive(Clone, Debug)]
pub(super) struct TxSdu {
    /// Position in the SDU stream (consecutive, never reused).
    pub seq: u64,
    pub id: u64,
    pub len: u32,
    /// Octets already placed in PDUs.
    pub segmented: u32,
    pub first_pdu: Option<u64>,
    /// Last PDU holding its data or its end LI.
    pub last_pdu: u64,
    pub end: Option<SduEnd>,
    pub discarded: bool,
}

impl TxSdu {
    /// Nothing more of it will be sent.
    fn finished(&self) -> bool {
        self.discarded || matches!(self.end, Some(SduEnd::Li { .. } | SduEnd::PduEnd { .. }))
    }
}

/// An ongoing SDU discard with explicit signalling (§11.6).
#[derive(Clone, Copy, Debug)]
pub(super) struct MrwState {
    /// SN_MRW_LENGTH as an absolute PDU number.
    pub target: u64,
    pub n_length: u8,
    /// The MRW SUFI is due for (re)transmission.
    pub send: bool,
    /// Timer_MRW, running while the MRW waits for its MRW_ACK.
    pub deadline: Option<SimTime>,
}

#[derive(Debug, Default)]
pub(super) struct TxState {
    /// VT(S): next new PDU.
    pub vt_s: u64,
    /// VT(A): first PDU not acknowledged; `pdus[0]` is this PDU.
    pub vt_a: u64,
    pub pdus: VecDeque<TxPdu>,
    /// PDUs scheduled for retransmission.
    pub retx: BTreeSet<u64>,
    /// SDUs not yet acknowledged, oldest first; `sdus[i].seq` = front + i.
    pub sdus: VecDeque<TxSdu>,
    /// `seq` of the next SDU pushed.
    pub next_seq: u64,
    /// `seq` of the first SDU with octets not yet placed in a PDU.
    pub seg_seq: u64,
    /// SDU whose LI = 0 must open the next new PDU.
    pub li0_owner: Option<u64>,
    /// VT(PDU) (§9.4): PDUs sent since the last Poll_PDU poll.
    pub vt_pdu: u32,
    /// VT(SDU) (§9.4): SDUs whose last segment was sent since the last
    /// Poll_SDU poll.
    pub vt_sdu: u32,
    /// A poll is due on the next PDU sent (once Timer_Poll_Prohibit allows).
    pub poll_pending: bool,
    /// Timer_Poll_Prohibit (§9.5 b): no poll is sent before this time.
    pub poll_prohibit_until: Option<SimTime>,
    /// Timer_Poll.
    pub poll_deadline: Option<SimTime>,
    /// VT(S) when the last poll was sent: Timer_Poll stops once every PDU
    /// below it is acknowledged or negatively acknowledged.
    pub poll_sn: u64,
    pub mrw: Option<MrwState>,
    pub buffered_bytes: u64,
    pub buffered_sdus: u64,
    pub unsent_bytes: u64,
}

impl TxState {
    pub(super) fn sdu_mut(&mut self, seq: u64) -> Option<&mut TxSdu> {
        let front = self.sdus.front()?.seq;
        self.sdus.get_mut(seq.checked_sub(front)? as usize)
    }

    pub(super) fn pdu_mut(&mut self, abs: u64) -> Option<&mut TxPdu> {
        self.pdus.get_mut(abs.checked_sub(self.vt_a)? as usize)
    }

    /// Unwraps a received SN against VT(A); `None` if it is not in
    /// VT(A)..=VT(S).
    pub(super) fn unwrap(&self, sn: Sn) -> Option<u64> {
        let abs = self.vt_a + u64::from(sn.offset_from(Sn::new(self.vt_a)));
        (abs <= self.vt_s).then_some(abs)
    }

    fn has_new_data(&self) -> bool {
        self.unsent_bytes > 0 || self.li0_owner.is_some()
    }
}

impl RlcAm {
    pub(super) fn tx_push(&mut self, id: u64, len: u32) {
        let tx = &mut self.tx;
        tx.sdus.push_back(TxSdu {
            seq: tx.next_seq,
            id,
            len,
            segmented: 0,
            first_pdu: None,
            last_pdu: 0,
            end: None,
            discarded: false,
        });
        tx.next_seq += 1;
        tx.buffered_bytes += u64::from(len);
        tx.buffered_sdus += 1;
        tx.unsent_bytes += u64::from(len);
    }

    /// New data waits and VT(S) < VT(MS).
    pub(super) fn tx_new_pdu_allowed(&self) -> bool {
        self.tx.has_new_data() && self.tx.vt_s < self.tx.vt_a + u64::from(self.cfg.tx_window)
    }

    pub(super) fn tx_has_live_outstanding(&self) -> bool {
        self.tx
            .pdus
            .iter()
            .any(|p| p.state == PduState::Outstanding)
    }

    /// Builds PDU VT(S) from the head of the SDU queue (§11.3.2, LI rules
    /// of §9.2.2.8): an LI = 0 first if the previous PDU was exactly filled;
    /// then SDU data, each SDU that ends here followed by an LI giving its
    /// end; an SDU that exactly fills the rest ends without LI (HE = 2 if
    /// configured and there is no LI, else LI = 0 in the next PDU); room
    /// left when the queue runs dry becomes a padding LI and padding.
    /// Also returns how many SDUs end in this PDU: whose end it signals (an
    /// LI, LI = 0 or HE = 2), so that the receiver can deliver them with it.
    fn tx_build(&mut self) -> (AmdPdu, u32) {
        let abs = self.tx.vt_s;
        let mut space = self.cfg.payload_size();
        let mut lis = Vec::new();
        let mut data = Vec::new();
        let mut pos = 0u32;
        let mut special = false;
        let mut ended = 0;
        if let Some(owner) = self.tx.li0_owner.take() {
            ended += 1;
            lis.push(Li::PreviousPduEnded);
            space -= 1;
            // The owner may already be gone if it was discarded.
            if let Some(s) = self.tx.sdu_mut(owner) {
                s.end = Some(SduEnd::Li { pdu: abs, index: 1 });
                s.last_pdu = abs;
            }
        }
        let special_he = self.cfg.special_he;
        while space > 0 && self.tx.seg_seq < self.tx.next_seq {
            let seq = self.tx.seg_seq;
            let n_lis = lis.len();
            let s = self.tx.sdu_mut(seq).expect("SDU being segmented is queued");
            let rest = s.len - s.segmented;
            s.first_pdu.get_or_insert(abs);
            s.last_pdu = abs;
            let take = rest.min(space);
            data.push(Chunk {
                sdu: s.id,
                len: take,
            });
            s.segmented += take;
            pos += take;
            let mut li0 = false;
            if rest < space {
                // Ends here with room for its LI.
                lis.push(Li::End(pos as u8));
                s.end = Some(SduEnd::Li {
                    pdu: abs,
                    index: lis.len() as u8,
                });
                space -= rest + 1;
            } else if rest == space {
                // Exactly fills the PDU: no room for an LI.
                if special_he && n_lis == 0 {
                    special = true;
                    s.end = Some(SduEnd::PduEnd { pdu: abs });
                } else {
                    s.end = Some(SduEnd::Li0Pending);
                    li0 = true;
                }
                space = 0;
            } else {
                space = 0;
            }
            let done = s.segmented == s.len;
            self.tx.unsent_bytes -= u64::from(take);
            if done {
                self.tx.seg_seq += 1;
                ended += u32::from(!li0);
            }
            if li0 {
                self.tx.li0_owner = Some(seq);
            }
        }
        if space > 0 {
            lis.push(Li::Padding);
        }
        self.tx.vt_s += 1;
        let pdu = AmdPdu {
            sn: Sn::new(abs),
            poll: false,
            sdu_ends_at_pdu_end: special,
            lis,
            data,
            size: self.cfg.pdu_size,
        };
        debug_assert!(pdu.header_len() + pdu.data_len() <= pdu.size);
        (pdu, ended)
    }

    /// Sends PDU VT(S) for the first time, with a poll if it is the last PDU
    /// in the buffer, if it ends the Poll_SDU-th SDU (VT(SDU), §9.6 c; an
    /// SDU that exactly fills a PDU ends with the LI = 0 of the next), or if the window is at least Poll_Window % full
    /// (§9.6 d, J computed with VT(S) before the PDU is submitted, §9.7.1).
    pub(super) fn tx_next_new(&mut self, now: SimTime) -> AmdPdu {
        let (mut pdu, ended) = self.tx_build();
        let window = u64::from(self.cfg.tx_window);
        let used = self.tx.vt_s - self.tx.vt_a;
        let mut poll = self.cfg.poll_last_transmission && !self.tx.has_new_data();
        if let Some(pw) = self.cfg.poll_window {
            poll |= used * 100 >= u64::from(pw) * window;
        }
        if let Some(n) = self.cfg.poll_sdu {
            self.tx.vt_sdu += ended;
            if self.tx.vt_sdu >= n {
                poll = true;
                self.tx.vt_sdu = 0;
            }
        }
        // Safeguard: the PDU that closes the window always polls.
        poll |= used >= window;
        self.stats.data_pdus_sent += 1;
        self.stats.padding_bytes_sent += u64::from(pdu.padding_len());
        self.tx.pdus.push_back(TxPdu {
            pdu: pdu.clone(),
            vt_dat: 1,
            state: PduState::Outstanding,
        });
        self.tx_finish(now, &mut pdu, poll);
        pdu
    }

    /// Lowest-SN PDU scheduled for retransmission, polling if it is the
    /// last one ("last retransmission PDU poll").
    pub(super) fn tx_next_retransmission(&mut self, now: SimTime) -> Option<AmdPdu> {
        let abs = self.tx.retx.pop_first()?;
        let last = self.tx.retx.is_empty();
        let p = self
            .tx
            .pdu_mut(abs)
            .expect("scheduled PDU is in the window");
        debug_assert_eq!(p.state, PduState::Outstanding);
        let mut pdu = p.pdu.clone();
        let transmission = p.vt_dat;
        self.stats.pdus_retransmitted += 1;
        self.events.push_back(Event::Retransmit {
            sn: pdu.sn,
            transmission,
        });
        let poll = self.cfg.poll_last_retransmission && last;
        self.tx_finish(now, &mut pdu, poll);
        Some(pdu)
    }

    /// Common to every AMD PDU sent: Poll_PDU counting (VT(PDU)), a pending
    /// poll, Timer_Poll (§9.5 a) started with VT(S) recorded, and
    /// Timer_Poll_Prohibit (§9.5 b): a poll triggered while it runs is kept
    /// pending and sent, once, on the first PDU after it expires (§9.7.1).
    fn tx_finish(&mut self, now: SimTime, pdu: &mut AmdPdu, mut poll: bool) {
        self.tx.vt_pdu += 1;
        if let Some(n) = self.cfg.poll_pdu {
            if self.tx.vt_pdu >= n {
                poll = true;
                self.tx.vt_pdu = 0;
            }
        }
        poll |= self.tx.poll_pending;
        if poll && self.tx_poll_prohibited(now) {
            self.tx.poll_pending = true;
            poll = false;
        }
        pdu.poll = poll;
        if poll {
            self.tx.poll_pending = false;
            self.tx.poll_sn = self.tx.vt_s;
            self.tx.poll_deadline = self.cfg.timer_poll.map(|t| now + t);
            self.tx.poll_prohibit_until = self.cfg.timer_poll_prohibit.map(|t| now + t);
            self.stats.polls_sent += 1;
        }
    }

    /// Timer_Poll_Prohibit is running (§9.5 b).
    pub(super) fn tx_poll_prohibited(&self, now: SimTime) -> bool {
        self.tx.poll_prohibit_until.is_some_and(|d| now < d)
    }

    /// A pending poll may be sent now (it waits for no Timer_Poll_Prohibit).
    pub(super) fn tx_poll_sendable(&self, now: SimTime) -> bool {
        self.tx.poll_pending && !self.tx_poll_prohibited(now)
    }

    /// A poll is due but nothing is scheduled: schedule the highest
    /// unacknowledged PDU for retransmission to carry it (§9.7.1). Returns
    /// false, clearing the poll, when no PDU is left to carry it.
    pub(super) fn tx_schedule_poll_carrier(&mut self) -> bool {
        loop {
            let vt_a = self.tx.vt_a;
            let carrier = self
                .tx
                .pdus
                .iter()
                .rposition(|p| p.state == PduState::Outstanding)
                .map(|i| vt_a + i as u64);
            match carrier {
                None => {
                    self.tx.poll_pending = false;
                    return false;
                }
                Some(abs) => {
                    if self.tx_schedule_retransmission(abs) {
                        return true;
                    }
                    // MaxDAT reached: the PDU was discarded; try another.
                }
            }
        }
    }

    /// Schedules `abs` for retransmission, counting VT(DAT); when VT(DAT)
    /// reaches MaxDAT the SDU discard procedure runs instead (§9.6 a).
    /// Returns whether the PDU was scheduled.
    fn tx_schedule_retransmission(&mut self, abs: u64) -> bool {
        let max_dat = self.cfg.max_dat;
        if self.tx.retx.contains(&abs) {
            return false;
        }
        let Some(p) = self.tx.pdu_mut(abs) else {
            return false;
        };
        if p.state != PduState::Outstanding {
            return false;
        }
        p.vt_dat += 1;
        if p.vt_dat >= max_dat {
            self.tx_discard(abs);
            return false;
        }
        self.tx.retx.insert(abs);
        true
    }

    /// A STATUS report (§11.5, ACK/LIST/BITMAP SUFIs): NACKed PDUs are
    /// scheduled for retransmission, every other PDU below LSN is
    /// acknowledged, and VT(A) moves to the first unacknowledged PDU. A
    /// report naming an SN outside VT(A)..VT(S) is ignored (§10.1).
    pub(super) fn tx_on_report(&mut self, nacks: &[Sn], lsn: Option<Sn>) {
        let mut missing = Vec::with_capacity(nacks.len());
        for &sn in nacks {
            match self.tx.unwrap(sn) {
                Some(abs) if abs < self.tx.vt_s => missing.push(abs),
                _ => {
                    self.stats.erroneous_status += 1;
                    return;
                }
            }
        }
        let lsn = match lsn.map(|l| self.tx.unwrap(l)) {
            Some(Some(abs)) => abs,
            Some(None) => {
                self.stats.erroneous_status += 1;
                return;
            }
            None => self.tx.vt_a,
        };
        missing.sort_unstable();
        missing.dedup();
        for abs in self.tx.vt_a..lsn {
            if missing.binary_search(&abs).is_err() {
                self.tx_mark_acked(abs);
            }
        }
        for &abs in &missing {
            self.tx_schedule_retransmission(abs);
        }
        // Timer_Poll stops once the poll's PDUs are all reported (§9.5 a).
        if lsn >= self.tx.poll_sn {
            self.tx.poll_deadline = None;
        }
        self.tx_advance();
    }

    pub(super) fn tx_mark_acked(&mut self, abs: u64) {
        if let Some(p) = self.tx.pdu_mut(abs) {
            p.state = PduState::Acked;
            self.tx.retx.remove(&abs);
        }
    }

    /// Moves VT(A) over acknowledged PDUs and releases the SDUs whose last
    /// PDU is now below VT(A).
    pub(super) fn tx_advance(&mut self) {
        while self
            .tx
            .pdus
            .front()
            .is_some_and(|p| p.state == PduState::Acked)
        {
            self.tx.pdus.pop_front();
            self.tx.vt_a += 1;
        }
        while let Some(s) = self.tx.sdus.front() {
            if !(s.finished() && s.last_pdu < self.tx.vt_a) {
                break;
            }
            if !s.discarded {
                self.tx.buffered_bytes -= u64::from(s.len);
                self.tx.buffered_sdus -= 1;
            }
            self.tx.sdus.pop_front();
        }
        if self.tx.vt_a >= self.tx.poll_sn {
            self.tx.poll_deadline = None;
        }
    }

    /// Timer_Poll (§9.5 a), Timer_Poll_Prohibit (§9.5 b) and Timer_MRW
    /// expiries.
    pub(super) fn tx_on_timeout(&mut self, now: SimTime) {
        if self.tx.poll_prohibit_until.is_some_and(|d| d <= now) {
            self.tx.poll_prohibit_until = None;
        }
        if self.tx.poll_deadline.is_some_and(|d| d <= now) {
            self.tx.poll_deadline = None;
            self.tx.poll_pending = true;
            self.stats.poll_timer_expiries += 1;
            self.events.push_back(Event::PollTimerExpired);
        }
        if let Some(m) = self.tx.mrw.as_mut() {
            if m.deadline.is_some_and(|d| d <= now) {
                m.deadline = None;
                m.send = true;
            }
        }
    }
}
