//! Retransmission queue and SACK scoreboard (RFC 6675 §3, §4).
//!
//! Sequence positions are 64-bit offsets from the ISS, so the queue never
//! deals with wrap-around. Segments are kept at the boundaries they were
//! first sent with; a retransmission resends the same range.

use std::collections::VecDeque;

use super::RetransmitKind;
use crate::time::SimTime;

/// One sent, not yet cumulatively acknowledged segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentSeg {
    /// First stream offset.
    pub start: u64,
    /// Payload bytes.
    pub len: u32,
    /// Carries our FIN (occupies one extra sequence number).
    pub fin: bool,
    /// Time of the latest (re)transmission.
    pub sent_at: SimTime,
    /// Ever retransmitted (Karn's algorithm, RFC 6298 §3).
    pub retransmitted: bool,
    /// Covered by a SACK block (RFC 2018).
    pub sacked: bool,
    /// Deemed lost and not yet retransmitted; the reason becomes the kind of
    /// the retransmission.
    pub lost: Option<RetransmitKind>,
    /// A zero-window probe (RFC 9293 §3.8.6.1): timed by the persist timer.
    pub probe: bool,
}

impl SentSeg {
    /// One past the last offset, counting a FIN.
    pub fn end(&self) -> u64 {
        self.start + u64::from(self.len) + u64::from(self.fin)
    }
}

/// What a cumulative ACK removed from the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    pub bytes: u64,
    /// `sent_at` of the newest fully acknowledged segment, when none of the
    /// acknowledged segments was ever retransmitted (Karn).
    pub karn_sample_from: Option<SimTime>,
}

/// The queue of outstanding segments.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
}

impl Scoreboard {
    pub fn push(&mut self, seg: SentSeg) {
        self.segs.push_back(seg);
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub fn first(&self) -> Option<&SentSeg> {
        self.segs.front()
    }

    pub fn iter(&self) -> impl Iterator<Item = &SentSeg> {
        self.segs.iter()
    }

    /// Removes everything below `ack` (trimming a partially acked segment).
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        let mut out = Acked::default();
        let mut any_retx = false;
        while let Some(front) = self.segs.front_mut() {
            if front.end() <= ack {
                out.bytes += front.end() - front.start;
                any_retx |= front.retransmitted;
                out.karn_sample_from = Some(front.sent_at);
                self.segs.pop_front();
            } else {
                if front.start < ack {
                    let cut = ack - front.start;
                    out.bytes += cut;
                    front.start = ack;
                    front.len -= cut as u32;
                }
                break;
            }
        }
        if any_retx {
            out.karn_sample_from = None;
        }
        out
    }

    /// Marks segments entirely inside one of `blocks` as SACKed; returns
    /// the number of newly SACKed bytes (RFC 6675 Update()).
    pub fn apply_sack(&mut self, blocks: &[(u64, u64)]) -> u64 {
        let mut newly = 0;
        for seg in self.segs.iter_mut().filter(|s| !s.sacked) {
            if blocks
                .iter()
                .any(|&(l, r)| l <= seg.start && seg.end() <= r)
            {
                seg.sacked = true;
                seg.lost = None;
                newly += seg.end() - seg.start;
            }
        }
        newly
    }

    /// Forgets all SACK information (RFC 2018 §8 after an RTO).
    pub fn clear_sacks(&mut self) {
        for s in &mut self.segs {
            s.sacked = false;
        }
    }

    /// Bytes not yet cumulatively acknowledged.
    pub fn flight_size(&self) -> u64 {
        match (self.segs.front(), self.segs.back()) {
            (Some(f), Some(b)) => b.end() - f.start,
            _ => 0,
        }
    }

    /// RFC 6675 §4 `pipe`: bytes believed to be in the network. A segment
    /// counts when it is neither SACKed nor deemed lost-and-not-resent;
    /// since only lost segments are retransmitted, a retransmission counts
    /// once.
    pub fn pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| !s.sacked && s.lost.is_none())
            .map(|s| s.end() - s.start)
            .sum()
    }

    /// RFC 6675 §4 IsLost() for every unSACKed segment, computed from the
    /// tail: lost when at least `dup_thresh` SACKed segments lie above it
    /// ("discontiguous SACKed sequences", counted per segment), or more than
    /// `(dup_thresh - 1) * smss` SACKed bytes. Returns one flag per segment.
    pub fn is_lost_flags(&self, dup_thresh: u32, smss: u32) -> Vec<bool> {
        let byte_limit = u64::from(dup_thresh.saturating_sub(1)) * u64::from(smss);
        let mut flags = vec![false; self.segs.len()];
        let (mut count, mut bytes) = (0u32, 0u64);
        for (i, s) in self.segs.iter().enumerate().rev() {
            if s.sacked {
                count += 1;
                bytes += s.end() - s.start;
            } else {
                flags[i] = count >= dup_thresh || bytes > byte_limit;
            }
        }
        flags
    }

    /// Marks every segment that IsLost() and was not retransmitted yet in
    /// this recovery episode (NextSeg rule 1 candidates).
    pub fn mark_lost_rfc6675(&mut self, dup_thresh: u32, smss: u32, kind: RetransmitKind) {
        let flags = self.is_lost_flags(dup_thresh, smss);
        for (s, lost) in self.segs.iter_mut().zip(flags) {
            if lost && !s.retransmitted && s.lost.is_none() {
                s.lost = Some(kind);
            }
        }
    }

    /// Marks the first unacknowledged segment lost (fast retransmit, RFC
    /// 5681 §3.2 step 4; NewReno partial ACK, RFC 6582 §3.2 step 5).
    pub fn mark_first_lost(&mut self, kind: RetransmitKind) {
        if let Some(s) = self.segs.front_mut() {
            if !s.sacked {
                s.lost = Some(kind);
            }
        }
    }

    /// After an RTO everything outstanding is presumed lost (RFC 6298 §5.4,
    /// RFC 6675 §5.1): go-back-N paced by slow start.
    pub fn mark_all_lost(&mut self, kind: RetransmitKind) {
        for s in &mut self.segs {
            s.lost = Some(kind);
        }
    }

    /// Marks lost every segment starting in `[from, to)` that is neither
    /// SACKed nor already marked (conventional RTO recovery taken up late,
    /// after F-RTO, RFC 5682: the window outstanding at the timeout, minus
    /// what F-RTO already resent or the receiver SACKed).
    pub fn mark_lost_range(&mut self, from: u64, to: u64, kind: RetransmitKind) {
        for s in &mut self.segs {
            if s.start >= from && s.start < to && !s.sacked && s.lost.is_none() {
                s.lost = Some(kind);
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

    /// The lowest segment awaiting retransmission (NextSeg rule 1).
    pub fn next_lost(&mut self) -> Option<&mut SentSeg> {
        self.segs.iter_mut().find(|s| s.lost.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64, mss: u32) -> Scoreboard {
        let mut sb = Scoreboard::default();
        for i in 0..n {
            sb.push(SentSeg {
                start: 1 + i * u64::from(mss),
                len: mss,
                fin: false,
                sent_at: SimTime::ZERO,
                retransmitted: false,
                sacked: false,
                lost: None,
                probe: false,
            });
        }
        sb
    }

    /// Worked example: 10 segments of 1000 B (offsets 1..10001); segment 0
    /// and 4 are lost, the receiver SACKs segments 1-3 and 5-9.
    #[test]
    fn rfc6675_pipe_and_is_lost_example() {
        let mut sb = board(10, 1000);
        assert_eq!(sb.pipe(), 10_000);
        // First dup ACK: SACK seg 1 -> pipe 9000, seg 0 not lost yet.
        assert_eq!(sb.apply_sack(&[(1001, 2001)]), 1000);
        assert_eq!(sb.pipe(), 9000);
        assert!(!sb.is_lost_flags(3, 1000)[0]);
        // Second: segs 1-2 SACKed: 2 segments, 2000 B = (3-1)*1000, not more.
        sb.apply_sack(&[(1001, 3001)]);
        assert!(!sb.is_lost_flags(3, 1000)[0]);
        // Third: segs 1-3 SACKed -> IsLost(seg 0).
        sb.apply_sack(&[(1001, 4001)]);
        let lost = sb.is_lost_flags(3, 1000);
        assert_eq!(
            lost,
            vec![true, false, false, false, false, false, false, false, false, false]
        );
        sb.mark_lost_rfc6675(3, 1000, RetransmitKind::Fast);
        // pipe: 10 segs - 3 SACKed - 1 lost = 6 segs.
        assert_eq!(sb.pipe(), 6000);
        // Later SACKs cover 5-9; seg 4 now has 5 SACKed segments above it.
        sb.apply_sack(&[(5001, 10001), (1001, 4001)]);
        sb.mark_lost_rfc6675(3, 1000, RetransmitKind::SackRecovery);
        let lost: Vec<_> = sb.iter().map(|s| s.lost).collect();
        assert_eq!(lost[0], Some(RetransmitKind::Fast));
        assert_eq!(lost[4], Some(RetransmitKind::SackRecovery));
        assert_eq!(sb.pipe(), 0);
        // Retransmitting seg 0 puts it back in the pipe.
        let s = sb.next_lost().unwrap();
        assert_eq!(s.start, 1);
        s.lost = None;
        s.retransmitted = true;
        assert_eq!(sb.pipe(), 1000);
        assert_eq!(sb.next_lost().unwrap().start, 4001);
        // Cumulative ACK of seg 0..3 (retransmitted inside): no Karn sample.
        let acked = sb.ack_to(4001);
        assert_eq!(acked.bytes, 4000);
        assert_eq!(acked.karn_sample_from, None);
        assert_eq!(sb.flight_size(), 6000);
    }

    #[test]
    fn mark_lost_range_skips_sacked_and_outside() {
        let mut sb = board(6, 1000);
        sb.apply_sack(&[(3001, 4001)]);
        // Segments 1..5 (offsets 1001..5001) minus the SACKed segment 3.
        sb.mark_lost_range(1001, 5001, RetransmitKind::Rto);
        let lost: Vec<bool> = sb.iter().map(|s| s.lost.is_some()).collect();
        assert_eq!(lost, vec![false, true, true, false, true, false]);
        // pipe: segments 0 and 5 only.
        assert_eq!(sb.pipe(), 2000);
    }

    #[test]
    fn partial_ack_trims() {
        let mut sb = board(2, 1000);
        let a = sb.ack_to(501);
        assert_eq!(a.bytes, 500);
        assert_eq!(a.karn_sample_from, None);
        assert_eq!(sb.first().unwrap().start, 501);
        assert_eq!(sb.flight_size(), 1500);
        let a = sb.ack_to(2001);
        assert_eq!(a.karn_sample_from, Some(SimTime::ZERO));
        assert!(sb.is_empty());
    }
}
