"""Results folders are untrusted input: a run or sweep folder someone sent you, truncated,
with files swapped, JSON of the wrong form or hostile names, gets a clean error from every
command that reads it (`tern plot`, `tern report`, `tern query`, `tern.open_results`) — one
line naming the file, exit code 2 (`ResultsError` in Python) — or works; never a traceback.

Each corruption below is applied to a fresh copy of a real run folder and a real sweep
folder, and each reading command is run on it in-process."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import P2P
from tern import cli
from tern.runner import run
from tern.store import ResultsError, open_results
from tern.sweeps import run_sweep


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("clean")
    run(text=P2P, out=root / "run")
    run_sweep(
        None, {"links.access.rate": ["5Mbps", "10Mbps"]}, text=P2P, out=root / "sweep", jobs=1
    )
    return {"run": root / "run", "sweep": root / "sweep"}


def _runs(folder: Path) -> list[Path]:
    """The run folders inside `folder` (itself, for a run)."""
    if (folder / "runs").is_dir():
        return sorted(p for p in (folder / "runs").iterdir() if p.is_dir())
    return [folder]


def _each_run(change: Callable[[Path], None]) -> Callable[[Path], None]:
    def apply(folder: Path) -> None:
        change(_runs(folder)[0])

    return apply


def _truncate(name: str, keep: float) -> Callable[[Path], None]:
    def change(run_dir: Path) -> None:
        if not (run_dir / name).is_file():
            return  # params.json: in a sweep's runs only
        data = (run_dir / name).read_bytes()
        (run_dir / name).write_bytes(data[: int(len(data) * keep)])

    return _each_run(change)


def _write(name: str, data: bytes) -> Callable[[Path], None]:
    return _each_run(lambda run_dir: (run_dir / name).write_bytes(data))


def _swap(a: str, b: str) -> Callable[[Path], None]:
    return _each_run(lambda run_dir: shutil.copy(run_dir / b, run_dir / a))


def _remove(name: str) -> Callable[[Path], None]:
    return _each_run(lambda run_dir: (run_dir / name).unlink())


def _sweep_json(data: bytes) -> Callable[[Path], None]:
    def change(folder: Path) -> None:
        if (folder / "sweep.json").is_file():
            (folder / "sweep.json").write_bytes(data)

    return change


def _hostile_name(folder: Path) -> None:
    run_dir = _runs(folder)[0]
    shutil.copy(run_dir / "delay.parquet", run_dir / "x\"; DROP TABLE runs; --'.parquet")


def _hostile_run_name(folder: Path) -> None:
    """A run folder whose name is SQL and shell: runs are named by their key, read as data."""
    run_dir = _runs(folder)[0]
    if run_dir != folder:
        run_dir.rename(run_dir.parent / "k'); COPY (SELECT 1) TO 'pwned.csv'; --$(touch pwned)")


def _run_is_a_file(folder: Path) -> None:
    run_dir = _runs(folder)[0]
    if run_dir != folder:
        shutil.rmtree(run_dir)
        run_dir.write_bytes(b"not a folder")


def _summary_is_a_folder(folder: Path) -> None:
    run_dir = _runs(folder)[0]
    (run_dir / "summary.json").unlink()
    (run_dir / "summary.json").mkdir()


def _deep(depth: int) -> bytes:
    return b'{"flows": ' + b"[" * depth + b"]" * depth + b"}"


CORRUPTIONS: dict[str, Callable[[Path], None]] = {
    "parquet truncated": _truncate("delay.parquet", 0.5),
    "parquet empty": _write("delay.parquet", b""),
    "parquet garbage": _write("queue.parquet", b"PAR1" + b"\x00garbage" * 50),
    "trace replaced by another's": _swap("delay.parquet", "queue.parquet"),
    "trace replaced by another's, the other kept": _swap("queue.parquet", "delay.parquet"),
    "summary a list": _write("summary.json", b"[1, 2, 3]"),
    "summary invalid JSON": _write("summary.json", b'{"flows": {'),
    "summary not UTF-8": _write("summary.json", b'{"flows": "\xff\xfe"}'),
    "summary flows of numbers": _write("summary.json", b'{"flows": {"msgs": 5}}'),
    "summary links of lists": _write("summary.json", b'{"flows": {}, "links": {"a": [1]}}'),
    "summary values of other types": _write(
        "summary.json", b'{"flows": {"msgs": {"goodput_bps": "fast", "bytes_sent": [1]}}}'
    ),
    "summary missing": _remove("summary.json"),
    "params invalid": _write("params.json", b"not json"),
    "params of the wrong form": _write("params.json", b'{"params": [], "key": 1, "seed": "x"}'),
    "scenario not UTF-8": _write("scenario.toml", b"\xff\xfe\x00"),
    "sweep.json invalid": _sweep_json(b"{"),
    "sweep.json of the wrong form": _sweep_json(b'{"grid": {"a": 5}, "linked": []}'),
    "hostile file name": _hostile_name,
    "summary truncated": _truncate("summary.json", 0.5),
    "params truncated": _truncate("params.json", 0.5),
    "summary nested past any parser's depth": _write("summary.json", _deep(200_000)),
    "summary numbers past a float": _write(
        "summary.json", b'{"flows": {"msgs": {"goodput_bps": 1e400, "bytes_sent": -1e400}}}'
    ),
    "summary a string": _write("summary.json", b'"summary"'),
    "summary replaced by a trace": _swap("summary.json", "delay.parquet"),
    "trace replaced by the summary": _swap("delay.parquet", "summary.json"),
    "summary a folder": _summary_is_a_folder,
    "sweep.json a list": _sweep_json(b"[1, 2]"),
    "hostile run folder name": _hostile_run_name,
    "run folder a file": _run_is_a_file,
}

#: What names the file at fault in each corruption's error (the folder, for a folder-wide one).
AT_FAULT = {
    "parquet truncated": "delay.parquet",
    "parquet empty": "delay.parquet",
    "parquet garbage": "queue.parquet",
    "trace replaced by the summary": "delay.parquet",
    "trace replaced by another's": "delay.parquet",
    "trace replaced by another's, the other kept": "queue.parquet",
    "params invalid": "params.json",
    "params of the wrong form": "params.json",
    "params truncated": "params.json",
    "scenario not UTF-8": "scenario.toml",
    "sweep.json invalid": "sweep.json",
    "sweep.json of the wrong form": "sweep.json",
    "sweep.json a list": "sweep.json",
}

#: The key a corruption's error must name beside the file, where one value is at fault.
KEY_AT_FAULT = {
    "summary values of other types": "flows.msgs.goodput_bps",
    "summary numbers past a float": "flows.msgs.goodput_bps",
    "summary flows of numbers": "flows",
    # What the file holds and what it should.
    "trace replaced by another's": "holdsthe'queue'trace",
    "trace replaced by another's, the other kept": "holdsthe'delay'trace",
}

COMMANDS = {
    "plot": lambda f, tmp: ["plot", str(f), "--out", str(tmp / "plots")],
    "report": lambda f, tmp: ["report", str(f), "--out", str(tmp / "r.html"), "--no-markdown"],
    "query": lambda f, tmp: ["query", str(f), "SELECT count(*) AS n FROM runs"],
    "query a trace": lambda f, tmp: ["query", str(f), "SELECT count(*) AS n FROM delay"],
}


@pytest.mark.parametrize("kind", ["run", "sweep"])
@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupted_folder_gets_a_clean_error_from_every_reading_command(
    folders, tmp_path, kind, corruption
):
    folder = tmp_path / kind
    shutil.copytree(folders[kind], folder)
    CORRUPTIONS[corruption](folder)
    runner = CliRunner()
    for name, args in COMMANDS.items():
        if kind == "run" and name.startswith("query"):
            continue  # tern query reads sweep folders
        result = runner.invoke(cli.app, args(folder, tmp_path))
        unexpected = result.exception is not None and not isinstance(result.exception, SystemExit)
        assert not unexpected and result.exit_code in (0, 2), (
            f"{name} on {corruption}: exit {result.exit_code}\n{result.output}",
            result.exception,
        )
        if result.exit_code == 2:
            assert "error:" in result.output and "Traceback" not in result.output, result.output
            _names_the_file(result.output, folder, corruption)
    assert not list(Path.cwd().glob("pwned*")), "a hostile name ran as SQL or shell"


def _names_the_file(output: str, folder: Path, corruption: str) -> None:
    """The error names the file at fault (or, for a folder-wide fault, the folder)."""
    text = "".join(output.split())  # rich wraps long lines: compare without whitespace
    expected = AT_FAULT.get(corruption, "summary.json" if "summary" in corruption else "")
    assert len(output.strip().splitlines()) == 1, (corruption, output)
    assert str(folder).replace(" ", "") in text or expected in text, (corruption, output)
    if expected:
        assert expected in text, (corruption, output)
    if corruption in KEY_AT_FAULT:
        assert KEY_AT_FAULT[corruption] in text, (corruption, output)


@pytest.mark.parametrize("corruption", list(CORRUPTIONS))
def test_a_corrupted_sweep_opened_from_python_raises_a_results_error(folders, tmp_path, corruption):
    """`tern.open_results` (the Python side of `tern query`) raises `ResultsError` naming
    the file, or reads the folder; never another exception."""
    folder = tmp_path / "sweep"
    shutil.copytree(folders["sweep"], folder)
    CORRUPTIONS[corruption](folder)
    try:
        open_results(folder).pl()
    except ResultsError as e:
        _names_the_file(str(e), folder, corruption)
