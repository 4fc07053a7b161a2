"""Shared fixtures: scenario text builders and a CLI runner."""

from __future__ import annotations

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
