//! Property: over random sequences of sends, SACKs, loss marks (IsLost,
//! first segment, RTO, range), retransmissions, cumulative ACKs and SACK
//! resets, the incremental scoreboard answers exactly as a from-scratch
//! evaluation of RFC 6675 §4 over the whole queue does, and its counts and
//! hints always equal a recount.

use proptest::prelude::*;
use proptest::test_runner::RngAlgorithm;

use super::loss::is_lost;
use super::*;

/// The from-scratch scoreboard: every answer is a scan of the whole queue.
#[derive(Debug, Default)]
struct Naive {
    segs: Vec<SentSeg>,
}

impl Naive {
    fn ack_to(&mut self, ack: u64) -> Acked {
        let done = self.segs.iter().take_while(|s| s.end() <= ack).count();
        let gone: Vec<SentSeg> = self.segs.drain(..done).collect();
        let mut bytes = gone.iter().map(SentSeg::size).sum();
        if let Some(f) = self.segs.first_mut().filter(|f| f.start < ack) {
            bytes += ack - f.start;
            f.len -= (ack - f.start) as u32;
            f.start = ack;
        }
        let retransmitted = gone.iter().any(|s| s.retransmitted);
        let timed = || gone.iter().filter(|s| !s.retransmitted && !s.sacked);
        Acked {
            bytes,
            newest_sent: gone.last().map(|s| s.sent_at),
            retransmitted,
            first_sent: timed().next().map(|s| s.sent_at),
            last_sent: timed().next_back().map(|s| s.sent_at),
        }
    }

    fn apply_sack(&mut self, blocks: &[(u64, u64)]) -> Sacked {
        let mut out = Sacked::default();
        for seg in self.segs.iter_mut().filter(|s| !s.sacked) {
            if blocks
                .iter()
                .any(|&(l, r)| l <= seg.start && seg.end() <= r)
            {
                seg.sacked = true;
                seg.lost = None;
                out.bytes += seg.size();
                if !seg.retransmitted {
                    out.first_sent.get_or_insert(seg.sent_at);
                    out.last_sent = Some(seg.sent_at);
                }
            }
        }
        out
    }

    fn pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| !s.sacked && s.lost.is_none())
            .map(SentSeg::size)
            .sum()
    }

    fn mark_lost_rfc6675(&mut self, dup_thresh: u32, smss: u32, kind: RetransmitKind) {
        let flags = is_lost_flags(&self.segs, dup_thresh, smss);
        for (s, lost) in self.segs.iter_mut().zip(flags) {
            if lost && !s.retransmitted && s.lost.is_none() {
                s.lost = Some(kind);
            }
        }
    }

    fn retransmit_next(&mut self, now: SimTime) -> Option<Resend> {
        let s = self.segs.iter_mut().find(|s| s.lost.is_some())?;
        let kind = s.lost.take()?;
        s.retransmitted = true;
        s.sent_at = now;
        Some(Resend {
            kind,
            start: s.start,
            len: s.len,
            fin: s.fin,
        })
    }
}

/// RFC 6675 §4 IsLost() for every segment, from the tail (false for a
/// SACKed one).
pub(super) fn is_lost_flags(segs: &[SentSeg], dup_thresh: u32, smss: u32) -> Vec<bool> {
    let mut flags = vec![false; segs.len()];
    let (mut count, mut bytes) = (0u64, 0u64);
    for (i, s) in segs.iter().enumerate().rev() {
        if s.sacked {
            count += 1;
            bytes += s.size();
        } else {
            flags[i] = is_lost(count, bytes, dup_thresh, smss);
        }
    }
    flags
}

#[derive(Clone, Debug)]
enum Op {
    /// New segment of `len` bytes (a bare FIN when 0).
    Send {
        len: u32,
        probe: bool,
    },
    /// SACK blocks between segment boundaries `a` and `b` (indices into
    /// the queue, modulo its length + 1), each end moved by -1, 0 or +1.
    Sack(Vec<(usize, usize, i8, i8)>),
    /// The previous SACK blocks again, as a receiver repeats them, the first one's right
    /// edge moved to boundary `to` (a first block that grew, or shrank).
    SackAgain {
        to: usize,
        nudge: i8,
    },
    /// Cumulative ACK up to boundary `a`, moved by `nudge` bytes.
    Ack {
        a: usize,
        nudge: i8,
    },
    MarkRfc6675 {
        dup_thresh: u32,
    },
    MarkFirst,
    MarkAll,
    MarkRange {
        a: usize,
        b: usize,
    },
    ClearSacks,
    EndProbing,
    Retransmit,
}

fn op() -> impl Strategy<Value = Op> {
    let nudge = prop_oneof![3 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)];
    prop_oneof![
        8 => (0u32..=1500, proptest::bool::weighted(0.05))
            .prop_map(|(len, probe)| Op::Send { len, probe }),
        6 => proptest::collection::vec((0usize..64, 0usize..64, nudge.clone(), nudge.clone()), 0..=4)
            .prop_map(Op::Sack),
        4 => (0usize..64, nudge.clone()).prop_map(|(to, nudge)| Op::SackAgain { to, nudge }),
        3 => (0usize..64, nudge).prop_map(|(a, nudge)| Op::Ack { a, nudge }),
        5 => prop_oneof![6 => Just(3u32), 1 => 1u32..=5]
            .prop_map(|dup_thresh| Op::MarkRfc6675 { dup_thresh }),
        1 => Just(Op::MarkFirst),
        1 => Just(Op::MarkAll),
        1 => (0usize..64, 0usize..64).prop_map(|(a, b)| Op::MarkRange { a, b }),
        1 => Just(Op::ClearSacks),
        1 => Just(Op::EndProbing),
        5 => Just(Op::Retransmit),
    ]
}

const KINDS: [RetransmitKind; 3] = [
    RetransmitKind::Fast,
    RetransmitKind::Rto,
    RetransmitKind::SackRecovery,
];

/// Offset of queue boundary `a` (modulo the number of boundaries), moved
/// by `nudge` bytes.
fn boundary(segs: &[SentSeg], snd_nxt: u64, a: usize, nudge: i8) -> u64 {
    let base = segs.get(a % (segs.len() + 1)).map_or(snd_nxt, |s| s.start);
    base.saturating_add_signed(i64::from(nudge))
}

/// Counts, the IsLost resume point and the lost hint, recomputed.
fn check_invariants(sb: &Scoreboard) -> Result<(), TestCaseError> {
    let mut counts = Counts::default();
    sb.segs.iter().for_each(|s| counts.add(s));
    // A running total, not a function of the queue.
    counts.marked_lost = sb.counts.marked_lost;
    prop_assert_eq!(counts, sb.counts);
    let below = sb.segs.range(..sb.mark.next).filter(|s| s.sacked);
    let (segs, bytes) = below.fold((0, 0), |(n, b), s| (n + 1, b + s.size()));
    prop_assert_eq!((segs, bytes), (sb.mark.sacked_segs, sb.mark.sacked_bytes));
    prop_assert!(sb.segs.range(..sb.lost_hint).all(|s| s.lost.is_none()));
    for &(l, r) in sb.known.iter().filter(|k| k.0 < k.1) {
        prop_assert!(
            sb.segs
                .iter()
                .filter(|s| l <= s.start && s.end() <= r)
                .all(|s| s.sacked),
            "a segment inside known block [{}, {}) is not SACKed",
            l,
            r
        );
    }
    Ok(())
}

fn run(ops: Vec<Op>, smss: u32) -> Result<(), TestCaseError> {
    let (mut sb, mut naive) = (Scoreboard::default(), Naive::default());
    let mut snd_nxt = 1u64;
    let mut last_blocks: Vec<(u64, u64)> = Vec::new();
    for (step, op) in ops.into_iter().enumerate() {
        let now = SimTime::from_millis(step as u64);
        let kind = KINDS[step % KINDS.len()];
        match op {
            Op::Send { len, probe } => {
                let seg = SentSeg {
                    start: snd_nxt,
                    len,
                    fin: len == 0,
                    sent_at: now,
                    retransmitted: false,
                    sacked: false,
                    lost: None,
                    probe,
                };
                snd_nxt = seg.end();
                sb.push(seg.clone());
                naive.segs.push(seg);
            }
            Op::Sack(raw) => {
                let blocks: Vec<(u64, u64)> = raw
                    .iter()
                    .map(|&(a, b, na, nb)| {
                        let (l, r) = (
                            boundary(&naive.segs, snd_nxt, a, na),
                            boundary(&naive.segs, snd_nxt, b, nb),
                        );
                        (l.min(r), l.max(r))
                    })
                    .collect();
                prop_assert_eq!(
                    sb.apply_sack_timed(blocks.iter().copied()),
                    naive.apply_sack(&blocks)
                );
                last_blocks = blocks;
            }
            Op::SackAgain { to, nudge } => {
                let mut blocks = last_blocks.clone();
                if let Some(first) = blocks.first_mut() {
                    first.1 = boundary(&naive.segs, snd_nxt, to, nudge).max(first.0);
                }
                prop_assert_eq!(
                    sb.apply_sack_timed(blocks.iter().copied()),
                    naive.apply_sack(&blocks)
                );
                last_blocks = blocks;
            }
            Op::Ack { a, nudge } => {
                let ack = boundary(&naive.segs, snd_nxt, a, nudge).min(snd_nxt);
                prop_assert_eq!(sb.ack_to(ack), naive.ack_to(ack));
            }
            Op::MarkRfc6675 { dup_thresh } => {
                sb.mark_lost_rfc6675(dup_thresh, smss, kind);
                naive.mark_lost_rfc6675(dup_thresh, smss, kind);
            }
            Op::MarkFirst => {
                sb.mark_first_lost(kind);
                if let Some(s) = naive.segs.first_mut().filter(|s| !s.sacked) {
                    s.lost = Some(kind);
                }
            }
            Op::MarkAll => {
                sb.mark_all_lost(kind);
                naive.segs.iter_mut().for_each(|s| s.lost = Some(kind));
            }
            Op::MarkRange { a, b } => {
                let (from, to) = (
                    boundary(&naive.segs, snd_nxt, a, 0),
                    boundary(&naive.segs, snd_nxt, b, 0),
                );
                sb.mark_lost_range(from, to, kind);
                for s in naive.segs.iter_mut() {
                    if s.start >= from && s.start < to && !s.sacked && s.lost.is_none() {
                        s.lost = Some(kind);
                    }
                }
            }
            Op::ClearSacks => {
                sb.clear_sacks();
                naive.segs.iter_mut().for_each(|s| s.sacked = false);
            }
            Op::EndProbing => {
                let any = naive.segs.iter().any(|s| s.probe);
                naive.segs.iter_mut().for_each(|s| s.probe = false);
                prop_assert_eq!(sb.end_probing(), any);
            }
            Op::Retransmit => {
                let lowest = naive.segs.iter().find(|s| s.lost.is_some()).cloned();
                prop_assert_eq!(sb.next_lost().cloned(), lowest);
                prop_assert_eq!(sb.retransmit_next(now), naive.retransmit_next(now));
            }
        }
        prop_assert!(
            sb.iter().eq(naive.segs.iter()),
            "queues differ after step {}",
            step
        );
        prop_assert_eq!(sb.pipe(), naive.pipe());
        prop_assert_eq!(sb.flight_size(), {
            let f = naive.segs.first().map_or(0, |s| s.start);
            naive.segs.last().map_or(0, |s| s.end() - f)
        });
        for dup_thresh in 1..=4 {
            let flags = is_lost_flags(&naive.segs, dup_thresh, smss);
            prop_assert_eq!(
                sb.first_is_lost(dup_thresh, smss),
                flags.first() == Some(&true)
            );
        }
        check_invariants(&sb)?;
    }
    Ok(())
}

proptest! {
    // XorShift: the default ChaCha generator dominates an unoptimised test build.
    #![proptest_config(ProptestConfig {
        cases: 4096,
        rng_algorithm: RngAlgorithm::XorShift,
        ..ProptestConfig::default()
    })]

    #[test]
    fn incremental_scoreboard_equals_recount(
        ops in proptest::collection::vec(op(), 1..160),
        smss in prop_oneof![Just(1000u32), Just(1448u32), 1u32..=1500],
    ) {
        run(ops, smss)?;
    }
}
