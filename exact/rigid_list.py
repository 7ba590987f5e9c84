"""The optimal list schedule under a failure scenario: the best priority order for R-List.

``solve_list_opt(instance, scenario, m=0)`` enumerates every priority order (a permutation of
the jobs, used as the queue ranks, so a failed job re-enters at its own rank) and runs the
R-List policy of :mod:`coschedule.heuristics.rlist` on each, keeping the shortest makespan. It stops early
when a makespan reaches ``L(f)``, which no order can beat. This is the exact optimum *within the
list policy* ([Benoit2021] §4.1), not ``T_OPT(f)``: it answers "how much does the
priority rule cost?".

It is the one exact module that imports :mod:`heuristics`: the policy being optimised lives
there. ``n!`` orders: ``n <= 8`` takes seconds with the fast kernels (:mod:`coschedule.heuristics.fast`),
about a minute with the reference code; larger ``n`` is refused.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.timelimit import Deadline
from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance, lower_bound

__all__ = ["solve_list_opt", "MAX_N"]

#: largest number of jobs accepted (n! orders)
MAX_N = 9


def solve_list_opt(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    m: int | str = 0,
    time_limit: float | None = None,
) -> ExactResult:
    """Best priority order for R-List with parameter ``m`` under ``scenario``.

    Status OPTIMAL when every order was tried (or one meets the lower bound L(f)); FEASIBLE
    with the best order so far, and ``info["time_limit_reached"]``, when ``time_limit`` seconds
    ran out first (:mod:`coschedule.timelimit`).
    """
    from coschedule.heuristics import fast
    from coschedule.heuristics.rlist import r_list

    scenario.check(instance)
    n = instance.n
    if n > MAX_N:
        raise InvalidInstance(f"optimal list schedule: n = {n} > {MAX_N} ({math.factorial(n):,} orders)")
    name = {0: "r-list-0", 1: "r-list-1"}.get(m, "r-list-q") if m in (0, 1) or str(m).upper() == "Q" else None
    if name is None:
        raise InvalidInstance(f"m must be 0, 1 or 'Q', got {m!r}")
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit, t0)
    L = lower_bound(instance, scenario)
    row = np.asarray(scenario.failures, dtype=np.int64)[None, :]
    best, best_order, tried, complete = math.inf, None, 0, True
    for perm in itertools.permutations(range(n)):
        if tried and deadline.expired():
            complete = False
            break
        keys = np.empty(n)
        keys[list(perm)] = np.arange(n)
        value = float(fast.makespans(instance, row, name, priority=lambda inst, rng, k=keys: k)[0])
        tried += 1
        if value < best:
            best, best_order = value, keys
            if best <= L * (1 + 1e-12):
                break
    assert best_order is not None
    order = best_order
    schedule = r_list(instance, scenario, m=m, priority=lambda inst, rng: order)
    objective = schedule.makespan
    info: dict[str, object] = {"orders_tried": tried, "orders": math.factorial(n),
                               "order": [int(x) for x in np.argsort(order)]}
    if not complete:
        info["time_limit_reached"] = f"time limit reached after {tried:,} of {math.factorial(n):,} orders"
    return ExactResult(
        Status.OPTIMAL if complete else Status.FEASIBLE, objective, objective if complete else L,
        schedule, f"list-order-{name}", "enumeration", time.perf_counter() - t0, tolerance=0.0,
        info=info,
    )
