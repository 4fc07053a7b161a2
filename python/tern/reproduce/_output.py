"""A reproduction's reports: `report.md` (figures beside it as PNG), a self-contained
`report.html`, and `report.json` for machines."""

from __future__ import annotations

import json
import math
from typing import Any

from tern import report
from tern.reproduce import Reproduction
from tern.reproduce._evaluate import ClaimResult
from tern.reproduce._verdict import CAUSE_SHOWN, OPEN, REPRODUCED

_SIDE = {"value": "≈", "at_most": "≤", "at_least": "≥", "share": "≥", "ordering": "≥"}


def _num(x: float | None) -> str:
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.3g}"


def _unit(unit: str) -> str:
    return f" {unit}" if unit and unit != "fraction" else ""


def tern_value(r: ClaimResult) -> str:
    """Tern's value as the report prints it: median [interval] and seeds, or k of n."""
    c, o = r.claim, r.outcome
    if c.kind in ("share", "ordering"):
        if c.pooled:
            # One query over every seed's runs: one answer, not one seed.
            return ("holds" if o.k else "does not hold") + " (one query over all seeds)"
        return f"{o.k} of {o.n} seeds"
    if o.value is None:
        return "—"
    text = f"{_num(o.value)}{_unit(c.unit)}"
    if c.pooled:
        return text + f" (pooled over {o.n} seeds)" if o.n > 1 else text
    if o.interval is not None and o.coverage is not None:
        low, high = o.interval
        text += f" [{_num(low)}, {_num(high)}; {o.coverage:.0%}]"
    seeds = f"{o.n} seeds" if o.k == o.n else f"{o.k} of {o.n} seeds"
    return f"{text}, {seeds}"


def published(r: ClaimResult) -> str:
    c = r.claim
    if c.kind in ("share", "ordering"):
        return f"holds (share ≥ {c.published - c.tolerance:g})"
    return f"{_SIDE[c.kind]} {c.published:g}{_unit(c.unit)}"


def verdict_text(r: ClaimResult) -> str:
    if r.verdict is None:
        if r.claim.role == "calibration" and r.outcome.holds is not None:
            return "calibration, " + ("met" if r.outcome.holds else "not met")
        return r.claim.role
    if r.verdict == CAUSE_SHOWN:
        return f"{CAUSE_SHOWN} ({r.claim.cause})"
    return r.verdict


def _passed(r: ClaimResult) -> bool | None:
    return {REPRODUCED: True, CAUSE_SHOWN: False, OPEN: False}.get(r.verdict or "")


def _notes(rep: Reproduction) -> tuple[list[str], dict[str, str]]:
    """Each distinct note once, numbered; per claim id the references to them."""
    notes: list[str] = []
    refs: dict[str, str] = {}
    for r in rep.results:
        marks = []
        for text in (r.claim.note, r.error or ""):
            if not text:
                continue
            if text not in notes:
                notes.append(text)
            marks.append(f"[{notes.index(text) + 1}]")
        refs[r.claim.id] = " ".join(marks)
    return notes, refs


def _json(rep: Reproduction) -> dict[str, Any]:
    def finite(x: float | None) -> float | str | None:
        return x if x is None or math.isfinite(x) else ("inf" if x > 0 else "-inf")

    claims = []
    for r in rep.results:
        c, o = r.claim, r.outcome
        e = rep.study.experiment(c.experiment)
        claims.append(
            {
                "id": c.id,
                "claim": c.claim,
                "kind": c.kind,
                "role": c.role,
                "verdict": o.verdict,
                "holds": o.holds,
                "value": finite(o.value),
                "interval": None if o.interval is None else [finite(x) for x in o.interval],
                "coverage": o.coverage,
                "k": o.k,
                "n": o.n,
                "per_seed": {str(s): finite(v) for s, v in o.per_seed.items()},
                "pooled": c.pooled,
                "published": c.published,
                "tolerance": c.tolerance,
                "unit": c.unit,
                "experiment": c.experiment,
                "condition": {k: p.value for k, p in e.primary.items()},
                "cause": c.cause or None,
                "shown_by": list(c.shown_by),
                "source": c.source,
                "error": o.error,
            }
        )
    sens = [
        {
            "name": s.sensitivity.name,
            "claim": s.claim.id,
            "points": s.sensitivity.points,
            "values": {k: finite(v) for k, v in s.values.items()},
            "published": s.claim.published,
            "inside": s.inside,
        }
        for s in rep.sensitivity
    ]
    return {
        "study": rep.study.id,
        "quick": rep.quick,
        "summary": rep.summary(),
        "primary": {k: vars(p) for k, p in rep.study.primary.items()},
        "claims": claims,
        "sensitivity": sens,
        "cost": vars(rep.cost),
        "figure_error": rep.figure_error or None,
    }


def _primary_table(rep: Reproduction) -> report.Table:
    """Each value of each key of the experiments' conditions, with the experiments that run
    at it: the study's primary condition where every experiment keeps it, and beside it
    what an experiment sets in its place (a cause experiment's change, an OS kind's own
    values)."""
    experiments = rep.study.experiments
    groups: dict[tuple[str, str, str], list[str]] = {}
    for e in experiments:
        for key, p in e.primary.items():
            source = f"calibrated on {p.calibrated}" + (f": {p.source}" if p.source else "")
            groups.setdefault((key, p.value, source if p.calibrated else p.source), []).append(
                e.name
            )

    def which(names: list[str]) -> str:
        if len(names) == len(experiments):
            return "every one"
        if 2 * len(names) > len(experiments):
            return "every one but " + ", ".join(e.name for e in experiments if e.name not in names)
        return ", ".join(names)

    rows = [[key, value, which(names), src] for (key, value, src), names in groups.items()]
    return report.Table(
        ["parameter", "value", "experiments", "source"], rows, "The primary condition"
    )


def _sensitivity_table(rep: Reproduction) -> report.Table:
    rows = []
    for s in rep.sensitivity:
        values = "; ".join(f"{k}: {_num(v)}" for k, v in s.values.items())
        span = s.span
        inside = {True: "yes", False: "no", None: "—"}[s.inside]
        rows.append(
            [
                s.sensitivity.name,
                s.claim.id,
                f"{s.claim.published:g}{_unit(s.claim.unit)}",
                values,
                "—" if span is None else f"{_num(span[0])} to {_num(span[1])}",
                inside,
            ]
        )
    columns = ["parameter", "claim", "published", "Tern by point", "range", "paper's value reached"]
    return report.Table(columns, rows, "Unsourced parameters: no verdicts")


def write_reports(rep: Reproduction) -> None:
    study = rep.study
    runs = ", ".join(f"{e.name}: {e.scenario.name}, {e.runs} runs" for e in study.experiments)
    notes, refs = _notes(rep)
    checks = [
        report.Check(
            claim=f"{r.claim.id}: {r.claim.claim}",
            published=published(r),
            tern=tern_value(r),
            tolerance=f"± {r.claim.tolerance:g}{_unit(r.claim.unit)}",
            passed=_passed(r),
            note=" ".join(x for x in (r.claim.source, refs[r.claim.id]) if x),
            verdict=verdict_text(r),
        )
        for r in rep.results
    ]
    cost = rep.cost
    intro = (
        f"{rep.summary()}. Study: {study.title}. Paper: {study.paper.citation()}. "
        f"{'Quick variant (fewer seeds, same condition)' if rep.quick else 'Full run'}; "
        f"experiments: {runs}. Each claim's value is computed by the SQL in the study's "
        "study.toml, once per seed, over the results store in this folder (`tern query "
        "<folder>/<experiment> ...`); Tern's value is the median over seeds with a "
        "distribution-free interval for it and its coverage."
    )
    sections = [
        report.Section("Primary condition", [_primary_table(rep)]),
        report.Section(
            "Published claims against Tern",
            [report.CheckTable(checks, summary=rep.summary())]
            + (
                [
                    report.Paragraph(
                        "Notes: " + " ".join(f"[{i + 1}] {n}" for i, n in enumerate(notes))
                    )
                ]
                if notes
                else []
            ),
        ),
    ]
    if rep.sensitivity:
        sections.append(report.Section("Sensitivity", [_sensitivity_table(rep)]))
    sections += [
        report.Section(
            "Figures",
            [report.Plot(fig, caption, name) for name, fig, caption in rep.figures]
            + ([f"The figures could not be drawn: {rep.figure_error}"] if rep.figure_error else []),
        ),
        report.Section(
            "Cost",
            [
                f"{cost.runs} runs ({cost.runs_done_now} run now): simulations "
                f"{cost.simulation_cpu_s:.1f} CPU s (peak {cost.peak_rss_worker_mib:.0f} MiB "
                f"per worker), claims and figures {cost.evaluation_cpu_s:.1f} CPU s (peak "
                f"{cost.peak_rss_main_mib:.0f} MiB); {cost.wall_s:.1f} s in all."
            ],
        ),
    ]
    title = f"tern reproduce {study.id}"
    rep.out.mkdir(parents=True, exist_ok=True)
    report.write_markdown(title, sections, rep.out / "report.md", intro=intro)
    report.write_html(title, sections, rep.out / "report.html", intro=intro)
    write_json(rep)


def write_json(rep: Reproduction) -> None:
    """`report.json`: per claim its verdict and values, the sensitivity, and the cost."""
    text = json.dumps(_json(rep), indent=2, ensure_ascii=False) + "\n"
    (rep.out / "report.json").write_text(text)


def verdicts(report_json: str) -> dict[str, str]:
    """Claim id → verdict (or the role of a claim that gets none), from a report.json's
    text: what a study keeps as `full-verdicts.json` from its full run."""
    data = json.loads(report_json)
    return {c["id"]: c["verdict"] or c["role"] for c in data["claims"]}
