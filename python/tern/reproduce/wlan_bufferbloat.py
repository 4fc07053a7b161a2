"""Figures of the wlan-bufferbloat study (see scenarios/wlan-bufferbloat/study.toml).

The paper's x axis is a run's average MAC data rate: the mean data rate of every A-MPDU the
station sent in the run (§4.2); its Fig. 5 error rate is 1 - MPDUs acknowledged / MPDUs sent,
retransmissions included. Both come from the `wifi` trace (`PER_RUN`).
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

TSQ = '"flows.upload.transport.tsq"'
ENABLED = '"wifi.wlan.retry_out.enabled"'
FIXED = '"wifi.wlan.retry_out.fixed"'
#: Station kinds by their TSQ limit (upload.toml: 1 GB = the limit raised, TSQ off).
KINDS = {"1GB": "linux-none", "128KiB": "linux-tsq"}

#: Per run: average MAC data rate of the station's A-MPDUs (Mbit/s) and MAC frame error rate.
PER_RUN = """
SELECT key, avg(rate_mbps) AS mac_mbps, 1 - sum(acked) / sum(mpdus) AS fer
FROM wifi WHERE kind = 'ampdu' AND "from" = 'sta' GROUP BY key
"""


def _rate_axis(ax: Axes) -> None:
    """The paper's x axis: average MAC data rate, log scale, plain numbers."""
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.set_xlabel("average MAC data rate (Mbit/s)")


def per_run(con: duckdb.DuckDBPyConnection, columns: str) -> pl.DataFrame:
    """The ping and upload rows of every run with `columns` of `runs`, its MAC rate and FER."""
    return con.sql(
        f"""WITH m AS ({PER_RUN})
            SELECT {columns}, r.flow, r.rtt_s_mean * 1e3 AS rtt_ms,
                   r.rtt_s_max * 1e3 AS rtt_max_ms, r.goodput_bps / 1e6 AS goodput_mbps,
                   m.mac_mbps, m.fer
            FROM runs r JOIN m USING (key) ORDER BY m.mac_mbps"""
    ).pl()


def rate_error(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 5: MAC frame error rate against average MAC data rate, no scheme."""
    rows = per_run(con, f"{TSQ} AS tsq, {ENABLED} AS scheme").filter(
        (pl.col("flow") == "upload") & (pl.col("scheme") == "false")
    )
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, (tsq, kind) in enumerate(KINDS.items()):
        part = rows.filter(pl.col("tsq") == tsq)
        ax.plot(part["mac_mbps"], part["fer"], "o", color=f"C{i}", label=kind)
    ax.axhspan(0.05, 0.2, color="grey", alpha=0.15, label="paper: 0.05-0.2")
    _rate_axis(ax)
    ax.set_ylabel("MAC frame error rate")
    ax.set_title("Error rate vs. rate (SNR -> PER model, Minstrel-HT)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _by_scheme(con: duckdb.DuckDBPyConnection, flow: str, column: str, ylabel: str) -> Figure:
    rows = per_run(con, f"{TSQ} AS tsq, {ENABLED} AS scheme").filter(pl.col("flow") == flow)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    panels = (("false", "(a) without"), ("true", "(b) with"))
    for ax, (scheme, title) in zip(axes, panels, strict=True):
        for i, (tsq, kind) in enumerate(KINDS.items()):
            part = rows.filter((pl.col("tsq") == tsq) & (pl.col("scheme") == scheme))
            ax.plot(part["mac_mbps"], part[column], "o", color=f"C{i}", label=kind)
        _rate_axis(ax)
        ax.set_title(f"{title} the retry-out index")
        ax.legend(fontsize=8)
    axes[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def ping_rtt(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 6: mean ping RTT against average MAC data rate, without and with the scheme."""
    return _by_scheme(con, "ping", "rtt_ms", "mean ping RTT (ms)")


def throughput(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 8: TCP throughput against average MAC data rate, without and with the scheme."""
    return _by_scheme(con, "upload", "goodput_mbps", "TCP throughput (Mbit/s)")


#: Figs. 11-12: the farthest station of the quick and full grids (about 16 Mbit/s), seed 1.
LOW_RATE_POSITION = "[95, 0, 0]"


def cwnd_over_time(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 11-12: linux-none's cwnd over time at a low rate, without and with the scheme."""
    fig, ax = plt.subplots(figsize=(8, 4))
    for i, (scheme, label) in enumerate((("false", "without"), ("true", "with"))):
        c = con.sql(
            f"""SELECT c.time, c.cwnd / 1448 AS segments FROM cwnd c JOIN runs r USING (key)
                WHERE r.flow = 'upload' AND c.flow = 'upload' AND c.endpoint = 'client'
                  AND r.seed = 1 AND r."nodes.sta.position" = ? AND {TSQ} = '1GB'
                  AND {ENABLED} = ? ORDER BY c.time""",
            params=[LOW_RATE_POSITION, scheme],
        ).pl()
        ax.step(c["time"], c["segments"], where="post", color=f"C{i}", label=f"{label} the index")
    ax.set_yscale("log")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments of 1448 B, log)")
    ax.set_title("linux-none at about 16 Mbit/s (95 m)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def fixed_index(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 16-17: mean ping RTT and TCP throughput by fixed retry-out index."""
    rows = per_run(con, f"{FIXED} AS fixed")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for i, index in enumerate(sorted(set(rows["fixed"]), key=int)):
        part = rows.filter(pl.col("fixed") == index)
        ping = part.filter(pl.col("flow") == "ping")
        up = part.filter(pl.col("flow") == "upload")
        left.plot(ping["mac_mbps"], ping["rtt_ms"], "o-", color=f"C{i}", label=f"index {index}")
        right.plot(up["mac_mbps"], up["goodput_mbps"], "o-", color=f"C{i}", label=f"index {index}")
    for ax, ylabel in ((left, "mean ping RTT (ms)"), (right, "TCP throughput (Mbit/s)")):
        _rate_axis(ax)
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)
    fig.suptitle("Fixed retry-out index, linux-none")
    fig.tight_layout()
    return fig


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    location = results["location"]
    yield (
        "rate-error",
        rate_error(location),
        "Study Fig. 5: MAC frame error rate against the run's average MAC data rate (no "
        "scheme); the paper's 0.05-0.2 shaded.",
    )
    yield (
        "ping-rtt",
        ping_rtt(location),
        "Study Fig. 6: mean ping RTT against average MAC data rate per station kind, (a) "
        "without and (b) with the AP's retry-out index.",
    )
    yield (
        "throughput",
        throughput(location),
        "Study Fig. 8: TCP throughput against average MAC data rate, without and with.",
    )
    yield (
        "cwnd",
        cwnd_over_time(location),
        "Study Figs. 11-12: linux-none's congestion window over time at about 16 Mbit/s, "
        "without and with the index. The paper's Linux caps it near 1000 segments; Tern's TCP "
        "keeps growing it while the 1000-segment send buffer bounds what is in flight (no "
        "cwnd validation, RFC 7661).",
    )
    yield (
        "fixed-index",
        fixed_index(results["fixed"]),
        "Study Figs. 16-17: mean ping RTT and TCP throughput with a fixed index 2, 5 or 8.",
    )
