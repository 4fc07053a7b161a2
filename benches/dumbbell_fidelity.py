"""The 100-flow dumbbell against ns-3 on its fidelity targets: bottleneck drops within
15 %, aggregate goodput within 3 % and Jain's fairness index within 0.05.

ns-3's numbers are `benches/ns3_dumbbell_100.json`, written by `benches/ns3_dumbbell_runs.py`
(`../shared/bench/ns3/many_flows.py --flows 100 --duration 10 --run R`, R = 1-12, ns-3 3.44,
TcpNewReno + SACK, its default PRR recovery), and `benches/ns3_dumbbell_100_syn1s.json`, the
same with ns-3's SYN timeout at RFC 6298's 1 s (Tern's) instead of its default 3 s. Tern runs
`make_dumbbell.dumbbell(100)` in process (`tern.run`) two ways for each ns-3 run R:

- *own draws*: its own start times (Python's random, seed R), independent of ns-3's; the gap
  is the difference of the means, with Welch's 95 % interval;
- *ns-3's starts*: flow i starts at the time ns-3's run R drew for its flow i; the gap is the
  mean of the paired differences, with the paired t interval. Start times set much of a run's
  fairness (who slow-starts into an empty queue), so pairing takes that spread out of the
  comparison.

Jain's index is computed as many_flows.py does: per-flow goodput = bytes received * 8 / (10 s -
the flow's start time). Each table is printed for three configurations of Tern's TCP: its
defaults (RFC 6675 recovery), PRR (RFC 9937, ns-3's default, `TcpPrrRecovery`), and ns-3's
NewReno rules (`make_dumbbell.dumbbell(..., ns3_rules=True)`: PRR, congestion avoidance by
RFC 5681 eq. 3 per ACK, ssthresh from RFC 6675's pipe), and those rules with ns-3's packet
lengths on the wire (`ns3_wire=True`: 1 448 B of payload and a 2-byte PPP header per packet, so
that the bottleneck's slot and every hop's serialization are ns-3's; benches/RESULTS.md, "The
100-flow dumbbell's low tail").

    python benches/dumbbell_fidelity.py
"""

import json
import math
import re
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

import tern

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_dumbbell import dumbbell  # noqa: E402 (a sibling script, not a package)

DURATION = 10.0
FLOWS = 100
#: Two-sided 95 % quantiles of Student's t by degrees of freedom (any statistics table).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip
#: The fidelity targets: Jain's index (absolute), drops and goodput (relative).
TARGETS = {"jain": 0.05, "drops": 0.15, "goodput": 0.03}


def t975(df: float) -> float:
    """Student's t 97.5 % quantile for `df` degrees of freedom (rounded down; 1.96 past 30)."""
    k = max(1, int(df))
    return T975[k - 1] if k <= len(T975) else 1.96


#: Tern's configurations: name, and whether PRR alone, all of ns-3's rules, and ns-3's packet
#: lengths on the wire are on.
CONFIGS = {
    "RFC 6675 (Tern's defaults)": (False, False, False),
    "PRR (RFC 9937)": (True, False, False),
    "ns-3 NewReno's rules (PRR, eq. 3 per ACK, ssthresh from pipe)": (False, True, False),
    "ns-3 NewReno's rules and ns-3's wire (1448 B payload, 2 B PPP)": (False, True, True),
}


def measure(
    starts: Sequence[float], prr: bool, ns3_rules: bool, ns3_wire: bool
) -> dict[str, float]:
    """Tern's Jain's index, bottleneck drops, aggregate goodput (Mbit/s) and RTO expiries
    with flow i starting at `starts[i]`; `prr`: SACK recovery by PRR (RFC 9937) instead of
    RFC 6675's cwnd - pipe; `ns3_rules`: ns-3's rules, PRR among them; `ns3_wire`: ns-3's
    packet lengths on the wire."""
    text = dumbbell(FLOWS, DURATION, starts=starts, ns3_rules=ns3_rules, prr=prr, ns3_wire=ns3_wire)
    summary = tern.run(text=text).summary
    flows = [summary["flows"][f"f{i}"] for i in range(FLOWS)]
    delivered = [f["bytes_delivered"] for f in flows]
    return {
        "jain": jain(delivered, starts),
        "drops": summary["links"]["bottleneck"]["forward"]["drops"]["queue"],
        "goodput": sum(delivered) * 8 / DURATION / 1e6,
        "rtos": sum(f["tcp"]["rto_expiries"] for f in flows),
    }


def jain(delivered: Sequence[int], starts: Sequence[float]) -> float:
    """Jain's index of per-flow goodput over each flow's active time, as many_flows.py."""
    rate = [b * 8 / (DURATION - s) for b, s in zip(delivered, starts, strict=True)]
    return sum(rate) ** 2 / (len(rate) * sum(r * r for r in rate))


def own_starts(seed: int) -> list[float]:
    """The start times `make_dumbbell.dumbbell` draws for `seed`."""
    text = dumbbell(FLOWS, DURATION, seed)
    return [float(s) for s in re.findall(r'start = "([0-9.]+)s"', text)]


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean of `a` minus mean of `b` and the half-width of its 95 % interval (Welch)."""
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    df = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    return statistics.mean(a) - statistics.mean(b), t975(df) * math.sqrt(va + vb)


def paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean of the differences a[i] - b[i] and the half-width of its 95 % interval."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    return statistics.mean(d), t975(len(d) - 1) * statistics.stdev(d) / math.sqrt(len(d))


def verdict(key: str, gap: float, half: float, scale: float) -> str:
    """The gap (absolute for Jain's index, relative to ns-3's mean `scale` otherwise) against
    its target, and whether the whole 95 % interval lies within it."""
    limit = TARGETS[key]
    g, h = (gap, half) if key == "jain" else (gap / scale, half / scale)
    met = "met" if abs(g) <= limit else "NOT met"
    inside = "inside" if abs(g) + h <= limit else "not inside"
    fmt = "{:+.3f}" if key == "jain" else "{:+.1%}"
    return (
        f"{key}: gap {fmt.format(g)} (95 % interval {fmt.format(g - h)} .. {fmt.format(g + h)}),"
        f" target {limit:g}: {met}; interval {inside} the target"
    )


def compare(ns3: list[dict], name: str, reference_name: str = "its defaults") -> None:
    """One table and the verdicts for Tern's configuration `name` against ns-3's runs `ns3`
    (ns-3 with `reference_name`)."""
    config = CONFIGS[name]
    print(f"\nTern's TCP: {name}; ns-3 with {reference_name}\n")
    print(
        "| run | ns-3 Jain | Tern Jain, own / ns-3's starts | ns-3 drops "
        "| Tern drops, own / ns-3's | ns-3 Mbit/s | Tern Mbit/s, own / ns-3's "
        "| Tern RTOs, own / ns-3's |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    own, same = [], []
    for r in ns3:
        o = measure(own_starts(r["run"]), *config)
        s = measure(r["starts"], *config)
        own.append(o)
        same.append(s)
        print(
            f"| {r['run']} | {r['jain']:.3f} | {o['jain']:.3f} / {s['jain']:.3f} "
            f"| {r['drops']} | {o['drops']} / {s['drops']} | {r['goodput_mbps']:.2f} "
            f"| {o['goodput']:.2f} / {s['goodput']:.2f} | {o['rtos']} / {s['rtos']} |"
        )
    reference = {
        "jain": [r["jain"] for r in ns3],
        "drops": [float(r["drops"]) for r in ns3],
        "goodput": [r["goodput_mbps"] for r in ns3],
    }
    for name, runs, gap in (("own draws", own, welch), ("ns-3's starts", same, paired)):
        print(f"\nTern with {name} ({len(runs)} runs):")
        for key, values in reference.items():
            g, h = gap([t[key] for t in runs], values)
            print("  " + verdict(key, g, h, statistics.mean(values)))


def main() -> None:
    ns3 = json.loads((HERE / "ns3_dumbbell_100.json").read_text())["runs"]
    for name in CONFIGS:
        compare(ns3, name)
    # ns-3 with RFC 6298's 1 s SYN timeout, as Tern's, against Tern with ns-3's other rules.
    syn_1s = json.loads((HERE / "ns3_dumbbell_100_syn1s.json").read_text())["runs"]
    for name in list(CONFIGS)[-2:]:
        compare(syn_1s, name, "ConnTimeout = 1 s (RFC 6298 §2.1)")


if __name__ == "__main__":
    main()
