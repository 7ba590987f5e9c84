"""Counterexample search: instances on which a heuristic is far from the exact optimum.

Issue 3 §5 (search mode) and ``resilient-rigid-jobs.md`` §4. For a heuristic that has an exact
counterpart, a seeded local search looks for the instance (and, for rigid jobs, the failure
scenario ``f``) that maximises

    ``ratio = heuristic makespan / optimum``,

then *shrinks* the worst one to a minimal instance that keeps the ratio.

* :func:`search_worst` -- a resilient rigid heuristic of
  :data:`coschedule.heuristics.RIGID_HEURISTICS` against ``T_OPT(f)``
  (:func:`coschedule.exact.rigid.solve_rigid_opt`, CP-SAT).
* :func:`search_worst_kinp` -- the co-scheduling heuristic Pack-Approx against the exact
  k-in-p optimum (:func:`coschedule.exact.solve_kinp`, subset DP for small ``n``).
* :func:`expected_ratio_search` -- the open question at the end of §4.4: the largest
  *expected*-makespan ratio of a shelf heuristic under the exponential error model, by a
  documented Monte Carlo proxy (:func:`expected_ratio`).

What is certified
-----------------
The reported ``ratio`` is ``makespan / U`` with ``U`` the makespan of a *validated* schedule
(the solver's best, or the heuristic's own schedule if that is better): ``U >= OPT``, so
``ratio`` is a proved **lower bound** on the true ratio, whatever the solver status.
``ratio_upper = makespan / B`` with ``B`` the solver's proved lower bound (at least ``L(f)``)
bounds it from above; both are equal when the optimum is proved with zero tolerance (integral
times, the default: the CP-SAT unit is then 1 and no rounding occurs). A candidate whose
heuristic makespan equals ``L(f)`` has ratio exactly 1 and is not solved.

Method
------
``restarts`` random starts, each followed by ``steps`` local moves (change one job's
processors or time, one job's failures by one, swap two jobs -- ties in the priority queue
break by index --, duplicate or remove a job, keeping ``1 <= jobs <= n``). A move is accepted
when its ratio is at least the current one (hill climbing with sideways moves); with
``temperature > 0`` a worse move is accepted with probability ``exp(delta / T)``, ``T``
decreasing linearly to 0 over each restart (simulated annealing). The uniform draw is made
*before* the evaluation, so a candidate whose cheap upper bound ``makespan / L(f)`` cannot
pass the acceptance threshold is rejected without calling the solver. Evaluations are
cached. The best instance is then shrunk greedily: remove jobs, lower failures, normalise
and lower times and processor counts, accepting each change while the ratio stays at least
the best ratio minus ``1e-9``.

Determinism
-----------
All randomness comes from one ``numpy.random.Generator`` seeded by ``seed``; the solver
runs with one CP-SAT worker and CP-SAT's fixed random seed (``threads=1``). The same seed
then gives the same result, **provided no solve hits** ``time_limit_per_solve``: a solve cut
by the wall-clock limit may return a different incumbent on another run or machine. The
result says whether that happened (``SearchResult.options["time_limited_solves"]``).

Running time: about ``restarts * steps`` heuristic runs and at most as many CP-SAT solves
(10-50 ms each for ``n <= 6``), plus the shrinking.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Generic, NamedTuple, Protocol, TypeVar

import numpy as np

from coschedule.errors import InvalidInstance, unknown_name
from coschedule.model import CoSchedule, MoldableInstance, MoldableTask
from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance, RigidJob, SilentErrors, lower_bound
from coschedule.rng import Seed, as_generator
from coschedule.schedule import Schedule

__all__ = [
    "ExpectedRatioEstimate",
    "ExpectedRatioResult",
    "Improvement",
    "Progress",
    "RatioEvaluation",
    "SearchResult",
    "expected_ratio",
    "expected_ratio_search",
    "guarantee",
    "rigid_ratio",
    "search_worst",
    "search_worst_kinp",
]

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


def guarantee(heuristic: str, priority: str | None = None, P: int | None = None) -> float | None:
    """The proven worst-case ratio of a heuristic, where the papers give one.

    * ``r-list-0`` with any priority: ``2 - 1/P`` (Prop. 2);
    * ``r-list-1`` and ``r-list-q`` with LJF: ``3 - 4/(P+1)`` (Prop. 1);
    * ``pack-approx`` (p-in-p): 3 (Thm 1.6 of the co-scheduling paper);
    * ``None`` otherwise (the shelf heuristics have none: Props. 3-4).

    >>> guarantee("r-list-0", "LPT", 4), guarantee("r-list-q", "LJF", 3), guarantee("r-shelf-b")
    (1.75, 2.0, None)
    """
    h = heuristic.lower()
    if h == "pack-approx":
        return 3.0
    if P is None:
        return None
    if h == "r-list-0":
        return 2.0 - 1.0 / P
    if h in ("r-list-1", "r-list-q") and priority is not None and priority.upper() == "LJF":
        return 3.0 - 4.0 / (P + 1)
    return None


# ====================================================================== the generic engine

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


# ====================================================================== results


@dataclass(frozen=True)
class SearchResult:
    """The worst instance a search found, with both validated schedules.

    Attributes
    ----------
    kind
        ``"rigid"`` (:func:`search_worst`) or ``"kinp"`` (:func:`search_worst_kinp`).
    ratio
        ``heuristic_makespan / exact.objective``: a certified lower bound on the true ratio
        (the objective is the makespan of a validated schedule, so it is ``>= OPT``).
    ratio_upper
        ``heuristic_makespan / (proved lower bound on OPT)``; equal to ``ratio`` when the
        optimum is proved with zero tolerance.
    instance, scenario
        The (shrunk) worst instance and, for rigid jobs, its failure scenario.
    heuristic_schedule, optimal_schedule
        A :class:`~coschedule.schedule.Schedule` (rigid) or a
        :class:`~coschedule.model.CoSchedule` (k-in-p), both validated.
    exact
        The solver's result on the instance (its status says what was proved).
    evaluations, solves
        Distinct candidates evaluated and exact solves made.
    history
        Every improvement of the best ratio, in order (search, then shrink).
    """

    kind: str
    heuristic: str
    priority: str | None
    k: int | None
    ratio: float
    ratio_upper: float
    instance: RigidInstance | MoldableInstance
    scenario: FailureScenario | None
    heuristic_schedule: Schedule | CoSchedule
    heuristic_makespan: float
    optimal_schedule: Schedule | CoSchedule
    exact: ExactResult
    evaluations: int
    solves: int
    history: tuple[Improvement, ...]
    seed: int | None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def proved(self) -> bool:
        """Whether the optimum of the final instance is proved (``ratio`` is then exact up to
        the solver's tolerance)."""
        return self.exact.status is Status.OPTIMAL

    @property
    def guarantee(self) -> float | None:
        size = self.instance.P if isinstance(self.instance, RigidInstance) else None
        return guarantee(self.heuristic, self.priority, size)

    def compact(self) -> str:
        """One line: ``P=3 | (p,t,f): (1,4,0) (2,3,1)`` (rigid) or the profiles (k-in-p)."""
        inst = self.instance
        if isinstance(inst, RigidInstance):
            assert self.scenario is not None
            jobs = " ".join(
                f"({job.procs},{_num(job.time)},{f})" for job, f in zip(inst.jobs, self.scenario.failures)
            )
            return f"P={inst.P} | (p,t,f): {jobs}"
        profiles = " ".join("[" + ",".join(_num(t) for t in task.times[: inst.p]) + "]" for task in inst.tasks)
        return f"p={inst.p} k={self.k} | t(i,1..p): {profiles}"

    def describe(self) -> str:
        """Two lines for a terminal: the ratio with what was proved, and :meth:`compact`."""
        what = "makespan" if self.kind == "rigid" else "cost"
        if self.proved and math.isclose(self.ratio, self.ratio_upper, rel_tol=1e-12):
            ratio = f"ratio {self.ratio:.6g} (optimum proved)"
        else:
            ratio = (f"ratio in [{self.ratio:.6g}, {self.ratio_upper:.6g}] "
                     f"(optimum {self.exact.status.value}; the lower end is certified)")
        g = self.guarantee
        bound = f"; proven guarantee {g:.6g}" if g is not None else ""
        name = self.heuristic + (f" ({self.priority})" if self.priority else f" (k = {self.k})")
        return (f"{name}: {what} {self.heuristic_makespan:.6g}, optimum {self.exact.objective:.6g}, "
                f"{ratio}{bound}\n{self.compact()}")

    def to_dict(self) -> dict[str, Any]:
        """The summary written to ``summary.json``."""
        inst = self.instance
        return {
            "kind": self.kind,
            "heuristic": self.heuristic,
            "priority": self.priority,
            "k": self.k,
            "n": inst.n,
            "P": inst.P if isinstance(inst, RigidInstance) else inst.p,
            "ratio": self.ratio,
            "ratio_upper": self.ratio_upper,
            "proved": self.proved,
            "guarantee": self.guarantee,
            "heuristic_makespan": self.heuristic_makespan,
            "optimum": self.exact.to_dict(),
            "instance": self.compact(),
            "failures": list(self.scenario.failures) if self.scenario is not None else None,
            "evaluations": self.evaluations,
            "solves": self.solves,
            "seed": self.seed,
            "options": self.options,
            "history": [imp._asdict() for imp in self.history],
        }

    def write(self, directory: str | Path) -> list[Path]:
        """Write the instance, the scenario (rigid), both schedules and ``summary.json``.

        Rigid: ``instance.json``, ``scenario.json``, ``heuristic-schedule.json``,
        ``optimum-schedule.json`` (formats of :mod:`coschedule.io`). k-in-p:
        ``instance.json``, ``heuristic-coschedule.json``, ``optimum-coschedule.json``.
        Returns the paths written.
        """
        from coschedule.io import (
            coschedule_to_dict,
            save_instance,
            save_json,
            save_rigid_instance,
            save_scenario,
            save_schedule,
        )

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "instance.json"]
        if isinstance(self.instance, RigidInstance):
            assert self.scenario is not None
            assert isinstance(self.heuristic_schedule, Schedule)
            assert isinstance(self.optimal_schedule, Schedule)
            save_rigid_instance(self.instance, paths[0])
            save_scenario(self.scenario, out / "scenario.json", instance=self.instance)
            save_schedule(self.heuristic_schedule, out / "heuristic-schedule.json", instance=self.instance,
                          extra={"heuristic": self.heuristic, "priority": self.priority})
            save_schedule(self.optimal_schedule, out / "optimum-schedule.json", instance=self.instance,
                          extra={"result": self.exact.to_dict()})
            paths += [out / "scenario.json", out / "heuristic-schedule.json", out / "optimum-schedule.json"]
        else:
            assert isinstance(self.heuristic_schedule, CoSchedule)
            assert isinstance(self.optimal_schedule, CoSchedule)
            save_instance(self.instance, paths[0])
            save_json(coschedule_to_dict(self.instance, self.heuristic_schedule, k=self.k,
                                         extra={"heuristic": self.heuristic}),
                      out / "heuristic-coschedule.json")
            save_json(coschedule_to_dict(self.instance, self.optimal_schedule, k=self.k,
                                         extra={"result": self.exact.to_dict()}),
                      out / "optimum-coschedule.json")
            paths += [out / "heuristic-coschedule.json", out / "optimum-coschedule.json"]
        save_json(self.to_dict(), out / "summary.json")
        paths.append(out / "summary.json")
        return paths


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.6g}"


# ====================================================================== rigid jobs


@dataclass(frozen=True)
class _Rigid:
    """A rigid candidate: processors, times and failures of each job (hashable)."""

    procs: tuple[int, ...]
    times: tuple[float, ...]
    failures: tuple[int, ...]

    def instance(self, P: int, name: str | None = None) -> RigidInstance:
        jobs = tuple(RigidJob(p, t, name=f"J{j}") for j, (p, t) in enumerate(zip(self.procs, self.times)))
        return RigidInstance(jobs, P, name)

    def scenario(self) -> FailureScenario:
        return FailureScenario(self.failures)

    def replace_job(self, j: int, procs: int | None = None, time: float | None = None,
                    failures: int | None = None) -> _Rigid:
        p, t, f = list(self.procs), list(self.times), list(self.failures)
        if procs is not None:
            p[j] = procs
        if time is not None:
            t[j] = time
        if failures is not None:
            f[j] = failures
        return _Rigid(tuple(p), tuple(t), tuple(f))

    def without(self, j: int) -> _Rigid:
        return _Rigid(self.procs[:j] + self.procs[j + 1:], self.times[:j] + self.times[j + 1:],
                      self.failures[:j] + self.failures[j + 1:])


@dataclass(frozen=True)
class RatioEvaluation:
    """:func:`rigid_ratio`: a heuristic against ``T_OPT(f)`` on one instance and scenario."""

    makespan: float
    schedule: Schedule
    lower_bound: float  # L(f)
    ratio: float  # certified lower bound: makespan / validated upper bound on T_OPT
    ratio_upper: float  # makespan / proved lower bound on T_OPT
    exact: ExactResult | None  # None when the heuristic meets L(f) (ratio exactly 1)


def _integral(times: Iterable[float]) -> bool:
    return all(float(t).is_integer() for t in times)


def rigid_ratio(
    heuristic: str,
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    priority: str = "LPT",
    heuristic_seed: int = 0,
    time_limit: float | None = 5.0,
    threads: int = 1,
) -> RatioEvaluation:
    """Certified ratio of one rigid heuristic against ``T_OPT(f)`` on one instance.

    The heuristic's schedule is validated; ``T_OPT(f)`` is solved by
    :func:`coschedule.exact.rigid.solve_rigid_opt` (time unit 1 when every time is an integer, so that
    nothing is rounded), unless the heuristic meets ``L(f)``. ``ratio <= true ratio <=
    ratio_upper`` always (see the module docstring).
    """
    from coschedule.heuristics import get_rigid_heuristic

    from coschedule.validate import validate_rigid

    fn = get_rigid_heuristic(heuristic)
    schedule = fn(instance, scenario, priority=priority, seed=heuristic_seed)
    makespan = validate_rigid(instance, scenario, schedule)
    L = lower_bound(instance, scenario)
    if makespan <= L * (1 + RATIO_EPS):
        return RatioEvaluation(makespan, schedule, L, 1.0, 1.0, None)
    res = _solve_rigid(instance, scenario, schedule, time_limit, threads)
    best = min(makespan, res.objective if res.objective is not None else makespan)
    low = max(L, res.bound if res.bound is not None else L)
    return RatioEvaluation(makespan, schedule, L, makespan / best, makespan / min(low, best), res)


def _solve_rigid(instance: RigidInstance, scenario: FailureScenario, hint: Schedule,
                 time_limit: float | None, threads: int) -> ExactResult:
    from coschedule.exact.rigid import solve_rigid_opt

    unit = 1.0 if _integral(instance.times) else None
    res = solve_rigid_opt(instance, scenario, time_limit=time_limit, time_unit=unit, threads=threads,
                          hint=hint)
    return res


class _RigidProblem:
    """Rigid instances and scenarios with ``1 <= jobs <= n`` on ``P`` processors."""

    def __init__(self, heuristic: str, priority: str, n: int, P: int, *, max_failures: int,
                 integral: bool, max_time: int, time_limit: float | None, threads: int,
                 heuristic_seed: int) -> None:
        from coschedule.heuristics import get_rigid_heuristic

        self.name = heuristic.lower()
        self.fn = get_rigid_heuristic(heuristic)
        self.priority = priority
        self.n, self.P = n, P
        self.max_failures = max_failures
        self.integral = integral
        self.max_time = max_time
        self.time_limit = time_limit
        self.threads = threads
        self.heuristic_seed = heuristic_seed

    # -- drawing

    def _time(self, rng: np.random.Generator) -> float:
        if self.integral:
            return float(rng.integers(1, self.max_time, endpoint=True))
        return float(rng.uniform(1.0, self.max_time))

    def _failures(self, rng: np.random.Generator) -> int:
        if self.max_failures == 0 or rng.random() < 0.5:
            return 0
        return int(rng.integers(1, self.max_failures, endpoint=True))

    def _procs(self, rng: np.random.Generator) -> int:
        # half of the jobs narrow (at most ceil(P/2)): wide jobs alone serialise everything,
        # where every heuristic is optimal
        top = self.P if rng.random() < 0.5 else (self.P + 1) // 2
        return int(rng.integers(1, top, endpoint=True))

    def random(self, rng: np.random.Generator) -> _Rigid:
        count = int(rng.integers(min(2, self.n), self.n, endpoint=True))
        procs = tuple(self._procs(rng) for _ in range(count))
        times = tuple(self._time(rng) for _ in range(count))
        failures = tuple(self._failures(rng) for _ in range(count))
        return _Rigid(procs, times, failures)

    def _move_time(self, c: _Rigid, j: int, rng: np.random.Generator) -> float:
        u = rng.random()
        t = c.times[j]
        if u < 0.25 and len(c.times) > 1:  # copy another job's time (ties matter)
            return c.times[int(rng.integers(len(c.times)))]
        if u < 0.5:
            return self._time(rng)
        if self.integral:
            step = int(rng.integers(1, 2, endpoint=True)) * (1 if rng.random() < 0.5 else -1)
            return float(min(self.max_time, max(1, int(t) + step)))
        return float(min(self.max_time, max(1.0, t * math.exp(rng.normal(0.0, 0.3)))))

    def neighbour(self, c: _Rigid, rng: np.random.Generator) -> _Rigid:
        count = len(c.procs)
        moves = ["procs", "time", "failures"]
        if count >= 2:
            moves.append("swap")
        if count < self.n:
            moves.append("duplicate")
        if count > 1:
            moves.append("remove")
        new = c
        for _ in range(32):  # until the move changes something
            move = moves[int(rng.integers(len(moves)))]
            j = int(rng.integers(count))
            if move == "procs":
                if rng.random() < 0.5:
                    p = self._procs(rng)
                else:
                    p = min(self.P, max(1, c.procs[j] + (1 if rng.random() < 0.5 else -1)))
                new = c.replace_job(j, procs=p)
            elif move == "time":
                new = c.replace_job(j, time=self._move_time(c, j, rng))
            elif move == "failures":
                f = c.failures[j] + (1 if rng.random() < 0.5 else -1)
                new = c.replace_job(j, failures=min(self.max_failures, max(0, f)))
            elif move == "swap":
                k = int(rng.integers(count))
                order = list(range(count))
                order[j], order[k] = order[k], order[j]
                new = _Rigid(tuple(c.procs[i] for i in order), tuple(c.times[i] for i in order),
                             tuple(c.failures[i] for i in order))
            elif move == "duplicate":
                at = int(rng.integers(count + 1))
                new = _Rigid(c.procs[:at] + (c.procs[j],) + c.procs[at:],
                             c.times[:at] + (c.times[j],) + c.times[at:],
                             c.failures[:at] + (c.failures[j],) + c.failures[at:])
            else:
                new = c.without(j)
            if new != c:
                return new
        return new

    # -- evaluating

    def run_heuristic(self, c: _Rigid) -> tuple[Schedule, float, float]:
        inst, f = c.instance(self.P), c.scenario()
        schedule = self.fn(inst, f, priority=self.priority, seed=self.heuristic_seed)
        return schedule, schedule.makespan, lower_bound(inst, f)

    def solve(self, c: _Rigid, schedule: Schedule) -> ExactResult:
        return _solve_rigid(c.instance(self.P), c.scenario(), schedule, self.time_limit, self.threads)

    def size(self, c: _Rigid) -> int:
        return len(c.procs)

    # -- shrinking

    def shrink_moves(self, c: _Rigid) -> Iterator[_Rigid]:
        count = len(c.procs)
        if count > 1:
            for j in reversed(range(count)):
                yield c.without(j)
        for j in range(count):
            if c.failures[j] > 1:
                yield c.replace_job(j, failures=0)
            if c.failures[j] > 0:
                yield c.replace_job(j, failures=c.failures[j] - 1)
        yield from self._simpler_times(c)
        for j in range(count):
            if c.procs[j] > 1:
                yield c.replace_job(j, procs=c.procs[j] - 1)

    def _simpler_times(self, c: _Rigid) -> Iterator[_Rigid]:
        times = c.times
        if _integral(times):
            g = math.gcd(*(int(t) for t in times))
            if g > 1:
                yield _Rigid(c.procs, tuple(t / g for t in times), c.failures)
            for j, t in enumerate(times):
                if t > 1:
                    yield c.replace_job(j, time=t - 1)
            return
        # round every time, then one at a time, to integers, then to one decimal
        rounded = tuple(float(max(1, round(t))) for t in times)
        if rounded != times:
            yield _Rigid(c.procs, rounded, c.failures)
        for digits in (0, 1):
            for j, t in enumerate(times):
                r = max(10.0**-digits, round(t, digits))
                if r != t:
                    yield c.replace_job(j, time=float(r))


def search_worst(
    heuristic: str,
    *,
    priority: str = "LPT",
    n: int,
    P: int,
    restarts: int,
    steps: int,
    seed: int,
    time_limit_per_solve: float = 5.0,
    max_failures: int = 3,
    integral_times: bool = True,
    progress: Callable[[Progress], None] | None = None,
    on_improvement: Callable[[Improvement], None] | None = None,
    max_time: int = 20,
    temperature: float = 0.0,
    shrink: bool = True,
    threads: int = 1,
    heuristic_seed: int = 0,
) -> SearchResult:
    """Search rigid instances and failure scenarios maximising ``makespan / T_OPT(f)``.

    Parameters
    ----------
    heuristic
        A name of :data:`coschedule.heuristics.RIGID_HEURISTICS` (``r-list-0``, ``r-list-1``,
        ``r-list-q``, ``r-shelf-b``, ``r-shelf-nb``, ``r-shelffill-b``, ``r-shelffill-nb``).
    priority
        Its priority rule (:data:`coschedule.heuristics.priorities.PRIORITIES`); RANDOM draws its order
        from ``heuristic_seed``.
    n, P
        At most ``n`` jobs (at least 1) on ``P`` processors.
    restarts, steps
        Random starts, and local moves after each.
    seed
        Seeds the one generator of the search (see *Determinism* in the module docstring).
    time_limit_per_solve
        Seconds per CP-SAT solve; a cut solve still gives a certified lower bound on the ratio.
    max_failures
        Failures per job are in ``0..max_failures``.
    integral_times
        Times are integers in ``1..max_time`` (exact CP-SAT unit, exact sums); otherwise reals
        in ``[1, max_time]``, rounded when shrinking.
    progress, on_improvement
        Callbacks: after every step (:class:`Progress`), and at each new best
        (:class:`Improvement`).
    temperature
        Initial temperature of simulated annealing (0: hill climbing with sideways moves).
    shrink
        Shrink the best instance to a minimal one (module docstring).
    threads
        CP-SAT workers; 1 keeps the search deterministic.

    Returns
    -------
    SearchResult
        The worst instance found, both schedules (validated), the certified ratio.

    Notes
    -----
    The ratio can never exceed the proven guarantees (:func:`guarantee`): ``2 - 1/P`` for
    ``r-list-0`` and ``3 - 4/(P+1)`` for ``r-list-1``/``r-list-q`` with LJF; the tests check
    this. The shelf heuristics are unbounded (Props. 3-4), so larger ``n``, ``P`` and
    ``max_failures`` give larger ratios there.
    """
    _check_sizes(n=n, P=P, restarts=restarts, steps=steps)
    if max_failures < 0:
        raise ValueError(f"max_failures must be >= 0, got {max_failures}")
    if max_time < 1:
        raise ValueError(f"max_time must be >= 1, got {max_time}")
    problem = _RigidProblem(heuristic, priority, n, P, max_failures=max_failures, integral=integral_times,
                            max_time=max_time, time_limit=time_limit_per_solve, threads=threads,
                            heuristic_seed=heuristic_seed)
    engine: _Engine[_Rigid] = _Engine(problem, progress, on_improvement)
    rng = as_generator(seed)
    best, ratio = engine.search(rng, restarts, steps, temperature)
    searched = len(best.procs)
    if shrink:
        best, ratio = engine.shrink(best, ratio)
    ev, res = engine.exact_for(best)
    instance = best.instance(P, name=f"worst-{problem.name}-{priority.lower()}-P{P}")
    scenario = best.scenario()
    from coschedule.validate import validate_rigid

    makespan = validate_rigid(instance, scenario, ev.schedule)
    assert res.solution is not None
    opt_schedule: Schedule = res.solution
    opt_makespan = validate_rigid(instance, scenario, opt_schedule)
    if opt_makespan > makespan:  # the heuristic's own schedule is the better upper bound
        opt_schedule, opt_makespan = ev.schedule, makespan
    assert ev.ratio is not None and ev.upper is not None
    options = {
        "n": n, "P": P, "restarts": restarts, "steps": steps, "max_failures": max_failures,
        "integral_times": integral_times, "max_time": max_time, "temperature": temperature,
        "time_limit_per_solve": time_limit_per_solve, "threads": threads, "shrink": shrink,
        "heuristic_seed": heuristic_seed, "jobs_before_shrink": searched,
        "time_limited_solves": engine.time_limited,
    }
    return SearchResult(
        "rigid", problem.name, priority, None, makespan / opt_makespan, ev.upper, instance, scenario,
        ev.schedule, makespan, opt_schedule, res, engine.evaluations, engine.solves,
        tuple(engine.history), seed if isinstance(seed, int) else None, options,
    )


def _check_sizes(**sizes: int) -> None:
    for name, value in sizes.items():
        low = 0 if name in ("steps",) else 1
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")


# ====================================================================== k-in-p co-scheduling

KINP_HEURISTICS = ("pack-approx",)


@dataclass(frozen=True)
class _Kinp:
    """A co-scheduling candidate: one profile ``t(i, 1..p)`` per task (hashable)."""

    profiles: tuple[tuple[float, ...], ...]

    def instance(self, p: int, name: str | None = None) -> MoldableInstance:
        tasks = tuple(MoldableTask(prof, name=f"T{i}") for i, prof in enumerate(self.profiles))
        return MoldableInstance(tasks, p, name)


def _valid_profile(prof: tuple[float, ...]) -> bool:
    try:
        MoldableTask(prof)
    except InvalidInstance:
        return False
    return True


class _KinpProblem:
    """Pack-Approx against the exact k-in-p optimum, ``1 <= tasks <= n`` on ``p`` processors."""

    def __init__(self, heuristic: str, n: int, p: int, k: int, *, integral: bool, max_time: int) -> None:
        from coschedule.heuristics import get_heuristic

        if heuristic.lower() not in KINP_HEURISTICS:
            raise unknown_name("co-scheduling heuristic with an exact search", heuristic, KINP_HEURISTICS)
        self.name = heuristic.lower()
        self.fn = get_heuristic(heuristic)
        self.n, self.p, self.k = n, p, k
        self.integral = integral
        self.max_time = max_time

    def _profile(self, rng: np.random.Generator) -> tuple[float, ...]:
        from coschedule.generators import random_profile

        return random_profile(self.p, rng, t1=(1.0, float(self.max_time)), integral=self.integral)

    def random(self, rng: np.random.Generator) -> _Kinp:
        count = int(rng.integers(min(2, self.n), self.n, endpoint=True))
        return _Kinp(tuple(self._profile(rng) for _ in range(count)))

    def _perturb(self, prof: tuple[float, ...], rng: np.random.Generator) -> tuple[float, ...]:
        """One entry ``t(q)`` moved inside the interval (1.1)-(1.2) allow given its neighbours:
        ``max(t(q+1), (q-1) t(q-1) / q) <= t(q) <= min(t(q-1), (q+1) t(q+1) / q)``."""
        p = len(prof)
        q = int(rng.integers(1, p + 1))  # 1-based processor count
        lo, hi = 0.0, math.inf
        if q > 1:
            lo, hi = max(lo, (q - 1) * prof[q - 2] / q), min(hi, prof[q - 2])
        if q < p:
            lo, hi = max(lo, prof[q]), min(hi, (q + 1) * prof[q] / q)
        if math.isinf(hi):
            hi = 2.0 * prof[q - 1]
        if self.integral:
            a, b = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
            a = max(a, 1)
            if a > b:
                return prof
            value = float(rng.integers(a, b, endpoint=True))
        else:
            value = float(rng.uniform(max(lo, 1e-9), hi))
        new = prof[: q - 1] + (value,) + prof[q:]
        return new if _valid_profile(new) else prof

    def neighbour(self, c: _Kinp, rng: np.random.Generator) -> _Kinp:
        count = len(c.profiles)
        moves = ["regenerate", "perturb", "scale"]
        if count >= 2:
            moves.append("swap")
        if count < self.n:
            moves.append("duplicate")
        if count > 1:
            moves.append("remove")
        profs = list(c.profiles)
        new = c
        for _ in range(32):
            move = moves[int(rng.integers(len(moves)))]
            i = int(rng.integers(count))
            out = list(profs)
            if move == "regenerate":
                out[i] = self._profile(rng)
            elif move == "perturb":
                out[i] = self._perturb(profs[i], rng)
            elif move == "scale":  # a positive factor keeps (1.1)-(1.2)
                factor = float(rng.integers(2, 3, endpoint=True)) if self.integral else math.exp(rng.normal(0, 0.5))
                if self.integral and rng.random() < 0.5:
                    if all(t % factor == 0 for t in profs[i]):
                        out[i] = tuple(t / factor for t in profs[i])
                else:
                    out[i] = tuple(t * factor for t in profs[i])
            elif move == "swap":
                j = int(rng.integers(count))
                out[i], out[j] = out[j], out[i]
            elif move == "duplicate":
                out.insert(int(rng.integers(count + 1)), profs[i])
            else:
                del out[i]
            new = _Kinp(tuple(out))
            if new != c:
                return new
        return new

    def run_heuristic(self, c: _Kinp) -> tuple[CoSchedule, float, float]:
        inst = c.instance(self.p)
        cs = self.fn(inst, self.k)
        T = inst.time_matrix
        # OPT >= the longest task on p processors, and >= total minimum work / p (1.2)
        lower = max(float(T[:, self.p].max()), math.fsum(float(x) for x in T[:, 1]) / self.p)
        return cs, cs.cost(inst), lower

    def solve(self, c: _Kinp, schedule: CoSchedule) -> ExactResult:
        from coschedule.exact import solve_kinp

        inst = c.instance(self.p)
        method = "subsetdp" if inst.n <= 15 else "auto"
        return solve_kinp(inst, self.k, method=method)

    def size(self, c: _Kinp) -> int:
        return len(c.profiles)

    def shrink_moves(self, c: _Kinp) -> Iterator[_Kinp]:
        count = len(c.profiles)
        if count > 1:
            for i in reversed(range(count)):
                yield _Kinp(c.profiles[:i] + c.profiles[i + 1:])
        flat = [t for prof in c.profiles for t in prof]
        if _integral(flat):
            g = math.gcd(*(int(t) for t in flat))
            if g > 1:
                yield _Kinp(tuple(tuple(t / g for t in prof) for prof in c.profiles))
            return
        for digits in (0, 1, 2):
            for i, prof in enumerate(c.profiles):
                r = tuple(max(10.0**-digits, round(t, digits)) for t in prof)
                if r != prof and _valid_profile(r):
                    yield _Kinp(c.profiles[:i] + (r,) + c.profiles[i + 1:])


def search_worst_kinp(
    heuristic: str = "pack-approx",
    *,
    n: int,
    p: int,
    k: int | None = None,
    restarts: int,
    steps: int,
    seed: int,
    integral_times: bool = True,
    max_time: int = 100,
    temperature: float = 0.0,
    shrink: bool = True,
    progress: Callable[[Progress], None] | None = None,
    on_improvement: Callable[[Improvement], None] | None = None,
) -> SearchResult:
    """Search moldable instances maximising ``Pack-Approx / OPT`` for k-in-p co-scheduling.

    ``k`` defaults to ``p`` (p-in-p, where Pack-Approx is a 3-approximation, Thm 1.6). The
    optimum comes from :func:`coschedule.exact.solve_kinp` with the subset DP (proved by construction;
    ``n <= 15``). Moves keep (1.1)-(1.2): regenerate one profile
    (:func:`coschedule.generators.random_profile`), move one entry inside the interval its
    neighbours allow, scale a profile, swap, duplicate or remove a task. Shrinking removes
    tasks and normalises or rounds times. Same engine, caching and determinism as
    :func:`search_worst` (the subset DP is deterministic and has no time limit).
    """
    _check_sizes(n=n, p=p, restarts=restarts, steps=steps)
    kk = p if k is None else k
    if isinstance(kk, bool) or not isinstance(kk, int) or kk < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if n > 15:
        raise ValueError(f"n = {n} tasks: the exact subset DP of the search needs n <= 15")
    problem = _KinpProblem(heuristic, n, p, kk, integral=integral_times, max_time=max_time)
    engine: _Engine[_Kinp] = _Engine(problem, progress, on_improvement)
    rng = as_generator(seed)
    best, ratio = engine.search(rng, restarts, steps, temperature)
    searched = len(best.profiles)
    if shrink:
        best, ratio = engine.shrink(best, ratio)
    ev, res = engine.exact_for(best)
    instance = best.instance(p, name=f"worst-{problem.name}-n{len(best.profiles)}-p{p}-k{kk}")
    from coschedule.validate import validate_coschedule

    cost = validate_coschedule(instance, ev.schedule, kk)
    assert res.solution is not None
    opt = validate_coschedule(instance, res.solution, kk)
    assert ev.upper is not None
    options = {
        "n": n, "p": p, "k": kk, "restarts": restarts, "steps": steps, "integral_times": integral_times,
        "max_time": max_time, "temperature": temperature, "shrink": shrink, "jobs_before_shrink": searched,
    }
    return SearchResult(
        "kinp", problem.name, None, kk, cost / min(opt, cost), ev.upper, instance, None, ev.schedule, cost,
        res.solution, res, engine.evaluations, engine.solves, tuple(engine.history),
        seed if isinstance(seed, int) else None, options,
    )


# ====================================================================== expected makespan (§4.4)


@dataclass(frozen=True)
class ExpectedRatioEstimate:
    """Monte Carlo estimate of the expected-makespan ratios of one instance (:func:`expected_ratio`).

    ``ratio_opt = mean(T_ALG(f_i)) / mean(T_OPT(f_i))`` and
    ``ratio_L = mean(T_ALG(f_i)) / mean(L(f_i))`` over the same ``samples`` scenarios, with
    the half widths of their delta-method confidence intervals (paired samples).
    ``T_OPT(f_i)`` is the validated upper bound of each solve, so ``ratio_opt`` estimates a
    lower bound on ``E(T_ALG) / E(T_OPT)``; ``ratio_L >= ratio_opt`` since ``L <= T_OPT``.
    ``unproved`` counts scenarios whose optimum was not proved within the time limit.
    """

    ratio_opt: float
    half_width_opt: float
    ratio_L: float
    half_width_L: float
    mean_alg: float
    mean_opt: float
    mean_L: float
    samples: int
    distinct_scenarios: int
    unproved: int
    confidence: float


def _ratio_ci(a: list[float], b: list[float], z: float) -> tuple[float, float]:
    """``mean(a) / mean(b)`` and the half width ``z sd(a - R b) / (sqrt(m) mean(b))``."""
    m = len(a)
    ma, mb = math.fsum(a) / m, math.fsum(b) / m
    r = ma / mb
    if m < 2:
        return r, math.inf
    d = [x - r * y for x, y in zip(a, b)]
    return r, z * statistics.stdev(d) / (math.sqrt(m) * mb)


class _OptCache:
    """``T_OPT(f)`` per (instance, scenario), shared across candidates of a search."""

    def __init__(self, time_limit: float | None, threads: int) -> None:
        self.values: dict[tuple[Any, ...], tuple[float, bool]] = {}
        self.time_limit = time_limit
        self.threads = threads
        self.solves = 0

    def get(self, instance: RigidInstance, scenario: FailureScenario, alg: Schedule) -> tuple[float, bool]:
        """A validated upper bound on ``T_OPT(f)`` and whether it is proved optimal."""
        from coschedule.heuristics import r_list

        key = (instance.P, tuple(instance.procs.tolist()), tuple(instance.times.tolist()), scenario.failures)
        hit = self.values.get(key)
        if hit is not None:
            return hit
        L = lower_bound(instance, scenario)
        greedy = r_list(instance, scenario, m=0, priority="LPT").makespan
        upper = min(alg.makespan, greedy)
        if upper <= L * (1 + RATIO_EPS):
            value = (upper, True)
        else:
            res = _solve_rigid(instance, scenario, alg, self.time_limit, self.threads)
            self.solves += 1
            obj = res.objective if res.objective is not None else upper
            value = (min(obj, upper), res.status is Status.OPTIMAL)
        self.values[key] = value
        return value


def expected_ratio(
    heuristic: str,
    instance: RigidInstance,
    model: SilentErrors,
    *,
    priority: str = "LPT",
    samples: int = 200,
    seed: Seed = None,
    confidence: float = 0.95,
    time_limit_per_solve: float | None = 5.0,
    threads: int = 1,
    _cache: _OptCache | None = None,
) -> ExpectedRatioEstimate:
    """Estimate ``E(T_ALG) / E(T_OPT)`` and ``E(T_ALG) / E(L(f))`` under the exponential model.

    A **proxy**, for tiny instances (``n <= 5``): ``samples`` scenarios are drawn from
    ``model`` (§3.4); on each, the heuristic runs and ``T_OPT(f)`` is solved
    (:func:`coschedule.exact.rigid.solve_rigid_opt`; skipped when R-List-0 or the heuristic meets
    ``L(f)``; cached per scenario). Here ``E(T_OPT) = sum_f Q(f) T_OPT(f)``, the expectation
    of the clairvoyant optimum, as in the proof of (8); an optimal *dynamic* policy has a
    larger expectation, so this ratio over-estimates the ratio against it. The ratio of
    sample means is a consistent but biased estimator; the confidence interval is the
    delta-method one for paired samples.
    """
    from coschedule.heuristics import get_rigid_heuristic

    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    fn = get_rigid_heuristic(heuristic)
    cache = _cache if _cache is not None else _OptCache(time_limit_per_solve, threads)
    alg, opt, low = [], [], []
    unproved = 0
    seen: set[tuple[int, ...]] = set()
    for f in model.scenarios(instance, samples, seed):
        schedule = fn(instance, f, priority=priority, seed=0)
        value, proved = cache.get(instance, f, schedule)
        if f.failures not in seen:
            seen.add(f.failures)
            unproved += not proved
        alg.append(schedule.makespan)
        opt.append(value)
        low.append(lower_bound(instance, f))
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    r_opt, h_opt = _ratio_ci(alg, opt, z)
    r_L, h_L = _ratio_ci(alg, low, z)
    m = len(alg)
    return ExpectedRatioEstimate(
        r_opt, h_opt, r_L, h_L, math.fsum(alg) / m, math.fsum(opt) / m, math.fsum(low) / m, m,
        len(seen), unproved, confidence,
    )


@dataclass(frozen=True)
class ExpectedRatioResult:
    """:func:`expected_ratio_search`: the instance and error rate with the largest estimated
    expected-makespan ratio.

    ``search_ratio`` is the estimate that the search maximised (on its fixed sample set, so
    biased upwards by the selection); ``final`` re-estimates it on ``final_samples`` fresh
    scenarios -- report that one.
    """

    heuristic: str
    priority: str
    instance: RigidInstance
    qbar: float
    lam: float
    search_ratio: float
    final: ExpectedRatioEstimate
    evaluations: int
    solves: int
    history: tuple[Improvement, ...]
    seed: int | None
    options: dict[str, Any] = field(default_factory=dict)

    def compact(self) -> str:
        jobs = " ".join(f"({job.procs},{_num(job.time)})" for job in self.instance.jobs)
        return f"P={self.instance.P} qbar={self.qbar:.4g} lambda={self.lam:.4g} | (p,t): {jobs}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "heuristic": self.heuristic, "priority": self.priority, "instance": self.compact(),
            "qbar": self.qbar, "lambda": self.lam, "search_ratio": self.search_ratio,
            "final": asdict(self.final),
            "evaluations": self.evaluations, "solves": self.solves, "seed": self.seed,
            "options": self.options, "history": [imp._asdict() for imp in self.history],
        }

    def write(self, directory: str | Path) -> list[Path]:
        """``instance.json`` and ``summary.json`` in ``directory``."""
        from coschedule.io import save_json, save_rigid_instance

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        save_rigid_instance(self.instance, out / "instance.json")
        save_json(self.to_dict(), out / "summary.json")
        return [out / "instance.json", out / "summary.json"]


@dataclass(frozen=True)
class _Stochastic:
    jobs: _Rigid  # failures unused (all 0)
    qbar: float


class _ExpectedProblem:
    """Instances and error rates for :func:`expected_ratio_search` (failures are random)."""

    def __init__(self, heuristic: str, priority: str, n: int, P: int, *, max_time: int,
                 qbar_range: tuple[float, float], samples: int, sample_seed: int,
                 time_limit: float | None, threads: int) -> None:
        self.jobs = _RigidProblem(heuristic, priority, n, P, max_failures=0, integral=True,
                                  max_time=max_time, time_limit=time_limit, threads=threads,
                                  heuristic_seed=0)
        self.heuristic, self.priority = heuristic, priority
        self.P = P
        self.qbar_range = qbar_range
        self.samples = samples
        self.sample_seed = sample_seed
        self.cache = _OptCache(time_limit, threads)
        self.estimates: dict[_Stochastic, ExpectedRatioEstimate] = {}

    def _qbar(self, rng: np.random.Generator) -> float:
        lo, hi = self.qbar_range
        return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))

    def random(self, rng: np.random.Generator) -> _Stochastic:
        return _Stochastic(self.jobs.random(rng), self._qbar(rng))

    def neighbour(self, c: _Stochastic, rng: np.random.Generator) -> _Stochastic:
        if rng.random() < 0.25:
            lo, hi = self.qbar_range
            q = min(hi, max(lo, c.qbar * math.exp(rng.normal(0.0, 0.5))))
            if q != c.qbar:
                return _Stochastic(c.jobs, q)
        return _Stochastic(self.jobs.neighbour(c.jobs, rng), c.qbar)

    def estimate(self, c: _Stochastic) -> ExpectedRatioEstimate:
        est = self.estimates.get(c)
        if est is None:
            inst = c.jobs.instance(self.P)
            model = SilentErrors.from_qbar(inst, c.qbar)
            # common random numbers: every candidate is estimated from the same stream
            est = expected_ratio(self.heuristic, inst, model, priority=self.priority,
                                 samples=self.samples, seed=self.sample_seed, _cache=self.cache)
            self.estimates[c] = est
        return est

    # The engine maximises makespan / optimum: it sees the estimated ratio r as a makespan r
    # against an optimum of 1 (lower bound 1, objective 1), so its ratio is r itself.
    def run_heuristic(self, c: _Stochastic) -> tuple[None, float, float]:
        return None, self.estimate(c).ratio_opt, 1.0

    def solve(self, c: _Stochastic, schedule: None) -> ExactResult:
        return ExactResult(Status.FEASIBLE, 1.0, 1.0, None, "monte-carlo", "cpsat", 0.0)

    def size(self, c: _Stochastic) -> int:
        return len(c.jobs.procs)

    def shrink_moves(self, c: _Stochastic) -> Iterator[_Stochastic]:
        return iter(())


def expected_ratio_search(
    heuristic: str = "r-shelf-nb",
    *,
    priority: str = "LPT",
    n: int = 4,
    P: int = 4,
    restarts: int = 2,
    steps: int = 10,
    seed: int = 0,
    samples: int = 200,
    final_samples: int = 1000,
    qbar_range: tuple[float, float] = (0.01, 0.6),
    max_time: int = 20,
    time_limit_per_solve: float = 2.0,
    threads: int = 1,
    progress: Callable[[Progress], None] | None = None,
    on_improvement: Callable[[Improvement], None] | None = None,
) -> ExpectedRatioResult:
    """Search tiny instances and error rates for a large *expected*-makespan ratio (§4.4).

    The open question of §4.4: does any shelf algorithm have a constant ratio
    ``E(T_ALG) / E(T_OPT)`` under the exponential model? Neither expectation is computable
    exactly here, so this is a cheap, clearly approximate starting point: the same local
    search as :func:`search_worst` (jobs with integer times on ``P`` processors, no failure
    scenario: failures are random) plus a move on ``qbar`` (the mean failure probability,
    ``lambda = -ln(1 - qbar) / abar``, log-uniform in ``qbar_range``), maximising the Monte
    Carlo ratio of :func:`expected_ratio` on ``samples`` scenarios drawn from one fixed stream
    (common random numbers, so candidates are compared on the same draws). The winner is then
    re-estimated on ``final_samples`` fresh scenarios, with confidence intervals
    (``result.final``): the search estimate is biased upwards by the selection.

    Keep ``n <= 5``: every distinct scenario may cost one CP-SAT solve.
    """
    _check_sizes(n=n, P=P, restarts=restarts, steps=steps)
    lo, hi = qbar_range
    if not 0 < lo <= hi < 1:
        raise ValueError(f"qbar_range must satisfy 0 < lo <= hi < 1, got {qbar_range}")
    rng = as_generator(seed)
    sample_seed, final_seed = (int(x) for x in rng.integers(0, 2**63 - 1, size=2))
    problem = _ExpectedProblem(heuristic, priority, n, P, max_time=max_time, qbar_range=qbar_range,
                               samples=samples, sample_seed=sample_seed,
                               time_limit=time_limit_per_solve, threads=threads)
    engine: _Engine[_Stochastic] = _Engine(problem, progress, on_improvement)
    best, _ = engine.search(rng, restarts, steps, 0.0)
    search_est = problem.estimate(best)
    inst = best.jobs.instance(P, name=f"expected-{heuristic.lower()}-{priority.lower()}-P{P}")
    model = SilentErrors.from_qbar(inst, best.qbar)
    final = expected_ratio(heuristic, inst, model, priority=priority, samples=final_samples,
                           seed=final_seed, _cache=problem.cache)
    options = {"n": n, "P": P, "restarts": restarts, "steps": steps, "samples": samples,
               "final_samples": final_samples, "qbar_range": list(qbar_range), "max_time": max_time,
               "time_limit_per_solve": time_limit_per_solve, "threads": threads,
               "search_estimate": asdict(search_est)}
    return ExpectedRatioResult(
        heuristic.lower(), priority, inst, best.qbar, model.lam, search_est.ratio_opt, final,
        engine.evaluations, problem.cache.solves, tuple(engine.history),
        seed if isinstance(seed, int) else None, options,
    )
