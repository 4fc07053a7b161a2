#!/usr/bin/env bash
# A/B speed of two builds of examples/run on the rows of the ns-3 comparison table, in one sitting:
# runs are interleaved (A, B, A, B, ...) so load on the machine hits both alike; prints each row's
# median wall time, events/s and peak RSS for A and B, and B's change in per cent.
# Usage: benches/ab.sh BIN_A BIN_B [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
a=$1 b=$2 reps=${3:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 benches/make_dumbbell.py 10 > "$tmp/db10.toml"
python3 benches/make_dumbbell.py 100 > "$tmp/db100.toml"
rows=(
  "p2p bulk 60 s|scenarios/examples/p2p-bulk.toml"
  "dumbbell 10 TCP 10 s|$tmp/db10.toml"
  "dumbbell 100 TCP 10 s|$tmp/db100.toml"
  "802.11n MCS 0 60 s|scenarios/examples/wifi-ht-upload.toml sim.duration=61s wifi.wlan.rate_control.mcs=0 nodes.sta.position=[10,0,0]"
  "802.11n MCS 7 60 s|scenarios/examples/wifi-ht-upload.toml sim.duration=61s wifi.wlan.rate_control.mcs=7 nodes.sta.position=[10,0,0]"
  "802.11b DCF 10 stations|benches/wifi-dcf-10.toml"
)
printf '| row | A wall (s) | B wall (s) | B vs A | A events/s | B events/s | A peak RSS | B peak RSS |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'
for row in "${rows[@]}"; do
  name=${row%%|*}
  read -r -a cmd <<< "${row#*|}"
  for i in $(seq "$reps"); do
    "$a" "${cmd[@]}" 2>&1 >/dev/null | tail -1 >> "$tmp/a"
    "$b" "${cmd[@]}" 2>&1 >/dev/null | tail -1 >> "$tmp/b"
  done
  python3 - "$name" "$tmp/a" "$tmp/b" <<'PY'
import re, statistics, sys
name, fa, fb = sys.argv[1:]
def stats(f):
    rows = [re.search(r"wall ([\d.]+) s, \d+ events \((\d+) events/s\).*peak RSS ([\d.]+) MiB", l)
            for l in open(f)]
    wall = statistics.median(float(r[1]) for r in rows)
    eps = statistics.median(float(r[2]) for r in rows)
    rss = max(float(r[3]) for r in rows)
    return wall, eps, rss
(wa, ea, ra), (wb, eb, rb) = stats(fa), stats(fb)
print(f"| {name} | {wa:.3f} | {wb:.3f} | {100 * (wb / wa - 1):+.1f} % | {ea / 1e6:.2f} M "
      f"| {eb / 1e6:.2f} M | {ra:.1f} MiB | {rb:.1f} MiB |")
PY
  rm -f "$tmp/a" "$tmp/b"
done
