"""The `tern` command line."""

from __future__ import annotations

import json
import shlex
import signal
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tern import _core, runner
from tern.cli_common import (
    EXIT_BUG,
    ForceOpt,
    ScenarioArg,
    SeedOpt,
    SetOpt,
    _check_out,
    _fail,
    _interrupted,
    _LiveProgress,
    _one_line,
    _parse_sets,
    _print_summary,
    _read,
    _reading,
    app,
    err,
    out,
    ray_install_hint,
)
from tern.outdir import OutFolderError, claim_reproduction
from tern.progress import SweepBar


@app.command()
def run(
    scenario: ScenarioArg,
    seed: SeedOpt = None,
    set: SetOpt = None,
    out_dir: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Folder for summary.json, scenario.toml and the traces (Parquet). "
            "Default: runs/<scenario name>.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")
    ] = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No progress bar; a one-line summary, not tables."),
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Run a scenario and write its results."""
    _read(scenario)
    overrides = _parse_sets(set)
    target = out_dir or Path("runs") / scenario.stem
    _check_out(target)
    progress = _LiveProgress(scenario.stem, enabled=not quiet and sys.stderr.isatty())
    try:
        # Traces stream into the folder as the run goes.
        result = runner.run(
            scenario, seed=seed, set=overrides, progress=progress, out=target, force=force
        )
    except (_core.ScenarioError, _core.TraceError, OutFolderError, MemoryError) as e:
        raise _fail(str(e)) from None
    except _core.TernBug as e:
        raise _fail(str(e), EXIT_BUG) from None
    except KeyboardInterrupt:
        raise _interrupted("the run was stopped; nothing was written") from None
    finally:
        progress.close()
    files = "summary.json, scenario.toml" + "".join(f", {t}.parquet" for t in result.tables)
    if as_json:
        print(json.dumps(result.summary, indent=2))
    elif quiet:
        print(f"{_one_line(result.summary)}; results in {target}/")
        return
    else:
        _print_summary(result.summary)
    err.print(f"results in {target}/ ({files})", highlight=False)


@app.command()
def sweep(
    scenario: ScenarioArg,
    grid: Annotated[
        list[str] | None,
        typer.Option(
            "--grid",
            help="A swept key and its values, e.g. --grid links.access.rate=5Mbps,10Mbps. "
            "Repeatable: runs the cartesian product.",
            show_default=False,
        ),
    ] = None,
    linked: Annotated[
        list[str] | None,
        typer.Option(
            "--linked",
            help="Keys that change together, e.g. --linked links.a.delay=10ms,40ms "
            "--linked links.b.delay=40ms,10ms (two points: 10/40 ms and 40/10 ms). Every "
            "--linked key has as many values; the points are crossed with --grid.",
            show_default=False,
        ),
    ] = None,
    seeds: Annotated[
        int, typer.Option("--seeds", min=1, help="Seeds 1..N for every grid point.")
    ] = 1,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: all cores)."),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Sweep folder (default: sweeps/<scenario name>)."),
    ] = None,
    set: SetOpt = None,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help='Run on a Ray cluster at this address ("local" starts Ray on this machine); '
            "needs Ray: `pip install '.\\[ray]'` in Tern's checkout.",
        ),
    ] = None,
    retry_failed: Annotated[
        bool,
        typer.Option(
            "--retry-failed", help="Run again the runs that failed before (see FOLDER/failed/)."
        ),
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Run a scenario over a grid of parameters and seeds; resumes where it stopped."""
    from tern import sweeps as sweep_mod

    _read(scenario)
    folder = out_dir or Path("sweeps") / scenario.stem
    _check_out(folder)
    bar = SweepBar(scenario.stem, enabled=sys.stderr.isatty(), con=err)
    latest: sweep_mod.SweepResult | None = None

    def progress(r: sweep_mod.SweepResult) -> None:
        nonlocal latest
        latest = r
        bar.update(r)

    try:
        grids = sweep_mod.parse_grid(grid or [])
        links = sweep_mod.parse_grid(linked or [], "--linked")
        with bar:
            result = sweep_mod.run_sweep(
                scenario,
                grids,
                linked=links,
                seeds=seeds,
                out=folder,
                jobs=jobs,
                set=_parse_sets(set),
                ray_address=ray,
                retry_failed=retry_failed,
                on_progress=progress,
                force=force,
            )
    except (ValueError, _core.ScenarioError) as e:
        raise _fail(str(e)) from None
    except _core.TernBug as e:
        raise _fail(str(e), EXIT_BUG) from None
    except ImportError as e:
        raise _fail(f"{e}: install Ray with {ray_install_hint()}") from None
    except KeyboardInterrupt:
        done = f"{latest.skipped + latest.done} of {latest.total} runs done; " if latest else ""
        raise _interrupted(f"{done}run the same command again to resume") from None
    err.print(
        f"{result.total} runs: {result.done} run now, {result.skipped} already done, "
        f"{len(result.failures)} failed; results in {folder}/ (query with `tern query {folder} "
        '"SELECT * FROM runs"`)',
        highlight=False,
    )
    if result.failures:
        for key, error in result.failures.items():
            meta = json.loads((folder / "failed" / f"{key}.json").read_text())
            given = {**_parse_sets(set), **meta["params"]}
            sets = " ".join(f"--set {shlex.quote(f'{k}={v}')}" for k, v in given.items())
            command = f"tern run {shlex.quote(str(scenario))} --seed {meta['seed']} {sets}"
            err.print(
                f"  failed: {error}\n    re-run: {command}",
                highlight=False,
                markup=False,
            )
        if not retry_failed:
            err.print("  (--retry-failed runs the failed runs again)")
        raise typer.Exit(1)


#: Rows `tern query` prints unless told otherwise.
QUERY_MAX_ROWS = 10_000


@app.command()
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


@app.command()
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


@app.command()
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


@app.command()
def reproduce(
    study: Annotated[
        str | None,
        typer.Argument(help="Study id, e.g. lte-switch (see --list).", show_default=False),
    ] = None,
    quick: Annotated[
        bool,
        typer.Option("--quick", help="The same condition with fewer seeds: minutes on 2 cores."),
    ] = False,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Output folder (default: reproduce/<id>[-quick])."),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", min=1, help="Parallel runs (default: all cores)."),
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="List the studies that can be reproduced.")
    ] = False,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run again the runs that failed before.")
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Reproduce a study: run its experiments at the study's primary condition (resuming what
    is done), judge each published claim over all seeds, sweep the unsourced parameters apart,
    draw its figures, and write report.md, report.html and report.json."""
    from tern import reproduce as rep_mod

    if list_:
        for sid in rep_mod.list_studies():
            try:
                out.print(f"{sid}: {rep_mod.load_study(sid).title}", highlight=False)
            except rep_mod.StudyError as e:
                out.print(f"{sid}: cannot be used: {e}", highlight=False, markup=False)
        return
    if study is None:
        raise _fail("give a study id, or --list to see them")
    if out_dir is not None:
        _check_out(out_dir)
    try:
        experiments = [e.name for e in rep_mod.load_study(study).experiments]
        claim_reproduction(
            out_dir or Path("reproduce") / (study + "-quick" * quick),
            study,
            experiments,
            force=force,
        )
    except (rep_mod.StudyError, OutFolderError) as e:
        raise _fail(str(e)) from None
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TimeRemainingColumn(),
        console=err,
        disable=not sys.stderr.isatty(),
    )
    tasks: dict[str, object] = {}

    def progress(name: str, r) -> None:
        if name not in tasks:
            tasks[name] = bar.add_task(name, total=r.total)
        bar.update(tasks[name], completed=r.skipped + r.done + len(r.failures))

    try:
        with bar:
            result = rep_mod.reproduce(
                study,
                quick=quick,
                out=out_dir,
                jobs=jobs,
                retry_failed=retry_failed,
                on_progress=progress,
            )
    except rep_mod.StudyError as e:
        raise _fail(str(e)) from None
    except RuntimeError as e:
        raise _fail(str(e), code=1) from None
    except KeyboardInterrupt:
        raise _interrupted("run the same command again to resume") from None
    from tern.reproduce._output import published, tern_value, verdict_text

    table = Table(title=f"{study}: published claims against Tern")
    for col in ("claim", "published", "Tern", "tolerance", "verdict"):
        table.add_column(col, overflow="fold")
    colour = {rep_mod.REPRODUCED: "green", rep_mod.CAUSE_SHOWN: "yellow", rep_mod.OPEN: "red"}
    for r in result.results:
        c = r.claim
        style = colour.get(r.verdict or "", "dim")
        table.add_row(
            escape(c.id),
            escape(published(r)),
            escape(tern_value(r)),
            f"± {c.tolerance:g}",
            f"[{style}]{escape(verdict_text(r))}",
        )
    out.print(table)
    out.print(result.summary(), highlight=False)
    if result.figure_error:
        err.print(f"report: {result.out / 'report.html'} and {result.out / 'report.md'}")
        raise _fail(result.figure_error, code=1)
    err.print(f"report: {result.out / 'report.html'} and {result.out / 'report.md'}")


@app.command()
def validate(scenario: ScenarioArg, seed: SeedOpt = None, set: SetOpt = None) -> None:
    """Check a scenario without running it; print it resolved (defaults filled in)."""
    _read(scenario)
    try:
        resolved = runner.validate(scenario, seed=seed, set=_parse_sets(set))
    except _core.ScenarioError as e:
        raise _fail(str(e)) from None
    except _core.TernBug as e:
        raise _fail(str(e), EXIT_BUG) from None
    print(resolved, end="")
    err.print(f"{scenario}: valid")


@app.command()
def schema() -> None:
    """Print the scenario format as JSON Schema."""
    print(_core.schema())


@app.command()
def version() -> None:
    """Print Tern's version."""
    print(_core.__version__)


def main() -> None:
    # Everything is loaded: Ctrl-C is Python's KeyboardInterrupt again, which every command
    # turns into one line (tern/__init__.py handles it while the libraries load).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    app()


# `tern emulate` lives in its own module; importing it registers it on `app`.
from tern import cli_emulate  # noqa: E402, F401
