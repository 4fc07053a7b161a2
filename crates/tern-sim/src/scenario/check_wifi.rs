//! Checks of node positions and `[[wifi]]` tables: members exist, each field fits the
//! standard it belongs to, values are in range.

use super::rules::{at, check_probability, check_queue, duplicate, key};
use super::{
    PathSeg, RateControlSpec, RetryOutSpec, RoamingSpec, Scenario, ScenarioError, Source, WifiSpec,
    WifiStandard,
};

pub(super) fn check(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    for (i, n) in s.nodes.iter().enumerate() {
        if n.position.is_some_and(|p| p.iter().any(|c| !c.is_finite())) {
            return Err(src.error(&at("nodes", i, "position"), "expected finite metres"));
        }
    }
    for (i, w) in s.wifi.iter().enumerate() {
        check_bss(s, src, i, w)?;
    }
    for (i, r) in s.roaming.iter().enumerate() {
        check_roaming(s, src, i, r)?;
    }
    check_roam_sequence(s, src)
}

/// Each station's scheduled roams, in time order, each to a BSS other than the one the
/// station is in then (it starts in the first BSS that lists it): a reassociation to the AP
/// the station is associated with is no roam (IEEE 802.11-2020 §11.3.5.4: a station
/// reassociates to move to another AP).
fn check_roam_sequence(s: &Scenario, src: &Source) -> Result<(), ScenarioError> {
    let mut scheduled: Vec<(&str, tern_proto::time::SimTime, usize, &str)> = s
        .roaming
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((r.station.as_str(), r.at?.0, i, r.to.as_deref()?)))
        .collect();
    scheduled.sort();
    let mut current: Option<(&str, &str)> = None;
    for (station, _, i, to) in scheduled {
        let here = match current {
            Some((st, bss)) if st == station => bss,
            _ => match s
                .wifi
                .iter()
                .find(|w| w.stations.iter().any(|n| n == station))
            {
                Some(w) => w.name.as_str(),
                None => continue,
            },
        };
        if here == to {
            return Err(src.error(
                &at("roaming", i, "to"),
                format!("{station:?} is in {to:?} already when this roam starts: name another BSS"),
            ));
        }
        current = Some((station, to));
    }
    Ok(())
}

/// A roam names a station of at least two BSSs, and is scheduled or RSSI-triggered.
fn check_roaming(
    s: &Scenario,
    src: &Source,
    i: usize,
    r: &RoamingSpec,
) -> Result<(), ScenarioError> {
    let path = |field: &str| at("roaming", i, field);
    let bsss: Vec<&str> = s
        .wifi
        .iter()
        .filter(|w| w.stations.contains(&r.station))
        .map(|w| w.name.as_str())
        .collect();
    if bsss.len() < 2 {
        return Err(src.error(
            &path("station"),
            format!(
                "expected a station listed in two or more [[wifi]] BSSs, {:?} is in {}",
                r.station,
                bsss.len()
            ),
        ));
    }
    match (r.at, &r.to, r.rssi_below, r.hysteresis) {
        (Some(_), Some(to), None, None) => {
            if !bsss.contains(&to.as_str()) {
                return Err(src.error(
                    &path("to"),
                    format!("expected one of the BSSs listing {:?}: {bsss:?}", r.station),
                ));
            }
        }
        (None, None, Some(dbm), h) => {
            if !dbm.is_finite() {
                return Err(src.error(&path("rssi_below"), "expected dBm"));
            }
            if h.is_some_and(|h| !(h.is_finite() && h >= 0.0)) {
                return Err(src.error(&path("hysteresis"), "expected dB ≥ 0"));
            }
        }
        (Some(_), None, ..) => {
            return Err(src.error(&path("to"), "expected the BSS joined at `at`"))
        }
        (None, Some(_), ..) => return Err(src.error(&path("at"), "expected when the roam starts")),
        (Some(_), Some(_), below, _) => {
            // The trigger's key that is there (`hysteresis` alone, without `rssi_below`).
            let given = if below.is_some() {
                "rssi_below"
            } else {
                "hysteresis"
            };
            return Err(src.error(
                &path(given),
                "expected either a schedule (at, to) or an RSSI trigger (rssi_below, hysteresis), not both",
            ));
        }
        (None, None, None, _) => {
            return Err(src.error(
                &path("at"),
                "expected a schedule (at, to) or an RSSI trigger (rssi_below)",
            ))
        }
    }
    Ok(())
}

/// The retry-out index: a weight in (0, 1], a table of increasing rates, or a fixed index.
fn check_retry_out(src: &Source, i: usize, r: &RetryOutSpec) -> Result<(), ScenarioError> {
    let sub = |inner: &str| {
        let mut p = at("wifi", i, "retry_out");
        p.push(key(inner));
        p
    };
    if !(r.weight > 0.0 && r.weight <= 1.0) {
        return Err(src.error(
            &sub("weight"),
            format!("expected a weight above 0 and at most 1, got {}", r.weight),
        ));
    }
    if r.fixed.is_some() && r.table != RetryOutSpec::default_table() {
        return Err(src.error(
            &sub("fixed"),
            "expected either `fixed` or `table`, not both",
        ));
    }
    if r.fixed.is_none() && r.table.is_empty() {
        return Err(src.error(
            &sub("table"),
            "expected at least one row { below = \"25Mbps\", index = 2 }",
        ));
    }
    for (k, pair) in r.table.windows(2).enumerate() {
        if pair[1].below.0 <= pair[0].below.0 {
            let mut p = sub("table");
            p.push(PathSeg::Index(k + 1));
            p.push(key("below"));
            return Err(src.error(
                &p,
                format!(
                    "expected rows in increasing `below`, got {} after {}",
                    pair[1].below, pair[0].below
                ),
            ));
        }
    }
    Ok(())
}

fn check_bss(s: &Scenario, src: &Source, i: usize, w: &WifiSpec) -> Result<(), ScenarioError> {
    let path = |field: &str| at("wifi", i, field);
    let sub = |field: &str, inner: &str| {
        let mut p = at("wifi", i, field);
        p.push(key(inner));
        p
    };
    let node = |name: &str| s.nodes.iter().any(|n| n.name == name);
    if !node(&w.ap) {
        return Err(src.error(&path("ap"), format!("no node named {:?}", w.ap)));
    }
    if w.stations.is_empty() {
        return Err(src.error(&path("stations"), "expected at least one station"));
    }
    for (k, st) in w.stations.iter().enumerate() {
        let mut p = path("stations");
        p.push(PathSeg::Index(k));
        if !node(st) {
            return Err(src.error(&p, format!("no node named {st:?}")));
        }
        if *st == w.ap {
            return Err(src.error(&p, "the AP cannot also be a station of its BSS"));
        }
    }
    if let Some((k, n)) = duplicate(w.stations.iter().map(String::as_str)) {
        let mut p = path("stations");
        p.push(PathSeg::Index(k));
        return Err(src.error(&p, format!("station {n:?} is listed twice")));
    }
    if let Some(q) = &w.qdisc {
        check_queue(src, path("qdisc"), q)?;
        if s.roaming.iter().any(|r| w.stations.contains(&r.station)) {
            return Err(src.error(
                &path("qdisc"),
                "a qdisc is not supported on a BSS with a roaming station (its packets would \
                 stay with the old association)",
            ));
        }
    }
    // Each standard's own settings: (field, set, the standards that have it).
    use WifiStandard::{Dot11b, Dot11g, Dot11n};
    let settings: [(&str, bool, &[WifiStandard]); 9] = [
        ("rate", w.rate.is_some(), &[Dot11b, Dot11g]),
        ("preamble", w.preamble.is_some(), &[Dot11b]),
        ("band", w.band.is_some(), &[Dot11n]),
        ("width", w.width.is_some(), &[Dot11n]),
        ("guard_interval", w.guard_interval.is_some(), &[Dot11n]),
        ("streams", w.streams.is_some(), &[Dot11n]),
        ("rate_control", w.rate_control.is_some(), &[Dot11g, Dot11n]),
        ("ampdu", w.ampdu.is_some(), &[Dot11n]),
        ("retry_out", w.retry_out.is_some(), &[Dot11n]),
    ];
    let name = |s: &WifiStandard| match s {
        Dot11b => "802.11b",
        Dot11g => "802.11g",
        Dot11n => "802.11n",
    };
    if let Some((field, _, owners)) = settings
        .iter()
        .find(|(_, set, owners)| *set && !owners.contains(&w.standard))
    {
        let owners: Vec<&str> = owners.iter().map(name).collect();
        return Err(src.error(
            &path(field),
            format!(
                "`{field}` is an {} setting; this BSS is {}",
                owners.join(" or "),
                name(&w.standard)
            ),
        ));
    }
    if w.standard == Dot11g {
        match &w.rate_control {
            Some(RateControlSpec::Constant { .. }) => {
                return Err(src.error(
                    &path("rate_control"),
                    "expected \"minstrel\" or \"ideal\" for 802.11g (an MCS is 802.11n's; \
                     802.11g's fixed rate is `rate`)",
                ))
            }
            Some(_) if w.rate.is_some() => {
                return Err(src.error(
                    &path("rate_control"),
                    "expected either `rate` (every frame at that rate) or `rate_control`, \
                     not both",
                ))
            }
            _ => {}
        }
    }
    if w.width.is_some_and(|x| x != 20 && x != 40) {
        return Err(src.error(&path("width"), "expected 20 or 40 (MHz)"));
    }
    if w.streams.is_some_and(|x| x != 1 && x != 2) {
        return Err(src.error(&path("streams"), "expected 1 or 2 spatial streams"));
    }
    if let Some(a) = &w.ampdu {
        if !(1..=64).contains(&a.max_mpdus) {
            return Err(src.error(&sub("ampdu", "max_mpdus"), "expected 1 to 64 MPDUs"));
        }
        if !(1..=65_535).contains(&a.max_bytes) {
            return Err(src.error(&sub("ampdu", "max_bytes"), "expected 1 to 65535 bytes"));
        }
        if a.max_duration.is_some_and(|d| d.0.as_nanos() == 0) {
            return Err(src.error(
                &sub("ampdu", "max_duration"),
                "expected a duration above zero",
            ));
        }
    }
    if w.queue == 0 {
        return Err(src.error(&path("queue"), "expected at least 1 packet"));
    }
    if w.retry_limit == Some(0) {
        return Err(src.error(&path("retry_limit"), "expected at least 1 attempt"));
    }
    check_probability(src, path("mpdu_error"), w.mpdu_error)?;
    if w.mpdu_error >= 1.0 {
        return Err(src.error(
            &path("mpdu_error"),
            "expected below 1 (nothing would arrive)",
        ));
    }
    if let Some(r) = &w.retry_out {
        check_retry_out(src, i, r)?;
    }
    let p = &w.propagation;
    for (field, v) in [
        ("exponent", p.exponent),
        ("reference_loss", p.reference_loss),
        ("tx_power", p.tx_power),
        ("noise_figure", p.noise_figure),
        ("shadowing", p.shadowing),
    ] {
        if v.is_some_and(|v| !v.is_finite()) {
            return Err(src.error(&sub("propagation", field), "expected a finite number"));
        }
    }
    if p.exponent.is_some_and(|e| e <= 0.0) {
        return Err(src.error(
            &sub("propagation", "exponent"),
            "expected an exponent above 0",
        ));
    }
    if p.shadowing.is_some_and(|s| s < 0.0) {
        return Err(src.error(
            &sub("propagation", "shadowing"),
            "expected a σ of 0 dB or more",
        ));
    }
    if p.shadowing_interval.is_some_and(|d| d.0.as_nanos() == 0) {
        return Err(src.error(
            &sub("propagation", "shadowing_interval"),
            "expected a duration above zero",
        ));
    }
    if let Some(f) = &p.fading {
        for (field, v) in [
            ("environment_speed", f.environment_speed),
            ("k_factor", f.k_factor),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                let mut at = sub("propagation", "fading");
                at.push(key(field));
                return Err(src.error(&at, "expected a finite number of 0 or more"));
            }
        }
        if let Some(m) = &f.model {
            if m != "flat" && crate::radio::tgn::TgnModel::parse(m).is_none() {
                let mut at = sub("propagation", "fading");
                at.push(key("model"));
                return Err(src.error(
                    &at,
                    format!(
                        "expected \"flat\" or a TGn model \"B\", \"C\", \"D\" or \"E\", got {m:?}"
                    ),
                ));
            }
        }
        for (field, n, what) in [
            ("rx_antennas", f.rx_antennas, "receive"),
            ("tx_antennas", f.tx_antennas, "transmit"),
        ] {
            if !(1..=4).contains(&n) {
                let mut at = sub("propagation", "fading");
                at.push(key(field));
                return Err(src.error(&at, format!("expected 1 to 4 {what} antennas, got {n}")));
            }
        }
    }
    Ok(())
}
