"""A paper's claims, what we measured for each, and the verdict between them.

A :class:`Claim` is one statement of a paper's experimental section: where it is (section, table,
figure, sentence), what it says (the paper's value or its qualitative statement), how ours is
computed from the campaign results (:class:`Measured`), and the rule that turns the two into a
:data:`VERDICTS` entry with its reason:

* ``match``: ours says what the paper says (a number within the rule's tolerance, its 95 %
  interval counted in our favour; a statement that holds);
* ``close``: near it, but not within the tolerance (or a statement that holds in part);
* ``differs``: it does not;
* ``not comparable``: the paper's data is not available here (the Mira and Intrepid logs, SDSC,
  LLNL): ours is computed on the stand-in and shown, without a verdict on it.

The rules (:class:`Near`, :class:`AtLeast`, :class:`AtMost`, :class:`Holds`,
:class:`NotComparable`) are small and stateless; a claim's ``compute`` is a function of the
results (:class:`~coschedule.reproduce.results.Results`) that each paper's module writes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .results import Results

__all__ = ["VERDICTS", "AtLeast", "AtMost", "Claim", "Holds", "Measured", "Near", "NotComparable", "Outcome",
           "Rule"]

#: the verdicts, in the order the summary counts them
VERDICTS = ("match", "close", "differs", "not comparable")


@dataclass(frozen=True)
class Measured:
    """What we measured for a claim: a number (``value``, with the half-width ``half`` of its 95 %
    interval, or 0), or for a qualitative statement ``holds`` (``True``, ``False``, or ``None``
    for "in part"); ``text`` is how it reads in the report ("42-43 % (n = 1,000)")."""

    text: str
    value: float | None = None
    half: float = 0.0
    holds: bool | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "value": _finite(self.value), "ci95": _finite(self.half) if self.value is not None
                else None, "holds": self.holds}


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass(frozen=True)
class Outcome:
    """A claim's result: what we measured, the verdict and why."""

    measured: Measured
    verdict: str
    reason: str


class Rule:
    """Turns what we measured into a verdict (subclasses below)."""

    def judge(self, m: Measured) -> tuple[str, str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


#: what a rule forgives of a float's rounding (0.38 is 0.020000000000000018 from 0.40)
_EPS = 1e-9


def _number(m: Measured) -> tuple[float, float]:
    """The value and the interval's half-width (0 when there is none: one run gives NaN)."""
    if m.value is None or not math.isfinite(m.value):
        raise ValueError(f"a numeric rule needs a finite value, got {m.value!r} ({m.text})")
    return float(m.value), float(m.half) if math.isfinite(m.half) else 0.0


@dataclass(frozen=True)
class Near(Rule):
    """The paper's number ``paper``: ``match`` when ours is within ``match`` of it (absolute, or
    relative to ``paper`` when ``relative``), our 95 % interval counted in our favour; ``close``
    within ``close``; else ``differs``."""

    paper: float
    match: float
    close: float
    relative: bool = False

    def judge(self, m: Measured) -> tuple[str, str]:
        v, half = _number(m)
        scale = abs(self.paper) if self.relative else 1.0
        gap = max(0.0, abs(v - self.paper) - half) / scale
        unit = " (relative)" if self.relative else ""
        if gap <= self.match + _EPS:
            return "match", f"within {self.match:g}{unit} of {self.paper:g}"
        if gap <= self.close + _EPS:
            return "close", f"{gap:.3g}{unit} from {self.paper:g}, within {self.close:g} but not {self.match:g}"
        return "differs", f"{gap:.3g}{unit} from {self.paper:g}, more than {self.close:g}"

    def describe(self) -> str:
        unit = " relative" if self.relative else ""
        return f"match within {self.match:g}{unit} of {self.paper:g}, close within {self.close:g}"


def _past(miss: float, bound: float, close: float, within: str, side: str) -> tuple[str, str]:
    """The verdict of a bound missed by ``miss`` (<= 0: kept) on the ``side`` of ``bound``."""
    if miss <= _EPS:
        return "match", f"{within} {bound:g}"
    if miss <= close + _EPS:
        return "close", f"{miss:.3g} {side} {bound:g}, within {close:g}"
    return "differs", f"{miss:.3g} {side} {bound:g}, more than {close:g}"


@dataclass(frozen=True)
class AtLeast(Rule):
    """"More than ``bound``": ``match`` when ours is at least ``bound`` (our interval counted in
    our favour), ``close`` when within ``close`` below it, else ``differs``."""

    bound: float
    close: float

    def judge(self, m: Measured) -> tuple[str, str]:
        v, half = _number(m)
        return _past(self.bound - (v + half), self.bound, self.close, "at least", "below")

    def describe(self) -> str:
        return f"match at or above {self.bound:g}, close within {self.close:g} below"


@dataclass(frozen=True)
class AtMost(Rule):
    """"Less than ``bound``": the mirror of :class:`AtLeast`."""

    bound: float
    close: float

    def judge(self, m: Measured) -> tuple[str, str]:
        v, half = _number(m)
        return _past((v - half) - self.bound, self.bound, self.close, "at most", "above")

    def describe(self) -> str:
        return f"match at or below {self.bound:g}, close within {self.close:g} above"


@dataclass(frozen=True)
class Holds(Rule):
    """A qualitative statement: ``match`` when it holds in ours, ``close`` when in part
    (``holds is None``), ``differs`` when not. ``test`` says what is checked."""

    test: str

    def judge(self, m: Measured) -> tuple[str, str]:
        if m.holds is True:
            return "match", f"holds: {self.test}"
        if m.holds is None:
            return "close", f"holds in part: {self.test}"
        return "differs", f"does not hold: {self.test}"

    def describe(self) -> str:
        return self.test


@dataclass(frozen=True)
class NotComparable(Rule):
    """The paper's data is not available here: ``missing`` (what), ``stand_in`` (what ours is
    computed on instead). Always ``not comparable``; ours is still shown."""

    missing: str
    stand_in: str

    def judge(self, m: Measured) -> tuple[str, str]:
        return "not comparable", f"not available here: {self.missing}; ours: {self.stand_in}"

    def describe(self) -> str:
        return f"not comparable: {self.missing} (stand-in: {self.stand_in})"


@dataclass(frozen=True)
class Claim:
    """One claim of a paper's experimental section (module docstring).

    ``key`` is unique in its paper; ``where`` the place in the paper ("§1.5.5, Fig. 1.5");
    ``statement`` the paper's words or the quantity; ``paper`` its value as the report shows it;
    ``compute(results)`` ours; ``rule`` the verdict's rule; ``options`` the modelling options
    the verdict depends on; ``figure`` the key of the reproduction's figure that shows it;
    ``campaigns`` the campaigns it reads; ``stable``: known to match, in the quick run too (the
    tests hold it to "match")."""

    key: str
    where: str
    statement: str
    paper: str
    compute: Callable[[Results], Measured]
    rule: Rule
    campaigns: tuple[str, ...]
    options: tuple[str, ...] = ()
    figure: str | None = None
    stable: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def evaluate(self, results: Results) -> Outcome:
        """Ours and the verdict. A computation that fails (a point the grid lacks) is "not
        comparable", its reason starting "ours could not be computed" (the tests allow none)."""
        try:
            measured = self.compute(results)
        except (KeyError, ValueError, ZeroDivisionError, IndexError) as e:
            return Outcome(Measured(text="not computed"), "not comparable", f"ours could not be computed: {e}")
        try:
            verdict, reason = self.rule.judge(measured)
        except ValueError as e:
            return Outcome(measured, "not comparable", str(e))
        return Outcome(measured, verdict, reason)
