//! Unit tests of the connection as a whole: the congestion controller's
//! optional hooks.

use std::sync::{Arc, Mutex};

use super::*;
use crate::cc::{
    AckEvent, AppLimitedEvent, FrtoFallbackEvent, LossEvent, NewReno, RttSample, SpuriousRtoEvent,
};

/// NewReno that also writes down the optional hooks it is given.
#[derive(Clone, Debug)]
struct Recorder {
    inner: NewReno,
    rtts: Arc<Mutex<Vec<SimTime>>>,
    app_limited: Arc<Mutex<Vec<u64>>>,
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

#[test]
fn controller_hears_rtt_samples_and_app_limited_periods() {
    let cfg = Config {
        timestamps: false,
        ..Config::default()
    };
    let mut client = Connection::connect(cfg.clone(), 1, SimTime::ZERO);
    let mut server = Connection::listen(cfg, 2);
    deliver(&mut client, &mut server, SimTime::ZERO);
    deliver(&mut server, &mut client, SimTime::ZERO);
    deliver(&mut client, &mut server, SimTime::ZERO);
    assert!(client.is_established() && server.is_established());

    let rec = Recorder {
        inner: NewReno::new(
            client.smss(),
            10 * u64::from(client.smss()),
            crate::cc::CaIncrease::ByteCounting,
        ),
        rtts: Arc::default(),
        app_limited: Arc::default(),
    };
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
