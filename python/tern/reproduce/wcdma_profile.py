"""Figures of the wcdma-profile study (see scenarios/wcdma-profile/study.toml)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import duckdb
import matplotlib
import polars as pl

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

BUF = '"flows.download.transport.recv_buffer"'
LOSS = '"links.radio.rlc.pdu_loss.p"'
SIZE = '"flows.download.app.bytes"'
#: The two ends of the swept round trip (study.toml): (label, core delay, Internet delay).
ENDS = (
    ("shortest RTT (UE-GGSN 0.20 s, Internet 10 ms)", "30ms", "10ms"),
    ("longest RTT (UE-GGSN 0.50 s, Internet 100 ms)", "180ms", "100ms"),
)
AT_END = """"links.core.delay" = ? AND "links.internet.delay" = ?"""
STYLE = ("-", "--")


def _kb(size: str) -> float:
    return float(size.removesuffix("KB")) if size.endswith("KB") else float("nan")


def buffer(con: duckdb.DuckDBPyConnection, limit: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 6: throughput of a 1 MB download by PDU loss rate and receive buffer, at each end
    of the round trip."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    lim = limit.sql(
        f"""SELECT CAST({LOSS} AS DOUBLE) AS p, avg(goodput_bps) / 1e3 AS kbps
            FROM runs WHERE flow = 'download' GROUP BY p ORDER BY p"""
    ).pl()
    order = ["8460B", "16KiB", "32120B", "64KiB", "128KiB"]
    for ax, (label, core, inet) in zip(axes, ENDS, strict=True):
        rows = con.sql(
            f"""SELECT {BUF} AS buf, CAST({LOSS} AS DOUBLE) AS p,
                       avg(8e6 / tcp_transfer_time_s) / 1e3 AS kbps
                FROM runs WHERE flow = 'download' AND {AT_END} GROUP BY buf, p ORDER BY p""",
            params=[core, inet],
        ).pl()
        for i, buf in enumerate(b for b in order if b in set(rows["buf"])):
            part = rows.filter(rows["buf"] == buf)
            ax.plot(part["p"] * 100, part["kbps"], marker="o", color=f"C{i}", label=buf)
        ax.plot(lim["p"] * 100, lim["kbps"], "k--", label="RLC maximum (UDP flood)")
        ax.set_xlabel("PDU loss rate (%)")
        ax.set_title(label, fontsize=9)
    axes[0].set_ylabel("throughput (kbit/s)")
    axes[0].legend(fontsize=8, title="receive buffer")
    fig.suptitle("1 MB download over RLC AM, 384 kbit/s bearer")
    fig.tight_layout()
    return fig


def initial_window(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 7: transfer time by size and initial window, at each end of the round trip."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = {"rfc1122": "1 segment (RFC 1122)", "rfc2581": "2 (RFC 2581)", "rfc3390": "RFC 2414"}
    for (end, core, inet), style in zip(ENDS, STYLE, strict=True):
        rows = con.sql(
            f"""SELECT "flows.download.transport.initial_window" AS iw, {SIZE} AS size,
                       avg(tcp_transfer_time_s) AS t
                FROM runs WHERE flow = 'download' AND {AT_END} GROUP BY iw, size""",
            params=[core, inet],
        ).pl()
        for i, (iw, label) in enumerate(labels.items()):
            part = rows.filter(rows["iw"] == iw)
            pts = sorted(zip([_kb(s) for s in part["size"]], part["t"], strict=True))
            ax.plot(
                [p[0] for p in pts],
                [p[1] for p in pts],
                style,
                marker="o",
                color=f"C{i}",
                label=f"{label}, {end.split(' (')[0]}",
            )
    ax.set_xlabel("transfer size (KB)")
    ax.set_ylabel("transfer time (s)")
    ax.set_title("Initial window")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _series(con: duckdb.DuckDBPyConnection, sql: str, params: list[str]):
    return con.sql(sql, params=params).pl()


def mtu(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 8: data transferred against time by MTU (the receiver's cumulative ACK), and the
    sender's cwnd, at each end of the round trip."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for (end, core, inet), style in zip(ENDS, STYLE, strict=True):
        for i, m in enumerate(["1500B", "1000B", "576B", "256B"]):
            params = [m, core, inet]
            where = f"""r.flow = 'download' AND r."links.radio.mtu" = ? AND r.{AT_END}"""
            acks = _series(
                con,
                f"""SELECT s.time, s.ack FROM segments s JOIN runs r USING (key)
                    WHERE {where} AND s.endpoint = 'server' AND s.ack IS NOT NULL
                    ORDER BY s.time""",
                params,
            )
            label = f"{m}, {end.split(' (')[0]}"
            left.step(
                acks["time"], acks["ack"] / 1e3, style, where="post", color=f"C{i}", label=label
            )
            cwnd = _series(
                con,
                f"""SELECT c.time, c.cwnd FROM cwnd c JOIN runs r USING (key)
                    WHERE {where} AND c.endpoint = 'client' ORDER BY c.time""",
                params,
            )
            right.step(cwnd["time"], cwnd["cwnd"] / 1024, style, where="post", color=f"C{i}")
    left.set_xlabel("time (s)")
    left.set_ylabel("data acknowledged (KB)")
    left.set_title("Time-sequence by MTU (receiver's cumulative ACK)")
    left.legend(fontsize=7, title="MTU, round trip")
    right.axhline(64, color="grey", ls=":", label="receive window")
    right.set_xlabel("time (s)")
    right.set_ylabel("sender cwnd (KiB)")
    right.set_title("Slow start: cwnd until it meets the window")
    right.set_xlim(0, 15)
    fig.tight_layout()
    return fig


SACK_QUEUE = "10pkt"


def _sack_run(con: duckdb.DuckDBPyConnection, sack: str, core: str, inet: str):
    rows = con.execute(
        f"""SELECT key, tcp_transfer_time_s FROM runs WHERE flow = 'download'
            AND "links.core.queue.limit" = ? AND "flows.download.transport.sack" = ?
            AND {AT_END}""",
        [SACK_QUEUE, sack, core, inet],
    ).fetchall()
    return rows[0] if rows else None


def sack(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 9-12: time-sequence graphs (sequence number of each data segment sent against
    time) with and without SACK, GGSN buffer of 10 packets; left the whole transfer
    (Figs. 9, 10), right a zoom on the first losses (Figs. 11, 12); a row per round-trip end."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for row, (end, core, inet) in zip(axes, ENDS, strict=True):
        first_drop, shown = None, []
        for i, (on, label) in enumerate((("true", "SACK"), ("false", "no SACK (Reno)"))):
            run = _sack_run(con, on, core, inet)
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
        row[0].set_title(f"{end}: whole transfer", fontsize=9)
        row[1].set_title("zoom on the first losses (x: retransmissions)", fontsize=9)
        row[0].set_ylabel("sequence number (KB)")
    for ax in axes[1]:
        ax.set_xlabel("time (s)")
    axes[0][0].legend(fontsize=8, markerscale=4)
    fig.suptitle(f"1 MB download, GGSN buffer {SACK_QUEUE}; dotted: transfer done")
    fig.tight_layout()
    return fig


def sack_cwnd(con: duckdb.DuckDBPyConnection) -> Figure:
    """The sender's cwnd in the runs of `sack`, beside the time-sequence graphs."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, (end, core, inet) in zip(axes, ENDS, strict=True):
        for i, (on, label) in enumerate((("true", "SACK"), ("false", "no SACK (Reno)"))):
            run = _sack_run(con, on, core, inet)
            if run is None:
                continue
            c = con.sql(
                "SELECT time, cwnd FROM cwnd WHERE key = ? AND endpoint = 'client' ORDER BY time",
                params=[run[0]],
            ).pl()
            ax.step(c["time"], c["cwnd"] / 1024, where="post", color=f"C{i}", label=label)
        ax.set_title(end, fontsize=9)
        ax.set_xlabel("time (s)")
    axes[0].set_ylabel("sender cwnd (KiB)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def split(con: duckdb.DuckDBPyConnection) -> Figure:
    """The round trip's split (not in the paper): throughput of a 1 MB download by PDU loss
    rate, one line per per-PDU delay, with the RLC's settings following the RLC round trip
    (solid) or at their defaults (dashed); left 16 KiB, right 64 KiB of receive buffer, the
    longest UE-GGSN round trip (0.50 s, Internet 100 ms) throughout."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    rows = con.sql(
        f"""SELECT "links.radio.delay" AS pdu, "links.radio.rlc.timer_poll" AS poll, {BUF} AS buf,
                   CAST({LOSS} AS DOUBLE) AS p, avg(8e6 / tcp_transfer_time_s) / 1e3 AS kbps
            FROM runs WHERE flow = 'download' AND "links.internet.delay" = '100ms'
            GROUP BY ALL ORDER BY p"""
    ).pl()
    delays = sorted(set(rows["pdu"]), key=lambda d: float(d.removesuffix("ms")))
    for ax, buf in zip(axes, ("16KiB", "64KiB"), strict=True):
        for i, pdu in enumerate(delays):
            part = rows.filter((rows["pdu"] == pdu) & (rows["buf"] == buf))
            for poll in sorted(set(part["poll"])):
                fixed = poll == "200ms" and pdu != "40ms"
                line = part.filter(part["poll"] == poll)
                ax.plot(
                    line["p"] * 100,
                    line["kbps"],
                    "--" if fixed else "-",
                    marker="o",
                    color=f"C{i}",
                    label=f"{pdu} per PDU" + (", defaults" if fixed else ""),
                )
        ax.set_title(f"receive buffer {buf}", fontsize=9)
        ax.set_xlabel("PDU loss rate (%)")
    axes[0].set_ylabel("throughput (kbit/s)")
    axes[1].legend(fontsize=8)
    fig.suptitle("The same 0.50 s UE-GGSN round trip, split between per-PDU and per-packet delay")
    fig.tight_layout()
    return fig


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    yield (
        "buffer",
        buffer(results["buffer"], results["rlc-limit"]),
        "Study Fig. 6: throughput of a 1 MB download by PDU loss rate, one line per receive "
        "buffer, with the RLC's own maximum (a UDP flood) dashed; left and right the two "
        "ends of the swept round trip.",
    )
    yield (
        "initial-window",
        initial_window(results["iw"]),
        "Study Fig. 7: transfer time by size for three initial windows; solid the shortest "
        "round trip, dashed the longest.",
    )
    yield (
        "mtu",
        mtu(results["mtu"]),
        "Study Fig. 8: data transferred against time by MTU (the receiver's cumulative ACK of "
        "a 500 KB transfer, left) and the sender's cwnd (right); solid the shortest round "
        "trip, dashed the longest.",
    )
    yield (
        "sack",
        sack(results["sack"]),
        "Study Figs. 9-12: time-sequence graphs (sequence number of every data segment sent; "
        "x: retransmissions) with SACK and without (Reno), GGSN buffer of 10 packets; right, "
        "a zoom on the first losses; top the shortest round trip, bottom the longest.",
    )
    yield (
        "sack-cwnd",
        sack_cwnd(results["sack"]),
        "The sender's cwnd in the runs of the time-sequence graphs.",
    )
    yield (
        "split",
        split(results["split"]),
        "Not in the paper: the 0.50 s UE-GGSN round trip split between per-PDU delay (which "
        "also lengthens the RLC's own loop) and per-packet delay; solid with the RLC's timers "
        "and window following the RLC round trip, dashed with the defaults.",
    )
