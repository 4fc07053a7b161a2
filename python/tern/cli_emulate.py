"""`tern emulate`: the command line of `tern.emulate` (registered on the `tern` app)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tern import _core
from tern import emulation as emu
from tern.cli_common import (
    EXIT_BUG,
    ForceOpt,
    SeedOpt,
    SetOpt,
    _check_out,
    _fail,
    _interrupted,
    _parse_sets,
    _print_summary,
    _read,
    app,
    err,
)
from tern.outdir import OutFolderError


def _parse_runs(items: list[str] | None) -> dict[str, list[str]]:
    runs: dict[str, list[str]] = {}
    for item in items or []:
        node, eq, command = item.partition("=")
        if not eq or not node.strip() or not command.strip():
            raise _fail(f"--run {item!r}: expected NODE=COMMAND, like --run a='ping -c 5 {{b}}'")
        runs.setdefault(node.strip(), []).append(command.strip())
    return runs


@app.command(rich_help_panel="Run")
def emulate(
    scenario: Annotated[
        Path | None,
        typer.Argument(help="Scenario file (TOML) with real = true nodes.", show_default=False),
    ] = None,
    run: Annotated[
        list[str] | None,
        typer.Option(
            "--run",
            help="A command for a real node, e.g. --run a='ping -c 10 {b}' ({b}: node b's "
            "address). Repeatable; added to the nodes' commands in the scenario.",
            show_default=False,
        ),
    ] = None,
    out_dir: Annotated[
        Path | None,
        typer.Option("--out", help="Run folder (default: runs/<scenario name>-emulated)."),
    ] = None,
    seed: SeedOpt = None,
    set: SetOpt = None,
    warn_us: Annotated[
        int, typer.Option("--warn-us", min=1, help="Lateness past which the run is 'behind'.")
    ] = 1_000,
    fail_us: Annotated[
        int, typer.Option("--fail-us", min=1, help="Lateness past which the run stops.")
    ] = 10_000,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the summary as JSON instead of tables.")
    ] = False,
    cleanup: Annotated[
        bool,
        typer.Option(
            "--cleanup",
            help="Remove the namespaces left by killed emulations, end the processes still in "
            "them, and exit.",
        ),
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Run a scenario in real time with its real nodes as Linux network namespaces (root)."""
    try:
        if cleanup:
            removed = emu.cleanup()
            err.print(f"removed {len(removed)} namespace(s): {' '.join(removed) or '-'}")
            return
        if scenario is None:
            raise _fail("a scenario file is needed (or --cleanup)")
        _read(scenario)
        target = out_dir or Path("runs") / f"{scenario.stem}-emulated"
        _check_out(target)
        emu.check_privileges()
        result = emu.emulate(
            scenario,
            out=target,
            seed=seed,
            set=_parse_sets(set),
            commands=_parse_runs(run),
            warn_us=warn_us,
            fail_us=fail_us,
            force=force,
        )
    except (
        _core.ScenarioError,
        _core.TraceError,
        _core.EmulationError,
        OutFolderError,
        MemoryError,
    ) as e:
        raise _fail(str(e)) from None
    except _core.TernBug as e:
        raise _fail(str(e), EXIT_BUG) from None
    except KeyboardInterrupt:
        raise _interrupted("the emulation was stopped; its namespaces are removed") from None
    if as_json:
        print(json.dumps(result.summary, indent=2))
    else:
        _print_summary(result.summary)
        e = result.summary["emulation"]
        late = e["lateness"]
        err.print(
            f"lateness: p50 {late['p50_us']:.0f} µs, p99 {late['p99_us']:.0f} µs, "
            f"max {late['max_us']:.0f} µs over {late['events']} events"
            + (" — BEHIND the bound" if e["behind"] else ""),
            highlight=False,
        )
    err.print(f"results in {target}/ (commands' output in {target}/commands/)", highlight=False)
