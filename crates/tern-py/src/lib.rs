//! `tern._core`: the thin binding between the Rust simulator and Python.
//!
//! The Rust side knows nothing of Python beyond this file. A run releases the
//! GIL while it goes, checks for Ctrl-C at each progress report, and never lets
//! a Rust panic escape: it becomes `tern.TernBug`, naming the scenario and seed.

#[cfg(target_os = "linux")]
mod emulate;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt, PyMemoryError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use tern_sim::engine::SimTime;
use tern_sim::scenario::{self, Scenario};
use tern_sim::trace::{ColumnData, TraceConfig, DEFAULT_MAX_TRACE_MEMORY};
use tern_sim::{RunError, RunOutput, World};

/// The Rust side's allocations go to glibc's heap, with transparent huge pages for what it
/// grows into (`tern_sim::heap`: many flows run faster with fewer TLB misses).
#[global_allocator]
static HEAP: tern_sim::heap::HugePageHeap = tern_sim::heap::HugePageHeap;

create_exception!(
    _core,
    ScenarioError,
    PyException,
    "A scenario that Tern cannot run: the message names the file, line and key."
);
create_exception!(
    _core,
    TraceError,
    PyException,
    "The traces of a run could not be kept: too large for memory without an output \
     folder, or a trace file could not be written."
);
create_exception!(
    _core,
    EmulationError,
    PyException,
    "An emulation that cannot start or go on: no permission, no real node, a TUN device \
     that failed, or an engine that fell too far behind the wall clock."
);
create_exception!(
    _core,
    TernBug,
    PyException,
    "An internal error of Tern (a bug), with the scenario and seed to reproduce it."
);

/// A scenario error as the Python exception, its parts kept as attributes: `file` and
/// `line` (None for a `--set` override, or when unknown), `key` (dotted path, may be
/// empty) and `message` (what was given and what was expected).
fn scenario_error(e: scenario::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    Python::with_gil(|py| {
        let value = err.value(py);
        let (file, line) = match &e.origin {
            scenario::Origin::File { name, line } => (Some(name.as_str()), *line),
            scenario::Origin::Override => (None, None),
        };
        let parts = [
            value.setattr("file", file),
            value.setattr("line", line),
            value.setattr("key", e.key.as_str()),
            value.setattr("message", e.message.as_str()),
        ];
        parts
            .into_iter()
            .find_map(Result::err)
            .map_or(err.clone_ref(py), |e| e)
    })
}

/// Loads and checks a scenario; a panic while doing so (a bug) becomes `TernBug`.
fn load(
    name: &str,
    text: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<Scenario> {
    match catch_unwind(|| tern_sim::load(name, text, &overrides, seed)) {
        Ok(loaded) => loaded.map_err(scenario_error),
        Err(payload) => Err(TernBug::new_err(format!(
            "internal error in Tern while checking the scenario (a bug, not a problem with \
             your scenario): {}\nscenario: {name}; please report it with this scenario file",
            panic_message(payload)
        ))),
    }
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned())
}

/// Checks a scenario and returns it resolved (defaults filled in) as TOML.
#[pyfunction]
#[pyo3(signature = (text, name, overrides=Vec::new(), seed=None))]
fn validate(
    text: &str,
    name: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<String> {
    let s = load(name, text, overrides, seed)?;
    Ok(scenario::resolved_toml(&s))
}

/// The scenario format as a JSON Schema document.
#[pyfunction]
fn schema() -> String {
    scenario::json_schema()
}

/// Every trace table a run can record, as `(table_name, [column_name, ...])` in the order a
/// run lists them: what a results folder's `<table>.parquet` must hold.
#[pyfunction]
fn trace_columns() -> Vec<(&'static str, Vec<&'static str>)> {
    tern_sim::trace::SCHEMAS
        .iter()
        .map(|s| (s.name, s.columns.iter().map(|(c, _)| *c).collect()))
        .collect()
}

/// Runs a scenario.
///
/// Returns `(summary_json, resolved_toml, tables, captures, files)`. Without `out`, the
/// traces stay in memory (at most `max_trace_memory` bytes, 1 GiB by default) and `tables`
/// is a list of `(table_name, [(column_name, kind, data, labels, valid)])`: `kind` is
/// `"f64"`, `"u64"` or `"text"`; `data` is little-endian bytes (`u32` codes for text, with
/// `labels` the dictionary; `labels` is `None` otherwise); `valid` is `None` for a column
/// that is never null, else one byte per row (0: null). With `out`, each trace is written
/// to `out/<table>.parquet` as the run goes, `tables` is empty and `files` lists
/// `(table_name, path)`. `captures` is a list of `(file_name, pcap_bytes)`, or with `out`
/// `(file_name, path)` for the captures written there as the run went.
/// `progress(now_s, end_s)` is called now and then; Ctrl-C stops the run with
/// `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (text, name, overrides=Vec::new(), seed=None, progress=None, out=None, max_trace_memory=None))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    name: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    progress: Option<PyObject>,
    out: Option<PathBuf>,
    max_trace_memory: Option<u64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let s = load(name, text, overrides, seed)?;
    let resolved = scenario::resolved_toml(&s);
    let end = s.sim.duration.0.as_secs_f64();
    let mut callback_error: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            built(&s, out, max_trace_memory)?.run(&mut |now: SimTime| {
                Python::with_gil(|py| {
                    let result = py.check_signals().and_then(|()| match &progress {
                        Some(cb) => cb.call1(py, (now.as_secs_f64(), end)).map(drop),
                        None => Ok(()),
                    });
                    match result {
                        Ok(()) => true,
                        Err(e) => {
                            callback_error = Some(e);
                            false
                        }
                    }
                })
            })
        }))
    });
    let output = run_result(outcome, callback_error, name, s.sim.seed)?;
    output_tuple(py, &output, resolved)
}

/// The world of scenario `s`, its traces going to folder `out` (or kept in memory, at
/// most `max_memory` bytes, 1 GiB by default).
fn built(s: &Scenario, out: Option<PathBuf>, max_memory: Option<u64>) -> Result<World, RunError> {
    let config = TraceConfig {
        dir: out,
        max_memory: max_memory.unwrap_or(DEFAULT_MAX_TRACE_MEMORY),
        ..TraceConfig::default()
    };
    let mut world = World::build(s);
    world.trace_to(&config).map_err(|error| RunError::Trace {
        at: SimTime::ZERO,
        error,
    })?;
    Ok(world)
}

/// The output of a run, or the Python exception for how it ended.
fn run_result(
    outcome: std::thread::Result<Result<RunOutput, RunError>>,
    callback_error: Option<PyErr>,
    name: &str,
    seed: u64,
) -> PyResult<RunOutput> {
    match outcome {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(RunError::Interrupted { at })) => Err(callback_error
            .unwrap_or_else(|| PyKeyboardInterrupt::new_err(format!("run stopped at {at}")))),
        Ok(Err(e @ RunError::Trace { .. })) => Err(TraceError::new_err(e.to_string())),
        Ok(Err(e @ RunError::Memory { .. })) => Err(PyMemoryError::new_err(e.to_string())),
        Ok(Err(e @ (RunError::Behind { .. } | RunError::Tun { .. }))) => {
            Err(EmulationError::new_err(e.to_string()))
        }
        Err(payload) => Err(TernBug::new_err(format!(
            "internal error in Tern (a bug, not a problem with your scenario): {}\n\
             scenario: {name}, seed: {seed}; please report it with this scenario file and seed",
            panic_message(payload),
        ))),
    }
}

/// `(summary_json, resolved_toml, tables, captures, files)` of a finished run.
fn output_tuple<'py>(
    py: Python<'py>,
    output: &RunOutput,
    resolved: String,
) -> PyResult<Bound<'py, PyTuple>> {
    let summary = serde_json::to_string_pretty(&output.summary).expect("summary serializes");
    let tables = PyList::empty(py);
    for table in &output.tables {
        let cols = PyList::empty(py);
        for col in &table.columns {
            let valid = col.valid.as_ref().map(|v| {
                let bytes: Vec<u8> = v.iter().map(|&b| u8::from(b)).collect();
                PyBytes::new(py, &bytes)
            });
            let (name, kind, data, labels) = match &col.data {
                ColumnData::F64(v) => {
                    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    (
                        col.name,
                        "f64",
                        PyBytes::new(py, &bytes),
                        None::<Vec<String>>,
                    )
                }
                ColumnData::U64(v) => {
                    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                    (col.name, "u64", PyBytes::new(py, &bytes), None)
                }
                ColumnData::Text { codes, labels } => {
                    let bytes: Vec<u8> = codes.iter().flat_map(|x| x.to_le_bytes()).collect();
                    (
                        col.name,
                        "text",
                        PyBytes::new(py, &bytes),
                        Some(labels.clone()),
                    )
                }
            };
            cols.append((name, kind, data, labels, valid))?;
        }
        tables.append((table.name, cols))?;
    }
    let captures = PyList::empty(py);
    for (file, bytes) in &output.captures {
        captures.append((file, PyBytes::new(py, bytes)))?;
    }
    for path in &output.capture_files {
        let file = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        captures.append((file, path))?;
    }
    let files = PyList::empty(py);
    for path in &output.trace_files {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        files.append((stem, path))?;
    }
    PyTuple::new(
        py,
        [
            summary.into_pyobject(py)?.into_any(),
            resolved.into_pyobject(py)?.into_any(),
            tables.into_any(),
            captures.into_any(),
            files.into_any(),
        ],
    )
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("TernBug", m.py().get_type::<TernBug>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add("EmulationError", m.py().get_type::<EmulationError>())?;
    #[cfg(target_os = "linux")]
    emulate::register(m)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(trace_columns, m)?)?;
    Ok(())
}
