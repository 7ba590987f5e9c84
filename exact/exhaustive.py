"""Exhaustive search over set partitions, the reference of the tests (§1.4.3, first method).

``F(S) = min over packs B of S that contain S's lowest task, |B| <= k, of c(B) + F(S \\ B)``,
memoised over subsets (bit masks), with pack costs ``c(B)`` from the 1-pack DP. Every
partition of the tasks into packs of at most ``k`` tasks is covered exactly once, so the
result is optimal. ``O(3^n)`` time, ``O(2^n)`` memory: refused above ``MAX_N = 16`` tasks (n = 12 takes a
second).
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

from coschedule.errors import InvalidInstance
from coschedule.model import CoSchedule, MoldableInstance
from coschedule.results import ExactResult, Status
from coschedule.timelimit import Deadline, TimeLimitReached

from .onepack_dp import one_pack_dp, one_pack_dp_cost

__all__ = ["solve_exhaustive", "MAX_N"]

#: refuse instances larger than this (3^n work)
MAX_N = 16


def solve_exhaustive(
    instance: MoldableInstance, k: int, *, time_limit: float | None = None, deadline: Deadline | None = None,
) -> ExactResult:
    """Optimal k-in-p co-schedule by exhaustive search (status ``OPTIMAL`` or ``INFEASIBLE``;
    ``UNKNOWN`` when ``time_limit`` seconds or ``deadline`` stop it, checked every 256 packs priced)."""
    n = instance.n
    if n > MAX_N:
        raise InvalidInstance(f"exhaustive search is limited to n <= {MAX_N} tasks (got {n})")
    if k < 1:
        raise InvalidInstance(f"k must be >= 1, got {k}")
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit, t0) if deadline is None else deadline
    calls = [0]

    @lru_cache(maxsize=None)
    def pack_cost(mask: int) -> float:
        calls[0] += 1
        if calls[0] % 256 == 0:
            deadline.check("searching the set partitions")
        return one_pack_dp_cost(instance, [i for i in range(n) if mask >> i & 1])

    @lru_cache(maxsize=None)
    def best(mask: int) -> tuple[float, int]:
        if mask == 0:
            return 0.0, 0
        low = mask & -mask
        rest = mask ^ low
        best_val, best_pack = math.inf, 0
        sub = rest
        while True:  # every subset of rest, joined with the lowest task
            pack = sub | low
            if pack.bit_count() <= k:
                c = pack_cost(pack)
                if c < best_val:
                    val = c + best(mask ^ pack)[0]
                    if val < best_val:
                        best_val, best_pack = val, pack
            if sub == 0:
                break
            sub = (sub - 1) & rest
        return best_val, best_pack

    full = (1 << n) - 1
    try:
        value, _ = best(full)
    except TimeLimitReached as e:
        return ExactResult(Status.UNKNOWN, None, None, None, "exhaustive", "python", time.perf_counter() - t0,
                           info={"time_limit_reached": str(e)})
    elapsed = time.perf_counter() - t0
    if math.isinf(value):
        return ExactResult(Status.INFEASIBLE, None, None, None, "exhaustive", "python", elapsed)
    packs = []
    mask = full
    while mask:
        _, pack = best(mask)
        packs.append(one_pack_dp(instance, [i for i in range(n) if pack >> i & 1]))
        mask ^= pack
    cs = CoSchedule(tuple(packs))
    return ExactResult(
        Status.OPTIMAL, cs.cost(instance), value, cs, "exhaustive", "python", elapsed,
        tolerance=1e-9 * max(1.0, abs(value)),
    )
