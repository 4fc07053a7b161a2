//! Helpers shared by the scenario-level tests.
#![allow(dead_code)]

use tern_sim::trace::{ColumnData, Table};
use tern_sim::RunOutput;

pub fn run(text: &str) -> RunOutput {
    tern_sim::run_text("test.toml", text, &[], None).unwrap_or_else(|e| panic!("{e}"))
}

pub fn table<'a>(out: &'a RunOutput, name: &str) -> &'a Table {
    out.tables
        .iter()
        .find(|t| t.name == name)
        .expect("table recorded")
}

pub fn f64s(t: &Table, col: &str) -> Vec<f64> {
    match &t
        .columns
        .iter()
        .find(|c| c.name == col)
        .expect("column")
        .data
    {
        ColumnData::F64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

pub fn u64s(t: &Table, col: &str) -> Vec<u64> {
    match &t
        .columns
        .iter()
        .find(|c| c.name == col)
        .expect("column")
        .data
    {
        ColumnData::U64(v) => v.clone(),
        other => panic!("{col} is {other:?}"),
    }
}

/// Two nodes `a` and `b` on one link named `l`, plus extra TOML.
pub fn p2p(rate: &str, delay: &str, queue: &str, duration: &str, extra: &str) -> String {
    format!(
        r#"
record = ["queue", "delay", "drops", "rtt"]
[sim]
duration = "{duration}"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "l"
ends = ["a", "b"]
rate = "{rate}"
delay = "{delay}"
queue = {queue}
{extra}
"#
    )
}

pub fn texts(t: &Table, col: &str) -> Vec<String> {
    match &t
        .columns
        .iter()
        .find(|c| c.name == col)
        .expect("column")
        .data
    {
        ColumnData::Text { labels, codes } => {
            codes.iter().map(|&c| labels[c as usize].clone()).collect()
        }
        other => panic!("{col} is {other:?}"),
    }
}
