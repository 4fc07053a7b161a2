//! Where an ACK's RTT sample comes from (`Config::rtt_source`): the timestamp echo first
//! (RFC 7323 §4.1) or, as Linux from 3.13 on (net/ipv4/tcp_input.c `tcp_ack_update_rtt`),
//! the oldest cumulatively acknowledged never-retransmitted segment's send time, else the
//! lowest newly SACKed never-retransmitted segment's, else the echo. One hand-made story
//! is told to a client of each kind; the samples expected are worked out in the comments
//! from each rule.

mod util;

use tern_proto::tcp::{
    Config, Connection, Event, Flags, InitialWindow, RttSource, Segment, SeqNum, TcpOptions,
};
use tern_proto::time::SimTime;
use util::{drain, ms, CLIENT_ISN, SERVER_ISN};

/// Payload per segment: the 1460 B MSS both sides offer, less the 12 B timestamp option
/// (RFC 6691).
const SMSS: u32 = 1448;

fn seq(i: u32) -> u32 {
    CLIENT_ISN + 1 + i * SMSS
}

fn config(source: RttSource) -> Config {
    Config {
        sack: true,
        timestamps: true,
        window_scale: false,
        recv_buffer: 65535,
        initial_window: InitialWindow::Segments(10),
        rtt_source: source,
        ..Config::default()
    }
}

/// A segment from the server: `ack`, SACK blocks of segment indices `[from, to)`, the
/// server's TSval `tsval` and the echo `tsecr`, SYN as well if `syn`.
fn from_server(ack: u32, sack: &[(u32, u32)], tsval: u32, tsecr: u32, syn: bool) -> Segment {
    Segment {
        src_port: 80,
        dst_port: 40000,
        seq: SeqNum(SERVER_ISN + u32::from(!syn)),
        ack: SeqNum(ack),
        flags: Flags {
            ack: true,
            syn,
            ..Flags::default()
        },
        window: 65535,
        options: TcpOptions {
            mss: syn.then_some(1460),
            sack_permitted: syn,
            sack_blocks: sack
                .iter()
                .map(|&(l, r)| (SeqNum(seq(l)), SeqNum(seq(r))))
                .collect(),
            timestamps: Some((tsval, tsecr)),
            ..TcpOptions::default()
        },
        payload_len: 0,
    }
}

/// The data segments `c` sends at `now`.
fn data(c: &mut Connection, now: SimTime) -> Vec<Segment> {
    drain(c, now)
        .into_iter()
        .filter(|s| s.payload_len > 0)
        .collect()
}

/// The RTT samples R the client's estimator took, in whole milliseconds, read back from
/// its SRTT after each (RFC 6298 §2.2-2.3: SRTT = R first, then 7/8·SRTT + 1/8·R).
fn samples(c: &mut Connection) -> Vec<u64> {
    let mut srtt: Option<u64> = None;
    let mut out = Vec::new();
    while let Some(e) = c.poll_event() {
        if let Event::RttUpdated { srtt: s, .. } = e {
            let r = srtt.map_or(s.0, |prev| 8 * s.0 - 7 * prev);
            out.push((r + 500_000) / 1_000_000);
            srtt = Some(s.0);
        }
    }
    out
}

/// The story, with the client's TSvals taken from what it sends:
/// * t = 0: SYN; t = 100 ms: SYN-ACK echoing it (handshake sample 100 ms either way);
/// * t = 100 ms: segments 0..7 leave; segment 0 is lost;
/// * t = 200, 210, 220 ms: duplicate ACKs SACKing 1, then 1-2, then 1-3, echoing the
///   TSval of segment 0 (the receiver's TS.Recent, RFC 7323 §4.3); the third starts
///   recovery and segment 0 is resent at 220 ms;
/// * t = 400 ms: an ACK of 0..3 (so of the resent segment 0) SACKing 5, echoing the
///   resent segment's TSval (220 ms);
/// * t = 410 ms: an ACK of everything (4, 5 SACKed, 6), echoing the same TSval.
///
/// Returns the samples (ms).
fn story(source: RttSource) -> Vec<u64> {
    let mut c =
        Connection::connect(config(source), CLIENT_ISN, SimTime::ZERO).with_ports(40000, 80);
    c.set_cwnd_rtt_events(true);
    let syn = drain(&mut c, SimTime::ZERO).remove(0);
    let syn_ts = syn.options.timestamps.unwrap().0;
    let t = ms(100);
    c.handle_segment(t, &from_server(CLIENT_ISN + 1, &[], 7, syn_ts, true));
    assert!(c.is_established());
    c.write(7 * u64::from(SMSS));
    let sent = data(&mut c, t);
    assert_eq!(sent.len(), 7);
    let ts0 = sent[0].options.timestamps.unwrap().0;
    for (i, to) in [(200, 2), (210, 3), (220, 4)] {
        c.handle_segment(ms(i), &from_server(seq(0), &[(1, to)], 8, ts0, false));
    }
    let resent = drain(&mut c, ms(220));
    let re0 = resent
        .iter()
        .find(|s| s.seq == SeqNum(seq(0)) && s.payload_len > 0)
        .expect("segment 0 is resent on the third duplicate ACK");
    let ts_re = re0.options.timestamps.unwrap().0;
    c.handle_segment(ms(400), &from_server(seq(4), &[(5, 6)], 9, ts_re, false));
    c.handle_segment(ms(410), &from_server(seq(7), &[], 10, ts_re, false));
    samples(&mut c)
}

/// RFC 7323 §4.1 (Linux before 3.13): samples only from ACKs of new data, each the echo:
/// the handshake's 100 ms, then 400 − 220 = 180 ms and 410 − 220 = 190 ms. The duplicate
/// ACKs give none.
#[test]
fn ts_ecr_first_takes_the_echo_of_acks_of_new_data() {
    let s = story(RttSource::TsEcrFirst);
    assert_eq!(s, vec![100, 180, 190]);
}

/// Linux 3.13 on: the handshake's 100 ms (the SYN was not resent); the duplicate ACKs'
/// newly SACKed segments, sent at 100 ms: 100, 110 and 120 ms (sack_rtt, no cumulative
/// advance); at 400 ms the ACK covers resent segment 0 (FLAG_RETRANS_DATA_ACKED: no
/// seq_rtt) but newly SACKs 5, sent at 100 ms: 300 ms, not the echo's 180; at 410 ms the
/// oldest newly acknowledged segment neither resent nor SACKed is 4, sent at 100 ms:
/// 310 ms, not the echo's 190 (nor the newest segment's, which is also 310 here: the
/// oldest-against-newest story is below).
#[test]
fn packet_timing_first_takes_send_times_then_sack_then_echo() {
    let s = story(RttSource::PacketTimingFirst);
    assert_eq!(s, vec![100, 100, 110, 120, 300, 310]);
}

/// Linux 3.13 on restarts the retransmission timer on a SACK-only ACK whose sample comes
/// from data sent before the first unacknowledged segment was last sent
/// (`tcp_clean_rtx_queue`: sack_rtt > now − head's send time). At 200-220 ms the head,
/// segment 0, was last sent at 100 ms like the SACKed ones: no restart, so the deadline
/// after the 220 ms resend is the resend's own. Both sources then agree; a SACK of old
/// data after the resend moves it with packet timing only.
#[test]
fn a_sack_of_data_older_than_the_resent_head_restarts_the_timer() {
    for source in [RttSource::TsEcrFirst, RttSource::PacketTimingFirst] {
        let mut c =
            Connection::connect(config(source), CLIENT_ISN, SimTime::ZERO).with_ports(40000, 80);
        let syn = drain(&mut c, SimTime::ZERO).remove(0);
        let syn_ts = syn.options.timestamps.unwrap().0;
        c.handle_segment(ms(100), &from_server(CLIENT_ISN + 1, &[], 7, syn_ts, true));
        c.write(7 * u64::from(SMSS));
        let ts0 = data(&mut c, ms(100))[0].options.timestamps.unwrap().0;
        for (i, to) in [(200, 2), (210, 3), (220, 4)] {
            c.handle_segment(ms(i), &from_server(seq(0), &[(1, to)], 8, ts0, false));
        }
        drain(&mut c, ms(220));
        let before = c.poll_timeout().expect("the timer runs");
        // At 300 ms a SACK of segment 5, sent at 100 ms, before the head's resend at 220.
        c.handle_segment(
            ms(300),
            &from_server(seq(0), &[(1, 4), (5, 6)], 9, ts0, false),
        );
        let after = c.poll_timeout().expect("the timer runs");
        match source {
            RttSource::TsEcrFirst => assert_eq!(after, before),
            // Restarted at 300 ms with the RTO the 200 ms sample left.
            RttSource::PacketTimingFirst => assert_eq!(after, ms(300) + c.rto()),
        }
    }
}

/// The oldest acknowledged segment times the ACK, not the newest: segments 0 and 1 leave
/// at 100 and 140 ms, one ACK at 300 ms covers both and echoes segment 1's TSval. Packet
/// timing: 300 − 100 = 200 ms (first_ackt); the echo: 300 − 140 = 160 ms.
#[test]
fn an_ack_of_several_segments_is_timed_by_the_oldest() {
    for (source, want) in [
        (RttSource::PacketTimingFirst, 200),
        (RttSource::TsEcrFirst, 160),
    ] {
        let mut c =
            Connection::connect(config(source), CLIENT_ISN, SimTime::ZERO).with_ports(40000, 80);
        c.set_cwnd_rtt_events(true);
        let syn = drain(&mut c, SimTime::ZERO).remove(0);
        let syn_ts = syn.options.timestamps.unwrap().0;
        c.handle_segment(ms(100), &from_server(CLIENT_ISN + 1, &[], 7, syn_ts, true));
        c.write(u64::from(SMSS));
        assert_eq!(data(&mut c, ms(100)).len(), 1);
        c.write(u64::from(SMSS));
        let ts1 = data(&mut c, ms(140))[0].options.timestamps.unwrap().0;
        c.handle_segment(ms(300), &from_server(seq(2), &[], 8, ts1, false));
        assert_eq!(samples(&mut c), vec![100, want], "{source:?}");
    }
}
