//! Building the world of a checked scenario: interfaces and the devices behind them (each
//! link's by its technology, `crate::link`), the flows' transports, and the first events.

use super::registry;
use super::topology::{self, Nodes, WIFI_MTU};
use super::{Change, Event, Flow, World};
use crate::app::{MessageSource, SendSchedule, SourceKind};
use crate::engine::{EventQueue, SimTime};
use crate::link::{self, p2p, Start};

/// The link technologies' dispatch, made from their list (`crate::with_links`): the one
/// place that maps a link's technology to its checks and its device.
pub(crate) mod links {
    crate::with_links! { link_dispatch {} }
}
use crate::net::device::{Action, DevId, Device, Dir, Iface, IfaceId, IfaceStats};
use crate::net::packet::FlowId;
use crate::net::qdisc::Qdisc;
use crate::radio::mobility::{Mobility, Position};
use crate::scenario::{AppSpec, RecordKind, Scenario};
use crate::trace::{Captures, QlogFiles, Traces};
use crate::transport::small_queues::HostQueues;
use crate::transport::tcp::records::{CwndRecord, RtoRecord};
use crate::wifi::device::{WifiDevice, WifiSetup};

/// Where node `name` is over time (validation checked that it exists and moves validly).
fn node_mobility(s: &Scenario, name: &str) -> Mobility {
    s.nodes
        .iter()
        .find(|n| n.name == name)
        .and_then(|n| crate::wifi::build::mobility(n).ok())
        .unwrap_or(Mobility::Static(Position::new(0.0, 0.0, 0.0)))
}

/// The application's name and message source (every app but bulk and file has one).
fn source(app: &AppSpec, start: SimTime, stop: SimTime) -> (&'static str, Option<MessageSource>) {
    match app {
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
    }
}

impl World {
    /// Builds the world of a scenario that [`crate::scenario::load`] accepted.
    pub fn build(s: &Scenario) -> World {
        let seed = s.sim.seed;
        let end = s.sim.duration.0;
        let nodes = Nodes::of(s);
        let ends = topology::interface_ends(s, &nodes);
        let mut routes = topology::initial_routes(s, &nodes, &ends);
        let mut ifaces = Vec::with_capacity(ends.len());
        let mut devices: Vec<Box<dyn Device>> = Vec::with_capacity(s.links.len() + 1);
        let mut changes = Vec::new();
        let mut queue = EventQueue::new();
        for (i, link) in s.links.iter().enumerate() {
            let dev = DevId(devices.len() as u32);
            let first = IfaceId(2 * i as u32);
            for (port, dir) in [Dir::Forward, Dir::Reverse].into_iter().enumerate() {
                ifaces.push(Iface {
                    link: link.name.clone(),
                    dir,
                    from: ends[2 * i + port].0,
                    to: ends[2 * i + port].1,
                    mtu: link.mtu.0 as u32,
                    rate: p2p::traced_rate(link, dir, seed)
                        .unwrap_or_else(|| link.rate_of(dir == Dir::Reverse)),
                    device: dev,
                    port: port as u32,
                    arrival_loss: false,
                    stats: IfaceStats::default(),
                });
            }
            for c in &link.schedule {
                for (k, covered) in [c.direction.covers_forward(), c.direction.covers_reverse()]
                    .into_iter()
                    .enumerate()
                {
                    if covered {
                        queue.schedule(c.at.0, Event::Change(changes.len() as u32));
                        changes.push(Change {
                            iface: IfaceId((2 * i + k) as u32),
                            rate: c.rate,
                            delay: c.delay.map(|d| d.0),
                        });
                    }
                }
            }
            let mut cx = link::Build {
                seed,
                end,
                first,
                near: ends[2 * i].0,
                mobility: &|name| node_mobility(s, name),
                starts: Vec::new(),
            };
            devices.push(links::build(link, &mut cx));
            for start in cx.starts {
                match start {
                    Start::Change {
                        at,
                        iface,
                        rate,
                        delay,
                    } => {
                        queue.schedule(at, Event::Change(changes.len() as u32));
                        changes.push(Change { iface, rate, delay });
                    }
                    Start::Wake { at, token } => queue.schedule(at, Event::Device(dev, token)),
                }
            }
        }
        let mut flows = Vec::with_capacity(s.flows.len());
        let mut firsts = Vec::with_capacity(s.flows.len());
        let mut qlogs = QlogFiles::default();
        let qlog = s.record.contains(&RecordKind::Qlog);
        let traces = Traces::in_memory(&s.record);
        let mut shared = registry::Shared {
            quic_trace: s.record.contains(&RecordKind::Quic),
            tcp_events: traces.wants::<CwndRecord>() || traces.wants::<RtoRecord>(),
            ..Default::default()
        };
        for (i, f) in s.flows.iter().enumerate() {
            let id = FlowId(i as u32);
            let start = f.start.0;
            let stop = f.stop.map_or(SimTime::MAX, |d| d.0);
            let (src, dst) = (nodes.id(&f.from), nodes.id(&f.to));
            let (app, source) = source(&f.app, start, stop);
            let via = topology::flow_interfaces(s, f);
            // The routed path's MTU, and no more than any pinned interface's (a multipath
            // flow's endpoints share one largest datagram size).
            let mtu = via
                .iter()
                .map(|&(up, _)| topology::interface_mtu(s, up))
                .fold(
                    topology::path_mtu(s, &ends, &mut routes, src, dst),
                    u32::min,
                );
            let files = qlog.then_some(&mut qlogs);
            let (transport, first) =
                registry::build(f, i as u32, seed, mtu, source, files, &mut shared);
            firsts.push((id, first));
            flows.push(Flow {
                name: f.name.clone(),
                app,
                src,
                dst,
                radio: f
                    .transport
                    .quic()
                    .and_then(|q| q.rssi_scheduler.as_ref()?.station.as_deref())
                    .map_or(src, |n| nodes.id(n)),
                start,
                pinned: !via.is_empty(),
                queues: HostQueues::new(transport.small_queues()),
                transport,
                via: via.into(),
            });
        }
        let wifi_actions = if s.wifi.is_empty() {
            Vec::new()
        } else {
            let dev = DevId(devices.len() as u32);
            let (device, actions) = wifi(s, &nodes, seed, IfaceId(ifaces.len() as u32));
            let rate = |b: usize| crate::wifi::build::nominal_rate(&s.wifi[b]);
            for (a, (b, k)) in topology::associations(s).into_iter().enumerate() {
                let name = format!("{}-{}", s.wifi[b].name, s.wifi[b].stations[k - 1]);
                for (port, dir) in [Dir::Forward, Dir::Reverse].into_iter().enumerate() {
                    let (from, to) = ends[ifaces.len()];
                    ifaces.push(Iface {
                        link: name.clone(),
                        dir,
                        from,
                        to,
                        mtu: WIFI_MTU,
                        rate: rate(b),
                        device: dev,
                        port: (2 * a + port) as u32,
                        arrival_loss: false,
                        stats: IfaceStats::default(),
                    });
                }
            }
            devices.push(Box::new(device));
            actions
        };
        for iface in &mut ifaces {
            iface.arrival_loss = devices[iface.device.0 as usize].may_lose_on_arrival(iface.port);
        }
        let captures = if s.record.contains(&RecordKind::Pcap) {
            Captures::in_memory(
                ifaces
                    .iter()
                    .map(|i| format!("{}.{}.pcap", i.link, i.dir.as_str()))
                    .collect(),
            )
        } else {
            Captures::none()
        };
        // The last device, the 802.11 one when there is one (else no action names it).
        let wifi = DevId((devices.len() as u32).saturating_sub(1));
        let small_queues = flows.iter().any(|f| !f.queues.rooms().is_empty());
        let small_queues_at_driver = flows.iter().any(|f| f.queues.ends_at_driver());
        let mut world = World {
            seed,
            end,
            node_names: s.nodes.iter().map(|n| n.name.clone()).collect(),
            ifaces,
            devices,
            routes,
            flows,
            pool: Default::default(),
            queue,
            traces,
            recorded: s.record.clone(),
            changes,
            captures,
            qlogs,
            actions: Vec::new(),
            cmds: Vec::new(),
            small_queues,
            small_queues_at_driver,
            outside: Vec::new(),
            unroutable: 0,
        };
        // The transports' first commands (their first messages, their connections opening)
        // and the 802.11 device's first wake-ups, carried out as the run's would be.
        for (f, cmds) in firsts {
            world.cmds.extend(cmds);
            world.obey(SimTime::ZERO, f, 0);
        }
        world.actions.extend(wifi_actions);
        world.act(SimTime::ZERO, wifi, 0);
        world
    }
}

#[cfg(target_os = "linux")]
use crate::emu::Shared;

#[cfg(target_os = "linux")]
impl World {
    /// Makes the world an emulation whose real nodes are `real` (by node index): adds the
    /// port to the real world to the devices, as the way out of every real node
    /// ([`crate::emu::Port`]), and wraps each flow with an endpoint on a real node in
    /// [`crate::emu::Interop`]. Returns what the port, the interop flows and the real-time
    /// loop share; an error if a flow joins a real and a Tern node and cannot (see
    /// [`crate::emu::Boundary`]).
    pub(super) fn open_port(&mut self, real: Vec<bool>) -> Result<Shared, String> {
        use crate::emu::{Boundary, Interop, Port};
        use crate::net::packet::NodeId;
        use std::{cell::RefCell, rc::Rc};

        let flows: Vec<_> = self
            .flows
            .iter()
            .map(|f| (&*f.name, f.src, f.dst, f.transport.speaks_tcp()))
            .collect();
        let boundary = Rc::new(RefCell::new(Boundary::new(real, &flows)?));
        let port = DevId(self.devices.len() as u32);
        self.devices.push(Box::new(Port::new(Rc::clone(&boundary))));
        self.outside = (0..self.node_names.len())
            .map(|n| boundary.borrow().is_real(NodeId(n as u32)).then_some(port))
            .collect();
        for (f, mut flow) in std::mem::take(&mut self.flows).into_iter().enumerate() {
            let f = FlowId(f as u32);
            let silent = boundary.borrow().silent(f);
            if silent.contains(&true) {
                let inner = flow.transport;
                flow.transport = Box::new(Interop::new(inner, f, silent, Rc::clone(&boundary)));
            }
            self.flows.push(flow);
        }
        Ok(boundary)
    }
}

/// The 802.11 device of a scenario with BSSs, and its first wake-ups.
fn wifi(s: &Scenario, nodes: &Nodes, seed: u64, first: IfaceId) -> (WifiDevice, Vec<Action>) {
    let associations = topology::associations(s);
    let (roamers, scheduled) = crate::wifi::roaming::build(s, &associations);
    let beacons =
        s.record.contains(&RecordKind::Rssi) || roamers.iter().any(|r| r.trigger.is_some());
    let mut bsses: Vec<_> = s
        .wifi
        .iter()
        .map(|w| crate::wifi::build::bss(w, &s.nodes, seed))
        .collect();
    let ap_rx: Vec<_> = s.wifi.iter().map(crate::wifi::build::ap_rx).collect();
    for (bss, strategy) in bsses.iter_mut().zip(&ap_rx) {
        bss.observe_rx = s.record.contains(&RecordKind::WifiRx) || strategy.is_some();
        bss.observe_tx = s.record.contains(&RecordKind::Wifi);
    }
    // Each association's uplink, then downlink (the device's interface order).
    let qdiscs = associations
        .iter()
        .flat_map(|&(b, _)| [(); 2].map(|()| s.wifi[b].qdisc.as_ref()))
        .map(|q| q.map(|spec| Qdisc::from_spec(spec, WIFI_MTU)))
        .collect();
    let members = |w: &crate::scenario::WifiSpec| -> Vec<String> {
        std::iter::once(&w.ap).chain(&w.stations).cloned().collect()
    };
    WifiDevice::new(WifiSetup {
        first,
        bsses,
        ap_rx,
        names: s.wifi.iter().map(members).collect(),
        nodes: s
            .wifi
            .iter()
            .map(|w| members(w).iter().map(|m| nodes.id(m)).collect())
            .collect(),
        active: topology::initial_associations(s),
        associations,
        roamers,
        scheduled,
        beacons,
        qdiscs,
    })
}
