"""The R-List kernels (:func:`coschedule.heuristics.rlist.r_list`), compiled by numba: a fresh
round at every instant with ``min(k, |Q|)`` reservations (:func:`_list_one`: R-List-0 and
R-List-1), and R-List-Q incrementally (:func:`_list_q_one`), both driven over many scenarios by
:func:`_list_makespans`.
"""

from __future__ import annotations

import numpy as np

from .availability import (
    _complete,
    _earliest_fit,
    _fits_now,
    _lower_bound,
    _reserve,
    _start,
)
from coschedule.jit import njit


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
