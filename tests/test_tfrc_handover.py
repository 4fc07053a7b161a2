"""`tern reproduce tfrc-handover --quick`: every claim computes, the figures are drawn, the
mobile's TFRC behaves through the disconnection as RFC 3448 says, and runs are deterministic."""

from __future__ import annotations

import json
from types import SimpleNamespace

import polars as pl
import pytest

from conftest import ROOT, assert_quick_agrees_with_full, assert_within_budget, tern_cli
from tern import store
from tern.reproduce import reproduce, tfrc_handover
from tern.reproduce._study import load_study

SCENARIO = ROOT / "scenarios" / "tfrc-handover" / "handover.toml"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("tfrc-handover-quick")
    return reproduce("tfrc-handover", quick=True, out=out, jobs=2)


def test_quick_computes_the_claims_and_draws_every_figure(quick):
    assert {r.claim.id for r in quick.results} == {c.id for c in quick.study.claims}
    for r in quick.results:
        assert r.error is None and r.value is not None, (r.claim.id, r.error)
    assert [name for name, _, _ in quick.figures] == [
        "rate",
        "recovery",
        "loss-interval",
        "rtt",
        "countermeasures",
    ]
    assert (quick.out / "report.md").is_file()


def test_quick_agrees_with_the_full_run(quick):
    assert_quick_agrees_with_full(quick)


def test_the_full_run_fits_the_budget():
    # The verdict protocol's budget (tests/conftest.py) holds for the full run, not the quick
    # one (its figures cost as much over a third of the runs): full-cost.json is the "cost"
    # of the full run's report.json, recorded beside full-verdicts.json from the same run.
    study = load_study("tfrc-handover")
    cost = json.loads((study.folder / "full-cost.json").read_text())
    runs = sum(e.runs for e in study.experiments)
    runs += sum(
        len(s.labels())
        * s.seeds
        * study.experiment(s.experiment).runs
        // study.experiment(s.experiment).seeds
        for s in study.sensitivity
    )
    assert cost["runs"] == runs
    assert_within_budget(SimpleNamespace(cost=SimpleNamespace(**cost)))


def test_the_held_table_is_the_newest_feedback_at_each_sample(quick):
    # study.toml's `held` (read by the Fig. 5-6 claims): at the reconnection + k * 0.1 s a
    # station holds the 1/p and R of its newest feedback at or before then (RFC 3448 §6:
    # the sender acts on each feedback until the next), 1/p infinite while p = 0 (§5.4).
    con = store.connect(quick.out / "gaps")
    held = con.sql(quick.study.tables["held"].query).pl()
    key, gap = con.sql(
        """SELECT key, "roaming.handover.disconnect" FROM runs
           WHERE flow = 'mobile' AND "roaming.handover.disconnect" = '4.5s' LIMIT 1"""
    ).fetchall()[0]
    got = held.filter((pl.col("key") == key) & (pl.col("flow") == "mobile")).sort("k")
    assert got["k"].to_list() == list(range(185)) and set(got["gap"]) == {gap}
    fb = con.sql(
        f"SELECT time, p, rtt FROM tfrc WHERE key = '{key}' AND flow = 'mobile'"
        " AND event = 'feedback' ORDER BY time"
    ).pl()
    times, ps, rtts = fb["time"].to_list(), fb["p"].to_list(), fb["rtt"].to_list()
    for k, li, rtt in zip(got["k"], got["li"], got["rtt"], strict=True):
        t = 24.5 + k / 10.0
        i = max(j for j, x in enumerate(times) if x <= t)
        assert rtt == rtts[i]
        assert li == (1.0 / ps[i] if ps[i] > 0 else float("inf"))


def test_the_recovery_mark_is_the_calibrated_one(quick):
    # The module's mark is the one the recovery claim uses, and it is calibrated on the
    # no-handover claim as §4.2 did (81 -> 85 kbit/s: its own maximum plus a 5 % margin).
    study = quick.study
    claim = next(c for c in study.claims if c.id == "recovery-short-longer")
    assert f"sd < {tfrc_handover.MARK_BPS:.0f}" in claim.value
    assert next(c for c in study.claims if c.id == "steady-std").role == "calibration"
    # 50_780 bit/s: steady-std of the full run (10 seeds, scenarios/tfrc-handover/README.md).
    assert pytest.approx(50_780 * 85 / 81, abs=500) == tfrc_handover.MARK_BPS


def test_the_figures_rates_are_the_claims(quick):
    # The catch-up time of the countermeasure table's "none" rows (the gaps experiment) is
    # the one the seed-averaged Fig. 3 claim computes in SQL.
    claim = next(r for r in quick.results if r.claim.id == "below-for-10s-at-1_5s")
    table = tfrc_handover.effects(store.connect(quick.out / "gaps"), "none")
    row = table.filter(pl.col("gap") == "1.5s")
    assert row["catch_up_s"].item() == pytest.approx(claim.value)


def test_a_mobile_without_a_loss_event_has_an_unbounded_loss_interval(quick):
    # RFC 3448 §5.4: p = 0 until the first loss event; the claims count 1/p as infinite
    # there, a value (k of n counts it), never a missing one; a run that holds p = 0 for
    # most of the time after the reconnection (median 1/p infinite) is "above the
    # residents", whose p > 0.
    by_id = {r.claim.id: r for r in quick.results}
    for gap in ("4_5s", "10s"):
        li = by_id[f"loss-interval-4000-at-{gap}"].outcome
        above = by_id[f"loss-interval-above-residents-at-{gap}"].outcome
        assert li.k == li.n
        for seed, v in li.per_seed.items():
            if v == float("inf"):
                assert above.per_seed[seed] == 1, (gap, seed)


def test_no_feedback_timer_follows_rfc_3448_as_published(quick):
    # RFC 3448 §4.4 as published (the primary condition's rule): with no feedback and no
    # loss yet (p = 0) each expiry halves the cached X_recv (down to s/(2 t_mbi)) and
    # recomputes X by §4.3 (4), X = max(min(2X, 2 X_recv), s/R): X stays at s/R or above.
    con = store.connect(quick.out / "gaps")
    x = con.sql(
        """SELECT key, time, x_bps, x_recv_bps, rtt FROM tfrc
           WHERE flow = 'mobile' AND event = 'nofeedback' AND p = 0 AND time > 20
             AND time < 20 + CAST(rtrim((SELECT "roaming.handover.disconnect" FROM runs r
                                         WHERE r.key = tfrc.key AND r.flow = 'mobile'),
                                        's') AS DOUBLE)
           ORDER BY key, time"""
    ).pl()
    s_bits = 629 * 8
    pairs = x.with_columns(
        prev_x=pl.col("x_bps").shift(1).over("key"),
        prev_recv=pl.col("x_recv_bps").shift(1).over("key"),
    ).drop_nulls()
    assert pairs.height > 0
    recv = pl.max_horizontal(pl.col("prev_recv") / 2, pl.lit(s_bits / 128.0))
    rate = pl.max_horizontal(
        pl.min_horizontal(2 * pl.col("prev_x"), 2 * pl.col("x_recv_bps")), s_bits / pl.col("rtt")
    )
    errors = pairs.select(
        recv=(pl.col("x_recv_bps") / recv - 1).abs().max(),
        rate=(pl.col("x_bps") / rate - 1).abs().max(),
    )
    assert errors["recv"].item() < 1e-9
    assert errors["rate"].item() < 1e-6


def test_the_held_queue_overflows_in_a_long_gap(quick):
    # At X = s/R the sender sends one packet per R through the gap; the mobile's MAC queue
    # holds 50 of them (§4.1) and tail-drops the rest, which the receiver counts lost: at
    # least d/R - 50 packets, less a margin of 5 for what the queue held at the leave.
    con = store.connect(quick.out / "gaps")
    rows = con.sql(
        """WITH g AS (SELECT key, tfrc_lost_packets AS lost,
                             CAST(rtrim("roaming.handover.disconnect", 's') AS DOUBLE) AS d
                      FROM runs WHERE flow = 'mobile')
           SELECT g.d, g.lost, max(x.rtt) AS r FROM g JOIN tfrc x USING (key)
           WHERE x.flow = 'mobile' AND x.event = 'nofeedback' AND x.time > 20
             AND x.time < 20 + g.d AND g.d >= 3
           GROUP BY ALL ORDER BY g.d"""
    ).fetchall()
    assert rows
    for d, lost, r in rows:
        assert lost >= d / r - 55, (d, lost, r)


def test_held_packets_raise_the_rtt_estimate_by_the_gap(quick):
    # The first 50 packets the mobile sends after it leaves AP1 (one per R ≈ 23 ms at
    # X = s/R: within 1.2 s) fill its MAC queue and wait there until the reconnection, so
    # the first RTT samples after it are at least (gap - 1.2 s); with R = 0.9 R + 0.1
    # R_sample (RFC 3448 §4.3) the estimate rises by at least a tenth of (gap - 1 s) once a
    # few of them are in.
    con = store.connect(quick.out / "gaps")
    rows = con.sql(
        """WITH g AS (SELECT key, CAST(rtrim("roaming.handover.disconnect", 's') AS DOUBLE) AS d
                      FROM runs WHERE flow = 'mobile')
           SELECT g.d, max(x.rtt) AS r FROM tfrc x JOIN g USING (key)
           WHERE x.flow = 'mobile' AND x.time >= 20 + g.d AND x.time < 20 + g.d + 5
           GROUP BY g.key, g.d"""
    ).fetchall()
    assert rows
    for d, r in rows:
        assert r >= 0.1 * (d - 1.0), (d, r)


def test_handover_notice_keeps_the_gap_out_of_the_rtt(quick):
    # Countermeasure B: the packets sent while the mobile's link is down are left out of
    # the feedback, so no RTT sample spans the disconnection but those of the packets
    # queued just before the link went down; the RTT estimate after the reconnection stays
    # below the one without the notice, at the same period and seed.
    def worst(folder):
        return (
            store.connect(quick.out / folder)
            .sql(
                """WITH g AS (SELECT key, seed, "roaming.handover.disconnect" AS gap,
                                 20 + CAST(rtrim("roaming.handover.disconnect", 's') AS DOUBLE)
                                 AS back
                          FROM runs WHERE flow = 'mobile')
               SELECT g.gap, g.seed, max(x.rtt) AS r FROM tfrc x JOIN g USING (key)
               WHERE x.flow = 'mobile' AND x.time >= g.back AND x.time < g.back + 5
               GROUP BY ALL ORDER BY g.gap, g.seed"""
            )
            .fetchall()
        )

    without = {(gap, seed): r for gap, seed, r in worst("gaps")}
    rows = worst("countermeasure-b")
    assert rows
    for gap, seed, with_b in rows:
        assert with_b < without[(gap, seed)], (gap, seed, with_b, without[(gap, seed)])


def test_the_countermeasure_table_has_every_variant_and_gap(quick):
    # Every countermeasure of the quick run at each of its periods, beside the runs without
    # any; a recovery time is within the measured window.
    results = {e: store.connect(quick.out / e) for e in tfrc_handover.VARIANTS}
    table = tfrc_handover.countermeasure_table(results)
    assert set(table["variant"].to_list()) == {"none", "A", "B", "C", "D"}
    assert table.group_by("variant").len()["len"].to_list() == [3] * 5
    assert table["recovery_s"].is_between(0, tfrc_handover.SPAN_S).all()
    assert tfrc_handover.table_markdown(table).count("\n") == table.height + 1


def test_a_deadline_keeps_the_gap_out_of_the_rtt(quick):
    # Countermeasure D discards the frames held through the disconnection, so no RTT sample
    # after the reconnection spans it: the mobile's RTT estimate in the 5 s after the
    # reconnection stays below the disconnection period, which it exceeds without D
    # (test_held_packets_raise_the_rtt_estimate_by_the_gap's mechanism, at 4.5 s).
    con = store.connect(quick.out / "countermeasure-d")
    rows = con.sql(
        """WITH g AS (SELECT key, CAST(rtrim("roaming.handover.disconnect", 's') AS DOUBLE) AS d
                      FROM runs WHERE flow = 'mobile')
           SELECT g.d, max(x.rtt) FROM tfrc x JOIN g USING (key)
           WHERE x.flow = 'mobile' AND x.time >= 20 + g.d AND x.time < 20 + g.d + 5
           GROUP BY g.key, g.d"""
    ).fetchall()
    assert rows
    for d, r in rows:
        assert r < d, (d, r)


#: Each countermeasure switched on (`--set` overrides), for the determinism test.
SWITCHES = {
    "none": [],
    "B": ["flows.mobile.transport.handover_notice=true"],
    "A": ["flows.mobile.transport.rate_from_bss_load=true"],
    "C": [
        "flows.mobile.transport.recent_window=2s",
        "flows.mobile.transport.recent_rtt_gain=0.5",
        "flows.mobile.transport.recent_intervals=2",
    ],
    "D": ["roaming.handover.discard_older_than=150ms"],
}


@pytest.mark.parametrize("variant", list(SWITCHES))
def test_same_seed_same_traces(tmp_path, variant):
    outs = []
    for name in ("a", "b"):
        out = tmp_path / name
        sets = [a for kv in ["sim.duration=24s", *SWITCHES[variant]] for a in ("--set", kv)]
        r = tern_cli("run", str(SCENARIO), "--out", str(out), *sets)
        assert r.returncode == 0, r.stderr
        outs.append(out / "tfrc.parquet")
    assert outs[0].read_bytes() == outs[1].read_bytes()


def test_held_packets_delay_the_report_of_the_gap_s_loss(quick):
    # The receiver learns of the gap's loss only from the first packet after the hole
    # (RFC 3448 §5.1); with a FIFO MAC queue (§4.4) that packet comes after the held ones, so
    # the feedback sent while they drain carries p = 0 (§5.4). Without held packets
    # (countermeasure D) the hole is the first thing AP2 forwards: fewer p = 0 records, and
    # the first p > 0 record sooner after the reconnection, in the same seed.
    def drain(exp):
        con = store.connect(quick.out / exp)
        return dict(
            con.sql(
                """WITH g AS (SELECT key, seed FROM runs WHERE flow = 'mobile'
                              AND "roaming.handover.disconnect" = '4.5s')
                   SELECT g.seed, struct_pack(
                       n0 := count(*) FILTER (WHERE coalesce(x.p, 0) <= 0),
                       first := min(x.time) FILTER (WHERE x.p > 0) - 24.5)
                   FROM tfrc x JOIN g USING (key)
                   WHERE x.flow = 'mobile' AND x.event = 'feedback' AND x.time >= 24.5
                   GROUP BY g.seed"""
            ).fetchall()
        )

    held, discarded = drain("gaps"), drain("countermeasure-d")
    assert discarded
    for seed, d in discarded.items():
        h = held[seed]
        assert h["n0"] > d["n0"], (seed, h, d)
        assert h["first"] > d["first"], (seed, h, d)


def test_fig6_held_frames_runs_short_gaps_at_the_primary_condition(quick):
    # The cause experiment fig6-held-frames switches D on from 4.5 s only: at 1.5-3.5 s its
    # deadline is the run's whole duration, which no queued frame can reach, so those runs
    # are the primary condition's, every station's `tfrc` records equal to those of `gaps`
    # at the same period and seed; from 4.5 s the held frames are discarded, so the mobile's
    # records differ (its RTT after the reconnection no longer spans the gap).
    def records(exp):
        con = store.connect(quick.out / exp)
        rows = con.sql(
            """SELECT r.seed, r."roaming.handover.disconnect" AS gap, x.flow,
                      list((x.time, x.event, x.x_bps, x.p, x.rtt) ORDER BY x.time, x.event)
               FROM tfrc x JOIN runs r ON r.key = x.key AND r.flow = x.flow
               GROUP BY ALL"""
        ).fetchall()
        return {(seed, gap, flow): recs for seed, gap, flow, recs in rows}

    held, fig6 = records("gaps"), records("fig6-held-frames")
    short = [k for k in fig6 if tfrc_handover.gap_seconds(k[1]) <= 3.5]
    long = [k for k in fig6 if tfrc_handover.gap_seconds(k[1]) >= 4.5 and k[2] == "mobile"]
    assert len(short) == 4 * 10 and len(long) == 6
    for k in short:
        assert fig6[k] == held[k], k
    for k in long:
        assert fig6[k] != held[k], k


def test_the_counted_first_interval_is_the_mobile_s_packets_to_the_gap_s_first_loss(
    quick, tmp_path
):
    # Cause experiment counted-first-interval: the mobile's receiver counts its first loss
    # interval from the flow's first packet through the first lost one (ns-2.35's TFRCSink
    # with AdjustHistoryAfterSS_ 0). Alone at AP1 without frame errors the mobile loses
    # nothing before the leave; then its MAC queue (§4.1: 50 packets) takes the first 50
    # packets sent in the gap, less the few it still held at the leave (at most 5, as in
    # test_the_held_queue_overflows_in_a_long_gap), and tail-drops the next. So I_1 is the N
    # data packets sent before 20 s plus 46 to 51, the same after every period; at the
    # first report of the hole I_0 (the hole and a few arrivals, under 250 packets at these
    # periods) is shorter, so 1/p = max(I_0, I_1) = I_1 (RFC 3448 §5.4).
    r = tern_cli(
        "run",
        str(SCENARIO),
        "--out",
        str(tmp_path / "before"),
        "--seed",
        "1",
        "--set",
        "sim.duration=20s",
        "--set",
        'record=["tfrc"]',
    )
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "before" / "summary.json").read_text())
    before = summary["flows"]["mobile"]["tfrc"]["data_packets_sent"]
    con = store.connect(quick.out / "counted-first-interval")
    firsts = con.sql(
        """WITH g AS (SELECT key, 20 + CAST(rtrim("roaming.handover.disconnect", 's') AS DOUBLE)
                             AS back FROM runs WHERE flow = 'mobile' AND seed = 1)
           SELECT arg_min(1 / x.p, x.time) FROM tfrc x JOIN g USING (key)
           WHERE x.flow = 'mobile' AND x.event = 'feedback' AND x.p > 0 AND x.time >= g.back
           GROUP BY g.key"""
    ).fetchall()
    assert len(firsts) == 5
    values = {round(v) for (v,) in firsts}
    assert len(values) == 1, values
    assert before + 46 <= values.pop() <= before + 51
