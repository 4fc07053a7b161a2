"""`tern reproduce wlan-bufferbloat`: the study's claims and figures."""

from __future__ import annotations

import pytest

from conftest import assert_quick_agrees_with_full
from tern.reproduce import load_study, reproduce
from tern.store import connect


@pytest.fixture(scope="module")
def wlan_quick(tmp_path_factory):
    """`tern reproduce wlan-bufferbloat --quick`, run once for the tests of this module."""
    out = tmp_path_factory.mktemp("wlan-bufferbloat-quick")
    return reproduce("wlan-bufferbloat", quick=True, out=out, jobs=2)


def test_wlan_bufferbloat_quick_gives_the_full_runs_verdicts(wlan_quick):
    assert_quick_agrees_with_full(wlan_quick)


def test_wlan_bufferbloat_quick_checks_every_claim(wlan_quick):
    rep = wlan_quick
    # Every claim is evaluated; an error only says that a cause tested was not shown.
    for r in rep.results:
        assert r.value is not None, r.claim.id
        not_shown = f"cause {r.claim.cause!r} not shown"
        assert r.error is None or r.error.startswith(not_shown), (r.claim.id, r.error)
    by_id = {r.claim.id: r for r in rep.results}
    # linux-none's cwnd cannot pass where Linux 3.13's 4 MiB send buffer stops it: 4194304 /
    # 4352 B per queued segment = 963 segments, plus the 3 segments of slack with which
    # tcp_is_cwnd_limited still lets it grow and one ACK's slow-start increase (≤ 2).
    assert 0 < by_id["none-cwnd-near-1000"].value <= 963 + 3 + 2
    # Linux 3.13's TSQ charges each segment its truesize, 4352 B, against 131072 B: 31
    # segments below TCP (while the pacing term stays under 128 KiB), all in ath9k's
    # 123-frame driver queue, so linux-tsq's qdisc stays (nearly) empty; CoDel drops once
    # packets wait more than 5 ms for 100 ms.
    tsq_codel = by_id["tsq-codel-send-queue-under-150"].outcome
    assert tsq_codel.k == tsq_codel.n
    # At the paper's MAC rates Linux 3.13's Minstrel-HT, its probes sent alone as ath9k
    # sends them, gives the paper's MPDU error rate (Fig. 5: 0.05-0.2) on the channel
    # without small-scale fading (no-fading), and so does an SNR oracle in its place
    # (ideal-rate) on the fading channel: what lies above it there is the rate control's
    # over the fades. Fading can only add errors at the same mean SNR.
    flat = by_id["no-fading-mpdu-error-rate-median"].value
    assert 0.05 <= flat <= 0.2
    assert 0.05 <= by_id["ideal-rate-mpdu-error-rate-median"].value <= 0.2
    assert by_id["mpdu-error-rate-median"].value > flat
    # Fades four times shorter than TGn's 1.2 km/h ones (short-fades: f_d 23 Hz, the channel
    # decorrelating in about 20 ms) end before ath9k's 30 tries and mac80211's 100 ms reorder
    # release give a segment up, so linux-none's TCP keeps its window and the standing queue
    # forms: every run below 20 Mbit/s waits over 500 ms, as the paper's did.
    fades = by_id["short-fades-none-rtt-over-500ms-below-20mbps"].outcome
    assert fades.k == fades.n
    # A lower retry-out index declares more MPDUs lost, so index 2 carries the least.
    ordering = by_id["fixed-2-lowest-throughput-above-30mbps"].outcome
    assert ordering.k == ordering.n
    # On a link that loses no TCP segment (no-link-loss: the same channel, ath9k's retry
    # limit lifted and the reordering buffer waiting) nothing stops CUBIC's growth but the
    # send buffer: linux-none's window reaches the cap above, 963 segments.
    assert 963 <= by_id["no-link-loss-none-cwnd-near-1000"].value <= 963 + 3 + 2
    # Compound TCP under a standing queue is Reno: it fills whatever queue there is. On a
    # link that loses no segment Windows' ping therefore waits behind at most 128 + 123
    # packets with the short queue, less than behind 1000 + 123 (no-link-loss-windows).
    short = by_id["no-link-loss-windows-128pkt-rtt-below-20mbps"].value
    assert short < by_id["no-link-loss-windows-1000pkt-rtt-below-20mbps"].value
    # A third receive chain at the AP (three-chains) adds a branch to its maximal-ratio
    # combining: 10·log10(3/2) ≈ 1.8 dB of array gain and one more order of diversity for
    # every MCS (radio/fading.rs), so at 95 m linux-none's uplink carries more, seed by
    # seed. (Whether its queue, and so its ping, grows with it varies by seed: not asserted.)
    for seed in range(1, rep.study.experiment("three-chains").seeds + 1):
        two, three = (
            _none_at_95m(rep.out / e, seed, "upload", "goodput_bps")
            for e in ("linux", "three-chains")
        )
        assert three > two, (seed, two, three)
    # The calibration claim and the findings stay out of the count.
    roles = {r.claim.id: r.claim.role for r in rep.results}
    assert roles["windows-rtt-below-20mbps"] == "calibration"
    assert by_id["windows-rtt-below-20mbps"].verdict is None


def _none_at_95m(folder, seed: int, flow: str, column: str) -> float:
    """`column` of `flow` in linux-none's run without the scheme at 95 m in `seed`'s run of
    `folder`."""
    con = connect(folder)
    # An experiment that runs without the scheme only has no scheme column.
    columns = {c[0] for c in con.execute("DESCRIBE runs").fetchall()}
    scheme = "wifi.wlan.retry_out.enabled"
    off = f""" AND "{scheme}" = 'false'""" if scheme in columns else ""
    (value,) = con.execute(
        f"""SELECT {column} FROM runs WHERE flow = ? AND seed = ?
        AND "nodes.sta.position" = '[95, 0, 0]' AND "wifi.wlan.qdisc.kind" = 'droptail'
        AND "flows.upload.transport.tsq" = '1GB'"""
        + off,
        [flow, seed],
    ).fetchone()
    return value


def test_wlan_bufferbloat_quick_writes_the_report_and_figures(wlan_quick):
    rep, out = wlan_quick, wlan_quick.out
    md = (out / "report.md").read_text()
    for claim in load_study("wlan-bufferbloat").claims:
        assert claim.claim[:40] in md
    assert [name for name, _, _ in rep.figures] == [
        "rate-error",
        "ping-rtt",
        "send-queue",
        "throughput",
        "ping-rtt-over-time",
        "cwnd",
        "send-queue-over-time",
        "fixed-index",
    ]
    # Each caption names its condition.
    for _, _, caption in rep.figures:
        assert "receive antennas" in caption
    # Inline SVG, or PNG for a figure whose SVG is too large (report.SVG_LIMIT_BYTES).
    html = (out / "report.html").read_text()
    assert html.count("<svg") + html.count('<img src="data:image/png') >= 8
