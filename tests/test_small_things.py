"""What a new user trips on: the version, flags shown as flags, rates as Tern prints them,
durations kept as written, a `Run` shown in a notebook, progress bars where someone watches."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
from rich.console import Console

import tern
from conftest import EXAMPLES, P2P, tern_cli
from tern.progress import RunBar, SweepBar, watched


def test_version_flag():
    res = tern_cli("--version")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"tern {tern.__version__}"


def test_on_off_flags_are_shown_without_a_value():
    res = subprocess.run(
        [sys.executable, "-m", "tern", "run", "--help"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert res.returncode == 0, res.stderr
    json_line = next(line for line in res.stdout.splitlines() if "--json" in line)
    assert "<bool>" not in json_line, json_line
    assert "<int range>" in next(ln for ln in res.stdout.splitlines() if "--seed" in ln)


@pytest.mark.parametrize("spelling", ["10 Mbit/s", "10mbps", "10Mbps", "10000 kbit/s"])
def test_rates_as_tern_prints_them(spelling):
    resolved = tern.validate(text=P2P, set={"links.access.rate": spelling})
    assert 'rate = "10Mbps"' in resolved


def test_resolved_durations_keep_seconds():
    resolved = tern.validate(text=P2P, set={"sim.duration": "60s"})
    assert 'duration = "60s"' in resolved


def test_a_folder_given_as_the_scenario_is_named_a_folder(tmp_path):
    res = tern_cli("run", str(tmp_path))
    assert res.returncode == 2
    assert "is a folder, not a scenario file" in res.stderr


def test_run_shows_a_summary_in_a_notebook():
    run = tern.run(text=P2P.replace('"5s"', '"1s"'))
    text = repr(run)
    assert text.startswith("<tern.Run of 1 s simulated, seed 1: 1 flow, 1 link; traces: ")
    assert re.search(r"msgs\s+cbr/udp\s+a → b\s+\d+\.\d{3} MB\s+\d+\.\d{3} Mbit/s", text), text
    page = run._repr_html_()
    assert "<table>" in page and "<td>msgs</td>" in page and "<td>a → b</td>" in page


def test_bars_show_where_someone_watches():
    notebook = Console(file=io.StringIO(), force_jupyter=True)
    log = Console(file=io.StringIO(), force_terminal=False, force_jupyter=False)
    assert watched(notebook) and not watched(log)
    assert RunBar("x", con=notebook).enabled
    assert not RunBar("x", con=log).enabled
    assert not RunBar("x", enabled=False, con=notebook).enabled
    assert RunBar("x", con=log, always=True).enabled  # tern.run(progress=True)
    assert SweepBar("x", con=log).bar.disable


def test_a_short_run_makes_no_bar(tmp_path):
    """A run shorter than a bar's 2 s does not import rich: its import would be most of what
    a first short `tern.run` costs beyond a warm one."""
    script = (
        "import sys, tern; tern.run(sys.argv[1], set={'sim.duration': '1s'}); print(*sys.modules)"
    )
    res = subprocess.run(
        [sys.executable, "-c", script, str(EXAMPLES / "p2p-bulk.toml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert "tern.progress" in res.stdout.split() and "rich" not in res.stdout.split()


def test_no_bar_in_a_log(tmp_path):
    """A script's output to a file gets no bar (the same run in a terminal would)."""
    script = tmp_path / "s.py"
    script.write_text(
        "import tern\n"
        f"tern.run(text={P2P.replace(chr(34) + '5s' + chr(34), chr(34) + '1s' + chr(34))!r})\n"
    )
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
