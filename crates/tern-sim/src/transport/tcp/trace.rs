//! A TCP endpoint's trace events, drained into the recorded tables.

use super::Side;
use crate::engine::SimTime;
use super::records::{CwndRecord, RetransmitRecord, RtoRecord};
use crate::trace::Traces;
use tern_proto::tcp::{Connection, Event, RetransmitKind};

/// Drains an endpoint's trace events into the recorded tables.
pub(super) fn trace_events(conn: &mut Connection, now: SimTime, flow: &str, side: Side, traces: &mut Traces) {
    let endpoint = side.as_str();
    while let Some(ev) = conn.poll_event() {
        match ev {
            // Bytes in flight are counted only when the record is kept.
            Event::CwndChanged {
                cwnd,
                ssthresh,
                pacing_rate,
            } if traces.wants::<CwndRecord>() => {
                traces.record(&CwndRecord {
                    time: now,
                    flow,
                    endpoint,
                    cwnd,
                    // TCP starts with an "infinite" ssthresh: not set yet.
                    ssthresh: (ssthresh != u64::MAX).then_some(ssthresh),
                    in_flight: conn.bytes_in_flight(),
                    pacing_rate,
                })
            }
            Event::RttUpdated { srtt, rttvar, rto } => traces.record(&RtoRecord {
                time: now,
                flow,
                endpoint,
                srtt,
                rttvar,
                rto,
            }),
            Event::Retransmit { kind, seq, len } => {
                let kind = match kind {
                    RetransmitKind::Fast => "fast",
                    RetransmitKind::Rto => "rto",
                    RetransmitKind::SackRecovery => "sack",
                    RetransmitKind::Probe => "probe",
                    RetransmitKind::Speculative => "speculative",
                };
                traces.record(&RetransmitRecord {
                    time: now,
                    flow,
                    endpoint,
                    kind,
                    seq: Some(seq.0),
                    len: Some(u64::from(len)),
                    backoff: None,
                    rto: None,
                });
            }
            Event::SpuriousRto { cwnd, .. } => traces.record(&RetransmitRecord {
                time: now,
                flow,
                endpoint,
                kind: "spurious_rto",
                seq: None,
                len: Some(cwnd),
                backoff: None,
                rto: None,
            }),
            Event::RtoExpired { backoff, rto } => traces.record(&RetransmitRecord {
                time: now,
                flow,
                endpoint,
                kind: "rto_expiry",
                seq: None,
                len: None,
                backoff: Some(backoff),
                rto: Some(rto),
            }),
            _ => {}
        }
    }
}
