//! The RSSI-threshold path scheduler of the mpquic-rssi study (../shared/papers/003_…, §3): a
//! client with a preferred Wi-Fi path and a non-preferred (cellular) path classes the RSSI of
//! its Wi-Fi interface against two thresholds T1 ≥ T2 and sets the two paths' status:
//!
//! | class | RSSI | Wi-Fi path | cellular path |
//! |---|---|---|---|
//! | strong | > T1 | available | backup |
//! | middle | T2 < RSSI ≤ T1 | available | available |
//! | weak | ≤ T2, or no RSSI (not associated) | backup | available |
//!
//! Each change of class is signalled to the server (draft-ietf-quic-multipath-21's
//! PATH_STATUS_AVAILABLE / PATH_STATUS_BACKUP; the paper's PATH_AVAILABLE / PATH_STANDBY of
//! draft -14). The paper samples the RSSI without saying how often and uses no hysteresis; here
//! both are parameters: the RSSI is sampled every `period`, and a class is left *upwards* only
//! once the RSSI exceeds the threshold by `hysteresis` dB (downwards at the threshold itself,
//! as the paper's rule), so an RSSI wavering at a threshold does not flap the paths.
//!
//! Beyond the paper's table, the client may also *abandon* the Wi-Fi path once its RSSI falls
//! to `abandon_below` (or it has none). A backup path whose link has died keeps the packets
//! sent on it before the change in flight, and a sender declares them lost only when a later
//! packet on that same path is acknowledged or the path is closed (draft-ietf-quic-multipath-21
//! §5.7, PTO expiration), so on a dead link they, and the stream data behind them, wait. The
//! draft's answer to a path found broken is to close it explicitly with PATH_ABANDON so that
//! the peer stops using it and switches over to the backup path sooner (§3.3, last paragraphs;
//! §3.4). noq-proto, on either end, drops an abandoned path's state three PTOs (of that path)
//! after the PATH_ABANDON, declaring then whatever was still in flight on it lost, and its
//! frames are sent again on the paths left. Abandonment is final (a path id is never reused,
//! §3.4): a station back in range would need a new path, which this mechanism does not open.
//!
//! The mechanism is a plain state machine: [`RssiThresholdScheduler::sample`] takes an RSSI
//! and returns the change to make, if any, and [`RssiThresholdScheduler::breaks`] whether the
//! Wi-Fi path is to be abandoned now.

use crate::engine::SimTime;

/// The scheduler's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    /// Above it, Wi-Fi only (dBm).
    pub t1_dbm: f64,
    /// At or below it, cellular only (dBm); T2 ≤ T1.
    pub t2_dbm: f64,
    /// How often the RSSI is sampled.
    pub period: SimTime,
    /// dB above a threshold the RSSI must reach to move to the better class.
    pub hysteresis_db: f64,
    /// At or below it (dBm), or with no RSSI, the Wi-Fi path is broken and abandoned, whatever
    /// the class. `None`: never (the paper's rule).
    pub abandon_below_dbm: Option<f64>,
}

/// The class of an RSSI sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Weak,
    Middle,
    Strong,
}

impl Class {
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Weak => "weak",
            Class::Middle => "middle",
            Class::Strong => "strong",
        }
    }

    /// Whether (Wi-Fi, cellular) are available in this class (else backup).
    pub fn available(self) -> (bool, bool) {
        match self {
            Class::Strong => (true, false),
            Class::Middle => (true, true),
            Class::Weak => (false, true),
        }
    }
}

/// A change of class (the paths' status follows from each: [`Class::available`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    pub rssi_dbm: Option<f64>,
    /// `None` at the first sample.
    pub old: Option<Class>,
    pub new: Class,
}

/// The mechanism's state: the current class.
#[derive(Debug)]
pub struct RssiThresholdScheduler {
    config: Config,
    class: Option<Class>,
    /// Whether the Wi-Fi path has been abandoned.
    abandoned: bool,
}

impl RssiThresholdScheduler {
    pub fn new(config: Config) -> RssiThresholdScheduler {
        assert!(config.t2_dbm <= config.t1_dbm, "validated: T2 ≤ T1");
        RssiThresholdScheduler {
            config,
            class: None,
            abandoned: false,
        }
    }

    pub fn config(&self) -> Config {
        self.config
    }

    /// The current class (`None` before the first sample).
    pub fn class(&self) -> Option<Class> {
        self.class
    }

    /// The class of `rssi` by the thresholds alone (no RSSI: weak).
    fn raw(&self, rssi: Option<f64>, margin: f64) -> Class {
        match rssi {
            Some(r) if r > self.config.t1_dbm + margin => Class::Strong,
            Some(r) if r > self.config.t2_dbm + margin => Class::Middle,
            _ => Class::Weak,
        }
    }

    /// A sample of the Wi-Fi interface's RSSI (`None`: not associated): the change of class
    /// it makes, if any. The first sample always sets the class.
    pub fn sample(&mut self, rssi_dbm: Option<f64>) -> Option<Change> {
        let plain = self.raw(rssi_dbm, 0.0);
        let new = match self.class {
            None => plain,
            // Down at once; up only past the threshold plus the hysteresis.
            Some(c) if plain < c => plain,
            Some(c) => self.raw(rssi_dbm, self.config.hysteresis_db).max(c),
        };
        if self.class == Some(new) {
            return None;
        }
        let old = self.class.replace(new);
        Some(Change { rssi_dbm, old, new })
    }

    /// Whether a sample (`None`: not associated) breaks the Wi-Fi path: true once, at the
    /// first sample at or below `abandon_below` (or without an RSSI), when one is set.
    pub fn breaks(&mut self, rssi_dbm: Option<f64>) -> bool {
        let Some(limit) = self.config.abandon_below_dbm else {
            return false;
        };
        let broken = !self.abandoned && rssi_dbm.is_none_or(|r| r <= limit);
        self.abandoned |= broken;
        broken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's proposed thresholds (§4.1: T1 = −75 dBm, T2 = −90 dBm).
    fn proposed(hysteresis_db: f64) -> RssiThresholdScheduler {
        RssiThresholdScheduler::new(Config {
            t1_dbm: -75.0,
            t2_dbm: -90.0,
            period: SimTime::from_millis(100),
            hysteresis_db,
            abandon_below_dbm: None,
        })
    }

    #[test]
    fn classes_follow_the_papers_table() {
        let mut s = proposed(0.0);
        let change = s.sample(Some(-60.0)).unwrap();
        assert_eq!((change.old, change.new), (None, Class::Strong));
        assert_eq!(Class::Strong.available(), (true, false));
        // At T1 exactly: not above it, so both paths.
        assert_eq!(s.sample(Some(-75.0)).unwrap().new, Class::Middle);
        assert_eq!(Class::Middle.available(), (true, true));
        assert_eq!(s.sample(Some(-89.9)), None);
        // At T2 exactly: cellular only.
        let change = s.sample(Some(-90.0)).unwrap();
        assert_eq!((change.old, change.new), (Some(Class::Middle), Class::Weak));
        assert_eq!(Class::Weak.available(), (false, true));
        // Out of range (no RSSI) stays weak.
        assert_eq!(s.sample(None), None);
        // Back up without hysteresis: just above T2.
        assert_eq!(s.sample(Some(-89.9)).unwrap().new, Class::Middle);
    }

    #[test]
    fn equal_thresholds_give_two_classes() {
        // Normal migration (T1 = T2 = −90 dBm): Wi-Fi only, or cellular only.
        let mut s = RssiThresholdScheduler::new(Config {
            t1_dbm: -90.0,
            t2_dbm: -90.0,
            period: SimTime::from_millis(100),
            hysteresis_db: 0.0,
            abandon_below_dbm: None,
        });
        assert_eq!(s.sample(Some(-89.0)).unwrap().new, Class::Strong);
        assert_eq!(s.sample(Some(-90.0)).unwrap().new, Class::Weak);
    }

    #[test]
    fn hysteresis_holds_the_class_until_the_rssi_clears_the_threshold() {
        let mut s = proposed(3.0);
        assert_eq!(s.sample(Some(-91.0)).unwrap().new, Class::Weak);
        // Above T2 but within 3 dB of it: still weak.
        assert_eq!(s.sample(Some(-88.0)), None);
        assert_eq!(s.sample(Some(-86.9)).unwrap().new, Class::Middle);
        // Down again at T2 itself, whatever the hysteresis.
        assert_eq!(s.sample(Some(-90.0)).unwrap().new, Class::Weak);
        // From weak straight to strong once past T1 + 3 dB.
        assert_eq!(s.sample(Some(-71.0)).unwrap().new, Class::Strong);
    }

    #[test]
    fn the_wifi_path_breaks_once_at_the_abandon_threshold() {
        let mut s = RssiThresholdScheduler::new(Config {
            abandon_below_dbm: Some(-91.0),
            ..proposed(0.0).config()
        });
        // Weak but above the threshold: backup only.
        assert!(!s.breaks(Some(-90.5)));
        // At it: abandoned, once.
        assert!(s.breaks(Some(-91.0)));
        assert!(!s.breaks(Some(-95.0)));
        assert!(!s.breaks(None));
        // No RSSI (not associated) breaks it too; without a threshold nothing does.
        let mut t = RssiThresholdScheduler::new(Config {
            abandon_below_dbm: Some(-91.0),
            ..proposed(0.0).config()
        });
        assert!(t.breaks(None));
        assert!(!proposed(0.0).breaks(None));
    }
}
