"""A plot for every trace a user can record: QUIC, TCP segments (time-sequence graph and
acknowledged throughput), 802.11 (rate, failed MPDUs, A-MPDU size), TFRC, RSSI, RLC, and the
handover and roaming marks on every time plot; `tern report` on a QUIC run."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest

import tern
from conftest import EXAMPLES, tern_cli
from tern import plots, report

ROOT = EXAMPLES.parent


def _lines(panel: plots.Panel) -> dict[str, plots.Line]:
    return {line.label: line for line in panel.lines}


@pytest.fixture(scope="module")
def bulk(tmp_path_factory) -> tern.Run:
    out = tmp_path_factory.mktemp("bulk") / "run"
    return tern.run(
        EXAMPLES / "p2p-bulk.toml",
        set={"sim.duration": "3s", "record": '["segments"]'},
        out=out,
    )


def test_time_sequence_graph_and_acknowledged_throughput_from_segments(bulk):
    assert plots.available(bulk) == ["throughput", "tseq"]
    seg = bulk.series("segments")
    lines = _lines(plots.timeseries_data(bulk, "tseq"))
    sent = lines["bulk (client): segments"]
    data = seg.filter(
        (seg["endpoint"] == "client") & (seg["len"] > 0) & (seg["retransmission"] == 0)
    )
    assert np.array_equal(sent.y, (data["seq"] + data["len"]).to_numpy() / 1e6)
    ack = lines["bulk: ACK from the peer"]
    assert np.all(np.diff(ack.y) >= 0), "a cumulative ACK never goes back"
    # Throughput: the bytes the receiver's cumulative ACK covers, per bin. At the end of the
    # run the receiver has acknowledged all it delivered but at most one delayed ACK's worth
    # (RFC 1122 §4.2.3.2: an ACK at least every second full-sized segment, 2 x 1448 B).
    (line,) = plots.timeseries_data(bulk, "throughput", bin=0.1).lines
    acked = np.sum(line.y[:-1] * 1e6 * np.diff(line.x)) / 8
    delivered = bulk.summary["flows"]["bulk"]["bytes_delivered"]
    assert 0 <= delivered - acked <= 2 * 1448, (delivered, acked)


def test_quic_run_plots_congestion_window_and_rtt(tmp_path):
    out = tmp_path / "quic"
    run = tern.run(
        EXAMPLES / "p2p-quic.toml",
        set={"sim.duration": "3s", "record": '["quic", "qlog"]'},
        out=out,
    )
    assert plots.available(run) == ["cwnd", "inflight", "rtt"]
    cwnd = _lines(plots.timeseries_data(run, "cwnd"))
    # The data's sender (the client of a bulk upload) ends at the summary's final window.
    final = run.summary["flows"]["bulk"]["quic"]["final_cwnd"]
    assert cwnd["bulk (client, QUIC)"].y[-1] == final / 1e3
    srtt = _lines(plots.timeseries_data(run, "rtt"))["bulk (client, QUIC SRTT)"]
    assert srtt.y[-1] == pytest.approx(run.summary["flows"]["bulk"]["quic"]["final_srtt_s"] * 1e3)
    res = tern_cli("plot", str(out))
    assert res.returncode == 0, res.stderr
    assert {p.name for p in (out / "plots").iterdir()} == {"cwnd.png", "inflight.png", "rtt.png"}


def test_quic_report_lists_its_traces_and_quic_section(tmp_path):
    out = tmp_path / "file"
    tern.run(
        EXAMPLES / "p2p-quic.toml",
        set={
            "sim.duration": "3s",
            "record": '["quic", "qlog"]',
            "flows.bulk.app": '{ kind = "file", size = "200kB" }',
        },
        out=out,
    )
    res = tern_cli("report", str(out))
    assert res.returncode == 0, res.stderr
    md = (out / "report.md").read_text()
    assert "This run recorded no traces" not in md
    assert "## QUIC" in md and "handshake (ms)" in md
    assert "bulk.client.sqlog" in md
    # A download's data go from the flow's far end (the server) to the client.
    assert "receiver → sender" in md
    assert "9\\." not in md and "0\\." not in md  # numbers are not escaped


@pytest.fixture(scope="module")
def wifi() -> tern.Run:
    return tern.run(
        EXAMPLES / "wifi-ht-upload.toml", set={"sim.duration": "2s", "record": '["wifi"]'}
    )


def test_wifi_views_show_mcs_failed_mpdus_and_ampdu_sizes(wifi):
    assert plots.available(wifi) == ["mcs", "retries", "ampdu"]
    # rate_control = constant MCS 7 (the scenario): every data PPDU of the station at MCS 7.
    rate = _lines(plots.timeseries_data(wifi, "mcs"))
    assert np.all(rate["wlan: sta → ap"].y == 7)
    # An HT A-MPDU holds 1 to 64 MPDUs (IEEE 802.11-2020 §10.24.7.7: a 64-MPDU BlockAck window).
    sizes = _lines(plots.timeseries_data(wifi, "ampdu"))["wlan: sta → ap"].y
    assert sizes.min() >= 1 and sizes.max() <= 64 and sizes.max() > 1
    failed = _lines(plots.timeseries_data(wifi, "retries"))["wlan: sta → ap"].y
    assert np.all(np.diff(failed) >= 0)
    air = wifi.series("wifi")
    mine = air.filter((air["from"] == "sta") & (air["kind"] != "bar"))
    assert failed[-1] == (mine["mpdus"].sum() - mine["acked"].sum())
    for kind in ("mcs", "retries", "ampdu"):
        assert plots.timeseries(wifi, kind).axes[0].has_data()
    # A constant rate probes nothing: no line of probes.
    assert "wlan: sta → ap (probes)" not in rate


def test_the_rate_view_shows_minstrels_probes_apart():
    # Minstrel-HT probes (Linux 3.x: one probe per 16 + 2 x the average A-MPDU length new
    # frames): its probes form a line of their own, every probe PPDU of the trace on it
    # and none on the main line.
    run = tern.run(
        EXAMPLES / "wifi-ht-upload.toml",
        set={
            "sim.duration": "2s",
            "record": '["wifi"]',
            "wifi.wlan.rate_control": '{ kind = "minstrel" }',
        },
    )
    rate = _lines(plots.timeseries_data(run, "mcs"))
    air = run.series("wifi")
    mine = air.filter((air["from"] == "sta") & (air["kind"] != "bar"))
    probes = mine.filter(mine["probe"].cast(pl.Boolean))
    assert probes.height > 0
    assert len(rate["wlan: sta → ap (probes)"].y) == probes.height
    assert len(rate["wlan: sta → ap"].y) == mine.height - probes.height


def test_roaming_is_marked_on_every_time_plot_and_tfrc_and_rssi_plotted(tmp_path):
    run = tern.run(
        ROOT / "tfrc-handover" / "handover.toml",
        set={"sim.duration": "25s", "record": '["tfrc", "roaming", "rssi"]'},
    )
    assert {"tfrc", "rssi"} <= set(plots.available(run))
    roams = run.series("roaming")
    for kind in ("tfrc", "rssi"):
        ax = plots.timeseries(run, kind).axes[0]
        marks = [ln for ln in ax.get_lines() if ln.get_label() and "roaming" in str(ln.get_label())]
        labels = {str(ln.get_label()) for ln in marks}
        assert labels == {f"roaming: {e}" for e in roams["event"].unique()}
        # One vertical line per roaming event, at its time.
        vertical = [ln for ln in ax.get_lines() if len(set(ln.get_xdata())) == 1]
        assert sorted(ln.get_xdata()[0] for ln in vertical) == sorted(roams["time"].to_list())
    rssi = plots.timeseries_data(run, "rssi")
    assert not rssi.zero_based and all(np.all(line.y < 0) for line in rssi.lines)  # dBm


def test_rlc_buffer_and_handover_marks(tmp_path):
    run = tern.run(
        ROOT / "wcdma-profile" / "download.toml",
        set={"sim.duration": "5s", "record": '["rlc"]', "flows.download.app.bytes": "100KB"},
    )
    panel = plots.timeseries_data(run, "rlc")
    assert panel.lines and all(np.all(line.y >= 0) for line in panel.lines)
    survey = tern.run(
        ROOT / "lte-switch" / "survey.toml",
        set={"sim.duration": "50s", "record": '["delay", "handovers"]'},
    )
    times = survey.series("handovers")["time"].to_list()
    assert times == [45.0], "the survey's one handover completes at 45 s"
    ax = plots.timeseries(survey, "delay").axes[0]
    vertical = [ln for ln in ax.get_lines() if len(set(ln.get_xdata())) == 1]
    assert sorted(ln.get_xdata()[0] for ln in vertical) == sorted(times)


def _frame(grid: dict[str, list[str]], seeds: int = 3) -> pl.DataFrame:
    """A sweep's results as `tern.sweep` returns them, made up: grid columns, key, seed, flow
    and a goodput that grows with the point's index."""
    rows = []
    for i, point in enumerate(itertools.product(*grid.values())):
        for seed in range(1, seeds + 1):
            row = dict(zip(grid, point, strict=True))
            row.update(key=f"k{i}-{seed}", seed=seed, flow="f", goodput_bps=1e6 * (i + seed))
            rows.append(row)
    return pl.DataFrame(rows)


def test_categorical_sweeps_are_points_and_colours_follow_the_sweep_order():
    frame = _frame(
        {"links.a.queue.kind": ["droptail", "codel"], "links.a.rate": ["5Mbps", "10Mbps"]}
    )
    figures = [
        plots.sweep(f, x="links.a.queue.kind", y="goodput_bps")
        for f in (frame, frame.reverse())  # rows in any order: the same picture
    ]
    for fig in figures:
        ax = fig.axes[0]
        assert ax.get_ylabel() == "goodput (Mbit/s)"
        means = [ln for ln in ax.get_lines() if str(ln.get_gid()).startswith("tern-sweep-")]
        assert [ln.get_label() for ln in means] == ["5Mbps", "10Mbps"]
        assert all(ln.get_linestyle() == "None" for ln in means), "no line between categories"
        # Side by side around each category's tick, never on another's.
        ticks = ax.get_xticks()
        for ln in means:
            assert all(min(abs(x - t) for t in ticks) < 0.3 for x in ln.get_xdata())
    colours = [[ln.get_color() for ln in fig.axes[0].get_lines()[:2]] for fig in figures]
    assert colours[0] == colours[1]


def test_numbers_over_decades_get_a_log_axis_with_plain_ticks():
    frame = _frame({"links.a.loss.p": ["0.001", "0.01", "0.1"]})
    fig = plots.sweep(frame, x="links.a.loss.p", y="goodput_bps")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert {"0.001", "0.01", "0.1"} <= set(labels), labels
    assert not any("10^" in s or "times" in s for s in labels)


def test_markdown_tables_show_numbers_as_they_are(tmp_path):
    out = tmp_path / "r.md"
    table = report.Table(["metric", "value"], [["goodput (Mbit/s)", "9.572"], ["change", "-3"]])
    report.write_markdown("T", [report.Section("S", [table])], out)
    text = out.read_text()
    assert "| goodput (Mbit/s) | 9.572 |" in text and "| change | -3 |" in text


def test_a_run_of_capture_files_only_says_what_opens_them(tmp_path):
    out = tmp_path / "pcap"
    tern.run(EXAMPLES / "p2p-udp.toml", set={"sim.duration": "1s", "record": '["pcap"]'}, out=out)
    res = tern_cli("plot", str(out))
    assert res.returncode == 2
    assert "nothing to plot in this run (traces: none)" in res.stderr
    assert "access.forward.pcap" in res.stderr and "Wireshark" in res.stderr
