"""Packet captures: Wireshark's dissector (tshark) reads them as real traffic and
finds the retransmissions and duplicate ACKs that Tern's own counters report."""

from __future__ import annotations

import polars as pl
import pytest

import tern
from conftest import EXAMPLES
from conftest import tshark as _tshark
from conftest import tshark_fields as _fields


def test_lossy_bulk_capture_matches_terns_counters(tmp_path):
    _tshark()
    run = tern.run(
        EXAMPLES / "p2p-bulk.toml",
        set={
            "sim.duration": "10s",
            "links.access.loss.kind": "bernoulli",
            "links.access.loss.p": "0.01",
            "links.access.loss.direction": "forward",
            "record": '["pcap", "retransmits"]',
        },
    )
    run.save(tmp_path)
    forward, reverse = tmp_path / "access.forward.pcap", tmp_path / "access.reverse.pcap"
    tcp = run.summary["flows"]["bulk"]["tcp"]
    link = run.summary["links"]["access"]
    # Every packet that started leaving each interface is in its capture, and every
    # checksum is right; nothing is malformed.
    for pcap, direction in ((forward, "forward"), (reverse, "reverse")):
        frames = _fields(pcap, "frame", "ip.checksum.status", "tcp.checksum.status")
        assert len(frames) == link[direction]["tx_packets"]
        assert {tuple(f) for f in frames} == {("1", "1")}  # 1 = Good
        assert _fields(pcap, "_ws.malformed || _ws.expert.severity >= error", "frame") == []
    # The handshake carries the options Tern negotiated.
    syn = _fields(forward, "tcp.flags.syn == 1", "tcp.options.mss_val", "tcp.options.sack_perm")
    assert syn[0][0] == "1460" and syn[0][1] != ""
    # Retransmissions tshark finds in the sender's capture are the ones Tern counted, segment
    # for segment. (On a sender-side capture of a busy link a retransmission follows the
    # previous segment closely, so tshark flags most as "out-of-order" rather than
    # "retransmission": both mean a segment below the highest sequence number seen.)
    flagged = _fields(
        forward,
        "tcp.analysis.retransmission || tcp.analysis.fast_retransmission"
        " || tcp.analysis.out_of_order",
        "tcp.seq_raw",
    )
    counted = tcp["retransmits_fast"] + tcp["retransmits_rto"] + tcp["retransmits_sack"]
    assert counted > 0
    logged = (
        run.series("retransmits")
        .filter(pl.col("kind").is_in(["fast", "rto", "sack", "probe"]))["seq"]
        .to_list()
    )
    assert sorted(int(f[0]) for f in flagged) == sorted(logged)
    assert len(logged) == counted
    # So are the duplicate ACKs the receiver sent (none are lost: loss is forward only).
    dupacks = _fields(reverse, "tcp.analysis.duplicate_ack", "frame")
    assert len(dupacks) == tcp["dupacks_received"] > 0
    sacks = _fields(reverse, "tcp.options.sack_le", "tcp.options.sack_le")
    assert len(sacks) > 0


def test_captures_stream_into_the_output_folder_and_an_interrupted_run_leaves_none(tmp_path):
    """With an output folder the captures are written there as the run goes (memory stays
    bounded however long the run); the Run reads them from disk, byte for byte what an
    in-memory run holds. A run stopped early leaves no capture behind."""
    scenario = EXAMPLES / "p2p-bulk.toml"
    pcap = {"record": '["pcap"]', "sim.duration": "3s"}
    streamed = tern.run(scenario, set=pcap, out=tmp_path / "run")
    name = "access.forward.pcap"
    path = streamed.captures.path(name)
    assert path is not None and path.resolve() == (tmp_path / "run" / name).resolve()
    in_memory = tern.run(scenario, set=pcap)
    assert in_memory.captures.path(name) is None
    assert streamed.captures[name] == in_memory.captures[name]
    assert len(in_memory.captures[name]) > 100_000

    def stop(now: float, end: float) -> None:
        if now > 1.0:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tern.run(
            scenario, set={**pcap, "sim.duration": "60s"}, out=tmp_path / "stopped", progress=stop
        )
    assert not list((tmp_path / "stopped").glob("*.pcap"))
