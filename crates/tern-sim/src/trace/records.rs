//! The trace's lists, gathered from every slice, and the trace's own records.
//!
//! Each slice declares its records (`record!`, one struct per table, its fields the
//! table's columns in order) and a `records!` macro naming its record kinds (what
//! `record = [...]` turns on, with its doc) and their tables. The slices are those of the
//! transports' list ([`with_transports!`](crate::with_transports)), of the link
//! technologies' list ([`with_links!`](crate::with_links)), and three more named once in
//! `record_links!`: this module (the tables every run can fill, and captures), 802.11
//! (`wifi`, not a link technology) and the mechanisms (`mech`). From them one expansion
//! here makes [`RecordKind`], [`TableId`], [`Tabled`] and [`SCHEMAS`], so a slice's new
//! record kind is a change to its own folder only.
//!
//! Times (`SimTime`) are written in seconds, flags (`bool`) as 0/1, `Option` fields as
//! nullable columns.

use super::kind::Kind;
use super::record::Record;
use crate::engine::SimTime;

crate::record! {
    /// Queue length of a link direction, at every change.
    QueueRecord<'a> => "queue" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        packets: u64,
        bytes: u64,
    }
}

crate::record! {
    /// A message reached its receiving application: its one-way delay.
    DelayRecord<'a> => "delay" {
        time: SimTime,
        flow: &'a str,
        seq: u64,
        /// When the sending application sent it.
        sent: SimTime,
        /// One-way delay: arrival at the receiving application minus `sent`.
        delay: SimTime,
        size: u32,
        /// The TCP connection that carried it (1 = the first; 0 for UDP).
        conn: u64,
    }
}

crate::record! {
    /// A packet dropped, with where and why.
    DropRecord<'a> => "drops" {
        time: SimTime,
        link: &'a str,
        direction: &'a str,
        /// Why, e.g. "queue" (the queue was full), "aqm" (CoDel dropped it), "loss" (the
        /// link's loss model), "rlc-discard" (RLC AM gave the SDU up), "disassociated" (roaming).
        reason: &'a str,
        flow: &'a str,
        uid: u64,
        size: u32,
    }
}

/// This slice's record kinds and tables, gathered with every other slice's into the
/// trace's lists ([`crate::trace::records`]).
macro_rules! records {
    ($then:ident { $($state:tt)* }) => {
        $crate::$then! {
            { $($state)* }
            kinds {
                /// Queue length (packets, bytes) of every link direction at every change.
                Queue = "queue",
                /// One-way delay of every message delivered to an application.
                Delay = "delay",
                /// Every dropped packet, with where and why.
                Drops = "drops",
                /// A packet capture per link direction (`<link>.<direction>.pcap`), taken
                /// as each packet starts leaving its interface, with real IPv4/TCP/UDP headers.
                Pcap = "pcap",
            }
            tables {
                QueueRecord in trace::records => Queue,
                DelayRecord in trace::records => Delay,
                DropRecord in trace::records => Drops,
            }
        }
    };
}
pub(crate) use records;

crate::with_transports! { record_transports {} }

/// The name and columns of a table, as its record declares them, and the kind in a
/// scenario's `record = [...]` that turns it on.
#[derive(Clone, Copy, Debug)]
pub struct Schema {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Kind)],
    pub kind: RecordKind,
}

impl Schema {
    /// The schema of record `R`, recorded when the scenario asks for `kind`.
    pub const fn of<R: Record>(kind: RecordKind) -> Schema {
        Schema {
            name: R::NAME,
            columns: R::COLUMNS,
            kind,
        }
    }

    /// Bytes a row takes in memory.
    pub const fn row_bytes(&self) -> usize {
        let mut sum = 0;
        let mut i = 0;
        while i < self.columns.len() {
            sum += self.columns[i].1.width();
            i += 1;
        }
        sum
    }
}
