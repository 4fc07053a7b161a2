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

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from tern import plots_events as events
from tern import plots_traces as traces
from tern._plotbase import (
    Line,
    Panel,
    PlotError,
    _duration,
    _figure,
    _groups,
    _steps,
    _table,
    default_bin,
    figure_bytes,
    folder_kind,
    save,
    throughput_bins,
)
from tern.plots_sweep import (
    metric_label,
    metric_unit,
    plain_log_ticks,
    sweep,
    sweep_grid,
    sweep_stats,
    t_quantile_975,
)
from tern.runner import Run, load_run

__all__ = [
    "KINDS",
    "Line",
    "Panel",
    "PlotError",
    "available",
    "figure_bytes",
    "folder_kind",
    "metric_label",
    "metric_unit",
    "plain_log_ticks",
    "save",
    "sweep",
    "sweep_grid",
    "sweep_stats",
    "t_quantile_975",
    "timeseries",
    "timeseries_data",
]


def _as_run(run: Run | str | os.PathLike[str]) -> Run:
    if isinstance(run, Run):
        return run
    if folder_kind(run) != "run":
        raise PlotError(f"{run}: a sweep folder, not a run; pass one of its runs/<key> folders")
    return load_run(run)


# --------------------------------------------------------------------------- time series


@dataclass(frozen=True)
class _Kind:
    traces: tuple[str, ...]
    description: str
    build: Callable[[Run, float | None], Panel]


def _tcp_lines(run: Run, column: str, scale: float, end: float) -> list[Line]:
    frame = run.series("cwnd")
    lines = []
    for (flow, endpoint), g in _groups(frame, ["flow", "endpoint"]):
        values = g[column].to_numpy().astype(float) * scale
        lines.append(_steps(f"{flow} ({endpoint})", g["time"].to_numpy(), values, end))
    return lines


def _cwnd(run: Run, _bin: float | None) -> Panel:
    lines = _tcp_lines(run, "cwnd", 1e-3, _duration(run)) if "cwnd" in run.tables else []
    lines += traces.quic_lines(run, "cwnd", 1e-3)
    return Panel("cwnd", "Congestion window", "congestion window (kB)", lines)


def _inflight(run: Run, _bin: float | None) -> Panel:
    lines = _tcp_lines(run, "in_flight", 1e-3, _duration(run)) if "cwnd" in run.tables else []
    lines += traces.quic_lines(run, "bytes_in_flight", 1e-3)
    return Panel("inflight", "Bytes in flight", "in flight (kB)", lines)


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
    lines += [
        dataclasses.replace(line, label=line.label.replace(", QUIC)", ", QUIC SRTT)"))
        for line in traces.quic_lines(run, "srtt", 1e3)
    ]
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


def _throughput(run: Run, bin_s: float | None) -> Panel:
    duration = _duration(run)
    bin_s = bin_s or default_bin(duration)
    lines = []
    delay = _table(run, "delay")
    shown = set()
    if delay is not None:
        for (flow,), g in _groups(delay, ["flow"]):
            times, sizes = g["time"].to_numpy(), g["size"].to_numpy()
            edges, rate = throughput_bins(times, sizes, duration, bin_s)
            lines.append(Line(flow, edges, np.append(rate, rate[-1]) / 1e6, "steps"))
            shown.add(flow)
    if "segments" in run.tables:
        acked = [
            line
            for line in traces.acked_throughput(run, bin_s)
            if line.label.split(" (")[0] not in shown
        ]
        lines += acked
        shown |= {line.label.split(" (")[0] for line in acked}
    missing = [
        name
        for name, f in run.summary.get("flows", {}).items()
        if f.get("bytes_delivered") and name not in shown
    ]
    notes = []
    if missing:
        notes.append(
            "not shown (no per-message deliveries nor TCP segments recorded): "
            + ", ".join(sorted(missing))
        )
    title = f"Throughput (bytes delivered, or acknowledged for TCP, in {bin_s:g} s bins)"
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
    "cwnd": _Kind(("cwnd", "quic"), "TCP and QUIC congestion window per endpoint (kB)", _cwnd),
    "inflight": _Kind(
        ("cwnd", "quic"), "TCP and QUIC bytes in flight per flow and endpoint (kB)", _inflight
    ),
    "rtt": _Kind(("rtt", "rto", "quic"), "ping RTT, TCP and QUIC smoothed RTT (ms)", _rtt),
    "rto": _Kind(("rto",), "TCP retransmission timeout (s)", _rto),
    "queue": _Kind(("queue",), "queue length per link direction (packets)", _queue),
    "delay": _Kind(("delay",), "one-way delay of each delivered message (ms)", _delay),
    "throughput": _Kind(
        ("delay", "segments"),
        "throughput in bins: messages delivered, TCP bytes acknowledged (Mbit/s)",
        _throughput,
    ),
    "tseq": _Kind(("segments",), "TCP time-sequence graph (segments sent, ACKs)", traces.tseq),
    "drops": _Kind(("drops",), "cumulative drops per link direction and reason", _drops),
    "retransmits": _Kind(
        ("retransmits",), "cumulative TCP retransmissions and RTO expiries", _retransmits
    ),
    "mcs": _Kind(("wifi",), "802.11 MCS (or PHY rate) of each data PPDU", traces.wifi_rate),
    "retries": _Kind(("wifi",), "802.11 MPDUs not acknowledged, cumulative", traces.wifi_retries),
    "ampdu": _Kind(("wifi",), "802.11 MPDUs per data PPDU (A-MPDU size)", traces.wifi_ampdu),
    "tfrc": _Kind(("tfrc",), "TFRC allowed rate X and receive rate X_recv (Mbit/s)", traces.tfrc),
    "rssi": _Kind(("rssi",), "802.11 beacon RSSI per station and AP (dBm)", traces.rssi),
    "rlc": _Kind(("rlc",), "RLC sender buffer per link direction (kB)", traces.rlc),
    "rlc_sdu": _Kind(("rlc_sdu",), "delay of each SDU across RLC AM (ms)", events.rlc_sdu),
    "wifi_rx": _Kind(
        ("wifi_rx",), "802.11 MPDUs received: sequence number, good or bad FCS", events.wifi_rx
    ),
    "retry_out": _Kind(
        ("retry_out",), "802.11 MPDUs the AP's retry-out index declared lost", events.retry_out
    ),
    "path_status": _Kind(
        ("path_status",), "multipath QUIC path status per path, as bands", events.path_status
    ),
    "switcher": _Kind(("switcher",), "ConnectionSwitcher notices and switches", events.switcher),
    "events": _Kind(("handovers", "roaming"), "cellular handovers and 802.11 roams", events.events),
}

_EMPTY_HINTS = {
    "rtt": 'the rtt trace holds ping replies only; record "rto" for TCP\'s smoothed RTT',
    "delay": "only message flows (cbr, periodic) record deliveries, bulk TCP does not",
    "throughput": "it is computed from the delay trace (message flows: cbr, periodic) and "
    "the segments trace (TCP)",
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
        if line.style == "bands":
            _draw_bands(ax, panel, i, line, f"tern-{what}-{i}")
            continue
        if line.style == "events":
            (artist,) = ax.plot(line.x, line.y, ls="none", marker="|", ms=12, label=line.label)
        elif line.style == "steps":
            (artist,) = ax.plot(line.x, line.y, drawstyle="steps-post", lw=1.2, label=line.label)
        elif line.style == "markers":
            (artist,) = ax.plot(line.x, line.y, ls="none", marker=".", ms=3, label=line.label)
        elif line.style == "points":
            marker = "o" if len(line.x) <= 300 else "."
            (artist,) = ax.plot(
                line.x, line.y, marker=marker, ms=3, lw=0.6, alpha=0.9, label=line.label
            )
        else:
            (artist,) = ax.plot(line.x, line.y, lw=1.2, label=line.label)
        artist.set_gid(f"tern-{what}-{i}")
    for j, (label, times) in enumerate(traces.markers(run) if what != "events" else []):
        for k, t in enumerate(times):
            ax.axvline(
                t, color="0.3", lw=0.8, ls=(":", "--", "-.")[j % 3], label=label if k == 0 else None
            )
    if panel.rows:
        ax.set_yticks(range(len(panel.rows)), panel.rows)
        ax.set_ylim(-0.6, len(panel.rows) - 0.4)
        ax.invert_yaxis()
    ax.set_xlabel("time (s)")
    ax.set_ylabel(panel.ylabel)
    ax.set_title(title or panel.title)
    if _duration(run) > 0:
        ax.set_xlim(0, _duration(run))
    if panel.zero_based and not panel.rows:
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if panel.states:
        handles = [Patch(color=_state_colour(s, panel.states), label=s) for s in panel.states]
        ax.legend(handles=handles, loc="best", fontsize="small")
    elif any(line.style != "events" for line in panel.lines):
        ax.legend(loc="best", fontsize="small")
    if panel.notes:
        fig.text(0.01, 0.005, "; ".join(panel.notes), fontsize="x-small", color="0.35")
    return fig


#: Colours of the path statuses a band shows; other states take the default cycle's.
_STATE_COLOURS = {"available": "tab:green", "backup": "tab:orange", "none": "0.75"}


def _state_colour(state: str, states: list[str]) -> str:
    return _STATE_COLOURS.get(state, f"C{3 + states.index(state) % 7}")


def _draw_bands(ax, panel: Panel, row: int, line: Line, gid: str) -> None:
    """Row `row` of a band panel: each state from its change to the next, in its colour."""
    spans: dict[int, list[tuple[float, float]]] = {}
    for x0, x1, code in zip(line.x[:-1], line.x[1:], line.y[:-1], strict=True):
        spans.setdefault(int(code), []).append((float(x0), float(x1 - x0)))
    for code, xs in spans.items():
        colour = _state_colour(panel.states[code], panel.states)
        ax.broken_barh(xs, (row - 0.35, 0.7), color=colour, gid=f"{gid}-{code}")
