//! The QUIC endpoints' qlog files of a run (`<flow>.<client|server>.sqlog`), kept in memory
//! when the run has no output folder, and otherwise written to the folder record by record as
//! the run goes, so that memory stays bounded however long the run is (as the captures,
//! [`super::Captures`]). The records come from the QUIC stack's own qlog
//! (`transport::quic`), which writes them into a [`QlogFile`].

use super::capture::{CaptureOutput, Out};
use super::TraceError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// One endpoint's log: where its bytes go, whether any came, the first write that failed.
struct Log {
    name: String,
    out: Out,
    written: bool,
    error: Option<TraceError>,
}

/// One endpoint's qlog file, shared by the world (which says where it goes) and the QUIC
/// stack's qlog writer (which fills it).
#[derive(Clone)]
pub struct QlogFile(Arc<Mutex<Log>>);

impl QlogFile {
    fn lock(&self) -> MutexGuard<'_, Log> {
        self.0
            .lock()
            .expect("a qlog writer does not panic while holding its log")
    }

    /// Appends `bytes` (whole JSON-SEQ records). A failed write is kept, reported at the
    /// world's next progress check, and ends the log's writing.
    pub fn write(&self, bytes: &[u8]) {
        let mut log = self.lock();
        if log.error.is_some() {
            return;
        }
        log.written = true;
        if let Err(e) = log.out.write_all(bytes) {
            let path = match &log.out {
                Out::File { path, .. } => path.clone(),
                Out::Memory(_) => PathBuf::from(&log.name),
            };
            log.error = Some(TraceError::Write {
                path,
                message: e.to_string(),
            });
        }
    }
}

/// Every qlog file of a run.
#[derive(Default)]
pub struct QlogFiles {
    logs: Vec<QlogFile>,
}

impl QlogFiles {
    /// A new log named `name`, in memory until [`QlogFiles::to_folder`].
    pub fn add(&mut self, name: String) -> QlogFile {
        let log = QlogFile(Arc::new(Mutex::new(Log {
            name,
            out: Out::Memory(Vec::new()),
            written: false,
            error: None,
        })));
        self.logs.push(log.clone());
        log
    }

    /// Writes every log to `dir/<name>` from now on (called before the run starts, so the
    /// logs are still empty).
    pub fn to_folder(&mut self, dir: &Path) -> Result<(), TraceError> {
        for log in &self.logs {
            let mut log = log.lock();
            let path = dir.join(&log.name);
            let file = File::create(&path).map_err(|e| TraceError::Write {
                path: path.clone(),
                message: e.to_string(),
            })?;
            log.out = Out::File {
                path,
                out: BufWriter::new(file),
            };
        }
        Ok(())
    }

    /// Bytes the logs kept in memory hold (0 when they go to files).
    pub fn memory_bytes(&self) -> u64 {
        self.logs
            .iter()
            .map(|l| match &l.lock().out {
                Out::Memory(bytes) => bytes.len() as u64,
                Out::File { .. } => 0,
            })
            .sum()
    }

    /// The first write that failed, if any.
    pub fn error(&self) -> Option<TraceError> {
        self.logs.iter().find_map(|l| l.lock().error.clone())
    }

    /// Drops the logs, removing any file written (a run that stops early leaves none).
    pub fn discard(self) {
        for log in self.logs {
            if let Out::File { path, .. } = &log.lock().out {
                // Best effort: the run is failing already.
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// Flushes every log: the in-memory ones by name, and the paths of those written. A log
    /// that never received a record (a connection that never started) is left out, and its
    /// file removed.
    pub fn finish(self) -> Result<CaptureOutput, TraceError> {
        if let Some(e) = self.error() {
            self.discard();
            return Err(e);
        }
        let mut done = CaptureOutput::default();
        for log in &self.logs {
            let mut log = log.lock();
            let Log {
                name, out, written, ..
            } = &mut *log;
            match out {
                Out::Memory(bytes) if *written => {
                    done.in_memory.push((name.clone(), std::mem::take(bytes)))
                }
                Out::Memory(_) => {}
                Out::File { path, out } if *written => {
                    if let Err(e) = out.flush() {
                        let error = TraceError::Write {
                            path: path.clone(),
                            message: e.to_string(),
                        };
                        drop(log);
                        self.discard();
                        return Err(error);
                    }
                    done.files.push(path.clone());
                }
                Out::File { path, .. } => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        Ok(done)
    }
}
