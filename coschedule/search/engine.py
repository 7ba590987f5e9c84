"""The local search that every counterexample search shares.

Hill climbing with sideways moves, or simulated annealing, over hashable candidates, with a
cache of evaluations and a greedy shrinking of the best candidate (the *Method* of
:mod:`coschedule.search`). A kind of instance plugs in through :class:`_Problem`: drawing a
candidate, a neighbour, running the heuristic, solving exactly, listing shrinking moves.
:mod:`.rigid`, :mod:`.kinp` and :mod:`.expected` each define one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from coschedule.results import ExactResult, Status

#: relative slack when ratios are compared during the search
RATIO_EPS = 1e-12
#: shrinking keeps a change while the ratio stays at least the best ratio minus this
SHRINK_EPS = 1e-9
#: at most this many evaluations are spent on shrinking
MAX_SHRINK_EVALUATIONS = 2000


class Improvement(NamedTuple):
    """A new best ratio: in which phase (``"search"`` or ``"shrink"``), restart and step,
    after how many evaluations, and the size of the instance. While shrinking, ``restart``
    is -1 and ``step`` counts the accepted shrinking moves."""

    phase: str
    restart: int
    step: int
    evaluations: int
    ratio: float
    n: int


class Progress(NamedTuple):
    """Reported after every step: the current and the best ratio so far."""

    phase: str
    restart: int
    step: int
    evaluations: int
    solves: int
    current: float
    best: float


C = TypeVar("C")


@dataclass
class _Eval:
    """What is known about one candidate."""

    makespan: float
    lower: float  # a cheap proved lower bound on the optimum
    schedule: Any  # the heuristic's schedule
    ratio: float | None = None  # certified: makespan / (validated upper bound on OPT)
    upper: float | None = None  # makespan / (proved lower bound on OPT)
    exact: ExactResult | None = None

    @property
    def cheap_upper(self) -> float:
        return self.makespan / self.lower


class _Problem(Protocol[C]):
    """What the engine needs from a kind of instance."""

    def random(self, rng: np.random.Generator) -> C: ...
    def neighbour(self, c: C, rng: np.random.Generator) -> C: ...
    def run_heuristic(self, c: C) -> tuple[Any, float, float]: ...  # schedule, makespan, lower
    def solve(self, c: C, schedule: Any) -> ExactResult: ...
    def shrink_moves(self, c: C) -> Iterator[C]: ...
    def size(self, c: C) -> int: ...


class _Engine(Generic[C]):
    """Local search with a cache, shared by the rigid and the co-scheduling searches."""

    def __init__(
        self,
        problem: _Problem[C],
        progress: Callable[[Progress], None] | None,
        on_improvement: Callable[[Improvement], None] | None,
    ) -> None:
        self.problem = problem
        self.cache: dict[C, _Eval] = {}
        self.evaluations = 0  # distinct candidates on which the heuristic ran
        self.solves = 0
        self.time_limited = 0
        self.history: list[Improvement] = []
        self.progress = progress
        self.on_improvement = on_improvement

    def evaluate(self, c: C, threshold: float = -math.inf) -> _Eval:
        """Evaluate ``c``; the solver is skipped when ``makespan / L < threshold`` (then
        ``ratio`` stays ``None``: the candidate cannot reach the threshold)."""
        ev = self.cache.get(c)
        if ev is None:
            schedule, makespan, lower = self.problem.run_heuristic(c)
            ev = _Eval(makespan, lower, schedule)
            self.cache[c] = ev
            self.evaluations += 1
            if makespan <= lower * (1 + RATIO_EPS):  # the heuristic meets a lower bound
                ev.ratio = ev.upper = 1.0
        if ev.ratio is None and ev.cheap_upper >= threshold - RATIO_EPS:
            self._solve(c, ev)
        return ev

    def _solve(self, c: C, ev: _Eval) -> None:
        res = self.problem.solve(c, ev.schedule)
        self.solves += 1
        if res.status is not Status.OPTIMAL:
            self.time_limited += 1
        ev.exact = res
        best = ev.makespan if res.objective is None else min(res.objective, ev.makespan)
        ev.ratio = ev.makespan / best
        low = max(ev.lower, res.bound) if res.bound is not None else ev.lower
        ev.upper = ev.makespan / min(low, best)

    def exact_for(self, c: C) -> tuple[_Eval, ExactResult]:
        """The evaluation of ``c`` with a solver result (solving it if needed)."""
        ev = self.evaluate(c)
        if ev.exact is None:
            self._solve(c, ev)
        assert ev.exact is not None
        return ev, ev.exact

    def _improved(self, phase: str, restart: int, step: int, ratio: float, c: C) -> None:
        imp = Improvement(phase, restart, step, self.evaluations, ratio, self.problem.size(c))
        self.history.append(imp)
        if self.on_improvement is not None:
            self.on_improvement(imp)

    def search(self, rng: np.random.Generator, restarts: int, steps: int, temperature: float) -> tuple[C, float]:
        best: C | None = None
        best_ratio = -math.inf
        for r in range(restarts):
            cur = self.problem.random(rng)
            ev = self.evaluate(cur)
            assert ev.ratio is not None
            cur_ratio = ev.ratio
            if cur_ratio > best_ratio + RATIO_EPS:
                best, best_ratio = cur, cur_ratio
                self._improved("search", r, 0, cur_ratio, cur)
            for s in range(1, steps + 1):
                cand = self.problem.neighbour(cur, rng)
                u = float(rng.random())  # drawn first: the stream never depends on a solve
                temp = temperature * (1.0 - (s - 1) / steps)
                threshold = cur_ratio + (temp * math.log(u) if temp > 0 and u > 0 else 0.0)
                if temp > 0 and u == 0:
                    threshold = -math.inf
                ev = self.evaluate(cand, threshold)
                if ev.ratio is not None and ev.ratio >= threshold - RATIO_EPS:
                    cur, cur_ratio = cand, ev.ratio
                    if cur_ratio > best_ratio + RATIO_EPS:
                        best, best_ratio = cur, cur_ratio
                        self._improved("search", r, s, cur_ratio, cur)
                if self.progress is not None:
                    self.progress(Progress("search", r, s, self.evaluations, self.solves, cur_ratio, best_ratio))
        assert best is not None
        return best, best_ratio

    def shrink(self, c: C, ratio: float) -> tuple[C, float]:
        """Greedy first-improvement shrinking: the first move of :meth:`_Problem.shrink_moves`
        whose ratio stays ``>= ratio - SHRINK_EPS`` is taken, then the moves start again."""
        target = ratio - SHRINK_EPS
        best_ratio = ratio
        budget = MAX_SHRINK_EVALUATIONS
        step = 0
        changed = True
        while changed and budget > 0:
            changed = False
            for cand in self.problem.shrink_moves(c):
                if budget <= 0:
                    break
                known = cand in self.cache
                ev = self.evaluate(cand, target)
                budget -= 0 if known else 1
                if ev.ratio is not None and ev.ratio >= target:
                    step += 1
                    c, changed = cand, True
                    if ev.ratio > best_ratio + RATIO_EPS:
                        best_ratio = ev.ratio
                        self._improved("shrink", -1, step, ev.ratio, c)
                    if self.progress is not None:
                        self.progress(Progress("shrink", -1, step, self.evaluations, self.solves,
                                               ev.ratio, best_ratio))
                    break
        ev = self.evaluate(c)
        assert ev.ratio is not None
        return c, ev.ratio


def _integral(times: Iterable[float]) -> bool:
    return all(float(t).is_integer() for t in times)


def _check_sizes(**sizes: int) -> None:
    for name, value in sizes.items():
        low = 0 if name in ("steps",) else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
