"""ns-3's own cost per link transmission as the dumbbell grows from 10 to 1 000 flows: the
reference for "cost per packet flat in the number of flows".

Runs `../shared/bench/ns3/many_flows.py --flows N --duration D` (seed 1, run 1) for each N, each
in a process of its own, and prints one JSON line per run with the script's wall time of
`Simulator::Run()`, its link transmissions (`PhyTxEnd` on every device) and the time per
transmission. The script is run unchanged but for one thing: from 255 flows on, its address plan
(10.1.1.0/24, 10.2.1.0/24 and 10.3.1.0/24, one /24 per leaf, `NewNetwork` counting up the third
octet) runs the left leaves' networks into the right ones' (ns-3 stops: "Address Collision:
10.3.1.1"). The three bases are moved to 10.0.0.0, 20.0.0.0 and 30.0.0.0, which leaves room for
65 536 leaves a side. Addresses change nothing else in the run: at 10 and 100 flows the unchanged
script gives the same events, link transmissions and Jain's index (benches/RESULTS.md, "Flow
scaling against ns-3's own").

    NS3_PYTHON=/path/to/ns3-venv/bin/python   # ns3==3.44.post0
    $NS3_PYTHON benches/ns3_flow_scaling.py 10 100 1000 --duration 30 --repeat 3
"""

import argparse
import contextlib
import io
import json
import runpy
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "shared" / "bench" / "ns3" / "many_flows.py"

#: The script's address bases and the ones used instead (see the module's doc).
BASES = {"10.1.1.0": "10.0.0.0", "10.2.1.0": "20.0.0.0", "10.3.1.0": "30.0.0.0"}


def one_run(flows: int, duration: float) -> dict:
    """The script's JSON line for `flows` flows, run in this process with the wider address plan."""
    from ns import ns

    script_address = ns.Ipv4Address

    def address(text: str) -> object:
        return script_address(BASES.get(text, text))

    address.GetAny = script_address.GetAny  # the sinks' wildcard address
    ns.Ipv4Address = address
    sys.argv = [str(SCRIPT), "--flows", str(flows), "--duration", str(duration)]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        runpy.run_path(str(SCRIPT), run_name="__main__")
    return json.loads(printed.getvalue().strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("flows", type=int, nargs="+", help="numbers of flows to run")
    p.add_argument(
        "--duration", type=float, default=30.0, help="simulated seconds per run (default 30)"
    )
    p.add_argument(
        "--repeat", type=int, default=1, help="runs of each size, interleaved (default 1)"
    )
    p.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        json.dump(one_run(args.flows[0], args.duration), sys.stdout)
        return
    for _ in range(args.repeat):
        for n in args.flows:
            child = [sys.executable, __file__, str(n), "--duration", str(args.duration), "--one"]
            r = json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)
            tx = r["all_links_tx_pkts"]
            row = {
                "flows": n,
                "run_wall_s": r["run_wall_s"],
                "events": r["events"],
                "link_transmissions": tx,
                "ns_per_transmission": r["run_wall_s"] / tx * 1e9,
                "maxrss_kb": r["maxrss_kb_self"],
                "jain": r["jain_fairness"],
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
