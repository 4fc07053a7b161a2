"""Figures of the wcdma-profile study (see scenarios/wcdma-profile/study.toml), drawn at the
study's primary condition: each experiment's connection holds only the runs of that
condition, so no figure filters on the round trip."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import matplotlib
import polars as pl

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

BUF = '"flows.download.transport.recv_buffer"'
LOSS = '"links.radio.rlc.pdu_loss.p"'
SIZE = '"flows.download.app.bytes"'
MTUS = ("1500B", "1000B", "576B", "256B")
#: The seed whose runs the time-sequence figures show (the sack and mtu experiments have no
#: random element: every seed gives the same runs).
SEED = 1


def condition(primary: dict[str, str]) -> str:
    """The primary condition's round trip, as the captions name it."""
    return (
        f"core {primary['links.core.delay']}, Internet {primary['links.internet.delay']}, "
        f"per-PDU {primary['links.radio.delay']} one way"
    )


def _kb(size: str) -> float:
    return float(size.removesuffix("KB")) if size.endswith("KB") else float("nan")


def buffer(con: duckdb.DuckDBPyConnection, limit: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 6: throughput of a 1 MB download by PDU loss rate and receive buffer (mean over
    seeds), with the RLC's own maximum."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    lim = limit.sql(
        f"""SELECT CAST({LOSS} AS DOUBLE) AS p, avg(goodput_bps) / 1e3 AS kbps
            FROM runs WHERE flow = 'download' GROUP BY p ORDER BY p"""
    ).pl()
    rows = con.sql(
        f"""SELECT {BUF} AS buf, CAST({LOSS} AS DOUBLE) AS p,
                   avg(8e6 / tcp_transfer_time_s) / 1e3 AS kbps
            FROM runs WHERE flow = 'download' GROUP BY buf, p ORDER BY p"""
    ).pl()
    order = ["8460B", "16KiB", "32120B", "64KiB", "128KiB"]
    for i, buf in enumerate(b for b in order if b in set(rows["buf"])):
        part = rows.filter(rows["buf"] == buf)
        ax.plot(part["p"] * 100, part["kbps"], marker="o", color=f"C{i}", label=buf)
    ax.plot(lim["p"] * 100, lim["kbps"], "k--", label="RLC maximum (UDP flood)")
    ax.set_xlabel("PDU loss rate (%)")
    ax.set_ylabel("throughput (kbit/s)")
    ax.legend(fontsize=8, title="receive buffer")
    ax.set_title("1 MB download over RLC AM, 384 kbit/s bearer")
    fig.tight_layout()
    return fig


def initial_window(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 7: transfer time by size and initial window."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = {"rfc1122": "1 segment (RFC 1122)", "rfc2581": "2 (RFC 2581)", "rfc3390": "RFC 2414"}
    rows = con.sql(
        f"""SELECT "flows.download.transport.initial_window" AS iw, {SIZE} AS size,
                   avg(tcp_transfer_time_s) AS t
            FROM runs WHERE flow = 'download' GROUP BY iw, size"""
    ).pl()
    for i, (iw, label) in enumerate(labels.items()):
        part = rows.filter(rows["iw"] == iw)
        pts = sorted(zip([_kb(s) for s in part["size"]], part["t"], strict=True))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=f"C{i}", label=label)
    ax.set_xlabel("transfer size (KB)")
    ax.set_ylabel("transfer time (s)")
    ax.set_title("Initial window")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def mtu(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 8: data transferred against time by MTU (the receiver's cumulative ACK), and the
    sender's cwnd."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for i, m in enumerate(MTUS):
        where = """r.flow = 'download' AND r."links.radio.mtu" = ? AND r.seed = ?"""
        acks = con.sql(
            f"""SELECT s.time, s.ack FROM segments s JOIN runs r USING (key)
                WHERE {where} AND s.endpoint = 'server' AND s.ack IS NOT NULL ORDER BY s.time""",
            params=[m, SEED],
        ).pl()
        left.step(acks["time"], acks["ack"] / 1e3, where="post", color=f"C{i}", label=m)
        cwnd = con.sql(
            f"""SELECT c.time, c.cwnd FROM cwnd c JOIN runs r USING (key)
                WHERE {where} AND c.endpoint = 'client' ORDER BY c.time""",
            params=[m, SEED],
        ).pl()
        right.step(cwnd["time"], cwnd["cwnd"] / 1024, where="post", color=f"C{i}", label=m)
    left.set_xlabel("time (s)")
    left.set_ylabel("data acknowledged (KB)")
    left.set_title("Time-sequence by MTU (receiver's cumulative ACK)")
    left.legend(fontsize=8, title="MTU")
    right.axhline(64, color="grey", ls=":", label="receive window")
    right.axvline(10, color="grey", ls="--", lw=1)
    right.set_xlabel("time (s)")
    right.set_ylabel("sender cwnd (KiB)")
    right.set_title("Slow start: cwnd until it meets the window")
    right.set_xlim(0, 15)
    fig.tight_layout()
    return fig


def _sack_run(con: duckdb.DuckDBPyConnection, sack: str) -> tuple[str, float] | None:
    rows = con.execute(
        """SELECT key, tcp_transfer_time_s FROM runs WHERE flow = 'download'
           AND "flows.download.transport.sack" = ? AND seed = ? ORDER BY key""",
        [sack, SEED],
    ).fetchall()
    return rows[0] if rows else None


def sack(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 9-12: time-sequence graphs (sequence number of each data segment sent against
    time) with and without SACK; left the whole transfer (Figs. 9, 10), right a zoom on the
    first losses (Figs. 11, 12)."""
    fig, row = plt.subplots(1, 2, figsize=(11, 4.5))
    first_drop, shown = None, []
    for i, (on, label) in enumerate((("true", "SACK"), ("false", "no SACK (Reno)"))):
        run = _sack_run(con, on)
        if run is None:
            continue
        key, done = run
        segs = con.sql(
            """SELECT time, seq, retransmission FROM segments
               WHERE key = ? AND endpoint = 'client' AND len > 0 ORDER BY time""",
            params=[key],
        ).pl()
        drop = con.execute(
            "SELECT min(time) FROM drops WHERE key = ? AND link = 'core'", [key]
        ).fetchall()[0][0]
        if drop is not None:
            first_drop = drop if first_drop is None else min(first_drop, drop)
        shown.append(segs)
        new = segs.filter(segs["retransmission"] == 0)
        old = segs.filter(segs["retransmission"] == 1)
        for ax in row:
            ax.plot(new["time"], new["seq"] / 1e3, ".", ms=2, color=f"C{i}", label=label)
            ax.plot(old["time"], old["seq"] / 1e3, "x", ms=6, color=f"C{i}")
            ax.axvline(done, color=f"C{i}", ls=":", lw=1)
    if first_drop is not None:
        lo, hi = first_drop - 1, first_drop + 6
        near = pl.concat(shown).filter(pl.col("time").is_between(lo, hi))["seq"] / 1e3
        row[1].set_xlim(lo, hi)
        row[1].set_ylim(near.min() - 5, near.max() + 5)
    row[0].set_title("whole transfer", fontsize=9)
    row[1].set_title("zoom on the first losses (x: retransmissions)", fontsize=9)
    row[0].set_ylabel("sequence number (KB)")
    for ax in row:
        ax.set_xlabel("time (s)")
    row[0].legend(fontsize=8, markerscale=4)
    fig.suptitle("1 MB download, limited GGSN buffer; dotted: transfer done")
    fig.tight_layout()
    return fig


def sack_cwnd(con: duckdb.DuckDBPyConnection) -> Figure:
    """The sender's cwnd in the runs of `sack`, beside the time-sequence graphs."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (on, label) in enumerate((("true", "SACK"), ("false", "no SACK (Reno)"))):
        run = _sack_run(con, on)
        if run is None:
            continue
        c = con.sql(
            "SELECT time, cwnd FROM cwnd WHERE key = ? AND endpoint = 'client' ORDER BY time",
            params=[run[0]],
        ).pl()
        ax.step(c["time"], c["cwnd"] / 1024, where="post", color=f"C{i}", label=label)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sender cwnd (KiB)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def first_loss(con: duckdb.DuckDBPyConnection) -> Figure:
    """The cause experiment: the first GGSN drop by buffer size, against the time slow
    start's cwnd reaches the 64 KB window."""
    fig, ax = plt.subplots(figsize=(7, 4))
    rows = con.sql(
        """SELECT CAST(regexp_extract(r."links.core.queue.limit", '[0-9]+') AS INT) AS q,
                  (SELECT min(d.time) FROM drops d WHERE d.key = r.key AND d.link = 'core') AS drop,
                  (SELECT min(c.time) FROM cwnd c WHERE c.key = r.key AND c.endpoint = 'client'
                     AND c.cwnd >= 65536) AS window
           FROM runs r WHERE r.flow = 'download' AND r.seed = ? ORDER BY q""",
        params=[SEED],
    ).pl()
    dropped = rows.filter(pl.col("drop").is_not_null())
    ax.plot(dropped["q"], dropped["drop"], "o-", label="first GGSN drop")
    ax.plot(rows["q"], rows["window"], "s--", label="cwnd reaches the 64 KB window")
    ax.axhspan(5, 15, color="grey", alpha=0.15, label="paper: near 10 s (±5 s)")
    ax.set_xlabel("GGSN buffer (packets)")
    ax.set_ylabel("time (s)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figures(results) -> Iterator[tuple[str, Figure, str]]:
    at = condition(results.primary)
    yield (
        "buffer",
        buffer(results["buffer"], results["rlc-limit"]),
        f"Study Fig. 6 ({at}; mean over seeds): throughput of a 1 MB download by PDU loss "
        "rate, one line per receive buffer, with the RLC's own maximum (a UDP flood) dashed.",
    )
    yield (
        "initial-window",
        initial_window(results["iw"]),
        f"Study Fig. 7 ({at}, no loss): transfer time by size for three initial windows.",
    )
    yield (
        "mtu",
        mtu(results["mtu"]),
        f"Study Fig. 8 ({at}, no loss, seed {SEED}): data transferred against time by MTU "
        "(the receiver's cumulative ACK of a 500 KB transfer, left) and the sender's cwnd "
        "(right; dashed: 10 s).",
    )
    yield (
        "sack",
        sack(results["sack"]),
        f"Study Figs. 9-12 ({at}, GGSN buffer of the sack experiment's primary condition, "
        f"seed {SEED}): time-sequence graphs (sequence number of every data segment sent; "
        "x: retransmissions) with SACK and without (Reno); right, a zoom on the first losses.",
    )
    yield (
        "sack-cwnd",
        sack_cwnd(results["sack"]),
        f"The sender's cwnd in the runs of the time-sequence graphs ({at}, seed {SEED}).",
    )
    yield (
        "first-loss",
        first_loss(results["first-loss-bound"]),
        f"Cause of sack-first-loss-near-10s ({at}, SACK, seed {SEED}): the first GGSN drop "
        "by buffer size comes no later than slow start's cwnd reaching the 64 KB window; a "
        "buffer that holds the window's excess over the pipe drops nothing.",
    )
