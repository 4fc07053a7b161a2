"""QUIC flows from the command line and from Python."""

from __future__ import annotations

import hashlib
import json

import pytest

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


def test_qlog_streams_into_the_folder_in_a_form_qvis_loads(tmp_path):
    """qlog files stream into the run's folder and hold what an in-memory run holds; qvis's
    JSON-SEQ loader (TextSequenceJSONToQlog, quiclog/qvis) asks for a header record with
    qlog_version (it loads "0.3"), qlog_format = "JSON-SEQ" and a trace. A run stopped early
    leaves no qlog file. The quic trace has the stack's PTO count."""
    qlog = {"record": '["quic", "qlog"]', "sim.duration": "2s"}
    streamed = tern.run(QUIC, set=qlog, out=tmp_path / "run")
    name = "bulk.client.sqlog"
    assert streamed.captures.path(name) == tmp_path / "run" / name
    in_memory = tern.run(QUIC, set=qlog)
    assert in_memory.captures.path(name) is None
    assert streamed.captures[name] == in_memory.captures[name]
    records = streamed.captures[name].split(b"\x1e")
    header = json.loads(records[1])
    assert (header["qlog_version"], header["qlog_format"]) == ("0.3", "JSON-SEQ")
    assert header["trace"]["vantage_point"]["type"] == "client"
    assert json.loads(records[2])["name"].split(":")[0] == "connectivity"
    pto = in_memory.series("quic")["pto_count"]
    assert pto.min() == 0

    def stop(now: float, end: float) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tern.run(QUIC, set=qlog, out=tmp_path / "stopped", progress=stop)
    assert not list((tmp_path / "stopped").glob("*.sqlog"))


# A client `ue` with two equal access links to `router`, a download from `server` with the
# cellular-named one as a backup path.
_NODES = "".join(f'[[nodes]]\nname = "{n}"\n' for n in ("ue", "router", "server"))
_LINKS = "".join(
    f'[[links]]\nname = "{n}"\nends = ["{a}", "{b}"]\nrate = "{r}"\ndelay = "{d}"\n'
    for n, a, b, r, d in (
        ("wlan", "ue", "router", "10Mbps", "10ms"),
        ("cell", "ue", "router", "10Mbps", "10ms"),
        ("core", "router", "server", "1Gbps", "1ms"),
    )
)
MULTIPATH = (
    'record = ["quic", "qlog"]\n[sim]\nduration = "3s"\nseed = 2\n'
    + _NODES
    + _LINKS
    + """[[flows]]
name = "get"
from = "ue"
to = "server"
app = { kind = "file", size = "1MB" }
transport = { kind = "quic", paths = [{ via = "wlan" }, { via = "cell", status = "backup" }] }
"""
)


def test_multipath_from_the_cli_and_python(tmp_path):
    scenario = tmp_path / "mp.toml"
    scenario.write_text(MULTIPATH)
    res = tern_cli("run", str(scenario), "--out", str(tmp_path / "out"), "-q")
    assert res.returncode == 0, res.stderr
    assert {"get.client.sqlog", "get.server.sqlog", "quic.parquet"} <= {
        p.name for p in (tmp_path / "out").iterdir()
    }
    r = tern.run(scenario)
    paths = r.summary["flows"]["get"]["quic"]["paths"]
    assert list(paths) == ["wlan", "cell"]
    assert paths["cell"]["status"] == "backup"
    # The backup path carries path validation only; the download goes over wlan.
    assert paths["wlan"]["udp_bytes_received"] > 1_000_000 > 10 * paths["cell"]["udp_bytes_sent"]
    assert set(r.series("quic")["path"].unique()) == {0, 1}
    # The results store flattens a path's fields into columns named by its interface.
    row: dict = {}
    tern.store._flatten("", r.summary["flows"]["get"], row)
    assert row["quic_paths_cell_status"] == "backup"
