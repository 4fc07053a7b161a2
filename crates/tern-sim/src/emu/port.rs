//! The port to the real world: the device through which packets leave the world for the
//! real hosts of an emulation.
//!
//! Each real node has the port as its way out, as a host in ns-3 has its `FdNetDevice`
//! (ns-3 `src/fd-net-device`): a packet the routes bring to a real node is enqueued on the
//! port like on any link ([`Device::enqueue`], the node's index being the port number); the
//! port takes its bytes for that node's TUN device, which the real-time loop writes
//! ([`World::run_realtime`](crate::World)), and frees the packet ([`Action::Left`]). A
//! packet a real host wrote enters the world through the port too
//! ([`Boundary::enter`]), at its node. A packet sent to a real node is framed by the port as
//! it leaves its sender ([`Device::frame`]): a Tern endpoint's TCP segment becomes the bytes
//! the kernel will read, so that it crosses the scenario's devices, and their captures, as
//! those bytes.
//!
//! Call order, per packet for a real node: [`Device::frame`] when its sender sends it, then
//! the scenario's devices, then [`Device::enqueue`] on the port at the real node.

use std::cell::RefCell;
use std::rc::Rc;

use super::Boundary;
use crate::engine::SimTime;
use crate::net::device::{Action, Device, DeviceCx, Enqueued, Outgoing};
use crate::net::packet::{Body, NodeId, Packet};

/// The port device of an emulation. Its state is shared with the interop flows'
/// transports (which read the kernels' segments, [`super::Interop`]) and the real-time loop
/// (which reads and writes the TUN devices).
pub(crate) struct Port {
    boundary: Rc<RefCell<Boundary>>,
}

impl Port {
    pub fn new(boundary: Rc<RefCell<Boundary>>) -> Self {
        Port { boundary }
    }
}

impl Device for Port {
    /// Packet `out.p` reached the real node whose index is `out.port`: its bytes leave the
    /// world there. A segment of Tern's that could not be framed ([`Boundary::encode_sent`]
    /// counted it) has no bytes and is dropped: a real host reads only bytes. The port has
    /// no queue: it never refuses a packet.
    fn enqueue(&mut self, _now: SimTime, out: Outgoing<'_>, cx: &mut DeviceCx<'_>) -> Enqueued {
        if let Body::Raw(bytes) = &out.pkt.body {
            let delivered = &mut self.boundary.borrow_mut().delivered;
            delivered.push((NodeId(out.port), bytes.clone()));
        }
        cx.push(Action::Left { p: out.p });
        Ok(())
    }

    /// The port asks for no wake-up.
    fn wake(&mut self, _now: SimTime, _token: u32, _cx: &mut DeviceCx<'_>) {}

    fn frame(&mut self, _port: u32, pkt: &Packet) -> Option<Body> {
        self.boundary.borrow_mut().encode(pkt.flow, pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{FlowId, IfaceId, PacketPool};
    use crate::trace::Traces;
    use tern_proto::tcp::Segment;

    /// At a real node the port takes a real host's bytes as they are, for that node's TUN
    /// device, and frees the packet; a packet without bytes (a Tern segment that could not
    /// be framed) leaves no bytes but is freed too. The port never refuses one.
    #[test]
    fn a_packet_for_a_real_node_leaves_as_its_bytes() {
        let (tern, real) = (NodeId(0), NodeId(1));
        let boundary = Rc::new(RefCell::new(
            Boundary::new(vec![false, true], &[("up", tern, real, true)]).unwrap(),
        ));
        let mut port = Port::new(Rc::clone(&boundary));
        let mut pool = PacketPool::default();
        let bytes = vec![0x45, 1, 2, 3];
        let raw = pool
            .insert(FlowId(0), tern, real, Body::Raw(bytes.clone()))
            .unwrap();
        let seg = pool
            .insert(FlowId(0), tern, real, Body::Tcp(Segment::default()))
            .unwrap();
        let mut actions = Vec::new();
        let mut traces = Traces::in_memory(&[]);
        for p in [raw, seg] {
            let mut cx = DeviceCx {
                actions: &mut actions,
                traces: &mut traces,
                pool: &pool,
            };
            let out = Outgoing {
                iface: IfaceId(u32::MAX),
                port: real.0,
                p,
                pkt: pool.get(p),
            };
            assert_eq!(port.enqueue(SimTime::ZERO, out, &mut cx), Ok(()));
        }
        assert_eq!(boundary.borrow().delivered, vec![(real, bytes)]);
        let left: Vec<_> = actions
            .iter()
            .map(|a| match a {
                Action::Left { p } => *p,
                a => panic!("{a:?}"),
            })
            .collect();
        assert_eq!(left, vec![raw, seg]);
    }
}
