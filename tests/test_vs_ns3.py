"""The 10-flow dumbbell against ns-3, with ns-3's numbers as the expected values.

Reference: ns-3 3.44 (the `ns3==3.44.post0` wheel), `../shared/bench/ns3/many_flows.py --flows 10
--duration 10 --run R` for R = 1-4 (ns-3's start-time draws); "LinuxReno" is the same script
with `ns3::TcpL4Protocol::SocketType` forced to `ns3::TcpLinuxReno` (why both: the comment on
the drops below). Tern runs
the same topology (`benches/make_dumbbell.py`) with its own start-time draws (seeds 1-4), so runs
are compared with the spread of ns-3's runs, not one to one.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import tern

ROOT = Path(__file__).resolve().parent.parent

#: ns-3 run R: (aggregate goodput in Mbit/s = bytes received by all sinks * 8 / 10 s,
#: packets dropped at the bottleneck).
NS3_NEWRENO = {1: (94.583, 365), 2: (94.464, 382), 3: (94.401, 372), 4: (93.981, 383)}
NS3_LINUXRENO = {1: (93.371, 889), 2: (93.979, 953), 3: (92.625, 870), 4: (93.453, 942)}


def _dumbbell(n: int, seed: int) -> str:
    path = ROOT / "benches" / "make_dumbbell.py"
    spec = importlib.util.spec_from_file_location("make_dumbbell", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dumbbell(n, seed=seed)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_ten_flow_dumbbell_is_within_ns3s_spread(seed: int) -> None:
    s = tern.run(text=_dumbbell(10, seed)).summary
    delivered = sum(f["bytes_delivered"] for f in s["flows"].values())
    goodput = delivered * 8 / 10.0 / 1e6
    drops = s["links"]["bottleneck"]["forward"]["drops"]["queue"]
    runs = [*NS3_NEWRENO.values(), *NS3_LINUXRENO.values()]
    # Aggregate goodput: inside the range of ns-3's eight runs (both window-growth rules and
    # four start draws: 92.6-94.6 Mbit/s), i.e. within ns-3's own run-to-run spread.
    low, high = min(g for g, _ in runs), max(g for g, _ in runs)
    assert low <= goodput <= high, f"{goodput:.3f} Mbit/s, ns-3 {low}-{high}"
    # Drops: Tern's NewReno grows cwnd by bytes acknowledged (RFC 5681 §3.1, RFC 3465), as
    # ns-3's TcpLinuxReno does, while ns-3's TcpNewReno grows by ACKs and so about half as fast
    # under delayed ACKs (ns-3's tcp.rst, "Linux Reno"). The rate at which the flows fill the
    # shared queue, and so the drops, lies between the two.
    fewest = min(d for _, d in NS3_NEWRENO.values())
    most = max(d for _, d in NS3_LINUXRENO.values())
    assert fewest <= drops <= most, f"{drops} drops, ns-3 {fewest}-{most}"
