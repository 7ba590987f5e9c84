"""The shelf kernel (:func:`coschedule.heuristics.rshelf._shelves`: R-Shelf and R-ShelfFill,
with or without backfilling), compiled by numba, over many scenarios."""

from __future__ import annotations

import numpy as np

from coschedule.jit import njit


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
