//! Response to lower-layer connectivity-change indications
//! (draft-schuetz-tcpm-tcp-rlci; `Connection::on_connectivity`,
//! `Config::rlci`). Expected values come from RFC 6298 / RFC 5681 /
//! RFC 5682 and the draft's speculative-retransmission rule, worked out in
//! the comments, not from earlier runs.

mod util;

use tern_proto::tcp::{Config, Event, InitialWindow, RetransmitKind, SeqNum};
use tern_proto::time::SimTime;
use util::{
    ack, client_data, drain, events, ms, retransmits, rto_expiries, seg_index, seg_seq, Pair, Wire,
    MSS,
};

/// One-way delay of the wire.
const DELAY_MS: u64 = 60;

/// No timestamps / window scaling / SACK so segments are easy to craft by
/// hand; IW = 10 segments; Linux's 200 ms minimum RTO so that the RTO is
/// the RFC 6298 formula rather than the 1 s floor.
fn cfg(rlci: bool) -> Config {
    Config {
        sack: false,
        timestamps: false,
        window_scale: false,
        recv_buffer: 65535,
        initial_window: InitialWindow::Segments(10),
        min_rto: ms(200),
        rlci,
        ..Config::default()
    }
}

/// The un-backed-off RTO after the handshake, from RFC 6298 §2.2: the only
/// sample is the SYN / SYN-ACK round trip R = 2 * 60 ms (the SYN was not
/// retransmitted, Karn), so SRTT = R, RTTVAR = R/2 and
/// RTO = SRTT + max(G, 4*RTTVAR) = 120 + max(1, 240) = 360 ms, above the
/// 200 ms minimum (§2.4).
fn base_rto() -> SimTime {
    let r = 2 * DELAY_MS;
    let (srtt, rttvar, g) = (r, r / 2, 1);
    ms((srtt + g.max(4 * rttvar)).max(200))
}

fn established(client: Config) -> Pair {
    let server = Config {
        rlci: false,
        rlci_reset_path: false,
        frto: false,
        ..client.clone()
    };
    let wire = Wire {
        delay: ms(DELAY_MS),
        ..Wire::default()
    };
    let mut p = Pair::new(client, server, wire, 1);
    p.handshake();
    assert_eq!(p.client.srtt(), Some(ms(2 * DELAY_MS)));
    assert_eq!(p.client.rto(), base_rto());
    p
}

/// The handover story: at t0 the client writes `segments` segments (all
/// within IW, so all sent at t0) and its link goes down at the same moment;
/// nothing sent before `t_up` = t0 + 1.5 s gets through. RFC 6298 §5.1,
/// §5.5: the timer started at t0 with RTO = 360 ms expires at
/// t0 + 360 ms (RTO doubles to 720 ms) and t0 + 1080 ms (RTO 1440 ms, next
/// expiry due at t0 + 2520 ms). Returns the pair at `t_up` (just before the
/// link-up indication), t0 and `t_up`.
fn outage(client: Config, segments: u64) -> (Pair, SimTime, SimTime) {
    let mut p = established(client);
    let t0 = p.now;
    let t_up = t0 + ms(1500);
    p.wire.outage = Some((t0, t_up));
    p.client.on_connectivity(t0, false);
    p.client.write(segments * MSS);
    p.client_events.clear();
    p.run_until(t_up);
    let rto = base_rto();
    assert_eq!(
        rto_expiries(&p),
        vec![(t0 + rto, 1), (t0 + rto + rto.saturating_mul(2), 2)]
    );
    assert_eq!(p.client.rto(), rto.saturating_mul(4));
    assert_eq!(
        p.client.poll_timeout(),
        Some(t0 + rto.saturating_mul(1 + 2 + 4))
    );
    assert_eq!(p.now, t_up);
    (p, t0, t_up)
}

/// (1) Standard TCP (rlci off) ignores the indication: nothing is sent at
/// link-up and the next transmission is the retransmission due at the
/// backed-off expiry, t0 + 360 + 720 + 1440 ms = t0 + 2520 ms.
#[test]
fn rlci_off_link_up_changes_nothing() {
    let (mut p, t0, t_up) = outage(cfg(false), 5);
    p.client.on_connectivity(t_up, true);
    assert!(drain(&mut p.client, t_up).is_empty());
    assert!(events(&mut p.client).is_empty());
    let due = t0 + base_rto().saturating_mul(7);
    assert_eq!(due, t0 + ms(2520));
    assert_eq!(p.client.poll_timeout(), Some(due));
    assert_eq!(p.client.rto(), base_rto().saturating_mul(4));
    // The next transmission of the client is segment 0 at `due`, by the
    // retransmission timer (third expiry).
    p.run_until(due);
    assert_eq!(client_data(&p, t_up..=due), vec![(due, 0)]);
    assert_eq!(retransmits(&p).last(), Some(&(due, RetransmitKind::Rto, 0)));
    assert_eq!(rto_expiries(&p).last(), Some(&(due, 3)));
    assert_eq!(p.client.stats().retransmits_speculative, 0);
}

/// (2) rlci on, link-up at t_up after two timeouts: segment 0 (the oldest
/// unacknowledged one) is resent at t_up, and the timer runs again from
/// t_up with the un-backed-off RTO of RFC 6298 §2.2 (360 ms), not 1440 ms.
#[test]
fn rlci_link_up_in_backoff_retransmits_and_rearms() {
    let (mut p, t0, t_up) = outage(cfg(true), 5);
    p.client.on_connectivity(t_up, true);
    let out = drain(&mut p.client, t_up);
    assert_eq!(out.len(), 1, "only the oldest unacked segment");
    assert_eq!(out[0].seq, SeqNum(seg_seq(0)));
    assert_eq!(out[0].payload_len, MSS as u32);
    assert_eq!(
        events(&mut p.client),
        vec![Event::Retransmit {
            kind: RetransmitKind::Speculative,
            seq: SeqNum(seg_seq(0)),
            len: MSS as u32,
        }]
    );
    assert_eq!(p.client.poll_timeout(), Some(t_up + base_rto()));
    assert_eq!(p.client.rto(), base_rto());
    let st = p.client.stats();
    assert_eq!(st.retransmits_speculative, 1);
    // Two timeouts, two timer retransmissions; the speculative one is not
    // a timeout.
    assert_eq!((st.rto_expiries, st.retransmits_rto), (2, 2));
    // Not a congestion signal: cwnd and ssthresh stay as the timeouts set
    // them (RFC 5681 eq. 4: ssthresh = max(7300/2, 2*1460) = 3650, cwnd
    // = 1 SMSS).
    assert_eq!((p.client.cwnd(), p.client.ssthresh()), (MSS, 3650));
    assert!(t_up + base_rto() < t0 + ms(2520));
}

/// (2, continued) Through the driver: the speculative retransmission goes
/// out at t_up, is delivered on the restored link, and the transfer ends
/// without another timeout.
#[test]
fn rlci_recovers_after_handover_without_further_timeouts() {
    let (mut p, _t0, t_up) = outage(cfg(true), 5);
    p.client.on_connectivity(t_up, true);
    p.drive();
    assert_eq!(client_data(&p, t_up..=t_up), vec![(t_up, 0)]);
    assert_eq!(
        retransmits(&p).last(),
        Some(&(t_up, RetransmitKind::Speculative, 0))
    );
    p.run_until(t_up + SimTime::from_secs(2));
    assert_eq!(p.client.unacked_bytes(), 0);
    assert_eq!(p.server_read, 5 * MSS);
    assert_eq!(rto_expiries(&p).len(), 2, "no timeout after the link-up");
}

/// A link-up repeated before the next timeout sends nothing more: after
/// the speculative retransmission the RTO is no longer backed off.
#[test]
fn rlci_one_speculative_retransmission_per_backoff() {
    let (mut p, _t0, t_up) = outage(cfg(true), 5);
    p.client.on_connectivity(t_up, true);
    assert_eq!(drain(&mut p.client, t_up).len(), 1);
    let t2 = t_up + ms(10);
    p.client.on_connectivity(t2, false);
    p.client.on_connectivity(t2, true);
    assert!(drain(&mut p.client, t2).is_empty());
    assert_eq!(p.client.poll_timeout(), Some(t_up + base_rto()));
}

/// (3) rlci on, but not in timeout back-off: nothing is sent and the timer
/// is left alone.
#[test]
fn rlci_link_up_without_backoff_sends_nothing() {
    // (a) Data outstanding, no timeout yet: the link comes back 100 ms
    // after t0, before the first expiry at t0 + 360 ms.
    let mut p = established(cfg(true));
    let t0 = p.now;
    p.wire.outage = Some((t0, t0 + ms(100)));
    p.client.write(5 * MSS);
    p.run_until(t0 + ms(100));
    assert_eq!(rto_expiries(&p), vec![]);
    p.client.on_connectivity(t0 + ms(100), true);
    assert!(drain(&mut p.client, t0 + ms(100)).is_empty());
    assert!(events(&mut p.client).is_empty());
    assert_eq!(p.client.poll_timeout(), Some(t0 + base_rto()));

    // (b) A timeout fired, then an ACK of new data arrived: no longer "no
    // ACK since the timeout", although without timestamps Karn's algorithm
    // keeps the RTO backed off (the ACK covers a retransmitted segment, so
    // gives no sample, RFC 6298 §3, §5).
    let mut p = established(cfg(true));
    let c = &mut p.client;
    let t0 = p.now;
    c.write(3 * MSS);
    assert_eq!(drain(c, t0).len(), 3);
    let t1 = t0 + base_rto();
    assert_eq!(c.poll_timeout(), Some(t1));
    c.handle_timeout(t1);
    let out = drain(c, t1);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].seq, SeqNum(seg_seq(0)));
    let t2 = t1 + ms(40);
    c.handle_segment(t2, &ack(seg_seq(1), &[]));
    // Slow start from 1 SMSS: cwnd 2 SMSS, segments 1 and 2 resent.
    let out = drain(c, t2);
    assert_eq!(out.len(), 2);
    events(c);
    assert_eq!(c.rto(), base_rto().saturating_mul(2));
    // RFC 6298 §5.3: restarted by the ACK with the current (backed-off) RTO.
    let due = t2 + base_rto().saturating_mul(2);
    assert_eq!(c.poll_timeout(), Some(due));
    let t3 = t2 + ms(10);
    c.on_connectivity(t3, true);
    assert!(drain(c, t3).is_empty());
    assert!(events(c).is_empty());
    assert_eq!(c.poll_timeout(), Some(due));
    assert_eq!(c.rto(), base_rto().saturating_mul(2));
}

/// (4) rlci on, nothing outstanding: nothing is sent, no timer is started.
#[test]
fn rlci_link_up_with_nothing_outstanding_sends_nothing() {
    let mut p = established(cfg(true));
    let t0 = p.now;
    p.client.write(2 * MSS);
    p.run_until(t0 + SimTime::from_secs(1));
    assert_eq!(p.client.unacked_bytes(), 0);
    assert_eq!(p.client.poll_timeout(), None);
    // One more RTT sample, R = 120 ms from the ACK of both segments
    // (RFC 6298 §2.3): RTTVAR = 3/4 * 60 + 1/4 * |120 - 120| = 45 ms,
    // SRTT = 120 ms, RTO = 120 + 4 * 45 = 300 ms.
    let rto = ms(300);
    assert_eq!(p.client.rto(), rto);
    events(&mut p.client);
    let t = p.now;
    p.client.on_connectivity(t, false);
    p.client.on_connectivity(t, true);
    assert!(drain(&mut p.client, t).is_empty());
    assert!(events(&mut p.client).is_empty());
    assert_eq!(p.client.poll_timeout(), None);
    assert_eq!(p.client.rto(), rto);
}

/// With F-RTO (RFC 5682), basic and SACK-enhanced: the timeouts resent
/// segment 0 only (step 1, repeated at the second expiry); the link-up
/// resends segment 0 once more and leaves F-RTO waiting for its first ACK.
/// 20 segments are written, IW = 10 go out at t0, all lost in the outage.
///
/// * t_up: speculative retransmission of segment 0, nothing else (F-RTO
///   marked no other segment for retransmission).
/// * t_up + 60 ms: the server gets segment 0 in order; delayed ACK
///   (200 ms) at t_up + 260 ms, at the client t_up + 320 ms (before the
///   restarted timer at t_up + 360 ms).
/// * t_up + 320 ms, step 2: new ACK covering the retransmitted segment, not
///   everything outstanding (segments 1-9) and new data is available, so
///   step 2b: send new segments 10 and 11.
/// * t_up + 380 ms: they reach the server out of order (hole at 1): an
///   immediate duplicate ACK each, at the client t_up + 440 ms.
/// * t_up + 440 ms, step 3: a duplicate ACK (basic, §2 3a), or one SACKing
///   above RecoveryPoint = segment 10 (§3 3a): the timeout was genuine,
///   conventional recovery resends segment 1 onwards. No SpuriousRto.
#[test]
fn rlci_with_frto_keeps_detection_sound() {
    for sack in [false, true] {
        let client = Config {
            sack,
            frto: true,
            ..cfg(true)
        };
        let server = Config { sack, ..cfg(false) };
        let wire = Wire {
            delay: ms(DELAY_MS),
            ..Wire::default()
        };
        let mut p = Pair::new(client, server, wire, 1);
        p.handshake();
        let t0 = p.now;
        let t_up = t0 + ms(1500);
        p.wire.outage = Some((t0, t_up));
        p.client.write(20 * MSS);
        p.client_events.clear();
        p.run_until(t_up);
        let rto = base_rto();
        assert_eq!(
            rto_expiries(&p),
            vec![(t0 + rto, 1), (t0 + rto.saturating_mul(3), 2)],
            "sack={sack}"
        );
        // F-RTO step 1 at each expiry: segment 0 only.
        assert_eq!(
            client_data(&p, t0 + ms(1)..=t_up),
            vec![(t0 + rto, 0), (t0 + rto.saturating_mul(3), 0)]
        );
        p.client.on_connectivity(t_up, true);
        p.drive();
        assert_eq!(client_data(&p, t_up..=t_up), vec![(t_up, 0)], "sack={sack}");
        assert_eq!(p.client.poll_timeout(), Some(t_up + rto));
        p.run_until(t_up + ms(440));
        assert_eq!(
            client_data(&p, t_up + ms(1)..=t_up + ms(439)),
            vec![(t_up + ms(320), 10), (t_up + ms(320), 11)],
            "sack={sack}: step 2b sends two new segments"
        );
        let after: Vec<_> = retransmits(&p).into_iter().filter(|r| r.0 > t_up).collect();
        assert_eq!(
            after.first(),
            Some(&(t_up + ms(440), RetransmitKind::Rto, 1)),
            "sack={sack}: conventional recovery after step 3a"
        );
        assert!(
            !p.client_events
                .iter()
                .any(|(_, e)| matches!(e, Event::SpuriousRto { .. })),
            "sack={sack}"
        );
        p.run_until(t_up + SimTime::from_secs(5));
        assert_eq!(p.client.unacked_bytes(), 0, "sack={sack}");
        assert_eq!(p.client.stats().spurious_rtos, 0);
        assert_eq!(p.client.stats().retransmits_speculative, 1);
    }
}

/// `rlci_reset_path`: the link-up also starts over as a new connection on
/// the new path: no SRTT, RTO = initial RTO (1 s, RFC 6298 §2.1),
/// cwnd = IW = 10 segments, ssthresh arbitrarily high (RFC 5681 §3.1).
/// Segment 0 goes out as the speculative retransmission, and the rest of
/// the window, still marked lost by RTO recovery, fits in the new cwnd:
/// segments 1-4 at once. The timer restarts with the initial RTO.
#[test]
fn rlci_reset_path_starts_over() {
    let client = Config {
        rlci_reset_path: true,
        ..cfg(true)
    };
    let (mut p, _t0, t_up) = outage(client, 5);
    p.client.on_connectivity(t_up, true);
    assert_eq!(p.client.srtt(), None);
    assert_eq!(p.client.rto(), SimTime::from_secs(1));
    assert_eq!((p.client.cwnd(), p.client.ssthresh()), (10 * MSS, u64::MAX));
    let out = drain(&mut p.client, t_up);
    let idx: Vec<u32> = out.iter().map(|s| seg_index(s.seq)).collect();
    assert_eq!(idx, vec![0, 1, 2, 3, 4]);
    let evs = events(&mut p.client);
    assert_eq!(
        evs[0],
        Event::CwndChanged {
            cwnd: 10 * MSS,
            ssthresh: u64::MAX,
            pacing_rate: None,
        }
    );
    let kinds: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            Event::Retransmit { kind, .. } => Some(*kind),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            RetransmitKind::Speculative,
            RetransmitKind::Rto,
            RetransmitKind::Rto,
            RetransmitKind::Rto,
            RetransmitKind::Rto
        ]
    );
    assert_eq!(p.client.poll_timeout(), Some(t_up + SimTime::from_secs(1)));
}

/// The speculative retransmission is lost too (the indication came before
/// the path works end to end): the timer restarted at t_up expires at
/// t_up + 360 ms as an ordinary RFC 6298 §5.4-5.6 timeout, the back-off
/// starting again from the base RTO (backoff 1, next RTO 720 ms), not from
/// the 1440 ms the outage had reached.
#[test]
fn rlci_lost_speculative_retransmission_backs_off_from_base() {
    let (mut p, _t0, t_up) = outage(cfg(true), 5);
    p.wire.outage = Some((p.wire.outage.unwrap().0, t_up + ms(100)));
    p.client.on_connectivity(t_up, true);
    p.run_until(t_up + base_rto());
    assert_eq!(rto_expiries(&p).last(), Some(&(t_up + base_rto(), 1)));
    assert_eq!(p.client.rto(), base_rto().saturating_mul(2));
    assert_eq!(
        retransmits(&p)
            .into_iter()
            .filter(|r| r.0 >= t_up)
            .collect::<Vec<_>>(),
        vec![
            (t_up, RetransmitKind::Speculative, 0),
            (t_up + base_rto(), RetransmitKind::Rto, 0)
        ]
    );
    p.run_until(t_up + SimTime::from_secs(3));
    assert_eq!(p.client.unacked_bytes(), 0);
}
