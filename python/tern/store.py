"""The results store: a sweep folder queried with DuckDB.

Each run keeps its own files (`runs/<key>/summary.json`, `*.parquet`). The
connection returned by `connect` has

* a table `runs`: one row per run and flow — the grid values (one column per
  swept key), `seed`, `key`, and the flow's summary flattened
  (`goodput_bps`, `delay_s_p50`, `tcp_rto_expiries`, ...);
* a table `links`: one row per run, link and direction (`link`, `direction`) — the same
  grid values, `seed`, `key`, and the direction's summary flattened (`tx_packets`,
  `queue_mean_packets`, `drops_queue`, ...);
* a view per trace (`cwnd`, `delay`, `queue`, ...) over every run's Parquet
  file of that name, with the run's `key` as a column to join on.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq


def _flatten(prefix: str, value: Any, row: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flatten(f"{prefix}_{k}" if prefix else k, v, row)
    else:
        row[prefix] = value


Keys = Collection[str] | None


class ResultsError(ValueError):
    """A results folder that cannot be read (a file missing, truncated, or of the wrong
    form: folders travel between people); the message names the file."""


def read_json(path: Path, what: str, form: type = dict) -> Any:
    """A JSON file of a results folder, of the given form (`dict` or `list`)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsError(f"{path}: missing ({what})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsError(f"{path}: not valid JSON ({what}): {e}") from None
    except RecursionError:
        raise ResultsError(f"{path}: nested too deeply to be read ({what})") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot be read ({what}): {e.strerror or e}") from None
    if not isinstance(data, form):
        raise ResultsError(
            f"{path}: expected a JSON {form.__name__} ({what}), got {type(data).__name__}"
        )
    return data


#: The keys of a run's flows and link directions whose values Tern writes as text (the
#: `String` and `&str` fields of `crates/tern-sim/src/summary.rs`); every other value there is
#: a number, `null`, or a table of them.
SUMMARY_TEXT_KEYS = frozenset(
    {"app", "transport", "from", "to", "state", "status", "reason", "endpoint", "wire"}
)

#: The summary's top-level values that are numbers when present.
SUMMARY_NUMBERS = ("seed", "duration_s", "events", "packets", "idle_directions")


def _is_number(value: Any) -> bool:
    """A JSON number Tern can have written: not a bool, and finite (it writes `null` for a
    float that is not)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _check_values(value: dict[str, Any], where: str, path: Path) -> None:
    """Every value under a flow or a link direction: a table, a number, `null`, or text at
    the keys Tern writes as text. A wrong one is named by the file and its dotted key."""
    for key, v in value.items():
        here = f"{where}.{key}"
        if isinstance(v, dict):
            _check_values(v, here, path)
        elif v is None or _is_number(v) or (key in SUMMARY_TEXT_KEYS and isinstance(v, str)):
            continue
        else:
            expected = "text" if key in SUMMARY_TEXT_KEYS else "a finite number or null"
            raise ResultsError(f"{path}: {here}: expected {expected}, got {_shown(v)}")


def _shown(value: Any) -> str:
    """A short rendering of a value read from a file, for an error message."""
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def check_summary(summary: dict[str, Any], path: Path) -> dict[str, Any]:
    """`summary.json`'s form: `flows` a table of tables, `links` (if there) a table of
    directions, each a table; under them numbers (finite), `null` or, at the keys Tern
    writes as text, text; the top-level counts numbers. A value of another type is named by
    the file and its key (`flows.bulk.goodput_bps`)."""
    flows = summary.get("flows")
    if not isinstance(flows, dict) or not all(isinstance(v, dict) for v in flows.values()):
        raise ResultsError(f"{path}: 'flows' must be a table of flows, each a table")
    links = summary.get("links", {})
    if not isinstance(links, dict) or not all(
        isinstance(d, dict) and all(isinstance(v, dict) for v in d.values()) for d in links.values()
    ):
        raise ResultsError(f"{path}: 'links' must be a table of links, each of directions")
    for key in SUMMARY_NUMBERS:
        if key in summary and not _is_number(summary[key]):
            raise ResultsError(f"{path}: {key}: expected a number, got {_shown(summary[key])}")
    _check_values(flows, "flows", path)
    _check_values(links, "links", path)
    return summary


@functools.cache
def trace_columns() -> dict[str, tuple[str, ...]]:
    """Every trace table a run can record and its columns, as the core declares them."""
    from tern._core import trace_columns as declared

    return {name: tuple(columns) for name, columns in declared()}


def check_trace_columns(path: Path, columns: Sequence[str]) -> None:
    """A trace file `<table>.parquet` holds the columns of the trace it is named after (a
    file of a name Tern does not write is left alone); a file holding another trace's (one
    trace's file replaced by another's) is named, with what it holds and what it should."""
    expected = trace_columns().get(path.stem)
    if expected is None or set(expected) <= set(columns):
        return
    holds = [name for name, cols in trace_columns().items() if set(cols) == set(columns)]
    held = f"the '{holds[0]}' trace" if holds else "other columns"
    raise ResultsError(
        f"{path}: holds {held} ({', '.join(columns)}), not the '{path.stem}' trace "
        f"(expected {', '.join(expected)})"
    )


def check_params(meta: dict[str, Any], path: Path) -> dict[str, Any]:
    """`params.json`'s form: the run's key, seed and grid values."""
    ok = (
        isinstance(meta.get("params"), dict)
        and isinstance(meta.get("key"), str)
        and isinstance(meta.get("seed"), int)
        and not isinstance(meta.get("seed"), bool)
    )
    if not ok:
        raise ResultsError(f'{path}: expected {{"params": {{...}}, "key": "...", "seed": N}}')
    return meta


def sweep_meta(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """A sweep folder's `sweep.json` (what was swept), checked; {} if there is none."""
    path = Path(folder) / "sweep.json"
    if not path.is_file():
        return {}
    meta = read_json(path, "the sweep's description")
    for key in ("grid", "linked"):
        table = meta.get(key, {})
        if not isinstance(table, dict) or not all(isinstance(v, list) for v in table.values()):
            raise ResultsError(f"{path}: '{key}' must be a table of lists of values")
    return meta


@functools.lru_cache(maxsize=4096)
def _read_run(run_dir: str, stamp: tuple[int, int]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A finished run's `params.json` and `summary.json`, checked (a finished run never
    changes: `stamp`, its summary's modification time and size, keys the cache all the
    same)."""
    folder = Path(run_dir)
    meta = check_params(
        read_json(folder / "params.json", "the run's parameters"), folder / "params.json"
    )
    summary = read_json(folder / "summary.json", "the run's summary")
    return meta, check_summary(summary, folder / "summary.json")


def _run_dirs(folder: str | os.PathLike[str], keys: Keys = None) -> list[Path]:
    root = Path(folder) / "runs"
    if keys is None:
        return sorted(root.iterdir())
    return [root / k for k in sorted(keys) if (root / k).is_dir()]


def _finished(
    folder: str | os.PathLike[str], keys: Keys = None
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every finished run's `params.json` and `summary.json`, in key order (only the runs
    named in `keys`, if given). Callers must not change what they get."""
    runs = []
    for run_dir in _run_dirs(folder, keys):
        if (run_dir / "params.json").is_file():
            summary = run_dir / "summary.json"
            if not summary.is_file():
                raise ResultsError(f"{summary}: missing (a finished run has one)")
            st = summary.stat()
            runs.append(_read_run(str(run_dir), (st.st_mtime_ns, st.st_size)))
    return runs


def _sql_string(text: str) -> str:
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _sql_identifier(text: str) -> str:
    """`text` as a quoted SQL identifier (a file name may hold any character)."""
    return '"' + text.replace('"', '""') + '"'


def _row(meta: dict[str, Any], **names: str) -> dict[str, Any]:
    row: dict[str, Any] = dict(meta["params"])
    row.update(key=meta["key"], seed=meta["seed"], **names)
    return row


def summaries(folder: str | os.PathLike[str], keys: Keys = None) -> pl.DataFrame:
    """One row per finished run and flow (of the runs in `keys`, if given)."""
    rows = []
    for meta, summary in _finished(folder, keys):
        for flow, stats in summary["flows"].items():
            row = _row(meta, flow=flow)
            _flatten("", stats, row)
            rows.append(row)
    return _frame(rows, folder)


def _frame(rows: list[dict[str, Any]], folder: str | os.PathLike[str]) -> pl.DataFrame:
    try:
        return pl.DataFrame(rows, infer_schema_length=None)
    except (pl.exceptions.PolarsError, TypeError, ValueError, OverflowError) as e:
        raise ResultsError(
            f"{folder}: its runs' summaries disagree on the type of a value ({e})"
        ) from None


def link_summaries(folder: str | os.PathLike[str], keys: Keys = None) -> pl.DataFrame:
    """One row per finished run, link and direction (of the runs in `keys`, if given)."""
    rows = []
    for meta, summary in _finished(folder, keys):
        for link, directions in summary.get("links", {}).items():
            for direction, stats in directions.items():
                row = _row(meta, link=link, direction=direction)
                _flatten("", stats, row)
                rows.append(row)
    return _frame(rows, folder)


def _file_schema(f: str) -> pa.Schema:
    """The columns of one trace file, checked against the trace it is named after."""
    try:
        schema = pq.read_schema(f)
    except (pa.ArrowException, OSError) as e:
        raise ResultsError(f"{f}: not a readable Parquet file ({e})") from None
    check_trace_columns(Path(f), schema.names)
    return schema


def _trace_schema(name: str, files: list[str]) -> pa.Schema:
    """The columns of one trace over every run's file of it."""
    schemas = []
    for f in files:
        schemas.append(_file_schema(f))
    try:
        return pa.unify_schemas(schemas)
    except pa.ArrowException as e:
        raise ResultsError(
            f"{Path(files[0]).parent.parent}: the '{name}' traces of its runs disagree on their "
            f"columns ({e}); is one of them another trace's file?"
        ) from None


def register_trace(
    con: duckdb.DuckDBPyConnection, view: str, name: str, files: list[str], root: Path
) -> None:
    """The trace `name` of the runs whose `files` are given, as `view` on `con`, scanned by
    Arrow rather than by DuckDB's file system (which a sandboxed connection has turned off),
    with the run's `key` as a column."""
    schema = _trace_schema(name, files)
    key = pa.schema([("key", pa.string())])
    con.register(
        view,
        ds.dataset(
            files,
            schema=pa.unify_schemas([schema, key]),
            format="parquet",
            partitioning=ds.DirectoryPartitioning(key),
            partition_base_dir=str(root / "runs"),
        ),
    )


#: Traces of at most this many bytes on disk are read into memory by a connection made with
#: `materialize=True` (a claim's, over one seed's runs), larger ones are scanned per query.
MATERIALIZE_LIMIT_BYTES = 32 * 1024 * 1024


def connect(
    folder: str | os.PathLike[str],
    *,
    sandbox: bool = False,
    keys: Keys = None,
    materialize: bool = False,
    prefix: str = "",
    links: bool = True,
    threads: int | None = None,
) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection over a sweep folder (see the module docs); with
    `keys`, over those runs only (a reproduction's claims see one seed's runs at a time);
    `materialize` reads small traces into memory once (many queries over few runs);
    `prefix` goes before the name of every table and trace (for views of one's own over them);
    `links=False` leaves the `links` table empty (for queries that do not read it);
    `threads` caps DuckDB's threads from the start, loading included (default: DuckDB's own
    choice, one core each; a sandboxed connection: 1).

    `sandbox=True` gives a connection for SQL that is not yours (a study's claims): it sees
    the folder's runs and traces, read-only, and no file: reading or writing any file
    (`COPY ... TO`, `read_csv`, `ATTACH`, extensions) fails with `duckdb.PermissionException`.
    """
    root = Path(folder)
    if not (root / "runs").is_dir():
        raise FileNotFoundError(f"{root}: not a sweep folder (no runs/ inside)")
    # A sandboxed connection (a claim's) runs on one thread unless told otherwise: it reads
    # one seed's or one sweep's runs, where DuckDB's worker threads cost more CPU in handing
    # work around than they save.
    if threads is None and sandbox:
        threads = 1
    if threads is not None and threads < 1:
        raise ValueError(f"threads = {threads}: DuckDB needs at least one thread")
    con = duckdb.connect(config={"threads": threads}) if threads else duckdb.connect()
    tables = (
        ("runs", summaries(root, keys), "flow VARCHAR"),
        (
            "links",
            link_summaries(root, keys) if links else pl.DataFrame(),
            "link VARCHAR, direction VARCHAR",
        ),
    )
    for table, frame, names in tables:
        table = _sql_identifier(prefix + table)
        if frame.is_empty():
            con.execute(f"CREATE TABLE {table} (key VARCHAR, seed BIGINT, {names})")
        else:
            con.register("summaries_frame", frame)
            con.execute(f"CREATE TABLE {table} AS SELECT * FROM summaries_frame")
            con.unregister("summaries_frame")
    traces: dict[str, list[str]] = {}
    for run_dir in _run_dirs(root, keys):
        for path in sorted(run_dir.glob("*.parquet")):
            traces.setdefault(path.stem, []).append(str(path))
    for name, files in traces.items():
        small = sum(os.path.getsize(f) for f in files) <= MATERIALIZE_LIMIT_BYTES
        if not sandbox or (materialize and small):
            # (`register_trace` checks each file's columns itself.)
            for f in files:
                _file_schema(f)
        if sandbox and materialize and small:
            # Read once, now, while files may still be opened; queried many times after.
            paths = ", ".join(_sql_string(p) for p in files)
            try:
                table = _sql_identifier(prefix + name)
                con.execute(
                    f"CREATE TABLE {table} AS SELECT * EXCLUDE (filename), "
                    f"regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS key "
                    f"FROM read_parquet([{paths}], filename = true, union_by_name = true)"
                )
            except duckdb.Error as e:
                raise ResultsError(f"{root}: its '{name}' traces cannot be read ({e})") from None
        elif sandbox:
            register_trace(con, prefix + name, name, files, root)
        else:
            where = [str(root / "runs" / "*" / f"{name}.parquet")] if keys is None else files
            paths = ", ".join(_sql_string(p) for p in where)
            try:
                con.execute(
                    f"CREATE VIEW {_sql_identifier(prefix + name)} AS SELECT * EXCLUDE "
                    f"(filename), regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS key "
                    f"FROM read_parquet([{paths}], filename = true, union_by_name = true)"
                )
            except duckdb.Error as e:
                # DuckDB's first line names the file it could not read.
                first = str(e).strip().splitlines()[0]
                message = f"{root}: its '{name}' traces cannot be read ({first})"
                raise ResultsError(message) from None
    if sandbox:
        # A trace scanned through Arrow (`register_trace`) reaches DuckDB's planner with no row
        # count, estimated at one row; under `asof_loop_join_threshold` (64 rows) the planner
        # turns an ASOF join into a nested-loop join, quadratic in the rows it really has.
        # Threshold 0 keeps the ASOF operator (same result). DuckDB before 1.3 has no such
        # rewrite and no such setting.
        with contextlib.suppress(duckdb.CatalogException):
            con.execute("SET asof_loop_join_threshold = 0")
        con.execute("SET python_enable_replacements = false")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    return con


def open_results(folder: str | os.PathLike[str]) -> duckdb.DuckDBPyRelation:
    """All runs of a sweep as a DuckDB relation (`.pl()` gives a polars frame)."""
    return connect(folder).sql("SELECT * FROM runs ORDER BY key, flow")
