"""Parameter sweeps: the cartesian product of grids and seeds, run on a local
process pool (default) or a Ray cluster, into a results folder that survives
interruption. Keys that must change together (a delay moved from one link to another,
a timer that follows it) are *linked*: their value lists have one length and are taken
position by position, crossed with the grid like one more key.

Layout of a sweep folder::

    DIR/runs/<key>/     one finished run: summary.json, scenario.toml, params.json, *.parquet
    DIR/failed/<key>.json   a run that failed (it raised, or its worker process died), with
                        the reason; run again only when asked (`retry_failed=True`)
    DIR/tmp/            runs being written (moved into runs/ when complete); removed when
                        the sweep ends or is interrupted

`<key>` is the SHA-256 of the resolved scenario (which includes the seed), so a
run is identified by what it computes, not by when or where. A run's folder is
written under a temporary name and renamed into place, so it either exists
whole or not at all: a sweep killed at any moment (kill -9 included) resumes
with nothing lost and nothing run twice. A worker process that dies (killed, out of memory)
costs only the run it held: that run is recorded as failed and a new worker takes its place.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import multiprocessing
import multiprocessing.process
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

import polars as pl

from tern import outdir
from tern.runner import _overrides, _source, _toml_literal, run, validate

#: The most runs one sweep plans: every run is resolved and checked before the first starts
#: (about a millisecond and a few hundred bytes each), so a grid or a seed count beyond this
#: is refused at once rather than planned for minutes.
MAX_RUNS = 100_000


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: its overrides, seed and identity."""

    params: dict[str, str]
    seed: int
    key: str


@dataclass
class SweepResult:
    """What a sweep did."""

    folder: Path
    total: int
    skipped: int = 0
    done: int = 0
    failures: dict[str, str] = field(default_factory=dict)
    #: Every run this sweep plans (done or not), by key: its seed.
    seeds: dict[str, int] = field(default_factory=dict)


def parse_grid(items: Iterable[str], option: str = "--grid") -> dict[str, list[str]]:
    """`["links.access.rate=5Mbps,10Mbps"]` → `{"links.access.rate": ["5Mbps", "10Mbps"]}`;
    `option` names the flag in errors."""
    grid: dict[str, list[str]] = {}
    for item in items:
        key, eq, values = item.partition("=")
        vals = [v.strip() for v in values.split(",")]
        if not eq or not key.strip() or vals == [""]:
            raise ValueError(
                f"{option} {item!r}: expected KEY=V1,V2,..., like links.access.rate=5Mbps,10Mbps"
            )
        if "" in vals:
            raise ValueError(f"{option} {item!r}: {key.strip()} has an empty value")
        if key.strip() in grid:
            raise ValueError(
                f"{option} {item!r}: {key.strip()} is given twice; list its values once"
            )
        grid[key.strip()] = vals
    return grid


def linked_points(linked: Mapping[str, Iterable[Any]]) -> list[dict[str, Any]]:
    """`{"a": [1, 2], "b": [3, 4]}` → `[{"a": 1, "b": 3}, {"a": 2, "b": 4}]`; the lists must
    have one length (an empty mapping is one point with nothing set)."""
    lists = {k: list(v) for k, v in linked.items()}
    lengths = {k: len(v) for k, v in lists.items()}
    if len(set(lengths.values())) > 1:
        given = ", ".join(f"{k}: {n}" for k, n in lengths.items())
        raise ValueError(f"linked keys must have as many values each, got {given}")
    if any(n == 0 for n in lengths.values()):
        raise ValueError("a linked key needs at least one value")
    n = next(iter(lengths.values()), 1)
    return [{k: v[i] for k, v in lists.items()} for i in range(n)]


def _lists(grid: Mapping[str, Any]) -> dict[str, Any]:
    """One value given as text (or a number) is a list of one value, never its characters."""
    return {k: [v] if isinstance(v, str | bytes | int | float) else v for k, v in grid.items()}


def plan(
    name: str,
    text: str,
    grid: Mapping[str, Iterable[Any]],
    seeds: int,
    base: Mapping[str, Any] | None = None,
    linked: Mapping[str, Iterable[Any]] | None = None,
) -> list[RunSpec]:
    """Every run of the sweep, checked: a bad grid value fails here, before anything runs.
    `linked` keys vary together (see `linked_points`), crossed with the grid. More than
    `MAX_RUNS` runs, or a grid key with no value, is refused before any is planned."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    if "sim.seed" in grid or "sim.seed" in (linked or {}):
        raise ValueError(
            "sim.seed cannot be swept: a sweep runs seeds 1..N of every point (--seeds N, "
            "seeds=N in Python)"
        )
    grid = _lists(grid)
    both = sorted(set(grid) & set(linked or {}))
    if both:
        raise ValueError(f"{', '.join(both)}: a key is either in the grid or linked, not both")
    keys = list(grid)
    values = [[_toml_literal(v) for v in grid[k]] for k in keys]
    empty = [k for k, v in zip(keys, values, strict=True) if not v]
    if empty:
        raise ValueError(f"grid key {empty[0]} has no value; give it at least one")
    points = [
        {k: _toml_literal(v) for k, v in point.items()} for point in linked_points(linked or {})
    ]
    runs = math.prod(len(v) for v in values) * len(points) * seeds
    if runs > MAX_RUNS:
        raise ValueError(
            f"the sweep would plan {runs:,} runs, over the bound of {MAX_RUNS:,} runs in one "
            "sweep (each is checked before any starts); split it into several sweeps"
        )
    specs = []
    for combo, point in itertools.product(itertools.product(*values), points):
        params = {**dict(zip(keys, combo, strict=True)), **point}
        overrides = _overrides({**(base or {}), **params})
        for seed in range(1, seeds + 1):
            resolved = validate(text=text, set=dict(overrides), seed=seed)
            key = hashlib.sha256(resolved.encode()).hexdigest()[:20]
            specs.append(RunSpec(params, seed, key))
    return specs


def _run_one(text: str, base: dict[str, str], spec: RunSpec, folder: str) -> str | None:
    """Runs one spec into `folder/runs/<key>` atomically; returns an error or None."""
    root = Path(folder)
    final = root / "runs" / spec.key
    tmp = root / "tmp" / f"{spec.key}-{os.getpid()}"
    try:
        if tmp.exists():
            shutil.rmtree(tmp)
        # Traces stream into the run's folder; the run is saved there too.
        run(text=text, seed=spec.seed, set={**base, **spec.params}, out=tmp, progress=False)
        (tmp / "params.json").write_text(
            json.dumps({"params": spec.params, "seed": spec.seed, "key": spec.key}, indent=2)
        )
        os.replace(tmp, final)
        (root / "failed" / f"{spec.key}.json").unlink(missing_ok=True)
        return None
    except Exception as e:  # recorded, and the sweep carries on
        shutil.rmtree(tmp, ignore_errors=True)
        return _record_failure(root, spec, f"{type(e).__name__}: {e}")


def _record_failure(root: Path, spec: RunSpec, error: str) -> str:
    (root / "failed" / f"{spec.key}.json").write_text(
        json.dumps({"params": spec.params, "seed": spec.seed, "error": error}, indent=2)
    )
    return error


def _failure(root: Path, key: str) -> str | None:
    """The recorded reason a run failed, if it did."""
    record = root / "failed" / f"{key}.json"
    try:
        return str(json.loads(record.read_text())["error"])
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError):
        return f"failed (unreadable record {record})"


def sweep(
    path: str | os.PathLike[str] | None = None,
    grid: Mapping[str, Iterable[Any]] | None = None,
    *,
    text: str | None = None,
    seeds: int = 1,
    out: str | os.PathLike[str] = "sweeps/sweep",
    jobs: int | None = None,
    set: Mapping[str, Any] | None = None,
    ray_address: str | None = None,
    retry_failed: bool = False,
    on_progress: Callable[[SweepResult], None] | None = None,
    linked: Mapping[str, Iterable[Any]] | None = None,
    force: bool = False,
    progress: bool | None = None,
) -> pl.DataFrame:
    """Runs every grid point with every seed and returns a polars DataFrame of summaries
    (one row per run and flow, grid values as columns); see `open_results`.

    The scenario is a file `path` or TOML `text=`. Runs already in `out` are skipped, so
    calling it again resumes; runs that failed before are run again only with
    `retry_failed=True`. `ray_address` runs the same sweep on a Ray cluster ("local" for a
    local Ray). `linked` keys change together: `{"links.a.delay": ["10ms", "40ms"],
    "links.b.delay": ["40ms", "10ms"]}` is two points, crossed with `grid`. A non-empty
    `out` that is not a sweep of the same scenario raises `OutFolderError`, unless `force`,
    which empties it first. Unless `on_progress` is given, the command line's bar of runs
    is shown where someone watches (a notebook, a terminal; `progress=False`: never).
    """
    from tern.progress import SweepBar
    from tern.store import open_results

    label = Path(path).stem if path is not None and text is None else "sweep"
    bar = SweepBar(label, enabled=on_progress is None and progress is not False)
    with bar:
        result = run_sweep(
            path,
            grid or {},
            text=text,
            seeds=seeds,
            out=out,
            jobs=jobs,
            set=set,
            ray_address=ray_address,
            retry_failed=retry_failed,
            on_progress=on_progress or bar.update,
            linked=linked,
            force=force,
        )
    if result.failures:
        first = next(iter(result.failures.values()))
        raise RuntimeError(
            f"{len(result.failures)} of {result.total} runs failed (first: {first}); "
            f"see {result.folder}/failed/"
        )
    return open_results(out).pl()


def run_sweep(
    path: str | os.PathLike[str] | None,
    grid: Mapping[str, Iterable[Any]],
    *,
    text: str | None = None,
    seeds: int = 1,
    out: str | os.PathLike[str],
    jobs: int | None = None,
    set: Mapping[str, Any] | None = None,
    ray_address: str | None = None,
    retry_failed: bool = False,
    on_progress: Callable[[SweepResult], None] | None = None,
    linked: Mapping[str, Iterable[Any]] | None = None,
    force: bool = False,
) -> SweepResult:
    """The sweep itself; returns counts and failures instead of a frame. Runs that failed
    in an earlier invocation count as failures unless `retry_failed`, which runs them again.
    Ctrl-C stops the workers, removes the runs being written and raises `KeyboardInterrupt`;
    what is finished stays, so the same call resumes."""
    name, text = _source(path, text)
    base = dict(_overrides(set))
    grid = _lists(grid)
    specs = plan(name, text, grid, seeds, base, linked)
    root = Path(out)
    outdir.claim_sweep(root, name, text=text, force=force)
    for sub in ("runs", "failed", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "sweep.json").write_text(
        json.dumps(
            {
                "scenario": name,
                "source": outdir.identity(name),
                "digest": outdir.digest(text),
                "grid": {k: list(map(str, v)) for k, v in grid.items()},
                "linked": {k: list(map(str, v)) for k, v in (linked or {}).items()},
                "seeds": seeds,
                "set": base,
            },
            indent=2,
        )
    )
    # Grid points that resolve to the same scenario are one run.
    unique = {spec.key: spec for spec in reversed(specs)}
    result = SweepResult(root, total=len(unique), seeds={k: s.seed for k, s in unique.items()})
    todo = []
    for key, spec in unique.items():
        if (root / "runs" / key).is_dir():
            result.skipped += 1
        elif not retry_failed and (error := _failure(root, key)) is not None:
            result.failures[key] = error
        else:
            todo.append(spec)
    if on_progress:
        on_progress(result)
    try:
        if todo and ray_address is not None:
            _with_ray(text, base, todo, root, ray_address, result, on_progress)
        elif todo:
            _with_pool(text, base, todo, root, jobs or os.cpu_count() or 1, result, on_progress)
    finally:
        with contextlib.suppress(OSError):
            (root / "tmp").rmdir()  # if empty: runs of other sweeps may be under way
    return result


def _record(
    result: SweepResult,
    spec: RunSpec,
    error: str | None,
    on_progress: Callable[[SweepResult], None] | None,
) -> None:
    if error is None:
        result.done += 1
    else:
        result.failures[spec.key] = error
    if on_progress:
        on_progress(result)


@contextlib.contextmanager
def _main_unseen() -> Iterator[None]:
    """A worker needs nothing of the caller's `__main__`: started while it is hidden, the
    spawned interpreter does not run the caller's script again. So `tern.sweep` works from a
    plain script with no `if __name__ == "__main__":` guard, and from `python -` (the
    `spawn` start method otherwise re-imports the script in every worker)."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if k in main.__dict__}
    main.__dict__.pop("__file__", None)
    main.__spec__ = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread sets handlers; _serve ignores Ctrl-C itself then
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _serve(conn: Connection) -> None:
    """A worker process: runs the specs it is sent, one at a time, until told to stop."""
    # Ctrl-C goes to the whole process group; the parent stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while (job := conn.recv()) is not None:
        conn.send(_run_one(*job))


def _death(exitcode: int | None) -> str:
    """Why a worker process ended, as a run's error."""
    if exitcode is not None and exitcode < 0:
        name = signal.Signals(-exitcode).name
        oom = " (out of memory?)" if -exitcode == signal.SIGKILL else ""
        return f"WorkerDied: the process running it was killed by {name}{oom}"
    return f"WorkerDied: the process running it exited with code {exitcode}"


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    spec: RunSpec | None = None


def _with_pool(
    text: str,
    base: dict[str, str],
    todo: list[RunSpec],
    root: Path,
    jobs: int,
    result: SweepResult,
    on_progress: Callable[[SweepResult], None] | None,
) -> None:
    """Runs `todo` on `jobs` worker processes, each sent one run at a time, so that when one
    dies the parent knows which run it held: that run is recorded as failed and a new worker
    takes its place."""
    # "spawn", not fork: forking a process whose polars/DuckDB thread pools
    # hold locks can deadlock the children.
    context = multiprocessing.get_context("spawn")
    queue = list(reversed(todo))
    workers: list[_Worker] = []
    pids: list[int] = []

    def start() -> _Worker:
        conn, child = context.Pipe()
        process = context.Process(target=_serve, args=(child,), daemon=True)
        # Started with Ctrl-C ignored, which the child inherits: a Ctrl-C while it starts up
        # would otherwise print its traceback.
        with _sigint_ignored(), _main_unseen():
            process.start()
        child.close()
        pids.append(process.pid or 0)
        return _Worker(process, conn)

    try:
        while queue or any(w.spec for w in workers):
            while queue and sum(w.spec is not None for w in workers) < jobs:
                idle = next((w for w in workers if w.spec is None), None)
                if idle is None:
                    idle = start()
                    workers.append(idle)
                idle.spec = queue.pop()
                idle.conn.send((text, base, idle.spec, str(root)))
            busy = [(w, spec) for w in workers if (spec := w.spec) is not None]
            ready = wait([w.conn for w, _ in busy] + [w.process.sentinel for w, _ in busy])
            for w, spec in busy:
                if w.conn not in ready and w.process.sentinel not in ready:
                    continue
                w.spec = None
                try:
                    error = w.conn.recv()
                except (EOFError, OSError):  # it died
                    w.process.join()
                    shutil.rmtree(root / "tmp" / f"{spec.key}-{w.process.pid}", ignore_errors=True)
                    error = _record_failure(root, spec, _death(w.process.exitcode))
                    workers.remove(w)
                _record(result, spec, error, on_progress)
    finally:
        for w in workers:
            try:
                if w.spec is not None:
                    raise BrokenPipeError  # interrupted (Ctrl-C) or failed: stop at once
                w.conn.send(None)
            except OSError:
                w.process.terminate()
        for w in workers:
            w.process.join()
        for pid in pids:  # the runs that were being written when interrupted
            for partial in (root / "tmp").glob(f"*-{pid}"):
                shutil.rmtree(partial, ignore_errors=True)


def _with_ray(
    text: str,
    base: dict[str, str],
    todo: list[RunSpec],
    root: Path,
    address: str,
    result: SweepResult,
    on_progress: Callable[[SweepResult], None] | None,
) -> None:
    import ray

    # Ray started here is Tern's to end: `ray.init` also installs its own SIGTERM handler in
    # this process, which would outlive the sweep.
    started = not ray.is_initialized()
    if started:
        on_term = signal.getsignal(signal.SIGTERM)
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    remote = ray.remote(_run_one)
    pending = {remote.remote(text, base, s, str(root.resolve())): s for s in todo}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                spec = pending.pop(ref)
                try:
                    error = ray.get(ref)
                except ray.exceptions.RayError as e:  # its worker died
                    error = _record_failure(root, spec, f"{type(e).__name__}: {e}")
                _record(result, spec, error, on_progress)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
            if threading.current_thread() is threading.main_thread():
                signal.signal(signal.SIGTERM, on_term)
