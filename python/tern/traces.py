"""Trace tables of a run: frames from the columns a run kept in memory, or the Parquet files
a run wrote into its output folder, read when asked for.

A run given an output folder (`tern.run(..., out=DIR)`, `tern run --out DIR`) streams each
trace to `DIR/<table>.parquet` as it goes, so its memory stays bounded however long it is;
without one, the traces stay in memory up to `max_trace_memory` bytes (1 GiB by default),
past which the run stops with `TraceError` saying to give it a folder.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import polars as pl

from tern._core import TraceError

__all__ = ["FolderTables", "TraceError", "frames", "write_tables"]

_DTYPES = {"f64": np.dtype("<f8"), "u64": np.dtype("<u8"), "text": np.dtype("<u4")}

#: One column as the native module hands it over: name, kind ("f64", "u64", "text"),
#: little-endian values (text: codes into `labels`), labels, and for a nullable column
#: one byte per row (0: null).
Column = tuple[str, str, bytes, list[str] | None, bytes | None]


def _series(name: str, kind: str, raw: bytes, labels: list[str] | None, valid: bytes | None):
    values = np.frombuffer(raw, dtype=_DTYPES[kind])
    if kind == "text":
        # A null row holds code 0, which may name no label when the column is all null.
        series = pl.Series(name, labels or [""], dtype=pl.String).gather(values)
    else:
        series = pl.Series(name, values)
    if valid is not None:
        nulls = np.flatnonzero(np.frombuffer(valid, dtype=np.uint8) == 0)
        if len(nulls):
            series = series.scatter(nulls, None)
    return series


def frames(tables: list[tuple[str, list[Column]]]) -> dict[str, pl.DataFrame]:
    """The tables a run kept in memory, as polars frames (nulls where a value is unset)."""
    return {table: pl.DataFrame([_series(*col) for col in columns]) for table, columns in tables}


class FolderTables(Mapping[str, pl.DataFrame]):
    """The traces a run wrote as `<table>.parquet` files, read on each access."""

    def __init__(self, files: Mapping[str, str | os.PathLike[str]]):
        self.files = {name: Path(path) for name, path in files.items()}

    def __getitem__(self, name: str) -> pl.DataFrame:
        return pl.read_parquet(self.files[name])

    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)


def write_tables(tables: Mapping[str, pl.DataFrame], out: Path) -> None:
    """Writes each table as `out/<table>.parquet`: frames through polars; files a run wrote
    are copied (or left alone when they are already there)."""
    for name in tables:
        target = out / f"{name}.parquet"
        if isinstance(tables, FolderTables):
            source = tables.files[name]
            if not (target.exists() and target.samefile(source)):
                shutil.copyfile(source, target)
        else:
            tables[name].write_parquet(target, statistics=False)
