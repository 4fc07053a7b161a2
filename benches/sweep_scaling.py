"""Sweep scaling: the same sweep (p2p-bulk, 4 rates x 4 seeds, 600 s simulated each) with 1 and 2
local workers, then on a local Ray cluster of 2 CPUs if Ray is installed. Prints the wall time of
each and the speed-up over one worker.

Usage: python benches/sweep_scaling.py   (from the repository root)
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from tern.sweeps import run_sweep

SCENARIO = "scenarios/examples/p2p-bulk.toml"
GRID = {"links.access.rate": ["5Mbps", "10Mbps", "20Mbps", "40Mbps"], "sim.duration": ["600s"]}


def main() -> None:
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for jobs in (1, 2):
            t = time.perf_counter()
            r = run_sweep(SCENARIO, GRID, seeds=4, out=out / f"jobs{jobs}", jobs=jobs)
            times[f"{jobs} worker{'s' * (jobs > 1)}"] = time.perf_counter() - t
            assert r.done == 16 and not r.failures
        try:
            import ray
        except ImportError:
            print("(Ray not installed: skipped)")
        else:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            t = time.perf_counter()
            r = run_sweep(SCENARIO, GRID, seeds=4, out=out / "ray", ray_address="local")
            times["Ray, 2 CPUs"] = time.perf_counter() - t
            ray.shutdown()
    base = times["1 worker"]
    for label, t in times.items():
        print(f"{label:12s} {t:7.2f} s  speed-up {base / t:4.2f}x")


if __name__ == "__main__":
    main()
