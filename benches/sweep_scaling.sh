#!/usr/bin/env bash
# Sweep scaling: the same sweep (p2p-bulk, 4 rates x 4 seeds, 120 s simulated
# each) with 1 and 2 local workers, then on a local Ray cluster of 2 CPUs.
# Prints the wall time of each and the speed-up. Needs `pip install -e '.[ray]'`.
# Usage: benches/sweep_scaling.sh [PYTHON]
set -euo pipefail
cd "$(dirname "$0")/.."
py=${1:-python}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$py" - "$out" <<'PY'
import sys, time
from pathlib import Path
from tern.sweeps import run_sweep

out = Path(sys.argv[1])
scenario = "scenarios/examples/p2p-bulk.toml"
grid = {"links.access.rate": ["5Mbps", "10Mbps", "20Mbps", "40Mbps"], "sim.duration": ["120s"]}
times = {}
for label, kw in (("1 worker", {"jobs": 1}), ("2 workers", {"jobs": 2})):
    t = time.perf_counter()
    r = run_sweep(scenario, grid, seeds=4, out=out / label.replace(" ", "-"), **kw)
    times[label] = time.perf_counter() - t
    assert r.done == 16 and not r.failures
try:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    t = time.perf_counter()
    r = run_sweep(scenario, grid, seeds=4, out=out / "ray", ray_address="local")
    times["Ray, 2 CPUs"] = time.perf_counter() - t
    ray.shutdown()
except ImportError:
    print("(Ray not installed: skipped)")
base = times["1 worker"]
for label, t in times.items():
    print(f"{label:12s} {t:7.2f} s  speed-up {base / t:4.2f}x")
PY
