"""A study's definition, `scenarios/<id>/study.toml`, read and checked.

The format (every key is checked; errors name the file and the key)::

    title = "..."
    [paper]                 # what is reproduced: title, authors, affiliation, venue, year

    # The primary condition: every parameter the claims do not vary themselves, each with
    # its source, or calibrated on one named claim (that claim gets role "calibration").
    # Applied to every experiment; an experiment's own [experiments.primary] adds to it.
    [primary]
    "links.core.delay" = { value = "30ms", source = "§4.1: a few hundred ms UE-GGSN" }
    "links.internet.delay" = { value = "100ms", calibrated = "iw-saves-1s", source = "..." }

    [[experiments]]         # run at the primary condition
    name = "buffer"         # an identifier: it names a folder
    scenario = "download.toml"
    seeds = 10
    grid = { ... }          # the paper's own axes (what its figures vary)
    linked = { ... }        # keys that vary together, position by position
    set = { ... }           # the experiment's design: what to record, the application
    quick = { seeds = 3 }   # what --quick changes (never the condition)
    role = "verdict"        # or "cause": it demonstrates why a claim is not reproduced

    [[claims]]
    id = "..."; experiment = "buffer"; claim = "..."; source = "§5.2"; note = "..."
    published = 2.0; unit = "x"; tolerance = 0.5
    kind = "value"          # value | at_most | at_least | share | ordering (see _verdict)
    role = "verdict"        # verdict | calibration | input | finding
    pooled = false          # true: one query over all seeds instead of one per seed
    cause = "name"          # the experiment (or sensitivity) that shows why it fails
    shown_by = ["id", ...]  # its finding claims that show it: "cause shown" only if all hold
    value = "SELECT ..."    # one query; sees one seed's runs (all of them when pooled)

    # Tables the claims may read besides the runs and traces: one query each, built from
    # the same seed's runs (all seeds' for pooled claims) before the claims, once per seed
    # and only where a claim names it: a series several claims read is computed once.
    [tables]
    held = "SELECT ..."     # an SQL name other than runs, links and the traces
    # or, for a table that reads only some of a seed's runs: `runs` is a condition on the
    # runs table; while the query runs, runs, links and every trace hold those runs only,
    # so a large trace is scanned for them alone
    queue_mean = { runs = "\"wifi.wlan.retry_out.enabled\" = 'false'", query = "SELECT ..." }

    [[sensitivity]]         # a parameter the paper does not give: no verdict, a range
    name = "rtt"
    experiment = "buffer"   # re-run with each point below in place of the primary value
    points = { "links.core.delay" = ["30ms", "180ms"] }   # keys vary together
    claims = ["buffer-64k-doubles-16k"]
    seeds = 3
    quick = { seeds = 1 }
    source = "why the parameter is not sourced, and the range"
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from tern import sweeps
from tern.reproduce._verdict import KINDS, ROLES


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
class Parameter:
    """One key of the primary condition: its value and where it comes from."""

    key: str
    value: str
    source: str
    #: The claim it was calibrated on, if it was.
    calibrated: str = ""


@dataclass(frozen=True)
class Experiment:
    name: str
    scenario: Path
    grid: dict[str, list[str]]
    seeds: int
    set: dict[str, str]
    #: Keys whose values go together, position by position (`tern.sweeps.linked_points`).
    linked: dict[str, list[str]] = field(default_factory=dict)
    #: The primary condition's keys this experiment runs at (the study's and its own).
    primary: dict[str, Parameter] = field(default_factory=dict)
    #: "verdict" (claims are judged on it) or "cause" (it shows why a claim fails).
    role: str = "verdict"
    #: The same experiment with its `quick` settings applied (None for the quick one itself).
    quick: Experiment | None = None

    @property
    def runs(self) -> int:
        points = len(next(iter(self.linked.values()), [None]))
        return math.prod(len(v) for v in self.grid.values()) * points * self.seeds

    def overrides(self) -> dict[str, str]:
        """What the sweep sets: the primary condition, then the experiment's own design."""
        return {**{k: p.value for k, p in self.primary.items()}, **self.set}


@dataclass(frozen=True)
class Claim:
    id: str
    experiment: str
    claim: str
    published: float
    unit: str
    tolerance: float
    value: str
    source: str = ""
    note: str = ""
    kind: str = "value"
    role: str = "verdict"
    pooled: bool = False
    cause: str = ""
    #: The cause experiment's findings that demonstrate the cause; the verdict is "cause
    #: shown" only when every one of them holds in this reproduction.
    shown_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sensitivity:
    """An unsourced parameter swept apart from the verdicts."""

    name: str
    experiment: str
    points: dict[str, list[str]]
    claims: list[str]
    seeds: int
    source: str = ""
    quick: Sensitivity | None = None

    def labels(self) -> list[str]:
        return [", ".join(f"{k} = {v}" for k, v in p.items()) for p in self.point_list()]

    def point_list(self) -> list[dict[str, str]]:
        return sweeps.linked_points(self.points)


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
class Table:
    """A table of `[tables]`: its query and, if given, the condition on `runs` that picks
    the runs it reads (None: all of the seed's)."""

    query: str
    runs: str | None = None


@dataclass(frozen=True)
class Study:
    id: str
    title: str
    paper: Paper
    folder: Path
    experiments: list[Experiment]
    claims: list[Claim]
    sensitivity: list[Sensitivity] = field(default_factory=list)
    #: The study-wide primary condition.
    primary: dict[str, Parameter] = field(default_factory=dict)
    #: Tables the claims may read, by name, built per seed where a claim names them.
    tables: dict[str, Table] = field(default_factory=dict)

    def experiment(self, name: str) -> Experiment:
        return next(e for e in self.experiments if e.name == name)


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
    if not isinstance(table, dict):
        raise StudyError(f"{where}: expected a table, got {table!r}")
    if key not in table:
        if default is ...:
            raise StudyError(f"{where}: missing key {key!r}")
        return default
    value = table[key]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise StudyError(f"{where}.{key}: expected {kind.__name__}, got {value!r}")
    return value


def _known(table: dict[str, Any], keys: set[str], where: str) -> None:
    unknown = sorted(set(table) - keys)
    if unknown:
        raise StudyError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(keys))})")


def _strings(table: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in table.items()}


def _values(v: Any) -> list[str]:
    """A swept key's values as strings (one value stands for a list of one)."""
    return [
        str(x).lower() if isinstance(x, bool) else str(x)
        for x in (v if isinstance(v, list) else [v])
    ]


def _linked(table: dict[str, Any], where: str) -> dict[str, list[str]]:
    linked = {k: _values(v) for k, v in table.items()}
    try:
        sweeps.linked_points(linked)
    except ValueError as e:
        raise StudyError(f"{where}: {e}") from None
    return linked


def _primary(table: dict[str, Any], where: str) -> dict[str, Parameter]:
    out = {}
    for key, entry in table.items():
        w = f"{where}.{key}"
        if not isinstance(entry, dict):
            raise StudyError(f'{w}: expected {{ value = ..., source = "..." }}, got {entry!r}')
        _known(entry, {"value", "source", "calibrated"}, w)
        if "value" not in entry:
            raise StudyError(f"{w}: missing key 'value'")
        value = entry["value"]
        source = _take(entry, "source", str, w, "")
        calibrated = _take(entry, "calibrated", str, w, "")
        if not source.strip() and not calibrated:
            raise StudyError(
                f"{w}: a primary parameter needs a source or the claim it was calibrated on"
            )
        out[key] = Parameter(
            key,
            _values(value)[0] if not isinstance(value, dict | list) else str(value),
            source,
            calibrated,
        )
    return out


_EXPERIMENT_KEYS = {
    "name",
    "scenario",
    "seeds",
    "grid",
    "linked",
    "set",
    "quick",
    "role",
    "primary",
}


def _experiment(
    table: dict[str, Any],
    where: str,
    name: str,
    scenario: Path,
    primary: dict[str, Parameter],
    base: Experiment | None = None,
) -> Experiment:
    """An experiment's grid, seeds and overrides from `table`, on top of `base` if given."""
    if base is not None:
        # --quick runs the same condition with fewer seeds: nothing else may change.
        _known(table, {"seeds"}, where)
    grid = dict(base.grid) if base else {}
    for k, v in _take(table, "grid", dict, where, {}).items():
        grid[k] = _values(v)
    # Linked lists are replaced whole: their lengths must stay equal.
    linked = _take(table, "linked", dict, where, None)
    linked = (
        (dict(base.linked) if base else {})
        if linked is None
        else _linked(linked, f"{where}.linked")
    )
    role = base.role if base else _take(table, "role", str, where, "verdict")
    if role not in ("verdict", "cause"):
        raise StudyError(f'{where}.role: expected "verdict" or "cause", got {role!r}')
    seeds = _take(table, "seeds", int, where, base.seeds if base else 1)
    if seeds < 1:
        raise StudyError(f"{where}.seeds: expected at least 1, got {seeds}")
    return Experiment(
        name=name,
        scenario=scenario,
        grid=grid,
        linked=linked,
        seeds=seeds,
        set={**(base.set if base else {}), **_strings(_take(table, "set", dict, where, {}))},
        primary=primary,
        role=role,
    )


def module_name(study_id: str) -> str:
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


def _tables(table: dict[str, Any], where: str) -> dict[str, Table]:
    """The `[tables]` section: SQL names, each with one query, or a query and the
    condition on `runs` that picks the runs it reads."""
    out = {}
    for name, given in table.items():
        at = f"{where}.{name}"
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in ("runs", "links"):
            raise StudyError(f"{at}: not a table name (letters, digits and '_', not runs or links)")
        if isinstance(given, str):
            out[name] = Table(_claim_sql(given, at))
            continue
        if not isinstance(given, dict):
            raise StudyError(f"{at}: expected a query (a string) or {{ runs = ..., query = ... }}")
        _known(given, {"runs", "query"}, at)
        runs = _take(given, "runs", str, at)
        if not runs.strip() or ";" in runs:
            raise StudyError(f"{at}.runs: expected one condition on the runs table, got {runs!r}")
        out[name] = Table(_claim_sql(_take(given, "query", str, at), f"{at}.query"), runs)
    return out


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


_CLAIM_KEYS = {
    "id",
    "experiment",
    "claim",
    "published",
    "unit",
    "tolerance",
    "value",
    "source",
    "note",
    "kind",
    "role",
    "pooled",
    "cause",
    "shown_by",
}


def _claim(c: dict[str, Any], where: str) -> Claim:
    _known(c, _CLAIM_KEYS, where)
    claim = Claim(
        id=_identifier(_take(c, "id", str, where), f"{where}.id"),
        experiment=_take(c, "experiment", str, where),
        claim=_take(c, "claim", str, where),
        published=_take(c, "published", float, where),
        unit=_take(c, "unit", str, where, ""),
        tolerance=_take(c, "tolerance", float, where),
        value=_claim_sql(_take(c, "value", str, where), f"{where}.value"),
        source=_take(c, "source", str, where, ""),
        note=_take(c, "note", str, where, ""),
        kind=_take(c, "kind", str, where, "value"),
        role=_take(c, "role", str, where, "verdict"),
        pooled=_take(c, "pooled", bool, where, False),
        cause=_take(c, "cause", str, where, ""),
        shown_by=tuple(_take(c, "shown_by", list, where, [])),
    )
    if not all(isinstance(f, str) for f in claim.shown_by):
        raise StudyError(f"{where}.shown_by: expected a list of claim ids, got {claim.shown_by!r}")
    if claim.shown_by and not claim.cause:
        raise StudyError(f"{where}.shown_by: names findings without a cause")
    if claim.kind not in KINDS:
        raise StudyError(f"{where}.kind: expected one of {', '.join(KINDS)}, got {claim.kind!r}")
    if claim.role not in ROLES:
        raise StudyError(f"{where}.role: expected one of {', '.join(ROLES)}, got {claim.role!r}")
    if not (claim.tolerance >= 0 and math.isfinite(claim.tolerance)):
        raise StudyError(f"{where}.tolerance: expected a finite number ≥ 0, got {claim.tolerance}")
    if not math.isfinite(claim.published):
        raise StudyError(f"{where}.published: expected a finite number, got {claim.published}")
    return claim


def _sensitivity(
    s: dict[str, Any], where: str, experiments: dict[str, Experiment], claims: dict[str, Claim]
) -> Sensitivity:
    _known(s, {"name", "experiment", "points", "claims", "seeds", "source", "quick"}, where)
    name = _identifier(_take(s, "name", str, where), f"{where}.name")
    experiment = _take(s, "experiment", str, where)
    if experiment not in experiments:
        raise StudyError(f"{where}.experiment: no experiment named {experiment!r}")
    points = _linked(_take(s, "points", dict, where), f"{where}.points")
    if not points:
        raise StudyError(f"{where}.points: give at least one key and its values")
    names = _take(s, "claims", list, where)
    for c in names:
        if c not in claims or claims[c].experiment != experiment:
            raise StudyError(f"{where}.claims: no claim {c!r} on experiment {experiment!r}")
    seeds = _take(s, "seeds", int, where, experiments[experiment].seeds)
    full = Sensitivity(name, experiment, points, names, seeds, _take(s, "source", str, where, ""))
    q = _take(s, "quick", dict, where, {})
    _known(q, {"seeds", "points"}, f"{where}.quick")
    quick_points = _take(q, "points", dict, f"{where}.quick", None)
    quick = dataclasses.replace(
        full,
        seeds=_take(q, "seeds", int, f"{where}.quick", seeds),
        points=points if quick_points is None else _linked(quick_points, f"{where}.quick.points"),
    )
    return dataclasses.replace(full, quick=quick)


def load_study(study_id: str, root: Path | None = None) -> Study:
    """Reads and checks `scenarios/<id>/study.toml`."""
    root = root or studies_root()
    _identifier(study_id, "study id")
    folder = root / study_id
    path = folder / "study.toml"
    if not path.is_file():
        known = ", ".join(list_studies(root)) or "none"
        raise StudyError(f"no study {study_id!r} in {root} (known: {known})")
    module = module_name(study_id)
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
    top = {"title", "paper", "primary", "experiments", "claims", "sensitivity", "tables"}
    _known(data, top, str(path))
    tables = _tables(_take(data, "tables", dict, str(path), {}), f"{path}: tables")
    primary = _primary(_take(data, "primary", dict, str(path), {}), f"{path}: primary")
    experiments = []
    for i, e in enumerate(_take(data, "experiments", list, str(path))):
        where = f"{path}: experiments[{i}]"
        _known(e, _EXPERIMENT_KEYS, where)
        relative = _take(e, "scenario", str, where)
        scenario = folder / relative
        if not scenario.resolve().is_relative_to(folder.resolve()):
            raise StudyError(f"{where}.scenario: {relative!r} is outside the study's folder")
        if not scenario.is_file():
            raise StudyError(f"{where}.scenario: no such file {scenario}")
        name = _identifier(_take(e, "name", str, where), f"{where}.name")
        own = _primary(_take(e, "primary", dict, where, {}), f"{where}.primary")
        full = _experiment(e, where, name, scenario, {**primary, **own})
        clash = sorted((set(full.grid) | set(full.linked)) & set(full.primary))
        if clash:
            raise StudyError(
                f"{where}.grid: {clash[0]} is part of the primary condition; a swept unsourced "
                "parameter belongs in a [[sensitivity]] section"
            )
        quick = _experiment(
            _take(e, "quick", dict, where, {}), f"{where}.quick", name, scenario, full.primary, full
        )
        experiments.append(dataclasses.replace(full, quick=quick))
    names = [e.name for e in experiments]
    for name in names:
        if names.count(name) > 1:
            raise StudyError(f"{path}: experiments: the name {name!r} is used twice")
    by_name = {e.name: e for e in experiments}
    claims = [
        _claim(c, f"{path}: claims[{i}]")
        for i, c in enumerate(_take(data, "claims", list, str(path), []))
    ]
    ids = [c.id for c in claims]
    sens = [
        _sensitivity(s, f"{path}: sensitivity[{i}]", by_name, dict(zip(ids, claims, strict=True)))
        for i, s in enumerate(_take(data, "sensitivity", list, str(path), []))
    ]
    places = set(names) | {s.name for s in sens}
    for i, c in enumerate(claims):
        where = f"{path}: claims[{i}]"
        if ids.count(c.id) > 1:
            raise StudyError(f"{where}.id: the id {c.id!r} is used twice")
        if c.experiment not in names:
            raise StudyError(f"{where}.experiment: no experiment named {c.experiment!r}")
        if c.role == "verdict" and by_name[c.experiment].role != "verdict":
            raise StudyError(
                f"{where}.role: experiment {c.experiment!r} shows a cause, it does not run at "
                'the primary condition; its claims have role "finding"'
            )
        if c.cause and c.cause not in places:
            raise StudyError(f"{where}.cause: no experiment or sensitivity named {c.cause!r}")
        for f in c.shown_by:
            finding = next((d for d in claims if d.id == f), None)
            if finding is None or finding.role != "finding" or finding.experiment != c.cause:
                raise StudyError(
                    f"{where}.shown_by: {f!r} is not a finding of the cause experiment {c.cause!r}"
                )
    for e in experiments:
        for p in e.primary.values():
            if p.calibrated:
                target = next((c for c in claims if c.id == p.calibrated), None)
                if target is None or target.role != "calibration":
                    raise StudyError(
                        f"{path}: primary.{p.key}.calibrated: {p.calibrated!r} is not a claim "
                        'with role "calibration"'
                    )
    return Study(
        id=study_id,
        title=_take(data, "title", str, str(path)),
        paper=_paper(data, path),
        folder=folder,
        experiments=experiments,
        claims=claims,
        sensitivity=sens,
        primary=primary,
        tables=tables,
    )


def quick_variant(study: Study) -> Study:
    """The study with every experiment's and sensitivity's `quick` settings applied (fewer
    seeds; the condition stays the same)."""
    experiments = [e.quick for e in study.experiments if e.quick is not None]
    sens = [s.quick for s in study.sensitivity if s.quick is not None]
    return dataclasses.replace(study, experiments=experiments, sensitivity=sens)
