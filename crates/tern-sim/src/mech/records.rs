//! The mechanisms' trace records: the `ConnectionSwitcher`'s events and the RSSI-threshold scheduler's path statuses.

use crate::engine::SimTime;

crate::record! {
    /// A `ConnectionSwitcher` event: a notice sent or received, a handover, a switch.
    SwitcherRecord<'a> => "switcher" {
        time: SimTime,
        flow: &'a str,
        /// What happened, e.g. "notice_sent" or "switch".
        event: &'a str,
        /// The notice's last-sent time; null for events without a notice.
        last_sent: Option<SimTime>,
        /// The decision a received notice led to; null for other events.
        decision: Option<&'a str>,
    }
}

crate::record! {
    /// A change of class of the RSSI-threshold scheduler (mpquic-rssi), with the status it
    /// gives each path ("available" or "backup"; "none" before the first sample).
    PathStatusRecord<'a> => "path_status" {
        time: SimTime,
        flow: &'a str,
        /// The Wi-Fi interface's RSSI sample (−inf: not associated).
        rssi_dbm: f64,
        /// The RSSI class before the change.
        old_class: &'a str,
        /// The RSSI class after it.
        new_class: &'a str,
        /// The Wi-Fi path's status before the change.
        wifi_old: &'a str,
        /// The Wi-Fi path's status after it.
        wifi_new: &'a str,
        /// The cellular path's status before the change.
        cell_old: &'a str,
        /// The cellular path's status after it.
        cell_new: &'a str,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// `ConnectionSwitcher` events: notices sent and received, switches.
                Switcher = "switcher",
                /// Multipath QUIC with the RSSI-threshold scheduler: every change of class, with the RSSI
                /// and each path's old and new status.
                PathStatus = "path_status",
            }
            tables {
                SwitcherRecord in mech::records => Switcher,
                PathStatusRecord in mech::records => PathStatus,
            }
        }
    };
}
pub(crate) use records;
