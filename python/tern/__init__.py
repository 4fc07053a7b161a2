"""Tern: a fast, deterministic packet-level simulator of transport protocols
over mobile and wireless networks.

>>> import tern
>>> r = tern.run("scenarios/examples/p2p-udp.toml", seed=3, set={"links.access.rate": "5Mbps"})
>>> r.summary["flows"]["video"]["goodput_bps"]
>>> r.series("delay")   # a polars DataFrame
"""

import os as _os
import signal as _signal
import sys as _sys


def _interrupted_while_starting(signum: int, frame: object) -> None:
    _sys.stderr.write("interrupted\n")
    _os._exit(130)


# The `tern` command: a Ctrl-C while the libraries load ends it with one line and the exit code
# of SIGINT, not a traceback from inside an import; `tern.cli.main` restores Python's handler.
if _os.path.basename(_sys.argv[0]) == "tern" or _sys.orig_argv[1:3] == ["-m", "tern"]:
    _signal.signal(_signal.SIGINT, _interrupted_while_starting)
    # Arrow's default pool (jemalloc or mimalloc in the wheels) keeps the pages of finished
    # scans; the system allocator gives them back, which lowers a study's peak memory by about
    # a fifth at the same CPU. Arrow reads the variable once, when it starts, so it is set
    # here, before anything imports pyarrow, and only if the user has not chosen a pool.
    _os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from tern._core import EmulationError, ScenarioError, TernBug, TraceError, __version__  # noqa: E402
from tern.emulation import emulate  # noqa: E402
from tern.outdir import OutFolderError  # noqa: E402
from tern.runner import Run, load_run, run, schema, validate  # noqa: E402
from tern.store import connect, open_results  # noqa: E402
from tern.sweeps import sweep  # noqa: E402

__all__ = [
    "EmulationError",
    "OutFolderError",
    "Run",
    "ScenarioError",
    "TernBug",
    "TraceError",
    "__version__",
    "connect",
    "emulate",
    "load_run",
    "open_results",
    "run",
    "schema",
    "sweep",
    "validate",
]


def __getattr__(name: str):
    # tern.plots and tern.report load matplotlib: imported on first use, not with tern.
    if name in ("plots", "report"):
        import importlib

        return importlib.import_module(f"tern.{name}")
    raise AttributeError(f"module 'tern' has no attribute {name!r}")
