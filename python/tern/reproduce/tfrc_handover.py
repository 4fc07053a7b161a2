"""Figures of the tfrc-handover study (see scenarios/tfrc-handover/study.toml).

A station's sending rate at time t is its allowed TFRC rate X (the newest `tfrc` record at or
before t) capped at the application's 503.2 kbit/s, sampled every `STEP_S` and averaged over
the preceding second, from the reconnection; the mean loss interval is 1/p and the RTT the
sender's estimate R, as the `tfrc` trace records them at each feedback. Curves are averaged
over the runs (seeds) of a disconnection period, as the paper's figures are (§4.1: 10 runs
per condition, averaged).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import duckdb
import matplotlib
import polars as pl

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

GAP = '"roaming.handover.disconnect"'
#: Countermeasure B's switch (study.toml, experiment `countermeasures`).
NOTICE = '"flows.mobile.transport.handover_notice"'
#: §4.1: the mobile leaves AP1 at 20 s.
LEAVE_S = 20.0
#: §4.1: 629 B every 10 ms.
APP_BPS = 503_200.0
#: §4.2: the steady-state mark on the standard deviation of the 10 stations' rates.
STEADY_BPS = 85_000.0
#: Sampling step and span after the reconnection (s); a display and measuring grid, finer
#: than the paper's figures (whole seconds) and as long as Fig. 3's x axis after the gap.
STEP_S = 0.1
SPAN_S = 15.0
#: The rate is averaged over the preceding `AVG_N` samples (1 s), as study.toml's claims do.
AVG_N = 10
#: Fig. 3's panels (§4.2).
FIG3_GAPS = ("1.5s", "2.5s", "3.0s", "3.5s")


def gap_seconds(text: str) -> float:
    """A disconnection period as the grid writes it ("1.5s", "10s") in seconds."""
    return float(str(text).removesuffix("s"))


def rates(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per run, flow and sample after the reconnection: gap, seed, `since` (s) and the sending
    rate (bit/s), with `mobile` telling the mobile from the residents."""
    n = round(SPAN_S / STEP_S)
    return con.sql(
        f"""WITH g AS (SELECT key, seed, {GAP} AS gap,
                              {LEAVE_S} + CAST(rtrim({GAP}, 's') AS DOUBLE) AS back
                       FROM runs WHERE flow = 'mobile'),
                 s AS (SELECT g.key, g.seed, g.gap, f.flow, t.range / {1 / STEP_S} AS since,
                              g.back + t.range / {1 / STEP_S} AS time
                       FROM g JOIN (SELECT DISTINCT key, flow FROM tfrc) f USING (key),
                            range(-{AVG_N}, {n}) t),
                 i AS (SELECT s.key, s.seed, s.gap, s.flow, s.since,
                              least(x.x_bps, {APP_BPS}) AS bps
                       FROM s ASOF JOIN tfrc x
                       ON s.key = x.key AND s.flow = x.flow AND s.time >= x.time)
            SELECT key, seed, gap, flow, flow = 'mobile' AS mobile, since, avg_bps AS bps FROM (
                SELECT *, avg(bps) OVER (PARTITION BY key, flow ORDER BY since
                                         ROWS {AVG_N - 1} PRECEDING) AS avg_bps FROM i)
            WHERE since >= 0"""
    ).pl()


def observed(con: duckdb.DuckDBPyConnection, column: str) -> pl.DataFrame:
    """The feedback records of every run from the reconnection on: gap, `since` (s), flow and
    `column` (an expression over the `tfrc` table `x`)."""
    return con.sql(
        f"""WITH g AS (SELECT key, {GAP} AS gap,
                              {LEAVE_S} + CAST(rtrim({GAP}, 's') AS DOUBLE) AS back
                       FROM runs WHERE flow = 'mobile')
            SELECT g.gap, x.flow = 'mobile' AS mobile, x.time - g.back AS since,
                   {column} AS value
            FROM tfrc x JOIN g USING (key)
            WHERE x.time >= g.back AND x.time < g.back + {SPAN_S} AND {column} IS NOT NULL"""
    ).pl()


def _gaps(frame: pl.DataFrame) -> list[str]:
    return sorted(frame["gap"].unique().to_list(), key=gap_seconds)


def rate_figure(r: pl.DataFrame) -> Figure:
    """Fig. 3: the mobile's rate and the residents' mean after the reconnection, per gap."""
    gaps = [g for g in FIG3_GAPS if g in set(r["gap"].to_list())] or _gaps(r)[:4]
    fig, axes = plt.subplots(1, len(gaps), figsize=(4 * len(gaps), 3.5), sharey=True, squeeze=False)
    for ax, gap in zip(axes[0], gaps, strict=True):
        part = r.filter(pl.col("gap") == gap)
        for mobile, label, style in ((True, "mobile", "C0-"), (False, "residents' mean", "C1--")):
            c = part.filter(pl.col("mobile") == mobile).group_by("since").agg(pl.col("bps").mean())
            c = c.sort("since")
            ax.plot(c["since"], c["bps"] / 1e3, style, label=label)
        ax.set_title(f"disconnection {gap}", fontsize=10)
        ax.set_xlabel("time after the reconnection (s)")
    axes[0][0].set_ylabel("sending rate (kbit/s)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def recovery(r: pl.DataFrame) -> pl.DataFrame:
    """Per run: the rate recovery time (§4.2): the first sample at which the standard
    deviation of the 10 stations' rates is below 85 kbit/s; `SPAN_S` if it never is."""
    sd = r.group_by("key", "gap", "since").agg(sd=pl.col("bps").std(ddof=0))
    return (
        sd.group_by("key", "gap")
        .agg(t=pl.col("since").filter(pl.col("sd") < STEADY_BPS).min())
        .with_columns(
            pl.col("t").fill_null(SPAN_S),
            d=pl.col("gap").map_elements(gap_seconds, return_dtype=pl.Float64),
        )
        .sort("d")
    )


def recovery_figure(rec: pl.DataFrame) -> Figure:
    """Fig. 4: rate recovery time against the disconnection period (mean and runs)."""
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(rec["d"], rec["t"], "o", color="C0", alpha=0.3, ms=4, label="runs")
    m = rec.group_by("d").agg(pl.col("t").mean()).sort("d")
    ax.plot(m["d"], m["t"], "C0-", label="mean over runs")
    ax.set_xlabel("disconnection period (s)")
    ax.set_ylabel("rate recovery time (s)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def after_figure(obs: pl.DataFrame, ylabel: str, scale: float) -> Figure:
    """Figs. 5 and 6: a feedback quantity of the mobile after the reconnection (1 s means over
    runs) per gap, with the residents' mean over all gaps for reference."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    binned = obs.with_columns(sec=pl.col("since").floor())
    for i, gap in enumerate(_gaps(obs)):
        m = binned.filter((pl.col("gap") == gap) & pl.col("mobile"))
        m = m.group_by("sec").agg(pl.col("value").mean()).sort("sec")
        ax.plot(m["sec"], m["value"] * scale, "-", color=plt.cm.viridis(i / 10), label=gap)
    res = binned.filter(~pl.col("mobile")).group_by("sec").agg(pl.col("value").mean()).sort("sec")
    ax.plot(res["sec"], res["value"] * scale, "k--", label="residents")
    ax.set_xlabel("time after the reconnection (s)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, ncol=2, title="disconnection")
    fig.tight_layout()
    return fig


def countermeasures(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Per disconnection period, with and without countermeasure B (means over the runs):
    the catch-up time (s after the reconnection until the seed-averaged rate of the mobile
    first reaches the residents', `SPAN_S` if it does not), the mobile's and the
    residents' mean rate in the 10 s after the reconnection (kbit/s), and the mobile's
    packets lost in the network and dropped at its full send buffer per run."""
    r = rates(con).join(
        con.sql(f"SELECT key, {NOTICE} AS notice FROM runs WHERE flow = 'mobile'").pl(), on="key"
    )
    curves = r.group_by("gap", "notice", "since").agg(
        m=pl.col("bps").filter(pl.col("mobile")).mean(),
        res=pl.col("bps").filter(~pl.col("mobile")).mean(),
    )
    catch = curves.group_by("gap", "notice").agg(
        catch_up_s=pl.col("since").filter(pl.col("m") >= pl.col("res")).min().fill_null(SPAN_S)
    )
    first10 = (
        r.filter(pl.col("since") < 10)
        .group_by("gap", "notice")
        .agg(
            mobile_kbps=pl.col("bps").filter(pl.col("mobile")).mean() / 1e3,
            residents_kbps=pl.col("bps").filter(~pl.col("mobile")).mean() / 1e3,
        )
    )
    losses = con.sql(
        f"""SELECT {GAP} AS gap, {NOTICE} AS notice, avg(tfrc_lost_packets) AS lost,
                   avg(tfrc_send_buffer_drops) AS buffer_drops
            FROM runs WHERE flow = 'mobile' GROUP BY ALL"""
    ).pl()
    return (
        catch.join(first10, on=["gap", "notice"])
        .join(losses, on=["gap", "notice"])
        .with_columns(d=pl.col("gap").map_elements(gap_seconds, return_dtype=pl.Float64))
        .sort("d", "notice")
    )


def countermeasure_figure(t: pl.DataFrame) -> Figure:
    """Catch-up time and the rates in the 10 s after the reconnection, with and without B."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for i, (notice, label) in enumerate((("false", "without"), ("true", "with B"))):
        part = t.filter(pl.col("notice") == notice)
        a.plot(part["d"], part["catch_up_s"], "o-", color=f"C{i}", label=label)
        b.plot(part["d"], part["mobile_kbps"], "o-", color=f"C{i}", label=f"mobile, {label}")
        b.plot(part["d"], part["residents_kbps"], "x--", color=f"C{i}", label=f"residents, {label}")
    a.set_ylabel("catch-up time (s)")
    b.set_ylabel("mean rate, 10 s after the reconnection (kbit/s)")
    for ax in (a, b):
        ax.set_xlabel("disconnection period (s)")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    con = results["gaps"]
    r = rates(con)
    yield (
        "rate",
        rate_figure(r),
        "Fig. 3: sending rate (allowed TFRC rate X, capped at the application's 503.2 kbit/s) "
        "of the mobile and the mean of the 9 residents after the reconnection, averaged over "
        "the runs.",
    )
    rec = recovery(r)
    yield (
        "recovery",
        recovery_figure(rec),
        "Fig. 4: rate recovery time, until the standard deviation of the 10 stations' rates "
        f"falls below 85 kbit/s (§4.2); {SPAN_S:g} s marks a run that did not recover.",
    )
    after = (
        (
            "loss-interval",
            "CASE WHEN x.p > 0 THEN 1.0 / x.p END",
            "mean loss interval (packets)",
            1.0,
            "5",
            "mean loss interval 1/p (as its receiver reported it)",
        ),
        ("rtt", "x.rtt", "RTT estimate R (ms)", 1e3, "6", "RTT estimate R"),
    )
    for name, column, ylabel, scale, number, what in after:
        yield (
            name,
            after_figure(observed(con, column), ylabel, scale),
            f"Fig. {number}: the mobile's {what} after the reconnection, 1 s means over runs, "
            "per disconnection period; the residents' mean (all periods) dashed.",
        )
    yield (
        "countermeasures",
        countermeasure_figure(countermeasures(results["countermeasures"])),
        "Beyond the paper (§4.5 proposes, does not evaluate): countermeasure B, the receiver "
        "told of the handover leaves the packets sent during the disconnection out of its "
        "feedback. Left: time until the mobile's seed-averaged rate first reaches the "
        f"residents' ({SPAN_S:g} s: not within the window); right: mean rates in the 10 s "
        "after the reconnection.",
    )
