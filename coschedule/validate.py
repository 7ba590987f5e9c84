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
from .rigid import FailureScenario, RigidInstance
from .schedule import Execution, Schedule

__all__ = ["validate_coschedule", "validate_rigid", "check_capacity", "COST_RTOL", "TIME_RTOL"]

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


#: relative tolerance on attempt lengths and on the order of attempts (rigid schedules)
TIME_RTOL = 1e-9


def validate_rigid(
    instance: RigidInstance,
    scenario: FailureScenario,
    schedule: Schedule,
    *,
    contiguous: bool = False,
) -> float:
    """Check a schedule of rigid jobs under a failure scenario; return its makespan (1).

    Checks ([Benoit2021] §3.3): job ``j`` has exactly ``f_j + 1`` executions,
    numbered ``0..f_j``, each of length ``t_j`` on ``p_j`` processors, the first ``f_j`` failed and
    the last successful; attempts of a job in order and never overlapping (3); at every instant
    at most ``P`` processors in use (2), with half-open intervals. Start times must be >= 0.
    With ``contiguous=True`` every execution also names its processors (``nodes``), a block of
    ``p_j`` consecutive indices in ``[0, P)``, and two executions that overlap in time use
    disjoint blocks (the strip-packing view).
    """
    from .schedule import Outcome

    scenario.check(instance)
    by_job: dict[int, list[Execution]] = {}
    for e in schedule.executions:
        if not (isinstance(e.job, int) and 0 <= e.job < instance.n):
            raise InvalidSchedule(f"unknown job index {e.job!r} (n = {instance.n})")
        by_job.setdefault(e.job, []).append(e)
    scale = max(1.0, float(instance.times.max()))
    tol = TIME_RTOL * scale
    for j, job in enumerate(instance.jobs):
        label = instance.job_label(j)
        runs = sorted(by_job.get(j, []), key=lambda e: e.attempt)
        want = scenario.failures[j] + 1
        if len(runs) != want:
            raise InvalidSchedule(f"{label}: {len(runs)} attempts, expected f + 1 = {want}")
        for a, e in enumerate(runs):
            if e.attempt != a:
                raise InvalidSchedule(f"{label}: attempts are numbered {[r.attempt for r in runs]}, expected 0..{want - 1}")
            if e.start < -tol:
                raise InvalidSchedule(f"{label}, attempt {a}: starts at {e.start} < 0")
            if e.procs != job.procs:
                raise InvalidSchedule(f"{label}, attempt {a}: {e.procs} processors, the job needs {job.procs}")
            if abs(e.duration - job.time) > tol:
                raise InvalidSchedule(f"{label}, attempt {a}: lasts {e.duration:g}, the job takes {job.time:g}")
            expected = Outcome.SUCCESS if a == want - 1 else Outcome.FAILURE
            if e.outcome is not expected:
                raise InvalidSchedule(f"{label}, attempt {a}: outcome {e.outcome.value}, expected {expected.value}")
            if a and e.start < runs[a - 1].end - tol:
                raise InvalidSchedule(
                    f"{label}: attempt {a} starts at {e.start:g} before attempt {a - 1} ends at {runs[a - 1].end:g} (3)"
                )
    check_capacity(schedule.executions, instance.P)
    if contiguous:
        _check_contiguous(instance, schedule)
    return schedule.makespan


def _check_contiguous(instance: RigidInstance, schedule: Schedule) -> None:
    blocks = []
    for e in schedule.executions:
        nodes = e.nodes
        label = f"{instance.job_label(e.job)}, attempt {e.attempt}"
        if nodes is None or len(nodes) != e.procs:
            raise InvalidSchedule(f"{label}: contiguous mode needs {e.procs} processor indices")
        lo, hi = min(nodes), max(nodes)
        if lo < 0 or hi >= instance.P or hi - lo + 1 != e.procs or len(set(nodes)) != e.procs:
            raise InvalidSchedule(f"{label}: processors {lo}..{hi} are not a block of {e.procs} in [0, {instance.P})")
        blocks.append((e.start, e.end, lo, hi, label))
    blocks.sort()
    for a, (s1, e1, lo1, hi1, l1) in enumerate(blocks):
        for s2, e2, lo2, hi2, l2 in blocks[a + 1 :]:
            if s2 >= e1:
                break
            if e2 > s2 and e1 > s1 and lo2 <= hi1 and lo1 <= hi2:
                raise InvalidSchedule(f"{l1} and {l2} share processors while both run at time {s2:g}")
