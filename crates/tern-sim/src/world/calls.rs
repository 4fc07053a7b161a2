//! The world's calls into devices and transports, and what it does with their answers: a
//! device's [`Action`]s and a transport's [`Cmd`]s, carried out in the order given.

use super::{topology, Event, World};
use crate::engine::SimTime;
use crate::net::device::{Action, DevId, Device, DeviceCx, DropKind};
use crate::net::packet::{FlowId, NodeId, PacketPool, Pin};
use crate::transport::small_queues::Passage;
use crate::transport::{Cmd, Io, LinkObserver, Side, Transport};

impl World {
    /// Calls device `d` and carries out the actions it asked for, in order.
    pub(super) fn device_call(
        &mut self,
        now: SimTime,
        d: DevId,
        call: impl FnOnce(&mut dyn Device, &mut DeviceCx<'_>),
    ) {
        let start = self.actions.len();
        let mut cx = DeviceCx {
            actions: &mut self.actions,
            traces: &mut self.traces,
            pool: &self.pool,
        };
        call(self.devices[d.0 as usize].as_mut(), &mut cx);
        self.act(now, d, start);
    }

    /// Carries out, in order, the actions device `d` pushed on the action stack from
    /// `start`, then pops them. An action that calls a device or a transport again pushes
    /// that call's answers above them and pops those before the next is carried out.
    ///
    /// The actions of every packet (wake-ups, transmissions, arrivals, leaving the first
    /// hop, queue changes) are carried out here; drops and the rare ones (a node's link
    /// going or coming back, routes computed again) by [`World::act_rare`], out of line,
    /// so that the loop of the common ones keeps its few registers. Inline: a call that
    /// pushed nothing costs a comparison.
    #[inline]
    pub(super) fn act(&mut self, now: SimTime, d: DevId, start: usize) {
        if self.actions.len() > start {
            self.act_all(now, d, start);
        }
    }

    /// [`World::act`] when there are actions.
    #[inline(never)]
    fn act_all(&mut self, now: SimTime, d: DevId, start: usize) {
        for i in start..self.actions.len() {
            match self.actions[i] {
                Action::Wake { at, token } => self.queue.schedule(at, Event::Device(d, token)),
                Action::Transmit { iface, p } => {
                    let size = self.pool.get(p).size();
                    let stats = &mut self.ifaces[iface.0 as usize].stats;
                    stats.tx_packets += 1;
                    stats.tx_bytes += u64::from(size);
                    self.capture(now, iface, p);
                }
                Action::Arrive { at, iface, p } => self.queue.schedule(at, Event::Arrive(iface, p)),
                Action::LeftFirstHop { iface, p } => {
                    if self.small_queues {
                        self.first_hop_passage(now, iface, p, Passage::Left)
                    }
                }
                Action::EnteredDriver { iface, p } => {
                    if self.small_queues_at_driver {
                        self.first_hop_passage(now, iface, p, Passage::EnteredDriver)
                    }
                }
                Action::LeftDriver { iface, p } => {
                    if self.small_queues {
                        self.first_hop_passage(now, iface, p, Passage::LeftDriver)
                    }
                }
                Action::QueueChanged { iface } => self.trace_queue(now, iface),
                a => self.act_rare(now, a),
            }
        }
        self.actions.truncate(start);
    }

    /// [`World::act`]'s drops and rare actions.
    #[inline(never)]
    fn act_rare(&mut self, now: SimTime, a: Action) {
        match a {
            Action::Drop {
                iface,
                p,
                reason,
                kind,
            } => {
                let stats = &mut self.ifaces[iface.0 as usize].stats;
                match kind {
                    DropKind::Queue => stats.drops_queue += 1,
                    DropKind::Aqm => stats.drops_aqm += 1,
                    DropKind::Loss => stats.drops_loss += 1,
                }
                self.drop_packet(now, iface, p, reason);
            }
            Action::Left { p } => self.pool.release(p),
            Action::LinkDown(node) => self.link_event(now, node, false),
            Action::BssLoad(node, load) => self.bss_load(now, node, load),
            Action::LinkUp(node) => self.link_back(now, node),
            Action::Reroute => {
                self.routes = topology::reroute(&self.routes, &self.ifaces, &self.devices)
            }
            Action::Wake { .. }
            | Action::Transmit { .. }
            | Action::Arrive { .. }
            | Action::LeftFirstHop { .. }
            | Action::EnteredDriver { .. }
            | Action::LeftDriver { .. }
            | Action::QueueChanged { .. } => unreachable!("carried out by World::act"),
        }
    }

    /// Calls flow `f`'s transport and carries out the commands it gave, in order.
    pub(super) fn transport_call(
        &mut self,
        now: SimTime,
        f: FlowId,
        call: impl FnOnce(&mut dyn Transport, &mut Io<'_>),
    ) {
        self.transport_call_with(now, f, |t, io, _| call(t, io));
    }

    /// [`World::transport_call`], the call given the packet pool too (to read a packet
    /// where it lies and free it before the transport's commands are carried out).
    pub(super) fn transport_call_with(
        &mut self,
        now: SimTime,
        f: FlowId,
        call: impl FnOnce(&mut dyn Transport, &mut Io<'_>, &mut PacketPool),
    ) {
        let start = self.cmds.len();
        let flow = &mut self.flows[f.0 as usize];
        let mut io = Io {
            cmds: &mut self.cmds,
            traces: &mut self.traces,
            flow: &flow.name,
            small_queues: flow.queues.rooms(),
        };
        call(flow.transport.as_mut(), &mut io, &mut self.pool);
        self.obey(now, f, start);
    }

    /// Carries out, in order, the commands flow `f`'s transport pushed on the command stack
    /// from `start`, then pops them (each is taken out, a spent [`Cmd::Tick`] left in its
    /// place). A command that calls a device or a transport again pushes that call's answers
    /// above them and pops those before the next is carried out. Inline: a call that gave
    /// no command (a datagram delivered) costs a comparison.
    #[inline]
    pub(super) fn obey(&mut self, now: SimTime, f: FlowId, start: usize) {
        if self.cmds.len() > start {
            self.obey_all(now, f, start);
        }
    }

    /// [`World::obey`] when there are commands.
    #[inline(never)]
    fn obey_all(&mut self, now: SimTime, f: FlowId, start: usize) {
        for i in start..self.cmds.len() {
            let c = std::mem::replace(&mut self.cmds[i], Cmd::Tick(SimTime::ZERO));
            match c {
                Cmd::Send { side, key, body } => {
                    let flow = &mut self.flows[f.0 as usize];
                    let (from, to) = match side {
                        Side::Client => (flow.src, flow.dst),
                        Side::Server => (flow.dst, flow.src),
                    };
                    // `via` is on the flow's second line: read for pinned flows only.
                    let via = match flow.pinned.then(|| &flow.via[..]) {
                        None => None,
                        Some([one]) => Some(*one),
                        Some(many) => many.get(usize::from(key)).copied(),
                    };
                    // No memory left for it: the run stops at the next check (`run`).
                    let Some(p) = self.pool.insert_keyed(f, key, from, to, body) else {
                        continue;
                    };
                    if let Some(&Some(d)) = self.outside.get(to.0 as usize) {
                        // For a node outside the world: framed by its port from here on.
                        let port = &mut self.devices[d.0 as usize];
                        if let Some(body) = port.frame(to.0, self.pool.get(p)) {
                            self.pool.set_body(p, body);
                        }
                    }
                    // Its sender's Small Queues room, if it counts one: the packet is in its
                    // first-hop device from here, unless refused there.
                    let charged = flow.queues.hand_down(key, side, self.pool.get(p).size());
                    if let Some((up, down)) = via {
                        let pin = match side {
                            Side::Client => Pin {
                                first: Some(up),
                                last: None,
                            },
                            Side::Server => Pin {
                                first: None,
                                last: Some(down),
                            },
                        };
                        self.pool.pin(p, pin);
                    }
                    if let (false, Some(c)) = (self.forward(now, from, p), charged) {
                        self.flows[f.0 as usize].queues.refused(c);
                    }
                }
                Cmd::Arm { side, key } => {
                    if let Some(at) = self.flows[f.0 as usize]
                        .transport
                        .poll_timeout(now, side, key)
                    {
                        self.queue.schedule(at, Event::Transport(f, key, side));
                    }
                }
                Cmd::WakeAt { at, side, key } => {
                    self.queue.schedule(at, Event::Transport(f, key, side))
                }
                Cmd::Tick(at) => self.queue.schedule(at, Event::Tick(f)),
                Cmd::SampleRssi(at) => self.queue.schedule(at, Event::Rssi(f)),
            }
        }
        self.cmds.truncate(start);
    }

    /// [`World::transport_call`] on flow `f`'s link observer, if it has one.
    pub(super) fn observer_call(
        &mut self,
        now: SimTime,
        f: FlowId,
        call: impl FnOnce(&mut dyn LinkObserver, &mut Io<'_>),
    ) {
        self.transport_call(now, f, |t, io| {
            if let Some(o) = t.observer() {
                call(o, io);
            }
        });
    }

    /// Calls `call` on the link observers of the transports with an endpoint on `node`, with
    /// that endpoint's side (flows not started yet are left out).
    fn at_node(
        &mut self,
        now: SimTime,
        node: NodeId,
        call: impl Fn(&mut dyn LinkObserver, Side, &mut Io<'_>),
    ) {
        for f in 0..self.flows.len() {
            let flow = &self.flows[f];
            if flow.start > now {
                continue;
            }
            let Some(side) = flow.side_at(node) else {
                continue;
            };
            self.observer_call(now, FlowId(f as u32), |o, io| call(o, side, io));
        }
    }

    /// Tells the transports with an endpoint on `node` that its link went down or came
    /// back.
    pub(super) fn link_event(&mut self, now: SimTime, node: NodeId, up: bool) {
        self.at_node(now, node, |o, side, io| o.handle_link(now, side, up, io));
    }

    /// The transports with an endpoint on `node` hear the BSS Load of the AP it joins.
    pub(super) fn bss_load(
        &mut self,
        now: SimTime,
        node: NodeId,
        load: crate::net::device::JoinLoad,
    ) {
        let load = crate::wifi::bss_load::BssLoad::from(load);
        self.at_node(now, node, |o, side, io| {
            o.handle_bss_load(now, side, &load, io)
        });
    }

    /// A host's link is back after a cellular handover or an 802.11 roam: its transports
    /// hear of it, then of the handover (the cell-id or BSSID change).
    pub(super) fn link_back(&mut self, now: SimTime, node: NodeId) {
        self.link_event(now, node, true);
        for f in 0..self.flows.len() {
            if self.flows[f].src == node {
                let id = FlowId(f as u32);
                self.observer_call(now, id, |o, io| o.handle_handover(now, Side::Client, io));
            }
        }
    }
}
