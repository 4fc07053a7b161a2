//! Traces streamed to a folder: memory stays bounded however long the run, the files hold
//! what a run in memory holds, and a run that stops early leaves nothing behind.

use parquet::file::reader::{FileReader, SerializedFileReader};
use std::path::{Path, PathBuf};
use tern_sim::trace::{TraceConfig, TraceError, SCHEMAS};
use tern_sim::{RunError, RunOutput, World};

const P2P: &str = include_str!("../../../scenarios/examples/p2p-bulk.toml");

/// Every trace a point-to-point TCP run fills.
const ALL: &str = r#"["queue", "delay", "drops", "cwnd", "rto", "retransmits"]"#;

fn run(duration: &str, config: &TraceConfig) -> Result<RunOutput, RunError> {
    let overrides = [
        ("sim.duration".to_owned(), duration.to_owned()),
        ("record".to_owned(), ALL.to_owned()),
    ];
    let s = tern_sim::load("p2p-bulk.toml", P2P, &overrides, None).unwrap();
    let mut world = World::build(&s);
    world.trace_to(config).unwrap();
    world.run(&mut |_| true)
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tern-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn rows(path: &Path) -> i64 {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    reader.metadata().file_metadata().num_rows()
}

#[test]
fn a_long_run_to_a_folder_holds_one_row_group_per_table() {
    let dir = folder("long");
    let config = |d: &str| TraceConfig {
        dir: Some(dir.join(d)),
        row_group_rows: 2048,
        ..TraceConfig::default()
    };
    let short = run("10s", &config("short")).unwrap();
    let long = run("60s", &config("long")).unwrap();
    let memory = run("60s", &TraceConfig::default()).unwrap();
    // Bounded by one row group per table (plus the text dictionaries), not by the run.
    let bound: usize = SCHEMAS
        .iter()
        .filter(|s| memory.tables.iter().any(|t| t.name == s.name))
        .map(|s| 2048 * s.row_bytes() + 1024)
        .sum();
    for out in [&short, &long] {
        assert!(
            out.trace_peak_bytes <= bound as u64,
            "{} > {bound}",
            out.trace_peak_bytes
        );
    }
    // In memory, the same run holds every row.
    assert!(memory.trace_peak_bytes > 10 * long.trace_peak_bytes);
    assert!(long.tables.is_empty());
    assert_eq!(long.trace_files.len(), memory.tables.len());
    for (file, table) in long.trace_files.iter().zip(&memory.tables) {
        assert_eq!(file.file_stem().unwrap(), table.name);
        assert_eq!(rows(file), table.rows() as i64, "{}", table.name);
    }
    assert!(memory.tables.iter().any(|t| t.rows() > 20 * 2048));
    // The summary does not depend on where traces go.
    assert_eq!(
        serde_json::to_string(&long.summary).unwrap(),
        serde_json::to_string(&memory.summary).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_run_over_the_memory_cap_stops_and_says_to_give_a_folder() {
    let config = TraceConfig {
        max_memory: 1 << 20,
        ..TraceConfig::default()
    };
    let Err(RunError::Trace { at, error }) = run("60s", &config) else {
        panic!("the run should stop");
    };
    assert_eq!(error, TraceError::MemoryCap { limit: 1 << 20 });
    assert!(at.as_secs_f64() < 60.0);
    let message = RunError::Trace { at, error }.to_string();
    assert!(message.contains("--out DIR"), "{message}");
}

#[test]
fn an_interrupted_run_leaves_no_trace_file() {
    let dir = folder("stop");
    let config = TraceConfig {
        dir: Some(dir.clone()),
        ..TraceConfig::default()
    };
    let overrides = [("record".to_owned(), ALL.to_owned())];
    let s = tern_sim::load("p2p-bulk.toml", P2P, &overrides, None).unwrap();
    let mut world = World::build(&s);
    world.trace_to(&config).unwrap();
    let stopped = world.run(&mut |_| false);
    assert!(matches!(stopped, Err(RunError::Interrupted { .. })));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
