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

ENABLED = '"wifi.wlan.retry_out.enabled"'
FIXED = '"wifi.wlan.retry_out.fixed"'
#: The station kinds of the `location` experiment (study.toml's linked columns), each with
#: the queue in front of its driver: the Linux kinds' qdisc (1000 packets), and for the OS
#: kinds, whose queue is not published, both swept values.
KINDS = (
    ("linux-none", "1000pkt"),
    ("linux-tsq", "1000pkt"),
    ("linux-codel", "1000pkt"),
    ("windows10", "128pkt"),
    ("windows10", "1000pkt"),
    ("macos1011", "128pkt"),
    ("macos1011", "1000pkt"),
)
#: The Linux kinds: the paper measured the send queue (Fig. 7) on these only.
LINUX = tuple(k for k in KINDS if k[0].startswith("linux"))
#: A run's kind from its linked settings (study.toml): CTCP is windows10, CUBIC with
#: beta 0.8 macos1011, then the qdisc and the TSQ limit (1 GB = raised, TSQ off).
KIND = """CASE WHEN "flows.upload.transport.cc" = 'ctcp' THEN 'windows10'
           WHEN "flows.upload.transport.cubic_beta" = '0.8' THEN 'macos1011'
           WHEN "wifi.wlan.qdisc.kind" = 'codel' THEN 'linux-codel'
           WHEN "flows.upload.transport.tsq" = '128KiB' THEN 'linux-tsq' ELSE 'linux-none' END"""
QUEUE = '"wifi.wlan.qdisc.limit"'


def _label(kind: str, queue: str) -> str:
    return kind if kind.startswith("linux") else f"{kind} ({queue.removesuffix('pkt')} pkt)"


def _marker(i: int) -> dict[str, str]:
    """Colour per kind; an OS kind's longer swept queue gets open squares."""
    kind, queue = KINDS[i]
    colour = {"linux-none": "C0", "linux-tsq": "C1", "linux-codel": "C2", "windows10": "C3"}
    style = {"color": colour.get(kind, "C4"), "marker": "o"}
    if not kind.startswith("linux") and queue == "1000pkt":
        style.update(marker="s", markerfacecolor="none")
    return style


#: The station's driver queue (upload.toml `queue`: ath9k's 123 frames), filled before its qdisc.
DRIVER_QUEUE = 123
#: Per run: average MAC data rate of the station's A-MPDUs (Mbit/s), MAC frame error rate,
#: and the station's mean send queue: its qdisc's backlog (what `tc -s qdisc` reports), the
#: part of the `queue` trace above the driver's queue, time-averaged.
PER_RUN = f"""
WITH w AS (SELECT key, avg(rate_mbps) AS mac_mbps, 1 - sum(acked) / sum(mpdus) AS fer
           FROM wifi WHERE kind = 'ampdu' AND "from" = 'sta' GROUP BY key),
     q AS (SELECT key, sum(greatest(packets - {DRIVER_QUEUE}, 0) * dt) / sum(dt) AS queue
           FROM (SELECT key, packets::DOUBLE AS packets,
                        lead(time) OVER (PARTITION BY key ORDER BY time) - time AS dt
                 FROM queue WHERE link = 'wlan-sta' AND direction = 'forward')
           WHERE dt IS NOT NULL GROUP BY key)
SELECT * FROM w JOIN q USING (key)
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
                   m.mac_mbps, m.fer, m.queue
            FROM runs r JOIN m USING (key) ORDER BY m.mac_mbps"""
    ).pl()


def rate_error(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 5: MAC frame error rate against average MAC data rate, no scheme."""
    rows = per_run(con, f"{KIND} AS kind, {QUEUE} AS queue, {ENABLED} AS scheme").filter(
        (pl.col("flow") == "upload") & (pl.col("scheme") == "false")
    )
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, (kind, queue) in enumerate(KINDS):
        part = rows.filter((pl.col("kind") == kind) & (pl.col("queue") == queue))
        ax.plot(part["mac_mbps"], part["fer"], ls="", **_marker(i), label=_label(kind, queue))
    ax.axhspan(0.05, 0.2, color="grey", alpha=0.15, label="paper: 0.05-0.2")
    _rate_axis(ax)
    ax.set_ylabel("MAC frame error rate")
    ax.set_title("Error rate vs. rate (SNR -> PER model, Minstrel-HT)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _by_scheme(
    con: duckdb.DuckDBPyConnection,
    flow: str,
    column: str,
    ylabel: str,
    kinds: tuple[tuple[str, str], ...] = KINDS,
) -> Figure:
    rows = per_run(con, f"{KIND} AS kind, {QUEUE} AS queue, {ENABLED} AS scheme").filter(
        pl.col("flow") == flow
    )
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    panels = (("false", "(a) without"), ("true", "(b) with"))
    for ax, (scheme, title) in zip(axes, panels, strict=True):
        for kind, queue in kinds:
            i = KINDS.index((kind, queue))
            part = rows.filter(
                (pl.col("kind") == kind) & (pl.col("queue") == queue) & (pl.col("scheme") == scheme)
            )
            ax.plot(part["mac_mbps"], part[column], ls="", **_marker(i), label=_label(kind, queue))
        _rate_axis(ax)
        ax.set_title(f"{title} the retry-out index")
        ax.legend(fontsize=8)
    axes[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def ping_rtt(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 6: mean ping RTT against average MAC data rate, without and with the scheme."""
    return _by_scheme(con, "ping", "rtt_ms", "mean ping RTT (ms)")


def send_queue(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 7: the Linux stations' mean send queue against average MAC data rate (the
    paper measured it on those only)."""
    return _by_scheme(con, "upload", "queue", "mean send queue (qdisc backlog, packets)", LINUX)


def throughput(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 8: TCP throughput against average MAC data rate, without and with the scheme."""
    return _by_scheme(con, "upload", "goodput_mbps", "TCP throughput (Mbit/s)")


#: Figs. 11-12: the farthest station of the quick and full grids (about 16 Mbit/s), seed 1.
LOW_RATE_POSITION = "[95, 0, 0]"


def _over_time(con: duckdb.DuckDBPyConnection, select: str, ylabel: str) -> Figure:
    """A time series per kind at the low rate, (a) without and (b) with the scheme; `select`
    gives `time` and `y` of one run (parameter `key`)."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    panels = (("false", "(a) without"), ("true", "(b) with"))
    for ax, (scheme, title) in zip(axes, panels, strict=True):
        for i, (kind, queue) in enumerate(KINDS):
            # Traces record changes only: each series is held to the run's last ping.
            runs = con.sql(
                f"""SELECT DISTINCT r.key, (SELECT max(t.time) FROM rtt t WHERE t.key = r.key)
                    FROM runs r WHERE r.seed = 1 AND r."nodes.sta.position" = ?
                      AND {KIND} = ? AND {QUEUE} = ? AND {ENABLED} = ?""",
                params=[LOW_RATE_POSITION, kind, queue, scheme],
            ).fetchall()
            if not runs:
                continue
            key, end = runs[0]
            s = con.sql(select, params=[key]).pl()
            if s.is_empty():
                continue
            times, ys = [*s["time"], max(end, s["time"][-1])], [*s["y"], s["y"][-1]]
            style = _marker(i)
            ax.step(
                times,
                ys,
                where="post",
                color=style["color"],
                ls="-" if style["marker"] == "o" else "--",
                lw=0.8,
                label=_label(kind, queue),
            )
        ax.set_xlabel("time (s)")
        ax.set_title(f"{title} the retry-out index")
        ax.legend(fontsize=8)
    axes[0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def rtt_over_time(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 9: the ping's RTT over time at a low rate, per kind, without and with."""
    return _over_time(
        con,
        """SELECT time, rtt * 1e3 AS y FROM rtt
           WHERE key = ? AND flow = 'ping' ORDER BY time""",
        "ping RTT (ms)",
    )


def cwnd_over_time(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 12: the upload's cwnd over time at a low rate, per kind, without and with."""
    return _over_time(
        con,
        """SELECT time, cwnd / 1448 AS y FROM cwnd
           WHERE key = ? AND flow = 'upload' AND endpoint = 'client' ORDER BY time""",
        "cwnd (segments of 1448 B)",
    )


def queue_over_time(con: duckdb.DuckDBPyConnection) -> Figure:
    """The station's send queue over time at a low rate, per kind, without and with."""
    return _over_time(
        con,
        """SELECT time, packets AS y FROM queue
           WHERE key = ? AND link = 'wlan-sta' AND direction = 'forward' ORDER BY time""",
        "packets queued in the station (qdisc + driver)",
    )


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
        "send-queue",
        send_queue(location),
        "Study Fig. 7: the station's mean send queue (its qdisc's backlog; ath9k's 123-frame "
        "driver queue comes on top) against average MAC data rate per kind, (a) without and "
        "(b) with the index.",
    )
    yield (
        "throughput",
        throughput(location),
        "Study Fig. 8: TCP throughput against average MAC data rate, without and with.",
    )
    yield (
        "ping-rtt-over-time",
        rtt_over_time(location),
        "Study Fig. 9: the ping's RTT over time at the lowest rate (about 12 Mbit/s; the "
        "paper's is 13.5), per kind, without and with the index.",
    )
    yield (
        "cwnd",
        cwnd_over_time(location),
        "Study Fig. 12: the upload's congestion window over time at the lowest rate, per "
        "kind, without and with the index. Linux 3.13's 4 MiB send buffer caps it at 963 "
        "segments (upload.toml).",
    )
    yield (
        "send-queue-over-time",
        queue_over_time(location),
        "The packets queued in the station over time at the lowest rate, per kind, without "
        "and with the index (the `queue` trace): ath9k's driver queue holds the first 123, "
        "the qdisc the rest.",
    )
    yield (
        "fixed-index",
        fixed_index(results["fixed"]),
        "Study Figs. 16-17: mean ping RTT and TCP throughput with a fixed index 2, 5 or 8.",
    )
