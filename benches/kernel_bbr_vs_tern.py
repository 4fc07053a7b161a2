"""The kernel's BBR through Tern's link (`tern emulate`, iperf3 -C bbr) against Tern's
`cc = "bbr"` simulated on the same link: the link of the ns-3 TcpBbr comparison (10 Mbit/s,
20 ms each way, DropTail 100 packets). Needs root, `ip`, iperf3 and ss; prints a Markdown
table for benches/RESULTS.md and, with --json, the figures as JSON.

Measured for both, on the same clock (seconds since the sender's first data segment):
- goodput: the kernel's from iperf3's receiver, Tern's from its summary, over the same time;
- the link queue: the Tern link's own time-averaged and largest occupancy (the same model
  carries the kernel's packets in the emulation);
- the smoothed RTT and the pacing rate, sampled every 100 ms: the kernel's from `ss -ti` run in
  the sender's namespace (`rtt:`, `pacing_rate`, `cwnd:`), Tern's from its `rto` and `cwnd`
  traces (srtt, pacing_rate, cwnd), the last value at or before each instant;
- PROBE_RTT: the instants the window falls to 4 segments or below.

The kernel's sender writes into the namespace's TUN device, which orphans each packet as it
takes it (drivers/net/tun.c `tun_net_xmit` → `skb_orphan`), so TCP Small Queues never holds
the kernel's sender back: the queue forms in Tern's link. Tern's sender runs the `linux-6`
profile with TSQ off to match (`NO_TSQ`); with it on (a paced socket's limit is about 1 ms at
its pacing rate, as on a real NIC) the standing queue moves into the sender, shown apart.

Emulation runs are not deterministic; Tern's are. Usage (from the repository root):
    sudo .venv/bin/python benches/kernel_bbr_vs_tern.py [--duration 30] [--runs 3] [--json F]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
from pathlib import Path

from linux_vs_tern import FLOW_HEAD, LINK

import tern
from tern import _core

# The link of linux_vs_tern.py (its nodes real; a simulation ignores `real`).
TERN_FLOW = FLOW_HEAD + 'transport = {{ kind = "tcp", profile = "linux-6", cc = "bbr"{tsq} }}\n'
# TCP Small Queues that never binds: 2^63 bytes, the one limit Tern takes as none even for a
# paced socket (whose limit is otherwise about 1 ms at its pacing rate).
NO_TSQ = ', tsq = "8589934592GiB"'

RETRANSMITS = ("retransmits_fast", "retransmits_sack", "retransmits_rto")
START_S = 0.5
STEP_S = 0.1
MSS = 1448
# Sampler run in the sender's namespace while iperf3 sends: a time stamp, then ss's TCP
# sockets towards the receiver with their internals, every 100 ms.
SAMPLER = (
    "iperf3 -c {{b}} -t {t} -J -C bbr > {report} & P=$!; "
    "while kill -0 $P 2>/dev/null; do echo T $(date +%s.%N); ss -tin dst {{b}}; sleep 0.1; "
    "done > {ss}"
)


def _rate_bps(text: str) -> float:
    """ss prints rates as e.g. 9.9Mbps, 812kbps, 1.2Gbps, 300bps."""
    m = re.fullmatch(r"([0-9.]+)([kMG]?)bps", text)
    if not m:
        raise ValueError(text)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def parse_ss(text: str) -> list[dict]:
    """One sample per time stamp: the data connection's (the socket of iperf3 that has sent the
    most) srtt (s), cwnd (segments) and pacing rate (bit/s)."""
    samples: list[dict] = []
    t = None
    best: dict | None = None
    for line in text.splitlines():
        if line.startswith("T "):
            if t is not None and best is not None:
                samples.append(best)
            t, best = float(line[2:]), None
            continue
        if "bbr" not in line or "pacing_rate" not in line:
            continue
        acked = re.search(r"bytes_acked:(\d+)", line)
        row = {
            "t": t,
            "acked": int(acked.group(1)) if acked else 0,
            "srtt": float(re.search(r"\brtt:([0-9.]+)/", line).group(1)) / 1e3,
            "cwnd": int(re.search(r"\bcwnd:(\d+)", line).group(1)),
            "pacing": _rate_bps(re.search(r"pacing_rate (\S+)", line).group(1)),
        }
        if best is None or row["acked"] > best["acked"]:
            best = row
    if t is not None and best is not None:
        samples.append(best)
    return samples


def probe_rtt_starts(times: list[float], cwnd_segments: list[float]) -> list[float]:
    """Instants the window falls to 4 segments or below after being above (a new episode
    when more than 1 s after the last)."""
    starts: list[float] = []
    for i in range(1, len(times)):
        dip = cwnd_segments[i] <= 4 < cwnd_segments[i - 1]
        if dip and (not starts or times[i] - starts[-1] > 1.0):
            starts.append(times[i])
    return starts


def kernel_run(tmp: Path, duration: float, k: int, fail_us: int = 10_000) -> dict:
    """iperf3 -C bbr from a to b for `duration` s through the emulated link, ss sampling;
    a run whose engine falls `fail_us` behind the clock is run again, at most twice."""
    out = tmp / f"kernel-{k}"
    report, ss = tmp / f"iperf3-{k}.json", tmp / f"ss-{k}.log"
    text = LINK.format(duration=duration + 4)
    for attempt in range(3):
        try:
            run = tern.emulate(
                text=text,
                out=out,
                force=True,
                fail_us=fail_us,
                commands={
                    "a": [
                        f"sleep {START_S}; " + SAMPLER.format(t=int(duration), report=report, ss=ss)
                    ],
                    "b": ["iperf3 -s -1"],
                },
            )
            break
        except _core.EmulationError as e:
            print(f"kernel run {k}, attempt {attempt + 1}: {e}")
    else:
        raise RuntimeError("the engine fell behind three times")
    rep = json.loads(report.read_text())
    samples = [s for s in parse_ss(ss.read_text()) if s["acked"] > 0]
    t0 = samples[0]["t"]
    q = run.summary["links"]["wire"]["forward"]
    return {
        "goodput_bps": rep["end"]["sum_received"]["bits_per_second"],
        "retransmits": rep["end"]["sum_sent"]["retransmits"],
        "queue_mean_packets": q["queue_mean_packets"],
        "queue_max_packets": q["queue_max_packets"],
        "t": [s["t"] - t0 for s in samples],
        "srtt": [s["srtt"] for s in samples],
        "pacing_bps": [s["pacing"] for s in samples],
        "cwnd": [s["cwnd"] for s in samples],
        "lateness": run.summary["emulation"]["lateness"],
    }


def _last_at(times: list[float], values: list, at: float):
    """The last value at or before `at` (None before the first)."""
    lo, hi = 0, len(times)
    while lo < hi:
        mid = (lo + hi) // 2
        if times[mid] <= at:
            lo = mid + 1
        else:
            hi = mid
    return values[lo - 1] if lo else None


def tern_run(duration: float, seed: int, tsq: bool = False) -> dict:
    """Tern's BBR on the same link, simulated, sampled on the same 100 ms grid; `tsq`: with
    TCP Small Queues."""
    text = 'record = ["cwnd", "rto"]\n' + LINK.format(duration=duration + 4)
    text += TERN_FLOW.format(start=START_S, stop=START_S + duration, tsq="" if tsq else NO_TSQ)
    run = tern.run(text=text, seed=seed)
    c = run.series("cwnd").filter(endpoint="client")
    r = run.series("rto").filter(endpoint="client")
    ct, rt = c["time"].to_list(), r["time"].to_list()
    t0 = START_S
    grid = [t0 + STEP_S * (i + 1) for i in range(int(duration / STEP_S))]
    pacing = [_last_at(ct, c["pacing_rate"].to_list(), g) for g in grid]
    srtt = [_last_at(rt, r["srtt"].to_list(), g) for g in grid]
    cwnd = [_last_at(ct, c["cwnd"].to_list(), g) for g in grid]
    keep = [i for i, p in enumerate(pacing) if p is not None and srtt[i] is not None]
    f = run.summary["flows"]["bulk"]
    q = run.summary["links"]["wire"]["forward"]
    tcp = f["tcp"]
    return {
        "goodput_bps": f["goodput_bps"],
        "retransmits": sum(tcp[k] for k in RETRANSMITS),
        "queue_mean_packets": q["queue_mean_packets"],
        "queue_max_packets": q["queue_max_packets"],
        "t": [grid[i] - t0 for i in keep],
        "srtt": [srtt[i] for i in keep],
        "pacing_bps": [pacing[i] * 8 for i in keep],
        "cwnd": [cwnd[i] / MSS for i in keep],
    }


def figures(run: dict) -> dict:
    """The table's figures of one run: goodput, queue, mean srtt and pacing rate over the
    samples from 2 s on (after STARTUP and DRAIN), the pacing rate's median, and PROBE_RTT."""
    cruise = [i for i, t in enumerate(run["t"]) if t >= 2.0]
    return {
        "goodput_mbps": run["goodput_bps"] / 1e6,
        "retransmits": run["retransmits"],
        "queue_mean_packets": run["queue_mean_packets"],
        "queue_max_packets": run["queue_max_packets"],
        "srtt_mean_ms": 1e3 * statistics.fmean(run["srtt"][i] for i in cruise),
        "pacing_mean_mbps": statistics.fmean(run["pacing_bps"][i] for i in cruise) / 1e6,
        "pacing_median_mbps": statistics.median(run["pacing_bps"][i] for i in cruise) / 1e6,
        "pacing_max_mbps": max(run["pacing_bps"][i] for i in cruise) / 1e6,
        "probe_rtt_s": probe_rtt_starts(run["t"], run["cwnd"]),
    }


def pacing_by_second(run: dict, duration: float) -> list[float]:
    """Mean pacing rate (Mbit/s) of the samples in each second."""
    out = []
    for s in range(int(duration)):
        v = [p for t, p in zip(run["t"], run["pacing_bps"], strict=True) if s <= t < s + 1]
        out.append(statistics.fmean(v) / 1e6 if v else float("nan"))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--json", type=Path)
    p.add_argument("--fail-us", type=int, default=10_000, help="tern emulate's --fail-us")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        kernels = [kernel_run(Path(tmp), args.duration, k, args.fail_us) for k in range(args.runs)]
    terns = [tern_run(args.duration, seed) for seed in range(1, args.runs + 1)]
    kf, tf = [figures(r) for r in kernels], [figures(r) for r in terns]
    sf = [figures(tern_run(args.duration, 1, tsq=True))]
    d = args.duration
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "kernel": kf,
                    "tern": tf,
                    "tern_tsq": sf,
                    "kernel_pacing_by_second": [pacing_by_second(r, d) for r in kernels],
                    "tern_pacing_by_second": [pacing_by_second(r, d) for r in terns],
                    "lateness": [r["lateness"] for r in kernels],
                },
                indent=1,
            )
        )
    rows = [
        ("goodput (Mbit/s)", "goodput_mbps", "{:.3f}"),
        ("retransmissions", "retransmits", "{}"),
        ("link queue mean (packets)", "queue_mean_packets", "{:.2f}"),
        ("link queue max (packets)", "queue_max_packets", "{}"),
        ("srtt mean from 2 s (ms)", "srtt_mean_ms", "{:.1f}"),
        ("pacing rate mean from 2 s (Mbit/s)", "pacing_mean_mbps", "{:.2f}"),
        ("pacing rate median from 2 s (Mbit/s)", "pacing_median_mbps", "{:.2f}"),
        ("pacing rate max from 2 s (Mbit/s)", "pacing_max_mbps", "{:.2f}"),
        ("PROBE_RTT starts (s)", "probe_rtt_s", None),
    ]
    print(
        '| | the kernel\'s BBR (runs) | Tern `cc = "bbr"` (seeds) '
        "| Tern with TCP Small Queues (seed 1) |"
    )
    print("|---|---|---|---|")
    for label, key, fmt in rows:

        def cell(fs, key=key, fmt=fmt):
            if fmt is None:
                return " / ".join(", ".join(f"{t:.1f}" for t in f[key]) for f in fs)
            return " / ".join(fmt.format(f[key]) for f in fs)

        print(f"| {label} | {cell(kf)} | {cell(tf)} | {cell(sf)} |")


if __name__ == "__main__":
    main()
