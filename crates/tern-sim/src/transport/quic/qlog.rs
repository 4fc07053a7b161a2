//! qlog (draft-ietf-quic-qlog-main-schema-13 §5, JSON-SEQ; the event definitions of
//! draft-ietf-quic-qlog-quic-events) of a flow's two QUIC endpoints, written by the stack's own
//! qlog feature into memory and handed to the world at the end of the run, which puts them in
//! the run's output folder as `<flow>.<client|server>.sqlog` (qvis opens JSON-SEQ files by that
//! extension).
//!
//! The stack's own `QlogFileFactory` names its files after the machine's clock and writes them
//! wherever it is told; [`QlogBuffers`] instead keeps each endpoint's log in memory, and gives
//! every event its time relative to simulated time zero (the `start_time` of the stack's
//! `QlogConfig`), so a log's `time` fields are the simulated milliseconds of the run and two
//! runs of one scenario and seed give the same bytes.

use noq_proto::{ConnectionId, QlogConfig, QlogFactory, Side};
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One endpoint's log, shared between the stack (which writes) and the transport (which reads
/// it at the end of the run).
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl io::Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().expect("not poisoned").extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The qlog factory of one flow: a buffer per side, events timed from `zero`.
#[derive(Clone)]
pub struct QlogBuffers {
    flow: String,
    /// The stack's instant of simulated time zero.
    zero: Instant,
    /// Client's and server's logs.
    logs: [Buffer; 2],
}

impl QlogBuffers {
    pub fn new(flow: &str, zero: Instant) -> QlogBuffers {
        QlogBuffers {
            flow: flow.to_owned(),
            zero,
            logs: Default::default(),
        }
    }

    /// The logs as files: `<flow>.client.sqlog` and `<flow>.server.sqlog`, those that have
    /// anything in them.
    pub fn files(&self) -> Vec<(String, Vec<u8>)> {
        ["client", "server"]
            .into_iter()
            .zip(&self.logs)
            .filter_map(|(side, log)| {
                let bytes = log.0.lock().expect("not poisoned").clone();
                (!bytes.is_empty()).then(|| (format!("{}.{side}.sqlog", self.flow), bytes))
            })
            .collect()
    }
}

impl QlogFactory for QlogBuffers {
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
        let mut config = QlogConfig::new(Box::new(self.logs[index].clone()));
        config
            .title(Some(format!("tern flow {}", self.flow)))
            .description(Some(format!(
                "{name} endpoint; times are simulated, from the run's start"
            )))
            .start_time(self.zero);
        Some(config)
    }
}
