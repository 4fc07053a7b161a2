//! Static routing: for a packet at a node, the interface it leaves by towards its
//! destination.
//!
//! By default packets follow a path with the fewest hops, found by breadth-first search
//! from the node over the interfaces in the order the scenario lists them (so ties are
//! broken by that order, deterministically). Explicit routes replace the next hop of one
//! node towards one destination. Routes name interfaces, not neighbours: a host with two
//! interfaces (802.11 and cellular) is routed by the one a route names, and a transport
//! can pin a path to an interface.
//!
//! Routes are computed on demand, one search per node with more than one way out that
//! forwards a packet, and kept: memory grows with the number of such routers times the
//! network's size, never with its square (a 100 000-node tree with one flow keeps a dozen
//! searches; a host with one interface never searches).

use super::device::IfaceId;
use super::packet::NodeId;
use std::collections::{BTreeMap, VecDeque};

/// No next hop (a `u32` sentinel keeps a search's result at 4 bytes a node).
const NONE: u32 = u32::MAX;

/// The network's interfaces as an adjacency list, the explicit routes, and the searches
/// done so far.
#[derive(Clone, Debug)]
pub struct Routes {
    /// `edges[offsets[n]..offsets[n + 1]]`: the usable interfaces out of node `n`, with the
    /// node at their far end, in interface order.
    offsets: Vec<u32>,
    edges: Vec<(IfaceId, NodeId)>,
    ends: Vec<(NodeId, NodeId)>,
    usable: Vec<bool>,
    explicit: BTreeMap<(NodeId, NodeId), IfaceId>,
    /// Per node, its connected component over the usable interfaces (interfaces come in
    /// pairs, both directions usable or neither, so a node reaches exactly its component).
    component: Vec<u32>,
    /// Whether all nodes are in one component (then every node reaches every other).
    connected: bool,
    /// Per node, its only usable interface out, or `NONE` when it has none or several: a
    /// host's next hop is one read of this array (and of `component`, when the network is
    /// not connected), where the adjacency list took three.
    sole: Vec<u32>,
    /// Per node, once searched: the first interface on a shortest path to each node.
    first_hop: Vec<Option<Box<[u32]>>>,
}

impl Routes {
    /// Routes among `nodes` nodes over interfaces with the given `ends` (in interface
    /// order), of which those flagged `usable`, with `explicit` (node, destination,
    /// interface) routes on top.
    pub fn new(
        nodes: usize,
        ends: Vec<(NodeId, NodeId)>,
        usable: Vec<bool>,
        explicit: Vec<(NodeId, NodeId, IfaceId)>,
    ) -> Routes {
        let mut offsets = vec![0u32; nodes + 1];
        for (i, &(from, _)) in ends.iter().enumerate() {
            if usable[i] {
                offsets[from.0 as usize + 1] += 1;
            }
        }
        for n in 0..nodes {
            offsets[n + 1] += offsets[n];
        }
        let mut fill = offsets.clone();
        let mut edges = vec![(IfaceId(0), NodeId(0)); offsets[nodes] as usize];
        for (i, &(from, to)) in ends.iter().enumerate() {
            if usable[i] {
                let slot = &mut fill[from.0 as usize];
                edges[*slot as usize] = (IfaceId(i as u32), to);
                *slot += 1;
            }
        }
        let component = components(nodes, &ends, &usable);
        let connected = component.iter().all(|&c| c == 0);
        let sole = (0..nodes)
            .map(
                |n| match &edges[offsets[n] as usize..offsets[n + 1] as usize] {
                    [(only, _)] => only.0,
                    _ => NONE,
                },
            )
            .collect();
        Routes {
            offsets,
            edges,
            ends,
            usable,
            explicit: explicit.into_iter().map(|(n, d, i)| ((n, d), i)).collect(),
            component,
            connected,
            sole,
            first_hop: vec![None; nodes],
        }
    }

    /// The same network and explicit routes with other interfaces usable.
    pub fn with_usable(&self, usable: Vec<bool>) -> Routes {
        let explicit = self
            .explicit
            .iter()
            .map(|(&(n, d), &i)| (n, d, i))
            .collect();
        Routes::new(self.first_hop.len(), self.ends.clone(), usable, explicit)
    }

    /// Whether interface `i` may be used.
    pub fn is_usable(&self, i: IfaceId) -> bool {
        self.usable[i.0 as usize]
    }

    /// The interface a packet at `node` for `dst` leaves by, if there is a route.
    pub fn next_hop(&mut self, node: NodeId, dst: NodeId) -> Option<IfaceId> {
        if !self.explicit.is_empty() {
            if let Some(&i) = self.explicit.get(&(node, dst)) {
                return Some(i);
            }
        }
        let n = node.0 as usize;
        // A node with one way out (a host, a leaf) sends everything it can reach by it:
        // no search, and nothing kept (a dumbbell of 10 000 flows has 20 000 such hosts).
        let only = self.sole[n];
        if only != NONE {
            let reachable = self.connected || self.component[n] == self.component[dst.0 as usize];
            return reachable.then_some(IfaceId(only));
        }
        if self.first_hop[n].is_none() {
            self.first_hop[n] = Some(self.search(n));
        }
        let hop = self.first_hop[n].as_ref().expect("searched")[dst.0 as usize];
        (hop != NONE).then_some(IfaceId(hop))
    }

    /// Breadth-first search from `src`: for every node, the first interface on a path with
    /// the fewest hops (the first found, in interface order).
    fn search(&self, src: usize) -> Box<[u32]> {
        let nodes = self.first_hop.len();
        let mut first = vec![NONE; nodes].into_boxed_slice();
        let mut seen = vec![false; nodes];
        seen[src] = true;
        let mut frontier = VecDeque::from([src]);
        while let Some(n) = frontier.pop_front() {
            let out = &self.edges[self.offsets[n] as usize..self.offsets[n + 1] as usize];
            for &(i, to) in out {
                let t = to.0 as usize;
                if !seen[t] {
                    seen[t] = true;
                    first[t] = if n == src { i.0 } else { first[n] };
                    frontier.push_back(t);
                }
            }
        }
        first
    }

    /// The interfaces a packet from `src` to `dst` crosses, or why it cannot get there.
    pub fn path(
        &mut self,
        src: NodeId,
        dst: NodeId,
        ends: &[(NodeId, NodeId)],
    ) -> Result<Vec<IfaceId>, RouteError> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let i = self.next_hop(at, dst).ok_or(RouteError::NoRoute { at })?;
            path.push(i);
            if path.len() > self.first_hop.len() {
                return Err(RouteError::Loop);
            }
            at = ends[i.0 as usize].1;
        }
        Ok(path)
    }
}

/// Each node's connected component over the usable interfaces (union-find).
fn components(nodes: usize, ends: &[(NodeId, NodeId)], usable: &[bool]) -> Vec<u32> {
    let mut parent: Vec<u32> = (0..nodes as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    }
    for (i, &(a, b)) in ends.iter().enumerate() {
        if usable[i] {
            let (ra, rb) = (root(&mut parent, a.0), root(&mut parent, b.0));
            parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
    (0..nodes as u32).map(|x| root(&mut parent, x)).collect()
}

#[derive(Debug, PartialEq, Eq)]
pub enum RouteError {
    /// No next hop from `at`.
    NoRoute { at: NodeId },
    /// The explicit routes send packets in a circle.
    Loop,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplex(links: &[(u32, u32)]) -> Vec<(NodeId, NodeId)> {
        links
            .iter()
            .flat_map(|&(x, y)| [(NodeId(x), NodeId(y)), (NodeId(y), NodeId(x))])
            .collect()
    }

    #[test]
    fn fewest_hops_with_first_listed_tie_break() {
        // a - b - d and a - c - d (two equal paths), plus a long way a - e - f - d.
        let n = NodeId;
        let chans = duplex(&[(0, 1), (1, 3), (0, 2), (2, 3), (0, 4), (4, 5), (5, 3)]);
        let mut r = Routes::new(6, chans.clone(), vec![true; chans.len()], Vec::new());
        let p = r.path(n(0), n(3), &chans).unwrap();
        assert_eq!(p, vec![IfaceId(0), IfaceId(2)]); // via b, listed first
        let back = r.path(n(3), n(0), &chans).unwrap();
        assert_eq!(back, vec![IfaceId(3), IfaceId(1)]);
    }

    #[test]
    fn explicit_route_and_loop_detection() {
        let n = NodeId;
        let chans = duplex(&[(0, 1), (1, 2)]);
        let mut r = Routes::new(3, chans.clone(), vec![true; 4], Vec::new());
        assert_eq!(r.path(n(0), n(2), &chans).unwrap().len(), 2);
        // Send it back: a loop.
        let mut r = Routes::new(
            3,
            chans.clone(),
            vec![true; 4],
            vec![(n(1), n(2), IfaceId(1))],
        );
        assert_eq!(r.path(n(0), n(2), &chans), Err(RouteError::Loop));
        let mut r2 = Routes::new(3, chans.clone(), vec![true, true, false, false], Vec::new());
        assert_eq!(
            r2.path(n(0), n(2), &chans),
            Err(RouteError::NoRoute { at: n(0) })
        );
    }

    #[test]
    fn a_large_tree_keeps_one_search_per_forwarding_node() {
        // A tree of 100 000 nodes, fan-out 10: node k's parent is (k - 1) / 10.
        let nodes = 100_000u32;
        let chans = duplex(&(1..nodes).map(|k| ((k - 1) / 10, k)).collect::<Vec<_>>());
        let mut r = Routes::new(
            nodes as usize,
            chans.clone(),
            vec![true; chans.len()],
            Vec::new(),
        );
        let (a, b) = (NodeId(nodes - 1), NodeId(11_111));
        let path = r.path(a, b, &chans).unwrap();
        // Up from 99 999 to the root (5 hops: 9 999, 999, 99, 9, 0), down to 11 111 (5 hops).
        assert_eq!(path.len(), 10);
        // Only the inner nodes on the path search (the leaf 99 999 has one way out).
        let searched = r.first_hop.iter().filter(|s| s.is_some()).count();
        assert_eq!(searched, path.len() - 1);
    }
}
