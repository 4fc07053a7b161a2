//! A W-CDMA radio bearer between a UE and its RNC with RLC acknowledged mode
//! (3GPP TS 25.322) at both ends.
//!
//! IP packets handed to the bearer become RLC SDUs of the sending end's
//! entity. At every TTI boundary each entity sends up to the PDUs that fit
//! in a TTI (bearer payload rate × TTI / PDU payload bits, the fraction
//! carried over), STATUS first; each PDU is lost or not on the radio (the
//! direction's PDU error model), and the survivors of a TTI arrive together
//! one TTI plus the radio delay later. The receiving entity reassembles and
//! delivers SDUs in order; each reaches the far node `sdu_delay` later.
//! TTIs run only while an entity has something to send or a timer pending.

mod link;
pub mod records;
pub(crate) use records::records;
pub mod spec;

pub use spec::{RlcSpec, RlcSummary, Wcdma};

use crate::engine::{RngStream, SimTime, Wake};
use crate::net::device::{Action, Device, DeviceCx, DropKind, Enqueued, IfaceId, Outgoing};
use crate::net::loss::LossModel;
use crate::net::packet::PacketRef;
use crate::scenario::{Direction, LinkDetail, LinkSpec};
use crate::summary::ChannelSummary;
use records::{RlcRecord, RlcSduRecord};
use std::collections::{BTreeMap, VecDeque};
use tern_proto::rlc::{self, Pdu, RlcAm, Sdu};

/// Counters of one direction's RLC, for the summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct RlcCounters {
    pub pdus_sent: u64,
    pub pdus_lost: u64,
    pub max_buffer_bytes: u64,
    pub max_queued_bytes: u64,
}

/// One direction: the sending entity's PDUs on their way to the peer.
struct Radio {
    /// PDUs per TTI as a fraction num/den, and the carried remainder.
    per_tti_num: u64,
    per_tti_den: u64,
    carry: u64,
    delay: SimTime,
    loss: Option<LossModel>,
    /// Batches of PDUs of one TTI, in arrival order.
    in_flight: VecDeque<(SimTime, Vec<Pdu>)>,
    /// Packets in this direction's RLC, by SDU id (the packet uid), with
    /// when they entered it.
    packets: BTreeMap<u64, (PacketRef, SimTime)>,
    counters: RlcCounters,
}

/// What a TTI or an arrival produced.
#[derive(Default)]
struct Outcome {
    /// Batches that will arrive: (direction, arrival time).
    arrivals: Vec<(usize, SimTime)>,
    /// Packets reassembled: (direction, packet, time it entered the RLC).
    delivered: Vec<(usize, PacketRef, SimTime)>,
    /// Packets discarded after MaxDAT: (direction, packet).
    discarded: Vec<(usize, PacketRef)>,
    /// Per direction: PDUs sent in this TTI, of which retransmissions.
    sent: [(u64, u64); 2],
}

/// The bearer: entity 0 at `ends[0]` (UE), entity 1 at `ends[1]` (RNC);
/// direction 0 carries entity 0's data (the link's forward direction). As a [`Device`],
/// port 0 is the forward interface and port 1 the reverse one.
pub struct WcdmaBearer {
    link: String,
    /// The forward interface; the reverse one follows it.
    first: IfaceId,
    pub entities: [RlcAm; 2],
    radios: [Radio; 2],
    pub tti: SimTime,
    pub sdu_delay: SimTime,
    /// The TTI boundary of the pending TTI event, if one is queued.
    next_tti: Wake,
    last_tti: Option<SimTime>,
}

/// The bearer's wake-ups: the TTI clock, and a batch of PDUs arriving in direction
/// `token - 1`.
const TTI: u32 = 0;

/// The RLC configuration of a bearer (both entities alike).
pub fn config(spec: &RlcSpec) -> rlc::Config {
    rlc::Config {
        pdu_size: spec.pdu_size.0 as u32,
        tx_window: spec.window,
        rx_window: spec.window,
        max_dat: spec.max_dat,
        timer_poll: Some(spec.timer_poll.0),
        poll_pdu: spec.poll_pdu,
        poll_sdu: (spec.poll_sdu > 0).then_some(spec.poll_sdu),
        poll_window: spec.poll_window,
        timer_poll_prohibit: spec.timer_poll_prohibit.map(|d| d.0),
        timer_status_prohibit: Some(spec.timer_status_prohibit.0),
        tx_buffer_bytes: spec.buffer.map(|b| b.0),
        ..rlc::Config::default()
    }
}

impl WcdmaBearer {
    /// The bearer of `link` (which has an `rlc` table, checked by validation).
    pub fn new(link: &LinkSpec, spec: &RlcSpec, seed: u64, first: IfaceId) -> WcdmaBearer {
        let cfg = config(spec);
        let payload_bits = u64::from(cfg.payload_size()) * 8;
        let tti_ns = u128::from(spec.tti.0.as_nanos());
        let radio = |dir: usize| {
            let reverse = link.reverse.as_ref().filter(|_| dir == 1);
            let rate = reverse.and_then(|r| r.rate).unwrap_or(link.rate);
            let delay = reverse.and_then(|r| r.delay).unwrap_or(link.delay);
            let name = if dir == 0 { "forward" } else { "reverse" };
            let covers = |d: Direction| {
                if dir == 0 {
                    d.covers_forward()
                } else {
                    d.covers_reverse()
                }
            };
            let loss = spec
                .pdu_loss
                .as_ref()
                .filter(|l| covers(l.direction()))
                .map(|l| {
                    let rng = RngStream::new(seed, &format!("link/{}/{name}/pdu-loss", link.name));
                    // Validation refuses a distance model for PDU errors: no node's path is asked.
                    let nowhere = |_: &str| {
                        crate::radio::mobility::Mobility::Static(
                            crate::radio::mobility::Position::new(0.0, 0.0, 0.0),
                        )
                    };
                    LossModel::from_spec(l, rng, &nowhere)
                });
            // PDUs per TTI = rate × TTI / payload bits, kept as an exact fraction.
            let num = u128::from(rate.0) * tti_ns;
            let den = u128::from(payload_bits) * 1_000_000_000;
            let g = gcd(num, den);
            Radio {
                per_tti_num: (num / g) as u64,
                per_tti_den: (den / g) as u64,
                carry: 0,
                delay: delay.0,
                loss,
                in_flight: VecDeque::new(),
                packets: BTreeMap::new(),
                counters: RlcCounters::default(),
            }
        };
        WcdmaBearer {
            link: link.name.clone(),
            first,
            entities: [
                RlcAm::new(cfg.clone()).expect("validated"),
                RlcAm::new(cfg).expect("validated"),
            ],
            radios: [radio(0), radio(1)],
            tti: spec.tti.0,
            sdu_delay: spec.sdu_delay.0,
            next_tti: Wake::default(),
            last_tti: None,
        }
    }

    /// Hands packet `p` (uid `uid`, `size` bytes) to direction `dir`'s
    /// sending entity. Returns false if its buffer refused it.
    fn offer(&mut self, now: SimTime, dir: usize, p: PacketRef, uid: u64, size: u32) -> bool {
        let e = &mut self.entities[dir];
        if !e.push_sdu(now, uid, size) {
            while e.poll_event().is_some() {}
            return false;
        }
        let r = &mut self.radios[dir];
        r.packets.insert(uid, (p, now));
        r.counters.max_buffer_bytes = r.counters.max_buffer_bytes.max(e.buffered_bytes());
        r.counters.max_queued_bytes = r.counters.max_queued_bytes.max(e.unsent_bytes());
        true
    }

    /// The TTI boundary at which the bearer must next run, if any: the
    /// first boundary after the last TTI run that is not before `now` (or
    /// not before the earliest timer, when nothing waits to be sent).
    fn wanted_tti(&self, now: SimTime) -> Option<SimTime> {
        let send = self.entities.iter().any(RlcAm::wants_transmit);
        let timer = self.entities.iter().filter_map(RlcAm::poll_timeout).min();
        let from = if send { now } else { timer?.max(now) };
        let tti = self.tti.as_nanos();
        let mut at = SimTime(from.as_nanos().div_ceil(tti) * tti);
        if self.last_tti.is_some_and(|l| at <= l) {
            at = self.last_tti.expect("checked") + self.tti;
        }
        Some(at)
    }

    /// Runs the TTI starting at `now`: timers, then each entity's PDUs onto
    /// its radio.
    fn run_tti(&mut self, now: SimTime) -> Outcome {
        self.last_tti = Some(now);
        let mut out = Outcome::default();
        for dir in 0..2 {
            let e = &mut self.entities[dir];
            if e.poll_timeout().is_some_and(|t| t <= now) {
                e.handle_timeout(now);
            }
            let r = &mut self.radios[dir];
            let budget = r.carry + r.per_tti_num;
            let n = budget / r.per_tti_den;
            let pdus = e.poll_tti(now, n as usize);
            // Unused capacity is not saved up: carry only the fraction.
            r.carry = if (pdus.len() as u64) < n {
                0
            } else {
                budget % r.per_tti_den
            };
            out.sent[dir].0 = pdus.len() as u64;
            let mut survivors = Vec::with_capacity(pdus.len());
            for pdu in pdus {
                r.counters.pdus_sent += 1;
                if r.loss.as_mut().is_some_and(|l| l.is_lost(now)) {
                    r.counters.pdus_lost += 1;
                } else {
                    survivors.push(pdu);
                }
            }
            if !survivors.is_empty() {
                let at = now + self.tti + r.delay;
                r.in_flight.push_back((at, survivors));
                out.arrivals.push((dir, at));
            }
            self.drain(dir, &mut out);
        }
        out
    }

    /// The batch of direction `dir` due at `now` reaches the peer entity.
    fn arrive(&mut self, now: SimTime, dir: usize) -> Outcome {
        let (_, batch) = self.radios[dir]
            .in_flight
            .pop_front()
            .expect("an arrival event per batch");
        let peer = &mut self.entities[1 - dir];
        for pdu in &batch {
            peer.handle_pdu(now, pdu);
        }
        let mut out = Outcome::default();
        self.drain(dir, &mut out);
        self.drain(1 - dir, &mut out);
        out
    }

    /// Collects SDUs delivered by the entity receiving direction `dir` and
    /// the trace events of direction `dir`'s sender.
    fn drain(&mut self, dir: usize, out: &mut Outcome) {
        let receiver = &mut self.entities[1 - dir];
        while let Some(Sdu { id, .. }) = receiver.poll_delivered() {
            let (p, entered) = self.radios[dir]
                .packets
                .remove(&id)
                .expect("delivered SDUs were offered");
            out.delivered.push((dir, p, entered));
        }
        let sender = &mut self.entities[dir];
        while let Some(ev) = sender.poll_event() {
            match ev {
                rlc::Event::SduDiscarded { id, .. } => {
                    if let Some((p, _)) = self.radios[dir].packets.remove(&id) {
                        out.discarded.push((dir, p));
                    }
                }
                rlc::Event::Retransmit { .. } => out.sent[dir].1 += 1,
                _ => {}
            }
        }
        let r = &mut self.radios[dir];
        r.counters.max_buffer_bytes = r.counters.max_buffer_bytes.max(sender.buffered_bytes());
    }

    pub fn counters(&self, dir: usize) -> RlcCounters {
        self.radios[dir].counters
    }

    /// SDU bytes held by direction `dir`'s sender (queued or unacknowledged).
    pub fn buffered_bytes(&self, dir: usize) -> u64 {
        self.entities[dir].buffered_bytes()
    }
}

impl WcdmaBearer {
    /// Acts on what a TTI or a PDU arrival produced: batches on the radio, the `rlc` and
    /// `rlc_sdu` traces, reassembled packets on their way to the far node, discarded ones.
    fn outcome(&mut self, now: SimTime, out: Outcome, cx: &mut DeviceCx<'_>) {
        for (dir, at) in out.arrivals {
            cx.push(Action::Wake {
                at,
                token: 1 + dir as u32,
            });
        }
        if cx.traces.wants::<RlcRecord>() {
            for (dir, &(sent, retx)) in out.sent.iter().enumerate() {
                if sent > 0 {
                    cx.traces.record(&RlcRecord {
                        time: now,
                        link: &self.link,
                        direction: direction(dir),
                        buffer_bytes: self.buffered_bytes(dir),
                        pdus_sent: sent,
                        pdus_retransmitted: retx,
                    });
                }
            }
        }
        for (dir, p, entered) in out.delivered {
            let iface = IfaceId(self.first.0 + dir as u32);
            if cx.traces.wants::<RlcSduRecord>() {
                cx.traces.record(&RlcSduRecord {
                    time: now,
                    link: &self.link,
                    direction: direction(dir),
                    uid: cx.pool.get(p).uid,
                    delay: now.saturating_sub(entered),
                });
            }
            cx.push(Action::Arrive {
                at: now + self.sdu_delay,
                iface,
                p,
            });
        }
        for (dir, p) in out.discarded {
            cx.push(Action::Drop {
                iface: IfaceId(self.first.0 + dir as u32),
                p,
                reason: "rlc-discard",
                kind: DropKind::Loss,
            });
        }
        self.arm(now, cx);
    }

    /// Keeps one TTI wake-up queued while the bearer has work.
    fn arm(&mut self, now: SimTime, cx: &mut DeviceCx<'_>) {
        if let Some(t) = self.wanted_tti(now) {
            if let Some(at) = self.next_tti.arm(now, t) {
                cx.push(Action::Wake { at, token: TTI });
            }
        }
    }
}

impl Device for WcdmaBearer {
    /// The packet becomes an SDU of the sending entity: it leaves the sender's first hop
    /// at once (into the RLC buffer), unless the buffer refuses it.
    fn enqueue(&mut self, now: SimTime, out: Outgoing<'_>, cx: &mut DeviceCx<'_>) -> Enqueued {
        let (iface, port, p, pkt) = (out.iface, out.port, out.p, out.pkt);
        if !self.offer(now, port as usize, p, pkt.uid, pkt.size()) {
            return Err("queue");
        }
        cx.push(Action::Transmit { iface, p });
        cx.push(Action::LeftFirstHop { iface, p });
        self.arm(now, cx);
        Ok(())
    }

    fn wake(&mut self, now: SimTime, token: u32, cx: &mut DeviceCx<'_>) {
        let out = if token == TTI {
            if !self.next_tti.fire(now) {
                return;
            }
            self.run_tti(now)
        } else {
            self.arrive(now, token as usize - 1)
        };
        self.outcome(now, out, cx);
    }

    fn report_port(&self, port: u32, row: &mut ChannelSummary) {
        let dir = port as usize;
        let (c, st) = (self.counters(dir), self.entities[dir].stats());
        row.detail = Some(LinkDetail::rlc(RlcSummary {
            pdus_sent: c.pdus_sent,
            pdus_lost: c.pdus_lost,
            pdus_retransmitted: st.pdus_retransmitted,
            status_pdus_sent: st.status_pdus_sent,
            polls_sent: st.polls_sent,
            sdus_discarded: st.sdus_discarded,
            sdus_refused: st.sdus_refused,
            max_buffer_bytes: c.max_buffer_bytes,
            max_queued_bytes: c.max_queued_bytes,
        }));
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

/// The name of direction `dir` of a bearer in traces.
fn direction(dir: usize) -> &'static str {
    if dir == 0 {
        "forward"
    } else {
        "reverse"
    }
}
