//! The expected schemas and a sample row of the trace's own tables (`queue`, `delay`, `drops`).

use super::{req, t, Traces};
use crate::trace::Kind;
use crate::trace::Type::{Text, F64, U64};
use crate::trace::{DelayRecord, DropRecord, QueueRecord};

/// Names, columns and kinds, in order, as the front end, the plots and the studies read
/// them.
pub(super) const EXPECTED: &[(&str, &[(&str, Kind)])] = &[
    (
        "queue",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("packets", req(U64)),
            ("bytes", req(U64)),
        ],
    ),
    (
        "delay",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("seq", req(U64)),
            ("sent", req(F64)),
            ("delay", req(F64)),
            ("size", req(U64)),
            ("conn", req(U64)),
        ],
    ),
    (
        "drops",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("reason", req(Text)),
            ("flow", req(Text)),
            ("uid", req(U64)),
            ("size", req(U64)),
        ],
    ),
];

/// Row `i` of each of these tables, with nulls and several labels along the way.
pub(super) fn record(traces: &mut Traces, i: u64) {
    let odd = i % 2 == 1;
    let flow = if odd { "bulk" } else { "ping" };
    let now = t(i);
    traces.record(&QueueRecord {
        time: now,
        link: "access",
        direction: "forward",
        packets: i,
        bytes: 1500 * i,
    });
    traces.record(&DelayRecord {
        time: now,
        flow,
        seq: i,
        sent: t(i / 2),
        delay: now.saturating_sub(t(i / 2)),
        size: 1000,
        conn: 1,
    });
    traces.record(&DropRecord {
        time: now,
        link: "access",
        direction: "reverse",
        reason: "queue",
        flow,
        uid: i,
        size: 1500,
    });
}
