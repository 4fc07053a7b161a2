//! Turning off the congestion-window and RTT events
//! ([`Connection::set_cwnd_rtt_events`]) changes nothing but those events: over a lossy,
//! reordering wire the endpoints send the same segments at the same times either way.
//!
//! [`Connection::set_cwnd_rtt_events`]: tern_proto::tcp::Connection::set_cwnd_rtt_events

mod util;

use tern_proto::tcp::{Config, Event, Segment};
use tern_proto::time::SimTime;
use util::{Pair, Side, Wire};

/// A 400 kB transfer with SACK and timestamps over a wire losing 3 % and reordering:
/// every segment sent, and the client's events.
fn transfer(events: bool) -> (Vec<(SimTime, Side, Segment)>, Vec<Event>) {
    let cfg = Config {
        sack: true,
        timestamps: true,
        ..Config::default()
    };
    let wire = Wire {
        loss: 0.03,
        jitter: SimTime::from_millis(20),
        ..Wire::default()
    };
    let mut p = Pair::new(cfg.clone(), cfg, wire, 11);
    p.client.set_cwnd_rtt_events(events);
    p.server.set_cwnd_rtt_events(events);
    p.client.write(400_000);
    p.drive();
    p.run_until(SimTime::from_secs(60));
    assert_eq!(p.server_read, 400_000, "the transfer completes");
    let events = p.client_events.into_iter().map(|(_, e)| e).collect();
    (p.sent, events)
}

#[test]
fn same_segments_without_cwnd_and_rtt_events() {
    let (sent_on, events_on) = transfer(true);
    let (sent_off, events_off) = transfer(false);
    assert_eq!(sent_on, sent_off);
    let per_ack = |e: &Event| matches!(e, Event::CwndChanged { .. } | Event::RttUpdated { .. });
    assert!(events_on.iter().any(per_ack));
    assert!(!events_off.iter().any(per_ack));
    // The other events (retransmissions, recovery) are still reported.
    let others = |v: &[Event]| {
        v.iter()
            .filter(|e| !per_ack(e))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(others(&events_on), others(&events_off));
    assert!(events_off
        .iter()
        .any(|e| matches!(e, Event::Retransmit { .. })));
}
