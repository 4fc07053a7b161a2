"""Output folders: a run or sweep never mixes its files with another's.

A run folder holds `run.json`, naming the scenario that wrote it (written once the run is
saved). Before a run writes into a folder that is not empty:

* a previous run of the same scenario (the same file, or TOML text for a run given `text=`)
  is replaced: the files Tern writes in a run folder are removed first, so no trace of the
  earlier run (a `cwnd.parquet` the new one does not record) is left to be read as its own;
* anything else is refused with `OutFolderError`, unless `force`, which empties the folder.

A sweep folder holds `sweep.json`; a sweep resumes in a folder of the same scenario, and
refuses (or, with `force`, empties) any other non-empty folder. A reproduction resumes in a
folder of the same study, likewise.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

#: The file of a run folder naming its scenario.
RUN_MARKER = "run.json"
#: What a run (`Run.save`, `tern emulate`, `tern plot`, `tern report`) writes in its folder.
_RUN_FILES = ("summary.json", "scenario.toml", RUN_MARKER, "tls-keys.log", "report.html")
_RUN_PATTERNS = ("*.parquet", "*.pcap", "*.sqlog", "report.md")
_RUN_DIRS = ("plots", "commands", "report-figures")


class OutFolderError(ValueError):
    """An output folder holds results that are not this run's or sweep's."""


def identity(name: str) -> str:
    """What names a scenario across runs: its file's absolute path, or `<scenario>` for TOML
    text (a notebook re-running its text replaces its own earlier run)."""
    if name == "<scenario>":
        return name
    return str(Path(name).absolute().resolve())


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        raise OutFolderError(f"{folder}: is a file, not a folder") from None


def empty(folder: Path) -> None:
    """Removes everything inside `folder`, refusing a folder that holds the working
    directory or is the home folder (a slip of `--out . --force` must not erase them)."""
    here, target = Path.cwd().resolve(), folder.resolve()
    if here == target or target in here.parents or target == Path.home().resolve():
        raise OutFolderError(
            f"{folder}: --force would erase the working directory or the home folder; "
            "give a folder of its own"
        )
    for p in target.iterdir():
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def _remove_run_files(folder: Path) -> None:
    for name in _RUN_FILES:
        (folder / name).unlink(missing_ok=True)
    for pattern in _RUN_PATTERNS:
        for p in folder.glob(pattern):
            p.unlink()
    for name in _RUN_DIRS:
        p = folder / name
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)


def _recorded(path: Path, key: str) -> str | None:
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def occupied(folder: str | os.PathLike[str]) -> bool:
    """Whether `folder` holds anything."""
    return bool(_entries(Path(folder)))


def claim_run(folder: str | os.PathLike[str], name: str, *, force: bool = False) -> None:
    """Readies `folder` for a run of scenario `name` (a path, or `<scenario>` for text):
    see the module's docstring. Makes nothing: the run makes the folder when it writes."""
    root = Path(folder)
    if not _entries(root):
        return
    source = _recorded(root / RUN_MARKER, "scenario")
    if force:
        empty(root)
    elif source == identity(name):
        _remove_run_files(root)
    else:
        what = f"a run of {source}" if source else "not a run folder of this scenario"
        raise OutFolderError(
            f"{root}: not empty ({what}); its files would mix with this run's. "
            "Give another folder, or --force (force=True) to replace it whole"
        )


def mark_run(folder: str | os.PathLike[str], name: str) -> None:
    """Writes the `run.json` of a run of scenario `name` that `folder` now holds."""
    marker = {"scenario": identity(name)}
    (Path(folder) / RUN_MARKER).write_text(json.dumps(marker, indent=2) + "\n")


def digest(text: str) -> str:
    """What a sweep folder records of its scenario's content: the SHA-256 of its text."""
    return hashlib.sha256(text.encode()).hexdigest()


def claim_sweep(
    folder: str | os.PathLike[str], name: str, *, text: str | None = None, force: bool = False
) -> None:
    """Readies `folder` for a sweep of scenario `name` (whose TOML is `text`): an earlier
    sweep of it resumes there, also when the folder or the scenario has moved (a folder
    copied to another machine or checkout: the same file name with the same content);
    any other non-empty folder is refused, or emptied with `force`."""
    root = Path(folder)
    if not _entries(root):
        return
    if force:
        empty(root)
        return
    marker = root / "sweep.json"
    if not marker.is_file():
        raise OutFolderError(
            f"{root}: not empty and not a sweep folder (no sweep.json); its files would mix "
            "with the sweep's. Give another folder, or --force (force=True) to replace it whole"
        )
    # Sweeps written before `source` was recorded name their scenario as it was given.
    source = _recorded(marker, "source")
    given = _recorded(marker, "scenario")
    same = (
        source == identity(name)
        if source is not None
        else given is not None and Path(given).name == Path(name).name
    )
    recorded = _recorded(marker, "digest")
    if not same and recorded is not None and text is not None:
        same = recorded == digest(text) and Path(source or given or "").name == Path(name).name
    if not same:
        raise OutFolderError(
            f"{root}: a sweep of {source or given}, not of {identity(name)}; its runs would "
            "mix with this sweep's. Give another folder, or --force (force=True) to replace it "
            "whole"
        )


def claim_reproduction(
    folder: str | os.PathLike[str], study: str, experiments: list[str], *, force: bool = False
) -> None:
    """Readies `folder` for a reproduction of `study`: one of it (its `report.json` names
    the study, or, interrupted before writing it, the folder holds only the study's
    experiment and sensitivity folders) resumes there; any other non-empty folder is
    refused, or emptied with `force`."""
    root = Path(folder)
    entries = _entries(root)
    if not entries:
        return
    if force:
        empty(root)
        return
    recorded = _recorded(root / "report.json", "study")
    ours = {*experiments, "sensitivity", "report.json", "report.md", "report.html"}
    if recorded == study or (
        recorded is None and all(e.name in ours or e.name.startswith("report") for e in entries)
    ):
        return
    what = f"a reproduction of {recorded}" if recorded else f"not a reproduction of {study}"
    raise OutFolderError(
        f"{root}: not empty ({what}); its files would mix with the reproduction of {study}. "
        "Give another folder, or --force to replace it whole"
    )
