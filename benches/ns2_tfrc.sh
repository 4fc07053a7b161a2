#!/usr/bin/env bash
# The ns-2.35 side of the TFRC comparison (benches/RESULTS.md, "TFRC against ns-2.35";
# crates/tern-sim/tests/tfrc.rs): runs ../shared/bench/ns2/tfrc.tcl (Debian's ns2, `ns`) on each
# case and prints packets/s delivered (received bytes / 1032 B per packet / duration) and, beside
# TCP flows, TFRC's goodput over the TCPs' mean. For the TCP cases the script is run from a copy
# made here, in a temporary folder, that also prints the TCP sinks' bytes.
# Usage: benches/ns2_tfrc.sh [SEEDS]   (default "1 2 3 4 5" for the random-loss cases)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-1 2 3 4 5}
ref=../shared/bench/ns2/tfrc.tcl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e 's|  global ns sink tfrc series opt$|  global ns sink tfrc series opt tcps|' \
    -e 's|  puts "{\\"simulator|  set tb 0; foreach s $tcps { set tb [expr $tb + [$s set bytes_]] }\n  puts "{\\"tcp_bytes\\": $tb, \\"simulator|' \
    "$ref" > "$tmp/tfrc_tcp.tcl"
report() {
  python3 -c '
import json, sys
d = json.loads(sys.stdin.read().splitlines()[-1])
a = d["args"]
rate = d["rx_bytes"] / 1032 / a["duration"]
line = f"{sys.argv[1]}: {rate:.1f} packets/s"
if a["tcp"]:
    tcp = d["tcp_bytes"] * 8 / a["duration"] / a["tcp"]
    tfrc = d["rx_bytes"] * 8 / a["duration"]
    line += f", TFRC/TCP {tfrc / tcp:.2f}"
print(line)' "$1"
}
cp "$ref" "$tmp/tfrc.tcl"
cd "$tmp"
ns tfrc.tcl rate 2Mb delay 50ms queue 30 size 1000 duration 60 | report "alone 2 Mbit/s"
ns tfrc.tcl rate 10Mb delay 20ms queue 100 duration 60 | report "alone 10 Mbit/s"
ns tfrc.tcl rate 2Mb delay 20ms queue 50 outage_at 20 outage_for 3 duration 60 | report "3 s outage"
for loss in 0.01 0.03; do
  for s in $seeds; do
    ns tfrc.tcl rate 10Mb delay 20ms queue 100 loss $loss duration 100 seed "$s" | report "loss $loss seed $s"
  done
done
for n in 1 4; do
  ns tfrc_tcp.tcl rate 10Mb delay 10ms queue 50 tcp $n duration 100 | report "beside $n TCP"
done
