"""The kernel's TCP uploading through Tern's 802.11n MAC (`tern emulate`) beside Tern's own TCP
with the wlan-bufferbloat study's Linux kinds simulated on the same BSS.
Needs root, `ip`, iperf3 and ping; prints a Markdown table for benches/RESULTS.md.

The BSS is `scenarios/wlan-bufferbloat/upload.toml`'s (5 GHz, 20 MHz, long GI, the station's
send path as Linux 3.13 has it: a 1000-packet qdisc in front of ath9k's 123-frame driver queue,
a 1 Gbit/s wire to the server), with three changes so that the kernel and Tern see one fixed
channel: MCS 0 (6.5 Mbit/s, IEEE 802.11-2020 Table 19-27) instead of Minstrel-HT, the station
5 m from the AP, no fading. The station uploads for 30 s and pings the server once a second.

- Emulation: `sta` and `server` are network namespaces; iperf3 with the kernel's CUBIC (`-C
  cubic`: a namespace otherwise takes the host's default congestion control) and `ping -i 1`.
  The kernel's TSQ cannot act here: the TUN device frees each skb as it takes it
  (`tun_net_xmit`), so the queue that builds is Tern's qdisc and driver queue, which TSQ does
  not count. The kernel is not deterministic: two runs.
- Simulation: the scenario's own flows (Linux 3.13's profile) with the kinds `linux-none` (TSQ
  off) and `linux-tsq` (3.13's 128 KiB limit), seed 1.

Usage: sudo .venv/bin/python benches/wifi_kernel_vs_tern.py   (from the repository root)
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import tern

UPLOAD = Path(__file__).resolve().parent.parent / "scenarios/wlan-bufferbloat/upload.toml"
SECONDS = 30
# One fixed channel for both sides: MCS 0 at 5 m, no small-scale fading.
CHANNEL = {
    "nodes.sta.position": [5, 0, 0],
    "wifi.wlan.rate_control": {"kind": "constant", "mcs": 0},
    "wifi.wlan.propagation": {},
}
# Linux 3.13's TSQ limit, tcp_limit_output_bytes = 128 KiB (the study's linux-tsq kind).
TSQ_313 = "128KiB"


def kernel(out: Path) -> tuple[list[float], dict]:
    """One emulation: the ping RTTs (s) while iperf3 runs, and iperf3's JSON report. A run
    the engine fell behind in (an event over 10 ms late) is run again, at most twice."""
    for attempt in range(3):
        try:
            return _emulated(out)
        except tern.EmulationError as e:
            print(f"run again: {out.name} (attempt {attempt + 1}): {e}", file=sys.stderr)
    raise RuntimeError(f"{out.name}: the engine fell behind three times; run on a quiet machine")


def _emulated(out: Path) -> tuple[list[float], dict]:
    shutil.rmtree(out, ignore_errors=True)
    report = out.parent / f"{out.name}-iperf3.json"
    run = tern.emulate(
        UPLOAD,
        out=out,
        set={
            **CHANNEL,
            "nodes.sta.real": True,
            "nodes.server.real": True,
            "flows": [],
            "record": [],
            "sim.duration": f"{SECONDS + 10}s",
        },
        commands={
            "sta": [
                f"sleep 1; iperf3 -c {{server}} -t {SECONDS} -C cubic -J > {report}",
                f"sleep 2; ping -i 1 -c {SECONDS - 2} {{server}}",
            ],
            "server": ["iperf3 -s -1"],
        },
    )
    ping_log = next(
        out / c["log"] for c in run.summary["emulation"]["commands"] if "ping" in c["command"]
    )
    rtts = [float(m) / 1e3 for m in re.findall(r"time=([0-9.]+) ms", ping_log.read_text())]
    return rtts, json.loads(report.read_text())


def simulated(tsq: str) -> dict:
    """Tern's own upload and ping on the same channel, 30 s, seed 1: the summary's flows."""
    run = tern.run(
        UPLOAD,
        seed=1,
        set={
            **CHANNEL,
            "sim.duration": f"{SECONDS}s",
            "record": [],
            "flows.upload.transport.tsq": tsq,
        },
    )
    return run.summary["flows"]


def main() -> None:
    print("| | mean ping RTT (ms) | max (ms) | upload goodput (Mbit/s) | retransmissions |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for k in (1, 2):
            rtts, rep = kernel(Path(tmp) / f"kernel-{k}")
            goodput = rep["end"]["sum_received"]["bits_per_second"] / 1e6
            resent = rep["end"]["sum_sent"]["retransmits"]
            print(
                f"| kernel CUBIC through Tern's MAC, run {k} | {1e3 * statistics.mean(rtts):.0f} "
                f"| {1e3 * max(rtts):.0f} | {goodput:.2f} | {resent} |"
            )
    for kind, tsq in (("linux-none", "1GB"), ("linux-tsq", TSQ_313)):
        flows = simulated(tsq)
        rtt, up = flows["ping"]["rtt_s"], flows["upload"]
        resent = sum(v for key, v in up["tcp"].items() if key.startswith("retransmits_"))
        print(
            f"| Tern `{kind}` | {1e3 * rtt['mean']:.0f} | {1e3 * rtt['max']:.0f} "
            f"| {up['goodput_bps'] / 1e6:.2f} | {resent} |"
        )


if __name__ == "__main__":
    main()
