"""``T_OPT(f)``, the clairvoyant optimum of [Benoit2021] §3.3: every attempt of
every job is known in advance and placed by a CP-SAT model (:func:`build_rigid_cp`: a
cumulative resource; with ``contiguous=True`` also a processor block per attempt, rectangle
strip packing), solved by :func:`solve_rigid_opt`. Integer units and what they prove:
:mod:`.integer`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from coschedule.errors import InvalidSchedule
from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance, lower_bound
from coschedule.schedule import Schedule
from coschedule.timelimit import Deadline
from coschedule.validate import validate_rigid

from .integer import (
    MAX_UNITS,
    _Attempts,
    _cp_solver,
    _decode_rigid,
    _default_order,
    _durations,
    _integer_from_schedule,
    _limit_info,
    _order_from_schedule,
    _serial_sgs,
    _solve_within,
    _unit,
    chain_bound,
)


@dataclass
class RigidCpModel:
    """The CP-SAT model of ``T_OPT(f)`` and what is needed to decode it."""

    model: Any  # ortools.sat.python.cp_model.CpModel
    starts: list[Any]
    offsets: list[Any] | None
    makespan: Any
    attempts: _Attempts
    durations: list[int]  # per job, in units
    unit: float
    exact: bool  # every t_j is a multiple of the unit: no rounding
    contiguous: bool
    horizon: int
    info: dict[str, Any] = field(default_factory=dict)


def _identical_groups(
    instance: RigidInstance, scenario: FailureScenario, dur: Sequence[int]
) -> list[list[int]]:
    groups: dict[tuple[int, int, int], list[int]] = {}
    for j, job in enumerate(instance.jobs):
        groups.setdefault((job.procs, dur[j], scenario.failures[j]), []).append(j)
    return [g for g in groups.values() if len(g) > 1]


def _disjunctive_cliques(instance: RigidInstance) -> list[list[int]]:
    """The maximal sets of jobs that pairwise cannot run at the same time (``p_j + p_k > P``),
    with at least two jobs. The incompatibility graph is a threshold graph: its maximal
    cliques are the jobs above ``P / 2`` together with at most one job ``j`` of the others,
    the one with ``p_j > P - p_k`` for every big ``k`` (only the big jobs above ``P - p_j``
    stay). ``O(n^2)``."""
    P = instance.P
    procs = [job.procs for job in instance.jobs]
    big = [j for j in range(instance.n) if 2 * procs[j] > P]
    cliques = [big] if len(big) > 1 else []
    for j in range(instance.n):
        if 2 * procs[j] <= P:
            partners = [k for k in big if procs[j] + procs[k] > P]
            if partners:
                cliques.append(sorted([j, *partners]))
    # drop cliques contained in another one
    sets = [set(c) for c in cliques]
    keep = [
        c
        for a, c in enumerate(cliques)
        if not any(
            b != a and sets[a] <= sets[b] and (sets[a] != sets[b] or b < a)
            for b in range(len(sets))
        )
    ]
    return keep


def build_rigid_cp(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    contiguous: bool = False,
    time_unit: float | None = None,
    horizon: int | None = None,
) -> RigidCpModel:
    """The CP-SAT model of ``T_OPT(f)`` (§3.3, constraints (1)-(3)), in integer units.

    One fixed-size interval per attempt (``d_j = ceil(t_j / u)`` units), a cumulative of
    capacity ``P`` with demands ``p_j`` (2), attempts of a job chained (3), and the makespan
    ``M >= end`` of every last attempt, minimised. ``contiguous=True`` adds an offset
    ``x in [0, P - p_j]`` per attempt and ``NoOverlap2D`` over (time x processors); the
    cumulative stays as a redundant constraint. Redundant constraints: a disjunction
    (``NoOverlap``) over every maximal set of jobs that pairwise cannot run together
    (``p_j + p_k > P``, see :func:`_disjunctive_cliques`), ``M`` at least the unit lower
    bound ``max(max_j (f_j + 1) d_j, ceil(sum_j (f_j + 1) d_j p_j / P))``, and chains of
    identical jobs (same ``p``, ``d``, ``f``) ordered by their first start.

    ``horizon`` (units) must be the makespan of a feasible integer schedule; by default the
    sum of all durations (everything in sequence).
    """
    from ortools.sat.python import cp_model

    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, exact, _ = _durations(instance, unit)
    att = _Attempts.of(scenario)
    P = instance.P
    dem = [instance.jobs[j].procs for j in att.job]
    d = [dur[j] for j in att.job]
    total = sum(d)
    if horizon is None:
        horizon = total
    if horizon > MAX_UNITS:
        raise ValueError(f"time unit {unit:g} is too small: horizon of {horizon} units")
    lb = max(
        max((f + 1) * dur[j] for j, f in enumerate(scenario.failures)),
        -(-sum(di * p for di, p in zip(d, dem)) // P),
    )
    if lb > horizon:
        raise ValueError(f"horizon {horizon} is below the lower bound {lb} (units)")
    m = cp_model.CpModel()
    nat = [f + 1 for f in scenario.failures]
    starts, intervals = [], []
    for i in range(len(att)):
        j, a = att.job[i], att.attempt[i]
        # a earlier attempts before it, nat - a attempts (itself included) from it on
        s = m.new_int_var(a * dur[j], horizon - (nat[j] - a) * dur[j], f"s{j}_{a}")
        starts.append(s)
        intervals.append(m.new_fixed_size_interval_var(s, dur[j], f"I{j}_{a}"))
        if att.pred[i] >= 0:
            m.add(s >= starts[att.pred[i]] + dur[j])
    m.add_cumulative(intervals, dem, P)
    cliques = _disjunctive_cliques(instance)
    for clique in cliques:
        members = set(clique)
        m.add_no_overlap([intervals[i] for i in range(len(att)) if att.job[i] in members])
    offsets = None
    if contiguous:
        offsets, blocks = [], []
        for i in range(len(att)):
            j, a = att.job[i], att.attempt[i]
            x = m.new_int_var(0, P - dem[i], f"x{j}_{a}")
            offsets.append(x)
            blocks.append(m.new_fixed_size_interval_var(x, dem[i], f"B{j}_{a}"))
        m.add_no_overlap_2d(intervals, blocks)
    first = {j: i for i, (j, a) in enumerate(zip(att.job, att.attempt)) if a == 0}
    groups = _identical_groups(instance, scenario, dur)
    for g in groups:
        for j, k in itertools.pairwise(g):
            m.add(starts[first[j]] <= starts[first[k]])
    makespan = m.new_int_var(lb, horizon, "M")
    for j, i in enumerate(att.last):
        m.add(makespan >= starts[i] + dur[j])
    m.minimize(makespan)
    info = {
        "attempts": len(att),
        "unit": unit,
        "horizon_units": horizon,
        "lb_units": lb,
        "identical_groups": len(groups),
    }
    return RigidCpModel(
        m, starts, offsets, makespan, att, dur, unit, exact, contiguous, horizon, info
    )


def _canonical(att: _Attempts, groups: list[list[int]], starts: list[int], offs: list[int]) -> None:
    """Relabel chains of identical jobs so that their first starts are sorted (in place), to
    agree with the symmetry-breaking constraints of :func:`build_rigid_cp`."""
    chain: dict[int, list[int]] = {}
    for i, j in enumerate(att.job):
        chain.setdefault(j, []).append(i)
    for g in groups:
        vals = sorted(([starts[i] for i in chain[j]], [offs[i] for i in chain[j]]) for j in g)
        for j, (ss, oo) in zip(g, vals):
            for i, s, o in zip(chain[j], ss, oo):
                starts[i], offs[i] = s, o


def _names_blocks(instance: RigidInstance, scenario: FailureScenario, schedule: Schedule) -> bool:
    try:
        validate_rigid(instance, scenario, schedule, contiguous=True)
    except InvalidSchedule:
        return False
    return True


def solve_rigid_opt(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    contiguous: bool = False,
    time_limit: float | None = None,
    time_unit: float | None = None,
    threads: int | None = None,
    hint: Schedule | None = None,
) -> ExactResult:
    """``T_OPT(f)``: the clairvoyant optimal makespan under failure scenario ``f`` (§3.3).

    Minimises ``max_j (s_j^(f_j+1) + t_j)`` subject to (1)-(3): every attempt on ``p_j``
    processors for ``t_j``, at most ``P`` processors at any time, attempts of a job in
    sequence. With ``contiguous=True`` each attempt also gets a block of ``p_j`` consecutive
    processors (rectangle strip packing, §2.1), recorded in ``Execution.nodes``.

    Parameters
    ----------
    instance, scenario
        The jobs and the number of failed attempts of each.
    contiguous
        Solve the strip-packing variant.
    time_limit
        Seconds for CP-SAT (``None``: until proved).
    time_unit
        The integer time unit ``u`` (default :func:`coschedule.exact.units.time_unit_for`).
    threads
        CP-SAT workers (default ``max(8, cores)``).
    hint
        A feasible schedule (e.g. from a heuristic). It is converted to integer units by
        keeping the order of its disjoint attempts (makespan at most the hint's plus ``K u``;
        in contiguous mode with its ``nodes`` as blocks, or, without them, by replaying its
        order of start times with the serial SGS); it bounds the horizon and seeds CP-SAT.

    Returns
    -------
    ExactResult
        ``solution`` is a :class:`~coschedule.schedule.Schedule` that passes
        :func:`~coschedule.validate.validate_rigid` (``contiguous`` too); ``objective`` its
        true makespan; ``bound >= L(f)`` a proved lower bound on ``T_OPT(f)``; ``OPTIMAL``
        only if CP-SAT proved the rounded model optimal, and then
        ``objective - T_OPT(f) <= tolerance`` (the rule of :mod:`.integer`).

    Notes
    -----
    NP-hard (it contains failure-free rigid scheduling). Measured on §5.1's synthetic jobs
    (``P = 10000``, ``qbar = 0.3``, 2 cores, 60 s limit): ``n = 10`` and ``20`` proved in
    under 0.1 s (10 seeds each; there ``L(f)`` is tight); ``n = 40``: 3 seeds of 6 proved in
    0.02 s, the other 3 stopped at a 2.4-3.1 % gap with the bound stuck at ``L(f)``. The
    proof is hard exactly when ``T_OPT > L(f)``; the contiguous variant is harder still. Use
    ``time_limit`` and read ``bound``.
    """
    from ortools.sat.python import cp_model

    t0 = time.perf_counter()
    scenario.check(instance)
    unit = _unit(instance, time_unit)
    dur, exact, _ = _durations(instance, unit)
    att = _Attempts.of(scenario)
    d = [dur[j] for j in att.job]
    dem = [instance.jobs[j].procs for j in att.job]
    # integer solutions for the horizon and the hint: the serial SGS (critical path first)
    # and, if given, the hint converted to integer units
    heuristics: list[tuple[str, list[int], list[int]]] = []
    heuristics.append(
        (
            "sgs",
            *_serial_sgs(
                _default_order(att, [job.time for job in instance.jobs]),
                d,
                dem,
                att.pred,
                instance.P,
                contiguous,
            ),
        )
    )
    if hint is not None:
        validate_rigid(instance, scenario, hint)
        converted = None
        if not contiguous or _names_blocks(instance, scenario, hint):
            converted = _integer_from_schedule(att, dur, hint, contiguous)
        if converted is None:  # contiguous without processor blocks: replay its order
            converted = _serial_sgs(
                _order_from_schedule(att, hint), d, dem, att.pred, instance.P, True
            )
        heuristics.append(("hint", *converted))
    heur_name, heur_starts, heur_offs = min(
        heuristics, key=lambda h: max(s + di for s, di in zip(h[1], d))
    )
    heur_units = max(s + di for s, di in zip(heur_starts, d))

    cp = build_rigid_cp(
        instance, scenario, contiguous=contiguous, time_unit=unit, horizon=heur_units
    )
    if hint is not None:
        # only a caller's hint: hinting the SGS schedule made CP-SAT's proofs of small
        # instances 100 times slower (it presolves less to keep a hint feasible)
        _, h_starts, h_offs = heuristics[-1]
        _canonical(att, _identical_groups(instance, scenario, dur), h_starts, h_offs)
        for var, v in zip(cp.starts, h_starts):
            cp.model.add_hint(var, v)
        if cp.offsets is not None:
            for var, v in zip(cp.offsets, h_offs):
                cp.model.add_hint(var, v)
        cp.model.add_hint(cp.makespan, max(s + di for s, di in zip(h_starts, d)))

    solver = _cp_solver(None, threads)
    code = _solve_within(solver, cp.model, Deadline.after(time_limit, t0))
    if code in (cp_model.INFEASIBLE, cp_model.MODEL_INVALID):
        raise RuntimeError(
            f"CP-SAT says {solver.status_name(code)} on a model with a known solution (a bug)"
        )
    candidates = [(heur_name, heur_starts, heur_offs if contiguous else None)]
    cp_units = cp_lb = None
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        cp_units = round(solver.objective_value)
        cp_lb = math.ceil(solver.best_objective_bound - 1e-6)  # the objective is an integer
        starts = [int(solver.value(v)) for v in cp.starts]
        offs = [int(solver.value(v)) for v in cp.offsets] if cp.offsets is not None else None
        candidates.insert(0, ("cpsat", starts, offs))
    best_sched, best_obj, source = None, math.inf, ""
    for name, starts, offs in candidates:
        sched = _decode_rigid(instance, att, dur, starts, offs)
        obj = validate_rigid(instance, scenario, sched, contiguous=contiguous)
        if obj < best_obj:
            best_sched, best_obj, source = sched, obj, name

    lb_f = lower_bound(instance, scenario)
    k = chain_bound([instance.jobs[j].time for j in att.job], best_obj)
    slack = 0 if exact else k
    tolerance = slack * unit
    bound = lb_f
    if cp_lb is not None:
        bound = max(bound, (cp_lb - slack) * unit)
    bound = min(bound, best_obj)  # sound: T_OPT <= objective
    status = Status.OPTIMAL if code == cp_model.OPTIMAL else Status.FEASIBLE
    info = {
        **cp.info,
        "source": source,
        "cp_status": solver.status_name(code),
        "cp_objective_units": cp_units,
        "cp_bound_units": cp_lb,
        "heuristic_units": heur_units,
        "chain_bound": k,
        "exact_unit": exact,
        "lower_bound_L": lb_f,
        "branches": solver.num_branches,
        "wall_time": solver.wall_time,
        **_limit_info(code, time_limit, t0),
    }
    return ExactResult(
        status,
        best_obj,
        bound,
        best_sched,
        "strip" if contiguous else "cumulative",
        "cpsat",
        time.perf_counter() - t0,
        tolerance=tolerance,
        info=info,
    )
