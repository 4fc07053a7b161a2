//! Where a simulated packet appears to come from in a capture: the IPv4 addresses of nodes.
//! The ports are each transport's (`transport/<kind>/capture.rs`).

use crate::net::packet::NodeId;

/// The IPv4 address of a node: `10.a.b.c` where `a.b.c` is node id + 1 as a
/// 24-bit big-endian number, so node 0 is 10.0.0.1, node 255 is 10.0.1.0 and
/// node 1000 is 10.0.3.233 (10.0.x.y for the first 65,535 nodes). Ids are
/// taken modulo 2^24.
pub fn node_addr(node: NodeId) -> [u8; 4] {
    let [_, a, b, c] = node.0.wrapping_add(1).to_be_bytes();
    [10, a, b, c]
}
