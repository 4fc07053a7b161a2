"""Hostile and careless input, and faults during runs and sweeps: each case gets a
clear error of the right class naming the file and key, or is handled, and nothing is written
outside the output folder."""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import tern
from conftest import EXAMPLES, P2P, ROOT, tern_cli
from tern import _core, cli, report, runner

# --------------------------------------------------------------------------- scenario files


def test_invalid_utf8_names_the_file_line_and_byte_offset(tmp_path):
    data = P2P.encode().replace(b'name = "a"', b'name = "\xff"')
    path = tmp_path / "bad.toml"
    path.write_bytes(data)
    offset = data.index(b"\xff")
    line = data[:offset].count(b"\n") + 1
    expected = f"bad.toml:{line}: not valid UTF-8: byte 0xff at byte offset {offset}"
    with pytest.raises(tern.ScenarioError, match=expected):
        tern.validate(path)
    for command in ("validate", "run"):
        res = tern_cli(command, str(path), *(["--out", str(tmp_path / "o")] * (command == "run")))
        assert res.returncode == 2 and expected in res.stderr and "Traceback" not in res.stderr


def test_paths_and_text_are_never_mistaken(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"a=b\.toml: no such scenario file"):
        tern.run("a=b.toml")
    Path("a=b.toml").write_text(P2P)
    assert tern.validate("a=b.toml") == tern.validate(Path("a=b.toml")) == tern.validate(text=P2P)
    assert tern.run(Path("a=b.toml"), set={"sim.duration": "1s"}).summary["flows"]
    with pytest.raises(TypeError, match="not both"):
        tern.validate("a=b.toml", text=P2P)
    with pytest.raises(TypeError, match="text= expects TOML text"):
        tern.validate(text=Path("a=b.toml"))  # type: ignore[arg-type]


def test_seeds_beyond_the_64_bit_signed_range_are_refused(tmp_path):
    for seed in (-1, 2**63, 2**64):
        with pytest.raises(tern.ScenarioError, match=r"seed: expected a whole number from 0 to"):
            tern.validate(text=P2P, seed=seed)
    path = tmp_path / "ok.toml"
    path.write_text(P2P)
    assert tern.validate(text=P2P, seed=2**63 - 1)
    res = tern_cli("validate", str(path), "--seed", str(2**63))
    assert res.returncode == 2 and "--seed" in res.stderr and "Traceback" not in res.stderr


# --------------------------------------------------------------------------- runs


def test_a_bad_out_is_refused_before_the_run(tmp_path, monkeypatch):
    path = tmp_path / "ok.toml"
    path.write_text(P2P)
    taken = tmp_path / "a-file"
    taken.write_text("keep me")

    def no_run(*args, **kwargs):
        raise AssertionError("ran although --out cannot be written")

    monkeypatch.setattr(runner, "run", no_run)
    for args in (
        ["run", str(path), "--out", str(taken)],
        ["run", str(path), "--out", str(taken / "below")],
        ["sweep", str(path), "--out", str(taken)],
        ["reproduce", "lte-switch", "--out", str(taken)],
    ):
        res = CliRunner().invoke(cli.app, args)
        assert res.exit_code == 2, (args, res.output)
        assert f"--out {taken}" in res.output and "is a file, not a folder" in res.output
    assert taken.read_text() == "keep me"


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler for the test, whatever an earlier test left set."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_in_the_last_progress_report_stops_the_run(python_sigint):
    def interrupt_at_the_end(now: float, end: float) -> None:
        if now >= end:
            signal.raise_signal(signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        tern.run(text=P2P, set={"sim.duration": "1s"}, progress=interrupt_at_the_end)

    def raise_at_the_end(now: float, end: float) -> None:
        if now >= end:
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        tern.run(text=P2P, set={"sim.duration": "1s"}, progress=raise_at_the_end)


def test_quiet_run_prints_one_line(tmp_path):
    res = tern_cli("run", str(EXAMPLES / "p2p-udp.toml"), "-q", "--out", str(tmp_path / "o"))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("3 flows: ")
    assert f"results in {tmp_path / 'o'}/" in lines[0] and res.stderr == ""


def test_unset_values_are_null_not_sentinels(tmp_path):
    r = tern.run(EXAMPLES / "p2p-bulk.toml", set={"sim.duration": "10s", "record": '["cwnd"]'})
    ssthresh = r.series("cwnd")["ssthresh"]
    assert 0 < ssthresh.null_count() < len(ssthresh)  # unset before the first loss
    assert ssthresh.max() < 2**40
    r.save(tmp_path / "run")
    saved = pl.read_parquet(tmp_path / "run" / "cwnd.parquet")["ssthresh"]
    assert saved.null_count() == ssthresh.null_count()
    wifi = tern.run(EXAMPLES / "wifi-roaming.toml", set={"sim.duration": "6s"}).series("wifi")
    assert wifi.height > 0 and wifi["mcs"].null_count() == wifi.height  # 802.11b: no MCS
    assert not wifi.select(pl.col(pl.Float64).is_nan().any()).row(0)[0]


# --------------------------------------------------------------------------- sweeps

SLOW = [  # a few seconds of wall time per run (about 4 s on the 2-core machine)
    "--set",
    "sim.duration=1500s",
    "--set",
    "links.access.rate=100Mbps",
    "--set",
    "record=[]",
]


def _workers(pid: int) -> list[int]:
    """The sweep's worker processes: children of `pid` started by multiprocessing."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


def _wait_for_workers(proc: subprocess.Popen, timeout: float = 60) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if workers := _workers(proc.pid):
            return workers
        time.sleep(0.1)
    raise AssertionError("no worker process started")


def _resume(out: Path) -> list[str]:
    """The command line of the sweep of these tests: 3 runs, one at a time."""
    scenario = str(EXAMPLES / "p2p-bulk.toml")
    return ["sweep", scenario, "--seeds", "3", "--jobs", "1", *SLOW, "--out", str(out)]


def _sweep(out: Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tern", *_resume(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_a_worker_that_dies_fails_its_run_only_and_is_retried_when_asked(tmp_path):
    out = tmp_path / "sweep"
    proc = _sweep(out)
    worker = _wait_for_workers(proc)[0]
    time.sleep(1.0)
    os.kill(worker, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 1, stderr
    assert "3 runs: 2 run now, 0 already done, 1 failed" in " ".join(stderr.split())
    assert "killed by SIGKILL" in stderr and "Traceback" not in stderr
    (failed,) = (out / "failed").iterdir()
    assert "WorkerDied" in json.loads(failed.read_text())["error"]
    assert len(list((out / "runs").iterdir())) == 2 and not (out / "tmp").exists()
    # Resuming does not re-run the failed run unless asked.
    again = tern_cli(
        "sweep", str(EXAMPLES / "p2p-bulk.toml"), "--seeds", "3", *SLOW, "--out", str(out)
    )
    assert again.returncode == 1
    assert "3 runs: 0 run now, 2 already done, 1 failed" in " ".join(again.stderr.split())
    assert "--retry-failed" in again.stderr
    retry = tern_cli(
        "sweep",
        str(EXAMPLES / "p2p-bulk.toml"),
        "--seeds",
        "3",
        *SLOW,
        "--out",
        str(out),
        "--retry-failed",
    )
    assert retry.returncode == 0, retry.stderr
    assert "3 runs: 1 run now, 2 already done, 0 failed" in " ".join(retry.stderr.split())
    assert list((out / "failed").iterdir()) == []


def test_ctrl_c_stops_a_sweep_in_one_line_and_it_resumes(tmp_path):
    out = tmp_path / "sweep"
    proc = _sweep(out, start_new_session=True)
    _wait_for_workers(proc)
    deadline = time.monotonic() + 120
    while not (out / "runs").exists() or not any((out / "runs").iterdir()):
        assert time.monotonic() < deadline and proc.poll() is None, "no run finished"
        time.sleep(0.05)
    time.sleep(0.5)  # the first run done, the next under way
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole group
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), stderr
    assert "run the same command again to resume" in lines[0]
    assert not (out / "tmp").exists()
    done = len(list((out / "runs").iterdir()))
    assert done < 3
    again = tern_cli(
        "sweep", str(EXAMPLES / "p2p-bulk.toml"), "--seeds", "3", *SLOW, "--out", str(out)
    )
    assert again.returncode == 0, again.stderr
    assert f"{3 - done} run now, {done} already done, 0 failed" in " ".join(again.stderr.split())


# --------------------------------------------------------------------------- interfaces


def test_markdown_reports_show_scenario_strings_as_text(tmp_path):
    hostile = '<img src=x onerror="alert(1)"> [link](javascript:alert(1)) a_b | c'
    sections = [
        report.Section(hostile, [hostile, report.Table(["flow"], [[hostile]], hostile)]),
        report.Section("Scenario", [report.Code('name = "```<b>"', "toml", hostile)]),
    ]
    md = report.write_markdown(hostile, sections, tmp_path / "r.md")
    prose = md.split("````")[0]  # before the code block, which is literal
    assert not re.search(r"(?<!\\)[<\[]", prose)  # no HTML, no link: every < and [ escaped
    assert '\\<img src=x onerror="alert(1)"\\>' in md
    assert '````toml\nname = "```<b>"\n````' in md  # a fence the code cannot close
    html = report.write_html(hostile, sections)
    assert "<img src=x" not in html and "&lt;img src=x" in html


def test_the_native_module_ships_stubs_matching_it():
    package = Path(tern.__file__).parent
    assert (package / "py.typed").is_file()
    stub = ast.parse((package / "_core.pyi").read_text())
    functions = {f.name: f for f in stub.body if isinstance(f, ast.FunctionDef)}
    for name in ("run", "validate", "schema"):
        params = list(inspect.signature(getattr(_core, name)).parameters)
        assert [a.arg for a in functions[name].args.args] == params, name
    classes = {c.name for c in stub.body if isinstance(c, ast.ClassDef)}
    assert {"ScenarioError", "TernBug"} <= classes


def test_mypy_sees_the_signatures(tmp_path):
    mypy = pytest.importorskip("mypy.api")
    (tmp_path / "use.py").write_text(
        "import tern\nfrom tern import _core\n"
        "tern.run(seed='x')\n_core.validate(1, 'n')\nreveal_type(tern.run)\n"
    )
    out, _, status = mypy.run(
        [str(tmp_path / "use.py"), "--cache-dir", str(tmp_path / ".mypy"), "--no-error-summary"]
    )
    assert status == 1
    assert 'Argument "seed" to "run" has incompatible type "str"' in out
    assert 'Argument 1 to "validate" has incompatible type "int"; expected "str"' in out
    assert "text: str | None" in out


def test_sweep_help_and_errors_show_the_ray_install_that_works(monkeypatch, tmp_path):
    res = CliRunner().invoke(cli.app, ["sweep", "--help"], env={"COLUMNS": "300"})
    assert "pip install '.[ray]'" in res.output
    hint = cli.ray_install_hint()
    assert hint == f"pip install '{ROOT}[ray]'"  # from a checkout: its extra, by path
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    path = tmp_path / "ok.toml"
    path.write_text(P2P)
    res = CliRunner().invoke(
        cli.app, ["sweep", str(path), "--ray", "local", "--out", str(tmp_path / "s")]
    )
    assert res.exit_code == 2
    assert f"install Ray with {hint}" in " ".join(res.output.split())


def test_outputs_never_land_outside_the_output_folder(tmp_path, p2p_text):
    """Every file a run writes is resolved and checked to lie in its folder."""
    r = tern.run(text=p2p_text)
    for evil in ["../evil.pcap", "/tmp/evil.pcap", "sub/../../evil.pcap"]:
        r.captures[evil] = b""
        with pytest.raises(ValueError, match="not a file name inside"):
            r.save(tmp_path / "out")
        del r.captures[evil]
    assert not (tmp_path / "evil.pcap").exists()
    r.save(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out").iterdir())[:2] == [
        "delay.parquet",
        "queue.parquet",
    ]


def test_a_scenario_that_would_stall_simulated_time_is_refused_quickly(tmp_path):
    """The hang of the malformed-file survey: a CBR so fast that one message takes less than a
    nanosecond never lets simulated time advance. It is refused before the run, at once."""
    bad = tmp_path / "stall.toml"
    bad.write_text(P2P.replace('rate = "2Mbps", size = "1000B"', 'rate = "10000Gbps", size = "1B"'))
    assert "10000Gbps" in bad.read_text()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before = usage.ru_utime + usage.ru_stime
    res = subprocess.run(
        [sys.executable, "-m", "tern", "run", str(bad), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    # CPU time, not wall time (a busy machine must not fail it): a stalled run would spin
    # until the timeout, a refusal costs the CLI's start-up.
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert usage.ru_utime + usage.ru_stime - before < 30
    assert res.returncode == 2, res.stderr
    assert "flows[0].app.rate" in res.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["run", str(EXAMPLES / "p2p-udp.toml")],
        ["sweep", str(EXAMPLES / "p2p-udp.toml"), "--grid", "sim.duration=1s"],
        ["reproduce", "lte-switch", "--quick"],
    ],
)
def test_an_out_folder_the_file_system_refuses_is_a_clean_error(args):
    # /proc passes access() for root but refuses new folders.
    res = tern_cli(*args, "--out", "/proc/tern-nope/x")
    assert res.returncode == 2, res.stderr
    assert "--out /proc/tern-nope/x: cannot be made" in res.stderr
    assert "Traceback" not in res.stderr


def test_checking_an_out_folder_leaves_nothing_behind(tmp_path):
    res = tern_cli("reproduce", "no-such-study", "--out", str(tmp_path / "a" / "b"))
    assert res.returncode == 2 and not (tmp_path / "a").exists()


# `python -m tern ARGS`, once the interpreter itself is up: it writes a line to stderr first,
# so that Ctrl-C is timed from the moment Tern's own code starts loading. (A signal inside
# CPython's start-up, before any of Tern runs, is CPython's: "Fatal Python error:
# init_sys_streams ... KeyboardInterrupt" on a loaded machine.)
TERN_AFTER_STARTUP = (
    "import os, runpy, sys; os.write(2, b'up\\n'); sys.argv = ['tern', *sys.argv[1:]]; "
    "runpy.run_module('tern', run_name='__main__', alter_sys=True)"
)


@pytest.mark.parametrize("after_s", [0.05, 0.15, 0.3, 0.6])
def test_ctrl_c_at_any_moment_of_tern_run_is_one_line(after_s, tmp_path):
    # Early on, Ctrl-C lands while Python loads polars, DuckDB and the core; later, in the run.
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            TERN_AFTER_STARTUP,
            "run",
            str(EXAMPLES / "p2p-bulk.toml"),
            "--out",
            str(tmp_path / "o"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None and proc.stderr.readline() == "up\n"
    time.sleep(after_s)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    # -2: the signal came before Python had set its handlers (nothing printed at all); 0: on
    # a fast machine the run was over before it.
    assert proc.returncode in (130, -signal.SIGINT, 0), (proc.returncode, stderr)
    assert "Traceback" not in stderr, stderr
    if proc.returncode == 130:
        assert len(stderr.strip().splitlines()) <= 1, stderr


def test_a_device_a_folder_or_a_huge_file_is_not_read_as_a_scenario(tmp_path):
    # /dev/zero would be read until memory runs out; a folder is not a missing file.
    with pytest.raises(tern.ScenarioError, match=r"/dev/zero: not a regular file"):
        tern.run("/dev/zero")
    res = tern_cli("run", "/dev/zero")
    assert res.returncode == 2 and "/dev/zero: not a regular file" in res.stderr
    res = tern_cli("validate", str(tmp_path))
    assert res.returncode == 2 and f"{tmp_path}: is a folder, not a scenario file" in res.stderr
    huge = tmp_path / "huge.toml"
    with huge.open("wb") as f:  # sparse: nothing is written to disk
        f.truncate(runner.MAX_SCENARIO_BYTES + 1)
    with pytest.raises(tern.ScenarioError, match=r"huge.toml: larger than 32 MiB"):
        tern.validate(huge)
