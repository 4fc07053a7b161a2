"""Memory in proportion to what happens, never to what a scenario merely allows: a queue
limit of billions of packets, traces of every kind kept in memory, a vast idle topology."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

import tern
from conftest import EXAMPLES

QUIC = EXAMPLES / "p2p-quic.toml"

# A source far faster than its link, into a queue whose limit no memory holds: the queue
# grows by ~1.25 million 100-byte packets per simulated second until the memory runs out.
FLOOD = """\
[sim]
duration = "3600s"

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
name = "slow"
ends = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "4000000000pkt" }

[[flows]]
name = "flood"
from = "a"
to = "b"
app = { kind = "cbr", rate = "1Gbps", size = "100B" }
"""

#: Address space the flooded run may use: enough for the interpreter and its libraries,
#: far less than the queue would take.
ADDRESS_SPACE = 3 << 30


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_a_queue_limit_beyond_memory_stops_the_run_with_an_error_not_an_abort(tmp_path):
    scenario = tmp_path / "flood.toml"
    scenario.write_text(FLOOD)
    res = subprocess.run(
        [sys.executable, "-m", "tern", "run", str(scenario), "-q", "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        preexec_fn=_limited,
        timeout=900,
    )
    assert res.returncode == 2, (res.returncode, res.stderr[-2000:])
    message = " ".join(res.stderr.split())
    assert "out of memory with" in message and "queue.limit" in message, message
    assert "memory allocation of" not in message and "Traceback" not in message


@pytest.mark.parametrize("kind", ["pcap", "qlog"])
def test_captures_and_qlogs_in_memory_count_against_max_trace_memory(kind):
    # 5 s of a 10 Mbit/s QUIC transfer: about 6 MB of packets, well past 1 MB.
    with pytest.raises(tern.TraceError, match="max_trace_memory = 1000000 bytes"):
        tern.run(QUIC, set={"sim.duration": "5s", "record": [kind]}, max_trace_memory=1_000_000)
    # Under the cap, the same run keeps them.
    kept = tern.run(QUIC, set={"sim.duration": "1s", "record": [kind]})
    assert sum(len(b) for b in kept.captures.values()) > 0


def _tree(nodes: int) -> str:
    """A tree of `nodes` nodes (each node i > 0 linked to (i - 1) // 2), one flow between
    the root and its first child."""
    parts = ['[sim]\nduration = "1s"\n']
    parts += [f'[[nodes]]\nname = "n{i}"\n' for i in range(nodes)]
    parts += [
        f'[[links]]\nname = "l{i}"\nends = ["n{(i - 1) // 2}", "n{i}"]\n'
        'rate = "10Mbps"\ndelay = "1ms"\n'
        for i in range(1, nodes)
    ]
    parts.append(
        '[[flows]]\nname = "f"\nfrom = "n0"\nto = "n1"\n'
        'app = { kind = "cbr", rate = "1Mbps", size = "1000B" }\n'
    )
    return "".join(parts)


def test_a_vast_idle_topology_leaves_its_idle_links_out_of_the_summary(tmp_path):
    """2,000 links (4,000 directions, past the 1,000 listed in full), one flow over one of
    them (one way: UDP): the summary lists the direction that carried packets and counts
    the rest."""
    run = tern.run(text=_tree(2_001))
    assert {k: list(v) for k, v in run.summary["links"].items()} == {"l1": ["forward"]}
    # 1 Mbit/s of 1000-byte messages: one every 8 ms, 125 in 1 s.
    assert run.summary["links"]["l1"]["forward"]["tx_packets"] == 125
    assert run.summary["idle_directions"] == 2 * 2_000 - 1
    # A small network is listed in full, idle links too.
    small = tern.run(text=_tree(11))
    assert len(small.summary["links"]) == 10 and "idle_directions" not in small.summary
    assert len(json.dumps(run.summary)) < 2 * len(json.dumps(small.summary))


@pytest.mark.parametrize(
    "argv0, chosen, backend",
    [("tern", None, "system"), ("tern", "mimalloc", "mimalloc"), ("python", None, None)],
)
def test_the_tern_command_starts_arrow_on_the_system_allocator(argv0, chosen, backend):
    # The command's process (argv[0] "tern") gives finished scans' pages back; a user's own
    # choice of pool stands, and a program that imports tern keeps Arrow's default.
    code = (
        f"import sys; sys.argv[0] = {argv0!r}; import tern, pyarrow as pa; "
        "print(pa.default_memory_pool().backend_name)"
    )
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if chosen:
        env["ARROW_DEFAULT_MEMORY_POOL"] = chosen
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    got = out.stdout.strip()
    if backend is None:
        assert got != "system", got
    else:
        assert got == backend, got
