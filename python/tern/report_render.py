"""A report's two forms: one self-contained HTML file (figures inline) and Markdown with its
figures as PNG files beside it."""

from __future__ import annotations

import base64
import html
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from tern import plots
from tern.report_items import (
    CheckTable,
    Code,
    Item,
    Paragraph,
    Plot,
    Section,
    Table,
    as_item,
    check_summary,
    format_value,
    slug,
    verdict_words,
)

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1f24;
       margin: 0; background: #fafafa; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5em 2em 3em; background: #fff; }
h1 { font-size: 1.6em; margin-bottom: .2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
.meta { color: #666; margin-top: 0; }
nav ol { columns: 2; color: #444; }
table { border-collapse: collapse; margin: 1em 0; font-size: .92em; }
caption { text-align: left; font-weight: 600; padding-bottom: .3em; }
th, td { border: 1px solid #d8dde3; padding: .25em .6em; vertical-align: top; }
th { background: #f0f3f6; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.pass { background: #dcf5e3; color: #11632b; font-weight: 600; }
td.fail { background: #fbe0e0; color: #9b1c1c; font-weight: 600; }
td.na { background: #eee; color: #555; }
figure { margin: 1.2em 0; }
figure svg, figure img { width: 100%; max-width: 880px; height: auto; display: block; }
figcaption { color: #444; font-size: .92em; margin-top: .3em; }
pre { background: #f5f7f9; border: 1px solid #e1e4e8; padding: .8em; overflow-x: auto;
      font-size: .85em; line-height: 1.35; }
"""

#: Figures whose SVG is larger than this are embedded as PNG instead (long traces).
SVG_LIMIT_BYTES = 1_500_000


def _inline_svg(svg: str, prefix: str) -> str:
    """An SVG document as an element to put in HTML, its ids prefixed so that figures on one
    page do not share any."""
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}\1"', svg)
    svg = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}\1)", svg)
    return re.sub(r'href="#([^"]+)"', rf'href="#{prefix}\1"', svg)


def _html_table(columns: Sequence[str], rows: Iterable[Sequence[str]], caption: str) -> str:
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr>")
    out.append("</thead><tbody>")
    for row in rows:
        out.append("<tr>" + "".join(row) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _cell(value: Any) -> str:
    cls = ' class="num"' if isinstance(value, int | float) and not isinstance(value, bool) else ""
    return f"<td{cls}>{html.escape(format_value(value))}</td>"


def _html_item(item: Item, n: int, figures: str) -> str:
    if isinstance(item, Paragraph):
        return "\n".join(
            f"<p>{html.escape(p.strip())}</p>" for p in item.text.split("\n\n") if p.strip()
        )
    if isinstance(item, Code):
        lang = f' class="language-{html.escape(item.language)}"' if item.language else ""
        cap = f"<figcaption>{html.escape(item.caption)}</figcaption>" if item.caption else ""
        return f"<figure><pre><code{lang}>{html.escape(item.text)}</code></pre>{cap}</figure>"
    if isinstance(item, Table):
        rows = ([_cell(v) for v in row] for row in item.rows)
        return _html_table([str(c) for c in item.columns], rows, item.caption)
    if isinstance(item, CheckTable):
        rows = []
        for c in item.checks:
            cls, text = verdict_words(c.passed)
            text = html.escape(c.verdict) if c.verdict else text
            rows.append(
                [
                    f"<td>{html.escape(c.claim)}</td>",
                    _cell(c.published),
                    _cell(c.tern),
                    f"<td>{html.escape(c.tolerance)}</td>",
                    f'<td class="{cls}">{text}</td>',
                    f"<td>{html.escape(c.note)}</td>",
                ]
            )
        summary = item.summary or check_summary(item.checks)
        caption = " — ".join(x for x in (item.caption, summary) if x)
        columns = ["claim", "published", "Tern", "tolerance", "result", "note"]
        return _html_table(columns, rows, caption)
    if isinstance(item, Plot):
        body = ""
        if figures in ("svg", "auto"):
            svg = plots.figure_bytes(item.figure, "svg")
            if figures == "svg" or len(svg) <= SVG_LIMIT_BYTES:
                body = _inline_svg(svg.decode("utf-8"), f"f{n}-")
        if not body:
            data = base64.b64encode(plots.figure_bytes(item.figure, "png")).decode("ascii")
            alt = html.escape(item.caption or f"figure {n + 1}", quote=True)
            body = f'<img src="data:image/png;base64,{data}" alt="{alt}">'
        cap = f"<figcaption>{html.escape(item.caption)}</figcaption>" if item.caption else ""
        return f'<figure id="figure-{n + 1}">{body}{cap}</figure>'
    raise TypeError(f"a report item cannot be a {type(item).__name__}")


def write_html(
    title: str,
    sections: Sequence[Section],
    out: str | os.PathLike[str] | None = None,
    *,
    intro: str = "",
    figures: str = "auto",
) -> str:
    """The report as one self-contained HTML page; written to `out` too when given.

    `figures`: "svg" (inline SVG), "png" (base64 PNG) or "auto" (SVG unless larger than
    `SVG_LIMIT_BYTES`, as a figure of a long trace can be).
    """
    if figures not in ("svg", "png", "auto"):
        raise ValueError(f'figures must be "svg", "png" or "auto", got {figures!r}')
    from tern import __version__

    taken: set[str] = set()
    ids = [slug(s.title, taken) for s in sections]
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body><main>",
        f"<h1>{html.escape(title)}</h1>",
        f'<p class="meta">Made by Tern {html.escape(__version__)}.</p>',
    ]
    if intro:
        parts.append(_html_item(Paragraph(intro), 0, figures))
    if len(sections) > 1:
        links = "".join(
            f'<li><a href="#{i}">{html.escape(s.title)}</a></li>'
            for i, s in zip(ids, sections, strict=True)
        )
        parts.append(f"<nav><ol>{links}</ol></nav>")
    n = 0
    for sid, section in zip(ids, sections, strict=True):
        parts.append(f'<section id="{sid}"><h2>{html.escape(section.title)}</h2>')
        for raw in section.items:
            item = as_item(raw)
            parts.append(_html_item(item, n, figures))
            n += isinstance(item, Plot)
        parts.append("</section>")
    parts.append("</main></body></html>\n")
    text = "\n".join(parts)
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    return text


# --------------------------------------------------------------------------- Markdown


#: What Markdown would read as HTML (`<`, `&`), a link or image (`[`, `]`), code or emphasis,
#: or a table's cell border: escaped with a backslash, so text shows as it is.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|])")


def _md_text(text: str) -> str:
    """Text as Markdown that shows it literally (never as HTML, a link or formatting)."""
    text = _MD_SPECIAL.sub(r"\\\1", text)
    # What would start a heading or a list at the start of a line.
    text = re.sub(r"^(\s*)([#+-])", r"\1\\\2", text, flags=re.MULTILINE)
    return re.sub(r"^(\s*\d+)([.)])", r"\1\\\2", text, flags=re.MULTILINE)


def _md_escape(text: str) -> str:
    """Text for one table cell or a caption: literal, on one line. Only inline marks are
    escaped: a line there starts no heading or list, so `9.572` and `-3` stay as they are."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


def _md_code(text: str, language: str) -> list[str]:
    """A fenced code block that `text` cannot close: its fence is longer than any run of
    backticks in it."""
    fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", text)), default=0))
    return [f"{fence}{language}", text.rstrip("\n"), fence]


def _md_table(columns: Sequence[str], rows: Iterable[Sequence[str]], caption: str) -> str:
    lines = [f"**{_md_escape(caption)}**", ""] if caption else []
    lines.append("| " + " | ".join(_md_escape(str(c)) for c in columns) + " |")
    lines.append("|" + "|".join("---" for _ in columns) + "|")
    lines += ["| " + " | ".join(_md_escape(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def write_markdown(
    title: str,
    sections: Sequence[Section],
    out: str | os.PathLike[str],
    *,
    intro: str = "",
) -> str:
    """The same report as Markdown in `out`, figures as PNG files in `<out stem>-figures/`
    beside it, linked relatively; returns the Markdown."""
    out = Path(out)
    fig_dir = out.parent / f"{out.stem}-figures"
    taken: set[str] = set()
    parts = [f"# {_md_escape(title)}", ""]
    if intro:
        parts += [_md_text(intro), ""]
    for section in sections:
        parts += [f"## {_md_escape(section.title)}", ""]
        for raw in section.items:
            item = as_item(raw)
            if isinstance(item, Paragraph):
                parts.append(_md_text(item.text.strip()))
            elif isinstance(item, Code):
                if item.caption:
                    parts += [f"*{_md_escape(item.caption)}*", ""]
                parts += _md_code(item.text, re.sub(r"[^\w+-]", "", item.language))
            elif isinstance(item, Table):
                rows = ([format_value(v) for v in row] for row in item.rows)
                parts.append(_md_table([str(c) for c in item.columns], rows, item.caption))
            elif isinstance(item, CheckTable):
                rows = (
                    [
                        c.claim,
                        format_value(c.published),
                        format_value(c.tern),
                        c.tolerance,
                        c.verdict or verdict_words(c.passed)[1],
                        c.note,
                    ]
                    for c in item.checks
                )
                summary = item.summary or check_summary(item.checks)
                caption = " — ".join(x for x in (item.caption, summary) if x)
                columns = ["claim", "published", "Tern", "tolerance", "result", "note"]
                parts.append(_md_table(columns, rows, caption))
            elif isinstance(item, Plot):
                name = slug(item.name or item.caption or section.title, taken)
                fig_dir.mkdir(parents=True, exist_ok=True)
                (fig_dir / f"{name}.png").write_bytes(plots.figure_bytes(item.figure, "png"))
                alt = _md_escape(item.caption or name)
                parts.append(f"![{alt}]({fig_dir.name}/{name}.png)")
                if item.caption:
                    parts += ["", f"*{_md_escape(item.caption)}*"]
            parts.append("")
    text = "\n".join(parts).rstrip("\n") + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return text
