//! The `quic` table: a QUIC connection's path state from the stack's own statistics, one row
//! per endpoint whenever its congestion window, smoothed RTT or lost-packet count changed.
//! Rows are keyed by path id from the start (0 for single-path QUIC; multipath adds paths).

use super::{Cell, Kind, Table};
use crate::engine::SimTime;

/// One row of the `quic` table.
pub struct QuicPathRecord<'a> {
    pub time: SimTime,
    pub flow: &'a str,
    /// "client" or "server".
    pub endpoint: &'a str,
    pub path: u64,
    pub cwnd: u64,
    /// Smoothed RTT (RFC 9002 §5.3).
    pub srtt: SimTime,
    pub sent_packets: u64,
    /// Packets declared lost so far (RFC 9002 §6.1).
    pub lost_packets: u64,
    /// Congestion events so far (RFC 9002 §7.3.2).
    pub congestion_events: u64,
    /// Largest UDP payload the path carries (PMTUD, RFC 9000 §14.3).
    pub mtu: u64,
}

/// The table's columns, from [`QuicPathRecord`].
pub fn table(name: &'static str) -> Table {
    use Kind::*;
    Table::new(
        name,
        &[
            ("time", F64),
            ("flow", Text),
            ("endpoint", Text),
            ("path", U64),
            ("cwnd", U64),
            ("srtt", F64),
            ("sent_packets", U64),
            ("lost_packets", U64),
            ("congestion_events", U64),
            ("mtu", U64),
        ],
    )
}

impl QuicPathRecord<'_> {
    pub fn push(&self, table: &mut Table) {
        table.push(&[
            Cell::F64(self.time.as_secs_f64()),
            Cell::Text(self.flow),
            Cell::Text(self.endpoint),
            Cell::U64(self.path),
            Cell::U64(self.cwnd),
            Cell::F64(self.srtt.as_secs_f64()),
            Cell::U64(self.sent_packets),
            Cell::U64(self.lost_packets),
            Cell::U64(self.congestion_events),
            Cell::U64(self.mtu),
        ]);
    }
}
