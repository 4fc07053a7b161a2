"""Prints one line of speed figures from the JSON line of an ns-3 bench script (stdin)."""

import json
import sys

d = json.loads(sys.stdin.read().strip().splitlines()[-1])
packets = d.get("link_tx_pkts_total", d.get("pkts_total"))
print(
    f"ns-3 Run() {d['run_wall_s']:.3f} s, {d['events']} events "
    f"({d['events_per_wall_s']:.0f} events/s), {packets} packets "
    f"({d['pkts_per_wall_s']:.0f} packets/s), peak RSS {d['maxrss_kb_self'] / 1024:.1f} MiB "
    f"(whole Python process), goodput {d['goodput_mbps']:.3f} Mbit/s"
)
