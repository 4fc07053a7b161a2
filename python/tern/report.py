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

import base64
import html
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
from matplotlib.figure import Figure

from tern import plots, plots_sweep
from tern.runner import Run, data_path, load_run

__all__ = [
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

# --------------------------------------------------------------------------- content


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


def _item(item: Any) -> Item:
    if isinstance(item, str):
        return Paragraph(item)
    if isinstance(item, Figure):
        return Plot(item)
    if isinstance(item, pl.DataFrame):
        return Table.from_frame(item)
    if isinstance(item, Paragraph | Code | Table | Plot | CheckTable):
        return item
    raise TypeError(f"a report item cannot be a {type(item).__name__}")


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:  # NaN
            return "—"
        return f"{value:.6g}"
    return str(value)


def _verdict(passed: bool | None) -> tuple[str, str]:
    return {True: ("pass", "pass"), False: ("fail", "fail"), None: ("na", "n/a")}[passed]


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "figure"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    taken.add(slug)
    return slug


def _check_summary(checks: Sequence[Check]) -> str:
    made = [c for c in checks if c.passed is not None]
    passed = sum(1 for c in made if c.passed)
    text = f"{passed} of {len(made)} checks pass"
    if len(made) < len(checks):
        text += f" ({len(checks) - len(made)} not made)"
    return text


# --------------------------------------------------------------------------- HTML

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
    return f"<td{cls}>{html.escape(_fmt(value))}</td>"


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
            cls, text = _verdict(c.passed)
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
        summary = item.summary or _check_summary(item.checks)
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
    ids = [_slug(s.title, taken) for s in sections]
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
            item = _item(raw)
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
            item = _item(raw)
            if isinstance(item, Paragraph):
                parts.append(_md_text(item.text.strip()))
            elif isinstance(item, Code):
                if item.caption:
                    parts += [f"*{_md_escape(item.caption)}*", ""]
                parts += _md_code(item.text, re.sub(r"[^\w+-]", "", item.language))
            elif isinstance(item, Table):
                rows = ([_fmt(v) for v in row] for row in item.rows)
                parts.append(_md_table([str(c) for c in item.columns], rows, item.caption))
            elif isinstance(item, CheckTable):
                rows = (
                    [
                        c.claim,
                        _fmt(c.published),
                        _fmt(c.tern),
                        c.tolerance,
                        c.verdict or _verdict(c.passed)[1],
                        c.note,
                    ]
                    for c in item.checks
                )
                summary = item.summary or _check_summary(item.checks)
                caption = " — ".join(x for x in (item.caption, summary) if x)
                columns = ["claim", "published", "Tern", "tolerance", "result", "note"]
                parts.append(_md_table(columns, rows, caption))
            elif isinstance(item, Plot):
                name = _slug(item.name or item.caption or section.title, taken)
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


# --------------------------------------------------------------------------- runs and sweeps


def _mbps(bps: float | None) -> str:
    return "—" if bps is None else f"{bps / 1e6:.3f}"


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:.1f}"


def run_sections(
    run: Run, *, params: dict[str, Any] | None = None, bin: float | None = None
) -> list[Section]:
    """Overview, flow and link tables, every time series the run has, and its scenario;
    `params` (a sweep run's grid values) go in the overview."""
    s = run.summary
    overview = [
        ("Tern version", s.get("tern_version")),
        ("seed", s.get("seed")),
        ("simulated time (s)", s.get("duration_s")),
        ("events", s.get("events")),
        ("packets", s.get("packets")),
        ("traces", ", ".join(run.tables) or "none"),
        ("capture files", ", ".join(run.captures) or "none"),
    ]
    overview += [(k, v) for k, v in (params or {}).items()]
    flows = []
    for name, f in s.get("flows", {}).items():
        d = f.get("delay_s") or f.get("rtt_s") or {}
        tcp = f.get("tcp") or {}
        retx = (
            sum(tcp.get(k, 0) for k in ("retransmits_fast", "retransmits_rto", "retransmits_sack"))
            if tcp
            else None
        )
        flows.append(
            [
                name,
                f"{f.get('app')}/{f.get('transport')}",
                data_path(f),
                f.get("bytes_sent"),
                f.get("bytes_delivered"),
                _mbps(f.get("goodput_bps")),
                f"{100 * f['loss_rate']:.2f}" if f.get("loss_rate") is not None else "—",
                ("rtt" if "rtt_s" in f else "delay") if d else "—",
                _ms(d.get("p50")),
                _ms(d.get("p99")),
                retx,
                tcp.get("rto_expiries") if tcp else None,
            ]
        )
    links = []
    for name, dirs in s.get("links", {}).items():
        for direction, c in dirs.items():
            dr = c.get("drops", {})
            links.append(
                [
                    name,
                    direction,
                    f"{c.get('from')} → {c.get('to')}",
                    c.get("tx_packets"),
                    f"{dr.get('queue')}/{dr.get('aqm')}/{dr.get('loss')}",
                    f"{c.get('queue_mean_packets', 0):.2f}",
                    c.get("queue_max_packets"),
                    f"{100 * c.get('utilization', 0):.1f}",
                ]
            )
    kinds = plots.available(run)
    figures: list[Any] = [
        Plot(plots.timeseries(run, k, bin=bin), f"{k}: {plots.KINDS[k].description}", k)
        for k in kinds
    ]
    if not figures and not (run.tables or run.captures):
        figures = [Paragraph("This run recorded no traces (record = [...] in the scenario).")]
    elif not figures:
        recorded = ", ".join([*run.tables, *run.captures])
        figures = [Paragraph(f"No time series to draw from what this run recorded ({recorded}).")]
    if run.captures:
        figures.append(
            Paragraph(
                "Capture files in the run folder: packet captures (.pcap) open in Wireshark, "
                "QUIC qlog files (.sqlog) in qvis."
            )
        )
    quic = _quic_rows(s)
    transport = [Section("QUIC", [Table(QUIC_COLUMNS, quic)])] if quic else []
    return [
        Section("Overview", [Table(["", "value"], overview)]),
        Section(
            "Flows",
            [
                Table(
                    [
                        "flow",
                        "app/transport",
                        "data path",
                        "bytes sent",
                        "bytes delivered",
                        "goodput (Mbit/s)",
                        "loss (%)",
                        "delay or rtt",
                        "p50 (ms)",
                        "p99 (ms)",
                        "TCP retransmits",
                        "RTO expiries",
                    ],
                    flows,
                )
            ],
        ),
        Section(
            "Links",
            [
                Table(
                    [
                        "link",
                        "direction",
                        "path",
                        "packets sent",
                        "drops queue/aqm/loss",
                        "queue mean (pkt)",
                        "queue max (pkt)",
                        "utilisation (%)",
                    ],
                    links,
                )
            ],
        ),
        *transport,
        Section("Time series", figures),
        Section(
            "Scenario",
            [
                Code(
                    run.scenario,
                    "toml",
                    "The resolved scenario (defaults filled in, seed and Tern version): "
                    "`tern run` on this file repeats the run.",
                )
            ],
        ),
    ]


QUIC_COLUMNS = [
    "flow",
    "handshake (ms)",
    "first byte (ms)",
    "transfer (s)",
    "packets sent",
    "packets lost",
    "congestion events",
    "final cwnd (B)",
    "MTU (B)",
    "SRTT (ms)",
    "closed",
]


def _quic_rows(summary: dict[str, Any]) -> list[list[Any]]:
    """The summary's `quic` section of each QUIC flow (see `QuicSummary`)."""
    rows = []
    for name, f in summary.get("flows", {}).items():
        q = f.get("quic")
        if not isinstance(q, dict):
            continue
        closed = q.get("connection_closed") or {}
        rows.append(
            [
                name,
                _ms(q.get("handshake_time_s")),
                _ms(q.get("first_byte_time_s")),
                _fmt(q.get("transfer_time_s")) if q.get("transfer_time_s") is not None else "—",
                q.get("packets_sent"),
                q.get("packets_lost"),
                q.get("congestion_events"),
                q.get("final_cwnd"),
                q.get("final_mtu"),
                _ms(q.get("final_srtt_s")),
                f"{closed.get('endpoint')} at {closed.get('at_s')} s: {closed.get('reason')}"
                if closed
                else "open at the end",
            ]
        )
    return rows


#: Summary metrics a sweep report shows, when the runs have them.
SWEEP_METRICS = (
    "goodput_bps",
    "delay_s_p50",
    "delay_s_p99",
    "rtt_s_p50",
    "loss_rate",
    "tcp_retransmits_rto",
    "tcp_rto_expiries",
    "tcp_completion_time_s",
    "tcp_transfer_time_s",
)


def _mean_ci(mean: float, half: float | None) -> str:
    """ "mean ± half", the half-width to two significant digits and the mean to match."""
    if half is None:
        return _fmt(mean)
    if not half > 1e-9 * abs(mean):
        return f"{mean:.6g} ± 0"
    decimals = min(12, max(0, 1 - math.floor(math.log10(half))))
    return f"{mean:.{decimals}f} ± {half:.{decimals}f}"


def _sweep_metrics(frame: pl.DataFrame) -> list[str]:
    keep = []
    for m in SWEEP_METRICS:
        if m not in frame.columns or not frame.schema[m].is_numeric():
            continue
        values = frame[m].drop_nulls()
        if values.len() and (m == "goodput_bps" or values.abs().max() > 0):
            keep.append(m)
    return keep


def sweep_sections(folder: str | os.PathLike[str]) -> list[Section]:
    """Overview, mean ± 95 % CI of the main metrics per grid point, plots of each metric
    against each swept parameter, failed runs, and the scenario of one run."""
    from tern.store import ResultsError, open_results, read_json, sweep_meta

    root = Path(folder)
    meta = sweep_meta(root)
    frame = open_results(root).pl()
    failed = sorted((root / "failed").glob("*.json")) if (root / "failed").is_dir() else []
    grid = plots_sweep._load_sweep(frame).grid if not frame.is_empty() else []
    overview: list[tuple[str, Any]] = [
        ("scenario", meta.get("scenario", "?")),
        ("seeds", meta.get("seeds", "?")),
        ("runs finished", frame["key"].n_unique() if "key" in frame.columns else 0),
        ("runs failed", len(failed)),
    ]
    overview += [(f"grid: {k}", ", ".join(v)) for k, v in meta.get("grid", {}).items()]
    overview += [(f"linked: {k}", ", ".join(v)) for k, v in meta.get("linked", {}).items()]
    overview += [(f"set: {k}", v) for k, v in meta.get("set", {}).items()]
    sections = [Section("Overview", [Table(["", "value"], overview)])]
    if frame.is_empty():
        sections.append(Section("Results", [Paragraph("No finished runs yet.")]))
        return sections
    metrics = _sweep_metrics(frame)
    x = grid[-1] if grid else "flow"
    hue = [g for g in grid if g != x] + (["flow"] if x != "flow" else [])
    merged: pl.DataFrame | None = None
    for m in metrics:
        stats = plots.sweep_stats(frame, x, m, hue)
        scale, unit = plots.metric_unit(m)
        text = [
            _mean_ci(mean * scale, None if low is None else (high - low) / 2 * scale)
            for mean, low, high in stats.select("mean", "ci_low", "ci_high").iter_rows()
        ]
        keys = [*hue, x] if merged is not None else [*hue, x, "n"]
        col = stats.select(keys).with_columns(pl.Series(f"{m} ({unit})" if unit else m, text))
        merged = col if merged is None else merged.join(col, on=[*hue, x], how="left")
    results: list[Any] = [
        Paragraph(
            "Mean over seeds ± half-width of the two-sided 95 % confidence interval "
            "(Student t); n is the number of seeds with a value."
        )
    ]
    if merged is not None:
        ordered = [*grid, *([] if x == "flow" else ["flow"])]
        ordered = ordered + [c for c in merged.columns if c not in ordered]
        results.append(Table.from_frame(merged.select(ordered)))
    sections.append(Section("Results", results))
    figures: list[Any] = []
    varying = [g for g in grid if frame[g].n_unique() > 1]
    for m in metrics:
        for g in varying:
            # From the folder, as `tern plot` draws it: the sweep's order, so its colours.
            figures.append(Plot(plots.sweep(root, g, m), f"{m} against {g}", f"{m}-vs-{g}"))
    if not figures:
        figures = [Paragraph("No grid parameter takes more than one value: nothing to plot.")]
    sections.append(Section("Plots", figures))
    if failed:
        rows = []
        for f in failed:
            info = read_json(f, "a failed run's record")
            given = info.get("params", {})
            params = (
                ", ".join(f"{k}={v}" for k, v in given.items()) if isinstance(given, dict) else ""
            )
            rows.append([f.stem, params, info.get("seed"), info.get("error", "")])
        sections.append(
            Section("Failed runs", [Table(["key", "parameters", "seed", "error"], rows)])
        )
    first = frame.row(0, named=True)
    run_dir = root / "runs" / str(first["key"])
    scenario_file = run_dir / "scenario.toml"
    try:
        scenario = scenario_file.read_text(encoding="utf-8") if run_dir.is_dir() else ""
    except UnicodeDecodeError as e:
        raise ResultsError(f"{scenario_file}: not UTF-8 text ({e})") from None
    where = ", ".join(f"{g}={first[g]}" for g in grid)
    sections.append(
        Section(
            "Scenario",
            [
                Code(
                    scenario,
                    "toml",
                    f"The resolved scenario of run {first['key']} (seed {first['seed']}"
                    + (f", {where}" if where else "")
                    + "); the other runs differ in the grid values and the seed.",
                )
            ],
        )
    )
    return sections


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
