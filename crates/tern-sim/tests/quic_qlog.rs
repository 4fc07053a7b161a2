//! The qlog files of QUIC flows: simulated times, what qvis's loader asks of a file, and
//! streaming into the output folder (bounded memory, nothing left by a run that stops early,
//! a failed write stops the run).

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tern_sim::trace::{TraceConfig, TraceError};
use tern_sim::transport::quic::qvis;
use tern_sim::{RunError, RunOutput, World};

#[test]
fn qlog_files_have_simulated_times() {
    let text = quic_link(
        STEADY,
        "1s",
        r#"{ kind = "bulk", bytes = "20000B" }"#,
        "",
        r#""qlog""#,
    );
    let out = run(&text);
    let server = records(log(&out, "f.server.sqlog"));
    // The header record (draft-ietf-quic-qlog-main-schema-13 §5), then events.
    assert_eq!(
        server[0]["serialization_format"],
        "application/qlog+json-seq"
    );
    assert_eq!(server[0]["trace"]["vantage_point"]["type"], "server");
    // The client starts at 0 s; its first datagram is an Initial padded to 1200 B of UDP
    // payload (RFC 9000 §14.1), 1228 B with IPv4 and UDP headers: 0.9824 ms on the 10 Mbit/s
    // link, then 20 ms of propagation. Times are ms from simulated time zero, in µs.
    let first_rx = server
        .iter()
        .find(|e| e["name"] == "transport:packet_received")
        .expect("a received packet");
    let t = first_rx["time"].as_f64().unwrap();
    assert!(
        (t - 20.9824).abs() < 0.001,
        "first packet received at {t} ms"
    );
    // The client logs every packet its stack counts as sent.
    let client = records(log(&out, "f.client.sqlog"));
    let sent = client
        .iter()
        .filter(|e| e["name"] == "transport:packet_sent")
        .count() as u64;
    let q = out.summary.flows["f"].quic().cloned().unwrap();
    assert_eq!(sent, q.packets_sent);
    assert_eq!(client[1]["time"].as_f64(), Some(0.0));
}

/// A 200 kB upload over the steady link with 2 % random loss both ways (so recovery events
/// take part), for `duration`, recording qlog.
fn lossy(duration: &str) -> String {
    let link = format!("{STEADY}\nloss = {{ kind = \"bernoulli\", p = 0.02 }}");
    let app = r#"{ kind = "bulk", bytes = "200000B" }"#;
    quic_link(&link, duration, app, "", r#""qlog""#)
}

/// What qvis (quiclog/qvis, `visualizations/src`) asks of a file it loads, from its source:
/// `FileLoader.ts` (a `.sqlog` name means JSON-SEQ), `TextSequenceJSONToQlog` (records
/// split at RS, each a JSON text; the first, the header, needs `qlog_version`,
/// `qlog_format` = "JSON-SEQ" and `trace`), `QlogLoaderV2` (the versions it loads, the
/// `QlogSchema02.ts` aliases; events as { time, name = "category:type", data }, in time
/// order), and what its congestion graph and sequence diagram read (`transport:packet_sent`
/// with `data.header.packet_type` among its `PacketType`s, `data.header.packet_number` and
/// `data.raw.length`; `transport:packet_received`, `transport:parameters_set`,
/// `recovery:metrics_updated`, `recovery:packet_lost`). An event qlog 0.3 does not define
/// keeps its draft-13 name in the `quic` namespace: qvis lists any category it does not draw.
fn check_qvis_can_load(name: &str, log: &[u8], side: &str) -> Vec<String> {
    assert!(name.ends_with(".sqlog"), "{name}");
    let mut records = records(log).into_iter();
    let header = records.next().expect("a header");
    let versions = ["draft-02", "draft-02-RC1", "qlog-03-WIP", "0.3"];
    assert!(
        versions.iter().any(|v| header["qlog_version"] == *v),
        "{name}: {header}"
    );
    assert_eq!(header["qlog_format"], "JSON-SEQ", "{name}");
    assert_eq!(header["trace"]["vantage_point"]["type"], side, "{name}");
    // Times: no time_format, and a reference_time that is not a number or a date string, which
    // qvis then reads as relative times from 0 (`DirectEventParser.init`, `parseReferenceTime`):
    // the simulated milliseconds.
    let common = &header["trace"]["common_fields"];
    assert!(common.get("time_format").is_none(), "{common}");
    assert!(common["reference_time"].is_object(), "{common}");
    let categories = [
        "connectivity",
        "security",
        "transport",
        "recovery",
        "http",
        "qpack",
        "error",
        "warning",
        "info",
        "debug",
        "verbose",
        "simulation",
    ];
    let packet_types = ["initial", "handshake", "0RTT", "1RTT", "retry"];
    let mut last = 0.0;
    let mut names = Vec::new();
    for e in records {
        let time = e["time"].as_f64().expect("a numeric time");
        assert!(time >= last, "{name}: {e} before {last} ms");
        last = time;
        let full = e["name"].as_str().expect("a name");
        let (category, _) = full.split_once(':').expect("category:type");
        let draft13_only = category == "quic" && qvis::qlog_03_name(full).is_none();
        assert!(
            categories.contains(&category) || draft13_only,
            "{name}: {full}"
        );
        if full == "transport:packet_sent" {
            let d = &e["data"];
            assert!(d["header"]["packet_number"].is_u64(), "{e}");
            let ty = d["header"]["packet_type"].as_str().unwrap();
            assert!(packet_types.contains(&ty), "{e}");
            assert!(d["raw"]["length"].as_u64().unwrap() > 0, "{e}");
        }
        if !names.iter().any(|n| n == full) {
            names.push(full.to_owned());
        }
    }
    names
}

#[test]
fn qvis_loader_accepts_the_files() {
    let out = run(&lossy("3s"));
    assert!(out.summary.flows["f"].quic().unwrap().packets_lost > 0);
    for side in ["client", "server"] {
        let name = format!("f.{side}.sqlog");
        let names = check_qvis_can_load(&name, log(&out, &name), side);
        for want in [
            "transport:packet_sent",
            "transport:packet_received",
            "transport:parameters_set",
            "recovery:metrics_updated",
        ] {
            assert!(
                names.iter().any(|n| n == want),
                "{name}: {want} in {names:?}"
            );
        }
    }
    // The client sends the data: its losses are found.
    let names = check_qvis_can_load("f.client.sqlog", log(&out, "f.client.sqlog"), "client");
    assert!(
        names.iter().any(|n| n == "recovery:packet_lost"),
        "{names:?}"
    );
}

/// What draft-ietf-quic-qlog-main-schema-13 and draft-ietf-quic-qlog-quic-events-12 ask of
/// the header and of the events Tern's files have that qvis does not read: §5 (QlogFileSeq's
/// `file_schema`), §5.1 (TraceSeq: `event_schemas`, at least one URI; quic-events-12 §2.1: a
/// draft's URI ends in "-12"), §7.1 (ReferenceTime: `clock_type` "system" or "monotonic",
/// whose `epoch` MUST be "unknown"), §11.2 (`serialization_format`); quic-events-12 §6.1
/// (`key_updated`: a KeyType, `key_phase` for 1-RTT keys, a trigger), §7 `packet_lost` (at
/// least `packet_type` and `packet_number`; with multipath, §8's `PacketHeader.path_id`),
/// and §4 `tuple_assigned` (a `tuple_id`). Returns the `key_updated` and `packet_lost` data.
fn check_draft_13(name: &str, log: &[u8]) -> (Vec<Value>, Vec<Value>) {
    let records = records(log);
    let header = &records[0];
    assert_eq!(
        header["file_schema"], "urn:ietf:params:qlog:file:sequential",
        "{name}"
    );
    assert_eq!(header["serialization_format"], "application/qlog+json-seq");
    let schemas = header["trace"]["event_schemas"].as_array().expect("a list");
    assert!(
        schemas
            .iter()
            .any(|s| s == "urn:ietf:params:qlog:events:quic-12"),
        "{name}: {schemas:?}"
    );
    let reference = &header["trace"]["common_fields"]["reference_time"];
    let clock = reference["clock_type"].as_str().expect("a clock type");
    assert!(["system", "monotonic"].contains(&clock), "{reference}");
    if clock == "monotonic" {
        assert_eq!(reference["epoch"], "unknown", "{reference}");
    }
    let key_types = ["client_1rtt_secret", "server_1rtt_secret"];
    let triggers = ["tls", "remote_update", "local_update"];
    let (mut keys, mut lost) = (Vec::new(), Vec::new());
    for e in &records[1..] {
        let d = &e["data"];
        match e["name"].as_str().unwrap() {
            "security:key_updated" => {
                assert!(key_types.contains(&d["key_type"].as_str().unwrap()), "{e}");
                assert!(d["key_phase"].is_u64(), "{e}");
                assert!(triggers.contains(&d["trigger"].as_str().unwrap()), "{e}");
                keys.push(d.clone());
            }
            "recovery:packet_lost" => {
                assert!(d["header"]["packet_type"].is_string(), "{e}");
                assert!(d["header"]["packet_number"].is_u64(), "{e}");
                assert!(d["header"]["path_id"].is_u64(), "{e}");
                lost.push(d.clone());
            }
            "quic:tuple_assigned" => assert!(d["tuple_id"].is_string(), "{e}"),
            other => assert_ne!(other, "connectivity:tuple_assigned", "not a qlog 0.3 event"),
        }
    }
    (keys, lost)
}

/// A 2 MB download over two paths (`ue`'s `wlan` and `cell`, 10 Mbit/s, 10 ms and 20 ms) with
/// 1 % random loss each, recording qlog: losses on both paths, and a key update (the stack's
/// first comes after at most 999 packets).
fn multipath_lossy() -> String {
    let link = |delay: &str| {
        format!(
            "rate = \"10Mbps\"\ndelay = \"{delay}\"\nqueue = {{ kind = \"droptail\", limit = \"100pkt\" }}\nloss = {{ kind = \"bernoulli\", p = 0.01 }}"
        )
    };
    let core = "rate = \"1Gbps\"\ndelay = \"1ms\"";
    two_homed(
        "20s",
        "\"qlog\"",
        [&link("10ms"), &link("20ms"), core],
        r#"[[flows]]
name = "get"
from = "ue"
to = "server"
app = { kind = "file", size = "2MB" }
transport = { kind = "quic", paths = [{ via = "wlan" }, { via = "cell" }] }"#,
    )
}

#[test]
fn multipath_files_follow_draft_13_and_qvis_loads_them() {
    let out = run(&multipath_lossy());
    let (mut lost_paths, mut triggers) = (Vec::new(), Vec::new());
    for side in ["client", "server"] {
        let name = format!("get.{side}.sqlog");
        check_qvis_can_load(&name, log(&out, &name), side);
        let (keys, lost) = check_draft_13(&name, log(&out, &name));
        // One update, both directions' secrets (RFC 9001 §6): one endpoint starts it (the
        // first to end its random first key phase), the other follows.
        assert_eq!(keys.len(), 2, "{name}: {keys:?}");
        assert!(keys.iter().all(|k| k["key_phase"] == 1), "{name}: {keys:?}");
        assert_eq!(keys[0]["trigger"], keys[1]["trigger"], "{name}");
        triggers.push(keys[0]["trigger"].as_str().unwrap().to_owned());
        if side == "server" {
            lost_paths.extend(
                lost.iter()
                    .map(|d| d["header"]["path_id"].as_u64().unwrap()),
            );
        }
    }
    triggers.sort();
    assert_eq!(triggers, ["local_update", "remote_update"]);
    // The summary's per-path losses (the data sender's, the server's) are the ones its qlog
    // names by path.
    let quic = out.summary.flows["get"].quic().unwrap();
    for (i, (iface, path)) in quic.paths.iter().enumerate() {
        let logged = lost_paths.iter().filter(|&&p| p == i as u64).count() as u64;
        assert!(path.packets_lost > 0, "{iface}: no loss to check");
        assert_eq!(logged, path.packets_lost, "{iface}");
    }
}

/// For `duration`, a QUIC flow of 1000-B messages every 10 ms recording qlog, beside a UDP
/// flow the other way of 40-B messages every 100 µs (5.4 Mbit/s with headers on the
/// 10 Mbit/s link) whose cheap events bring the world's progress checks (every 65 536
/// events) every 2 s or so.
fn with_progress_checks(duration: &str) -> String {
    let quic = quic_link(
        STEADY,
        duration,
        r#"{ kind = "periodic", size = "1000B", interval = "10ms" }"#,
        "",
        r#""qlog""#,
    );
    format!(
        r#"{quic}
[[flows]]
name = "u"
from = "b"
to = "a"
app = {{ kind = "periodic", size = "40B", interval = "100us" }}
transport = {{ kind = "udp" }}
"#
    )
}

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tern-qlog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `text` with its outputs streamed to `dir`, calling `progress` now and then.
fn run_to(
    text: &str,
    dir: &Path,
    progress: &mut dyn FnMut(tern_sim::engine::SimTime) -> bool,
) -> Result<RunOutput, RunError> {
    let s = tern_sim::load("qlog.toml", text, &[], None).unwrap();
    let mut world = World::build(&s);
    let config = TraceConfig {
        dir: Some(dir.to_owned()),
        ..TraceConfig::default()
    };
    world.trace_to(&config).unwrap();
    world.run(progress)
}

#[test]
fn qlog_streams_into_the_folder_as_the_run_goes() {
    let dir = folder("stream");
    let text = with_progress_checks("10s");
    let client = dir.join("f.client.sqlog");
    let mut sizes = Vec::new();
    let out = run_to(&text, &dir, &mut |_| {
        sizes.push(std::fs::metadata(&client).map_or(0, |m| m.len()));
        true
    })
    .unwrap();
    // Nothing held in memory: the files are listed, and were written during the run.
    assert!(out.captures.iter().all(|(n, _)| !n.ends_with(".sqlog")));
    assert!(out.capture_files.contains(&client));
    let end = std::fs::metadata(&client).unwrap().len();
    assert!(sizes.len() > 2, "{sizes:?}");
    assert!(
        sizes.iter().any(|&s| s > 0 && s < end),
        "{sizes:?}, {end} at the end"
    );
    // The same bytes as a run that keeps them in memory.
    let memory = run(&text);
    for side in ["client", "server"] {
        let name = format!("f.{side}.sqlog");
        assert_eq!(std::fs::read(dir.join(&name)).unwrap(), log(&memory, &name));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_interrupted_run_leaves_no_qlog_file() {
    let dir = folder("stop");
    let stopped = run_to(&with_progress_checks("10s"), &dir, &mut |t| {
        t.as_secs_f64() < 1.0
    });
    assert!(matches!(stopped, Err(RunError::Interrupted { .. })));
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_qlog_write_stops_the_run_with_a_trace_error() {
    // The client's qlog goes to /dev/full, where every write fails (ENOSPC).
    let dir = folder("full");
    let client = dir.join("f.client.sqlog");
    std::os::unix::fs::symlink("/dev/full", &client).unwrap();
    let failed = run_to(&with_progress_checks("10s"), &dir, &mut |_| true);
    let Err(RunError::Trace { at, error }) = failed else {
        panic!("the run should stop");
    };
    let TraceError::Write { path, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(path, &client);
    assert!(at.as_secs_f64() < 10.0, "stopped at {at}");
    // Nothing left behind (the link to /dev/full included).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
