"""Tern: a fast, deterministic packet-level simulator of transport protocols
over mobile and wireless networks.

>>> import tern
>>> r = tern.run("scenarios/examples/p2p-udp.toml", seed=3, set={"links.access.rate": "5Mbps"})
>>> r.summary["flows"]["video"]["goodput_bps"]
>>> r.series("delay")   # a polars DataFrame
"""

from tern._core import EmulationError, ScenarioError, TernBug, TraceError, __version__
from tern.emulation import emulate
from tern.runner import Run, load_run, run, schema, validate
from tern.store import connect, open_results
from tern.sweeps import sweep

__all__ = [
    "EmulationError",
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
