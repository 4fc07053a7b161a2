"""`tern reproduce`: a study's experiments, claims checked against the published values,
figures and reports."""

from __future__ import annotations

from conftest import tern_cli
from tern.reproduce import list_studies, load_study, reproduce


def test_list_names_the_studies():
    assert "lte-switch" in list_studies()
    assert load_study("lte-switch").claims


def test_unknown_study_is_a_clear_error():
    r = tern_cli("reproduce", "no-such-study")
    assert r.returncode == 2
    assert "no study 'no-such-study'" in r.stderr and "lte-switch" in r.stderr


def test_lte_switch_quick_reproduces_the_switch_and_writes_reports(tmp_path):
    rep = reproduce("lte-switch", quick=True, out=tmp_path, jobs=2)
    by_id = {r.claim.id: r for r in rep.results}
    # The study's headline: the message after the switch has >= 90 % lower delay
    # (published 14 s -> 0.7 s, 95 %).
    cut = by_id["switch-cuts-delay"]
    assert cut.value is not None and cut.value >= 0.90 and cut.passed
    assert all(r.error is None for r in rep.results)
    html = (tmp_path / "report.html").read_text()
    md = (tmp_path / "report.md").read_text()
    for claim in load_study("lte-switch").claims:
        assert claim.claim[:40] in md
    assert html.count("<svg") >= 3
    # Running again resumes: nothing is re-run, same claim values.
    again = reproduce("lte-switch", quick=True, out=tmp_path, jobs=2)
    assert [r.value for r in again.results] == [r.value for r in rep.results]
