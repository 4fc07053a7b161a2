"""Running scenarios from Python and from the command line."""

from __future__ import annotations

import hashlib
import json

import polars as pl
import pytest

import tern
from conftest import EXAMPLES, P2P, tern_cli


def _digest(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_same_seed_gives_byte_identical_outputs_and_another_seed_differs(tmp_path):
    example = EXAMPLES / "p2p-udp.toml"
    outs = []
    for i, seed in enumerate((7, 7, 8)):
        out = tmp_path / f"run{i}"
        res = tern_cli(
            "run",
            str(example),
            "--seed",
            str(seed),
            "--set",
            "links.access.loss.kind=bernoulli",
            "--set",
            "links.access.loss.p=0.02",
            "--out",
            str(out),
            "-q",
        )
        assert res.returncode == 0, res.stderr
        outs.append(_digest(out))
    assert outs[0] == outs[1]
    assert set(outs[0]) == {
        "run.json",  # which scenario file wrote the folder (tern.outdir)
        "summary.json",
        "scenario.toml",
        "queue.parquet",
        "delay.parquet",
        "drops.parquet",
        "rtt.parquet",
    }
    assert outs[0]["summary.json"] != outs[2]["summary.json"]


def test_resolved_scenario_repeats_the_run(tmp_path):
    first = tmp_path / "first"
    res = tern_cli(
        "run",
        str(EXAMPLES / "p2p-udp.toml"),
        "--seed",
        "5",
        "--set",
        "links.access.rate=6Mbps",
        "--out",
        str(first),
        "-q",
    )
    assert res.returncode == 0, res.stderr
    again = tmp_path / "again"
    res = tern_cli("run", str(first / "scenario.toml"), "--out", str(again), "-q")
    assert res.returncode == 0, res.stderr
    # Every result the same; only run.json differs, naming the file each run was given.
    digest, repeat = _digest(first), _digest(again)
    del digest["run.json"], repeat["run.json"]
    assert digest == repeat
    text = (first / "scenario.toml").read_text()
    assert 'rate = "6Mbps"' in text and "seed = 5" in text and "tern_version" in text


def test_python_api_summary_series_and_overrides():
    r = tern.run(P2P, seed=3)
    flow = r.summary["flows"]["msgs"]
    # 2 Mbit/s of 1000 B messages = 250 msg/s for 5 s.
    assert flow["messages_sent"] == 1250
    delay = r.series("delay")
    assert isinstance(delay, pl.DataFrame)
    assert delay.columns == ["time", "flow", "seq", "sent", "delay", "size", "conn"]
    assert delay.height == flow["messages_delivered"]
    # 5 % Bernoulli loss: delivered fraction within 4 standard deviations of 0.95.
    n = flow["messages_sent"] - flow["messages_in_flight"]
    sd = (0.05 * 0.95 / n) ** 0.5
    assert abs(flow["loss_rate"] - 0.05) < 4 * sd
    slower = tern.run(P2P, seed=3, set={"links.access.rate": "1Mbps"})
    assert slower.summary["flows"]["msgs"]["delay_s"]["p50"] > flow["delay_s"]["p50"]
    assert slower.summary["links"]["access"]["forward"]["drops"]["queue"] > 0


def test_cli_json_and_schema(tmp_path):
    res = tern_cli(
        "run",
        str(EXAMPLES / "p2p-udp.toml"),
        "--json",
        "-q",
        "--set",
        "sim.duration=2s",
        "--out",
        str(tmp_path / "o"),
    )
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["duration_s"] == 2.0
    res = tern_cli("schema")
    schema = json.loads(res.stdout)
    assert "links" in schema["properties"]
    res = tern_cli("--help")
    for command in ("run", "validate", "schema"):
        assert command in res.stdout


def test_tcp_traces_and_progress_callback():
    calls = []
    r = tern.run(
        EXAMPLES / "p2p-bulk.toml",
        set={"sim.duration": "10s"},
        progress=lambda now, end: calls.append((now, end)),
    )
    assert calls[-1] == (10.0, 10.0)
    cwnd = r.series("cwnd")
    assert cwnd.columns == [
        "time",
        "flow",
        "endpoint",
        "cwnd",
        "ssthresh",
        "in_flight",
        "pacing_rate",
    ]
    # IW 10 with MSS 1448 B (RFC 6928): the first cwnd record of the sender.
    first = cwnd.filter(cwnd["endpoint"] == "client").row(0, named=True)
    assert first["cwnd"] == 10 * 1448
    assert r.summary["flows"]["bulk"]["transport"] == "tcp"


def test_an_exception_in_the_progress_callback_stops_the_run():
    def boom(now, end):
        raise RuntimeError("stop here")

    # 600 s of bulk TCP: long enough for a progress report before the end.
    with pytest.raises(RuntimeError, match="stop here"):
        tern.run(EXAMPLES / "p2p-bulk.toml", set={"sim.duration": "600s"}, progress=boom)


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.name)
def test_every_example_validates(example):
    res = tern_cli("validate", str(example))
    assert res.returncode == 0, res.stderr


def test_roaming_example_follows_a_set_disconnection_period():
    """`--set roaming.<name>.disconnect` reaches the roam (names, not positions, pick it)."""
    r = tern.run(
        EXAMPLES / "wifi-roaming.toml",
        set={"roaming.handover.disconnect": "3.5s", "sim.duration": "25s"},
    )
    roam = r.series("roaming")
    assert roam["event"].to_list() == ["left", "joined"]
    # The study's handover: it leaves AP1 at 20 s (or when its frame on the air ends).
    left, joined = roam["time"].to_list()
    assert 20.0 <= left < 20.002
    assert joined == pytest.approx(left + 3.5, abs=1e-9)
    # The mobile's packets made while it was away and not held (50) were dropped at its
    # queue (its queue was empty when it left: its AP1 was idle).
    drops = r.series("drops").filter(
        (pl.col("flow") == "mobile")
        & (pl.col("reason") == "queue")
        & pl.col("time").is_between(left, joined)
    )
    assert drops.height == round(3.5 / 0.01) + 1 - 50
