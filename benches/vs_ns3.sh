#!/usr/bin/env bash
# Tern against ns-3 on the rows of issue 15's table, in one sitting: for each row, REPEATS rounds of
# one ns-3 run (time inside Simulator::Run(), from ../shared/bench/ns3/) then one Tern run
# (examples/run, wall time of the run in the process), interleaved so load on the machine hits both
# alike. Prints a Markdown table of medians; the raw lines go to OUT (default: a temporary folder).
# Usage: NS3_PYTHON=/path/to/venv/bin/python benches/vs_ns3.sh [REPEATS] [TERN_BIN] [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
bin=${2:-target/release/examples/run}
out=${3:-$(mktemp -d)}
ns3=${NS3_PYTHON:?set NS3_PYTHON to a python with ns3==3.44.post0}
scripts=../shared/bench/ns3
mkdir -p "$out"
python3 benches/make_dumbbell.py 10 > "$out/db10.toml"
python3 benches/make_dumbbell.py 100 > "$out/db100.toml"
wifi="scenarios/examples/wifi-ht-upload.toml sim.duration=61s nodes.sta.position=[10,0,0]"
rows=(
  "p2p bulk 60 s|scenarios/examples/p2p-bulk.toml|p2p_bulk.py --duration 60"
  "dumbbell 10 TCP 10 s|$out/db10.toml|many_flows.py --flows 10 --duration 10"
  "dumbbell 100 TCP 10 s|$out/db100.toml|many_flows.py --flows 100 --duration 10"
  "802.11n MCS 0 10 m 60 s|$wifi wifi.wlan.rate_control.mcs=0|wifi_ht_upload.py --mcs 0 --distance 10 --duration 60"
  "802.11n MCS 7 10 m 60 s|$wifi wifi.wlan.rate_control.mcs=7|wifi_ht_upload.py --mcs 7 --distance 10 --duration 60"
)
n=0
for row in "${rows[@]}"; do
  n=$((n + 1))
  IFS='|' read -r name tern ns <<< "$row"
  read -r -a tern_cmd <<< "$tern"
  read -r -a ns_cmd <<< "$ns"
  echo "$name" > "$out/$n.name"
  for _ in $(seq "$reps"); do
    "$ns3" "$scripts/${ns_cmd[0]}" "${ns_cmd[@]:1}" 2>/dev/null | tail -1 >> "$out/$n.ns3"
    "$bin" "${tern_cmd[@]}" 2>&1 >/dev/null | tail -1 >> "$out/$n.tern"
  done
done
python3 - "$out" "$n" <<'PY'
import json, re, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
med = statistics.median
print("| row | ns-3 Run() (s) | Tern wall (s) | ratio | Tern events/s | Tern packets/s "
      "| Tern peak RSS | ns-3 events | Tern events |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for i in range(1, n + 1):
    name = open(f"{out}/{i}.name").read().strip()
    ns = [json.loads(line) for line in open(f"{out}/{i}.ns3")]
    pat = (r"wall ([\d.]+) s, (\d+) events \((\d+) events/s\), \d+ link transmissions "
           r"\((\d+) packets/s\), peak RSS ([\d.]+) MiB")
    te = [re.search(pat, line) for line in open(f"{out}/{i}.tern")]
    nw = med(d["run_wall_s"] for d in ns)
    tw = med(float(m[1]) for m in te)
    print(f"| {name} | {nw:.3f} | {tw:.4f} | {nw / tw:.1f}× | {med(float(m[3]) for m in te) / 1e6:.2f} M "
          f"| {med(float(m[4]) for m in te) / 1e6:.2f} M | {max(float(m[5]) for m in te):.1f} MiB "
          f"| {ns[0]['events']} | {te[0][2]} |")
PY
echo "raw lines in $out"
