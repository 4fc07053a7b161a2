"""Reproducing a study: run its experiments, check its published claims, draw its figures.

A study lives in `scenarios/<id>/`:

* `study.toml` — title, the `[paper]` it reproduces (title, authors, affiliation, venue,
  year), the experiments (a scenario file, a grid of overrides, optionally keys `linked` to
  change together, and a number of seeds, each with a smaller `quick` variant) and the
  **claims**: each published number with the SQL that computes Tern's value from the results
  store and the tolerance it is held to;
* the scenario files the experiments name, inside the study's folder.

Study ids and experiment names are identifiers (`NAME_PATTERN`: letters, digits, `_` and
`-`, starting with a letter or digit): they name folders. Claims are data, not code: a claim's
`value` is one DuckDB query (SELECT or WITH) over the experiment's results (the table `runs` of
`tern.store`, one row per run and flow, grid values as columns; and one view per trace), run on
a connection that can read nothing else and write nothing. Its first column is Tern's value. A
claim that holds under several conditions (a parameter the paper does not give, and which is
therefore swept) returns one row per condition: the further columns name it (column name =
value), and each row is a line of the check table, held to the same tolerance. Figures are drawn by
`tern.reproduce.<module>.figures(results)`, where `<module>` is the study id with `-` → `_`.

The studies ship inside the package (`tern/scenarios`, a link to the checkout's `scenarios/`
that the wheel stores as files), so an installed Tern lists and runs them too.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import math
import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from tern import report, store, sweeps


class StudyError(ValueError):
    """A study definition that cannot be used; the message names the file and key."""


#: Study ids and experiment names: they name folders, so no `/`, `..` or spaces.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
NAME_RULE = "letters, digits, '_' and '-', starting with a letter or digit"


def _identifier(value: str, where: str) -> str:
    if not NAME_PATTERN.fullmatch(value):
        raise StudyError(f"{where}: {value!r} is not a valid name ({NAME_RULE})")
    return value


@dataclass(frozen=True)
class Experiment:
    name: str
    scenario: Path
    grid: dict[str, list[str]]
    seeds: int
    set: dict[str, str]
    #: Keys whose values go together, position by position (`tern.sweeps.linked_points`).
    linked: dict[str, list[str]] = field(default_factory=dict)
    #: The same experiment with its `quick` settings applied (None for the quick one itself).
    quick: Experiment | None = None

    @property
    def runs(self) -> int:
        points = len(next(iter(self.linked.values()), [None]))
        return math.prod(len(v) for v in self.grid.values()) * points * self.seeds


@dataclass(frozen=True)
class Claim:
    id: str
    experiment: str
    claim: str
    published: float
    unit: str
    tolerance: float
    value: str
    source: str
    note: str


@dataclass(frozen=True)
class Paper:
    """The publication a study reproduces."""

    title: str
    authors: list[str]
    affiliation: str = ""
    venue: str = ""
    year: int | None = None

    def citation(self) -> str:
        """Authors (affiliation), “title”, venue, year — what is known of them."""
        authors = ", ".join(self.authors[:-1]) + " and " if len(self.authors) > 1 else ""
        authors += self.authors[-1] if self.authors else ""
        who = f"{authors} ({self.affiliation})" if self.affiliation else authors
        where = [x for x in (self.venue, str(self.year or "")) if x]
        if not where:
            where = ["venue and year not stated in the paper's text"]
        return f"{who}, “{self.title}”, {', '.join(where)}"


@dataclass(frozen=True)
class Study:
    id: str
    title: str
    paper: Paper
    folder: Path
    experiments: list[Experiment]
    claims: list[Claim]


@dataclass
class ClaimResult:
    claim: Claim
    value: float | None
    error: str | None = None
    #: The condition of this row ("name = value, ..."), for a claim with one row per condition.
    condition: str = ""

    @property
    def passed(self) -> bool:
        return (
            self.value is not None
            and not math.isnan(self.value)
            and abs(self.value - self.claim.published) <= self.claim.tolerance
        )


@dataclass
class Reproduction:
    study: Study
    out: Path
    quick: bool
    results: list[ClaimResult] = field(default_factory=list)
    #: (file stem, figure, caption) as drawn by the study's module.
    figures: list[tuple[str, Any, str]] = field(default_factory=list)


def studies_root() -> Path:
    """Where the studies are: `$TERN_SCENARIOS`, else those shipped with Tern."""
    env = os.environ.get("TERN_SCENARIOS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent / "scenarios"


def list_studies(root: Path | None = None) -> list[str]:
    root = root or studies_root()
    return sorted(p.parent.name for p in root.glob("*/study.toml"))


def _take(table: dict[str, Any], key: str, kind: type, where: str, default: Any = ...) -> Any:
    if key not in table:
        if default is ...:
            raise StudyError(f"{where}: missing key {key!r}")
        return default
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind):
        raise StudyError(f"{where}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def _strings(table: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in table.items()}


def _values(v: Any) -> list[str]:
    """A swept key's values as strings (one value stands for a list of one)."""
    return [str(x) for x in (v if isinstance(v, list) else [v])]


def _experiment(
    table: dict[str, Any], where: str, name: str, scenario: Path, base: Experiment | None = None
) -> Experiment:
    """An experiment's grid, seeds and overrides from `table`, on top of `base` if given."""
    grid = dict(base.grid) if base else {}
    for k, v in _take(table, "grid", dict, where, {}).items():
        grid[k] = _values(v)
    # Linked lists are replaced whole: their lengths must stay equal.
    linked = _take(table, "linked", dict, where, None)
    if linked is None:
        linked = dict(base.linked) if base else {}
    else:
        linked = {k: _values(v) for k, v in linked.items()}
    try:
        sweeps.linked_points(linked)
    except ValueError as e:
        raise StudyError(f"{where}.linked: {e}") from None
    return Experiment(
        name=name,
        scenario=scenario,
        grid=grid,
        linked=linked,
        seeds=_take(table, "seeds", int, where, base.seeds if base else 1),
        set={**(base.set if base else {}), **_strings(_take(table, "set", dict, where, {}))},
    )


def _module(study_id: str) -> str:
    return f"tern.reproduce.{study_id.replace('-', '_')}"


def _claim_sql(sql: str, where: str) -> str:
    """A claim's value: one query that only reads (SELECT or WITH)."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as e:
        raise StudyError(f"{where}: not valid SQL: {e}") from None
    kinds = [st.type.name for st in statements]
    if kinds != ["SELECT"]:
        got = ", ".join(kinds) or "nothing"
        raise StudyError(f"{where}: expected one query (SELECT or WITH ...), got {got}")
    return sql


def _paper(data: dict[str, Any], path: Path) -> Paper:
    where = f"{path}: paper"
    table = _take(data, "paper", dict, str(path))
    authors = _take(table, "authors", list, where)
    if not authors or not all(isinstance(a, str) for a in authors):
        raise StudyError(f"{where}.authors: expected a list of names, got {authors!r}")
    return Paper(
        title=_take(table, "title", str, where),
        authors=authors,
        affiliation=_take(table, "affiliation", str, where, ""),
        venue=_take(table, "venue", str, where, ""),
        year=_take(table, "year", int, where, None),
    )


def load_study(study_id: str, root: Path | None = None) -> Study:
    """Reads and checks `scenarios/<id>/study.toml`."""
    root = root or studies_root()
    _identifier(study_id, "study id")
    folder = root / study_id
    path = folder / "study.toml"
    if not path.is_file():
        known = ", ".join(list_studies(root)) or "none"
        raise StudyError(f"no study {study_id!r} in {root} (known: {known})")
    module = _module(study_id)
    if importlib.util.find_spec(module) is None:
        raise StudyError(
            f"{path}: study {study_id!r} has no Python module {module} (the file "
            f"tern/reproduce/{module.rsplit('.', 1)[1]}.py, with a function figures(results) "
            "that draws the study's figures)"
        )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise StudyError(f"{path}: {e}") from None
    experiments = []
    for i, e in enumerate(_take(data, "experiments", list, str(path))):
        where = f"{path}: experiments[{i}]"
        relative = _take(e, "scenario", str, where)
        scenario = folder / relative
        if not scenario.resolve().is_relative_to(folder.resolve()):
            raise StudyError(f"{where}.scenario: {relative!r} is outside the study's folder")
        if not scenario.is_file():
            raise StudyError(f"{where}.scenario: no such file {scenario}")
        name = _identifier(_take(e, "name", str, where), f"{where}.name")
        full = _experiment(e, where, name, scenario)
        quick_table = _take(e, "quick", dict, where, {})
        quick = _experiment(quick_table, f"{where}.quick", name, scenario, full)
        experiments.append(dataclasses.replace(full, quick=quick))
    names = [e.name for e in experiments]
    for name in names:
        if names.count(name) > 1:
            raise StudyError(f"{path}: experiments: the name {name!r} is used twice")
    claims = []
    for i, c in enumerate(_take(data, "claims", list, str(path), [])):
        where = f"{path}: claims[{i}]"
        claim = Claim(
            id=_take(c, "id", str, where),
            experiment=_take(c, "experiment", str, where),
            claim=_take(c, "claim", str, where),
            published=_take(c, "published", float, where),
            unit=_take(c, "unit", str, where, ""),
            tolerance=_take(c, "tolerance", float, where),
            value=_claim_sql(_take(c, "value", str, where), f"{where}.value"),
            source=_take(c, "source", str, where, ""),
            note=_take(c, "note", str, where, ""),
        )
        if claim.experiment not in names:
            raise StudyError(f"{where}.experiment: no experiment named {claim.experiment!r}")
        claims.append(claim)
    return Study(
        id=study_id,
        title=_take(data, "title", str, str(path)),
        paper=_paper(data, path),
        folder=folder,
        experiments=experiments,
        claims=claims,
    )


def quick_variant(study: Study) -> Study:
    """The study with every experiment's `quick` settings applied (fewer seeds, shorter runs)."""
    quick = [e.quick for e in study.experiments if e.quick is not None]
    return dataclasses.replace(study, experiments=quick)


def evaluate(claim: Claim, con: duckdb.DuckDBPyConnection) -> list[ClaimResult]:
    """Tern's values of one claim, run on `con` (a `store.connect(..., sandbox=True)`
    connection): the first column of each row of its query, the other columns naming the
    row's condition. A query with one column gives one value (its first row)."""
    try:
        cursor = con.execute(claim.value)
        names = [d[0] for d in cursor.description or []]
        rows = cursor.fetchall()
    except duckdb.PermissionException as e:
        return [
            ClaimResult(claim, None, f"query refused: claims may read only the results store ({e})")
        ]
    except duckdb.Error as e:
        return [ClaimResult(claim, None, f"query failed: {e}")]
    if len(names) == 1:
        rows = rows[:1]
    if not rows:
        return [ClaimResult(claim, None, "query returned no value")]
    results = []
    for row in rows:
        condition = ", ".join(f"{n} = {v}" for n, v in zip(names[1:], row[1:], strict=True))
        if row[0] is None:
            results.append(ClaimResult(claim, None, "query returned no value", condition))
        else:
            results.append(ClaimResult(claim, float(row[0]), condition=condition))
    return results


ProgressFn = Callable[[str, sweeps.SweepResult], None]


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
    """Runs a study's experiments (resuming what is already in `out`; runs that failed before
    are run again only with `retry_failed`), evaluates its claims, draws its figures and
    writes `report.md` and `report.html` into `out`."""
    study = load_study(study_id, root)
    if quick:
        study = quick_variant(study)
    folder = Path(out) if out is not None else Path("reproduce") / (study_id + ("-quick" * quick))
    rep = Reproduction(study, folder, quick)
    for e in study.experiments:
        sweep = sweeps.run_sweep(
            e.scenario,
            e.grid,
            linked=e.linked,
            seeds=e.seeds,
            out=folder / e.name,
            jobs=jobs,
            set=e.set,
            retry_failed=retry_failed,
            on_progress=(lambda r, name=e.name: on_progress(name, r)) if on_progress else None,
        )
        if sweep.failures:
            first = next(iter(sweep.failures.values()))
            raise RuntimeError(
                f"{study_id}/{e.name}: {len(sweep.failures)} runs failed (first: {first}); "
                f"see {sweep.folder}/failed/ (--retry-failed runs them again)"
            )
    sandboxes = {e.name: store.connect(folder / e.name, sandbox=True) for e in study.experiments}
    rep.results = [r for c in study.claims for r in evaluate(c, sandboxes[c.experiment])]
    connections = {e.name: store.connect(folder / e.name) for e in study.experiments}
    rep.figures = list(importlib.import_module(_module(study_id)).figures(connections))
    write_reports(rep)
    # The figures stay usable (`rep.figures`), but pyplot no longer holds them: reproducing
    # several studies in one process would otherwise keep every figure ever drawn. (Imported
    # here: the study's module has chosen matplotlib's backend by now.)
    import matplotlib.pyplot as plt

    for _, fig, _ in rep.figures:
        plt.close(fig)
    return rep


def _check(r: ClaimResult) -> report.Check:
    c = r.claim
    unit = f" {c.unit}" if c.unit and c.unit != "fraction" else ""
    note = " ".join(x for x in (c.source, c.note, r.error or "") if x)
    return report.Check(
        claim=f"{c.claim} [{r.condition}]" if r.condition else c.claim,
        published=f"{c.published:g}{unit}",
        tern=None if r.value is None else f"{r.value:.3g}{unit}",
        tolerance=f"± {c.tolerance:g}{unit}",
        passed=None if r.value is None else r.passed,
        note=note,
    )


def write_reports(rep: Reproduction) -> None:
    """`report.md` (figures beside it as PNG) and a self-contained `report.html` in `rep.out`."""
    study = rep.study
    runs = ", ".join(f"{e.name}: {e.scenario.name}, {e.runs} runs" for e in study.experiments)
    intro = (
        f"Study: {study.title}. Paper: {study.paper.citation()}. "
        f"{'Quick variant (fewer runs, shorter)' if rep.quick else 'Full run'}; "
        f"experiments: {runs}. "
        "Each claim's value is computed by the SQL in the study's study.toml over the results "
        "store in this folder (`tern query <folder>/<experiment> ...`)."
    )
    sections = [
        report.Section(
            "Published claims against Tern",
            [report.CheckTable([_check(r) for r in rep.results])],
        ),
        report.Section(
            "Figures",
            [report.Plot(fig, caption, name) for name, fig, caption in rep.figures],
        ),
    ]
    title = f"tern reproduce {study.id}"
    rep.out.mkdir(parents=True, exist_ok=True)
    report.write_markdown(title, sections, rep.out / "report.md", intro=intro)
    report.write_html(title, sections, rep.out / "report.html", intro=intro)
