"""The kernel's BBR (`iperf3 -C bbr` through `tern emulate`) against Tern's `cc = "bbr"` on the
link of the ns-3 TcpBbr comparison: 10 Mbit/s, 20 ms each way, DropTail 100 packets
(`benches/kernel_bbr_vs_tern.py` measures both; table in benches/RESULTS.md).

Needs root, `ip`, iperf3 and ss; skipped elsewhere with the reason. Emulation is not
deterministic and this machine is shared, so the bounds are ratios between the two, each as
wide as the spread measured over repeated kernel runs (stated at each), never a number from
Tern's earlier output alone.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from emulation_support import nothing_left_behind  # noqa: F401 (an autouse fixture)

ROOT = Path(__file__).resolve().parent.parent
HERE = (
    sys.platform == "linux"
    and os.geteuid() == 0
    and all(shutil.which(c) for c in ("ip", "iperf3", "ss"))
)
pytestmark = pytest.mark.skipif(
    not HERE, reason="emulation needs root on Linux, `ip`, iperf3 and ss"
)

#: 12 s of transfer: STARTUP, PROBE_BW and the first PROBE_RTT (10 s after the first RTT).
DURATION_S = 12.0
#: The link's payload rate: 1448-byte segments in 1500-byte IPv4 packets.
PAYLOAD_BPS = 10e6 * 1448 / 1500


def _bench(monkeypatch):
    path = ROOT / "benches" / "kernel_bbr_vs_tern.py"
    monkeypatch.syspath_prepend(str(path.parent))  # it imports linux_vs_tern beside it
    spec = importlib.util.spec_from_file_location("kernel_bbr_vs_tern", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_kernels_bbr_and_terns_agree_on_the_ns3_link(tmp_path, monkeypatch):
    bench = _bench(monkeypatch)
    # A shared machine delays the odd event past the 10 ms bound (16 ms seen under a load
    # average of 15); one such event moves the figures below by far less than their bounds.
    kernel = bench.figures(bench.kernel_run(tmp_path, DURATION_S, 0, fail_us=50_000))
    tern = bench.figures(bench.tern_run(DURATION_S, 1))
    # In cruise BBR paces at 99 % of its bandwidth estimate (tcp_bbr.c
    # `bbr_pacing_margin_percent`), the estimate being the link's payload rate: 9.557 Mbit/s.
    # Tern's median sits on it; the kernel's, read from ss (three significant digits) through
    # a real-time emulator, came out 0.1-1.1 % above it in six runs (three of 30 s, three of 12 s).
    cruise = 0.99 * PAYLOAD_BPS / 1e6
    assert abs(tern["pacing_median_mbps"] / cruise - 1) < 0.002, tern
    assert abs(kernel["pacing_median_mbps"] / tern["pacing_median_mbps"] - 1) < 0.02, kernel
    # PROBE_RTT: 10 s after the first minimum RTT in both (`bbr_min_rtt_win_sec`), read on
    # a 100 ms grid: the kernel's came at 10.1-10.2 s in six runs, Tern's at 10.1 s.
    assert kernel["probe_rtt_s"] and tern["probe_rtt_s"], (kernel, tern)
    assert abs(kernel["probe_rtt_s"][0] - tern["probe_rtt_s"][0]) <= 0.25, (kernel, tern)
    # Goodput: the same link, the same control; iperf3 counts from its receiver's first byte
    # and Tern from the flow's start (one handshake earlier): within 2 %.
    assert abs(kernel["goodput_mbps"] / tern["goodput_mbps"] - 1) < 0.02, (kernel, tern)
    assert kernel["goodput_mbps"] < PAYLOAD_BPS / 1e6
    # STARTUP's overshoot sets the largest queue: 70-73 packets in the kernel's six runs,
    # 73 in Tern's; its mean and the RTT it adds vary more from run to run in the kernel.
    assert abs(kernel["queue_max_packets"] - tern["queue_max_packets"]) <= 8, (kernel, tern)
    assert 0.9 < kernel["srtt_mean_ms"] / tern["srtt_mean_ms"] < 1.3, (kernel, tern)
