//! Stations moving between the APs of the BSSs they are listed in (IEEE 802.11-2020
//! §11.3.5.4, reassociation): who may roam where, when a scheduled roam starts, and when the
//! RSSI of the APs' beacons triggers one. The world carries a roam out: the station leaves
//! its AP ([`super::bss::Bss::disassociate`]), is without an association for the
//! disconnection period, then joins the new AP ([`super::bss::Bss::associate`]) and routes
//! follow it.

use crate::engine::SimTime;
use crate::net::packet::NodeId;
use crate::scenario::Scenario;

/// dot11BeaconPeriod's default, 100 TU (Annex C): how often an AP's beacons arrive, and so
/// how often a station measures the RSSI of the APs it hears.
pub const BEACON_INTERVAL: SimTime = SimTime::from_micros(100 * 1024);

/// The default hysteresis of an RSSI-triggered roam, dB: a candidate AP must be this much
/// stronger than the current one (the roaming delta of Linux wpa_supplicant's
/// `bgscan="simple"`-style roaming is of this order; set it per scenario).
pub const DEFAULT_HYSTERESIS_DB: f64 = 5.0;

/// One BSS a station is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Membership {
    pub bss: usize,
    /// The station's entity in that BSS (1 = its first station).
    pub entity: usize,
    /// The association's index among all of the scenario's (see `world::associations`).
    pub association: usize,
}

/// When a station roams on its own: its AP's beacons arrive weaker than `below_dbm` and
/// another AP's are at least `hysteresis_db` stronger.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trigger {
    pub below_dbm: f64,
    pub hysteresis_db: f64,
    pub disconnect: SimTime,
    /// Countermeasure D's play-out deadline ([`Roam::deadline`]).
    pub deadline: Option<SimTime>,
}

impl Trigger {
    /// The membership to roam to, given the current AP's RSSI and the other APs' (membership
    /// index, RSSI dBm): the strongest candidate, first listed on a tie, if the rule holds.
    pub fn decide(&self, current_dbm: f64, others: &[(usize, f64)]) -> Option<usize> {
        if current_dbm >= self.below_dbm {
            return None;
        }
        let best = others
            .iter()
            .copied()
            .reduce(|a, b| if b.1 > a.1 { b } else { a })?;
        (best.1 >= current_dbm + self.hysteresis_db).then_some(best.0)
    }
}

/// A station listed in more than one BSS.
#[derive(Clone, Debug)]
pub struct Roamer {
    pub node: NodeId,
    pub name: String,
    /// Its BSSs, in scenario order; it starts in the first.
    pub memberships: Vec<Membership>,
    /// The membership it is in (or, during a roam, the one it left).
    pub current: usize,
    /// During a roam: the membership it joins, and the roam's play-out deadline.
    pub joining: Option<usize>,
    pub deadline: Option<SimTime>,
    pub trigger: Option<Trigger>,
}

/// A roam to carry out: roamer, membership joined, disconnection period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roam {
    pub roamer: usize,
    pub to: usize,
    pub disconnect: SimTime,
    /// Countermeasure D of the tfrc-handover study: during the disconnection the station's
    /// MAC discards the frames that entered it longer ago than this.
    pub deadline: Option<SimTime>,
}

/// The roamers of a (validated) scenario and its scheduled roams with their start times.
pub fn build(s: &Scenario, associations: &[(usize, usize)]) -> (Vec<Roamer>, Vec<(SimTime, Roam)>) {
    let mut roamers: Vec<Roamer> = Vec::new();
    let mut scheduled = Vec::new();
    for r in &s.roaming {
        let memberships: Vec<Membership> = associations
            .iter()
            .enumerate()
            .filter(|(_, &(b, k))| s.wifi[b].stations[k - 1] == r.station)
            .map(|(association, &(bss, entity))| Membership {
                bss,
                entity,
                association,
            })
            .collect();
        let i = match roamers.iter().position(|x| x.name == r.station) {
            Some(i) => i,
            None => {
                let node = s
                    .nodes
                    .iter()
                    .position(|n| n.name == r.station)
                    .expect("validated");
                roamers.push(Roamer {
                    node: NodeId(node as u32),
                    name: r.station.clone(),
                    memberships,
                    current: 0,
                    joining: None,
                    deadline: None,
                    trigger: None,
                });
                roamers.len() - 1
            }
        };
        let disconnect = r.disconnect.0;
        let deadline = r.discard_older_than.map(|d| d.0);
        match (r.at, &r.to, r.rssi_below) {
            (Some(at), Some(to), _) => {
                let roamer = &roamers[i];
                let to = roamer
                    .memberships
                    .iter()
                    .position(|m| s.wifi[m.bss].name == *to)
                    .expect("validated");
                let roam = Roam {
                    roamer: i,
                    to,
                    disconnect,
                    deadline,
                };
                scheduled.push((at.0, roam));
            }
            (_, _, Some(below_dbm)) => {
                roamers[i].trigger = Some(Trigger {
                    below_dbm,
                    hysteresis_db: r.hysteresis.unwrap_or(DEFAULT_HYSTERESIS_DB),
                    disconnect,
                    deadline,
                });
            }
            _ => unreachable!("validated: scheduled or RSSI-triggered"),
        }
    }
    (roamers, scheduled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trigger() -> Trigger {
        Trigger {
            below_dbm: -75.0,
            hysteresis_db: 5.0,
            disconnect: SimTime::from_millis(50),
            deadline: None,
        }
    }

    #[test]
    fn stays_while_the_current_ap_is_strong_enough() {
        assert_eq!(trigger().decide(-74.9, &[(1, -20.0)]), None);
    }

    #[test]
    fn roams_to_the_strongest_candidate_beyond_the_hysteresis() {
        let t = trigger();
        assert_eq!(t.decide(-80.0, &[(1, -76.0), (2, -70.0)]), Some(2));
        // 4.9 dB better is not enough, 5 dB is.
        assert_eq!(t.decide(-80.0, &[(1, -75.1)]), None);
        assert_eq!(t.decide(-80.0, &[(1, -75.0)]), Some(1));
        // No other AP: nowhere to go.
        assert_eq!(t.decide(-95.0, &[]), None);
        // A tie goes to the first listed.
        assert_eq!(t.decide(-80.0, &[(1, -60.0), (2, -60.0)]), Some(1));
    }
}
