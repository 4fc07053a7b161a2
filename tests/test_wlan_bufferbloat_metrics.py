"""wlan-bufferbloat's TCP RTT and send-queue tables (study.toml `[tables]`) on hand-made traces.

The expected values follow from the rules by hand: tcptrace's pairing (rexmit.c `ack_in`,
`rtt_ackin`, `rtt_retrans`: a sample only from an ACK ending exactly at a segment's last byte,
none for a retransmitted segment) and a time average of the qdisc's part of the queue.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import duckdb
import pytest

from tern.reproduce._evaluate import _build_tables
from tern.reproduce._study import Table

STUDY = Path(__file__).parent.parent / "scenarios" / "wlan-bufferbloat" / "study.toml"


@pytest.fixture
def tables() -> dict[str, Table]:
    with STUDY.open("rb") as f:
        return {name: Table(t["query"], t["runs"]) for name, t in tomllib.load(f)["tables"].items()}


def _built(con: duckdb.DuckDBPyConnection, tables: dict[str, Table], name: str) -> list[tuple]:
    """Table `name` as a reproduction builds it: `runs` and the traces are views, narrowed to
    the table's runs while its query runs."""
    shown = {}
    for view in ("runs", "segments", "queue"):
        if con.execute(
            f"SELECT count(*) FROM duckdb_tables() WHERE table_name = '{view}'"
        ).fetchone()[0]:
            con.execute(f'ALTER TABLE "{view}" RENAME TO "all_{view}"')
            shown[view] = f'SELECT * FROM "all_{view}"'
            con.execute(f'CREATE VIEW "{view}" AS {shown[view]}')
    assert _build_tables(con, tables, [name], shown) == {}
    return con.execute(f'SELECT * FROM "{name}" ORDER BY key').fetchall()


def _con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(
        """CREATE TABLE runs AS SELECT * FROM (VALUES ('none', 'droptail', '1GB', 'false'),
           ('tsq', 'droptail', '128KiB', 'false'), ('scheme', 'droptail', '1GB', 'true'))
           v(key, "wifi.wlan.qdisc.kind", "flows.upload.transport.tsq",
             "wifi.wlan.retry_out.enabled")"""
    )
    return con


def test_tcp_rtt_pairs_as_tcptrace_and_by_the_first_covering_ack(tables):
    con = _con()
    con.execute(
        """CREATE TABLE segments (key VARCHAR, time DOUBLE, flow VARCHAR, endpoint VARCHAR,
           seq UBIGINT, len UINTEGER, ack UBIGINT, retransmission UTINYINT)"""
    )
    rows = [
        # Four segments of 100 B; the third is lost and sent again at 0.5 s.
        ("client", 0.00, 1, 100, 1, 0),
        ("client", 0.01, 101, 100, 1, 0),
        ("client", 0.02, 201, 100, 1, 0),
        ("client", 0.03, 301, 100, 1, 0),
        ("client", 0.50, 201, 100, 1, 1),
        # The server: a delayed ACK of the first two, a duplicate, the ACK after the hole.
        ("server", 0.20, 1, 0, 201, 0),
        ("server", 0.25, 1, 0, 201, 0),
        ("server", 0.70, 1, 0, 401, 0),
    ]
    for key in ("none", "tsq", "scheme"):
        con.executemany(
            """INSERT INTO segments (key, endpoint, time, seq, len, ack, retransmission, flow)
               VALUES (?, ?, ?, ?, ?, ?, ?, 'upload')""",
            [(key, *r) for r in rows],
        )
    # Only linux-none's runs without the scheme are paired.
    got = _built(con, tables, "tcp_rtt")
    assert [k for k, _, _ in got] == ["none"]
    _, tcptrace, covering = got[0]
    # tcptrace: ACK 201 ends at segment 2 (sent 0.01 s), ACK 401 at segment 4 (0.03 s);
    # segment 1 is covered by a larger ACK and segment 3 was retransmitted: no samples.
    assert tcptrace == pytest.approx(((0.20 - 0.01) + (0.70 - 0.03)) / 2)
    # First covering ACK, segments 1, 2 and 4 (3 was retransmitted).
    assert covering == pytest.approx(((0.20 - 0.00) + (0.20 - 0.01) + (0.70 - 0.03)) / 3)


def test_qdisc_backlog_is_the_queue_above_the_driver_s_123_frames_time_averaged(tables):
    con = _con()
    con.execute(
        """CREATE TABLE queue (key VARCHAR, time DOUBLE, link VARCHAR, direction VARCHAR,
           packets UBIGINT, bytes UBIGINT)"""
    )
    # 100 packets (all in the driver) for 1 s, 223 for 1 s, 323 for 1 s, then empty; two
    # records at 2 s (one instant, ordered by length) and the reverse direction ignored.
    con.executemany(
        "INSERT INTO queue VALUES ('none', ?, 'wlan-sta', ?, ?, 0)",
        [
            (0.0, "forward", 100),
            (1.0, "forward", 223),
            (2.0, "forward", 322),
            (2.0, "forward", 323),
            (3.0, "forward", 0),
            (1.5, "reverse", 900),
        ],
    )
    con.execute("INSERT INTO queue VALUES ('tsq', 0.0, 'wlan-sta', 'forward', 500, 0)")
    con.execute("INSERT INTO queue VALUES ('tsq', 1.0, 'wlan-sta', 'forward', 0, 0)")
    ((key, packets),) = _built(con, tables, "qdisc_backlog")
    assert key == "none"
    # The qdisc holds max(0, n - 123): 0, 100 and 200 packets for a second each.
    assert packets == pytest.approx((0 + 100 + 200) / 3)
