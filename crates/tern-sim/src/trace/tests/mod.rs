//! Tests of the record kinds' schemas and of the sinks: every kind writes the columns it
//! declares, and what goes to Parquet reads back as what stays in memory.

use super::*;
use crate::engine::SimTime;
use crate::transport::tcp::records::CwndRecord;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::path::Path;

pub(super) const fn req(ty: Type) -> Kind {
    Kind::of(ty)
}

pub(super) const fn opt(ty: Type) -> Kind {
    Kind::of(ty).nullable()
}

mod core;
mod link;
mod mech;
mod transport;
mod wifi;

/// Every kind with tables the scenario can ask for (captures and qlog files are not
/// tables).
fn all() -> Vec<RecordKind> {
    let mut kinds = RecordKind::ALL.to_vec();
    kinds.retain(|k| !matches!(k, RecordKind::Pcap | RecordKind::Qlog));
    kinds
}

/// Every known table's expected schema, by kind of table.
fn expected() -> Vec<(&'static str, &'static [(&'static str, Kind)])> {
    [
        core::EXPECTED,
        transport::EXPECTED,
        link::EXPECTED,
        wifi::EXPECTED,
        mech::EXPECTED,
    ]
    .concat()
}

/// Row `i` of every known table.
fn record_all(traces: &mut Traces, i: u64) {
    core::record(traces, i);
    transport::record(traces, i);
    link::record(traces, i);
    wifi::record(traces, i);
    mech::record(traces, i);
}

pub(super) fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

#[test]
fn every_record_kind_declares_the_expected_table() {
    assert_eq!(SCHEMAS[TableId::CwndRecord as usize].name, "cwnd");
    assert_eq!(SCHEMAS[TableId::TfrcRecord as usize].name, "tfrc");
    // Every table the front end reads is there, its columns unchanged; a slice's new
    // table is checked by its own tests.
    for (name, columns) in expected() {
        let schema = SCHEMAS.iter().find(|s| s.name == name);
        assert_eq!(schema.map(|s| s.columns), Some(columns), "{name}");
    }
    // Every table belongs to a kind the scenario can ask for, and the other way round;
    // no two tables share a name.
    let mut tables: Vec<&str> = all().into_iter().flat_map(sink_tables).collect();
    tables.sort_unstable();
    let mut names: Vec<&str> = SCHEMAS.iter().map(|s| s.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(tables, names);
}

/// The tables a kind fills, as a run sets them up.
fn sink_tables(kind: RecordKind) -> Vec<&'static str> {
    let traces = Traces::in_memory(&[kind]);
    let out = traces.finish().expect("in memory");
    out.tables
        .iter()
        .map(|t| SCHEMAS.iter().find(|s| s.name == t.name).unwrap().name)
        .collect()
}

#[test]
fn every_record_kind_writes_the_columns_it_declares() {
    let mut traces = Traces::in_memory(&all());
    for i in 0..3 {
        record_all(&mut traces, i);
    }
    let out = traces.finish().expect("in memory");
    assert_eq!(out.tables.len(), TableId::COUNT);
    let known: Vec<&str> = expected().iter().map(|(n, _)| *n).collect();
    for (table, schema) in out.tables.iter().zip(SCHEMAS) {
        assert_eq!(table.name, schema.name);
        if !known.contains(&table.name) {
            continue;
        }
        assert_eq!(table.rows(), 3, "{}", table.name);
        let kinds: Vec<(&str, Kind)> = table.columns.iter().map(|c| (c.name, c.kind())).collect();
        assert_eq!(kinds, schema.columns, "{}", table.name);
        for c in &table.columns {
            assert_eq!(c.data.len(), 3, "{}.{}", table.name, c.name);
            assert!(c.valid.as_ref().is_none_or(|v| v.len() == 3));
        }
    }
    // A null is a null, not a sentinel: ssthresh of the even rows.
    let cwnd = &out.tables[TableId::CwndRecord as usize];
    let ssthresh = cwnd.column("ssthresh").unwrap();
    assert_eq!(ssthresh.valid, Some(vec![false, true, false]));
}

#[test]
fn records_are_kept_only_for_recorded_kinds() {
    let mut traces = Traces::in_memory(&[RecordKind::Cwnd, RecordKind::Pcap]);
    assert!(traces.wants::<CwndRecord>());
    assert!(!traces.wants::<QueueRecord>());
    record_all(&mut traces, 1);
    let out = traces.finish().unwrap();
    let names: Vec<&str> = out.tables.iter().map(|t| t.name).collect();
    assert_eq!(names, ["cwnd"]);
}

/// A Parquet file read back as a table of `schema`.
fn read_parquet(path: &Path, schema: &Schema) -> Table {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut table = Table::new(schema.name, schema.columns);
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let mut w = RowWriter::new(&mut table);
        for (i, (name, field)) in row.get_column_iter().enumerate() {
            assert_eq!(name, schema.columns[i].0);
            match field {
                Field::Null => w.null(),
                Field::Double(x) => w.f64(*x),
                Field::ULong(x) => w.u64(*x),
                Field::Str(s) => w.text(s),
                other => panic!("{name}: unexpected {other:?}"),
            }
        }
    }
    table
}

#[test]
fn records_round_trip_through_parquet_files() {
    let dir = std::env::temp_dir().join(format!("tern-trace-rt-{}", std::process::id()));
    let config = TraceConfig {
        dir: Some(dir.clone()),
        row_group_rows: 4,
        ..TraceConfig::default()
    };
    let mut to_files = Traces::new(&all(), &config).unwrap();
    let mut in_memory = Traces::in_memory(&all());
    // 11 rows: two full row groups of 4 and a last one of 3.
    for i in 0..11 {
        record_all(&mut to_files, i);
        record_all(&mut in_memory, i);
    }
    let files = to_files.finish().unwrap();
    let tables = in_memory.finish().unwrap().tables;
    assert!(files.tables.is_empty());
    assert_eq!(files.files.len(), TableId::COUNT);
    let known: Vec<&str> = expected().iter().map(|(n, _)| *n).collect();
    for ((path, table), schema) in files.files.iter().zip(&tables).zip(SCHEMAS) {
        assert_eq!(path, &dir.join(format!("{}.parquet", schema.name)));
        if !known.contains(&schema.name) {
            continue;
        }
        let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
        assert_eq!(reader.metadata().num_row_groups(), 3, "{}", schema.name);
        let back = read_parquet(path, &schema);
        assert_eq!(back.rows(), 11);
        for (a, b) in back.columns.iter().zip(&table.columns) {
            assert_eq!(a.kind(), b.kind(), "{}.{}", schema.name, a.name);
            assert_eq!(a.valid, b.valid, "{}.{}", schema.name, a.name);
            match (&a.data, &b.data) {
                // Compare bits: NaN and infinities must survive too.
                (ColumnData::F64(x), ColumnData::F64(y)) => assert!(
                    x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits()),
                    "{}.{}",
                    schema.name,
                    a.name
                ),
                (ColumnData::U64(x), ColumnData::U64(y)) => assert_eq!(x, y),
                (
                    ColumnData::Text { codes, labels },
                    ColumnData::Text {
                        codes: c2,
                        labels: l2,
                    },
                ) => {
                    let text = |codes: &[u32], labels: &[String], i: usize| {
                        a.is_valid(i).then(|| labels[codes[i] as usize].clone())
                    };
                    for i in 0..codes.len() {
                        assert_eq!(text(codes, labels, i), text(c2, l2, i));
                    }
                }
                _ => unreachable!("kinds compared above"),
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_table_holds_at_most_one_row_group() {
    let dir = std::env::temp_dir().join(format!("tern-trace-bound-{}", std::process::id()));
    let config = TraceConfig {
        dir: Some(dir.clone()),
        row_group_rows: 64,
        ..TraceConfig::default()
    };
    let peak = |rows: u64| {
        let mut traces = Traces::new(&all(), &config).unwrap();
        for i in 0..rows {
            record_all(&mut traces, i);
        }
        traces.finish().unwrap().peak_bytes
    };
    let (short, long) = (peak(1_000), peak(20_000));
    assert_eq!(short, long, "memory does not grow with the run");
    let row_bytes: usize = SCHEMAS.iter().map(Schema::row_bytes).sum();
    assert!(
        long <= 2 * 64 * row_bytes as u64 + 4096,
        "{long} bytes held"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn in_memory_tables_stop_at_the_cap() {
    let config = TraceConfig {
        max_memory: 100_000,
        ..TraceConfig::default()
    };
    let mut traces = Traces::new(&[RecordKind::Queue], &config).unwrap();
    for i in 0..100_000 {
        traces.record(&QueueRecord {
            time: t(i),
            link: "l",
            direction: "forward",
            packets: i,
            bytes: i,
        });
    }
    let error = traces.error().cloned().expect("over the cap");
    assert_eq!(error, TraceError::MemoryCap { limit: 100_000 });
    assert!(error.to_string().contains("output folder"), "{error}");
    assert_eq!(traces.finish().unwrap_err(), error);
}
