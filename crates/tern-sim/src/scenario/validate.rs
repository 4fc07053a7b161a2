//! Checks of a scenario that the schema alone cannot express: names that must exist or be
//! unique, probabilities in [0, 1], values in range. What needs the models (routes, path
//! MTUs, the RLC's and the radios' own checks) is checked by `world::check`; both run
//! before a run starts.

use super::rules::{at, check_loss, check_queue, duplicate, key, link_path};
use super::{
    AppSpec, CaIncreaseSpec, CcSpec, InitialWindowSpec, LinkCheck, LinkSpec, LinkTech,
    LossFlightSpec, PathSeg, RecordKind, Scenario, ScenarioError, Source, TcpSpec,
};

/// Most paths of a multipath QUIC flow: one per interface of a host, and few hosts have more.
pub const MAX_QUIC_PATHS: usize = 8;

/// `via` (at `path`) must name a link or an 802.11 BSS that node `from` is on.
fn check_via(
    s: &Scenario,
    src: &Source,
    path: &[PathSeg],
    from: &str,
    via: &str,
) -> Result<(), ScenarioError> {
    let on_link = s
        .links
        .iter()
        .any(|l| l.name == via && l.ends.iter().any(|e| e == from));
    let on_bss = s
        .wifi
        .iter()
        .any(|w| w.name == via && w.stations.iter().any(|n| n == from));
    if on_link || on_bss {
        return Ok(());
    }
    Err(src.error(
        path,
        format!("expected a link or an 802.11 BSS that {from:?} is on (as a station), got {via:?}"),
    ))
}

/// An RSSI scheduler's `station` (at `path`): a station of an 802.11 BSS, and the far end
/// of the link `via` (path 0) from the client `from`.
fn check_radio(
    s: &Scenario,
    src: &Source,
    path: &[PathSeg],
    from: &str,
    station: &str,
    via: &str,
) -> Result<(), ScenarioError> {
    if !s
        .wifi
        .iter()
        .any(|w| w.stations.iter().any(|n| n == station))
    {
        return Err(src.error(
            path,
            format!("expected a station of an 802.11 BSS, got {station:?}"),
        ));
    }
    let joins = |l: &LinkSpec| {
        l.name == via && l.ends.iter().any(|e| e == from) && l.ends.iter().any(|e| e == station)
    };
    if !s.links.iter().any(joins) {
        return Err(src.error(
            path,
            format!(
                "expected path 0 via a link between {from:?} and the station {station:?}, got {via:?}"
            ),
        ));
    }
    Ok(())
}

/// Node indices by name.
fn node_index(s: &Scenario) -> std::collections::BTreeMap<&str, usize> {
    s.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), i))
        .collect()
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
    check_real(s, src)?;
    super::check_wifi::check(s, src)?;
    let index = node_index(s);
    let node = |name: &str| index.get(name).copied();
    for (i, link) in s.links.iter().enumerate() {
        for end in &link.ends {
            if node(end).is_none() {
                return Err(src.error(&at("links", i, "ends"), format!("no node named {end:?}")));
            }
        }
        if link.ends[0] == link.ends[1] {
            return Err(src.error(&at("links", i, "ends"), "a link joins two different nodes"));
        }
        let reverse_rated = link.reverse.as_ref().is_some_and(|r| r.rate.is_some());
        let needs_rate = link.trace.is_none() || (link.trace_of(true).is_none() && !reverse_rated);
        if link.rate.0 == 0 && needs_rate {
            return Err(src.error(
                &at("links", i, "rate"),
                "expected a rate above zero (or a `trace` for each direction)",
            ));
        }
        if link.mtu.0 < 68 || link.mtu.0 > 65535 {
            // RFC 791: every IPv4 module must forward 68-octet datagrams, and
            // the total-length field has 16 bits.
            return Err(src.error(&at("links", i, "mtu"), "expected 68B to 65535B (RFC 791)"));
        }
        if link.framing.0 > link.mtu.0 {
            return Err(src.error(
                &at("links", i, "framing"),
                "expected at most the link's mtu (a link-layer header, e.g. 2B for PPP)",
            ));
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
        if let Some(loss) = &link.loss {
            check_loss(s, src, at("links", i, "loss"), loss)?;
        }
        link.tech.check(link, &LinkCheck::new(src, s, i))?;
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
        let station_of =
            |w: &&crate::scenario::WifiSpec| w.name == r.via && w.stations.contains(&r.node);
        match s.links.iter().find(|l| l.name == r.via) {
            None if s.wifi.iter().any(|w| station_of(&w)) => {}
            None => {
                return Err(src.error(
                    &at("routes", i, "via"),
                    format!(
                        "no link named {:?}, nor an 802.11 BSS that {:?} is a station of",
                        r.via, r.node
                    ),
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

/// The longest name of a node, link, BSS, flow or roam.
const MAX_NAME: usize = 64;

/// Whether `name` is an identifier: ASCII letters, digits, `_` and `-`, starting with a
/// letter or digit. Names become `--set` keys, trace labels and file names (captures), so
/// no dot, slash or other path syntax may appear in them.
pub(crate) fn is_identifier(name: &str) -> bool {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.chars().all(ok)
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
        if let Some(i) = names.iter().position(|n| !is_identifier(n)) {
            return Err(src.error(
                &at(list, i, "name"),
                format!(
                    "expected a name of 1 to {MAX_NAME} letters, digits, '_' or '-', starting \
                     with a letter or digit (names become keys and file names), got {:?}",
                    names[i]
                ),
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
    let index = node_index(s);
    let node = |name: &str| index.get(name).copied();
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
        if let Some(via) = &f.via {
            check_via(s, src, &at("flows", i, "via"), &f.from, via)?;
        }
        if f.transport
            .quic()
            .is_some_and(|q| q.paths.is_empty() && q.rssi_scheduler.is_some())
        {
            return Err(src.error(
                &at("flows", i, "transport"),
                "the RSSI scheduler needs two paths: add paths = [{ via = <BSS> }, { via = <link> }]",
            ));
        }
        if let Some(q) = f.transport.quic().filter(|q| !q.paths.is_empty()) {
            let paths = |k: usize, field: &str| {
                let mut p = at("flows", i, "transport");
                p.extend([key("paths"), PathSeg::Index(k), key(field)]);
                p
            };
            if f.via.is_some() {
                return Err(src.error(
                    &at("flows", i, "via"),
                    "a multipath QUIC flow names its interfaces in transport.paths: remove via",
                ));
            }
            if !(2..=MAX_QUIC_PATHS).contains(&q.paths.len()) {
                return Err(src.error(
                    &at("flows", i, "transport"),
                    format!(
                        "expected 2 to {MAX_QUIC_PATHS} paths, got {}",
                        q.paths.len()
                    ),
                ));
            }
            if let Some(r) = &q.rssi_scheduler {
                let here = |field: &str| {
                    let mut p = at("flows", i, "transport");
                    p.extend([key("rssi_scheduler"), key(field)]);
                    p
                };
                if let Some(station) = &r.station {
                    check_radio(s, src, &here("station"), &f.from, station, &q.paths[0].via)?;
                }
                let on_bss = s.wifi.iter().any(|w| w.name == q.paths[0].via);
                if q.paths.len() != 2 || !(on_bss || r.station.is_some()) {
                    return Err(src.error(
                        &at("flows", i, "transport"),
                        "the RSSI scheduler needs two paths: the first via an 802.11 BSS (Wi-Fi), the second its alternative",
                    ));
                }
            }
            for (k, p) in q.paths.iter().enumerate() {
                check_via(s, src, &paths(k, "via"), &f.from, &p.via)?;
                if q.paths[..k].iter().any(|o| o.via == p.via) {
                    return Err(src.error(
                        &paths(k, "via"),
                        format!("path {k} uses {:?} as an earlier path does", p.via),
                    ));
                }
            }
        }
        if f.switcher.is_some() {
            let periodic_tcp =
                matches!(f.app, AppSpec::Periodic { .. }) && f.transport.tcp().is_some();
            if !periodic_tcp {
                return Err(src.error(
                    &at("flows", i, "switcher"),
                    "a connection switcher carries a periodic app over TCP",
                ));
            }
            let ue = s
                .links
                .iter()
                .any(|l| matches!(l.tech, LinkTech::Lte(_)) && l.ends[0] == f.from);
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
        let tcp = f.transport.tcp();
        let positive: Vec<(&str, u64)> = match &f.app {
            AppSpec::Periodic { interval, .. } | AppSpec::Ping { interval, .. } => {
                vec![("interval", interval.0.as_nanos())]
            }
            AppSpec::Cbr { rate, .. } => vec![("rate", rate.0)],
            AppSpec::Bulk { bytes } => vec![("bytes", bytes.map_or(1, |b| b.0))],
            AppSpec::File { size, request } => vec![("size", size.0), ("request", request.0)],
        };
        let rated = f.transport.tfrc().is_some();
        match (&f.app, f.transport.is_stream() || rated) {
            (AppSpec::Bulk { .. }, false) => {
                return Err(src.error(
                    &at("flows", i, "transport"),
                    "a bulk transfer runs over TCP, QUIC or TFRC: add transport = { kind = \"tcp\" }",
                ))
            }
            (AppSpec::File { .. }, true) if rated => {
                return Err(src.error(
                    &at("flows", i, "app"),
                    "a file download needs a reliable transport (TCP or QUIC); TFRC carries periodic, cbr and bulk applications",
                ))
            }
            (AppSpec::Ping { .. }, true) => {
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
        if let AppSpec::Cbr { rate, size } = &f.app {
            // Messages are scheduled to the nanosecond: one must take at least that long.
            if u128::from(size.0) * 8 * 1_000_000_000 < u128::from(rate.0) {
                return Err(src.error(
                    &app_path("rate"),
                    format!(
                        "expected at most {} bit/s for {size} messages (one message per nanosecond), got {rate}",
                        size.0 * 8 * 1_000_000_000
                    ),
                ));
            }
        }
        if let Some(spec) = tcp {
            check_tcp(spec, src, at("flows", i, "transport"))?;
        }
        super::check_transport::check(s, src, i, f)?;
    }
    Ok(())
}

fn check_tcp(spec: &TcpSpec, src: &Source, base: Vec<PathSeg>) -> Result<(), ScenarioError> {
    let field = |name: &str| {
        let mut p = base.clone();
        p.push(key(name));
        p
    };
    if spec.initial_window == InitialWindowSpec::Segments(0) {
        return Err(src.error(&field("initial_window"), "expected at least 1 segment"));
    }
    if spec.ca_increase != CaIncreaseSpec::Bytes && spec.cc != CcSpec::Newreno {
        return Err(src.error(
            &field("ca_increase"),
            "is NewReno's congestion-avoidance growth; expected cc = \"newreno\" with it",
        ));
    }
    if spec.loss_flight == LossFlightSpec::Pipe && !spec.sack {
        return Err(src.error(
            &field("loss_flight"),
            "\"pipe\" is RFC 6675's, which needs SACK; expected sack = true with it",
        ));
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
    if !(spec.cubic_beta > 0.0 && spec.cubic_beta < 1.0) {
        return Err(src.error(
            &field("cubic_beta"),
            format!(
                "got {}, expected a factor between 0 and 1 (RFC 9438: 0.7)",
                spec.cubic_beta
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
    if spec.tsq_truesize.0 > MAX_TSQ_TRUESIZE {
        return Err(src.error(
            &field("tsq_truesize"),
            format!(
                "got {} B, expected at most {MAX_TSQ_TRUESIZE} B (an skb's truesize: a packet of at most 64 KiB and its sk_buff)",
                spec.tsq_truesize.0
            ),
        ));
    }
    Ok(())
}

/// The largest `tsq_truesize` accepted: a 64 KiB packet's buffer and its `sk_buff`.
const MAX_TSQ_TRUESIZE: u64 = 128 * 1024;

/// Real nodes take the first this many indices: a real node's address is host number
/// index + 1 of 198.18.0.0/15 (RFC 2544 §C.2.2), of which 1 to 2^17 − 2 are hosts (all zeros
/// and all ones excluded, RFC 1122 §3.2.1.3). Emulation gives the addresses
/// (`emu::real_addr`; `world::check` asserts that its limit is this one).
pub const MAX_REAL_NODES: usize = (1 << 17) - 2;

/// Emulation's fields: commands only on real nodes, and real nodes within the addresses of
/// 198.18.0.0/15 (node index + 1).
fn check_real(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    for (i, n) in s.nodes.iter().enumerate() {
        if !n.commands.is_empty() && !n.real {
            return Err(src.error(
                &at("nodes", i, "commands"),
                "commands run only on a real node: add real = true",
            ));
        }
        if n.real && i + 1 > MAX_REAL_NODES {
            return Err(src.error(
                &at("nodes", i, "real"),
                format!(
                    "a real node must be among the first {} nodes (its address is in \
                     198.18.0.0/15)",
                    MAX_REAL_NODES
                ),
            ));
        }
    }
    Ok(())
}
