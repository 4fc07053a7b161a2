#!/usr/bin/env bash
# Tern against ns-3 on the rows of the speed table in benches/RESULTS.md, in one sitting: for each
# row, REPEATS rounds of one ns-3 run (time inside Simulator::Run(), from ../shared/bench/ns3/)
# then TERN_REPS runs (default 5: Tern's runs are short, so noisier) of each Tern build given (examples/run, wall time of
# World::run in the process, like Simulator::Run(); building the world, which ns-3's figure leaves
# out too, is timed apart), interleaved so load on the machine hits all alike. Prints a Markdown
# table of medians, one line per row and build; the raw lines go to OUT.
# With TERN_PYTHON (a python with this tree's `tern` installed), each round also runs
# benches/tern_call.py once: the whole `tern.run(...)` call, first in its process and warm, for a
# second table against ns-3's whole script (set-up plus Simulator::Run(), with and without
# `import ns`, and the process's wall time).
# Usage: NS3_PYTHON=/path/to/venv/bin/python [TERN_PYTHON=.venv/bin/python] \
#        benches/vs_ns3.sh REPEATS OUT TERN_BIN...
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
out=${2:-$(mktemp -d)}
shift 2 || true
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=(target/release/examples/run)
tern_reps=${TERN_REPS:-5}
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
  "802.11b DCF 10 stations 60 s|benches/wifi-dcf-10.toml|benches/ns3_dcf10.py --duration 60"
  "LTE handover burst loss (p2p bulk, 3 s loss) 60 s|scenarios/examples/p2p-bulk.toml links.access.cell={handovers=[{at=\"23s\",burst_loss=\"3s\"}]}|p2p_bulk_outage.py --duration 60 --outdir $out/ns3-outage"
)
n=0
for row in "${rows[@]}"; do
  n=$((n + 1))
  IFS='|' read -r name tern ns <<< "$row"
  read -r -a tern_cmd <<< "$tern"
  # Like for like: the ns-3 scripts keep counters and RTT statistics, no time series, so
  # Tern records none either (its summary has the same counters and statistics).
  tern_cmd+=("record=[]")
  read -r -a ns_cmd <<< "$ns"
  echo "$name" > "$out/$n.name"
  for _ in $(seq "$reps"); do
    script=${ns_cmd[0]}
    [[ $script == */* ]] || script=$scripts/$script   # ours in benches/, else the shared ones
    started=$EPOCHREALTIME
    "$ns3" "$script" "${ns_cmd[@]:1}" 2>/dev/null | tail -1 >> "$out/$n.ns3"
    echo "$started $EPOCHREALTIME" >> "$out/$n.ns3wall"
    if [ -n "${TERN_PYTHON:-}" ]; then
      "$TERN_PYTHON" benches/tern_call.py "${tern_cmd[@]}" >> "$out/$n.call"
    fi
    for _ in $(seq "$tern_reps"); do
      for k in "${!bins[@]}"; do
        "${bins[$k]}" "${tern_cmd[@]}" 2>&1 >/dev/null | tail -1 >> "$out/$n.tern$k"
      done
    done
  done
done
printf '%s\n' "${bins[@]}" > "$out/bins"
python3 - "$out" "$n" <<'PY'
import json, re, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
bins = open(f"{out}/bins").read().split()
med = statistics.median
print("| row | Tern build | ns-3 Run() (s) | Tern wall (s) | ratio | Tern events/s | Tern packets/s "
      "| Tern peak RSS | ns-3 events | Tern events |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for i in range(1, n + 1):
    name = open(f"{out}/{i}.name").read().strip()
    ns = [json.loads(line) for line in open(f"{out}/{i}.ns3")]
    pat = (r"wall ([\d.]+) s, (\d+) events \((\d+) events/s\), \d+ link transmissions "
           r"\((\d+) packets/s\), peak RSS ([\d.]+) MiB")
    nw = med(d["run_wall_s"] for d in ns)
    for k, b in enumerate(bins):
        te = [re.search(pat, line) for line in open(f"{out}/{i}.tern{k}")]
        tw = med(float(m[1]) for m in te)
        print(f"| {name} | `{b}` | {nw:.3f} | {tw:.4f} | {nw / tw:.1f}× "
              f"| {med(float(m[3]) for m in te) / 1e6:.2f} M | {med(float(m[4]) for m in te) / 1e6:.2f} M "
              f"| {max(float(m[5]) for m in te):.1f} MiB | {ns[0]['events']} | {te[0][2]} |")
PY
[ -z "${TERN_PYTHON:-}" ] || python3 - "$out" "$n" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
med = statistics.median
print()
print("| row | ns-3 set-up + Run() (s) | + import ns (s) | ns-3 process (s) | tern.run first (s) "
      "| tern.run warm (s) | import tern + first (s) | ratio first | ratio warm | ratio with imports "
      "| Tern events/s (warm) | Tern process peak RSS | ns-3 peak RSS |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for i in range(1, n + 1):
    name = open(f"{out}/{i}.name").read().strip()
    ns = [json.loads(line) for line in open(f"{out}/{i}.ns3")]
    proc = [float(b) - float(a) for a, b in (line.split() for line in open(f"{out}/{i}.ns3wall"))]
    te = [json.loads(line) for line in open(f"{out}/{i}.call")]
    body = med(d["setup_s"] + d["run_wall_s"] for d in ns)
    whole = med(d["import_s"] + d["setup_s"] + d["run_wall_s"] for d in ns)
    first, warm = med(d["first_s"] for d in te), med(d["warm_s"] for d in te)
    both = med(d["import_s"] + d["first_s"] for d in te)
    print(f"| {name} | {body:.3f} | {whole:.3f} | {med(proc):.3f} | {first:.4f} | {warm:.4f} "
          f"| {both:.3f} | {body / first:.1f}× | {body / warm:.1f}× | {whole / both:.1f}× "
          f"| {te[0]['events'] / warm / 1e6:.2f} M | {max(d['maxrss_mib'] for d in te):.0f} MiB "
          f"| {max(d['maxrss_kb_self'] for d in ns) / 1024:.0f} MiB |")
PY
echo "raw lines in $out"
