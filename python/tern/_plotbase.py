"""What the plots of runs and of sweeps share: their error, folder kinds, figures and output."""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from tern.runner import Run


class PlotError(ValueError):
    """A plot that cannot be made from what it was given (unknown series, trace not recorded,
    not a run or sweep folder, unknown column); the message says what there is instead."""


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


def _figure(width: float = 8.0, height: float = 4.5) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


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


@dataclass
class Line:
    """One labelled line of a time series: x in seconds, y in the panel's unit."""

    label: str
    x: np.ndarray
    y: np.ndarray
    #: "steps": the value holds until the next record; "line": samples joined; "points": markers;
    #: "markers": markers only; "events": a tick per instant on the row `y` (a category);
    #: "bands": a row of coloured spans, `y[i]` (an index into the panel's `states`) holding
    #: from `x[i]` to `x[i + 1]`.
    style: str = "line"


@dataclass
class Panel:
    """What a time-series plot shows: its lines, axis label (with unit) and title."""

    what: str
    title: str
    ylabel: str
    lines: list[Line]
    notes: list[str] = field(default_factory=list)
    #: Whether the y axis starts at 0 (not for dBm).
    zero_based: bool = True
    #: For rows of categories ("events", "bands"): the label of each y value 0, 1, ...
    rows: list[str] = field(default_factory=list)
    #: For "bands": the name of each state code 0, 1, ...
    states: list[str] = field(default_factory=list)


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
