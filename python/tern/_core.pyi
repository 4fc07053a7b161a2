"""Type stubs of `tern._core`, the Rust simulator's binding (crates/tern-py/src/lib.rs).

Use it through `tern.run`, `tern.validate` and `tern.schema`; these are their building blocks.
"""

from collections.abc import Callable, Sequence

__version__: str

class ScenarioError(Exception):
    """A scenario that Tern cannot run: the message names the file, line and key.

    The parts are attributes too (set on every ScenarioError Tern raises).
    """

    #: The scenario file, or None for a `--set` override.
    file: str | None
    #: 1-based line in `file`, when known.
    line: int | None
    #: Dotted key path such as `links[0].rate`; empty for whole-file problems.
    key: str
    #: What was given and what was expected.
    message: str

class TernBug(Exception):
    """An internal error of Tern (a bug), with the scenario and seed to reproduce it."""

#: One trace column: (name, kind, little-endian data, labels). `kind` is "f64", "u64" or
#: "text" (then `data` holds u32 codes into `labels`; `labels` is None otherwise).
Column = tuple[str, str, bytes, list[str] | None]

def validate(
    text: str, name: str, overrides: Sequence[tuple[str, str]] = ..., seed: int | None = None
) -> str:
    """Checks a scenario and returns it resolved (defaults filled in) as TOML."""

def schema() -> str:
    """The scenario format as a JSON Schema document."""

def run(
    text: str,
    name: str,
    overrides: Sequence[tuple[str, str]] = ...,
    seed: int | None = None,
    progress: Callable[[float, float], object] | None = None,
) -> tuple[str, str, list[tuple[str, list[Column]]], list[tuple[str, bytes]]]:
    """Runs a scenario: (summary JSON, resolved TOML, trace tables, packet captures).

    `progress(now_s, end_s)` is called now and then; Ctrl-C stops the run with
    `KeyboardInterrupt`.
    """
