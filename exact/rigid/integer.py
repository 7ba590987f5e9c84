"""Integer time units and integer schedules of the attempts: what the CP-SAT models of
:mod:`.topt` and :mod:`.shelf` are built from.

The attempts of a scenario flattened (:class:`_Attempts`), the durations ``d_j = ceil(t_j / u)``
in an explicit unit, :func:`chain_bound` (the rounding rule below), the serial
schedule-generation scheme (SGS) that gives the first integer schedule, the conversion of a real
schedule to integer starts and the decoding of integer starts back to a real schedule, and the
CP-SAT solver settings both models use.

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
"""

from __future__ import annotations

import bisect
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from coschedule.rigid import FailureScenario, RigidInstance
from coschedule.schedule import Execution, Outcome, Schedule
from coschedule.timelimit import Deadline, cpsat_solve

from ..units import time_unit_for

#: integer times above this cannot be handled exactly by CP-SAT (int64 with head room)
MAX_UNITS = 2**60


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
    """``{"time_limit_reached": ...}`` when the limit stopped the solve before a proof.

    Under a limit, CP-SAT stops without a proof (FEASIBLE or UNKNOWN) only because of it, even
    when the wall clock read here is still a little short of the limit (the deadline counts from
    before the model was built, and CP-SAT checks its own clock coarsely); ``t0`` is kept for
    the callers' signature."""
    from ortools.sat.python import cp_model

    del t0
    if time_limit is None or code in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        return {}
    return {"time_limit_reached": "time limit reached before CP-SAT proved optimality"}


