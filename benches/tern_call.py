"""Times whole `tern.run(...)` calls from Python, for benches/vs_ns3.sh.

Usage: python benches/tern_call.py FILE [KEY=VALUE ...]   (TERN_WARM=N warm calls, default 5)

In a fresh process: `import tern`, then the first `tern.run(FILE, set={KEY: VALUE})` call and N
more (warm) calls of the same scenario, each the whole call as a user makes it: the scenario's
parse and checks, building the world, the simulation, the summary and the `Run` it returns (no
`out`: traces, if any, stay in memory). Prints one JSON line: the import, first and warm call
times (s), the run's events and link transmissions, and the process's peak RSS.
"""

import json
import os
import resource
import statistics
import sys
import time

t0 = time.perf_counter()
import tern  # noqa: E402  (timed)

import_s = time.perf_counter() - t0
path = sys.argv[1]
sets = dict(arg.split("=", 1) for arg in sys.argv[2:])


def call() -> tuple[float, tern.Run]:
    start = time.perf_counter()
    run = tern.run(path, set=sets, progress=False)
    return time.perf_counter() - start, run


first_s, run = call()
warm = [call()[0] for _ in range(int(os.environ.get("TERN_WARM", "5")))]
s = run.summary
print(
    json.dumps(
        {
            "import_s": import_s,
            "first_s": first_s,
            "warm_s": statistics.median(warm) if warm else None,
            "events": s["events"],
            "packets": sum(c["tx_packets"] for d in s["links"].values() for c in d.values()),
            "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    )
)
