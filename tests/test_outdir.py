"""Output folders: a run never mixes its files with another run's (`tern.outdir`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tern
from conftest import P2P, tern_cli
from tern.outdir import OutFolderError


def _scenario(folder: Path, name: str, text: str = P2P) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_rerunning_a_scenario_replaces_its_earlier_run_whole(tmp_path):
    """The trap: a trace the second run does not record stayed, and was drawn as its own."""
    scenario = _scenario(tmp_path, "p2p.toml")
    out = tmp_path / "out"
    tern.run(scenario, set={"record": ["delay", "queue"]}, out=out)
    assert (out / "queue.parquet").is_file()
    tern.run(scenario, set={"record": ["delay"]}, out=out)
    assert sorted(p.name for p in out.glob("*.parquet")) == ["delay.parquet"]
    assert tern.load_run(out).tables == ["delay"]
    assert json.loads((out / "run.json").read_text())["scenario"] == str(scenario.resolve())


def test_a_folder_of_other_results_is_refused_unless_forced(tmp_path):
    first, second = _scenario(tmp_path, "a.toml"), _scenario(tmp_path, "b.toml")
    out = tmp_path / "out"
    tern.run(first, out=out)
    with pytest.raises(OutFolderError, match=r"not empty \(a run of .*a\.toml\)"):
        tern.run(second, out=out)
    (out / "notes.txt").write_text("mine")
    tern.run(second, set={"record": ["delay"]}, out=out, force=True)
    assert sorted(p.name for p in out.iterdir()) == [
        "delay.parquet",
        "run.json",
        "scenario.toml",
        "summary.json",
    ]


def test_cli_refuses_a_folder_that_is_not_a_run_and_force_replaces_it(tmp_path):
    scenario = _scenario(tmp_path, "p2p.toml")
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("...")
    res = tern_cli("run", str(scenario), "--out", str(out), "-q")
    assert res.returncode == 2
    assert "not empty (not a run folder of this scenario)" in res.stderr
    assert "--force" in res.stderr
    assert (out / "thesis.tex").is_file()
    res = tern_cli("run", str(scenario), "--out", str(out), "-q", "--force")
    assert res.returncode == 0, res.stderr
    assert not (out / "thesis.tex").exists()
    assert (out / "summary.json").is_file()


def test_force_never_empties_the_working_directory(tmp_path):
    scenario = _scenario(tmp_path, "p2p.toml")
    res = tern_cli("run", str(scenario), "--out", ".", "-q", "--force", cwd=tmp_path)
    assert res.returncode == 2
    assert "would erase the working directory" in res.stderr
    assert scenario.is_file()


def test_sweep_resumes_in_its_folder_and_refuses_another(tmp_path):
    scenario = _scenario(tmp_path, "p2p.toml", P2P.replace('"5s"', '"1s"'))
    out = tmp_path / "sweep"
    grid = {"links.access.rate": ["5Mbps", "10Mbps"]}
    tern.sweep(scenario, grid, out=out, jobs=1)
    # The same sweep again: every run is already there.
    done = tern.sweeps.run_sweep(scenario, grid, out=out, jobs=1)
    assert (done.skipped, done.done) == (2, 0)
    other = _scenario(tmp_path, "other.toml", P2P.replace('"5s"', '"1s"'))
    with pytest.raises(OutFolderError, match=r"a sweep of .*p2p\.toml, not of .*other\.toml"):
        tern.sweep(other, grid, out=out, jobs=1)
    run_folder = tmp_path / "run"
    tern.run(scenario, out=run_folder)
    with pytest.raises(OutFolderError, match="not a sweep folder"):
        tern.sweep(scenario, grid, out=run_folder, jobs=1)
    frame = tern.sweep(other, grid, out=out, jobs=1, force=True)
    assert frame.height == 2
    sweep_json = json.loads((out / "sweep.json").read_text())
    assert sweep_json["source"] == str(other.resolve())


def test_reproduce_refuses_a_folder_of_something_else(tmp_path):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    res = tern_cli("reproduce", "lte-switch", "--quick", "--out", str(out))
    assert res.returncode == 2
    assert "not empty (not a reproduction of lte-switch)" in res.stderr
    assert (out / "notes.txt").is_file()


def test_a_scenario_that_cannot_run_leaves_the_earlier_run_whole(tmp_path):
    scenario = _scenario(tmp_path, "p2p.toml")
    out = tmp_path / "out"
    tern.run(scenario, out=out)
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(tern.ScenarioError, match=r"--set links\.access\.rate"):
        tern.run(scenario, set={"links.access.rate": "fast"}, out=out)
    assert sorted(p.name for p in out.iterdir()) == before


def test_a_sweep_folder_moved_with_its_scenario_resumes_elsewhere(tmp_path):
    # A folder sent from another machine or checkout: the same scenario file, by name and
    # content, at another path resumes it; the same name with other content does not.
    text = P2P.replace('"5s"', '"1s"')
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    grid = {"links.access.rate": ["5Mbps", "10Mbps"]}
    tern.sweep(_scenario(first, "p2p.toml", text), grid, out=tmp_path / "sweep", jobs=1)
    (tmp_path / "sweep").rename(tmp_path / "moved")
    moved = _scenario(second, "p2p.toml", text)
    done = tern.sweeps.run_sweep(moved, grid, out=tmp_path / "moved", jobs=1)
    assert (done.skipped, done.done) == (2, 0)
    assert json.loads((tmp_path / "moved" / "sweep.json").read_text())["source"] == str(
        moved.resolve()
    )
    edited = _scenario(first, "p2p.toml", text.replace('"1s"', '"2s"'))
    with pytest.raises(OutFolderError, match=r"a sweep of .*b/p2p\.toml, not of .*a/p2p\.toml"):
        tern.sweep(edited, grid, out=tmp_path / "moved", jobs=1)
