"""How fast `tern emulate` carries the kernel's TCP: iperf3 through one p2p link model at rising
rates, with how late the engine ran ("sustain >= 100 Mbit/s of iperf3 through a p2p link
model on 2 cores with lateness p99 under 1 ms, or report the ceiling and where the time goes").

For each link rate: 5 s of iperf3 (the kernel's CUBIC, `-C cubic`: a namespace otherwise takes
the host's default) from a to b through the link (1 ms each way, a DropTail queue of one
bandwidth-delay product plus 100 packets, so the queue does not set the rate), and the emulation
summary: goodput against the link's payload rate, lateness p50/p99/max, packets through Tern, and
the CPU time the engine's process used per packet. The run is not
stopped by a late event (the bound is 2 s): the table shows how many events ran more than 1 ms
late and the latest one. Run it on a quiet machine: every other process competes with the engine
thread.

Usage: sudo .venv/bin/python benches/emulate_ceiling.py [RATE_MBPS ...]   (default 50 100 200 400)
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
from pathlib import Path

from linux_vs_tern import LINK  # the same two real hosts and link, other numbers

import tern

DELAY_S = 0.001
SECONDS = 5


def one(rate_mbps: float) -> dict[str, float]:
    # Bandwidth-delay product in 1500-byte packets over the 2 ms base RTT, plus 100.
    limit = int(rate_mbps * 1e6 * 2 * DELAY_S / (1500 * 8)) + 100
    text = (
        LINK.format(duration=SECONDS + 10)
        .replace('"10Mbps"', f'"{rate_mbps:g}Mbps"')
        .replace('"20ms"', f'"{DELAY_S * 1e3:g}ms"')
        .replace('"100pkt"', f'"{limit}pkt"')
    )
    before = resource.getrusage(resource.RUSAGE_SELF)
    with tempfile.TemporaryDirectory() as tmp:
        r = tern.emulate(
            text=text,
            out=Path(tmp) / "run",
            commands={
                "a": [f"sleep 0.5; iperf3 -c {{b}} -t {SECONDS} -J -C cubic"],
                "b": ["iperf3 -s -1"],
            },
            fail_us=2_000_000,
        )
        report = json.loads((Path(tmp) / "run" / "commands" / "a.0.log").read_text())
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    e = r.summary["emulation"]
    mss = report["start"]["tcp_mss_default"]
    payload = rate_mbps * mss / (mss + 52)  # IPv4 20 + TCP 20 + timestamps 12 per segment
    packets = e["packets_in"] + e["packets_out"]
    return {
        "rate": rate_mbps,
        "goodput": report["end"]["sum_received"]["bits_per_second"] / 1e6,
        "payload": payload,
        "retransmits": report["end"]["sum_sent"].get("retransmits", 0),
        "p50": e["lateness"]["p50_us"],
        "p99": e["lateness"]["p99_us"],
        "max": e["lateness"]["max_us"],
        "packets": packets,
        "cpu_us_per_packet": 1e6 * cpu / max(packets, 1),
        "over_1ms": e["lateness"]["over_warn"],
    }


def main() -> None:
    rates = [float(a) for a in sys.argv[1:]] or [50.0, 100.0, 200.0, 400.0]
    print(
        "| link (Mbit/s) | iperf3 goodput (Mbit/s) | payload rate | retransmits"
        " | lateness p50 / p99 / max (µs) | packets in + out"
        " | engine CPU per packet (µs) | events over 1 ms late |"
    )
    print("|---:|---:|---:|---:|---|---:|---:|---|")
    for rate in rates:
        m = one(rate)
        print(
            f"| {m['rate']:g} | {m['goodput']:.1f} | {m['payload']:.1f} | {m['retransmits']} | "
            f"{m['p50']:.0f} / {m['p99']:.0f} / {m['max']:.0f} | {m['packets']} | "
            f"{m['cpu_us_per_packet']:.2f} | {m['over_1ms']} |"
        )


if __name__ == "__main__":
    main()
