//! The world of one run: nodes, links, flows, the event queue, and the loop
//! that drives them.

use crate::app::{MessageSink, MessageSource, SendSchedule, SourceKind};
use crate::engine::{EventQueue, RngStream, SimTime};
use crate::net::link::{ChanId, Channel, Dir, Offer};
use crate::net::loss::LossModel;
use crate::net::packet::{Body, FlowId, NodeId, PacketPool, PacketRef, UdpKind, UdpMessage};
use crate::net::qdisc::{Qdisc, Queued};
use crate::net::route::Routes;
use crate::scenario::units::DataRate;
use crate::scenario::{AppSpec, Direction, LinkSpec, Scenario};
use crate::summary::{self, Summary};
use crate::trace::{Cell, Table, Traces};

/// Channel ends and routes of a scenario. Link `i` has channel `2i` forward
/// (`ends[0]` → `ends[1]`) and `2i + 1` reverse.
pub(crate) fn topology(s: &Scenario) -> (Vec<(NodeId, NodeId)>, Routes) {
    let node = |name: &str| {
        NodeId(
            s.nodes
                .iter()
                .position(|n| n.name == name)
                .expect("checked") as u32,
        )
    };
    let mut ends = Vec::with_capacity(2 * s.links.len());
    for l in &s.links {
        let (a, b) = (node(&l.ends[0]), node(&l.ends[1]));
        ends.push((a, b));
        ends.push((b, a));
    }
    let mut routes = Routes::shortest_paths(s.nodes.len(), &ends);
    for r in &s.routes {
        let from = node(&r.node);
        let link = s
            .links
            .iter()
            .position(|l| l.name == r.via)
            .expect("checked");
        let ch = if ends[2 * link].0 == from {
            2 * link
        } else {
            2 * link + 1
        };
        routes.set(from, node(&r.to), ChanId(ch as u32));
    }
    (ends, routes)
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The packet in service on a channel has been serialized.
    TxDone(ChanId),
    /// A packet's last bit reaches the far end of a channel.
    Arrive(ChanId, PacketRef),
    /// A flow's source is due to send.
    Send(FlowId),
    /// A scheduled change of a link (index into `World::changes`).
    Change(u32),
}

/// A scheduled change of one channel.
struct Change {
    chan: ChanId,
    rate: Option<DataRate>,
    delay: Option<SimTime>,
}

pub(crate) struct Flow {
    pub name: String,
    pub app: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
    pub start: SimTime,
    pub source: MessageSource,
    /// Data: one-way delays at the receiver. Echo: round-trip times at the sender.
    pub sink: MessageSink,
}

/// How a run ended early.
#[derive(Debug, PartialEq, Eq)]
pub enum RunError {
    /// The progress callback asked to stop (Ctrl-C).
    Interrupted { at: SimTime },
}

/// What a run produces.
pub struct RunOutput {
    pub summary: Summary,
    pub tables: Vec<Table>,
}

/// Progress is reported every this many events.
const PROGRESS_EVERY: u64 = 1 << 16;

pub struct World {
    seed: u64,
    end: SimTime,
    pub(crate) node_names: Vec<String>,
    pub(crate) channels: Vec<Channel>,
    routes: Routes,
    pub(crate) flows: Vec<Flow>,
    pub(crate) pool: PacketPool,
    queue: EventQueue<Event>,
    traces: Traces,
    changes: Vec<Change>,
    scratch: Vec<Queued>,
}

fn channel(link: &LinkSpec, dir: Dir, (from, to): (NodeId, NodeId), seed: u64) -> Channel {
    let covers = |d: Direction| match dir {
        Dir::Forward => d.covers_forward(),
        Dir::Reverse => d.covers_reverse(),
    };
    let loss = link
        .loss
        .as_ref()
        .filter(|l| covers(l.direction()))
        .map(|l| {
            let rng = RngStream::new(seed, &format!("link/{}/{}/loss", link.name, dir.as_str()));
            LossModel::from_spec(l, rng)
        });
    Channel::new(
        link.name.clone(),
        dir,
        from,
        to,
        link.mtu.0 as u32,
        link.rate,
        link.delay.0,
        Qdisc::from_spec(&link.queue, link.mtu.0 as u32),
        loss,
    )
}

impl World {
    /// Builds the world of a scenario that [`crate::scenario::load`] accepted.
    pub fn build(s: &Scenario) -> World {
        let seed = s.sim.seed;
        let end = s.sim.duration.0;
        let (ends, routes) = topology(s);
        let mut channels = Vec::with_capacity(ends.len());
        let mut changes = Vec::new();
        let mut queue = EventQueue::new();
        for (i, link) in s.links.iter().enumerate() {
            for (k, dir) in [Dir::Forward, Dir::Reverse].into_iter().enumerate() {
                channels.push(channel(link, dir, ends[2 * i + k], seed));
            }
            for c in &link.schedule {
                for (k, covered) in [c.direction.covers_forward(), c.direction.covers_reverse()]
                    .into_iter()
                    .enumerate()
                {
                    if covered {
                        queue.schedule(c.at.0, Event::Change(changes.len() as u32));
                        changes.push(Change {
                            chan: ChanId((2 * i + k) as u32),
                            rate: c.rate,
                            delay: c.delay.map(|d| d.0),
                        });
                    }
                }
            }
        }
        let node = |name: &str| {
            NodeId(
                s.nodes
                    .iter()
                    .position(|n| n.name == name)
                    .expect("checked") as u32,
            )
        };
        let mut flows = Vec::with_capacity(s.flows.len());
        for (i, f) in s.flows.iter().enumerate() {
            let start = f.start.0;
            let stop = f.stop.map_or(SimTime::MAX, |d| d.0);
            let (app, source) = match &f.app {
                AppSpec::Periodic {
                    size,
                    interval,
                    count,
                } => (
                    "periodic",
                    MessageSource::new(
                        SourceKind::Data,
                        size.0 as u32,
                        SendSchedule::every(start, interval.0, stop, *count),
                    ),
                ),
                AppSpec::Cbr { rate, size } => (
                    "cbr",
                    MessageSource::new(
                        SourceKind::Data,
                        size.0 as u32,
                        // Payload bits / rate: size * 8 * 1e9 / rate ns apart.
                        SendSchedule::ratio(
                            start,
                            u128::from(size.0) * 8 * 1_000_000_000,
                            u128::from(rate.0),
                            stop,
                            None,
                        ),
                    ),
                ),
                AppSpec::Ping { size, interval } => (
                    "ping",
                    MessageSource::new(
                        SourceKind::Echo,
                        size.0 as u32,
                        SendSchedule::every(start, interval.0, stop, None),
                    ),
                ),
            };
            if let Some(t) = source.schedule.next() {
                queue.schedule(t, Event::Send(FlowId(i as u32)));
            }
            flows.push(Flow {
                name: f.name.clone(),
                app,
                src: node(&f.from),
                dst: node(&f.to),
                start,
                source,
                sink: MessageSink::default(),
            });
        }
        World {
            seed,
            end,
            node_names: s.nodes.iter().map(|n| n.name.clone()).collect(),
            channels,
            routes,
            flows,
            pool: PacketPool::default(),
            queue,
            traces: Traces::new(&s.record),
            changes,
            scratch: Vec::new(),
        }
    }

    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    pub fn end(&self) -> SimTime {
        self.end
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Runs events due in `[0, duration)`. `progress` is called now and then with the simulated
    /// time; returning `false` stops the run.
    pub fn run(mut self, progress: &mut dyn FnMut(SimTime) -> bool) -> Result<RunOutput, RunError> {
        while let Some(t) = self.queue.peek_time() {
            if t >= self.end {
                break;
            }
            let (now, event) = self.queue.pop().expect("peeked");
            self.dispatch(now, event);
            if self.queue.events_popped().is_multiple_of(PROGRESS_EVERY) && !progress(now) {
                return Err(RunError::Interrupted { at: now });
            }
        }
        for ch in &mut self.channels {
            ch.close(self.end);
        }
        progress(self.end);
        let summary = summary::build(&self, self.queue.events_popped());
        Ok(RunOutput {
            summary,
            tables: self.traces.into_tables(),
        })
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::TxDone(c) => self.tx_done(now, c),
            Event::Arrive(c, p) => self.arrive(now, c, p),
            Event::Send(f) => self.send(now, f),
            Event::Change(i) => {
                let change = &self.changes[i as usize];
                let ch = &mut self.channels[change.chan.0 as usize];
                if let Some(r) = change.rate {
                    ch.rate = r;
                }
                if let Some(d) = change.delay {
                    ch.delay = d;
                }
            }
        }
    }

    fn send(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f.0 as usize];
        let msg = flow.source.emit(now);
        let (src, dst) = (flow.src, flow.dst);
        if let Some(t) = flow.source.schedule.next() {
            self.queue.schedule(t, Event::Send(f));
        }
        let p = self.pool.insert(f, src, dst, Body::Udp(msg));
        self.forward(now, src, p);
    }

    /// Hands packet `p` to node `at`: delivers it there or sends it on.
    fn forward(&mut self, now: SimTime, at: NodeId, p: PacketRef) {
        let pkt = self.pool.get(p);
        if pkt.dst == at {
            let pkt = self.pool.take(p);
            self.deliver(now, pkt.flow, &pkt.body);
            return;
        }
        let c = self
            .routes
            .next_hop(at, pkt.dst)
            .expect("routes checked before the run");
        let size = pkt.size();
        let ch = &mut self.channels[c.0 as usize];
        match ch.offer(now, p, size) {
            Offer::Transmitting(done) => self.queue.schedule(done, Event::TxDone(c)),
            Offer::Queued => self.trace_queue(now, c),
            Offer::Dropped => self.drop_packet(now, c, p, "queue"),
        }
    }

    fn tx_done(&mut self, now: SimTime, c: ChanId) {
        let mut dropped = std::mem::take(&mut self.scratch);
        let ch = &mut self.channels[c.0 as usize];
        let queued_before = ch.queue_packets();
        let (p, arrival, next) = ch.finish(now, &mut dropped);
        let changed = ch.queue_packets() != queued_before;
        self.queue.schedule(arrival, Event::Arrive(c, p));
        if let Some(done) = next {
            self.queue.schedule(done, Event::TxDone(c));
        }
        for q in dropped.drain(..) {
            self.drop_packet(now, c, q.packet, "aqm");
        }
        self.scratch = dropped;
        if changed {
            self.trace_queue(now, c);
        }
    }

    fn arrive(&mut self, now: SimTime, c: ChanId, p: PacketRef) {
        let ch = &mut self.channels[c.0 as usize];
        if ch.loss.as_mut().is_some_and(|l| l.is_lost(now)) {
            ch.stats.drops_loss += 1;
            self.drop_packet(now, c, p, "loss");
            return;
        }
        ch.stats.delivered_packets += 1;
        let to = ch.to;
        self.forward(now, to, p);
    }

    /// A packet reached its destination node.
    fn deliver(&mut self, now: SimTime, f: FlowId, body: &Body) {
        let Body::Udp(msg) = body;
        let flow = &mut self.flows[f.0 as usize];
        match msg.kind {
            UdpKind::Data => {
                let delay = flow.sink.receive(now, msg);
                if let Some(t) = &mut self.traces.delay {
                    t.push(&[
                        Cell::F64(now.as_secs_f64()),
                        Cell::Text(&flow.name),
                        Cell::U64(msg.seq),
                        Cell::F64(msg.sent_at.as_secs_f64()),
                        Cell::F64(delay.as_secs_f64()),
                        Cell::U64(u64::from(msg.len)),
                    ]);
                }
            }
            UdpKind::EchoRequest => {
                // The far end answers with the same payload (RFC 792 echo semantics).
                let reply = UdpMessage {
                    kind: UdpKind::EchoReply,
                    ..*msg
                };
                let (src, dst) = (flow.dst, flow.src);
                let p = self.pool.insert(f, src, dst, Body::Udp(reply));
                self.forward(now, src, p);
            }
            UdpKind::EchoReply => {
                let rtt = flow.sink.receive(now, msg);
                if let Some(t) = &mut self.traces.rtt {
                    t.push(&[
                        Cell::F64(now.as_secs_f64()),
                        Cell::Text(&flow.name),
                        Cell::U64(msg.seq),
                        Cell::F64(rtt.as_secs_f64()),
                    ]);
                }
            }
        }
    }

    fn drop_packet(&mut self, now: SimTime, c: ChanId, p: PacketRef, reason: &str) {
        let pkt = self.pool.take(p);
        if let Some(t) = &mut self.traces.drops {
            let ch = &self.channels[c.0 as usize];
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(&ch.link),
                Cell::Text(ch.dir.as_str()),
                Cell::Text(reason),
                Cell::Text(&self.flows[pkt.flow.0 as usize].name),
                Cell::U64(pkt.uid),
                Cell::U64(u64::from(pkt.size())),
            ]);
        }
    }

    fn trace_queue(&mut self, now: SimTime, c: ChanId) {
        if let Some(t) = &mut self.traces.queue {
            let ch = &self.channels[c.0 as usize];
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(&ch.link),
                Cell::Text(ch.dir.as_str()),
                Cell::U64(ch.queue_packets() as u64),
                Cell::U64(ch.queue_bytes()),
            ]);
        }
    }
}
