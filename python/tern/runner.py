"""Running one scenario from Python: `tern.run(...)` and the `Run` it returns."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import polars as pl

from tern import _core, traces

Overrides = Mapping[str, Any] | None
Progress = Callable[[float, float], None] | None


def _source(path_or_text: str | os.PathLike[str]) -> tuple[str, str]:
    """Returns (name used in error messages, TOML text)."""
    if isinstance(path_or_text, os.PathLike) or (
        isinstance(path_or_text, str) and "\n" not in path_or_text and "=" not in path_or_text
    ):
        path = Path(path_or_text)
        try:
            return str(path), path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such scenario file") from None
    if not isinstance(path_or_text, str):
        raise TypeError(f"expected a scenario path or TOML text, got {type(path_or_text).__name__}")
    return "<scenario>", path_or_text


def _toml_literal(value: Any) -> str:
    """An override value as `--set` would carry it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    raise TypeError(
        f"override values are strings, numbers or booleans, got {type(value).__name__}: {value!r}"
    )


def _overrides(set: Overrides) -> list[tuple[str, str]]:
    if set is None:
        return []
    if not isinstance(set, Mapping):
        raise TypeError('set= expects a mapping like {"links.access.rate": "5Mbps"}')
    return [(str(k), _toml_literal(v)) for k, v in set.items()]


def validate(
    path_or_text: str | os.PathLike[str], *, seed: int | None = None, set: Overrides = None
) -> str:
    """Checks a scenario without running it; returns it resolved, as TOML.

    Raises `tern.ScenarioError` naming file, line and key when it is not valid.
    """
    name, text = _source(path_or_text)
    return _core.validate(text, name, _overrides(set), seed)


def schema() -> dict[str, Any]:
    """The scenario format as a JSON Schema."""
    return json.loads(_core.schema())


class TraceNotRecorded(KeyError):
    """Asked for a trace the run did not record."""

    def __str__(self) -> str:
        return str(self.args[0])


class Run:
    """The outcome of one run: its summary, resolved scenario and trace tables."""

    def __init__(
        self,
        summary: dict[str, Any],
        scenario: str,
        tables: Mapping[str, pl.DataFrame],
        captures: dict[str, bytes] | None = None,
    ):
        self.summary = summary
        #: The resolved scenario (defaults filled in, seed and Tern version) as TOML.
        self.scenario = scenario
        self._tables = tables
        #: Packet captures (`record = ["pcap"]`): file name → pcap file contents.
        self.captures = captures or {}

    @property
    def tables(self) -> list[str]:
        """Names of the recorded trace tables."""
        return list(self._tables)

    def series(self, name: str) -> pl.DataFrame:
        """A recorded trace as a polars DataFrame (`.to_pandas()` converts it)."""
        try:
            return self._tables[name]
        except KeyError:
            have = ", ".join(self._tables) or "none"
            raise TraceNotRecorded(
                f"no trace {name!r} in this run (recorded: {have}); "
                f'add it to the scenario\'s record = ["{name}", ...]'
            ) from None

    def save(self, out: str | os.PathLike[str]) -> Path:
        """Writes summary.json, scenario.toml, one Parquet file per trace and the packet
        captures (`<link>.<direction>.pcap`) into `out`."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        (out / "scenario.toml").write_text(self.scenario)
        traces.write_tables(self._tables, out)
        for name, pcap in self.captures.items():
            (out / name).write_bytes(pcap)
        return out


def run(
    path_or_text: str | os.PathLike[str],
    *,
    seed: int | None = None,
    set: Overrides = None,
    progress: Progress = None,
    out: str | os.PathLike[str] | None = None,
    max_trace_memory: int | None = None,
) -> Run:
    """Runs a scenario given as a file path or as TOML text.

    `seed` replaces `sim.seed`; `set` overrides keys, e.g.
    `{"links.access.rate": "5Mbps"}` (array elements are picked by name).
    `progress(now_s, end_s)` is called now and then during the run.
    With `out`, traces stream to `out/<table>.parquet` as the run goes (memory stays
    bounded) and the run is saved there (`Run.save`); without it, traces stay in memory, at
    most `max_trace_memory` bytes (1 GiB by default), past which `tern.TraceError` is
    raised.
    """
    name, text = _source(path_or_text)
    folder = None if out is None else Path(out)
    summary, resolved, tables, captures, files = _core.run(
        text, name, _overrides(set), seed, progress, folder, max_trace_memory
    )
    frames = traces.frames(tables) if folder is None else traces.FolderTables(dict(files))
    result = Run(json.loads(summary), resolved, frames, dict(captures))
    if folder is not None:
        result.save(folder)
    return result


@functools.cache
def _record_kinds() -> tuple[str, ...]:
    """The trace kinds, in the order runs list their tables."""
    try:
        kinds = schema()["definitions"]["RecordKind"]["oneOf"]
        return tuple(v for kind in kinds for v in kind.get("enum", []))
    except (KeyError, TypeError):
        return ()


def load_run(folder: str | os.PathLike[str]) -> Run:
    """Reads back a run written by `Run.save` (or `tern run --out`, or one run of a sweep:
    `SWEEP/runs/<key>`): its summary, resolved scenario, traces and packet captures."""
    root = Path(folder)
    summary_file = root / "summary.json"
    if not summary_file.is_file():
        raise FileNotFoundError(f"{root}: not a run folder (no summary.json inside)")
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    scenario_file = root / "scenario.toml"
    scenario = scenario_file.read_text(encoding="utf-8") if scenario_file.is_file() else ""
    files = {p.stem: p for p in sorted(root.glob("*.parquet"))}
    # Tables in the order a fresh run lists them: that of the kinds in the schema.
    order = [name for name in _record_kinds() if name in files]
    names = order + [name for name in files if name not in order]
    tables = {name: pl.read_parquet(files[name]) for name in names}
    captures = {p.name: p.read_bytes() for p in sorted(root.glob("*.pcap"))}
    return Run(summary, scenario, tables, captures)
