"""Figures of the mpquic-rssi study (see scenarios/mpquic-rssi/study.toml).

A variant is a value of the swept key `flows.get.transport.rssi_scheduler` (`VARIANTS`). The
client's receive rate over time is the response bytes its application read (the `delay`
trace of the GET, one row per read) in bins of `BIN_S`; the RSSI is the `rssi` trace (one
sample per beacon); the scheduler's class changes are the `path_status` trace.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

import duckdb
import matplotlib
import polars as pl

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from tern.reproduce import Results

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
SELECT key, seed, {SCHEDULER} AS variant,
       quic_paths_cell_udp_bytes_received
         / (quic_paths_cell_udp_bytes_received + quic_paths_wlan_udp_bytes_received) AS share,
       coalesce(quic_transfer_time_s, {DURATION_S}) AS t
FROM runs WHERE flow = 'get'
"""

#: The seed whose runs the receive-rate figure shows.
FIGURE_SEED = 1


def condition(primary: Mapping[str, str]) -> str:
    """The primary condition's cellular link and stream window, as the captions name them."""
    rate = primary.get("links.cell.rate", "?")
    delay = primary.get("links.cell.delay", "?")
    window = primary.get("flows.get.transport.stream_window", "?")
    return f"cellular {rate}, {delay} one way; stream window {window}"


def receive_rate(con: duckdb.DuckDBPyConnection, where: str, seed: int = FIGURE_SEED) -> Figure:
    """Fig. 3: the client's receive rate over time per variant, with the RSSI and the
    scheduler's class (one seed, chosen by the caller)."""
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(8, 9), sharex=True)
    for ax, (value, label) in zip(axes, VARIANTS.items(), strict=True):
        found = con.sql(
            f"SELECT key, t FROM ({PER_RUN}) WHERE seed = ? AND variant = ? ORDER BY key",
            params=[seed, value],
        ).fetchall()
        if not found:
            continue
        run, stop = found[0]
        bins = con.sql(
            f"""SELECT floor(time / {BIN_S}) * {BIN_S} AS t, sum(size) * 8 / 1e6 / {BIN_S} AS mbps
                FROM delay WHERE key = ? AND flow = 'get' GROUP BY ALL ORDER BY t""",
            params=[run],
        ).pl()
        changes = con.sql(
            "SELECT time, new_class FROM path_status WHERE key = ? ORDER BY time", params=[run]
        ).pl()
        times = [*changes["time"].to_list(), stop]
        for i, cls in enumerate(changes["new_class"].to_list()):
            if times[i] < stop:
                ax.axvspan(times[i], min(times[i + 1], stop), color=CLASS_COLOURS[cls], lw=0)
        # The client abandons the Wi-Fi path (abandon_below); what the station's shaping
        # queue holds then still drains to the client (README.md).
        abandoned = con.sql(
            "SELECT min(time) FROM path_status WHERE key = ? AND wifi_new = 'abandoned'",
            params=[run],
        ).fetchall()
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
        f"Receive rate ({BIN_S} s bins) and Wi-Fi RSSI, seed {seed}; {where}.\n"
        "Shading: Wi-Fi only (green), both (yellow), cellular only (red); "
        "dashed: Wi-Fi path abandoned",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def shares_and_times(con: duckdb.DuckDBPyConnection, where: str) -> Figure:
    """Fig. 2: cellular share and completion time per variant, every seed a dot and the
    median a bar, so that seed-dependent runs show."""
    rows = con.sql(f"SELECT variant, seed, share, t FROM ({PER_RUN}) ORDER BY variant, seed").pl()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
    xs = list(range(len(VARIANTS)))
    for x, value in zip(xs, VARIANTS, strict=True):
        part = rows.filter(pl.col("variant") == value)
        if part.is_empty():
            continue
        spread = [x + 0.3 * (i / max(1, part.height - 1) - 0.5) for i in range(part.height)]
        left.bar(x, 100 * float(part["share"].median()), color="C1", alpha=0.5)
        left.plot(spread, 100 * part["share"], "k.", ms=4)
        right.bar(x, float(part["t"].median()), color="C0", alpha=0.5)
        right.plot(spread, part["t"], "k.", ms=4)
    left.set_ylabel("bytes on the cellular path (%)")
    right.set_ylabel(f"completion time (s; not complete: {DURATION_S:g} s)")
    for ax in (left, right):
        ax.set_xticks(xs, list(VARIANTS.values()), rotation=30, ha="right", fontsize=8)
        ax.set_ylim(bottom=0)
    fig.suptitle(f"Bars: median over seeds; dots: one per seed (by seed). {where}", fontsize=9)
    fig.tight_layout()
    return fig


#: Bytes of a window as the `windows` experiment writes it ("512KiB", "1250000B", "6MiB").
_UNIT_BYTES = {"KiB": 1 << 10, "MiB": 1 << 20, "B": 1}


def _window_bytes(text: str) -> int:
    for unit, scale in _UNIT_BYTES.items():
        if text.endswith(unit):
            return int(text.removesuffix(unit)) * scale
    raise ValueError(f"not a window size: {text!r}")


def figures(results: Results) -> Iterator[tuple[str, Figure, str]]:
    variants = results["variants"]
    where = condition(results.primary)
    yield (
        "shares-and-times",
        shares_and_times(variants, where),
        "Study Fig. 2: share of the bytes received on the cellular (TC) path and completion "
        f"time per variant at the primary condition ({where}); bars are medians over "
        "seeds, dots single seeds.",
    )
    yield (
        "receive-rate",
        receive_rate(variants, where),
        f"Study Fig. 3: the client's receive rate over time per variant (seed {FIGURE_SEED}; "
        f"{where}), with the Wi-Fi RSSI and the scheduler's class (plain MPQUIC has no "
        "class: both paths available throughout); the dashed line is the client's "
        "PATH_ABANDON of the Wi-Fi path.",
    )
