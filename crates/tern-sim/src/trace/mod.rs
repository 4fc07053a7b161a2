//! Trace records: one struct per kind, its columns derived from its fields.
//!
//! A model reports what happened as a record (`CwndRecord`, `DropRecord`, …) and hands it
//! to [`Traces::record`]; the run keeps only the kinds the scenario asks for
//! (`record = [...]`), so a record is built only when [`Traces::wants`] says its kind is
//! recorded. Each record is declared once, in the slice whose model writes it (its
//! `records.rs`), with the `record!` macro, which writes the struct and its [`Record`]
//! implementation: the table's columns (names and kinds) come from the fields, in order,
//! so a row cannot have too many, too few or mistyped cells. The slice's `records!` macro
//! names its kinds and tables; [`records`] gathers every slice's into [`RecordKind`] and
//! the tables.
//!
//! Where the records go is `sink`: with an output folder, each table is written as
//! Parquet row groups as the run goes (memory stays bounded however long the run);
//! without one, tables stay in memory as [`Table`]s up to a cap. A value that is not set
//! (ssthresh before the first loss, the MCS of a non-HT frame) is an `Option` field: a
//! nullable column, null in Parquet and in the frames, never a sentinel. Packet captures
//! ([`Captures`]) and QUIC qlog files ([`QlogFiles`]) follow the same rule: in memory
//! without a folder, streamed into it with one.

mod addr;
mod capture;
mod error;
mod file;
mod kind;
pub mod pcap;
mod qlog;
#[macro_use]
mod record;
pub mod records;
mod sink;
mod table;
#[cfg(test)]
mod tests;

pub use capture::{CaptureOutput, Captures};
pub use error::TraceError;
pub use kind::{Kind, Type};
pub use qlog::{QlogFile, QlogFiles};
pub use record::{Record, Value};
pub use records::*;
pub use sink::{TraceConfig, TraceOutput, Traces, DEFAULT_MAX_TRACE_MEMORY};
pub use table::{Column, ColumnData, RowWriter, Table};
