"""`tern query`, `tern plot` and `tern report`: the commands that read a results folder
(registered on the `tern` app)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from tern import runner
from tern.cli_common import (
    _fail,
    _reading,
    app,
    err,
)

#: Rows `tern query` prints unless told otherwise.
QUERY_MAX_ROWS = 10_000


@app.command(rich_help_panel="Read results")
def query(
    folder: Annotated[Path, typer.Argument(help="A sweep folder.", show_default=False)],
    sql: Annotated[
        str | None,
        typer.Argument(
            help="SQL over the table `runs` (one row per run and flow) and one view per trace "
            "(cwnd, delay, queue, ...).",
            show_default=False,
        ),
    ] = None,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
    allow_files: Annotated[
        bool,
        typer.Option(
            "--allow-files",
            help="Let the SQL read and write any file and load DuckDB extensions. Without it "
            "the query sees only the folder's tables and traces, read-only, and can open no "
            "file nor reach the network (for folders someone sent you).",
        ),
    ] = False,
    max_rows: Annotated[
        int,
        typer.Option(
            "--max-rows",
            min=0,
            help="Print at most this many rows (the rest are not read); 0 prints them all.",
        ),
    ] = QUERY_MAX_ROWS,
) -> None:
    """Query a sweep's results with DuckDB SQL. The query can read the folder's tables and
    traces and nothing else unless --allow-files is given."""
    import duckdb
    import polars as pl

    from tern.store import ResultsError, connect

    if sql is None or not sql.strip():
        raise _fail('query: no SQL given; e.g. tern query FOLDER "SELECT * FROM runs"')
    try:
        relation = connect(folder, sandbox=not allow_files).sql(sql)
        if relation is None:
            raise _fail("query: the statement returns no rows; give a query (SELECT, WITH, ...)")
        # One row past the limit tells whether rows were left out, without reading them all.
        frame = (relation.limit(max_rows + 1) if max_rows else relation).pl()
    except (FileNotFoundError, ResultsError) as e:
        raise _fail(str(e)) from None
    except duckdb.PermissionException as e:
        raise _fail(f"query: {e} (--allow-files lets a query open files)") from None
    except duckdb.Error as e:
        raise _fail(f"query: {e}") from None
    cut = bool(max_rows) and frame.height > max_rows
    if cut:
        frame = frame.head(max_rows)
    if as_csv:
        nested = [c for c, t in frame.schema.items() if t.is_nested()]
        if nested:
            raise _fail(
                f"--csv: column {nested[0]!r} holds lists or structs, which CSV cannot hold; "
                "turn it into text in the query (CAST(... AS VARCHAR)) or leave out --csv"
            )
        print(frame.write_csv(), end="")
    else:
        # Whole values, never cut: a long list or string is printed in full.
        with pl.Config(
            tbl_rows=-1,
            tbl_cols=-1,
            tbl_width_chars=-1,
            fmt_str_lengths=1_000_000,
            fmt_table_cell_list_len=-1,
        ):
            print(frame)
    if cut:
        err.print(
            f"(the first {max_rows:,} rows; the query returns more: --max-rows 0 prints all)",
            highlight=False,
            markup=False,
        )


PLOT_FORMATS = ("png", "svg")


def _plot_target(
    out: Path | None, default_dir: Path, names: list[str], fmt: str | None
) -> list[Path]:
    """Where the plots go: --out is the file when it ends in .png/.svg (one plot), else a
    folder; the format comes from --format, else --out's suffix, else PNG."""
    if fmt is not None and fmt.lower() not in PLOT_FORMATS:
        raise _fail(f"--format {fmt!r}: expected png or svg")
    fmt = fmt.lower() if fmt else None
    if out is not None and out.suffix.lower() in (".png", ".svg"):
        if len(names) > 1:
            raise _fail(
                f"--out {out} names one file but {len(names)} plots are made "
                f"({', '.join(names)}): pass one --what, or a folder"
            )
        suffix = out.suffix.lower()[1:]
        if fmt and fmt != suffix:
            raise _fail(f"--format {fmt} but --out {out} ends in .{suffix}")
        return [out]
    folder = out if out is not None else default_dir
    return [folder / f"{name}.{fmt or 'png'}" for name in names]


def _parse_where(items: list[str] | None) -> dict[str, str]:
    where = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise _fail(f"--where {item!r}: expected PARAM=VALUE, like links.access.rate=5Mbps")
        where[key.strip()] = value.strip()
    return where


@app.command(rich_help_panel="Read results")
def plot(
    folder: Annotated[
        Path,
        typer.Argument(
            help="A run folder (tern run --out) or a sweep folder (tern sweep --out).",
            show_default=False,
        ),
    ],
    what: Annotated[
        list[str] | None,
        typer.Option(
            "--what",
            help="Run: the time series to plot: cwnd, inflight, rtt, rto, queue, delay, "
            "throughput, drops, retransmits, tseq, mcs, retries, ampdu, tfrc, rssi or rlc. "
            "Repeatable; default: every one the run has.",
            show_default=False,
        ),
    ] = None,
    x: Annotated[
        str | None,
        typer.Option(
            "--x", help="Sweep: the grid parameter on the x axis (default: the first swept one)."
        ),
    ] = None,
    y: Annotated[
        str | None,
        typer.Option(
            "--y",
            help="Sweep: the summary metric, a column of the runs table (goodput_bps, "
            "delay_s_p50, loss_rate, ...). Default: goodput_bps.",
        ),
    ] = None,
    hue: Annotated[
        list[str] | None,
        typer.Option(
            "--hue",
            help="Sweep: one line per value of this parameter (repeatable). Default: every "
            "other parameter that varies, and the flow.",
            show_default=False,
        ),
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(
            "--where",
            help="Sweep: keep the runs with PARAM=VALUE (repeatable).",
            show_default=False,
        ),
    ] = None,
    flow: Annotated[str | None, typer.Option("--flow", help="Sweep: keep this flow.")] = None,
    bin_s: Annotated[
        float | None,
        typer.Option(
            "--bin",
            help="Run: the throughput bin in seconds (default: about 50 bins over the run).",
        ),
    ] = None,
    fmt: Annotated[
        str | None,
        typer.Option("--format", help="png or svg (default: from --out's suffix, else png)."),
    ] = None,
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="A .png/.svg file when one plot is made, else a folder (default: FOLDER/plots/).",
        ),
    ] = None,
) -> None:
    """Plot a run's time series, or a sweep's metric against a grid parameter (with 95 % CI)."""
    from tern import plots

    if bin_s is not None and not bin_s > 0:
        raise _fail(f"--bin {bin_s}: expected a positive number of seconds")
    with _reading(folder):
        try:
            kind = plots.folder_kind(folder)
            figures = []
            if kind == "run":
                sweep_only = [
                    n for n, v in (("--x", x), ("--y", y), ("--hue", hue), ("--where", where)) if v
                ] + (["--flow"] if flow else [])
                if sweep_only:
                    raise _fail(f"{' '.join(sweep_only)}: for sweep folders; {folder} is a run")
                run_ = runner.load_run(folder)
                kinds = what or plots.available(run_)
                if not kinds:
                    recorded = ", ".join(run_.tables) or "none"
                    files = (
                        f"; its capture files ({', '.join(run_.captures)}) open in Wireshark "
                        "(.pcap) and qvis (.sqlog)"
                        if run_.captures
                        else ""
                    )
                    raise _fail(
                        f"{folder}: nothing to plot in this run (traces: {recorded}){files}"
                    )
                for k in kinds:
                    figures.append((k, plots.timeseries(run_, k, bin=bin_s)))
            else:
                if what:
                    raise _fail(
                        f"--what plots a run's time series; {folder} is a sweep: use --x/--y, "
                        f"or plot one of its runs ({folder}/runs/<key>)"
                    )
                if bin_s is not None:
                    raise _fail(f"--bin: for run folders; {folder} is a sweep")
                if x is None:
                    grid = [
                        g for g in plots.sweep_grid(folder, varying=True) if g not in (hue or [])
                    ]
                    if not grid:
                        raise _fail(f"{folder}: no grid parameter takes several values; pass --x")
                    x = grid[0]
                y = y or "goodput_bps"
                fig = plots.sweep(folder, x, y, hue, flow=flow, where=_parse_where(where))
                figures.append((f"{y}-vs-{x}", fig))
            targets = _plot_target(out_path, folder / "plots", [n for n, _ in figures], fmt)
            for (_, fig), target in zip(figures, targets, strict=True):
                plots.save(fig, target)
                err.print(f"wrote {target}", highlight=False)
        except plots.PlotError as e:
            raise _fail(str(e)) from None


@app.command(rich_help_panel="Read results")
def report(
    folder: Annotated[
        Path,
        typer.Argument(
            help="A run folder (tern run --out) or a sweep folder (tern sweep --out).",
            show_default=False,
        ),
    ],
    out_path: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="The HTML file (default: FOLDER/report.html). The Markdown version goes "
            "beside it (.md), with its figures in <name>-figures/.",
        ),
    ] = None,
    markdown: Annotated[
        bool, typer.Option("--markdown/--no-markdown", help="Also write the report as Markdown.")
    ] = True,
) -> None:
    """Write one self-contained HTML report of a run or sweep: tables, plots, scenario."""
    from tern import plots
    from tern import report as report_mod

    with _reading(folder):
        try:
            written = report_mod.write_report(folder, out_path, markdown=markdown)
        except plots.PlotError as e:
            raise _fail(str(e)) from None
    err.print("wrote " + ", ".join(str(p) for p in written), highlight=False)
