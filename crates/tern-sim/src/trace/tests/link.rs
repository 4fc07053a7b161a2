//! The expected schemas and a sample row of the link technologies' tables (LTE handovers, W-CDMA RLC).

use super::{req, t, Traces};
use crate::cellular::lte::records::HandoverRecord;
use crate::cellular::wcdma::records::{RlcRecord, RlcSduRecord};
use crate::trace::Kind;
use crate::trace::Type::{Text, F64, U64};

/// Names, columns and kinds, in order, as the front end, the plots and the studies read
/// them.
pub(super) const EXPECTED: &[(&str, &[(&str, Kind)])] = &[
    (
        "handovers",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("ue", req(Text)),
            ("cell", req(U64)),
            ("loss_start", req(F64)),
        ],
    ),
    (
        "rlc",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("buffer_bytes", req(U64)),
            ("pdus_sent", req(U64)),
            ("pdus_retransmitted", req(U64)),
        ],
    ),
    (
        "rlc_sdu",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("uid", req(U64)),
            ("delay", req(F64)),
        ],
    ),
];

/// Row `i` of each of these tables, with nulls and several labels along the way.
pub(super) fn record(traces: &mut Traces, i: u64) {
    let now = t(i);
    traces.record(&HandoverRecord {
        time: now,
        link: "lte",
        ue: "ue",
        cell: 1,
        loss_start: t(1),
    });
    traces.record(&RlcRecord {
        time: now,
        link: "radio",
        direction: "forward",
        buffer_bytes: i,
        pdus_sent: 2,
        pdus_retransmitted: 1,
    });
    traces.record(&RlcSduRecord {
        time: now,
        link: "radio",
        direction: "reverse",
        uid: i,
        delay: t(7),
    });
}
