"""Figures of the lte-switch study (see scenarios/lte-switch/study.toml)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import duckdb
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

POLICY = '"flows.tcp.switcher.policy"'


def _delays(con: duckdb.DuckDBPyConnection, policy: str):
    return con.sql(
        f"""SELECT d.flow, d.conn, d.sent, d.delay, d.time FROM delay d JOIN runs r USING (key)
            WHERE r.flow = 'tcp' AND r.{POLICY} = ? ORDER BY d.sent""",
        params=[policy],
    ).pl()


def _handovers(con: duckdb.DuckDBPyConnection, policy: str) -> list[float]:
    rows = con.sql(
        f"""SELECT h.time FROM handovers h JOIN runs r USING (key)
            WHERE r.flow = 'tcp' AND r.{POLICY} = ?""",
        params=[policy],
    ).fetchall()
    return [t for (t,) in rows]


def _mark_handovers(ax, times: list[float]) -> None:
    for i, t in enumerate(times):
        ax.axvline(t, color="grey", ls=":", lw=1, label="handover complete" if i == 0 else None)


def survey(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 2-5: a single TCP connection and UDP through the burst loss."""
    d = _delays(con, "never")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    for flow, style in (("tcp", "C0."), ("udp", "C1x")):
        part = d.filter(d["flow"] == flow)
        top.plot(part["sent"], part["delay"], style, ms=3, label=f"uplink {flow.upper()}")
    down = d.filter(d["flow"] == "down")
    top.plot(down["time"], down["delay"], "C2+", ms=3, label="downlink UDP (by arrival)")
    _mark_handovers(top, _handovers(con, "never"))
    top.set_ylabel("application one-way delay (s)")
    top.set_title("Single TCP connection vs UDP through a 3 s handover burst loss")
    top.legend(loc="upper right", fontsize=8)
    tcp = d.filter(d["flow"] == "tcp").sort("time")
    arrivals = tcp["time"].to_numpy()
    bottom.step(arrivals[1:], arrivals[1:] - arrivals[:-1], where="post", color="C0")
    _mark_handovers(bottom, _handovers(con, "never"))
    bottom.set_ylabel("server TCP receive interval (s)")
    bottom.set_xlabel("send time (delay) / receive time (interval) (s)")
    fig.tight_layout()
    return fig


def effect(con: duckdb.DuckDBPyConnection) -> Figure:
    """Figs. 7-8: the switch, with UDP and the delay #1 would have had."""
    d = _delays(con, "notice")
    never = _delays(con, "never")
    fig, ax = plt.subplots(figsize=(8, 4.5))
    tcp = d.filter(d["flow"] == "tcp")
    for conn, style in ((1, "C0."), (2, "C3o")):
        part = tcp.filter(tcp["conn"] == conn)
        ax.plot(part["sent"], part["delay"], style, ms=3, label=f"TCP #{conn}")
    udp = d.filter(d["flow"] == "udp")
    ax.plot(udp["sent"], udp["delay"], "C1x", ms=3, label="UDP")
    alone = never.filter(never["flow"] == "tcp")
    ax.plot(alone["sent"], alone["delay"], "k--", lw=1, label="TCP without switching")
    _mark_handovers(ax, _handovers(con, "notice"))
    ax.set_xlim(10, 45)
    ax.set_xlabel("send time (s)")
    ax.set_ylabel("application one-way delay (s)")
    ax.set_title("ConnectionSwitcher: T_recvinterval 3 s, T_switch 10 s")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def statistics(con: duckdb.DuckDBPyConnection) -> Figure:
    """Beyond the study: mean delay of the messages sent in the 10 s after the handover
    completes, by loss length, policy and target-cell delay (points: loss-start phases)."""
    rows = con.sql(
        f"""WITH h AS (SELECT key, min(time) AS t FROM handovers GROUP BY key)
            SELECT r.{POLICY} AS policy,
                   CAST(regexp_extract(r."links.radio.cell.train.burst_loss", '[0-9.]+') AS DOUBLE)
                       AS loss,
                   r."links.radio.cell.train.uplink.delay" AS target,
                   avg(d.delay) AS mean_delay
            FROM runs r JOIN h USING (key) JOIN delay d USING (key)
            WHERE r.flow = 'tcp' AND d.flow = 'tcp' AND d.sent >= h.t AND d.sent < h.t + 10
            GROUP BY r.key, policy, loss, target ORDER BY loss"""
    ).pl()
    targets = sorted(set(rows["target"]))
    fig, axes = plt.subplots(1, len(targets), figsize=(9, 4), sharey=True, squeeze=False)
    for ax, target in zip(axes[0], targets, strict=True):
        part = rows.filter(rows["target"] == target)
        for policy, style in (("never", "k^"), ("notice", "C3o"), ("oracle", "C2s")):
            p = part.filter(part["policy"] == policy)
            ax.plot(p["loss"], p["mean_delay"], style, ms=4, alpha=0.7, label=policy)
        ax.set_yscale("log")
        ax.set_xlabel("burst-loss period (s)")
        ax.set_title(f"target cell radio delay {target}")
    axes[0][0].set_ylabel("mean delay, messages sent 0-10 s after handover (s)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def thresholds(con: duckdb.DuckDBPyConnection) -> Figure:
    """Beyond the study: fraction of runs that switched, and the mean delay of messages sent
    in the 10 s after the handover, by T_recvinterval (x) and T_switch (lines)."""
    rows = con.sql(
        """WITH h AS (SELECT key, min(time) AS t FROM handovers GROUP BY key),
                d AS (SELECT d.key, avg(d.delay) AS mean_delay FROM delay d JOIN h USING (key)
                      WHERE d.flow = 'tcp' AND d.sent >= h.t AND d.sent < h.t + 10 GROUP BY d.key)
           SELECT CAST(regexp_extract(r."flows.tcp.switcher.recv_interval", '[0-9.]+') AS DOUBLE)
                      AS recv,
                  r."flows.tcp.switcher.switch_window" AS t_switch,
                  avg(CASE WHEN r.switcher_switched_at_s IS NULL THEN 0.0 ELSE 1.0 END) AS switched,
                  avg(d.mean_delay) AS mean_delay
           FROM runs r JOIN d USING (key) WHERE r.flow = 'tcp'
           GROUP BY recv, t_switch ORDER BY recv"""
    ).pl()
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for i, t_switch in enumerate(sorted(set(rows["t_switch"]), key=lambda w: float(w[:-1]))):
        part = rows.filter(rows["t_switch"] == t_switch)
        style = {"marker": "o", "color": f"C{i}", "ls": ("-", "--", ":")[i % 3], "label": t_switch}
        left.plot(part["recv"], part["switched"], **style)
        right.plot(part["recv"], part["mean_delay"], **style)
    left.set_xlabel("T_recvinterval (s)")
    left.set_ylabel("fraction of runs that switched")
    left.set_ylim(-0.05, 1.05)
    right.set_xlabel("T_recvinterval (s)")
    right.set_ylabel("mean delay, 0-10 s after handover (s)")
    left.legend(title="T_switch", fontsize=8)
    fig.tight_layout()
    return fig


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    effect_con = results["effect"]
    yield (
        "survey",
        survey(effect_con),
        "Survey (study Figs. 2-5): uplink TCP and UDP application delay by send time, downlink "
        "UDP by arrival, the handover completion, and the server's TCP receive intervals.",
    )
    yield (
        "effect",
        effect(effect_con),
        "Effect (study Figs. 7-8): delay by send time on TCP #1 and #2 with the switcher, UDP, "
        "and a single TCP connection without switching (dashed).",
    )
    yield (
        "thresholds",
        thresholds(results["thresholds"]),
        "Beyond the study: how often the mechanism switches (left; the rest are missed "
        "switches) and the delay it leaves (right), by T_recvinterval and T_switch, over loss "
        "lengths of 1, 3 and 6 s and two loss-start phases.",
    )
    yield (
        "statistics",
        statistics(results["statistics"]),
        "Beyond the study: mean delay of the messages sent in the 10 s after the handover, "
        "over loss length and loss-start phase, for the mechanism (notice), the oracle and no "
        "switching.",
    )
