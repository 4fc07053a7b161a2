//! The shape of a scenario's network: node ids, interfaces (link directions and 802.11
//! associations, each with its two ends) and the routes over them.

use crate::net::device::{Device, Iface, IfaceId};
use crate::net::packet::NodeId;
use crate::net::route::Routes;
use crate::scenario::{FlowSpec, Scenario};
use std::collections::BTreeMap;

/// The IP MTU of an 802.11 association: 1500 B, the Ethernet MTU bridged by an AP (802.11
/// itself carries MSDUs up to 2304 B).
pub const WIFI_MTU: u32 = 1500;

/// Node ids by name.
pub struct Nodes(BTreeMap<String, NodeId>);

impl Nodes {
    pub fn of(s: &Scenario) -> Nodes {
        Nodes(
            s.nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.name.clone(), NodeId(i as u32)))
                .collect(),
        )
    }

    /// The node named `name` (the scenario was checked: it exists).
    pub fn id(&self, name: &str) -> NodeId {
        self.0[name]
    }
}

/// The 802.11 associations of a scenario, in interface order after the links: (BSS index,
/// station index within it, from 1). Association `k` has interfaces `2(L + k)` uplink and
/// `2(L + k) + 1` downlink, L the number of links.
pub fn associations(s: &Scenario) -> Vec<(usize, usize)> {
    s.wifi
        .iter()
        .enumerate()
        .flat_map(|(b, w)| (1..=w.stations.len()).map(move |k| (b, k)))
        .collect()
}

/// For each association (in [`associations`] order), whether it is where the station
/// starts: the first BSS that lists the station.
pub fn initial_associations(s: &Scenario) -> Vec<bool> {
    associations(s)
        .into_iter()
        .map(|(b, k)| {
            let station = &s.wifi[b].stations[k - 1];
            s.wifi.iter().position(|w| w.stations.contains(station)) == Some(b)
        })
        .collect()
}

/// The two ends of every interface, in interface order: link `i` has `2i` forward
/// (`ends[0]` → `ends[1]`) and `2i + 1` reverse; associations follow, uplink first.
pub fn interface_ends(s: &Scenario, nodes: &Nodes) -> Vec<(NodeId, NodeId)> {
    let mut ends = Vec::with_capacity(2 * s.links.len());
    for l in &s.links {
        let (a, b) = (nodes.id(&l.ends[0]), nodes.id(&l.ends[1]));
        ends.push((a, b));
        ends.push((b, a));
    }
    for (b, k) in associations(s) {
        let (sta, ap) = (
            nodes.id(&s.wifi[b].stations[k - 1]),
            nodes.id(&s.wifi[b].ap),
        );
        ends.push((sta, ap));
        ends.push((ap, sta));
    }
    ends
}

/// The interfaces of `node` on the link or 802.11 BSS named `via` (checked: `node` is on
/// it): out of the node, and into it.
pub fn pinned(s: &Scenario, node: &str, via: &str) -> (IfaceId, IfaceId) {
    let pair = |up: usize| (IfaceId(up as u32), IfaceId(up as u32 ^ 1));
    if let Some(i) = s.links.iter().position(|l| l.name == via) {
        return pair(if s.links[i].ends[0] == node {
            2 * i
        } else {
            2 * i + 1
        });
    }
    let a = associations(s)
        .into_iter()
        .position(|(b, k)| s.wifi[b].name == via && s.wifi[b].stations[k - 1] == node)
        .expect("checked: the node is a station of the BSS");
    pair(2 * (s.links.len() + a))
}

/// The interfaces a flow's endpoints are pinned to, by endpoint key (see [`Flow::via`]):
/// a multipath QUIC flow's paths, or the flow's `via`, or none.
///
/// [`Flow::via`]: super::Flow
pub fn flow_interfaces(s: &Scenario, f: &FlowSpec) -> Vec<(IfaceId, IfaceId)> {
    match f.transport.quic().map(|q| &q.paths[..]) {
        Some(paths) if !paths.is_empty() => {
            paths.iter().map(|p| pinned(s, &f.from, &p.via)).collect()
        }
        _ => f.via.iter().map(|v| pinned(s, &f.from, v)).collect(),
    }
}

/// The IP MTU of interface `i`: its link's, or [`WIFI_MTU`] on an 802.11 association.
pub fn interface_mtu(s: &Scenario, i: IfaceId) -> u32 {
    s.links
        .get(i.0 as usize / 2)
        .map_or(WIFI_MTU, |l| l.mtu.0 as u32)
}

/// The scenario's explicit routes: (node, destination, interface), the interface out of the
/// node on the link or 802.11 BSS the route names.
pub fn explicit_routes(s: &Scenario, nodes: &Nodes) -> Vec<(NodeId, NodeId, IfaceId)> {
    s.routes
        .iter()
        .map(|r| {
            let (out, _) = pinned(s, &r.node, &r.via);
            (nodes.id(&r.node), nodes.id(&r.to), out)
        })
        .collect()
}

/// Routes of a scenario with each station in the BSS it starts in.
pub fn initial_routes(s: &Scenario, nodes: &Nodes, ends: &[(NodeId, NodeId)]) -> Routes {
    let links = 2 * s.links.len();
    let active = initial_associations(s);
    let usable: Vec<bool> = (0..ends.len())
        .map(|i| i < links || active[(i - links) / 2])
        .collect();
    Routes::new(
        s.nodes.len(),
        ends.to_vec(),
        usable,
        explicit_routes(s, nodes),
    )
}

/// The same routes over the interfaces usable now (after an 802.11 roam).
pub fn reroute(routes: &Routes, ifaces: &[Iface], devices: &[Box<dyn Device>]) -> Routes {
    let usable = ifaces
        .iter()
        .map(|i| devices[i.device.0 as usize].usable(i.port))
        .collect();
    routes.with_usable(usable)
}

/// The smallest MTU on the paths between `a` and `b`, both ways.
pub fn path_mtu(
    s: &Scenario,
    ends: &[(NodeId, NodeId)],
    routes: &mut Routes,
    a: NodeId,
    b: NodeId,
) -> u32 {
    [(a, b), (b, a)]
        .into_iter()
        .flat_map(|(x, y)| routes.path(x, y, ends).expect("routes checked"))
        .map(|i| interface_mtu(s, i))
        .min()
        .unwrap_or(1500)
}

/// A real node of an emulation, as the host side sets it up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RealNode {
    pub name: String,
    pub node: NodeId,
    /// Its address in 198.18.0.0/15 ([`crate::emu::real_addr`]).
    pub addr: [u8; 4],
    /// The MTU of its TUN device: the smallest of the scenario's interfaces, so that no
    /// real packet is larger than a link it may cross.
    pub mtu: u32,
    pub commands: Vec<String>,
}

/// The scenario's real nodes (`real = true`), in scenario order.
pub fn real_nodes(s: &Scenario) -> Vec<RealNode> {
    let interfaces = 2 * (s.links.len() + associations(s).len());
    let mtu = (0..interfaces as u32)
        .map(|i| interface_mtu(s, IfaceId(i)))
        .min()
        .unwrap_or(WIFI_MTU);
    s.nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.real)
        .map(|(i, n)| RealNode {
            name: n.name.clone(),
            node: NodeId(i as u32),
            addr: crate::emu::real_addr(NodeId(i as u32)),
            mtu,
            commands: n.commands.clone(),
        })
        .collect()
}
