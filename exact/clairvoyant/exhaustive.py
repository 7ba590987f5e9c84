"""The clairvoyant optimum by exhaustive search on the time grid: the reference of the tests.

A dynamic program over instants ``t = 0, 1, 2, ...`` (in units): at each instant, every job
that may start (submitted, its previous attempt over) either waits or starts an attempt now,
choosing at once how the attempt ends (it completes, stops at the end of a checkpoint, or stops
after a proactive checkpoint at a position inside a work part; a stop must save something new
and leave an attempt for later) and on which nodes it runs (free now, and no failure of theirs
forbids the whole attempt). Nodes whose applied failures are the same are interchangeable, so a
choice of nodes is a count per such class. The state -- the instant, each job's saved position,
attempts used and when it may start next, each node's release -- is memoised; the value of a
state is the best objective of the jobs still to complete. Every schedule on the grid with at
most ``max_attempts`` attempts per job is one path, so the minimum is the optimum among them.

It shares nothing with the CP-SAT model but the instance in units (:mod:`.instance`), and it
does not use the proof that one attempt per job suffices without checkpoints: tests run it with
more. Exponential: for a few jobs and nodes and a short horizon only.
"""

from __future__ import annotations

import math
import sys
from functools import cache
from itertools import product

from coschedule.errors import InvalidInstance

from .instance import ClairvoyantInstance
from .schedule import OBJECTIVES

__all__ = ["exhaustive_optimum"]

INF = math.inf


def _serial_bound(inst: ClairvoyantInstance, objective: str) -> int:
    """The objective (in units; for ``weighted`` the sum of ``p_j F_j``) of one feasible
    schedule: after every submission and every downtime, the jobs one at a time."""
    t = max([*inst.submit, *(f + inst.D for f, _ in inst.failures)])
    flows = []
    for j in range(inst.n):
        t += inst.length[j]
        flows.append(t - inst.submit[j])
    if objective == "max":
        return max(flows)
    return sum(p * f for p, f in zip(inst.nodes, flows))


def exhaustive_optimum(
    inst: ClairvoyantInstance, objective: str = "max", *, max_attempts: int = 1, max_states: int = 2_000_000
) -> float:
    """The optimum of ``objective`` (in seconds: the maximum flow, or the weighted mean flow)
    among the schedules on the time grid with at most ``max_attempts`` attempts per job
    (module docstring). Refuses (``InvalidInstance``) a search of more than ``max_states``
    states.

    The search is run for growing targets ``v`` of the objective (in units), from the trivial
    lower bound (each flow at least ``E_j``) to the bound of a serial schedule: under a target,
    each job must complete by a deadline that any schedule of objective at most ``v`` meets, so
    the value found is the optimum as soon as it is at most ``v`` (and an upper bound
    otherwise). Targets grow by one for the maximum flow, geometrically for the weighted sum.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    least = [p * E for p, E in zip(inst.nodes, inst.length)]
    lb = max(inst.length) if objective == "max" else sum(least)
    ub = _serial_bound(inst, objective)
    v = lb
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 100_000))
    try:
        while True:
            if objective == "max":
                cap = [inst.submit[j] + v for j in range(inst.n)]
            else:
                cap = [inst.submit[j] + (v - sum(least) + least[j]) // inst.nodes[j] for j in range(inst.n)]
            best = _search(inst, objective, max_attempts, cap, max_states)
            if best <= v or v >= ub:
                break
            if best < ub:  # a schedule within the deadlines: an upper bound all the same
                ub = int(best)
            v = min(ub, v + 1 if objective == "max" else lb + 2 * (v - lb) + 1)
    finally:
        sys.setrecursionlimit(old)
    if objective == "max":
        return best * inst.unit
    return best * inst.unit / sum(inst.nodes)


def _search(inst: ClairvoyantInstance, objective: str, max_attempts: int, cap: list[int], max_states: int) -> float:
    """The best objective (units) of the schedules where job ``j`` completes by ``cap[j]``
    (``inf`` if there is none)."""
    n, R, C, D = inst.n, inst.R, inst.C, inst.D
    # node classes: nodes with the same failures
    pattern: dict[tuple[int, ...], list[int]] = {}
    for k in range(inst.n_nodes):
        pattern.setdefault(tuple(t for t, x in inst.failures if x == k), []).append(k)
    classes = list(pattern)

    def clean(c: int, start: int, end: int) -> bool:
        for t in classes[c]:
            if start < t < end or (D > 0 and start < t + D and t < end):
                return False
        return True

    ends = {j: inst.checkpoint_ends(j) for j in range(n)}
    proactive = {j: inst.proactive_positions(j) for j in range(n)}

    def options(j: int, U: int, used: int, t: int) -> list[tuple[int, int | None]]:
        """``(end, saved after or None when it completes)`` of the attempts job ``j`` can start
        at ``t``."""
        r = 0 if used == 0 else R
        out: list[tuple[int, int | None]] = [(t + r + inst.length[j] - U, None)]
        if used + 1 < max_attempts:
            for x in ends[j]:
                if x > U:
                    out.append((t + r + x - U, x))
            for x in proactive[j]:
                if x > U:
                    out.append((t + r + x - U + C, x))
        # the job must still complete in time: R + E - x after a stop
        return [(e, x) for e, x in out
                if (e if x is None else e + R + inst.length[j] - x) <= cap[j]]

    states = [0]

    def combine(a: float, b: float) -> float:
        return max(a, b) if objective == "max" else a + b

    @cache
    def value(t: int, jobs: tuple, nodes: tuple) -> float:
        states[0] += 1
        if states[0] > max_states:
            raise InvalidInstance(f"exhaustive search: more than {max_states} states")
        live = [j for j in range(n) if jobs[j] is not None]
        if not live:
            return 0
        for j in live:  # the least a job still needs
            U, used, ready = jobs[j]
            if max(t, ready) + (R if used else 0) + inst.length[j] - U > cap[j]:
                return INF
        ready = [jobs[j][2] for j in live]
        if min(ready) > t:  # nothing can start before the first job is ready
            return value(*_normal(min(ready), jobs, nodes))
        startable = [j for j in live if jobs[j][2] <= t]
        best = INF

        def branch(i: int, jobs_l: list, nodes_l: list, acc: float) -> None:
            nonlocal best
            if i == len(startable):
                best = min(best, combine(acc, value(*_normal(t + 1, tuple(jobs_l), tuple(nodes_l)))))
                return
            branch(i + 1, jobs_l, nodes_l, acc)  # job startable[i] waits
            j = startable[i]
            U, used, _ = jobs_l[j]
            p = inst.nodes[j]
            for e, x in options(j, U, used, t):
                free = [sum(1 for f in nodes_l[c] if f <= t) if clean(c, t, e) else 0 for c in range(len(classes))]
                for counts in product(*(range(min(f, p) + 1) for f in free)):
                    if sum(counts) != p:
                        continue
                    new_nodes = list(nodes_l)
                    for c, k in enumerate(counts):
                        if k:
                            busy = [f for f in nodes_l[c] if f > t]
                            new_nodes[c] = tuple(sorted(busy + [e] * k + [t] * (len(nodes_l[c]) - len(busy) - k)))
                    new_jobs = list(jobs_l)
                    if x is None:
                        new_jobs[j] = None
                        flow = e - inst.submit[j]
                        branch(i + 1, new_jobs, new_nodes, combine(acc, flow if objective == "max" else p * flow))
                    else:
                        new_jobs[j] = (x, used + 1, e)
                        branch(i + 1, new_jobs, new_nodes, acc)

        branch(0, list(jobs), list(nodes), 0)
        return best

    def _normal(t: int, jobs: tuple, nodes: tuple) -> tuple[int, tuple, tuple]:
        return (t, tuple(None if s is None else (s[0], s[1], max(s[2], t)) for s in jobs),
                tuple(tuple(sorted(max(f, t) for f in c)) for c in nodes))

    start_nodes = tuple(tuple(0 for _ in pattern[c]) for c in classes)
    start_jobs = tuple((0, 0, inst.submit[j]) for j in range(n))
    return value(*_normal(0, start_jobs, start_nodes))
