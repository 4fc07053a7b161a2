//! One trace table as a Parquet file, written a row group at a time.
//!
//! Column types are those Polars and DuckDB read back as the frames the front end shows:
//! floats are `DOUBLE`, unsigned integers `INT64` annotated `UINT_64`, strings
//! `BYTE_ARRAY` annotated `STRING` (dictionary-encoded); nullable columns are `OPTIONAL`.
//! Pages are Snappy-compressed; statistics are kept per column chunk.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::{Compression, Encoding, IntType, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::{ColumnPath, Type as SchemaType};

use super::error::TraceError;
use super::kind::Type;
use super::records::Schema;
use super::table::{ColumnData, Table};

/// A Parquet file being written, one row group per [`ParquetTable::write`].
pub struct ParquetTable {
    path: PathBuf,
    writer: SerializedFileWriter<BufWriter<File>>,
    /// Per column, the text labels already turned into Parquet byte arrays.
    labels: Vec<Vec<ByteArray>>,
    /// Scratch buffers reused from one row group to the next.
    defs: Vec<i16>,
    ints: Vec<i64>,
    floats: Vec<f64>,
    strings: Vec<ByteArray>,
}

impl ParquetTable {
    /// Creates `path` (replacing any file there) for a table of `schema`.
    pub fn create(path: &Path, schema: &Schema) -> Result<Self, TraceError> {
        let io = |e: &dyn std::fmt::Display| TraceError::Write {
            path: path.to_owned(),
            message: e.to_string(),
        };
        let fields = schema
            .columns
            .iter()
            .map(|&(name, kind)| {
                let (physical, logical) = match kind.ty {
                    Type::F64 => (Physical::DOUBLE, None),
                    Type::U64 => (
                        Physical::INT64,
                        Some(LogicalType::Integer(IntType {
                            bit_width: 64,
                            is_signed: false,
                        })),
                    ),
                    Type::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
                };
                let repetition = if kind.nullable {
                    Repetition::OPTIONAL
                } else {
                    Repetition::REQUIRED
                };
                SchemaType::primitive_type_builder(name, physical)
                    .with_repetition(repetition)
                    .with_logical_type(logical)
                    .build()
                    .map(Arc::new)
            })
            .collect::<Result<Vec<_>, ParquetError>>()
            .map_err(|e| io(&e))?;
        let root = SchemaType::group_type_builder("schema")
            .with_fields(fields)
            .build()
            .map_err(|e| io(&e))?;
        // Dictionaries pay only for strings (few distinct names); numbers are plain.
        let mut props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::Chunk)
            .set_created_by(format!("tern {}", env!("CARGO_PKG_VERSION")));
        for &(name, kind) in schema.columns {
            let path = ColumnPath::from(name);
            props = match kind.ty {
                Type::Text => props.set_column_dictionary_enabled(path, true),
                // Times and measurements: bytes of equal rank together compress well.
                Type::F64 => props.set_column_encoding(path, Encoding::BYTE_STREAM_SPLIT),
                // Counters, sequence numbers, ids: small deltas.
                Type::U64 => props.set_column_encoding(path, Encoding::DELTA_BINARY_PACKED),
            };
        }
        let file = File::create(path).map_err(|e| io(&e))?;
        let writer = SerializedFileWriter::new(
            BufWriter::new(file),
            Arc::new(root),
            Arc::new(props.build()),
        )
        .map_err(|e| io(&e))?;
        Ok(ParquetTable {
            path: path.to_owned(),
            writer,
            labels: vec![Vec::new(); schema.columns.len()],
            defs: Vec::new(),
            ints: Vec::new(),
            floats: Vec::new(),
            strings: Vec::new(),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the rows of `table` (declared with this file's schema) as one row group.
    pub fn write(&mut self, table: &Table) -> Result<(), TraceError> {
        self.write_group(table).map_err(|e| self.error(&e))
    }

    /// Finishes the file (its footer) and returns its path.
    pub fn close(self) -> Result<PathBuf, TraceError> {
        let path = self.path.clone();
        self.writer
            .close()
            .map(|_| path)
            .map_err(|e| TraceError::Write {
                path: self.path,
                message: e.to_string(),
            })
    }

    fn error(&self, e: &ParquetError) -> TraceError {
        TraceError::Write {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    fn write_group(&mut self, table: &Table) -> Result<(), ParquetError> {
        let mut group = self.writer.next_row_group()?;
        for (i, col) in table.columns.iter().enumerate() {
            let mut w = group
                .next_column()?
                .expect("one writer per declared column");
            let rows = col.data.len();
            let valid = |r: usize| col.valid.as_ref().is_none_or(|v| v[r]);
            let defs = match &col.valid {
                Some(v) => {
                    self.defs.clear();
                    self.defs.extend(v.iter().map(|&b| i16::from(b)));
                    Some(&self.defs[..])
                }
                None => None,
            };
            match &col.data {
                ColumnData::F64(v) => {
                    self.floats.clear();
                    self.floats
                        .extend((0..rows).filter(|&r| valid(r)).map(|r| v[r]));
                    w.typed::<DoubleType>()
                        .write_batch(&self.floats, defs, None)?;
                }
                ColumnData::U64(v) => {
                    // UINT_64 is stored in INT64's bits (the Parquet format's rule).
                    self.ints.clear();
                    self.ints
                        .extend((0..rows).filter(|&r| valid(r)).map(|r| v[r] as i64));
                    w.typed::<Int64Type>().write_batch(&self.ints, defs, None)?;
                }
                ColumnData::Text { codes, labels } => {
                    let known = &mut self.labels[i];
                    known.extend(
                        labels[known.len()..]
                            .iter()
                            .map(|l| ByteArray::from(l.as_str())),
                    );
                    self.strings.clear();
                    self.strings.extend(
                        (0..rows)
                            .filter(|&r| valid(r))
                            .map(|r| known[codes[r] as usize].clone()),
                    );
                    w.typed::<ByteArrayType>()
                        .write_batch(&self.strings, defs, None)?;
                }
            }
            w.close()?;
        }
        group.close()?;
        Ok(())
    }
}
