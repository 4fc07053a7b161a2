"""Every trace a user can record has a picture: for each table of the trace reference
(generated from crates/tern-sim/src/trace/records.rs, not a list kept here), a short run that
records it, and `tern plot` on that run draws a time series from it. Then what the pictures of
the event traces show: path statuses as bands, switcher events, retry-out declarations, 802.11
receptions, RLC SDU delays, QUIC's bytes in flight beside its congestion window."""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
import pytest

import tern
from conftest import EXAMPLES, tern_cli
from tern import plots

ROOT = EXAMPLES.parent
sys.path.insert(0, str(ROOT.parent / "docs"))

from gen_reference import trace_tables  # noqa: E402

#: A short run per scenario, and the `record` kinds it records (a kind may write several
#: tables: "rlc" writes `rlc` and `rlc_sdu`).
RUNS: dict[str, tuple[str, dict[str, str], list[str]]] = {
    "bulk": (
        "examples/p2p-bulk.toml",
        {"sim.duration": "4s", "links.access.queue": '{ kind = "droptail", limit = "20pkt" }'},
        ["queue", "drops", "cwnd", "rto", "retransmits", "segments"],
    ),
    "udp": ("examples/p2p-udp.toml", {"sim.duration": "2s"}, ["delay", "rtt"]),
    "quic": ("examples/p2p-quic.toml", {"sim.duration": "2s"}, ["quic"]),
    "wcdma": (
        "wcdma-profile/download.toml",
        {"sim.duration": "4s", "flows.download.app.bytes": "100KB"},
        ["rlc"],
    ),
    "switcher": ("lte-switch/effect.toml", {"sim.duration": "30s"}, ["handovers", "switcher"]),
    "wifi": ("examples/wifi-ht-upload.toml", {"sim.duration": "2s"}, ["wifi", "wifi_rx"]),
    "retry_out": (
        "wlan-bufferbloat/upload.toml",
        {"sim.duration": "5s", "wifi.wlan.retry_out.enabled": "true"},
        ["retry_out"],
    ),
    "tfrc": (
        "tfrc-handover/handover.toml",
        {"sim.duration": "22s"},
        ["tfrc", "roaming", "rssi"],
    ),
    "path_status": ("mpquic-rssi/walk.toml", {"sim.duration": "30s"}, ["path_status"]),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tern.Run]:
    """Each run of `RUNS`, written to a folder (its `folder` attribute here)."""
    out = {}
    for name, (scenario, sets, record) in RUNS.items():
        folder = tmp_path_factory.mktemp(name) / "run"
        quoted = ", ".join(f'"{t}"' for t in record)
        run = tern.run(ROOT / scenario, set={**sets, "record": f"[{quoted}]"}, out=folder, seed=1)
        run.folder = folder
        out[name] = run
    return out


def test_every_recordable_trace_is_drawn_by_tern_plot(runs):
    tables = [t.name for t in trace_tables()]
    assert len(tables) >= 20
    by_table = {
        t: name for name, run in runs.items() for t in run.tables if run.series(t).height > 0
    }
    missing = sorted(set(tables) - set(by_table))
    assert not missing, f"traces without a run here that records rows of them: {missing}"
    drawn: dict[str, set[str]] = {}
    for name, run in runs.items():
        res = tern_cli("plot", str(run.folder))
        assert res.returncode == 0, res.stderr
        drawn[name] = {p.stem for p in (run.folder / "plots").iterdir()}
    for table in tables:
        run = runs[by_table[table]]
        kinds = [k for k, kind in plots.KINDS.items() if table in kind.traces]
        assert kinds, f"no time series reads the {table} trace"
        for k in kinds:
            assert k in drawn[by_table[table]], f"tern plot drew no {k} for {table}"
            assert plots.timeseries(run, k).axes[0].has_data(), (table, k)


def test_path_status_bands_follow_the_records(runs):
    run = runs["path_status"]
    frame = run.series("path_status")
    panel = plots.timeseries_data(run, "path_status")
    wifi = next(line for line in panel.lines if line.label.endswith("Wi-Fi"))
    # One band per record, from its time to the next record (the last to the run's end).
    assert np.array_equal(wifi.x[:-1], frame["time"].to_numpy())
    assert wifi.x[-1] == run.summary["duration_s"]
    assert [panel.states[int(c)] for c in wifi.y[:-1]] == frame["wifi_new"].to_list()
    assert set(panel.states) <= {"available", "backup", "none", "abandoned"}
    ax = plots.timeseries(run, "path_status").axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == panel.rows


def test_switcher_events_are_rows_of_ticks(runs):
    run = runs["switcher"]
    frame = run.series("switcher")
    panel = plots.timeseries_data(run, "switcher")
    # Every event is on exactly one row, at its time.
    assert sum(len(line.x) for line in panel.lines) == frame.height
    assert sorted(np.concatenate([line.x for line in panel.lines])) == sorted(frame["time"])
    assert all(np.all(line.y == i) for i, line in enumerate(panel.lines))
    # The scenario's one handover completes at 20 s (effect.toml), on the "radio" link.
    (handover,) = plots.timeseries_data(run, "events").lines
    assert handover.label == "radio: handover" and handover.x.tolist() == [20.0]


def test_retry_out_marks_failures_above_the_index_in_force(runs):
    run = runs["retry_out"]
    frame = run.series("retry_out")
    lines = {line.label: line for line in plots.timeseries_data(run, "retry_out").lines}
    lost = lines["wlan: sta, MPDU declared lost"]
    index = lines["wlan: sta, index in force"]
    assert len(lost.x) == frame.height
    # An MPDU is declared lost when its bad-FCS receptions exceed the index (the paper, §3).
    assert np.all(lost.y > index.y[:-1])


def test_wifi_rx_and_rlc_sdu_show_each_record(runs):
    rx = runs["wifi"].series("wifi_rx")
    lines = plots.timeseries_data(runs["wifi"], "wifi_rx").lines
    assert sum(len(line.x) for line in lines) == rx.height
    # An 802.11 sequence number is 12 bits (IEEE 802.11-2020 §9.2.4.4.2).
    assert all(np.all((line.y >= 0) & (line.y < 4096)) for line in lines)
    sdu = runs["wcdma"].series("rlc_sdu")
    lines = plots.timeseries_data(runs["wcdma"], "rlc_sdu").lines
    assert np.allclose(np.sort(np.concatenate([ln.y for ln in lines])), np.sort(sdu["delay"]) * 1e3)


def test_quic_bytes_in_flight_grow_only_below_the_window(runs):
    run = runs["quic"]
    q = run.series("quic")
    assert "bytes_in_flight" in q.columns
    sender = q.filter(q["endpoint"] == "client").with_columns(pl.col(pl.UInt64).cast(pl.Int64))
    assert sender["bytes_in_flight"].max() > 0
    # RFC 9002 §7: a sender does not send while bytes in flight are at or above the window
    # (but for PTO probes, §7.5), so where a row's bytes in flight grew, the last packet left
    # below the window and one packet (at most the path's MTU) took it at most that far past.
    # After a congestion event the window drops under what is already in flight: no bound.
    grew = sender.filter(
        (pl.col("bytes_in_flight") > pl.col("bytes_in_flight").shift(1))
        & (pl.col("pto_count") == 0)
    )
    assert grew.height > 10
    over = (grew["bytes_in_flight"] - grew["cwnd"] - grew["mtu"]).max()
    assert over <= 0, over
    lines = {line.label: line for line in plots.timeseries_data(run, "inflight").lines}
    assert "bulk (client, QUIC)" in lines
    assert "inflight" in plots.available(run) and "cwnd" in plots.available(run)
