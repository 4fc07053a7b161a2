//! Packet captures of a run: one pcap per interface (`<link>.<direction>.pcap`), kept in
//! memory when the run has no output folder, and otherwise written to the folder as the run
//! goes, so that memory stays bounded however long the run is (as the Parquet traces).

use super::pcap::PcapWriter;
use super::TraceError;
use crate::engine::SimTime;
use crate::net::packet::Packet;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where one capture's (or qlog's, [`super::QlogFiles`]) bytes go.
pub(super) enum Out {
    Memory(Vec<u8>),
    File { path: PathBuf, out: BufWriter<File> },
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Out::Memory(v) => v.write(buf),
            Out::File { out, .. } => out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Out::Memory(_) => Ok(()),
            Out::File { out, .. } => out.flush(),
        }
    }
}

/// What a run's captures came to: in-memory files by name, and the files written.
#[derive(Debug, Default)]
pub struct CaptureOutput {
    pub in_memory: Vec<(String, Vec<u8>)>,
    pub files: Vec<PathBuf>,
}

/// The captures of a run, one per interface (or none, when "pcap" is not recorded).
pub struct Captures {
    /// Name and writer of each interface's capture, by interface index.
    writers: Vec<(String, PcapWriter<Out>)>,
    /// The first write that failed (a full disk, say): reported at the next progress check.
    error: Option<TraceError>,
}

impl Captures {
    /// No captures.
    pub fn none() -> Self {
        Captures {
            writers: Vec::new(),
            error: None,
        }
    }

    /// One capture in memory per name (interface order).
    pub fn in_memory(names: Vec<String>) -> Self {
        let writers = names
            .into_iter()
            .map(|n| {
                let w = PcapWriter::new(Out::Memory(Vec::new())).expect("writing to memory");
                (n, w)
            })
            .collect();
        Captures {
            writers,
            error: None,
        }
    }

    /// Writes every capture to `dir/<name>` from now on (called before the run starts: the
    /// files begin with the pcap header only).
    pub fn to_folder(&mut self, dir: &Path) -> Result<(), TraceError> {
        for (name, w) in &mut self.writers {
            let path = dir.join(name.as_str());
            let failed = |e: io::Error| TraceError::Write {
                path: path.clone(),
                message: e.to_string(),
            };
            let file = File::create(&path).map_err(failed)?;
            let out = Out::File {
                path: path.clone(),
                out: BufWriter::new(file),
            };
            *w = PcapWriter::new(out).map_err(failed)?;
        }
        Ok(())
    }

    /// Appends a packet leaving by interface `i` at `now` to its capture, if it has one.
    /// Inline, so that a run without captures pays a length check per packet, not a call.
    #[inline]
    pub fn write(&mut self, i: usize, now: SimTime, packet: &Packet) {
        if i < self.writers.len() {
            self.write_at(i, now, packet);
        }
    }

    /// [`Self::write`] for an interface that has a capture.
    #[inline(never)]
    fn write_at(&mut self, i: usize, now: SimTime, packet: &Packet) {
        let (name, w) = &mut self.writers[i];
        if let Err(e) = w.write(now, packet) {
            self.error.get_or_insert(TraceError::Write {
                path: PathBuf::from(name.as_str()),
                message: e.to_string(),
            });
        }
    }

    /// Bytes the captures kept in memory hold (0 when they go to files).
    pub fn memory_bytes(&self) -> u64 {
        self.writers
            .iter()
            .map(|(_, w)| match w.get_ref() {
                Out::Memory(bytes) => bytes.len() as u64,
                Out::File { .. } => 0,
            })
            .sum()
    }

    /// The first write that failed, if any.
    pub fn error(&self) -> Option<&TraceError> {
        self.error.as_ref()
    }

    /// Drops the captures, removing any file written (a run that stops early leaves none).
    pub fn discard(self) {
        for (_, w) in self.writers {
            if let Ok(Out::File { path, out }) = w.into_inner() {
                drop(out);
                // Best effort: the run is failing already.
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// Flushes every capture: the in-memory ones by name, and the paths of those written.
    pub fn finish(self) -> Result<CaptureOutput, TraceError> {
        if let Some(e) = self.error {
            Captures {
                writers: self.writers,
                error: None,
            }
            .discard();
            return Err(e);
        }
        let mut done = CaptureOutput::default();
        for (name, w) in self.writers {
            let path = PathBuf::from(name.as_str());
            match w.into_inner().map_err(|e| TraceError::Write {
                path,
                message: e.to_string(),
            })? {
                Out::Memory(bytes) => done.in_memory.push((name, bytes)),
                Out::File { path, .. } => done.files.push(path),
            }
        }
        Ok(done)
    }
}
