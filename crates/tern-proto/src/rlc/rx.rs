//! Receiving side: AMD PDU reception and in-order reassembly (TS 25.322
//! §11.3.3), STATUS reports (§9.7.2, §11.5) and the receiver's part of the
//! MRW procedure (§11.6).
//!
//! PDUs are held from VR(R) up to VR(H); an SDU is handed to the upper
//! layer only once every PDU up to the one that ends it has arrived, in SN
//! order. Reassembly follows the length indicators, as a real receiver
//! would; the SDU id is read from the data chunk holding the SDU's first
//! octet, so a wrong LI would show as a wrong length.

use std::collections::VecDeque;

use super::pdu::{AmdPdu, Li, Sn, Sufi, SN_MODULUS};
use super::{RlcAm, Sdu};
use crate::time::SimTime;

/// Largest bitmap of one BITMAP SUFI (LENGTH = 15: 16 octets).
const MAX_BITMAP_BITS: u64 = 128;
/// Pairs in one LIST SUFI (LENGTH is 4 bits, 0 invalid).
const MAX_LIST_PAIRS: usize = 15;
/// PDUs one LIST pair can name: SN_i and L_i ≤ 15 more.
const MAX_PAIR_RUN: u64 = 16;

#[derive(Debug, Default)]
pub(super) struct RxState {
    /// VR(R): first PDU not received in sequence; `buf[0]` is this PDU.
    pub vr_r: u64,
    /// VR(H): one past the highest SN received.
    pub vr_h: u64,
    /// PDUs VR(R)..VR(H); `None` = missing.
    pub buf: VecDeque<Option<AmdPdu>>,
    /// SDU being reassembled: id of its first octet, octets so far.
    pub partial: Option<Sdu>,
    /// After an MRW with N_LENGTH > 0: in PDU `.0`, drop the SDUs ending at
    /// its first `.1` LIs.
    pub skip: Option<(u64, u8)>,
    /// Last MRW applied (SN_MRW, N_LENGTH), to ignore its repetitions.
    pub last_mrw: Option<(u64, u8)>,
    /// A STATUS report has been triggered and not yet sent.
    pub status_pending: bool,
    /// Timer_Status_Prohibit.
    pub prohibit_until: Option<SimTime>,
    /// MRW_ACK to send: (SN_ACK, N).
    pub mrw_ack: Option<(Sn, u8)>,
}

impl RxState {
    pub fn prohibited(&self, now: SimTime) -> bool {
        self.prohibit_until.is_some_and(|d| now < d)
    }

    fn missing(&self, abs: u64) -> bool {
        self.buf
            .get((abs - self.vr_r) as usize)
            .is_some_and(|p| p.is_none())
    }

    /// Missing PDUs in VR(R)..VR(H) as runs (first SN, length).
    fn missing_runs(&self) -> Vec<(u64, u64)> {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        for (i, p) in self.buf.iter().enumerate() {
            if p.is_some() {
                continue;
            }
            let abs = self.vr_r + i as u64;
            match runs.last_mut() {
                Some((start, len)) if *start + *len == abs => *len += 1,
                _ => runs.push((abs, 1)),
            }
        }
        runs
    }
}

/// A candidate report: SUFIs, their bits, and the first missing PDU left
/// out (`None` when all are reported).
struct Encoding {
    sufis: Vec<Sufi>,
    bits: u32,
    cut_at: Option<u64>,
    nacked: u32,
}

/// LIST SUFIs for `runs` within `budget` bits: each run split into pairs
/// of at most 16 PDUs, at most 15 pairs per SUFI.
fn encode_list(runs: &[(u64, u64)], budget: u32) -> Encoding {
    let mut enc = Encoding {
        sufis: Vec::new(),
        bits: 0,
        cut_at: None,
        nacked: 0,
    };
    let mut pairs: Vec<(Sn, u8)> = Vec::new();
    'runs: for &(start, len) in runs {
        let mut sn = start;
        let mut left = len;
        while left > 0 {
            let k = left.min(MAX_PAIR_RUN);
            let cost = if pairs.is_empty() { 8 + 16 } else { 16 };
            if enc.bits + cost > budget {
                enc.cut_at = Some(sn);
                break 'runs;
            }
            pairs.push((Sn::new(sn), (k - 1) as u8));
            enc.bits += cost;
            enc.nacked += k as u32;
            if pairs.len() == MAX_LIST_PAIRS {
                enc.sufis.push(Sufi::List(std::mem::take(&mut pairs)));
            }
            sn += k;
            left -= k;
        }
    }
    if !pairs.is_empty() {
        enc.sufis.push(Sufi::List(pairs));
    }
    enc
}

impl RxState {
    /// BITMAP SUFIs within `budget` bits. Each covers the next missing PDU
    /// and the missing PDUs within 128 SNs after it, in whole octets (up to
    /// 16). Every bit describes a PDU in VR(R)..VR(H), so a bitmap that
    /// would run past VR(H) - 1 is moved back (it may then repeat SNs of
    /// the previous bitmap, consistently).
    fn encode_bitmap(&self, runs: &[(u64, u64)], budget: u32) -> Encoding {
        let mut enc = Encoding {
            sufis: Vec::new(),
            bits: 0,
            cut_at: None,
            nacked: 0,
        };
        let missing: Vec<u64> = runs.iter().flat_map(|&(s, l)| s..s + l).collect();
        let mut i = 0;
        while i < missing.len() {
            let first = missing[i];
            let last = missing[i..]
                .iter()
                .take_while(|&&m| m < first + MAX_BITMAP_BITS)
                .last()
                .copied()
                .unwrap_or(first);
            let wanted = (last - first) / 8 + 1;
            let fit_budget = u64::from(budget.saturating_sub(enc.bits + 20) / 8);
            let mut octets = wanted.min(fit_budget);
            let mut fsn = first;
            if fsn + octets * 8 > self.vr_h {
                fsn = self.vr_h.saturating_sub(octets * 8).max(self.vr_r);
                octets = octets.min((self.vr_h - fsn) / 8);
            }
            // A budget cut shows here on the next round (octets = 0).
            if octets == 0 {
                enc.cut_at = Some(first);
                break;
            }
            let end = fsn + octets * 8;
            let bits: Vec<bool> = (fsn..end).map(|a| !self.missing(a)).collect();
            let fresh = missing[i..].iter().take_while(|&&m| m < end).count();
            enc.nacked += fresh as u32;
            enc.bits += 20 + octets as u32 * 8;
            enc.sufis.push(Sufi::Bitmap {
                fsn: Sn::new(fsn),
                bits,
            });
            // fsn ≤ first < end: every bitmap reports at least one new SN.
            debug_assert!(fresh > 0);
            i += fresh;
        }
        enc
    }
}

impl RlcAm {
    /// Reception of an AMD PDU (§11.3.3): outside VR(R)..VR(MR) or already
    /// held → discarded; otherwise stored, VR(H) updated, and complete SDUs
    /// delivered in order. A STATUS report is triggered by the poll bit
    /// (even on a discarded PDU) and, with "Missing PDU Indicator", by an
    /// SN above VR(H) (a new gap).
    pub(super) fn rx_on_data(&mut self, pdu: &AmdPdu) {
        self.stats.data_pdus_received += 1;
        let rx = &mut self.rx;
        let off = u64::from(pdu.sn.offset_from(Sn::new(rx.vr_r)));
        if off >= u64::from(self.cfg.rx_window) {
            self.stats.pdus_outside_window += 1;
            rx.status_pending |= pdu.poll;
            return;
        }
        let idx = off as usize;
        if rx.buf.get(idx).is_some_and(|p| p.is_some()) {
            self.stats.duplicate_pdus += 1;
            rx.status_pending |= pdu.poll;
            return;
        }
        let abs = rx.vr_r + off;
        if abs > rx.vr_h && self.cfg.missing_pdu_indicator {
            rx.status_pending = true;
        }
        while rx.buf.len() <= idx {
            rx.buf.push_back(None);
        }
        rx.buf[idx] = Some(pdu.clone());
        rx.vr_h = rx.vr_h.max(abs + 1);
        rx.status_pending |= pdu.poll;
        self.rx_deliver_in_order();
    }

    /// Reassembles PDUs from VR(R) while they are present, moving VR(R).
    fn rx_deliver_in_order(&mut self) {
        while matches!(self.rx.buf.front(), Some(Some(_))) {
            let pdu = self.rx.buf.pop_front().flatten().expect("checked above");
            let abs = self.rx.vr_r;
            self.rx_reassemble(abs, &pdu);
            self.rx.vr_r += 1;
        }
    }

    /// Walks the LIs of one PDU (§9.2.2.8): LI = 0 ends the SDU in progress
    /// (it filled the previous PDU); an LI value ends the SDU at that data
    /// offset; the padding LI ends the data; data after the last LI starts
    /// or continues an SDU; HE = 2 ends the SDU at the end of the PDU.
    fn rx_reassemble(&mut self, abs: u64, pdu: &AmdPdu) {
        let mut skip = match self.rx.skip {
            Some((t, n)) if t == abs => {
                self.rx.skip = None;
                n
            }
            _ => 0,
        };
        let area = pdu.data_area();
        let mut pos = 0;
        let mut padded = false;
        for li in &pdu.lis {
            match *li {
                Li::PreviousPduEnded => self.rx_end_sdu(&mut skip),
                Li::End(v) => {
                    let v = u32::from(v).min(area);
                    self.rx_append(pdu, pos, v);
                    pos = v;
                    self.rx_end_sdu(&mut skip);
                }
                Li::Padding => {
                    padded = true;
                    break;
                }
            }
        }
        if !padded {
            self.rx_append(pdu, pos, area);
        }
        if pdu.sdu_ends_at_pdu_end {
            self.rx_end_sdu(&mut skip);
        }
    }

    fn rx_append(&mut self, pdu: &AmdPdu, from: u32, to: u32) {
        if to <= from {
            return;
        }
        match self.rx.partial.as_mut() {
            Some(s) => s.len += to - from,
            None => {
                let id = pdu.sdu_at(from);
                debug_assert!(id.is_some(), "data octet without a chunk");
                self.rx.partial = Some(Sdu {
                    id: id.unwrap_or(u64::MAX),
                    len: to - from,
                });
            }
        }
    }

    /// The SDU in progress ends: deliver it, or drop it while an MRW's
    /// N_LENGTH still counts LIs.
    fn rx_end_sdu(&mut self, skip: &mut u8) {
        let sdu = self.rx.partial.take();
        if *skip > 0 {
            *skip -= 1;
            if sdu.is_some() {
                self.stats.fragments_dropped_by_mrw += 1;
            }
        } else if let Some(s) = sdu {
            self.stats.sdus_delivered += 1;
            self.stats.sdu_bytes_delivered += u64::from(s.len);
            self.delivered.push_back(s);
        }
    }

    /// Reception of an MRW SUFI (§11.6): if SN_MRW is ahead of VR(R) (or
    /// equal and not yet applied), drop the PDUs below it and the SDU in
    /// progress, set VR(R) = SN_MRW, skip the first N_LENGTH SDU ends of PDU
    /// SN_MRW, and resume in-order delivery. Every MRW is answered by an
    /// MRW_ACK with SN_ACK = VR(R) and N = N_LENGTH if VR(R) = SN_MRW.
    pub(super) fn rx_on_mrw(&mut self, sn_mrw: Sn, n_length: u8) {
        let off = u64::from(sn_mrw.offset_from(Sn::new(self.rx.vr_r)));
        let ahead = off < u64::from(SN_MODULUS / 2);
        let repeat = off == 0 && self.rx.last_mrw == Some((self.rx.vr_r, n_length));
        if ahead && !repeat {
            let target = self.rx.vr_r + off;
            let drop = (off as usize).min(self.rx.buf.len());
            self.rx.buf.drain(..drop);
            if self.rx.partial.take().is_some() {
                self.stats.fragments_dropped_by_mrw += 1;
            }
            self.rx.vr_r = target;
            self.rx.vr_h = self.rx.vr_h.max(target);
            self.rx.skip = (n_length > 0).then_some((target, n_length));
            self.rx.last_mrw = Some((target, n_length));
            self.rx_deliver_in_order();
        }
        let vr_r = Sn::new(self.rx.vr_r);
        let n = if vr_r == sn_mrw { n_length } else { 0 };
        self.rx.mrw_ack = Some((vr_r, n));
    }

    /// The SUFIs of a STATUS report within `budget` bits (ACK excluded),
    /// the LSN for the ACK SUFI and the number of PDUs reported missing.
    ///
    /// LIST and BITMAP encodings are both built; the one reporting more
    /// missing PDUs wins, then the shorter, then LIST. LSN = VR(H) when
    /// everything fits, else the first missing SN left out, so nothing
    /// unreported is acknowledged.
    pub(super) fn rx_report(&self, budget: u32) -> (Vec<Sufi>, Sn, u32) {
        let runs = self.rx.missing_runs();
        let list = encode_list(&runs, budget);
        let bitmap = self.rx.encode_bitmap(&runs, budget);
        let reach = |e: &Encoding| e.cut_at.unwrap_or(u64::MAX);
        let best = if (reach(&bitmap), std::cmp::Reverse(bitmap.bits))
            > (reach(&list), std::cmp::Reverse(list.bits))
        {
            bitmap
        } else {
            list
        };
        let lsn = best.cut_at.unwrap_or(self.rx.vr_h);
        (best.sufis, Sn::new(lsn), best.nacked)
    }
}
