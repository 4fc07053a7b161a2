//! Unit tests of the Block Ack originator and recipient (§10.25.6).

use super::*;

fn all(_: u64) -> bool {
    true
}

#[test]
fn sequence_number_arithmetic() {
    assert_eq!(sn_add(4095, 1), 0);
    assert_eq!(sn_add(4000, 200), 104);
    assert_eq!(sn_offset(4095, 0), 1);
    assert_eq!(sn_offset(0, 4095), 4095);
    assert!(sn_precedes(4095, 0));
    assert!(sn_precedes(0, 2047));
    assert!(!sn_precedes(0, 2048));
    assert!(!sn_precedes(7, 7));
    assert!(!sn_precedes(1, 0));
}

/// Four MPDUs, the second lost: BlockAck 0b1101, only SN 1 resent; the recipient passes
/// up SN 0, holds 2 and 3 until 1 arrives, then passes up 1, 2, 3.
#[test]
fn one_lost_mpdu_is_resent_alone_and_reordered() {
    let mut o = Originator::new(64, 7);
    let mut r = Recipient::new(0);
    let sns: Vec<u16> = (100..104).map(|id| o.enqueue(id)).collect();
    assert_eq!(sns, [0, 1, 2, 3]);
    let batch = o.next_batch(64, all);
    assert_eq!(batch, [(0, 100), (1, 101), (2, 102), (3, 103)]);
    assert_eq!(o.in_flight(), 4);

    assert_eq!(r.on_mpdu(0, 100), [100]);
    assert!(r.on_mpdu(2, 102).is_empty());
    assert!(r.on_mpdu(3, 103).is_empty());
    assert_eq!(r.buffered(), 2);
    assert_eq!(r.win_start(), 1);
    assert_eq!(r.block_ack(0), 0b1101);

    let out = o.on_block_ack(0, 0b1101);
    assert_eq!(out.acked, [100, 102, 103]);
    assert!(out.dropped.is_empty());
    assert_eq!(out.retries, 1);
    assert_eq!(out.win_start, 1);
    assert_eq!(out.bar, None);
    assert_eq!((o.queued(), o.pending_retries(), o.in_flight()), (1, 1, 0));

    assert_eq!(o.next_batch(64, all), [(1, 101)]);
    assert_eq!(r.on_mpdu(1, 101), [101, 102, 103]);
    assert_eq!(r.buffered(), 0);
    // SNs 1..=3 received, 4.. not.
    assert_eq!(r.block_ack(1), 0b111);
    let out = o.on_block_ack(1, r.block_ack(1));
    assert_eq!(out.acked, [101]);
    assert_eq!(out.win_start, 4);
    assert!(o.is_empty());
}

/// A new MPDU beyond WinStartO + WinSizeO − 1 waits while an older one is unacknowledged.
#[test]
fn new_mpdus_wait_outside_the_window() {
    let mut o = Originator::new(64, 7);
    for id in 0..100 {
        o.enqueue(id);
    }
    assert_eq!(o.next_batch(10, all).len(), 10);
    // SN 0 missing, 1..=9 acknowledged.
    let out = o.on_block_ack(0, 0b11_1111_1110);
    assert_eq!((out.retries, out.win_start), (1, 0));
    let batch = o.next_batch(usize::MAX, all);
    let sns: Vec<u16> = batch.iter().map(|&(sn, _)| sn).collect();
    let expected: Vec<u16> = std::iter::once(0).chain(10..64).collect();
    assert_eq!(sns, expected);
    assert_eq!(o.queued(), 36);
    // Everything acknowledged: the window slides to 64 and the rest may go.
    let out = o.on_block_ack(0, u64::MAX);
    assert_eq!(out.acked.len(), 55);
    assert_eq!(out.win_start, 64);
    assert_eq!(o.next_batch(usize::MAX, all).len(), 36);
}

#[test]
fn small_window_and_fits_limit_the_batch() {
    let mut o = Originator::new(4, 3);
    for id in 0..10 {
        o.enqueue(id);
    }
    let mut budget = 2;
    let batch = o.next_batch(64, |_| {
        budget -= 1;
        budget >= 0
    });
    assert_eq!(batch, [(0, 0), (1, 1)]);
    o.on_block_ack(0, 0b10);
    // SN 0 resent, then SNs 2 and 3; SN 4 is outside [0, 4).
    assert_eq!(o.next_batch(64, all), [(0, 0), (2, 2), (3, 3)]);
    assert!(o.next_batch(64, all).is_empty());
}

/// An MPDU failing `retry_limit` times is dropped, the window moves past it and the
/// BlockAckReq releases the MPDUs the recipient held behind it.
#[test]
fn retry_limit_drops_and_block_ack_req_releases() {
    let mut o = Originator::new(64, 2);
    let mut r = Recipient::new(0);
    for id in [10, 11, 12] {
        o.enqueue(id);
    }
    o.next_batch(64, all);
    assert!(r.on_mpdu(1, 11).is_empty());
    assert!(r.on_mpdu(2, 12).is_empty());
    let out = o.on_block_ack(0, r.block_ack(0));
    assert_eq!(
        (out.acked.as_slice(), out.retries, out.bar),
        (&[11, 12][..], 1, None)
    );

    assert_eq!(o.next_batch(64, all), [(0, 10)]);
    let out = o.on_block_ack(0, r.block_ack(0));
    assert_eq!(out.dropped, [10]);
    assert_eq!(out.retries, 0);
    assert_eq!((out.win_start, out.bar), (3, Some(3)));
    assert!(o.is_empty());

    assert_eq!(r.on_bar(3), [11, 12]);
    assert_eq!(r.win_start(), 3);
    assert_eq!(r.buffered(), 0);
    // The late copy of SN 0 is discarded; its bit stays clear, 1 and 2 stay set.
    assert!(r.on_mpdu(0, 10).is_empty());
    assert_eq!(r.duplicates(), 1);
    assert_eq!(r.block_ack(0), 0b110);
}

/// The BlockAckReq is announced as soon as the window passes a dropped MPDU, even with
/// later MPDUs still waiting for a retransmission.
#[test]
fn block_ack_req_as_soon_as_the_window_passes_a_drop() {
    let mut o = Originator::new(64, 1);
    o.enqueue(0);
    o.enqueue(1);
    o.next_batch(1, all);
    let out = o.on_no_block_ack();
    assert_eq!(
        (out.dropped.as_slice(), out.win_start, out.bar),
        (&[0][..], 1, Some(1))
    );

    let mut o = Originator::new(64, 2);
    o.enqueue(0);
    o.enqueue(1);
    o.next_batch(64, all);
    o.on_block_ack(0, 0b00); // both wait for a retransmission
    assert_eq!(o.next_batch(1, all), [(0, 0)]); // SN 0's last attempt
    let out = o.on_no_block_ack();
    assert_eq!(
        (out.dropped.as_slice(), out.win_start, out.bar),
        (&[0][..], 1, Some(1))
    );
    assert_eq!(o.pending_retries(), 1);
}

/// Whole A-MPDU lost (BlockAck timeout): every MPDU retried, then dropped at the limit.
#[test]
fn lost_ampdu_retries_everything() {
    let mut o = Originator::new(64, 2);
    for id in 0..5 {
        o.enqueue(id);
    }
    let first = o.next_batch(64, all);
    let out = o.on_no_block_ack();
    assert_eq!((out.retries, out.win_start, out.bar), (5, 0, None));
    assert_eq!(o.pending_retries(), 5);
    assert_eq!(o.next_batch(64, all), first);
    let out = o.on_no_block_ack();
    assert_eq!(out.dropped, [0, 1, 2, 3, 4]);
    assert_eq!((out.retries, out.win_start, out.bar), (0, 5, Some(5)));
    assert!(o.is_empty());
}

/// A late BlockAck bit acknowledges an MPDU that was waiting for a retransmission.
#[test]
fn acknowledgement_of_a_retry_waiting_mpdu() {
    let mut o = Originator::new(64, 5);
    for id in 0..3 {
        o.enqueue(id);
    }
    o.next_batch(64, all);
    o.on_no_block_ack();
    assert_eq!(o.next_batch(1, all), [(0, 0)]);
    let out = o.on_block_ack(0, 0b111);
    assert_eq!(out.acked, [0, 1, 2]);
    assert!(o.is_empty());
}

#[test]
fn sequence_numbers_wrap_around() {
    let mut o = Originator::with_ssn(4094, 64, 4);
    let mut r = Recipient::new(4094);
    let sns: Vec<u16> = (0..4).map(|id| o.enqueue(id)).collect();
    assert_eq!(sns, [4094, 4095, 0, 1]);
    let batch = o.next_batch(64, all);
    assert_eq!(batch.len(), 4);
    assert_eq!(r.on_mpdu(4094, 0), [0]);
    assert!(r.on_mpdu(0, 2).is_empty());
    assert!(r.on_mpdu(1, 3).is_empty());
    assert_eq!(r.block_ack(4094), 0b1101);
    let out = o.on_block_ack(4094, 0b1101);
    assert_eq!(
        (out.acked.as_slice(), out.win_start),
        (&[0, 2, 3][..], 4095)
    );
    assert_eq!(o.next_batch(64, all), [(4095, 1)]);
    assert_eq!(r.on_mpdu(4095, 1), [1, 2, 3]);
    assert_eq!(r.win_start(), 2);
    let out = o.on_block_ack(4095, r.block_ack(4095));
    assert_eq!((out.acked.as_slice(), out.win_start), (&[1][..], 2));
    assert!(o.is_empty());
}

/// An SN beyond WinEndB moves the window: buffered MPDUs falling before it are passed up
/// across the gap; the skipped SN reports 0, the passed-up ones 1.
#[test]
fn recipient_window_jump_skips_gaps() {
    let mut r = Recipient::new(0);
    assert!(r.on_mpdu(1, 11).is_empty());
    assert!(r.on_mpdu(3, 13).is_empty());
    // WinEndB = 66, WinStartB = 3: SN 1 goes up across the gap at 0 and 2, then SN 3
    // starts the in-order run.
    assert_eq!(r.on_mpdu(66, 76), [11, 13]);
    assert_eq!(r.win_start(), 4);
    assert_eq!(r.buffered(), 1);
    assert_eq!(r.block_ack(0), 0b1010);
    assert_eq!(r.block_ack(3), 1 | 1 << 63);
    assert!(r.on_mpdu(1, 11).is_empty());
    assert!(r.on_mpdu(66, 76).is_empty());
    assert_eq!(r.duplicates(), 2);
    // SN 70 is beyond WinEndB = 67: it moves the window to 7, releasing nothing since
    // SN 66 is still in the window.
    assert!(r.on_mpdu(70, 80).is_empty());
    assert_eq!(r.win_start(), 7);
    assert_eq!(r.on_bar(67), [76]);
    assert_eq!(r.win_start(), 67);
    // A BlockAckReq that is not ahead of WinStartB changes nothing.
    assert!(r.on_bar(10).is_empty());
    assert_eq!(r.win_start(), 67);
    assert_eq!(r.on_mpdu(67, 77), [77]);
    assert_eq!(r.block_ack(63), 0b1001_1000);
}

/// After the SN space wraps, stale scoreboard bits from 4096 SNs ago are not reported.
#[test]
fn scoreboard_forgets_the_previous_lap() {
    let mut r = Recipient::new(0);
    for sn in 0..SN_MODULO {
        assert_eq!(r.on_mpdu(sn, u64::from(sn)), [u64::from(sn)]);
    }
    assert_eq!(r.win_start(), 0);
    assert_eq!(r.block_ack(0), 0);
    assert_eq!(r.block_ack(4032), u64::MAX);
    // Jump far ahead with a BlockAckReq: the jumped-over SNs were never received.
    assert!(r.on_bar(1000).is_empty());
    assert_eq!(r.block_ack(900), 0);
}

/// A lone MPDU (a rate-control probe) is the first new one, not a retransmission waiting
/// before it; asked for again by id, the same MPDU goes (its retries), and with no new MPDU
/// in the window the oldest waiting one does.
#[test]
fn a_lone_mpdu_is_the_first_new_one_then_the_same_one() {
    let mut o = Originator::new(64, 7);
    for id in 10..14 {
        o.enqueue(id);
    }
    assert_eq!(o.next_batch(2, all), [(0, 10), (1, 11)]);
    // SN 0 lost, SN 1 acknowledged: 10 waits for a retransmission, 12 and 13 are new.
    o.on_block_ack(0, 0b10);
    assert!(o.has_new());
    assert_eq!(o.next_lone(None), [(2, 12)]);
    o.on_no_block_ack();
    assert_eq!(o.next_lone(Some(12)), [(2, 12)]);
    o.on_block_ack(2, 0b1);
    // An id no longer waiting (acknowledged) falls back to the first new MPDU.
    assert_eq!(o.next_lone(Some(12)), [(3, 13)]);
    o.on_block_ack(3, 0b1);
    assert!(!o.has_new());
    assert_eq!(o.next_lone(None), [(0, 10)]);
}

/// ath9k's retry limit (`ath_tx_complete_aggr`: `fi->retries < ATH_MAX_SW_RETRIES` checked
/// before the submission's tries are added): a frame failing submissions of six tries each
/// (max_tp, max_tp2, max_prob twice each) has 0, 6, 12, 18, 24 and 30 tries before them, so
/// it is given up when the sixth submission ends, at its 36th try, not at its 30th, and
/// never in the middle of a submission. A Block Ack ends a submission too.
#[test]
fn ath9k_gives_a_frame_up_once_a_submission_ends_with_its_tries_before_at_the_limit() {
    let fail_series = |o: &mut Originator, tries: u32| {
        let mut dropped = Vec::new();
        for t in 1..=tries {
            assert_eq!(o.next_batch(64, all).len(), 1);
            let out = o.on_no_block_ack_ending(t == tries);
            if t < tries {
                assert!(out.dropped.is_empty(), "dropped within a submission");
            }
            dropped.extend(out.dropped);
        }
        dropped
    };
    let mut o = Originator::new(64, 30).per_submission();
    o.enqueue(7);
    for _ in 0..5 {
        assert!(fail_series(&mut o, 6).is_empty());
    }
    assert_eq!(fail_series(&mut o, 6), [7], "given up after 36 tries");
    // Per try (802.11's retry counter): given up at the 30th.
    let mut o = Originator::new(64, 30);
    o.enqueue(7);
    let mut tries = 0;
    loop {
        o.next_batch(64, all);
        tries += 1;
        if !o.on_no_block_ack().dropped.is_empty() {
            break;
        }
    }
    assert_eq!(tries, 30);
    // A Block Ack ends the submission: frame 1, unacknowledged after 30 tries before it,
    // is given up at once; frame 2 goes on.
    let mut o = Originator::new(64, 30).per_submission();
    o.enqueue(1);
    for _ in 0..5 {
        fail_series(&mut o, 6);
    }
    o.enqueue(2);
    assert_eq!(o.next_batch(64, all).len(), 2);
    let out = o.on_block_ack(0, 0b10);
    assert_eq!((out.acked, out.dropped), (vec![2], vec![1]));
}
