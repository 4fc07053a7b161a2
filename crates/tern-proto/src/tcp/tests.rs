//! Unit tests of the connection as a whole: the congestion controller's
//! optional hooks.

use std::sync::{Arc, Mutex};

use super::*;
use crate::cc::{
    AckEvent, AppLimitedEvent, FrtoFallbackEvent, LossEvent, LostPacket, NewReno, RateSample,
    RttSample, SpuriousRtoEvent,
};

/// NewReno that also writes down the optional hooks it is given; with `sampling` it asks for
/// rate samples.
#[derive(Clone, Debug)]
struct Recorder {
    inner: NewReno,
    sampling: bool,
    rtts: Arc<Mutex<Vec<SimTime>>>,
    app_limited: Arc<Mutex<Vec<u64>>>,
    samples: Arc<Mutex<Vec<RateSample>>>,
    lost: Arc<Mutex<Vec<LostPacket>>>,
}

impl Recorder {
    fn new(inner: NewReno) -> Recorder {
        Recorder {
            inner,
            sampling: false,
            rtts: Arc::default(),
            app_limited: Arc::default(),
            samples: Arc::default(),
            lost: Arc::default(),
        }
    }
}

impl CongestionControl for Recorder {
    fn cwnd(&self) -> u64 {
        self.inner.cwnd()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn on_ack(&mut self, ev: &AckEvent) {
        self.inner.on_ack(ev);
    }
    fn on_congestion_event(&mut self, ev: &LossEvent) {
        self.inner.on_congestion_event(ev);
    }
    fn on_rto(&mut self, ev: &LossEvent) {
        self.inner.on_rto(ev);
    }
    fn on_rtt_sample(&mut self, ev: &RttSample) {
        self.rtts.lock().unwrap().push(ev.rtt);
    }
    fn on_app_limited(&mut self, ev: &AppLimitedEvent) {
        self.app_limited.lock().unwrap().push(ev.in_flight);
    }
    fn on_rate_sample(&mut self, ev: &RateSample) {
        self.samples.lock().unwrap().push(*ev);
    }
    fn on_packet_lost(&mut self, ev: &LostPacket) {
        self.lost.lock().unwrap().push(*ev);
    }
    fn wants_rate_samples(&self) -> bool {
        self.sampling
    }
    fn boxed_clone(&self) -> Box<dyn CongestionControl> {
        Box::new(self.clone())
    }
    fn on_spurious_rto(&mut self, ev: &SpuriousRtoEvent) {
        self.inner.on_spurious_rto(ev);
    }
    fn on_frto_fallback(&mut self, ev: &FrtoFallbackEvent) {
        self.inner.on_frto_fallback(ev);
    }

    fn exit_slow_start(&mut self, now: SimTime) {
        self.inner.exit_slow_start(now);
    }
}

fn deliver(from: &mut Connection, to: &mut Connection, now: SimTime) -> usize {
    let mut n = 0;
    while let Some(seg) = from.poll_transmit(now) {
        to.handle_segment(now, &seg);
        n += 1;
    }
    n
}

/// A client and a server after the three-way handshake, without timestamps.
fn established() -> (Connection, Connection) {
    let cfg = Config {
        timestamps: false,
        ..Config::default()
    };
    let mut client = Connection::connect(cfg.clone(), 1, SimTime::ZERO);
    let mut server = Connection::listen(cfg, 2);
    deliver(&mut client, &mut server, SimTime::ZERO);
    deliver(&mut server, &mut client, SimTime::ZERO);
    deliver(&mut client, &mut server, SimTime::ZERO);
    (client, server)
}

#[test]
fn controller_hears_rtt_samples_and_app_limited_periods() {
    let (mut client, mut server) = established();
    assert!(client.is_established() && server.is_established());

    let rec = Recorder::new(NewReno::new(
        client.smss(),
        10 * u64::from(client.smss()),
        crate::cc::CaIncrease::ByteCounting,
    ));
    let (rtts, app_limited) = (rec.rtts.clone(), rec.app_limited.clone());
    client.cc = Box::new(rec);

    // Two segments leave, then the window has room and nothing to send.
    client.write(2 * u64::from(client.smss()));
    assert_eq!(deliver(&mut client, &mut server, SimTime::ZERO), 2);
    let flight = 2 * u64::from(client.smss());
    assert_eq!(*app_limited.lock().unwrap(), vec![flight]);
    // The receiver acknowledges both at once (every second segment) 30 ms later.
    let later = SimTime::from_millis(30);
    deliver(&mut server, &mut client, later);
    assert_eq!(*rtts.lock().unwrap(), vec![later]);
    deliver(&mut client, &mut server, later);
    assert_eq!(app_limited.lock().unwrap().last(), Some(&0));
}

/// Ten segments leave at once (initial window 10) and the third is dropped. Each segment's
/// snapshot holds the flight just after it left, itself included (`tx.in_flight`): n
/// segments for the n-th. The receiver SACKs 4, 5 and 6; with three segments SACKed above
/// it the third IsLost() (RFC 6675 §4) and the controller hears of it once, before that
/// ACK's sample: a flight of 3 segments and 1 segment lost since, itself
/// (`tp->lost − tx.lost`). That ACK's sample is the sixth segment's: a flight of 6 and the
/// same loss since it left.
#[test]
fn controller_hears_each_lost_segment_with_its_send_time_flight() {
    let (mut client, mut server) = established();
    let smss = u64::from(client.smss());
    let rec = Recorder {
        sampling: true,
        ..Recorder::new(NewReno::new(
            client.smss(),
            10 * smss,
            crate::cc::CaIncrease::ByteCounting,
        ))
    };
    let (samples, lost) = (rec.samples.clone(), rec.lost.clone());
    client.cc = Box::new(rec);
    client.sampling = Some(Box::default());
    client.sb.set_sampling();

    client.write(10 * smss);
    let mut sent = Vec::new();
    while let Some(seg) = client.poll_transmit(SimTime::ZERO) {
        sent.push(seg);
    }
    assert_eq!(sent.len(), 10);
    let flights: Vec<_> = client
        .sb
        .snapshots()
        .iter()
        .map(|tx| tx.unwrap().in_flight)
        .collect();
    assert_eq!(flights, (1..=10).map(|n| n * smss).collect::<Vec<_>>());
    let later = SimTime::from_millis(40);
    for (i, seg) in sent.iter().enumerate() {
        if i == 2 {
            continue;
        }
        server.handle_segment(later, seg);
        while let Some(ack) = server.poll_transmit(later) {
            let before = lost.lock().unwrap().len();
            client.handle_segment(later, &ack);
            if lost.lock().unwrap().len() > before {
                assert_eq!(i, 5, "marked lost on the ACK of segment {}", i + 1);
            }
        }
    }
    let lost = lost.lock().unwrap();
    assert_eq!(lost.len(), 1, "{lost:?}");
    let l = lost[0];
    assert_eq!(
        (
            l.bytes,
            l.tx_in_flight,
            l.lost,
            l.is_app_limited,
            l.has_snapshot
        ),
        (smss, 3 * smss, smss, false, true)
    );
    let marking = samples
        .lock()
        .unwrap()
        .iter()
        .copied()
        .find(|s| s.losses > 0)
        .unwrap();
    assert_eq!((marking.tx_in_flight, marking.lost), (6 * smss, smss));
}
