"""The verdict rules of a reproduction: one verdict per claim, from its values over seeds.

A claim's SQL is run once per seed of its experiment (on a connection that sees only that
seed's runs), or once over all seeds for a `pooled` claim. From those values:

* **value** claims (`kind = "value"`, two-sided): Tern's value is the median over seeds,
  reported with a distribution-free interval for the median (order statistics of the
  binomial, 95 % where the number of seeds allows it, else the widest interval and its
  coverage); *reproduced* when |median - published| ≤ tolerance.
* **one-sided** claims: `at_most` (reproduced when median ≤ published + tolerance) and
  `at_least` (median ≥ published - tolerance).
* **yes/no** claims (`share`) and **orderings** (`ordering`: the query returns true when the
  order the paper states holds): counted per seed, k of n; *reproduced* when
  k / n ≥ published - tolerance (published is the share the paper states: 1 for "always").
  A seed that gives no answer counts as not holding.

A value needs at least `MIN_SHARE_WITH_VALUE` of the seeds to give one (a row resting on
one run of ten is no row); else the claim has no value. A claim that is not reproduced is
*cause shown* when the study names an experiment that demonstrates the cause (`cause`)
and every finding of it that the claim names as the demonstration (`shown_by`) holds in the
same reproduction (`_evaluate.check_causes`), else *open*. Claims whose role is
`calibration` (a parameter was fitted on them), `input` (Tern's value is set by the
scenario) or `finding` (evidence for a cause, no published value to meet) get no verdict and
stay out of the count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: Verdicts, as printed.
REPRODUCED = "reproduced"
CAUSE_SHOWN = "not reproduced — cause shown"
OPEN = "not reproduced — open"

#: Claim kinds and roles a study may use.
KINDS = ("value", "at_most", "at_least", "share", "ordering")
ROLES = ("verdict", "calibration", "input", "finding")

#: The smallest share of seeds that must give a value for a value claim to have one.
MIN_SHARE_WITH_VALUE = 0.8

#: Coverage sought for the interval of a median.
COVERAGE = 0.95


def _binomial_cdf(k: int, n: int) -> float:
    """P(X ≤ k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n


def median_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """A distribution-free interval for the median of `values`: the order statistics
    (x_(j), x_(n+1-j)) with the largest j whose coverage 1 - 2·P(Bin(n, ½) ≤ j - 1) is at
    least 95 % (j = 1, the range, when n is too small for 95 %). Returns (low, high,
    coverage)."""
    xs = sorted(values)
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    j = 1
    while j + 1 <= (n + 1) // 2 and 1 - 2 * _binomial_cdf(j, n) >= COVERAGE:
        j += 1
    coverage = 1 - 2 * _binomial_cdf(j - 1, n) if n > 1 else 0.0
    return xs[j - 1], xs[n - j], coverage


def median(values: Sequence[float]) -> float:
    xs = sorted(values)
    n = len(xs)
    mid = n // 2
    return xs[mid] if n % 2 else (xs[mid - 1] + xs[mid]) / 2


def _number(v: object) -> float | None:
    """A query's answer as a number; None, NaN and text are no answer."""
    if v is None or isinstance(v, str):
        return None
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


@dataclass
class Outcome:
    """What the values of one claim over seeds say."""

    #: Per seed (seed → the query's value, None for no value).
    per_seed: dict[int, float | None]
    #: Tern's value: the median (value kinds) or the share k / n (yes/no kinds).
    value: float | None
    #: Interval of the median and its coverage (value kinds over at least two seeds).
    interval: tuple[float, float] | None = None
    coverage: float | None = None
    #: Seeds with a value (value kinds) or seeds where the claim holds (yes/no kinds).
    k: int = 0
    n: int = 0
    verdict: str | None = None
    #: Whether Tern meets the published value, whatever the role (a calibration that is not
    #: met is shown as such).
    holds: bool | None = None
    error: str | None = None


def judge(
    kind: str,
    role: str,
    published: float,
    tolerance: float,
    per_seed: dict[int, object],
    *,
    cause: str = "",
    pooled: bool = False,
) -> Outcome:
    """The verdict of one claim from its values (`per_seed`: seed → query value; a pooled
    claim gives one value under any key)."""
    values = {s: _number(v) for s, v in per_seed.items()}
    out = Outcome(per_seed=values, value=None, n=len(values))
    if kind not in KINDS:
        raise ValueError(f"unknown claim kind {kind!r}")
    given = [v for v in values.values() if v is not None]
    if kind in ("share", "ordering"):
        out.k = sum(1 for v in given if v != 0)
        out.value = out.k / out.n if out.n else None
        holds = out.value is not None and out.value >= published - tolerance - 1e-12
    else:
        out.k = len(given)
        if out.n == 0 or out.k < math.ceil(MIN_SHARE_WITH_VALUE * out.n - 1e-9):
            out.error = f"only {out.k} of {out.n} seeds gave a value"
            if role == "verdict":
                out.verdict = CAUSE_SHOWN if cause else OPEN
            return out
        out.value = median(given)
        if len(given) >= 2 and not pooled:
            low, high, coverage = median_interval(given)
            out.interval, out.coverage = (low, high), coverage
        if kind == "value":
            holds = abs(out.value - published) <= tolerance + 1e-12 * max(1.0, abs(published))
        elif kind == "at_most":
            holds = out.value <= published + tolerance
        else:
            holds = out.value >= published - tolerance
    out.holds = bool(holds)
    if role == "verdict":
        out.verdict = REPRODUCED if holds else (CAUSE_SHOWN if cause else OPEN)
    return out


def summary_line(verdicts: Sequence[str | None], roles: Sequence[str]) -> str:
    """'9 claims: 6 reproduced, 2 not reproduced — cause shown, 1 open' (+ what is not
    counted)."""
    counted = [v for v, r in zip(verdicts, roles, strict=True) if r == "verdict"]
    parts = [
        f"{counted.count(REPRODUCED)} reproduced",
        f"{counted.count(CAUSE_SHOWN)} not reproduced — cause shown",
        f"{counted.count(OPEN)} open",
    ]
    text = f"{len(counted)} claims: " + ", ".join(parts)
    others = [r for r in roles if r != "verdict"]
    if others:
        kinds = ", ".join(f"{others.count(r)} {r}" for r in ROLES[1:] if r in others)
        text += f" (not counted: {kinds})"
    return text
