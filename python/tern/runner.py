"""Running one scenario from Python: `tern.run(...)` and the `Run` it returns."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import stat
import threading
import types
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import polars as pl

from tern import _core, outdir, traces

Overrides = Mapping[str, Any] | None
Progress = Callable[[float, float], None] | None


def _source(path: str | os.PathLike[str] | None, text: str | None = None) -> tuple[str, str]:
    """Returns (name used in error messages, TOML text) of a scenario given as a file path
    (a `pathlib.Path`, or a str without a line break) or as TOML text (`text=`, or a str
    with line breaks: no file name has one, so a path is never taken for text)."""
    if (path is None) == (text is None):
        raise TypeError("give a scenario file path or text=, not both or neither")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text= expects TOML text as a str, got {type(text).__name__}")
        return "<scenario>", text
    if isinstance(path, str) and "\n" in path:
        return "<scenario>", path
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"expected a scenario file path or text=, got {type(path).__name__}")
    return str(path), _read_scenario(Path(path))


#: The largest scenario file read (a path such as /dev/zero or a huge file is refused, not
#: read). The core's TOML parser holds about 33 bytes per byte of file while it reads (the
#: document tree with its spans; docs/hostile-input.md), so 32 MiB keeps parsing near 1 GiB,
#: while a 100 000-flow or 100 000-node scenario is 11-12 MiB.
MAX_SCENARIO_BYTES = 32 << 20


def _read_scenario(path: Path) -> str:
    """A scenario file's text; `FileNotFoundError` if there is none, `tern.ScenarioError`
    naming the line and byte offset if it is not UTF-8."""
    try:
        with path.open("rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise scenario_error(
                    "not a regular file (a device, a pipe or a socket); scenario files are "
                    "UTF-8 text files",
                    file=str(path),
                )
            data = f.read(MAX_SCENARIO_BYTES + 1)
    except FileNotFoundError:
        raise FileNotFoundError(
            f"{path}: no such scenario file (to pass TOML text, use text=...)"
        ) from None
    except IsADirectoryError:
        raise IsADirectoryError(f"{path}: is a folder, not a scenario file") from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise scenario_error(
            f"larger than {MAX_SCENARIO_BYTES >> 20} MiB; a scenario file is text a person or "
            "a script writes (a 100 000-node tree is about 11 MiB)",
            file=str(path),
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise scenario_error(
            f"not valid UTF-8: byte 0x{data[e.start]:02x} at byte offset {e.start}; "
            "scenario files are UTF-8 text",
            file=str(path),
            line=line,
        ) from None


def scenario_error(
    message: str, *, file: str | None, line: int | None = None, key: str = ""
) -> _core.ScenarioError:
    """A `tern.ScenarioError` raised on the Python side, with the same parts as the core's:
    `file`, `line`, `key` and `message` attributes, and the same `file:line: key: message` text."""
    where = f"{file}:{line}: " if file and line else f"{file}: " if file else ""
    err = _core.ScenarioError(f"{where}{key + ': ' if key else ''}{message}")
    err.file, err.line, err.key, err.message = file, line, key, message
    return err


def _toml_literal(value: Any) -> str:
    """An override value as `--set` would carry it: a string as it is (the core reads it as
    TOML when it parses as TOML, as a plain string otherwise: `5Mbps`), a number or boolean
    as TOML, a list as a TOML array and a mapping as a TOML inline table (TOML 1.0 §Array,
    §Inline Table), e.g. `{"record": ["cwnd", "queue"]}`."""
    if isinstance(value, str):
        return value
    return _toml_value(value)


def _toml_value(value: Any) -> str:
    """`value` as a TOML value: strings quoted (TOML 1.0 §String, basic strings with JSON's
    escapes, which TOML's are a superset of for these), lists and mappings nested."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)  # TOML 1.0 §Integer, §Float (also `inf`, `nan`)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return (
            "{ "
            + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in value.items())
            + " }"
        )
    raise TypeError(
        "override values are strings, numbers, booleans, lists or mappings of them, "
        f"got {type(value).__name__}: {value!r}"
    )


def _overrides(set: Overrides) -> list[tuple[str, str]]:
    if set is None:
        return []
    if not isinstance(set, Mapping):
        raise TypeError('set= expects a mapping like {"links.access.rate": "5Mbps"}')
    return [(str(k), _toml_literal(v)) for k, v in set.items()]


#: Seeds are TOML integers in the resolved scenario, so 64-bit signed.
MAX_SEED = 2**63 - 1


def _seed(seed: int | None, name: str) -> int | None:
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
    ):
        raise scenario_error(
            f"expected a whole number from 0 to {MAX_SEED}, got {seed!r}", file=name, key="seed"
        )
    return seed


@contextlib.contextmanager
def _panics_as_bugs(name: str) -> Iterator[None]:
    """A panic of the core (PyO3's PanicException, a BaseException) becomes `tern.TernBug`."""
    try:
        yield
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        raise _core.TernBug(
            f"internal error in Tern (a bug, not a problem with your scenario): {e}\n"
            f"scenario: {name}; please report it with this scenario file"
        ) from None


def validate(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    seed: int | None = None,
    set: Overrides = None,
) -> str:
    """Checks a scenario (a file `path`, or TOML `text=`) without running it; returns it
    resolved, as TOML.

    Raises `tern.ScenarioError` naming file, line and key when it is not valid.
    """
    name, text = _source(path, text)
    with _panics_as_bugs(name):
        return _core.validate(text, name, _overrides(set), _seed(seed, name))


def schema() -> dict[str, Any]:
    """The scenario format as a JSON Schema."""
    return json.loads(_core.schema())


def data_path(flow: Mapping[str, Any]) -> str:
    """Where a flow's data goes, from its summary: `from → to`, but `to → from` for a
    `file` download, whose data is the response of the flow's far end (`to`)."""
    ends = (flow.get("from"), flow.get("to"))
    if flow.get("app") == "file":
        ends = ends[::-1]
    return f"{ends[0]} → {ends[1]}"


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
        captures: Mapping[str, bytes | Path] | None = None,
    ):
        self.summary = summary
        #: The resolved scenario (defaults filled in, seed and Tern version) as TOML.
        self.scenario = scenario
        self._tables = tables
        #: Packet captures (`record = ["pcap"]`) and QUIC qlog files (`record = ["qlog"]`):
        #: file name → contents (read from the output folder when accessed, for a run that
        #: wrote them there).
        self.captures = Captures(captures or {})

    def _flow_rows(self) -> list[tuple[str, ...]]:
        """One row per flow: name, app/transport, path, delivered, goodput, loss."""
        rows = []
        for name, f in self.summary.get("flows", {}).items():
            rows.append(
                (
                    str(name),
                    f"{f.get('app')}/{f.get('transport')}",
                    data_path(f),
                    f"{f.get('bytes_delivered', 0) / 1e6:.3f} MB",
                    f"{f.get('goodput_bps', 0) / 1e6:.3f} Mbit/s",
                    f"{100 * f.get('loss_rate', 0):.2f} % lost",
                )
            )
        return rows

    def _headline(self) -> str:
        s = self.summary
        flows, links = len(s.get("flows", {})), len(s.get("links", {}))
        traces = ", ".join(self.tables) or "none"
        return (
            f"Run of {s.get('duration_s', 0):g} s simulated, seed {s.get('seed')}: "
            f"{flows} flow{'s' * (flows != 1)}, {links} link{'s' * (links != 1)}; "
            f"traces: {traces}"
        )

    def __repr__(self) -> str:
        rows = self._flow_rows()
        widths = [max(len(r[i]) for r in rows) for i in range(6)] if rows else []
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
        return "\n".join([f"<tern.{self._headline()}>", *("  " + ln.rstrip() for ln in lines)])

    def _repr_html_(self) -> str:
        """The notebook's view: the headline and a table of the flows."""
        import html

        head = "".join(
            f"<th>{c}</th>" for c in ("flow", "app", "path", "delivered", "goodput", "loss")
        )
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
            for r in self._flow_rows()
        )
        return (
            f"<div><p><b>tern.Run</b>: {html.escape(self._headline())}</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )

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
        captures (`<link>.<direction>.pcap`) and qlog files (`<flow>.<side>.sqlog`) into
        `out`."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(self.summary, indent=2) + "\n")
        (out / "scenario.toml").write_text(self.scenario)
        traces.write_tables(self._tables, out)
        self.captures.save(out)
        return out


class Captures(MutableMapping[str, bytes]):
    """A run's capture files by name: their bytes, held in memory or read from the file the
    run wrote (so a long capture is never held whole unless asked for)."""

    def __init__(self, files: Mapping[str, bytes | Path]):
        self._files: dict[str, bytes | Path] = {}
        for name, value in files.items():
            self[name] = value

    def __getitem__(self, name: str) -> bytes:
        value = self._files[name]
        return value if isinstance(value, bytes) else value.read_bytes()

    def __setitem__(self, name: str, value: bytes | str | os.PathLike[str]) -> None:
        self._files[name] = value if isinstance(value, bytes) else Path(value)

    def __delitem__(self, name: str) -> None:
        del self._files[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def path(self, name: str) -> Path | None:
        """Where capture `name` is on disk, if the run wrote it to a folder."""
        value = self._files[name]
        return None if isinstance(value, bytes) else value

    def save(self, out: Path) -> None:
        """Writes (or copies) every capture into `out`."""
        for name, value in self._files.items():
            target = _inside(out, name)
            if isinstance(value, bytes):
                target.write_bytes(value)
            elif value.resolve() != target:
                shutil.copyfile(value, target)


def _inside(folder: Path, name: str) -> Path:
    """`folder / name`, refusing any name that would land outside `folder` (the core only
    makes names of identifiers, so this is a second lock on the same door)."""
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()) or path.parent != folder.resolve():
        raise ValueError(f"{name!r} is not a file name inside {folder}")
    return path


def run(
    path: str | os.PathLike[str] | None = None,
    *,
    text: str | None = None,
    seed: int | None = None,
    set: Overrides = None,
    progress: Progress | bool | None = None,
    out: str | os.PathLike[str] | None = None,
    max_trace_memory: int | None = None,
    force: bool = False,
) -> Run:
    """Runs a scenario given as a file `path` or as TOML `text=`.

    `seed` replaces `sim.seed`; `set` overrides keys, e.g.
    `{"links.access.rate": "5Mbps"}` (array elements are picked by name).
    `progress(now_s, end_s)` is called now and then during the run; by default (None) a
    run that takes over 2 s shows the command line's progress bar where someone watches (a
    notebook, a terminal), `False` shows none, `True` shows it wherever it can.
    Ctrl-C (or an exception raised by `progress`) stops the run.
    With `out`, traces stream to `out/<table>.parquet` as the run goes (memory stays
    bounded) and the run is saved there (`Run.save`); without it, traces stay in memory, at
    most `max_trace_memory` bytes (1 GiB by default) for the tables, packet captures and
    qlogs together, past which `tern.TraceError` is raised. A non-empty `out` must be an
    earlier run of the same scenario, which is replaced (`tern.outdir`); anything else
    raises `OutFolderError` unless `force`, which empties it first.
    """
    name, text = _source(path, text)
    folder = None if out is None else Path(out)
    if folder is not None:
        if outdir.occupied(folder):
            # A scenario that cannot run must not cost the results already there.
            with _panics_as_bugs(name):
                _core.validate(text, name, _overrides(set), _seed(seed, name))
        outdir.claim_run(folder, name, force=force)
    stop: list[BaseException] = []
    bar = None
    if progress is None or isinstance(progress, bool):
        from tern.progress import RunBar

        label = Path(name).stem if name != "<scenario>" else "run"
        bar = progress = RunBar(label, enabled=progress is not False, always=progress is True)

    def report(now: float, end: float) -> None:
        # Whatever the callback raises stops the run, even when raised in the last call.
        try:
            progress(now, end)
        except BaseException as e:
            stop.append(e)
            raise

    try:
        with _interrupts_recorded(stop), _panics_as_bugs(name):
            summary, resolved, tables, captures, files = _core.run(
                text, name, _overrides(set), _seed(seed, name), report, folder, max_trace_memory
            )
    finally:
        if bar is not None:
            bar.close()
    if stop:
        raise stop[0]
    frames = traces.frames(tables) if folder is None else traces.FolderTables(dict(files))
    result = Run(json.loads(summary), resolved, frames, dict(captures))
    if folder is not None:
        result.save(folder)
        outdir.mark_run(folder, name)
    return result


@contextlib.contextmanager
def _interrupts_recorded(stop: list[BaseException]) -> Iterator[None]:
    """Records a Ctrl-C that arrives during a run in `stop`: the core turns it into
    `KeyboardInterrupt` at its next progress report, but the last report's is dropped."""
    if (
        threading.current_thread() is not threading.main_thread()  # signals go to the main one
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler  # ignored, or yours
    ):
        yield
        return

    def on_sigint(signum: int, frame: types.FrameType | None) -> None:
        stop.append(KeyboardInterrupt())
        raise stop[-1]

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


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
    from tern.store import ResultsError, check_summary, check_trace_columns, read_json

    summary = check_summary(read_json(summary_file, "the run's summary"), summary_file)
    scenario_file = root / "scenario.toml"
    try:
        scenario = scenario_file.read_text(encoding="utf-8") if scenario_file.is_file() else ""
    except UnicodeDecodeError as e:
        raise ResultsError(f"{scenario_file}: not UTF-8 text ({e})") from None
    files = {p.stem: p for p in sorted(root.glob("*.parquet"))}
    # Tables in the order a fresh run lists them: that of the kinds in the schema.
    order = [name for name in _record_kinds() if name in files]
    names = order + [name for name in files if name not in order]
    tables = {}
    for name in names:
        try:
            tables[name] = pl.read_parquet(files[name])
        except (pl.exceptions.PolarsError, OSError) as e:
            raise ResultsError(f"{files[name]}: not a readable Parquet file ({e})") from None
        check_trace_columns(files[name], tables[name].columns)
    found = [p for pattern in ("*.pcap", "*.sqlog") for p in sorted(root.glob(pattern))]
    captures = {p.name: p for p in found}
    return Run(summary, scenario, tables, captures)
