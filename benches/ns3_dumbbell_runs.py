"""Runs ns-3's 100-flow dumbbell, `../shared/bench/ns3/many_flows.py --flows 100 --duration 10
--run R`, unchanged, for R = 1..N, and writes what `benches/dumbbell_fidelity.py` compares with:
per run Jain's index, bottleneck drops, aggregate goodput, and the start time and bytes received
of every flow (read from the script's own variables after it ran, so that Tern can be run with
the very start times ns-3 drew).

    NS3_PYTHON=/path/to/ns3-venv/bin/python   # ns3==3.44.post0
    $NS3_PYTHON benches/ns3_dumbbell_runs.py 12 > benches/ns3_dumbbell_100.json
    $NS3_PYTHON benches/ns3_dumbbell_runs.py 12 --syn-1s > benches/ns3_dumbbell_100_syn1s.json

`--syn-1s` sets `ns3::TcpSocket::ConnTimeout` to 1 s before the script runs (it leaves that
attribute alone): RFC 6298 §2.1's initial RTO, which Tern uses for the SYN, instead of ns-3's
default 3 s (RFC 1122's; src/internet/model/tcp-socket.cc, ns-3.44).

ns-3 is deterministic for a given run number, so the file is the same in every sitting.
"""

import contextlib
import io
import json
import runpy
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "shared" / "bench" / "ns3" / "many_flows.py"
ARGS = ["--flows", "100", "--duration", "10"]


def one_run(run: int, syn_1s: bool) -> dict:
    """The script's JSON line for run `run`, with its flows' start times and bytes received
    (in this process: ns-3's C++ definitions can be made once per process only)."""
    if syn_1s:
        from ns import ns

        ns.Config.SetDefault("ns3::TcpSocket::ConnTimeout", ns.TimeValue(ns.Seconds(1.0)))
    sys.argv = [str(SCRIPT), *ARGS, "--run", str(run)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        names = runpy.run_path(str(SCRIPT), run_name="__main__")
    result = json.loads(printed.getvalue().strip().splitlines()[-1])
    return {
        "run": run,
        "jain": result["jain_fairness"],
        # The script removes the qdiscs, so the bottleneck's drops are its device queue's,
        # reported through the traffic-control layer's drop trace (many_flows.py, `TcDrop`).
        "drops": result["bottleneck_drops_tc_layer"] + result["bottleneck_drops_device_queue"],
        "goodput_mbps": result["aggregate_goodput_mbps"],
        "starts": [float(s) for s in names["starts"]],
        "rx_bytes": [int(b) for b in names["rx"]],
    }


def in_child(run: int, syn_1s: bool) -> dict:
    """`one_run(run, syn_1s)` in a process of its own."""
    child = [sys.executable, __file__, "--one", str(run)] + (["--syn-1s"] if syn_1s else [])
    return json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)


def main() -> None:
    syn_1s = "--syn-1s" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--syn-1s"]
    if args[:1] == ["--one"]:
        json.dump(one_run(int(args[1]), syn_1s), sys.stdout)
        return
    runs = int(args[0]) if args else 12
    setting = " with ns3::TcpSocket::ConnTimeout = 1 s" if syn_1s else ""
    out = {
        "command": f"many_flows.py {' '.join(ARGS)} --run R{setting}",
        "simulator": "ns-3.44 (ns3==3.44.post0)",
        "runs": [in_child(r, syn_1s) for r in range(1, runs + 1)],
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
