"""The best *shelf* schedule under a failure scenario ``f`` ([Benoit2021] §2.1,
§4.3; the yardstick of Prop. 3): a CP-SAT model (:func:`build_shelf_cp`) solved by
:func:`solve_shelf_opt`, in the integer units of :mod:`.integer`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance, lower_bound
from coschedule.schedule import Execution, Outcome, Schedule
from coschedule.timelimit import Deadline
from coschedule.validate import validate_rigid

from .integer import _cp_solver, _durations, _limit_info, _solve_within, _unit


@dataclass
class ShelfCpModel:
    """The CP-SAT model of the optimal shelf schedule and what is needed to decode it."""

    model: Any
    member: list[list[Any]]  # member[j][k]: job j has an attempt in shelf k
    heights: list[Any]
    durations: list[int]
    unit: float
    shelves: int
    info: dict[str, Any] = field(default_factory=dict)


def _greedy_shelves(
    instance: RigidInstance, scenario: FailureScenario, dur: Sequence[int]
) -> list[list[int]]:
    """First fit by decreasing duration: each attempt goes to the first shelf with room that
    does not hold the job yet. Returns the jobs of each shelf."""
    shelves: list[list[int]] = []
    used: list[int] = []
    for j in sorted(range(instance.n), key=lambda j: (-dur[j], j)):
        p = instance.jobs[j].procs
        for _ in range(scenario.failures[j] + 1):
            for k, shelf in enumerate(shelves):
                if used[k] + p <= instance.P and j not in shelf:
                    shelf.append(j)
                    used[k] += p
                    break
            else:
                shelves.append([j])
                used.append(p)
    return shelves


def build_shelf_cp(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    time_unit: float | None = None,
    shelves: int | None = None,
) -> ShelfCpModel:
    """The CP-SAT model of the optimal shelf schedule under ``f``.

    Attempts of a job sit in strictly increasing shelves, so a job has at most one attempt
    per shelf, and any permutation of the shelves stays valid (attempts are numbered in shelf
    order): a shelf schedule is a choice of ``f_j + 1`` distinct shelves per job. Booleans
    ``y[j, k]`` (job ``j`` in shelf ``k``): ``sum_k y[j, k] = f_j + 1``,
    ``sum_j p_j y[j, k] <= P``, ``h_k >= d_j`` if ``y[j, k]``, ``P h_k >= sum_j p_j d_j y[j, k]``
    (redundant), heights non-increasing in ``k`` (symmetry), minimise ``sum_k h_k``.
    ``shelves`` is the number of shelf slots (default: the number of attempts).
    """
    from ortools.sat.python import cp_model

    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, _, _ = _durations(instance, unit)
    nat = [f + 1 for f in scenario.failures]
    S = sum(nat) if shelves is None else int(shelves)
    if S < max(nat):
        raise ValueError(f"{S} shelves cannot hold the {max(nat)} attempts of one job")
    m = cp_model.CpModel()
    values = sorted({0, *dur})
    heights = [
        m.new_int_var_from_domain(cp_model.Domain.from_values(values), f"h{k}") for k in range(S)
    ]
    member = [[m.new_bool_var(f"y{j}_{k}") for k in range(S)] for j in range(instance.n)]
    for j in range(instance.n):
        m.add(sum(member[j]) == nat[j])
    for k in range(S):
        m.add(sum(instance.jobs[j].procs * member[j][k] for j in range(instance.n)) <= instance.P)
        for j in range(instance.n):
            m.add(heights[k] >= dur[j]).only_enforce_if(member[j][k])
        m.add(
            instance.P * heights[k]
            >= sum(instance.jobs[j].procs * dur[j] * member[j][k] for j in range(instance.n))
        )
        if k:
            m.add(heights[k - 1] >= heights[k])
    m.minimize(sum(heights))
    info = {"shelf_slots": S, "unit": unit}
    return ShelfCpModel(m, member, heights, dur, unit, S, info)


def _decode_shelves(
    instance: RigidInstance, scenario: FailureScenario, shelves: list[list[int]]
) -> Schedule:
    """Shelf ``k`` starts when shelf ``k - 1`` ends (its longest attempt); attempts of a job
    are numbered in shelf order."""
    execs = []
    count = [0] * instance.n
    t = 0.0
    for shelf in shelves:
        if not shelf:
            continue
        height = max(instance.jobs[j].time for j in shelf)
        for j in sorted(shelf):
            job = instance.jobs[j]
            a = count[j]
            count[j] += 1
            outcome = Outcome.SUCCESS if a == scenario.failures[j] else Outcome.FAILURE
            execs.append(Execution(j, a, t, t + job.time, job.procs, outcome))
        t = t + height
    return Schedule(tuple(execs))


def solve_shelf_opt(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    time_limit: float | None = None,
    time_unit: float | None = None,
    threads: int | None = None,
) -> ExactResult:
    """The optimal shelf schedule under failure scenario ``f`` (§2.1, §4.3).

    Every attempt goes to a shelf; shelves run in sequence; the attempts of a job sit in
    strictly increasing shelves; a shelf holds at most ``P`` processors and lasts as long as
    its longest attempt. Minimises the sum of the shelf heights (= the makespan) with
    :func:`build_shelf_cp` in integer units ``d_j = ceil(t_j / u)``.

    Rounding rule. For one assignment, each shelf's rounded height exceeds its true height
    by at most ``e u`` with ``e = max_j (d_j - t_j / u) < 1`` and never falls below it. Any
    assignment at least as good as the returned one has at most
    ``S = min(N, floor(objective / t_min) + 1)`` non-empty shelves (``N`` attempts; the
    ``+ 1`` absorbs floating-point error). Hence
    ``bound = max(L(f), (C_lb - S e) u)`` is proved, and ``OPTIMAL`` (CP-SAT proved the
    rounded model) means ``objective - optimum <= tolerance = S e u`` (0 when every ``t_j``
    is a multiple of ``u``).

    The optimum is ``>= T_OPT(f)``; Prop. 3's instance (``t_j = 1/j``, ``f_j = j - 1``) has
    ``T_OPT = 1`` against ``H_P = 1 + 1/2 + ... + 1/P`` for the best shelf schedule.
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, exact, excess = _durations(instance, unit)
    nat = [f + 1 for f in scenario.failures]
    greedy = _greedy_shelves(instance, scenario, dur)
    greedy_units = sum(max(dur[j] for j in shelf) for shelf in greedy)
    # an optimal assignment has at most greedy_units / d_min non-empty shelves
    slots = max(max(nat), min(sum(nat), greedy_units // min(dur)))
    cp = build_shelf_cp(instance, scenario, time_unit=unit, shelves=slots)
    # the greedy bounds the number of slots but is not hinted (hints slowed the proofs down)
    greedy_sorted = sorted(greedy, key=lambda sh: -max(dur[j] for j in sh))
    solver = _cp_solver(None, threads)
    code = _solve_within(solver, cp.model, Deadline.after(time_limit, t0))
    if code in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise RuntimeError(
            f"CP-SAT says {solver.status_name(code)} on a model with a known solution (a bug)"
        )
    candidates = [("greedy", greedy_sorted)]
    cp_lb = cp_units = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        cp_units = round(solver.objective_value)
        cp_lb = math.ceil(solver.best_objective_bound - 1e-6)
        shelves = [
            [j for j in range(instance.n) if solver.boolean_value(cp.member[j][k])]
            for k in range(slots)
        ]
        candidates.insert(0, ("cpsat", shelves))
    best_sched, best_obj, source, used = None, math.inf, "", 0
    for name, sh in candidates:
        sched = _decode_shelves(instance, scenario, sh)
        obj = validate_rigid(instance, scenario, sched)
        if obj < best_obj:
            best_sched, best_obj, source, used = sched, obj, name, sum(1 for x in sh if x)
    t_min = float(instance.times.min())
    n_shelves = min(sum(nat), math.floor(best_obj / t_min * (1 + 1e-9)) + 1)
    tolerance = 0.0 if exact else n_shelves * excess * unit
    bound = lower_bound(instance, scenario)
    if cp_lb is not None:
        bound = max(bound, cp_lb * unit - tolerance)
    bound = min(bound, best_obj)
    status = Status.OPTIMAL if code == cp_model.OPTIMAL else Status.FEASIBLE
    info = {
        **cp.info,
        "source": source,
        "cp_status": solver.status_name(code),
        "cp_objective_units": cp_units,
        "cp_bound_units": cp_lb,
        "greedy_units": greedy_units,
        "shelves": used,
        "branches": solver.num_branches,
        "wall_time": solver.wall_time,
        **_limit_info(code, time_limit, t0),
    }
    return ExactResult(
        status,
        best_obj,
        bound,
        best_sched,
        "shelf",
        "cpsat",
        time.perf_counter() - t0,
        tolerance=tolerance,
        info=info,
    )
