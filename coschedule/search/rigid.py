"""Resilient rigid heuristics against ``T_OPT(f)``: :func:`rigid_ratio` on one instance and
scenario, :func:`search_worst` over instances and scenarios ([Benoit2021] §4).

The candidates are tuples of processors, times and failures per job (:class:`_Rigid`); the
optimum is :func:`coschedule.exact.rigid.solve_rigid_opt` (CP-SAT), seeded with the
heuristic's schedule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from coschedule.results import ExactResult
from coschedule.rigid import FailureScenario, RigidInstance, RigidJob, lower_bound
from coschedule.rng import as_generator
from coschedule.schedule import Schedule

from .engine import RATIO_EPS, Improvement, Progress, _check_sizes, _Engine, _integral
from .result import SearchResult


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
    ratio_upper`` always (see *What is certified* in :mod:`coschedule.search`).
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
        A name of :data:`coschedule.heuristics.RIGID_HEURISTICS`: the seven of §5.1 (``r-list-0``,
        ``r-list-1``, ``r-list-q``, ``r-shelf-b``, ``r-shelf-nb``, ``r-shelffill-b``,
        ``r-shelffill-nb``), R-List with kept reservations (``r-list-1-kept``, ``r-list-q-kept``)
        or R-ShelfFill's looser fillings (``r-shelffill-{b,nb}-{failed,queue}``).
    priority
        Its priority rule (:data:`coschedule.heuristics.priorities.PRIORITIES`); RANDOM draws its order
        from ``heuristic_seed``.
    n, P
        At most ``n`` jobs (at least 1) on ``P`` processors.
    restarts, steps
        Random starts, and local moves after each.
    seed
        Seeds the one generator of the search (see *Determinism* in :mod:`coschedule.search`).
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
        Shrink the best instance to a minimal one (*Method* in :mod:`coschedule.search`).
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
