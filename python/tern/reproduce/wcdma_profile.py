"""Figures of the wcdma-profile study (see scenarios/wcdma-profile/study.toml)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

BUF = '"flows.download.transport.recv_buffer"'
LOSS = '"links.radio.rlc.pdu_loss.p"'
SIZE = '"flows.download.app.bytes"'


def _kb(size: str) -> float:
    return float(size.removesuffix("KB")) if size.endswith("KB") else float("nan")


def buffer(con: duckdb.DuckDBPyConnection, limit: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 6: throughput of a 1 MB download by PDU loss rate and receive buffer."""
    rows = con.sql(
        f"""SELECT {BUF} AS buf, CAST({LOSS} AS DOUBLE) AS p,
                   avg(8e6 / tcp_transfer_time_s) / 1e3 AS kbps
            FROM runs WHERE flow = 'download' GROUP BY buf, p ORDER BY p"""
    ).pl()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    order = ["8460B", "16KiB", "32120B", "64KiB", "128KiB"]
    for i, buf in enumerate(b for b in order if b in set(rows["buf"])):
        part = rows.filter(rows["buf"] == buf)
        ax.plot(part["p"] * 100, part["kbps"], marker="o", color=f"C{i}", label=buf)
    lim = limit.sql(
        f"""SELECT CAST({LOSS} AS DOUBLE) AS p, avg(goodput_bps) / 1e3 AS kbps
            FROM runs WHERE flow = 'download' GROUP BY p ORDER BY p"""
    ).pl()
    ax.plot(lim["p"] * 100, lim["kbps"], "k--", label="RLC maximum (UDP flood)")
    ax.set_xlabel("PDU loss rate (%)")
    ax.set_ylabel("throughput (kbit/s)")
    ax.set_title("1 MB download over RLC AM, 384 kbit/s bearer")
    ax.legend(fontsize=8, title="receive buffer")
    fig.tight_layout()
    return fig


def _size_time(con: duckdb.DuckDBPyConnection, by: str):
    return con.sql(
        f"""SELECT {by} AS series, {SIZE} AS size, avg(tcp_transfer_time_s) AS t
            FROM runs WHERE flow = 'download' GROUP BY series, size"""
    ).pl()


def initial_window(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 7: transfer time by size and initial window."""
    rows = _size_time(con, '"flows.download.transport.initial_window"')
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = {"rfc1122": "1 segment (RFC 1122)", "rfc2581": "2 (RFC 2581)", "rfc3390": "RFC 2414"}
    for iw, label in labels.items():
        part = rows.filter(rows["series"] == iw)
        sizes = [_kb(s) for s in part["size"]]
        pts = sorted(zip(sizes, part["t"], strict=True))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    ax.set_xlabel("transfer size (KB)")
    ax.set_ylabel("transfer time (s)")
    ax.set_title("Initial window")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def mtu(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 8: data transferred against time by MTU, and the sender's cwnd."""
    rows = _size_time(con, '"links.radio.mtu"')
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.5))
    for i, m in enumerate(["1500B", "1000B", "576B", "256B"]):
        part = rows.filter(rows["series"] == m)
        pts = sorted((t, _kb(s)) for s, t in zip(part["size"], part["t"], strict=True))
        left.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=f"C{i}", label=m)
        cwnd = con.sql(
            f"""SELECT c.time, c.cwnd FROM cwnd c JOIN runs r USING (key)
                WHERE r.flow = 'download' AND c.endpoint = 'client' AND r."links.radio.mtu" = ?
                  AND r.{SIZE} = (SELECT max_by({SIZE}, tcp_transfer_time_s) FROM runs)
                ORDER BY c.time""",
            params=[m],
        ).pl()
        right.step(cwnd["time"], cwnd["cwnd"] / 1024, where="post", color=f"C{i}", label=m)
    left.set_xlabel("time (s)")
    left.set_ylabel("data transferred (KB)")
    left.set_title("Time-sequence by MTU")
    left.legend(fontsize=8, title="MTU")
    right.axhline(64, color="grey", ls=":", label="receive window")
    right.set_xlabel("time (s)")
    right.set_ylabel("sender cwnd (KiB)")
    right.set_title("Slow start: cwnd until it meets the window")
    right.set_xlim(0, 15)
    fig.tight_layout()
    return fig


def sack(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 9-12: cwnd and retransmissions with and without SACK, limited GGSN buffer."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, (on, label) in enumerate((("true", "SACK"), ("false", "no SACK (NewReno)"))):
        key = con.sql(
            """SELECT key, tcp_transfer_time_s FROM runs WHERE flow = 'download'
               AND "flows.download.transport.sack" = ? ORDER BY "links.core.queue.limit" LIMIT 1""",
            params=[on],
        ).fetchall()
        if not key:
            continue
        k, done = key[0]
        c = con.sql(
            "SELECT time, cwnd FROM cwnd WHERE key = ? AND endpoint = 'client' ORDER BY time",
            params=[k],
        ).pl()
        ax.step(c["time"], c["cwnd"] / 1024, where="post", color=f"C{i}", label=label)
        rt = con.sql(
            "SELECT time FROM retransmits WHERE key = ? AND kind != 'rto_expiry'", params=[k]
        ).pl()
        ax.plot(rt["time"], [0.5] * rt.height, "|", color=f"C{i}", ms=12)
        ax.axvline(done, color=f"C{i}", ls=":", lw=1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sender cwnd (KiB); ticks: retransmissions; dotted: done")
    ax.set_title("1 MB download with a limited GGSN buffer")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    yield (
        "buffer",
        buffer(results["buffer"], results["rlc-limit"]),
        "Study Fig. 6: throughput of a 1 MB download by PDU loss rate, one line per receive "
        "buffer, with the RLC's own maximum (a UDP flood) dashed.",
    )
    yield (
        "initial-window",
        initial_window(results["iw"]),
        "Study Fig. 7: transfer time by size for three initial windows.",
    )
    yield (
        "mtu",
        mtu(results["mtu"]),
        "Study Fig. 8: data transferred against time by MTU (left) and the sender's cwnd of "
        "the largest transfer (right).",
    )
    yield (
        "sack",
        sack(results["sack"]),
        "Study Figs. 9-12: the sender's cwnd and retransmissions with and without SACK, "
        "smallest GGSN buffer.",
    )
