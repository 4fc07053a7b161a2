"""Plots of sweeps: a summary metric against a grid parameter, the mean over seeds with its
95 % confidence interval (Student t), one line per value of the other grid parameters
(`tern.plots.sweep`, `sweep_stats`, `sweep_grid`)."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from tern._plotbase import PlotError, _figure, folder_kind

# Two-sided 95 % critical values of Student's t distribution, t(0.975; df) for df = 1..30, to
# four decimals as in the NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2 "Critical
# values of the Student's t distribution" (tests/test_plots.py checks them against a numerical
# integration of the t density).
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
_Z975 = 1.959963984540054  # the standard normal's 0.975 quantile


def t_quantile_975(df: int) -> float:
    """t(0.975; df): the factor of a two-sided 95 % confidence interval over df + 1 samples.

    With scipy installed, `scipy.stats.t.ppf`; without, the table above for df <= 30 and,
    beyond, the Cornish-Fisher expansion of t around the normal quantile (Abramowitz and
    Stegun, Handbook of Mathematical Functions, 26.7.5), within 1e-5 of the exact value there.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    try:
        from scipy.stats import t as student_t
    except ImportError:
        pass
    else:
        return float(student_t.ppf(0.975, df))
    if df <= len(_T975):
        return _T975[df - 1]
    x, v = _Z975, float(df)
    g1 = (x**3 + x) / 4
    g2 = (5 * x**5 + 16 * x**3 + 3 * x) / 96
    g3 = (3 * x**7 + 19 * x**5 + 17 * x**3 - 15 * x) / 384
    g4 = (79 * x**9 + 776 * x**7 + 1482 * x**5 - 1920 * x**3 - 945 * x) / 92160
    return x + g1 / v + g2 / v**2 + g3 / v**3 + g4 / v**4


@dataclass
class _Sweep:
    frame: pl.DataFrame
    grid: list[str]  # the swept parameters, in sweep order
    order: dict[str, list[str]]  # grid values in the order the sweep listed them


def _load_sweep(frame_or_dir: Any) -> _Sweep:
    order: dict[str, list[str]] = {}
    if isinstance(frame_or_dir, str | os.PathLike):
        root = Path(frame_or_dir)
        if folder_kind(root) != "sweep":
            raise PlotError(f"{root}: a run folder, not a sweep (plot it with --what)")
        from tern.store import open_results, sweep_meta

        frame = open_results(root).pl()
        saved = sweep_meta(root)
        swept = {**saved.get("grid", {}), **saved.get("linked", {})}
        order = {k: list(map(str, v)) for k, v in swept.items()}
        if frame.is_empty():
            raise PlotError(f"{root}: no finished runs in this sweep yet")
    elif isinstance(frame_or_dir, pl.DataFrame):
        frame = frame_or_dir
    elif hasattr(frame_or_dir, "pl"):  # a DuckDB relation, as from tern.open_results
        frame = frame_or_dir.pl()
    elif type(frame_or_dir).__module__.startswith("pandas"):
        frame = pl.from_pandas(frame_or_dir)
    else:
        raise TypeError(
            "expected a sweep folder or its results (a polars DataFrame as from tern.sweep, "
            f"or a DuckDB relation as from tern.open_results), got {type(frame_or_dir).__name__}"
        )
    columns = frame.columns
    # The results store puts the grid values first, then key, seed, flow.
    grid = columns[: columns.index("key")] if "key" in columns else [c for c in columns if "." in c]
    grid = [g for g in order if g in grid] + [g for g in grid if g not in order]
    return _Sweep(frame, grid, order)


def sweep_grid(frame_or_dir: Any, *, varying: bool = False) -> list[str]:
    """The swept parameters of a sweep (folder or results frame), in sweep order; with
    `varying`, only those that take more than one value."""
    data = _load_sweep(frame_or_dir)
    if varying:
        return [g for g in data.grid if data.frame[g].n_unique() > 1]
    return data.grid


_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%/]*)\s*$")


def _positions(values: list[Any], order: list[str] | None) -> tuple[dict[Any, float], str, bool]:
    """x positions of grid values: numeric when they are numbers with one common unit
    (that unit is returned), categorical otherwise (in sweep order, else natural order)."""
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return {v: float(v) for v in values}, "", False
    parsed = [_NUMBER.match(str(v)) for v in values]
    if all(parsed) and len({m.group(2) for m in parsed}) == 1:
        return (
            {v: float(m.group(1)) for v, m in zip(values, parsed, strict=True)},
            parsed[0].group(2),
            False,
        )
    if order:
        ranked = [v for v in order if v in values] + sorted(
            (v for v in values if v not in order), key=str
        )
    else:

        def natural(v: Any) -> tuple:
            m = _NUMBER.match(str(v))
            return (0, m.group(2), float(m.group(1))) if m else (1, str(v), 0.0)

        ranked = sorted(values, key=natural)
    return {v: float(i) for i, v in enumerate(ranked)}, "", True


def metric_unit(name: str) -> tuple[float, str]:
    """(scale, unit) to show a summary metric with: goodput_bps in Mbit/s, times in ms, ..."""
    if name.endswith("_bps"):
        return 1e-6, "Mbit/s"
    if name.endswith("_s") or "_s_" in name:
        return 1e3, "ms"
    if name.endswith("_rate") or name.endswith("utilization"):
        return 100.0, "%"
    if name.startswith("bytes") or "_bytes" in name:
        return 1e-6, "MB"
    return 1.0, ""


def metric_label(name: str) -> str:
    """An axis label for a summary metric, in words with its unit: goodput_bps → "goodput
    (Mbit/s)", delay_s_p50 → "delay p50 (ms)", loss_rate → "loss rate (%)"."""
    unit = metric_unit(name)[1]
    words = re.sub(r"_bps$", "", name)
    words = re.sub(r"_s(_|$)", r"\1", words).strip("_").replace("_", " ")
    return f"{words} ({unit})" if unit else words


def plain_log_ticks(axis: Any) -> None:
    """A log axis labelled 1, 2, 5, 10, 20 ... as plain numbers, not as powers of ten."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _select(
    data: _Sweep,
    x: str,
    y: str,
    hue: str | Sequence[str] | None,
    flow: str | None,
    where: Mapping[str, Any] | None,
) -> tuple[pl.DataFrame, list[str]]:
    frame = data.frame
    for name in [x, *(where or {})]:
        if name not in frame.columns:
            raise PlotError(
                f"no column {name!r} in this sweep; grid parameters: "
                f"{', '.join(data.grid) or 'none'}"
            )
    numeric = [
        c
        for c, t in frame.schema.items()
        if t.is_numeric() and c not in data.grid and c not in ("seed",)
    ]
    if y not in frame.columns or y not in numeric:
        raise PlotError(f"no metric {y!r} in this sweep; metrics: {', '.join(numeric)}")
    for name, value in (where or {}).items():
        values = frame[name].cast(pl.String)
        if str(value) not in set(values):
            have = ", ".join(sorted(set(values.drop_nulls())))
            raise PlotError(f"no runs with {name}={value} (values: {have})")
        frame = frame.filter(values == str(value))
    if flow is not None:
        if "flow" not in frame.columns or flow not in set(frame["flow"]):
            have = ", ".join(sorted(set(frame["flow"]))) if "flow" in frame.columns else "none"
            raise PlotError(f"no flow {flow!r} in this sweep; flows: {have}")
        frame = frame.filter(pl.col("flow") == flow)
    hues = [hue] if isinstance(hue, str) else list(hue or [])
    for h in hues:
        if h not in frame.columns:
            raise PlotError(
                f"no column {h!r} in this sweep; grid parameters: {', '.join(data.grid)}"
            )
    varying = [g for g in data.grid if g != x and frame[g].n_unique() > 1]
    if "flow" in frame.columns and frame["flow"].n_unique() > 1:
        varying.append("flow")
    if not hues:
        hues = varying
    else:
        pooled = [g for g in varying if g not in hues]
        if pooled:
            raise PlotError(
                f"{', '.join(pooled)} also {'vary' if len(pooled) > 1 else 'varies'}, and "
                "averaging over it would mix grid points: add it to hue (--hue) or fix its "
                "value (--where PARAM=VALUE, --flow NAME)"
            )
    if x in hues:
        raise PlotError(f"{x} is on the x axis; it cannot also be a hue")
    return frame, hues


def sweep_stats(
    frame_or_dir: Any,
    x: str,
    y: str,
    hue: str | Sequence[str] | None = None,
    *,
    flow: str | None = None,
    where: Mapping[str, Any] | None = None,
) -> pl.DataFrame:
    """Mean of metric `y` over seeds at each value of `x` (and of the hue columns), with the
    two-sided 95 % Student t confidence interval: columns hue..., x, n, mean, sd, ci_low,
    ci_high (`y`'s own unit; ci is null with one seed). Rows where `y` is null are left out.

    `hue` defaults to every other grid parameter that varies (and `flow` when the sweep has
    several flows); `where` keeps rows whose column equals a value; `flow` keeps one flow.
    """
    data = _load_sweep(frame_or_dir)
    frame, hues = _select(data, x, y, hue, flow, where)
    return _stats(frame, x, y, hues, data.order)


def _stats(
    frame: pl.DataFrame, x: str, y: str, hues: list[str], order: dict[str, list[str]]
) -> pl.DataFrame:
    rows = []
    clean = frame.filter(pl.col(y).is_not_null() & pl.col(y).cast(pl.Float64).is_not_nan())
    for key, g in clean.group_by([*hues, x], maintain_order=True):
        values = g[y].cast(pl.Float64).to_numpy()
        n = len(values)
        mean = float(values.mean())
        sd = float(values.std(ddof=1)) if n > 1 else None
        half = t_quantile_975(n - 1) * sd / math.sqrt(n) if sd is not None else None
        row = dict(zip([*hues, x], key, strict=True))
        row.update(
            n=n,
            mean=mean,
            sd=sd,
            ci_low=mean - half if half is not None else None,
            ci_high=mean + half if half is not None else None,
        )
        rows.append(row)
    if not rows:
        raise PlotError(f"{y} has no values in these runs")
    stats = pl.DataFrame(rows, infer_schema_length=None)
    # Rows in sweep order (numbers by value), hue columns first.
    ranks = []
    for i, col in enumerate([*hues, x]):
        pos, _, _ = _positions(list(dict.fromkeys(stats[col].to_list())), order.get(col))
        ranks.append(pl.col(col).replace_strict(pos, return_dtype=pl.Float64).alias(f"_rank{i}"))
    names = [f"_rank{i}" for i in range(len(ranks))]
    return stats.with_columns(ranks).sort(names, maintain_order=True).drop(names)


def sweep(
    frame_or_dir: Any,
    x: str,
    y: str,
    hue: str | Sequence[str] | None = None,
    *,
    flow: str | None = None,
    where: Mapping[str, Any] | None = None,
    title: str | None = None,
    size: tuple[float, float] = (8.0, 4.5),
) -> Figure:
    """A summary metric `y` (a column of the results, like goodput_bps or delay_s_p50)
    against grid parameter `x`: the mean over seeds with its 95 % confidence interval
    (Student t), one line per value of the hue columns (see `sweep_stats`).

    `frame_or_dir` is a sweep folder, the DataFrame `tern.sweep` returns or the relation
    `tern.open_results` returns. Grid values that are numbers with one unit ("5Mbps",
    "10Mbps") go on a numeric axis, others in the sweep's order. In SVG output each line is
    a group with id "tern-sweep-<i>" and its interval bars "tern-ci-<i>".
    """
    data = _load_sweep(frame_or_dir)
    frame, hues = _select(data, x, y, hue, flow, where)
    stats = _stats(frame, x, y, hues, data.order)
    xs = list(dict.fromkeys(stats[x].to_list()))
    pos, unit, categorical = _positions(xs, data.order.get(x))
    scale, _ = metric_unit(y)
    fig = _figure(*size)
    ax = fig.add_subplot()
    groups = list(stats.group_by(hues, maintain_order=True)) if hues else [((), stats)]
    seeds = sorted(set(stats["n"].to_list()))
    for i, (key, g) in enumerate(groups):
        # Categories are points side by side (nothing lies between two of them); numbers
        # are joined by lines. Colours go by the hue's rank in sweep order, as in reports.
        dodge = (i - (len(groups) - 1) / 2) * min(0.3, 0.6 / len(groups)) if categorical else 0.0
        g = g.with_columns(
            (pl.col(x).replace_strict(pos, return_dtype=pl.Float64) + dodge).alias("_pos")
        )
        g = g.sort("_pos")
        label = ", ".join(str(k) for k in key) if hues else metric_label(y)
        px = g["_pos"].to_numpy()
        mean = g["mean"].to_numpy() * scale
        style = {"ls": "none"} if categorical else {"lw": 1.4}
        (line,) = ax.plot(px, mean, marker="o", ms=6, color=f"C{i % 10}", label=label, **style)
        line.set_gid(f"tern-sweep-{i}")
        with_ci = g.filter(pl.col("ci_low").is_not_null())
        if with_ci.height:
            m = with_ci["mean"].to_numpy() * scale
            lo = m - with_ci["ci_low"].to_numpy() * scale
            hi = with_ci["ci_high"].to_numpy() * scale - m
            bars = ax.errorbar(
                with_ci["_pos"].to_numpy(),
                m,
                yerr=np.vstack([lo, hi]),
                fmt="none",
                ecolor=line.get_color(),
                capsize=4,
                lw=1.2,
            )
            bars.lines[2][0].set_gid(f"tern-ci-{i}")
    if categorical:
        ax.set_xticks([pos[v] for v in xs], [str(v) for v in xs])
    else:
        values = [pos[v] for v in xs]
        if len(values) > 2 and min(values) > 0 and max(values) >= 100 * min(values):
            ax.set_xscale("log")
            plain_log_ticks(ax.xaxis)
    ax.set_xlabel(f"{x} ({unit})" if unit else x)
    ax.set_ylabel(metric_label(y))
    n_text = "/".join(map(str, seeds))
    ci = "no interval with one seed" if seeds == [1] else "95 % confidence interval (Student t)"
    ax.set_title(
        title or f"{metric_label(y)} vs {x}\nmean over {n_text} seeds, {ci}", fontsize="medium"
    )
    ax.grid(True, alpha=0.3)
    if hues:
        ax.legend(title=", ".join(hues), loc="best", fontsize="small", title_fontsize="small")
    return fig
