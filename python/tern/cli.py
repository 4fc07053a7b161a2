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
    app,
    err,
    out,
    ray_install_hint,
)
from tern.outdir import OutFolderError, claim_reproduction
from tern.progress import SweepBar


@app.command(rich_help_panel="Run")
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


@app.command(rich_help_panel="Run")
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


@app.command(rich_help_panel="Run")
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


@app.command(rich_help_panel="Scenarios")
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


@app.command(rich_help_panel="Scenarios")
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


# `tern query`/`plot`/`report` and `tern emulate` live in their own modules; importing them
# registers them on `app`.
from tern import cli_emulate, cli_results  # noqa: E402, F401
