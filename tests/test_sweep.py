"""Sweeps: grid x seeds, resume after kill -9, the DuckDB results store."""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import subprocess
import sys
import time

import pytest

import tern
from conftest import EXAMPLES, P2P, tern_cli
from tern.sweeps import run_sweep


def _run_digests(folder):
    runs = sorted(p for p in (folder / "runs").iterdir())
    return {p.name: hashlib.sha256((p / "summary.json").read_bytes()).hexdigest() for p in runs}


def test_python_sweep_returns_one_row_per_run_and_flow_and_resumes(tmp_path):
    grid = {"links.access.rate": ["5Mbps", "10Mbps"]}
    frame = tern.sweep(P2P, grid, seeds=2, out=tmp_path / "s", jobs=2)
    assert frame.height == 4  # 2 rates x 2 seeds x 1 flow
    assert set(frame["links.access.rate"]) == {"5Mbps", "10Mbps"}
    assert sorted(frame["seed"]) == [1, 1, 2, 2]
    # Goodput at 2 Mbit/s offered with 5 % loss does not depend on the link rate much,
    # but the delay does: serialization of 1028 B takes twice as long at 5 Mbit/s.
    by_rate = {r: frame.filter(frame["links.access.rate"] == r) for r in ("5Mbps", "10Mbps")}
    assert by_rate["5Mbps"]["delay_s_min"].min() > by_rate["10Mbps"]["delay_s_min"].max()
    again = run_sweep(P2P, grid, seeds=2, out=tmp_path / "s")
    assert (again.total, again.skipped, again.done) == (4, 4, 0)
    con = tern.connect(tmp_path / "s")
    assert con.execute("SELECT count(DISTINCT key) FROM delay").fetchone()[0] == 4
    # `links`: one row per run, link and direction, with the direction's summary; every
    # packet the access link delivered is one message of the flow (1000 B, one packet each).
    links = con.execute(
        """SELECT l.delivered_packets, r.messages_delivered FROM links l JOIN runs r
           USING (key) WHERE l.link = 'access' AND l.direction = 'forward'"""
    ).fetchall()
    assert len(links) == 4
    assert con.execute("SELECT count(*) FROM links").fetchone()[0] == 4 * 2
    assert all(delivered == messages > 0 for delivered, messages in links)
    # Threads: one for a sandboxed connection unless told otherwise; never fewer than one.
    threads = "SELECT current_setting('threads')"
    assert tern.connect(tmp_path / "s", threads=1).execute(threads).fetchone()[0] == 1
    assert tern.connect(tmp_path / "s", sandbox=True).execute(threads).fetchone()[0] == 1
    assert tern.connect(tmp_path / "s", sandbox=True, threads=2).execute(threads).fetchone()[0] == 2
    with pytest.raises(ValueError, match="threads = 0"):
        tern.connect(tmp_path / "s", threads=0)


def test_linked_keys_change_together_crossed_with_the_grid(tmp_path):
    # Delay and message size go together: 2 linked points x 2 rates = 4 runs, not 2 x 2 x 2.
    linked = {"links.access.delay": ["5ms", "35ms"], "flows.msgs.app.size": ["500B", "1000B"]}
    grid = {"links.access.rate": ["5Mbps", "10Mbps"]}
    frame = tern.sweep(P2P, grid, linked=linked, out=tmp_path / "s", jobs=2)
    points = set(
        frame.select("links.access.rate", "links.access.delay", "flows.msgs.app.size").iter_rows()
    )
    assert points == {
        (r, d, s) for r in ("5Mbps", "10Mbps") for d, s in (("5ms", "500B"), ("35ms", "1000B"))
    }
    # Each run's one-way delay is at least its own link delay plus one serialization.
    for (delay, rate, size), low in zip(
        frame.select("links.access.delay", "links.access.rate", "flows.msgs.app.size").iter_rows(),
        frame["delay_s_min"],
        strict=True,
    ):
        bits = int(size.removesuffix("B")) * 8
        floor = int(delay.removesuffix("ms")) / 1e3 + bits / (int(rate.removesuffix("Mbps")) * 1e6)
        assert low >= floor


@pytest.mark.parametrize(
    ("linked", "expected"),
    [
        (["links.access.delay=5ms,35ms", "links.access.rate=5Mbps"], "as many values each"),
        (["links.access.delay"], "--linked 'links.access.delay': expected KEY=V1,V2"),
    ],
)
def test_bad_linked_keys_fail_before_anything_runs(tmp_path, linked, expected):
    path = tmp_path / "s.toml"
    path.write_text(P2P)
    args = [a for item in linked for a in ("--linked", item)]
    res = tern_cli("sweep", str(path), *args, "--out", str(tmp_path / "o"))
    assert res.returncode == 2, res.stderr
    assert expected in " ".join(res.stderr.split())
    assert "Traceback" not in res.stderr


def test_a_key_is_either_swept_or_linked(tmp_path):
    with pytest.raises(ValueError, match="either in the grid or linked"):
        run_sweep(
            None,
            {"links.access.delay": ["5ms"]},
            text=P2P,
            linked={"links.access.delay": ["5ms"]},
            out=tmp_path / "o",
        )


def test_a_sweep_killed_with_sigkill_resumes_with_nothing_lost_or_duplicated(tmp_path):
    args = [
        "sweep", str(EXAMPLES / "p2p-bulk.toml"),
        "--grid", "links.access.rate=8Mbps,10Mbps,12Mbps",
        "--grid", "sim.duration=300s",
        "--seeds", "4", "--jobs", "2",
    ]  # fmt: skip
    killed = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tern", *args, "--out", str(killed)],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        runs = killed / "runs"
        if runs.is_dir() and len(list(runs.iterdir())) >= 2:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = _run_digests(killed)
    assert 2 <= len(partial) < 12, len(partial)
    # Every run folder present is whole.
    for key in partial:
        for name in ("summary.json", "scenario.toml", "params.json", "cwnd.parquet"):
            assert (killed / "runs" / key / name).is_file()
    res = tern_cli(*args, "--out", str(killed))
    assert res.returncode == 0, res.stderr
    assert f"{12 - len(partial)} run now, {len(partial)} already done, 0 failed" in " ".join(
        res.stderr.split()
    )
    resumed = _run_digests(killed)
    fresh_dir = tmp_path / "fresh"
    res = tern_cli(*args, "--out", str(fresh_dir))
    assert res.returncode == 0, res.stderr
    assert resumed == _run_digests(fresh_dir)  # same 12 runs, byte for byte
    assert all(resumed[k] == v for k, v in partial.items())


@pytest.mark.parametrize(
    ("grid", "expected"),
    [
        ("links.access.rate", "expected KEY=V1,V2,..."),
        ("links.access.rate=5Mbps,5 parsecs", "expected a data rate"),
        ("links.nope.rate=5Mbps", 'no element named "nope"'),
    ],
)
def test_bad_grids_fail_before_anything_runs(tmp_path, grid, expected):
    path = tmp_path / "s.toml"
    path.write_text(P2P)
    res = tern_cli("sweep", str(path), "--grid", grid, "--out", str(tmp_path / "o"))
    assert res.returncode == 2, res.stderr
    assert expected in " ".join(res.stderr.split())
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "o" / "runs").exists() or not any((tmp_path / "o" / "runs").iterdir())


def test_query_errors_are_clear(tmp_path):
    res = tern_cli("query", str(tmp_path), "SELECT 1")
    assert res.returncode == 2 and "not a sweep folder" in res.stderr
    tern.sweep(P2P, {"sim.duration": ["1s"]}, out=tmp_path / "s")
    res = tern_cli("query", str(tmp_path / "s"), "SELEKT 1")
    assert res.returncode == 2 and "query:" in res.stderr and "Traceback" not in res.stderr
    res = tern_cli("query", str(tmp_path / "s"), "SELECT count(*) AS n FROM runs", "--csv")
    assert res.stdout.splitlines() == ["n", "1"]


def test_ray_runs_the_same_sweep_to_the_same_bytes_as_the_process_pool(tmp_path):
    """`--ray` only swaps the executor: same keys, byte-identical results."""
    pytest.importorskip("ray", reason="Ray is an optional extra (pip install tern[ray])")
    import ray

    grid = {"links.access.rate": ["5Mbps", "10Mbps"]}
    pool = run_sweep(P2P, grid, seeds=2, out=tmp_path / "pool", jobs=2)
    on_term = signal.getsignal(signal.SIGTERM)  # ray.init installs its own
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        on_ray = run_sweep(P2P, grid, seeds=2, out=tmp_path / "ray", ray_address="local")
    finally:
        ray.shutdown()
        signal.signal(signal.SIGTERM, on_term)
    assert (pool.done, on_ray.done, on_ray.failures) == (4, 4, {})
    assert _run_digests(tmp_path / "ray") == _run_digests(tmp_path / "pool")


def test_ray_that_the_sweep_started_ends_with_it(tmp_path):
    """With no Ray running, the sweep starts a local one and ends it afterwards, leaving this
    process's SIGTERM handler as it was (ray.init installs its own)."""
    pytest.importorskip("ray", reason="Ray is an optional extra (pip install tern[ray])")
    import ray

    on_term = signal.getsignal(signal.SIGTERM)
    grid = {"links.access.rate": ["5Mbps"]}
    done = run_sweep(P2P, grid, seeds=1, out=tmp_path / "ray", ray_address="local")
    assert (done.done, done.failures) == (1, {})
    assert not ray.is_initialized()
    assert signal.getsignal(signal.SIGTERM) == on_term


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_a_plain_script_without_a_main_guard_can_sweep(tmp_path, how):
    # The spawn start method re-imports the caller's script in each worker unless it is
    # guarded by `if __name__ == "__main__":`; Tern's workers do not need it.
    out = tmp_path / "out"
    script = (
        "import tern\n"
        f"frame = tern.sweep({str(EXAMPLES / 'p2p-udp.toml')!r}, "
        "{'sim.duration': ['2s', '3s']}, seeds=1, "
        f"out={str(out)!r}, jobs=2)\n"
        "print('rows', frame.height)\n"
    )
    if how == "file":
        (tmp_path / "plain.py").write_text(script)
        args, stdin = [sys.executable, str(tmp_path / "plain.py")], None
    else:
        args, stdin = [sys.executable, "-"], script
    res = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    runs = len(list((out / "runs").iterdir()))
    assert runs == 2 and not list((out / "failed").iterdir())


@pytest.mark.parametrize(
    ("grids", "expected"),
    [
        (["sim.seed=1,2"], "sim.seed cannot be swept"),
        (["links.access.rate=5Mbps", "links.access.rate=10Mbps"], "is given twice"),
        (["links.access.rate="], "expected KEY=V1,V2,..."),
        (["links.access.rate=5Mbps,,10Mbps"], "links.access.rate has an empty value"),
        (["links.access.rate=5Mbps,"], "links.access.rate has an empty value"),
    ],
)
def test_grids_that_would_be_misread_are_refused(tmp_path, grids, expected):
    path = tmp_path / "s.toml"
    path.write_text(P2P)
    args = [a for g in grids for a in ("--grid", g)]
    res = tern_cli("sweep", str(path), *args, "--seeds", "4", "--out", str(tmp_path / "o"))
    assert res.returncode == 2 and expected in " ".join(res.stderr.split()), res.stderr
    assert not (tmp_path / "o" / "runs").exists() or not any((tmp_path / "o" / "runs").iterdir())


def test_one_grid_value_given_as_text_is_one_value_not_its_characters(tmp_path):
    frame = tern.sweep(None, {"links.access.rate": "5Mbps"}, text=P2P, out=tmp_path / "o")
    assert frame["links.access.rate"].to_list() == ["5Mbps"]


def test_a_grid_key_with_no_value_is_refused_not_zero_runs(tmp_path):
    with pytest.raises(ValueError, match=r"grid key links\.access\.rate has no value"):
        run_sweep(None, {"links.access.rate": []}, text=P2P, out=tmp_path / "o")


@pytest.mark.parametrize(
    ("args", "runs"),
    [
        (["--seeds", "1000000000000"], "1,000,000,000,000"),
        (
            [
                "--grid",
                "links.access.rate=" + ",".join(f"{i}Mbps" for i in range(1, 1001)),
                "--grid",
                "links.access.delay=" + ",".join(f"{i}ms" for i in range(1, 1001)),
            ],
            "1,000,000",
        ),
    ],
)
def test_a_sweep_too_large_to_plan_is_refused_at_once(tmp_path, args, runs):
    """Every run is checked before the first starts; past `MAX_RUNS` (100,000) the sweep is
    refused before any is planned, instead of minutes of planning and gigabytes of specs."""
    path = tmp_path / "s.toml"
    path.write_text(P2P)
    before = _children_cpu_s()
    res = tern_cli("sweep", str(path), *args, "--out", str(tmp_path / "o"))
    used = _children_cpu_s() - before
    assert res.returncode == 2, res.stderr
    assert f"would plan {runs} runs, over the bound of 100,000" in " ".join(res.stderr.split())
    # Planning 10^6 runs takes minutes of CPU; refusing them, the start-up of the CLI only
    # (CPU time, not wall time: a busy machine must not fail it).
    assert used < 30, used


def _children_cpu_s() -> float:
    """CPU seconds (user + system) of the child processes waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_query_prints_a_bounded_number_of_rows_unless_told(tmp_path):
    tern.sweep(P2P, {"sim.duration": ["1s"]}, out=tmp_path / "s")
    sql = "SELECT range AS i FROM range(25000)"
    res = tern_cli("query", str(tmp_path / "s"), sql, "--csv")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["i", *map(str, range(10_000))]
    assert "the first 10,000 rows; the query returns more" in res.stderr
    res = tern_cli("query", str(tmp_path / "s"), sql, "--csv", "--max-rows", "0")
    assert len(res.stdout.splitlines()) == 25_001 and "rows;" not in res.stderr
    res = tern_cli("query", str(tmp_path / "s"), sql, "--max-rows", "3")
    assert "shape: (3, 1)" in res.stdout and "the first 3 rows" in res.stderr
    # Exactly as many rows as the limit: nothing left out, nothing said.
    res = tern_cli("query", str(tmp_path / "s"), sql + " LIMIT 3", "--max-rows", "3")
    assert "shape: (3, 1)" in res.stdout and "rows;" not in res.stderr
