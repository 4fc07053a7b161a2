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
