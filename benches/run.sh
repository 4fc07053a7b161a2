#!/usr/bin/env bash
# Tern's benchmarks: the bare event queue (criterion), scenario throughput
# (events/s, link packets/s, peak memory), and the same TCP bulk scenario in
# ns-3 when an ns-3 interpreter is given (NS3_PYTHON=/path/to/venv/bin/python,
# with `pip install ns3==3.44.post0` in that venv), for a ratio measured in one sitting.
# Usage: benches/run.sh [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
cargo build --release -q -p tern-sim --example run
echo "== event queue (criterion, hold model)"
cargo bench -q -p tern-sim --bench event_queue -- --noplot 2>&1 | grep -E "event_queue_hold|time:|thrpt:"
for s in benches/udp-flood.toml benches/udp-mix-100.toml scenarios/examples/p2p-bulk.toml \
  benches/wifi-dcf-10.toml; do
  echo "== $s"
  for _ in $(seq "$reps"); do
    target/release/examples/run "$s" 2>&1 >/dev/null | tail -1
  done
done
# 60 s of TCP upload + ping over 802.11n, 10 m from the AP (ns-3's wifi_ht_upload.py set-up).
for mcs in 0 7; do
  echo "== scenarios/examples/wifi-ht-upload.toml, MCS $mcs, 10 m, 60 s"
  for _ in $(seq "$reps"); do
    target/release/examples/run scenarios/examples/wifi-ht-upload.toml sim.duration=61s \
      "wifi.wlan.rate_control.mcs=$mcs" "nodes.sta.position=[10,0,0]" 2>&1 >/dev/null | tail -1
  done
done
if [ -n "${NS3_PYTHON:-}" ]; then
  echo "== ns-3 on the same TCP bulk scenario (time inside Simulator::Run())"
  for _ in $(seq "$reps"); do
    "$NS3_PYTHON" ../shared/bench/ns3/p2p_bulk.py --duration 60 2>/dev/null \
      | python3 benches/ns3_line.py
  done
  for mcs in 0 7; do
    echo "== ns-3 wifi_ht_upload.py, MCS $mcs, 10 m, 60 s (time inside Simulator::Run())"
    for _ in $(seq "$reps"); do
      "$NS3_PYTHON" ../shared/bench/ns3/wifi_ht_upload.py --mcs "$mcs" --distance 10 \
        --duration 60 2>/dev/null | python3 benches/ns3_line.py
    done
  done
fi
