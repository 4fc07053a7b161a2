"""Hostile input to studies and the results store: a study file that names what it must not, a
claim that is not one query, a results folder whose file names try to inject SQL, queries that
try to open files; each gets a clear error naming the file and key, and nothing runs or is read
beyond what is allowed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tern
from conftest import P2P, ROOT, tern_cli
from tern.reproduce import (
    StudyError,
    list_studies,
    load_study,
    query_value,
    studies_root,
)
from tern.sweeps import run_sweep

# --------------------------------------------------------------------------- studies

STUDY = """\
title = "A study"

[paper]
title = "A paper"
authors = ["A. Author", "B. Author"]
venue = "A venue"
year = 2001

[[experiments]]
name = "main"
scenario = "s.toml"

[[claims]]
id = "c"
experiment = "main"
claim = "goodput"
published = 1.0
tolerance = 1.0
value = "SELECT avg(goodput_bps) FROM runs"
"""


def _study(root: Path, study_id: str, text: str = STUDY) -> Path:
    folder = root / study_id
    folder.mkdir(parents=True)
    (folder / "s.toml").write_text(P2P)
    (folder / "study.toml").write_text(text)
    return folder / "study.toml"


def test_experiment_names_are_identifiers(tmp_path):
    path = _study(tmp_path, "lte-switch", STUDY.replace('name = "main"', 'name = "../../x"'))
    with pytest.raises(StudyError) as e:
        load_study("lte-switch", tmp_path)
    assert str(path) in str(e.value)
    assert "experiments[0].name: '../../x' is not a valid name (letters, digits" in str(e.value)


def test_linked_keys_of_a_study_have_as_many_values_each(tmp_path):
    linked = 'scenario = "s.toml"\nlinked = { "links.access.delay" = ["5ms", "35ms"], '
    rates = '"links.access.rate" = ["5Mbps", "10Mbps"] }\nseeds = 3\nquick = { seeds = 1 }'
    _study(tmp_path / "a", "lte-switch", STUDY.replace('scenario = "s.toml"', linked + rates))
    main = load_study("lte-switch", tmp_path / "a").experiments[0]
    assert main.quick is not None and (main.runs, main.quick.runs) == (6, 2)
    bad = STUDY.replace('scenario = "s.toml"', linked + '"links.access.rate" = ["5Mbps"] }')
    path = _study(tmp_path / "b", "lte-switch", bad)
    with pytest.raises(StudyError) as e:
        load_study("lte-switch", tmp_path / "b")
    assert f"{path}: experiments[0].linked: linked keys must have as many values each" in str(
        e.value
    )


def test_study_ids_and_scenarios_stay_inside_the_studies_folder(tmp_path):
    with pytest.raises(StudyError, match=r"study id: '\.\./lte-switch' is not a valid name"):
        load_study("../lte-switch", tmp_path)
    (tmp_path / "outside.toml").write_text(P2P)
    path = _study(
        tmp_path, "lte-switch", STUDY.replace('scenario = "s.toml"', 'scenario = "../outside.toml"')
    )
    with pytest.raises(StudyError) as e:
        load_study("lte-switch", tmp_path)
    assert f"{path}: experiments[0].scenario: '../outside.toml' is outside" in str(e.value)


def test_a_claim_that_is_not_one_query_is_refused_when_the_study_is_read(tmp_path):
    evil = STUDY.replace(
        'value = "SELECT avg(goodput_bps) FROM runs"',
        f"value = \"COPY (SELECT 1) TO '{tmp_path / 'evil.csv'}'\"",
    )
    path = _study(tmp_path, "lte-switch", evil)
    with pytest.raises(StudyError) as e:
        load_study("lte-switch", tmp_path)
    assert f"{path}: claims[0].value: expected one query (SELECT or WITH ...), got COPY" in str(
        e.value
    )
    assert not (tmp_path / "evil.csv").exists()


@pytest.fixture(scope="module")
def sweep_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("store") / "sweep"
    run_sweep(None, {"links.access.rate": ["5Mbps", "10Mbps"]}, text=P2P, out=out, jobs=1)
    return out


def test_claim_sql_reads_the_results_store_and_nothing_else(sweep_folder, tmp_path):
    con = tern.connect(sweep_folder, sandbox=True)
    ok = query_value("SELECT count(DISTINCT key) FROM delay JOIN runs USING (key)", con)
    assert ok == (2, None)
    # A claim gives one value: a condition column is refused, not turned into a row.
    value, error = query_value('SELECT count(*), "links.access.rate" FROM runs GROUP BY 2', con)
    assert value is None and "a claim gives one value" in (error or "")
    target = tmp_path / "written.csv"
    for sql in (
        f"COPY (SELECT 1 AS x) TO '{target}'",
        "SELECT count(*) FROM read_csv('/etc/passwd')",
        f"ATTACH '{tmp_path / 'x.db'}' AS x",
        "SET enable_external_access = true",
    ):
        value, error = query_value(sql, con)
        assert value is None and error is not None, sql
        assert "claims may read only the results store" in error or "locked" in error, error
    assert sorted(tmp_path.iterdir()) == []
    # The ordinary connection (tern query, figures) still reads its files as before.
    assert tern.connect(sweep_folder).sql("SELECT count(*) FROM delay").fetchall()[0][0] > 0


def test_an_asof_join_over_a_scanned_trace_is_planned_as_one(sweep_folder):
    # A sandboxed connection scans its traces through Arrow (no materialize): DuckDB then
    # estimates each at one row and, below asof_loop_join_threshold, would plan the ASOF join
    # as a nested loop, quadratic in the trace's real rows.
    con = tern.connect(sweep_folder, sandbox=True)
    sql = "SELECT count(*) FROM delay a ASOF JOIN delay b ON a.key = b.key AND a.time <= b.time"
    plan = "".join(row[1] for row in con.execute(f"EXPLAIN {sql}").fetchall())
    assert "ASOF_JOIN" in plan.replace(" ", "_").upper()
    assert "NESTED_LOOP" not in plan.replace(" ", "_").upper()
    assert query_value(sql, con)[1] is None


def test_a_study_without_its_python_module_says_what_is_missing(tmp_path, monkeypatch):
    path = _study(tmp_path, "no-module")
    with pytest.raises(StudyError) as e:
        load_study("no-module", tmp_path)
    message = str(e.value)
    assert str(path) in message
    assert "has no Python module tern.reproduce.no_module" in message
    assert "tern/reproduce/no_module.py" in message and "figures(results)" in message
    monkeypatch.setenv("TERN_SCENARIOS", str(tmp_path))
    res = tern_cli("reproduce", "no-module", "--out", str(tmp_path / "out"))
    assert res.returncode == 2 and "has no Python module" in res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "out").exists()


def test_studies_ship_inside_the_package(tmp_path, monkeypatch):
    monkeypatch.delenv("TERN_SCENARIOS", raising=False)
    monkeypatch.chdir(tmp_path)  # no scenarios/ here
    root = studies_root()
    assert root == Path(tern.__file__).parent / "scenarios"
    assert {"lte-switch", "wcdma-profile"} <= set(list_studies())
    # One copy: the package's folder is a link to the checkout's, and the wheel stores it.
    assert root.resolve() == (ROOT / "scenarios").resolve()
    assert (
        'include = [{ path = "python/tern/scenarios/**/*", format = "wheel" }]'
        in (ROOT / "pyproject.toml").read_text()
    )


def test_studies_cite_their_paper_not_a_path():
    for sid in list_studies():
        study = load_study(sid)
        citation = study.paper.citation()
        assert study.paper.title in citation and study.paper.authors[0] in citation
        assert "shared/papers" not in (study.folder / "study.toml").read_text()
    paper = load_study("lte-switch").paper
    assert paper.citation().startswith("Yoshiaki Nishikawa and Takahiro Shiroshima (NEC")


# --------------------------------------------------------------------------- query


def test_a_hostile_file_name_in_a_results_folder_injects_nothing(sweep_folder, tmp_path):
    folder = tmp_path / "sent"
    shutil.copytree(sweep_folder, folder)
    run = next((folder / "runs").iterdir())
    hostile = (
        "zz\" AS SELECT 1; COPY (SELECT 'echo PWNED' AS l) TO '.bashrc' "
        "(HEADER false, QUOTE ''); CREATE VIEW \"zz2"
    )
    shutil.copy(run / "delay.parquet", run / f"{hostile}.parquet")
    work = tmp_path / "cwd"
    work.mkdir()
    res = tern_cli("query", str(folder), "SELECT count(*) AS n FROM runs", cwd=work)
    assert res.returncode == 0, res.stderr
    assert list(work.iterdir()) == []
    # The view is there, under its own name, and reads the file.
    con = tern.connect(folder)
    assert con.execute(f'SELECT count(*) FROM "{hostile.replace(chr(34), 2 * chr(34))}"').fetchone()
    assert list(work.iterdir()) == []


def test_query_opens_no_file_unless_allowed(sweep_folder, tmp_path):
    target = tmp_path / "out.csv"
    res = tern_cli("query", str(sweep_folder), f"COPY (SELECT 1 AS x) TO '{target}'")
    assert res.returncode == 2 and "--allow-files" in res.stderr and not target.exists()
    res = tern_cli("query", str(sweep_folder), "SELECT count(*) FROM read_csv('/etc/passwd')")
    assert res.returncode == 2 and "Traceback" not in res.stderr
    res = tern_cli("query", str(sweep_folder), "SELECT error('boom')")
    assert res.returncode == 2 and "boom" in res.stderr and "Traceback" not in res.stderr
    ok = tern_cli("query", str(sweep_folder), "SELECT count(*) AS n FROM delay", "--csv")
    assert ok.returncode == 0 and ok.stdout.splitlines()[0] == "n"


def test_query_without_sql_is_a_clear_error(sweep_folder):
    for sql in ("", "   ", "/* only a comment */"):
        res = tern_cli("query", str(sweep_folder), sql)
        assert res.returncode == 2, res.stderr
        assert "query:" in res.stderr and "Traceback" not in res.stderr


def test_query_prints_long_lists_and_strings_whole(sweep_folder):
    sql = "SELECT range(40) AS l, repeat('x', 200) AS s"
    res = tern_cli("query", str(sweep_folder), sql)
    assert res.returncode == 0, res.stderr
    assert ", ".join(map(str, range(40))) in res.stdout and "x" * 200 in res.stdout
    res = tern_cli("query", str(sweep_folder), sql, "--csv")
    assert res.returncode == 2
    assert "--csv: column 'l' holds lists or structs" in res.stderr
