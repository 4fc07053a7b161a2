//! The binding of emulation (`tern emulate`): the scenario's real nodes, their TUN devices,
//! and the real-time run. Namespaces, addresses and commands are the Python side's.

use std::fs::File;
use std::os::fd::{BorrowedFd, IntoRawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tern_sim::emu::{Bounds, Control, RealPort};
use tern_sim::engine::SimTime;
use tern_sim::net::packet::NodeId;
use tern_sim::scenario;
use tern_sim::world::topology::real_nodes as scenario_real_nodes;

use super::{built, load, output_tuple, run_result, EmulationError};

/// A real node for Python: name, address, TUN MTU, commands.
type RealNodeRow = (String, String, u32, Vec<String>);

/// The scenario's real nodes: `[(name, address, mtu, commands)]`, in scenario order.
#[pyfunction]
#[pyo3(signature = (text, name, overrides=Vec::new(), seed=None))]
fn real_nodes(
    text: &str,
    name: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<Vec<RealNodeRow>> {
    let s = load(name, text, overrides, seed)?;
    Ok(scenario_real_nodes(&s)
        .into_iter()
        .map(|r| {
            let [a, b, c, d] = r.addr;
            (r.name, format!("{a}.{b}.{c}.{d}"), r.mtu, r.commands)
        })
        .collect())
}

/// Every node's address in an emulation, real or not (`[(name, address)]`, scenario order):
/// a real host reaches a Tern node's TCP endpoint there.
#[pyfunction]
#[pyo3(signature = (text, name, overrides=Vec::new(), seed=None))]
fn node_addresses(
    text: &str,
    name: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
) -> PyResult<Vec<(String, String)>> {
    let s = load(name, text, overrides, seed)?;
    Ok(s.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let [a, b, c, d] = tern_sim::emu::real_addr(NodeId(i as u32));
            (n.name.clone(), format!("{a}.{b}.{c}.{d}"))
        })
        .collect())
}

/// Opens a TUN device named `device` in the network namespace `netns` (made by
/// `ip netns add`) and returns its file descriptor, which the caller closes.
#[pyfunction]
fn open_tun(netns: &str, device: &str) -> PyResult<i32> {
    tern_sim::emu::tun::open_in(netns, device)
        .map(IntoRawFd::into_raw_fd)
        .map_err(|e| {
            EmulationError::new_err(format!(
                "cannot open TUN device {device:?} in namespace {netns:?}: {e}"
            ))
        })
}

/// Runs a scenario in real time, the real nodes' packets crossing the TUN devices `tuns`
/// (`[(node name, file descriptor)]`, duplicated here: the caller keeps and closes its
/// own). `control(now_s)` is called every 50 ms: false ends the run normally, an
/// exception (or Ctrl-C) stops it. Lateness past `warn_us` is reported, past `fail_us`
/// raises `EmulationError`. Returns what `run` returns.
#[pyfunction]
#[pyo3(signature = (text, name, tuns, control, overrides=Vec::new(), seed=None, out=None, warn_us=1_000, fail_us=10_000))]
#[allow(clippy::too_many_arguments)]
fn emulate<'py>(
    py: Python<'py>,
    text: &str,
    name: &str,
    tuns: Vec<(String, i32)>,
    control: PyObject,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    out: Option<PathBuf>,
    warn_us: u64,
    fail_us: u64,
) -> PyResult<Bound<'py, PyTuple>> {
    let s = load(name, text, overrides, seed)?;
    let resolved = scenario::resolved_toml(&s);
    let real = scenario_real_nodes(&s);
    let mut ports = Vec::new();
    for (node, fd) in tuns {
        let Some(r) = real.iter().find(|r| r.name == node) else {
            return Err(EmulationError::new_err(format!(
                "{node:?} is not a real node of the scenario"
            )));
        };
        // SAFETY: the caller passes an open descriptor and keeps it open during this call.
        let owned = unsafe { BorrowedFd::borrow_raw(fd) }.try_clone_to_owned()?;
        ports.push(RealPort {
            node: r.node,
            tun: File::from(owned),
        });
    }
    let bounds = Bounds {
        warn: SimTime::from_micros(warn_us),
        fail: SimTime::from_micros(fail_us),
    };
    let mut callback_error: Option<PyErr> = None;
    let outcome = py.allow_threads(|| {
        catch_unwind(AssertUnwindSafe(|| {
            built(&s, out, None)?.run_realtime(ports, bounds, &mut |now: SimTime| {
                Python::with_gil(|py| {
                    let result = py.check_signals().and_then(|()| {
                        control.call1(py, (now.as_secs_f64(),))?.extract::<bool>(py)
                    });
                    match result {
                        Ok(true) => Control::Go,
                        Ok(false) => Control::End,
                        Err(e) => {
                            callback_error = Some(e);
                            Control::Stop
                        }
                    }
                })
            })
        }))
    });
    let output = run_result(outcome, callback_error, name, s.sim.seed)?;
    output_tuple(py, &output, resolved)
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(real_nodes, m)?)?;
    m.add_function(wrap_pyfunction!(node_addresses, m)?)?;
    m.add_function(wrap_pyfunction!(open_tun, m)?)?;
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    Ok(())
}
