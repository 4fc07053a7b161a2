"""What the emulation tests share: the marks that skip a test this machine cannot run, the
two-host scenario they start from, and the check that no network namespace is left behind."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from tern import emulation

LINUX = sys.platform == "linux"
ROOT_HERE = LINUX and os.geteuid() == 0 and shutil.which("ip") is not None
needs_root = pytest.mark.skipif(
    not ROOT_HERE, reason="emulation makes network namespaces: needs root on Linux and `ip`"
)
needs_ping = pytest.mark.skipif(
    shutil.which("ping") is None, reason="ping missing (scripts/test installs iputils-ping)"
)
needs_iperf3 = pytest.mark.skipif(
    shutil.which("iperf3") is None, reason="iperf3 missing (scripts/test installs it)"
)
needs_tshark = pytest.mark.skipif(
    shutil.which("tshark") is None, reason="tshark missing (scripts/test installs it)"
)

TWO_HOSTS = """\
[sim]
duration = "{duration}"

[[nodes]]
name = "a"
real = true

[[nodes]]
name = "b"
real = true

[[links]]
name = "wire"
ends = ["a", "b"]
rate = "10Mbps"
delay = "20ms"
"""


@pytest.fixture(autouse=True)
def nothing_left_behind():
    """Imported by a test module, it checks after each of its tests that no namespace with
    Tern's prefix remains."""
    yield
    if ROOT_HERE:
        assert emulation.namespaces() == [], "an emulation left a namespace behind"
