"""The CP-SAT model of the clairvoyant optimum (``docs/clairvoyant.md``, "The CP-SAT model").

Each job ``j`` has ``A_j`` attempt *slots* ``a = 0 .. A_j - 1``; slot 0 is present, slot ``a + 1``
only if slot ``a`` is, and the last present slot is the completing attempt (``fin``). A present
slot is an optional interval ``[S, S + dur)`` with

* ``dur = r_a + E_j - U_a`` when it completes (``r_0 = 0``, ``r_a = R`` for ``a >= 1``),
* ``dur = r_a + U'_a - U_a + C pro_a`` when it stops, ``U'_a = B_j q + o > U_a`` the saved
  position: a checkpoint end (``o = 0``, ``1 <= q <= S_j``) or, with ``pro_a``, a position inside
  a work part (``1 <= o <= T_j - 1`` for ``q < S_j``, ``1 <= o <= W_j - S_j B_j - 1`` for
  ``q = S_j``); ``U_{a+1} = U'_a`` and slot ``a + 1`` starts when slot ``a`` has ended.

Nodes come in *classes*: the nodes whose applied failures are the same are interchangeable
(typically each failing node alone, and the nodes that never fail). Slot ``a`` takes ``y[a, c]``
nodes of class ``c``, ``p_j`` in all; per class, the slots and the downtimes ``[t, t + D)`` of its
failures (the whole class is down) never ask more than the class's size (``Cumulative``;
``NoOverlap`` for a class of one node); with ``D = 0``, a slot that uses a class failing at
``t`` ends by ``t`` or starts from ``t`` (a Boolean chooses). The nodes themselves are given
after the solve, class by class, to the attempts in order of start: the class's capacity
guarantees enough are free. A ``Cumulative`` over all slots and downtimes (capacity ``N``) is
redundant and helps propagation, as does ``C_j >= S_j0 + E_j``. The objective is the maximum flow, or the sum of
``p_j C_j`` (the weighted mean flow times ``sum p_j``, plus a constant).

Every completion is bounded by an upper bound of the objective (the greedy list schedule's, or
the hint's if better): ``C_j <= s_j + UB`` for the maximum flow, ``p_j (C_j - s_j) <= UB -
sum_{k != j} p_k E_k`` for the weighted sum. No optimal schedule is cut off.
"""

from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any

from coschedule.errors import InvalidInstance
from coschedule.results import ExactResult, Status
from coschedule.sim.result import SimulationResult
from coschedule.timelimit import Deadline, TimeLimitReached, cpsat_solve

from .instance import ClairvoyantInstance
from .schedule import (
    COMPLETED,
    OBJECTIVES,
    STOPPED,
    ClairvoyantSchedule,
    _to_schedule,
    greedy_schedule,
    schedule_from_run,
    validate_clairvoyant,
)

__all__ = ["DEFAULT_MAX_ATTEMPTS", "attempt_limits", "solve_clairvoyant"]

#: attempts per job when checkpointing is on (without it one attempt per job is proved to suffice)
DEFAULT_MAX_ATTEMPTS = 2


def attempt_limits(
    inst: ClairvoyantInstance, max_attempts: int | None, start: ClairvoyantSchedule | None = None
) -> tuple[list[int], bool, str]:
    """``(A_j per job, unconditional, what is proved)``.

    Without checkpointing a stopped attempt saves nothing, so dropping it (its nodes idle
    instead) and starting the job's next attempt as its first (recovery 0) is never worse: one
    attempt per job suffices, whatever ``max_attempts`` says, and an optimum is unconditional.
    With checkpointing, ``max_attempts`` (default :data:`DEFAULT_MAX_ATTEMPTS`) per job, raised
    for a job to the attempts that ``start`` (a hint) gives it, so that the hint stays feasible;
    an optimum is then optimal among schedules with at most that many attempts per job.
    """
    if max_attempts is not None and (isinstance(max_attempts, bool) or not isinstance(max_attempts, int)
                                     or max_attempts < 1):
        raise InvalidInstance(f"max_attempts must be a positive integer, got {max_attempts!r}")
    if not inst.checkpoints:
        return [1] * inst.n, True, "one attempt per job suffices: without checkpoints a stopped attempt saves nothing"
    A = DEFAULT_MAX_ATTEMPTS if max_attempts is None else max_attempts
    limits = [A] * inst.n
    if start is not None:
        limits = [max(A, int(c)) for c in start.attempt_counts()]
    if len(set(limits)) == 1:
        text = f"optimal among schedules of at most {limits[0]} attempts per job"
    else:
        text = f"optimal among schedules of at most {A} attempts per job ({', '.join(f'{inst.ids[j]}: {c}' for j, c in enumerate(limits) if c != A)}: as many as the hint)"
    return limits, False, text


def _units(inst: ClairvoyantInstance, seconds: float) -> int:
    return round(seconds / inst.unit)


def _sum_objective(inst: ClairvoyantInstance, sched: ClairvoyantSchedule) -> int:
    """``sum_j p_j (C_j - s_j)`` in units."""
    comp = sched.completion
    return sum(inst.nodes[j] * (_units(inst, comp[j]) - inst.submit[j]) for j in range(inst.n))


def _int_objective(inst: ClairvoyantInstance, objective: str, sched: ClairvoyantSchedule) -> int:
    if objective == "max":
        return max(_units(inst, c) - s for c, s in zip(sched.completion, inst.submit))
    return _sum_objective(inst, sched)


def _caps(inst: ClairvoyantInstance, objective: str, ub: int) -> list[int]:
    """The longest flow of each job in a schedule whose (integer) objective is at most ``ub``."""
    if objective == "max":
        return [ub] * inst.n
    least = [p * E for p, E in zip(inst.nodes, inst.length)]
    total = sum(least)
    return [(ub - (total - least[j])) // inst.nodes[j] for j in range(inst.n)]


def _to_seconds(inst: ClairvoyantInstance, objective: str, value: float) -> float:
    """An integer objective (or bound) of the model, in seconds of the reported objective."""
    if objective == "max":
        return value * inst.unit
    return value * inst.unit / sum(inst.nodes)


def node_classes(inst: ClairvoyantInstance) -> list[tuple[int, ...]]:
    """The nodes grouped by their applied failures (the same failure times: interchangeable),
    each class in node order, the classes by their first node."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for k in range(inst.n_nodes):
        groups.setdefault(tuple(t for t, x in inst.failures if x == k), []).append(k)
    return sorted((tuple(v) for v in groups.values()), key=lambda c: c[0])


@dataclass
class _Slot:
    pres: Any
    S: Any
    E: Any
    dur: Any
    Ub: Any
    Ua: Any
    y: list[Any]  # nodes of each class
    u: dict[int, Any] = field(default_factory=dict)  # class -> whether it uses the class
    pro: Any = None
    q: Any = None
    o: Any = None
    last: Any = None
    fin: Any = None
    fail: dict[tuple[int, int], Any] = field(default_factory=dict)  # (class, failure time) -> ends before


@dataclass
class _Model:
    model: Any
    slots: list[list[_Slot]]
    completion: list[Any]
    classes: list[tuple[int, ...]]
    top: Any = None  # the maximum flow variable


def _build(inst: ClairvoyantInstance, objective: str, limits: list[int], caps: list[int],
           deadline: Deadline) -> _Model:
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    N, R, D = inst.n_nodes, inst.R, inst.D
    classes = node_classes(inst)
    times = [sorted({t for t, x in inst.failures if x == c[0]}) for c in classes]
    per_class: list[list[tuple[Any, Any]]] = [[] for _ in classes]  # (interval, demand)
    everything: list[tuple[Any, Any]] = []
    H = max(s + c for s, c in zip(inst.submit, caps))
    for c, cls in enumerate(classes):
        for t in times[c]:
            if D > 0 and t < H:  # the whole class is down
                down = m.new_fixed_size_interval_var(t, D, f"down{c}@{t}")
                per_class[c].append((down, len(cls)))
                everything.append((down, len(cls)))
    slots: list[list[_Slot]] = []
    completion = []
    for j in range(inst.n):
        deadline.check("building the model")
        s, E, p, A = inst.submit[j], inst.length[j], inst.nodes[j], limits[j]
        top = s + caps[j]
        Cj = m.new_int_var(s + E, top, f"C{j}")
        completion.append(Cj)
        pres = [m.new_bool_var(f"pres{j}.{a}") for a in range(A)]
        m.add(pres[0] == 1)
        job: list[_Slot] = []
        for a in range(A):
            if a:
                m.add_implication(pres[a], pres[a - 1])
            S = m.new_int_var(s, top, f"S{j}.{a}")
            Ee = m.new_int_var(s, top, f"E{j}.{a}")
            dur = m.new_int_var(0, top - s, f"d{j}.{a}")
            Ub = job[-1].Ua if a else m.new_constant(0)
            Ua = m.new_int_var(0, E - 1, f"U{j}.{a}")
            y = [m.new_int_var(0, min(p, len(cls)), f"y{j}.{a}.{c}") for c, cls in enumerate(classes)]
            sl = _Slot(pres[a], S, Ee, dur, Ub, Ua, y)
            iv = m.new_optional_interval_var(S, dur, Ee, pres[a], f"I{j}.{a}")
            everything.append((iv, p))
            m.add(sum(y) == p * pres[a])
            for c, cls in enumerate(classes):
                if len(cls) == 1:  # y is 0 or 1: an interval there when it is 1
                    uses = m.new_bool_var(f"u{j}.{a}.{c}")
                    m.add(y[c] == uses)
                    sl.u[c] = uses
                    per_class[c].append((m.new_optional_interval_var(S, dur, Ee, uses, f"I{j}.{a}.{c}"), 1))
                else:
                    per_class[c].append((iv, y[c]))
                if not times[c]:
                    continue
                if len(cls) > 1:
                    uses = m.new_bool_var(f"u{j}.{a}.{c}")
                    m.add(y[c] >= 1).only_enforce_if(uses)
                    m.add(y[c] == 0).only_enforce_if(~uses)
                    sl.u[c] = uses
                for t in times[c]:
                    if D == 0 and s < t < top:  # D > 0: the class's downtime interval does it
                        b = m.new_bool_var(f"b{j}.{a}.{c}@{t}")
                        m.add(Ee <= t).only_enforce_if([uses, b])
                        m.add(S >= t).only_enforce_if([uses, ~b])
                        sl.fail[(c, t)] = b
            r = 0 if a == 0 else R
            stop = pres[a + 1] if a + 1 < A else None
            fin = m.new_bool_var(f"fin{j}.{a}")
            m.add(fin == (pres[a] - pres[a + 1] if stop is not None else pres[a]))
            sl.fin = fin
            m.add(dur == r + E - Ub).only_enforce_if(fin)
            m.add(Ua == Ub).only_enforce_if(fin)
            m.add(Cj == Ee).only_enforce_if(fin)
            m.add(S == s).only_enforce_if(~pres[a])
            m.add(Ee == s).only_enforce_if(~pres[a])
            m.add(Ua == Ub).only_enforce_if(~pres[a])
            if stop is not None:
                _stop_rules(m, inst, j, sl, stop, r)
            job.append(sl)
        for prev, nxt in itertools.pairwise(job):
            m.add(nxt.S >= prev.E).only_enforce_if(nxt.pres)
        # the attempts run one after the other: E, plus R per restart and C per proactive stop
        m.add(Cj >= job[0].S + E + R * sum(sl.pres for sl in job[1:])
              + inst.C * sum(sl.pro for sl in job if sl.pro is not None))
        slots.append(job)
    for c, cls in enumerate(classes):
        if len(cls) == 1:
            m.add_no_overlap([iv for iv, _ in per_class[c]])
        else:
            m.add_cumulative([iv for iv, _ in per_class[c]], [d for _, d in per_class[c]], len(cls))
    if len(classes) > 1:
        m.add_cumulative([iv for iv, _ in everything], [d for _, d in everything], N)
    out = _Model(m, slots, completion, classes)
    if objective == "max":
        out.top = m.new_int_var(max(inst.length), max(caps), "maxflow")
        for j, Cj in enumerate(completion):
            m.add(out.top >= Cj - inst.submit[j])
        m.minimize(out.top)
    else:
        m.minimize(sum(p * Cj for p, Cj in zip(inst.nodes, completion)))
    return out


def _stop_rules(m: Any, inst: ClairvoyantInstance, j: int, sl: _Slot, stop: Any, r: int) -> None:
    """Slot ``sl`` stops when ``stop``: what it saves and how long it runs (module docstring)."""
    C, E = inst.C, inst.length[j]
    Sj, B = inst.stops[j], inst.block[j]
    T = B - C if Sj else 0
    last_work = inst.work_end[j] - Sj * B
    sl.pro = m.new_bool_var(f"pro{j}")
    sl.q = m.new_int_var(0, Sj, f"q{j}")
    sl.o = m.new_int_var(0, max(T - 1, last_work - 1, 0), f"o{j}")
    sl.last = m.new_bool_var(f"last{j}")
    m.add_implication(sl.pro, stop)
    m.add(sl.dur == r + sl.Ua - sl.Ub + C * sl.pro).only_enforce_if(stop)
    m.add(sl.Ua >= sl.Ub + 1).only_enforce_if(stop)
    m.add(sl.Ua == B * sl.q + sl.o).only_enforce_if(stop)
    m.add(sl.q == 0).only_enforce_if(~stop)
    m.add(sl.o == 0).only_enforce_if(~stop)
    m.add(sl.o == 0).only_enforce_if(~sl.pro)
    m.add(sl.o >= 1).only_enforce_if(sl.pro)
    if Sj == 0:
        m.add(sl.last == 1)
    else:
        m.add(sl.q == Sj).only_enforce_if(sl.last)
        m.add(sl.q <= Sj - 1).only_enforce_if(~sl.last)
    if T - 1 >= 1:
        m.add(sl.o <= T - 1).only_enforce_if([sl.pro, ~sl.last])
    else:
        m.add_implication(sl.pro, sl.last)
    if last_work - 1 >= 1:
        m.add(sl.o <= last_work - 1).only_enforce_if([sl.pro, sl.last])
    else:
        m.add_implication(sl.pro, ~sl.last)
    _ = E


def _hint(mod: _Model, inst: ClairvoyantInstance, sched: ClairvoyantSchedule) -> None:
    """Give CP-SAT ``sched`` (feasible, within the slots) as a complete hint."""
    m = mod.model
    for j, job in enumerate(mod.slots):
        att = sched.attempts_of(j)
        s = inst.submit[j]
        U = 0
        for a, sl in enumerate(job):
            here = a < len(att)
            m.add_hint(sl.pres, here)
            m.add_hint(sl.fin, here and a == len(att) - 1)
            if here:
                at = att[a]
                S, Ee, U1 = _units(inst, at.start), _units(inst, at.end), _units(inst, at.saved_after)
            else:
                S, Ee, U1 = s, s, U
            m.add_hint(sl.S, S)
            m.add_hint(sl.E, Ee)
            m.add_hint(sl.dur, Ee - S)
            m.add_hint(sl.Ua, U1)
            nodes = set(att[a].nodes) if here else set()
            for c, cls in enumerate(mod.classes):
                count = sum(1 for k in cls if k in nodes)
                m.add_hint(sl.y[c], count)
                if c in sl.u:
                    m.add_hint(sl.u[c], count > 0)
            for (c, t), b in sl.fail.items():
                m.add_hint(b, Ee <= t)
            if sl.pro is not None:
                stops = here and att[a].outcome == STOPPED
                Sj, B = inst.stops[j], inst.block[j]
                q = (min(U1 // B, Sj) if B else 0) if stops else 0
                m.add_hint(sl.pro, stops and att[a].proactive)
                m.add_hint(sl.q, q)
                m.add_hint(sl.o, U1 - B * q if stops else 0)
                m.add_hint(sl.last, q == Sj)
            U = U1
    comp = sched.completion
    for j, Cj in enumerate(mod.completion):
        m.add_hint(Cj, _units(inst, comp[j]))
    if mod.top is not None:
        m.add_hint(mod.top, _int_objective(inst, "max", sched))


def _decode(mod: _Model, inst: ClairvoyantInstance, solver: Any) -> ClairvoyantSchedule:
    """The solution as a schedule: the nodes of each class given to the attempts in order of
    start (the class's nodes are interchangeable, and its cumulative guarantees enough are
    free: a node freed at an instant can be taken at that instant)."""
    found = []
    for j, job in enumerate(mod.slots):
        for a, sl in enumerate(job):
            if not solver.boolean_value(sl.pres):
                break
            found.append((solver.value(sl.S), solver.value(sl.E), j, a, sl))
    free = {k: 0 for k in range(inst.n_nodes)}
    rows = []
    for S, Ee, j, a, sl in sorted(found, key=lambda f: (f[0], f[2], f[3])):
        nodes: list[int] = []
        for c, cls in enumerate(mod.classes):
            want = solver.value(sl.y[c])
            ready = [k for k in cls if free[k] <= S][:want]
            if len(ready) < want:  # pragma: no cover - the cumulative of the class holds
                raise AssertionError(f"class {cls}: {want} nodes wanted at {S}, {len(ready)} free")
            nodes += ready
        for k in nodes:
            free[k] = Ee
        fin = solver.boolean_value(sl.fin)
        pro = sl.pro is not None and solver.boolean_value(sl.pro)
        rows.append((j, a, S, Ee, tuple(sorted(nodes)), 0 if a == 0 else inst.R, solver.value(sl.Ub),
                     solver.value(sl.Ua), COMPLETED if fin else STOPPED, pro))
    return _to_schedule(inst, rows)


def _validate(inst: ClairvoyantInstance, sched: ClairvoyantSchedule) -> None:
    validate_clairvoyant(sched, failures=inst.trace, downtime=inst.downtime_s, checkpointing=inst.checkpointing,
                         n_nodes=inst.n_nodes)


def _lower_bound(inst: ClairvoyantInstance, objective: str) -> int:
    """Every job's flow is at least its length ``E_j``."""
    if objective == "max":
        return max(inst.length)
    return sum(p * E for p, E in zip(inst.nodes, inst.length))


def solve_clairvoyant(
    inst: ClairvoyantInstance,
    objective: str = "max",
    *,
    max_attempts: int | None = None,
    hint: SimulationResult | ClairvoyantSchedule | None = None,
    time_limit: float | None = None,
    threads: int | None = None,
) -> ExactResult:
    """The clairvoyant optimum of ``objective`` on ``inst`` (``docs/clairvoyant.md``).

    Parameters
    ----------
    objective
        ``"max"``: the maximum flow; ``"weighted"``: the mean flow weighted by node counts.
    max_attempts
        Attempt slots per job when checkpointing is on (default :data:`DEFAULT_MAX_ATTEMPTS`);
        see :func:`attempt_limits` for what an ``OPTIMAL`` then proves.
    hint
        A policy's run of the same instance (:class:`~coschedule.sim.engine.SimulationResult`,
        converted by :func:`~.schedule.schedule_from_run`) or a clairvoyant schedule: CP-SAT
        starts from it, and the answer is never worse.
    time_limit
        Seconds for the whole call (:mod:`coschedule.timelimit`). A run stopped by it is
        ``FEASIBLE`` (with CP-SAT's bound) or ``UNKNOWN``, never ``OPTIMAL``.
    threads
        CP-SAT workers (default: 8, or the cores if more: its LP-based workers need 8).

    Returns
    -------
    ExactResult
        ``objective`` and ``bound`` in seconds (the maximum flow, or the weighted mean flow);
        ``solution`` a :class:`~.schedule.ClairvoyantSchedule`, checked by
        :func:`~.schedule.validate_clairvoyant`; ``info``: ``"attempts"`` (what an optimum
        proves), ``"max_attempts"`` (per job), ``"unconditional"``, ``"unit"`` (seconds),
        ``"start"`` (the schedule CP-SAT started from: ``greedy`` or ``hint``) and its objective
        ``"start_objective"``, CP-SAT's status and the model's size.
    """
    from ortools.sat.python import cp_model

    if objective not in OBJECTIVES:
        raise InvalidInstance(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit, t0)
    start, origin = greedy_schedule(inst), "greedy"
    if hint is not None:
        converted = schedule_from_run(inst, hint) if isinstance(hint, SimulationResult) else hint
        _validate(inst, converted)
        if _int_objective(inst, objective, converted) <= _int_objective(inst, objective, start):
            start, origin = converted, "hint"
    limits, unconditional, proved = attempt_limits(inst, max_attempts, start)
    ub = _int_objective(inst, objective, start)
    lb = _lower_bound(inst, objective)
    info: dict[str, Any] = {"objective": objective, "attempts": proved, "unconditional": unconditional,
                            "max_attempts": dict(zip(inst.ids, limits)), "unit": inst.unit, "start": origin,
                            "start_objective": _to_seconds(inst, objective, ub)}
    const = 0 if objective == "max" else sum(p * s for p, s in zip(inst.nodes, inst.submit))

    def result(status: Status, sched: ClairvoyantSchedule, bound: int | None) -> ExactResult:
        value = sched.objective(objective)
        b = None if bound is None else _to_seconds(inst, objective, bound)
        if status is Status.OPTIMAL:
            b = value
        return ExactResult(status, value, b, sched, "clairvoyant", "cpsat", time.perf_counter() - t0, 0.0, info)

    if ub == lb:  # the start meets the trivial bound
        info["status_name"] = "start meets the lower bound"
        return result(Status.OPTIMAL, start, lb)
    try:
        mod = _build(inst, objective, limits, _caps(inst, objective, ub), deadline)
        _hint(mod, inst, start)
        deadline.check("building the model")
    except TimeLimitReached as e:
        info["time_limit_reached"] = str(e)
        return result(Status.FEASIBLE, start, lb)
    info["variables"] = len(mod.model.proto.variables)
    info["constraints"] = len(mod.model.proto.constraints)
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = int(threads) if threads else max(8, os.cpu_count() or 1)
    solver.parameters.random_seed = 0
    code = cpsat_solve(solver, mod.model, deadline)
    info["status_name"] = solver.status_name(code)
    info["branches"] = solver.num_branches
    if code == cp_model.INFEASIBLE:  # pragma: no cover - the start schedule is a solution
        raise AssertionError("CP-SAT found the clairvoyant model infeasible, yet the start schedule fits it")
    bound = lb
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE) or math.isfinite(solver.best_objective_bound):
        bound = max(lb, math.ceil(solver.best_objective_bound - 1e-6) - const)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        sched = _decode(mod, inst, solver)
        _validate(inst, sched)
        if _int_objective(inst, objective, sched) > ub:  # pragma: no cover - CP-SAT keeps the hint's bound
            sched = start
        if code == cp_model.OPTIMAL:
            return result(Status.OPTIMAL, sched, None)
        info["time_limit_reached"] = "time limit reached before CP-SAT proved optimality"
        return result(Status.FEASIBLE, sched, bound)
    info["time_limit_reached"] = "time limit reached before CP-SAT found a schedule"
    return result(Status.FEASIBLE, start, bound)
