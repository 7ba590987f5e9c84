"""Exact solvers for rigid jobs under a known failure scenario (``resilient-rigid-jobs.md`` §3).

* :func:`solve_rigid_opt` -- ``T_OPT(f)``, the clairvoyant optimum of §3.3: every attempt of
  every job is known in advance and placed by a CP-SAT model (cumulative resource; with
  ``contiguous=True`` also a processor block per attempt: rectangle strip packing).
* :func:`solve_shelf_opt` -- the best *shelf* schedule under ``f`` (the yardstick of Prop. 3).
* :func:`expected_makespan_mc` and :func:`expected_makespan_exact` -- the expected makespan
  (7) of any algorithm, by sampling or by enumerating scenarios with a sound error bound.

Integer time unit and what is proved
------------------------------------
CP-SAT needs integers. Times are measured in an explicit unit ``u`` (default
:func:`coschedule.exact.units.time_unit_for`, a power of two with the longest job at most ``2^24 u``)
and every attempt of job ``j`` lasts ``d_j = ceil(t_j / u)`` units, computed exactly with
fractions. Write ``C`` for the optimum of the rounded model and ``OPT`` for the true one.

*Upper side.* Rounding *up* makes every integer schedule feasible in real time: the decoded
schedule keeps, for every pair of attempts that are disjoint in the integer solution, the
same order, and starts each attempt as early as these orders allow with the true durations
(a longest path). Two attempts that overlap in real time then overlap in the integer
solution, so the capacity (2), the chains (3) and, in contiguous mode, the processor blocks
still hold, and every real start is at most ``u`` times its integer start. Hence the
reported objective (the makespan of the decoded schedule, rechecked by
:func:`coschedule.validate.validate_rigid`) is at most ``C u``.

*Lower side* (the rule used for ``bound`` and ``tolerance``). Let ``K`` be the largest
number of attempts whose durations sum to at most the objective (an upper bound on
``OPT``): no chain of pairwise disjoint attempts of a real schedule of length ``OPT`` has
more than ``K`` attempts. Take an optimal real schedule ``s`` and give each attempt ``i``
its *height* ``h_i`` in the interval order (the number of attempts of the longest chain
that ends before it; ``0 <= h_i <= K - 1``). The integer starts
``y_i = floor(s_i / u) + h_i`` with durations ``d_i`` are feasible for the rounded model:
if ``i`` ends before ``k`` starts in ``s`` then
``y_i + d_i <= ceil(e_i / u) + h_i <= floor(s_k / u) + 1 + h_i <= y_k``, so every pair that
was disjoint stays disjoint, and by Helly's property on the line every set of pairwise
overlapping attempts had a common instant in ``s``. Its makespan is at most
``ceil(OPT / u) + K - 1``, so ``C <= ceil(OPT / u) + K - 1`` and

    ``OPT > (C_lb - K) u``    for any proved lower bound ``C_lb`` of ``C``.

``bound = max(L(f), (C_lb - K) u)`` and ``tolerance = K u``: when CP-SAT proves ``C``
optimal, ``objective - OPT <= C u - (C - K) u = K u``. When every ``t_j`` is a multiple of
``u`` there is no rounding at all (a left-justified optimal schedule starts every attempt at
a sum of durations, i.e. at a multiple of ``u``), and then ``bound = C_lb u`` and
``tolerance = 0``. With the default unit ``K u`` is about ``K 2^-24`` of the longest job.

A time limit never gives ``OPTIMAL``: that status means CP-SAT proved the rounded model
optimal. Both solvers first build a schedule with a greedy (a serial schedule-generation
scheme, SGS, for ``T_OPT``; first fit for shelves); it bounds the horizon, and it is
returned, ``FEASIBLE`` with the proved bound, if CP-SAT finds nothing better within the
limit (so ``UNKNOWN`` does not occur).
"""

from __future__ import annotations

import bisect
import itertools
import math
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from coschedule.errors import InvalidSchedule
from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance, SilentErrors, lower_bound
from coschedule.rng import Seed
from coschedule.schedule import Execution, Outcome, Schedule
from coschedule.timelimit import Deadline
from coschedule.validate import validate_rigid

from .mip import cpsat_solve
from .units import time_unit_for

__all__ = [
    "RigidCpModel",
    "ShelfCpModel",
    "build_rigid_cp",
    "build_shelf_cp",
    "chain_bound",
    "expected_makespan_exact",
    "expected_makespan_mc",
    "solve_rigid_opt",
    "solve_shelf_opt",
]

#: integer times above this cannot be handled exactly by CP-SAT (int64 with head room)
MAX_UNITS = 2**60


# ------------------------------------------------------------------ attempts and units


@dataclass(frozen=True)
class _Attempts:
    """All attempts of a scenario, flattened: attempt ``i`` is attempt ``attempt[i]`` of
    ``job[i]``; ``pred[i]`` is the previous attempt of the same job (``-1`` for the first)."""

    job: tuple[int, ...]
    attempt: tuple[int, ...]
    pred: tuple[int, ...]
    last: tuple[int, ...]  # per job: index of its successful (last) attempt

    @classmethod
    def of(cls, scenario: FailureScenario) -> _Attempts:
        job: list[int] = []
        attempt: list[int] = []
        pred: list[int] = []
        last: list[int] = []
        for j, f in enumerate(scenario.failures):
            for a in range(f + 1):
                pred.append(len(job) - 1 if a else -1)
                job.append(j)
                attempt.append(a)
            last.append(len(job) - 1)
        return cls(tuple(job), tuple(attempt), tuple(pred), tuple(last))

    def __len__(self) -> int:
        return len(self.job)


def _unit(instance: RigidInstance, time_unit: float | None) -> float:
    if time_unit is None:
        return time_unit_for(instance.times)
    u = float(time_unit)
    if not (math.isfinite(u) and u > 0):
        raise ValueError(f"time unit must be positive and finite, got {time_unit!r}")
    return u


def _durations(instance: RigidInstance, unit: float) -> tuple[list[int], bool, float]:
    """``d_j = ceil(t_j / u)`` exactly; whether every ``t_j`` is a multiple of ``u``; and the
    largest rounding excess ``max_j (d_j - t_j / u)`` in units (in ``[0, 1)``)."""
    fu = Fraction(unit)
    d, exact, excess = [], True, 0.0
    for job in instance.jobs:
        q = Fraction(job.time) / fu
        dj = math.ceil(q)
        d.append(int(dj))
        exact = exact and q == dj
        excess = max(excess, float(dj - q))
    if max(d) > MAX_UNITS:
        raise ValueError(f"time unit {unit:g} is too small: a job lasts {max(d)} units")
    return d, exact, excess


def chain_bound(durations: Sequence[float], length: float) -> int:
    """The largest ``k`` such that some ``k`` of ``durations`` sum to at most ``length``.

    No chain of pairwise disjoint attempts of a schedule of makespan ``length`` has more
    attempts (the rounding rule of the module docstring). ``O(N log N)``.

    >>> chain_bound([3.0, 1.0, 2.0, 5.0], 6.0)
    3
    """
    total, k = 0.0, 0
    slack = 1e-9 * max(1.0, abs(length))  # generous: over-counting keeps the bound sound
    for x in sorted(durations):
        if total + x > length + slack:
            break
        total += x
        k += 1
    return max(k, 1)


# ------------------------------------------------------------------ serial SGS (integer units)


def _earliest_profile(times: list[int], loads: list[int], r: int, d: int, p: int, cap: int) -> int:
    """Earliest ``t >= r`` with ``load + p <= cap`` on ``[t, t + d)`` (step profile)."""
    k = bisect.bisect_right(times, r) - 1
    t = r
    while True:
        m = k
        while m < len(times) and times[m] < t + d:
            if loads[m] + p > cap:
                break
            m += 1
        else:
            return t
        # segment m is full: no start before its end fits (the last segment is empty)
        t, k = times[m + 1], m + 1


def _split(times: list[int], loads: list[int], x: int) -> int:
    idx = bisect.bisect_left(times, x)
    if idx < len(times) and times[idx] == x:
        return idx
    times.insert(idx, x)
    loads.insert(idx, loads[idx - 1])
    return idx


def _earliest_block(
    start: list[int],
    end: list[int],
    off: list[int],
    dem: Sequence[int],
    placed: list[int],
    r: int,
    d: int,
    p: int,
    cap: int,
) -> tuple[int, int]:
    """Earliest ``(t, offset)`` with ``t >= r`` and a free block of ``p`` processors at the
    lowest offset during ``[t, t + d)`` (contiguous mode). Candidates: ``r`` and the ends."""
    cands = sorted({r} | {end[k] for k in placed if end[k] > r})
    for t in cands:
        blocks = sorted(
            (off[k], off[k] + dem[k]) for k in placed if start[k] < t + d and end[k] > t
        )
        o = 0
        for lo, hi in blocks:
            if lo - o >= p:
                break
            o = max(o, hi)
        if cap - o >= p:
            return t, o
    raise AssertionError("unreachable: after the last end the whole platform is free")


def _serial_sgs(
    order: Sequence[int],
    dur: Sequence[int],
    dem: Sequence[int],
    pred: Sequence[int],
    cap: int,
    contiguous: bool,
) -> tuple[list[int], list[int]]:
    """Serial schedule-generation scheme in integer units: each attempt of ``order`` (which
    lists every chain in order) starts as early as its chain and the resource allow.

    Returns ``(starts, offsets)`` (offsets all 0 without ``contiguous``). ``O(N^2)`` per
    attempt with the profile, ``O(N^2 log N)`` in contiguous mode.
    """
    n = len(dur)
    start, end, off = [0] * n, [0] * n, [0] * n
    done = [False] * n
    times, loads = [0], [0]  # load on [times[k], times[k + 1]); the last segment is empty
    placed: list[int] = []
    for i in order:
        if pred[i] >= 0 and not done[pred[i]]:
            raise ValueError(f"activity list places attempt {i} before its predecessor")
        r = end[pred[i]] if pred[i] >= 0 else 0
        if contiguous:
            t, o = _earliest_block(start, end, off, dem, placed, r, dur[i], dem[i], cap)
        else:
            t, o = _earliest_profile(times, loads, r, dur[i], dem[i], cap), 0
            a = _split(times, loads, t)
            b = _split(times, loads, t + dur[i])
            for m in range(a, b):
                loads[m] += dem[i]
        start[i], end[i], off[i], done[i] = t, t + dur[i], o, True
        placed.append(i)
    return start, off


def _default_order(att: _Attempts, times: Sequence[float]) -> list[int]:
    """Attempts by decreasing remaining chain work ``(f_j + 1 - a) t_j`` (critical path
    first); the order respects every chain."""
    nat = {j: 0 for j in att.job}
    for j in att.job:
        nat[j] += 1
    return sorted(
        range(len(att)),
        key=lambda i: (
            -(nat[att.job[i]] - att.attempt[i]) * times[att.job[i]],
            att.job[i],
            att.attempt[i],
        ),
    )


def _order_from_schedule(att: _Attempts, schedule: Schedule) -> list[int]:
    index = {(j, a): i for i, (j, a) in enumerate(zip(att.job, att.attempt))}
    runs = sorted(schedule.executions, key=lambda e: (e.start, e.job, e.attempt))
    return [index[(e.job, e.attempt)] for e in runs]


def _integer_from_schedule(
    att: _Attempts, dur: Sequence[int], schedule: Schedule, contiguous: bool
) -> tuple[list[int], list[int]] | None:
    """Integer starts for a real schedule: keep the order of every pair of attempts that are
    disjoint in it and start each attempt as early as these orders allow with the rounded
    durations (a longest path). The result is feasible for the rounded model and its
    makespan is at most ``makespan / u + K`` (``K`` attempts on the longest chain of
    disjoint attempts), by the argument of the module docstring. In contiguous mode the
    offsets are the first node of each execution; ``None`` if the schedule names none."""
    index = {(j, a): i for i, (j, a) in enumerate(zip(att.job, att.attempt))}
    n = len(att)
    s_real, e_real, offs = [0.0] * n, [0.0] * n, [0] * n
    for e in schedule.executions:
        i = index[(e.job, e.attempt)]
        s_real[i], e_real[i] = e.start, e.end
        if contiguous:
            if e.nodes is None:
                return None
            offs[i] = min(e.nodes)
    starts, ends = [0] * n, [0] * n
    by_start = sorted(range(n), key=lambda i: s_real[i])
    for pos, i in enumerate(by_start):
        y = 0
        for k in by_start[:pos]:
            # the chain edge is explicit: the validator lets attempts of a job touch
            # within a relative 1e-9, capacity and blocks it checks exactly
            if (e_real[k] <= s_real[i] or k == att.pred[i]) and ends[k] > y:
                y = ends[k]
        starts[i], ends[i] = y, y + dur[att.job[i]]
    return starts, offs


# ------------------------------------------------------------------ decoding


def _decode_rigid(
    instance: RigidInstance,
    att: _Attempts,
    dur: Sequence[int],
    starts: Sequence[int],
    offsets: Sequence[int] | None,
) -> Schedule:
    """Real schedule from integer starts: keep the order of every pair of attempts that are
    disjoint in the integer solution and start each attempt as early as these orders allow
    with the true durations (see the module docstring). ``O(N^2)``."""
    n = len(att)
    t = [instance.jobs[j].time for j in att.job]
    ends_int = [s + d for s, d in zip(starts, (dur[j] for j in att.job))]
    real_start = [0.0] * n
    real_end = [0.0] * n
    by_start = sorted(range(n), key=lambda i: starts[i])
    for pos, i in enumerate(by_start):
        s = 0.0
        for k in by_start[:pos]:
            if ends_int[k] <= starts[i] and real_end[k] > s:
                s = real_end[k]
        real_start[i], real_end[i] = s, s + t[i]
    execs = []
    for i in range(n):
        j, a = att.job[i], att.attempt[i]
        nodes = None
        if offsets is not None:
            nodes = tuple(range(offsets[i], offsets[i] + instance.jobs[j].procs))
        outcome = Outcome.SUCCESS if i == att.last[j] else Outcome.FAILURE
        execs.append(
            Execution(j, a, real_start[i], real_end[i], instance.jobs[j].procs, outcome, nodes)
        )
    return Schedule(tuple(sorted(execs, key=lambda e: (e.start, e.job, e.attempt))))


# ------------------------------------------------------------------ T_OPT(f): the CP model


@dataclass
class RigidCpModel:
    """The CP-SAT model of ``T_OPT(f)`` and what is needed to decode it."""

    model: Any  # ortools.sat.python.cp_model.CpModel
    starts: list[Any]
    offsets: list[Any] | None
    makespan: Any
    attempts: _Attempts
    durations: list[int]  # per job, in units
    unit: float
    exact: bool  # every t_j is a multiple of the unit: no rounding
    contiguous: bool
    horizon: int
    info: dict[str, Any] = field(default_factory=dict)


def _identical_groups(
    instance: RigidInstance, scenario: FailureScenario, dur: Sequence[int]
) -> list[list[int]]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for j, job in enumerate(instance.jobs):
        groups.setdefault((job.procs, dur[j], scenario.failures[j]), []).append(j)
    return [g for g in groups.values() if len(g) > 1]


def _disjunctive_cliques(instance: RigidInstance) -> list[list[int]]:
    """The maximal sets of jobs that pairwise cannot run at the same time (``p_j + p_k > P``),
    with at least two jobs. The incompatibility graph is a threshold graph: its maximal
    cliques are the jobs above ``P / 2`` together with at most one job ``j`` of the others,
    the one with ``p_j > P - p_k`` for every big ``k`` (only the big jobs above ``P - p_j``
    stay). ``O(n^2)``."""
    P = instance.P
    procs = [job.procs for job in instance.jobs]
    big = [j for j in range(instance.n) if 2 * procs[j] > P]
    cliques = [big] if len(big) > 1 else []
    for j in range(instance.n):
        if 2 * procs[j] <= P:
            partners = [k for k in big if procs[j] + procs[k] > P]
            if partners:
                cliques.append(sorted([j, *partners]))
    # drop cliques contained in another one
    sets = [set(c) for c in cliques]
    keep = [
        c
        for a, c in enumerate(cliques)
        if not any(
            b != a and sets[a] <= sets[b] and (sets[a] != sets[b] or b < a)
            for b in range(len(sets))
        )
    ]
    return keep


def build_rigid_cp(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    contiguous: bool = False,
    time_unit: float | None = None,
    horizon: int | None = None,
) -> RigidCpModel:
    """The CP-SAT model of ``T_OPT(f)`` (§3.3, constraints (1)-(3)), in integer units.

    One fixed-size interval per attempt (``d_j = ceil(t_j / u)`` units), a cumulative of
    capacity ``P`` with demands ``p_j`` (2), attempts of a job chained (3), and the makespan
    ``M >= end`` of every last attempt, minimised. ``contiguous=True`` adds an offset
    ``x in [0, P - p_j]`` per attempt and ``NoOverlap2D`` over (time x processors); the
    cumulative stays as a redundant constraint. Redundant constraints: a disjunction
    (``NoOverlap``) over every maximal set of jobs that pairwise cannot run together
    (``p_j + p_k > P``, see :func:`_disjunctive_cliques`), ``M`` at least the unit lower
    bound ``max(max_j (f_j + 1) d_j, ceil(sum_j (f_j + 1) d_j p_j / P))``, and chains of
    identical jobs (same ``p``, ``d``, ``f``) ordered by their first start.

    ``horizon`` (units) must be the makespan of a feasible integer schedule; by default the
    sum of all durations (everything in sequence).
    """
    from ortools.sat.python import cp_model

    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, exact, _ = _durations(instance, unit)
    att = _Attempts.of(scenario)
    P = instance.P
    dem = [instance.jobs[j].procs for j in att.job]
    d = [dur[j] for j in att.job]
    total = sum(d)
    if horizon is None:
        horizon = total
    if horizon > MAX_UNITS:
        raise ValueError(f"time unit {unit:g} is too small: horizon of {horizon} units")
    lb = max(
        max((f + 1) * dur[j] for j, f in enumerate(scenario.failures)),
        -(-sum(di * p for di, p in zip(d, dem)) // P),
    )
    if lb > horizon:
        raise ValueError(f"horizon {horizon} is below the lower bound {lb} (units)")
    m = cp_model.CpModel()
    nat = [f + 1 for f in scenario.failures]
    starts, intervals = [], []
    for i in range(len(att)):
        j, a = att.job[i], att.attempt[i]
        # a earlier attempts before it, nat - a attempts (itself included) from it on
        s = m.new_int_var(a * dur[j], horizon - (nat[j] - a) * dur[j], f"s{j}_{a}")
        starts.append(s)
        intervals.append(m.new_fixed_size_interval_var(s, dur[j], f"I{j}_{a}"))
        if att.pred[i] >= 0:
            m.add(s >= starts[att.pred[i]] + dur[j])
    m.add_cumulative(intervals, dem, P)
    cliques = _disjunctive_cliques(instance)
    for clique in cliques:
        members = set(clique)
        m.add_no_overlap([intervals[i] for i in range(len(att)) if att.job[i] in members])
    offsets = None
    if contiguous:
        offsets, blocks = [], []
        for i in range(len(att)):
            j, a = att.job[i], att.attempt[i]
            x = m.new_int_var(0, P - dem[i], f"x{j}_{a}")
            offsets.append(x)
            blocks.append(m.new_fixed_size_interval_var(x, dem[i], f"B{j}_{a}"))
        m.add_no_overlap_2d(intervals, blocks)
    first = {j: i for i, (j, a) in enumerate(zip(att.job, att.attempt)) if a == 0}
    groups = _identical_groups(instance, scenario, dur)
    for g in groups:
        for j, k in itertools.pairwise(g):
            m.add(starts[first[j]] <= starts[first[k]])
    makespan = m.new_int_var(lb, horizon, "M")
    for j, i in enumerate(att.last):
        m.add(makespan >= starts[i] + dur[j])
    m.minimize(makespan)
    info = {
        "attempts": len(att),
        "unit": unit,
        "horizon_units": horizon,
        "lb_units": lb,
        "identical_groups": len(groups),
    }
    return RigidCpModel(
        m, starts, offsets, makespan, att, dur, unit, exact, contiguous, horizon, info
    )


def _canonical(att: _Attempts, groups: list[list[int]], starts: list[int], offs: list[int]) -> None:
    """Relabel chains of identical jobs so that their first starts are sorted (in place), to
    agree with the symmetry-breaking constraints of :func:`build_rigid_cp`."""
    chain: dict[int, list[int]] = {}
    for i, j in enumerate(att.job):
        chain.setdefault(j, []).append(i)
    for g in groups:
        vals = sorted(([starts[i] for i in chain[j]], [offs[i] for i in chain[j]]) for j in g)
        for j, (ss, oo) in zip(g, vals):
            for i, s, o in zip(chain[j], ss, oo):
                starts[i], offs[i] = s, o


def _names_blocks(instance: RigidInstance, scenario: FailureScenario, schedule: Schedule) -> bool:
    try:
        validate_rigid(instance, scenario, schedule, contiguous=True)
    except InvalidSchedule:
        return False
    return True


def _cp_solver(time_limit: float | None, threads: int | None) -> Any:
    from ortools.sat.python import cp_model

    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(0.0, float(time_limit))
    # as in exact.mip: CP-SAT's LP-based workers come only from 8 workers up
    solver.parameters.num_workers = int(threads) if threads else max(8, os.cpu_count() or 1)
    solver.parameters.random_seed = 0
    return solver


def _solve_within(solver: Any, model: Any, deadline: Deadline) -> Any:
    """CP-SAT within what is left of the limit (:mod:`coschedule.timelimit`: a millisecond when
    building the model used it all; the caller keeps its heuristic schedule)."""
    return cpsat_solve(solver, model, deadline)


def _limit_info(code: Any, time_limit: float | None, t0: float) -> dict[str, str]:
    """``{"time_limit_reached": ...}`` when the limit stopped the solve before a proof."""
    from ortools.sat.python import cp_model

    if time_limit is None or code == cp_model.OPTIMAL or time.perf_counter() - t0 < time_limit:
        return {}
    return {"time_limit_reached": "time limit reached before CP-SAT proved optimality"}


def solve_rigid_opt(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    contiguous: bool = False,
    time_limit: float | None = None,
    time_unit: float | None = None,
    threads: int | None = None,
    hint: Schedule | None = None,
) -> ExactResult:
    """``T_OPT(f)``: the clairvoyant optimal makespan under failure scenario ``f`` (§3.3).

    Minimises ``max_j (s_j^(f_j+1) + t_j)`` subject to (1)-(3): every attempt on ``p_j``
    processors for ``t_j``, at most ``P`` processors at any time, attempts of a job in
    sequence. With ``contiguous=True`` each attempt also gets a block of ``p_j`` consecutive
    processors (rectangle strip packing, §2.1), recorded in ``Execution.nodes``.

    Parameters
    ----------
    instance, scenario
        The jobs and the number of failed attempts of each.
    contiguous
        Solve the strip-packing variant.
    time_limit
        Seconds for CP-SAT (``None``: until proved).
    time_unit
        The integer time unit ``u`` (default :func:`coschedule.exact.units.time_unit_for`).
    threads
        CP-SAT workers (default ``max(8, cores)``).
    hint
        A feasible schedule (e.g. from a heuristic). It is converted to integer units by
        keeping the order of its disjoint attempts (makespan at most the hint's plus ``K u``;
        in contiguous mode with its ``nodes`` as blocks, or, without them, by replaying its
        order of start times with the serial SGS); it bounds the horizon and seeds CP-SAT.

    Returns
    -------
    ExactResult
        ``solution`` is a :class:`~coschedule.schedule.Schedule` that passes
        :func:`~coschedule.validate.validate_rigid` (``contiguous`` too); ``objective`` its
        true makespan; ``bound >= L(f)`` a proved lower bound on ``T_OPT(f)``; ``OPTIMAL``
        only if CP-SAT proved the rounded model optimal, and then
        ``objective - T_OPT(f) <= tolerance`` (the rule of the module docstring).

    Notes
    -----
    NP-hard (it contains failure-free rigid scheduling). Measured on §5.1's synthetic jobs
    (``P = 10000``, ``qbar = 0.3``, 2 cores, 60 s limit): ``n = 10`` and ``20`` proved in
    under 0.1 s (10 seeds each; there ``L(f)`` is tight); ``n = 40``: 3 seeds of 6 proved in
    0.02 s, the other 3 stopped at a 2.4-3.1 % gap with the bound stuck at ``L(f)``. The
    proof is hard exactly when ``T_OPT > L(f)``; the contiguous variant is harder still. Use
    ``time_limit`` and read ``bound``.
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, exact, _ = _durations(instance, unit)
    att = _Attempts.of(scenario)
    d = [dur[j] for j in att.job]
    dem = [instance.jobs[j].procs for j in att.job]
    # integer solutions for the horizon and the hint: the serial SGS (critical path first)
    # and, if given, the hint converted to integer units
    heuristics: list[tuple[str, list[int], list[int]]] = []
    heuristics.append(
        (
            "sgs",
            *_serial_sgs(
                _default_order(att, [job.time for job in instance.jobs]),
                d,
                dem,
                att.pred,
                instance.P,
                contiguous,
            ),
        )
    )
    if hint is not None:
        validate_rigid(instance, scenario, hint)
        converted = None
        if not contiguous or _names_blocks(instance, scenario, hint):
            converted = _integer_from_schedule(att, dur, hint, contiguous)
        if converted is None:  # contiguous without processor blocks: replay its order
            converted = _serial_sgs(
                _order_from_schedule(att, hint), d, dem, att.pred, instance.P, True
            )
        heuristics.append(("hint", *converted))
    heur_name, heur_starts, heur_offs = min(
        heuristics, key=lambda h: max(s + di for s, di in zip(h[1], d))
    )
    heur_units = max(s + di for s, di in zip(heur_starts, d))

    cp = build_rigid_cp(
        instance, scenario, contiguous=contiguous, time_unit=unit, horizon=heur_units
    )
    if hint is not None:
        # only a caller's hint: hinting the SGS schedule made CP-SAT's proofs of small
        # instances 100 times slower (it presolves less to keep a hint feasible)
        _, h_starts, h_offs = heuristics[-1]
        _canonical(att, _identical_groups(instance, scenario, dur), h_starts, h_offs)
        for var, v in zip(cp.starts, h_starts):
            cp.model.add_hint(var, v)
        if cp.offsets is not None:
            for var, v in zip(cp.offsets, h_offs):
                cp.model.add_hint(var, v)
        cp.model.add_hint(cp.makespan, max(s + di for s, di in zip(h_starts, d)))

    solver = _cp_solver(None, threads)
    code = _solve_within(solver, cp.model, Deadline.after(time_limit, t0))
    if code in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise RuntimeError(
            f"CP-SAT says {solver.status_name(code)} on a model with a known solution (a bug)"
        )
    candidates = [(heur_name, heur_starts, heur_offs if contiguous else None)]
    cp_units = cp_lb = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        cp_units = round(solver.objective_value)
        cp_lb = math.ceil(solver.best_objective_bound - 1e-6)  # the objective is an integer
        starts = [int(solver.value(v)) for v in cp.starts]
        offs = [int(solver.value(v)) for v in cp.offsets] if cp.offsets is not None else None
        candidates.insert(0, ("cpsat", starts, offs))
    best_sched, best_obj, source = None, math.inf, ""
    for name, starts, offs in candidates:
        sched = _decode_rigid(instance, att, dur, starts, offs)
        obj = validate_rigid(instance, scenario, sched, contiguous=contiguous)
        if obj < best_obj:
            best_sched, best_obj, source = sched, obj, name

    lb_f = lower_bound(instance, scenario)
    k = chain_bound([instance.jobs[j].time for j in att.job], best_obj)
    slack = 0 if exact else k
    tolerance = slack * unit
    bound = lb_f
    if cp_lb is not None:
        bound = max(bound, (cp_lb - slack) * unit)
    bound = min(bound, best_obj)  # sound: T_OPT <= objective
    status = Status.OPTIMAL if code == cp_model.OPTIMAL else Status.FEASIBLE
    info = {
        **cp.info,
        "source": source,
        "cp_status": solver.status_name(code),
        "cp_objective_units": cp_units,
        "cp_bound_units": cp_lb,
        "heuristic_units": heur_units,
        "chain_bound": k,
        "exact_unit": exact,
        "lower_bound_L": lb_f,
        "branches": solver.num_branches,
        "wall_time": solver.wall_time,
        **_limit_info(code, time_limit, t0),
    }
    return ExactResult(
        status,
        best_obj,
        bound,
        best_sched,
        "strip" if contiguous else "cumulative",
        "cpsat",
        time.perf_counter() - t0,
        tolerance=tolerance,
        info=info,
    )


# ------------------------------------------------------------------ optimal shelf schedule


@dataclass
class ShelfCpModel:
    """The CP-SAT model of the optimal shelf schedule and what is needed to decode it."""

    model: Any
    member: list[list[Any]]  # member[j][k]: job j has an attempt in shelf k
    heights: list[Any]
    durations: list[int]
    unit: float
    shelves: int
    info: dict[str, Any] = field(default_factory=dict)


def _greedy_shelves(
    instance: RigidInstance, scenario: FailureScenario, dur: Sequence[int]
) -> list[list[int]]:
    """First fit by decreasing duration: each attempt goes to the first shelf with room that
    does not hold the job yet. Returns the jobs of each shelf."""
    shelves: list[list[int]] = []
    used: list[int] = []
    for j in sorted(range(instance.n), key=lambda j: (-dur[j], j)):
        p = instance.jobs[j].procs
        for _ in range(scenario.failures[j] + 1):
            for k, shelf in enumerate(shelves):
                if used[k] + p <= instance.P and j not in shelf:
                    shelf.append(j)
                    used[k] += p
                    break
            else:
                shelves.append([j])
                used.append(p)
    return shelves


def build_shelf_cp(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    time_unit: float | None = None,
    shelves: int | None = None,
) -> ShelfCpModel:
    """The CP-SAT model of the optimal shelf schedule under ``f``.

    Attempts of a job sit in strictly increasing shelves, so a job has at most one attempt
    per shelf, and any permutation of the shelves stays valid (attempts are numbered in shelf
    order): a shelf schedule is a choice of ``f_j + 1`` distinct shelves per job. Booleans
    ``y[j, k]`` (job ``j`` in shelf ``k``): ``sum_k y[j, k] = f_j + 1``,
    ``sum_j p_j y[j, k] <= P``, ``h_k >= d_j`` if ``y[j, k]``, ``P h_k >= sum_j p_j d_j y[j, k]``
    (redundant), heights non-increasing in ``k`` (symmetry), minimise ``sum_k h_k``.
    ``shelves`` is the number of shelf slots (default: the number of attempts).
    """
    from ortools.sat.python import cp_model

    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, _, _ = _durations(instance, unit)
    nat = [f + 1 for f in scenario.failures]
    S = sum(nat) if shelves is None else int(shelves)
    if S < max(nat):
        raise ValueError(f"{S} shelves cannot hold the {max(nat)} attempts of one job")
    m = cp_model.CpModel()
    values = sorted({0, *dur})
    heights = [
        m.new_int_var_from_domain(cp_model.Domain.from_values(values), f"h{k}") for k in range(S)
    ]
    member = [[m.new_bool_var(f"y{j}_{k}") for k in range(S)] for j in range(instance.n)]
    for j in range(instance.n):
        m.add(sum(member[j]) == nat[j])
    for k in range(S):
        m.add(sum(instance.jobs[j].procs * member[j][k] for j in range(instance.n)) <= instance.P)
        for j in range(instance.n):
            m.add(heights[k] >= dur[j]).only_enforce_if(member[j][k])
        m.add(
            instance.P * heights[k]
            >= sum(instance.jobs[j].procs * dur[j] * member[j][k] for j in range(instance.n))
        )
        if k:
            m.add(heights[k - 1] >= heights[k])
    m.minimize(sum(heights))
    info = {"shelf_slots": S, "unit": unit}
    return ShelfCpModel(m, member, heights, dur, unit, S, info)


def _decode_shelves(
    instance: RigidInstance, scenario: FailureScenario, shelves: list[list[int]]
) -> Schedule:
    """Shelf ``k`` starts when shelf ``k - 1`` ends (its longest attempt); attempts of a job
    are numbered in shelf order."""
    execs = []
    count = [0] * instance.n
    t = 0.0
    for shelf in shelves:
        if not shelf:
            continue
        height = max(instance.jobs[j].time for j in shelf)
        for j in sorted(shelf):
            job = instance.jobs[j]
            a = count[j]
            count[j] += 1
            outcome = Outcome.SUCCESS if a == scenario.failures[j] else Outcome.FAILURE
            execs.append(Execution(j, a, t, t + job.time, job.procs, outcome))
        t = t + height
    return Schedule(tuple(execs))


def solve_shelf_opt(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    time_limit: float | None = None,
    time_unit: float | None = None,
    threads: int | None = None,
) -> ExactResult:
    """The optimal shelf schedule under failure scenario ``f`` (§2.1, §4.3).

    Every attempt goes to a shelf; shelves run in sequence; the attempts of a job sit in
    strictly increasing shelves; a shelf holds at most ``P`` processors and lasts as long as
    its longest attempt. Minimises the sum of the shelf heights (= the makespan) with
    :func:`build_shelf_cp` in integer units ``d_j = ceil(t_j / u)``.

    Rounding rule. For one assignment, each shelf's rounded height exceeds its true height
    by at most ``e u`` with ``e = max_j (d_j - t_j / u) < 1`` and never falls below it. Any
    assignment at least as good as the returned one has at most
    ``S = min(N, floor(objective / t_min) + 1)`` non-empty shelves (``N`` attempts; the
    ``+ 1`` absorbs floating-point error). Hence
    ``bound = max(L(f), (C_lb - S e) u)`` is proved, and ``OPTIMAL`` (CP-SAT proved the
    rounded model) means ``objective - optimum <= tolerance = S e u`` (0 when every ``t_j``
    is a multiple of ``u``).

    The optimum is ``>= T_OPT(f)``; Prop. 3's instance (``t_j = 1/j``, ``f_j = j - 1``) has
    ``T_OPT = 1`` against ``H_P = 1 + 1/2 + ... + 1/P`` for the best shelf schedule.
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, exact, excess = _durations(instance, unit)
    nat = [f + 1 for f in scenario.failures]
    greedy = _greedy_shelves(instance, scenario, dur)
    greedy_units = sum(max(dur[j] for j in shelf) for shelf in greedy)
    # an optimal assignment has at most greedy_units / d_min non-empty shelves
    slots = max(max(nat), min(sum(nat), greedy_units // min(dur)))
    cp = build_shelf_cp(instance, scenario, time_unit=unit, shelves=slots)
    # the greedy bounds the number of slots but is not hinted (hints slowed the proofs down)
    greedy_sorted = sorted(greedy, key=lambda sh: -max(dur[j] for j in sh))
    solver = _cp_solver(None, threads)
    code = _solve_within(solver, cp.model, Deadline.after(time_limit, t0))
    if code in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise RuntimeError(
            f"CP-SAT says {solver.status_name(code)} on a model with a known solution (a bug)"
        )
    candidates = [("greedy", greedy_sorted)]
    cp_lb = cp_units = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        cp_units = round(solver.objective_value)
        cp_lb = math.ceil(solver.best_objective_bound - 1e-6)
        shelves = [
            [j for j in range(instance.n) if solver.boolean_value(cp.member[j][k])]
            for k in range(slots)
        ]
        candidates.insert(0, ("cpsat", shelves))
    best_sched, best_obj, source, used = None, math.inf, "", 0
    for name, sh in candidates:
        sched = _decode_shelves(instance, scenario, sh)
        obj = validate_rigid(instance, scenario, sched)
        if obj < best_obj:
            best_sched, best_obj, source, used = sched, obj, name, sum(1 for x in sh if x)
    t_min = float(instance.times.min())
    n_shelves = min(sum(nat), math.floor(best_obj / t_min * (1 + 1e-9)) + 1)
    tolerance = 0.0 if exact else n_shelves * excess * unit
    bound = lower_bound(instance, scenario)
    if cp_lb is not None:
        bound = max(bound, cp_lb * unit - tolerance)
    bound = min(bound, best_obj)
    status = Status.OPTIMAL if code == cp_model.OPTIMAL else Status.FEASIBLE
    info = {
        **cp.info,
        "source": source,
        "cp_status": solver.status_name(code),
        "cp_objective_units": cp_units,
        "cp_bound_units": cp_lb,
        "greedy_units": greedy_units,
        "shelves": used,
        "branches": solver.num_branches,
        "wall_time": solver.wall_time,
        **_limit_info(code, time_limit, t0),
    }
    return ExactResult(
        status,
        best_obj,
        bound,
        best_sched,
        "shelf",
        "cpsat",
        time.perf_counter() - t0,
        tolerance=tolerance,
        info=info,
    )


# ------------------------------------------------------------------ expected makespan (7)

#: an algorithm: the makespan it reaches on an instance under a failure scenario
Algorithm = Callable[[RigidInstance, FailureScenario], float]


def expected_makespan_mc(
    instance: RigidInstance,
    model: SilentErrors,
    algorithm: Algorithm,
    *,
    samples: int = 1000,
    seed: Seed = None,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Monte Carlo estimate of ``E(T_ALG) = sum_f Q(f) T_ALG(f)`` (7).

    Draws ``samples`` scenarios from ``model`` (§3.4) and returns ``(mean, half_width)``: the
    sample mean and the half width ``z s / sqrt(samples)`` of the normal-approximation
    confidence interval at level ``confidence`` (``s`` the sample standard deviation).
    ``samples`` calls of ``algorithm``.
    """
    if samples < 2:
        raise ValueError(f"samples must be >= 2 for a confidence interval, got {samples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    values = [float(algorithm(instance, f)) for f in model.scenarios(instance, samples, seed)]
    mean = math.fsum(values) / samples
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    return mean, z * statistics.stdev(values, mean) / math.sqrt(samples)


def _compositions(n: int, total: int) -> Iterator[tuple[int, ...]]:
    """All ``f`` in ``N^n`` with ``sum(f) <= total``, in lexicographic order."""
    if n == 0:
        yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(n - 1, total - first):
            yield (first, *rest)


def expected_makespan_exact(
    instance: RigidInstance,
    model: SilentErrors,
    algorithm: Algorithm,
    *,
    max_failures: int,
) -> tuple[float, float, float]:
    """``E(T_ALG)`` (7) summed over every scenario with at most ``max_failures`` failures
    in total, with what the truncation neglects.

    Returns ``(value, neglected_mass, error_bound)``:

    * ``value = sum_{|f| <= m} Q(f) T(f)``, a lower bound on ``E(T_ALG)`` (``T >= 0``);
    * ``neglected_mass = P(|f| > m) = 1 - sum_{|f| <= m} Q(f)``;
    * ``error_bound``: ``E(T_ALG) <= value + error_bound``, valid when
      ``T(f) <= W(f) = sum_j (f_j + 1) t_j`` for every ``f`` -- true of any algorithm that
      keeps at least one attempt running until the end (every list or shelf schedule, and
      ``T_OPT``). Then the neglected part is at most
      ``E[W 1{|f| > m}] = sum_j t_j / (1 - q_j) - sum_{|f| <= m} Q(f) W(f)``, in closed form.
      If an enumerated scenario violates ``T(f) <= W(f)`` the bound is ``inf``.

    ``C(n + m, n)`` scenarios; ``algorithm`` runs on those of positive probability.
    """
    if max_failures < 0:
        raise ValueError(f"max_failures must be >= 0, got {max_failures}")
    q = [float(x) for x in model.q(instance)]
    times = [job.time for job in instance.jobs]
    base = math.prod(1.0 - x for x in q)
    terms, probs, works = [], [], []
    assumption = True
    for f in _compositions(instance.n, max_failures):
        prob = base * math.prod(qj**fj for qj, fj in zip(q, f))
        if prob == 0.0:
            continue
        work = math.fsum((fj + 1) * tj for fj, tj in zip(f, times))
        value = float(algorithm(instance, FailureScenario(f)))
        if value > work * (1 + 1e-9):
            assumption = False
        terms.append(prob * value)
        probs.append(prob)
        works.append(prob * work)
    neglected = max(0.0, 1.0 - math.fsum(probs))
    if not assumption or any(x >= 1.0 for x in q):
        return math.fsum(terms), neglected, math.inf
    mean_work = math.fsum(t / (1.0 - x) for t, x in zip(times, q))
    tail = max(0.0, mean_work - math.fsum(works)) + 1e-12 * mean_work
    return math.fsum(terms), neglected, tail
