//! F-RTO (RFC 5682) and the Eifel response (RFC 4015): expected values
//! come from the RFC text, worked out in the comments.

mod util;

use std::ops::Bound::{Excluded, Included};

use tern_proto::tcp::{CcKind, Config, Connection, Event, RetransmitKind, SeqNum};
use tern_proto::time::SimTime;
use util::{
    ack, ack_wnd, client_data, drain_data, events, hand_config, ms, retransmits, rto_expiry_times,
    seg_seq, Pair, Side, Wire, MSS,
};

/// No timestamps / window scaling so segments are easy to craft by hand;
/// IW = 10 segments, min RTO 1 s (RFC 6298), delayed ACKs every 2 segments.
fn plain(sack: bool, frto: bool) -> Config {
    Config {
        frto,
        ..hand_config(sack)
    }
}

fn spurious_events(p: &Pair) -> Vec<(SimTime, u64, u64)> {
    p.client_events
        .iter()
        .filter_map(|(t, e)| match e {
            Event::SpuriousRto { cwnd, ssthresh } => Some((*t, *cwnd, *ssthresh)),
            _ => None,
        })
        .collect()
}

/// The story of the study: an idle connection whose RTT estimate is 100 ms
/// (from its handshake) is used after the path delay rose to 700 ms each
/// way (RTT 1.4 s). The client writes 20 segments: IW = 10 go out at t0.
/// The receiver's ACKs (one per 2 segments) come back at t0 + 1.4 s, but
/// the RTO (1 s: SRTT 100 ms + 4*RTTVAR 50 ms = 300 ms, raised to min_rto)
/// fires at t0 + 1 s, spuriously.
fn delay_spike(sack: bool, frto: bool) -> (Pair, SimTime) {
    let cfg = plain(sack, frto);
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    assert_eq!(p.client.srtt(), Some(ms(100)));
    assert_eq!(p.client.rto(), SimTime::from_secs(1));
    // Before the timeout: IW, ssthresh "arbitrarily high" (RFC 5681 §3.1).
    assert_eq!((p.client.cwnd(), p.client.ssthresh()), (10 * MSS, u64::MAX));
    p.wire.delay = ms(700);
    let t0 = p.now;
    p.client.write(20 * MSS);
    p.client_events.clear();
    (p, t0)
}

/// RFC 5682 with the delay spike, both algorithms (§2 basic, §3 SACK).
#[test]
fn delay_spike_detected_as_spurious() {
    for sack in [false, true] {
        let (mut p, t0) = delay_spike(sack, true);
        p.run_until(t0 + ms(1399));
        // The timer fired once, at t0 + 1 s; step 1 resent segment 0 only.
        assert_eq!(rto_expiry_times(&p), vec![t0 + ms(1000)], "sack={sack}");
        assert_eq!(
            client_data(&p, (Excluded(t0 - ms(1)), Included(p.now))),
            (0..10)
                .map(|i| (t0, i))
                .chain([(t0 + ms(1000), 0)])
                .collect::<Vec<_>>()
        );
        assert_eq!(
            retransmits(&p),
            vec![(t0 + ms(1000), RetransmitKind::Rto, 0)]
        );
        // RFC 5681 §3.1 still applies at the timeout: cwnd = 1 SMSS,
        // ssthresh = max(FlightSize/2, 2*SMSS) = 14600/2.
        assert_eq!((p.client.cwnd(), p.client.ssthresh()), (MSS, 7300));

        // First ACK after the timeout (t0 + 1.4 s): ACK of segments 0-1, the
        // original transmissions. New data, not all outstanding: step 2b
        // sends two new segments, 10 and 11, not retransmissions.
        let t1 = t0 + ms(1400);
        p.step();
        assert_eq!(p.now, t1);
        assert_eq!(
            client_data(&p, (Excluded(t1 - ms(1)), Included(t1))),
            vec![(t1, 10), (t1, 11)]
        );
        assert!(spurious_events(&p).is_empty());
        assert_eq!(p.client.stats().retransmits_rto, 1);

        // Second ACK (segments 2-3, never retransmitted): step 3b, the
        // timeout was spurious. Eifel response (RFC 4015 §2):
        // cwnd <- FlightSize + min(bytes_acked, IW) = 8 segs (4..11) + 2 segs
        //       = 14600, the window before the timeout;
        // ssthresh <- pipe_prev = max(FlightSize 14600, ssthresh) = u64::MAX,
        //       the threshold before the timeout.
        p.step();
        assert_eq!(p.now, t1);
        assert_eq!(spurious_events(&p), vec![(t1, 10 * MSS, u64::MAX)]);
        assert_eq!((p.client.cwnd(), p.client.ssthresh()), (10 * MSS, u64::MAX));
        assert_eq!(p.client.stats().spurious_rtos, 1);
        // New data follows within the restored window (pipe 8 segments,
        // cwnd 10): segments 12 and 13, no go-back-N.
        assert_eq!(
            client_data(&p, (Excluded(t1 - ms(1)), Included(t1))),
            vec![(t1, 10), (t1, 11), (t1, 12), (t1, 13)]
        );

        // The transfer finishes with that single retransmission and timeout.
        p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
        assert_eq!(p.server_read, 20 * MSS);
        assert_eq!(retransmits(&p).len(), 1);
        assert_eq!(rto_expiry_times(&p).len(), 1);
        assert_eq!(p.client.stats().retransmits_rto, 1);
    }
}

/// Same story without F-RTO (RFC 5681 / RFC 6298 conventional recovery):
/// ssthresh = max(FlightSize/2, 2*SMSS) and go-back-N resends segments that
/// were delivered.
#[test]
fn delay_spike_without_frto_goes_back_n() {
    for sack in [false, true] {
        let (mut p, t0) = delay_spike(sack, false);
        p.run_until(t0 + ms(1399));
        assert_eq!(rto_expiry_times(&p), vec![t0 + ms(1000)]);
        // RFC 5681 eq. 4: max(14600/2, 2*1460) = 7300; cwnd = 1 SMSS.
        assert_eq!((p.client.cwnd(), p.client.ssthresh()), (MSS, 7300));
        // First ACK (segments 0-1): slow start, cwnd 2 SMSS, and the next
        // two "lost" segments, 2 and 3, are resent although delivered.
        let t1 = t0 + ms(1400);
        p.step();
        assert_eq!(
            client_data(&p, (Excluded(t1 - ms(1)), Included(t1))),
            vec![(t1, 2), (t1, 3)]
        );
        // The other ACKs of the first window clock out the rest of it.
        p.run_until(t1);
        assert_eq!(p.client.ssthresh(), 7300, "sack={sack}");
        let rto_retx: Vec<_> = retransmits(&p)
            .into_iter()
            .filter(|r| r.1 == RetransmitKind::Rto)
            .map(|r| (r.0, r.2))
            .collect();
        let expected: Vec<_> = [(t0 + ms(1000), 0)]
            .into_iter()
            .chain((2..10).map(|i| (t1, i)))
            .collect();
        assert_eq!(rto_retx, expected, "sack={sack}");
        p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
        assert_eq!(p.server_read, 20 * MSS);
        assert!(spurious_events(&p).is_empty());
        assert_eq!(p.client.stats().spurious_rtos, 0);
    }
}

/// With timestamps (RFC 7323) the ACK of the resent segment still gives an
/// RTT sample (its TSecr echoes the original transmission), F-RTO or not;
/// and the RTO re-initialisation of the Eifel response (RFC 4015 §2) uses
/// the first sample for data sent after the timeout.
#[test]
fn rtt_samples_and_eifel_rto_reinit() {
    for ts in [false, true] {
        let cfg = Config {
            timestamps: ts,
            ..plain(false, true)
        };
        let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
        p.handshake();
        let smss = u64::from(p.client.smss());
        assert_eq!(p.client.srtt(), Some(ms(100)));
        p.wire.delay = ms(700);
        let t0 = p.now;
        p.client.write(20 * smss);
        p.client_events.clear();
        p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
        assert_eq!(p.server_read, 20 * smss);
        assert_eq!(spurious_events(&p).len(), 1);
        assert_eq!(p.client.stats().retransmits_rto, 1);
        let samples: Vec<(SimTime, SimTime, SimTime, SimTime)> = p
            .client_events
            .iter()
            .filter_map(|(t, e)| match e {
                Event::RttUpdated { srtt, rttvar, rto } => Some((*t - t0, *srtt, *rttvar, *rto)),
                _ => None,
            })
            .collect();
        // First sample at t0 + 1.4 s, 1.4 s long: from the ACK of segments
        // 0-1 with timestamps (segment 0 was resent: Karn forbids a sample
        // without them), from the ACK of segments 2-3 otherwise. RFC 6298:
        // SRTT = 7/8*100 + 1/8*1400 = 262.5 ms,
        // RTTVAR = 3/4*50 + 1/4*1300 = 362.5 ms.
        assert_eq!(samples[0].0, ms(1400), "ts={ts}");
        assert_eq!(samples[0].1, SimTime::from_micros(262_500));
        assert_eq!(samples[0].2, SimTime::from_micros(362_500));
        // The first ACK of data sent after the timeout (segments 10-11,
        // sent at t0 + 1.4 s, acknowledged at t0 + 2.8 s), m = 1.4 s:
        // SRTT = max(SRTT_prev = 100 + 2*1 ms, m) = 1.4 s,
        // RTTVAR = max(RTTVAR_prev = 50 ms, m/2) = 700 ms,
        // RTO = SRTT + max(G, 4*RTTVAR) = 4.2 s.
        let reinit = samples
            .iter()
            .find(|s| s.0 == ms(2800))
            .expect("sample at t0 + 2.8 s");
        assert_eq!(
            (reinit.1, reinit.2, reinit.3),
            (ms(1400), ms(700), ms(4200)),
            "ts={ts}"
        );
        // No further timeout on the 1.4 s path.
        assert_eq!(rto_expiry_times(&p).len(), 1);
    }
}

/// A genuine loss: the first transmission of the whole first window is
/// lost (wire delay 50 ms). RTO at t0 + 1 s, step 1 resends segment 0; its
/// (delayed, 200 ms) ACK at t0 + 1.3 s covers segment 0 only: step 2b sends
/// new segments 10 and 11; they arrive out of order and the receiver sends
/// duplicate ACKs (t0 + 1.4 s): step 3a, conventional recovery with
/// cwnd = 3 SMSS resending segments 1..9. Never declared spurious.
#[test]
fn genuine_loss_falls_back_to_conventional_recovery() {
    for sack in [false, true] {
        let cfg = plain(sack, true);
        let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
        p.handshake();
        let t0 = p.now;
        let mut seen = std::collections::BTreeSet::new();
        p.drop_fn = Some(Box::new(move |side, seg| {
            side == Side::Client
                && seg.payload_len > 0
                && seg.seq.diff(SeqNum(seg_seq(10))) < 0
                && seen.insert(seg.seq.0)
        }));
        p.client.write(20 * MSS);
        p.client_events.clear();
        p.run_until(t0 + ms(1300));
        assert_eq!(rto_expiry_times(&p), vec![t0 + ms(1000)]);
        assert_eq!(
            client_data(&p, (Excluded(t0 + ms(1)), Included(p.now))),
            vec![(t0 + ms(1000), 0), (t0 + ms(1300), 10), (t0 + ms(1300), 11)],
            "sack={sack}"
        );
        // First duplicate ACK: step 3a.
        p.run_until(t0 + ms(1399));
        p.step();
        assert_eq!(p.now, t0 + ms(1400));
        assert_eq!(p.client.cwnd(), 3 * MSS, "sack={sack}");
        // pipe: without SACK segments 10 and 11 count (room for 1); with
        // SACK the duplicate ACK SACKed segment 10 (room for 2).
        let resent: Vec<u32> = client_data(&p, (Excluded(t0 + ms(1399)), Included(p.now)))
            .into_iter()
            .map(|x| x.1)
            .collect();
        assert_eq!(resent, if sack { vec![1, 2] } else { vec![1] });
        p.run_while(100_000, |p| p.client.unacked_bytes() > 0);
        assert_eq!(p.server_read, 20 * MSS);
        assert!(spurious_events(&p).is_empty());
        assert_eq!(p.client.stats().spurious_rtos, 0);
        // Segments 0..9 were each resent once, by the timeout's recovery.
        let mut retx: Vec<u32> = retransmits(&p)
            .iter()
            .filter(|r| r.1 == RetransmitKind::Rto)
            .map(|r| r.2)
            .collect();
        retx.sort_unstable();
        assert_eq!(retx, (0..10).collect::<Vec<_>>(), "sack={sack}");
        assert_eq!(rto_expiry_times(&p).len(), 1);
    }
}

// ---- State machine alone: one ACK in, the exact segments out. ----

/// An established client (handshake RTT 100 ms) that wrote `written`
/// segments and sent the first 10 (IW), then had its RTO fire: returns it
/// with the time of the timeout, after checking step 1 resent segment 0.
fn timed_out(cfg: Config, written: u64) -> (Connection, SimTime) {
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    let mut c = p.client;
    c.write(written * MSS);
    assert_eq!(drain_data(&mut c, p.now), (0..10).collect::<Vec<_>>());
    let t = c.poll_timeout().expect("RTO armed");
    assert_eq!(t, p.now + SimTime::from_secs(1));
    c.handle_timeout(t);
    assert_eq!(drain_data(&mut c, t), vec![0], "step 1: first segment only");
    events(&mut c);
    (c, t)
}

fn is_spurious(e: &Event) -> bool {
    matches!(e, Event::SpuriousRto { .. })
}

/// §2 step 2a: with the basic algorithm a duplicate ACK first means
/// conventional recovery: segments 1..9 become lost (pipe = segment 0's
/// retransmission only) and slow start resends them from the next ACK on.
/// §3 step 2: the SACK-enhanced algorithm stays in step 2 and only updates
/// the scoreboard, then goes on to step 2b on the ACK of segment 0.
#[test]
fn duplicate_ack_in_step_2() {
    for sack in [false, true] {
        let (mut c, t) = timed_out(plain(sack, true), 20);
        let now = t + ms(100);
        c.handle_segment(now, &ack(seg_seq(0), &[(seg_seq(5), seg_seq(6))]));
        assert!(drain_data(&mut c, now).is_empty());
        if sack {
            // Segment 5 SACKed; everything else still in flight.
            assert_eq!(c.bytes_in_flight(), 9 * MSS);
        } else {
            assert_eq!(c.bytes_in_flight(), MSS);
        }
        // ACK of segment 0: basic, slow start (cwnd 2) resends 1 and 2;
        // SACK-enhanced, step 2b sends new segments 10 and 11.
        c.handle_segment(now, &ack(seg_seq(1), &[(seg_seq(5), seg_seq(6))]));
        let out = drain_data(&mut c, now);
        let evs = events(&mut c);
        if sack {
            assert_eq!(out, vec![10, 11]);
            assert!(!evs.iter().any(|e| matches!(e, Event::Retransmit { .. })));
        } else {
            assert_eq!(out, vec![1, 2]);
            assert!(evs.contains(&Event::Retransmit {
                kind: RetransmitKind::Rto,
                seq: SeqNum(seg_seq(1)),
                len: 1460
            }));
        }
        assert_eq!(c.cwnd(), 2 * MSS);
        assert!(!evs.iter().any(is_spurious));
    }
}

/// Step 2b cannot send new data — the application wrote nothing more, or
/// the receiver's window ends at SND.NXT: the recommended action (§2 step
/// 2b, §3 step 2b) is conventional recovery, so the next two segments of
/// the old window are resent at once (cwnd 2 SMSS).
#[test]
fn no_new_data_in_step_2b_means_conventional_recovery() {
    for sack in [false, true] {
        for window_limited in [false, true] {
            let written = if window_limited { 20 } else { 10 };
            let (mut c, t) = timed_out(plain(sack, true), written);
            let now = t + ms(400);
            // ACK of segments 0-1; with window_limited the window is 8
            // segments, so SND.UNA + window = SND.NXT (segment 10).
            let wnd = if window_limited { 8 * 1460 } else { 65535 };
            c.handle_segment(now, &ack_wnd(seg_seq(2), &[], wnd));
            assert_eq!(drain_data(&mut c, now), vec![2, 3], "sack={sack}");
            assert_eq!(c.cwnd(), 2 * MSS);
            let evs = events(&mut c);
            assert!(!evs.iter().any(is_spurious));
            assert_eq!(c.stats().retransmits_rto, 3);
        }
    }
}

/// §2/§3 step 2a: the first ACK acknowledges everything outstanding
/// ("covers recover"): conventional recovery, nothing declared.
#[test]
fn ack_of_everything_in_step_2_is_not_spurious() {
    for sack in [false, true] {
        let (mut c, t) = timed_out(plain(sack, true), 20);
        let now = t + ms(400);
        c.handle_segment(now, &ack(seg_seq(10), &[]));
        assert!(!events(&mut c).iter().any(is_spurious));
        assert_eq!(c.stats().spurious_rtos, 0);
        // cwnd no more than 2 SMSS; slow start sends segments 10, 11.
        assert_eq!(c.cwnd(), 2 * MSS);
        assert_eq!(drain_data(&mut c, now), vec![10, 11]);
    }
}

/// §3 step 3: SACK information decides. SACK of new data above
/// RecoveryPoint (the step 2b segments) is step 3a: conventional recovery
/// with cwnd 3 SMSS; segment 10 SACKed leaves segment 11 in the pipe, room
/// for two retransmissions (1 and 2). SACK of an old, never retransmitted
/// segment below RecoveryPoint is step 3b: spurious, with
/// cwnd <- FlightSize (segments 1..11) + min(bytes_acked = 0, IW) = 16060
/// and ssthresh <- pipe_prev = max(14600, u64::MAX).
#[test]
fn sack_information_decides_step_3() {
    for below in [false, true] {
        let (mut c, t) = timed_out(plain(true, true), 20);
        let now = t + ms(400);
        c.handle_segment(now, &ack(seg_seq(1), &[]));
        assert_eq!(drain_data(&mut c, now), vec![10, 11]);
        let block = if below {
            (seg_seq(5), seg_seq(6))
        } else {
            (seg_seq(10), seg_seq(11))
        };
        c.handle_segment(now, &ack(seg_seq(1), &[block]));
        let out = drain_data(&mut c, now);
        let evs = events(&mut c);
        if below {
            assert!(evs.contains(&Event::SpuriousRto {
                cwnd: 16060,
                ssthresh: u64::MAX
            }));
            // pipe 10 segments (1..11 minus 5): one new segment fits.
            assert_eq!(out, vec![12]);
        } else {
            assert!(!evs.iter().any(is_spurious));
            assert_eq!(c.cwnd(), 3 * MSS);
            assert_eq!(out, vec![1, 2]);
        }
    }
}

/// §2 step 3a (basic): a duplicate ACK after step 2b means conventional
/// recovery, cwnd 3 SMSS; segments 10 and 11 fill the pipe but one: the
/// first retransmission, segment 1, goes out.
#[test]
fn basic_duplicate_ack_in_step_3_is_genuine() {
    let (mut c, t) = timed_out(plain(false, true), 20);
    let now = t + ms(400);
    c.handle_segment(now, &ack(seg_seq(1), &[]));
    assert_eq!(drain_data(&mut c, now), vec![10, 11]);
    c.handle_segment(now, &ack(seg_seq(1), &[]));
    assert_eq!(c.cwnd(), 3 * MSS);
    assert_eq!(drain_data(&mut c, now), vec![1]);
    assert!(!events(&mut c).iter().any(is_spurious));
}

/// Repeated timeouts while waiting in step 2 go back to step 1 (§3 step 2):
/// each resends segment 0 only; detection then restores the state saved
/// before the first timeout (ssthresh arbitrarily high again, not the
/// 7300 of the timeouts). A timeout after step 2b is conventional.
#[test]
fn repeated_timeouts() {
    for sack in [false, true] {
        let (mut c, t) = timed_out(plain(sack, true), 20);
        // Second expiry, 2 s later (backed off): segment 0 again.
        let t2 = c.poll_timeout().unwrap();
        assert_eq!(t2, t + SimTime::from_secs(2));
        c.handle_timeout(t2);
        assert_eq!(drain_data(&mut c, t2), vec![0]);
        assert_eq!(c.ssthresh(), 7300);
        let now = t2 + ms(100);
        c.handle_segment(now, &ack(seg_seq(2), &[]));
        assert_eq!(drain_data(&mut c, now), vec![10, 11]);
        c.handle_segment(now, &ack(seg_seq(4), &[]));
        // FlightSize 4..11 = 8 segments + min(2 segments, IW) = 14600.
        assert!(events(&mut c).contains(&Event::SpuriousRto {
            cwnd: 14600,
            ssthresh: u64::MAX
        }));
        assert_eq!(c.stats().retransmits_rto, 2);
        assert_eq!(c.stats().spurious_rtos, 1);

        // Timeout after step 2b: conventional, go-back-N.
        let (mut c, t) = timed_out(plain(sack, true), 20);
        let now = t + ms(400);
        c.handle_segment(now, &ack(seg_seq(1), &[]));
        assert_eq!(drain_data(&mut c, now), vec![10, 11]);
        let t3 = c.poll_timeout().unwrap();
        c.handle_timeout(t3);
        assert_eq!(drain_data(&mut c, t3), vec![1]);
        // Everything outstanding is now lost but the resent segment 1.
        assert_eq!(c.bytes_in_flight(), MSS);
        let later = t3 + ms(100);
        c.handle_segment(later, &ack(seg_seq(2), &[]));
        assert_eq!(drain_data(&mut c, later), vec![2, 3]);
        assert!(!events(&mut c).iter().any(is_spurious));
    }
}

/// CUBIC: the spurious timeout gives back ssthresh and a window per RFC
/// 4015 (the controller's other state is the pre-timeout copy).
#[test]
fn cubic_spurious_rto_restores_window() {
    let cfg = Config {
        cc: CcKind::Cubic,
        ..plain(true, true)
    };
    let (mut c, t) = timed_out(cfg, 20);
    // RFC 9438 §4.8: ssthresh = 0.7 * 10 segments, cwnd 1 segment.
    assert_eq!((c.cwnd(), c.ssthresh()), (MSS, 7 * MSS));
    let now = t + ms(400);
    c.handle_segment(now, &ack(seg_seq(2), &[]));
    assert_eq!(drain_data(&mut c, now), vec![10, 11]);
    c.handle_segment(now, &ack(seg_seq(4), &[]));
    assert!(events(&mut c).contains(&Event::SpuriousRto {
        cwnd: 14600,
        ssthresh: u64::MAX
    }));
    assert_eq!((c.cwnd(), c.ssthresh()), (14600, u64::MAX));
}

/// F-RTO off (the default): the same timeout resends go-back-N.
#[test]
fn default_is_conventional() {
    assert!(!Config::default().frto);
    let mut p = Pair::new(plain(false, false), plain(false, false), Wire::default(), 1);
    p.handshake();
    let mut c = p.client;
    c.write(20 * MSS);
    assert_eq!(drain_data(&mut c, p.now).len(), 10);
    let t = c.poll_timeout().unwrap();
    c.handle_timeout(t);
    assert_eq!(drain_data(&mut c, t), vec![0]);
    // Every outstanding segment is lost but the resent one.
    assert_eq!(c.bytes_in_flight(), MSS);
    let now = t + ms(400);
    c.handle_segment(now, &ack(seg_seq(2), &[]));
    assert_eq!(drain_data(&mut c, now), vec![2, 3]);
}

/// The study's case with Linux's 200 ms minimum RTO: the stale RTO is
/// 300 ms (SRTT 100 ms + 4 * RTTVAR 50 ms), so on the 1.4 s path the timer
/// expires twice (t0 + 0.3 s, then backed off to 600 ms: t0 + 0.9 s) before
/// the first ACK. With F-RTO both expiries stay in step 1 and resend
/// segment 0 only; the ACKs at t0 + 1.4 s reveal the spurious timeout and
/// the pre-timeout state comes back (cwnd 8 + 2 segments = 14600, ssthresh
/// arbitrarily high). Without F-RTO the timeouts repeat and ssthresh falls
/// to its floor of 2 SMSS (RFC 5681 eq. 4), and the 200-segment transfer
/// takes much longer.
#[test]
fn stale_rto_with_linux_min_rto() {
    let mut took = Vec::new();
    for frto in [false, true] {
        let cfg = Config {
            min_rto: ms(200),
            ..plain(true, frto)
        };
        let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
        p.handshake();
        assert_eq!(p.client.rto(), ms(300));
        p.wire.delay = ms(700);
        let t0 = p.now;
        p.client.write(200 * MSS);
        p.client_events.clear();
        p.run_while(1_000_000, |p| p.client.unacked_bytes() > 0);
        assert_eq!(p.server_read, 200 * MSS);
        let min_ssthresh = p
            .client_events
            .iter()
            .filter_map(|(_, e)| match e {
                Event::CwndChanged { ssthresh, .. } => Some(*ssthresh),
                _ => None,
            })
            .min();
        let expiries: Vec<SimTime> = rto_expiry_times(&p).iter().map(|t| *t - t0).collect();
        if frto {
            assert_eq!(expiries, vec![ms(300), ms(900)]);
            assert_eq!(
                retransmits(&p)
                    .iter()
                    .map(|r| (r.0 - t0, r.2))
                    .collect::<Vec<_>>(),
                vec![(ms(300), 0), (ms(900), 0)]
            );
            assert_eq!(
                spurious_events(&p)
                    .iter()
                    .map(|e| (e.0 - t0, e.1, e.2))
                    .collect::<Vec<_>>(),
                vec![(ms(1400), 14600, u64::MAX)]
            );
            // Only the timeouts' own reduction, max(14600/2, 2*1460).
            assert_eq!(min_ssthresh, Some(7300));
        } else {
            assert!(expiries.len() >= 3, "{expiries:?}");
            assert_eq!(&expiries[..2], &[ms(300), ms(900)]);
            assert_eq!(min_ssthresh, Some(2 * MSS));
            assert_eq!(p.client.stats().spurious_rtos, 0);
        }
        took.push(p.now - t0);
    }
    assert!(took[1] < took[0], "F-RTO {} vs {}", took[1], took[0]);
}
