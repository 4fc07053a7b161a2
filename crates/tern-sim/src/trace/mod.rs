//! Trace records collected into columnar tables.
//!
//! Models report typed events; the run keeps only the tables the scenario
//! asks for (`record = [...]`). A table is a set of equally long columns,
//! handed to the front end as raw little-endian buffers and written as Parquet.

pub mod pcap;
pub mod quic;

use crate::engine::SimTime;
use crate::scenario::RecordKind;

/// The values of one column.
#[derive(Clone, Debug, PartialEq)]
pub enum ColumnData {
    F64(Vec<f64>),
    U64(Vec<u64>),
    /// Strings stored as codes into a dictionary of distinct labels.
    Text {
        codes: Vec<u32>,
        labels: Vec<String>,
    },
}

impl ColumnData {
    pub fn len(&self) -> usize {
        match self {
            ColumnData::F64(v) => v.len(),
            ColumnData::U64(v) => v.len(),
            ColumnData::Text { codes, .. } => codes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub data: ColumnData,
}

/// One cell of a row being appended.
#[derive(Clone, Copy, Debug)]
pub enum Cell<'a> {
    F64(f64),
    U64(u64),
    Text(&'a str),
}

/// A table built row by row.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<Column>,
}

/// The kind of a column, fixed when the table is declared.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    F64,
    U64,
    Text,
}

impl Table {
    pub fn new(name: &'static str, columns: &[(&'static str, Kind)]) -> Self {
        let columns = columns
            .iter()
            .map(|&(name, kind)| Column {
                name,
                data: match kind {
                    Kind::F64 => ColumnData::F64(Vec::new()),
                    Kind::U64 => ColumnData::U64(Vec::new()),
                    Kind::Text => ColumnData::Text {
                        codes: Vec::new(),
                        labels: Vec::new(),
                    },
                },
            })
            .collect();
        Table { name, columns }
    }

    /// Appends a row; cells must match the declared column kinds.
    pub fn push(&mut self, row: &[Cell<'_>]) {
        debug_assert_eq!(row.len(), self.columns.len());
        for (col, cell) in self.columns.iter_mut().zip(row) {
            match (&mut col.data, *cell) {
                (ColumnData::F64(v), Cell::F64(x)) => v.push(x),
                (ColumnData::U64(v), Cell::U64(x)) => v.push(x),
                (ColumnData::Text { codes, labels }, Cell::Text(s)) => {
                    // Few distinct labels (flow and link names): a linear scan is enough.
                    let code = match labels.iter().position(|l| l == s) {
                        Some(i) => i,
                        None => {
                            labels.push(s.to_owned());
                            labels.len() - 1
                        }
                    };
                    codes.push(code as u32);
                }
                (data, cell) => panic!("column {} holds {data:?}, got {cell:?}", col.name),
            }
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.data.len())
    }
}

/// The trace tables of a run, present only when recorded.
#[derive(Debug, Default)]
pub struct Traces {
    pub queue: Option<Table>,
    pub delay: Option<Table>,
    pub drops: Option<Table>,
    pub rtt: Option<Table>,
    pub cwnd: Option<Table>,
    pub rto: Option<Table>,
    pub retransmits: Option<Table>,
    pub handovers: Option<Table>,
    pub switcher: Option<Table>,
    pub rlc: Option<Table>,
    pub rlc_sdu: Option<Table>,
    pub wifi: Option<Table>,
    pub wifi_rx: Option<Table>,
    pub roaming: Option<Table>,
    pub rssi: Option<Table>,
    pub quic: Option<Table>,
}

impl Traces {
    pub fn new(kinds: &[RecordKind]) -> Self {
        use Kind::*;
        let mut t = Traces::default();
        for kind in kinds {
            let name = kind.table_name();
            match kind {
                RecordKind::Queue => {
                    t.queue = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("link", Text),
                            ("direction", Text),
                            ("packets", U64),
                            ("bytes", U64),
                        ],
                    ))
                }
                RecordKind::Delay => {
                    t.delay = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("flow", Text),
                            ("seq", U64),
                            ("sent", F64),
                            ("delay", F64),
                            ("size", U64),
                            ("conn", U64),
                        ],
                    ))
                }
                RecordKind::Drops => {
                    t.drops = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("link", Text),
                            ("direction", Text),
                            ("reason", Text),
                            ("flow", Text),
                            ("uid", U64),
                            ("size", U64),
                        ],
                    ))
                }
                RecordKind::Rtt => {
                    t.rtt = Some(Table::new(
                        name,
                        &[("time", F64), ("flow", Text), ("seq", U64), ("rtt", F64)],
                    ))
                }
                RecordKind::Cwnd => {
                    t.cwnd = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("flow", Text),
                            ("endpoint", Text),
                            ("cwnd", U64),
                            ("ssthresh", U64),
                            ("in_flight", U64),
                        ],
                    ))
                }
                RecordKind::Rto => {
                    t.rto = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("flow", Text),
                            ("endpoint", Text),
                            ("srtt", F64),
                            ("rttvar", F64),
                            ("rto", F64),
                        ],
                    ))
                }
                RecordKind::Retransmits => {
                    t.retransmits = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("flow", Text),
                            ("endpoint", Text),
                            ("kind", Text),
                            ("seq", U64),
                            ("len", U64),
                            ("backoff", U64),
                            ("rto", F64),
                        ],
                    ))
                }
                RecordKind::Wifi => {
                    t.wifi = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("bss", Text),
                            ("from", Text),
                            ("to", Text),
                            ("kind", Text),
                            ("rate_mbps", F64),
                            ("mcs", F64),
                            ("mpdus", U64),
                            ("acked", U64),
                            ("collision", U64),
                            ("snr_db", F64),
                        ],
                    ))
                }
                RecordKind::WifiRx => {
                    t.wifi_rx = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("bss", Text),
                            ("from", Text),
                            ("to", Text),
                            ("sn", U64),
                            ("fcs_ok", U64),
                            ("rate_mbps", F64),
                        ],
                    ))
                }
                RecordKind::Roaming => {
                    t.roaming = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("station", Text),
                            ("event", Text),
                            ("from_bss", Text),
                            ("to_bss", Text),
                            ("rssi_dbm", F64),
                        ],
                    ))
                }
                RecordKind::Rssi => {
                    t.rssi = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("station", Text),
                            ("bss", Text),
                            ("rssi_dbm", F64),
                            ("associated", U64),
                        ],
                    ))
                }
                RecordKind::Quic => t.quic = Some(quic::table(name)),
                // Captures are files, not tables: see `World`.
                RecordKind::Pcap => {}
                RecordKind::Rlc => {
                    t.rlc = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("link", Text),
                            ("direction", Text),
                            ("buffer_bytes", U64),
                            ("pdus_sent", U64),
                            ("pdus_retransmitted", U64),
                        ],
                    ));
                    t.rlc_sdu = Some(Table::new(
                        "rlc_sdu",
                        &[
                            ("time", F64),
                            ("link", Text),
                            ("direction", Text),
                            ("uid", U64),
                            ("delay", F64),
                        ],
                    ));
                }
                RecordKind::Switcher => {
                    t.switcher = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("flow", Text),
                            ("event", Text),
                            ("last_sent", F64),
                            ("decision", Text),
                        ],
                    ))
                }
                RecordKind::Handovers => {
                    t.handovers = Some(Table::new(
                        name,
                        &[
                            ("time", F64),
                            ("link", Text),
                            ("ue", Text),
                            ("cell", U64),
                            ("loss_start", F64),
                        ],
                    ))
                }
            }
        }
        t
    }

    /// A message reached its receiving application `delay` after it was sent,
    /// over TCP connection `conn` (1 = the first; 0 for UDP).
    pub fn message_delivered(
        &mut self,
        now: SimTime,
        flow: &str,
        seq: u64,
        sent_at: SimTime,
        len: u32,
        conn: u64,
    ) {
        if let Some(t) = &mut self.delay {
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(flow),
                Cell::U64(seq),
                Cell::F64(sent_at.as_secs_f64()),
                Cell::F64(now.saturating_sub(sent_at).as_secs_f64()),
                Cell::U64(u64::from(len)),
                Cell::U64(conn),
            ]);
        }
    }

    /// A ping reply came back `rtt` after its request left.
    pub fn ping_reply(&mut self, now: SimTime, flow: &str, seq: u64, rtt: SimTime) {
        if let Some(t) = &mut self.rtt {
            t.push(&[
                Cell::F64(now.as_secs_f64()),
                Cell::Text(flow),
                Cell::U64(seq),
                Cell::F64(rtt.as_secs_f64()),
            ]);
        }
    }

    /// The recorded tables, in a fixed order.
    pub fn into_tables(self) -> Vec<Table> {
        [
            self.queue,
            self.delay,
            self.drops,
            self.rtt,
            self.cwnd,
            self.rto,
            self.retransmits,
            self.handovers,
            self.switcher,
            self.rlc,
            self.rlc_sdu,
            self.wifi,
            self.wifi_rx,
            self.roaming,
            self.rssi,
            self.quic,
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}
