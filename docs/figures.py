"""The figures of the models page (docs/models.md), each from runs this script makes and the
reference numbers committed beside them (benches/RESULTS.md, tests/test_vs_ns3.py):

    python docs/figures.py            # writes docs/img/*.svg (about a minute on 2 cores)

- tcp-cwnd.svg: a NewReno bulk flow's congestion window over a 10 Mbit/s, 20 ms link with a
  100-packet queue, against the window a full pipe and queue hold (the bandwidth-delay
  product plus the queue) and half of it (RFC 5681 §3.1 / RFC 6582: ssthresh = flight / 2).
- dumbbell-ns3.svg: the 10-flow dumbbell's aggregate goodput and drops, Tern's seeds 1-4
  against ns-3.44's runs 1-4 (tests/test_vs_ns3.py).
- trace-link.svg: a BBR download over a mahimahi trace (walk-lte.down): the trace's capacity
  per second (1504 bytes per line, mm-link's link_queue.cc) and what Tern's flow got
  acknowledged in it.
- wifi-ns3.svg: 802.11 goodput against ns-3 and Bianchi's model (benches/RESULTS.md).
- tfrc-ns2.svg: TFRC's goodput against ns-2.35's (benches/RESULTS.md).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

import tern
from tern import plots
from tern._plotbase import _figure, save

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
EXAMPLES = ROOT / "scenarios" / "examples"
SIZE = (6.4, 3.4)


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _results_table(heading: str) -> list[list[str]]:
    """The rows (cells) of the first table under `heading` in benches/RESULTS.md."""
    text = (ROOT / "benches" / "RESULTS.md").read_text()
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in section.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]


def _number(cell: str) -> float:
    """The first number of a table cell (goodputs and rates: never negative)."""
    return float(re.search(r"[0-9.]+", cell.replace(" ", "")).group(0))


def tcp_cwnd() -> None:
    run = tern.run(
        EXAMPLES / "p2p-bulk.toml",
        set={"sim.duration": "30s", "record": '["cwnd"]', "flows.bulk.transport.cc": "newreno"},
    )
    (line,) = [ln for ln in plots.timeseries_data(run, "cwnd").lines if "client" in ln.label]
    # 10 Mbit/s x 40 ms RTT = 50 kB in the pipe, plus 100 packets of 1500 B in the queue.
    full = 10e6 * 0.040 / 8 / 1e3 + 100 * 1.5
    fig = _figure(*SIZE)
    ax = fig.add_subplot()
    ax.plot(line.x, line.y, drawstyle="steps-post", lw=1, label="Tern: NewReno cwnd")
    ax.axhline(full, color="0.3", ls="--", lw=0.8, label="pipe + queue (BDP + 100 pkt)")
    ax.axhline(full / 2, color="0.3", ls=":", lw=0.8, label="half of it (ssthresh after a loss)")
    ax.set(xlabel="time (s)", ylabel="congestion window (kB)", xlim=(0, 30), ylim=(0, None))
    ax.set_title("TCP NewReno over 10 Mbit/s, 20 ms, 100-packet DropTail")
    ax.legend(fontsize="small", loc="lower right")
    save(fig, OUT / "tcp-cwnd.svg")


def dumbbell_ns3() -> None:
    ns3 = _module(ROOT / "tests" / "test_vs_ns3.py")
    make = _module(ROOT / "benches" / "make_dumbbell.py")
    tern_rows = []
    for seed in (1, 2, 3, 4):
        s = tern.run(text=make.dumbbell(10, seed=seed)).summary
        goodput = sum(f["bytes_delivered"] for f in s["flows"].values()) * 8 / 10 / 1e6
        drops = s["links"]["bottleneck"]["forward"]["drops"]["queue"]
        tern_rows.append((goodput, drops))
    fig = _figure(*SIZE)
    for i, (what, unit) in enumerate((("aggregate goodput", "Mbit/s"), ("bottleneck drops", ""))):
        ax = fig.add_subplot(1, 2, i + 1)
        for j, (label, rows) in enumerate(
            (
                ("ns-3 TcpNewReno", list(ns3.NS3_NEWRENO.values())),
                ("ns-3 TcpLinuxReno", list(ns3.NS3_LINUXRENO.values())),
                ("Tern", tern_rows),
            )
        ):
            ax.plot([j] * len(rows), [r[i] for r in rows], "o", ms=5, label=label)
        ax.set_xticks([0, 1, 2], ["ns-3\nNewReno", "ns-3\nLinuxReno", "Tern"])
        ax.set_xlim(-0.5, 2.5)
        ax.set_title(what, fontsize="medium")
        ax.set_ylabel(f"{what} ({unit})" if unit else what)
        ax.grid(True, alpha=0.3)
    fig.suptitle("10 TCP flows through a 100 Mbit/s dumbbell, 10 s: four runs each")
    save(fig, OUT / "dumbbell-ns3.svg")


def trace_link() -> None:
    duration = 40.0
    run = tern.run(
        EXAMPLES / "trace-cell.toml",
        set={"sim.duration": "40s", "record": '["segments"]', "flows.upload.start": "40s"},
    )
    lines = plots.timeseries_data(run, "throughput", bin=1.0).lines
    (down,) = [ln for ln in lines if ln.label.startswith("download")]
    ms = np.loadtxt(ROOT / "scenarios" / "traces" / "walk-lte.down")
    period = ms[-1]
    times = np.concatenate([ms + k * period for k in range(int(duration * 1e3 // period) + 1)])
    capacity, edges = np.histogram(times / 1e3, bins=np.arange(0, duration + 1))
    fig = _figure(*SIZE)
    ax = fig.add_subplot()
    ax.stairs(capacity * 1504 * 8 / 1e6, edges, color="0.5", label="trace capacity (mm-link)")
    ax.plot(down.x, down.y, drawstyle="steps-post", lw=1.2, label="Tern: BBR, acknowledged")
    ax.set(xlabel="time (s)", ylabel="throughput (Mbit/s)", xlim=(0, duration), ylim=(0, None))
    ax.set_title("A download over the walk-lte.down trace, 1 s bins")
    ax.legend(fontsize="small")
    save(fig, OUT / "trace-link.svg")


def _bars(rows: list[tuple[str, float, float]], ref: str, title: str, ylabel: str, out: str):
    fig = _figure(*SIZE)
    ax = fig.add_subplot()
    x = np.arange(len(rows))
    ax.bar(x - 0.2, [r[1] for r in rows], 0.4, label=ref)
    ax.bar(x + 0.2, [r[2] for r in rows], 0.4, label="Tern")
    ax.set_xticks(x, [r[0] for r in rows], fontsize="small")
    ax.set(ylabel=ylabel, title=title)
    ax.legend(fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, OUT / out)


def wifi_ns3() -> None:
    rows = [
        (r[0].replace(", 10", ",\n10"), _number(r[1]), _number(r[2]))
        for r in _results_table("Fidelity: 802.11 against ns-3 and Bianchi")
    ]
    _bars(
        rows,
        "ns-3 (Bianchi for DCF)",
        "802.11 goodput (benches/RESULTS.md)",
        "goodput (Mbit/s)",
        "wifi-ns3.svg",
    )


def tfrc_ns2() -> None:
    rows, rate = [], ""
    for r in _results_table("Fidelity: TFRC against ns-2.35"):
        m = re.match(r"([^:]+): `([^`]*)`", r[0])
        if m and r[1] and r[2] and "tcp" not in m.group(2):
            # A row of "…" arguments keeps the previous row's link.
            given = re.search(r"rate (\S+)", m.group(2))
            rate = given.group(1).replace("Mb", " Mbit/s") if given else rate
            rows.append((f"{m.group(1)}\n{rate}", _number(r[1]), _number(r[2])))
    _bars(
        rows,
        "ns-2.35",
        "TFRC, one flow (benches/RESULTS.md)",
        "packets/s delivered",
        "tfrc-ns2.svg",
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for make in (tcp_cwnd, dumbbell_ns3, trace_link, wifi_ns3, tfrc_ns2):
        make()
        print(make.__name__, file=sys.stderr)


if __name__ == "__main__":
    main()
