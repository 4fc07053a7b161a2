"""Progress bars, one kind for the command line and for Python (`tern.run`, `tern.sweep`).

They are rich's: the bar the command line draws on a terminal is the bar a notebook shows
(rich draws into Jupyter through ipywidgets when it is installed, and says so when it is
not), and rich is already one of Tern's dependencies, where tqdm would be one more. A bar is
shown only where someone watches: a terminal or a notebook, never a log file or a pipe.

rich is imported when a bar is first needed, not with this module: a run shorter than 2 s
never draws one, and importing rich was most of the time a first short `tern.run` took beyond
its warm calls (benches/RESULTS.md, "The whole call").
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def console() -> Console:
    """The console bars draw on: standard error (standard output's tables stay clean)."""
    from rich.console import Console

    return Console(stderr=True)


def watched(con: Console) -> bool:
    """Whether a person sees what `con` draws: a terminal or a notebook."""
    return con.is_terminal or con.is_jupyter


class RunBar:
    """A bar of simulated time, shown once a run has taken over 2 s (a short run draws
    nothing, and makes no console: `con` is made when the bar may first be drawn); a
    `tern.run` progress callback."""

    def __init__(
        self, label: str, enabled: bool = True, con: Console | None = None, always: bool = False
    ):
        self.label = label
        self.con = con
        self.wanted, self.always = enabled, always
        self.decided: bool | None = None
        self.started = time.monotonic()
        self.bar: Progress | None = None
        self.task: Any = None

    @property
    def enabled(self) -> bool:
        """Whether the bar is drawn once the run has taken over 2 s: asked for, and watched
        or `always` (decided once)."""
        if self.decided is None:
            self.decided = self.wanted and (self.always or watched(self.console()))
        return self.decided

    def console(self) -> Console:
        """The console the bar draws on, made on first use."""
        if self.con is None:
            self.con = console()
        return self.con

    def __call__(self, now: float, end: float) -> None:
        if self.bar is None:
            if time.monotonic() - self.started < 2.0 or not self.enabled:
                return
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                TextColumn("{task.completed:.1f} / {task.total:.1f} s simulated"),
                TimeRemainingColumn(),
                console=self.console(),
                transient=True,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=end)
        self.bar.update(self.task, completed=now)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class SweepBar:
    """A bar of a sweep's runs (done, failed, time left); use as a context manager and pass
    `update` as the sweep's `on_progress`."""

    def __init__(self, label: str, enabled: bool = True, con: Console | None = None):
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.label = label
        self.con = con or console()
        self.bar = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} runs"),
            TextColumn("{task.fields[failed]} failed"),
            TimeRemainingColumn(),
            console=self.con,
            disable=not (enabled and watched(self.con)),
        )
        self.task: Any = None

    def update(self, r: Any) -> None:
        """`r`: a `tern.sweeps.SweepResult` so far."""
        if self.task is None:
            self.task = self.bar.add_task(self.label, total=r.total, failed=0)
        done = r.skipped + r.done + len(r.failures)
        self.bar.update(self.task, completed=done, failed=len(r.failures))

    def __enter__(self) -> SweepBar:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()
