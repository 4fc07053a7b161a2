//! Proportional Rate Reduction (RFC 9937) against RFC 6675's `cwnd - pipe` in one SACK
//! recovery: 20 segments in flight, the first lost, the rest SACKed one per ACK.
//!
//! Segments 0..20 go out (IW 20); SACKs for 1 and 1-2 each let one new segment out
//! (limited transmit, RFC 3042 / RFC 6675 §5 step 3), and the SACK for 1-3 starts recovery
//! with FlightSize 22: ssthresh = 11 segments (RFC 5681 eq. 4), RecoverFS = 22 - 3 SACKed =
//! 19 segments (RFC 9937 §4). ACK k of recovery (k = 1 the one that starts it) reports one
//! more segment delivered.

mod util;

use tern_proto::tcp::{Config, InitialWindow};
use tern_proto::time::SimTime;
use util::{ack, drain, drain_data, hand_config, seg_seq, Pair, Wire, MSS};

/// Data segments sent on each ACK of recovery, k = 1..=19.
fn sends_per_ack(prr: bool) -> Vec<u64> {
    let cfg = Config {
        prr,
        initial_window: InitialWindow::Segments(20),
        ..hand_config(true)
    };
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    let c = &mut p.client;
    c.write(100 * MSS);
    assert_eq!(drain(c, p.now).len(), 20);
    let mut now = p.now + SimTime::from_millis(100);
    for high in 1..=2 {
        c.handle_segment(now, &ack(seg_seq(0), &[(seg_seq(1), seg_seq(high + 1))]));
        assert_eq!(drain_data(c, now).len(), 1, "limited transmit");
    }
    assert!(!c.in_recovery());
    let mut sent = Vec::new();
    for high in 3..=21 {
        now += SimTime::from_millis(1);
        c.handle_segment(now, &ack(seg_seq(0), &[(seg_seq(1), seg_seq(high + 1))]));
        assert!(c.in_recovery());
        assert_eq!(c.ssthresh(), 11 * MSS);
        sent.push(drain_data(c, now).len() as u64);
    }
    sent
}

/// RFC 9937 §4 on this flight, in bytes as the RFC counts them, a segment going out once
/// the allowance covers it. Before ACK k's sends, pipe = 19 + out - k segments (the
/// retransmission of segment 0 counts once it is sent). While pipe > ssthresh the
/// proportional part allows CEIL(k * ssthresh / RecoverFS) - prr_out bytes: segments
/// 11 k / 19 rounded down, less those sent, and at least the fast retransmission on the
/// first ACK. From k = 16 pipe is down to ssthresh and the conservative reduction bound
/// applies (none of these ACKs advances SND.UNA, so none is safe: no SSRB segment):
/// min(ssthresh - pipe, max(prr_delivered - prr_out, DeliveredData)) segments.
#[test]
fn prr_spreads_the_reduction_over_the_acks() {
    let (ssthresh, recover_fs) = (11, 19);
    let mut expected = Vec::new();
    let mut out = 0u64;
    for k in 1..=19u64 {
        let pipe = 19 + out - k;
        let n = if pipe > ssthresh {
            let allowed = (k * ssthresh * MSS).div_ceil(recover_fs) - out * MSS;
            (allowed / MSS).max(u64::from(out == 0))
        } else {
            (ssthresh.saturating_sub(pipe)).min((k - out).max(1))
        };
        out += n;
        expected.push(n);
    }
    assert_eq!(sends_per_ack(true), expected);
    // Eleven segments in all, none of the first eight ACKs silent for long: the
    // reduction is spread over the round trip.
    assert_eq!(expected.iter().sum::<u64>(), 11);
    assert!(expected[..9].iter().sum::<u64>() >= 5);
}

/// RFC 6675 §5: only the retransmission goes out until pipe falls below cwnd = ssthresh
/// = 11 segments. Pipe is 19 after the retransmission and one less per ACK, so ACKs 2-9
/// send nothing and each ACK from 10 on sends one segment.
#[test]
fn rfc6675_waits_for_pipe_to_fall_below_cwnd() {
    let sent = sends_per_ack(false);
    assert_eq!(sent[0], 1, "the fast retransmission");
    assert_eq!(&sent[1..9], &[0; 8]);
    assert!(sent[9..].iter().all(|&n| n == 1), "{sent:?}");
}
