"""TFRC through a link outage, Tern against ns-2.35's `Agent/TFRC` (benches/RESULTS.md, "TFRC
through an outage against ns-2.35"; the key figures are tests in crates/tern-sim/tests/tfrc.rs).

One TFRC flow over a duplex point-to-point link (DropTail, 50 packets), the link down from 20 s
for `outage` seconds in both directions. ns-2 runs `../shared/bench/ns2/tfrc.tcl` (Debian's ns2,
`ns`) from a copy made here, in a temporary folder, that samples every 100 ms instead of every
second. Tern runs the same link in process (`tern.run`), 992-byte payloads over UDP so that a
packet is 1032 B on the link as ns-2's (`packetSize_` 1000 + `headersize_` 32), in several
configurations: ns-2's options (history discounting, oscillation prevention, NDUPACK 1, t_RTO
300 ms, a no-feedback timeout of 2 RTTs, the receive rate since the last report once an RTT has
passed and else over the RTT before the newest arrival (tfrc-sink.cc, `est_thput`), loss events
grouped by the sender's round as its TFRCSink's `PreciseLoss_ 1` does, and its additive rate
increase of at most s/R per RTT once a loss is reported, tfrc.cc `increase_rate`, and its RTT
average with `df_ 0.95`, tfrc.cc `update_rtt`) with each no-feedback rule; the same with RFC
5348's immediate increase to the equation's rate, with X_recv over the last RTT, with RFC 5348
§5.2's interpolated loss events, with RFC 5348's no-feedback timeout of 4 RTTs, or with RFC
5348's RTT filter q = 0.9; and RFC defaults (RFC 5348; RFC 3448 as published).

Two times after the outage's end, from 100 ms bins: `rx`, the first bin whose delivered packets
reach 90 % of the flow's own delivery rate over the 5 s before the outage; `X`, the first bin end
at which the sender's allowed rate X reaches that rate (ns-2's `rate_`, Tern's `tfrc` trace). Below
the table: the lowest X during the outage, and for Tern the highest loss event rate p reported
in the 3 s after the outage and the loss events the outage made (ns-2 counts one: its TFRCSink
with `PreciseLoss_ 1` starts a new loss event only with a new `round_id`, and every loss found at
one arrival shares that arrival's). Last, for each simulator and configuration, when the first
feedback after the outage came and `rx` counted from it: that time is the phase of the sender's
last packets in the outage (at about one packet per second after a long outage), the rest is
the recovery rule.

    python benches/ns2_tfrc_outage.py            # the table of benches/RESULTS.md (about a minute)
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tern

HERE = Path(__file__).resolve().parent
REF = HERE.parent.parent / "shared" / "bench" / "ns2" / "tfrc.tcl"
OUTAGE_AT = 20.0
BIN = 0.1
PACKET = 1032  # bytes on the link, both simulators
QUEUE = 50
CASES = [
    (rate, delay, outage)
    for rate in ("2Mb", "10Mb")
    for delay in ("10ms", "20ms", "50ms")
    for outage in (1.5, 3.0, 5.0)
]
NS2_OPTIONS = (
    'wire = "udp", segment = "992B", history_discounting = true, '
    'oscillation_prevention = true, ndupack = 1, min_rto = "300ms", nofeedback_rtts = 2, '
    'receive_rate = "since-last-feedback-or-last-rtt", loss_grouping = "round", '
    "additive_increase = true, "
    "rtt_filter = 0.95"
)
CONFIGS = {
    "ns-2 options, erratum-1458": NS2_OPTIONS,
    "ns-2 options, rfc3448-original": NS2_OPTIONS
    + ', profile = "rfc3448", nofeedback_rule = "rfc3448-original"',
    "ns-2 options, RFC's immediate increase": NS2_OPTIONS.replace(
        "additive_increase = true", "additive_increase = false"
    ),
    "ns-2 options, X_recv of the last RTT": NS2_OPTIONS.replace(
        "since-last-feedback-or-last-rtt", "last-rtt"
    ),
    "ns-2 options, interpolated loss events": NS2_OPTIONS.replace(
        'loss_grouping = "round"', 'loss_grouping = "interpolated"'
    ),
    "ns-2 options, no-feedback timeout 4 RTTs": NS2_OPTIONS.replace(
        "nofeedback_rtts = 2", "nofeedback_rtts = 4"
    ),
    "ns-2 options, RFC's RTT filter 0.9": NS2_OPTIONS.replace(
        "rtt_filter = 0.95", "rtt_filter = 0.9"
    ),
    "RFC 5348 (erratum)": 'wire = "udp", segment = "992B"',
    "RFC 3448 as published": 'wire = "udp", segment = "992B", profile = "rfc3448"',
}


def bits(rate: str) -> float:
    return float(rate.removesuffix("Mb")) * 1e6


def ns2_script(folder: Path) -> Path:
    """tfrc.tcl sampling every `bin` seconds (default 1 s, as the reference)."""
    text = REF.read_text()
    text = text.replace("set opt(start) 0\n", "set opt(start) 0; set opt(bin) 1.0\n", 1)
    text = text.replace(
        "  global ns sink tfrc series last\n", "  global ns sink tfrc series last opt\n"
    )
    text = text.replace(
        '$ns at [expr [$ns now] + 1.0] "sample"', '$ns at [expr [$ns now] + $opt(bin)] "sample"'
    )
    text = text.replace('$ns at 1.0 "sample"', '$ns at $opt(bin) "sample"')
    # One line per feedback the sender takes in ("time: T rate: …", tfrc.cc `recv`) on
    # stdout, and the script's JSON on stderr, apart from ns-2's buffered printf.
    text = text.replace(
        "$tfrc set packetSize_ $opt(size)\n",
        "$tfrc set packetSize_ $opt(size)\n$tfrc set printStatus_ 1\n",
        1,
    )
    text = text.replace('puts "{\\"simulator', 'puts stderr "{\\"simulator', 1)
    path = folder / "tfrc_bins.tcl"
    path.write_text(text)
    return path


def ns2(
    script: Path, rate: str, delay: str, outage: float, duration: float
) -> tuple[list[tuple[float, float, float]], float]:
    """(bin end, packets delivered in the bin, X in packets/s) every 100 ms, and the time
    of the first feedback after the outage (its `printStatus_` lines)."""
    args = {
        "rate": rate,
        "delay": delay,
        "queue": QUEUE,
        "size": 1000,
        "duration": duration,
        "outage_at": OUTAGE_AT,
        "outage_for": outage,
        "bin": BIN,
    }
    cmd = ["ns", script.name] + [str(x) for kv in args.items() for x in kv]
    out = subprocess.run(cmd, cwd=script.parent, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    d = json.loads(out.stderr.strip().splitlines()[-1])
    back = OUTAGE_AT + outage
    feedback = min(
        float(w[1])
        for w in (line.split() for line in lines)
        if len(w) == 4 and w[0] == "time:" and w[2] == "rate:" and float(w[1]) > back
    )
    return [(t, b / 8 / PACKET, x / 1000) for t, b, x in d["per_second"]], feedback


def tern_text(rate: str, delay: str, outage: float, duration: float, options: str) -> str:
    return f"""
record = ["delay", "tfrc"]
[sim]
duration = "{duration}s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[links]]
name = "l"
ends = ["a", "b"]
rate = "{bits(rate) / 1e6:g}Mbps"
delay = "{delay}"
queue = {{ kind = "droptail", limit = "{QUEUE}pkt" }}
loss = {{ kind = "outage", windows = [{{ at = "{OUTAGE_AT}s", for = "{outage}s" }}] }}
[[flows]]
name = "f"
from = "a"
to = "b"
app = {{ kind = "bulk" }}
transport = {{ kind = "tfrc", {options} }}
"""


def tern_bins(
    rate: str, delay: str, outage: float, duration: float, options: str
) -> tuple[list[tuple[float, float, float]], float, int, float]:
    """The same bins from Tern: packets delivered (the `delay` trace) and X (`tfrc`); the
    highest loss event rate reported in the 3 s after the outage, the loss events the
    outage made (those of a run to 3 s after it less those of a run to its start), and the
    time of the first feedback after the outage."""
    r = tern.run(text=tern_text(rate, delay, outage, duration, options))
    n = round(duration / BIN)
    rx = [0.0] * (n + 1)
    for t in r.series("delay")["time"].to_list():
        k = min(n, max(1, -int(-t // BIN)))  # bin (k-1, k] * BIN, as ns-2 samples
        rx[k] += 1
    tfrc = r.series("tfrc")
    times, xs = tfrc["time"].to_list(), tfrc["x_bps"].to_list()
    out, j, x = [], 0, 0.0
    for k in range(1, n + 1):
        end = k * BIN
        while j < len(times) and times[j] <= end + 1e-9:
            x = xs[j] / 8 / 992
            j += 1
        out.append((end, rx[k], x))
    back = OUTAGE_AT + outage
    p = max(
        (p for t, p in zip(times, tfrc["p"].to_list(), strict=True) if back < t <= back + 3),
        default=float("nan"),
    )

    def events(until: float) -> int:
        run = tern.run(text=tern_text(rate, delay, outage, until, options))
        return run.summary["flows"]["f"]["tfrc"]["loss_events"]

    feedback = min(
        t
        for t, e in zip(times, tfrc["event"].to_list(), strict=True)
        if e == "feedback" and t > back
    )
    return out, p, events(back + 3) - events(OUTAGE_AT), feedback


def recovery(
    bins: list[tuple[float, float, float]], outage: float
) -> tuple[float | None, float | None, float]:
    """Seconds from the outage's end until delivery, then X, reach 90 % of the delivery rate of
    the 5 s before the outage in 100 ms bins; and X's lowest value during the outage
    (packets/s)."""
    before = [n for t, n, _ in bins if OUTAGE_AT - 5 < t <= OUTAGE_AT + 1e-9]
    full = 0.9 * sum(before) / 5
    end = OUTAGE_AT + outage
    after = [b for b in bins if b[0] > end + 1e-9]
    rx = next((t - end for t, n, _ in after if n / BIN >= full), None)
    x = next((t - end for t, _, xp in after if xp >= full), None)
    low = min(xp for t, _, xp in bins if OUTAGE_AT < t <= end + 1e-9)
    return rx, x, low


def cell(v: float | None) -> str:
    return "never" if v is None else f"{v:.1f}"


def main() -> None:
    if shutil.which("ns") is None:
        sys.exit("ns-2 (`ns`, Debian's ns2 package) is not installed: apt-get install -y ns2")
    names = list(CONFIGS)
    print(
        "| link, outage | ns-2 rx / X (s) | " + " | ".join(f"{n} rx / X (s)" for n in names) + " |"
    )
    print("| --- | ---: | " + " | ".join("---:" for _ in names) + " |")
    lows, firsts = [], []
    with tempfile.TemporaryDirectory() as tmp:
        script = ns2_script(Path(tmp))
        for rate, delay, outage in CASES:
            duration = OUTAGE_AT + outage + 20
            back = OUTAGE_AT + outage
            ns2_bins, ns2_feedback = ns2(script, rate, delay, outage, duration)
            ref = recovery(ns2_bins, outage)
            row = [f"{cell(ref[0])} / {cell(ref[1])}"]
            low = [f"{ref[2]:.2f}"]
            first = [(ns2_feedback - back, ref[0])]
            for options in CONFIGS.values():
                bins, p, events, feedback = tern_bins(rate, delay, outage, duration, options)
                got = recovery(bins, outage)
                row.append(f"{cell(got[0])} / {cell(got[1])}")
                low.append(f"{got[2]:.2f} (p {p:.3f}, {events} events)")
                first.append((feedback - back, got[0]))
            print(f"| {rate}it/s, {delay}, {outage:g} s | " + " | ".join(row) + " |", flush=True)
            lows.append((rate, delay, outage, low))
            firsts.append((rate, delay, outage, first))
    print()
    print(
        "Lowest X during the outage (packets/s; Tern: the highest p in the 3 s after it, the loss"
    )
    print("events it made): ns-2 / " + " / ".join(names))
    for rate, delay, outage, low in lows:
        print(f"- {rate}it/s, {delay}, {outage:g} s: " + " / ".join(low))
    print()
    print(
        "The first feedback after the outage (s after it) and `rx` counted from it: ns-2 / "
        + " / ".join(names)
    )
    for rate, delay, outage, first in firsts:
        text = " / ".join(
            f"{f:.2f}, {'never' if rx is None else f'{rx - f:.2f}'}" for f, rx in first
        )
        print(f"- {rate}it/s, {delay}, {outage:g} s: {text}")


if __name__ == "__main__":
    main()
