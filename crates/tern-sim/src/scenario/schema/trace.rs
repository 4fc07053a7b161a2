//! `trace = {...}` on a link or its `reverse`: a direction whose capacity is a sequence of
//! delivery opportunities, as mahimahi's `mm-link` (Netravali et al., USENIX ATC 2015), read
//! from a file or generated from a synthetic shape (see `crate::tracelink`).

use super::super::units::{Bytes, DataRate, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a link direction's delivery opportunities come from. Each opportunity lets
/// `opportunity` bytes (default 1504 B, mahimahi's `PACKET_SIZE`) out of the queue; the
/// trace repeats. Files are read relative to the scenario file's folder.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TraceSpec {
    /// A mahimahi trace: one line per opportunity, its time in integer milliseconds from
    /// the start, nondecreasing; the trace repeats every `last line` milliseconds.
    Mahimahi {
        file: String,
        #[serde(
            default = "mahimahi_packet",
            skip_serializing_if = "is_mahimahi_packet"
        )]
        opportunity: Bytes,
    },
    /// A rate over time: lines `seconds,rate` (a rate like `12Mbps`, or a bare number in
    /// bit/s; `#` comments and blank lines skipped), each rate holding until the next line's
    /// time; the last line's time is the length after which the trace repeats (its rate is
    /// not used). Turned into opportunities at millisecond boundaries (see
    /// `crate::tracelink::shapes::opportunities`).
    Rate {
        file: String,
        #[serde(
            default = "mahimahi_packet",
            skip_serializing_if = "is_mahimahi_packet"
        )]
        opportunity: Bytes,
    },
    /// `on` at `rate`, then `off` with no opportunity, repeating.
    OnOff {
        rate: DataRate,
        on: Duration,
        off: Duration,
        #[serde(
            default = "mahimahi_packet",
            skip_serializing_if = "is_mahimahi_packet"
        )]
        opportunity: Bytes,
    },
    /// `high` for half of `period`, then `low` for the other half, repeating.
    Square {
        high: DataRate,
        low: DataRate,
        period: Duration,
        #[serde(
            default = "mahimahi_packet",
            skip_serializing_if = "is_mahimahi_packet"
        )]
        opportunity: Bytes,
    },
    /// A rate that starts at `start` and every `every` moves up or down by `step` with
    /// equal probability, kept within `[min, max]`, for `length`, then repeats. Drawn from
    /// the run's seed (a stream of its own per link direction).
    RandomWalk {
        start: DataRate,
        step: DataRate,
        every: Duration,
        min: DataRate,
        max: DataRate,
        length: Duration,
        #[serde(
            default = "mahimahi_packet",
            skip_serializing_if = "is_mahimahi_packet"
        )]
        opportunity: Bytes,
    },
}

fn mahimahi_packet() -> Bytes {
    Bytes(1504)
}

fn is_mahimahi_packet(b: &Bytes) -> bool {
    b.0 == 1504
}

impl TraceSpec {
    /// The bytes one opportunity lets through.
    pub fn opportunity(&self) -> u64 {
        match self {
            TraceSpec::Mahimahi { opportunity, .. }
            | TraceSpec::Rate { opportunity, .. }
            | TraceSpec::OnOff { opportunity, .. }
            | TraceSpec::Square { opportunity, .. }
            | TraceSpec::RandomWalk { opportunity, .. } => opportunity.0,
        }
    }

    /// The file the trace is read from, if any.
    pub fn file_mut(&mut self) -> Option<&mut String> {
        match self {
            TraceSpec::Mahimahi { file, .. } | TraceSpec::Rate { file, .. } => Some(file),
            _ => None,
        }
    }
}
