//! Test harness: two TCP endpoints joined by a configurable wire, driven by
//! a tiny event loop, so tests read as stories (quinn-proto style).

#![allow(dead_code)]

use std::ops::RangeBounds;

use tern_proto::tcp::{
    Config, Connection, Event, Flags, InitialWindow, RetransmitKind, Segment, SeqNum, State,
    TcpOptions,
};
use tern_proto::time::SimTime;

/// Initial sequence number of the client [`Pair::new`] builds.
pub const CLIENT_ISN: u32 = 1000;
/// Initial sequence number of the server [`Pair::new`] builds.
pub const SERVER_ISN: u32 = 5000;
/// The sender MSS with the default configuration and no timestamps
/// (Ethernet MTU).
pub const MSS: u64 = 1460;

/// A configuration whose segments are easy to craft by hand: no timestamps or window
/// scaling (so the sender MSS is [`MSS`]), a 65535-byte receive buffer, IW = 10 segments;
/// otherwise the defaults (min RTO 1 s as RFC 6298, delayed ACKs every 2 segments).
pub fn hand_config(sack: bool) -> Config {
    Config {
        sack,
        timestamps: false,
        window_scale: false,
        recv_buffer: 65535,
        initial_window: InitialWindow::Segments(10),
        ..Config::default()
    }
}

/// Which endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Client,
    Server,
}

/// Deterministic xorshift64* for wire impairments (test-only).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Wire impairments, applied independently per segment.
#[derive(Clone, Debug)]
pub struct Wire {
    pub delay: SimTime,
    /// Extra random delay in [0, jitter): reorders segments.
    pub jitter: SimTime,
    pub loss: f64,
    pub duplicate: f64,
    /// Everything sent in `[start, end)` is dropped.
    pub outage: Option<(SimTime, SimTime)>,
    /// `(start, end, extra)`: everything sent in `[start, end)` takes
    /// `extra` longer (a delay spike, e.g. a handover; spurious timeouts).
    pub spike: Option<(SimTime, SimTime, SimTime)>,
}

impl Default for Wire {
    fn default() -> Self {
        Wire {
            delay: SimTime::from_millis(50),
            jitter: SimTime::ZERO,
            loss: 0.0,
            duplicate: 0.0,
            outage: None,
            spike: None,
        }
    }
}

type DropFn = Box<dyn FnMut(Side, &Segment) -> bool>;

/// Two endpoints and the wire between them.
pub struct Pair {
    pub now: SimTime,
    pub client: Connection,
    pub server: Connection,
    pub wire: Wire,
    rng: Rng,
    in_flight: Vec<(SimTime, u64, Side, Segment)>,
    next_id: u64,
    /// Every segment sent, with its sender and time (before impairments).
    pub sent: Vec<(SimTime, Side, Segment)>,
    pub client_events: Vec<(SimTime, Event)>,
    pub server_events: Vec<(SimTime, Event)>,
    /// Test hook: return true to drop a specific segment.
    pub drop_fn: Option<DropFn>,
    /// Bytes the server application has read.
    pub server_read: u64,
    pub client_read: u64,
    /// When true the applications read everything readable after each step.
    pub auto_read: bool,
}

impl Pair {
    pub fn new(client_cfg: Config, server_cfg: Config, wire: Wire, seed: u64) -> Self {
        let client =
            Connection::connect(client_cfg, CLIENT_ISN, SimTime::ZERO).with_ports(40000, 80);
        let server = Connection::listen(server_cfg, SERVER_ISN).with_ports(80, 0);
        let mut p = Pair {
            now: SimTime::ZERO,
            client,
            server,
            wire,
            rng: Rng::new(seed),
            in_flight: Vec::new(),
            next_id: 0,
            sent: Vec::new(),
            client_events: Vec::new(),
            server_events: Vec::new(),
            drop_fn: None,
            server_read: 0,
            client_read: 0,
            auto_read: true,
        };
        p.drive();
        p
    }

    pub fn conn(&mut self, side: Side) -> &mut Connection {
        match side {
            Side::Client => &mut self.client,
            Side::Server => &mut self.server,
        }
    }

    /// Drains transmissions and events of both sides (the documented poll order).
    pub fn drive(&mut self) {
        let now = self.now;
        for side in [Side::Client, Side::Server] {
            while let Some(seg) = self.conn(side).poll_transmit(now) {
                self.put_on_wire(side, seg);
            }
            while let Some(ev) = self.conn(side).poll_event() {
                match side {
                    Side::Client => self.client_events.push((self.now, ev)),
                    Side::Server => self.server_events.push((self.now, ev)),
                }
            }
        }
    }

    fn put_on_wire(&mut self, from: Side, seg: Segment) {
        self.sent.push((self.now, from, seg.clone()));
        if let Some(f) = self.drop_fn.as_mut() {
            if f(from, &seg) {
                return;
            }
        }
        if let Some((a, b)) = self.wire.outage {
            if self.now >= a && self.now < b {
                return;
            }
        }
        if self.wire.loss > 0.0 && self.rng.unit() < self.wire.loss {
            return;
        }
        let copies = if self.wire.duplicate > 0.0 && self.rng.unit() < self.wire.duplicate {
            2
        } else {
            1
        };
        for _ in 0..copies {
            let jitter = if self.wire.jitter.0 > 0 {
                SimTime(self.rng.next_u64() % self.wire.jitter.0)
            } else {
                SimTime::ZERO
            };
            let spike = match self.wire.spike {
                Some((a, b, extra)) if self.now >= a && self.now < b => extra,
                _ => SimTime::ZERO,
            };
            let at = self.now + self.wire.delay + jitter + spike;
            self.in_flight.push((at, self.next_id, from, seg.clone()));
            self.next_id += 1;
        }
    }

    /// Time of the next thing that will happen, if anything.
    pub fn next_time(&self) -> Option<SimTime> {
        let wire = self.in_flight.iter().map(|e| e.0).min();
        [wire, self.client.poll_timeout(), self.server.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
    }

    pub fn wire_is_empty(&self) -> bool {
        self.in_flight.is_empty()
    }

    /// Advances to the next event and processes it. Returns false when idle.
    pub fn step(&mut self) -> bool {
        self.drive();
        let Some(t) = self.next_time() else {
            return false;
        };
        self.now = self.now.max(t);
        // Deliver the earliest segment due, if any; else fire timers.
        let due = self
            .in_flight
            .iter()
            .enumerate()
            .filter(|(_, e)| e.0 <= self.now)
            .min_by_key(|(_, e)| (e.0, e.1))
            .map(|(i, _)| i);
        if let Some(i) = due {
            let (_, _, from, seg) = self.in_flight.remove(i);
            let now = self.now;
            let to = match from {
                Side::Client => Side::Server,
                Side::Server => Side::Client,
            };
            self.conn(to).handle_segment(now, &seg);
        } else {
            let now = self.now;
            for side in [Side::Client, Side::Server] {
                if self.conn(side).poll_timeout().is_some_and(|d| d <= now) {
                    self.conn(side).handle_timeout(now);
                }
            }
        }
        if self.auto_read {
            let n = self.server.read(u64::MAX);
            self.server_read += n;
            let n = self.client.read(u64::MAX);
            self.client_read += n;
        }
        self.drive();
        true
    }

    /// Runs until `t` (events at exactly `t` included) or until idle.
    pub fn run_until(&mut self, t: SimTime) {
        self.drive();
        while self.next_time().is_some_and(|n| n <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    /// Runs until `cond` holds; panics after `max_steps`.
    pub fn run_while(&mut self, max_steps: usize, mut cond: impl FnMut(&Pair) -> bool) {
        for _ in 0..max_steps {
            if !cond(self) || !self.step() {
                return;
            }
        }
        panic!("still running after {max_steps} steps at {}", self.now);
    }

    /// Two endpoints configured as `cfg` on a perfect wire, connected.
    pub fn established(cfg: Config) -> Self {
        let mut p = Pair::new(cfg.clone(), cfg, Wire::default(), 1);
        p.handshake();
        p
    }

    pub fn handshake(&mut self) {
        self.run_while(1000, |p| {
            !(p.client.state() == State::Established && p.server.state() == State::Established)
        });
    }

    /// Segments sent by `side` (handshake included).
    pub fn sent_by(&self, side: Side) -> Vec<&Segment> {
        self.sent
            .iter()
            .filter(|(_, s, _)| *s == side)
            .map(|(_, _, seg)| seg)
            .collect()
    }
}

// ---- Crafting and inspecting TCP segments and events (client view). ----

pub fn ms(v: u64) -> SimTime {
    SimTime::from_millis(v)
}

/// Sequence number of the first byte of the client's data segment `i`
/// (full-sized segments of [`MSS`]).
pub fn seg_seq(i: u32) -> u32 {
    CLIENT_ISN + 1 + i * MSS as u32
}

/// Index of the client's data segment starting at `seq`.
pub fn seg_index(seq: SeqNum) -> u32 {
    seq.diff(SeqNum(seg_seq(0))) as u32 / MSS as u32
}

/// An ACK from the server as the client would receive it, advertising
/// `window` and carrying the SACK blocks `sack` (`[left, right)`).
pub fn ack_wnd(ack: u32, sack: &[(u32, u32)], window: u16) -> Segment {
    Segment {
        src_port: 80,
        dst_port: 40000,
        seq: SeqNum(SERVER_ISN + 1),
        ack: SeqNum(ack),
        flags: Flags {
            ack: true,
            ..Flags::default()
        },
        window,
        options: TcpOptions {
            sack_blocks: sack.iter().map(|&(l, r)| (SeqNum(l), SeqNum(r))).collect(),
            ..TcpOptions::default()
        },
        payload_len: 0,
    }
}

/// [`ack_wnd`] with a 65535-byte window.
pub fn ack(ack: u32, sack: &[(u32, u32)]) -> Segment {
    ack_wnd(ack, sack, 65535)
}

/// Everything `c` transmits at `now`.
pub fn drain(c: &mut Connection, now: SimTime) -> Vec<Segment> {
    std::iter::from_fn(|| c.poll_transmit(now)).collect()
}

/// The data segments `c` (a client) transmits at `now`, as segment indices.
pub fn drain_data(c: &mut Connection, now: SimTime) -> Vec<u32> {
    drain(c, now)
        .into_iter()
        .filter(|s| s.payload_len > 0)
        .map(|s| seg_index(s.seq))
        .collect()
}

/// The events `c` has queued.
pub fn events(c: &mut Connection) -> Vec<Event> {
    std::iter::from_fn(|| c.poll_event()).collect()
}

/// Client data segments sent at times in `when`: (time, segment index).
pub fn client_data(p: &Pair, when: impl RangeBounds<SimTime>) -> Vec<(SimTime, u32)> {
    p.sent
        .iter()
        .filter(|(t, side, seg)| *side == Side::Client && when.contains(t) && seg.payload_len > 0)
        .map(|(t, _, seg)| (*t, seg_index(seg.seq)))
        .collect()
}

/// Client retransmissions: (time, kind, segment index).
pub fn retransmits(p: &Pair) -> Vec<(SimTime, RetransmitKind, u32)> {
    p.client_events
        .iter()
        .filter_map(|(t, e)| match e {
            Event::Retransmit { kind, seq, .. } => Some((*t, *kind, seg_index(*seq))),
            _ => None,
        })
        .collect()
}

/// Client retransmission timeouts: (time, backoff).
pub fn rto_expiries(p: &Pair) -> Vec<(SimTime, u32)> {
    p.client_events
        .iter()
        .filter_map(|(t, e)| match e {
            Event::RtoExpired { backoff, .. } => Some((*t, *backoff)),
            _ => None,
        })
        .collect()
}

/// Times of the client's retransmission timeouts.
pub fn rto_expiry_times(p: &Pair) -> Vec<SimTime> {
    rto_expiries(p).into_iter().map(|(t, _)| t).collect()
}

/// A proptest configuration of `cases` cases from the fixed seed `seed`, which keeps CI
/// reproducible; set `PROPTEST_RNG_SEED` (a u64) to explore other cases.
pub fn proptest_config(cases: u32, seed: u64) -> proptest::test_runner::Config {
    let default = proptest::test_runner::Config::default();
    proptest::test_runner::Config {
        cases,
        rng_seed: match std::env::var("PROPTEST_RNG_SEED") {
            Ok(_) => default.rng_seed,
            Err(_) => proptest::test_runner::RngSeed::Fixed(seed),
        },
        failure_persistence: None,
        ..default
    }
}
