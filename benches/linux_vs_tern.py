"""The kernel's TCP through Tern's link (`tern emulate`, iperf3) against Tern's own TCP with the
kernel's profile simulated on the same link (the emulation's comparison). Needs root, `ip`, iperf3
and tshark; prints a Markdown table for benches/RESULTS.md.

Link: 10 Mbit/s, 20 ms each way, DropTail 100 packets (ns-3's default device queue). Cases:
- no loss, 10 s of bulk transfer: goodput;
- 1 % Bernoulli loss on both directions, 10 s: goodput, retransmissions; the kernel with CUBIC
  and with Reno (`iperf3 -C reno`), beside the Mathis et al. approximation
  1.22 · MSS / (RTT · sqrt(p)) for Reno;
- a 3 s outage of the forward direction from 4 s: the instants at which the sender retransmits
  the first lost segment (the kernel's from the capture, Tern's RTO expiries from its trace).

The kernel's congestion control is chosen with `iperf3 -C` in every case: a namespace takes the
host's default (`net.ipv4.tcp_congestion_control`), which here is BBR.

Tern's profile of the kernel: CUBIC (RFC 9438), SACK, timestamps, IW 10 (RFC 6928), 200 ms
minimum RTO added to SRTT as the kernel does (`rto_rule = "linux"`), F-RTO, fast recovery by
Proportional Rate Reduction (RFC 9937, the kernel's `tcp_cwnd_reduction`). Emulation runs
are not deterministic; Tern's runs are (seeds 1-3 shown).

Usage: sudo .venv/bin/python benches/linux_vs_tern.py   (from the repository root)
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import tempfile
from pathlib import Path

import polars as pl

import tern
from tern import _core

DURATION_S = 10
LINK = """
[sim]
duration = "{duration}s"

[[nodes]]
name = "a"
real = true

[[nodes]]
name = "b"
real = true

[[links]]
name = "wire"
ends = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "100pkt" }}
"""
# Tern's bulk flow from a to b over the link; its transport table follows.
FLOW_HEAD = """
[[flows]]
name = "bulk"
from = "a"
to = "b"
app = {{ kind = "bulk" }}
start = "{start}s"
stop = "{stop}s"
"""
TERN_FLOW = (
    FLOW_HEAD
    + """[flows.transport]
kind = "tcp"
cc = "cubic"
initial_window = 10
min_rto = "200ms"
frto = true
prr = true
hystart = {hystart}
rto_rule = "{rto_rule}"
"""
)
BERNOULLI = 'loss = { kind = "bernoulli", p = 0.01 }\n'
OUTAGE = (
    'loss = { kind = "outage", direction = "forward", windows = [{ at = "4s", for = "3s" }] }\n'
)


RETRIES: list[str] = []
RETRANSMITS = ("retransmits_fast", "retransmits_sack", "retransmits_rto")


def linux(text: str, out: Path, iperf_args: str = "") -> tuple[dict, tern.Run]:
    """iperf3 from a to b for DURATION_S, starting at 0.5 s; its JSON report and the run.
    A run the engine fell behind in (past the 10 ms bound) is not used: it is run again, at
    most twice, and the retries are reported."""
    for attempt in range(3):
        shutil.rmtree(out, ignore_errors=True)
        report = out.parent / f"{out.name}-iperf3.json"
        try:
            run = tern.emulate(
                text=text,
                out=out,
                commands={
                    "a": [f"sleep 0.5; iperf3 -c {{b}} -t {DURATION_S} -J {iperf_args} > {report}"],
                    "b": ["iperf3 -s -1"],
                },
            )
            return json.loads(report.read_text()), run
        except _core.EmulationError as e:
            RETRIES.append(f"{out.name} (attempt {attempt + 1}): {e}")
    raise RuntimeError(f"{out.name}: the engine fell behind three times")


def simulated(
    text: str, seed: int, start: float = 0.0, hystart: bool = False, rto_rule: str = "linux"
) -> tern.Run:
    """Tern's TCP with the kernel's profile; `hystart` adds HyStart++ (RFC 9406), the nearest
    standard to the kernel CUBIC's own HyStart (Ha and Rhee); `rto_rule` "linux" is the
    kernel's RTO (SRTT + max(4·mean deviation, 200 ms)), "rfc6298" the RFC's."""
    flow = TERN_FLOW.format(
        start=start, stop=start + DURATION_S, hystart=str(hystart).lower(), rto_rule=rto_rule
    )
    return tern.run(text=text.replace("real = true\n", "") + flow, seed=seed)


def first_segment_retransmissions(pcap: Path, after: float) -> list[float]:
    """Times (s) at which the first segment lost after `after` was sent again."""
    cmd = [
        "tshark",
        "-r",
        str(pcap),
        "-n",
        "-Y",
        f"tcp.analysis.retransmission && frame.time_epoch > {after}",
        "-T",
        "fields",
        "-e",
        "frame.time_epoch",
        "-e",
        "tcp.seq_raw",
    ]
    rows = [line.split("\t") for line in subprocess.check_output(cmd, text=True).splitlines()]
    first = rows[0][1]
    return [float(t) for t, seq in rows if seq == first]


def main() -> None:
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = LINK.format(duration=DURATION_S + 3)
        rep, _ = linux(base, Path(tmp) / "clean", "-C cubic")
        got = rep["end"]["sum_received"]["bits_per_second"] / 1e6
        terns = [
            simulated(base, s).summary["flows"]["bulk"]["goodput_bps"] / 1e6 for s in (1, 2, 3)
        ]
        rows.append(
            ("no loss: goodput (Mbit/s)", f"{got:.2f}", " / ".join(f"{g:.2f}" for g in terns))
        )

        lossy = base + BERNOULLI
        for cc in ("cubic", "reno"):
            # The kernel is not deterministic: three runs each.
            runs = [linux(lossy, Path(tmp) / f"loss-{cc}-{k}", f"-C {cc}")[0] for k in range(3)]
            got = " / ".join(
                f"{r['end']['sum_received']['bits_per_second'] / 1e6:.2f}, "
                f"{r['end']['sum_sent']['retransmits']}"
                for r in runs
            )
            rows.append((f"1 % loss, kernel {cc}: goodput (Mbit/s), retransmissions", got, ""))
        for hystart in (False, True):
            sims = [
                simulated(lossy, s, hystart=hystart).summary["flows"]["bulk"] for s in (1, 2, 3)
            ]
            cells = " / ".join(
                f"{f['goodput_bps'] / 1e6:.2f}, {sum(f['tcp'][k] for k in RETRANSMITS)}"
                for f in sims
            )
            label = "Tern CUBIC" + (" + HyStart++" if hystart else "")
            rows.append((f"1 % loss, {label}: goodput (Mbit/s), retransmissions", "", cells))
        mathis = 1.22 * 1448 * 8 / (0.040 * math.sqrt(0.01)) / 1e6
        rows.append(
            ("1 % loss, Mathis et al. for Reno at the base RTT (Mbit/s)", f"{mathis:.2f}", "")
        )

        cut = 'record = ["pcap"]\n' + LINK.format(duration=14) + OUTAGE
        _, run = linux(cut, Path(tmp) / "outage", "-C cubic")
        kernel = first_segment_retransmissions(Path(tmp) / "outage" / "wire.forward.pcap", 3.9)
        traced = cut.replace('record = ["pcap"]', 'record = ["retransmits"]')
        for k, (hystart, rule) in enumerate(
            [(False, "linux"), (True, "linux"), (False, "rfc6298")]
        ):
            sim = simulated(traced, 1, 0.5, hystart, rule)
            expiries = sim.series("retransmits").filter(pl.col("kind") == "rto_expiry")["time"]
            label = (" (Tern with HyStart++)" if hystart else "") + (
                " (Tern with RFC 6298's RTO)" if rule == "rfc6298" else ""
            )
            rows.append(
                (
                    f"3 s outage from 4 s: first lost segment resent at (s){label}",
                    ", ".join(f"{t:.3f}" for t in kernel) if k == 0 else "",
                    ", ".join(f"{t:.3f}" for t in expiries),
                )
            )
        lateness = run.summary["emulation"]["lateness"]
    print(
        "| case | Linux (kernel TCP, iperf3; runs 1 / 2 / 3 where several) "
        "| Tern TCP, seeds 1 / 2 / 3 |"
    )
    print("|---|---|---|")
    for case, lin, tern_value in rows:
        print(f"| {case} | {lin} | {tern_value} |")
    print(f"\nlateness of the outage run: p99 {lateness['p99_us']} µs, max {lateness['max_us']} µs")
    for retry in RETRIES:
        print(f"run again: {retry}")


if __name__ == "__main__":
    main()
