"""The 100-flow dumbbell against ns-3 on issue 15's fidelity targets: bottleneck drops within
15 %, aggregate goodput within 3 % and Jain's fairness index within 0.05.

Tern runs `make_dumbbell.dumbbell(100, seed=S)` for S = 1-4 in process (`tern.run`); ns-3's
numbers are `../shared/bench/ns3/many_flows.py --flows 100 --duration 10 --run R`, R = 1-4
(ns-3 3.44, the `ns3==3.44.post0` wheel, run on the project's machine on 2026-11-25; they are
the same in every sitting: the simulation is deterministic). Both sides draw their own start
times, so the targets are checked on the means over the four runs. Jain's index is computed
as many_flows.py does: per-flow goodput = bytes received * 8 / (10 s - the flow's start time).

    python benches/dumbbell_fidelity.py
"""

import re
import statistics
import sys
from pathlib import Path

import tern

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_dumbbell import dumbbell

DURATION = 10.0
#: many_flows.py --flows 100 --duration 10 --run R (TcpNewReno + SACK, its defaults):
#: (Jain's index, bottleneck drops, aggregate goodput in Mbit/s).
NS3 = {
    1: (0.879, 3621, 95.34),
    2: (0.855, 3683, 95.33),
    3: (0.896, 3691, 95.45),
    4: (0.861, 3560, 94.55),
}


def measure(seed: int, prr: bool = False) -> tuple[float, int, float, int]:
    """Jain's index, bottleneck drops, aggregate goodput (Mbit/s), RTO expiries; `prr`:
    SACK recovery sends as Proportional Rate Reduction says (RFC 9937), as ns-3's default
    recovery (`TcpPrrRecovery`) does, instead of RFC 6675's cwnd - pipe."""
    text = dumbbell(100, DURATION, seed)
    if prr:
        text = text.replace('tsq = "1GB" }', 'tsq = "1GB", prr = true }')
    starts = [float(s) for s in re.findall(r'start = "([0-9.]+)s"', text)]
    summary = tern.run(text=text).summary
    flows = [summary["flows"][f"f{i}"] for i in range(len(starts))]
    rate = [f["bytes_delivered"] * 8 / (DURATION - s) for f, s in zip(flows, starts, strict=True)]
    jain = sum(rate) ** 2 / (len(rate) * sum(r * r for r in rate))
    drops = summary["links"]["bottleneck"]["forward"]["drops"]["queue"]
    goodput = sum(f["bytes_delivered"] for f in flows) * 8 / DURATION / 1e6
    rtos = sum(f["tcp"]["rto_expiries"] for f in flows)
    return jain, drops, goodput, rtos


def main() -> None:
    for prr in (False, True):
        compare(prr)


def compare(prr: bool) -> None:
    """One table and the three verdicts, Tern with RFC 6675's recovery or with PRR."""
    print(f"\nTern's SACK recovery: {'PRR (RFC 9937)' if prr else 'RFC 6675'}\n")
    print(
        "| run | Tern Jain | ns-3 Jain | Tern drops | ns-3 drops "
        "| Tern Mbit/s | ns-3 Mbit/s | Tern RTOs |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    tern_runs = {}
    for run, (j3, d3, g3) in NS3.items():
        j, d, g, rtos = tern_runs[run] = measure(run, prr)
        print(f"| {run} | {j:.3f} | {j3:.3f} | {d} | {d3} | {g:.2f} | {g3:.2f} | {rtos} |")

    def mean(i: int, runs: dict) -> float:
        return statistics.mean(v[i] for v in runs.values())

    jain_gap = mean(0, tern_runs) - mean(0, NS3)
    drops_gap = mean(1, tern_runs) / mean(1, NS3) - 1
    goodput_gap = mean(2, tern_runs) / mean(2, NS3) - 1
    for name, value, limit, text in (
        ("Jain's index", abs(jain_gap), 0.05, f"{jain_gap:+.3f}"),
        ("drops", abs(drops_gap), 0.15, f"{drops_gap:+.1%}"),
        ("goodput", abs(goodput_gap), 0.03, f"{goodput_gap:+.1%}"),
    ):
        verdict = "met" if value <= limit else "NOT met"
        print(f"{name}: mean gap {text}, target {limit:g}: {verdict}")


if __name__ == "__main__":
    main()
