"""Reports: one self-contained HTML file (and the same content as Markdown) per run, sweep or
study reproduction.

A report is a title and a list of `Section`s, each a list of items: `Paragraph`, `Table`,
`Plot` (a matplotlib figure), `Code` (the scenario TOML, say) and `CheckTable` (claims of a
paper against Tern's numbers). `write_html` embeds figures as inline SVG (base64 PNG for big
ones), so the file opens in any browser with no server and nothing beside it;
`write_markdown` writes the same content with figures as PNG files next to it.

>>> from tern import report
>>> report.write_html("lte-switch", [
...     report.Section("Checks", [report.CheckTable([
...         report.Check("delay after handover", "1.2 s", "1.17 s", "± 10 %", True)])]),
...     report.Section("Figures", [report.Plot(fig, "Figure 4 of the paper")]),
... ], "out/lte-switch.html")

`build(folder)` makes the sections of a run or sweep folder; `write_report` writes both files
(this is `tern report`).
"""

from __future__ import annotations

import os
from pathlib import Path

from tern import plots
from tern.report_items import Check, CheckTable, Code, Paragraph, Plot, Section, Table
from tern.report_render import SVG_LIMIT_BYTES, write_html, write_markdown
from tern.report_sections import run_sections, sweep_sections
from tern.runner import load_run

__all__ = [
    "SVG_LIMIT_BYTES",
    "Check",
    "CheckTable",
    "Code",
    "Paragraph",
    "Plot",
    "Section",
    "Table",
    "build",
    "run_sections",
    "sweep_sections",
    "write_html",
    "write_markdown",
    "write_report",
]


def build(folder: str | os.PathLike[str], *, bin: float | None = None) -> tuple[str, list[Section]]:
    """The title and sections of the report of a run or sweep folder."""
    root = Path(folder)
    if plots.folder_kind(root) == "run":
        from tern.store import check_params, read_json

        params_file = root / "params.json"
        params = (
            check_params(read_json(params_file, "the run's parameters"), params_file)["params"]
            if params_file.is_file()
            else {}
        )
        title = f"Tern run: {root.resolve().name}"
        return title, run_sections(load_run(root), params=params, bin=bin)
    return f"Tern sweep: {root.resolve().name}", sweep_sections(root)


def write_report(
    folder: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    markdown: bool = True,
    bin: float | None = None,
) -> list[Path]:
    """Writes the report of a run or sweep folder: `out` (default FOLDER/report.html) and,
    with `markdown`, the same as .md beside it with its PNG figures; returns the paths."""
    root = Path(folder)
    title, sections = build(root, bin=bin)
    html_out = Path(out) if out is not None else root / "report.html"
    write_html(title, sections, html_out)
    written = [html_out]
    if markdown:
        md_out = html_out.with_suffix(".md")
        write_markdown(title, sections, md_out)
        written.append(md_out)
    for section in sections:
        for item in section.items:
            if isinstance(item, Plot):
                item.figure.clear()
    return written
