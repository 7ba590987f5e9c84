"""Makespans of the resilient rigid heuristics over many failure scenarios, fast.

Large campaigns (``resilient-rigid-jobs.md`` §5.1: 1000 scenarios per job set, 30 sets, seven
heuristics, seven priorities) only need the makespan of each scenario. :func:`makespans`
computes it with compiled kernels (numba, an optional dependency: ``pip install
'coschedule[fast]'``) that replay the reference implementations :func:`coschedule.heuristics.r_list`,
:func:`coschedule.heuristics.r_shelf` and :func:`coschedule.heuristics.r_shelf_fill` decision for decision: the same
float operations in the same order, the same equal-time tolerance
(:func:`coschedule.heuristics.rlist.time_tolerance`: completions within it are one instant, the round is at
the latest of them), the same tie-breaking, hence bit-identical makespans. Without numba,
:func:`makespans` calls the reference implementation once per scenario (same results, slower).

Kernels
-------
* **Queue.** Always "the waiting jobs sorted by priority rank" (a failed job re-enters at its
  own rank, NOTE 5), so it is a boolean array indexed by rank, scanned in rank order (R-List-Q:
  the sorted array of the queued jobs, a failed job inserted at its rank).
* **Events.** The running jobs sorted by the end of their attempt: the completions of the next
  instant are a prefix, popped together (NOTE 2); a new attempt is inserted in ``O(r)``.
* **Profile** (``m > 0``). Free processors as a step function over ``[now, inf)`` in flat arrays,
  with the breakpoints and values of :class:`coschedule.heuristics.rlist._Profile` (running jobs' ends and
  the round's reservations), searched by the same earliest-fit and backfilling scans. R-List-1
  builds it afresh at every round. R-List-Q keeps it from round to round and only redoes the
  reservations that a fresh round can change (from the first job that just failed, see
  :func:`_list_q_one`): a round without failure makes no reservation at all, and the result is
  the same as that of a fresh round. Its queue is the array of the queued jobs in rank order,
  and its profile may keep breakpoints where nothing changes (same earliest fits).
* **Shelves.** A loop over shelves, as :func:`coschedule.heuristics.rshelf._shelves`.

On the §5.1 setting (100 jobs, ``P = 10000``, ``qbar = 0.3``, LPT) one scenario takes about
0.03 ms with R-List-0, 0.05 ms with R-List-1, 0.35 ms with R-List-Q and 0.005 ms with the
shelves, on one core, against 1, 2, 17 and 1 ms with the reference
(:func:`coschedule.bench.bench_rlist`). R-List-Q grows with the failures: about 15 ms at
``qbar = 0.9`` (8000 rounds, 22 reservations redone in each).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from coschedule.errors import InvalidInstance, SolverUnavailable, unknown_name
from coschedule.rigid import FailureScenario, RigidInstance
from coschedule.rng import Seed

from ..priorities import PriorityRule, priority_order
from ..rlist import TIME_REL, time_tolerance
from ..rshelf import RIGID_HEURISTICS

try:  # optional: without numba, makespans() falls back to the reference implementation
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_NUMBA = False

    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """Stand-in for ``numba.njit``: the kernels stay plain (unused) Python functions."""
        if args and callable(args[0]):
            return args[0]
        return lambda fn: fn


__all__ = ["BACKENDS", "FAST_HEURISTICS", "HAVE_NUMBA", "KERNEL_HEURISTICS", "makespans"]


class _Variant(NamedTuple):
    family: str  # "list" or "shelf"
    m: int = 0  # R-List: reservations per round, -1 for |Q|
    backfill: bool = False  # shelves: b = 1 (First-Fit) or b = 0 (Next-Fit)
    fill: bool = False  # shelves: R-ShelfFill


_VARIANTS: dict[str, _Variant] = {
    "r-list-0": _Variant("list", 0),
    "r-list-1": _Variant("list", 1),
    "r-list-q": _Variant("list", -1),
    "r-shelf-b": _Variant("shelf", backfill=True),
    "r-shelf-nb": _Variant("shelf", backfill=False),
    "r-shelffill-b": _Variant("shelf", backfill=True, fill=True),
    "r-shelffill-nb": _Variant("shelf", backfill=False, fill=True),
}

#: the heuristics with a compiled kernel: the seven §5.1 variants of ``RIGID_HEURISTICS``
KERNEL_HEURISTICS: tuple[str, ...] = tuple(_VARIANTS)
#: the heuristics :func:`makespans` knows: every name of ``RIGID_HEURISTICS``; those without a
#: kernel (``r-list-1-kept``, ``r-list-q-kept``) always run the reference implementation
FAST_HEURISTICS: tuple[str, ...] = tuple(RIGID_HEURISTICS)


# -------------------------------------------------------------------- availability profile
# Free processors over ``[now, inf)`` as a step function in three arrays (capacity >= 2n + 2):
# ``ts[i]`` the start of segment ``i`` (``ts[0] = now``, strictly increasing), ``free[i]`` its free
# processors, ``cnt[i]`` the number of interval endpoints on ``ts[i]`` (running ends, reservation
# starts and ends); the last segment is unbounded and entirely free. Same breakpoints and values
# as :class:`coschedule.heuristics.rlist._Profile`, hence the same earliest fits.


@njit(cache=True)
def _lower_bound(ts: np.ndarray, length: int, t: float) -> int:
    """``bisect_left(ts[:length], t)`` with few unpredictable branches (``length >= 1``)."""
    base = 0
    size = length
    while size > 1:
        half = size >> 1
        base += (ts[base + half] < t) * half
        size -= half
    return base + 1 if ts[base] < t else base


@njit(cache=True)
def _earliest_fit(ts: np.ndarray, free: np.ndarray, length: int, p: int, d: float) -> int:
    """First breakpoint with ``p`` processors free for ``d`` (``_Profile.earliest_fit``)."""
    i = 0
    while True:
        if free[i] < p:
            i += 1  # the last segment is entirely free, so this stops
            continue
        end = ts[i] + d
        k = i + 1
        while k < length and ts[k] < end and free[k] >= p:
            k += 1
        if k == length or ts[k] >= end:
            return i
        i = k + 1  # segment k blocks every start up to ts[k]


@njit(cache=True)
def _fits_now(ts: np.ndarray, free: np.ndarray, length: int, p: int, d: float) -> bool:
    """Whether ``p`` processors are free on all of ``[now, now + d)``."""
    end = ts[0] + d
    k = 0
    while k < length and ts[k] < end:
        if free[k] < p:
            return False
        k += 1
    return True


@njit(cache=True)
def _reserve(
    ts: np.ndarray, free: np.ndarray, cnt: np.ndarray, length: int, i: int, d: float, p: int
) -> int:
    """Take ``p`` processors on ``[ts[i], ts[i] + d)``; return the profile's new length."""
    end = ts[i] + d
    k = i
    while k < length and ts[k] < end:
        free[k] -= p
        k += 1
    if k == length or ts[k] != end:  # a new breakpoint at `end`, splitting segment k - 1
        for x in range(length, k, -1):
            ts[x] = ts[x - 1]
            free[x] = free[x - 1]
            cnt[x] = cnt[x - 1]
        ts[k] = end
        free[k] = free[k - 1] + p  # k > i: as it was before this reservation
        cnt[k] = 0
        length += 1
    cnt[i] += 1
    cnt[k] += 1
    return length


@njit(cache=True)
def _unreserve(
    ts: np.ndarray, free: np.ndarray, cnt: np.ndarray, length: int, start: float, d: float, p: int
) -> None:
    """Give back ``p`` processors on ``[start, start + d)``, reserved by :func:`_reserve`; the
    breakpoints left without endpoint stay until :func:`_compact`."""
    i = _lower_bound(ts, length, start)
    end = start + d
    k = i
    while k < length and ts[k] < end:
        free[k] += p
        k += 1
    cnt[i] -= 1
    cnt[k] -= 1


@njit(cache=True)
def _compact(ts: np.ndarray, free: np.ndarray, cnt: np.ndarray, length: int, now: float) -> int:
    """Start the profile at ``now`` and drop the breakpoints without endpoint; new length."""
    z = _lower_bound(ts, length, now)
    if z == length or ts[z] > now:
        z -= 1  # `now` falls inside segment z (ts[0] <= now always)
    ts[0] = now
    free[0] = free[z]
    cnt[0] = cnt[z]
    out = 1
    for x in range(z + 1, length):
        if cnt[x] > 0:
            ts[out] = ts[x]
            free[out] = free[x]
            cnt[out] = cnt[x]
            out += 1
    return out


# ----------------------------------------------------------------------------- event list
# The running jobs sorted by the end of their attempt: run_end[:nrun], run_job[:nrun].


@njit(cache=True)
def _start(run_end: np.ndarray, run_job: np.ndarray, nrun: int, end: float, j: int) -> int:
    """Insert job ``j`` running until ``end``; return the new number of running jobs."""
    x = nrun
    while x > 0 and run_end[x - 1] > end:
        run_end[x] = run_end[x - 1]
        run_job[x] = run_job[x - 1]
        x -= 1
    run_end[x] = end
    run_job[x] = j
    return nrun + 1


@njit(cache=True)
def _complete(
    run_end: np.ndarray,
    run_job: np.ndarray,
    nrun: int,
    procs: np.ndarray,
    rank: np.ndarray,
    failures: np.ndarray,
    attempt: np.ndarray,
    inq: np.ndarray,
    tol: float,
    rel: float,
) -> tuple[float, int, int, int]:
    """Every completion at the next instant (``latest_same_instant`` of the first one): failed
    jobs back in the queue. Returns ``(now, nrun, freed processors, jobs re-queued)``, ``now``
    the latest of the grouped ends."""
    first = run_end[0]
    limit = first + max(tol, rel * abs(first))
    now = first
    freed = 0
    back = 0
    c = 0
    while c < nrun and run_end[c] <= limit:
        j = run_job[c]
        now = run_end[c]  # sorted: `now` ends at the latest one
        freed += procs[j]
        a = attempt[j]
        attempt[j] = a + 1
        if a < failures[j]:  # the outcome of an attempt is read when it ends
            inq[rank[j]] = True
            back += 1
        c += 1
    for x in range(c, nrun):
        run_end[x - c] = run_end[x]
        run_job[x - c] = run_job[x]
    return now, nrun - c, freed, back


# ------------------------------------------------------------------------------- R-List kernels


@njit(cache=True)
def _list_one(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    k_max: int,
    tol: float,
    rel: float,
    inq: np.ndarray,
    attempt: np.ndarray,
    run_end: np.ndarray,
    run_job: np.ndarray,
    started: np.ndarray,
    ts: np.ndarray,
    free_at: np.ndarray,
    cnt: np.ndarray,
) -> float:
    """Makespan of R-List (:func:`coschedule.heuristics.rlist.r_list`) with ``min(k_max, |Q|)``
    reservations per round, on one scenario; a fresh profile at every round."""
    n = procs.shape[0]
    inq[:] = True
    attempt[:] = 0
    qlen = n
    nrun = 0
    free = P
    now = 0.0
    while True:
        if qlen > 0:  # one scheduling round at `now`
            k = min(k_max, qlen)
            nstart = 0
            if k == 0:  # greedy: start, in queue order, every job that fits now
                left = free
                for r in range(n):
                    if inq[r]:
                        j = job_at[r]
                        if procs[j] <= left:
                            started[nstart] = j
                            nstart += 1
                            left -= procs[j]
                            if left == 0:
                                break
            else:
                # the profile of the running jobs, equal ends merged
                ts[0] = now
                free_at[0] = free
                cnt[0] = 0
                length = 1
                used = P - free
                x = 0
                while x < nrun:
                    end = run_end[x]
                    c = 0
                    while x < nrun and run_end[x] == end:
                        used -= procs[run_job[x]]
                        x += 1
                        c += 1
                    ts[length] = end
                    free_at[length] = P - used
                    cnt[length] = c
                    length += 1
                count = 0
                for r in range(n):
                    if not inq[r]:
                        continue
                    j = job_at[r]
                    p = procs[j]
                    d = times[j]
                    if count < k:  # reservations, in priority order
                        count += 1
                        i = _earliest_fit(ts, free_at, length, p, d)
                        length = _reserve(ts, free_at, cnt, length, i, d, p)
                        if i == 0:  # the reservation starts now: start it now
                            started[nstart] = j
                            nstart += 1
                    elif free_at[0] >= p and _fits_now(ts, free_at, length, p, d):  # backfilling
                        length = _reserve(ts, free_at, cnt, length, 0, d, p)
                        started[nstart] = j
                        nstart += 1
            for s in range(nstart):
                j = started[s]
                inq[rank[j]] = False
                qlen -= 1
                free -= procs[j]
                nrun = _start(run_end, run_job, nrun, now + times[j], j)
        if nrun == 0:
            return now
        now, nrun, freed, back = _complete(
            run_end, run_job, nrun, procs, rank, failures, attempt, inq, tol, rel
        )
        free += freed
        qlen += back


# R-List-Q, incrementally. With m = |Q| every queued job holds a reservation after a round. A
# fresh round at the next instant `now` gives the SAME reservation to every queued job before
# the first one that (a) holds none (a job that just failed: it re-enters at its own rank) or
# (b) was reserved before `now` (only possible when completions within the tolerance were
# grouped). Up to that job (the cut), the profile it sees is the previous round's profile on
# [now, inf): the jobs that started since run in the same intervals, the jobs that ended lie in
# the past, no new job comes before it, and the breakpoints at or after `now` are the same; so
# is the earliest fit. So a round without failure makes no reservation at all, and a round with
# one keeps the reservations before the cut and reserves again from the cut on, in a profile
# made of the running jobs and the kept reservations: built afresh when they are fewer than the
# reservations after the cut (the usual case: the cut is mostly at the head of the queue), else
# the previous profile minus the reservations after the cut.
#
# The profile here is a step function with a SUPERSET of the reference's breakpoints (no count
# of endpoints: a breakpoint left by a given-back reservation stays until the next compaction,
# which drops the past and merges equal neighbours). The earliest fits are the same: the
# earliest start t at which p processors are free over [t, t + d) (ends t + d in floats, which
# grow with t) is `now` or a point where the free count changes, since at any other point the
# start of its constant stretch fits too; any breakpoint set containing those points and `now`
# has that start as its first fitting breakpoint.


@njit(cache=True)
def _fit_reserve(ts: np.ndarray, free: np.ndarray, length: int, p: int, d: float) -> tuple[int, int]:
    """:func:`_earliest_fit`, then take ``p`` processors on ``[ts[i], ts[i] + d)`` in the same
    pass; returns ``(i, new length)``."""
    i = 0
    while True:
        if free[i] < p:
            i += 1  # the last segment is entirely free, so this stops
            continue
        end = ts[i] + d
        k = i + 1
        while k < length and ts[k] < end and free[k] >= p:
            k += 1
        if k == length or ts[k] >= end:
            break
        i = k + 1  # segment k blocks every start up to ts[k]
    for x in range(i, k):
        free[x] -= p
    if k == length or ts[k] != end:  # a new breakpoint at `end`, splitting segment k - 1
        for x in range(length, k, -1):
            ts[x] = ts[x - 1]
            free[x] = free[x - 1]
        ts[k] = end
        free[k] = free[k - 1] + p  # k > i: as it was before this reservation
        length += 1
    return i, length


@njit(cache=True)
def _add(ts: np.ndarray, free: np.ndarray, length: int, start: float, end: float, v: int) -> int:
    """Add ``v`` free processors on ``[max(start, ts[0]), end)`` (``end > ts[0]``), with
    breakpoints at both ends; returns the new length."""
    i = 0
    if start > ts[0]:
        i = _lower_bound(ts, length, start)
        if i == length or ts[i] != start:
            for x in range(length, i, -1):
                ts[x] = ts[x - 1]
                free[x] = free[x - 1]
            ts[i] = start
            free[i] = free[i - 1]
            length += 1
    k = i
    while k < length and ts[k] < end:
        free[k] += v
        k += 1
    if k == length or ts[k] != end:
        for x in range(length, k, -1):
            ts[x] = ts[x - 1]
            free[x] = free[x - 1]
        ts[k] = end
        free[k] = free[k - 1] - v
        length += 1
    return length


@njit(cache=True)
def _trim(ts: np.ndarray, free: np.ndarray, length: int, now: float) -> int:
    """Start the profile at ``now``, merging equal neighbours; returns the new length."""
    z = _lower_bound(ts, length, now)
    if z == length or ts[z] > now:
        z -= 1  # `now` falls inside segment z (ts[0] <= now always)
    ts[0] = now
    free[0] = free[z]
    out = 1
    for x in range(z + 1, length):
        if free[x] != free[out - 1]:
            ts[out] = ts[x]
            free[out] = free[x]
            out += 1
    return out


@njit(cache=True)
def _list_q_one(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    tol: float,
    rel: float,
    queue: np.ndarray,
    attempt: np.ndarray,
    held: np.ndarray,
    res_start: np.ndarray,
    run_end: np.ndarray,
    run_job: np.ndarray,
    started: np.ndarray,
    ts: np.ndarray,
    free_at: np.ndarray,
) -> float:
    """Makespan of R-List-Q on one scenario, reusing the previous round's reservations."""
    n = procs.shape[0]
    for r in range(n):
        queue[r] = job_at[r]  # queue[:qlen]: the queued jobs in priority order
    attempt[:] = 0
    held[:] = False  # held[j]: job j (queued) holds the reservation [res_start[j], + t_j)
    qlen = n
    nrun = 0
    now = 0.0
    ts[0] = now
    free_at[0] = P
    length = 1
    while True:
        if qlen > 0:
            # up to the cut, the kept reservations that start now start now (out of the
            # queue, into `started`)
            nstart = 0
            w = 0
            cut = qlen
            for x in range(qlen):
                j = queue[x]
                if not held[j] or res_start[j] < now:
                    cut = x
                    break
                if res_start[j] == now:
                    started[nstart] = j
                    nstart += 1
                else:
                    queue[w] = j
                    w += 1
            if cut < qlen:
                if nrun + cut < qlen - cut:
                    # the running jobs (equal ends merged), then the kept reservations
                    used = 0
                    for x in range(nrun):
                        used += procs[run_job[x]]
                    ts[0] = now
                    free_at[0] = P - used
                    length = 1
                    x = 0
                    while x < nrun:
                        end = run_end[x]
                        while x < nrun and run_end[x] == end:
                            used -= procs[run_job[x]]
                            x += 1
                        ts[length] = end
                        free_at[length] = P - used
                        length += 1
                    for x in range(nstart):
                        j = started[x]
                        length = _add(ts, free_at, length, now, now + times[j], -procs[j])
                    for x in range(w):
                        j = queue[x]
                        s = res_start[j]
                        length = _add(ts, free_at, length, s, s + times[j], -procs[j])
                else:
                    # the previous profile from now on, minus the reservations after the cut
                    length = _trim(ts, free_at, length, now)
                    for x in range(cut, qlen):
                        j = queue[x]
                        if held[j]:
                            s = res_start[j]
                            length = _add(ts, free_at, length, s, s + times[j], procs[j])
                # reserve again from the cut on
                for x in range(cut, qlen):
                    j = queue[x]
                    i, length = _fit_reserve(ts, free_at, length, procs[j], times[j])
                    if i == 0:
                        started[nstart] = j
                        nstart += 1
                    else:
                        held[j] = True
                        res_start[j] = ts[i]
                        queue[w] = j
                        w += 1
            qlen = w
            for x in range(nstart):
                j = started[x]
                held[j] = False  # its interval stays in the profile while it runs
                nrun = _start(run_end, run_job, nrun, now + times[j], j)
        if nrun == 0:
            return now
        # every completion at the next instant (as _complete); failed jobs re-enter the queue
        # at their rank, without reservation
        first = run_end[0]
        limit = first + max(tol, rel * abs(first))
        c = 0
        while c < nrun and run_end[c] <= limit:
            j = run_job[c]
            now = run_end[c]  # sorted: `now` ends at the latest one
            a = attempt[j]
            attempt[j] = a + 1
            if a < failures[j]:  # the outcome of an attempt is read when it ends
                rj = rank[j]
                x = qlen
                while x > 0 and rank[queue[x - 1]] > rj:
                    queue[x] = queue[x - 1]
                    x -= 1
                queue[x] = j
                qlen += 1
            c += 1
        for x in range(c, nrun):
            run_end[x - c] = run_end[x]
            run_job[x - c] = run_job[x]
        nrun -= c


@njit(cache=True)
def _list_makespans(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    k_max: int,
    incremental: bool,
    tol: float,
    rel: float,
) -> np.ndarray:
    """R-List on every scenario (rows of ``failures``); ``incremental`` (only with
    ``k_max >= n``) selects :func:`_list_q_one`."""
    n = procs.shape[0]
    S = failures.shape[0]
    out = np.empty(S)
    inq = np.empty(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    attempt = np.empty(n, dtype=np.int64)
    held = np.empty(n, dtype=np.bool_)
    res_start = np.empty(n)
    run_end = np.empty(n)
    run_job = np.empty(n, dtype=np.int64)
    started = np.empty(n, dtype=np.int64)
    cap = 3 * n + 2  # now, two endpoints per job; R-List-Q: plus the ends of its new reservations
    ts = np.empty(cap)
    free_at = np.empty(cap, dtype=np.int64)
    cnt = np.empty(cap, dtype=np.int64)
    for s in range(S):
        if incremental:
            out[s] = _list_q_one(
                P, procs, times, rank, job_at, failures[s], tol, rel,
                queue, attempt, held, res_start, run_end, run_job, started, ts, free_at,
            )
        else:
            out[s] = _list_one(
                P, procs, times, rank, job_at, failures[s], k_max, tol, rel,
                inq, attempt, run_end, run_job, started, ts, free_at, cnt,
            )
    return out


# ------------------------------------------------------------------------------- shelf kernels


@njit(cache=True)
def _shelf_makespans(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    backfill: bool,
    fill: bool,
    tol: float,
    rel: float,
) -> np.ndarray:
    """R-Shelf / R-ShelfFill (:func:`coschedule.heuristics.rshelf._shelves`) on every scenario."""
    n = procs.shape[0]
    S = failures.shape[0]
    out = np.empty(S)
    inq = np.empty(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    attempt = np.empty(n, dtype=np.int64)
    shelf = np.empty(n, dtype=np.int64)
    for s in range(S):
        f = failures[s]
        for r in range(n):
            inq[r] = True
            attempt[r] = 0
        qlen = n
        now = 0.0
        while qlen > 0:
            # the next shelf, in queue order
            left = P
            size = 0
            for r in range(n):
                if not inq[r]:
                    continue
                j = job_at[r]
                if procs[j] <= left:
                    shelf[size] = j
                    size += 1
                    left -= procs[j]
                    if left == 0:
                        break
                elif not backfill:
                    break  # Next-Fit
            height = times[shelf[0]]
            for x in range(size):
                j = shelf[x]
                inq[rank[j]] = False
                height = max(height, times[j])
            qlen -= size
            # run it
            start = now
            shelf_end = start + height
            last = shelf_end
            limit = shelf_end + max(tol, rel * abs(shelf_end))
            for x in range(size):
                j = shelf[x]
                t = start
                while True:
                    end = t + times[j]
                    a = attempt[j]
                    attempt[j] = a + 1
                    if a >= f[j]:
                        break  # success
                    if fill and end + times[j] <= limit:
                        t = end  # re-execute at once inside the shelf
                        continue
                    inq[rank[j]] = True
                    qlen += 1
                    break
                last = max(last, end)
            now = last
        out[s] = now
    return out


# ------------------------------------------------------------------------------------ front end


def _check_scenarios(instance: RigidInstance, scenarios: np.ndarray) -> np.ndarray:
    """``scenarios`` as a C-contiguous int64 array of shape ``(S, n)``."""
    arr = np.asarray(scenarios)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != instance.n:
        raise InvalidInstance(
            f"scenarios must have shape (S, {instance.n}) for {instance.n} jobs, "
            f"got {np.shape(scenarios)}"
        )
    if arr.size and (arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer)):
        raise InvalidInstance(f"scenarios: failure counts must be integers, got dtype {arr.dtype}")
    out = np.ascontiguousarray(arr, dtype=np.int64)
    if out.size and out.min() < 0:
        s, j = np.argwhere(out < 0)[0]
        raise InvalidInstance(f"scenario {s}: failures of job {j} must be >= 0, got {out[s, j]}")
    return out


def _variant(heuristic: str) -> _Variant:
    try:
        return _VARIANTS[heuristic.lower()]
    except (KeyError, AttributeError):
        raise unknown_name("rigid heuristic", str(heuristic), KERNEL_HEURISTICS) from None


def _known(heuristic: str) -> str:
    """The canonical (lower-case) name of a heuristic of ``RIGID_HEURISTICS``."""
    name = heuristic.lower() if isinstance(heuristic, str) else None
    if name not in RIGID_HEURISTICS:
        raise unknown_name("rigid heuristic", str(heuristic), FAST_HEURISTICS)
    return name


def _fixed_rule(rank: np.ndarray) -> PriorityRule:
    """A rule whose keys are the ranks: the queue order drawn once, for every scenario."""
    keys = rank.astype(float)
    return lambda inst, rng: keys


def _reference_makespans(
    instance: RigidInstance, scenarios: np.ndarray, heuristic: str, rank: np.ndarray
) -> np.ndarray:
    fn = RIGID_HEURISTICS[heuristic.lower()]
    rule = _fixed_rule(rank)
    return np.array(
        [fn(instance, FailureScenario(tuple(int(x) for x in row)), rule).makespan for row in scenarios],
        dtype=float,
    )


def _compiled_makespans(
    instance: RigidInstance, scenarios: np.ndarray, heuristic: str, rank: np.ndarray
) -> np.ndarray:
    v = _variant(heuristic)
    # writable copies, so that every call has the same numba signature (one compilation)
    procs = np.array(instance.procs, dtype=np.int64)
    times = np.array(instance.times, dtype=np.float64)
    rank = np.array(rank, dtype=np.int64)
    job_at = np.empty_like(rank)
    job_at[rank] = np.arange(instance.n, dtype=np.int64)
    tol = float(time_tolerance(instance))
    P = int(instance.P)
    if v.family == "list":
        k_max = instance.n if v.m < 0 else min(v.m, instance.n)
        # any m >= n is m = |Q| at every round: the incremental kernel applies
        return _list_makespans(
            P, procs, times, rank, job_at, scenarios, k_max, k_max == instance.n, tol, TIME_REL
        )
    return _shelf_makespans(
        P, procs, times, rank, job_at, scenarios, v.backfill, v.fill, tol, TIME_REL
    )


#: backend name -> implementation(instance, scenarios, heuristic, rank); "auto" picks one
BACKENDS: dict[str, Callable[[RigidInstance, np.ndarray, str, np.ndarray], np.ndarray]] = {
    "numba": _compiled_makespans,
    "reference": _reference_makespans,
}


def makespans(
    instance: RigidInstance,
    scenarios: np.ndarray,
    heuristic: str,
    priority: str | PriorityRule = "LPT",
    seed: Seed = None,
    *,
    backend: str = "auto",
) -> np.ndarray:
    """Makespan of a resilient rigid heuristic on each of ``S`` failure scenarios.

    Parameters
    ----------
    instance
        The rigid jobs.
    scenarios
        Integer array of shape ``(S, n)``: ``scenarios[s, j]`` failed attempts of job ``j`` in
        scenario ``s`` (as :meth:`coschedule.rigid.SilentErrors.sample` returns); a single
        scenario of shape ``(n,)`` is accepted.
    heuristic
        A name of :data:`coschedule.heuristics.RIGID_HEURISTICS` (:data:`FAST_HEURISTICS`, any case): the
        seven §5.1 variants ``r-list-0``, ``r-list-1``, ``r-list-q``, ``r-shelf-b``,
        ``r-shelf-nb``, ``r-shelffill-b``, ``r-shelffill-nb``, which have compiled kernels
        (:data:`KERNEL_HEURISTICS`), and ``r-list-1-kept``, ``r-list-q-kept`` (R-List with
        the authors' kept reservations, NOTE 1), which have none and always run the reference.
    priority, seed
        A rule of :data:`coschedule.heuristics.priorities.PRIORITIES` or a callable, and the seed for
        RANDOM. The queue order is drawn ONCE for all scenarios (with an int seed this is what
        calling the heuristic per scenario does; with a ``Generator`` it would redraw).
    backend
        ``"auto"`` (numba when importable and the heuristic has a kernel, else the reference),
        ``"numba"`` (raises :class:`~coschedule.errors.SolverUnavailable` without numba or for a
        heuristic without a kernel) or ``"reference"`` (the plain implementations of
        :mod:`coschedule.heuristics.rlist` and :mod:`coschedule.heuristics.rshelf`, one call per scenario).

    Returns
    -------
    numpy.ndarray
        ``S`` makespans (float64), whatever the backend identical (bit for bit) to
        ``RIGID_HEURISTICS[heuristic](instance, FailureScenario(row), priority, seed).makespan``
        for each row.

    Notes
    -----
    The first numba call compiles the kernels (a few seconds, then cached on disk next to this
    module, or under ``NUMBA_CACHE_DIR``). Running time per scenario: ``O(E n)`` for R-List-0
    and the shelves, ``O(E n (r + n))`` at worst for R-List-1 and R-List-Q (``E`` attempts,
    ``r`` running jobs), as the reference, with a constant about 50 to 100 times smaller; see
    the module docstring and :func:`coschedule.bench.bench_rlist` for measured times.

    >>> from coschedule.generators import synthetic_rigid
    >>> from coschedule.rigid import SilentErrors
    >>> inst = synthetic_rigid(seed=1)
    >>> f = SilentErrors.from_qbar(inst, 0.3).sample(inst, 5, seed=2)
    >>> bool(np.array_equal(makespans(inst, f, "r-list-q"),
    ...                     makespans(inst, f, "r-list-q", backend="reference")))
    True
    """
    name = _known(heuristic)
    f = _check_scenarios(instance, scenarios)
    if backend == "auto":
        backend = "numba" if HAVE_NUMBA and name in _VARIANTS else "reference"
    elif backend not in BACKENDS:
        raise unknown_name("backend", backend, ["auto", *BACKENDS])
    if backend == "numba" and name not in _VARIANTS:
        raise SolverUnavailable(
            f"{name!r} has no numba kernel (only {', '.join(KERNEL_HEURISTICS)}): "
            "use backend='reference' or 'auto'"
        )
    if backend == "numba" and not HAVE_NUMBA:
        raise SolverUnavailable("backend 'numba' needs numba: pip install 'coschedule[fast]'")
    rank = priority_order(instance, priority, seed)
    if f.shape[0] == 0:
        return np.empty(0)
    return BACKENDS[backend](instance, f, heuristic, rank)

