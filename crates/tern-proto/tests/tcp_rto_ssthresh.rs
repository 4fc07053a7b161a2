//! ssthresh at a retransmission timeout (RFC 5681 §3.1). Equation 4,
//! `ssthresh = max(FlightSize/2, 2*SMSS)`, is an upper bound ("no more than") when the
//! timer has not resent the segment before, and ssthresh "is held constant" when it has.
//! During SACK fast recovery (RFC 6675 §5) a lost retransmission holds HighACK back while
//! new data keeps going out and being SACKed, so FlightSize grows far past the flight the
//! loss episode halved: the timeout must not raise ssthresh above the value recovery set
//! (step 4.2), and a second timeout of the same segment must leave it where it is.

mod util;

use tern_proto::tcp::SeqNum;
use tern_proto::time::SimTime;
use util::{ack, drain, drain_data, events, hand_config, seg_seq, Pair, Wire};

const SMSS: u64 = 1460;

fn established() -> Pair {
    let cfg = hand_config(true);
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    p
}

/// Segments 0..10 go out and segment 0 is lost; SACKs for 1, 2, 3 start SACK recovery
/// (RFC 6675 §5: IsLost(HighACK+1) with DupThresh = 3) and segment 0 is resent, with
/// ssthresh = cwnd = FlightSize/2 (step 4.2). With more data to send, the first two SACKs
/// each let a new segment out first (§5 step 3, limited transmit), so FlightSize is 12
/// segments (ssthresh 8760) instead of 10 (7300).
fn in_recovery(bytes: u64, ssthresh: u64) -> (Pair, SimTime) {
    let mut p = established();
    p.client.write(bytes);
    assert_eq!(drain(&mut p.client, p.now).len(), 10);
    let now = p.now + SimTime::from_millis(100);
    let c = &mut p.client;
    let mut resent = Vec::new();
    for k in 1..=3 {
        c.handle_segment(now, &ack(seg_seq(0), &[(seg_seq(1), seg_seq(k + 1))]));
        resent.extend(drain_data(c, now));
    }
    assert!(c.in_recovery());
    assert!(resent.contains(&0), "segment 0 resent: {resent:?}");
    assert_eq!(c.ssthresh(), ssthresh);
    (p, now)
}

#[test]
fn timeout_in_recovery_keeps_the_episodes_ssthresh() {
    let (mut p, mut now) = in_recovery(100 * SMSS, 12 * SMSS / 2);
    let c = &mut p.client;
    // The retransmission of 0 is lost too. Every segment from 1 on arrives and is SACKed;
    // each SACK lets new data out (RFC 6675 §5 step C), so FlightSize grows with no ACK
    // of new data.
    let mut high = 3; // highest SACKed segment
    let mut top = 9; // highest segment sent
    while high < 40 {
        now += SimTime::from_millis(10);
        high += 1;
        c.handle_segment(now, &ack(seg_seq(0), &[(seg_seq(1), seg_seq(high + 1))]));
        top = drain_data(c, now).into_iter().fold(top, u32::max);
    }
    assert!(c.in_recovery(), "no ACK of new data, recovery goes on");
    // FlightSize: everything from segment 0 to the highest sent is unacknowledged.
    let flight = u64::from(top + 1) * SMSS;
    assert!(
        flight / 2 > 8760,
        "eq. 4 would raise ssthresh to {}",
        flight / 2
    );
    events(c);
    let due = c.poll_timeout().expect("retransmission timer armed");
    c.handle_timeout(due);
    // Loss window (RFC 5681 §3.1): cwnd = 1 SMSS; ssthresh stays at recovery's 8760.
    assert_eq!(c.cwnd(), SMSS);
    assert_eq!(c.ssthresh(), 8760);
    let out = drain(c, due);
    assert_eq!(out[0].seq, SeqNum(seg_seq(0)));
    // The timer's retransmission is lost as well: the second timeout of a segment the
    // timer has already resent holds ssthresh constant.
    let due2 = c.poll_timeout().expect("timer restarted");
    assert!(due2 > due);
    c.handle_timeout(due2);
    assert_eq!(c.cwnd(), SMSS);
    assert_eq!(c.ssthresh(), 8760);
    assert_eq!(c.stats().rto_expiries, 2);
}

#[test]
fn timeout_in_recovery_lowers_ssthresh_to_equation_4() {
    // Only the 10 segments: nothing new goes out during recovery.
    let (mut p, now) = in_recovery(10 * SMSS, 10 * SMSS / 2);
    let c = &mut p.client;
    // The retransmission of 0 arrives and the receiver holds 1..=7: the cumulative ACK
    // moves to 8; segments 8 and 9 are lost. A partial ACK: recovery goes on.
    let later = now + SimTime::from_millis(100);
    c.handle_segment(later, &ack(seg_seq(8), &[]));
    drain(c, later);
    assert!(c.in_recovery());
    let due = c.poll_timeout().expect("retransmission timer armed");
    c.handle_timeout(due);
    // FlightSize = segments 8 and 9 = 2920: eq. 4 gives max(1460, 2920) = 2920, below
    // recovery's 7300, and ssthresh may be no more than that.
    assert_eq!(c.ssthresh(), 2 * SMSS);
    assert_eq!(c.cwnd(), SMSS);
}
