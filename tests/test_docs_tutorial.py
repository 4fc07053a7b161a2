"""Every step of the tutorial runs as written.

Each tutorial page's code blocks are taken in order and run in a fresh folder that holds the
checkout's `scenarios/`, as a reader would from the checkout: a TOML block with a `title` is saved
under that name, a `sh` block runs in bash (stopping at the first failing command), a `python`
block runs as a script. The one block not run is the install (`pip install .`): the test runs in
the installed Tern it tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial"
PAGES = ["index", "lte-handover", "wifi-upload", "quic-download", "sweep", "reproduction"]
BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```$", re.S | re.M)


def blocks(page: Path) -> list[tuple[str, str, str]]:
    """(language, title or "", code) of each fenced block, in order."""
    out = []
    for lang, attrs, code in BLOCK.findall(page.read_text()):
        title = re.search(r'title="([^"]+)"', attrs)
        out.append((lang, title.group(1) if title else "", code))
    return out


def test_every_tutorial_page_is_tested():
    assert sorted(p.stem for p in TUTORIAL.glob("*.md")) == sorted(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_tutorial_page_runs_as_written(name, tmp_path):
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    env.pop("PYTHONPATH", None)
    ran = 0
    for i, (lang, title, code) in enumerate(blocks(TUTORIAL / f"{name}.md")):
        if lang == "toml":
            assert title, f"block {i}: a TOML block the reader saves needs a title"
            (tmp_path / title).write_text(code)
            continue
        if lang == "sh" and code.strip() == "pip install .":
            continue
        if lang == "sh":
            cmd = ["bash", "-euo", "pipefail", "-c", code]
        elif lang == "python":
            script = tmp_path / f"step{i}.py"
            script.write_text(code)
            cmd = [sys.executable, str(script)]
        else:
            pytest.fail(f"block {i} of {name}.md is {lang!r}: the test runs sh, python and toml")
        res = subprocess.run(
            cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
        )
        assert res.returncode == 0, (
            f"{name}.md block {i}:\n{code}\n{res.stdout[-2000:]}\n{res.stderr[-3000:]}"
        )
        ran += 1
    assert ran >= 2
