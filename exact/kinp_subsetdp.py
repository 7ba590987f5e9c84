"""Vectorised dynamic programming over subsets: the exact method for small ``n`` and any ``k``.

``F(S) = min over packs B of S that contain the lowest task of S, |B| <= k,
of c(B) + F(S \\ B)``, ``F(empty) = 0``; the optimum is ``F(all tasks)``. Pack prices ``c(B)``
come from the threshold pricing of :mod:`coschedule.exact.kinp_setcover` (all packs of at most ``k`` tasks
at once). Sets are processed by size; for all sets of one size the sub-packs are enumerated at
once as a matrix (bit patterns times the sets' bit values), so the ``sum_S 2^(|S|-1)`` (pairs
``(S, B)``, ``3^n / 2`` for ``k = n``) work runs in numpy, not in Python loops.

It proves optimality by construction (every partition is covered), with no solver tolerance
beyond float summation. It is the production twin of :mod:`coschedule.exact.exhaustive` (the pure-Python
reference of the tests, which prices packs with the DP of §1.4.2 instead).
"""

from __future__ import annotations

import math
import time

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.model import CoSchedule, MoldableInstance, Pack
from coschedule.results import ExactResult, Status
from coschedule.timelimit import Deadline, TimeLimitReached

from .kinp_setcover import _need_table, _price

__all__ = ["solve_subset_dp", "subset_dp_work", "MAX_N"]

#: largest n accepted (2^n table entries)
MAX_N = 24
#: largest number of (set, pack) pairs accepted (n = k = 18 needs 1.9e8: 6 s on a quiet
#: 2-core machine, up to 15 s under load)
MAX_WORK = 400_000_000
_CHUNK = 1 << 22


def subset_dp_work(n: int, k: int) -> int:
    """Number of (S, B) pairs the DP examines: ``sum_s C(n, s) sum_{j < min(k, s)} C(s-1, j)``."""
    return sum(
        math.comb(n, s) * sum(math.comb(s - 1, j) for j in range(min(k, s)))
        for s in range(1, n + 1)
    )


def solve_subset_dp(
    instance: MoldableInstance, k: int, *, time_limit: float | None = None, deadline: Deadline | None = None,
) -> ExactResult:
    """Optimal k-in-p co-schedule by subset DP (``OPTIMAL``; ``INFEASIBLE`` cannot occur).

    ``time_limit`` (seconds) or ``deadline`` stops it between two blocks of sets: the result is
    then ``UNKNOWN`` (the DP has no solution before its end) with ``info["time_limit_reached"]``.
    """
    n = instance.n
    if k < 1:
        raise InvalidInstance(f"k must be >= 1, got {k}")
    k = min(k, n)
    work = subset_dp_work(n, k)
    if n > MAX_N or work > MAX_WORK:
        raise InvalidInstance(
            f"subset DP: n = {n}, k = {k} needs {work:.3g} steps (limit {MAX_WORK:.3g}, n <= {MAX_N});"
            " use --method setcover"
        )
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit, t0) if deadline is None else deadline
    try:
        return _subset_dp(instance, k, work, t0, deadline)
    except TimeLimitReached as e:
        return ExactResult(Status.UNKNOWN, None, None, None, "subsetdp", "numpy", time.perf_counter() - t0,
                           info={"pairs": work, "time_limit_reached": str(e)})


def _subset_dp(instance: MoldableInstance, k: int, work: int, t0: float, deadline: Deadline) -> ExactResult:
    n, p = instance.n, instance.p
    thresholds, need = _need_table(instance)
    size = 1 << n
    cost = np.full(size, math.inf)
    weights = np.int64(1) << np.arange(n, dtype=np.int64)
    kmax = min(k, p)
    for s in range(1, kmax + 1):
        deadline.check("pricing the packs")
        combos = _combinations(n, s)
        tau = _price(combos, need, p)
        ok = tau >= 0
        cost[(weights[combos[ok]]).sum(axis=1)] = thresholds[tau[ok]]
    popcount = np.zeros(size, dtype=np.int64)
    for b in range(n):
        popcount += (np.arange(size, dtype=np.int64) >> b) & 1
    F = np.full(size, math.inf)
    F[0] = 0.0
    choice = np.zeros(size, dtype=np.int64)
    by_size = np.argsort(popcount, kind="stable")
    starts = np.searchsorted(popcount[by_size], np.arange(n + 2))
    for s in range(1, n + 1):
        sets = by_size[starts[s] : starts[s + 1]]
        # bit patterns over the s-1 non-lowest members: the pack takes at most k-1 of them
        pats = np.arange(1 << (s - 1), dtype=np.int64)
        pc = np.zeros(len(pats), dtype=np.int64)
        for b in range(s - 1):
            pc += (pats >> b) & 1
        pats = pats[pc <= min(k, p) - 1]
        bits = ((pats[:, None] >> np.arange(s - 1)) & 1).astype(np.float64)  # (m, s-1)
        step = max(1, _CHUNK // max(1, len(pats)))
        for a in range(0, len(sets), step):
            deadline.check(f"running the subset DP (sets of {s} tasks)")
            S = sets[a : a + step]
            members = np.nonzero(((S[:, None] >> np.arange(n)) & 1).astype(bool))[1].reshape(len(S), s)
            low = weights[members[:, 0]]
            other = weights[members[:, 1:]].astype(np.float64)  # (C, s-1); exact below 2^53
            subs = low[:, None] + (other @ bits.T).astype(np.int64)  # (C, m)
            vals = cost[subs] + F[S[:, None] ^ subs]
            best = np.argmin(vals, axis=1)
            rows = np.arange(len(S))
            F[S] = vals[rows, best]
            choice[S] = subs[rows, best]
    full: int = size - 1
    elapsed = time.perf_counter() - t0
    if not math.isfinite(F[full]):
        return ExactResult(Status.INFEASIBLE, None, None, None, "subsetdp", "numpy", elapsed)
    packs = []
    mask = int(full)
    while mask:
        B = int(choice[mask])
        tasks = np.array([i for i in range(n) if B >> i & 1], dtype=np.int64)
        level = int(_price(tasks[None, :], need, p)[0])
        packs.append(Pack.of((int(i), int(need[i, level])) for i in tasks))
        mask ^= B
    cs = CoSchedule(tuple(packs))
    objective = cs.cost(instance)
    return ExactResult(
        Status.OPTIMAL, objective, float(F[full]), cs, "subsetdp", "numpy",
        time.perf_counter() - t0, tolerance=1e-9 * max(1.0, objective),
        info={"pairs": work},
    )


def _combinations(n: int, s: int) -> np.ndarray:
    import itertools

    return np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(n), s)),
        dtype=np.int64, count=math.comb(n, s) * s,
    ).reshape(-1, s)
