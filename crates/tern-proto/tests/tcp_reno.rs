//! Reno fast recovery (RFC 5681 §3.2, RFC 2581 §3.2; 4.4BSD-Lite as described
//! in Stevens & Wright, *TCP/IP Illustrated Vol. 2*, ch. 29) against NewReno
//! (RFC 6582 §3.2) with two losses in one window. Expected values come from
//! the RFCs' rules: Reno leaves fast recovery on the first ACK of new data
//! (step 6) and so needs a second fast retransmit or an RTO for the second
//! loss; NewReno retransmits the next hole on the partial ACK (step 5).

mod util;

use tern_proto::tcp::{Config, Event, RecoveryKind, RetransmitKind, SeqNum};
use tern_proto::time::SimTime;
use util::{ack, drain, events, hand_config, seg_seq, Pair};

const SMSS: u64 = 1460;

fn established(recovery: RecoveryKind) -> Pair {
    Pair::established(Config {
        recovery,
        ..hand_config(false)
    })
}

/// Segments 0..10 are sent, 0 and 4 are lost: segments 1-3 and 5-9 each
/// produce a duplicate ACK for 0 (eight in all); the third starts fast
/// recovery. Returns the pair and the time of the last duplicate ACK.
fn two_losses(recovery: RecoveryKind, bytes: u64) -> (Pair, SimTime, Vec<u32>) {
    let mut p = established(recovery);
    p.client.write(bytes);
    assert_eq!(drain(&mut p.client, p.now).len(), 10);
    events(&mut p.client);
    let now = p.now + SimTime::from_millis(100);
    let c = &mut p.client;
    let mut sent = Vec::new();
    for _ in 0..8 {
        c.handle_segment(now, &ack(seg_seq(0), &[]));
        sent.extend(drain(c, now).iter().map(|s| s.seq.0));
    }
    // RFC 5681 §3.2 steps 2-4: the third duplicate ACK resends segment 0,
    // ssthresh = FlightSize/2 = 7300, cwnd = ssthresh + 3*SMSS, then +SMSS
    // per further duplicate ACK: 7300 + 8*1460 = 18980.
    assert_eq!(sent[0], seg_seq(0));
    assert_eq!(c.ssthresh(), 7300);
    assert_eq!(c.cwnd(), 7300 + 8 * SMSS);
    (p, now, sent)
}

#[test]
fn reno_leaves_recovery_on_partial_ack_then_second_fast_retransmit() {
    let (mut p, now, sent) = two_losses(RecoveryKind::Reno, 20 * SMSS);
    // cwnd 18980 over a FlightSize of 14600 lets 3 new segments out (10-12).
    assert_eq!(&sent[1..], &[seg_seq(10), seg_seq(11), seg_seq(12)]);
    let c = &mut p.client;
    events(c);
    // The retransmitted segment 0 is acknowledged up to the hole at 4.
    let later = now + SimTime::from_millis(100);
    c.handle_segment(later, &ack(seg_seq(4), &[]));
    // Step 6: cwnd = ssthresh and recovery is over; nothing is resent.
    assert!(!c.in_recovery(), "Reno ends recovery on the first new ACK");
    assert_eq!(c.cwnd(), 7300);
    assert!(
        drain(c, later).is_empty(),
        "no retransmission on a partial ACK"
    );
    assert!(events(c).contains(&Event::RecoveryEnded));
    // Segments 10-12 reach the receiver: three duplicate ACKs for 4 start a
    // second fast retransmit (no recovery point guards it), halving again:
    // FlightSize = segments 4..13 = 13140, ssthresh = 6570.
    let mut out = Vec::new();
    for _ in 0..3 {
        c.handle_segment(later, &ack(seg_seq(4), &[]));
        out.extend(drain(c, later));
    }
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, SeqNum(seg_seq(4)));
    assert!(c.in_recovery());
    assert_eq!(c.ssthresh(), 13140 / 2);
    assert_eq!(c.cwnd(), 13140 / 2 + 3 * SMSS);
    assert_eq!(c.stats().retransmits_fast, 2);
}

#[test]
fn reno_without_further_dupacks_waits_for_the_rto() {
    // Only 10 segments to send: after the partial ACK no new segment can
    // raise duplicate ACKs, so the second loss is repaired by the RTO.
    let (mut p, now, sent) = two_losses(RecoveryKind::Reno, 10 * SMSS);
    assert_eq!(sent, vec![seg_seq(0)]);
    let later = now + SimTime::from_millis(100);
    let c = &mut p.client;
    c.handle_segment(later, &ack(seg_seq(4), &[]));
    assert!(!c.in_recovery());
    assert!(drain(c, later).is_empty());
    events(c);
    // RFC 6298 §5.3: the timer was restarted by the new ACK, RTO = 1 s (min_rto).
    let due = c.poll_timeout().expect("retransmission timer armed");
    assert_eq!(due, later + SimTime::from_secs(1));
    c.handle_timeout(due);
    let out = drain(c, due);
    assert_eq!(out[0].seq, SeqNum(seg_seq(4)));
    assert!(events(c).contains(&Event::Retransmit {
        kind: RetransmitKind::Rto,
        seq: SeqNum(seg_seq(4)),
        len: 1460
    }));
}

#[test]
fn newreno_resends_on_the_same_partial_ack() {
    let (mut p, now, _) = two_losses(RecoveryKind::NewReno, 20 * SMSS);
    let c = &mut p.client;
    let later = now + SimTime::from_millis(100);
    c.handle_segment(later, &ack(seg_seq(4), &[]));
    // RFC 6582 §3.2 step 5: the next hole goes out at once, recovery goes on.
    let out = drain(c, later);
    assert_eq!(out[0].seq, SeqNum(seg_seq(4)));
    assert!(c.in_recovery());
    assert_eq!(c.stats().retransmits_fast, 2);
}
