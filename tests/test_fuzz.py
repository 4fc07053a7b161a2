"""Fuzzing the scenario loader: mutations of the shipped scenarios (lines deleted or
duplicated, values replaced by random, huge, negative, NaN/inf or wrongly typed ones,
truncations) must give a `tern.ScenarioError` or a valid scenario — never another exception,
a crash or a hang.

Each case runs in a worker process with a time limit, so a hang (in the core, which holds the
GIL while it validates) or a crash is caught and reported with the scenario text. CI runs
`TERN_FUZZ_EXAMPLES` cases (default 2,000, about 30 s), derandomized; a longer local run draws
new cases each time:

    TERN_FUZZ_EXAMPLES=100000 TERN_FUZZ_RANDOM=1 python -m pytest -q tests/test_fuzz.py
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import traceback
from collections.abc import Iterator
from multiprocessing.connection import Connection

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tern
from conftest import ROOT

EXAMPLES = int(os.environ.get("TERN_FUZZ_EXAMPLES", "2000"))
#: Per case: validating a scenario takes milliseconds.
TIME_LIMIT_S = 10.0

SEEDS = sorted(p for p in (ROOT / "scenarios").glob("*/*.toml") if p.name != "study.toml")
TEXTS = [p.read_text() for p in SEEDS]

HUGE = ["18446744073709551615", "18446744073709551616", "9223372036854775808", "1e400", "-1"]
VALUES = [
    # numbers: huge, negative, zero, not a number
    *HUGE,
    "0",
    "-0.0",
    "nan",
    "inf",
    "-inf",
    "1.5",
    "1e308",
    # strings with units, some absurd
    '""',
    '"10 parsecs"',
    '"-5s"',
    '"0s"',
    '"nan s"',
    '"inf ms"',
    '"1e400s"',
    '"18446744073709551616ns"',
    '"99999999999999999999Mbps"',
    '"0Mbps"',
    '"-1Mbps"',
    '"0pkt"',
    '"18446744073709551615B"',
    '"0B"',
    '"1e-300s"',
    '"∞"',
    # wrong types
    "true",
    "[]",
    "[1, 2]",
    "{}",
    '{ kind = "nope" }',
    '["a", "a"]',
    "1979-05-27T07:32:00Z",
]


def _value() -> st.SearchStrategy[str]:
    text = st.text(st.characters(codec="utf-8", exclude_characters='"\\\n\r'), max_size=12)
    return st.one_of(
        st.sampled_from(VALUES),
        st.integers(min_value=-(2**65), max_value=2**65).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(str),
        text.map(lambda s: f'"{s}"'),
        st.tuples(
            st.sampled_from(["", "-"]),
            st.integers(min_value=0, max_value=2**70),
            st.sampled_from(["s", "ms", "us", "ns", "Mbps", "kbps", "B", "KB", "pkt", "dB", ""]),
        ).map(lambda t: f'"{t[0]}{t[1]}{t[2]}"'),
    )


#: Override keys: real ones of the scenarios (picked by name) and wrong ones.
KEYS = [
    "sim.duration",
    "sim.seed",
    "record",
    "links.access.rate",
    "links.access.delay",
    "links.access.queue.limit",
    "links.radio.loss",
    "links.radio.rlc.pdu_loss.p",
    "flows.bulk.transport.cc",
    "flows.bulk.transport.initial_window",
    "flows.video.app.rate",
    "wifi.bss2.queue",
    "roaming.handover.disconnect",
    "links.nope.rate",
    "links",
    "",
    ".",
    "nodes.ue",
]

Case = tuple[str, list[tuple[str, str]], int | None]


def mutated(seeds: list[str]) -> st.SearchStrategy[Case]:
    """A scenario of `seeds` mutated, with overrides and a seed sometimes."""

    @st.composite
    def case(draw: st.DrawFn) -> Case:
        lines = draw(st.sampled_from(seeds)).splitlines()
        for _ in range(draw(st.integers(min_value=1, max_value=4))):
            if not lines:
                break
            i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
            kind = draw(st.sampled_from(["value", "value", "value", "delete", "duplicate", "swap"]))
            if kind == "value" and "=" in lines[i] and not lines[i].lstrip().startswith("#"):
                key = lines[i].split("=", 1)[0]
                lines[i] = f"{key}= {draw(_value())}"
            elif kind == "delete":
                del lines[i]
            elif kind == "duplicate":
                lines.insert(i, lines[i])
            else:
                j = draw(st.integers(min_value=0, max_value=len(lines) - 1))
                lines[i], lines[j] = lines[j], lines[i]
        text = "\n".join(lines) + "\n"
        if draw(st.integers(min_value=0, max_value=9)) == 0:  # truncated anywhere
            text = text[: draw(st.integers(min_value=0, max_value=len(text)))]
        overrides = draw(
            st.lists(
                st.tuples(st.sampled_from(KEYS), _value().map(lambda v: v.strip('"'))),
                max_size=2,
            )
        )
        seed = draw(st.none() | st.integers(min_value=-1, max_value=2**64 + 1))
        return text, overrides, seed

    return case()


def _serve(conn: Connection) -> None:
    """The worker: validates each case it is sent; answers the outcome's kind and message."""
    while (case := conn.recv()) is not None:
        text, overrides, seed = case
        try:
            tern.validate(text=text, set=dict(overrides), seed=seed)
            conn.send(("valid", ""))
        except tern.ScenarioError as e:
            conn.send(("ScenarioError", str(e)))
        except BaseException as e:  # PanicException derives from BaseException
            conn.send((type(e).__name__, "".join(traceback.format_exception(e))))


class Validator:
    """`tern.validate` in a worker process, with a time limit per scenario."""

    def __init__(self) -> None:
        self.context = multiprocessing.get_context("spawn")
        self.process: multiprocessing.process.BaseProcess | None = None
        self.cases = 0

    def _start(self) -> Connection:
        conn, child = self.context.Pipe()
        self.process = self.context.Process(target=_serve, args=(child,), daemon=True)
        self.process.start()
        child.close()
        self.conn = conn
        return conn

    def __call__(self, case: Case) -> tuple[str, str]:
        self.cases += 1
        conn = self.conn if self.process is not None else self._start()
        with contextlib.suppress(OSError, EOFError):  # OSError, EOFError: it died
            conn.send(case)
            if conn.poll(TIME_LIMIT_S):
                return conn.recv()
        assert self.process is not None
        self.process.kill()
        self.process.join()
        code = self.process.exitcode
        self.process = None
        if code == -9:
            return ("hang", f"no answer in {TIME_LIMIT_S} s")
        return ("crash", f"the process died with exit code {code}")

    def close(self) -> None:
        if self.process is not None:
            self.conn.send(None)
            self.process.join()


@pytest.fixture(scope="module")
def validator() -> Iterator[Validator]:
    v = Validator()
    yield v
    v.close()


def _fuzz(validator: Validator, seeds: list[str], examples: int) -> dict[str, int]:
    """Runs `examples` cases; fails on the first that is neither valid nor a ScenarioError
    (Hypothesis then shrinks it)."""
    outcomes: dict[str, int] = {}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=not os.environ.get("TERN_FUZZ_RANDOM"),
        suppress_health_check=list(HealthCheck),
    )
    @given(mutated(seeds))
    def check(case: Case) -> None:
        kind, message = validator(case)
        outcomes[kind] = outcomes.get(kind, 0) + 1
        text, overrides, seed = case
        assert kind in ("valid", "ScenarioError"), (
            f"{kind}: {message}\n--- overrides {overrides}, seed {seed}, scenario:\n{text}"
        )

    check()
    print(f"fuzz: {sum(outcomes.values())} cases: {outcomes}")
    return outcomes


#: The scenarios with [[roaming]]: a flow from an unknown node there panics (below).
ROAMING = [t for t in TEXTS if "[[roaming]]" in t]


def test_fuzzed_scenarios_give_scenario_errors_only(validator: Validator):
    outcomes = _fuzz(validator, [t for t in TEXTS if t not in ROAMING], EXAMPLES)
    assert outcomes.get("ScenarioError", 0) > EXAMPLES // 4  # the mutations do break things
    assert outcomes.get("valid", 0) > EXAMPLES // 20  # and leave some valid


#: Found by this fuzz test (a core panic, since fixed): [[roaming]] with a flow from a node
#: that does not exist.
ROAMING_REPRO = """\
[sim]
duration = "1s"
[[nodes]]
name = "a"
[[nodes]]
name = "b"
[[nodes]]
name = "m"
[[wifi]]
name = "w1"
ap = "a"
stations = ["m"]
standard = "802.11b"
[[wifi]]
name = "w2"
ap = "b"
stations = ["m"]
standard = "802.11b"
[[roaming]]
name = "r"
station = "m"
at = "0.5s"
to = "w2"
disconnect = "0.1s"
[[flows]]
name = "f"
from = "x"
to = "a"
app = { kind = "ping" }
"""


def test_fuzzed_roaming_scenarios_give_scenario_errors_only(validator: Validator):
    _fuzz(validator, ROAMING, EXAMPLES)


def test_roaming_flow_from_unknown_node_is_a_scenario_error():
    """Was a panic: the roaming route check ran before the flow's nodes were checked."""
    with pytest.raises(tern.ScenarioError, match=r'flows\[0\]\.from: no node named "x"'):
        tern.validate(text=ROAMING_REPRO)
