//! Checks of a scenario that the schema alone cannot express: names that must
//! exist or be unique, probabilities in [0, 1], reachable destinations, sizes
//! that fit the path MTU. Everything is caught here, before a run starts.

use super::{
    AppSpec, CellSpec, InitialWindowSpec, LinkSpec, LossSpec, PathSeg, QueueSpec, RecordKind,
    RlcSpec, Scenario, ScenarioError, Source, TcpSpec, TransportSpec,
};
use crate::net::packet::{IPV4_HEADER, UDP_HEADER};
use crate::net::route::RouteError;
use crate::scenario::units::QueueLimit;
use crate::world::topology;

pub(super) fn key(k: &str) -> PathSeg {
    PathSeg::Key(k.to_owned())
}

pub(super) fn at(list: &str, i: usize, field: &str) -> Vec<PathSeg> {
    vec![key(list), PathSeg::Index(i), key(field)]
}

/// Finds the first duplicate name in `names`, returning the index of its second use.
pub(super) fn duplicate<'a>(names: impl Iterator<Item = &'a str>) -> Option<(usize, &'a str)> {
    let mut seen: Vec<&str> = Vec::new();
    for (i, n) in names.enumerate() {
        if seen.contains(&n) {
            return Some((i, n));
        }
        seen.push(n);
    }
    None
}

pub(super) fn check_probability(
    src: &Source,
    path: Vec<PathSeg>,
    p: f64,
) -> Result<(), ScenarioError> {
    if (0.0..=1.0).contains(&p) {
        Ok(())
    } else {
        Err(src.error(
            &path,
            format!("expected a probability between 0 and 1, got {p}"),
        ))
    }
}

pub(super) fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    if s.sim.duration.0.as_nanos() == 0 {
        return Err(src.error(
            &[key("sim"), key("duration")],
            "expected a duration above zero",
        ));
    }
    if s.record.contains(&RecordKind::Pcap) && s.sim.duration.0.as_secs_f64() >= 4_294_967_296.0 {
        return Err(src.error(
            &[key("record")],
            "pcap timestamps end at 2^32 s: shorten sim.duration or drop \"pcap\"",
        ));
    }
    check_names(s, src)?;
    super::check_wifi::check(s, src)?;
    let node = |name: &str| s.nodes.iter().position(|n| n.name == name);
    for (i, link) in s.links.iter().enumerate() {
        for end in &link.ends {
            if node(end).is_none() {
                return Err(src.error(&at("links", i, "ends"), format!("no node named {end:?}")));
            }
        }
        if link.ends[0] == link.ends[1] {
            return Err(src.error(&at("links", i, "ends"), "a link joins two different nodes"));
        }
        if link.rate.0 == 0 {
            return Err(src.error(&at("links", i, "rate"), "expected a rate above zero"));
        }
        if link.mtu.0 < 68 || link.mtu.0 > 65535 {
            // RFC 791: every IPv4 module must forward 68-octet datagrams, and
            // the total-length field has 16 bits.
            return Err(src.error(&at("links", i, "mtu"), "expected 68B to 65535B (RFC 791)"));
        }
        check_queue(src, at("links", i, "queue"), &link.queue)?;
        if let Some(r) = &link.reverse {
            let path = |field: &str| link_path(i, &[key("reverse"), key(field)]);
            if r.rate.is_some_and(|r| r.0 == 0) {
                return Err(src.error(&path("rate"), "expected a rate above zero"));
            }
            if let Some(q) = &r.queue {
                check_queue(src, path("queue"), q)?;
            }
        }
        if let Some(cell) = &link.cell {
            check_cell(src, i, cell)?;
        }
        if let Some(loss) = &link.loss {
            check_loss(src, at("links", i, "loss"), loss)?;
        }
        if let Some(rlc) = &link.rlc {
            check_rlc(src, i, link, rlc)?;
        }
        for (j, change) in link.schedule.iter().enumerate() {
            let mut p = at("links", i, "schedule");
            p.push(PathSeg::Index(j));
            if change.rate.is_none() && change.delay.is_none() {
                return Err(src.error(&p, "a scheduled change sets rate, delay or both"));
            }
            if change.rate.is_some_and(|r| r.0 == 0) {
                p.push(key("rate"));
                return Err(src.error(&p, "expected a rate above zero"));
            }
        }
    }
    for (i, r) in s.routes.iter().enumerate() {
        for (field, name) in [("node", &r.node), ("to", &r.to)] {
            if node(name).is_none() {
                return Err(src.error(&at("routes", i, field), format!("no node named {name:?}")));
            }
        }
        match s.links.iter().find(|l| l.name == r.via) {
            None => {
                return Err(src.error(
                    &at("routes", i, "via"),
                    format!("no link named {:?}", r.via),
                ))
            }
            Some(l) if !l.ends.contains(&r.node) => {
                return Err(src.error(
                    &at("routes", i, "via"),
                    format!("link {:?} does not touch node {:?}", r.via, r.node),
                ))
            }
            Some(_) => {}
        }
    }
    check_flows(s, src)
}

fn check_loss(src: &Source, path: Vec<PathSeg>, loss: &LossSpec) -> Result<(), ScenarioError> {
    match loss {
        LossSpec::Bernoulli { p, .. } => check_probability(src, path, *p),
        LossSpec::GilbertElliott {
            good_to_bad,
            bad_to_good,
            loss_good,
            loss_bad,
            ..
        } => {
            for p in [good_to_bad, bad_to_good, loss_good, loss_bad] {
                check_probability(src, path.clone(), *p)?;
            }
            Ok(())
        }
        LossSpec::Outage { windows, .. } => {
            if let Some(w) = windows.iter().position(|w| w.length.0.as_nanos() == 0) {
                let mut p = path;
                p.extend([key("windows"), PathSeg::Index(w), key("for")]);
                return Err(src.error(&p, "expected an outage length above zero"));
            }
            Ok(())
        }
    }
}

/// The path of a key inside `links[i]`.
fn link_path(i: usize, segs: &[PathSeg]) -> Vec<PathSeg> {
    [vec![key("links"), PathSeg::Index(i)], segs.to_vec()].concat()
}

fn check_rlc(src: &Source, i: usize, link: &LinkSpec, rlc: &RlcSpec) -> Result<(), ScenarioError> {
    let sub = |k: &str| link_path(i, &[key("rlc"), key(k)]);
    if link.cell.is_some() {
        return Err(src.error(
            &link_path(i, &[key("rlc")]),
            "a link is either an LTE cell (cell) or a W-CDMA bearer (rlc), not both",
        ));
    }
    if link.loss.is_some() {
        return Err(src.error(
            &link_path(i, &[key("loss")]),
            "an RLC bearer loses PDUs, not packets: put the loss model in rlc.pdu_loss",
        ));
    }
    if rlc.tti.0.as_nanos() == 0 {
        return Err(src.error(&sub("tti"), "expected a TTI above zero"));
    }
    if let Some(loss) = rlc.pdu_loss.as_ref() {
        if matches!(loss, LossSpec::Outage { .. }) {
            return Err(src.error(
                &sub("pdu_loss"),
                "expected a PDU error model: bernoulli or gilbert-elliott",
            ));
        }
        check_loss(src, sub("pdu_loss"), loss)?;
    }
    // The scenario's `window` sets both RLC windows; name it as the file does.
    if !(1..=2046).contains(&rlc.window) {
        return Err(src.error(&sub("window"), "expected 1 to 2046 PDUs (TS 25.322 §9.6)"));
    }
    let cfg = crate::cellular::wcdma::config(rlc);
    if let Err(e) = cfg.validate() {
        // The RLC's own check names the field (as `rlc.<field>`).
        return Err(src.error(&link_path(i, &[]), e.to_string()));
    }
    Ok(())
}

fn check_queue(src: &Source, path: Vec<PathSeg>, queue: &QueueSpec) -> Result<(), ScenarioError> {
    let limit = match queue {
        QueueSpec::Droptail { limit } | QueueSpec::Codel { limit, .. } => *limit,
    };
    if matches!(limit, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
        return Err(src.error(&path, "expected a queue limit above zero"));
    }
    if let QueueSpec::Codel { interval, .. } = queue {
        if interval.0.as_nanos() == 0 {
            return Err(src.error(&path, "CoDel interval must be above zero"));
        }
    }
    Ok(())
}

fn check_cell(src: &Source, i: usize, cell: &CellSpec) -> Result<(), ScenarioError> {
    let sub = |segs: &[PathSeg]| link_path(i, &[&[key("cell")], segs].concat());
    if let Some(t) = &cell.train {
        if t.every.0.as_nanos() == 0 {
            return Err(src.error(
                &sub(&[key("train"), key("every")]),
                "expected a handover interval above zero",
            ));
        }
    }
    for (j, h) in cell.handovers.iter().enumerate() {
        if h.burst_loss.0 > h.at.0 {
            return Err(src.error(
                &sub(&[key("handovers"), PathSeg::Index(j), key("burst_loss")]),
                format!(
                    "the burst-loss period would start before 0 s (handover at {})",
                    h.at.0
                ),
            ));
        }
        for (name, bearer) in [("uplink", &h.uplink), ("downlink", &h.downlink)] {
            if bearer
                .as_ref()
                .is_some_and(|b| b.rate.is_some_and(|r| r.0 == 0))
            {
                return Err(src.error(
                    &sub(&[key("handovers"), PathSeg::Index(j), key(name), key("rate")]),
                    "expected a rate above zero",
                ));
            }
        }
    }
    Ok(())
}

fn check_names(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let lists: [(&str, Vec<&str>); 5] = [
        ("nodes", s.nodes.iter().map(|n| n.name.as_str()).collect()),
        ("links", s.links.iter().map(|l| l.name.as_str()).collect()),
        ("wifi", s.wifi.iter().map(|w| w.name.as_str()).collect()),
        ("flows", s.flows.iter().map(|f| f.name.as_str()).collect()),
        (
            "roaming",
            s.roaming.iter().map(|r| r.name.as_str()).collect(),
        ),
    ];
    for (list, names) in &lists {
        if let Some(i) = names.iter().position(|n| n.is_empty() || n.contains('.')) {
            return Err(src.error(
                &at(list, i, "name"),
                "expected a non-empty name without dots (dots separate --set keys)",
            ));
        }
        if let Some((i, n)) = duplicate(names.iter().copied()) {
            return Err(src.error(
                &at(list, i, "name"),
                format!("the name {n:?} is used twice in {list}"),
            ));
        }
    }
    Ok(())
}

fn check_flows(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let (ends, routes) = topology(s);
    let node = |name: &str| s.nodes.iter().position(|n| n.name == name);
    for (i, f) in s.flows.iter().enumerate() {
        let (Some(a), Some(b)) = (node(&f.from), node(&f.to)) else {
            let (field, name) = if node(&f.from).is_none() {
                ("from", &f.from)
            } else {
                ("to", &f.to)
            };
            return Err(src.error(&at("flows", i, field), format!("no node named {name:?}")));
        };
        if a == b {
            return Err(src.error(
                &at("flows", i, "to"),
                "a flow goes between two different nodes",
            ));
        }
        if f.switcher.is_some() {
            let periodic_tcp = matches!(f.app, AppSpec::Periodic { .. })
                && matches!(f.transport, TransportSpec::Tcp(_));
            if !periodic_tcp {
                return Err(src.error(
                    &at("flows", i, "switcher"),
                    "a connection switcher carries a periodic app over TCP",
                ));
            }
            let ue = s
                .links
                .iter()
                .any(|l| l.cell.is_some() && l.ends[0] == f.from);
            let roams = s.roaming.iter().any(|r| r.station == f.from);
            if !(ue || roams) {
                return Err(src.error(
                    &at("flows", i, "switcher"),
                    format!(
                        "a connection switcher needs handover events: {:?} is neither the UE \
                         (ends[0]) of a link with a cell nor a roaming 802.11 station",
                        f.from
                    ),
                ));
            }
        }
        let app_path = |field: &str| {
            let mut p = at("flows", i, "app");
            p.push(key(field));
            p
        };
        let tcp = match &f.transport {
            TransportSpec::Tcp(spec) => Some(spec),
            TransportSpec::Udp => None,
        };
        let (size, positive): (u64, Vec<(&str, u64)>) = match &f.app {
            AppSpec::Periodic { size, interval, .. } => {
                (size.0, vec![("interval", interval.0.as_nanos())])
            }
            AppSpec::Cbr { rate, size } => (size.0, vec![("rate", rate.0)]),
            AppSpec::Ping { size, interval } => (size.0, vec![("interval", interval.0.as_nanos())]),
            AppSpec::Bulk { bytes } => (1, vec![("bytes", bytes.map_or(1, |b| b.0))]),
            AppSpec::File { size, request } => (1, vec![("size", size.0), ("request", request.0)]),
        };
        match (&f.app, tcp) {
            (AppSpec::Bulk { .. }, None) => {
                return Err(src.error(
                    &at("flows", i, "transport"),
                    "a bulk transfer runs over TCP: add transport = { kind = \"tcp\" }",
                ))
            }
            (AppSpec::Ping { .. }, Some(_)) => {
                return Err(src.error(
                    &at("flows", i, "transport"),
                    "ping runs over UDP (echo request/reply): remove the transport",
                ))
            }
            _ => {}
        }
        for (field, v) in positive {
            if v == 0 {
                return Err(src.error(&app_path(field), "expected a value above zero"));
            }
        }
        let mut path_mtu = u64::MAX;
        for (from, to, field) in [(a, b, "to"), (b, a, "from")] {
            match routes.path(
                crate::net::packet::NodeId(from as u32),
                crate::net::packet::NodeId(to as u32),
                &ends,
            ) {
                Ok(chans) => {
                    for c in chans {
                        path_mtu = path_mtu.min(u64::from(crate::world::channel_mtu(s, c)));
                    }
                }
                Err(RouteError::NoRoute { at: n }) => {
                    return Err(src.error(
                        &at("flows", i, field),
                        format!(
                            "no route from {:?} to {:?} (stuck at {:?})",
                            s.nodes[from].name, s.nodes[to].name, s.nodes[n.0 as usize].name
                        ),
                    ))
                }
                Err(RouteError::Loop) => {
                    return Err(src.error(
                        &at("flows", i, field),
                        "the explicit routes send this flow's packets in a loop",
                    ))
                }
            }
        }
        match tcp {
            Some(spec) => check_tcp(spec, path_mtu, src, at("flows", i, "transport"))?,
            None => {
                let headers = u64::from(IPV4_HEADER + UDP_HEADER);
                if size == 0 || size + headers > path_mtu {
                    return Err(src.error(
                        &app_path("size"),
                        format!(
                            "expected 1 to {} bytes: {size} B plus {headers} B of IPv4/UDP headers must fit the path MTU of {path_mtu} B (IP fragmentation is not modelled)",
                            path_mtu.saturating_sub(headers)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn check_tcp(
    spec: &TcpSpec,
    path_mtu: u64,
    src: &Source,
    base: Vec<PathSeg>,
) -> Result<(), ScenarioError> {
    let field = |name: &str| {
        let mut p = base.clone();
        p.push(key(name));
        p
    };
    if let Some(mss) = spec.mss {
        // 20 B IPv4 + 20 B TCP without options (RFC 9293 §3.7.1).
        if mss.0 == 0 || mss.0 + 40 > path_mtu {
            return Err(src.error(
                &field("mss"),
                format!("expected 1 to {} bytes: MSS + 40 B of headers must fit the path MTU of {path_mtu} B", path_mtu.saturating_sub(40)),
            ));
        }
    }
    if spec.initial_window == InitialWindowSpec::Segments(0) {
        return Err(src.error(&field("initial_window"), "expected at least 1 segment"));
    }
    if spec.delayed_ack_segments == 0 {
        return Err(src.error(&field("delayed_ack_segments"), "expected at least 1"));
    }
    if spec.min_rto.0 > spec.max_rto.0 {
        return Err(src.error(
            &field("min_rto"),
            format!(
                "min_rto ({}) is above max_rto ({})",
                spec.min_rto, spec.max_rto
            ),
        ));
    }
    for (name, b) in [
        ("send_buffer", spec.send_buffer),
        ("recv_buffer", spec.recv_buffer),
        ("tsq", spec.tsq),
    ] {
        if b.0 == 0 {
            return Err(src.error(&field(name), "expected a size above zero"));
        }
    }
    Ok(())
}
