//! The checks of a scenario that need the models: routes between every flow's ends (with
//! each roaming station in any of its BSSs), sizes that fit the path MTU, node movements,
//! 802.11 rates and MCSs, and each link technology's model checks (`build::links`). They run after the
//! scenario's own checks (`scenario::validate`) and before any run starts; errors name the
//! file, line and key like those.

use super::topology::{self, Nodes};
use crate::net::device::IfaceId;
use crate::net::packet::{NodeId, IPV4_HEADER, UDP_HEADER};
use crate::net::route::{RouteError, Routes};
use crate::scenario::rules::{at, key, link_path};
use crate::scenario::{
    AppSpec, LinkCheck, RateControlSpec, Scenario, ScenarioError, Source, WifiStandard,
};
use crate::transport::quic::spec::QuicSpec;
use crate::transport::tfrc::spec::{TfrcNofeedbackRuleSpec, TfrcProfileSpec, TfrcSpec};
use crate::transport::tfrc::tfrc_wire;
use crate::wifi::build::{dsss_rate, mobility, top_mcs};
use crate::wifi::phy::OfdmRate;

// The scenario's limit on real nodes is the emulation's address plan.
const _: () = assert!(crate::scenario::MAX_REAL_NODES == crate::emu::MAX_REAL_INDEX);

/// Checks `s` (which passed the scenario's own checks) against the models.
pub(crate) fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    for (i, n) in s.nodes.iter().enumerate() {
        if let Err(e) = mobility(n) {
            return Err(src.error(&at("nodes", i, "moves"), e));
        }
    }
    for (i, link) in s.links.iter().enumerate() {
        for (reverse, path) in [
            (false, &[key("trace")][..]),
            (true, &[key("reverse"), key("trace")]),
        ] {
            let own = if reverse {
                link.reverse.as_ref().and_then(|r| r.trace.as_ref())
            } else {
                link.trace.as_ref()
            };
            let Some(spec) = own else { continue };
            let dir = if reverse { "reverse" } else { "forward" };
            let stream = format!("link/{}/{dir}/trace", link.name);
            if let Err(e) = crate::tracelink::build(spec, s.sim.seed, &stream) {
                return Err(src.error(&link_path(i, path), e.to_string()));
            }
        }
        super::build::links::check_models(link, &LinkCheck::new(src, s, i))?;
    }
    for (i, w) in s.wifi.iter().enumerate() {
        if let Some(r) = w.rate {
            let (known, expected) = match w.standard {
                WifiStandard::Dot11g => (
                    OfdmRate::from_bps(r.0).is_some(),
                    "an 802.11g rate: 6Mbps, 9Mbps, 12Mbps, 18Mbps, 24Mbps, 36Mbps, 48Mbps or 54Mbps",
                ),
                _ => (
                    dsss_rate(r.0).is_some(),
                    "an 802.11b rate: 1Mbps, 2Mbps, 5.5Mbps or 11Mbps",
                ),
            };
            if !known {
                return Err(src.error(&at("wifi", i, "rate"), format!("expected {expected}")));
            }
        }
        let top = top_mcs(w).index();
        if let Some(RateControlSpec::Constant { mcs }) = &w.rate_control {
            if *mcs > top {
                return Err(src.error(
                    &at("wifi", i, "rate_control"),
                    format!(
                        "expected an MCS from 0 to {top} with {} stream(s)",
                        top / 8 + 1
                    ),
                ));
            }
        }
    }
    let nodes = Nodes::of(s);
    let ends = topology::interface_ends(s, &nodes);
    let mut routes = topology::initial_routes(s, &nodes, &ends);
    flows(s, src, &nodes, &ends, &mut routes)?;
    roams(s, src, &nodes, &ends, &routes)
}

/// Every flow has a route both ways, and its packets fit the path MTU.
fn flows(
    s: &Scenario,
    src: &Source,
    nodes: &Nodes,
    ends: &[(NodeId, NodeId)],
    routes: &mut Routes,
) -> Result<(), ScenarioError> {
    for (i, f) in s.flows.iter().enumerate() {
        let (a, b) = (nodes.id(&f.from), nodes.id(&f.to));
        let mut path_mtu = u64::MAX;
        // The interface with the smallest MTU on the path, either way.
        let mut narrowest = None;
        for (from, to, field) in [(a, b, "to"), (b, a, "from")] {
            match routes.path(from, to, ends) {
                Ok(path) => {
                    for i in path {
                        let mtu = u64::from(topology::interface_mtu(s, i));
                        if mtu < path_mtu {
                            (path_mtu, narrowest) = (mtu, Some(i));
                        }
                    }
                }
                Err(RouteError::NoRoute { at: n }) => {
                    let name = |n: NodeId| &s.nodes[n.0 as usize].name;
                    return Err(src.error(
                        &at("flows", i, field),
                        format!(
                            "no route from {:?} to {:?} (stuck at {:?})",
                            name(from),
                            name(to),
                            name(n)
                        ),
                    ));
                }
                Err(RouteError::Loop) => {
                    return Err(src.error(
                        &at("flows", i, field),
                        "the explicit routes send this flow's packets in a loop",
                    ))
                }
            }
        }
        if let Some(spec) = f.transport.tcp() {
            // 20 B IPv4 + 20 B TCP without options (RFC 9293 §3.7.1).
            if spec
                .mss
                .is_some_and(|mss| mss.0 == 0 || mss.0 + 40 > path_mtu)
            {
                let mut p = at("flows", i, "transport");
                p.push(key("mss"));
                return Err(src.error(
                    &p,
                    format!(
                        "expected 1 to {} bytes: MSS + 40 B of headers must fit the path MTU of {path_mtu} B",
                        path_mtu.saturating_sub(40)
                    ),
                ));
            }
            continue;
        }
        if let Some(spec) = f.transport.quic() {
            // A link's MTU too small for QUIC is the link's fault, not the flow's.
            let link = narrowest
                .map(|n| n.0 as usize / 2)
                .filter(|&l| l < s.links.len());
            check_quic(spec, src, (i, &f.name), path_mtu, link)?;
            continue;
        }
        // A datagram transport: each message (each TFRC segment) is one IPv4 datagram.
        let tfrc = f.transport.tfrc();
        let size = match (&f.app, tfrc) {
            (
                AppSpec::Periodic { size, .. }
                | AppSpec::Cbr { size, .. }
                | AppSpec::Ping { size, .. },
                _,
            ) => size.0,
            (AppSpec::Bulk { .. }, Some(spec)) => spec.segment.map_or(1, |b| b.0),
            (AppSpec::Bulk { .. } | AppSpec::File { .. }, _) => 1,
        };
        let (headers, names) = match tfrc {
            Some(spec) => (
                IPV4_HEADER + tfrc_wire(spec.wire).data_header(),
                "IPv4 and TFRC",
            ),
            None => (IPV4_HEADER + UDP_HEADER, "IPv4/UDP"),
        };
        let headers = u64::from(headers);
        if size == 0 || size + headers > path_mtu {
            let segment = tfrc.is_some() && matches!(f.app, AppSpec::Bulk { .. });
            let mut p = at("flows", i, if segment { "transport" } else { "app" });
            p.push(key(if segment { "segment" } else { "size" }));
            return Err(src.error(
                &p,
                format!(
                    "expected 1 to {} bytes: {size} B plus {headers} B of {names} headers must fit the path MTU of {path_mtu} B (IP fragmentation is not modelled)",
                    path_mtu.saturating_sub(headers)
                ),
            ));
        }
        let zero = tfrc.and_then(|spec| {
            [("send_buffer", spec.send_buffer), ("ndupack", spec.ndupack)]
                .into_iter()
                .find(|&(_, v)| v == 0)
        });
        if let Some((field, _)) = zero {
            let mut p = at("flows", i, "transport");
            p.push(key(field));
            return Err(src.error(&p, "expected at least 1 packet, got 0"));
        }
        if let Some(spec) = tfrc {
            check_tfrc_numbers(spec, src, i)?;
        }
    }
    Ok(())
}

/// TFRC's numbers: countermeasure C's weights (a gain in (0, 1], and 1 to 8 loss intervals:
/// RFC 5348 §5.4's history holds 8) and the no-feedback timeout's RTTs (0 to 64).
fn check_tfrc_numbers(spec: &TfrcSpec, src: &Source, i: usize) -> Result<(), ScenarioError> {
    let field = |name: &str| {
        let mut p = at("flows", i, "transport");
        p.push(key(name));
        p
    };
    let g = spec.recent_rtt_gain;
    if !(g > 0.0 && g <= 1.0) {
        let msg = format!("expected a weight above 0 and at most 1, got {g}");
        return Err(src.error(&field("recent_rtt_gain"), msg));
    }
    let k = spec.nofeedback_rtts;
    if !(k > 0.0 && k <= 64.0) {
        let msg = format!("expected a positive number of RTTs, at most 64, got {k}");
        return Err(src.error(&field("nofeedback_rtts"), msg));
    }
    let n = spec.recent_intervals;
    if !(1..=tern_proto::dccp::tfrc::loss::N as u32).contains(&n) {
        let msg = format!("expected 1 to 8 loss intervals, got {n}");
        return Err(src.error(&field("recent_intervals"), msg));
    }
    // RFC 5348 §4.4 halves X when p = 0; RFC 3448's published rule is that profile's.
    if spec.nofeedback_rule == Some(TfrcNofeedbackRuleSpec::Rfc3448Original)
        && spec.profile == TfrcProfileSpec::Rfc5348
    {
        let msg = "expected \"erratum-1458\" with profile \"rfc5348\" (RFC 5348 §4.4 halves X when p = 0); \"rfc3448-original\" needs profile = \"rfc3448\"";
        return Err(src.error(&field("nofeedback_rule"), msg));
    }
    Ok(())
}

/// A QUIC flow's datagram sizes against the path MTU: QUIC needs 1200-byte UDP payloads
/// (RFC 9000 §14), and no datagram may be larger than the path carries (IP fragmentation is
/// not modelled).
/// Flow `i`, named `name`; `link`: the link with the smallest MTU on its path, if a link
/// has it.
fn check_quic(
    spec: &QuicSpec,
    src: &Source,
    (i, name): (usize, &str),
    path_mtu: u64,
    link: Option<usize>,
) -> Result<(), ScenarioError> {
    let headers = u64::from(IPV4_HEADER + UDP_HEADER);
    let most = path_mtu.saturating_sub(headers);
    let field = |name: &str| {
        let mut p = at("flows", i, "transport");
        p.push(key(name));
        p
    };
    if most < 1200 {
        let (place, what) = match link {
            Some(l) => (
                at("links", l, "mtu"),
                format!("this link's MTU of {path_mtu} B"),
            ),
            None => (field("kind"), format!("its path MTU of {path_mtu} B")),
        };
        return Err(src.error(
            &place,
            format!(
                "QUIC flow {:?} needs a path MTU of at least {} B (RFC 9000 §14: UDP payloads \
                 of 1200 B at least, plus {headers} B of IPv4/UDP headers), not {what}",
                name,
                1200 + headers
            ),
        ));
    }
    let max = spec.max_udp_payload.map_or(most, |b| b.0);
    if !(1200..=most).contains(&max) {
        return Err(src.error(
            &field("max_udp_payload"),
            format!(
                "expected QUIC datagrams of 1200 to {most} bytes (RFC 9000 §14: 1200 B at least; \
                 plus {headers} B of IPv4/UDP headers they must fit the path MTU of {path_mtu} B), \
                 got {max} B"
            ),
        ));
    }
    if !(1200..=max).contains(&spec.initial_mtu.0) {
        return Err(src.error(
            &field("initial_mtu"),
            format!(
                "expected 1200 to {max} bytes (RFC 9000 §14, and at most max_udp_payload), got {}",
                spec.initial_mtu
            ),
        ));
    }
    Ok(())
}

/// Every flow still has a route, both ways, with each roaming station in any of its BSSs.
fn roams(
    s: &Scenario,
    src: &Source,
    nodes: &Nodes,
    ends: &[(NodeId, NodeId)],
    routes: &Routes,
) -> Result<(), ScenarioError> {
    let associations = topology::associations(s);
    let links = 2 * s.links.len();
    for (i, r) in s.roaming.iter().enumerate() {
        for (a, &(b, k)) in associations.iter().enumerate() {
            if s.wifi[b].stations[k - 1] != r.station {
                continue;
            }
            let usable = (0..ends.len())
                .map(|x| {
                    let iface = IfaceId(x as u32);
                    if x < links {
                        return true;
                    }
                    let (b2, k2) = associations[(x - links) / 2];
                    if s.wifi[b2].stations[k2 - 1] == r.station {
                        (x - links) / 2 == a
                    } else {
                        routes.is_usable(iface)
                    }
                })
                .collect();
            let mut moved = routes.with_usable(usable);
            for f in &s.flows {
                let (from, to) = (nodes.id(&f.from), nodes.id(&f.to));
                if moved.path(from, to, ends).is_err() || moved.path(to, from, ends).is_err() {
                    return Err(src.error(
                        &at("roaming", i, "station"),
                        format!(
                            "with {:?} in BSS {:?}, flow {:?} has no route between {:?} and {:?}",
                            r.station, s.wifi[b].name, f.name, f.from, f.to
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
