//! Retransmission queue and SACK scoreboard (RFC 6675 §3, §4).
//!
//! Sequence positions are 64-bit offsets from the ISS, so the queue never deals with
//! wrap-around. Segments are kept at the boundaries they were first sent with; a
//! retransmission resends the same range. Per-packet work does not grow with the window (as
//! Linux keeps `packets_out`, `sacked_out`, `lost_out` and `retrans_out`):
//!
//! * `pipe` (RFC 6675 §4) and the SACKed segment and byte totals are
//!   counts, updated whenever a segment changes state ([`Counts`]);
//! * IsLost() (RFC 6675 §4) only holds for a prefix of the queue (the
//!   SACKed data above a segment shrinks as the segment moves up), and a
//!   segment once below that boundary stays there until SACK information
//!   is discarded (RFC 2018 §8), so marking resumes where it stopped;
//! * NextSeg() rule 1 (RFC 6675 §4) resumes its search for the lowest lost
//!   segment at a hint below which none is marked;
//! * SACK blocks (RFC 2018 §3) are located by binary search over the
//!   queue, which is ordered and contiguous.

use std::collections::VecDeque;

use super::rate::TxState;
use super::RetransmitKind;
use crate::time::SimTime;

mod acked;
mod loss;
#[cfg(test)]
mod prop;
mod sampled;
#[cfg(test)]
mod tests;

pub use acked::{Acked, Sacked};
use sampled::{record_lost, Sampled};
pub use sampled::{Delivered, LostTx};

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

    /// Sequence space occupied.
    fn size(&self) -> u64 {
        self.end() - self.start
    }
}

/// A segment taken for retransmission by [`Scoreboard::retransmit_next`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resend {
    pub kind: RetransmitKind,
    pub start: u64,
    pub len: u32,
    pub fin: bool,
}

/// Totals over the queue, kept up to date on every state change.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// RFC 6675 §4 `pipe`: bytes neither SACKed nor deemed lost.
    pipe: u64,
    sacked_segs: u64,
    sacked_bytes: u64,
    /// Segments awaiting retransmission.
    lost_segs: u64,
    /// Bytes ever marked lost (Linux's `tp->lost`, in bytes).
    marked_lost: u64,
}

impl Counts {
    fn add(&mut self, s: &SentSeg) {
        if s.sacked {
            self.sacked_segs += 1;
            self.sacked_bytes += s.size();
        }
        if s.lost.is_some() {
            self.lost_segs += 1;
        }
        if !s.sacked && s.lost.is_none() {
            self.pipe += s.size();
        }
    }

    fn remove(&mut self, s: &SentSeg) {
        if s.sacked {
            self.sacked_segs -= 1;
            self.sacked_bytes -= s.size();
        }
        if s.lost.is_some() {
            self.lost_segs -= 1;
        }
        if !s.sacked && s.lost.is_none() {
            self.pipe -= s.size();
        }
    }
}

/// Applies `change` to `s`, keeping `counts` right.
fn update(counts: &mut Counts, s: &mut SentSeg, change: impl FnOnce(&mut SentSeg)) {
    let was_lost = s.lost.is_some();
    counts.remove(s);
    change(s);
    counts.add(s);
    if !was_lost && s.lost.is_some() {
        counts.marked_lost += s.size();
    }
}

/// Marks `s`, queue index `i`, lost for `kind`, keeping `counts` right; a segment not lost
/// before and carrying a rate snapshot is recorded in `sampled`.
#[inline]
fn mark_lost(
    counts: &mut Counts,
    sampled: Option<&mut Sampled>,
    i: usize,
    s: &mut SentSeg,
    kind: RetransmitKind,
) {
    let newly = s.lost.is_none();
    update(counts, s, |s| s.lost = Some(kind));
    if let (true, Some(sampled)) = (newly, sampled) {
        record_lost(sampled, i, s.size(), counts.marked_lost);
    }
}

/// Where the IsLost() marking of [`Scoreboard::mark_lost_rfc6675`] resumes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct LossMark {
    /// Queue index: every segment below it IsLost() (or is SACKed) and was
    /// marked if it could be.
    next: usize,
    /// SACKed segments and bytes below `next`.
    sacked_segs: u64,
    sacked_bytes: u64,
    /// The (DupThresh, SMSS) the marking was made with.
    params: (u32, u32),
}

/// The queue of outstanding segments.
///
/// In the order written (`repr(C)`), by how often an ACK touches a field: the queue, its
/// counts and the rate-sampling state (one pointer, `None` in a connection that does not
/// sample) before the marks of loss recovery and SACK processing.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
    counts: Counts,
    /// No segment below this queue index is marked lost.
    lost_hint: usize,
    /// The rate snapshots of the segments and what was delivered and lost since it was
    /// last collected, in a connection that samples delivery rates
    /// ([`Self::set_sampling`]); apart, so that a segment is 32 B and the scoreboard of a
    /// connection that does not sample carries none of it.
    sampled: Option<Box<Sampled>>,
    mark: LossMark,
    /// SACK blocks applied since the SACKs were last cleared, at most [`KNOWN`], each cut
    /// at the end of the highest segment sent when it came: every segment inside one is
    /// SACKed (segments are only ever added past it, only `clear_sacks` unmarks, and a
    /// partly acknowledged segment, which may move into one, forgets them all). A
    /// receiver repeats its blocks in ACK after ACK (RFC 2018 §4: the first block reports
    /// the latest segment, the others repeat recent blocks), so a block inside a known one
    /// changes nothing, and one that extends a known one needs only its part past it,
    /// without walking the queue over what was SACKed before. Empty slots are `(0, 0)`
    /// ([`FORGOTTEN`]).
    known: [(u64, u64); KNOWN],
}

/// SACK blocks remembered as applied: the most an ACK carries with timestamps (RFC 2018
/// §3), and one more.
const KNOWN: usize = 4;
/// No SACK block known.
const FORGOTTEN: [(u64, u64); KNOWN] = [(0, 0); KNOWN];

impl Scoreboard {
    #[inline]
    pub fn push(&mut self, seg: SentSeg) {
        self.counts.add(&seg);
        self.segs.push_back(seg);
        if let Some(s) = self.sampled.as_deref_mut() {
            s.txs.push_back(None);
        }
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
        while let Some(front) = self.segs.front_mut() {
            let marked = self.mark.next > 0;
            if front.end() <= ack {
                out.bytes += front.size();
                if let Some(s) = self.sampled.as_deref_mut() {
                    let tx = s.txs.pop_front().flatten();
                    if !front.sacked {
                        s.delivered.add(front.sent_at, tx.as_ref(), front.size());
                    }
                }
                out.retransmitted |= front.retransmitted;
                out.newest_sent = Some(front.sent_at);
                if !front.retransmitted && !front.sacked {
                    out.first_sent.get_or_insert(front.sent_at);
                    out.last_sent = Some(front.sent_at);
                }
                self.counts.remove(front);
                if marked {
                    self.mark.next -= 1;
                    if front.sacked {
                        self.mark.sacked_segs -= 1;
                        self.mark.sacked_bytes -= front.size();
                    }
                }
                self.lost_hint = self.lost_hint.saturating_sub(1);
                self.segs.pop_front();
            } else {
                if front.start < ack {
                    let cut = ack - front.start;
                    out.bytes += cut;
                    if let Some(s) = self.sampled.as_deref_mut().filter(|_| !front.sacked) {
                        s.delivered.bytes += cut;
                    }
                    if marked && front.sacked {
                        self.mark.sacked_bytes -= cut;
                    }
                    update(&mut self.counts, front, |s| {
                        s.start = ack;
                        s.len -= cut as u32;
                    });
                    // The rest of a segment across a known block's left edge may now lie
                    // inside it, unSACKed.
                    self.known = FORGOTTEN;
                }
                break;
            }
        }
        out
    }

    /// Marks segments entirely inside one of `blocks` as SACKed; returns
    /// the number of newly SACKed bytes (RFC 6675 Update()).
    #[cfg(test)]
    pub fn apply_sack(&mut self, blocks: impl IntoIterator<Item = (u64, u64)>) -> u64 {
        self.apply_sack_timed(blocks).bytes
    }

    /// [`Self::apply_sack`], with the send times of what it newly SACKed.
    pub fn apply_sack_timed(&mut self, blocks: impl IntoIterator<Item = (u64, u64)>) -> Sacked {
        let mut newly = 0;
        // The (start, sent_at) of the lowest and highest newly SACKed segments never
        // retransmitted: blocks come in any order.
        let mut lowest: Option<(u64, SimTime)> = None;
        let mut highest: Option<(u64, SimTime)> = None;
        let top = self.segs.back().map_or(0, SentSeg::end);
        for (l, r) in blocks {
            // What a known block holding `l` already covers.
            let covered = self
                .known
                .iter()
                .filter(|&&(a, b)| a < b && a <= l && l <= b)
                .map(|&(_, b)| b)
                .max();
            let from = match covered {
                Some(b) if r <= b => continue,
                Some(b) => b,
                None => l,
            };
            let mut i = self.segs.partition_point(|s| s.start < from);
            // A segment from inside the known block to past its end was not in it.
            if i > 0 && self.segs[i - 1].start >= l && self.segs[i - 1].end() > from {
                i -= 1;
            }
            while let Some(s) = self.segs.get_mut(i).filter(|s| s.end() <= r) {
                if !s.sacked {
                    newly += s.size();
                    if !s.retransmitted {
                        let at = (s.start, s.sent_at);
                        lowest = Some(lowest.map_or(at, |l| l.min(at)));
                        highest = Some(highest.map_or(at, |h| h.max(at)));
                    }
                    if let Some(sampled) = self.sampled.as_deref_mut() {
                        let tx = &mut sampled.txs[i];
                        sampled.delivered.add(s.sent_at, tx.as_ref(), s.size());
                        if let Some(tx) = tx {
                            tx.pending = false;
                        }
                    }
                    update(&mut self.counts, s, |s| {
                        s.sacked = true;
                        s.lost = None;
                    });
                    if i < self.mark.next {
                        self.mark.sacked_segs += 1;
                        self.mark.sacked_bytes += s.size();
                    }
                }
                i += 1;
            }
            self.remember(l, r.min(top));
        }
        Sacked {
            bytes: newly,
            first_sent: lowest.map(|(_, at)| at),
            last_sent: highest.map(|(_, at)| at),
        }
    }

    /// Adds SACK block `[l, r)`, just applied, to the known ones: in place of one it
    /// holds (a first block grown on the right), else of the lowest (the oldest data,
    /// acknowledged first). Blocks that only overlap are not merged: a segment across the
    /// edge of one and starting before the other may be in neither.
    fn remember(&mut self, l: u64, r: u64) {
        if l >= r {
            return;
        }
        let slot = self
            .known
            .iter()
            .position(|&(a, b)| a < b && l <= a && b <= r)
            // An empty slot's end, 0, is the lowest.
            .or_else(|| (0..KNOWN).min_by_key(|&i| self.known[i].1))
            .expect("KNOWN > 0");
        self.known[slot] = (l, r);
    }

    /// Keeps rate snapshots ([`Self::set_tx`]) and collects deliveries for
    /// [`Self::take_delivered`] and losses for [`Self::take_lost`] from now on.
    pub fn set_sampling(&mut self) {
        if self.sampled.is_none() {
            self.sampled = Some(Box::new(Sampled {
                txs: self.segs.iter().map(|_| None).collect(),
                ..Sampled::default()
            }));
        }
    }

    /// What was delivered since the last call (see [`Delivered`]).
    pub fn take_delivered(&mut self) -> Delivered {
        self.sampled
            .as_deref_mut()
            .map(|s| std::mem::take(&mut s.delivered))
            .unwrap_or_default()
    }

    /// The segments with a rate snapshot marked lost since the last call, in the order
    /// they were marked (see [`LostTx`]).
    pub fn take_lost(&mut self) -> impl Iterator<Item = LostTx> + '_ {
        self.sampled
            .as_deref_mut()
            .into_iter()
            .flat_map(|s| s.lost_tx.drain(..))
    }

    /// The rate snapshot of each segment in the queue, in order (`None` for one sent
    /// without, or in a connection that does not sample).
    #[cfg(test)]
    pub fn snapshots(&self) -> Vec<Option<TxState>> {
        match self.sampled.as_deref() {
            Some(s) => s.txs.iter().copied().collect(),
            None => vec![None; self.segs.len()],
        }
    }

    /// Bytes ever marked lost.
    pub fn marked_lost(&self) -> u64 {
        self.counts.marked_lost
    }

    /// Gives the segment last taken by [`Self::retransmit_next`], or pushed, at `start`
    /// the rate snapshot of that transmission (kept only once [`Self::set_sampling`]).
    pub fn set_tx(&mut self, start: u64, tx: TxState) {
        let Some(sampled) = self.sampled.as_deref_mut() else {
            return;
        };
        let i = self.segs.partition_point(|s| s.start < start);
        if self.segs.get(i).is_some_and(|s| s.start == start) {
            sampled.txs[i] = Some(tx);
        }
    }

    /// Forgets all SACK information (RFC 2018 §8 after an RTO).
    pub fn clear_sacks(&mut self) {
        for s in self.segs.iter_mut().filter(|s| s.sacked) {
            update(&mut self.counts, s, |s| s.sacked = false);
        }
        self.mark = LossMark::default();
        self.known = FORGOTTEN;
    }

    /// Bytes not yet cumulatively acknowledged.
    pub fn flight_size(&self) -> u64 {
        match (self.segs.front(), self.segs.back()) {
            (Some(f), Some(b)) => b.end() - f.start,
            _ => 0,
        }
    }

    /// Bytes covered by SACK blocks and not yet cumulatively acknowledged.
    pub fn sacked_bytes(&self) -> u64 {
        self.counts.sacked_bytes
    }

    /// Segments deemed lost and not yet retransmitted.
    pub fn lost_segments(&self) -> u64 {
        self.counts.lost_segs
    }

    /// RFC 6675 §4 `pipe`: bytes believed to be in the network. A segment
    /// counts when it is neither SACKed nor deemed lost-and-not-resent;
    /// since only lost segments are retransmitted, a retransmission counts
    /// once.
    pub fn pipe(&self) -> u64 {
        self.counts.pipe
    }
}
