//! Loss marking and retransmission order of the scoreboard: RFC 6675 §4 IsLost() and
//! NextSeg() rule 1, fast retransmit (RFC 5681 §3.2), the RTO's go-back-N (RFC 6298 §5.4)
//! and F-RTO's late marking (RFC 5682).

use super::{mark_lost, update, LossMark, Resend, Scoreboard, SentSeg};
use crate::tcp::RetransmitKind;
use crate::time::SimTime;

impl Scoreboard {
    /// RFC 6675 §4 IsLost(HighACK + 1): the first segment is unSACKed and
    /// has at least `dup_thresh` SACKed segments above it ("discontiguous
    /// SACKed sequences", counted per segment), or more than
    /// `(dup_thresh - 1) * smss` SACKed bytes.
    #[inline(always)]
    pub fn first_is_lost(&self, dup_thresh: u32, smss: u32) -> bool {
        self.segs.front().is_some_and(|s| {
            !s.sacked
                && is_lost(
                    self.counts.sacked_segs,
                    self.counts.sacked_bytes,
                    dup_thresh,
                    smss,
                )
        })
    }

    /// Marks every segment that IsLost() (RFC 6675 §4) and was not
    /// retransmitted yet in this recovery episode (NextSeg rule 1
    /// candidates), resuming where the previous call stopped.
    pub fn mark_lost_rfc6675(&mut self, dup_thresh: u32, smss: u32, kind: RetransmitKind) {
        if self.mark.params != (dup_thresh, smss) {
            self.mark = LossMark {
                params: (dup_thresh, smss),
                ..LossMark::default()
            };
        }
        let m = &mut self.mark;
        while let Some(s) = self.segs.get_mut(m.next) {
            let (above_segs, above_bytes) = if s.sacked {
                (m.sacked_segs + 1, m.sacked_bytes + s.size())
            } else {
                (m.sacked_segs, m.sacked_bytes)
            };
            let above_segs = self.counts.sacked_segs - above_segs;
            let above_bytes = self.counts.sacked_bytes - above_bytes;
            if !is_lost(above_segs, above_bytes, dup_thresh, smss) {
                break;
            }
            if s.sacked {
                m.sacked_segs += 1;
                m.sacked_bytes += s.size();
            } else if !s.retransmitted && s.lost.is_none() {
                mark_lost(
                    &mut self.counts,
                    self.sampled.as_deref_mut(),
                    m.next,
                    s,
                    kind,
                );
                self.lost_hint = self.lost_hint.min(m.next);
            }
            m.next += 1;
        }
    }

    /// Marks the first unacknowledged segment lost (fast retransmit, RFC
    /// 5681 §3.2 step 4; NewReno partial ACK, RFC 6582 §3.2 step 5).
    pub fn mark_first_lost(&mut self, kind: RetransmitKind) {
        if let Some(s) = self.segs.front_mut() {
            if !s.sacked {
                mark_lost(&mut self.counts, self.sampled.as_deref_mut(), 0, s, kind);
                self.lost_hint = 0;
            }
        }
    }

    /// After an RTO everything outstanding is presumed lost (RFC 6298 §5.4,
    /// RFC 6675 §5.1): go-back-N paced by slow start.
    pub fn mark_all_lost(&mut self, kind: RetransmitKind) {
        for (i, s) in self.segs.iter_mut().enumerate() {
            mark_lost(&mut self.counts, self.sampled.as_deref_mut(), i, s, kind);
        }
        self.lost_hint = 0;
    }

    /// Marks lost every segment starting in `[from, to)` that is neither
    /// SACKed nor already marked (conventional RTO recovery taken up late,
    /// after F-RTO, RFC 5682: the window outstanding at the timeout, minus
    /// what F-RTO already resent or the receiver SACKed).
    pub fn mark_lost_range(&mut self, from: u64, to: u64, kind: RetransmitKind) {
        let first = self.segs.partition_point(|s| s.start < from);
        for (i, s) in self.segs.iter_mut().enumerate().skip(first) {
            if s.start >= to {
                break;
            }
            if !s.sacked && s.lost.is_none() {
                mark_lost(&mut self.counts, self.sampled.as_deref_mut(), i, s, kind);
                self.lost_hint = self.lost_hint.min(i);
            }
        }
    }

    /// The window reopened: outstanding probes become ordinary segments
    /// timed by the RTO. Returns whether there were any.
    pub fn end_probing(&mut self) -> bool {
        let mut any = false;
        for s in self.segs.iter_mut().filter(|s| s.probe) {
            s.probe = false;
            any = true;
        }
        any
    }

    /// Whether any segment awaits retransmission.
    #[inline]
    pub fn has_lost(&self) -> bool {
        self.counts.lost_segs > 0
    }

    /// The lowest segment awaiting retransmission (NextSeg rule 1, RFC
    /// 6675 §4).
    #[inline]
    pub fn next_lost(&mut self) -> Option<&SentSeg> {
        let i = self.next_lost_index()?;
        self.segs.get(i)
    }

    /// Takes the lowest segment awaiting retransmission (NextSeg rule 1)
    /// for resending at `now`: it is no longer lost, counts in `pipe`
    /// again, and is marked retransmitted (Karn, RFC 6298 §3).
    pub fn retransmit_next(&mut self, now: SimTime) -> Option<Resend> {
        let i = self.next_lost_index()?;
        let s = &mut self.segs[i];
        let kind = s.lost.unwrap_or(RetransmitKind::Rto);
        update(&mut self.counts, s, |s| {
            s.lost = None;
            s.retransmitted = true;
            s.sent_at = now;
        });
        self.lost_hint = i + 1;
        Some(Resend {
            kind,
            start: s.start,
            len: s.len,
            fin: s.fin,
        })
    }

    /// Queue index of the lowest lost segment, moving the hint up to it.
    #[inline]
    fn next_lost_index(&mut self) -> Option<usize> {
        if self.counts.lost_segs == 0 {
            return None;
        }
        self.find_lost()
    }

    fn find_lost(&mut self) -> Option<usize> {
        let i = self.lost_hint
            + self
                .segs
                .range(self.lost_hint..)
                .position(|s| s.lost.is_some())?;
        self.lost_hint = i;
        Some(i)
    }
}

/// RFC 6675 §4 IsLost() given the SACKed data above a segment.
pub(super) fn is_lost(sacked_segs: u64, sacked_bytes: u64, dup_thresh: u32, smss: u32) -> bool {
    let byte_limit = u64::from(dup_thresh.saturating_sub(1)) * u64::from(smss);
    sacked_segs >= u64::from(dup_thresh) || sacked_bytes > byte_limit
}
