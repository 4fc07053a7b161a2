//! The qlog of a flow's two QUIC endpoints, written by the stack's own qlog feature
//! (draft-ietf-quic-qlog-main-schema-13 §5 JSON-SEQ, with the events of
//! draft-ietf-quic-qlog-quic-events-12) and read record by record as it is written, for two
//! uses:
//!
//! - **The PTO count and the bytes in flight.** The stack keeps each path's probe-timeout
//!   count (RFC 9002 §6.2.1, the exponent of the PTO back-off) and its bytes in flight
//!   (RFC 9002 §B.2 `bytes_in_flight`) private: its public `PathStats` have neither. It
//!   reports them only in its qlog, in `quic:recovery_metrics_updated` events (draft-ietf-
//!   quic-qlog-quic-events-12 §8.2, fields `pto_count` and `bytes_in_flight`, each present
//!   when it changed, with the event's `path_id`), emitted after every expiry of the
//!   loss-detection timer and every packet received or sent that changed a metric. [`Tap`],
//!   the writer, keeps the latest values of each path, which the `quic` trace shows.
//!   So the stack logs whenever that trace is recorded, even without `record = ["qlog"]`.
//! - **The files**, when the scenario records "qlog": each record goes on at once to its
//!   [`QlogFile`], in memory or streamed to the output folder (see [`super::qvis`] for what
//!   is changed on the way so that qvis reads them).
//!
//! The stack's own `QlogFileFactory` names its files after the machine's clock and writes
//! them wherever it is told; [`Qlog`] instead gives every event its time relative to
//! simulated time zero (the `start_time` of the stack's `QlogConfig`), so a log's `time`
//! fields are the simulated milliseconds of the run and two runs of one scenario and seed
//! give the same bytes.

use super::qvis;
use crate::trace::QlogFile;
use noq_proto::{ConnectionId, PathId, QlogConfig, QlogFactory, Side};
use serde::Deserialize;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a flow's endpoints log for.
pub enum QlogUse {
    /// Nothing: neither qlog nor the `quic` trace is recorded.
    Off,
    /// The `quic` trace's PTO count and bytes in flight only.
    PtoCount,
    /// These files (client's, server's), and the `quic` trace's PTO count and bytes in
    /// flight if it is recorded.
    Files([QlogFile; 2]),
}

/// The name of the stack's event that carries the PTO count and the bytes in flight.
const METRICS_UPDATED: &[u8] = b"quic:recovery_metrics_updated";

/// A path's recovery state as the stack's qlog last reported it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Probe timeouts since the last acknowledgment (RFC 9002 §6.2.1).
    pub pto_count: u32,
    /// Bytes of ack-eliciting packets sent and not yet acknowledged or declared lost
    /// (RFC 9002 §B.2 `bytes_in_flight`).
    pub bytes_in_flight: u64,
}

/// Each path's latest recovery state at one endpoint, and whether it changed since last read.
type PtoCounts = Arc<Mutex<Vec<(PathId, Recovery, bool)>>>;

/// The writer the stack is given for one endpoint's qlog: it sees each record whole.
struct Tap {
    /// The record being written (the stack writes each in many small pieces).
    record: Vec<u8>,
    /// Whether the header record (the first) has been seen.
    header_seen: bool,
    /// Where the records go, when qlog is recorded.
    file: Option<QlogFile>,
    pto: PtoCounts,
}

/// The part of a `recovery_metrics_updated` event read here.
#[derive(Deserialize)]
struct Metrics {
    data: MetricsData,
}

#[derive(Deserialize)]
struct MetricsData {
    pto_count: Option<u32>,
    bytes_in_flight: Option<u64>,
    path_id: Option<u32>,
}

impl Tap {
    /// A whole record (RS, JSON text, LF) came.
    fn record(&mut self) {
        let record = &self.record[..];
        if !std::mem::replace(&mut self.header_seen, true) {
            if let Some(f) = &self.file {
                f.write(&qvis::header(record));
            }
        } else {
            let name = qvis::event_name(record);
            if name == Some(METRICS_UPDATED) {
                metrics(record, &self.pto);
            }
            if let Some(f) = &self.file {
                qvis::write_event(record, name, |bytes| f.write(bytes));
            }
        }
        self.record.clear();
    }
}

/// Takes the PTO count and bytes in flight of a `recovery_metrics_updated` event (each there
/// only when it changed) into `pto`.
fn metrics(record: &[u8], pto: &PtoCounts) {
    let json = record.strip_prefix(&[qvis::RS]).unwrap_or(record);
    // The stack's own serialisation of its own event: it parses.
    let Ok(Metrics { data }) = serde_json::from_slice::<Metrics>(json) else {
        return;
    };
    if data.pto_count.is_none() && data.bytes_in_flight.is_none() {
        return;
    }
    let id = PathId::from(data.path_id.unwrap_or(0));
    let mut pto = pto.lock().expect("not poisoned");
    let at = match pto.iter().position(|(i, ..)| *i == id) {
        Some(at) => at,
        None => {
            pto.push((id, Recovery::default(), false));
            pto.len() - 1
        }
    };
    let (_, old, changed) = pto[at];
    let new = Recovery {
        pto_count: data.pto_count.unwrap_or(old.pto_count),
        bytes_in_flight: data.bytes_in_flight.unwrap_or(old.bytes_in_flight),
    };
    pto[at] = (id, new, changed || new != old);
}

impl io::Write for Tap {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // JSON escapes line feeds inside strings: a bare one ends a record (RFC 7464 §2.2).
        // Most writes are a token of the record (serde_json writes token by token).
        if buf.last() != Some(&b'\n') && !buf.contains(&b'\n') {
            self.record.extend_from_slice(buf);
            return Ok(buf.len());
        }
        for piece in buf.split_inclusive(|&b| b == b'\n') {
            self.record.extend_from_slice(piece);
            if piece.ends_with(b"\n") {
                self.record();
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The qlog factory of one flow: each side's file (if recorded) and PTO counts, events timed
/// from `zero`.
#[derive(Clone)]
pub struct Qlog {
    flow: String,
    /// The stack's instant of simulated time zero.
    zero: Instant,
    /// Client's and server's.
    files: Option<[QlogFile; 2]>,
    pto: [PtoCounts; 2],
}

impl Qlog {
    /// The qlog of flow `flow` for `used` (none when `Off`).
    pub fn new(flow: &str, zero: Instant, used: QlogUse) -> Option<Qlog> {
        let files = match used {
            QlogUse::Off => return None,
            QlogUse::PtoCount => None,
            QlogUse::Files(files) => Some(files),
        };
        Some(Qlog {
            flow: flow.to_owned(),
            zero,
            files,
            pto: Default::default(),
        })
    }

    /// Endpoint `side`'s (0: client, 1: server) latest recovery state on path `id`, and
    /// whether it changed since the last call.
    pub fn recovery(&self, side: usize, id: PathId) -> (Recovery, bool) {
        let mut pto = self.pto[side].lock().expect("not poisoned");
        match pto.iter_mut().find(|(i, ..)| *i == id) {
            Some((_, state, changed)) => (*state, std::mem::take(changed)),
            None => (Recovery::default(), false),
        }
    }
}

impl QlogFactory for Qlog {
    fn for_connection(
        &self,
        side: Side,
        _remote: SocketAddr,
        _initial_dst_cid: ConnectionId,
        _now: Instant,
    ) -> Option<QlogConfig> {
        let (index, name) = match side {
            Side::Client => (0, "client"),
            Side::Server => (1, "server"),
        };
        let tap = Tap {
            record: Vec::new(),
            header_seen: false,
            file: self.files.as_ref().map(|f| f[index].clone()),
            pto: self.pto[index].clone(),
        };
        let mut config = QlogConfig::new(Box::new(tap));
        config
            .title(Some(format!("tern flow {}", self.flow)))
            .description(Some(format!(
                "{name} endpoint; times are simulated, from the run's start"
            )))
            .start_time(self.zero);
        Some(config)
    }
}
