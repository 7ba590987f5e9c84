"""Clairvoyant schedules: their records, their objectives, their validator, and two ways to get
one without a solver (a greedy list schedule, and a policy's run converted).

A :class:`ClairvoyantSchedule` is a list of :class:`ClairvoyantAttempt` s, in seconds. Each job
runs a chain of attempts; every attempt but the last is *stopped*, the last *completes*.

:func:`validate_clairvoyant` checks one against the rules of the model (``docs/clairvoyant.md``)
from the workload, the failure trace, the downtime and the checkpoint parameters alone: it
recomputes the checkpoint layout from the Young/Daly formulas and the failures that apply with
its own code (it does not use :mod:`.instance` nor the models).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from coschedule.errors import InvalidInstance, InvalidSchedule
from coschedule.sim.checkpointing import NO_CHECKPOINTING, Checkpointing
from coschedule.sim.result import SimulationResult
from coschedule.sim.failures import FailureTrace
from coschedule.sim.validate import _close, _g, _tol  # the online validator's tolerances
from coschedule.sim.workload import Workload

from .instance import ClairvoyantInstance

__all__ = [
    "OBJECTIVES",
    "ClairvoyantAttempt",
    "ClairvoyantSchedule",
    "greedy_schedule",
    "objective_value",
    "schedule_from_run",
    "validate_clairvoyant",
]

#: the objectives: the maximum flow, and the mean flow weighted by the jobs' node counts
OBJECTIVES = ("max", "weighted")
COMPLETED, STOPPED = "completed", "stopped"


def objective_value(objective: str, flows: Sequence[float] | np.ndarray, nodes: Sequence[int] | np.ndarray) -> float:
    """``max_j F_j`` (``"max"``) or ``sum_j p_j F_j / sum_j p_j`` (``"weighted"``)."""
    f = np.asarray(flows, dtype=np.float64)
    p = np.asarray(nodes, dtype=np.float64)
    if objective == "max":
        return float(f.max())
    if objective == "weighted":
        return float((p * f).sum() / p.sum())
    raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")


@dataclass(frozen=True)
class ClairvoyantAttempt:
    """One attempt of job ``job`` (its ``index``-th) on ``nodes`` over ``[start, end)``: a
    recovery of ``recovery`` (0 for the first attempt), then its execution from position
    ``saved_before``. ``outcome`` ``"completed"``: it runs to the job's end; ``"stopped"``: it
    stops having saved ``saved_after``, at the end of a regular checkpoint, or (``proactive``)
    after a proactive checkpoint of ``C`` taken at position ``saved_after``."""

    job: int
    index: int
    start: float
    end: float
    nodes: tuple[int, ...]
    recovery: float
    saved_before: float
    saved_after: float
    outcome: str
    proactive: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"job": self.job, "index": self.index, "start": self.start, "end": self.end,
                "nodes": list(self.nodes), "recovery": self.recovery, "saved_before": self.saved_before,
                "saved_after": self.saved_after, "outcome": self.outcome, "proactive": self.proactive}


@dataclass(frozen=True, eq=False)
class ClairvoyantSchedule:
    """The attempts of every job of ``workload`` (sorted by start, job, index)."""

    workload: Workload
    attempts: tuple[ClairvoyantAttempt, ...]

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.attempts, key=lambda a: (a.start, a.job, a.index)))
        object.__setattr__(self, "attempts", ordered)

    @property
    def completion(self) -> np.ndarray:
        """The end of each job's completed attempt (NaN if it has none)."""
        out = np.full(self.workload.n, math.nan)
        for a in self.attempts:
            if a.outcome == COMPLETED:
                out[a.job] = a.end
        return out

    @property
    def flow(self) -> np.ndarray:
        return self.completion - self.workload.submit

    def objective(self, objective: str) -> float:
        return objective_value(objective, self.flow, self.workload.nodes)

    @property
    def max_flow(self) -> float:
        return self.objective("max")

    @property
    def weighted_mean_flow(self) -> float:
        return self.objective("weighted")

    def attempts_of(self, j: int) -> list[ClairvoyantAttempt]:
        return sorted((a for a in self.attempts if a.job == j), key=lambda a: a.index)

    def attempt_counts(self) -> np.ndarray:
        return np.bincount([a.job for a in self.attempts], minlength=self.workload.n)

    def __repr__(self) -> str:
        return f"ClairvoyantSchedule({len(self.attempts)} attempts of {self.workload.n} jobs)"


# ----------------------------------------------------------------------------- the validator


class _Layout:
    """Job ``j``'s positions from the formulas of [Du2024] §5.2 (validator's own code): period
    ``T = sqrt(2 (mu / p) C)``, ``K = ceil(L / T) - 1`` checkpoints (``ceil(L / T)`` with a final
    checkpoint), ``E = L + K C``; a stop can save the end ``m (T + C)`` of checkpoint ``m`` for
    ``1 <= m <= S`` (``S = K``, or ``K - 1`` with a final checkpoint, which ends at ``E``)."""

    def __init__(self, L: float, p: int, ck: Checkpointing) -> None:
        self.L, self.C = L, float(ck.cost)
        if ck.cost > 0:
            self.T = math.sqrt(2.0 * (ck.node_mtbf / p) * ck.cost)
            k = math.ceil(L / self.T)
            K = int(k if ck.final_checkpoint else max(k - 1, 0))
            self.S = max(K - 1, 0) if ck.final_checkpoint else K
        else:
            self.T, K, self.S = math.inf, 0, 0
        self.E = L + K * self.C

    def checkpoint_end(self, x: float) -> bool:
        B = self.T + self.C
        return any(_close(x, m * B) for m in range(1, self.S + 1))

    def in_work(self, x: float) -> bool:
        """Strictly inside a work part (with a margin of the tolerance)."""
        if self.C <= 0:
            return False
        B, tol = self.T + self.C, _tol(x, self.E)
        for m in range(self.S):
            if m * B + tol < x < m * B + self.T - tol:
                return True
        last = self.S * B
        return last + tol < x < last + self.L - self.S * self.T - tol


def _applied(failures: FailureTrace, D: float) -> list[tuple[float, int]]:
    back: dict[int, float] = {}
    out = []
    for t, x in sorted(zip(failures.times.tolist(), failures.nodes.tolist()), key=lambda f: f[0]):
        if D > 0 and x in back and t < back[x]:
            continue  # the node is down: the failure is ignored
        back[x] = t + D
        out.append((t, x))
    return out


def _check_jobs(schedule: ClairvoyantSchedule, ck: Checkpointing) -> None:
    wl = schedule.workload
    R = ck.R
    for j in range(wl.n):
        jid = wl.ids[j]
        att = schedule.attempts_of(j)
        if not att:
            raise InvalidSchedule(f"job {jid}: no attempt (every job must complete)")
        if [a.index for a in att] != list(range(len(att))):
            raise InvalidSchedule(f"job {jid}: attempts numbered {[a.index for a in att]}, expected 0..{len(att) - 1}")
        if att[0].start < wl.submit[j] - _tol(wl.submit[j]):
            raise InvalidSchedule(f"job {jid} attempt 0: starts at {_g(att[0].start)}, before its submission "
                                  f"at {_g(wl.submit[j])}")
        for prev, a in itertools.pairwise(att):
            if a.start < prev.end - _tol(prev.end):
                raise InvalidSchedule(f"job {jid} attempt {a.index}: starts at {_g(a.start)}, before attempt "
                                      f"{prev.index} ends at {_g(prev.end)}")
        lay = _Layout(float(wl.length[j]), int(wl.nodes[j]), ck)
        saved = 0.0
        for a in att:
            name = f"job {jid} attempt {a.index} ({a.outcome}, [{_g(a.start)}, {_g(a.end)}))"
            last = a.index == len(att) - 1
            if a.outcome != (COMPLETED if last else STOPPED):
                raise InvalidSchedule(f"{name}: the last attempt completes, the others stop")
            if not _close(a.recovery, 0.0 if a.index == 0 else R):
                raise InvalidSchedule(f"{name}: recovery {_g(a.recovery)}, expected "
                                      f"{'0 for a first attempt' if a.index == 0 else f'R = {_g(R)}'}")
            if not _close(a.saved_before, saved):
                raise InvalidSchedule(f"{name}: saved before {_g(a.saved_before)}, expected {_g(saved)}")
            ran = a.end - a.start
            if a.outcome == COMPLETED:
                want = a.recovery + lay.E - a.saved_before
                if a.proactive or not _close(a.saved_after, a.saved_before):
                    raise InvalidSchedule(f"{name}: a completed attempt saves nothing more")
            elif a.proactive:
                if not (lay.in_work(a.saved_after) and a.saved_after > a.saved_before + _tol(a.saved_before)):
                    raise InvalidSchedule(f"{name}: proactive checkpoint at position {_g(a.saved_after)}, not "
                                          f"inside a work part after {_g(a.saved_before)}")
                want = a.recovery + a.saved_after - a.saved_before + lay.C
            else:
                if not (_close(a.saved_after, a.saved_before) or
                        (lay.checkpoint_end(a.saved_after) and a.saved_after > a.saved_before)):
                    raise InvalidSchedule(f"{name}: saves {_g(a.saved_after)}, not the end of a checkpoint "
                                          f"after {_g(a.saved_before)}")
                want = a.recovery + a.saved_after - a.saved_before
            if not (ran > 0 and _close(ran, want)):
                raise InvalidSchedule(f"{name}: runs {_g(ran)}, expected {_g(want)}")
            saved = a.saved_after


def _check_nodes(schedule: ClairvoyantSchedule, failures: FailureTrace, D: float, N: int) -> None:
    wl = schedule.workload
    on: dict[int, list[ClairvoyantAttempt]] = {}
    for a in schedule.attempts:
        name = f"job {wl.ids[a.job]} attempt {a.index}"
        if len(a.nodes) != int(wl.nodes[a.job]) or len(set(a.nodes)) != len(a.nodes):
            raise InvalidSchedule(f"{name}: runs on nodes {list(a.nodes)}, the job needs {wl.nodes[a.job]} distinct ones")
        for x in a.nodes:
            if not (isinstance(x, (int, np.integer)) and 0 <= x < N):
                raise InvalidSchedule(f"{name}: node {x!r} does not exist (nodes 0..{N - 1})")
            on.setdefault(int(x), []).append(a)
    for x, att in on.items():
        att.sort(key=lambda a: a.start)
        for prev, a in itertools.pairwise(att):
            if a.start < prev.end - _tol(prev.end):
                raise InvalidSchedule(f"node {x}: job {wl.ids[a.job]} attempt {a.index} [{_g(a.start)}, {_g(a.end)}) "
                                      f"overlaps job {wl.ids[prev.job]} attempt {prev.index} "
                                      f"[{_g(prev.start)}, {_g(prev.end)})")
    for t, x in _applied(failures, D):
        for a in on.get(x, []):
            tol = _tol(t, a.end)
            across = a.start < t - tol and t + tol < a.end
            down = D > 0 and a.start < t + D - tol and t + tol < a.end
            if across or down:
                what = "runs across its failure at" if across else f"runs while it is down on [{_g(t)}, {_g(t + D)}) after its failure at"
                raise InvalidSchedule(f"node {x}: job {wl.ids[a.job]} attempt {a.index} [{_g(a.start)}, {_g(a.end)}) "
                                      f"{what} {_g(t)}")


def validate_clairvoyant(
    schedule: ClairvoyantSchedule,
    *,
    failures: FailureTrace | None = None,
    downtime: float = 0.0,
    checkpointing: Checkpointing = NO_CHECKPOINTING,
    n_nodes: int | None = None,
) -> None:
    """Check ``schedule`` against the model's rules (``docs/clairvoyant.md``).

    1. Each job: attempts numbered ``0..k``, one after the other, the first not before the
       submission; the last completes, the others stop. Recovery 0 for the first attempt, ``R``
       after. The saved position passes from one attempt to the next, starting at 0.
    2. Each attempt runs exactly: ``r + E - U`` (completed); ``r + U' - U`` with ``U'`` the end
       of a checkpoint after ``U`` (or ``U' = U``: nothing saved) for a regular stop;
       ``r + U' - U + C`` with ``U'`` strictly inside a work part after ``U`` for a proactive stop.
    3. Each attempt runs on the job's node count of distinct existing nodes; no node runs two
       attempts at once (half-open intervals).
    4. For each failure the engine applies (one on a down node is ignored), at ``t`` on node
       ``x``: no attempt on ``x`` has ``start < t < end``; with ``D > 0`` none overlaps the
       downtime ``[t, t + D)``.

    Raises :class:`~coschedule.errors.InvalidSchedule` on the first violation (one line naming
    the job, the attempt, the node and the time). Times compare with a relative tolerance of
    ``1e-9`` (absolute below 1 s).
    """
    N = schedule.workload.n_nodes if n_nodes is None else int(n_nodes)
    trace = failures if failures is not None else FailureTrace.none(N)
    _check_jobs(schedule, checkpointing)
    _check_nodes(schedule, trace, float(downtime), N)


# ----------------------------------------------------------------------------- without a solver


def _clean(inst: ClairvoyantInstance, x: int, start: int, end: int) -> bool:
    """No applied failure of node ``x`` forbids it over ``[start, end)`` (units)."""
    for t, y in inst.failures:
        if y == x and ((start < t < end) or (inst.D > 0 and start < t + inst.D and t < end)):
            return False
    return True


def _to_schedule(inst: ClairvoyantInstance, rows: list[tuple[int, int, int, int, tuple[int, ...], int, int, int, str, bool]]) -> ClairvoyantSchedule:
    """Rows ``(job, index, start, end, nodes, recovery, saved before, saved after, outcome,
    proactive)`` in units, as a schedule in seconds."""
    s = inst.seconds
    return ClairvoyantSchedule(inst.workload, tuple(
        ClairvoyantAttempt(j, i, s(a), s(b), tuple(int(x) for x in nodes), s(r), s(u0), s(u1), out, pro)
        for j, i, a, b, nodes, r, u0, u1, out, pro in rows))


def greedy_schedule(inst: ClairvoyantInstance) -> ClairvoyantSchedule:
    """A feasible schedule of one attempt per job: jobs in workload order, each started at the
    earliest candidate instant (its submission, a node's release, the end of a downtime, a
    failure instant) where enough free nodes have no failure over its whole run. The models'
    first upper bound. ``O(n (N + F)^2 N F)``; it always succeeds (the last candidate is after
    every failure and every release)."""
    free = [0] * inst.n_nodes
    rows = []
    for j in range(inst.n):
        s, E, p = inst.submit[j], inst.length[j], inst.nodes[j]
        times = {s, *free, *(t + inst.D for t, _ in inst.failures), *(t for t, _ in inst.failures)}
        for tau in sorted(x for x in times if x >= s):
            ok = [x for x in range(inst.n_nodes) if free[x] <= tau and _clean(inst, x, tau, tau + E)]
            if len(ok) >= p:
                chosen = tuple(sorted(ok, key=lambda x: (-free[x], x))[:p])  # best fit: the latest released
                for x in chosen:
                    free[x] = tau + E
                rows.append((j, 0, tau, tau + E, tuple(sorted(chosen)), 0, 0, 0, COMPLETED, False))
                break
        else:  # pragma: no cover - the last candidate always fits
            raise AssertionError(f"no start found for job {inst.ids[j]}")
    return _to_schedule(inst, rows)


def schedule_from_run(inst: ClairvoyantInstance, run: SimulationResult) -> ClairvoyantSchedule:
    """A clairvoyant schedule no worse than ``run`` (a policy's run of the same instance): every
    job completes no later, and has no more attempts.

    Each attempt keeps its start and nodes and is cut short: a failed or interrupted attempt that
    saved nothing new is dropped (its nodes idle instead); one that saved the end of a checkpoint
    becomes a stop at the end of that checkpoint; one that saved a position inside a work part
    (a proactive checkpoint, node stealing's timing T2) becomes a proactive stop there; a
    proactive checkpoint at the very end of a work part becomes the regular stop (or the
    completion) that ends at the same instant. An attempt that took a proactive checkpoint and
    went on at once on the same nodes (``checkpointed``: a cancelled steal) is one attempt with
    the one after it, without that checkpoint, unless nothing after it saved more (then it is the
    proactive stop). The recovery of the job's first kept attempt is 0. Cutting an attempt short
    never makes it overlap anything it did not overlap, nor run across a failure it did not run
    across, nor run on a down node.

    Raises :class:`~coschedule.errors.InvalidInstance` when the run is not of this instance or
    not on its time grid.
    """
    wl = run.workload
    if wl.n != inst.n or wl.n_nodes != inst.n_nodes or wl.ids != inst.ids:
        raise InvalidInstance("the run to convert is not of this instance (other jobs or another platform)")
    unit = inst.unit

    def units(v: float, what: str) -> int:
        q = v / unit
        r = round(q)
        if abs(q - r) > 1e-9 * max(1.0, abs(q)):
            raise InvalidInstance(f"the run's {what} {v!r} s is not on the time grid of {unit:g} s")
        return int(r)

    by_job: dict[int, list] = {j: [] for j in range(inst.n)}
    for a in run.attempts:
        by_job[int(a.job)].append(a)
    rows = []
    for j, attempts in by_job.items():
        attempts.sort(key=lambda a: a.index)
        kept = 0
        name = f"job {inst.ids[j]}"
        merged: tuple[int, int, int] | None = None  # (start, saved before, proactive save) of a checkpointed run
        for a in attempts:
            start = units(a.start, f"{name} start")
            U = units(a.saved_before, f"{name} saved time")
            x = U if a.outcome == COMPLETED else units(a.saved_after, f"{name} saved time")
            if merged is not None:  # the run goes on from a checkpointed attempt
                start, U, pro = merged
                if a.outcome != COMPLETED and x <= pro:
                    x = pro  # nothing saved since the proactive checkpoint: stop with it
            if a.outcome == "checkpointed":
                merged = (start, U, x)
                continue
            merged = None
            r = 0 if kept == 0 else inst.R
            nodes = tuple(sorted(int(k) for k in a.nodes))
            if a.outcome == COMPLETED:
                rows.append((j, kept, start, start + r + inst.length[j] - U, nodes, r, U, U, COMPLETED, False))
                break
            if x <= U:
                continue  # nothing saved: the attempt was no use
            B = inst.block[j]
            if x in inst.checkpoint_ends(j):
                rows.append((j, kept, start, start + r + x - U, nodes, r, U, x, STOPPED, False))
            elif inst.in_work_part(j, x):
                rows.append((j, kept, start, start + r + x - U + inst.C, nodes, r, U, x, STOPPED, True))
            elif x == inst.work_end[j]:  # the last work done: completing ends at the same instant
                rows.append((j, kept, start, start + r + inst.length[j] - U, nodes, r, U, U, COMPLETED, False))
                break
            elif B and x < inst.stops[j] * B and x % B == B - inst.C:  # the end of a work part
                rows.append((j, kept, start, start + r + x + inst.C - U, nodes, r, U, x + inst.C, STOPPED, False))
            else:
                raise InvalidInstance(f"the run's {name} attempt {a.index} saved position {a.saved_after!r} s, "
                                      "neither a checkpoint's end nor inside a work part")
            kept += 1
    return _to_schedule(inst, rows)
