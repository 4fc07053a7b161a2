"""The sections of the report of a run folder (overview, flows, links, every recorded series,
the scenario) and of a sweep folder (the grid's metrics with confidence intervals, plots)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import polars as pl

from tern import plots, plots_sweep
from tern.report_items import Code, Paragraph, Plot, Section, Table, format_value
from tern.runner import Run, data_path

# --------------------------------------------------------------------------- runs and sweeps


def _mbps(bps: float | None) -> str:
    return "—" if bps is None else f"{bps / 1e6:.3f}"


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:.1f}"


def run_sections(
    run: Run, *, params: dict[str, Any] | None = None, bin: float | None = None
) -> list[Section]:
    """Overview, flow and link tables, every time series the run has, and its scenario;
    `params` (a sweep run's grid values) go in the overview."""
    s = run.summary
    overview = [
        ("Tern version", s.get("tern_version")),
        ("seed", s.get("seed")),
        ("simulated time (s)", s.get("duration_s")),
        ("events", s.get("events")),
        ("packets", s.get("packets")),
        ("traces", ", ".join(run.tables) or "none"),
        ("capture files", ", ".join(run.captures) or "none"),
    ]
    overview += [(k, v) for k, v in (params or {}).items()]
    flows = []
    for name, f in s.get("flows", {}).items():
        d = f.get("delay_s") or f.get("rtt_s") or {}
        tcp = f.get("tcp") or {}
        retx = (
            sum(tcp.get(k, 0) for k in ("retransmits_fast", "retransmits_rto", "retransmits_sack"))
            if tcp
            else None
        )
        flows.append(
            [
                name,
                f"{f.get('app')}/{f.get('transport')}",
                data_path(f),
                f.get("bytes_sent"),
                f.get("bytes_delivered"),
                _mbps(f.get("goodput_bps")),
                f"{100 * f['loss_rate']:.2f}" if f.get("loss_rate") is not None else "—",
                ("rtt" if "rtt_s" in f else "delay") if d else "—",
                _ms(d.get("p50")),
                _ms(d.get("p99")),
                retx,
                tcp.get("rto_expiries") if tcp else None,
            ]
        )
    links = []
    for name, dirs in s.get("links", {}).items():
        for direction, c in dirs.items():
            dr = c.get("drops", {})
            links.append(
                [
                    name,
                    direction,
                    f"{c.get('from')} → {c.get('to')}",
                    c.get("tx_packets"),
                    f"{dr.get('queue')}/{dr.get('aqm')}/{dr.get('loss')}",
                    f"{c.get('queue_mean_packets', 0):.2f}",
                    c.get("queue_max_packets"),
                    f"{100 * c.get('utilization', 0):.1f}",
                ]
            )
    kinds = plots.available(run)
    figures: list[Any] = [
        Plot(plots.timeseries(run, k, bin=bin), f"{k}: {plots.KINDS[k].description}", k)
        for k in kinds
    ]
    if not figures and not (run.tables or run.captures):
        figures = [Paragraph("This run recorded no traces (record = [...] in the scenario).")]
    elif not figures:
        recorded = ", ".join([*run.tables, *run.captures])
        figures = [Paragraph(f"No time series to draw from what this run recorded ({recorded}).")]
    if run.captures:
        figures.append(
            Paragraph(
                "Capture files in the run folder: packet captures (.pcap) open in Wireshark, "
                "QUIC qlog files (.sqlog) in qvis."
            )
        )
    quic = _quic_rows(s)
    transport = [Section("QUIC", [Table(QUIC_COLUMNS, quic)])] if quic else []
    return [
        Section("Overview", [Table(["", "value"], overview)]),
        Section(
            "Flows",
            [
                Table(
                    [
                        "flow",
                        "app/transport",
                        "data path",
                        "bytes sent",
                        "bytes delivered",
                        "goodput (Mbit/s)",
                        "loss (%)",
                        "delay or rtt",
                        "p50 (ms)",
                        "p99 (ms)",
                        "TCP retransmits",
                        "RTO expiries",
                    ],
                    flows,
                )
            ],
        ),
        Section(
            "Links",
            [
                Table(
                    [
                        "link",
                        "direction",
                        "path",
                        "packets sent",
                        "drops queue/aqm/loss",
                        "queue mean (pkt)",
                        "queue max (pkt)",
                        "utilisation (%)",
                    ],
                    links,
                )
            ],
        ),
        *transport,
        Section("Time series", figures),
        Section(
            "Scenario",
            [
                Code(
                    run.scenario,
                    "toml",
                    "The resolved scenario (defaults filled in, seed and Tern version): "
                    "`tern run` on this file repeats the run.",
                )
            ],
        ),
    ]


QUIC_COLUMNS = [
    "flow",
    "handshake (ms)",
    "first byte (ms)",
    "transfer (s)",
    "packets sent",
    "packets lost",
    "congestion events",
    "final cwnd (B)",
    "MTU (B)",
    "SRTT (ms)",
    "closed",
]


def _quic_rows(summary: dict[str, Any]) -> list[list[Any]]:
    """The summary's `quic` section of each QUIC flow (see `QuicSummary`)."""
    rows = []
    for name, f in summary.get("flows", {}).items():
        q = f.get("quic")
        if not isinstance(q, dict):
            continue
        closed = q.get("connection_closed") or {}
        rows.append(
            [
                name,
                _ms(q.get("handshake_time_s")),
                _ms(q.get("first_byte_time_s")),
                format_value(q.get("transfer_time_s"))
                if q.get("transfer_time_s") is not None
                else "—",
                q.get("packets_sent"),
                q.get("packets_lost"),
                q.get("congestion_events"),
                q.get("final_cwnd"),
                q.get("final_mtu"),
                _ms(q.get("final_srtt_s")),
                f"{closed.get('endpoint')} at {closed.get('at_s')} s: {closed.get('reason')}"
                if closed
                else "open at the end",
            ]
        )
    return rows


#: Summary metrics a sweep report shows, when the runs have them.
SWEEP_METRICS = (
    "goodput_bps",
    "delay_s_p50",
    "delay_s_p99",
    "rtt_s_p50",
    "loss_rate",
    "tcp_retransmits_rto",
    "tcp_rto_expiries",
    "tcp_completion_time_s",
    "tcp_transfer_time_s",
)


def _mean_ci(mean: float, half: float | None) -> str:
    """ "mean ± half", the half-width to two significant digits and the mean to match."""
    if half is None:
        return format_value(mean)
    if not half > 1e-9 * abs(mean):
        return f"{mean:.6g} ± 0"
    decimals = min(12, max(0, 1 - math.floor(math.log10(half))))
    return f"{mean:.{decimals}f} ± {half:.{decimals}f}"


def _sweep_metrics(frame: pl.DataFrame) -> list[str]:
    keep = []
    for m in SWEEP_METRICS:
        if m not in frame.columns or not frame.schema[m].is_numeric():
            continue
        values = frame[m].drop_nulls()
        if values.len() and (m == "goodput_bps" or values.abs().max() > 0):
            keep.append(m)
    return keep


def sweep_sections(folder: str | os.PathLike[str]) -> list[Section]:
    """Overview, mean ± 95 % CI of the main metrics per grid point, plots of each metric
    against each swept parameter, failed runs, and the scenario of one run."""
    from tern.store import ResultsError, open_results, read_json, sweep_meta

    root = Path(folder)
    meta = sweep_meta(root)
    frame = open_results(root).pl()
    failed = sorted((root / "failed").glob("*.json")) if (root / "failed").is_dir() else []
    grid = plots_sweep._load_sweep(frame).grid if not frame.is_empty() else []
    overview: list[tuple[str, Any]] = [
        ("scenario", meta.get("scenario", "?")),
        ("seeds", meta.get("seeds", "?")),
        ("runs finished", frame["key"].n_unique() if "key" in frame.columns else 0),
        ("runs failed", len(failed)),
    ]
    overview += [(f"grid: {k}", ", ".join(v)) for k, v in meta.get("grid", {}).items()]
    overview += [(f"linked: {k}", ", ".join(v)) for k, v in meta.get("linked", {}).items()]
    overview += [(f"set: {k}", v) for k, v in meta.get("set", {}).items()]
    sections = [Section("Overview", [Table(["", "value"], overview)])]
    if frame.is_empty():
        sections.append(Section("Results", [Paragraph("No finished runs yet.")]))
        return sections
    metrics = _sweep_metrics(frame)
    x = grid[-1] if grid else "flow"
    hue = [g for g in grid if g != x] + (["flow"] if x != "flow" else [])
    merged: pl.DataFrame | None = None
    for m in metrics:
        stats = plots.sweep_stats(frame, x, m, hue)
        scale, unit = plots.metric_unit(m)
        text = [
            _mean_ci(mean * scale, None if low is None else (high - low) / 2 * scale)
            for mean, low, high in stats.select("mean", "ci_low", "ci_high").iter_rows()
        ]
        keys = [*hue, x] if merged is not None else [*hue, x, "n"]
        col = stats.select(keys).with_columns(pl.Series(f"{m} ({unit})" if unit else m, text))
        merged = col if merged is None else merged.join(col, on=[*hue, x], how="left")
    results: list[Any] = [
        Paragraph(
            "Mean over seeds ± half-width of the two-sided 95 % confidence interval "
            "(Student t); n is the number of seeds with a value."
        )
    ]
    if merged is not None:
        ordered = [*grid, *([] if x == "flow" else ["flow"])]
        ordered = ordered + [c for c in merged.columns if c not in ordered]
        results.append(Table.from_frame(merged.select(ordered)))
    sections.append(Section("Results", results))
    figures: list[Any] = []
    varying = [g for g in grid if frame[g].n_unique() > 1]
    for m in metrics:
        for g in varying:
            # From the folder, as `tern plot` draws it: the sweep's order, so its colours.
            figures.append(Plot(plots.sweep(root, g, m), f"{m} against {g}", f"{m}-vs-{g}"))
    if not figures:
        figures = [Paragraph("No grid parameter takes more than one value: nothing to plot.")]
    sections.append(Section("Plots", figures))
    if failed:
        rows = []
        for f in failed:
            info = read_json(f, "a failed run's record")
            given = info.get("params", {})
            params = (
                ", ".join(f"{k}={v}" for k, v in given.items()) if isinstance(given, dict) else ""
            )
            rows.append([f.stem, params, info.get("seed"), info.get("error", "")])
        sections.append(
            Section("Failed runs", [Table(["key", "parameters", "seed", "error"], rows)])
        )
    first = frame.row(0, named=True)
    run_dir = root / "runs" / str(first["key"])
    scenario_file = run_dir / "scenario.toml"
    try:
        scenario = scenario_file.read_text(encoding="utf-8") if run_dir.is_dir() else ""
    except UnicodeDecodeError as e:
        raise ResultsError(f"{scenario_file}: not UTF-8 text ({e})") from None
    where = ", ".join(f"{g}={first[g]}" for g in grid)
    sections.append(
        Section(
            "Scenario",
            [
                Code(
                    scenario,
                    "toml",
                    f"The resolved scenario of run {first['key']} (seed {first['seed']}"
                    + (f", {where}" if where else "")
                    + "); the other runs differ in the grid values and the seed.",
                )
            ],
        )
    )
    return sections
