"""Plots of runs and sweeps (matplotlib, Agg canvas: no display needed).

>>> import tern, tern.plots
>>> run = tern.load_run("runs/p2p-bulk")
>>> tern.plots.timeseries(run, "cwnd").savefig("cwnd.svg")
>>> tern.plots.sweep("sweeps/cc", x="links.access.rate", y="goodput_bps").savefig("g.png")

A time series has one line per flow (and endpoint) or link direction, with units on the axes.
A sweep plot shows a summary metric against a grid parameter: the mean over seeds with its
95 % confidence interval (Student t), one line per value of the other grid parameters.
Figures are plain `matplotlib.figure.Figure` objects (no pyplot state); `save` writes them.
"""

from __future__ import annotations

import io
import math
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from tern.runner import Run, load_run

__all__ = [
    "KINDS",
    "Line",
    "Panel",
    "PlotError",
    "available",
    "figure_bytes",
    "folder_kind",
    "save",
    "sweep",
    "sweep_grid",
    "sweep_stats",
    "t_quantile_975",
    "timeseries",
    "timeseries_data",
]


class PlotError(ValueError):
    """A plot that cannot be made from what it was given (unknown series, trace not recorded,
    not a run or sweep folder, unknown column); the message says what there is instead."""


# --------------------------------------------------------------------------- folders


def folder_kind(folder: str | os.PathLike[str]) -> str:
    """ "run" for a run folder (summary.json inside), "sweep" for a sweep folder (runs/ inside)."""
    root = Path(folder)
    if (root / "summary.json").is_file():
        return "run"
    if (root / "runs").is_dir():
        return "sweep"
    if not root.exists():
        raise PlotError(f"{root}: no such folder")
    raise PlotError(
        f"{root}: not a run folder (no summary.json inside, as `tern run --out` writes) "
        "nor a sweep folder (no runs/ inside, as `tern sweep --out` writes)"
    )


def _as_run(run: Run | str | os.PathLike[str]) -> Run:
    if isinstance(run, Run):
        return run
    if folder_kind(run) != "run":
        raise PlotError(f"{run}: a sweep folder, not a run; pass one of its runs/<key> folders")
    return load_run(run)


# --------------------------------------------------------------------------- time series


@dataclass
class Line:
    """One labelled line of a time series: x in seconds, y in the panel's unit."""

    label: str
    x: np.ndarray
    y: np.ndarray
    #: "steps": the value holds until the next record; "line": samples joined; "points": markers.
    style: str = "line"


@dataclass
class Panel:
    """What a time-series plot shows: its lines, axis label (with unit) and title."""

    what: str
    title: str
    ylabel: str
    lines: list[Line]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Kind:
    traces: tuple[str, ...]
    description: str
    build: Callable[[Run, float | None], Panel]


def _groups(frame: pl.DataFrame, keys: list[str]) -> list[tuple[tuple[Any, ...], pl.DataFrame]]:
    """Row groups in order of first appearance, each sorted by time."""
    return [
        (tuple(k), g.sort("time", maintain_order=True))
        for k, g in frame.group_by(keys, maintain_order=True)
    ]


def _duration(run: Run) -> float:
    return float(run.summary.get("duration_s") or 0.0)


def _steps(label: str, t: np.ndarray, v: np.ndarray, end: float) -> Line:
    """A step line that holds its last value to the end of the run."""
    if len(t) and end > t[-1]:
        t = np.append(t, end)
        v = np.append(v, v[-1])
    return Line(label, t, v, "steps")


def _table(run: Run, name: str) -> pl.DataFrame | None:
    return run.series(name) if name in run.tables else None


def _tcp_lines(run: Run, column: str, scale: float, end: float) -> list[Line]:
    frame = run.series("cwnd")
    lines = []
    for (flow, endpoint), g in _groups(frame, ["flow", "endpoint"]):
        values = g[column].to_numpy().astype(float) * scale
        lines.append(_steps(f"{flow} ({endpoint})", g["time"].to_numpy(), values, end))
    return lines


def _cwnd(run: Run, _bin: float | None) -> Panel:
    lines = _tcp_lines(run, "cwnd", 1e-3, _duration(run))
    return Panel("cwnd", "TCP congestion window", "congestion window (kB)", lines)


def _inflight(run: Run, _bin: float | None) -> Panel:
    lines = _tcp_lines(run, "in_flight", 1e-3, _duration(run))
    return Panel("inflight", "TCP bytes in flight", "in flight (kB)", lines)


def _rtt(run: Run, _bin: float | None) -> Panel:
    lines = []
    ping = _table(run, "rtt")
    if ping is not None:
        for (flow,), g in _groups(ping, ["flow"]):
            rtt = g["rtt"].to_numpy() * 1e3
            lines.append(Line(f"{flow} (ping RTT)", g["time"].to_numpy(), rtt, "points"))
    rto = _table(run, "rto")
    if rto is not None:
        for (flow, endpoint), g in _groups(rto, ["flow", "endpoint"]):
            srtt = g["srtt"].to_numpy() * 1e3
            lines.append(Line(f"{flow} ({endpoint}, TCP SRTT)", g["time"].to_numpy(), srtt))
    return Panel("rtt", "Round-trip time", "RTT (ms)", lines)


def _rto(run: Run, _bin: float | None) -> Panel:
    lines = [
        _steps(f"{flow} ({endpoint})", g["time"].to_numpy(), g["rto"].to_numpy(), _duration(run))
        for (flow, endpoint), g in _groups(run.series("rto"), ["flow", "endpoint"])
    ]
    return Panel("rto", "TCP retransmission timeout (RFC 6298)", "RTO (s)", lines)


def _queue(run: Run, _bin: float | None) -> Panel:
    lines = [
        _steps(
            f"{link} {direction}",
            g["time"].to_numpy(),
            g["packets"].to_numpy().astype(float),
            _duration(run),
        )
        for (link, direction), g in _groups(run.series("queue"), ["link", "direction"])
    ]
    return Panel("queue", "Queue length", "queue (packets)", lines)


def _delay(run: Run, _bin: float | None) -> Panel:
    lines = [
        Line(flow, g["time"].to_numpy(), g["delay"].to_numpy() * 1e3, "points")
        for (flow,), g in _groups(run.series("delay"), ["flow"])
    ]
    return Panel(
        "delay", "One-way delay of each message (x: delivery time)", "one-way delay (ms)", lines
    )


def default_bin(duration: float) -> float:
    """About 50 bins over the run, rounded to 1, 2 or 5 times a power of ten seconds."""
    raw = max(duration, 1e-3) / 50
    exp = math.floor(math.log10(raw))
    return next(m * 10.0**exp for m in (1, 2, 5, 10) if m * 10.0**exp >= raw * (1 - 1e-9))


def throughput_bins(
    times: np.ndarray, sizes: np.ndarray, duration: float, bin_s: float
) -> tuple[np.ndarray, np.ndarray]:
    """Bytes delivered per bin as a rate: (bin edges in s, bit/s per bin). The last bin may be
    shorter (it ends at `duration`) and its rate is over its own width."""
    if not bin_s > 0:
        raise PlotError(f"the throughput bin must be positive, got {bin_s} s")
    n = max(1, math.ceil(duration / bin_s - 1e-9))
    edges = np.minimum(np.arange(n + 1) * bin_s, duration)
    if duration <= 0:
        edges = np.array([0.0, bin_s])
    total, _ = np.histogram(times, bins=edges, weights=sizes.astype(float))
    return edges, total * 8 / np.diff(edges)


def _throughput(run: Run, bin_s: float | None) -> Panel:
    duration = _duration(run)
    bin_s = bin_s or default_bin(duration)
    lines = []
    delay = run.series("delay")
    for (flow,), g in _groups(delay, ["flow"]):
        edges, rate = throughput_bins(g["time"].to_numpy(), g["size"].to_numpy(), duration, bin_s)
        lines.append(Line(flow, edges, np.append(rate, rate[-1]) / 1e6, "steps"))
    missing = [
        name
        for name, f in run.summary.get("flows", {}).items()
        if f.get("bytes_delivered") and name not in set(delay["flow"].unique())
    ]
    notes = []
    if missing:
        notes.append(
            "not shown (no per-message deliveries recorded): " + ", ".join(sorted(missing))
        )
    title = f"Application throughput (delivered bytes in {bin_s:g} s bins)"
    return Panel("throughput", title, "throughput (Mbit/s)", lines, notes)


def _cumulative(frame: pl.DataFrame, keys: list[str], label, end: float) -> list[Line]:
    lines = []
    for key, g in _groups(frame, keys):
        t = np.concatenate([[0.0], g["time"].to_numpy()])
        n = np.arange(len(t), dtype=float)
        lines.append(_steps(label(*key), t, n, end))
    return lines


def _drops(run: Run, _bin: float | None) -> Panel:
    lines = _cumulative(
        run.series("drops"),
        ["link", "direction", "reason"],
        lambda link, direction, reason: f"{link} {direction} ({reason})",
        _duration(run),
    )
    return Panel("drops", "Dropped packets", "drops (packets, cumulative)", lines)


def _retransmits(run: Run, _bin: float | None) -> Panel:
    lines = _cumulative(
        run.series("retransmits"),
        ["flow", "endpoint", "kind"],
        lambda flow, endpoint, kind: f"{flow} ({endpoint}): {kind}",
        _duration(run),
    )
    return Panel(
        "retransmits", "TCP retransmissions and RTO expiries", "events (cumulative)", lines
    )


#: Every time-series kind: the traces it reads (any of them), and what it shows.
KINDS: dict[str, _Kind] = {
    "cwnd": _Kind(("cwnd",), "TCP congestion window per flow and endpoint (kB)", _cwnd),
    "inflight": _Kind(("cwnd",), "TCP bytes in flight per flow and endpoint (kB)", _inflight),
    "rtt": _Kind(("rtt", "rto"), "ping RTT and TCP smoothed RTT (ms)", _rtt),
    "rto": _Kind(("rto",), "TCP retransmission timeout (s)", _rto),
    "queue": _Kind(("queue",), "queue length per link direction (packets)", _queue),
    "delay": _Kind(("delay",), "one-way delay of each delivered message (ms)", _delay),
    "throughput": _Kind(
        ("delay",), "application throughput from delivered bytes in bins (Mbit/s)", _throughput
    ),
    "drops": _Kind(("drops",), "cumulative drops per link direction and reason", _drops),
    "retransmits": _Kind(
        ("retransmits",), "cumulative TCP retransmissions and RTO expiries", _retransmits
    ),
}

_EMPTY_HINTS = {
    "rtt": 'the rtt trace holds ping replies only; record "rto" for TCP\'s smoothed RTT',
    "delay": "only message flows (cbr, periodic) record deliveries, bulk TCP does not",
    "throughput": "it is computed from the delay trace, and only message flows (cbr, "
    "periodic) record deliveries, bulk TCP does not",
}


def _has_rows(run: Run, kind: _Kind) -> bool:
    return any(t in run.tables and run.series(t).height > 0 for t in kind.traces)


def available(run: Run | str | os.PathLike[str]) -> list[str]:
    """The time-series kinds this run has data for, in the order of `KINDS`."""
    run = _as_run(run)
    return [name for name, kind in KINDS.items() if _has_rows(run, kind)]


def timeseries_data(
    run: Run | str | os.PathLike[str], what: str, *, bin: float | None = None
) -> Panel:
    """The lines `timeseries` draws, as arrays (x in seconds, y in the panel's unit).

    `bin` is the throughput bin in seconds (default: about 50 bins over the run).
    """
    run = _as_run(run)
    kind = KINDS.get(what)
    if kind is None:
        have = ", ".join(available(run)) or "none"
        raise PlotError(
            f"unknown series {what!r}; this run has: {have} (all kinds: {', '.join(KINDS)})"
        )
    if not any(t in run.tables for t in kind.traces):
        need = " or ".join(f'"{t}"' for t in kind.traces)
        recorded = ", ".join(run.tables) or "none"
        raise PlotError(
            f"{what} needs the trace {need}, which this run did not record (recorded: "
            f"{recorded}); add it to the scenario's record = [...]"
        )
    if not _has_rows(run, kind):
        hint = _EMPTY_HINTS.get(what, "")
        have = ", ".join(available(run)) or "none"
        raise PlotError(
            f"no {what} data in this run: the {'/'.join(kind.traces)} trace has no rows"
            + (f" ({hint})" if hint else "")
            + f"; this run has: {have}"
        )
    return kind.build(run, bin)


def _figure(width: float = 8.0, height: float = 4.5) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def timeseries(
    run: Run | str | os.PathLike[str],
    what: str,
    *,
    bin: float | None = None,
    title: str | None = None,
    size: tuple[float, float] = (8.0, 4.5),
) -> Figure:
    """A time series of one run (a `Run`, or a run folder): one labelled line per flow
    (and endpoint) or link direction. `what` is one of `KINDS` (`available(run)` lists
    those the run has data for); `bin` is the throughput bin in seconds.

    In SVG output each line is a group with id "tern-<what>-<i>" (`i` from 0, in legend order).
    """
    run = _as_run(run)
    panel = timeseries_data(run, what, bin=bin)
    fig = _figure(*size)
    ax = fig.add_subplot()
    for i, line in enumerate(panel.lines):
        if line.style == "steps":
            (artist,) = ax.plot(line.x, line.y, drawstyle="steps-post", lw=1.2, label=line.label)
        elif line.style == "points":
            marker = "o" if len(line.x) <= 300 else "."
            (artist,) = ax.plot(
                line.x, line.y, marker=marker, ms=3, lw=0.6, alpha=0.9, label=line.label
            )
        else:
            (artist,) = ax.plot(line.x, line.y, lw=1.2, label=line.label)
        artist.set_gid(f"tern-{what}-{i}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(panel.ylabel)
    ax.set_title(title or panel.title)
    if _duration(run) > 0:
        ax.set_xlim(0, _duration(run))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    if panel.notes:
        fig.text(0.01, 0.005, "; ".join(panel.notes), fontsize="x-small", color="0.35")
    return fig


# --------------------------------------------------------------------------- sweeps

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


def _metric_label(name: str) -> str:
    unit = metric_unit(name)[1]
    return f"{name} ({unit})" if unit else name


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
    groups = stats.group_by(hues, maintain_order=True) if hues else [((), stats)]
    seeds = sorted(set(stats["n"].to_list()))
    for i, (key, g) in enumerate(groups):
        g = g.with_columns(pl.col(x).replace_strict(pos, return_dtype=pl.Float64).alias("_pos"))
        g = g.sort("_pos")
        label = ", ".join(str(k) for k in key) if hues else y
        px = g["_pos"].to_numpy()
        mean = g["mean"].to_numpy() * scale
        (line,) = ax.plot(px, mean, marker="o", ms=5, lw=1.4, label=label)
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
    ax.set_xlabel(f"{x} ({unit})" if unit else x)
    ax.set_ylabel(_metric_label(y))
    n_text = "/".join(map(str, seeds))
    ci = "no interval with one seed" if seeds == [1] else "95 % confidence interval (Student t)"
    ax.set_title(title or f"{y} vs {x}\nmean over {n_text} seeds, {ci}", fontsize="medium")
    ax.grid(True, alpha=0.3)
    if hues:
        ax.legend(title=", ".join(hues), loc="best", fontsize="small", title_fontsize="small")
    return fig


# --------------------------------------------------------------------------- output


def save(fig: Figure, out: str | os.PathLike[str], format: str | None = None) -> Path:
    """Writes a figure as PNG or SVG (from `format`, else from the file's suffix); the
    same figure gives the same bytes (no dates, fixed SVG ids)."""
    out = Path(out)
    fmt = (format or out.suffix.lstrip(".") or "png").lower()
    if fmt not in ("png", "svg"):
        raise PlotError(f"{out}: format {fmt!r} is not png or svg")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(figure_bytes(fig, fmt))
    return out


def figure_bytes(fig: Figure, fmt: str) -> bytes:
    """A figure as PNG or SVG bytes, without dates: the same figure gives the same bytes."""
    buf = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": "Tern (matplotlib)"}
    with matplotlib.rc_context({"svg.hashsalt": "tern", "svg.fonttype": "path"}):
        fig.savefig(buf, format=fmt, dpi=150, metadata=metadata)
    return buf.getvalue()
