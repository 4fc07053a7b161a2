//! Worked examples of the scoreboard (RFC 6675 §4).

use super::prop::is_lost_flags;
use super::*;

fn flags(sb: &Scoreboard) -> Vec<bool> {
    let segs: Vec<SentSeg> = sb.iter().cloned().collect();
    is_lost_flags(&segs, 3, 1000)
}

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
    assert_eq!(sb.apply_sack([(1001, 2001)]), 1000);
    assert_eq!(sb.pipe(), 9000);
    assert!(!flags(&sb)[0] && !sb.first_is_lost(3, 1000));
    // Second: segs 1-2 SACKed: 2 segments, 2000 B = (3-1)*1000, not more.
    sb.apply_sack([(1001, 3001)]);
    assert!(!flags(&sb)[0]);
    // Third: segs 1-3 SACKed -> IsLost(seg 0).
    sb.apply_sack([(1001, 4001)]);
    assert!(sb.first_is_lost(3, 1000));
    let lost = flags(&sb);
    assert_eq!(
        lost,
        vec![true, false, false, false, false, false, false, false, false, false]
    );
    sb.mark_lost_rfc6675(3, 1000, RetransmitKind::Fast);
    // pipe: 10 segs - 3 SACKed - 1 lost = 6 segs.
    assert_eq!(sb.pipe(), 6000);
    // Later SACKs cover 5-9; seg 4 now has 5 SACKed segments above it.
    sb.apply_sack([(5001, 10001), (1001, 4001)]);
    sb.mark_lost_rfc6675(3, 1000, RetransmitKind::SackRecovery);
    let lost: Vec<_> = sb.iter().map(|s| s.lost).collect();
    assert_eq!(lost[0], Some(RetransmitKind::Fast));
    assert_eq!(lost[4], Some(RetransmitKind::SackRecovery));
    assert_eq!(sb.pipe(), 0);
    // Retransmitting seg 0 puts it back in the pipe.
    let s = sb.retransmit_next(SimTime::ZERO).unwrap();
    assert_eq!((s.start, s.kind), (1, RetransmitKind::Fast));
    assert!(sb.first().unwrap().retransmitted);
    assert_eq!(sb.pipe(), 1000);
    assert_eq!(sb.next_lost().unwrap().start, 4001);
    // Cumulative ACK of seg 0..3 (retransmitted inside): no Karn sample.
    let acked = sb.ack_to(4001);
    assert_eq!(acked.bytes, 4000);
    assert_eq!(acked.karn_sample_from(), None);
    assert_eq!(sb.flight_size(), 6000);
}

#[test]
fn mark_lost_range_skips_sacked_and_outside() {
    let mut sb = board(6, 1000);
    sb.apply_sack([(3001, 4001)]);
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
    assert_eq!(a.karn_sample_from(), None);
    assert_eq!(sb.first().unwrap().start, 501);
    assert_eq!(sb.flight_size(), 1500);
    let a = sb.ack_to(2001);
    assert_eq!(a.karn_sample_from(), Some(SimTime::ZERO));
    assert!(sb.is_empty());
}

/// Two queued segments share a 64-byte cache line: an ACK that removes n segments reads
/// n / 2 lines of the queue. A rate snapshot (48 B) lives beside the queue, in a sampling
/// connection only.
#[test]
fn a_sent_segment_is_half_a_cache_line() {
    assert_eq!(std::mem::size_of::<SentSeg>(), 32);
    assert_eq!(std::mem::size_of::<Option<TxState>>(), 48);
}
