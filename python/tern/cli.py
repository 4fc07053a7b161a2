"""The `tern` command line."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from tern import _core, runner

app = typer.Typer(
    help="Tern: a deterministic packet-level simulator of transport protocols over "
    "mobile and wireless networks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)
out = Console()

#: Exit code for bad input (scenario files, flags), as for command-line usage errors.
EXIT_BAD_INPUT = 2
#: Exit code for an internal error of Tern.
EXIT_BUG = 3

ScenarioArg = Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)]
SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Master seed; replaces sim.seed of the file.", min=0),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        help="Override a key, e.g. --set links.access.rate=5Mbps (array elements by name). "
        "Repeatable.",
        show_default=False,
    ),
]


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> typer.Exit:
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _parse_sets(sets: list[str] | None) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in sets or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise _fail(f"--set {item!r}: expected KEY=VALUE, like links.access.rate=5Mbps")
        parsed[key.strip()] = value.strip()
    return parsed


def _read(path: Path) -> None:
    if not path.is_file():
        raise _fail(f"{path}: no such scenario file")


class _LiveProgress:
    """A progress bar of simulated time, shown once a run has taken over 2 s."""

    def __init__(self, label: str, enabled: bool):
        self.label = label
        self.enabled = enabled
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.task = None

    def __call__(self, now: float, end: float) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            if time.monotonic() - self.started < 2.0:
                return
            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.1f} / {task.total:.1f} s simulated"),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=end)
        self.bar.update(self.task, completed=now)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _print_summary(summary: dict) -> None:
    flows = Table(title="Flows", title_justify="left")
    for col in ("flow", "app", "delivered", "goodput", "loss / retx", "p50", "p99"):
        flows.add_column(col, justify="left" if col in ("flow", "app") else "right")
    for name, f in summary["flows"].items():
        d = f.get("delay_s") or f.get("rtt_s")
        tcp = f.get("tcp")
        if tcp:
            retx = tcp["retransmits_fast"] + tcp["retransmits_rto"] + tcp["retransmits_sack"]
            loss = f"{retx} retx, {tcp['rto_expiries']} RTO"
        else:
            loss = f"{f['messages_lost']} ({100 * f['loss_rate']:.2f} %)"
        kind = "rtt" if "rtt_s" in f else "delay"
        flows.add_row(
            name,
            f"{f['app']}/{f['transport']}",
            f"{f['bytes_delivered'] / 1e6:.3f} MB",
            f"{f['goodput_bps'] / 1e6:.3f} Mbit/s",
            loss,
            f"{kind} {1e3 * d['p50']:.1f} ms" if d else "-",
            f"{1e3 * d['p99']:.1f} ms" if d else "-",
        )
    links = Table(title="Links", title_justify="left")
    for col in ("link", "direction", "sent", "drops q/aqm/loss", "queue mean", "queue max", "util"):
        links.add_column(col, justify="left" if col in ("link", "direction") else "right")
    for name, dirs in summary["links"].items():
        for direction, c in dirs.items():
            dr = c["drops"]
            links.add_row(
                name,
                direction,
                str(c["tx_packets"]),
                f"{dr['queue']}/{dr['aqm']}/{dr['loss']}",
                f"{c['queue_mean_packets']:.2f} pkt",
                f"{c['queue_max_packets']} pkt",
                f"{100 * c['utilization']:.1f} %",
            )
    out.print(flows)
    out.print(links)


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
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Run a scenario and write its results."""
    _read(scenario)
    overrides = _parse_sets(set)
    progress = _LiveProgress(scenario.stem, enabled=not quiet and sys.stderr.isatty())
    try:
        result = runner.run(scenario, seed=seed, set=overrides, progress=progress)
    except _core.ScenarioError as e:
        raise _fail(str(e)) from None
    except _core.TernBug as e:
        raise _fail(str(e), EXIT_BUG) from None
    except KeyboardInterrupt:
        progress.close()
        err.print("interrupted")
        raise typer.Exit(130) from None
    finally:
        progress.close()
    target = result.save(out_dir or Path("runs") / scenario.stem)
    if as_json:
        print(json.dumps(result.summary, indent=2))
    else:
        _print_summary(result.summary)
        err.print(
            f"results in {target}/ (summary.json, scenario.toml"
            + "".join(f", {t}.parquet" for t in result.tables)
            + ")"
        )


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
            "needs `pip install tern[ray]`.",
        ),
    ] = None,
) -> None:
    """Run a scenario over a grid of parameters and seeds; resumes where it stopped."""
    from tern import sweeps as sweep_mod

    _read(scenario)
    folder = out_dir or Path("sweeps") / scenario.stem
    try:
        grids = sweep_mod.parse_grid(grid or [])
        bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} runs"),
            TextColumn("{task.fields[failed]} failed"),
            TimeRemainingColumn(),
            console=err,
            disable=not sys.stderr.isatty(),
        )
        task = None

        def progress(r: sweep_mod.SweepResult) -> None:
            nonlocal task
            if task is None:
                task = bar.add_task(scenario.stem, total=r.total, failed=0)
            bar.update(task, completed=r.skipped + r.done + len(r.failures), failed=len(r.failures))

        with bar:
            result = sweep_mod.run_sweep(
                scenario,
                grids,
                seeds=seeds,
                out=folder,
                jobs=jobs,
                set=_parse_sets(set),
                ray_address=ray,
                on_progress=progress,
            )
    except (ValueError, _core.ScenarioError) as e:
        raise _fail(str(e)) from None
    except ImportError as e:
        raise _fail(f"{e}: install Ray with `pip install tern[ray]`") from None
    err.print(
        f"{result.total} runs: {result.done} run now, {result.skipped} already done, "
        f"{len(result.failures)} failed; results in {folder}/ (query with `tern query {folder} "
        '"SELECT * FROM runs"`)'
    )
    if result.failures:
        for key, error in result.failures.items():
            meta = json.loads((folder / "failed" / f"{key}.json").read_text())
            sets = " ".join(f"--set {k}={v}" for k, v in meta["params"].items())
            err.print(
                f"  failed: {error}\n    re-run: tern run {scenario} --seed {meta['seed']} {sets}"
            )
        raise typer.Exit(1)


@app.command()
def query(
    folder: Annotated[Path, typer.Argument(help="A sweep folder.", show_default=False)],
    sql: Annotated[
        str,
        typer.Argument(
            help="SQL over the table `runs` (one row per run and flow) and one view per trace "
            "(cwnd, delay, queue, ...).",
            show_default=False,
        ),
    ],
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV instead of a table.")] = False,
) -> None:
    """Query a sweep's results with DuckDB SQL."""
    import duckdb

    from tern.store import connect

    try:
        frame = connect(folder).sql(sql).pl()
    except FileNotFoundError as e:
        raise _fail(str(e)) from None
    except duckdb.Error as e:
        raise _fail(f"query: {e}") from None
    if as_csv:
        print(frame.write_csv(), end="")
    else:
        with pl_config():
            print(frame)


def pl_config():
    """Prints whole frames, as a query user expects."""
    import polars as pl

    return pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=60)


@app.command()
def validate(scenario: ScenarioArg, seed: SeedOpt = None, set: SetOpt = None) -> None:
    """Check a scenario without running it; print it resolved (defaults filled in)."""
    _read(scenario)
    try:
        resolved = runner.validate(scenario, seed=seed, set=_parse_sets(set))
    except _core.ScenarioError as e:
        raise _fail(str(e)) from None
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
    app()
