"""Type stubs of `tern._core`, the Rust simulator's binding (crates/tern-py/src/lib.rs).

Use it through `tern.run`, `tern.validate` and `tern.schema`; these are their building blocks.
"""

import os
from collections.abc import Callable, Sequence

__version__: str

class ScenarioError(Exception):
    """A scenario that Tern cannot run: the message names the file, line and key.

    The parts are attributes too (set on every ScenarioError Tern raises).
    """

    #: The scenario file, or None for a `--set` override.
    file: str | None
    #: 1-based line in `file`, when known.
    line: int | None
    #: Dotted key path such as `links[0].rate`; empty for whole-file problems.
    key: str
    #: What was given and what was expected.
    message: str

class TraceError(Exception):
    """The traces of a run could not be kept: too large for memory without an output
    folder, or a trace file could not be written."""

class EmulationError(Exception):
    """An emulation that cannot start or go on: no permission, no real node, a TUN device
    that failed, or an engine that fell too far behind the wall clock."""

class TernBug(Exception):
    """An internal error of Tern (a bug), with the scenario and seed to reproduce it."""

#: One trace column: (name, kind, little-endian data, labels, valid). `kind` is "f64", "u64"
#: or "text" (then `data` holds u32 codes into `labels`; `labels` is None otherwise); `valid`
#: is None for a column that is never null, else one byte per row (0: null).
Column = tuple[str, str, bytes, list[str] | None, bytes | None]

def validate(
    text: str, name: str, overrides: Sequence[tuple[str, str]] = ..., seed: int | None = None
) -> str:
    """Checks a scenario and returns it resolved (defaults filled in) as TOML."""

def schema() -> str:
    """The scenario format as a JSON Schema document."""

def trace_columns() -> list[tuple[str, list[str]]]:
    """Every trace table a run can record, with its column names, in the order a run lists them."""

def run(
    text: str,
    name: str,
    overrides: Sequence[tuple[str, str]] = ...,
    seed: int | None = None,
    progress: Callable[[float, float], object] | None = None,
    out: str | os.PathLike[str] | None = None,
    max_trace_memory: int | None = None,
) -> tuple[
    str,
    str,
    list[tuple[str, list[Column]]],
    list[tuple[str, bytes | str | os.PathLike[str]]],
    list[tuple[str, str]],
]:
    """Runs a scenario: (summary JSON, resolved TOML, trace tables, packet captures, trace
    files). A capture is its bytes, or with `out` the path of the file written there.

    Without `out` the traces stay in memory (at most `max_trace_memory` bytes, 1 GiB by
    default; past that `TraceError`); with it each trace streams to `out/<table>.parquet`
    and `files` lists (table, path). `progress(now_s, end_s)` is called now and then; Ctrl-C
    stops the run with `KeyboardInterrupt`.
    """

def real_nodes(
    text: str, name: str, overrides: Sequence[tuple[str, str]] = ..., seed: int | None = None
) -> list[tuple[str, str, int, list[str]]]:
    """The scenario's real nodes: (name, address in 198.18.0.0/15, TUN MTU, commands)."""

def node_addresses(
    text: str, name: str, overrides: Sequence[tuple[str, str]] = ..., seed: int | None = None
) -> list[tuple[str, str]]:
    """Every node's address in an emulation, real or not: (name, address in 198.18.0.0/15)."""

def open_tun(netns: str, device: str) -> int:
    """Opens a TUN device in network namespace `netns`; returns its descriptor (yours to
    close)."""

def emulate(
    text: str,
    name: str,
    tuns: Sequence[tuple[str, int]],
    control: Callable[[float], bool],
    overrides: Sequence[tuple[str, str]] = ...,
    seed: int | None = None,
    out: str | os.PathLike[str] | None = None,
    warn_us: int = 1000,
    fail_us: int = 10000,
) -> tuple[
    str, str, list[tuple[str, list[Column]]], list[tuple[str, bytes]], list[tuple[str, str]]
]:
    """Runs a scenario in real time through the real nodes' TUN devices `tuns` (node name,
    descriptor); `control(now_s)` returning False ends it. Returns what `run` returns."""
