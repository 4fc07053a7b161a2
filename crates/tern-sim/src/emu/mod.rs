//! Emulation: real Linux hosts' packets through Tern's links, queues and radios, in real
//! time (`tern emulate`).
//!
//! A node marked `real = true` stands for a Linux network namespace whose TUN device
//! (Linux `Documentation/networking/tuntap.rst`) hands Tern every IPv4 packet the namespace
//! sends: the packet enters the world at that node as a [`Body::Raw`](crate::net::packet::Body)
//! carrying its bytes, crosses the scenario's devices like any other packet (its size is
//! the real one), and leaves the world at its destination node through the port to the
//! real world, a device like a link's ([`Port`]), to be written to that node's TUN device.
//! The engine runs paced to the monotonic clock ([`World::run_realtime`](crate::World)):
//! simulated time is the wall time elapsed since the start, and each event's lateness
//! (wall time at which it ran minus its due time) is measured ([`Lateness`]).
//!
//! Addresses: node `i` (its index in the scenario) is `198.18.0.0 + i + 1`, in the
//! benchmarking range 198.18.0.0/15 of RFC 2544 §C.2.2 (reserved by RFC 6890 §2.2.2), so
//! no address of a real network is ever used. Tern's nodes have theirs too: a TCP flow
//! between a Tern node and a real node has Tern's TCP speak to the kernel's in real bytes
//! ([`wire`], the boundary in `boundary.rs`, the flow's transport wrapped by [`Interop`]).
//! An emulation is not deterministic: what the
//! kernels send, and when, varies from run to run.

mod boundary;
mod interop;
mod lateness;
mod port;
#[cfg(target_os = "linux")]
pub mod tun;
pub mod wire;

pub(crate) use boundary::Boundary;
pub(crate) use interop::Interop;
pub(crate) use port::Port;

/// What the port device, the interop flows' transports and the real-time loop share of an
/// emulation's boundary.
pub(crate) type Shared = std::rc::Rc<std::cell::RefCell<Boundary>>;
pub use lateness::Lateness;

use crate::engine::SimTime;
use crate::net::packet::{FlowId, NodeId};

/// The flow id of every real host's packet: no flow of the scenario (flows are numbered
/// from 0 in scenario order).
pub const EMULATED: FlowId = FlowId(u32::MAX);

/// The network of the real nodes' addresses, 198.18.0.0/15 (RFC 2544 §C.2.2).
pub const NETWORK: [u8; 4] = [198, 18, 0, 0];
/// Its prefix length.
pub const PREFIX_LEN: u8 = 15;
/// Real nodes take indices 0 ..= `MAX_REAL_INDEX - 1`: host numbers 1 to 2^17 − 2 of the
/// /15 (all zeros and all ones excluded, RFC 1122 §3.2.1.3).
pub const MAX_REAL_INDEX: usize = (1 << (32 - PREFIX_LEN)) - 2;

/// The address of node `node` in an emulation: 198.18.0.0 + index + 1 (the scenario's
/// checks keep a real node's index below [`MAX_REAL_INDEX`]).
pub fn real_addr(node: NodeId) -> [u8; 4] {
    (u32::from_be_bytes(NETWORK) + node.0 + 1).to_be_bytes()
}

/// The node whose real address is `addr`, if it is in 198.18.0.0/15 and a host number.
pub fn node_at(addr: [u8; 4]) -> Option<NodeId> {
    let host = u32::from_be_bytes(addr).checked_sub(u32::from_be_bytes(NETWORK))?;
    (1..=MAX_REAL_INDEX as u32)
        .contains(&host)
        .then(|| NodeId(host - 1))
}

/// When an emulation is too late to trust: past `warn` the summary says the engine fell
/// behind; past `fail` the run stops with an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub warn: SimTime,
    pub fail: SimTime,
}

/// What the caller of [`World::run_realtime`](crate::World) wants, asked now and then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Keep going.
    Go,
    /// End the run now, normally (the real hosts' commands have ended).
    End,
    /// Stop: the run is abandoned (Ctrl-C).
    Stop,
}

/// A real node and its TUN device (opened non-blocking, without packet information).
pub struct RealPort {
    pub node: NodeId,
    pub tun: std::fs::File,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_the_benchmarking_range_and_invert() {
        // RFC 2544 §C.2.2: 198.18.0.0 to 198.19.255.255.
        assert_eq!(real_addr(NodeId(0)), [198, 18, 0, 1]);
        assert_eq!(real_addr(NodeId(255)), [198, 18, 1, 0]);
        let last = NodeId(MAX_REAL_INDEX as u32 - 1);
        assert_eq!(real_addr(last), [198, 19, 255, 254]);
        for n in [0, 1, 254, 255, 70_000, last.0] {
            assert_eq!(node_at(real_addr(NodeId(n))), Some(NodeId(n)));
        }
        assert_eq!(node_at([198, 18, 0, 0]), None);
        assert_eq!(node_at([198, 19, 255, 255]), None);
        assert_eq!(node_at([198, 20, 0, 1]), None);
        assert_eq!(node_at([10, 0, 0, 1]), None);
    }
}
