"""The event list of the R-List kernels, in flat numpy arrays (compiled by numba; see
:mod:`coschedule.jit`): the running jobs sorted by the end of their attempt, ``run_end[:nrun]``
and ``run_job[:nrun]``. Their availability profile is the simulation core's
(:mod:`coschedule.sim.profile`).
"""

from __future__ import annotations

import numpy as np

from coschedule.jit import njit


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
def _next_instant(run_end: np.ndarray, nrun: int, tol: float, rel: float) -> tuple[float, int]:
    """The next completion instant (``nrun >= 1``): the ends within ``latest_same_instant`` of
    the first one are one instant (NOTE 2), the latest of them. Returns ``(instant, c)``: the
    first ``c`` running jobs complete then."""
    first = run_end[0]
    limit = first + max(tol, rel * abs(first))
    c = 1
    while c < nrun and run_end[c] <= limit:
        c += 1
    return run_end[c - 1], c  # sorted: the latest grouped end


@njit(cache=True)
def _complete(
    run_end: np.ndarray,
    run_job: np.ndarray,
    nrun: int,
    c: int,
    procs: np.ndarray,
    rank: np.ndarray,
    failures: np.ndarray,
    attempt: np.ndarray,
    queue: np.ndarray,
    qlen: int,
) -> tuple[int, int, int]:
    """The first ``c`` running jobs complete (:func:`_next_instant`); the failed ones re-enter
    the queue (``queue[:qlen]``, the waiting jobs in rank order) at their own rank (NOTE 5).
    Returns ``(nrun, qlen, freed processors)``."""
    freed = 0
    for x in range(c):
        j = run_job[x]
        freed += procs[j]
        a = attempt[j]
        attempt[j] = a + 1
        if a < failures[j]:  # the outcome of an attempt is read when it ends
            rj = rank[j]
            y = qlen
            while y > 0 and rank[queue[y - 1]] > rj:
                queue[y] = queue[y - 1]
                y -= 1
            queue[y] = j
            qlen += 1
    for x in range(c, nrun):
        run_end[x - c] = run_end[x]
        run_job[x - c] = run_job[x]
    return nrun - c, qlen, freed
