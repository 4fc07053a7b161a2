"""QUIC flows from the command line and from Python."""

from __future__ import annotations

import hashlib

import tern
from conftest import EXAMPLES, tern_cli

QUIC = EXAMPLES / "p2p-quic.toml"


def _digest(folder) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_two_processes_give_byte_identical_outputs_and_captures(tmp_path):
    # Each process has its own clock origin for the QUIC stack, its own thread RNG: neither
    # may show in the outputs, down to the encrypted bytes of the captures.
    text = QUIC.read_text().replace(
        'record = ["quic", "delay", "queue"]', 'record = ["quic", "delay", "pcap", "qlog"]'
    )
    scenario = tmp_path / "quic.toml"
    scenario.write_text(text)
    outs = []
    for i, seed in enumerate((4, 4, 5)):
        out = tmp_path / f"run{i}"
        args = ("run", str(scenario), "--seed", str(seed), "--set", "sim.duration=6s")
        res = tern_cli(*args, "--out", str(out), "-q")
        assert res.returncode == 0, res.stderr
        outs.append(_digest(out))
    assert outs[0] == outs[1]
    want = {"quic.parquet", "delay.parquet", "tls-keys.log", "access.forward.pcap"}
    assert want | {"bulk.client.sqlog", "bulk.server.sqlog"} <= set(outs[0])
    assert outs[0]["access.forward.pcap"] != outs[2]["access.forward.pcap"]
    loaded = tern.load_run(tmp_path / "run0")
    assert loaded.captures["bulk.server.sqlog"].startswith(b"\x1e{")


def test_python_api_quic_summary_and_series():
    r = tern.run(QUIC, set={"sim.duration": "10s"})
    bulk = r.summary["flows"]["bulk"]
    assert bulk["transport"] == "quic"
    q = bulk["quic"]
    assert q["final_mtu"] == 1472 and q["handshake_time_s"] > 0.04
    assert bulk["goodput_bps"] > 8e6
    series = r.series("quic")
    assert series.columns[:5] == ["time", "flow", "endpoint", "path", "cwnd"]
    client = series.filter((series["flow"] == "bulk") & (series["endpoint"] == "client"))
    assert client["lost_packets"][-1] == q["packets_lost"]
    msgs = r.summary["flows"]["messages"]
    assert msgs["messages_delivered"] >= msgs["messages_sent"] - 5
