"""What the commands of the `tern` command line share: the app they register on, the
consoles, exit codes, common options, and the checks and printing they all use. Kept apart
from `tern.cli` so that command modules (`tern.cli_emulate`) import it without a circle."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from tern import runner
from tern.progress import RunBar

app = typer.Typer(
    help="Tern: a deterministic packet-level simulator of transport protocols over "
    "mobile and wireless networks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True)
out = Console()


def _print_version(value: bool) -> None:
    if value:
        from tern import _core

        print(f"tern {_core.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print Tern's version and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Tern: a deterministic packet-level simulator of transport protocols over mobile and
    wireless networks."""


def _flags_take_no_value() -> None:
    """Typer's help shows a `<bool>` value after an on/off flag (`--json <bool>`), which takes
    none: the flag's type column is left empty."""
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if shown is None:
        return

    def display_type_rich(self, ctx):  # type: ignore[no-untyped-def]
        return None if self.is_flag else shown(self, ctx)

    option.display_type_rich = display_type_rich


_flags_take_no_value()

#: Exit code for bad input (scenario files, flags), as for command-line usage errors.
EXIT_BAD_INPUT = 2
#: Exit code for an internal error of Tern.
EXIT_BUG = 3
#: Exit code after Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130

ScenarioArg = Annotated[Path, typer.Argument(help="Scenario file (TOML).", show_default=False)]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        help="Master seed; replaces sim.seed of the file.",
        min=0,
        max=runner.MAX_SEED,
    ),
]
ForceOpt = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Replace a non-empty --out folder whole, whatever it holds (without it, only an "
        "earlier run of the same scenario is replaced, and a sweep resumes).",
    ),
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


@contextlib.contextmanager
def _reading(folder: Path) -> Iterator[None]:
    """Reading a results folder, which may come from anyone: what cannot be read is one line
    naming the file (or the folder), exit code 2, never a traceback."""
    import duckdb
    import polars as pl
    import pyarrow as pa

    from tern.store import ResultsError

    try:
        yield
    except ResultsError as e:
        raise _fail(str(e)) from None
    except (pl.exceptions.PolarsError, pa.ArrowException, duckdb.Error) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise _fail(f"{folder}: its results cannot be read: {first}") from None
    except UnicodeDecodeError as e:
        raise _fail(f"{folder}: a file is not UTF-8 text ({e})") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as e:
        # What the checks of `tern.store` do not catch: a value of another type than Tern
        # writes (a number as text, a list for a number) meets the arithmetic that reads it.
        raise _fail(
            f"{folder}: its results are not of the form Tern writes ({type(e).__name__}: {e}); "
            "was a file changed?"
        ) from None
    except OSError as e:
        where = e.filename or folder
        raise _fail(f"{where}: {e.strerror or e}") from None


def _interrupted(what: str) -> typer.Exit:
    """Ctrl-C: one line, and the exit code of a process stopped by SIGINT."""
    err.print(f"interrupted: {escape(what)}", highlight=False, soft_wrap=True)
    return typer.Exit(EXIT_INTERRUPTED)


def _parse_sets(sets: list[str] | None) -> dict[str, str]:
    parsed: dict[str, str] = {}
    for item in sets or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise _fail(f"--set {item!r}: expected KEY=VALUE, like links.access.rate=5Mbps")
        parsed[key.strip()] = value.strip()
    return parsed


def _read(path: Path) -> None:
    if path.is_dir():
        raise _fail(f"{path}: is a folder, not a scenario file")
    if not path.exists():
        raise _fail(f"{path}: no such scenario file")
    if not path.is_file():
        raise _fail(f"{path}: not a regular file (a device, a pipe or a socket)")


def _check_out(folder: Path, flag: str = "--out") -> None:
    """Fails, before anything runs, unless `folder` is a folder Tern can write into or create."""
    missing = []
    for p in (folder.absolute(), *folder.absolute().parents):
        if p.exists():
            if not p.is_dir():
                raise _fail(f"{flag} {folder}: {p} is a file, not a folder")
            if not os.access(p, os.W_OK | os.X_OK):
                raise _fail(f"{flag} {folder}: cannot write into {p} (permission denied)")
            break
        missing.append(p)
    # Some file systems refuse what access() allows (/proc, /sys, a read-only mount): make
    # the folders, then take back the ones this check made.
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise _fail(f"{flag} {folder}: cannot be made ({e.strerror or e})") from None
    for p in missing:
        with contextlib.suppress(OSError):
            p.rmdir()


def ray_install_hint() -> str:
    """The command that installs Ray for this Tern: its checkout's `[ray]` extra when Tern
    runs from a checkout (Tern is not on PyPI), else Ray itself."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "crates").is_dir():
        return f"pip install '{checkout}[ray]'"
    return "pip install 'ray>=2.9'"


def _LiveProgress(label: str, enabled: bool) -> RunBar:
    """The command line's bar of a run's simulated time (shown once a run takes over 2 s)."""
    return RunBar(label, enabled=enabled, con=err)


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
        elif quic := f.get("quic"):
            loss = f"{quic['packets_lost']} pkts lost"
        elif tfrc := f.get("tfrc"):
            loss = f"{f['messages_lost']} lost, p {tfrc['final_p']:.4f}"
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


def _one_line(summary: dict) -> str:
    """The summary of a run in one line, however many flows and links it has."""
    flows = summary["flows"].values()
    delivered = sum(f["bytes_delivered"] for f in flows)
    goodput = sum(f["goodput_bps"] for f in flows)
    drops = sum(
        sum(c["drops"].values()) for dirs in summary["links"].values() for c in dirs.values()
    )
    return (
        f"{len(flows)} flows: {delivered / 1e6:.3f} MB delivered, {goodput / 1e6:.3f} Mbit/s "
        f"goodput in all; {len(summary['links'])} links: {drops} packets dropped"
    )
