//! Why a run's traces could not be kept.

use std::fmt;
use std::path::PathBuf;

/// Why the traces of a run could not be kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// The tables, captures and qlogs held in memory passed the cap.
    MemoryCap { limit: u64 },
    /// A trace file could not be created or written.
    Write { path: PathBuf, message: String },
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceError::MemoryCap { limit } => write!(
                f,
                "the recorded traces (tables, packet captures and qlogs) passed {:.0} MiB in \
                 memory (max_trace_memory = {limit} bytes): give the run an output folder (`tern run --out DIR`, or \
                 `tern.run(..., out=DIR)`) so that traces stream to Parquet files, record \
                 fewer traces, or raise max_trace_memory",
                *limit as f64 / f64::from(1 << 20)
            ),
            TraceError::Write { path, message } => {
                write!(f, "cannot write trace file {}: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for TraceError {}
