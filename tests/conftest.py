"""Shared fixtures: scenario text builders and a CLI runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenarios" / "examples"

P2P = """\
record = ["delay", "queue"]

[sim]
duration = "5s"
seed = 1

[[nodes]]
name = "a"

[[nodes]]
name = "b"

[[links]]
name = "access"
ends = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
loss = { kind = "bernoulli", p = 0.05 }

[[flows]]
name = "msgs"
from = "a"
to = "b"
app = { kind = "cbr", rate = "2Mbps", size = "1000B" }
"""


@pytest.fixture
def p2p_text() -> str:
    return P2P


def tern_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the `tern` command line as a user would."""
    return subprocess.run(
        [sys.executable, "-m", "tern", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def tshark() -> str:
    """Wireshark's tshark, or a skip (a failure where TERN_REQUIRE_TSHARK=1)."""
    exe = shutil.which("tshark")
    if exe is None:
        if os.environ.get("TERN_REQUIRE_TSHARK") == "1":
            pytest.fail("tshark is not on the PATH and TERN_REQUIRE_TSHARK=1")
        pytest.skip("tshark is not installed (Debian package tshark)")
    return exe


def tshark_fields(pcap, display_filter, *fields):
    """The `fields` of the packets of `pcap` that `display_filter` keeps, checksums checked.
    The payloads of iperf3 (port 5201) and of emulation's interop flows (5001) are test data,
    decoded as such: Wireshark's heuristic dissectors (Thrift's, for one) otherwise now and
    then take iperf3's random bytes for their protocol and call the packet malformed."""
    cmd = [
        tshark(), "-r", str(pcap), "-n",
        "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
        "-o", "tcp.relative_sequence_numbers:FALSE",
        "-d", "tcp.port==5201,data", "-d", "tcp.port==5001,data",
        "-Y", display_filter, "-T", "fields",
    ]  # fmt: skip
    for f in fields:
        cmd += ["-e", f]
    lines = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()
    return [line.split("\t") for line in lines]


def assert_quick_agrees_with_full(rep) -> None:
    """A `--quick` reproduction gives the verdicts its study's full run gave, as recorded in
    `scenarios/<id>/full-verdicts.json` (claim id → verdict, or the role of a claim that
    gets none) from that run's report.json."""
    import json

    path = rep.study.folder / "full-verdicts.json"
    full = json.loads(path.read_text())
    quick = {r.claim.id: r.verdict or r.claim.role for r in rep.results}
    assert quick == full, {
        k: (quick.get(k), full.get(k))
        for k in set(quick) | set(full)
        if quick.get(k) != full.get(k)
    }


#: A reproduction's budget: peak memory of any of its processes, and the evaluation's
#: share of the simulations' CPU time.
BUDGET_PEAK_MIB = 2048
BUDGET_EVALUATION_SHARE = 0.2


def assert_within_budget(rep) -> None:
    """A reproduction that ran its simulations stays within the budget: no process above
    2 GiB, and judging claims and drawing figures costs at most a fifth of the simulations'
    CPU time (CPU, not wall, time: a busy machine slows both alike)."""
    cost = rep.cost
    assert cost.runs_done_now == cost.runs, "the budget is measured on a fresh reproduction"
    assert max(cost.peak_rss_worker_mib, cost.peak_rss_main_mib) < BUDGET_PEAK_MIB, cost
    evaluation = cost.evaluation_cpu_s + cost.reports_cpu_s
    assert evaluation <= BUDGET_EVALUATION_SHARE * cost.simulation_cpu_s, cost


def chromium() -> str:
    """Path of a headless-capable Chromium; skips the test without one (fails when
    TERN_REQUIRE_CHROMIUM=1, as CI sets where it is installed)."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("TERN_REQUIRE_CHROMIUM") == "1":
        pytest.fail("TERN_REQUIRE_CHROMIUM=1 but no chromium, chromium-browser or google-chrome")
    pytest.skip(
        "no Chromium to render pages with (apt-get install chromium); "
        "set TERN_REQUIRE_CHROMIUM=1 to make this a failure"
    )


def headless(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `browser` headless with its own profile folder."""
    return subprocess.run(
        [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", f"--user-data-dir={profile}", *args,
        ],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip


@pytest.fixture(autouse=True)
def signal_handlers_left_as_found():
    """A test leaves SIGINT's and SIGTERM's handlers as it found them: a handler left behind
    changes how every later test's run answers Ctrl-C (`runner` installs its own only over
    Python's default)."""
    import signal

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    yield
    after = {s: signal.getsignal(s) for s in before}
    assert after == before, f"signal handlers changed: {before} -> {after}"
