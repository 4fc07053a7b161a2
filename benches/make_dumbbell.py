"""Writes the dumbbell of ../shared/bench/ns3/many_flows.py as a Tern scenario: N left leaves --
routerL == 100 Mbit/s, 10 ms, 100-packet DropTail bottleneck == routerR -- N right leaves, access
links 1 Gbit/s, 1 ms, 100 packets; flow i is a TCP NewReno + SACK bulk transfer from left leaf i to
right leaf i (MSS 1448 B, 4 MiB buffers, an initial window of 10 segments as ns-3's `TcpSocket`
`InitialCwnd` default, src/internet/model/tcp-socket.cc, no TCP Small Queues: ns-3 has none),
starting at a time
uniform in [0, 1 s) (Python's random with the given seed; ns-3 draws its own, so start times are
not the same ones), or the start times given (e.g. the ones an ns-3 run drew, for a paired
comparison: `benches/dumbbell_fidelity.py`). With `ns3_rules`, Tern's TCP also takes the three
rules in which ns-3's `TcpNewReno` with SACK departs from Tern's defaults: PRR recovery (ns-3's
default `RecoveryType`, `TcpPrrRecovery`), congestion avoidance by RFC 5681 eq. 3 per ACK
(`TcpNewReno::CongestionAvoidance`) and ssthresh from RFC 6675's pipe (`TcpSocketBase::
EnterRecovery` and `ReTxTimeout` pass `BytesInFlight()`), all in ns-3.44's
src/internet/model. With `ns3_wire`, packets are also as long on the wire as ns-3's: 1 448 B of
payload (ns-3's `SegmentSize` counts payload; Tern's `mss` counts the 12-byte timestamp option
too, RFC 6691, so `mss = "1460B"`) and a 2-byte PPP header serialized with every packet on
every link (`framing = "2B"`; ns-3's `PointToPointNetDevice::AddHeader`): 1 502 B per full
segment, 120.16 us at 100 Mbit/s. On this deterministic drop-tail queue the time a packet takes
on each hop sets where in the bottleneck's 120 us slot the ACK-clocked arrivals fall, and with
it how long the queue stays full (benches/RESULTS.md, "The 100-flow dumbbell's low tail").

    python benches/make_dumbbell.py 100 > /tmp/dumbbell-100.toml
    target/release/examples/run /tmp/dumbbell-100.toml
"""

import random
import sys
from collections.abc import Sequence

#: The TCP keys besides PRR that make Tern's NewReno behave as ns-3's (the module's doc says where
#: each comes from).
NS3_RULES = ', ca_increase = "per_ack", loss_flight = "pipe"'


def dumbbell(
    n: int,
    duration: float = 10.0,
    seed: int = 1,
    starts: Sequence[float] | None = None,
    ns3_rules: bool = False,
    prr: bool = False,
    ns3_wire: bool = False,
) -> str:
    """The scenario's TOML text; flow i starts at `starts[i]` if given, else at a draw of
    Python's random seeded with `seed`; `prr`: SACK recovery by PRR (RFC 9937); `ns3_rules`: TCP
    as ns-3's NewReno (above; PRR included); `ns3_wire`: ns-3's packet lengths on the wire
    (above)."""
    keys = (", prr = true" if prr or ns3_rules else "") + (NS3_RULES if ns3_rules else "")
    if starts is not None and len(starts) != n:
        raise ValueError(f"{len(starts)} start times given for {n} flows")
    rng = random.Random(seed)
    digits = 6 if starts is None else 9  # given ones to the nanosecond, as ns-3's Seconds()
    out = [f'[sim]\nduration = "{duration}s"\nseed = {seed}\n']
    nodes = ["routerL", "routerR"] + [f"l{i}" for i in range(n)] + [f"r{i}" for i in range(n)]
    out += [f'[[nodes]]\nname = "{name}"\n' for name in nodes]
    link = '[[links]]\nname = "{}"\nends = ["{}", "{}"]\nrate = "{}"\ndelay = "{}"\n'
    link += 'queue = {{ kind = "droptail", limit = "100pkt" }}\n'
    if ns3_wire:
        link += 'framing = "2B"\n'
    mss = "1460B" if ns3_wire else "1448B"
    out.append(link.format("bottleneck", "routerL", "routerR", "100Mbps", "10ms"))
    for i in range(n):
        out.append(link.format(f"al{i}", f"l{i}", "routerL", "1Gbps", "1ms"))
        out.append(link.format(f"ar{i}", "routerR", f"r{i}", "1Gbps", "1ms"))
    for i in range(n):
        start = rng.random() if starts is None else starts[i]
        out.append(
            f'[[flows]]\nname = "f{i}"\nfrom = "l{i}"\nto = "r{i}"\napp = {{ kind = "bulk" }}\n'
            f'start = "{start:.{digits}f}s"\n'
            f'transport = {{ kind = "tcp", cc = "newreno", sack = true, mss = "{mss}", '
            'send_buffer = "4MiB", recv_buffer = "4MiB", tsq = "1GB", initial_window = 10'
            f"{keys} }}\n"
        )
    return "\n".join(out)


if __name__ == "__main__":
    sys.stdout.write(dumbbell(int(sys.argv[1]) if len(sys.argv) > 1 else 10))
