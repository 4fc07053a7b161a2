//! The transport of an interop flow: a TCP flow with one end on a real node, whose Tern
//! endpoint speaks to the kernel's in real bytes (see [`super::Boundary`]).
//!
//! [`Interop`] wraps the flow's transport. Every call goes to it; then the commands of an
//! endpoint on a real node are taken out ([`Cmd::Send`], [`Cmd::Arm`], [`Cmd::WakeAt`]: the
//! kernel's endpoint stands in for it, so it sends nothing and needs no wake-up). A packet
//! that reaches the Tern endpoint is a kernel's bytes: they are parsed into the segment the
//! endpoint reads ([`Boundary::parse_received`]: checksums verified, payload checked
//! against the stream pattern), or dropped and counted when malformed.

use std::cell::RefCell;
use std::rc::Rc;

use super::Boundary;
use crate::engine::SimTime;
use crate::net::packet::{Body, FlowId};
use crate::transport::small_queues::SmallQueues;
use crate::transport::{Arrival, Cmd, Io, LinkObserver, Side, Transport, TransportReport};
use crate::wifi::bss_load::BssLoad;

/// An interop flow's transport (or a flow's between two real nodes, both endpoints silent).
pub(crate) struct Interop {
    inner: Box<dyn Transport>,
    flow: FlowId,
    /// Per side (client, server): its node is real.
    silent: [bool; 2],
    boundary: Rc<RefCell<Boundary>>,
}

impl Interop {
    pub fn new(
        inner: Box<dyn Transport>,
        flow: FlowId,
        silent: [bool; 2],
        boundary: Rc<RefCell<Boundary>>,
    ) -> Self {
        Interop {
            inner,
            flow,
            silent,
            boundary,
        }
    }

    /// Takes out the commands from `start` of the endpoints on real nodes, keeping the
    /// others in order.
    fn quiet(&self, cmds: &mut Vec<Cmd>, start: usize) {
        let mut kept = start;
        for i in start..cmds.len() {
            let silent = match cmds[i] {
                Cmd::Send { side, .. } | Cmd::Arm { side, .. } | Cmd::WakeAt { side, .. } => {
                    self.silent[side.index()]
                }
                _ => false,
            };
            if !silent {
                cmds.swap(kept, i);
                kept += 1;
            }
        }
        cmds.truncate(kept);
    }

    /// Calls the inner transport, then [`Interop::quiet`].
    fn call(&mut self, io: &mut Io<'_>, call: impl FnOnce(&mut dyn Transport, &mut Io<'_>)) {
        let start = io.cmds.len();
        call(self.inner.as_mut(), io);
        self.quiet(io.cmds, start);
    }

    /// Calls the inner transport's link observer, then [`Interop::quiet`].
    fn observe(&mut self, io: &mut Io<'_>, call: impl FnOnce(&mut dyn LinkObserver, &mut Io<'_>)) {
        self.call(io, |t, io| {
            if let Some(o) = t.observer() {
                call(o, io);
            }
        });
    }
}

impl Transport for Interop {
    fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
        self.call(io, |t, io| t.handle_tick(now, io));
    }

    /// A kernel's bytes reach the Tern endpoint: parsed, they are the segment it reads. A
    /// segment the real node's silent endpoint sent before the emulation began (not bytes)
    /// is dropped: only the kernel speaks for a real node.
    fn handle_packet(&mut self, now: SimTime, side: Side, packet: Arrival<'_>, io: &mut Io<'_>) {
        if !matches!(packet.body(), Body::Raw(_)) {
            return;
        }
        let Body::Raw(bytes) = packet.into_body() else {
            unreachable!("matched above")
        };
        let parsed = self.boundary.borrow_mut().parse_received(self.flow, &bytes);
        if let Some(seg) = parsed {
            let packet = Arrival::owned(Body::Tcp(seg));
            self.call(io, |t, io| t.handle_packet(now, side, packet, io));
        }
    }

    fn handle_timeout(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>) {
        self.call(io, |t, io| t.handle_timeout(now, side, key, io));
    }

    fn poll_timeout(&mut self, now: SimTime, side: Side, key: u8) -> Option<SimTime> {
        self.inner.poll_timeout(now, side, key)
    }

    fn report(&self, start: SimTime) -> TransportReport {
        self.inner.report(start)
    }

    fn observer(&mut self) -> Option<&mut dyn LinkObserver> {
        // Only a transport that observes links gets their events, silenced here.
        self.inner.observer()?;
        Some(self)
    }

    fn small_queues(&self) -> Option<(SmallQueues, u8)> {
        self.inner.small_queues()
    }

    fn first_hop_room(&mut self, now: SimTime, side: Side, key: u8, io: &mut Io<'_>) {
        self.call(io, |t, io| t.first_hop_room(now, side, key, io));
    }

    fn tls_key_log(&self) -> String {
        self.inner.tls_key_log()
    }

    fn speaks_tcp(&self) -> bool {
        self.inner.speaks_tcp()
    }
}

/// The inner transport's observer, its endpoints on real nodes silenced.
impl LinkObserver for Interop {
    fn handle_rssi(&mut self, now: SimTime, rssi_dbm: Option<f64>, io: &mut Io<'_>) {
        self.observe(io, |o, io| o.handle_rssi(now, rssi_dbm, io));
    }

    fn handle_link(&mut self, now: SimTime, side: Side, up: bool, io: &mut Io<'_>) {
        self.observe(io, |o, io| o.handle_link(now, side, up, io));
    }

    fn handle_bss_load(&mut self, now: SimTime, side: Side, load: &BssLoad, io: &mut Io<'_>) {
        self.observe(io, |o, io| o.handle_bss_load(now, side, load, io));
    }

    fn handle_handover(&mut self, now: SimTime, side: Side, io: &mut Io<'_>) {
        self.observe(io, |o, io| o.handle_handover(now, side, io));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::NodeId;
    use crate::trace::Traces;
    use tern_proto::tcp::Segment;

    /// A transport whose every tick sends from both sides, arms both, asks a wake-up of
    /// both and its next tick.
    struct Chatty;

    impl Transport for Chatty {
        fn handle_tick(&mut self, now: SimTime, io: &mut Io<'_>) {
            for side in [Side::Client, Side::Server] {
                io.cmds.push(Cmd::Send {
                    side,
                    key: 0,
                    body: Body::Tcp(Segment::default()),
                });
                io.cmds.push(Cmd::Arm { side, key: 0 });
                io.cmds.push(Cmd::WakeAt {
                    at: now,
                    side,
                    key: 0,
                });
            }
            io.cmds.push(Cmd::Tick(now));
        }
        fn handle_packet(&mut self, _: SimTime, _: Side, _: Arrival<'_>, _: &mut Io<'_>) {
            unreachable!("no packet in this test")
        }
        fn handle_timeout(&mut self, _: SimTime, _: Side, _: u8, _: &mut Io<'_>) {}
        fn poll_timeout(&mut self, _: SimTime, _: Side, _: u8) -> Option<SimTime> {
            None
        }
        fn report(&self, _: SimTime) -> TransportReport {
            unreachable!("no report in this test")
        }
    }

    /// The endpoint on the real node (here the server) sends nothing and asks for no
    /// wake-up; the Tern endpoint's commands and the application's stay, in order, and
    /// those pushed before the call are left alone.
    #[test]
    fn the_endpoint_on_a_real_node_is_silent() {
        let (tern, real) = (NodeId(0), NodeId(1));
        let boundary = Boundary::new(vec![false, true], &[("up", tern, real, true)]).unwrap();
        let silent = boundary.silent(FlowId(0));
        assert_eq!(silent, [false, true]);
        let boundary = Rc::new(RefCell::new(boundary));
        let mut t = Interop::new(Box::new(Chatty), FlowId(0), silent, boundary);
        let mut cmds = vec![Cmd::Arm {
            side: Side::Server,
            key: 0,
        }];
        let mut traces = Traces::in_memory(&[]);
        let name = "up".to_owned();
        let mut io = Io {
            cmds: &mut cmds,
            traces: &mut traces,
            flow: &name,
            small_queues: &[],
        };
        let now = SimTime::from_millis(1);
        t.handle_tick(now, &mut io);
        let kinds: Vec<String> = cmds
            .iter()
            .map(|c| match c {
                Cmd::Send { side, .. } => format!("send {side:?}"),
                Cmd::Arm { side, .. } => format!("arm {side:?}"),
                Cmd::WakeAt { side, .. } => format!("wake {side:?}"),
                Cmd::Tick(_) => "tick".to_owned(),
                Cmd::SampleRssi(_) => "rssi".to_owned(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "arm Server",
                "send Client",
                "arm Client",
                "wake Client",
                "tick"
            ]
        );
    }
}
