"""Figures of the mpquic-rssi study (see scenarios/mpquic-rssi/study.toml).

A variant is a value of the swept key `flows.get.transport.rssi_scheduler` (`VARIANTS`). The
client's receive rate over time is the response bytes its application read (the `delay`
trace of the GET, one row per read) in bins of `BIN_S`; the RSSI is the `rssi` trace (one
sample per beacon); the scheduler's class changes are the `path_status` trace.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import duckdb
import matplotlib
import polars as pl

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

SCHEDULER = '"flows.get.transport.rssi_scheduler"'
#: The paper's four variants (§4.1) by their value of the scheduler's table in study.toml.
VARIANTS = {
    '{ t1 = -90, t2 = -90, abandon_below = -91, station = "radio" }': "normal migration",
    '{ t1 = -75, t2 = -75, abandon_below = -91, station = "radio" }': "early migration",
    '{ t1 = -75, t2 = -90, enabled = false, station = "radio" }': "plain MPQUIC",
    '{ t1 = -75, t2 = -90, abandon_below = -91, station = "radio" }': "proposed",
}
#: Bin of the receive-rate curves (s).
BIN_S = 0.5
#: Shading of the scheduler's classes: Wi-Fi only, both paths, cellular only.
CLASS_COLOURS = {"strong": "#d8ecd8", "middle": "#fbeccb", "weak": "#f6d5d5"}

#: The walk of walk.toml (study §4.1): 1 m from the AP for 3 s, then away at 10 m/s.
START_M, PAUSE_S, SPEED_M_S = 1.0, 3.0, 10.0
#: Mininet-WiFi's tc shaping of a mobile station's wireless link (mn_wifi/link.py, the tc
#: link class's eqBw and eqLatency): the mode's custom rate times 1.01^-d Mbit/s, where the
#: rate of mode g is 11 Mbit/s (mn_wifi/link.py, IntfWireless.getCustomRate),
#: and a latency of d/10/2 ms, d the station's distance to the AP in metres.
MODE_G_RATE_MBPS = 11.0
#: walk.toml's sim.duration (s): a download not complete by then counts as this long (a lower
#: bound on its completion time), as in the claims.
DURATION_S = 80.0
#: The step of walk.toml's schedule of those settings on the station's link `wlan` (s).
TC_STEP_S = 0.5


def distance_at(t: float) -> float:
    """The client's distance from the AP at time `t` (s), in metres."""
    return START_M + SPEED_M_S * max(0.0, t - PAUSE_S)


def mininet_tc(d: float) -> tuple[float, float]:
    """Mininet-WiFi's tc rate (Mbit/s) and latency (ms) of the wireless link at `d` m."""
    return MODE_G_RATE_MBPS * 1.01**-d, d / 10 / 2


#: Per run: the cellular share of the bytes the client received and the completion time.
PER_RUN = f"""
SELECT key, seed, {SCHEDULER} AS variant, "links.cell.rate" AS rate, "links.cell.delay" AS delay,
       quic_paths_cell_udp_bytes_received
         / (quic_paths_cell_udp_bytes_received + quic_paths_wlan_udp_bytes_received) AS share,
       coalesce(quic_transfer_time_s, {DURATION_S}) AS t
FROM runs WHERE flow = 'get'
"""


def _first_condition(con: duckdb.DuckDBPyConnection) -> tuple[str, str]:
    """The (cellular rate, delay) the time-series figure shows: the first of the grid."""
    row = (
        con.sql(
            f"""SELECT rate, delay FROM ({PER_RUN})
            ORDER BY CAST(rtrim(rate, 'Mbps') AS INT), CAST(rtrim(delay, 'ms') AS INT) LIMIT 1"""
        )
        .limit(1)
        .fetchall()
    )
    assert row, "no runs"
    return row[0][0], row[0][1]


def receive_rate(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 3: the client's receive rate over time per variant, with the RSSI and the
    scheduler's class (seed 1, the first cellular condition)."""
    rate, delay = _first_condition(con)
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(8, 9), sharex=True)
    for ax, (value, label) in zip(axes, VARIANTS.items(), strict=True):
        key = (
            con.sql(
                f"""SELECT key FROM ({PER_RUN})
                WHERE seed = 1 AND variant = ? AND rate = ? AND delay = ?""",
                params=[value, rate, delay],
            )
            .limit(1)
            .fetchall()
        )
        if not key:
            continue
        run = key[0][0]
        bins = con.sql(
            f"""SELECT floor(time / {BIN_S}) * {BIN_S} AS t, sum(size) * 8 / 1e6 / {BIN_S} AS mbps
                FROM delay WHERE key = ? AND flow = 'get' GROUP BY ALL ORDER BY t""",
            params=[run],
        ).pl()
        end = con.sql(f"SELECT t FROM ({PER_RUN}) WHERE key = ?", params=[run]).limit(1).fetchall()
        changes = con.sql(
            "SELECT time, new_class FROM path_status WHERE key = ? ORDER BY time", params=[run]
        ).pl()
        stop = end[0][0] if end and end[0][0] is not None else float(bins["t"].max() or 0) + BIN_S
        times = [*changes["time"].to_list(), stop]
        for i, cls in enumerate(changes["new_class"].to_list()):
            if times[i] < stop:
                ax.axvspan(times[i], min(times[i + 1], stop), color=CLASS_COLOURS[cls], lw=0)
        # The client abandons the Wi-Fi path (abandon_below): from there the stall lasts until
        # the server's stack drops the path, 3 PTO later (README.md, "the stall").
        abandoned = (
            con.sql(
                "SELECT min(time) FROM path_status WHERE key = ? AND wifi_new = 'abandoned'",
                params=[run],
            )
            .limit(1)
            .fetchall()
        )
        if abandoned and abandoned[0][0] is not None and abandoned[0][0] < stop:
            ax.axvline(abandoned[0][0], color="k", ls="--", lw=0.8)
        ax.step(bins["t"], bins["mbps"], where="post", color="C0")
        ax.set_ylim(bottom=0)
        ax.set_ylabel("Mbit/s")
        ax.set_title(label, fontsize=9)
        rssi = con.sql(
            "SELECT time, rssi_dbm FROM rssi WHERE key = ? AND time <= ? ORDER BY time",
            params=[run, stop],
        ).pl()
        right = ax.twinx()
        right.plot(rssi["time"], rssi["rssi_dbm"], color="C3", lw=0.8)
        right.set_ylabel("RSSI (dBm)", color="C3")
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(
        f"Receive rate ({BIN_S} s bins) and Wi-Fi RSSI; cellular {rate}, {delay} one way.\n"
        "Shading: Wi-Fi only (green), both (yellow), cellular only (red); "
        "dashed: Wi-Fi path abandoned",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def shares_and_times(con: duckdb.DuckDBPyConnection) -> Figure:
    """Fig. 2: cellular share and completion time per variant, one panel per condition."""
    rows = con.sql(
        f"""SELECT variant, rate, delay, avg(share) AS share,
                   avg(t) AS t, min(t) AS lo, max(t) AS hi
            FROM ({PER_RUN}) GROUP BY variant, rate, delay
            ORDER BY CAST(rtrim(rate, 'Mbps') AS INT), CAST(rtrim(delay, 'ms') AS INT)"""
    ).pl()
    conditions = rows.select("rate", "delay").unique(maintain_order=True).rows()
    fig, axes = plt.subplots(1, len(conditions), figsize=(3.2 * len(conditions), 4), squeeze=False)
    labels = list(VARIANTS.values())
    for ax, (rate, delay) in zip(axes[0], conditions, strict=True):
        part = rows.filter((pl.col("rate") == rate) & (pl.col("delay") == delay))
        by = {r["variant"]: r for r in part.iter_rows(named=True)}
        xs = range(len(VARIANTS))
        ax.bar(xs, [100 * by[v]["share"] if v in by else 0 for v in VARIANTS], color="C1")
        ax.set_ylabel("bytes on the cellular path (%)", color="C1")
        ax.set_xticks(list(xs), labels, rotation=30, ha="right", fontsize=8)
        right = ax.twinx()
        for x, v in zip(xs, VARIANTS, strict=True):
            if v in by and by[v]["t"] is not None:
                r = by[v]
                right.errorbar(
                    x, r["t"], yerr=[[r["t"] - r["lo"]], [r["hi"] - r["t"]]], fmt="o", color="k"
                )
        right.set_ylabel("completion time (s; mean, min-max)")
        right.set_ylim(bottom=0)
        ax.set_title(f"cellular {rate}, {delay}", fontsize=9)
    fig.tight_layout()
    return fig


def thresholds(con: duckdb.DuckDBPyConnection) -> Figure:
    """Beyond the study: cellular share against completion time over the T1/T2 grid."""
    rows = con.sql(
        f"""SELECT "flows.get.transport.rssi_scheduler.t1" AS t1,
                  "flows.get.transport.rssi_scheduler.t2" AS t2,
                  avg(quic_paths_cell_udp_bytes_received
                      / (quic_paths_cell_udp_bytes_received + quic_paths_wlan_udp_bytes_received))
                    AS share,
                  avg(coalesce(quic_transfer_time_s, {DURATION_S})) AS t
           FROM runs WHERE flow = 'get' GROUP BY ALL ORDER BY t1, t2"""
    ).pl()
    fig, ax = plt.subplots(figsize=(6, 4))
    for i, t2 in enumerate(sorted(set(rows["t2"]), key=float)):
        part = rows.filter(pl.col("t2") == t2)
        ax.plot(part["t"], 100 * part["share"], "o-", color=f"C{i}", label=f"T2 = {t2} dBm")
        for r in part.iter_rows(named=True):
            ax.annotate(f"T1 {r['t1']}", (r["t"], 100 * r["share"]), fontsize=7)
    ax.set_xlabel(f"completion time (s, mean over seeds; not complete: {DURATION_S:g} s)")
    ax.set_ylabel("bytes on the cellular path (%)")
    ax.set_title("Threshold grid: cellular share vs completion time")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


#: Bytes of a window as the `windows` experiment writes it ("512KiB", "1250000B", "6MiB").
_UNIT_BYTES = {"KiB": 1 << 10, "MiB": 1 << 20, "B": 1}


def _window_bytes(text: str) -> int:
    for unit, scale in _UNIT_BYTES.items():
        if text.endswith(unit):
            return int(text.removesuffix(unit)) * scale
    raise ValueError(f"not a window size: {text!r}")


def windows(con: duckdb.DuckDBPyConnection) -> Figure:
    """Beyond the study: each variant's cellular share and completion time against the
    stream's flow-control window (the `windows` experiment)."""
    rows = con.sql(
        f"""SELECT {SCHEDULER} AS variant, "flows.get.transport.stream_window" AS window,
                  avg(quic_paths_cell_udp_bytes_received
                      / (quic_paths_cell_udp_bytes_received + quic_paths_wlan_udp_bytes_received))
                    AS share,
                  avg(coalesce(quic_transfer_time_s, {DURATION_S})) AS t
           FROM runs WHERE flow = 'get' GROUP BY ALL"""
    ).pl()
    sizes = sorted(set(rows["window"]), key=_window_bytes)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    for i, (value, label) in enumerate(VARIANTS.items()):
        by = {r["window"]: r for r in rows.filter(pl.col("variant") == value).iter_rows(named=True)}
        xs = [k for k, w in enumerate(sizes) if w in by]
        left.plot(xs, [100 * by[sizes[k]]["share"] for k in xs], "o-", color=f"C{i}", label=label)
        right.plot(xs, [by[sizes[k]]["t"] for k in xs], "o-", color=f"C{i}", label=label)
    for ax in (left, right):
        ax.set_xticks(
            range(len(sizes)),
            [w if w[-3:] in ("KiB", "MiB") else f"{_window_bytes(w) / 1e6:g} MB" for w in sizes],
        )
        ax.set_xlabel("stream flow-control window")
    left.set_ylabel("bytes on the cellular path (%)")
    right.set_ylabel(f"completion time (s; not complete: {DURATION_S:g} s)")
    right.set_ylim(bottom=0)
    left.legend(fontsize=8)
    fig.suptitle("The stream window the paper does not give (mean over seeds)", fontsize=9)
    fig.tight_layout()
    return fig


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    variants = results["variants"]
    yield (
        "shares-and-times",
        shares_and_times(variants),
        "Study Fig. 2: share of the bytes received on the cellular (TC) path and completion "
        "time per variant, one panel per swept cellular condition (rate, one-way delay).",
    )
    yield (
        "receive-rate",
        receive_rate(variants),
        "Study Fig. 3: the client's receive rate over time per variant (seed 1), with the "
        "Wi-Fi RSSI and the scheduler's class (plain MPQUIC has no class: both paths "
        "available throughout); the dashed line is the client's PATH_ABANDON of the Wi-Fi "
        "path. What the station's shaping queue (after the radio) holds then still drains "
        "to the client.",
    )
    yield (
        "thresholds",
        thresholds(results["thresholds"]),
        "Beyond the study: the cellular share against the completion time for a grid of T1 and T2.",
    )
    yield (
        "windows",
        windows(results["windows"]),
        "Beyond the study: each variant's cellular share and completion time against the "
        "stream's flow-control window, which the paper's unnamed MPQUIC stack does not give "
        "(noq-proto's default 1.25 MB; quic-go's initial 512 KiB and auto-tuned ceiling "
        "6 MiB).",
    )
