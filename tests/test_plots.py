"""`tern plot` and `tern report`: time series of a run, sweep plots with confidence intervals,
and self-contained HTML reports, checked as files and as a browser renders them."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image
import numpy as np
import polars as pl
import pytest

import tern
from conftest import EXAMPLES, P2P, chromium, headless, tern_cli
from tern import plots, report

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"

# What each example run has data for, from the traces it records: p2p-bulk is one TCP flow
# (no per-message deliveries, no ping), p2p-udp has CBR and periodic messages and a ping.
BULK_KINDS = ["cwnd", "inflight", "rtt", "rto", "queue", "retransmits"]
UDP_KINDS = ["rtt", "queue", "delay", "throughput", "drops"]

# The trace and the columns whose distinct values are the lines of each kind.
SERIES_KEYS = {
    "cwnd": ("cwnd", ["flow", "endpoint"]),
    "inflight": ("cwnd", ["flow", "endpoint"]),
    "rto": ("rto", ["flow", "endpoint"]),
    "queue": ("queue", ["link", "direction"]),
    "delay": ("delay", ["flow"]),
    "throughput": ("delay", ["flow"]),
    "drops": ("drops", ["link", "direction", "reason"]),
    "retransmits": ("retransmits", ["flow", "endpoint", "kind"]),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[tern.Run, Path]]:
    root = tmp_path_factory.mktemp("runs")
    bulk = tern.run(
        EXAMPLES / "p2p-bulk.toml",
        set={"sim.duration": "3s", "record": '["cwnd", "rtt", "queue", "rto", "retransmits"]'},
    )
    udp = tern.run(EXAMPLES / "p2p-udp.toml", set={"sim.duration": "3s"})
    return {"bulk": (bulk, bulk.save(root / "bulk")), "udp": (udp, udp.save(root / "udp"))}


def _expected_lines(folder: Path, kind: str) -> int:
    """The number of lines a plot must have, counted from the Parquet files."""
    if kind == "rtt":
        n = 0
        if (folder / "rtt.parquet").is_file():
            n += pl.read_parquet(folder / "rtt.parquet")["flow"].n_unique()
        if (folder / "rto.parquet").is_file():
            n += pl.read_parquet(folder / "rto.parquet").select("flow", "endpoint").n_unique()
        return n
    trace, keys = SERIES_KEYS[kind]
    return pl.read_parquet(folder / f"{trace}.parquet").select(keys).n_unique()


def _check_png(path: Path) -> np.ndarray:
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    image = matplotlib.image.imread(path)
    assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
    assert _colours(image) > 10, "blank image"
    return image


def _colours(image: np.ndarray) -> int:
    """The number of distinct colours of an image read by matplotlib (floats in 0..1)."""
    channels = np.round(image[..., :3] * 255).astype(np.uint32)
    packed = (channels[..., 0] << 16) | (channels[..., 1] << 8) | channels[..., 2]
    return len(np.unique(packed))


def _svg_groups(path: Path, prefix: str) -> list[ET.Element]:
    """The groups of one series each (matplotlib writes an artist's gid as the group id)."""
    tree = ET.parse(path)  # raises if the SVG is not well-formed XML
    assert tree.getroot().tag == f"{SVG}svg"
    return [g for g in tree.iter(f"{SVG}g") if g.get("id", "").startswith(prefix)]


def test_saved_runs_load_back_whole(runs):
    for original, folder in runs.values():
        loaded = tern.load_run(folder)
        assert loaded.summary == original.summary
        assert loaded.scenario == original.scenario
        assert loaded.tables == original.tables
        assert loaded.captures == original.captures
        for name in original.tables:
            assert loaded.series(name).equals(original.series(name))
    with pytest.raises(FileNotFoundError, match="not a run folder"):
        tern.load_run(runs["bulk"][1].parent)


def test_available_kinds_follow_the_recorded_traces(runs):
    assert plots.available(runs["bulk"][1]) == BULK_KINDS
    assert plots.available(runs["udp"][0]) == UDP_KINDS


@pytest.mark.parametrize(
    ("name", "kind"), [("bulk", k) for k in BULK_KINDS] + [("udp", k) for k in UDP_KINDS]
)
def test_every_time_series_kind_as_png_and_svg(runs, tmp_path, name, kind):
    folder = runs[name][1]
    fig = plots.timeseries(tern.load_run(folder), kind)
    _check_png(plots.save(fig, tmp_path / f"{kind}.png"))
    svg = plots.save(fig, tmp_path / f"{kind}.svg")
    groups = _svg_groups(svg, f"tern-{kind}-")
    expected = _expected_lines(folder, kind)
    assert expected >= 1
    assert len(groups) == expected
    assert all(g.find(f".//{SVG}path") is not None for g in groups), "a series without a path"
    ax = fig.axes[0]
    assert ax.get_xlabel() == "time (s)"
    assert re.search(r"\S \(.+\)$", ax.get_ylabel())  # a unit
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == expected and len(set(labels)) == expected  # one label per line
    # The same figure gives the same bytes (no dates, fixed ids).
    assert plots.save(fig, tmp_path / "again.svg").read_bytes() == svg.read_bytes()


def test_throughput_bins_hold_exactly_the_delivered_bytes(runs):
    # By hand: 0.25 s in 0.1 s bins, the last one 0.05 s wide.
    edges, rate = plots.throughput_bins(
        np.array([0.05, 0.15, 0.15, 0.25]), np.array([1000, 1000, 1000, 500]), 0.25, 0.1
    )
    assert np.allclose(edges, [0, 0.1, 0.2, 0.25])
    assert np.allclose(rate, [80_000, 160_000, 80_000])  # bit/s
    # On a run: each flow's line integrates to the bytes its summary says were delivered.
    run = runs["udp"][0]
    panel = plots.timeseries_data(run, "throughput", bin=0.25)
    assert {line.label for line in panel.lines} == {"video", "messages"}
    for line in panel.lines:
        bits = np.sum(line.y[:-1] * 1e6 * np.diff(line.x))
        assert bits / 8 == pytest.approx(run.summary["flows"][line.label]["bytes_delivered"])
    assert panel.notes == ["not shown (no per-message deliveries nor TCP segments recorded): ping"]


def test_unknown_series_and_missing_traces_say_what_there_is(runs):
    bulk = runs["bulk"][1]
    with pytest.raises(plots.PlotError, match="unknown series 'cwdn'; this run has: cwnd, "):
        plots.timeseries(bulk, "cwdn")
    with pytest.raises(plots.PlotError, match='delay needs the trace "delay"'):
        plots.timeseries(bulk, "delay")
    res = tern_cli("plot", str(bulk), "--what", "cwdn")
    assert res.returncode == 2, res.stderr
    assert "this run has: cwnd, inflight, rtt, rto, queue, retransmits" in " ".join(
        res.stderr.split()
    )
    assert "Traceback" not in res.stderr
    res = tern_cli("plot", str(bulk.parent))
    assert res.returncode == 2
    assert "not a run folder (no summary.json inside" in " ".join(res.stderr.split())
    res = tern_cli("report", str(bulk.parent / "nothing-here"))
    assert res.returncode == 2 and "no such folder" in res.stderr
    assert "Traceback" not in res.stderr


def test_cli_plots_every_kind_of_a_run_or_one_to_a_file(runs, tmp_path):
    folder = runs["udp"][1]
    res = tern_cli("plot", str(folder), "--format", "svg", "--out", str(tmp_path / "all"))
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == sorted(
        f"{k}.svg" for k in UDP_KINDS
    )
    out = tmp_path / "one.png"
    res = tern_cli("plot", str(folder), "--what", "throughput", "--bin", "0.5", "--out", str(out))
    assert res.returncode == 0, res.stderr
    _check_png(out)
    res = tern_cli("plot", str(folder), "--out", str(tmp_path / "x.png"))
    assert res.returncode == 2 and "names one file but 5 plots" in " ".join(res.stderr.split())


# Two-sided 95 % quantiles of Student's t, computed here from the density alone.
def _t_cdf(t: float, df: int) -> float:
    u = np.linspace(0.0, t, 40_001)
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    density = np.exp(log_c - (df + 1) / 2 * np.log1p(u * u / df))
    h = u[1] - u[0]
    simpson = (
        h / 3 * (density[0] + density[-1] + 4 * density[1:-1:2].sum() + 2 * density[2:-1:2].sum())
    )
    return 0.5 + simpson


def _t_quantile(p: float, df: int) -> float:
    lo, hi = 0.0, 20.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("df", [*range(1, 31), 31, 40, 60, 120, 1000])
def test_t_quantiles_match_the_t_distribution(df):
    # Table values are rounded to 4 decimals; beyond df 30 the series is within 1e-5.
    assert plots.t_quantile_975(df) == pytest.approx(_t_quantile(0.975, df), abs=6e-5)


@pytest.fixture(scope="module")
def tiny_sweep(tmp_path_factory) -> tuple[Path, pl.DataFrame]:
    folder = tmp_path_factory.mktemp("sweep") / "s"
    grid = {"links.access.rate": ["5Mbps", "10Mbps"], "links.access.loss.p": ["0.01", "0.05"]}
    frame = tern.sweep(P2P, grid, seeds=3, out=folder, jobs=2, set={"sim.duration": "1s"})
    return folder, frame


def test_sweep_statistics_are_mean_and_student_t_interval_over_seeds(tiny_sweep):
    folder, frame = tiny_sweep
    stats = plots.sweep_stats(folder, "links.access.loss.p", "goodput_bps")
    # One row per grid point, in sweep order; the hue is the other grid parameter.
    assert stats.columns == [
        "links.access.rate", "links.access.loss.p", "n", "mean", "sd", "ci_low", "ci_high"
    ]  # fmt: skip
    assert stats.select("links.access.rate", "links.access.loss.p").rows() == [
        ("5Mbps", "0.01"), ("5Mbps", "0.05"), ("10Mbps", "0.01"), ("10Mbps", "0.05")
    ]  # fmt: skip
    t2 = 0.95 / math.sqrt(2 * 0.975 * 0.025)  # t(0.975; 2) in closed form: 4.30265...
    for row in stats.iter_rows(named=True):
        values = frame.filter(
            (pl.col("links.access.rate") == row["links.access.rate"])
            & (pl.col("links.access.loss.p") == row["links.access.loss.p"])
        )["goodput_bps"].to_numpy()
        assert row["n"] == len(values) == 3
        assert row["mean"] == pytest.approx(values.mean())
        half = t2 * values.std(ddof=1) / math.sqrt(3)
        assert half > 0  # Bernoulli loss differs by seed
        assert row["ci_high"] - row["mean"] == pytest.approx(half, rel=1e-4)
        assert row["mean"] - row["ci_low"] == pytest.approx(half, rel=1e-4)


def test_sweep_plot_has_one_line_and_interval_per_other_grid_value(tiny_sweep, tmp_path):
    folder, frame = tiny_sweep
    for source in (folder, frame):  # the folder, or the frame tern.sweep returned
        fig = plots.sweep(source, x="links.access.loss.p", y="goodput_bps")
        ax = fig.axes[0]
        assert ax.get_xlabel() == "links.access.loss.p"
        assert ax.get_ylabel() == "goodput (Mbit/s)"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["5Mbps", "10Mbps"]
        stats = plots.sweep_stats(source, "links.access.loss.p", "goodput_bps")
        means = [x for x in ax.get_lines() if str(x.get_gid()).startswith("tern-sweep-")]
        for line, rate in zip(means, ["5Mbps", "10Mbps"], strict=True):
            mine = stats.filter(pl.col("links.access.rate") == rate)
            assert list(line.get_xdata()) == [0.01, 0.05]  # numbers on a numeric axis
            assert np.allclose(line.get_ydata(), mine["mean"].to_numpy() / 1e6)
    svg = plots.save(fig, tmp_path / "s.svg")
    assert len(_svg_groups(svg, "tern-sweep-")) == 2
    assert len(_svg_groups(svg, "tern-ci-")) == 2
    # Units on the axis: "5Mbps", "10Mbps" are numbers in Mbps.
    fig = plots.sweep(folder, x="links.access.rate", y="delay_s_p50")
    assert fig.axes[0].get_xlabel() == "links.access.rate (Mbps)"
    assert fig.axes[0].get_ylabel() == "delay p50 (ms)"
    with pytest.raises(
        plots.PlotError, match=r"no metric 'goodput' in this sweep; metrics: .*goodput_bps"
    ):
        plots.sweep(folder, x="links.access.rate", y="goodput")
    with pytest.raises(plots.PlotError, match=r"links\.access\.loss\.p also varies"):
        plots.sweep(folder, x="links.access.rate", y="goodput_bps", hue="flow")


def test_cli_plots_a_sweep_and_one_of_its_runs(tiny_sweep, tmp_path):
    folder, _ = tiny_sweep
    out = tmp_path / "g.svg"
    res = tern_cli(
        "plot", str(folder), "--x", "links.access.rate", "--y", "goodput_bps",
        "--where", "links.access.loss.p=0.05", "--out", str(out),
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert len(_svg_groups(out, "tern-sweep-")) == 1
    res = tern_cli("plot", str(folder), "--format", "png")  # defaults: first parameter, goodput
    assert res.returncode == 0, res.stderr
    _check_png(folder / "plots" / "goodput_bps-vs-links.access.rate.png")
    one_run = next((folder / "runs").iterdir())
    res = tern_cli("plot", str(one_run), "--what", "delay", "--out", str(tmp_path / "d.png"))
    assert res.returncode == 0, res.stderr
    res = tern_cli("plot", str(folder), "--what", "cwnd")
    assert res.returncode == 2 and "is a sweep" in res.stderr


class _Elements(HTMLParser):
    """Counts start tags and collects the attributes that could load anything from outside."""

    def __init__(self):
        super().__init__()
        self.count: dict[str, int] = {}
        self.external: list[str] = []
        self.img_src: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith(("#", "data:")):
                self.external.append(f"{tag} {name}={value[:60]}")
        if tag == "img":
            self.img_src.append(dict(attrs)["src"])


def _elements(text: str) -> _Elements:
    parser = _Elements()
    parser.feed(text)
    return parser


def test_run_report_is_one_self_contained_file_and_markdown_beside_it(runs, tmp_path):
    folder = runs["bulk"][1]
    out = tmp_path / "bulk.html"
    res = tern_cli("report", str(folder), "--out", str(out))
    assert res.returncode == 0, res.stderr
    page = out.read_text()
    found = _elements(page)
    assert found.external == []
    assert found.count["svg"] == len(BULK_KINDS)  # one inline figure per time series
    assert found.count["table"] == 3  # overview, flows, links
    assert "cc = &quot;newreno&quot;" in page  # the resolved scenario, escaped
    md = (tmp_path / "bulk.md").read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == len(BULK_KINDS)
    for link in links:
        _check_png(tmp_path / link)
    assert "| bulk | bulk/tcp |" in md and "```toml" in md


def test_write_html_renders_checks_and_figures_for_a_study():
    fig = plots.timeseries(tern.run(P2P, set={"sim.duration": "1s"}), "delay")
    sections = [
        report.Section(
            "Checks",
            [
                report.CheckTable(
                    [
                        report.Check("goodput", "9.6 Mbit/s", 9.63, "± 5 %", True),
                        report.Check("RTO count", 3, 5, "exact", False, "model lacks X"),
                        report.Check("handover gap", "1.5 s", None, "± 0.1 s", None, "n/a"),
                    ],
                    "Claims of the paper",
                )
            ],
        ),
        report.Section("Figures", [report.Plot(fig, "Figure 3: delay", "fig3"), "Some <text>."]),
    ]
    page = report.write_html("Study", sections, figures="png")
    found = _elements(page)
    assert found.external == [] and found.count["table"] == 1
    assert len(found.img_src) == 1 and found.img_src[0].startswith("data:image/png;base64,")
    assert '<td class="pass">pass</td>' in page and '<td class="fail">fail</td>' in page
    assert "1 of 2 checks pass (1 not made)" in page
    assert "Some &lt;text&gt;." in page
    assert report.write_html("Study", sections).count("<svg") == 1  # SVG by default


@pytest.mark.parametrize("which", ["run", "sweep"])
def test_reports_render_in_headless_chromium(runs, tiny_sweep, tmp_path, which):
    browser = chromium()
    folder = runs["udp"][1] if which == "run" else tiny_sweep[0]
    out = tmp_path / "report.html"
    res = tern_cli("report", str(folder), "--out", str(out), "--no-markdown")
    assert res.returncode == 0, res.stderr
    assert not (tmp_path / "report.md").exists()
    expected = _elements(out.read_text())
    n_figures = expected.count.get("svg", 0) + len(expected.img_src)
    assert n_figures == (len(UDP_KINDS) if which == "run" else 8)  # sweep: 4 metrics x 2
    dom = headless(browser, tmp_path / "profile", "--dump-dom", out.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    seen = _elements(dom.stdout)
    assert seen.count.get("svg", 0) + len(seen.img_src) == n_figures
    assert seen.count["table"] == expected.count["table"] >= 2
    assert seen.count.get("td", 0) == expected.count["td"]
    shot = tmp_path / "shot.png"
    res = headless(
        browser, tmp_path / "profile", f"--screenshot={shot}", "--window-size=1200,4000",
        "--hide-scrollbars", out.as_uri(),
    )  # fmt: skip
    assert res.returncode == 0 and shot.is_file(), res.stderr[-2000:]
    image = _check_png(shot)
    assert _colours(image) > 50, "the page rendered blank"
    pixels = np.round(image[..., :3] * 255).reshape(-1, 3)
    # The first two plot lines are drawn: matplotlib's blue and orange are on screen.
    for colour in ((31, 119, 180), (255, 127, 14)):
        assert (np.abs(pixels - colour).max(axis=1) <= 12).sum() > 50, colour
