"""R-List: resilient list scheduling of rigid jobs ([Benoit2021] §4.1, Alg. 1).

Also home of the small pieces every resilient rigid heuristic shares (the ranked queue, the
record of attempts, the time tolerance); :mod:`coschedule.heuristics.rshelf` imports them.

Semantics
---------
The paper leaves several choices open (``NOTES.md``); this module makes them as follows.

* **Dynamic** (§3.5). The scheduler never looks at ``f`` ahead of time: when attempt ``a`` of job
  ``j`` *ends*, it reads ``scenario.failures[j]`` to learn whether that attempt failed
  (``a < f_j``). Executions are recorded when they end.
* **Event loop.** A heap of ``(end, sequence, job, start)`` events; the sequence number breaks
  ties the same way on every run. Only completions are events: every start happens at a
  completion instant (or at 0), since a reservation's start is itself a completion time.
* **Simultaneous completions (NOTE 2).** All completions at the same instant are processed
  together: their processors are freed and every failed job is re-inserted, then ONE scheduling
  round is made. "The same instant" means within :func:`time_tolerance` (relative to the
  shortest job and to the clock) of the earliest pending completion: float sums such as
  ``0.1 + 0.1 + 0.1`` and ``0.3`` must meet. The round then happens at the *latest* of the
  grouped end times, so that no start precedes an end it waits for. With integral times every
  comparison is exact.
* **Queue order (NOTE 5).** By :func:`coschedule.heuristics.priorities.priority_order` (increasing key, ties
  by job index); a failed job is re-inserted at its own rank, so among equal keys it goes back by
  index (not FIFO or LIFO). RANDOM is drawn once per job from ``seed``, never redrawn.
* **Fresh rounds (NOTE 1).** Every completion instant drops all reservations and makes a fresh
  round from the current queue, as in the §4.1 analysis (the authors' simulator keeps old
  reservations instead). Without failures a fresh round never moves a reservation.
  ``reservations="kept"`` gives the authors' semantics instead, see below.
* **Reservations (NOTES 3, 8).** The first ``min(m, |Q|)`` queued jobs, in order, each get the
  earliest start in the availability profile (running jobs' ends plus the reservations already
  made in this round) at which they fit for their whole duration. A reservation whose start is
  *now* starts now (it is not kept pending until a second round at the same instant). With
  ``m = 1`` this means that when the head starts now, no other job gets a reservation in this
  round: the rest of the queue is backfilled. ``m = "Q"`` is the current queue length at each
  round (conservative backfilling); any integer ``m >= n`` behaves the same.
* **Backfilling (NOTE 4).** The rest of the queue is scanned in order; a job starts now if it
  fits in the profile over its whole interval ``[now, now + t_j)``, so it delays no reservation.
  With ``m = 0`` there is no reservation and this is greedy list scheduling (Prop. 2).

Kept reservations (``reservations="kept"``, NOTE 1, the authors' simulator)
----------------------------------------------------------------------------
A reservation, once made, is never revoked or moved: job ``j`` reserved at ``s`` runs on
``[s, s + t_j)``. Each round at ``now`` (same event loop, same grouping of simultaneous
completions) does, in order:

(a) every queued job whose kept reservation starts at ``now`` (``s <= now`` plus the tolerance
    of :meth:`_Run.latest_same_instant`) starts, *at its reserved instant* ``s``;
(b) the profile is built from the running jobs and ALL the kept reservations ``[s, s + t)``;
(c) the first ``m`` queued jobs *without* a reservation, in priority order, each get one at
    their earliest fit (added to the profile); one that fits at ``now`` starts now;
(d) the other queued jobs without a reservation are backfilled in order if they fit in the
    profile over ``[now, now + t_j)``, so they delay no kept reservation.

A failed job goes back to the queue without a reservation. With ``m = 1`` a new reservation is
added at every round for the first unreserved job, while older ones are still pending (never
revoked); with ``m = "Q"`` every queued job holds one after each round; ``m = 0`` is the same as
fresh rounds. Without failures, ``m = "Q"`` gives the fresh-round schedule (the plan made at time
0).

*Choice: reserved jobs start at ``s``, not at the round's instant.* Every reservation start is an
exact completion time (a running job's end, or the end ``s' + t`` of a reserved job, which starts
exactly at ``s'``), so the round at which it starts is at ``s`` or at most a tolerance later
(grouped completions). Starting at ``s`` keeps every interval exactly the one checked in a
profile, so no processor is ever used twice, even by a rounding error (the validator counts
capacity exactly). With integral times ``s`` is the round's instant. With float times that meet
only within the tolerance (``0.1 + 0.2`` and ``0.3``), a fresh round starts the job at the
round's (later) instant, and that rounding error can decide a later earliest fit: there kept and
fresh may differ even without failures (the kept schedule is the time-0 plan).

Complexity (kept): a round costs ``O(|Q| (r + R))``, ``R`` the pending reservations.

Complexity: ``m = 0`` costs ``O(|Q|)`` per completion instant. ``m > 0`` builds a step profile
with ``O(r + m)`` breakpoints (``r`` running jobs) and places ``min(m, |Q|)`` reservations, each
``O(r + m)``: ``O(|Q| (r + m))`` per instant, ``O(n^2)`` for ``m = "Q"``.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from coschedule.rigid import FailureScenario, RigidInstance
from coschedule.rng import Seed
from coschedule.schedule import Execution, Outcome, Schedule

from .priorities import PriorityRule, priority_order

if TYPE_CHECKING:
    from coschedule.sim.profile import AvailabilityProfile

__all__ = ["RESERVATIONS", "TIME_EPS", "TIME_REL", "r_list", "time_tolerance"]

#: instants closer than ``TIME_EPS`` times the shortest job's time are the same instant ...
TIME_EPS = 1e-9
#: ... and so are instants ``t`` closer than ``TIME_REL * t`` (rounding grows with the clock)
TIME_REL = 1e-12


def time_tolerance(instance: RigidInstance, t: float = 0.0) -> float:
    """Tolerance on instants near ``t``: ``max(TIME_EPS * min_j t_j, TIME_REL * |t|)``.

    Two completions closer than this are simultaneous (NOTE 2), and an R-ShelfFill
    re-execution that overshoots its shelf's end by less than this still fits (NOTE 7). A sum
    of ``k`` times that lands on ``t`` is off by about ``k`` units in the last place of ``t``
    (``k * 2.2e-16 * t``), far below ``TIME_REL * t`` for any realistic ``k``; and the
    tolerance stays below a millionth of the shortest job while ``t < 1e6 * min_j t_j``.
    With integral times sums are exact and the tolerance never matters.
    """
    return max(TIME_EPS * float(instance.times.min()), TIME_REL * abs(t))


class _Run:
    """State shared by the heuristics: ranked queue, attempt counters, recorded executions."""

    def __init__(
        self,
        instance: RigidInstance,
        scenario: FailureScenario,
        priority: str | PriorityRule,
        seed: Seed,
    ) -> None:
        scenario.check(instance)
        self.P = instance.P
        self.procs = [int(p) for p in instance.procs]
        self.times = [float(t) for t in instance.times]
        self._failures = scenario.failures
        rank = priority_order(instance, priority, seed=seed)
        self.rank = [int(r) for r in rank]
        self.job_at = [0] * instance.n  # job_at[r] = the job of rank r
        for j, r in enumerate(self.rank):
            self.job_at[r] = j
        self.attempt = [0] * instance.n
        self.executions: list[Execution] = []
        self._tol = time_tolerance(instance)

    def latest_same_instant(self, t: float) -> float:
        """The latest instant that counts as ``t`` (:func:`time_tolerance`)."""
        return t + max(self._tol, TIME_REL * abs(t))

    def initial_queue(self) -> list[int]:
        """Every job, as a sorted list of ranks (head first)."""
        return list(range(len(self.rank)))

    def requeue(self, queue: list[int], j: int) -> None:
        """Insert failed job ``j`` at its own rank (NOTE 5)."""
        bisect.insort(queue, self.rank[j])

    def finish(self, j: int, start: float, end: float) -> bool:
        """Record the attempt of ``j`` that ran in ``[start, end)``; return True if it failed.

        This is the only place that reads the failure scenario: the outcome of an attempt is
        revealed when it ends.
        """
        a = self.attempt[j]
        failed = a < self._failures[j]
        outcome = Outcome.FAILURE if failed else Outcome.SUCCESS
        self.executions.append(Execution(j, a, start, end, self.procs[j], outcome))
        self.attempt[j] = a + 1
        return failed

    def schedule(self) -> Schedule:
        return Schedule(tuple(sorted(self.executions, key=lambda e: (e.start, e.job, e.attempt))))


def _running_profile(
    run: _Run, now: float, running: Iterable[tuple[float, int]]
) -> AvailabilityProfile:
    """The availability profile of a round at ``now`` (the simulation core's,
    :class:`coschedule.sim.profile.AvailabilityProfile`): ``P`` processors, each running
    ``(end, processors)`` occupying its processors from now until its end. Its earliest fits
    are the first breakpoints (now, running ends, reservation starts and ends) at which a job
    fits for its whole duration; the last segment has all ``P`` processors free."""
    # imported here: importing the heuristics loads neither numba nor the simulation core
    from coschedule.sim.profile import AvailabilityProfile

    return AvailabilityProfile.of_running(run.P, now, running)


def _reservation_count(m: int | str, n: int) -> int:
    """``min(m, n)``, with ``"Q"`` (any case) meaning ``n`` (NOTE 8)."""
    if isinstance(m, str) and m.upper() == "Q":
        return n
    if isinstance(m, (int, np.integer)) and not isinstance(m, bool) and m >= 0:
        return min(int(m), n)
    raise ValueError(f"m must be an integer >= 0 or 'Q', got {m!r}")


def _fit_in_order(run: _Run, queue: list[int], capacity: int, *, next_fit: bool = False) -> list[int]:
    """Jobs taken in queue order while they fit in ``capacity`` processors (First-Fit); with
    ``next_fit`` the scan stops at the first job that does not fit. Shared by R-List's greedy
    round and R-Shelf's shelf building."""
    procs, job_at = run.procs, run.job_at
    chosen = []
    for r in queue:
        j = job_at[r]
        if procs[j] <= capacity:
            chosen.append(j)
            capacity -= procs[j]
            if capacity == 0:
                break
        elif next_fit:
            break
    return chosen


def _greedy_round(run: _Run, queue: list[int], free: int) -> list[int]:
    """Backfilling only (m = 0): start, in queue order, every job that fits now."""
    return _fit_in_order(run, queue, free)


def _reservation_round(
    run: _Run, queue: list[int], k: int, now: float, running: dict[int, float]
) -> list[int]:
    """Reserve for the first ``k`` queued jobs, then backfill the rest (Alg. 1's two loops)."""
    procs, times, job_at = run.procs, run.times, run.job_at
    profile = _running_profile(run, now, ((end, procs[j]) for j, end in running.items()))
    started = []
    for r in queue[:k]:  # reservations, in priority order
        j = job_at[r]
        start = profile.earliest_fit(procs[j], times[j])  # never inf: all P are free at last
        profile.add(start, start + times[j], procs[j])
        if start == now:  # the reservation starts now: start it now (NOTE 3)
            started.append(j)
    free_now = profile.free_at(now)
    for r in queue[k:]:  # backfilling, without delaying any reservation (NOTE 4)
        j = job_at[r]
        if procs[j] <= free_now and profile.fits(now, procs[j], times[j]):
            profile.add(now, now + times[j], procs[j])
            free_now -= procs[j]
            started.append(j)
    return started


def _kept_round(
    run: _Run,
    queue: list[int],
    m: int,
    now: float,
    running: dict[int, float],
    reserved: dict[int, float],
) -> list[tuple[int, float]]:
    """One round with kept reservations (module docstring, steps (a)-(d)); returns the jobs that
    start, with their start times, and updates ``reserved`` (job -> start of its reservation)."""
    procs, times, job_at = run.procs, run.times, run.job_at
    started: list[tuple[int, float]] = []
    # (a) the kept reservations that start now, at their reserved instant
    limit = run.latest_same_instant(now)
    unreserved = []
    for r in queue:
        j = job_at[r]
        s = reserved.get(j)
        if s is None:
            unreserved.append(j)
        elif s <= limit:
            del reserved[j]
            started.append((j, s))
    # (b) profile: running jobs (and those just started, from now), then the pending reservations
    occupied = itertools.chain(
        ((end, procs[j]) for j, end in running.items()),
        ((s + times[j], procs[j]) for j, s in started),
    )
    profile = _running_profile(run, now, occupied)
    for j, s in reserved.items():
        profile.add(s, s + times[j], procs[j])  # s > limit >= now
    # (c) new reservations for the first m queued jobs without one
    k = min(m, len(unreserved))
    for j in unreserved[:k]:
        s = profile.earliest_fit(procs[j], times[j])
        profile.add(s, s + times[j], procs[j])
        if s == now:
            started.append((j, now))
        else:
            reserved[j] = s
    # (d) backfilling of the others, delaying no reservation
    free_now = profile.free_at(now)
    for j in unreserved[k:]:
        if procs[j] <= free_now and profile.fits(now, procs[j], times[j]):
            profile.add(now, now + times[j], procs[j])
            free_now -= procs[j]
            started.append((j, now))
    return started


#: values of ``r_list(..., reservations=...)``
RESERVATIONS = ("fresh", "kept")


def r_list(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    m: int | str = 0,
    priority: str | PriorityRule = "LPT",
    seed: Seed = None,
    reservations: str = "fresh",
) -> Schedule:
    """R-List (Alg. 1): list scheduling with ``m`` reservations and backfilling, re-executing
    failed jobs until they succeed.

    Parameters
    ----------
    instance, scenario
        The jobs and the failure scenario ``f``; ``f`` is only read when an attempt ends.
    m
        ``0``: GREEDY, backfilling only; ``1``: a reservation for the queue head (EASY-like);
        ``"Q"`` (or any integer ``>= n``): a reservation for every queued job (conservative).
    priority
        A name of :data:`coschedule.heuristics.priorities.PRIORITIES` or a rule callable.
    seed
        For the RANDOM priority (drawn once).
    reservations
        ``"fresh"`` (default): every completion instant drops all reservations and makes a fresh
        round (the §4.1 analysis). ``"kept"``: reservations are never revoked and new ones are
        fitted around them (the authors' simulator); see the module docstring. Same result for
        ``m = 0``.

    Returns
    -------
    Schedule
        Attempts ``0..f_j`` of every job, the last one successful; it passes
        :func:`coschedule.validate.validate_rigid`.

    Notes
    -----
    Guarantees (§4.2), for every scenario ``f``: GREEDY with any priority is a
    ``(2 - 1/P)``-approximation (Prop. 2) and RESERVATION (``m > 0``) with LJF a
    ``(3 - 4/(P+1))``-approximation (Prop. 1). Both proofs only use ``T_OPT >= L(f)``, so the
    bounds hold against :func:`coschedule.rigid.lower_bound` as well.

    The choices the paper leaves open are listed in the module docstring. Running time:
    ``O(E |Q|)`` for ``m = 0`` and ``O(E |Q| (r + m))`` otherwise, ``E = sum_j (f_j + 1)``
    completions, ``r`` running jobs.
    """
    if reservations not in RESERVATIONS:
        raise ValueError(f"reservations must be one of {RESERVATIONS}, got {reservations!r}")
    run = _Run(instance, scenario, priority, seed)
    k_max = _reservation_count(m, instance.n)
    kept = reservations == "kept" and k_max > 0
    reserved: dict[int, float] = {}  # kept reservations: queued job -> its start
    procs, times = run.procs, run.times
    queue = run.initial_queue()
    events: list[tuple[float, int, int, float]] = []  # (end, sequence, job, start)
    sequence = itertools.count()
    running: dict[int, float] = {}  # job -> end of its current attempt
    free = run.P
    now = 0.0
    while True:
        # one scheduling round at `now`
        if queue:
            if kept:
                starts = _kept_round(run, queue, k_max, now, running, reserved)
            else:
                k = min(k_max, len(queue))
                if k == 0:
                    started = _greedy_round(run, queue, free)
                else:
                    started = _reservation_round(run, queue, k, now, running)
                starts = [(j, now) for j in started]
            if starts:
                gone = {run.rank[j] for j, _ in starts}
                queue = [r for r in queue if r not in gone]
                for j, start in starts:
                    end = start + times[j]
                    heapq.heappush(events, (end, next(sequence), j, start))
                    running[j] = end
                    free -= procs[j]
        if not events:
            break
        # every completion at the next instant, before the next round (NOTE 2)
        limit = run.latest_same_instant(events[0][0])
        while events and events[0][0] <= limit:
            end, _, j, start = heapq.heappop(events)
            now = end  # events pop in increasing order: `now` ends at the latest one
            del running[j]
            free += procs[j]
            if run.finish(j, start, end):
                run.requeue(queue, j)
    assert not queue and not reserved, "jobs left in the queue with no job running"
    return run.schedule()
