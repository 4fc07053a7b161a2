//! Receive side: reassembly, advertised window and SACK generation (the
//! delayed-ACK policy is in `delack`).
//!
//! Offsets are 64-bit positions relative to the peer's ISN (offset 0 is the
//! SYN, stream byte 0 is offset 1).

/// How much of the recency list of SACK-able ranges is remembered.
const RECENT_CAP: usize = 8;

/// Result of accepting a data segment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataOutcome {
    /// Segment started beyond `rcv_nxt` (a gap exists): ACK immediately.
    pub out_of_order: bool,
    /// Segment advanced `rcv_nxt` while out-of-order data was queued
    /// (it filled, at least partly, a hole): ACK immediately.
    pub filled_hole: bool,
    /// Nothing new: entirely old or outside the window. ACK immediately.
    pub nothing_new: bool,
}

/// Receive buffer and reassembly queue (RFC 9293 §3.10.7.4).
#[derive(Clone, Debug)]
pub struct RecvBuf {
    capacity: u64,
    /// Next expected offset (RCV.NXT).
    rcv_nxt: u64,
    /// In-order bytes not yet read by the application.
    unread: u64,
    /// Out-of-order data ranges `[start, end)`, sorted, disjoint, non-adjacent.
    ooo: Vec<(u64, u64)>,
    /// Offset of the peer's FIN once seen (possibly out of order).
    fin_at: Option<u64>,
    /// Starts of recently received out-of-order segments, newest first
    /// (RFC 2018 §4 block ordering).
    recent: Vec<u64>,
    /// Total in-order bytes accepted.
    delivered: u64,
}

impl RecvBuf {
    /// `rcv_nxt` is the offset after the SYN (1).
    pub fn new(capacity: u64) -> Self {
        RecvBuf {
            capacity,
            rcv_nxt: 1,
            unread: 0,
            ooo: Vec::new(),
            fin_at: None,
            recent: Vec::new(),
            delivered: 0,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Free buffer space: the window we may offer (RFC 9293 §3.8.6.2.2).
    /// Out-of-order data sits inside this window, so it does not shrink it.
    pub fn window(&self) -> u64 {
        self.capacity - self.unread
    }

    pub fn readable(&self) -> u64 {
        self.unread
    }

    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// The FIN has been received in order (RCV.NXT is past it).
    pub fn fin_done(&self) -> bool {
        self.fin_at.is_some_and(|f| self.rcv_nxt > f)
    }

    /// Consumes up to `max` in-order bytes.
    pub fn read(&mut self, max: u64) -> u64 {
        let n = max.min(self.unread);
        self.unread -= n;
        n
    }

    /// Accepts `[start, start+len)` plus an optional FIN, trimming to the
    /// window `[rcv_nxt, rcv_nxt + window)`. Inlined: once per data segment received.
    #[inline]
    pub fn on_data(&mut self, start: u64, len: u32, fin: bool) -> DataOutcome {
        let mut out = DataOutcome::default();
        let right = self.rcv_nxt + self.window();
        let mut end = start + u64::from(len);
        let fin_ok = fin && end <= right;
        end = end.min(right);
        let begin = start.max(self.rcv_nxt);
        if fin_ok {
            self.fin_at = Some(start + u64::from(len));
        }
        let had_ooo = !self.ooo.is_empty();
        if begin >= end {
            out.nothing_new = !fin_ok || self.fin_done();
            if out.nothing_new {
                return out;
            }
            out.out_of_order = start > self.rcv_nxt;
            self.advance_fin();
            return out;
        }
        if begin > self.rcv_nxt {
            out.out_of_order = true;
            self.insert_ooo(begin, end);
            self.recent.retain(|&s| s != begin);
            self.recent.insert(0, begin);
            self.recent.truncate(RECENT_CAP);
        } else {
            self.accept_in_order(end);
            out.filled_hole = had_ooo;
        }
        self.advance_fin();
        out
    }

    #[inline]
    fn accept_in_order(&mut self, end: u64) {
        let mut new_nxt = end.max(self.rcv_nxt);
        // Pull in queued ranges that are now contiguous.
        while let Some(&(s, e)) = self.ooo.first() {
            if s > new_nxt {
                break;
            }
            new_nxt = new_nxt.max(e);
            self.ooo.remove(0);
        }
        let n = new_nxt - self.rcv_nxt;
        self.unread += n;
        self.delivered += n;
        self.rcv_nxt = new_nxt;
        let nxt = self.rcv_nxt;
        self.recent.retain(|&s| s >= nxt);
    }

    fn advance_fin(&mut self) {
        if self.fin_at == Some(self.rcv_nxt) && self.ooo.is_empty() {
            self.rcv_nxt += 1;
        }
    }

    #[inline]
    fn insert_ooo(&mut self, mut s: u64, mut e: u64) {
        let mut i = 0;
        while i < self.ooo.len() {
            let (a, b) = self.ooo[i];
            if b < s {
                i += 1;
            } else if a > e {
                break;
            } else {
                s = s.min(a);
                e = e.max(b);
                self.ooo.remove(i);
            }
        }
        self.ooo.insert(i, (s, e));
    }

    /// Whether data above `rcv_nxt` is held, the only case with SACK blocks to report.
    #[inline]
    pub fn has_out_of_order(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// SACK blocks (RFC 2018 §4): the block holding the most recently
    /// received segment first, then other recent blocks, as many as `out`
    /// holds. Returns how many were written. Inlined: once per segment sent.
    #[inline]
    pub fn sack_blocks(&self, out: &mut [(u64, u64)]) -> usize {
        let mut n = 0;
        for &s in &self.recent {
            // `ooo` is sorted and disjoint: the candidate starts at or below s.
            let i = self.ooo.partition_point(|&(a, _)| a <= s);
            if let Some(&blk) = i.checked_sub(1).and_then(|i| self.ooo.get(i)) {
                if s < blk.1 && !push_new(out, &mut n, blk) {
                    return n;
                }
            }
        }
        // Ranges no longer in the recency list still deserve reporting.
        for &blk in self.ooo.iter().rev() {
            if !push_new(out, &mut n, blk) {
                break;
            }
        }
        n
    }
}

/// Appends `blk` to the `n` blocks in `out` unless already there; returns
/// whether `out` has room left.
fn push_new(out: &mut [(u64, u64)], n: &mut usize, blk: (u64, u64)) -> bool {
    if *n < out.len() && !out[..*n].contains(&blk) {
        out[*n] = blk;
        *n += 1;
    }
    *n < out.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(r: &RecvBuf) -> Vec<(u64, u64)> {
        let mut out = [(0, 0); 4];
        let n = r.sack_blocks(&mut out);
        out[..n].to_vec()
    }

    #[test]
    fn reassembly_and_sack_order() {
        let mut r = RecvBuf::new(100_000);
        assert!(!r.on_data(1, 100, false).out_of_order);
        assert_eq!(r.rcv_nxt(), 101);
        assert!(r.on_data(201, 100, false).out_of_order);
        assert!(r.on_data(501, 100, false).out_of_order);
        assert!(r.on_data(301, 100, false).out_of_order);
        // Most recent first: [201,401) holds the newest segment, then [501,601).
        assert_eq!(blocks(&r), vec![(201, 401), (501, 601)]);
        let o = r.on_data(101, 100, false);
        assert!(o.filled_hole && !o.out_of_order);
        assert_eq!(r.rcv_nxt(), 401);
        assert_eq!(blocks(&r), vec![(501, 601)]);
        // Duplicate.
        assert!(r.on_data(1, 100, false).nothing_new);
        assert_eq!(r.readable(), 400);
        assert_eq!(r.read(1000), 400);
        assert_eq!(r.delivered(), 400);
    }

    /// RFC 2018 §4: SACK blocks report only data held above `rcv_nxt`; with none held
    /// there is none, which lets a sender skip building them.
    #[test]
    fn blocks_only_while_data_is_held_out_of_order() {
        let mut r = RecvBuf::new(100_000);
        assert!(!r.has_out_of_order());
        assert!(blocks(&r).is_empty());
        r.on_data(201, 100, false);
        assert!(r.has_out_of_order());
        assert_eq!(blocks(&r), vec![(201, 301)]);
        // The hole filled: the recently received segment's start stays below rcv_nxt.
        r.on_data(1, 200, false);
        assert_eq!(r.rcv_nxt(), 301);
        assert!(!r.has_out_of_order());
        assert!(blocks(&r).is_empty());
    }

    #[test]
    fn window_trims_and_fin() {
        let mut r = RecvBuf::new(1000);
        r.on_data(1, 800, false);
        assert_eq!(r.window(), 200);
        r.on_data(801, 500, true); // only 200 fit, FIN dropped
        assert_eq!(r.rcv_nxt(), 1001);
        assert!(!r.fin_done());
        assert_eq!(r.window(), 0);
        r.read(1000);
        r.on_data(1001, 300, true);
        assert!(r.fin_done());
        assert_eq!(r.rcv_nxt(), 1302);
    }
}
