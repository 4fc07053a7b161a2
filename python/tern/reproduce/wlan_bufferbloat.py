"""Figures of `tern reproduce wlan-bufferbloat` (the claims are in its study.toml).

Each experiment is one station kind or a set of them: `linux` (linux-none, linux-tsq,
linux-codel, told apart by their linked settings), `windows10`, `macos1011`, and `fixed`
(linux-none with a fixed retry-out index). The scatter plots read each run's aggregates once
(`per_run`: the `wifi` trace aggregated in DuckDB, the rest from the run summaries); the
time series read the traces of one run per kind, chosen explicitly (seed 1, the farthest
position), and only those runs' files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import duckdb
import matplotlib
import polars as pl

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

ENABLED = '"wifi.wlan.retry_out.enabled"'
FIXED = '"wifi.wlan.retry_out.fixed"'
POSITION = '"nodes.sta.position"'
#: A Linux run's kind from its linked settings (study.toml): CoDel, then the TSQ limit.
LINUX_KIND = """CASE WHEN "wifi.wlan.qdisc.kind" = 'codel' THEN 'linux-codel'
                WHEN "flows.upload.transport.tsq" = '128KiB' THEN 'linux-tsq'
                ELSE 'linux-none' END"""
#: The station kinds: (kind, experiment, SQL giving a run's kind in that experiment).
KINDS = (
    ("linux-none", "linux", LINUX_KIND),
    ("linux-tsq", "linux", LINUX_KIND),
    ("linux-codel", "linux", LINUX_KIND),
    ("windows10", "windows10", "'windows10'"),
    ("macos1011", "macos1011", "'macos1011'"),
)
LINUX = tuple(k for k in KINDS if k[1] == "linux")
COLOURS = {"linux-none": "C0", "linux-tsq": "C1", "linux-codel": "C2", "windows10": "C3"}
#: The farthest position of the grids: the time series are drawn there (about 13 Mbit/s).
LOW_RATE_POSITION = "[95, 0, 0]"
#: The seed whose runs the time series show.
SERIES_SEED = 1


#: Per run: the station's A-MPDUs' mean data rate (the paper's x axis) and MAC frame error
#: rate (Fig. 5: 1 - MPDUs acknowledged / sent), from the `wifi` trace; and the packets the
#: station holds below TCP (qdisc and driver), time-averaged (the run summary).
_PER_RUN = """
WITH w AS (SELECT key, avg(rate_mbps) AS mac_mbps, 1 - sum(acked) / sum(mpdus) AS fer
           FROM wifi WHERE kind = 'ampdu' AND "from" = 'sta' GROUP BY key),
     q AS (SELECT key, queue_mean_packets AS queue FROM links
           WHERE link = 'wlan-sta' AND direction = 'forward')
SELECT r.seed, r.{position} AS position, {scheme} AS scheme, {kind} AS kind, {extra} r.flow,
       r.rtt_s_mean * 1e3 AS rtt_ms, r.rtt_s_max * 1e3 AS rtt_max_ms,
       r.goodput_bps / 1e6 AS goodput_mbps, w.mac_mbps, w.fer, q.queue
FROM runs r JOIN w USING (key) JOIN q USING (key)
ORDER BY r.seed, w.mac_mbps, r.key, r.flow
"""


def _literal(keys: list[str]) -> str:
    """Keys as an SQL list: a literal list lets DuckDB read only those runs' files."""
    return ", ".join("'" + k.replace("'", "''") + "'" for k in keys)


def per_run(
    con: duckdb.DuckDBPyConnection, kind_sql: str, extra: str = "", scheme: str = f"r.{ENABLED}"
) -> pl.DataFrame:
    """One row per run and flow: seed, position, scheme, kind (`kind_sql`), `extra` columns
    of `runs`, the ping's mean and largest RTT, the upload's goodput, and the run's MAC
    rate, MAC frame error rate and mean send queue (`_PER_RUN`)."""
    sql = _PER_RUN.format(
        position=POSITION, scheme=scheme, kind=kind_sql, extra=extra + "," if extra else ""
    )
    return con.sql(sql).pl()


def _frames(results: Mapping[str, duckdb.DuckDBPyConnection]) -> pl.DataFrame:
    """Every kind's runs, each experiment read once."""
    parts = []
    for experiment in ("linux", "windows10", "macos1011"):
        kind_sql = next(k[2] for k in KINDS if k[1] == experiment)
        frame = per_run(results[experiment], kind_sql)
        parts.append(frame.with_columns(pl.col("scheme").cast(pl.Utf8)))
    return pl.concat(parts, how="vertical_relaxed")


def _style(kind: str) -> dict[str, str]:
    return {"color": COLOURS.get(kind, "C4"), "marker": "o"}


def _rate_axis(ax: Axes) -> None:
    """The paper's x axis: average MAC data rate, log scale, plain numbers."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(ScalarFormatter())
    ax.set_xlabel("average MAC data rate (Mbit/s)")


def rate_error(rows: pl.DataFrame) -> Figure:
    """Fig. 5: MAC frame error rate against average MAC data rate, Linux kinds, no scheme."""
    up = rows.filter((pl.col("flow") == "upload") & (pl.col("scheme") == "false"))
    fig, ax = plt.subplots(figsize=(6, 4))
    for kind, _, _ in LINUX:
        part = up.filter(pl.col("kind") == kind)
        ax.plot(part["mac_mbps"], part["fer"], ls="", **_style(kind), label=kind)
    ax.axhspan(0.05, 0.2, color="grey", alpha=0.15, label="paper: 0.05-0.2")
    _rate_axis(ax)
    ax.set_ylabel("MAC frame error rate")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _by_scheme(
    rows: pl.DataFrame, flow: str, column: str, ylabel: str, kinds: tuple = KINDS
) -> Figure:
    part_rows = rows.filter(pl.col("flow") == flow)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    panels = (("false", "(a) without"), ("true", "(b) with"))
    for ax, (scheme, title) in zip(axes, panels, strict=True):
        for kind, _, _ in kinds:
            part = part_rows.filter((pl.col("kind") == kind) & (pl.col("scheme") == scheme))
            ax.plot(part["mac_mbps"], part[column], ls="", **_style(kind), label=kind)
        _rate_axis(ax)
        ax.set_title(f"{title} the retry-out index")
        ax.legend(fontsize=8)
    axes[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def _series(
    results: Mapping[str, duckdb.DuckDBPyConnection],
    trace: str,
    select: str,
    where: str,
    ylabel: str,
    kinds: tuple = KINDS,
    end: float = 60.0,
) -> Figure:
    """A time series per kind at LOW_RATE_POSITION, seed SERIES_SEED, (a) without and (b)
    with the scheme: `select` gives `time` and `y` from `trace` (rows matching `where`)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    panels = (("false", "(a) without"), ("true", "(b) with"))
    for experiment in dict.fromkeys(k[1] for k in kinds):
        con = results[experiment]
        kind_sql = next(k[2] for k in kinds if k[1] == experiment)
        chosen = con.sql(
            f"""SELECT DISTINCT key, {kind_sql} AS kind, {ENABLED} AS scheme FROM runs
                WHERE seed = ? AND {POSITION} = ? ORDER BY kind, scheme, key""",
            params=[SERIES_SEED, LOW_RATE_POSITION],
        ).pl()
        if chosen.is_empty():
            continue
        keys = _literal(chosen["key"].to_list())
        data = con.sql(
            f"""SELECT key, time, {select} AS y FROM {trace}
                WHERE key IN ({keys}) AND {where} ORDER BY key, time"""
        ).pl()
        for key, kind, scheme in chosen.iter_rows():
            s = data.filter(pl.col("key") == key)
            if s.is_empty() or kind not in {k[0] for k in kinds}:
                continue
            ax = axes[0 if scheme == "false" else 1]
            # Traces record changes only: each series is held to the run's end.
            times = [*s["time"], max(end, s["time"][-1])]
            ax.step(times, [*s["y"], s["y"][-1]], where="post", lw=0.8, label=kind,
                    color=_style(kind)["color"])  # fmt: skip
    for ax, (_, title) in zip(axes, panels, strict=True):
        ax.set_xlabel("time (s)")
        ax.set_title(f"{title} the retry-out index")
        ax.legend(fontsize=8)
    axes[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def fixed_index(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 16-17: mean ping RTT and TCP throughput by fixed retry-out index, every run."""
    rows = per_run(con, "'linux-none'", f"r.{FIXED} AS fixed", scheme="'true'")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for i, index in enumerate(sorted(set(rows["fixed"]), key=int)):
        part = rows.filter(pl.col("fixed") == index)
        ping = part.filter(pl.col("flow") == "ping")
        up = part.filter(pl.col("flow") == "upload")
        left.plot(ping["mac_mbps"], ping["rtt_ms"], "o", color=f"C{i}", label=f"index {index}")
        right.plot(up["mac_mbps"], up["goodput_mbps"], "o", color=f"C{i}", label=f"index {index}")
    for ax, ylabel in ((left, "mean ping RTT (ms)"), (right, "TCP throughput (Mbit/s)")):
        _rate_axis(ax)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _antennas(results: Mapping[str, duckdb.DuckDBPyConnection]) -> str:
    """The primary condition's antennas in words, for the captions."""
    primary = getattr(results, "primary", {})
    receive = primary.get("wifi.wlan.propagation.fading.rx_antennas", "?")
    send = primary.get("wifi.wlan.propagation.fading.tx_antennas", "1")
    return f"{receive} receive antennas and {send} transmit antennas"


def _condition(results: Mapping[str, duckdb.DuckDBPyConnection]) -> str:
    """The primary condition in words, for the captions."""
    primary = getattr(results, "primary", {})
    seeds = sorted(
        {s for (s,) in results["linux"].execute("SELECT DISTINCT seed FROM runs").fetchall()}
    )
    model = primary.get("wifi.wlan.propagation.fading.model", "flat")
    fading = "flat Rayleigh fading" if model == "flat" else f"TGn model {model} Rayleigh fading"
    span = f"seeds {seeds[0]}-{seeds[-1]}" if len(seeds) > 1 else f"seed {seeds[0]}"
    return (
        f"Condition: 802.11n 20 MHz two streams, {fading}, {_antennas(results)}, "
        f"Minstrel-HT, 60 s runs, {span}, every run a point."
    )


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    condition = _condition(results)
    rows = _frames(results)
    series = (
        f"One run per kind: seed {SERIES_SEED} at {LOW_RATE_POSITION.split(',')[0][1:]} m "
        f"(about 13 Mbit/s; the paper's is 12-13.5), {_antennas(results)}."
    )
    yield (
        "rate-error",
        rate_error(rows),
        "Study Fig. 5: MAC frame error rate (1 - MPDUs acknowledged / sent) against the run's "
        f"average MAC data rate, Linux kinds, no scheme; the paper's 0.05-0.2 shaded. {condition}",
    )
    yield (
        "ping-rtt",
        _by_scheme(rows, "ping", "rtt_ms", "mean ping RTT (ms)"),
        "Study Fig. 6: mean ping RTT against average MAC data rate per station kind, (a) "
        "without and (b) with the AP's retry-out index. windows10's queue below TCP: 1000 "
        f"packets (its calibration not met), macos1011's XNU's 128. {condition}",
    )
    yield (
        "send-queue",
        _by_scheme(rows, "upload", "queue", "mean send queue (qdisc + driver, packets)", LINUX),
        "Study Fig. 7: the Linux stations' mean send queue (qdisc and ath9k's 123-frame driver "
        f"queue, time-averaged), (a) without and (b) with the index. {condition}",
    )
    yield (
        "throughput",
        _by_scheme(rows, "upload", "goodput_mbps", "TCP throughput (Mbit/s)"),
        "Study Fig. 8: TCP throughput against average MAC data rate, (a) without and (b) "
        f"with the index. {condition}",
    )
    yield (
        "ping-rtt-over-time",
        _series(results, "rtt", "rtt * 1e3", "flow = 'ping'", "ping RTT (ms)"),
        f"Study Fig. 9: the ping's RTT over time, per kind, without and with the index. {series}",
    )
    yield (
        "cwnd",
        _series(
            results,
            "cwnd",
            "cwnd / 1448",
            "flow = 'upload' AND endpoint = 'client'",
            "cwnd (segments of 1448 B)",
            LINUX,
        ),
        "Study Fig. 12: the upload's congestion window over time, Linux kinds, without and "
        "with the index. Linux 3.13's 4 MiB send buffer caps it at 963 segments (upload.toml). "
        + series,
    )
    yield (
        "send-queue-over-time",
        _series(
            results,
            "queue",
            "packets",
            "link = 'wlan-sta' AND direction = 'forward'",
            "packets queued in the station (qdisc + driver)",
            LINUX,
        ),
        "The packets queued in the Linux stations over time, without and with the index "
        "(the `queue` trace): ath9k's driver queue holds the first 123, the qdisc the rest. "
        + series,
    )
    yield (
        "fixed-index",
        fixed_index(results["fixed"]),
        "Study Figs. 16-17: mean ping RTT and TCP throughput of linux-none with a fixed "
        f"retry-out index 2, 5 or 8 instead of Table 1. {condition}",
    )
