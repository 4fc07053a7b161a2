"""The documentation site: it builds in strict mode, its references miss no key, column or
trace, the README's links lead somewhere, and a real browser renders the tutorial."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import matplotlib.image
import numpy as np
import polars as pl
import pytest

import tern
from conftest import chromium, headless

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import gen_reference  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    res = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-4000:]
    return out


@pytest.fixture(scope="module")
def schema() -> dict:
    return tern.schema()


def _objects(defs: dict, node: dict):
    """Every table form a schema node can take (itself, or each of its variants)."""
    if node.get("properties"):
        yield node
    for combo in ("oneOf", "anyOf"):
        for v in node.get(combo, []):
            if "$ref" in v:
                v = defs[v["$ref"].rsplit("/", 1)[1]]
            if v.get("properties"):
                yield v


def test_the_scenario_reference_has_every_key_of_the_schema(site, schema):
    page = (site / "reference" / "scenario" / "index.html").read_text()
    text = gen_reference.scenario_page(schema)
    # The keys of each section's table, by the schema definition the section says it shows.
    shown: dict[str, set[str]] = {}
    for section in text.split("\n## ")[1:]:
        definition = re.search(r"^Defined in `[^`]+` \(`(\w+)`\)", section, re.M)
        rows = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
        if definition:
            shown.setdefault(definition.group(1), set()).update(rows)
    defs = schema["definitions"]
    expected = {"Scenario": set(schema["properties"])}
    for name, node in defs.items():
        for form in _objects(defs, node):
            expected.setdefault(name, set()).update(form["properties"])
    missing = {n: keys - shown.get(n, set()) for n, keys in expected.items()}
    assert not {n: k for n, k in missing.items() if k}, missing
    # Defaults and allowed values reach the page: a few of each kind, as the schema gives them.
    for value in ("100pkt", "newreno", "cubic", "ctcp", "codel", "gilbert-elliott", "minstrel"):
        assert f'<code>"{value}"</code>' in page, value
    # Every TCP host profile with its keys' sources.
    tcp = next(
        v for v in defs["TransportSpec"]["oneOf"] if v["properties"]["kind"]["enum"] == ["tcp"]
    )
    for profile in tcp["properties"]["profile"]["oneOf"]:
        name = profile["const"]
        assert f'Profile <code>"{name}"</code>' in page, name
        for kv in profile["x-keys"].values():
            assert kv["source"].split(" ")[0] in page


def test_the_trace_reference_has_every_trace_and_the_columns_tern_writes(site, schema, tmp_path):
    page = (site / "reference" / "traces" / "index.html").read_text()
    kinds = [v["enum"][0] for v in schema["definitions"]["RecordKind"]["oneOf"]]
    for kind in kinds:
        assert f"<code>{kind}</code>" in page, kind
    tables = {t.name: [c.name for c in t.columns] for t in gen_reference.trace_tables()}
    assert len(tables) >= 20 and all(tables.values())
    for name, columns in tables.items():
        assert f'id="{gen_reference._anchor(name)}"' in page, name
        for column in columns:
            assert f"<code>{column}</code>" in page, (name, column)
    # The columns read from the definitions are the columns of the files a run writes.
    record = ["queue", "drops", "cwnd", "rto", "retransmits", "segments", "delay", "rtt"]
    run = tern.run(
        ROOT / "scenarios/examples/p2p-bulk.toml",
        set={"sim.duration": "3s", "record": record},
        out=tmp_path / "run",
    )
    assert len(run.tables) >= 6
    for name in run.tables:
        written = pl.read_parquet(tmp_path / "run" / f"{name}.parquet").columns
        assert written == tables[name], name


def test_the_readme_links_lead_to_files():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert len(links) >= 10
    for link in links:
        assert not link.startswith("http"), link
        assert (ROOT / link).exists(), link


def test_the_tutorial_renders_in_headless_chromium(site, tmp_path):
    browser = chromium()
    page = site / "tutorial" / "index.html"
    dom = headless(browser, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<title>A point-to-point run - Tern</title>" in dom.stdout
    assert re.search(r"<h1[^>]*>Tutorial: a point-to-point run", dom.stdout)
    assert dom.stdout.count('<div class="highlight">') == 4  # its four code blocks
    shot = tmp_path / "tutorial.png"
    res = headless(
        browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1280,1000",
        "--hide-scrollbars", page.as_uri(),
    )  # fmt: skip
    assert res.returncode == 0 and shot.is_file(), res.stderr[-2000:]
    image = matplotlib.image.imread(shot)
    assert image.shape[:2] == (1000, 1280)
    pixels = np.round(image[..., :3] * 255).reshape(-1, 3)
    assert len(np.unique(pixels, axis=0)) > 50, "the page rendered blank"
    # The theme's stylesheet applied: its header bar (Material's default primary colour,
    # indigo #4051b5) spans the top of the window.
    header = np.round(image[:40, :, :3] * 255).reshape(-1, 3)
    assert (np.abs(header - (0x40, 0x51, 0xB5)).max(axis=1) <= 8).mean() > 0.5
