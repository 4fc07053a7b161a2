"""Traces: nulls instead of sentinels, streaming to a folder, the in-memory cap."""

from __future__ import annotations

import polars as pl
import pytest

import tern
from conftest import EXAMPLES

BULK = EXAMPLES / "p2p-bulk.toml"
SHORT = {"sim.duration": "5s", "record": '["cwnd", "rto", "retransmits", "queue", "drops"]'}


def test_ssthresh_is_null_until_the_first_loss_never_a_sentinel():
    cwnd = tern.run(BULK, set={"sim.duration": "10s"}).series("cwnd")
    assert cwnd.schema["ssthresh"] == pl.UInt64
    client = cwnd.filter(pl.col("endpoint") == "client")
    assert client["ssthresh"][0] is None
    assert client["ssthresh"].drop_nulls().len() > 0, "slow start ends with a loss"
    assert (cwnd["ssthresh"].drop_nulls() < 2**63).all()


def test_a_run_with_a_folder_streams_the_same_tables(tmp_path):
    in_memory = tern.run(BULK, set=SHORT)
    streamed = tern.run(BULK, set=SHORT, out=tmp_path / "run")
    assert streamed.summary == in_memory.summary
    assert streamed.tables == in_memory.tables == ["queue", "drops", "cwnd", "rto", "retransmits"]
    for name in streamed.tables:
        assert streamed.series(name).equals(in_memory.series(name), null_equal=True), name
        assert (tmp_path / "run" / f"{name}.parquet").is_file()
    assert (tmp_path / "run" / "summary.json").is_file()
    # Saved elsewhere, then read back: the same frames.
    again = tern.load_run(streamed.save(tmp_path / "copy"))
    for name in streamed.tables:
        assert again.series(name).equals(in_memory.series(name), null_equal=True), name


def test_retransmits_have_nulls_where_a_kind_has_no_value():
    frame = tern.run(BULK, set=SHORT).series("retransmits")
    expiries = frame.filter(pl.col("kind") == "rto_expiry")
    others = frame.filter(pl.col("kind") != "rto_expiry")
    assert expiries["backoff"].null_count() == 0
    assert others["backoff"].null_count() == others.height


def test_traces_over_the_memory_cap_stop_the_run_and_say_what_to_do(tmp_path):
    with pytest.raises(tern.TraceError, match="output folder"):
        tern.run(BULK, set={"sim.duration": "60s"}, max_trace_memory=100_000)
    # The same run with a folder goes through.
    r = tern.run(BULK, set={"sim.duration": "60s"}, max_trace_memory=100_000, out=tmp_path)
    assert r.series("queue").height > 10_000
