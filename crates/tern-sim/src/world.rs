//! The world of one run: nodes, links, flows, the event queue, and the loop
//! that drives them.

use crate::app::{MessageSink, MessageSource, SendSchedule, SourceKind};
use crate::cellular::wcdma::{Outcome, WcdmaBearer};
use crate::engine::{EventQueue, RngStream, SimTime};
use crate::mech::switcher::{
    Config as SwitcherConfig, ConnectionSwitcher, Decision, Notice, Policy,
};
use crate::net::link::{ChanId, Channel, Dir, Offer};
use crate::net::loss::LossModel;
use crate::net::packet::{Body, FlowId, NodeId, PacketPool, PacketRef, UdpKind, UdpMessage};
use crate::net::qdisc::{Qdisc, Queued};
use crate::net::route::Routes;
use crate::scenario::units::DataRate;
use crate::scenario::{
    AppSpec, Direction, LinkSpec, RecordKind, Scenario, SpareSpec, SwitchPolicy, TransportSpec,
};
use crate::summary::{self, Summary};
use crate::trace::pcap::PcapWriter;
use crate::trace::{Cell, Table, Traces};
use crate::transport::tcp::{self, Side, SpareRecipe, Switched, TcpApp, TcpFlow, TcpTransport};
use crate::wifi::bss::{self, Bss, Refused};
use crate::wifi::roaming::{self, Roam, Roamer, BEACON_INTERVAL};
use tern_proto::tcp::{Event as TcpEvent, RetransmitKind};

/// The smallest MTU on the paths between `a` and `b`, both ways.
fn path_mtu(s: &Scenario, ends: &[(NodeId, NodeId)], routes: &Routes, a: NodeId, b: NodeId) -> u32 {
    [(a, b), (b, a)]
        .into_iter()
        .flat_map(|(x, y)| routes.path(x, y, ends).expect("routes checked"))
        .map(|c| channel_mtu(s, c))
        .min()
        .unwrap_or(1500)
}

/// The IP MTU of channel `c`: its link's, or 1500 B on an 802.11 association (the
/// Ethernet MTU bridged by an AP; 802.11 itself carries MSDUs up to 2304 B).
pub(crate) fn channel_mtu(s: &Scenario, c: ChanId) -> u32 {
    s.links
        .get(c.0 as usize / 2)
        .map_or(WIFI_MTU, |l| l.mtu.0 as u32)
}

const WIFI_MTU: u32 = 1500;

/// The 802.11 associations of a scenario, in channel order after the links: (BSS index,
/// station index within it, from 1). Association `k` has channel `2(L + k)` uplink and
/// `2(L + k) + 1` downlink, L the number of links.
pub(crate) fn associations(s: &Scenario) -> Vec<(usize, usize)> {
    s.wifi
        .iter()
        .enumerate()
        .flat_map(|(b, w)| (1..=w.stations.len()).map(move |k| (b, k)))
        .collect()
}

/// For each association (in [`associations`] order), whether it is where the station
/// starts: the first BSS that lists the station.
pub(crate) fn initial_associations(s: &Scenario) -> Vec<bool> {
    associations(s)
        .into_iter()
        .map(|(b, k)| {
            let station = &s.wifi[b].stations[k - 1];
            s.wifi.iter().position(|w| w.stations.contains(station)) == Some(b)
        })
        .collect()
}

/// Channel ends and routes of a scenario, each station in the BSS it starts in. Link `i`
/// has channel `2i` forward (`ends[0]` → `ends[1]`) and `2i + 1` reverse.
pub(crate) fn topology(s: &Scenario) -> (Vec<(NodeId, NodeId)>, Routes) {
    let ends = channel_ends(s);
    let routes = routes(s, &ends, &initial_associations(s));
    (ends, routes)
}

pub(crate) fn channel_ends(s: &Scenario) -> Vec<(NodeId, NodeId)> {
    let node = |name: &str| node_id(s, name);
    let mut ends = Vec::with_capacity(2 * s.links.len());
    for l in &s.links {
        let (a, b) = (node(&l.ends[0]), node(&l.ends[1]));
        ends.push((a, b));
        ends.push((b, a));
    }
    for (b, k) in associations(s) {
        let (sta, ap) = (node(&s.wifi[b].stations[k - 1]), node(&s.wifi[b].ap));
        ends.push((sta, ap));
        ends.push((ap, sta));
    }
    ends
}

/// The node named `name` (the scenario was checked: it exists).
pub(crate) fn node_id(s: &Scenario, name: &str) -> NodeId {
    NodeId(
        s.nodes
            .iter()
            .position(|n| n.name == name)
            .expect("checked") as u32,
    )
}

/// Routes over the links and the `active` associations (one flag per association).
pub(crate) fn routes(s: &Scenario, ends: &[(NodeId, NodeId)], active: &[bool]) -> Routes {
    RouteInputs::new(s, ends).routes(active)
}

/// What routes are computed from: the channels and the scenario's explicit routes.
struct RouteInputs {
    nodes: usize,
    ends: Vec<(NodeId, NodeId)>,
    /// Channels of wired and cellular links; 802.11 associations come after them.
    link_channels: usize,
    /// (node, destination, next hop).
    explicit: Vec<(NodeId, NodeId, ChanId)>,
}

impl RouteInputs {
    fn new(s: &Scenario, ends: &[(NodeId, NodeId)]) -> RouteInputs {
        let explicit = s
            .routes
            .iter()
            .map(|r| {
                let from = node_id(s, &r.node);
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
                (from, node_id(s, &r.to), ChanId(ch as u32))
            })
            .collect();
        RouteInputs {
            nodes: s.nodes.len(),
            ends: ends.to_vec(),
            link_channels: 2 * s.links.len(),
            explicit,
        }
    }

    fn routes(&self, active: &[bool]) -> Routes {
        let links = self.link_channels;
        let usable = |c: ChanId| {
            let c = c.0 as usize;
            c < links || active[(c - links) / 2]
        };
        let mut routes = Routes::shortest_paths(self.nodes, &self.ends, usable);
        for &(from, to, via) in &self.explicit {
            routes.set(from, to, via);
        }
        routes
    }
}

#[derive(Clone, Copy, Debug)]
enum Event {
    /// The packet in service on a channel has been serialized.
    TxDone(ChanId),
    /// A packet's last bit reaches the far end of a channel.
    Arrive(ChanId, PacketRef),
    /// A flow's source is due to send.
    Send(FlowId),
    /// A TCP endpoint's timer may be due (it checks itself): flow,
    /// connection index, side.
    TcpWake(FlowId, u8, Side),
    /// A `ConnectionSwitcher`'s server side may have a notice due.
    SwitcherWake(FlowId),
    /// A scheduled change of a link (index into `World::changes`).
    Change(u32),
    /// A cellular handover completes (index into `World::handovers`).
    Handover(u32),
    /// A TTI boundary of link `.0`'s W-CDMA bearer.
    Tti(u32),
    /// The PDUs of one TTI of link `.0`, direction `.1`, reach the peer RLC entity.
    RadioArrive(u32, u8),
    /// 802.11 BSS `.0` may have a transmission to start or to end.
    Wifi(u32),
    /// A station starts a roam (index into `World::roams`).
    RoamStart(u32),
    /// A roaming station (index into `World::roamers`) joins its new AP.
    RoamEnd(u32),
    /// Every AP sends a beacon: stations measure RSSI (and may roam).
    Beacon,
}

/// Where a channel meets an 802.11 BSS: the BSS and the sending and receiving members
/// (0 is the AP, `k` its `k`-th station).
#[derive(Clone, Copy)]
struct WifiPort {
    bss: u32,
    from: u16,
    to: u16,
}

/// A handover of an LTE cell link, known from the scenario.
struct Handover {
    link: u32,
    ue: NodeId,
    /// 1 for the first handover of the link (the UE starts in cell 0).
    cell: u32,
    loss_start: SimTime,
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
    pub transport: Transport,
}

pub(crate) enum Transport {
    Udp {
        source: MessageSource,
        /// Data: one-way delays at the receiver. Echo: round-trip times at the sender.
        sink: MessageSink,
    },
    Tcp(Box<TcpTransport>),
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
    /// Packet captures as pcap file contents, named `<link>.<direction>.pcap`.
    pub captures: Vec<(String, Vec<u8>)>,
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
    handovers: Vec<Handover>,
    /// The W-CDMA bearer of each link that has one.
    pub(crate) bearers: Vec<Option<Box<WcdmaBearer>>>,
    /// The 802.11 BSSs, and for each channel its place in one, if any.
    pub(crate) wifi: Vec<Bss>,
    wifi_ports: Vec<Option<WifiPort>>,
    /// The first channel of each BSS's associations.
    wifi_base: Vec<u32>,
    wifi_names: Vec<Vec<String>>,
    /// Stations that may roam, the roams started so far or scheduled, and which
    /// associations routes use.
    roamers: Vec<Roamer>,
    roams: Vec<Roam>,
    route_inputs: RouteInputs,
    active: Vec<bool>,
    /// One capture per channel, when `record` asks for "pcap".
    captures: Vec<PcapWriter<Vec<u8>>>,
    scratch: Vec<Queued>,
}

fn channel(
    link: &LinkSpec,
    dir: Dir,
    (from, to): (NodeId, NodeId),
    seed: u64,
    end: SimTime,
) -> Channel {
    let covers = |d: Direction| match dir {
        Dir::Forward => d.covers_forward(),
        Dir::Reverse => d.covers_reverse(),
    };
    let mut loss: Vec<LossModel> = link
        .loss
        .iter()
        .filter(|l| covers(l.direction()))
        .map(|l| {
            let rng = RngStream::new(seed, &format!("link/{}/{}/loss", link.name, dir.as_str()));
            LossModel::from_spec(l, rng)
        })
        .collect();
    if let Some(cell) = &link.cell {
        let windows: Vec<_> = cell
            .all_handovers(end)
            .iter()
            .filter(|h| covers(h.loss_direction))
            .map(|h| (h.at.0.saturating_sub(h.burst_loss.0), h.at.0))
            .collect();
        if !windows.is_empty() {
            loss.push(LossModel::Outage { windows });
        }
    }
    let reverse = link.reverse.as_ref().filter(|_| dir == Dir::Reverse);
    let rate = reverse.and_then(|r| r.rate).unwrap_or(link.rate);
    let delay = reverse.and_then(|r| r.delay).unwrap_or(link.delay);
    let queue = reverse
        .and_then(|r| r.queue.as_ref())
        .unwrap_or(&link.queue);
    Channel::new(
        link.name.clone(),
        dir,
        from,
        to,
        link.mtu.0 as u32,
        rate,
        delay.0,
        Qdisc::from_spec(queue, link.mtu.0 as u32),
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
        let mut handovers = Vec::new();
        let mut queue = EventQueue::new();
        for (i, link) in s.links.iter().enumerate() {
            for (k, dir) in [Dir::Forward, Dir::Reverse].into_iter().enumerate() {
                channels.push(channel(link, dir, ends[2 * i + k], seed, end));
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
            let Some(cell) = &link.cell else { continue };
            for (k, h) in cell.all_handovers(end).iter().enumerate() {
                // The new cell's bearers take effect at completion: uplink is
                // the forward channel, downlink the reverse one.
                for (d, bearer) in [&h.uplink, &h.downlink].into_iter().enumerate() {
                    if let Some(b) = bearer {
                        queue.schedule(h.at.0, Event::Change(changes.len() as u32));
                        changes.push(Change {
                            chan: ChanId((2 * i + d) as u32),
                            rate: b.rate,
                            delay: b.delay.map(|d| d.0),
                        });
                    }
                }
                queue.schedule(h.at.0, Event::Handover(handovers.len() as u32));
                handovers.push(Handover {
                    link: i as u32,
                    ue: ends[2 * i].0,
                    cell: k as u32 + 1,
                    loss_start: h.at.0.saturating_sub(h.burst_loss.0),
                });
            }
        }
        let mut wifi_ports = vec![None; channels.len()];
        let mut wifi_base = Vec::with_capacity(s.wifi.len());
        for (b, k) in associations(s) {
            let w = &s.wifi[b];
            if k == 1 {
                wifi_base.push(channels.len() as u32);
            }
            let name = format!("{}-{}", w.name, w.stations[k - 1]);
            let rate = crate::wifi::build::nominal_rate(w);
            for (dir, (from, to)) in [(Dir::Forward, (k, 0)), (Dir::Reverse, (0, k))] {
                let (a, z) = ends[channels.len()];
                wifi_ports.push(Some(WifiPort {
                    bss: b as u32,
                    from: from as u16,
                    to: to as u16,
                }));
                channels.push(Channel::new(
                    name.clone(),
                    dir,
                    a,
                    z,
                    WIFI_MTU,
                    rate,
                    SimTime::ZERO,
                    Qdisc::from_spec(&Default::default(), WIFI_MTU),
                    Vec::new(),
                ));
            }
        }
        let node = |name: &str| node_id(s, name);
        let mut flows = Vec::with_capacity(s.flows.len());
        for (i, f) in s.flows.iter().enumerate() {
            let id = FlowId(i as u32);
            let start = f.start.0;
            let stop = f.stop.map_or(SimTime::MAX, |d| d.0);
            let (src, dst) = (node(&f.from), node(&f.to));
            let (app, source) = match &f.app {
                AppSpec::Periodic {
                    size,
                    interval,
                    count,
                } => (
                    "periodic",
                    Some(MessageSource::new(
                        SourceKind::Data,
                        size.0 as u32,
                        SendSchedule::every(start, interval.0, stop, *count),
                    )),
                ),
                AppSpec::Cbr { rate, size } => (
                    "cbr",
                    Some(MessageSource::new(
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
                    )),
                ),
                AppSpec::Ping { size, interval } => (
                    "ping",
                    Some(MessageSource::new(
                        SourceKind::Echo,
                        size.0 as u32,
                        SendSchedule::every(start, interval.0, stop, None),
                    )),
                ),
                AppSpec::Bulk { .. } => ("bulk", None),
                AppSpec::File { .. } => ("file", None),
            };
            if let Some(t) = source.as_ref().and_then(|src| src.schedule.next()) {
                queue.schedule(t, Event::Send(id));
            }
            let transport = match &f.transport {
                TransportSpec::Udp => Transport::Udp {
                    source: source.expect("validated: UDP apps have a message source"),
                    sink: MessageSink::default(),
                },
                TransportSpec::Tcp(spec) => {
                    let mtu = path_mtu(s, &ends, &routes, src, dst);
                    let app = match (&f.app, source) {
                        (AppSpec::Bulk { bytes }, _) => TcpApp::Bulk {
                            total: bytes.map(|b| b.0),
                        },
                        (AppSpec::File { size, request }, _) => TcpApp::File {
                            request: request.0,
                            size: size.0,
                            answered: 0,
                            received: 0,
                        },
                        (_, Some(source)) => TcpApp::Messages {
                            source,
                            backlog: 0,
                            pending: Default::default(),
                            stream_end: 0,
                        },
                        (_, None) => unreachable!("every app but bulk and file has a source"),
                    };
                    let config = tcp::config(spec, mtu);
                    let first = TcpFlow::new(
                        &f.name,
                        i as u32,
                        seed,
                        config.clone(),
                        spec.tsq.0,
                        start,
                        app,
                    );
                    // The client opens the connection when the flow starts.
                    queue.schedule(start, Event::TcpWake(id, 0, Side::Client));
                    let mut conns = vec![first];
                    let switcher = f.switcher.as_ref().map(|sw| {
                        // The spare has its own ports and random streams.
                        let spare = SpareRecipe {
                            name: format!("{}#2", f.name),
                            port_index: i as u32 + 8192,
                            seed,
                            config,
                            tsq_limit: spec.tsq.0,
                        };
                        // Without switching there is no spare to open.
                        let on_demand =
                            sw.spare == SpareSpec::OnDemand || sw.policy == SwitchPolicy::Never;
                        if !on_demand {
                            conns.push(spare.open(start));
                            queue.schedule(start, Event::TcpWake(id, 1, Side::Client));
                        }
                        Box::new(Switched {
                            mech: ConnectionSwitcher::new(SwitcherConfig {
                                policy: match sw.policy {
                                    SwitchPolicy::Notice => Policy::Notice,
                                    SwitchPolicy::Oracle => Policy::Oracle,
                                    SwitchPolicy::Never => Policy::Never,
                                },
                                recv_interval: sw.recv_interval.0,
                                switch_window: sw.switch_window.0,
                                notice_interval: sw.notice_interval.0,
                            }),
                            notice_size: sw.notice_size.0 as u32,
                            wake_at: None,
                            spare: on_demand.then_some(spare),
                        })
                    });
                    Transport::Tcp(Box::new(TcpTransport { conns, switcher }))
                }
            };
            flows.push(Flow {
                name: f.name.clone(),
                app,
                src,
                dst,
                start,
                transport,
            });
        }
        let (roamers, scheduled) = roaming::build(s, &associations(s));
        let mut roams = Vec::with_capacity(scheduled.len());
        for (at, roam) in scheduled {
            queue.schedule(at, Event::RoamStart(roams.len() as u32));
            roams.push(roam);
        }
        let beacons =
            s.record.contains(&RecordKind::Rssi) || roamers.iter().any(|r| r.trigger.is_some());
        if beacons {
            queue.schedule(SimTime::ZERO, Event::Beacon);
        }
        let active = initial_associations(s);
        let mut wifi: Vec<Bss> = s
            .wifi
            .iter()
            .map(|w| crate::wifi::build::bss(w, &s.nodes, seed))
            .collect();
        for bss in &mut wifi {
            bss.observe_rx = s.record.contains(&RecordKind::WifiRx);
            bss.observe_tx = s.record.contains(&RecordKind::Wifi);
        }
        for (&(b, k), &starts_here) in associations(s).iter().zip(&active) {
            if !starts_here {
                wifi[b].disassociate(k);
            }
        }
        let channels_len = channels.len();
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
            handovers,
            bearers: s
                .links
                .iter()
                .map(|l| {
                    l.rlc
                        .as_ref()
                        .map(|r| Box::new(WcdmaBearer::new(l, r, seed)))
                })
                .collect(),
            wifi,
            wifi_ports,
            wifi_base,
            wifi_names: s
                .wifi
                .iter()
                .map(|w| std::iter::once(&w.ap).chain(&w.stations).cloned().collect())
                .collect(),
            roamers,
            roams,
            route_inputs: RouteInputs::new(s, &ends),
            active,
            captures: if s.record.contains(&RecordKind::Pcap) {
                (0..channels_len)
                    .map(|_| PcapWriter::new(Vec::new()).expect("writing to memory"))
                    .collect()
            } else {
                Vec::new()
            },
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
        let captures = std::mem::take(&mut self.captures)
            .into_iter()
            .zip(&self.channels)
            .map(|(w, ch)| {
                let name = format!("{}.{}.pcap", ch.link, ch.dir.as_str());
                (name, w.into_inner().expect("writing to memory"))
            })
            .collect();
        Ok(RunOutput {
            summary,
            tables: self.traces.into_tables(),
            captures,
        })
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::TxDone(c) => self.tx_done(now, c),
            Event::Arrive(c, p) => self.arrive(now, c, p),
            Event::Send(f) => self.send(now, f),
            Event::TcpWake(f, k, side) => self.tcp_wake(now, f, usize::from(k), side),
            Event::SwitcherWake(f) => self.switcher_wake(now, f),
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
            Event::Handover(i) => self.handover_complete(now, i),
            Event::Tti(link) => {
                let b = self.bearers[link as usize].as_mut().expect("bearer");
                if b.next_tti == Some(now) {
                    b.next_tti = None;
                    let out = b.run_tti(now);
                    self.rlc_outcome(now, link, out);
                }
            }
            Event::RadioArrive(link, dir) => {
                let b = self.bearers[link as usize].as_mut().expect("bearer");
                let out = b.arrive(now, usize::from(dir));
                self.rlc_outcome(now, link, out);
            }
            Event::Wifi(b) => {
                let bss = &mut self.wifi[b as usize];
                if bss.queued_wake == Some(now) {
                    bss.queued_wake = None;
                    let out = bss.wake(now);
                    self.wifi_outcome(now, b, out);
                }
            }
            Event::RoamStart(i) => self.roam_start(now, i),
            Event::RoamEnd(r) => self.roam_end(now, r as usize),
            Event::Beacon => self.beacon(now),
        }
    }

    /// A station leaves its AP to roam (once no frame exchange of its own is on the air).
    fn roam_start(&mut self, now: SimTime, i: u32) {
        let roam = self.roams[i as usize];
        let r = &self.roamers[roam.roamer];
        if r.joining.is_some() || r.current == roam.to {
            return; // Already roaming, or already there.
        }
        let from = r.memberships[r.current];
        let b = from.bss as u32;
        if let Some(end) = self.wifi[from.bss].exchange_of(from.entity) {
            self.queue.schedule(end, Event::RoamStart(i));
            return;
        }
        let rssi = self.wifi[from.bss].radio.rssi_dbm(0, from.entity, now);
        let out = self.wifi[from.bss].disassociate(from.entity);
        self.roamers[roam.roamer].joining = Some(roam.to);
        self.queue
            .schedule(now + roam.disconnect, Event::RoamEnd(roam.roamer as u32));
        let current = self.roamers[roam.roamer].current;
        self.trace_roam(now, roam.roamer, "left", (current, roam.to), rssi);
        self.wifi_outcome(now, b, out);
        let node = self.roamers[roam.roamer].node;
        self.tcp_link_event(now, node, false);
    }

    /// Tells the TCP endpoints on `node` that its link went down or came back
    /// (`Connection::on_connectivity`; only connections configured to care react).
    fn tcp_link_event(&mut self, now: SimTime, node: NodeId, up: bool) {
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            if flow.start > now {
                continue; // Not open yet.
            }
            let side = if flow.src == node {
                Side::Client
            } else if flow.dst == node {
                Side::Server
            } else {
                continue;
            };
            let Transport::Tcp(tcp) = &flow.transport else {
                continue;
            };
            let id = FlowId(f as u32);
            for k in 0..tcp.conns.len() {
                self.tcp(id).conns[k].ends[side.index()]
                    .conn
                    .on_connectivity(now, up);
                self.tcp_pump(now, id, k, side);
            }
        }
    }

    /// A roaming station joins its new AP, bringing the frames it kept; routes follow it.
    fn roam_end(&mut self, now: SimTime, r: usize) {
        let roamer = &mut self.roamers[r];
        let to = roamer.joining.take().expect("roaming");
        let left = roamer.current;
        let (old, new) = (roamer.memberships[left], roamer.memberships[to]);
        roamer.current = to;
        let frames = self.wifi[old.bss].take_frames(old.entity);
        let overflow = self.wifi[new.bss].associate(now, new.entity, frames);
        let c = self.wifi_channel(new.bss as u32, new.entity, 0);
        for f in overflow {
            self.channels[c.0 as usize].stats.drops_queue += 1;
            self.left_first_hop(now, c, f.packet());
            self.drop_packet(now, c, f.packet(), "queue");
        }
        self.active[old.association] = false;
        self.active[new.association] = true;
        self.routes = self.route_inputs.routes(&self.active);
        let rssi = self.wifi[new.bss].radio.rssi_dbm(0, new.entity, now);
        self.trace_roam(now, r, "joined", (left, to), rssi);
        self.arm_wifi(now, new.bss as u32);
        self.link_back(now, self.roamers[r].node);
    }

    /// A host's link is back after a cellular handover or an 802.11 roam: its TCP endpoints
    /// hear of it, and its switched flows see a handover (the cell-id or BSSID change).
    fn link_back(&mut self, now: SimTime, node: NodeId) {
        self.tcp_link_event(now, node, true);
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            let switched = matches!(&flow.transport, Transport::Tcp(t) if t.switcher.is_some());
            if switched && flow.src == node {
                self.switcher_ue(now, FlowId(f as u32), None);
            }
        }
    }

    /// Beacons: every station measures the RSSI of each AP it may join; the `rssi` trace
    /// records it, and RSSI-triggered roams start.
    fn beacon(&mut self, now: SimTime) {
        self.queue.schedule(now + BEACON_INTERVAL, Event::Beacon);
        if let Some(t) = &mut self.traces.rssi {
            for (b, bss) in self.wifi.iter_mut().enumerate() {
                for k in 1..self.wifi_names[b].len() {
                    let rssi = bss.radio.rssi_dbm(0, k, now);
                    t.push(&[
                        Cell::F64(now.as_secs_f64()),
                        Cell::Text(&self.wifi_names[b][k]),
                        Cell::Text(&bss.name),
                        Cell::F64(rssi),
                        Cell::U64(u64::from(bss.is_associated(k))),
                    ]);
                }
            }
        }
        for r in 0..self.roamers.len() {
            let roamer = &self.roamers[r];
            let Some(trigger) = roamer.trigger else {
                continue;
            };
            if roamer.joining.is_some() {
                continue;
            }
            let memberships = roamer.memberships.clone();
            let current = roamer.current;
            let mut rssi =
                |m: &roaming::Membership| self.wifi[m.bss].radio.rssi_dbm(0, m.entity, now);
            let here = rssi(&memberships[current]);
            let others: Vec<(usize, f64)> = memberships
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != current)
                .map(|(i, m)| (i, rssi(m)))
                .collect();
            if let Some(to) = trigger.decide(here, &others) {
                self.roams.push(Roam {
                    roamer: r,
                    to,
                    disconnect: trigger.disconnect,
                });
                self.roam_start(now, self.roams.len() as u32 - 1);
            }
        }
    }

    /// The RSSI (dBm) at a station of the beacons of the AP it is associated with, or `None`
    /// if it is in no BSS or between APs: what a mechanism on the station reads.
    pub fn rssi_dbm(&mut self, station: NodeId, now: SimTime) -> Option<f64> {
        let name = &self.node_names[station.0 as usize];
        let (b, k) = self.wifi_names.iter().enumerate().find_map(|(b, names)| {
            let k = names.iter().skip(1).position(|n| n == name)? + 1;
            self.wifi[b].is_associated(k).then_some((b, k))
        })?;
        Some(self.wifi[b].radio.rssi_dbm(0, k, now))
    }

    /// A `roaming` trace row; `from` and `to` are memberships of roamer `r`.
    fn trace_roam(
        &mut self,
        now: SimTime,
        r: usize,
        event: &str,
        (from, to): (usize, usize),
        rssi_dbm: f64,
    ) {
        if let Some(t) = &mut self.traces.roaming {
            let roamer = &self.roamers[r];
            let name = |m: usize| self.wifi[roamer.memberships[m].bss].name.as_str();
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(&roamer.name),
                Cell::Text(event),
                Cell::Text(name(from)),
                Cell::Text(name(to)),
                Cell::F64(rssi_dbm),
            ]);
        }
    }

    /// A UE's handover completed: the new cell's bearers are in place (the
    /// changes scheduled at the same time ran first).
    fn handover_complete(&mut self, now: SimTime, i: u32) {
        let ue = self.handovers[i as usize].ue;
        self.link_back(now, ue);
        let h = &self.handovers[i as usize];
        if let Some(t) = &mut self.traces.handovers {
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(&self.channels[2 * h.link as usize].link),
                Cell::Text(&self.node_names[h.ue.0 as usize]),
                Cell::U64(u64::from(h.cell)),
                Cell::F64(h.loss_start.as_secs_f64()),
            ]);
        }
    }

    fn send(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f.0 as usize];
        let (src, dst) = (flow.src, flow.dst);
        match &mut flow.transport {
            Transport::Udp { source, .. } => {
                let msg = source.emit(now);
                if let Some(t) = source.schedule.next() {
                    self.queue.schedule(t, Event::Send(f));
                }
                let p = self.pool.insert(f, src, dst, Body::Udp(msg));
                self.forward(now, src, p);
            }
            Transport::Tcp(tcp) => {
                // Every message comes from the first connection's source and
                // goes on the connection in use.
                let k = tcp.switcher.as_ref().map_or(0, |s| s.mech.active());
                if let Some((seq, len)) = tcp.conns[0].next_message(now) {
                    tcp.conns[k].write_message(now, seq, len);
                }
                if let TcpApp::Messages { source, .. } = &tcp.conns[0].app {
                    if let Some(t) = source.schedule.next() {
                        self.queue.schedule(t, Event::Send(f));
                    }
                }
                self.tcp_pump(now, f, k, Side::Client);
            }
        }
    }

    fn tcp(&mut self, f: FlowId) -> &mut TcpTransport {
        match &mut self.flows[f.0 as usize].transport {
            Transport::Tcp(t) => t,
            Transport::Udp { .. } => unreachable!("TCP event for a UDP flow"),
        }
    }

    fn tcp_wake(&mut self, now: SimTime, f: FlowId, k: usize, side: Side) {
        let end = &mut self.tcp(f).conns[k].ends[side.index()];
        if end.wake_at == Some(now) {
            end.wake_at = None;
        }
        if end.conn.poll_timeout().is_some_and(|t| t <= now) {
            end.conn.handle_timeout(now);
        }
        self.tcp_pump(now, f, k, side);
    }

    /// Drives one TCP endpoint after an input: application I/O, transmit
    /// (bounded by TCP Small Queues), trace events, and its next wake-up.
    fn tcp_pump(&mut self, now: SimTime, f: FlowId, k: usize, side: Side) {
        let flow = &mut self.flows[f.0 as usize];
        let (src, dst) = match side {
            Side::Client => (flow.src, flow.dst),
            Side::Server => (flow.dst, flow.src),
        };
        let name = &flow.name;
        let Transport::Tcp(transport) = &mut flow.transport else {
            unreachable!("TCP pump on a UDP flow")
        };
        let tcp = &mut transport.conns[k];
        match side {
            Side::Client => tcp.client_io(now),
            Side::Server => {
                let traces = &mut self.traces;
                let mut switcher = transport.switcher.as_deref_mut();
                tcp.app_read(now, |d| {
                    traces.message_delivered(now, name, d.seq, d.sent_at, d.len, k as u64 + 1);
                    if let Some(sw) = switcher.as_mut() {
                        sw.mech.on_message(now, k, d.sent_at);
                    }
                });
                tcp.server_write();
            }
        }
        // Transmit while TSQ allows (Linux lets at least one packet through).
        let limit = tcp.tsq_limit;
        let mut segments = Vec::new();
        {
            let end = &mut tcp.ends[side.index()];
            let mut below = end.below;
            while below < limit || below == 0 {
                let Some(seg) = end.conn.poll_transmit(now) else {
                    break;
                };
                below += u64::from(crate::net::packet::IPV4_HEADER + seg.wire_len());
                segments.push(seg);
            }
        }
        self.tcp_events(now, f, k, side);
        for seg in segments {
            let p = self.pool.insert(f, src, dst, Body::Tcp(seg));
            let size = self.pool.get(p).size();
            if self.forward(now, src, p) {
                self.tcp(f).conns[k].ends[side.index()].below += u64::from(size);
            }
        }
        let end = &mut self.tcp(f).conns[k].ends[side.index()];
        if let Some(t) = end.conn.poll_timeout() {
            if end.wake_at.is_none_or(|w| t < w) {
                end.wake_at = Some(t);
                self.queue
                    .schedule(t.max(now), Event::TcpWake(f, k as u8, side));
            }
        }
        if side == Side::Server {
            self.arm_switcher(now, f);
        }
    }

    /// Keeps one wake-up queued for a switcher's next notice.
    fn arm_switcher(&mut self, now: SimTime, f: FlowId) {
        let Some(sw) = self.tcp(f).switcher.as_deref_mut() else {
            return;
        };
        if let Some(t) = sw.mech.poll_timeout() {
            if sw.wake_at.is_none_or(|w| t < w) {
                sw.wake_at = Some(t);
                self.queue.schedule(t.max(now), Event::SwitcherWake(f));
            }
        }
    }

    /// Server side of a `ConnectionSwitcher`: send the notice that is due.
    fn switcher_wake(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f.0 as usize];
        let (ue, server) = (flow.src, flow.dst);
        let Transport::Tcp(tcp) = &mut flow.transport else {
            unreachable!("switcher on a UDP flow")
        };
        let sw = tcp.switcher.as_deref_mut().expect("switcher event");
        if sw.wake_at == Some(now) {
            sw.wake_at = None;
        }
        if let Some(notice) = sw.mech.poll_notice(now) {
            let msg = UdpMessage {
                kind: UdpKind::LossNotice,
                seq: sw.mech.notices_sent - 1,
                sent_at: notice.last_sent,
                len: sw.notice_size,
            };
            if let Some(t) = &mut self.traces.switcher {
                t.push(&[
                    Cell::F64(now.as_secs_f64()),
                    Cell::Text(&flow.name),
                    Cell::Text("notice_sent"),
                    Cell::F64(notice.last_sent.as_secs_f64()),
                    Cell::Text(""),
                ]);
            }
            let p = self.pool.insert(f, server, ue, Body::Udp(msg));
            self.forward(now, server, p);
        }
        self.arm_switcher(now, f);
    }

    /// UE side of a `ConnectionSwitcher`: a notice arrived, or (`notice` is
    /// `None`) a handover completed.
    fn switcher_ue(&mut self, now: SimTime, f: FlowId, notice: Option<Notice>) {
        let flow = &mut self.flows[f.0 as usize];
        let Transport::Tcp(tcp) = &mut flow.transport else {
            unreachable!("switcher on a UDP flow")
        };
        let sw = tcp.switcher.as_deref_mut().expect("switcher flow");
        let (event, switch, decision) = match notice {
            Some(n) => {
                let d = sw.mech.on_notice(now, n);
                ("notice_received", d == Decision::Switch, format!("{d:?}"))
            }
            None => ("handover", sw.mech.on_handover(now), String::new()),
        };
        if let Some(t) = &mut self.traces.switcher {
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(&flow.name),
                Cell::Text(event),
                Cell::F64(notice.map_or(f64::NAN, |n| n.last_sent.as_secs_f64())),
                Cell::Text(&decision.to_lowercase()),
            ]);
            if switch {
                t.push(&[
                    Cell::F64(now.as_secs_f64()),
                    Cell::Text(&flow.name),
                    Cell::Text("switch"),
                    Cell::F64(f64::NAN),
                    Cell::Text(""),
                ]);
            }
        }
        if switch {
            if let Some(spare) = sw.spare.take() {
                // Opened on demand: the handshake starts now.
                tcp.conns.push(spare.open(now));
                self.queue.schedule(now, Event::TcpWake(f, 1, Side::Client));
            }
        }
    }

    /// Drains a TCP endpoint's trace events into the recorded tables.
    fn tcp_events(&mut self, now: SimTime, f: FlowId, k: usize, side: Side) {
        let flow = &mut self.flows[f.0 as usize];
        let Transport::Tcp(tcp) = &mut flow.transport else {
            return;
        };
        let conn = &mut tcp.conns[k].ends[side.index()].conn;
        let t = now.as_secs_f64();
        while let Some(ev) = conn.poll_event() {
            let base = [
                Cell::F64(t),
                Cell::Text(&flow.name),
                Cell::Text(side.as_str()),
            ];
            match ev {
                TcpEvent::CwndChanged { cwnd, ssthresh } => {
                    if let Some(table) = &mut self.traces.cwnd {
                        let in_flight = conn.bytes_in_flight();
                        table.push(&[
                            base[0],
                            base[1],
                            base[2],
                            Cell::U64(cwnd),
                            Cell::U64(ssthresh),
                            Cell::U64(in_flight),
                        ]);
                    }
                }
                TcpEvent::RttUpdated { srtt, rttvar, rto } => {
                    if let Some(table) = &mut self.traces.rto {
                        table.push(&[
                            base[0],
                            base[1],
                            base[2],
                            Cell::F64(srtt.as_secs_f64()),
                            Cell::F64(rttvar.as_secs_f64()),
                            Cell::F64(rto.as_secs_f64()),
                        ]);
                    }
                }
                TcpEvent::Retransmit { kind, seq, len } => {
                    if let Some(table) = &mut self.traces.retransmits {
                        let kind = match kind {
                            RetransmitKind::Fast => "fast",
                            RetransmitKind::Rto => "rto",
                            RetransmitKind::SackRecovery => "sack",
                            RetransmitKind::Probe => "probe",
                            RetransmitKind::Speculative => "speculative",
                        };
                        table.push(&[
                            base[0],
                            base[1],
                            base[2],
                            Cell::Text(kind),
                            Cell::U64(u64::from(seq.0)),
                            Cell::U64(u64::from(len)),
                            Cell::U64(0),
                            Cell::F64(0.0),
                        ]);
                    }
                }
                TcpEvent::SpuriousRto { cwnd, .. } => {
                    if let Some(table) = &mut self.traces.retransmits {
                        table.push(&[
                            base[0],
                            base[1],
                            base[2],
                            Cell::Text("spurious_rto"),
                            Cell::U64(0),
                            Cell::U64(cwnd),
                            Cell::U64(0),
                            Cell::F64(0.0),
                        ]);
                    }
                }
                TcpEvent::RtoExpired { backoff, rto } => {
                    if let Some(table) = &mut self.traces.retransmits {
                        table.push(&[
                            base[0],
                            base[1],
                            base[2],
                            Cell::Text("rto_expiry"),
                            Cell::U64(0),
                            Cell::U64(0),
                            Cell::U64(u64::from(backoff)),
                            Cell::F64(rto.as_secs_f64()),
                        ]);
                    }
                }
                _ => {}
            }
        }
    }

    /// Hands packet `p` to node `at`: delivers it there or sends it on.
    /// Returns whether the packet was accepted (not dropped at a full queue).
    fn forward(&mut self, now: SimTime, at: NodeId, p: PacketRef) -> bool {
        let pkt = self.pool.get(p);
        if pkt.dst == at {
            let pkt = self.pool.take(p);
            self.deliver(now, pkt);
            return true;
        }
        let c = self
            .routes
            .next_hop(at, pkt.dst)
            .expect("routes checked before the run");
        let size = pkt.size();
        if let Some(port) = self.wifi_ports[c.0 as usize] {
            let uid = pkt.uid;
            let bss = &mut self.wifi[port.bss as usize];
            let (from, to) = (usize::from(port.from), usize::from(port.to));
            if let Err(why) = bss.enqueue(now, from, to, p, uid, size) {
                let reason = match why {
                    Refused::QueueFull => "queue",
                    Refused::NotAssociated => "disassociated",
                };
                self.channels[c.0 as usize].stats.drops_queue += 1;
                self.drop_packet(now, c, p, reason);
                return false;
            }
            let ch = &mut self.channels[c.0 as usize];
            ch.stats.tx_packets += 1;
            ch.stats.tx_bytes += u64::from(size);
            self.capture(now, c, p);
            self.arm_wifi(now, port.bss);
            return true;
        }
        if let Some(b) = self
            .bearers
            .get_mut(c.0 as usize / 2)
            .and_then(Option::as_mut)
        {
            let uid = pkt.uid;
            let accepted = b.offer(now, c.0 as usize % 2, p, uid, size);
            let ch = &mut self.channels[c.0 as usize];
            if !accepted {
                ch.stats.drops_queue += 1;
                self.drop_packet(now, c, p, "queue");
                return false;
            }
            ch.stats.tx_packets += 1;
            ch.stats.tx_bytes += u64::from(size);
            self.capture(now, c, p);
            // The packet left the sender's first hop into the RLC buffer.
            self.left_first_hop(now, c, p);
            self.arm_tti(now, c.0 / 2);
            return true;
        }
        let ch = &mut self.channels[c.0 as usize];
        match ch.offer(now, p, size) {
            Offer::Transmitting(done) => {
                self.queue.schedule(done, Event::TxDone(c));
                self.capture(now, c, p);
            }
            Offer::Queued => self.trace_queue(now, c),
            Offer::Dropped => {
                self.drop_packet(now, c, p, "queue");
                return false;
            }
        }
        true
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
            let started = self.channels[c.0 as usize].in_service().expect("started");
            self.capture(now, c, started);
        }
        self.left_first_hop(now, c, p);
        for q in dropped.drain(..) {
            self.left_first_hop(now, c, q.packet);
            self.drop_packet(now, c, q.packet, "aqm");
        }
        self.scratch = dropped;
        if changed {
            self.trace_queue(now, c);
        }
    }

    /// TCP Small Queues: a TCP packet left its sender's first-hop device
    /// (serialized or dropped there); the endpoint may send more.
    fn left_first_hop(&mut self, now: SimTime, c: ChanId, p: PacketRef) {
        let pkt = self.pool.get(p);
        if !matches!(pkt.body, Body::Tcp(_)) || self.channels[c.0 as usize].from != pkt.src {
            return;
        }
        let (f, size) = (pkt.flow, u64::from(pkt.size()));
        let side = if pkt.src == self.flows[f.0 as usize].src {
            Side::Client
        } else {
            Side::Server
        };
        let Body::Tcp(seg) = &pkt.body else {
            unreachable!("checked above")
        };
        let transport = match &mut self.flows[f.0 as usize].transport {
            Transport::Tcp(t) => t,
            Transport::Udp { .. } => unreachable!("TCP packet of a UDP flow"),
        };
        let k = transport.conn_of(seg, side == Side::Client);
        let tcp = &mut transport.conns[k];
        let end = &mut tcp.ends[side.index()];
        let throttled = end.below >= tcp.tsq_limit;
        end.below -= size;
        if throttled && end.below < tcp.tsq_limit {
            self.tcp_pump(now, f, k, side);
        }
    }

    fn arrive(&mut self, now: SimTime, c: ChanId, p: PacketRef) {
        let ch = &mut self.channels[c.0 as usize];
        if ch.is_lost(now) {
            ch.stats.drops_loss += 1;
            self.drop_packet(now, c, p, "loss");
            return;
        }
        ch.stats.delivered_packets += 1;
        let to = ch.to;
        self.forward(now, to, p);
    }

    /// A packet reached its destination node.
    fn deliver(&mut self, now: SimTime, pkt: crate::net::packet::Packet) {
        let f = pkt.flow;
        let flow = &mut self.flows[f.0 as usize];
        let to_server = pkt.dst == flow.dst;
        match (pkt.body, &mut flow.transport) {
            (Body::Tcp(seg), Transport::Tcp(tcp)) => {
                let side = if to_server {
                    Side::Server
                } else {
                    Side::Client
                };
                let k = tcp.conn_of(&seg, to_server);
                tcp.conns[k].ends[side.index()]
                    .conn
                    .handle_segment(now, &seg);
                self.tcp_pump(now, f, k, side);
            }
            (Body::Udp(msg), Transport::Tcp(_)) => {
                debug_assert_eq!(msg.kind, UdpKind::LossNotice);
                let notice = Notice {
                    last_sent: msg.sent_at,
                };
                self.switcher_ue(now, f, Some(notice));
            }
            (Body::Udp(msg), Transport::Udp { sink, .. }) => match msg.kind {
                UdpKind::Data => {
                    sink.receive(now, &msg);
                    self.traces.message_delivered(
                        now,
                        &flow.name,
                        msg.seq,
                        msg.sent_at,
                        msg.len,
                        0,
                    );
                }
                UdpKind::EchoRequest => {
                    // The far end answers with the same payload (RFC 792 echo semantics).
                    let reply = UdpMessage {
                        kind: UdpKind::EchoReply,
                        ..msg
                    };
                    let (src, dst) = (flow.dst, flow.src);
                    let p = self.pool.insert(f, src, dst, Body::Udp(reply));
                    self.forward(now, src, p);
                }
                UdpKind::EchoReply => {
                    let rtt = sink.receive(now, &msg);
                    self.traces.ping_reply(now, &flow.name, msg.seq, rtt);
                }
                UdpKind::LossNotice => unreachable!("notices belong to switched TCP flows"),
            },
            _ => unreachable!("packet body does not match its flow's transport"),
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

    /// Acts on what a W-CDMA bearer did in a TTI or on a PDU arrival.
    fn rlc_outcome(&mut self, now: SimTime, link: u32, out: Outcome) {
        for (dir, at) in out.arrivals {
            self.queue.schedule(at, Event::RadioArrive(link, dir as u8));
        }
        let b = self.bearers[link as usize].as_ref().expect("bearer");
        let sdu_delay = b.sdu_delay;
        if let Some(t) = &mut self.traces.rlc {
            let ch = &self.channels[2 * link as usize];
            for (dir, &(sent, retx)) in out.sent.iter().enumerate() {
                let buffer = b.buffered_bytes(dir);
                if sent > 0 {
                    t.push(&[
                        Cell::F64(now.as_secs_f64()),
                        Cell::Text(&ch.link),
                        Cell::Text(if dir == 0 { "forward" } else { "reverse" }),
                        Cell::U64(buffer),
                        Cell::U64(sent),
                        Cell::U64(retx),
                    ]);
                }
            }
        }
        for (dir, p, entered) in out.delivered {
            let c = ChanId(2 * link + dir as u32);
            if let Some(t) = &mut self.traces.rlc_sdu {
                let ch = &self.channels[c.0 as usize];
                t.push(&[
                    Cell::F64(now.as_secs_f64()),
                    Cell::Text(&ch.link),
                    Cell::Text(ch.dir.as_str()),
                    Cell::U64(self.pool.get(p).uid),
                    Cell::F64(now.saturating_sub(entered).as_secs_f64()),
                ]);
            }
            self.queue.schedule(now + sdu_delay, Event::Arrive(c, p));
        }
        for (dir, p) in out.discarded {
            let c = ChanId(2 * link + dir as u32);
            self.channels[c.0 as usize].stats.drops_loss += 1;
            self.drop_packet(now, c, p, "rlc-discard");
        }
        self.arm_tti(now, link);
    }

    /// The channel from member `from` to member `to` of BSS `b`.
    fn wifi_channel(&self, b: u32, from: usize, to: usize) -> ChanId {
        let base = self.wifi_base[b as usize];
        ChanId(if from == 0 {
            base + 2 * (to as u32 - 1) + 1
        } else {
            base + 2 * (from as u32 - 1)
        })
    }

    /// Acts on what an 802.11 BSS did: MAC-acknowledged packets free their sender's TCP
    /// Small Queues budget, received ones go on from the receiver, dropped ones are dropped.
    fn wifi_outcome(&mut self, now: SimTime, b: u32, out: bss::Outcome) {
        for (from, to, p) in out.acked {
            let c = self.wifi_channel(b, from, to);
            self.left_first_hop(now, c, p);
        }
        for (from, to, p) in out.delivered {
            let c = self.wifi_channel(b, from, to);
            self.channels[c.0 as usize].stats.delivered_packets += 1;
            self.queue.schedule(now, Event::Arrive(c, p));
        }
        let drops = [
            (out.dropped, "retry-limit"),
            (out.expired, "lifetime"),
            (out.disassociated, "disassociated"),
        ];
        for (packets, reason) in drops {
            for (from, to, p) in packets {
                let c = self.wifi_channel(b, from, to);
                self.channels[c.0 as usize].stats.drops_loss += 1;
                self.left_first_hop(now, c, p);
                self.drop_packet(now, c, p, reason);
            }
        }
        if let Some(t) = &mut self.traces.wifi {
            let names = &self.wifi_names[b as usize];
            for r in &out.transmissions {
                t.push(&[
                    Cell::F64(r.start.as_secs_f64()),
                    Cell::Text(&self.wifi[b as usize].name),
                    Cell::Text(&names[r.entity]),
                    Cell::Text(&names[r.peer]),
                    Cell::Text(r.kind),
                    Cell::F64(r.rate_bps / 1e6),
                    Cell::F64(r.mcs.map_or(f64::NAN, f64::from)),
                    Cell::U64(u64::from(r.mpdus)),
                    Cell::U64(u64::from(r.acked)),
                    Cell::U64(u64::from(r.collision)),
                    Cell::F64(r.snr_db),
                ]);
            }
        }
        if let Some(t) = &mut self.traces.wifi_rx {
            let names = &self.wifi_names[b as usize];
            for a in &out.received {
                for m in &a.mpdus {
                    t.push(&[
                        Cell::F64(a.start.as_secs_f64()),
                        Cell::Text(&self.wifi[b as usize].name),
                        Cell::Text(&names[a.from]),
                        Cell::Text(&names[a.to]),
                        Cell::U64(u64::from(m.sn)),
                        Cell::U64(u64::from(m.fcs_ok)),
                        Cell::F64(a.rate_bps / 1e6),
                    ]);
                }
            }
        }
        self.arm_wifi(now, b);
    }

    /// Keeps one wake-up queued for a BSS at the time it next needs one.
    fn arm_wifi(&mut self, now: SimTime, b: u32) {
        let bss = &mut self.wifi[b as usize];
        if let Some(t) = bss.next_wake() {
            let t = t.max(now);
            if bss.queued_wake.is_none_or(|q| t < q) {
                bss.queued_wake = Some(t);
                self.queue.schedule(t, Event::Wifi(b));
            }
        }
    }

    /// Keeps one TTI event queued while a bearer has work.
    fn arm_tti(&mut self, now: SimTime, link: u32) {
        let b = self.bearers[link as usize].as_mut().expect("bearer");
        if let Some(t) = b.wanted_tti(now) {
            if b.next_tti.is_none_or(|n| t < n) {
                b.next_tti = Some(t);
                self.queue.schedule(t, Event::Tti(link));
            }
        }
    }

    /// Writes a packet that starts leaving channel `c` into its capture.
    fn capture(&mut self, now: SimTime, c: ChanId, p: PacketRef) {
        if let Some(w) = self.captures.get_mut(c.0 as usize) {
            // Sizes and times were checked when the scenario was loaded, so
            // encoding cannot fail, and writing to memory does not.
            w.write(now, self.pool.get(p)).expect("packet encodes");
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
