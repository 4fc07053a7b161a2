//! RFC 7323 timestamps on the receiving side: TS.Recent (§4.3) and PAWS (§5.3). Expected
//! values come from the RFC's rules, not from earlier runs.

mod util;

use tern_proto::tcp::{Config, Segment};
use tern_proto::time::SimTime;
use util::{drain, Pair, Wire};

/// A pair with timestamps on both sides, its handshake done, and the client's next data
/// segment of 100 bytes (taken off the wire, to be replayed by hand).
fn established_with_a_segment() -> (Pair, Segment) {
    let mut p = Pair::new(Config::default(), Config::default(), Wire::default(), 1);
    p.handshake();
    p.client.write(200);
    let now = SimTime::from_secs(1);
    let sent = drain(&mut p.client, now);
    assert_eq!(sent.len(), 1, "{sent:?}");
    let mut seg = sent[0].clone();
    seg.payload_len = 100;
    (p, seg)
}

#[test]
fn an_older_tsval_is_dropped_and_acknowledged() {
    let (mut p, seg) = established_with_a_segment();
    let now = SimTime::from_secs(1);
    let (tsval, tsecr) = seg.options.timestamps.unwrap();
    // In order and newer: delivered, and its TSval becomes TS.Recent (echoed next).
    p.server.handle_segment(now, &seg);
    assert_eq!(p.server.readable(), 100);
    // The delayed ACK (RFC 5681 §4.2) leaves when its timer fires.
    let later = now + SimTime::from_millis(300);
    p.server.handle_timeout(later);
    let acks = drain(&mut p.server, later);
    assert_eq!(acks.last().unwrap().options.timestamps.unwrap().1, tsval);
    // The next 100 bytes with a TSval one tick older than TS.Recent: an old duplicate
    // (R1): dropped, answered with an ACK at once, TS.Recent kept.
    let mut old = seg.clone();
    old.seq = seg.seq + 100;
    old.options.timestamps = Some((tsval.wrapping_sub(1), tsecr));
    p.server.handle_segment(now, &old);
    assert_eq!(p.server.readable(), 100);
    assert_eq!(p.server.stats().paws_dropped, 1);
    let acks = drain(&mut p.server, now);
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].ack, old.seq, "still expecting the dropped bytes");
    assert_eq!(acks[0].options.timestamps.unwrap().1, tsval);
    // The same bytes with an equal TSval (§5.3 R1 drops only older ones) are taken.
    old.options.timestamps = Some((tsval, tsecr));
    p.server.handle_segment(now, &old);
    assert_eq!(p.server.readable(), 200);
}

#[test]
fn tsval_comparison_wraps_as_serial_numbers() {
    let (mut p, mut seg) = established_with_a_segment();
    let now = SimTime::from_secs(1);
    // TS.Recent walked up to just below 2^32 in steps under 2^31, then a TSval that
    // wrapped past zero: each is newer (RFC 7323 §5.2: the clock is compared modulo 2^32,
    // a TSval less than 2^31 ahead being newer).
    let (ts0, tsecr) = seg.options.timestamps.unwrap();
    let walk = [
        ts0.wrapping_add(1 << 30),
        ts0.wrapping_add(1 << 31),
        u32::MAX - 5,
        3,
    ];
    for (k, tsval) in walk.into_iter().enumerate() {
        seg.options.timestamps = Some((tsval, tsecr));
        p.server.handle_segment(now, &seg);
        assert_eq!(p.server.readable(), 100 * (k as u64 + 1), "TSval {tsval}");
        // Acknowledged (the delayed ACK's timer), so Last.ACK.sent reaches the next
        // segment, whose TSval then becomes TS.Recent (§4.3).
        let later = now + SimTime::from_millis(300);
        p.server.handle_timeout(later);
        drain(&mut p.server, later);
        seg.seq = seg.seq + 100;
    }
    assert_eq!(p.server.stats().paws_dropped, 0);
    // 2^31 behind is older: dropped.
    seg.options.timestamps = Some((3u32.wrapping_sub(1 << 31), tsecr));
    p.server.handle_segment(now, &seg);
    assert_eq!(p.server.stats().paws_dropped, 1);
}
