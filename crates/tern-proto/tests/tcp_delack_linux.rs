//! Linux's adaptive delayed ACK (`DelayedAckRule::Linux`) on a whole connection's ACK
//! trace: a stream of one 1000 B message every 100 ms, as the lte-switch study's handset
//! sends, to a Linux receiver. Expected values from the kernel's rule
//! (net/ipv4/tcp_input.c `tcp_event_data_recv`, `tcp_incr_quickack`,
//! `__tcp_ack_snd_check`; tcp_output.c `tcp_send_delayed_ack`):
//!
//! - the first data segment sets rcv_mss to 1000 B and starts quick-ACK mode with
//!   min(rcv_wnd / (2 · rcv_mss), TCP_MAX_QUICKACKS) = min(65535 / 2000, 16) = 16 quick
//!   ACKs: messages 0-15 are each ACKed at once;
//! - then the delayed-ACK timer is min(ato, max(SRTT, TCP_DELACK_MIN)) (`tcp_send_delayed_ack`
//!   bounds ato by the receiver's SRTT); ato grows by the 100 ms inter-arrival time
//!   (`tcp_event_data_recv`: ato = ato / 2 + m for m < ato) and each timer expiry doubles it
//!   (`tcp_delack_timer_handler`), so within a few messages the timer is the SRTT bound,
//!   120 ms on this 120 ms round trip, longer than the 100 ms to the next message;
//! - the next message then makes more than one full frame unacknowledged (2000 B > rcv_mss),
//!   which `__tcp_ack_snd_check` ACKs at once: one ACK per two messages, sent on the arrival
//!   of the second, none from the timer.

mod util;

use tern_proto::tcp::{Config, DelayedAck, DelayedAckRule};
use tern_proto::time::SimTime;
use util::{hand_config, ms, Pair, Side, Wire};

const MESSAGE: u64 = 1000;
const PERIOD_MS: u64 = 100;
const ONE_WAY_MS: u64 = 60;

fn linux_receiver() -> Config {
    Config {
        delayed_ack: Some(DelayedAck {
            rule: DelayedAckRule::Linux,
            ..DelayedAck::default()
        }),
        ..hand_config(false)
    }
}

/// A client and a Linux receiver, `ONE_WAY_MS` apart, after the handshake.
fn linux_pair() -> Pair {
    let wire = Wire {
        delay: ms(ONE_WAY_MS),
        ..Wire::default()
    };
    let mut p = Pair::new(hand_config(false), linux_receiver(), wire, 1);
    p.handshake();
    p
}

/// The server's pure ACKs after `t0`, with their send times and the bytes they acknowledge
/// beyond the first data byte.
fn acks(p: &Pair, t0: SimTime, first: u32) -> Vec<(SimTime, u64)> {
    p.sent
        .iter()
        .filter(|(t, s, seg)| *s == Side::Server && *t >= t0 && seg.payload_len == 0)
        .map(|(t, _, seg)| (*t, u64::from(seg.ack.0.wrapping_sub(first))))
        .collect()
}

#[test]
fn linux_receiver_acks_every_second_message_of_a_100ms_stream() {
    let mut p = linux_pair();
    let t0 = p.now;
    let first = util::seg_seq(0);
    let n = 120;
    for i in 0..n {
        let at = t0 + ms(PERIOD_MS * i);
        p.run_until(at);
        p.client.write(MESSAGE);
    }
    p.run_until(t0 + ms(PERIOD_MS * n + 1000));
    assert_eq!(p.server_read, n * MESSAGE);

    let arrival = |i: u64| t0 + ms(PERIOD_MS * i + ONE_WAY_MS);
    let trace = acks(&p, t0, first);
    // Quick-ACK mode: messages 0-15, each ACKed on arrival.
    for (i, &(t, acked)) in trace.iter().take(16).enumerate() {
        let i = i as u64;
        assert_eq!((t, acked), (arrival(i), (i + 1) * MESSAGE), "quick ACK {i}");
    }
    // Steady state, from message 30 on (well after the ato has reached the SRTT bound):
    // each ACK is sent as a message arrives, covers it and the one before it, and nothing
    // is ACKed by the timer.
    let steady: Vec<_> = trace
        .iter()
        .filter(|&&(t, _)| t >= arrival(30) && t < arrival(n))
        .collect();
    assert_eq!(
        steady.len() as u64,
        (n - 30) / 2,
        "one ACK per two messages"
    );
    for w in steady.windows(2) {
        assert_eq!(
            w[1].1 - w[0].1,
            2 * MESSAGE,
            "ACKs at {} and {}",
            w[0].0,
            w[1].0
        );
    }
    for &&(t, acked) in &steady {
        assert_eq!(acked % MESSAGE, 0);
        let m = acked / MESSAGE - 1;
        assert_eq!(t, arrival(m), "message {m} ACKed on arrival");
    }
}

/// A request answered at once makes Linux's receiver interactive: `tcp_event_data_sent`
/// (net/ipv4/tcp_output.c, called from `tcp_transmit_skb` for every data segment, whatever the
/// congestion control) sets `pingpong` when data leaves within `ato` of the last data
/// received. A pingpong receiver is not in quick-ACK mode (`tcp_in_quickack_mode`: `quick &&
/// !pingpong`), so the next request, which the server does not answer, is ACKed by the
/// delayed-ACK timer: `tcp_send_delayed_ack` keeps ato = TCP_ATO_MIN = 40 ms (it bounds ato
/// only when it exceeds TCP_DELACK_MIN), 40 ms after the arrival. A receiver that never
/// answered would still be in quick-ACK mode (16 quick ACKs, as above) and ACK on arrival.
#[test]
fn an_answered_request_makes_the_next_ack_wait_for_the_timer() {
    for answer in [false, true] {
        let mut p = linux_pair();
        let t0 = p.now;
        let first = util::seg_seq(0);
        p.client.write(MESSAGE);
        let arrival1 = t0 + ms(ONE_WAY_MS);
        p.run_until(arrival1);
        assert_eq!(p.server_read, MESSAGE);
        if answer {
            p.server.write(MESSAGE);
        }
        let t1 = t0 + ms(500);
        p.run_until(t1);
        p.client.write(MESSAGE);
        let arrival2 = t1 + ms(ONE_WAY_MS);
        p.run_until(t1 + ms(1000));
        assert_eq!(p.server_read, 2 * MESSAGE);
        let ack2 = acks(&p, t1, first)
            .into_iter()
            .find(|&(_, acked)| acked == 2 * MESSAGE)
            .map(|(t, _)| t);
        let expected = if answer { arrival2 + ms(40) } else { arrival2 };
        assert_eq!(ack2, Some(expected), "answered: {answer}");
    }
}
