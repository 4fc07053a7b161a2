"""`tern reproduce wcdma-profile --quick`: every claim computes, the figures are drawn, and
what the study states independently of the swept round trip holds."""

from __future__ import annotations

import tomllib

import pytest

from conftest import ROOT
from tern import store
from tern.reproduce import reproduce, wcdma_profile

STUDY = ROOT / "scenarios" / "wcdma-profile" / "study.toml"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("wcdma-quick")
    return reproduce("wcdma-profile", quick=True, out=out, jobs=2)


def test_the_figures_ends_are_the_studys_grid():
    grids = {e["name"]: e.get("grid", {}) for e in tomllib.loads(STUDY.read_text())["experiments"]}
    for _, core, inet in wcdma_profile.ENDS:
        for name in ("buffer", "iw", "mtu", "sack"):
            assert core in grids[name]["links.core.delay"], name
            assert inet in grids[name]["links.internet.delay"], name


def test_quick_computes_every_claim_and_draws_every_figure(quick):
    assert all(r.error is None and r.value is not None for r in quick.results)
    assert [name for name, _, _ in quick.figures] == [
        "buffer",
        "initial-window",
        "mtu",
        "sack",
        "sack-cwnd",
        "split",
    ]
    assert (quick.out / "report.md").is_file()


def test_without_loss_tcp_sees_only_the_round_trip_not_its_split(quick):
    # Every split of the quick run holds per-PDU + core delay at 220 ms one way, so without
    # PDU loss (and an RLC whose settings keep up) the 16 KiB window-limited download takes
    # the same time whatever the split: window / round trip does not depend on where the
    # round trip is spent. 1 %: the per-PDU share adds at most one 10 ms TTI of alignment.
    con = store.connect(quick.out / "split")
    rows = con.sql(
        """SELECT "links.radio.delay", "links.core.delay", 8e6 / tcp_transfer_time_s
           FROM runs WHERE flow = 'download' AND "links.radio.rlc.pdu_loss.p" = '0'
             AND "flows.download.transport.recv_buffer" = '16KiB'"""
    ).fetchall()
    assert len(rows) >= 3
    assert {int(pdu[:-2]) + int(core[:-2]) for pdu, core, _ in rows} == {220}
    speeds = [r[2] for r in rows]
    assert max(speeds) / min(speeds) < 1.01, rows


def test_round_trip_independent_statements_of_the_study_hold(quick):
    by_id = {r.claim.id: r for r in quick.results}
    # §5.5: several packets lost at the limited GGSN buffer; no slow start with SACK; an
    # RTO after fast retransmit without it (4.4BSD-Lite Reno). §5.2: 128 KB ~ 64 KB.
    for claim in (
        "sack-several-losses",
        "sack-no-slow-start",
        "reno-times-out",
        "buffer-128k-like-64k-short",
        "buffer-128k-like-64k-long",
    ):
        assert by_id[claim].passed, (claim, by_id[claim].value)


def test_no_download_beats_the_bearer(quick):
    # A TCP download cannot carry more than the 384 kbit/s bearer (less the RLC, IP and
    # TCP headers): the study's Fig. 6 "maximum limit".
    con = store.connect(quick.out / "buffer")
    fastest = con.sql("SELECT max(8e6 / tcp_transfer_time_s) FROM runs").fetchall()[0][0]
    assert 0 < fastest < 384e3
