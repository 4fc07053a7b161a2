//! Tests of the record kinds' schemas and of the sinks: every kind writes the columns it
//! declares, and what goes to Parquet reads back as what stays in memory.

use super::*;
use crate::engine::SimTime;
use crate::scenario::RecordKind;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use std::path::Path;

use Type::{Text, F64, U64};

const fn req(ty: Type) -> Kind {
    Kind::of(ty)
}

const fn opt(ty: Type) -> Kind {
    Kind::of(ty).nullable()
}

/// The tables as the front end, the plots and the studies read them: names, columns and
/// kinds, in order. Changing one is changing a file format.
const EXPECTED: [(&str, &[(&str, Kind)]); TableId::COUNT] = [
    (
        "queue",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("packets", req(U64)),
            ("bytes", req(U64)),
        ],
    ),
    (
        "delay",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("seq", req(U64)),
            ("sent", req(F64)),
            ("delay", req(F64)),
            ("size", req(U64)),
            ("conn", req(U64)),
        ],
    ),
    (
        "drops",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("reason", req(Text)),
            ("flow", req(Text)),
            ("uid", req(U64)),
            ("size", req(U64)),
        ],
    ),
    (
        "rtt",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("seq", req(U64)),
            ("rtt", req(F64)),
        ],
    ),
    (
        "cwnd",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("cwnd", req(U64)),
            ("ssthresh", opt(U64)),
            ("in_flight", req(U64)),
            ("pacing_rate", opt(U64)),
        ],
    ),
    (
        "rto",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("srtt", req(F64)),
            ("rttvar", req(F64)),
            ("rto", req(F64)),
        ],
    ),
    (
        "retransmits",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("kind", req(Text)),
            ("seq", opt(U64)),
            ("len", opt(U64)),
            ("backoff", opt(U64)),
            ("rto", opt(F64)),
        ],
    ),
    (
        "handovers",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("ue", req(Text)),
            ("cell", req(U64)),
            ("loss_start", req(F64)),
        ],
    ),
    (
        "switcher",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("event", req(Text)),
            ("last_sent", opt(F64)),
            ("decision", opt(Text)),
        ],
    ),
    (
        "rlc",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("buffer_bytes", req(U64)),
            ("pdus_sent", req(U64)),
            ("pdus_retransmitted", req(U64)),
        ],
    ),
    (
        "rlc_sdu",
        &[
            ("time", req(F64)),
            ("link", req(Text)),
            ("direction", req(Text)),
            ("uid", req(U64)),
            ("delay", req(F64)),
        ],
    ),
    (
        "wifi",
        &[
            ("time", req(F64)),
            ("bss", req(Text)),
            ("from", req(Text)),
            ("to", req(Text)),
            ("kind", req(Text)),
            ("rate_mbps", req(F64)),
            ("mcs", opt(F64)),
            ("mpdus", req(U64)),
            ("acked", req(U64)),
            ("collision", req(U64)),
            ("snr_db", req(F64)),
        ],
    ),
    (
        "wifi_rx",
        &[
            ("time", req(F64)),
            ("bss", req(Text)),
            ("from", req(Text)),
            ("to", req(Text)),
            ("sn", req(U64)),
            ("fcs_ok", req(U64)),
            ("rate_mbps", req(F64)),
        ],
    ),
    (
        "retry_out",
        &[
            ("time", req(F64)),
            ("bss", req(Text)),
            ("station", req(Text)),
            ("sn", req(U64)),
            ("failures", req(U64)),
            ("index", req(U64)),
            ("ewma_mbps", req(F64)),
        ],
    ),
    (
        "roaming",
        &[
            ("time", req(F64)),
            ("station", req(Text)),
            ("event", req(Text)),
            ("from_bss", req(Text)),
            ("to_bss", req(Text)),
            ("rssi_dbm", req(F64)),
        ],
    ),
    (
        "rssi",
        &[
            ("time", req(F64)),
            ("station", req(Text)),
            ("bss", req(Text)),
            ("rssi_dbm", req(F64)),
            ("associated", req(U64)),
        ],
    ),
    (
        "quic",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("path", req(U64)),
            ("cwnd", req(U64)),
            ("bytes_in_flight", req(U64)),
            ("srtt", req(F64)),
            ("pto_count", req(U64)),
            ("sent_packets", req(U64)),
            ("lost_packets", req(U64)),
            ("congestion_events", req(U64)),
            ("mtu", req(U64)),
        ],
    ),
    (
        "segments",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("endpoint", req(Text)),
            ("seq", req(U64)),
            ("len", req(U64)),
            ("ack", opt(U64)),
            ("retransmission", req(U64)),
        ],
    ),
    (
        "path_status",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("rssi_dbm", req(F64)),
            ("old_class", req(Text)),
            ("new_class", req(Text)),
            ("wifi_old", req(Text)),
            ("wifi_new", req(Text)),
            ("cell_old", req(Text)),
            ("cell_new", req(Text)),
        ],
    ),
    (
        "tfrc",
        &[
            ("time", req(F64)),
            ("flow", req(Text)),
            ("event", req(Text)),
            ("x_bps", req(F64)),
            ("x_recv_bps", req(F64)),
            ("p", req(F64)),
            ("rtt", opt(F64)),
        ],
    ),
];

/// Every record kind the scenario can ask for (captures are not tables).
const ALL: [RecordKind; 19] = [
    RecordKind::Queue,
    RecordKind::Delay,
    RecordKind::Drops,
    RecordKind::Rtt,
    RecordKind::Cwnd,
    RecordKind::Rto,
    RecordKind::Retransmits,
    RecordKind::Handovers,
    RecordKind::Switcher,
    RecordKind::Rlc,
    RecordKind::Wifi,
    RecordKind::WifiRx,
    RecordKind::RetryOut,
    RecordKind::Roaming,
    RecordKind::Rssi,
    RecordKind::Quic,
    RecordKind::Segments,
    RecordKind::PathStatus,
    RecordKind::Tfrc,
];

fn t(ms: u64) -> SimTime {
    SimTime::from_nanos(ms * 1_000_000)
}

/// Row `i` of every record kind, with nulls and several labels along the way.
fn record_all(traces: &mut Traces, i: u64) {
    let odd = i % 2 == 1;
    let flow = if odd { "bulk" } else { "ping" };
    let now = t(i);
    traces.record(&QueueRecord {
        time: now,
        link: "access",
        direction: "forward",
        packets: i,
        bytes: 1500 * i,
    });
    traces.record(&DelayRecord {
        time: now,
        flow,
        seq: i,
        sent: t(i / 2),
        delay: now.saturating_sub(t(i / 2)),
        size: 1000,
        conn: 1,
    });
    traces.record(&DropRecord {
        time: now,
        link: "access",
        direction: "reverse",
        reason: "queue",
        flow,
        uid: i,
        size: 1500,
    });
    traces.record(&RttRecord {
        time: now,
        flow,
        seq: i,
        rtt: t(40),
    });
    traces.record(&CwndRecord {
        time: now,
        flow,
        endpoint: "client",
        cwnd: 14480 + i,
        ssthresh: odd.then_some(u64::MAX - 1),
        in_flight: i,
        pacing_rate: odd.then_some(1_250_000 + i),
    });
    traces.record(&RtoRecord {
        time: now,
        flow,
        endpoint: "server",
        srtt: t(40),
        rttvar: t(10),
        rto: t(200),
    });
    traces.record(&RetransmitRecord {
        time: now,
        flow,
        endpoint: "client",
        kind: if odd { "rto_expiry" } else { "fast" },
        seq: (!odd).then_some(u32::MAX),
        len: (!odd).then_some(1448),
        backoff: odd.then_some(3),
        rto: odd.then_some(t(400)),
    });
    traces.record(&HandoverRecord {
        time: now,
        link: "lte",
        ue: "ue",
        cell: 1,
        loss_start: t(1),
    });
    traces.record(&SwitcherRecord {
        time: now,
        flow,
        event: "notice_received",
        last_sent: odd.then_some(t(3)),
        decision: odd.then_some("outsidewindow"),
    });
    traces.record(&RlcRecord {
        time: now,
        link: "radio",
        direction: "forward",
        buffer_bytes: i,
        pdus_sent: 2,
        pdus_retransmitted: 1,
    });
    traces.record(&RlcSduRecord {
        time: now,
        link: "radio",
        direction: "reverse",
        uid: i,
        delay: t(7),
    });
    traces.record(&WifiRecord {
        time: now,
        bss: "wlan",
        from: "sta",
        to: "ap",
        kind: "ampdu",
        rate_mbps: 65.0,
        mcs: (!odd).then_some(7.0),
        mpdus: 32,
        acked: 31,
        collision: odd,
        snr_db: -0.5,
    });
    traces.record(&WifiRxRecord {
        time: now,
        bss: "wlan",
        from: "sta",
        to: "ap",
        sn: 4095,
        fcs_ok: !odd,
        rate_mbps: 65.0,
    });
    traces.record(&RetryOutRecord {
        time: now,
        bss: "wlan",
        station: "sta",
        sn: 4095,
        failures: 3,
        index: 2,
        ewma_mbps: 13.0,
    });
    traces.record(&RoamingRecord {
        time: now,
        station: "sta",
        event: "joined",
        from_bss: "a",
        to_bss: "b",
        rssi_dbm: -71.25,
    });
    traces.record(&RssiRecord {
        time: now,
        station: "sta",
        bss: "a",
        rssi_dbm: f64::NEG_INFINITY,
        associated: odd,
    });
    traces.record(&QuicRecord {
        time: now,
        flow,
        endpoint: "client",
        path: i,
        cwnd: 12_000 + i,
        bytes_in_flight: 6_000 + i,
        srtt: t(40),
        pto_count: i % 4,
        sent_packets: 10 * i,
        lost_packets: i / 2,
        congestion_events: i / 3,
        mtu: 1452,
    });
    traces.record(&SegmentRecord {
        time: now,
        flow,
        endpoint: if odd { "server" } else { "client" },
        seq: 1 + 1460 * i,
        len: if odd { 0 } else { 1460 },
        ack: odd.then_some(1 + 1460 * i),
        retransmission: i.is_multiple_of(3),
    });
    traces.record(&PathStatusRecord {
        time: now,
        flow,
        rssi_dbm: -80.5,
        old_class: if odd { "strong" } else { "none" },
        new_class: "middle",
        wifi_old: "available",
        wifi_new: "available",
        cell_old: "backup",
        cell_new: "available",
    });
    traces.record(&TfrcRecord {
        time: now,
        flow,
        event: "feedback",
        x_bps: 1e6 + i as f64,
        x_recv_bps: 5e5,
        p: 0.01,
        rtt: odd.then(|| t(40)),
    });
}

#[test]
fn every_record_kind_declares_the_expected_table() {
    assert_eq!(SCHEMAS[TableId::CwndRecord as usize].name, "cwnd");
    assert_eq!(SCHEMAS[TableId::TfrcRecord as usize].name, "tfrc");
    for (schema, (name, columns)) in SCHEMAS.iter().zip(EXPECTED) {
        assert_eq!(schema.name, name);
        assert_eq!(schema.columns, columns, "{name}");
    }
    // Every table belongs to a kind the scenario can ask for, and the other way round.
    let mut tables: Vec<&str> = ALL.iter().flat_map(|&k| sink_tables(k)).collect();
    tables.sort_unstable();
    let mut expected: Vec<&str> = EXPECTED.iter().map(|(n, _)| *n).collect();
    expected.sort_unstable();
    assert_eq!(tables, expected);
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
    let mut traces = Traces::in_memory(&ALL);
    for i in 0..3 {
        record_all(&mut traces, i);
    }
    let out = traces.finish().expect("in memory");
    assert_eq!(out.tables.len(), TableId::COUNT);
    for (table, schema) in out.tables.iter().zip(SCHEMAS) {
        assert_eq!(table.name, schema.name);
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
    let mut to_files = Traces::new(&ALL, &config).unwrap();
    let mut in_memory = Traces::in_memory(&ALL);
    // 11 rows: two full row groups of 4 and a last one of 3.
    for i in 0..11 {
        record_all(&mut to_files, i);
        record_all(&mut in_memory, i);
    }
    let files = to_files.finish().unwrap();
    let tables = in_memory.finish().unwrap().tables;
    assert!(files.tables.is_empty());
    assert_eq!(files.files.len(), TableId::COUNT);
    for ((path, table), schema) in files.files.iter().zip(&tables).zip(SCHEMAS) {
        assert_eq!(path, &dir.join(format!("{}.parquet", schema.name)));
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
        let mut traces = Traces::new(&ALL, &config).unwrap();
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
