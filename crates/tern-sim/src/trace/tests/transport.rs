//! The expected schemas and a sample row of the transports' tables (UDP's ping, TCP, QUIC, TFRC).

use super::{opt, req, t, Traces};
use crate::trace::Kind;
use crate::trace::Type::{Text, F64, U64};
use crate::transport::quic::records::QuicRecord;
use crate::transport::tcp::records::{CwndRecord, RetransmitRecord, RtoRecord, SegmentRecord};
use crate::transport::tfrc::records::TfrcRecord;
use crate::transport::udp::records::RttRecord;

/// Names, columns and kinds, in order, as the front end, the plots and the studies read
/// them.
pub(super) const EXPECTED: &[(&str, &[(&str, Kind)])] = &[
    (
        "rtt",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("seq", req(U64)),
            ("rtt", req(F64)),
        ],
    ),
    (
        "cwnd",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("cwnd", req(U64)),
            ("ssthresh", opt(U64)),
            ("in_flight", req(U64)),
            ("pacing_rate", opt(U64)),
        ],
    ),
    (
        "rto",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("srtt", req(F64)),
            ("rttvar", req(F64)),
            ("rto", req(F64)),
        ],
    ),
    (
        "retransmits",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("kind", req(Text)),
            ("seq", opt(U64)),
            ("len", opt(U64)),
            ("backoff", opt(U64)),
            ("rto", opt(F64)),
        ],
    ),
    (
        "segments",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("seq", req(U64)),
            ("len", req(U64)),
            ("ack", opt(U64)),
            ("retransmission", req(U64)),
        ],
    ),
    (
        "quic",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("path", req(U64)),
            ("cwnd", req(U64)),
            ("bytes_in_flight", req(U64)),
            ("srtt", req(F64)),
            ("pto_count", req(U64)),
            ("sent_packets", req(U64)),
            ("lost_packets", req(U64)),
            ("congestion_events", req(U64)),
            ("mtu", req(U64)),
        ],
    ),
    (
        "tfrc",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("event", req(Text)),
            ("x_bps", req(F64)),
            ("x_recv_bps", req(F64)),
            ("p", req(F64)),
            ("rtt", opt(F64)),
        ],
    ),
];

/// Row `i` of each of these tables, with nulls and several labels along the way.
pub(super) fn record(traces: &mut Traces, i: u64) {
    let odd = i % 2 == 1;
    let flow = if odd { "bulk" } else { "ping" };
    let now = t(i);
    traces.record(&RttRecord {
        time: now,
        flow,
        seq: i,
        rtt: t(40),
    });
    traces.record(&CwndRecord {
        time: now,
        flow,
        endpoint: "client",
        cwnd: 14480 + i,
        ssthresh: odd.then_some(u64::MAX - 1),
        in_flight: i,
        pacing_rate: odd.then_some(1_250_000 + i),
    });
    traces.record(&RtoRecord {
        time: now,
        flow,
        endpoint: "server",
        srtt: t(40),
        rttvar: t(10),
        rto: t(200),
    });
    traces.record(&RetransmitRecord {
        time: now,
        flow,
        endpoint: "client",
        kind: if odd { "rto_expiry" } else { "fast" },
        seq: (!odd).then_some(u32::MAX),
        len: (!odd).then_some(1448),
        backoff: odd.then_some(3),
        rto: odd.then_some(t(400)),
    });
    traces.record(&SegmentRecord {
        time: now,
        flow,
        endpoint: if odd { "server" } else { "client" },
        seq: 1 + 1460 * i,
        len: if odd { 0 } else { 1460 },
        ack: odd.then_some(1 + 1460 * i),
        retransmission: i.is_multiple_of(3),
    });
    traces.record(&QuicRecord {
        time: now,
        flow,
        endpoint: "client",
        path: i,
        cwnd: 12_000 + i,
        bytes_in_flight: 6_000 + i,
        srtt: t(40),
        pto_count: i % 4,
        sent_packets: 10 * i,
        lost_packets: i / 2,
        congestion_events: i / 3,
        mtu: 1452,
    });
    traces.record(&TfrcRecord {
        time: now,
        flow,
        event: "feedback",
        x_bps: 1e6 + i as f64,
        x_recv_bps: 5e5,
        p: 0.01,
        rtt: odd.then(|| t(40)),
    });
}
