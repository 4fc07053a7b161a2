"""The verdict protocol of `tern reproduce`: one verdict per claim over seeds at the primary
condition, one-sided claims, orderings, k of n, calibration left out of the count, and
sensitivity apart. Expected values follow from the rules in `tern.reproduce._verdict` and
the binomial distribution, computed by hand below."""

from __future__ import annotations

import importlib.machinery
import json
import math
import sys
import types
from pathlib import Path

import pytest

from conftest import P2P, assert_within_budget
from tern.reproduce import StudyError, load_study, reproduce
from tern.reproduce._evaluate import ClaimResult, check_causes
from tern.reproduce._study import Claim
from tern.reproduce._verdict import (
    CAUSE_SHOWN,
    OPEN,
    REPRODUCED,
    judge,
    median_interval,
    summary_line,
)

# --------------------------------------------------------------------------- rules


def test_median_interval_uses_the_binomial_order_statistics():
    # n = 10: P(Bin(10, 1/2) <= 1) = 11/1024, so (x_(2), x_(9)) covers 1 - 22/1024 = 97.9 %;
    # (x_(3), x_(8)) would cover 1 - 2 * 56/1024 = 89.1 % < 95 %.
    low, high, cov = median_interval([float(i) for i in range(10, 0, -1)])
    assert (low, high) == (2.0, 9.0)
    assert cov == pytest.approx(1 - 22 / 1024)
    # n = 5 cannot reach 95 %: the range, covering 1 - 2/32.
    low, high, cov = median_interval([3.0, 1.0, 2.0, 5.0, 4.0])
    assert (low, high, cov) == (1.0, 5.0, pytest.approx(1 - 2 / 32))
    # n = 20: j = 6 covers 1 - 2 * P(Bin(20, 1/2) <= 5) = 0.9882 (j = 7: 0.9423).
    p5 = sum(math.comb(20, i) for i in range(6)) / 2**20
    low, high, cov = median_interval([float(i) for i in range(1, 21)])
    assert (low, high, cov) == (6.0, 15.0, pytest.approx(1 - 2 * p5))


def test_a_two_sided_claim_is_judged_on_the_median():
    seeds = {1: 1.9, 2: 2.6, 3: 2.4}  # median 2.4
    assert judge("value", "verdict", 2.0, 0.5, seeds).verdict == REPRODUCED
    out = judge("value", "verdict", 2.0, 0.3, seeds)
    assert (out.value, out.verdict, out.k, out.n) == (2.4, OPEN, 3, 3)
    assert judge("value", "verdict", 2.0, 0.3, seeds, cause="rtt").verdict == CAUSE_SHOWN


def test_one_sided_claims_do_not_fail_for_being_better():
    # "finishes far sooner": ratio <= 0.9. 0.485 is better, not a failure.
    better = {1: 0.47, 2: 0.485, 3: 0.5}
    assert judge("at_most", "verdict", 0.9, 0.0, better).verdict == REPRODUCED
    assert judge("value", "verdict", 0.9, 0.1, better).verdict == OPEN
    assert judge("at_most", "verdict", 0.9, 0.0, {1: 0.95, 2: 0.91, 3: 0.2}).verdict == OPEN
    assert judge("at_least", "verdict", 100.0, 0.0, {1: 150.0, 2: 120.0}).verdict == REPRODUCED
    assert judge("at_least", "verdict", 100.0, 5.0, {1: 96.0, 2: 94.0}).verdict == REPRODUCED
    assert judge("at_least", "verdict", 100.0, 5.0, {1: 94.0, 2: 94.0}).verdict == OPEN


def test_yes_no_claims_and_orderings_count_k_of_n():
    # The order holds in 8 of 10 seeds; a seed without an answer does not hold.
    seeds: dict[int, object] = {s: (s <= 8) for s in range(1, 11)}
    out = judge("ordering", "verdict", 1.0, 0.2, seeds)
    assert (out.k, out.n, out.value, out.verdict) == (8, 10, 0.8, REPRODUCED)
    seeds[8] = None
    out = judge("ordering", "verdict", 1.0, 0.2, seeds)
    assert (out.k, out.verdict) == (7, OPEN)
    assert judge("share", "verdict", 1.0, 0.0, {1: 1, 2: 1, 3: 0}).verdict == OPEN
    assert judge("share", "verdict", 1.0, 0.0, {1: 1.0, 2: 2, 3: True}).verdict == REPRODUCED


def test_a_pooled_ordering_is_one_answer_not_one_seed():
    # A pooled claim's query runs once over every seed's runs: its answer is printed as
    # such, not as "0 of 1 seeds".
    from tern.reproduce._evaluate import ClaimResult
    from tern.reproduce._output import tern_value
    from tern.reproduce._study import Claim

    def printed(pooled: bool, answer: bool) -> str:
        claim = Claim("c", "e", "", 1.0, "", 0.0, "SELECT 1", kind="ordering", pooled=pooled)
        out = judge("ordering", "verdict", 1.0, 0.0, {0: answer}, pooled=pooled)
        return tern_value(ClaimResult(claim, out))

    assert printed(True, False) == "does not hold (one query over all seeds)"
    assert printed(True, True) == "holds (one query over all seeds)"
    assert printed(False, False) == "0 of 1 seeds"


def test_a_value_needs_most_seeds_to_give_one():
    # One run of ten with a value is no row.
    one_of_ten: dict[int, object] = {s: None for s in range(1, 11)}
    one_of_ten[4] = 4000.0
    out = judge("value", "verdict", 4000.0, 100.0, one_of_ten)
    assert out.value is None and out.verdict == OPEN and "only 1 of 10 seeds" in (out.error or "")
    # 8 of 10 is enough; NaN is no value; infinity is a value.
    eight: dict[int, object] = {s: 2.0 for s in range(1, 9)} | {9: None, 10: float("nan")}
    assert judge("value", "verdict", 2.0, 0.1, eight).verdict == REPRODUCED
    inf = judge("at_least", "verdict", 4000.0, 0.0, {1: float("inf"), 2: 5000.0, 3: 4500.0})
    assert (inf.value, inf.verdict) == (5000.0, REPRODUCED)


def test_a_cause_is_shown_only_while_the_findings_named_for_it_hold():
    def result(cid, role, experiment, values, **named):
        claim = Claim(cid, experiment, cid, 2.0, "", 0.1, "SELECT 1", role=role, **named)
        cause = named.get("cause", "")
        return ClaimResult(claim, judge("value", role, 2.0, 0.1, values, cause=cause))

    far, near = {1: 5.0, 2: 5.0, 3: 5.0}, {1: 2.0, 2: 2.05, 3: 1.95}
    rows = [
        result("shown", "verdict", "main", far, cause="fix", shown_by=("fix-holds",)),
        result("not-shown", "verdict", "main", far, cause="fix", shown_by=("fix-holds", "fix-x")),
        result("unnamed", "verdict", "main", far, cause="fix"),
        result("fix-holds", "finding", "fix", near),
        result("fix-x", "finding", "fix", far),
    ]
    check_causes(rows)
    verdicts = {r.claim.id: r.verdict for r in rows}
    assert verdicts["shown"] == CAUSE_SHOWN
    assert verdicts["not-shown"] == OPEN
    assert rows[1].error == "cause 'fix' not shown: fix-x does not hold"
    # Without `shown_by` the study names no finding, and its README carries the argument.
    assert verdicts["unnamed"] == CAUSE_SHOWN
    assert summary_line([r.verdict for r in rows], [r.claim.role for r in rows]).startswith(
        "3 claims: 0 reproduced, 2 not reproduced — cause shown, 1 open"
    )


def test_calibration_inputs_and_findings_stay_out_of_the_count():
    assert judge("value", "calibration", 1.0, 0.5, {1: 1.0}).verdict is None
    # A calibration that does not reach its claim says so rather than hiding it.
    missed = judge("value", "calibration", 10.0, 2.5, {1: 5.1, 2: 5.2})
    assert (missed.verdict, missed.holds) == (None, False)
    line = summary_line(
        [REPRODUCED, CAUSE_SHOWN, OPEN, REPRODUCED, None, None],
        ["verdict", "verdict", "verdict", "verdict", "calibration", "input"],
    )
    assert line == (
        "4 claims: 2 reproduced, 1 not reproduced — cause shown, 1 open "
        "(not counted: 1 calibration, 1 input)"
    )


# --------------------------------------------------------------------------- a study

STUDY = """\
title = "A study"

[paper]
title = "A paper"
authors = ["A. Author"]
venue = "A venue"
year = 2001

[primary]
"links.access.delay" = { value = "20ms", calibrated = "rtt-calibration", source = "the RTT" }
"links.access.rate" = { value = "10Mbps", source = "the paper's §2" }

[[experiments]]
name = "main"
scenario = "s.toml"
seeds = 4
set = { "sim.duration" = "3s", record = "[]" }
quick = { seeds = 2 }

[[claims]]
id = "rtt-calibration"
experiment = "main"
claim = "the ping-free RTT"
published = 0.04
unit = "s"
tolerance = 0.01
role = "calibration"
value = "SELECT 2 * 0.020"

[[claims]]
id = "goodput"
experiment = "main"
claim = "a 2 Mbit/s CBR flow through 5 % Bernoulli loss delivers 1.9 Mbit/s"
published = 1.9
unit = "Mbit/s"
tolerance = 0.1
value = "SELECT goodput_bps / 1e6 FROM runs WHERE flow = 'msgs'"

[[claims]]
id = "seeds-apart"
experiment = "main"
claim = "one seed's runs at a time"
published = 1
tolerance = 0
kind = "share"
value = "SELECT count(*) = 1 FROM runs WHERE flow = 'msgs'"

[[claims]]
id = "above-5"
experiment = "main"
claim = "goodput above 1.5 Mbit/s"
published = 1.5
tolerance = 0
kind = "at_least"
cause = "rate"
value = "SELECT goodput_bps / 1e6 FROM runs WHERE flow = 'msgs'"

[[claims]]
id = "pooled-runs"
experiment = "main"
claim = "all seeds at once: one flow per run"
published = 1
tolerance = 0
pooled = true
value = "SELECT count(*) / count(DISTINCT seed) FROM runs"

[[sensitivity]]
name = "rate"
experiment = "main"
points = { "links.access.rate" = ["1Mbps", "1500kbps"] }
claims = ["goodput"]
seeds = 1
source = "not in the paper"
"""


@pytest.fixture
def study_root(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "s.toml").write_text(P2P)
    (folder / "study.toml").write_text(STUDY)
    module = types.ModuleType("tern.reproduce.tiny")
    module.__spec__ = importlib.machinery.ModuleSpec("tern.reproduce.tiny", None)
    seen = []

    def figures(results):
        seen.append((sorted(results), dict(results.primary)))
        count = results["main"].sql("SELECT count(*) FROM runs").fetchall()[0][0]
        seen.append(count)
        return iter(())

    module.figures = figures  # type: ignore[attr-defined]
    module.seen = seen  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tern.reproduce.tiny", module)
    return tmp_path


def test_a_study_is_judged_per_seed_at_its_primary_condition(study_root, tmp_path):
    rep = reproduce("tiny", root=study_root, out=tmp_path / "out", jobs=2)
    by_id = {r.claim.id: r for r in rep.results}
    # Every seed's runs are judged apart: the query sees one run per seed.
    assert by_id["seeds-apart"].outcome.k == 4
    assert by_id["pooled-runs"].value == 1.0 and by_id["pooled-runs"].outcome.n == 1
    g = by_id["goodput"].outcome
    assert g.n == 4 and g.k == 4 and g.interval is not None and g.verdict == REPRODUCED
    assert by_id["rtt-calibration"].verdict is None
    assert rep.summary().startswith("4 claims: 4 reproduced")
    assert "(not counted: 1 calibration)" in rep.summary()
    # The sensitivity section reports the range and no verdict: below 1.5 Mbit/s a link
    # carries at most its rate, so the published 1.9 is outside.
    [s] = rep.sensitivity
    assert list(s.values) == ["links.access.rate = 1Mbps", "links.access.rate = 1500kbps"]
    assert s.span is not None and s.span[1] < 1.5 and s.inside is False
    # Figures get the runs of this condition only, and the condition itself.
    seen = sys.modules["tern.reproduce.tiny"].seen  # type: ignore[attr-defined]
    assert seen[0] == (["main"], {"links.access.delay": "20ms", "links.access.rate": "10Mbps"})
    assert seen[1] == 4
    # What it cost: 4 runs and 2 sensitivity points of one seed, all run now.
    assert (rep.cost.runs, rep.cost.runs_done_now) == (6, 6)
    assert rep.cost.simulation_cpu_s > 0 and rep.cost.evaluation_cpu_s > 0
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["summary"] == rep.summary()
    row = next(c for c in data["claims"] if c["id"] == "goodput")
    assert row["verdict"] == REPRODUCED and len(row["per_seed"]) == 4
    assert row["condition"] == {"links.access.delay": "20ms", "links.access.rate": "10Mbps"}
    md = (tmp_path / "out" / "report.md").read_text()
    assert rep.summary() in md and "calibrated on rtt-calibration" in md
    # --quick: the same condition, fewer seeds, the same verdicts.
    quick = reproduce("tiny", root=study_root, out=tmp_path / "quick", quick=True, jobs=2)
    assert [r.verdict for r in quick.results] == [r.verdict for r in rep.results]
    assert {r.claim.id: r.outcome.n for r in quick.results}["goodput"] == 2


def test_a_changed_condition_does_not_mix_with_earlier_runs(study_root, tmp_path):
    out = tmp_path / "out"
    reproduce("tiny", root=study_root, out=out, quick=True, jobs=2)
    path = study_root / "tiny" / "study.toml"
    path.write_text(STUDY.replace('value = "10Mbps"', 'value = "8Mbps"'))
    rep = reproduce("tiny", root=study_root, out=out, quick=True, jobs=2)
    assert {r.claim.id: r.outcome.k for r in rep.results}["seeds-apart"] == 2
    # 8 Mbit/s still carries the 2 Mbit/s flow: what changed is the runs' keys.
    assert len(list((out / "main" / "runs").iterdir())) == 4


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            (
                '"links.access.rate" = { value = "10Mbps", source = "the paper\'s §2" }',
                '"links.access.rate" = { value = "10Mbps" }',
            ),
            "primary.links.access.rate: a primary parameter needs a source or the claim",
        ),
        (
            ('role = "calibration"', 'role = "verdict"'),
            "primary.links.access.delay.calibrated: 'rtt-calibration' is not a claim with role",
        ),
        (
            ("quick = { seeds = 2 }", 'quick = { seeds = 2, grid = { "sim.seed" = ["1"] } }'),
            "experiments[0].quick: unknown key 'grid'",
        ),
        (
            (
                'set = { "sim.duration"',
                'grid = { "links.access.rate" = ["1Mbps"] }\nset = { "sim.duration"',
            ),
            "experiments[0].grid: links.access.rate is part of the primary condition",
        ),
        (('kind = "at_least"', 'kind = "above"'), "claims[3].kind: expected one of value, at_most"),
        (('cause = "rate"', 'cause = "nowhere"'), "claims[3].cause: no experiment or sensitivity"),
        (
            ('cause = "rate"', 'cause = "rate"\nshown_by = ["goodput"]'),
            "claims[3].shown_by: 'goodput' is not a finding of the cause experiment 'rate'",
        ),
        (
            ("pooled = true", 'pooled = true\nshown_by = ["goodput"]'),
            "claims[4].shown_by: names findings without a cause",
        ),
        (('claims = ["goodput"]', 'claims = ["nope"]'), "sensitivity[0].claims: no claim 'nope'"),
        (
            ("[[sensitivity]]", '[tables.t]\nruns = 1\nquery = "SELECT 1"\n\n[[sensitivity]]'),
            "tables.t.runs: expected str, got 1",
        ),
        (
            ("[[sensitivity]]", '[tables.t]\nquery = "SELECT 1"\nwhere = "x"\n\n[[sensitivity]]'),
            "tables.t: unknown key 'where'",
        ),
        (
            (
                "[[sensitivity]]",
                '[tables.t]\nruns = "seed = 1; DROP"\nquery = "SELECT 1"\n\n[[sensitivity]]',
            ),
            "tables.t.runs: expected one condition on the runs table",
        ),
    ],
)
def test_the_protocol_is_checked_when_the_study_is_read(study_root, change, message):
    path = study_root / "tiny" / "study.toml"
    assert change[0] in STUDY
    path.write_text(STUDY.replace(*change))
    with pytest.raises(StudyError) as e:
        load_study("tiny", study_root)
    assert str(path) in str(e.value) and message in str(e.value), str(e.value)


def test_a_claim_with_condition_columns_is_an_error_not_a_row(study_root, tmp_path):
    path = study_root / "tiny" / "study.toml"
    assert "SELECT goodput_bps / 1e6 FROM runs WHERE flow = 'msgs'\"\n\n[[claims]]" in STUDY
    path.write_text(
        STUDY.replace(
            "value = \"SELECT goodput_bps / 1e6 FROM runs WHERE flow = 'msgs'\"\n\n[[claims]]\n"
            'id = "seeds-apart"',
            'value = "SELECT goodput_bps / 1e6, flow FROM runs"\n\n[[claims]]\nid = "seeds-apart"',
        )
    )
    rep = reproduce("tiny", root=study_root, out=tmp_path / "out", quick=True, jobs=2)
    g = next(r for r in rep.results if r.claim.id == "goodput")
    assert g.value is None and g.verdict == OPEN
    assert "a claim gives one value" in (g.error or "")


def test_a_full_reproduction_fits_the_budget_and_gives_the_recorded_verdicts(tmp_path):
    # One shipped study's full run (wcdma-profile: 1 096 runs, a minute or two on 2 cores):
    # under 2 GiB in every process, judging claims and drawing figures at most a fifth of the
    # simulations' CPU time, and the verdicts its README and full-verdicts.json state.
    full = reproduce("wcdma-profile", out=tmp_path / "full", jobs=2)
    assert not full.quick
    assert_within_budget(full)
    recorded = json.loads((full.study.folder / "full-verdicts.json").read_text())
    assert {r.claim.id: r.verdict or r.claim.role for r in full.results} == recorded


def test_a_figure_module_that_fails_still_gives_the_verdicts(study_root, tmp_path):
    module = sys.modules["tern.reproduce.tiny"]

    def figures(results):
        yield ("x", None, "needs an experiment the study lacks")
        results["no-such-experiment"]

    module.figures = figures  # type: ignore[attr-defined]
    rep = reproduce("tiny", root=study_root, out=tmp_path / "out", quick=True, jobs=2)
    assert "tern.reproduce.tiny.figures failed (KeyError" in rep.figure_error
    assert "(it has: main)" in rep.figure_error
    assert rep.results and (tmp_path / "out" / "report.md").is_file()
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["figure_error"] == rep.figure_error and data["claims"]
