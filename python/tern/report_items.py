"""A report's content: sections of paragraphs, code, tables, plots and check tables (the
types `tern.report` writes as HTML and Markdown)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from matplotlib.figure import Figure


@dataclass
class Paragraph:
    """Plain text; blank lines separate paragraphs. Not interpreted as HTML or Markdown."""

    text: str


@dataclass
class Code:
    """Preformatted text, such as a scenario's TOML."""

    text: str
    language: str = ""
    caption: str = ""


@dataclass
class Table:
    """A table: column names and rows of values (numbers are formatted, None shows as —)."""

    columns: Sequence[str]
    rows: Sequence[Sequence[Any]]
    caption: str = ""

    @classmethod
    def from_frame(cls, frame: pl.DataFrame, caption: str = "") -> Table:
        return cls(frame.columns, frame.rows(), caption)


@dataclass
class Plot:
    """A matplotlib figure with its caption; `name` is its PNG file's stem in Markdown."""

    figure: Figure
    caption: str = ""
    name: str = ""


@dataclass
class Check:
    """One claim of a study: the published value, Tern's, the tolerance, and the verdict
    (`passed` None for a check that could not be made; `note` says why, or anything else)."""

    claim: str
    published: Any
    tern: Any
    tolerance: str
    passed: bool | None
    note: str = ""
    #: The result's words, if not "pass"/"fail"/"n/a" (a reproduction's verdict).
    verdict: str = ""


@dataclass
class CheckTable:
    """Checks shown as a table: claim, published, Tern, tolerance, result, note."""

    checks: Sequence[Check]
    caption: str = ""
    #: The line that sums the checks up (default: "k of n checks pass").
    summary: str = ""


Item = Paragraph | Code | Table | Plot | CheckTable


@dataclass
class Section:
    """A titled part of a report. Items may also be given as a str (a paragraph), a
    matplotlib Figure (a plot) or a polars DataFrame (a table)."""

    title: str
    items: Sequence[Item | str | Figure | pl.DataFrame] = field(default_factory=list)


def as_item(item: Any) -> Item:
    if isinstance(item, str):
        return Paragraph(item)
    if isinstance(item, Figure):
        return Plot(item)
    if isinstance(item, pl.DataFrame):
        return Table.from_frame(item)
    if isinstance(item, Paragraph | Code | Table | Plot | CheckTable):
        return item
    raise TypeError(f"a report item cannot be a {type(item).__name__}")


def format_value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:  # NaN
            return "—"
        return f"{value:.6g}"
    return str(value)


def verdict_words(passed: bool | None) -> tuple[str, str]:
    return {True: ("pass", "pass"), False: ("fail", "fail"), None: ("na", "n/a")}[passed]


def slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "figure"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def check_summary(checks: Sequence[Check]) -> str:
    made = [c for c in checks if c.passed is not None]
    passed = sum(1 for c in made if c.passed)
    text = f"{passed} of {len(made)} checks pass"
    if len(made) < len(checks):
        text += f" ({len(checks) - len(made)} not made)"
    return text


# --------------------------------------------------------------------------- HTML
