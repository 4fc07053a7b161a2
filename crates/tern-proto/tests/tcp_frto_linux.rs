//! Linux's response to a spurious retransmission timeout (`SpuriousRtoResponse::LinuxUndo`):
//! `tcp_process_loss` → `tcp_try_undo_loss(sk, true)` → `tcp_undo_cwnd_reduction`
//! (net/ipv4/tcp_input.c), against the Eifel response (RFC 4015 §2) on the same stories.
//! Expected values are worked out from the kernel's rule in the comments.

mod util;

const FIRST: u64 = 300;

use tern_proto::tcp::{Config, Event, SeqNum, SpuriousRtoResponse};
use tern_proto::time::SimTime;
use util::{hand_config, ms, rto_expiry_times, seg_seq, Pair, Side, Wire, MSS};

fn config(sack: bool, response: SpuriousRtoResponse) -> Config {
    Config {
        frto: true,
        spurious_rto_response: response,
        ..hand_config(sack)
    }
}

fn spurious(p: &Pair) -> Vec<(u64, u64)> {
    p.client_events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::SpuriousRto { cwnd, ssthresh } => Some((*cwnd, *ssthresh)),
            _ => None,
        })
        .collect()
}

/// A connection whose first transfer of 40 segments lost segment 12 once (a fast
/// retransmit, so ssthresh is finite), then idle; the path delay then rises from 50 ms to
/// 700 ms each way and the client writes 20 segments, whose ACKs come after the 1 s RTO.
/// Returns the pair and (cwnd, ssthresh) just before the spike.
fn after_recovery_then_spike(sack: bool, response: SpuriousRtoResponse) -> (Pair, u64, u64) {
    let cfg = config(sack, response);
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    let mut dropped = false;
    p.drop_fn = Some(Box::new(move |side, seg| {
        let drop = side == Side::Client
            && seg.payload_len > 0
            && seg.seq == SeqNum(seg_seq(12))
            && !dropped;
        dropped |= drop;
        drop
    }));
    p.client.write(FIRST * MSS);
    p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
    p.run_until(p.now + SimTime::from_secs(2));
    let before = (p.client.cwnd(), p.client.ssthresh());
    p.wire.delay = ms(700);
    p.client.write(40 * MSS);
    p.client_events.clear();
    p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
    (p, before.0, before.1)
}

/// Before the spike: 300 segments, segment 12 lost once, so fast recovery set ssthresh to
/// half the flight (8 segments without SACK, 9 with: the flights differ by the ACK that
/// entered recovery) and congestion avoidance grew cwnd to 25 segments (36 500 B) by the
/// end. The spike's 40 segments: 25 in flight when the RTO fires (t = 5.25 s / 5.15 s),
/// F-RTO sends two new ones on the first ACK and the second ACK, of never-retransmitted
/// data, makes the timeout spurious (step 3b).
///
/// Linux (`tcp_enter_loss`, `tcp_current_ssthresh` outside a reduction):
///   prior_cwnd = 25 segments = 36 500 B;
///   prior_ssthresh = max(ssthresh, (25 >> 1) + (25 >> 2) = 12 + 6 = 18 segments) = 26 280 B.
/// On the undo (`tcp_undo_cwnd_reduction`): cwnd = max(cwnd, prior_cwnd) = 36 500 B (cwnd
/// after the timeout is 1 segment plus two ACKs of slow start, below it); ssthresh =
/// max(ssthresh after the timeout, 26 280) = 26 280 B (the timeout's ssthresh is half
/// the 25-segment flight, 18 250 B).
///
/// Eifel (RFC 4015 §2): ssthresh = pipe_prev = max(FlightSize = 36 500, ssthresh) = 36 500 B;
/// cwnd = FlightSize + min(bytes_acked, IW) = 23 + 2 segments = 36 500 B.
#[test]
fn linux_undo_restores_prior_cwnd_and_three_quarters_ssthresh() {
    for sack in [false, true] {
        let (p, c, s) = after_recovery_then_spike(sack, SpuriousRtoResponse::LinuxUndo);
        let ssthresh_before = if sack { 9 * MSS } else { 8 * MSS };
        assert_eq!((c, s), (25 * MSS, ssthresh_before), "sack={sack}");
        assert_eq!(rto_expiry_times(&p).len(), 1, "sack={sack}");
        assert_eq!(spurious(&p), vec![(25 * MSS, 18 * MSS)], "sack={sack}");
        assert_eq!(p.client.stats().spurious_rtos, 1);
        assert_eq!(p.client.stats().retransmits_rto, 1, "no go-back-N");

        let (p, _, _) = after_recovery_then_spike(sack, SpuriousRtoResponse::Eifel);
        assert_eq!(spurious(&p), vec![(25 * MSS, 25 * MSS)], "sack={sack}");
    }
}

/// With ssthresh still "arbitrarily high" (no loss before the timeout) both responses give
/// the window back and leave slow start's threshold infinite: Linux's prior_ssthresh =
/// max(∞, ¾·cwnd) = ∞ (`tcp_current_ssthresh`), so the undo restores it; Eifel's pipe_prev
/// = max(FlightSize, ∞) = ∞. An IW of 10 segments is the prior cwnd, and the transfer
/// needs no other timeout or retransmission.
#[test]
fn linux_undo_after_a_first_window_restores_slow_start() {
    for sack in [false, true] {
        let cfg = config(sack, SpuriousRtoResponse::LinuxUndo);
        let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
        p.handshake();
        p.wire.delay = ms(700);
        p.client.write(20 * MSS);
        p.client_events.clear();
        p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
        assert_eq!(spurious(&p), vec![(10 * MSS, u64::MAX)], "sack={sack}");
        assert_eq!(p.server_read, 20 * MSS);
        assert_eq!(p.client.stats().retransmits_rto, 1);
    }
}
