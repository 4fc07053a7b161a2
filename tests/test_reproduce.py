"""`tern reproduce`: a study's experiments, claims checked against the published values,
figures and reports."""

from __future__ import annotations

import tomllib

import polars as pl
import pytest

import tern
from conftest import ROOT, assert_quick_agrees_with_full, tern_cli
from tern import store
from tern.reproduce import list_studies, load_study, lte_switch, reproduce

EFFECT = ROOT / "scenarios" / "lte-switch" / "effect.toml"


def test_list_names_the_studies():
    assert "lte-switch" in list_studies()
    assert load_study("lte-switch").claims


def test_unknown_study_is_a_clear_error():
    r = tern_cli("reproduce", "no-such-study")
    assert r.returncode == 2
    assert "no study 'no-such-study'" in r.stderr and "lte-switch" in r.stderr


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    """`tern reproduce lte-switch --quick`, run once for the tests of this module."""
    out = tmp_path_factory.mktemp("lte-switch-quick")
    return reproduce("lte-switch", quick=True, out=out, jobs=2)


def test_lte_switch_quick_reproduces_the_switch_and_writes_reports(quick):
    rep, out = quick, quick.out
    by_id = {r.claim.id: r for r in rep.results}
    assert len(by_id) == len(load_study("lte-switch").claims)
    # The study's headline: the message after the switch has >= 90 % lower delay
    # (published 14 s -> 0.7 s, 95 %), judged once over the seeds of the primary condition.
    cut = by_id["switch-cuts-delay"].outcome
    assert cut.n == 3 and all(v is not None and v >= 0.90 for v in cut.per_seed.values())
    # The input: #2's first message crosses the target cell alone, 1052 B on the wire
    # at 5 Mbit/s + 670 ms, then 1 Gbit/s + 30 ms (effect.toml, study.toml's primary).
    wire = 1052 * 8
    after = by_id["delay-after-switch"]
    assert after.verdict is None and after.claim.role == "input"
    assert after.value == pytest.approx(wire / 5e6 + 0.670 + wire / 1e9 + 0.030, abs=1e-6)
    # The mechanism switches after the handover, within T_switch, in every seed.
    assert by_id["switch-detected"].outcome.k == 3
    assert all(r.error is None for r in rep.results if r.value is not None)
    html = (out / "report.html").read_text()
    md = (out / "report.md").read_text()
    for claim in load_study("lte-switch").claims:
        assert claim.claim[:40] in md
    # The paper is cited, not a path only the developers' machine has.
    assert "Yoshiaki Nishikawa and Takahiro Shiroshima" in md and "shared/papers" not in md
    assert html.count("<svg") >= 3
    # The statistical evaluation is in the report: the sensitivity sections, the spare
    # connection's note and the written conclusion.
    for text in (
        "notice-interval",
        "source-cell-delay",
        "survey-constant-cell",
        "Note on #2:",
        "Conclusion. Over ",
    ):
        assert text in md, text
    # Running again resumes: nothing is re-run, same claim values.
    again = reproduce("lte-switch", quick=True, out=out, jobs=2)
    assert [r.value for r in again.results] == [r.value for r in rep.results]


def test_lte_switch_survey_ratio_is_two_passes_through_the_queue(quick):
    """TCP's delay just after the survey's loss is the wait for its first delivery after the
    handover plus one more pass through the UE's FIFO queue, which UDP's delay measures: so
    TCP over UDP is about 2 whatever the handset's back-off (scenarios/lte-switch/README.md)."""
    by_id = {r.claim.id: r for r in quick.results}
    ratio = by_id["tcp-vs-udp-after-loss"]
    assert ratio.claim.cause == "survey-backoff"
    assert ratio.value == pytest.approx(2.0, abs=0.25)
    # A FIFO shared with UDP: TCP's delay = wait + a queue delay that has drained by about
    # a second since the gap's end (5 % of the sum).
    assert by_id["survey-tcp-two-queue-passes"].value == pytest.approx(1.0, abs=0.1)
    variants = by_id["survey-ratio-not-backoff"].outcome
    assert variants.n >= 1 and variants.k == variants.n


def test_lte_switch_quick_agrees_with_the_full_run(quick):
    assert_quick_agrees_with_full(quick)


def _seconds_per_message() -> tuple[float, int]:
    app = tomllib.loads(EFFECT.read_text())["flows"][0]["app"]
    return lte_switch.seconds(app["interval"]), int(app["size"].removesuffix("B"))


def test_lte_switch_constants_match_the_scenario():
    scenario = tomllib.loads(EFFECT.read_text())
    radio = next(link for link in scenario["links"] if link["name"] == "radio")
    assert lte_switch.seconds(radio["delay"]) == lte_switch.RADIO_DELAY_S
    assert _seconds_per_message() == (lte_switch.MESSAGE_PERIOD_S, lte_switch.MESSAGE_BYTES)
    assert lte_switch.seconds("670ms") == pytest.approx(0.67)
    assert lte_switch.seconds("20.025s") == pytest.approx(20.025)


def test_lte_switch_statistics_are_paired_and_consistent(quick):
    runs = lte_switch.run_means(store.connect(quick.out / "effect"))
    policy = pl.col(lte_switch.POLICY_KEY)
    # Every run has its handover and measures every message of the window: one
    # each message period for WINDOW_S, all delivered by the end of the run.
    assert runs["handover"].null_count() == 0
    per_window = round(lte_switch.WINDOW_S / lte_switch.MESSAGE_PERIOD_S)
    assert (runs["messages"] == per_window).all()
    # Never switches; the oracle switches exactly at handover completion.
    assert (
        runs.filter(policy == "never")["switched_at"].null_count()
        == runs.filter(policy == "never").height
    )
    oracle = runs.filter(policy == "oracle")
    assert (oracle["switched_at"] == oracle["handover"]).all()
    # The mechanism switches only inside (T_handover, T_handover + T_switch).
    notice = runs.filter((policy == "notice") & pl.col("switched_at").is_not_null())
    assert notice.height > 0
    assert (notice["switched_at"] > notice["handover"]).all()
    assert (notice["switched_at"] < notice["handover"] + 10.0).all()

    stats = lte_switch.classify(lte_switch.pair_by_policy(runs), 3.0)
    # One row per seed, each with all three policies.
    assert stats.height * 3 == runs.height
    assert stats.select("d_notice", "d_never", "d_oracle").null_count().row(0) == (0, 0, 0)
    assert (stats["reduction"] == stats["d_never"] - stats["d_notice"]).all()
    # A missed switch is one the mechanism did not make; a false one, one it made.
    assert not (stats["missed"] & stats["switched"]).any()
    assert not (stats["false_switch"] & ~stats["switched"]).any()


def _frame(rows: list[dict]) -> pl.DataFrame:
    base = {
        lte_switch.LOSS: "3s",
        "handover": 20.0,
        "switched_at": None,
        "d_notice": 5.0,
        "d_never": 5.0,
        "d_oracle": 5.0,
    }
    return pl.DataFrame([{**base, **r} for r in rows], schema_overrides={"switched_at": pl.Float64})


def test_false_and_missed_switches_follow_their_definitions():
    c = lte_switch.classify(
        _frame(
            [
                # 0: no switch, the oracle would have gained 2 s > 1 s: missed.
                {"d_never": 10.0, "d_oracle": 8.0, "d_notice": 10.0},
                # 1: no switch, the oracle gains only 0.5 s: not missed.
                {"d_never": 10.0, "d_oracle": 9.5, "d_notice": 10.0},
                # 2: switched and better: neither.
                {"switched_at": 20.5, "d_never": 10.0, "d_oracle": 2.0, "d_notice": 3.0},
                # 3: switched and worse by more than one message period: false.
                {"switched_at": 20.5, "d_never": 2.0, "d_oracle": 2.5, "d_notice": 2.5},
                # 4: switched although the handover lost nothing: false.
                {lte_switch.LOSS: "0s", "switched_at": 20.5, "d_never": 9.0, "d_notice": 1.0},
            ]
        )
    )
    assert c["missed"].to_list() == [True, False, False, False, False]
    assert c["false_switch"].to_list() == [False, False, False, True, True]
    assert c["reduction"].to_list() == [0.0, 0.0, 7.0, -0.5, 8.0]


def test_no_handover_no_switch_and_no_false_switch():
    """Without a handover the UE has no T_handover, so the mechanism cannot switch, however
    lossy the link and however short T_recvinterval: the false-switch rate is 0."""
    rows = []
    for seed in (1, 2, 3):
        for policy in ("notice", "never", "oracle"):
            run = tern.run(
                EFFECT,
                seed=seed,
                set={
                    "sim.duration": "30s",
                    "links.radio.cell.train.count": "0",
                    "links.radio.loss": '{ kind = "bernoulli", p = 0.02 }',
                    "flows.tcp.switcher.policy": policy,
                    "flows.tcp.switcher.recv_interval": "1s",
                },
            )
            sw = run.summary["flows"]["tcp"]["switcher"]
            assert sw["handovers_seen"] == 0
            assert sw["switched_at_s"] is None
            if policy == "notice":
                rows.append(
                    {
                        lte_switch.LOSS: "3s",
                        lte_switch.RECV: "1s",
                        lte_switch.SWITCH: "10s",
                        "handover": None,
                        "switched_at": sw["switched_at_s"],
                        "d_notice": None,
                        "d_never": None,
                        "d_oracle": None,
                    }
                )
    frame = pl.DataFrame(
        rows,
        schema_overrides={
            c: pl.Float64 for c in ("handover", "switched_at", "d_notice", "d_never", "d_oracle")
        },
    )
    c = lte_switch.classify(frame)
    assert not c["false_switch"].any() and not c["missed"].any()


def test_spare_connection_floor_is_the_target_cells_one_way_delay(quick):
    """#2's fastest message crosses the target cell alone: 1052 B on the wire (20 B IPv4,
    32 B TCP with timestamps, 1000 B) at 5 Mbit/s + 670 ms, then 1 Gbit/s + 30 ms; #1's
    fastest one the source cell's 20 ms radio delay instead (effect.toml)."""
    spare = lte_switch.spare_delay(store.connect(quick.out / "effect"))  # the lowest seed
    wire = 1052 * 8
    assert spare is not None
    assert spare.floor == pytest.approx(wire / 5e6 + 0.670 + wire / 1e9 + 0.030, abs=1e-6)
    assert spare.source_floor == pytest.approx(wire / 5e6 + 0.020 + wire / 1e9 + 0.030, abs=1e-6)
    assert spare.max_excess >= 0


def test_survey_crowded_cell_is_a_fifo_whose_burst_is_in_departure_time(quick):
    """The crowded cell's calibration rests on the UE's buffer being FIFO with loss decided at
    departure: the first UDP message after the send-time gap leaves when the burst ends, the
    last one before it just before the burst starts, so d_after = burst + d_before - gap
    (study.toml: burst 19 s), up to one message's serialization at the crowded grant."""
    study = load_study("lte-switch")
    burst = lte_switch.seconds(study.experiment("survey").primary[lte_switch.LOSS].value)
    con = store.connect(quick.out / "survey")
    rows = con.sql(
        """WITH u AS (SELECT key, seed, sent, delay,
                             lag(sent) OVER (PARTITION BY key ORDER BY sent) AS prev_sent,
                             lag(delay) OVER (PARTITION BY key ORDER BY sent) AS prev_delay
                      FROM delay JOIN runs USING (key)
                      WHERE delay.flow = 'udp' AND runs.flow = 'udp')
           SELECT seed, arg_max(prev_delay, sent - prev_sent), arg_max(delay, sent - prev_sent),
                  max(sent - prev_sent)
           FROM u GROUP BY seed ORDER BY seed"""
    ).fetchall()
    assert len(rows) == 3
    for _, before, after, gap in rows:
        # Fig. 3: UDP about 6 s just before the loss and 23 s just after, a gap of about 2 s.
        assert 1.5 < gap < 2.5
        assert after == pytest.approx(burst + before - gap, abs=1052 * 8 / 10_500)
