//! Trace-driven link directions: a capacity given as a sequence of delivery opportunities,
//! as mahimahi's `mm-link` (Netravali et al., "Mahimahi: Accurate Record-and-Replay for
//! HTTP", USENIX ATC 2015; the semantics below are those of its `LinkQueue`,
//! src/frontend/link_queue.cc).
//!
//! A trace is a list of instants in milliseconds, nondecreasing; each is one opportunity to
//! deliver [`DeliveryTrace::opportunity`] bytes (mahimahi: `PACKET_SIZE`, 1504) from the
//! head of the queue in front. The list repeats: after its last opportunity the next is the
//! first again, shifted by the trace's period (mahimahi: the last line's value,
//! `base_timestamp_ += schedule_.back()`). An opportunity's bytes go to the packets in the
//! queue in order, a packet that does not fit taking the rest of the next one(s) (the
//! `packet_in_transit_` of `rationalize`); bytes that no waiting packet needs are lost. A
//! packet leaves when the opportunity that carries its last byte comes. A packet that
//! arrives at the instant of an opportunity cannot use it (`read_packet` runs
//! `rationalize(now)` before it queues the packet).
//!
//! Sources: a mahimahi file ([`DeliveryTrace::parse_mahimahi`]), a rate over time
//! ([`shapes::parse_rate`]) and synthetic shapes ([`shapes`]), all ending here.

pub mod service;
pub mod shapes;

use crate::engine::{RngStream, SimTime};
use crate::scenario::TraceSpec;
use std::path::Path;

/// The largest trace file read (a day of a 1 Gbit/s link's opportunities is ~7·10⁹ lines;
/// mahimahi's own traces are under 2 MiB).
pub const MAX_TRACE_BYTES: u64 = 256 << 20;

/// A repeating list of delivery opportunities.
#[derive(Clone, Debug, PartialEq)]
pub struct DeliveryTrace {
    /// Instants of one period, in ms from its start, nondecreasing.
    pub times_ms: Vec<u64>,
    /// Length of one period in ms (above zero; at least the last instant).
    pub period_ms: u64,
    /// Bytes each opportunity delivers.
    pub opportunity: u32,
}

impl DeliveryTrace {
    /// Reads mahimahi's format: one opportunity per line, integer milliseconds,
    /// nondecreasing, the last above zero, no empty line (`LinkQueue::LinkQueue`'s checks).
    /// A line that is not a number is refused, where mahimahi's `myatoi` would throw too.
    /// Errors give the 1-based line.
    pub fn parse_mahimahi(text: &str, opportunity: u32) -> Result<Self, (Option<usize>, String)> {
        let mut times_ms = Vec::new();
        let text = text.strip_suffix('\n').unwrap_or(text);
        for (i, line) in text.split('\n').enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if line.is_empty() {
                return Err((Some(i + 1), "invalid empty line".into()));
            }
            let ms: u64 = line.trim().parse().map_err(|_| {
                (
                    Some(i + 1),
                    format!("expected a time in whole milliseconds, got {line:?}"),
                )
            })?;
            if times_ms.last().is_some_and(|&last| ms < last) {
                return Err((
                    Some(i + 1),
                    "timestamps must be monotonically nondecreasing".into(),
                ));
            }
            times_ms.push(ms);
        }
        match times_ms.last() {
            None => Err((None, "no valid timestamps found".into())),
            Some(0) => Err((None, "trace must last for a nonzero amount of time".into())),
            Some(&period_ms) => Ok(DeliveryTrace {
                times_ms,
                period_ms,
                opportunity,
            }),
        }
    }

    /// The mean rate of the trace in bit/s (its bytes per period), rounded down.
    pub fn mean_rate(&self) -> u64 {
        let bits = self.times_ms.len() as u128 * u128::from(self.opportunity) * 8 * 1000;
        (bits / u128::from(self.period_ms)) as u64
    }

    /// The instant of opportunity `n` counted from the start (over the repetitions).
    pub fn time_of(&self, n: u64) -> SimTime {
        let len = self.times_ms.len() as u64;
        let ms = (n / len) * self.period_ms + self.times_ms[(n % len) as usize];
        SimTime::from_millis(ms)
    }

    /// The first opportunity strictly after `t`.
    pub fn first_after(&self, t: SimTime) -> u64 {
        let len = self.times_ms.len() as u64;
        let period_ns = self.period_ms * 1_000_000;
        let cycle = t.0 / period_ns;
        let within = t.0 - cycle * period_ns;
        let i = self
            .times_ms
            .partition_point(|&ms| ms * 1_000_000 <= within) as u64;
        cycle * len + i
    }

    /// The trace as mahimahi's file format (one line per opportunity); `None` when its
    /// period is not its last instant, which that format cannot say.
    pub fn to_mahimahi(&self) -> Option<String> {
        if self.times_ms.last() != Some(&self.period_ms) {
            return None;
        }
        let mut s = String::with_capacity(self.times_ms.len() * 6);
        for t in &self.times_ms {
            s.push_str(&t.to_string());
            s.push('\n');
        }
        Some(s)
    }
}

/// Why a trace could not be made: the file, the 1-based line if any, and the message.
#[derive(Debug)]
pub struct TraceError {
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(line)) => write!(f, "{file}:{line}: {}", self.message),
            (Some(file), None) => write!(f, "{file}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

/// Reads a trace file (a regular file of at most [`MAX_TRACE_BYTES`], UTF-8).
fn read(path: &str) -> Result<String, TraceError> {
    let err = |message: String| TraceError {
        file: Some(path.to_owned()),
        line: None,
        message,
    };
    let meta = std::fs::metadata(Path::new(path)).map_err(|e| err(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(err("not a regular file".into()));
    }
    if meta.len() > MAX_TRACE_BYTES {
        return Err(err(format!("larger than {} MiB", MAX_TRACE_BYTES >> 20)));
    }
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    String::from_utf8(bytes).map_err(|_| err("not UTF-8 text".into()))
}

/// The delivery trace `spec` stands for; `seed` and `stream` (the link direction's name)
/// seed a random walk.
pub fn build(spec: &TraceSpec, seed: u64, stream: &str) -> Result<DeliveryTrace, TraceError> {
    let opportunity = u32::try_from(spec.opportunity()).unwrap_or(u32::MAX);
    let plain = |message: String| TraceError {
        file: None,
        line: None,
        message,
    };
    if opportunity == 0 {
        return Err(plain("an opportunity carries at least one byte".into()));
    }
    match spec {
        TraceSpec::Mahimahi { file, .. } => {
            let text = read(file)?;
            DeliveryTrace::parse_mahimahi(&text, opportunity).map_err(|(line, message)| {
                TraceError {
                    file: Some(file.clone()),
                    line,
                    message,
                }
            })
        }
        TraceSpec::Rate { file, .. } => {
            let text = read(file)?;
            let (steps, length) =
                shapes::parse_rate(&text).map_err(|(line, message)| TraceError {
                    file: Some(file.clone()),
                    line,
                    message,
                })?;
            shapes::opportunities(&steps, length, opportunity).map_err(plain)
        }
        TraceSpec::OnOff { rate, on, off, .. } => {
            let steps = [(SimTime::ZERO, rate.0), (on.0, 0)];
            shapes::opportunities(&steps, on.0 + off.0, opportunity).map_err(plain)
        }
        TraceSpec::Square {
            high, low, period, ..
        } => {
            let steps = [(SimTime::ZERO, high.0), (SimTime(period.0 .0 / 2), low.0)];
            shapes::opportunities(&steps, period.0, opportunity).map_err(plain)
        }
        TraceSpec::RandomWalk {
            start,
            step,
            every,
            min,
            max,
            length,
            ..
        } => {
            let mut rng = RngStream::new(seed, stream);
            let steps =
                shapes::random_walk(&mut rng, (start.0, step.0, min.0, max.0), every.0, length.0)
                    .map_err(plain)?;
            shapes::opportunities(&steps, length.0, opportunity).map_err(plain)
        }
    }
}

#[cfg(test)]
mod tests;
