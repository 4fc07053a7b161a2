"""Claims evaluated on a reproduction's results: one query per seed (or one over all seeds
for a pooled claim), on a sandboxed connection that sees only those runs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from tern import store
from tern.reproduce._study import Claim, Sensitivity, Table
from tern.reproduce._verdict import CAUSE_SHOWN, OPEN, Outcome, judge, median


@dataclass
class ClaimResult:
    """A claim with what Tern's runs say of it."""

    claim: Claim
    outcome: Outcome

    @property
    def value(self) -> float | None:
        return self.outcome.value

    @property
    def verdict(self) -> str | None:
        return self.outcome.verdict

    @property
    def error(self) -> str | None:
        return self.outcome.error


@dataclass
class SensitivityResult:
    """A claim's value at each point of an unsourced parameter's range."""

    sensitivity: Sensitivity
    claim: Claim
    #: Per point (its label): the median over seeds, or None.
    values: dict[str, float | None] = field(default_factory=dict)

    @property
    def span(self) -> tuple[float, float] | None:
        given = [v for v in self.values.values() if v is not None]
        return (min(given), max(given)) if given else None

    @property
    def inside(self) -> bool | None:
        """Whether the published value lies within the range Tern's values span (within
        the claim's tolerance); for a one-sided claim, whether it holds at some point."""
        span = self.span
        if span is None:
            return None
        c = self.claim
        if c.kind == "at_most":
            return span[0] <= c.published + c.tolerance
        if c.kind in ("at_least", "share", "ordering"):
            return span[1] >= c.published - c.tolerance
        return span[0] - c.tolerance <= c.published <= span[1] + c.tolerance


def query_value(sql: str, con: duckdb.DuckDBPyConnection) -> tuple[object, str | None]:
    """A claim's query on `con`: its one value (None for no row), or an error."""
    try:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description or []]
        rows = cursor.fetchmany(2)
    except duckdb.PermissionException as e:
        return None, f"query refused: claims may read only the results store ({e})"
    except duckdb.Error as e:
        return None, f"query failed: {e}"
    if len(names) != 1:
        return None, (
            f"the query gives {len(names)} columns; a claim gives one value (a condition "
            "that changes it is a [[sensitivity]] section, not a column)"
        )
    if len(rows) > 1:
        return None, "the query gives several rows; a claim gives one value per seed"
    return (rows[0][0] if rows else None), None


def _by_seed(runs: Mapping[str, int]) -> dict[int, list[str]]:
    """Seed → its runs' keys, both in order."""
    seeds: dict[int, list[str]] = {}
    for key, seed in sorted(runs.items()):
        seeds.setdefault(seed, []).append(key)
    return dict(sorted(seeds.items()))


#: The prefix of the tables a claim's connection holds for every seed; the names a claim
#: reads (`runs`, `links`, the traces) are views over them, for one seed at a time.
_ALL = "__every_seed_"


def _show_seed(
    con: duckdb.DuckDBPyConnection,
    traces: dict[str, bool],
    seed: int | None,
    folder: Path,
    keys: list[str],
) -> dict[str, str]:
    """Points `runs`, `links` and every trace at one seed's runs `keys` (all runs for seed
    None). A trace held in memory (`traces[name]` true) is filtered by key; a large one,
    scanned from its files, gets a view over that seed's files only. Returns each view's
    query, by name."""
    where = "" if seed is None else f" WHERE seed = {int(seed)}"
    shown = {}
    for table in ("runs", "links"):
        shown[table] = f'SELECT * FROM "{_ALL}{table}"{where}'
        con.execute(f'CREATE OR REPLACE VIEW "{table}" AS {shown[table]}')
    for name, in_memory in traces.items():
        ident = name.replace('"', '""')
        if in_memory or seed is None:
            source = f'"{_ALL}{ident}"'
            if seed is not None:
                source += f' WHERE key IN (SELECT key FROM "{_ALL}runs"{where})'
        else:
            files = [str(folder / "runs" / k / f"{name}.parquet") for k in keys]
            files = [f for f in files if Path(f).is_file()]
            if not files:
                source = f'"{_ALL}{ident}" LIMIT 0'
            else:
                seed_view = f"{_ALL}{int(seed)}_{name}"
                store.register_trace(con, seed_view, name, files, folder)
                source = '"' + seed_view.replace('"', '""') + '"'
        shown[name] = f"SELECT * FROM {source}"
        con.execute(f'CREATE OR REPLACE VIEW "{ident}" AS {shown[name]}')
    return shown


def _names(sql: str, tables: Mapping[str, Table]) -> list[str]:
    """The study's tables a query names."""
    return [t for t in tables if re.search(rf"\b{re.escape(t)}\b", sql)]


def _reads_links(sql: str) -> bool:
    return re.search(r"\blinks\b", sql, re.IGNORECASE) is not None


def _build_tables(
    con: duckdb.DuckDBPyConnection,
    tables: Mapping[str, Table],
    needed: list[str],
    shown: Mapping[str, str],
) -> dict[str, str]:
    """Builds the study's tables `needed` from the views of the seed shown now (`shown`: each
    view's query); the error of each one that failed. A table that names its runs sees, while
    its query runs, every view narrowed to them by a list of keys, which the scan of a large
    trace applies file by file (a join with `runs` would read every file of the seed)."""
    failed = {}
    for name in needed:
        table = tables[name]
        try:
            if table.runs is not None:
                _narrow(con, shown, table.runs)
            con.execute(f'CREATE OR REPLACE TABLE "{name}" AS {table.query}')
        except duckdb.Error as e:
            con.execute(f'DROP TABLE IF EXISTS "{name}"')
            failed[name] = f"table {name} failed: {e}"
        finally:
            if table.runs is not None:
                for view, query in shown.items():
                    con.execute(f'CREATE OR REPLACE VIEW "{_quoted(view)}" AS {query}')
    return failed


def _narrow(con: duckdb.DuckDBPyConnection, shown: Mapping[str, str], runs: str) -> None:
    """Narrows every view in `shown` to the runs for which the condition `runs` holds."""
    keys = [k for (k,) in con.execute(f"SELECT DISTINCT key FROM runs WHERE {runs}").fetchall()]
    listed = ", ".join("'" + str(k).replace("'", "''") + "'" for k in keys)
    where = f"key IN ({listed})" if keys else "false"
    for view, query in shown.items():
        con.execute(
            f'CREATE OR REPLACE VIEW "{_quoted(view)}" AS SELECT * FROM ({query}) WHERE {where}'
        )


def _quoted(name: str) -> str:
    return name.replace('"', '""')


def values_per_seed(
    claims: Iterable[Claim],
    folder: Path,
    runs: Mapping[str, int],
    tables: Mapping[str, Table] | None = None,
) -> dict[str, tuple[dict[int, object], list[str]]]:
    """Every claim's query over the runs `runs` (key → seed) of one sweep folder: per claim,
    its value per seed (key 0 for a pooled claim) and the errors met. One connection holds
    the folder's runs; the names a claim reads are views over one seed's runs at a time, and
    the study's `tables` a claim names are built from them once per seed before the claims."""
    tables = tables or {}
    claims = list(claims)
    out: dict[str, tuple[dict[int, object], list[str]]] = {c.id: ({}, []) for c in claims}
    per_seed = [c for c in claims if not c.pooled]
    pooled = [c for c in claims if c.pooled]
    jobs: list[tuple[int | None, list[str], list[Claim]]] = []
    if per_seed:
        jobs += [(seed, keys, per_seed) for seed, keys in _by_seed(runs).items()]
    if pooled:
        jobs.append((None, sorted(runs), pooled))
    if not jobs:
        return out
    # The links' summaries cost as much to read as the flows'; only for queries that read them.
    links = any(
        _reads_links(sql) for sql in [c.value for c in claims] + [t.query for t in tables.values()]
    )
    con = store.connect(
        folder, sandbox=True, keys=set(runs), materialize=True, prefix=_ALL, links=links
    )
    try:
        names = con.execute("SELECT table_name, table_type FROM information_schema.tables")
        traces = {
            name.removeprefix(_ALL): kind == "BASE TABLE"
            for name, kind in names.fetchall()
            if name.startswith(_ALL) and name not in (f"{_ALL}runs", f"{_ALL}links")
        }
        for seed, keys, chosen in jobs:
            shown = _show_seed(con, traces, seed, folder, keys)
            reads = {c.id: _names(c.value, tables) for c in chosen}
            needed = sorted({t for ts in reads.values() for t in ts})
            failed = _build_tables(con, tables, needed, shown)
            for c in chosen:
                bad = [failed[t] for t in reads[c.id] if t in failed]
                value, error = (None, "; ".join(bad)) if bad else query_value(c.value, con)
                out[c.id][0][0 if seed is None else seed] = value
                if error and error not in out[c.id][1]:
                    out[c.id][1].append(error)
    finally:
        con.close()
    return out


def judge_claims(
    claims: Iterable[Claim],
    folder: Path,
    runs: Mapping[str, int],
    tables: Mapping[str, Table] | None = None,
) -> list[ClaimResult]:
    """The verdicts of the claims of one experiment (`tables`: the study's, by name)."""
    claims = list(claims)
    values = values_per_seed(claims, folder, runs, tables)
    results = []
    for c in claims:
        per_seed, errors = values[c.id]
        outcome = judge(
            c.kind, c.role, c.published, c.tolerance, per_seed, cause=c.cause, pooled=c.pooled
        )
        if errors:
            outcome.error = "; ".join(errors + ([outcome.error] if outcome.error else []))
        results.append(ClaimResult(c, outcome))
    return results


def check_causes(results: list[ClaimResult]) -> None:
    """A claim not reproduced keeps "cause shown" only if every finding its study names in
    `shown_by` holds in this reproduction; otherwise it is open, and its error says which
    finding does not show the cause (a cause experiment whose findings fail demonstrates
    nothing)."""
    holds = {r.claim.id: r.outcome.holds for r in results}
    for r in results:
        if r.verdict != CAUSE_SHOWN:
            continue
        failing = [f for f in r.claim.shown_by if holds.get(f) is not True]
        if failing:
            r.outcome.verdict = OPEN
            said = f"cause {r.claim.cause!r} not shown: {', '.join(failing)} does not hold"
            r.outcome.error = f"{r.outcome.error}; {said}" if r.outcome.error else said


def sensitivity_values(
    sens: Sensitivity,
    claims: Mapping[str, Claim],
    folders: list[tuple[str, Path, Mapping[str, int]]],
    tables: Mapping[str, Table] | None = None,
) -> list[SensitivityResult]:
    """Each claim of `sens` at each of its points (label, folder, runs)."""
    results = {c: SensitivityResult(sens, claims[c]) for c in sens.claims}
    for label, folder, runs in folders:
        chosen = [claims[c] for c in sens.claims]
        values = values_per_seed(chosen, folder, runs, tables)
        for c in chosen:
            per_seed, _ = values[c.id]
            outcome = judge(c.kind, "finding", c.published, c.tolerance, per_seed, pooled=c.pooled)
            given = [v for v in outcome.per_seed.values() if v is not None]
            results[c.id].values[label] = (
                outcome.value if outcome.value is not None else (median(given) if given else None)
            )
    return list(results.values())
