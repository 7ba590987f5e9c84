"""The lower-bound families of [Benoit2021] §4.4, with their claims and witnesses.

Each family is an instance and a failure scenario on which a shelf-based heuristic is far
from the optimum:

* :func:`prop3_instance` (Proposition 3, Figure 1): any shelf-based algorithm, whatever its
  priority rule, has makespan at least ``H_P = 1 + 1/2 + ... + 1/P``, while the optimum is 1;
  the ratio is ``Theta(ln P)``.
* :func:`prop4_instance` (Proposition 4, Figure 2): R-SHELFILL with the LPT rule has makespan
  ``P``, while the optimum is below 2; the ratio is ``Omega(P)``.

The ``*_claims`` functions return the values the paper states, and the ``*_witness_schedule``
functions build the schedules of the proofs (not shelf-based), so that tests can validate them
with :func:`coschedule.validate.validate_rigid` and compare the heuristics with them.

Jobs are indexed from 0 here, while the paper numbers them from 1: job ``j`` of the code is the
paper's ``J_{j+1}``. Every witness execution names its processor (``nodes``), so the witnesses
are also valid contiguous schedules.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from .errors import InvalidInstance
from .rigid import FailureScenario, RigidInstance, RigidJob
from .schedule import Execution, Outcome, Schedule

__all__ = [
    "PROP3_MAX_P",
    "PROP4_MAX_JOBS",
    "PROP4_MAX_P",
    "Prop3Claims",
    "Prop4Claims",
    "prop3_instance",
    "prop3_claims",
    "prop3_witness_schedule",
    "prop4_instance",
    "prop4_claims",
    "prop4_witness_schedule",
    "prop4_sets",
]

#: the largest P of :func:`prop3_instance`: ``P (P + 1) / 2`` attempts, 500,500 for P = 1000,
#: which ``coschedule counterexample prop3`` runs in about 10 s and 350 MB
PROP3_MAX_P = 1000
#: the largest P of :func:`prop4_instance`: ``P + P^P - 1`` jobs, 46,661 for P = 6 (about 20 s
#: for ``coschedule counterexample prop4 --no-solve``); P = 7 has 823,549 jobs and 137,257
#: shelves, out of reach of the shelf heuristics' reference code
PROP4_MAX_P = 6
#: jobs of the largest Proposition 4 instance built (``P + P^P - 1`` at :data:`PROP4_MAX_P`)
PROP4_MAX_JOBS = PROP4_MAX_P + PROP4_MAX_P**PROP4_MAX_P - 1


class Prop3Claims(NamedTuple):
    """Proposition 3: makespan of every shelf-based algorithm (at least; R-SHELF: exactly) and the optimum."""

    shelf_makespan: float
    opt: float


class Prop4Claims(NamedTuple):
    """Proposition 4: makespan of R-SHELFILL with LPT, and an upper bound on the optimum (< 2)."""

    rshelffill_lpt_makespan: float
    opt_upper_bound: float


def _check_P(P: int) -> None:
    if isinstance(P, bool) or not isinstance(P, int) or P < 1:
        raise ValueError(f"P must be a positive integer, got {P!r}")


def _back_to_back(
    job: int, time: float, attempts: int, start: float, procs: int, node: int
) -> tuple[list[Execution], float]:
    """``attempts`` attempts of one job in a row on processor ``node`` from ``start``; the last succeeds."""
    out = []
    t = start
    for a in range(attempts):
        end = t + time
        outcome = Outcome.SUCCESS if a == attempts - 1 else Outcome.FAILURE
        out.append(Execution(job, a, t, end, procs, outcome, (node,)))
        t = end
    return out, t


# ---------------------------------------------------------------- Proposition 3


def prop3_instance(P: int) -> tuple[RigidInstance, FailureScenario]:
    """The instance of Proposition 3: ``P`` unit-width jobs, ``t_j = 1/j``, ``f_j = j - 1``.

    Job ``J_j`` (``1 <= j <= P``, code index ``j - 1``, name ``"J{j}"``) runs on one processor
    for ``1/j`` and fails ``j - 1`` times, so each job's cumulative time is exactly 1.

    >>> inst, f = prop3_instance(4)
    >>> [round(job.time, 3) for job in inst.jobs], f.failures
    ([1.0, 0.5, 0.333, 0.25], (0, 1, 2, 3))

    ``P`` above :data:`PROP3_MAX_P` raises :class:`~coschedule.errors.InvalidInstance`.
    """
    _check_P(P)
    if P > PROP3_MAX_P:
        raise InvalidInstance(
            f"prop3 with P = {P} has {P * (P + 1) // 2:,} job attempts; the largest P this toolkit "
            f"builds is {PROP3_MAX_P} ({PROP3_MAX_P * (PROP3_MAX_P + 1) // 2:,} attempts)"
        )
    jobs = tuple(RigidJob(1, 1.0 / j, name=f"J{j}") for j in range(1, P + 1))
    instance = RigidInstance(jobs, P, name=f"prop3-P{P}")
    return instance, FailureScenario(tuple(range(P)))


def prop3_claims(P: int) -> Prop3Claims:
    """``(H_P, 1)``: every shelf-based schedule has a shelf of height ``t_j = 1/j`` for each
    ``j`` (so makespan ``>= H_P = sum_{j<=P} 1/j``, with equality for R-SHELF), while the
    optimum runs each job's attempts back to back (makespan 1 = ``t_max``, so optimal)."""
    _check_P(P)
    return Prop3Claims(math.fsum(1.0 / j for j in range(1, P + 1)), 1.0)


def prop3_witness_schedule(P: int) -> Schedule:
    """The optimal schedule of Proposition 3: job ``J_j``'s ``j`` attempts back to back on
    processor ``j - 1``, all from time 0; makespan 1 (up to rounding)."""
    instance, scenario = prop3_instance(P)
    executions: list[Execution] = []
    for j, job in enumerate(instance.jobs):
        runs, _ = _back_to_back(j, job.time, scenario.attempts(j), 0.0, 1, j)
        executions.extend(runs)
    return Schedule(tuple(executions))


# ---------------------------------------------------------------- Proposition 4


def prop4_sets(P: int) -> list[range]:
    """Code indices of the jobs of each set ``i = 1..P`` of :func:`prop4_instance`, in order;
    the first index of a set is its large job."""
    _check_P(P)
    out = []
    start = 0
    for i in range(1, P + 1):
        size = 1 + (P - 1) * P ** (i - 1)
        out.append(range(start, start + size))
        start += size
    return out


def prop4_instance(P: int, eps: float = 1e-3) -> tuple[RigidInstance, FailureScenario]:
    """The instance of Proposition 4: ``P`` sets of unit-width jobs on ``P`` processors.

    Set ``i`` (``1 <= i <= P``) has

    * one *large* job ``"L{i}"`` of time ``1/P^(i-1)`` that fails ``P^(i-1) - 1`` times (its
      ``P^(i-1)`` attempts take 1 in total), then
    * ``(P-1) P^(i-1)`` failure-free *small* jobs ``"S{i}.{k}"`` of time ``(1+eps)/P^i``,
      slightly longer than the next set's large job, so LPT takes the sets in order.

    Jobs are stored set by set, the large job first (see :func:`prop4_sets`). There are
    ``P + P^P - 1`` jobs (29 for ``P = 3``, 259 for ``P = 4``, 3129 for ``P = 5``); ``P`` above
    :data:`PROP4_MAX_P` raises :class:`~coschedule.errors.InvalidInstance`. ``eps`` must be positive; the optimum is
    below 2 when ``eps < 1/(P-1)`` (see :func:`prop4_claims`).

    >>> inst, f = prop4_instance(2, eps=0.5)
    >>> [(job.name, job.time) for job in inst.jobs], f.failures
    ([('L1', 1.0), ('S1.0', 0.75), ('L2', 0.5), ('S2.0', 0.375), ('S2.1', 0.375)], (0, 0, 1, 0, 0))
    """
    _check_P(P)
    if not (math.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be positive and finite, got {eps!r}")
    if P > PROP4_MAX_P:
        raise InvalidInstance(
            f"prop4 with P = {P} has {P + P**P - 1:,} jobs (P + P^P - 1); the largest P this toolkit "
            f"builds is {PROP4_MAX_P} ({PROP4_MAX_JOBS:,} jobs)"
        )
    jobs: list[RigidJob] = []
    failures: list[int] = []
    for i in range(1, P + 1):
        jobs.append(RigidJob(1, 1.0 / P ** (i - 1), name=f"L{i}"))
        failures.append(P ** (i - 1) - 1)
        small = (1.0 + eps) / P**i
        for k in range((P - 1) * P ** (i - 1)):
            jobs.append(RigidJob(1, small, name=f"S{i}.{k}"))
            failures.append(0)
    instance = RigidInstance(tuple(jobs), P, name=f"prop4-P{P}-eps{eps:g}")
    return instance, FailureScenario(tuple(failures))


def prop4_claims(P: int, eps: float = 1e-3) -> Prop4Claims:
    """``(P, 1 + (1+eps)(P-1)/P)``.

    R-SHELFILL with LPT spends time 1 on each set (``P^(i-1)`` shelves of height
    ``1/P^(i-1)``, each holding one attempt of the large job and ``P - 1`` small jobs), so its
    makespan is ``P``. The schedule of the proof (:func:`prop4_witness_schedule`) runs all
    large jobs first, in time 1, then the small jobs of set ``i`` on processor ``i``, whose
    ``(P-1) P^(i-1)`` jobs of ``(1+eps)/P^i`` take ``(1+eps)(P-1)/P``; the optimum is at most
    the sum, which is ``< 2`` iff ``eps < 1/(P-1)``.

    The bound is in fact the optimum: it equals the area bound
    ``A(f)/P = (P + (P-1)(1+eps)) / P`` of (6), so the witness schedule is optimal.
    """
    _check_P(P)
    return Prop4Claims(float(P), 1.0 + (1.0 + eps) * (P - 1) / P)


def prop4_witness_schedule(P: int, eps: float = 1e-3) -> Schedule:
    """The schedule of the proof of Proposition 4.

    Processor ``i - 1`` runs the ``P^(i-1)`` attempts of the large job of set ``i`` back to
    back (all large jobs end at time 1), then the small jobs of set ``i`` back to back.
    Makespan ``1 + (1+eps)(P-1)/P`` up to rounding (each processor's times are accumulated,
    so no processor is ever used twice at once).
    """
    instance, scenario = prop4_instance(P, eps)
    executions: list[Execution] = []
    for node, members in enumerate(prop4_sets(P)):
        large = members[0]
        runs, t = _back_to_back(large, instance.jobs[large].time, scenario.attempts(large), 0.0, 1, node)
        executions.extend(runs)
        for j in members[1:]:
            runs, t = _back_to_back(j, instance.jobs[j].time, 1, t, 1, node)
            executions.extend(runs)
    return Schedule(tuple(executions))
