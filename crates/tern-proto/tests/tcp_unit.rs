//! State-machine tests: feed segments, check the exact next segment sent.
//! Expected values come from the RFCs, not from earlier runs.

mod util;

use tern_proto::tcp::{
    CcKind, Config, Event, InitialWindow, RetransmitKind, Segment, SeqNum, State,
};
use tern_proto::time::SimTime;
use util::{ack, drain, events, hand_config, seg_seq, Pair, Side, Wire, CLIENT_ISN, SERVER_ISN};

fn established(cfg: Config) -> Pair {
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    p
}

#[test]
fn handshake_negotiates_options() {
    let client = Config::default();
    let server = Config {
        sack: false,
        ..Config::default()
    };
    let mut p = Pair::new(client, server, Wire::default(), 1);
    p.handshake();
    let syn = p.sent_by(Side::Client)[0].clone();
    assert!(syn.flags.syn && !syn.flags.ack);
    assert_eq!(syn.seq, SeqNum(CLIENT_ISN));
    assert_eq!(syn.options.mss, Some(1460));
    assert_eq!(syn.options.window_scale, Some(5)); // 1 MiB buffer
    assert!(syn.options.sack_permitted);
    assert!(syn.options.timestamps.is_some());
    assert_eq!(syn.header_len(), 40);
    let synack = p.sent_by(Side::Server)[0].clone();
    assert!(synack.flags.syn && synack.flags.ack);
    assert_eq!(synack.ack, SeqNum(CLIENT_ISN + 1));
    assert!(!synack.options.sack_permitted, "server did not enable SACK");
    assert_eq!(synack.options.window_scale, Some(5));
    // TSecr echoes the SYN's TSval (RFC 7323 §3.2).
    assert_eq!(
        synack.options.timestamps.unwrap().1,
        syn.options.timestamps.unwrap().0
    );
    assert!(!p.client.sack_enabled() && !p.server.sack_enabled());
    assert!(p.client.timestamps_enabled());
    // Send MSS: min(1460, 1460) minus the 12-byte timestamp option.
    assert_eq!(p.client.smss(), 1448);
    // Third segment: pure ACK with a 12-byte TS option.
    let third = p.sent_by(Side::Client)[1].clone();
    assert!(third.flags.ack && !third.flags.syn);
    assert_eq!(third.ack, SeqNum(SERVER_ISN + 1));
    assert_eq!(third.header_len(), 32);
    // Handshake RTT 100 ms: SRTT = 100 ms, RTO clamped to min_rto 1 s.
    assert_eq!(p.client.srtt(), Some(SimTime::from_millis(100)));
    assert_eq!(p.client.rto(), SimTime::from_secs(1));
}

#[test]
fn options_unused_when_peer_does_not_offer() {
    let mut p = Pair::new(hand_config(true), Config::default(), Wire::default(), 1);
    p.handshake();
    let synack = p.sent_by(Side::Server)[0].clone();
    assert_eq!(synack.options.window_scale, None);
    assert_eq!(synack.options.timestamps, None);
    assert!(synack.options.sack_permitted);
    assert!(p.server.sack_enabled() && !p.server.timestamps_enabled());
    assert_eq!(p.server.smss(), 1460);
}

#[test]
fn initial_window_rfc3390_is_three_segments() {
    let cfg = Config {
        initial_window: InitialWindow::Rfc3390,
        ..hand_config(false)
    };
    let mut p = established(cfg);
    p.client.write(100_000);
    let segs = drain(&mut p.client, p.now);
    // min(4*1460, max(2*1460, 4380)) = 4380 B = 3 full segments.
    assert_eq!(segs.len(), 3);
    assert!(segs.iter().all(|s| s.payload_len == 1460));
    assert_eq!(p.client.cwnd(), 4380);
}

/// Sends 10 segments; segment 0 (and optionally 4) is lost.
fn ten_in_flight(sack: bool) -> (Pair, Vec<Segment>) {
    let mut p = established(hand_config(sack));
    p.client.write(20 * 1460);
    let segs = drain(&mut p.client, p.now);
    assert_eq!(segs.len(), 10);
    assert_eq!(segs[0].seq, SeqNum(seg_seq(0)));
    events(&mut p.client);
    (p, segs)
}

#[test]
fn three_dupacks_fast_retransmit_newreno() {
    let (mut p, _) = ten_in_flight(false);
    let c = &mut p.client;
    let now = p.now + SimTime::from_millis(100);
    for _ in 0..2 {
        c.handle_segment(now, &ack(seg_seq(0), &[]));
        assert!(drain(c, now).is_empty(), "no retransmit before DupThresh");
    }
    c.handle_segment(now, &ack(seg_seq(0), &[]));
    let out = drain(c, now);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, SeqNum(seg_seq(0)));
    assert_eq!(out[0].payload_len, 1460);
    // ssthresh = max(FlightSize/2, 2*SMSS) = 14600/2 = 7300; cwnd = ssthresh + 3*SMSS.
    assert_eq!(c.ssthresh(), 7300);
    assert_eq!(c.cwnd(), 7300 + 3 * 1460);
    assert!(c.in_recovery());
    let evs = events(c);
    assert!(evs.contains(&Event::Retransmit {
        kind: RetransmitKind::Fast,
        seq: SeqNum(seg_seq(0)),
        len: 1460
    }));
    assert_eq!(c.stats().retransmits_fast, 1);
    // Each further dupack inflates by one SMSS; new data flows once
    // cwnd - FlightSize (14600) reaches one SMSS: dupack 6 (cwnd 16060).
    for i in 4..=7 {
        c.handle_segment(now, &ack(seg_seq(0), &[]));
        let out = drain(c, now);
        assert_eq!(c.cwnd(), 7300 + i * 1460);
        if i < 6 {
            assert!(out.is_empty(), "dupack {i}");
        } else {
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].seq, SeqNum(seg_seq(4 + i as u32)));
        }
    }
}

#[test]
fn newreno_partial_ack_retransmits_next_hole() {
    let (mut p, _) = ten_in_flight(false);
    let c = &mut p.client;
    let now = p.now + SimTime::from_millis(100);
    for _ in 0..3 {
        c.handle_segment(now, &ack(seg_seq(0), &[]));
    }
    assert_eq!(drain(c, now)[0].seq, SeqNum(seg_seq(0)));
    events(c);
    // Segment 4 was lost too: the retransmission of 0 is acked up to 4.
    let later = now + SimTime::from_millis(100);
    c.handle_segment(later, &ack(seg_seq(4), &[]));
    let out = drain(c, later);
    assert_eq!(out[0].seq, SeqNum(seg_seq(4)), "next hole resent at once");
    assert_eq!(out[0].payload_len, 1460);
    assert!(c.in_recovery(), "partial ACK keeps recovery");
    // Deflate by 4*1460 acked, add back one SMSS: 11680 - 5840 + 1460.
    assert_eq!(c.cwnd(), 7300);
    // Full ACK (>= recover = end of segment 9) ends recovery: cwnd = ssthresh.
    c.handle_segment(later, &ack(seg_seq(10), &[]));
    assert!(!c.in_recovery());
    assert_eq!(c.cwnd(), 7300);
    assert!(events(c).contains(&Event::RecoveryEnded));
}

#[test]
fn sack_recovery_resends_all_holes_within_pipe() {
    let (mut p, _) = ten_in_flight(true);
    let c = &mut p.client;
    let now = p.now + SimTime::from_millis(100);
    let s = seg_seq;
    // Segments 0 and 4 lost. The first two dup ACKs SACK segments 1 and 2:
    // pipe drops below cwnd and one new segment each goes out (the RFC 6675
    // pipe makes this limited transmit, RFC 3042).
    c.handle_segment(now, &ack(s(0), &[(s(1), s(2))]));
    assert_eq!(
        drain(c, now).iter().map(|x| x.seq).collect::<Vec<_>>(),
        vec![SeqNum(s(10))]
    );
    c.handle_segment(now, &ack(s(0), &[(s(1), s(3))]));
    assert_eq!(
        drain(c, now).iter().map(|x| x.seq).collect::<Vec<_>>(),
        vec![SeqNum(s(11))]
    );
    // Third: IsLost(seg 0) -> recovery. FlightSize = 12 segments, so
    // ssthresh = cwnd = 8760; seg 0 is resent at once (RFC 6675 §5 step 4.2).
    c.handle_segment(now, &ack(s(0), &[(s(1), s(4))]));
    assert!(c.in_recovery());
    assert_eq!((c.cwnd(), c.ssthresh()), (8760, 8760));
    let out = drain(c, now);
    assert_eq!(
        out.iter().map(|x| x.seq).collect::<Vec<_>>(),
        vec![SeqNum(s(0))]
    );
    // pipe = 12 - 3 SACKed = 9 segments (seg 0 lost but retransmitted).
    assert_eq!(c.bytes_in_flight(), 9 * 1460);
    // SACKs for 5 and 5-6: pipe 8 then 7 segments, still >= cwnd (6 segs).
    c.handle_segment(now, &ack(s(0), &[(s(5), s(6)), (s(1), s(4))]));
    c.handle_segment(now, &ack(s(0), &[(s(5), s(7)), (s(1), s(4))]));
    assert!(drain(c, now).is_empty());
    assert_eq!(c.bytes_in_flight(), 7 * 1460);
    // SACK 5-7: three SACKed segments above 4 -> IsLost(4); pipe = segs
    // 0, 8, 9, 10, 11 = 7300; cwnd - pipe = 1460: NextSeg rule 1 resends 4.
    c.handle_segment(now, &ack(s(0), &[(s(5), s(8)), (s(1), s(4))]));
    let out = drain(c, now);
    assert_eq!(
        out.iter().map(|x| x.seq).collect::<Vec<_>>(),
        vec![SeqNum(s(4))]
    );
    assert!(events(c).contains(&Event::Retransmit {
        kind: RetransmitKind::SackRecovery,
        seq: SeqNum(s(4)),
        len: 1460
    }));
    assert_eq!(c.bytes_in_flight(), 8760);
    // Cumulative ACK to 8 (partial, recover = seg 12): stays in recovery.
    c.handle_segment(now, &ack(s(8), &[]));
    assert!(c.in_recovery());
    // Full ACK past RecoveryPoint ends it.
    c.handle_segment(now, &ack(s(12), &[]));
    assert!(!c.in_recovery());
}

#[test]
fn rto_backoff_doubles_and_caps_syn() {
    let cfg = Config {
        max_rto: SimTime::from_secs(10),
        syn_retries: 8,
        ..hand_config(false)
    };
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.drop_fn = Some(Box::new(|_, _| true));
    p.run_until(SimTime::from_secs(60));
    let times: Vec<u64> = p
        .sent
        .iter()
        .filter(|(_, s, _)| *s == Side::Client)
        .map(|(t, _, _)| t.0 / 1_000_000_000)
        .collect();
    // RTO 1 s, doubling (RFC 6298 §5.5), capped at 10 s.
    assert_eq!(times, vec![0, 1, 3, 7, 15, 25, 35, 45, 55]);
    let backoffs: Vec<u32> = p
        .client_events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::RtoExpired { backoff, .. } => Some(*backoff),
            _ => None,
        })
        .collect();
    assert_eq!(backoffs, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    // After syn_retries the connection gives up.
    p.run_until(SimTime::from_secs(100));
    assert_eq!(p.client.state(), State::Closed);
}

#[test]
fn data_rto_backoff_and_loss_window() {
    let mut p = established(hand_config(false));
    let start = p.now;
    p.client.write(10 * 1460);
    p.drop_fn = Some(Box::new(|side, seg| {
        side == Side::Client && seg.payload_len > 0
    }));
    p.run_until(start + SimTime::from_secs(16));
    let rtos: Vec<(u64, u32, u64)> = p
        .client_events
        .iter()
        .filter_map(|(t, e)| match e {
            Event::RtoExpired { backoff, rto } => {
                Some(((*t - start).0 / 1_000_000, *backoff, rto.0 / 1_000_000))
            }
            _ => None,
        })
        .collect();
    // Base RTO 1 s (min_rto): expiries at 1, 3, 7, 15 s with RTO 2, 4, 8, 16 s.
    assert_eq!(
        rtos,
        vec![
            (1000, 1, 2000),
            (3000, 2, 4000),
            (7000, 3, 8000),
            (15000, 4, 16000)
        ]
    );
    // RFC 5681 eq. 4 on the first RTO: FlightSize 14600 -> ssthresh 7300, cwnd 1 SMSS.
    let cc: Vec<_> = p
        .client_events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::CwndChanged { cwnd, ssthresh, .. } => Some((*cwnd, *ssthresh)),
            _ => None,
        })
        .collect();
    assert!(cc.contains(&(1460, 7300)), "{cc:?}");
    // Each expiry resends the earliest unacked segment only (cwnd = 1 SMSS).
    let retx: Vec<_> = p
        .client_events
        .iter()
        .filter_map(|(_, e)| match e {
            Event::Retransmit { kind, seq, .. } => Some((*kind, *seq)),
            _ => None,
        })
        .collect();
    assert_eq!(retx, vec![(RetransmitKind::Rto, SeqNum(seg_seq(0))); 4]);
}

#[test]
fn karn_no_sample_from_retransmission_without_timestamps() {
    let mut p = established(hand_config(false));
    let srtt = p.client.srtt();
    p.client.write(1460);
    let mut dropped = false;
    p.drop_fn = Some(Box::new(move |side, seg| {
        let drop = side == Side::Client && seg.payload_len > 0 && !dropped;
        dropped |= drop;
        drop
    }));
    p.client_events.clear();
    p.run_while(10_000, |p| p.client.unacked_bytes() > 0);
    assert!(p
        .client_events
        .iter()
        .any(|(_, e)| matches!(e, Event::Retransmit { .. })));
    assert!(
        !p.client_events
            .iter()
            .any(|(_, e)| matches!(e, Event::RttUpdated { .. })),
        "ACK of a retransmitted segment must not give an RTT sample"
    );
    assert_eq!(p.client.srtt(), srtt);
    // Karn keeps the backed-off RTO (2 s) until a valid sample arrives.
    assert_eq!(p.client.rto(), SimTime::from_secs(2));
}

#[test]
fn timestamps_give_sample_after_retransmission() {
    let cfg = Config {
        timestamps: true,
        ..hand_config(false)
    };
    let mut p = established(cfg);
    p.client.write(1000);
    let mut dropped = false;
    p.drop_fn = Some(Box::new(move |side, seg| {
        let drop = side == Side::Client && seg.payload_len > 0 && !dropped;
        dropped |= drop;
        drop
    }));
    p.client_events.clear();
    p.run_while(10_000, |p| p.client.unacked_bytes() > 0);
    // The echo of the retransmission's TSval gives RTT = 100 ms (+ delayed ACK 0).
    let samples: Vec<_> = p
        .client_events
        .iter()
        .filter(|(_, e)| matches!(e, Event::RttUpdated { .. }))
        .collect();
    assert_eq!(samples.len(), 1);
}

#[test]
fn delayed_ack_every_second_segment_and_timer() {
    let mut p = established(hand_config(false));
    let t0 = p.now;
    // One segment: ACK only after the 200 ms delayed-ACK timer.
    p.client.write(1460);
    p.run_while(100, |p| p.server.readable() == 0 && p.server_read == 0);
    let arrived = p.now;
    p.run_while(100, |p| p.client.unacked_bytes() > 0);
    let acks: Vec<_> = p
        .sent
        .iter()
        .filter(|(t, s, seg)| *s == Side::Server && *t > t0 && seg.payload_len == 0)
        .collect();
    assert_eq!(acks.len(), 1);
    assert_eq!(acks[0].0 - arrived, SimTime::from_millis(200));
    // Two back-to-back segments: the second is ACKed at once.
    let t1 = p.now;
    p.client.write(2 * 1460);
    p.run_while(100, |p| p.client.unacked_bytes() > 0);
    let acks: Vec<_> = p
        .sent
        .iter()
        .filter(|(t, s, seg)| *s == Side::Server && *t > t1 && seg.payload_len == 0)
        .collect();
    assert_eq!(acks.len(), 1);
    assert_eq!(
        acks[0].0 - t1,
        SimTime::from_millis(50),
        "immediate on 2nd segment"
    );
}

#[test]
fn out_of_order_segment_acked_immediately_with_sack() {
    let mut p = established(hand_config(true));
    let t0 = p.now;
    p.client.write(3 * 1460);
    p.drop_fn = Some(Box::new(|side, seg| {
        side == Side::Client && seg.seq == SeqNum(seg_seq(0)) && seg.payload_len > 0
    }));
    p.run_until(t0 + SimTime::from_millis(60));
    let acks: Vec<_> = p
        .sent
        .iter()
        .filter(|(t, s, _)| *s == Side::Server && *t > t0)
        .map(|(_, _, seg)| seg.clone())
        .collect();
    // Segments 1 and 2 arrive out of order: one immediate dup ACK each.
    assert_eq!(acks.len(), 2);
    assert!(acks.iter().all(|a| a.ack == SeqNum(seg_seq(0))));
    assert_eq!(
        *acks[0].options.sack_blocks,
        [(SeqNum(seg_seq(1)), SeqNum(seg_seq(2)))]
    );
    assert_eq!(
        *acks[1].options.sack_blocks,
        [(SeqNum(seg_seq(1)), SeqNum(seg_seq(3)))]
    );
    assert_eq!(acks[1].header_len(), 20 + 12);
}

#[test]
fn zero_window_probe_and_reopen() {
    let server_cfg = Config {
        recv_buffer: 4380,
        ..hand_config(false)
    };
    let mut p = Pair::new(hand_config(false), server_cfg, Wire::default(), 1);
    p.handshake();
    p.auto_read = false;
    p.client.write(10_000);
    let t0 = p.now;
    p.run_until(t0 + SimTime::from_secs(8));
    assert_eq!(p.server.readable(), 4380);
    assert_eq!(p.client.send_window(), 0);
    let probes: Vec<SimTime> = p
        .client_events
        .iter()
        .filter(|(_, e)| {
            matches!(
                e,
                Event::WindowProbe { .. }
                    | Event::Retransmit {
                        kind: RetransmitKind::Probe,
                        ..
                    }
            )
        })
        .map(|(t, _)| *t)
        .collect();
    // Persist timer: first probe one RTO (1 s) after the zero window, then
    // backing off 2 s, 4 s.
    assert!(probes.len() >= 3, "{probes:?}");
    assert_eq!(probes[1] - probes[0], SimTime::from_secs(2));
    assert_eq!(probes[2] - probes[1], SimTime::from_secs(4));
    // The application reads: a window update reopens the flow.
    p.server_read += p.server.read(u64::MAX);
    p.auto_read = true;
    p.run_while(100_000, |p| p.server_read < 10_000);
    assert_eq!(p.server_read, 10_000);
}

#[test]
fn close_both_directions_reaches_closed() {
    let cfg = Config {
        time_wait: SimTime::from_secs(1),
        ..hand_config(true)
    };
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    p.client.write(5000);
    p.client.close();
    assert_eq!(p.client.state(), State::FinWait1);
    p.run_while(1000, |p| !p.server.peer_closed());
    assert_eq!(p.server.state(), State::CloseWait);
    p.server.close();
    assert_eq!(p.server.state(), State::LastAck);
    p.run_while(1000, |p| p.server.state() != State::Closed);
    assert_eq!(p.client.state(), State::TimeWait);
    p.run_while(1000, |p| p.client.state() != State::Closed);
    assert_eq!(p.server_read, 5000);
}

#[test]
fn cubic_transfer_reduces_by_beta() {
    let cfg = Config {
        cc: CcKind::Cubic,
        ..hand_config(false)
    };
    let (mut p, _) = {
        let mut p = established(cfg);
        p.client.write(20 * 1460);
        let segs = drain(&mut p.client, p.now);
        (p, segs)
    };
    let c = &mut p.client;
    let now = p.now + SimTime::from_millis(100);
    for _ in 0..3 {
        c.handle_segment(now, &ack(seg_seq(0), &[]));
    }
    // cwnd 10 segments * 0.7 = 7 segments (RFC 9438 §4.6), plus 3 SMSS inflation.
    assert_eq!(c.ssthresh(), 7 * 1460);
    assert_eq!(c.cwnd(), 10 * 1460);
}
