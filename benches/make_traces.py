#!/usr/bin/env python3
"""Writes the delivery traces shipped in scenarios/traces/ (mahimahi's format: one line per
1504-byte delivery opportunity, its time in ms; the trace repeats after its last line).

Each trace is a piecewise-constant rate turned into opportunities as Tern's own generator
does (crates/tern-sim/src/tracelink/shapes.rs, `opportunities`): millisecond m gets
floor(W(m) / b) - floor(W(m - 1) / b) opportunities, W the bits the rate has delivered by m
and b = 1504 * 8. The random walks are drawn from Python's `random.Random` with a fixed
seed, so the files are the same on every run. Run from the repository root:

    python benches/make_traces.py
"""

import random
from pathlib import Path

OPPORTUNITY_BITS = 1504 * 8
OUT = Path("scenarios/traces")


def opportunities(steps: list[tuple[int, int]], length_ms: int) -> list[int]:
    """`steps`: (start ms, rate bit/s), the first at 0; the opportunities of `length_ms`."""
    times, work, done, i = [], 0, 0, 0
    for m in range(1, length_ms + 1):
        while i + 1 < len(steps) and steps[i + 1][0] <= m - 1:
            i += 1
        work += steps[i][1] * 1_000_000  # bit·ns over one millisecond (bits · 1e9 / 1000 · 1e6)
        total = work // (OPPORTUNITY_BITS * 1_000_000_000)
        times.extend([m] * (total - done))
        done = total
    return times


def walk(seed: int, start: int, step: int, lo: int, hi: int, every_ms: int, length_ms: int):
    rng = random.Random(seed)
    rate, steps = start, [(0, start)]
    for at in range(every_ms, length_ms, every_ms):
        rate = min(hi, rate + step) if rng.random() < 0.5 else max(lo, rate - step)
        steps.append((at, rate))
    return steps


def write(name: str, times: list[int], length_ms: int) -> None:
    # mahimahi's period is the last line: a trace whose rate leaves its last millisecond
    # without an opportunity gets one there, to keep its length.
    if times[-1] != length_ms:
        times.append(length_ms)
    (OUT / name).write_text("".join(f"{t}\n" for t in times))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    mbps = 1_000_000
    down = walk(39, 12 * mbps, 2 * mbps, 2 * mbps, 24 * mbps, 500, 20_000)
    write("walk-lte.down", opportunities(down, 20_000), 20_000)
    up = walk(40, 3 * mbps, mbps // 2, mbps // 2, 6 * mbps, 500, 20_000)
    write("walk-lte.up", opportunities(up, 20_000), 20_000)
    # Off first, so that the last opportunity (12 Mbit/s to the end) marks the length.
    offon = [(0, 0), (1000, 12 * mbps)]
    write("offon-12mbps.down", opportunities(offon, 2000), 2000)
    (OUT / "square-12-3mbps.csv").write_text(
        "# seconds,rate: 12 Mbit/s for 2 s, 3 Mbit/s for 2 s, repeating (length 4 s)\n"
        "0,12Mbps\n2,3Mbps\n4,0\n"
    )


if __name__ == "__main__":
    main()
