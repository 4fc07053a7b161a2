//! Growth of cwnd only while cwnd-limited (Linux `tcp_is_cwnd_limited`, RFC 2861):
//! a sender held back by its send buffer keeps cwnd near what it can have in flight.

mod util;

use tern_proto::tcp::{CcKind, Config, InitialWindow};
use tern_proto::time::SimTime;
use util::{Pair, Wire, MSS};

/// The send buffer holds 20 segments; the receiver's window (1 MiB) never binds.
const BUFFER_SEGMENTS: u64 = 20;

/// cwnd (in bytes) after 3 s of a bulk sender whose application keeps its buffer full.
fn cwnd_after_bulk(cc: CcKind, cwnd_limited_growth: bool) -> u64 {
    let cfg = Config {
        cc,
        cwnd_limited_growth,
        timestamps: false,
        send_buffer: BUFFER_SEGMENTS * MSS,
        recv_buffer: 1 << 20,
        initial_window: InitialWindow::Segments(10),
        ..Config::default()
    };
    let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
    p.handshake();
    while p.now < SimTime::from_secs(3) {
        p.client.write(u64::MAX / 2);
        p.drive();
        if !p.step() {
            break;
        }
    }
    p.client.cwnd()
}

/// RFC 5681 §3.1 grows cwnd on every ACK: with a 100 ms RTT, 3 s of slow start
/// take it far past the 20 segments the buffer lets fly.
#[test]
fn without_the_rule_cwnd_outgrows_the_flight() {
    for cc in [CcKind::NewReno, CcKind::Cubic] {
        assert!(cwnd_after_bulk(cc, false) > 100 * MSS, "{cc:?}");
    }
}

/// With the rule an ACK grows cwnd only if the flight before it (at most the 20
/// buffered segments) was within 3 segments of cwnd, so cwnd never passes
/// 20 + 3 segments plus one ACK's slow-start increase (RFC 5681 §3.1 with delayed
/// ACKs: one ACK covers at most 2 segments): 25 segments. Slow start from IW10
/// fills the buffer first, so cwnd reaches at least 20.
#[test]
fn with_the_rule_cwnd_stays_at_the_flight() {
    for cc in [CcKind::NewReno, CcKind::Cubic] {
        let cwnd = cwnd_after_bulk(cc, true);
        assert!(
            (BUFFER_SEGMENTS * MSS..=(BUFFER_SEGMENTS + 5) * MSS).contains(&cwnd),
            "{cc:?}: cwnd {cwnd} B = {} segments",
            cwnd / MSS
        );
    }
}
