//! Static routing: a next-hop channel for every (node, destination) pair.
//!
//! By default packets follow a path with the fewest hops, found by
//! breadth-first search from each node over the links in the order the
//! scenario lists them (so ties are broken by that order, deterministically).
//! Explicit routes replace the next hop of one node towards one destination.

use super::link::ChanId;
use super::packet::NodeId;
use std::collections::VecDeque;

/// Next hops, indexed `[node][destination]`.
#[derive(Clone, Debug)]
pub struct Routes {
    next: Vec<Vec<Option<ChanId>>>,
}

impl Routes {
    /// `channels` lists every channel as `(from, to)` in scenario order; only those for
    /// which `usable` holds are used (an 802.11 station's associations but the current one
    /// are not).
    pub fn shortest_paths(
        nodes: usize,
        channels: &[(NodeId, NodeId)],
        usable: impl Fn(ChanId) -> bool,
    ) -> Routes {
        let mut out_edges: Vec<Vec<(ChanId, NodeId)>> = vec![Vec::new(); nodes];
        for (i, &(from, to)) in channels.iter().enumerate() {
            if usable(ChanId(i as u32)) {
                out_edges[from.0 as usize].push((ChanId(i as u32), to));
            }
        }
        let mut next = vec![vec![None; nodes]; nodes];
        for src in 0..nodes {
            // first[n] = the channel out of `src` on the shortest path to n.
            let mut first: Vec<Option<ChanId>> = vec![None; nodes];
            let mut seen = vec![false; nodes];
            seen[src] = true;
            let mut frontier = VecDeque::from([src]);
            while let Some(n) = frontier.pop_front() {
                for &(ch, to) in &out_edges[n] {
                    let t = to.0 as usize;
                    if !seen[t] {
                        seen[t] = true;
                        first[t] = if n == src { Some(ch) } else { first[n] };
                        frontier.push_back(t);
                    }
                }
            }
            next[src] = first;
        }
        Routes { next }
    }

    pub fn set(&mut self, node: NodeId, dst: NodeId, via: ChanId) {
        self.next[node.0 as usize][dst.0 as usize] = Some(via);
    }

    pub fn next_hop(&self, node: NodeId, dst: NodeId) -> Option<ChanId> {
        self.next[node.0 as usize][dst.0 as usize]
    }

    /// The channels a packet from `src` to `dst` crosses, or why it cannot
    /// get there.
    pub fn path(
        &self,
        src: NodeId,
        dst: NodeId,
        channel_ends: &[(NodeId, NodeId)],
    ) -> Result<Vec<ChanId>, RouteError> {
        let mut path = Vec::new();
        let mut at = src;
        while at != dst {
            let ch = self.next_hop(at, dst).ok_or(RouteError::NoRoute { at })?;
            path.push(ch);
            if path.len() > self.next.len() {
                return Err(RouteError::Loop);
            }
            at = channel_ends[ch.0 as usize].1;
        }
        Ok(path)
    }
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

    #[test]
    fn fewest_hops_with_first_listed_tie_break() {
        // a - b - d and a - c - d (two equal paths), plus a long way a - e - f - d.
        let n = |i| NodeId(i);
        let links = [(0, 1), (1, 3), (0, 2), (2, 3), (0, 4), (4, 5), (5, 3)];
        let mut chans = Vec::new();
        for &(x, y) in &links {
            chans.push((n(x), n(y)));
            chans.push((n(y), n(x)));
        }
        let r = Routes::shortest_paths(6, &chans, |_| true);
        let p = r.path(n(0), n(3), &chans).unwrap();
        assert_eq!(p, vec![ChanId(0), ChanId(2)]); // via b, listed first
        let back = r.path(n(3), n(0), &chans).unwrap();
        assert_eq!(back, vec![ChanId(3), ChanId(1)]);
    }

    #[test]
    fn explicit_route_and_loop_detection() {
        let n = |i| NodeId(i);
        let chans = vec![(n(0), n(1)), (n(1), n(0)), (n(1), n(2)), (n(2), n(1))];
        let mut r = Routes::shortest_paths(3, &chans, |_| true);
        assert_eq!(r.path(n(0), n(2), &chans).unwrap().len(), 2);
        r.set(n(1), n(2), ChanId(1)); // send it back: a loop
        assert_eq!(r.path(n(0), n(2), &chans), Err(RouteError::Loop));
        let r2 = Routes::shortest_paths(3, &chans, |c| c.0 < 2);
        assert_eq!(
            r2.path(n(0), n(2), &chans),
            Err(RouteError::NoRoute { at: n(0) })
        );
    }
}
