"""Reproducing a study: run its experiments, judge its published claims, draw its figures.

A study lives in `scenarios/<id>/`: `study.toml` (its format: `tern.reproduce._study`) and
the scenario files its experiments name. The protocol a reproduction follows, so that its
check table can be read as evidence:

1. **One primary condition.** Every parameter is sourced (a standard, a device's
   documentation or source, the paper's text or figures) or calibrated on one named claim,
   which is then left out of the verdict count. Experiments run at that condition; the
   paper's own axes (what its figures vary) are their grids.
2. **One verdict per claim**, over all seeds at the primary condition: the median with an
   interval (or k of n for yes/no claims and orderings), and `reproduced`, `not reproduced —
   cause shown` (the study names the experiment that shows the cause) or `not reproduced —
   open`. The rules are in `tern.reproduce._verdict`.
3. **Sensitivity apart.** A parameter the paper does not give is swept in a
   `[[sensitivity]]` section: the range Tern's value spans and whether the paper's value lies
   inside it; no verdicts.
4. `--quick` runs the same condition with fewer seeds.

`reproduce()` writes `report.md`, `report.html` and `report.json` (per claim: id, verdict,
value, interval, values per seed, tolerance, condition; and what the reproduction cost).
Figures are drawn by `tern.reproduce.<module>.figures(results)`, where `<module>` is the study
id with `-` → `_` and `results` maps each experiment's name to a DuckDB connection over its
runs (only the runs of this reproduction's condition) and has the condition as `.primary`.

The studies ship inside the package (`tern/scenarios`, a link to the checkout's `scenarios/`
that the wheel stores as files), so an installed Tern lists and runs them too.
"""

from __future__ import annotations

import importlib
import os
import resource
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from tern import store, sweeps
from tern.reproduce._evaluate import (
    ClaimResult,
    SensitivityResult,
    check_causes,
    judge_claims,
    query_value,
    sensitivity_values,
)
from tern.reproduce._study import (
    NAME_PATTERN,
    NAME_RULE,
    Claim,
    Experiment,
    Paper,
    Parameter,
    Sensitivity,
    Study,
    StudyError,
    list_studies,
    load_study,
    module_name,
    quick_variant,
    studies_root,
)
from tern.reproduce._verdict import CAUSE_SHOWN, OPEN, REPRODUCED, summary_line

__all__ = [
    "CAUSE_SHOWN",
    "NAME_PATTERN",
    "NAME_RULE",
    "OPEN",
    "REPRODUCED",
    "Claim",
    "ClaimResult",
    "Cost",
    "Experiment",
    "Paper",
    "Parameter",
    "Reproduction",
    "Results",
    "Sensitivity",
    "SensitivityResult",
    "Study",
    "StudyError",
    "list_studies",
    "load_study",
    "query_value",
    "quick_variant",
    "reproduce",
    "studies_root",
]


class Results(Mapping[str, duckdb.DuckDBPyConnection]):
    """What a study's `figures()` gets: experiment name → a connection over that
    experiment's runs at this reproduction's condition (opened when first asked for)."""

    def __init__(self, study: Study, folders: Mapping[str, tuple[Path, Mapping[str, int]]]):
        self.study = study
        #: The primary condition, key → value.
        self.primary = {k: p.value for k, p in study.primary.items()}
        self._folders = folders
        self._open: dict[str, duckdb.DuckDBPyConnection] = {}

    def __getitem__(self, name: str) -> duckdb.DuckDBPyConnection:
        if name not in self._open:
            folder, runs = self._folders[name]
            # One thread, as for the claims: the figures read a few hundred runs, where
            # DuckDB's worker threads cost more CPU than they save (the budget counts CPU).
            con = store.connect(folder, keys=set(runs), threads=1)
            self._open[name] = con
        return self._open[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._folders)

    def __len__(self) -> int:
        return len(self._folders)

    def close(self) -> None:
        for con in self._open.values():
            con.close()
        self._open.clear()


@dataclass
class Cost:
    """What a reproduction cost: CPU seconds of the simulations (the sweep's worker
    processes) and of evaluating claims and drawing figures (this process), and peak
    resident memory of each. Simulations already done (a resumed reproduction) cost 0."""

    simulation_cpu_s: float = 0.0
    evaluation_cpu_s: float = 0.0
    #: Writing report.md and report.html (rendering the figures); known only once they are
    #: written, so it is in report.json alone.
    reports_cpu_s: float = 0.0
    wall_s: float = 0.0
    runs: int = 0
    runs_done_now: int = 0
    peak_rss_worker_mib: float = 0.0
    peak_rss_main_mib: float = 0.0


@dataclass
class Reproduction:
    study: Study
    out: Path
    quick: bool
    results: list[ClaimResult] = field(default_factory=list)
    sensitivity: list[SensitivityResult] = field(default_factory=list)
    #: (file stem, figure, caption) as drawn by the study's module.
    figures: list[tuple[str, Any, str]] = field(default_factory=list)
    cost: Cost = field(default_factory=Cost)
    #: Why the study's figures could not be drawn, if they could not.
    figure_error: str = ""

    def summary(self) -> str:
        return summary_line([r.verdict for r in self.results], [r.claim.role for r in self.results])


ProgressFn = Callable[[str, sweeps.SweepResult], None]


def _cpu(who: int) -> float:
    u = resource.getrusage(who)
    return u.ru_utime + u.ru_stime


def _sweep(
    name: str,
    e: Experiment,
    extra: Mapping[str, str],
    out: Path,
    seeds: int,
    *,
    jobs: int | None,
    retry_failed: bool,
    on_progress: ProgressFn | None,
    study_id: str,
) -> sweeps.SweepResult:
    sweep = sweeps.run_sweep(
        e.scenario,
        e.grid,
        linked=e.linked,
        seeds=seeds,
        out=out,
        jobs=jobs,
        set={**e.overrides(), **extra},
        retry_failed=retry_failed,
        on_progress=(lambda r: on_progress(name, r)) if on_progress else None,
    )
    if sweep.failures:
        first = next(iter(sweep.failures.values()))
        raise RuntimeError(
            f"{study_id}/{name}: {len(sweep.failures)} runs failed (first: {first}); "
            f"see {sweep.folder}/failed/ (--retry-failed runs them again)"
        )
    return sweep


def reproduce(
    study_id: str,
    *,
    quick: bool = False,
    out: str | os.PathLike[str] | None = None,
    jobs: int | None = None,
    root: Path | None = None,
    retry_failed: bool = False,
    on_progress: ProgressFn | None = None,
) -> Reproduction:
    """Runs a study's experiments and sensitivity sweeps (resuming what is already in `out`;
    runs that failed before are run again only with `retry_failed`), judges its claims,
    draws its figures and writes `report.md`, `report.html` and `report.json` into `out`."""
    from tern.reproduce._output import write_json, write_reports

    study = load_study(study_id, root)
    if quick:
        study = quick_variant(study)
    folder = Path(out) if out is not None else Path("reproduce") / (study_id + ("-quick" * quick))
    rep = Reproduction(study, folder, quick)
    start, cpu0 = time.monotonic(), _cpu(resource.RUSAGE_CHILDREN)
    common = dict(jobs=jobs, retry_failed=retry_failed, on_progress=on_progress, study_id=study_id)
    done: dict[str, tuple[Path, Mapping[str, int]]] = {}
    for e in study.experiments:
        sweep = _sweep(e.name, e, {}, folder / e.name, e.seeds, **common)
        done[e.name] = (sweep.folder, sweep.seeds)
        rep.cost.runs += sweep.total
        rep.cost.runs_done_now += sweep.done
    points: dict[str, list[tuple[str, Path, Mapping[str, int]]]] = {}
    for s in study.sensitivity:
        base = study.experiment(s.experiment)
        for i, (label, point) in enumerate(zip(s.labels(), s.point_list(), strict=True)):
            where = folder / "sensitivity" / s.name / str(i)
            sweep = _sweep(f"{s.name} [{label}]", base, point, where, s.seeds, **common)
            points.setdefault(s.name, []).append((label, sweep.folder, sweep.seeds))
            rep.cost.runs += sweep.total
            rep.cost.runs_done_now += sweep.done
    rep.cost.simulation_cpu_s = _cpu(resource.RUSAGE_CHILDREN) - cpu0
    cpu1 = _cpu(resource.RUSAGE_SELF)
    for e in study.experiments:
        chosen = [c for c in study.claims if c.experiment == e.name]
        rep.results += judge_claims(chosen, *done[e.name], study.tables)
    check_causes(rep.results)
    order = {c.id: i for i, c in enumerate(study.claims)}
    rep.results.sort(key=lambda r: order[r.claim.id])
    claims = {c.id: c for c in study.claims}
    for s in study.sensitivity:
        rep.sensitivity += sensitivity_values(s, claims, points[s.name], study.tables)
    results = Results(study, done)
    try:
        rep.figures = list(importlib.import_module(module_name(study_id)).figures(results))
    except Exception as e:  # the study's own code: its verdicts are reported all the same
        rep.figure_error = (
            f"{module_name(study_id)}.figures failed ({type(e).__name__}: {e}); does it ask "
            f"for an experiment that {study.folder / 'study.toml'} does not have "
            f"(it has: {', '.join(x.name for x in study.experiments)})?"
        )
    finally:
        results.close()
    rep.cost.evaluation_cpu_s = _cpu(resource.RUSAGE_SELF) - cpu1
    rep.cost.wall_s = time.monotonic() - start
    rep.cost.peak_rss_worker_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rep.cost.peak_rss_main_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu2 = _cpu(resource.RUSAGE_SELF)
    write_reports(rep)
    rep.cost.reports_cpu_s = _cpu(resource.RUSAGE_SELF) - cpu2
    write_json(rep)
    # The figures stay usable (`rep.figures`), but pyplot no longer holds them: reproducing
    # several studies in one process would otherwise keep every figure ever drawn. (Imported
    # here: the study's module has chosen matplotlib's backend by now.)
    import matplotlib.pyplot as plt

    for _, fig, _ in rep.figures:
        plt.close(fig)
    return rep
