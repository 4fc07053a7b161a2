//! Where records go: Parquet files written as the run goes, or tables in memory up to a cap.

use std::path::PathBuf;

use super::error::TraceError;
use super::file::ParquetTable;
use super::records::RecordKind;
use super::records::{TableId, Tabled, SCHEMAS};
use super::table::{RowWriter, Table};

/// The default cap on trace tables held in memory (runs without an output folder): 1 GiB.
pub const DEFAULT_MAX_TRACE_MEMORY: u64 = 1 << 30;

/// Rows per Parquet row group by default: what a table holds in memory at most.
const ROW_GROUP_ROWS: usize = 1 << 16;

/// In memory, the held bytes are measured every this many rows of a table.
const MEMORY_CHECK_ROWS: usize = 1 << 12;

/// Where a run's trace records go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceConfig {
    /// Folder into which each recorded table is written as `<table>.parquet` while the run
    /// goes (created if missing); `None` keeps the tables in memory.
    pub dir: Option<PathBuf>,
    /// Without a folder: bytes of trace tables held in memory above which the run stops
    /// with [`TraceError::MemoryCap`].
    pub max_memory: u64,
    /// With a folder: rows per Parquet row group, so the most rows a table holds.
    pub row_group_rows: usize,
}

impl Default for TraceConfig {
    fn default() -> Self {
        TraceConfig {
            dir: None,
            max_memory: DEFAULT_MAX_TRACE_MEMORY,
            row_group_rows: ROW_GROUP_ROWS,
        }
    }
}

/// What a finished run's traces became.
#[derive(Debug, Default)]
pub struct TraceOutput {
    /// The tables, when kept in memory (in [`TableId`] order).
    pub tables: Vec<Table>,
    /// The Parquet files written, when the run had a folder (in [`TableId`] order).
    pub files: Vec<PathBuf>,
    /// The most bytes the tables held at once (values, validity and dictionaries, from the
    /// buffers' capacities): bounded by the row-group size with a folder.
    pub peak_bytes: u64,
}

/// One recorded table: its rows not yet written, and its file if the run has a folder.
struct Slot {
    table: Table,
    file: Option<ParquetTable>,
    /// Rows until the table is flushed (folder) or memory is measured (in memory).
    room: usize,
}

/// The trace tables of a run, present only when recorded.
pub struct Traces {
    slots: [Option<Slot>; TableId::COUNT],
    max_memory: u64,
    /// No output folder: everything recorded stays in memory, under `max_memory`.
    in_memory: bool,
    row_group_rows: usize,
    peak_bytes: u64,
    /// The first failure; once set, nothing more is recorded.
    error: Option<TraceError>,
}

impl Traces {
    /// Tables for the recorded `kinds`, in memory with the default cap.
    pub fn in_memory(kinds: &[RecordKind]) -> Traces {
        Traces::new(kinds, &TraceConfig::default()).expect("nothing to create in memory")
    }

    /// Tables for the recorded `kinds`, kept as `config` says; with a folder, creates it
    /// and one Parquet file per table.
    pub fn new(kinds: &[RecordKind], config: &TraceConfig) -> Result<Traces, TraceError> {
        let mut traces = Traces {
            slots: Default::default(),
            max_memory: config.max_memory,
            in_memory: config.dir.is_none(),
            row_group_rows: config.row_group_rows.max(1),
            peak_bytes: 0,
            error: None,
        };
        if let Some(dir) = &config.dir {
            std::fs::create_dir_all(dir).map_err(|e| TraceError::Write {
                path: dir.clone(),
                message: e.to_string(),
            })?;
        }
        // A kind turns on its tables (`rlc`: two); captures and qlog are files, not tables.
        for (id, schema) in SCHEMAS.iter().enumerate() {
            if !kinds.contains(&schema.kind) {
                continue;
            }
            let file = match &config.dir {
                Some(dir) => {
                    let path = dir.join(format!("{}.parquet", schema.name));
                    Some(ParquetTable::create(&path, schema)?)
                }
                None => None,
            };
            let room = if file.is_some() {
                traces.row_group_rows
            } else {
                MEMORY_CHECK_ROWS
            };
            traces.slots[id] = Some(Slot {
                table: Table::new(schema.name, schema.columns),
                file,
                room,
            });
        }
        Ok(traces)
    }

    /// Whether records of kind `R` are kept: build a record only when this is true.
    #[inline]
    pub fn wants<R: Tabled>(&self) -> bool {
        self.slots[R::TABLE as usize].is_some()
    }

    /// Records `r` if its kind is recorded.
    #[inline]
    pub fn record<R: Tabled>(&mut self, r: &R) {
        if let Some(slot) = &mut self.slots[R::TABLE as usize] {
            r.write(&mut RowWriter::new(&mut slot.table));
            slot.room -= 1;
            if slot.room == 0 {
                self.full(R::TABLE);
            }
        }
    }

    /// Table `id` filled its room: written as a row group (folder), or the memory held is
    /// measured against the cap (in memory).
    #[cold]
    #[inline(never)]
    fn full(&mut self, id: TableId) {
        let held = self.held_bytes();
        self.peak_bytes = self.peak_bytes.max(held);
        let slot = self.slots[id as usize].as_mut().expect("table recorded");
        let result = match &mut slot.file {
            Some(file) => {
                slot.room = self.row_group_rows;
                let written = file.write(&slot.table);
                slot.table.clear();
                written
            }
            None => {
                slot.room = MEMORY_CHECK_ROWS;
                if held > self.max_memory {
                    Err(TraceError::MemoryCap {
                        limit: self.max_memory,
                    })
                } else {
                    Ok(())
                }
            }
        };
        if let Err(e) = result {
            self.fail(e);
        }
    }

    /// Stops recording after a failure, keeping the first one.
    fn fail(&mut self, e: TraceError) {
        self.error.get_or_insert(e);
        std::mem::take(&mut self.slots)
            .into_iter()
            .flatten()
            .filter_map(|s| s.file)
            .for_each(remove);
    }

    /// Measures the memory the run's traces hold, the tables' and `outside` bytes more (the
    /// packet captures and qlogs kept in memory), against the cap: past it, recording stops
    /// with [`TraceError::MemoryCap`]. One cap for every trace kept in memory.
    pub fn count_memory(&mut self, outside: u64) {
        if self.error.is_some() || !self.in_memory {
            return;
        }
        let held = self.held_bytes() + outside;
        self.peak_bytes = self.peak_bytes.max(held);
        if held > self.max_memory {
            self.fail(TraceError::MemoryCap {
                limit: self.max_memory,
            });
        }
    }

    /// The failure that stopped recording, if any: the run should stop with it.
    pub fn error(&self) -> Option<&TraceError> {
        self.error.as_ref()
    }

    /// Bytes the tables hold now.
    fn held_bytes(&self) -> u64 {
        self.slots
            .iter()
            .flatten()
            .map(|s| s.table.bytes() as u64)
            .sum()
    }

    /// Ends recording: writes what is left and closes the files (folder), or hands the
    /// tables over (in memory).
    pub fn finish(mut self) -> Result<TraceOutput, TraceError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut out = TraceOutput {
            peak_bytes: self.peak_bytes.max(self.held_bytes()),
            ..TraceOutput::default()
        };
        let mut slots = std::mem::take(&mut self.slots).into_iter().flatten();
        while let Some(slot) = slots.next() {
            let Some(mut file) = slot.file else {
                out.tables.push(slot.table);
                continue;
            };
            let path = file.path().to_owned();
            let rest = if slot.table.rows() > 0 {
                file.write(&slot.table)
            } else {
                Ok(())
            };
            match rest.and_then(|()| file.close()) {
                Ok(path) => out.files.push(path),
                Err(e) => {
                    slots.filter_map(|s| s.file).for_each(remove);
                    for path in out.files.into_iter().chain([path]) {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(e);
                }
            }
        }
        Ok(out)
    }

    /// Ends recording without keeping anything: removes the files written so far (a run
    /// that stopped early leaves no partial trace behind).
    pub fn discard(mut self) {
        std::mem::take(&mut self.slots)
            .into_iter()
            .flatten()
            .filter_map(|s| s.file)
            .for_each(remove);
    }
}

/// Closes a file without finishing it and removes it.
fn remove(file: ParquetTable) {
    let path = file.path().to_owned();
    drop(file);
    let _ = std::fs::remove_file(path);
}
