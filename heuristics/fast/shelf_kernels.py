"""The shelf kernel (:func:`coschedule.heuristics.rshelf._shelves`: R-Shelf and R-ShelfFill,
with or without backfilling, and R-ShelfFill's three ``refill`` readings), compiled by numba,
over many scenarios."""

from __future__ import annotations

import numpy as np

from coschedule.jit import njit


@njit(cache=True)
def _refill_shelf(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    f: np.ndarray,
    inq: np.ndarray,
    attempt: np.ndarray,
    shelf: np.ndarray,
    size: int,
    start: float,
    shelf_end: float,
    limit: float,
    anyone: bool,
    tol: float,
    rel: float,
    run_end: np.ndarray,
    run_job: np.ndarray,
    qlen: int,
) -> tuple[float, int]:
    """One shelf with ``refill`` 1 or 2 (:func:`coschedule.heuristics.rshelf._refill_shelf`):
    the end of its last attempt and the new queue length."""
    n = procs.shape[0]
    free = P
    nrun = 0
    for x in range(size):
        j = shelf[x]
        free -= procs[j]
        run_end[nrun] = start + times[j]
        run_job[nrun] = j
        nrun += 1
    last = shelf_end
    while nrun > 0:
        first = run_end[0]
        for k in range(1, nrun):
            first = min(first, run_end[k])
        same = first + max(tol, rel * abs(first))
        now = first
        k = 0
        while k < nrun:  # every completion at this instant (NOTE 2)
            if run_end[k] <= same:
                end = run_end[k]
                j = run_job[k]
                now = max(now, end)
                last = max(last, end)
                free += procs[j]
                a = attempt[j]
                attempt[j] = a + 1
                if a < f[j]:
                    inq[rank[j]] = True
                    qlen += 1
                nrun -= 1
                run_end[k] = run_end[nrun]
                run_job[k] = run_job[nrun]
            else:
                k += 1
        if now >= shelf_end:
            continue
        for r in range(n):  # one filling round, First-Fit in queue order
            if not inq[r]:
                continue
            j = job_at[r]
            if procs[j] <= free and now + times[j] <= limit and (anyone or attempt[j] > 0):
                inq[r] = False
                qlen -= 1
                free -= procs[j]
                run_end[nrun] = now + times[j]
                run_job[nrun] = j
                nrun += 1
    return last, qlen


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
    refill: int = 0,
) -> np.ndarray:
    """R-Shelf / R-ShelfFill (:func:`coschedule.heuristics.rshelf._shelves`) on every scenario;
    ``refill`` is the index of :data:`coschedule.heuristics.rshelf.REFILLS` (0 Alg. 3's own job,
    1 any failed queued job, 2 any queued job: :func:`~coschedule.heuristics.rshelf._refill_shelf`)."""
    n = procs.shape[0]
    S = failures.shape[0]
    out = np.empty(S)
    inq = np.empty(n, dtype=np.bool_)
    attempt = np.empty(n, dtype=np.int64)
    shelf = np.empty(n, dtype=np.int64)
    run_end = np.empty(n)
    run_job = np.empty(n, dtype=np.int64)
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
            if fill and refill > 0:
                now, qlen = _refill_shelf(
                    P, procs, times, rank, job_at, f, inq, attempt, shelf, size, start,
                    shelf_end, limit, refill == 2, tol, rel, run_end, run_job, qlen,
                )
                continue
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
