//! The expected schemas and a sample row of the mechanisms' tables (`switcher`, `path_status`).

use super::{opt, req, t, Traces};
use crate::mech::records::{PathStatusRecord, SwitcherRecord};
use crate::trace::Kind;
use crate::trace::Type::{Text, F64};

/// Names, columns and kinds, in order, as the front end, the plots and the studies read
/// them.
pub(super) const EXPECTED: &[(&str, &[(&str, Kind)])] = &[
    (
        "switcher",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("event", req(Text)),
            ("last_sent", opt(F64)),
            ("decision", opt(Text)),
        ],
    ),
    (
        "path_status",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("rssi_dbm", req(F64)),
            ("old_class", req(Text)),
            ("new_class", req(Text)),
            ("wifi_old", req(Text)),
            ("wifi_new", req(Text)),
            ("cell_old", req(Text)),
            ("cell_new", req(Text)),
        ],
    ),
];

/// Row `i` of each of these tables, with nulls and several labels along the way.
pub(super) fn record(traces: &mut Traces, i: u64) {
    let odd = i % 2 == 1;
    let flow = if odd { "bulk" } else { "ping" };
    let now = t(i);
    traces.record(&SwitcherRecord {
        time: now,
        flow,
        event: "notice_received",
        last_sent: odd.then_some(t(3)),
        decision: odd.then_some("outsidewindow"),
    });
    traces.record(&PathStatusRecord {
        time: now,
        flow,
        rssi_dbm: -80.5,
        old_class: if odd { "strong" } else { "none" },
        new_class: "middle",
        wifi_old: "available",
        wifi_new: "available",
        cell_old: "backup",
        cell_new: "available",
    });
}
