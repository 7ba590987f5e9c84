"""Independent validators: they recompute everything from the instance and raise on the first
violated constraint, with a message that names it.

Every algorithm of the toolkit is tested through these functions, and the CLI validates a
schedule before it prints it. They deliberately share no code with the algorithms beyond the
model's profile lookup.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from .errors import InvalidSchedule
from .model import CoSchedule, MoldableInstance
from .schedule import Execution, Schedule

__all__ = ["validate_coschedule", "check_capacity", "COST_RTOL"]

#: relative tolerance when a claimed cost is compared with the recomputed one
COST_RTOL = 1e-7


def validate_coschedule(
    instance: MoldableInstance,
    coschedule: CoSchedule,
    k: int | None = None,
    *,
    claimed_cost: float | None = None,
) -> float:
    """Check a co-schedule (§1.3.2, Definition 1.1) and return its recomputed cost.

    Checks: every task in exactly one pack; at most ``k`` tasks per pack; every allocation an
    integer in ``[min_procs, p]``; at most ``p`` processors per pack; no empty pack; and, if
    ``claimed_cost`` is given, that it equals the recomputed cost (sum over packs of the
    longest task). The timeline view is also checked against the capacity ``p``.

    Raises
    ------
    InvalidSchedule
        naming the pack, the task and the violated constraint.
    """
    n, p = instance.n, instance.p
    if k is not None and k < 1:
        raise InvalidSchedule(f"k must be >= 1, got {k}")
    seen: Counter[int] = Counter()
    total = 0.0
    pack_costs = []
    for b, pack in enumerate(coschedule.packs):
        if not pack.allocations:
            raise InvalidSchedule(f"pack {b} is empty")
        if k is not None and len(pack.allocations) > k:
            raise InvalidSchedule(f"pack {b} has {len(pack.allocations)} tasks > k = {k}")
        used = 0
        cost = 0.0
        for a in pack.allocations:
            if not (isinstance(a.task, int) and 0 <= a.task < n):
                raise InvalidSchedule(f"pack {b}: unknown task index {a.task!r} (n = {n})")
            task = instance.tasks[a.task]
            label = instance.task_label(a.task)
            if not isinstance(a.procs, int) or isinstance(a.procs, bool):
                raise InvalidSchedule(f"pack {b}, {label}: processor count {a.procs!r} is not an integer")
            if a.procs < task.min_procs:
                raise InvalidSchedule(
                    f"pack {b}, {label}: {a.procs} processors < minimum {task.min_procs}"
                )
            if a.procs > p:
                raise InvalidSchedule(f"pack {b}, {label}: {a.procs} processors > p = {p}")
            seen[a.task] += 1
            used += a.procs
            # profile lookup straight from the task (not the algorithms' cached matrix)
            cost = max(cost, task.times[min(a.procs, len(task.times)) - 1])
        if used > p:
            raise InvalidSchedule(f"pack {b} uses {used} processors > p = {p}")
        pack_costs.append(cost)
    for i in range(n):
        if seen[i] == 0:
            raise InvalidSchedule(f"{instance.task_label(i)} is in no pack")
        if seen[i] > 1:
            raise InvalidSchedule(f"{instance.task_label(i)} appears in {seen[i]} packs")
    total = math.fsum(pack_costs)
    if claimed_cost is not None and not math.isclose(
        claimed_cost, total, rel_tol=COST_RTOL, abs_tol=1e-9
    ):
        raise InvalidSchedule(f"claimed cost {claimed_cost!r} differs from recomputed cost {total!r}")
    timeline = coschedule.to_schedule(instance)
    check_capacity(timeline.executions, p)
    if not math.isclose(timeline.makespan, total, rel_tol=COST_RTOL, abs_tol=1e-9):
        raise InvalidSchedule(f"timeline makespan {timeline.makespan} != cost {total}")
    return total


def check_capacity(executions: Iterable[Execution] | Schedule, capacity: int) -> None:
    """Raise if the executions ever use more than ``capacity`` processors at once.

    Intervals are half-open: at an instant where one execution ends and another starts, only
    the starting one counts. Zero-length executions occupy nothing.
    """
    if isinstance(executions, Schedule):
        executions = executions.executions
    events: list[tuple[float, int, int]] = []
    for e in executions:
        if not (math.isfinite(e.start) and math.isfinite(e.end)):
            raise InvalidSchedule(f"job {e.job}, attempt {e.attempt}: non-finite interval")
        if e.end < e.start:
            raise InvalidSchedule(f"job {e.job}, attempt {e.attempt}: ends before it starts")
        if e.procs < 0:
            raise InvalidSchedule(f"job {e.job}, attempt {e.attempt}: negative processor count")
        if e.end > e.start:
            events.append((e.start, 1, e.procs))
            events.append((e.end, 0, -e.procs))  # ends sort before starts at the same instant
    events.sort()
    load = 0
    for time, _, delta in events:
        load += delta
        if load > capacity:
            raise InvalidSchedule(f"{load} processors in use at time {time:g} > capacity {capacity}")
