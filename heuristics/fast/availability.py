"""The building blocks of the R-List kernels: the availability profile and the event list,
in flat numpy arrays (compiled by numba; see :mod:`.jit`).

Availability profile
--------------------
Free processors over ``[now, inf)`` as a step function in three arrays (capacity >= 2n + 2):
``ts[i]`` the start of segment ``i`` (``ts[0] = now``, strictly increasing), ``free[i]`` its free
processors, ``cnt[i]`` the number of interval endpoints on ``ts[i]`` (running ends, reservation
starts and ends); the last segment is unbounded and entirely free. Same breakpoints and values
as :class:`coschedule.heuristics.rlist._Profile`, hence the same earliest fits.

Event list
----------
The running jobs sorted by the end of their attempt: ``run_end[:nrun]``, ``run_job[:nrun]``.
"""

from __future__ import annotations

import numpy as np

from coschedule.jit import njit


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
