"""Parameter sweeps: the cartesian product of grids and seeds, run on a local
process pool (default) or a Ray cluster, into a results folder that survives
interruption.

Layout of a sweep folder::

    DIR/runs/<key>/     one finished run: summary.json, scenario.toml, params.json, *.parquet
    DIR/failed/<key>.json   a run that raised, with its error (retried on the next invocation)
    DIR/tmp/            runs being written (moved into runs/ when complete)

`<key>` is the SHA-256 of the resolved scenario (which includes the seed), so a
run is identified by what it computes, not by when or where. A run's folder is
written under a temporary name and renamed into place, so it either exists
whole or not at all: a sweep killed at any moment (kill -9 included) resumes
with nothing lost and nothing run twice.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import multiprocessing
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tern import _core
from tern.runner import _overrides, _source, _toml_literal, run


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


def parse_grid(items: Iterable[str]) -> dict[str, list[str]]:
    """`["links.access.rate=5Mbps,10Mbps"]` → `{"links.access.rate": ["5Mbps", "10Mbps"]}`."""
    grid: dict[str, list[str]] = {}
    for item in items:
        key, eq, values = item.partition("=")
        vals = [v.strip() for v in values.split(",") if v.strip()]
        if not eq or not key.strip() or not vals:
            raise ValueError(
                f"--grid {item!r}: expected KEY=V1,V2,..., like links.access.rate=5Mbps,10Mbps"
            )
        grid[key.strip()] = vals
    return grid


def plan(
    name: str,
    text: str,
    grid: Mapping[str, Iterable[Any]],
    seeds: int,
    base: Mapping[str, Any] | None = None,
) -> list[RunSpec]:
    """Every run of the sweep, checked: a bad grid value fails here, before anything runs."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1, got {seeds}")
    keys = list(grid)
    values = [[_toml_literal(v) for v in grid[k]] for k in keys]
    specs = []
    for combo in itertools.product(*values):
        params = dict(zip(keys, combo, strict=True))
        overrides = _overrides({**(base or {}), **params})
        for seed in range(1, seeds + 1):
            resolved = _core.validate(text, name, overrides, seed)
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
        run(text, seed=spec.seed, set={**base, **spec.params}, out=tmp)
        (tmp / "params.json").write_text(
            json.dumps({"params": spec.params, "seed": spec.seed, "key": spec.key}, indent=2)
        )
        os.replace(tmp, final)
        (root / "failed" / f"{spec.key}.json").unlink(missing_ok=True)
        return None
    except Exception as e:  # recorded, and the sweep carries on
        shutil.rmtree(tmp, ignore_errors=True)
        error = f"{type(e).__name__}: {e}"
        (root / "failed" / f"{spec.key}.json").write_text(
            json.dumps({"params": spec.params, "seed": spec.seed, "error": error}, indent=2)
        )
        return error


def sweep(
    path_or_text: str | os.PathLike[str],
    grid: Mapping[str, Iterable[Any]],
    *,
    seeds: int = 1,
    out: str | os.PathLike[str] = "sweeps/sweep",
    jobs: int | None = None,
    set: Mapping[str, Any] | None = None,
    ray_address: str | None = None,
    on_progress: Callable[[SweepResult], None] | None = None,
):
    """Runs every grid point with every seed and returns a polars DataFrame of summaries
    (one row per run and flow, grid values as columns); see `open_results`.

    Runs already in `out` are skipped, so calling it again resumes.
    `ray_address` runs the same sweep on a Ray cluster ("local" for a local Ray).
    """
    from tern.store import open_results

    result = run_sweep(
        path_or_text,
        grid,
        seeds=seeds,
        out=out,
        jobs=jobs,
        set=set,
        ray_address=ray_address,
        on_progress=on_progress,
    )
    if result.failures:
        first = next(iter(result.failures.values()))
        raise RuntimeError(
            f"{len(result.failures)} of {result.total} runs failed (first: {first}); "
            f"see {result.folder}/failed/"
        )
    return open_results(out).pl()


def run_sweep(
    path_or_text: str | os.PathLike[str],
    grid: Mapping[str, Iterable[Any]],
    *,
    seeds: int = 1,
    out: str | os.PathLike[str],
    jobs: int | None = None,
    set: Mapping[str, Any] | None = None,
    ray_address: str | None = None,
    on_progress: Callable[[SweepResult], None] | None = None,
) -> SweepResult:
    """The sweep itself; returns counts and failures instead of a frame."""
    name, text = _source(path_or_text)
    base = dict(_overrides(set))
    specs = plan(name, text, grid, seeds, base)
    root = Path(out)
    for sub in ("runs", "failed", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "sweep.json").write_text(
        json.dumps(
            {
                "scenario": name,
                "grid": {k: list(map(str, v)) for k, v in grid.items()},
                "seeds": seeds,
                "set": base,
            },
            indent=2,
        )
    )
    # Grid points that resolve to the same scenario are one run.
    unique = {spec.key: spec for spec in reversed(specs)}
    todo = [spec for key, spec in unique.items() if not (root / "runs" / key).is_dir()]
    result = SweepResult(root, total=len(unique), skipped=len(unique) - len(todo))
    if on_progress:
        on_progress(result)
    if not todo:
        return result
    if ray_address is not None:
        _with_ray(text, base, todo, root, ray_address, result, on_progress)
    else:
        _with_pool(text, base, todo, root, jobs or os.cpu_count() or 1, result, on_progress)
    return result


def _record(result: SweepResult, spec: RunSpec, error: str | None, on_progress) -> None:
    if error is None:
        result.done += 1
    else:
        result.failures[spec.key] = error
    if on_progress:
        on_progress(result)


def _with_pool(text, base, todo, root, jobs, result, on_progress) -> None:
    # "spawn", not fork: forking a process whose polars/DuckDB thread pools
    # hold locks can deadlock the children.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        pending: dict[Future, RunSpec] = {
            pool.submit(_run_one, text, base, s, str(root)): s for s in todo
        }
        while pending:
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                _record(result, pending.pop(fut), fut.result(), on_progress)


def _with_ray(text, base, todo, root, address, result, on_progress) -> None:
    import ray

    if not ray.is_initialized():
        if address == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    remote = ray.remote(_run_one)
    pending = {remote.remote(text, base, s, str(root.resolve())): s for s in todo}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            _record(result, pending.pop(ref), ray.get(ref), on_progress)
