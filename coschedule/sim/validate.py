"""The validator of executed online schedules of rigid jobs on failing nodes ([Du2024] §4-5;
ARCHITECTURE.md, "Online simulation": the executed schedule is checked before anything is
written).

:func:`validate_run` checks a :class:`~coschedule.sim.engine.SimulationResult` independently of
the engine: it calls neither the engine nor :mod:`~coschedule.sim.checkpointing`, and recomputes
everything from the workload, the failure records, the downtime and the checkpoint parameters
with its own simple code. It raises :class:`~coschedule.errors.InvalidSchedule` on the first
violated rule, with one line that names the job (its id), the attempt, the node and the time.

Rules
-----
1. **Failure records**: each names an existing node and, if it hit a job, an existing job; the
   node is down on ``[t, t + D)`` (``D`` the run's downtime).
2. **Attempts**: an outcome among ``completed``, ``failed``, ``interrupted``; ``start <= end``;
   exactly the job's node count, distinct existing nodes.
3. **Jobs**: attempts numbered ``0..k`` and sequential (each starts when the previous has
   ended); the first starts at or after the job's submission; exactly one completed attempt, the
   last; recovery 0 for the first attempt and ``R`` for a restart; the saved time ``U`` starts
   at 0 and passes from one attempt to the next; after a failed or interrupted attempt it is what
   the checkpoints completed in it give: blocks of ``T`` work + ``C`` checkpoint after its
   recovery, ``T = sqrt(2 (mu_ind / p) C)`` the Young/Daly period of §5.2 (the last
   checkpoint sits at the end of the work with ``final_checkpoint``); the completed attempt runs
   ``R_a + E - U`` with ``E = L + K C``, ``K = ceil(L / T) - 1`` (``ceil(L / T)`` with
   ``final_checkpoint``), so the useful work of a job adds up to its length ``L``; a failed or
   interrupted attempt runs no longer than that; the result's completion and first start match.
4. **Nodes** (half-open intervals): no node runs two attempts at once, and a down node runs
   nothing.
5. **Failures and attempts**: an attempt running on a node across a failure of it ends then
   (failed); a record that says it hit job ``j`` matches a failed attempt of ``j`` on that node
   ending then; every failed attempt was ended by such a record.
6. Given the trace (``failures=``), every failure of it up to the end of the run was applied
   unless its node was down, and every record comes from it.

Times compare with a relative tolerance of ``1e-9`` (:data:`RTOL`), integers exactly. Running
time ``O(S log S + F log F)`` for ``S`` (attempt, node) pairs and ``F`` failures, plus the
attempts' checkpoint counts.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidSchedule
from .engine import Attempt, SimulationResult
from .failures import FailureTrace

__all__ = ["RTOL", "validate_run"]

#: relative tolerance on times (absolute below 1 s)
RTOL = 1e-9
OUTCOMES = ("completed", "failed", "interrupted")


def _tol(*values: float) -> float:
    return RTOL * max([1.0] + [abs(v) for v in values])


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= _tol(a, b)


def _g(x: float) -> str:
    return f"{x:.10g}"


class _Checkpoints:
    """The checkpoint layout of one job, from the paper's formulas (module docstring)."""

    def __init__(self, L: float, p: int, cost: float, mtbf: float, final: bool) -> None:
        self.L, self.C = L, cost
        if cost > 0:
            self.T = math.sqrt(2.0 * (mtbf / p) * cost)
            k = math.ceil(L / self.T)
            self.K = int(k if final else max(k - 1, 0))
        else:
            self.T, self.K = math.inf, 0
        self.E = L + self.K * cost

    def end(self, m: int) -> float:
        """Saved time after the first ``m`` checkpoints: the end of the ``m``-th one."""
        return 0.0 if m == 0 else min(m * self.T, self.L) + m * self.C

    def completed_by(self, position: float) -> int:
        """How many checkpoints end at or before ``position``."""
        lo, hi = 0, self.K  # the ends increase with m: a bisection
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.end(mid) <= position:
                lo = mid
            else:
                hi = mid - 1
        return lo


def _name(result: SimulationResult, a: Attempt) -> str:
    return f"job {result.workload.ids[a.job]} attempt {a.index}"


def _check_records(result: SimulationResult) -> None:
    N, n, D = result.workload.n_nodes, result.workload.n, float(result.downtime)
    for f in result.failures:
        where = f"failure at {_g(f.time)} on node {f.node}"
        if not (isinstance(f.node, (int, np.integer)) and 0 <= f.node < N):
            raise InvalidSchedule(f"{where}: the node does not exist (nodes 0..{N - 1})")
        if not -1 <= f.job < n:
            raise InvalidSchedule(f"{where}: it hit job index {f.job}, which does not exist")
        if not _close(f.up, f.time + D):
            raise InvalidSchedule(f"{where}: back at {_g(f.up)}, expected {_g(f.time + D)} "
                                  f"(downtime {_g(D)})")


def _check_attempt(result: SimulationResult, a: Attempt) -> None:
    wl = result.workload
    if not (isinstance(a.job, (int, np.integer)) and 0 <= a.job < wl.n):
        raise InvalidSchedule(f"attempt of job index {a.job!r}: no such job ({wl.n} jobs)")
    name = _name(result, a)
    if a.outcome not in OUTCOMES:
        raise InvalidSchedule(f"{name}: outcome {a.outcome!r} is not one of {', '.join(OUTCOMES)}")
    if not (math.isfinite(a.start) and math.isfinite(a.end) and a.start <= a.end + _tol(a.end)):
        raise InvalidSchedule(f"{name}: needs a finite start <= end, got [{_g(a.start)}, {_g(a.end)})")
    p = int(wl.nodes[a.job])
    if len(a.nodes) != p:
        raise InvalidSchedule(f"{name}: runs on {len(a.nodes)} nodes, the job has {p}")
    seen: set[int] = set()
    for x in a.nodes:
        if not (isinstance(x, (int, np.integer)) and 0 <= x < wl.n_nodes):
            raise InvalidSchedule(f"{name}: node {x!r} does not exist (nodes 0..{wl.n_nodes - 1})")
        if x in seen:
            raise InvalidSchedule(f"{name}: node {x} appears twice")
        seen.add(int(x))


def _check_sequence(result: SimulationResult, j: int, attempts: Sequence[Attempt]) -> None:
    """Rule 3, the order: numbered 0..k, sequential, after the submission, the last completed."""
    jid = result.workload.ids[j]
    indices = [a.index for a in attempts]
    if indices != list(range(len(attempts))):
        raise InvalidSchedule(f"job {jid}: attempts numbered {indices}, expected 0..{len(attempts) - 1}")
    if not attempts:
        raise InvalidSchedule(f"job {jid}: no attempt (every job must complete)")
    submit, first = float(result.workload.submit[j]), attempts[0]
    if first.start < submit - _tol(submit):
        raise InvalidSchedule(f"job {jid} attempt 0: starts at {_g(first.start)}, "
                              f"before its submission at {_g(submit)}")
    for prev, a in itertools.pairwise(attempts):
        if a.start < prev.end - _tol(prev.end):
            raise InvalidSchedule(f"job {jid} attempt {a.index}: starts at {_g(a.start)}, "
                                  f"before attempt {prev.index} ends at {_g(prev.end)}")
    for a in attempts[:-1]:
        if a.outcome == "completed":
            raise InvalidSchedule(f"job {jid} attempt {a.index}: completed, yet attempt "
                                  f"{a.index + 1} follows")
    last = attempts[-1]
    if last.outcome != "completed":
        raise InvalidSchedule(f"job {jid}: no completed attempt "
                              f"(the last, {last.index}, {last.outcome} at {_g(last.end)})")


def _check_work(result: SimulationResult, j: int, attempts: Sequence[Attempt]) -> None:
    """Rule 3, the work: recovery, saved time from one attempt to the next, lengths; the
    result's completion and first start."""
    wl, ck = result.workload, result.checkpointing
    jid = wl.ids[j]
    R = float(ck.cost if ck.recovery is None else ck.recovery)
    cp = _Checkpoints(float(wl.length[j]), int(wl.nodes[j]), float(ck.cost), float(ck.node_mtbf),
                      bool(ck.final_checkpoint))
    saved = 0.0
    for a in attempts:
        name = f"job {jid} attempt {a.index}"
        if not _close(a.recovery, 0.0 if a.index == 0 else R):
            what = "0 for a first attempt" if a.index == 0 else f"R = {_g(R)} for a restart"
            raise InvalidSchedule(f"{name}: recovery {_g(a.recovery)}, expected {what}")
        if not _close(a.saved_before, saved):
            raise InvalidSchedule(f"{name}: saved before {_g(a.saved_before)}, expected {_g(saved)} "
                                  "(what the previous attempts saved)")
        name = f"{name} ({a.outcome} at {_g(a.end)})"
        planned = a.recovery + cp.E - a.saved_before
        ran = a.end - a.start
        tol = _tol(a.start, a.end, cp.E)
        if a.outcome == "completed":
            if not _close(a.saved_after, a.saved_before):
                raise InvalidSchedule(f"{name}: saved after {_g(a.saved_after)} differs from saved "
                                      f"before {_g(a.saved_before)}")
            if abs(ran - planned) > tol:
                raise InvalidSchedule(f"{name}: runs {_g(ran)}, expected R + E - U = {_g(a.recovery)} + "
                                      f"{_g(cp.E)} - {_g(a.saved_before)} = {_g(planned)}")
        else:
            if ran > planned + tol:
                raise InvalidSchedule(f"{name}: runs {_g(ran)}, longer than its R + E - U = {_g(planned)}")
            # how far its execution got (before saved_before if a failure cut its recovery)
            position = a.saved_before + (ran - a.recovery)
            before = cp.completed_by(a.saved_before + tol)
            fewest = max(before, cp.completed_by(position - tol))
            most = max(before, cp.completed_by(position + tol))
            options = [cp.end(m) for m in range(fewest, most + 1)]
            if not any(_close(a.saved_after, u) for u in options):
                raise InvalidSchedule(f"{name}: saved {_g(a.saved_after)}, the checkpoints completed by "
                                      f"then give {_g(options[-1])}")
        saved = a.saved_after
    last, first = attempts[-1], attempts[0]
    for what, have, want in (("completion", float(result.completion[j]), last.end),
                             ("first start", float(result.first_start[j]), first.start)):
        if not _close(have, want):
            attempt = "its completed attempt ends" if what == "completion" else "attempt 0 starts"
            raise InvalidSchedule(f"job {jid}: {what} {_g(have)}, but {attempt} at {_g(want)}")


def _node_intervals(result: SimulationResult) -> tuple[np.ndarray, ...]:
    """``(node, start, end, kind, ref)`` of every attempt on every node (kind 0, ``ref`` the
    attempt's position) and of every downtime (kind 1, ``ref`` the record's position), sorted
    by node, start, end."""
    att = result.attempts
    counts = np.array([len(a.nodes) for a in att], dtype=np.int64)
    nodes = np.concatenate([np.asarray(a.nodes, dtype=np.int64) for a in att] + [np.empty(0, np.int64)])
    starts = np.repeat(np.array([a.start for a in att], dtype=np.float64), counts)
    ends = np.repeat(np.array([a.end for a in att], dtype=np.float64), counts)
    refs = np.repeat(np.arange(len(att), dtype=np.int64), counts)
    fr = result.failures
    node = np.r_[nodes, np.array([f.node for f in fr], dtype=np.int64)]
    start = np.r_[starts, np.array([f.time for f in fr], dtype=np.float64)]
    end = np.r_[ends, np.array([f.up for f in fr], dtype=np.float64)]
    kind = np.r_[np.zeros(nodes.size, np.int64), np.ones(len(fr), np.int64)]
    ref = np.r_[refs, np.arange(len(fr), dtype=np.int64)]
    order = np.lexsort((end, start, node))
    return node[order], start[order], end[order], kind[order], ref[order]


def _check_nodes(result: SimulationResult, iv: tuple[np.ndarray, ...]) -> None:
    """Rule 4: consecutive intervals of a node (sorted by start) must not overlap; sorted by
    start, that is enough."""
    node, start, end, kind, ref = iv
    keep = (kind == 0) | (end - start > RTOL * np.maximum(1.0, np.abs(end)))  # D = 0: never down
    node, start, end, kind, ref = node[keep], start[keep], end[keep], kind[keep], ref[keep]
    if node.size < 2:
        return
    tol = RTOL * np.maximum(1.0, np.abs(end[:-1]))
    bad = np.flatnonzero((node[1:] == node[:-1]) & (start[1:] < end[:-1] - tol))
    if not bad.size:
        return
    i = int(bad[np.argmin(start[bad + 1])])  # the earliest conflict

    def what(k: int) -> str:
        if kind[k] == 0:
            a = result.attempts[int(ref[k])]
            return f"{_name(result, a)} [{_g(a.start)}, {_g(a.end)})"
        f = result.failures[int(ref[k])]
        return f"the node down on [{_g(f.time)}, {_g(f.up)}) (failure at {_g(f.time)})"

    first, second = what(i), what(i + 1)
    if kind[i] == 0 and kind[i + 1] == 0:
        raise InvalidSchedule(f"node {node[i]}: {second} overlaps {first}")
    if kind[i] == 1 and kind[i + 1] == 1:
        raise InvalidSchedule(f"node {node[i]}: fails at {_g(start[i + 1])} while down: "
                              f"{second} overlaps {first}")
    running, down = (first, second) if kind[i] == 0 else (second, first)
    raise InvalidSchedule(f"node {node[i]}: {running} runs while {down}")


def _check_failures(result: SimulationResult, iv: tuple[np.ndarray, ...]) -> None:
    """Rule 5."""
    node, start, end, kind, ref = iv
    on = kind == 0
    a_node, a_start, a_end, a_ref = node[on], start[on], end[on], ref[on]
    att = result.attempts
    by_job: dict[int, list[Attempt]] = {}
    for a in att:
        by_job.setdefault(a.job, []).append(a)
    for f in result.failures:
        where = f"failure at {_g(f.time)} on node {f.node}"
        t, tol = f.time, _tol(f.time)
        lo, hi = np.searchsorted(a_node, f.node, "left"), np.searchsorted(a_node, f.node, "right")
        # the last attempt on the node started before t: the only one that can run across t
        k = lo + int(np.searchsorted(a_start[lo:hi], t - tol, "left")) - 1
        if k >= lo and a_end[k] > t + tol:
            a = att[int(a_ref[k])]
            raise InvalidSchedule(f"{where}: {_name(result, a)} runs there over [{_g(a.start)}, "
                                  f"{_g(a.end)}) and does not end then")
        if f.job >= 0 and not any(a.outcome == "failed" and f.node in a.nodes and _close(a.end, t)
                                  for a in by_job.get(f.job, [])):
            raise InvalidSchedule(f"{where}: it hit job {result.workload.ids[f.job]}, which has no "
                                  "attempt on the node failed then")
    ended: dict[tuple[int, int], list[float]] = {}
    for f in result.failures:
        if f.job >= 0:
            ended.setdefault((int(f.job), int(f.node)), []).append(f.time)
    for a in att:
        if a.outcome != "failed":
            continue
        if not any(_close(t, a.end) for x in a.nodes for t in ended.get((int(a.job), int(x)), ())):
            raise InvalidSchedule(f"{_name(result, a)}: failed at {_g(a.end)}, but no failure of one "
                                  "of its nodes hit it then")


def _check_trace(result: SimulationResult, trace: FailureTrace) -> None:
    """Rule 6."""
    N = result.workload.n_nodes
    if trace.n_nodes != N:
        raise InvalidSchedule(f"the failure trace is for {trace.n_nodes} nodes, the platform has {N}")
    records: dict[int, list[tuple[float, float]]] = {}
    for f in result.failures:
        records.setdefault(int(f.node), []).append((f.time, f.up))
    for v in records.values():
        v.sort()
    end = float(result.horizon)
    in_trace: dict[int, list[float]] = {}
    for t, x in zip(trace.times.tolist(), trace.nodes.tolist()):
        in_trace.setdefault(x, []).append(t)
        if t > end + _tol(end):
            continue  # after the run: never applied
        rec = records.get(x, [])
        k = bisect.bisect_right(rec, (t + _tol(t), math.inf)) - 1
        applied = k >= 0 and _close(rec[k][0], t)
        down = k >= 0 and rec[k][0] <= t < rec[k][1] - _tol(rec[k][1])
        if not (applied or down):
            raise InvalidSchedule(f"failure at {_g(t)} on node {x} of the trace: not applied, though "
                                  "the node is up")
    for f in result.failures:
        times = in_trace.get(int(f.node), [])
        k = bisect.bisect_left(times, f.time - _tol(f.time))
        if not (k < len(times) and _close(times[k], f.time)):
            raise InvalidSchedule(f"failure at {_g(f.time)} on node {f.node}: not in the failure trace")


def validate_run(result: SimulationResult, *, failures: FailureTrace | None = None) -> None:
    """Check the executed schedule ``result`` (module docstring's rules, in that order).

    Parameters
    ----------
    result : SimulationResult
        What :meth:`~coschedule.sim.engine.Simulation.run` returned.
    failures : FailureTrace, optional
        The trace the run was given: also check that every failure of it was applied unless its
        node was down (rule 6).

    Raises
    ------
    InvalidSchedule
        One line naming the job, the attempt, the node and the time.
    """
    _check_records(result)
    for a in result.attempts:
        _check_attempt(result, a)
    by_job: dict[int, list[Attempt]] = {j: [] for j in range(result.workload.n)}
    for a in result.attempts:
        by_job[int(a.job)].append(a)
    for j, attempts in by_job.items():
        ordered = sorted(attempts, key=lambda a: a.index)
        _check_sequence(result, j, ordered)
        _check_work(result, j, ordered)
    iv = _node_intervals(result)
    _check_nodes(result, iv)
    _check_failures(result, iv)
    if failures is not None:
        _check_trace(result, failures)
