"""`tern reproduce wlan-bufferbloat`: the study's claims and figures."""

from __future__ import annotations

import pytest

from tern.reproduce import load_study, reproduce


@pytest.fixture(scope="module")
def wlan_quick(tmp_path_factory):
    """`tern reproduce wlan-bufferbloat --quick`, run once for the tests of this module."""
    out = tmp_path_factory.mktemp("wlan-bufferbloat-quick")
    return reproduce("wlan-bufferbloat", quick=True, out=out, jobs=2)


def test_wlan_bufferbloat_quick_checks_every_claim_and_draws_the_figures(wlan_quick):
    rep, out = wlan_quick, wlan_quick.out
    assert all(r.error is None and r.value is not None for r in rep.results)
    by_id = {r.claim.id: r for r in rep.results}
    # The mechanism's headline (paper Fig. 6 (b)): with the AP's index every run at 50 Mbit/s
    # and below keeps its mean ping RTT under 100 ms, where without it linux-none's exceeds
    # 200 ms below 40 Mbit/s (Fig. 6 (a)).
    assert by_id["scheme-rtt-under-100ms-to-50mbps"].passed
    assert by_id["none-rtt-over-200ms-below-40mbps"].passed
    # linux-none's cwnd cannot pass where Linux 3.13's 4 MiB send buffer stops it: 4194304 /
    # 4352 B per queued segment = 963 segments, plus the 3 segments of slack with which
    # tcp_is_cwnd_limited still lets it grow and one ACK's slow-start increase (≤ 2). (Below
    # 20 Mbit/s long Rayleigh fades make the MAC drop frames now and then, so a run may stay
    # under the cap.)
    assert 0 < by_id["none-cwnd-near-1000"].value <= 963 + 3 + 2
    # TSQ and CoDel keep the send queue short (Fig. 7 (a)).
    assert by_id["tsq-codel-send-queue-under-150"].passed
    # Windows 10 and OS X 10.11: one row per kind and swept queue. OS X's send buffer
    # (tcp_sendspace, 256 segments) bounds its queue, so a longer interface queue adds little;
    # Windows' does not, and a 1000-packet queue holds its ping longer than a 128-packet one.
    os_rows = {
        r.condition: r.value for r in rep.results if r.claim.id == "os-rtt-350-700ms-below-20mbps"
    }
    assert len(os_rows) == 4
    # (--quick runs one receive-antenna count, study.toml: 2.)
    row = "kind = {}, os_queue = {}, rx_antennas = 2"
    win = {q: os_rows[row.format("windows10", q)] for q in ("128pkt", "1000pkt")}
    mac = {q: os_rows[row.format("macos1011", q)] for q in ("128pkt", "1000pkt")}
    assert win["1000pkt"] > 2 * win["128pkt"]
    assert mac["1000pkt"] < win["1000pkt"]
    md = (out / "report.md").read_text()
    for claim in load_study("wlan-bufferbloat").claims:
        assert claim.claim[:40] in md
    assert {name for name, _, _ in rep.figures} == {
        "rate-error",
        "ping-rtt",
        "ping-rtt-over-time",
        "send-queue",
        "throughput",
        "cwnd",
        "send-queue-over-time",
        "fixed-index",
    }
    # Inline SVG, or PNG for a figure whose SVG is too large (report.SVG_LIMIT_BYTES).
    html = (out / "report.html").read_text()
    assert html.count("<svg") + html.count('<img src="data:image/png') >= 8
