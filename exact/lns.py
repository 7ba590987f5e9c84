"""Large-neighbourhood search for k-in-p co-schedules: the incumbent that warm-starts the MIPs.

Start from tasks sorted by decreasing ``t(i, p)`` grouped greedily into packs of at most ``k``
that fit; then repeatedly free a few packs (at most ``NEIGHBOURHOOD`` tasks: either packs of
neighbouring cost or random ones) and re-pack their tasks *optimally* with the subset DP. A
move is kept only when it lowers the cost. The search is deterministic: a seeded generator and
an iteration budget (a wall-clock cap only guards against slow machines).

It proves nothing by itself; :func:`coschedule.exact.solve_kinp` uses it to give the set-cover MIP a good
first solution, so that the solver prunes from the start.
"""

from __future__ import annotations

import time

import numpy as np

from coschedule.model import MoldableInstance
from coschedule.rng import Seed, as_generator

from .kinp_setcover import _need_table, _price
from .kinp_subsetdp import solve_subset_dp

__all__ = ["lns_packs", "NEIGHBOURHOOD"]

#: tasks freed per move (the subset DP solves 12 tasks in milliseconds)
NEIGHBOURHOOD = 12


def lns_packs(
    instance: MoldableInstance,
    k: int,
    *,
    iterations: int = 400,
    patience: int = 120,
    max_seconds: float = 10.0,
    seed: Seed = 0,
) -> tuple[list[list[int]], float]:
    """Return packs (lists of task indices) and their total cost (threshold prices)."""
    rng = as_generator(seed)
    thresholds, need = _need_table(instance)
    p = instance.p

    def price(group: list[int]) -> float:
        tau = int(_price(np.array([group], dtype=np.int64), need, p)[0])
        return float(thresholds[tau]) if tau >= 0 else np.inf

    packs: list[list[int]] = []
    for i in np.argsort(-instance.time_matrix[:, p], kind="stable"):
        i = int(i)
        if packs and len(packs[-1]) < k and np.isfinite(price(packs[-1] + [i])):
            packs[-1].append(i)
        else:
            packs.append([i])
    costs = [price(g) for g in packs]
    t0 = time.perf_counter()
    stale = 0
    for _ in range(iterations):
        if stale >= patience or time.perf_counter() - t0 > max_seconds or len(packs) < 2:
            break
        if rng.random() < 0.5:  # packs of neighbouring cost, from a random start
            by_cost = list(np.argsort(costs, kind="stable"))
            start = int(rng.integers(len(by_cost)))
            candidates = by_cost[start:] + by_cost[:start]
        else:
            candidates = list(rng.permutation(len(packs)))
        chosen: list[int] = []
        size = 0
        for c in candidates:
            if size + len(packs[c]) > NEIGHBOURHOOD:
                break
            chosen.append(int(c))
            size += len(packs[c])
        if len(chosen) < 2:
            stale += 1
            continue
        tasks = [t for c in chosen for t in packs[c]]
        sub = MoldableInstance(tuple(instance.tasks[t] for t in tasks), p)
        res = solve_subset_dp(sub, k)
        old = sum(costs[c] for c in chosen)
        if res.objective is not None and res.objective < old * (1 - 1e-12):
            for c in sorted(chosen, reverse=True):
                del packs[c]
                del costs[c]
            for pack in res.solution.packs:
                group = [tasks[a.task] for a in pack.allocations]
                packs.append(group)
                costs.append(price(group))
            stale = 0
        else:
            stale += 1
    return packs, float(sum(costs))
