"""Figures of the tfrc-handover study (see scenarios/tfrc-handover/study.toml).

A station's sending rate at time t is its allowed TFRC rate X (the newest `tfrc` record at or
before t) capped at the application's 503.2 kbit/s, sampled every `STEP_S` and averaged over
the preceding second, from the reconnection; the mean loss interval is 1/p and the RTT the
sender's estimate R, as the `tfrc` trace records them at each feedback. Curves are averaged
over the runs (seeds) of a disconnection period, as the paper's figures are (§4.1: 10 runs
per condition, each value their mean), and so is the rate recovery time (§4.2), measured on
the seed-averaged rates against the steady-state mark `MARK_BPS`, calibrated on the claim
`steady-std` as the paper calibrated its 85 kbit/s on its own 81.
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
#: The experiments of study.toml the countermeasure table compares, each with its variant's
#: name: "none" (the `gaps` experiment, the paper's set-up), and A-D of §4.5 at the primary
#: condition plus each one's switch.
VARIANTS = {
    "gaps": "none",
    "countermeasure-a": "A",
    "countermeasure-b": "B",
    "countermeasure-c": "C",
    "countermeasure-d": "D",
}
#: The residents' rate before the mobile arrives is averaged over this many seconds before
#: the reconnection (their undisturbed share), the rates after it over `AFTER_S`.
BEFORE_S = 5.0
AFTER_S = 10.0
#: §4.1: the mobile leaves AP1 at 20 s.
LEAVE_S = 20.0
#: §4.1: 629 B every 10 ms.
APP_BPS = 503_200.0
#: The steady-state mark on the standard deviation of the 10 stations' seed-averaged rates:
#: the paper's rule (§4.2: its no-handover maximum, 81 kbit/s, raised to 85) applied to
#: Tern's own no-handover maximum, 50.8 kbit/s (claim `steady-std`, 10 seeds): 50.8 · 85/81
#: = 53.3, rounded to 53. study.toml's claim `recovery-short-longer` uses the same number.
MARK_BPS = 53_000.0
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


def rates(con: duckdb.DuckDBPyConnection, before_s: float = 0.0) -> pl.DataFrame:
    """Per run, flow and sample from `before_s` before the reconnection on: gap, seed, `since`
    (s) and the sending rate (bit/s), with `mobile` telling the mobile from the residents."""
    n = round(SPAN_S / STEP_S)
    first = round(before_s / STEP_S) + AVG_N
    # Each run's flow gets an integer id for the ASOF join (on the key and flow strings it
    # costs about twice the CPU).
    return con.sql(
        f"""WITH f AS (SELECT key, seed, flow, row_number() OVER () AS id FROM runs),
                 g AS (SELECT key, {GAP} AS gap,
                              {LEAVE_S} + CAST(rtrim({GAP}, 's') AS DOUBLE) AS back
                       FROM runs WHERE flow = 'mobile'),
                 s AS (SELECT f.id, f.key, f.seed, g.gap, f.flow,
                              t.range / {1 / STEP_S} AS since,
                              g.back + t.range / {1 / STEP_S} AS time
                       FROM g JOIN f USING (key), range(-{first}, {n}) t),
                 x AS (SELECT f.id, x.time, least(x.x_bps, {APP_BPS}) AS bps
                       FROM tfrc x JOIN f USING (key, flow)),
                 i AS (SELECT s.id, s.key, s.seed, s.gap, s.flow, s.since, x.bps
                       FROM s ASOF JOIN x ON s.id = x.id AND s.time >= x.time)
            SELECT key, seed, gap, flow, flow = 'mobile' AS mobile, since, avg_bps AS bps FROM (
                SELECT *, avg(bps) OVER (PARTITION BY id ORDER BY since
                                         ROWS {AVG_N - 1} PRECEDING) AS avg_bps FROM i)
            WHERE since >= -{before_s}"""
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


def _margins(fig: Figure, wspace: float = 0.2, left: float = 0.75) -> None:
    """Fixed margins in inches (`left`: room for the widest y tick labels and the axis label;
    the others for the tick labels, axis labels and titles these figures have), not
    `tight_layout`, which lays every text out once more before the figure is drawn (a fifth
    of the figures' CPU time)."""
    w, h = fig.get_size_inches()
    fig.subplots_adjust(
        left=left / w, right=1 - 0.15 / w, bottom=0.6 / h, top=1 - 0.35 / h, wspace=wspace
    )


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
    _margins(fig, wspace=0.08)
    return fig


def recovery(r: pl.DataFrame, by: tuple[str, ...] = ("gap",)) -> pl.DataFrame:
    """Per disconnection period (and the other columns of `by`): the rate recovery time
    (§4.2): the first sample from the reconnection at which the standard deviation of the 10
    stations' seed-averaged rates is below `MARK_BPS`; `SPAN_S` if it never is."""
    after = r.filter(pl.col("since") >= 0)
    mean = after.group_by(*by, "flow", "since").agg(pl.col("bps").mean())
    sd = mean.group_by(*by, "since").agg(sd=pl.col("bps").std(ddof=0))
    return (
        sd.group_by(*by)
        .agg(t=pl.col("since").filter(pl.col("sd") < MARK_BPS).min())
        .with_columns(
            pl.col("t").fill_null(SPAN_S),
            d=pl.col("gap").map_elements(gap_seconds, return_dtype=pl.Float64),
        )
        .sort("d", *by)
    )


def recovery_figure(rec: pl.DataFrame) -> Figure:
    """Fig. 4: rate recovery time (on the seed-averaged rates) against the disconnection
    period."""
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(rec["d"], rec["t"], "C0o-")
    ax.axvline(3.0, color="0.6", lw=0.8, ls=":")
    ax.set_xlabel("disconnection period (s)")
    ax.set_ylabel("rate recovery time (s)")
    _margins(fig)
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
    _margins(fig, left=0.95)
    return fig


def effects(
    con: duckdb.DuckDBPyConnection, variant: str, r: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Per disconnection period of one experiment (its countermeasure `variant`, a name):
    the rate recovery time of §4.2 (`recovery_s`, on the seed-averaged rates, as Fig. 4), the
    catch-up time (s after the reconnection until the seed-averaged rate of the mobile first
    reaches the residents', `SPAN_S` if it does not), means over the runs of the mobile's
    rate in the `AFTER_S` after the reconnection, of the residents' in the `BEFORE_S` before
    it and in the `AFTER_S` after it and their drop (kbit/s), and of the mobile's packets
    lost in the network and dropped at its full send buffer per run. `r`: `rates(con,
    BEFORE_S)` if already computed."""
    r = rates(con, BEFORE_S) if r is None else r
    after = r.filter(pl.col("since") >= 0)
    curves = after.group_by("gap", "since").agg(
        m=pl.col("bps").filter(pl.col("mobile")).mean(),
        res=pl.col("bps").filter(~pl.col("mobile")).mean(),
    )
    catch = curves.group_by("gap").agg(
        catch_up_s=pl.col("since").filter(pl.col("m") >= pl.col("res")).min().fill_null(SPAN_S)
    )
    rec = recovery(r).select("gap", recovery_s="t")
    residents = ~pl.col("mobile")
    window = r.filter(pl.col("since") < AFTER_S).group_by("gap")
    means = window.agg(
        mobile_kbps=pl.col("bps").filter(pl.col("mobile") & (pl.col("since") >= 0)).mean() / 1e3,
        residents_before_kbps=pl.col("bps").filter(residents & (pl.col("since") < 0)).mean() / 1e3,
        residents_kbps=pl.col("bps").filter(residents & (pl.col("since") >= 0)).mean() / 1e3,
    ).with_columns(residents_drop_kbps=pl.col("residents_before_kbps") - pl.col("residents_kbps"))
    losses = con.sql(
        f"""SELECT {GAP} AS gap, avg(tfrc_lost_packets) AS lost,
                   avg(tfrc_send_buffer_drops) AS buffer_drops
            FROM runs WHERE flow = 'mobile' GROUP BY ALL"""
    ).pl()
    return (
        rec.join(catch, on="gap")
        .join(means, on="gap")
        .join(losses, on="gap")
        .with_columns(
            variant=pl.lit(variant),
            d=pl.col("gap").map_elements(gap_seconds, return_dtype=pl.Float64),
        )
        .sort("d")
    )


def countermeasure_table(
    results: Mapping[str, duckdb.DuckDBPyConnection], gaps: pl.DataFrame | None = None
) -> pl.DataFrame:
    """`effects` of every experiment of `VARIANTS` the results hold, at the periods the
    countermeasure experiments share (their grid; the `gaps` experiment has more). `gaps`:
    `rates(results["gaps"], BEFORE_S)` if already computed."""
    parts = [
        effects(results[e], v, gaps if e == "gaps" else None)
        for e, v in VARIANTS.items()
        if e in results
    ]
    table = pl.concat(parts, how="diagonal")
    shared = table.filter(pl.col("variant") != "none")["gap"].unique()
    if shared.len():
        table = table.filter(pl.col("gap").is_in(shared.implode()))
    return table.sort("d", "variant")


def countermeasure_figure(t: pl.DataFrame) -> Figure:
    """Rate recovery time, catch-up time and the residents' rate drop against the disconnection
    period, per countermeasure variant."""
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for i, variant in enumerate(sorted(t["variant"].unique().to_list())):
        part = t.filter(pl.col("variant") == variant).sort("d")
        style = "k-" if variant == "none" else f"C{i % 10}{'o-' if i < 10 else 'x--'}"
        for ax, col in zip(axes, ("recovery_s", "catch_up_s", "residents_drop_kbps"), strict=True):
            ax.plot(part["d"], part[col], style, label=variant, ms=4)
    for ax, label in zip(
        axes,
        ("rate recovery time (s)", "catch-up time (s)", "residents' rate drop (kbit/s)"),
        strict=True,
    ):
        ax.set_xlabel("disconnection period (s)")
        ax.set_ylabel(label)
    axes[2].legend(fontsize=7, ncol=2)
    _margins(fig, wspace=0.3)
    return fig


def table_markdown(t: pl.DataFrame) -> str:
    """The countermeasure table as the README prints it."""
    head = (
        "| gap | variant | recovery (s) | catch-up (s) | mobile (kbit/s) "
        "| residents before / after (kbit/s) | residents' drop (kbit/s) | lost | buffer drops |"
    )
    lines = [head, "|" + "---|" * 9]
    for r in t.iter_rows(named=True):
        lines.append(
            f"| {r['gap']} | {r['variant']} | {r['recovery_s']:.1f} | {r['catch_up_s']:.1f} "
            f"| {r['mobile_kbps']:.0f} | {r['residents_before_kbps']:.0f} / "
            f"{r['residents_kbps']:.0f} | {r['residents_drop_kbps']:.0f} | {r['lost']:.0f} "
            f"| {r['buffer_drops']:.0f} |"
        )
    return "\n".join(lines)


def figures(results: Mapping[str, duckdb.DuckDBPyConnection]) -> Iterator[tuple[str, Figure, str]]:
    con = results["gaps"]
    r = rates(con, BEFORE_S)
    yield (
        "rate",
        rate_figure(r.filter(pl.col("since") >= 0)),
        "Fig. 3: sending rate (allowed TFRC rate X, capped at the application's 503.2 kbit/s) "
        "of the mobile and the mean of the 9 residents after the reconnection, averaged over "
        "the runs (10 seeds in the full run).",
    )
    rec = recovery(r)
    yield (
        "recovery",
        recovery_figure(rec),
        "Fig. 4: rate recovery time, until the standard deviation of the 10 stations' "
        f"seed-averaged rates falls below {MARK_BPS / 1e3:g} kbit/s (§4.2's rule on Tern's "
        f"no-handover maximum, claim steady-std); {SPAN_S:g} s: not within the window.",
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
        countermeasure_figure(countermeasure_table(results, r)),
        "Beyond the paper (§4.5 proposes, does not evaluate): countermeasures A (rate set from "
        "the new AP's BSS Load), B (receiver told of the handover), C (newest RTT samples and "
        "loss intervals weigh more for 5 s: RTT gain 0.5, 4 intervals), D (MAC discards frames "
        "older than 150 ms during the gap); 'none' is the paper's set-up (experiment gaps). "
        f"Left: rate recovery time (§4.2, std below {MARK_BPS / 1e3:g} kbit/s; "
        f"{SPAN_S:g} s: not within the window); middle: time until the mobile's seed-averaged "
        "rate first reaches the residents'; right: the residents' mean rate in the "
        f"{BEFORE_S:g} s before the reconnection less that in the {AFTER_S:g} s after it.",
    )
