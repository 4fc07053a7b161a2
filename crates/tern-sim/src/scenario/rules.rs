//! Small helpers shared by the scenario's checks: key paths for error messages, duplicate
//! names, probabilities, queues.

use super::units::QueueLimit;
use super::{LossSpec, PathSeg, QueueSpec, Scenario, ScenarioError, Source};

pub(crate) fn key(k: &str) -> PathSeg {
    PathSeg::Key(k.to_owned())
}

pub(crate) fn at(list: &str, i: usize, field: &str) -> Vec<PathSeg> {
    vec![key(list), PathSeg::Index(i), key(field)]
}

/// Finds the first duplicate name in `names`, returning the index of its second use.
pub(crate) fn duplicate<'a>(names: impl Iterator<Item = &'a str>) -> Option<(usize, &'a str)> {
    let mut seen = std::collections::BTreeSet::new();
    names.enumerate().find(|&(_, n)| !seen.insert(n))
}

pub(crate) fn check_probability(
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

pub(crate) fn link_path(i: usize, segs: &[PathSeg]) -> Vec<PathSeg> {
    [vec![key("links"), PathSeg::Index(i)], segs.to_vec()].concat()
}

/// A queue's limit is above zero, and CoDel's interval too.
pub(crate) fn check_queue(
    src: &Source,
    path: Vec<PathSeg>,
    queue: &QueueSpec,
) -> Result<(), ScenarioError> {
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

/// A loss model (at `path`): probabilities in [0, 1], outages of some length, the nodes a
/// distance model names.
pub(crate) fn check_loss(
    s: &Scenario,
    src: &Source,
    path: Vec<PathSeg>,
    loss: &LossSpec,
) -> Result<(), ScenarioError> {
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
        LossSpec::MininetWifiDistance { station, ap, .. } => {
            for (field, name) in [("station", station), ("ap", ap)] {
                if !s.nodes.iter().any(|n| &n.name == name) {
                    let mut p = path.clone();
                    p.push(key(field));
                    return Err(src.error(&p, format!("no node named {name:?}")));
                }
            }
            Ok(())
        }
    }
}
