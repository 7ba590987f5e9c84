"""The slow reference of :func:`coschedule.sim.validate.validate_run`: the validator as it was
before node sets became intervals (issue 22), per attempt and per node in Python, kept verbatim
(only its imports changed) so that tests/coschedule/test_sim_validate_fast.py can check that the
vectorised validator accepts the same runs and rejects corrupted ones with the same line.

Its own docstring follows.

The validator of executed online schedules of rigid jobs on failing nodes ([Du2024] §4-5;
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
2. **Attempts**: an outcome among ``completed``, ``failed``, ``interrupted``, ``checkpointed``,
   ``migrated``; ``start <= end``;
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
7. **Node stealing** ([Du2024] §7): each steal record moves nodes of the victim's attempt that
   ends then (interrupted, or completed before it could stop) to the failed job's attempt that
   starts then, the failed job's previous attempt having failed by the decision; every
   interrupted attempt was a victim's at that instant; a node a failed job keeps (a *hold*,
   the paper's fictitious job) is one of its failed attempt's, between that attempt and the
   next, and runs nothing else meanwhile (rule 4 counts holds); a proactive checkpoint lasts
   ``C`` and saves the position where the work stopped (rule 3); an attempt that goes on after
   one (``checkpointed``) is followed at once, on the same nodes, by one without recovery.
8. **Migration** ([Oliner2004] §3.2): a ``migrated`` attempt saved where its work stopped; the
   next attempt starts at once (on any nodes) with a recovery of the run's migration cost.

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

from coschedule.errors import InvalidSchedule
from coschedule.sim.failures import FailureTrace
from coschedule.sim.result import Attempt, SimulationResult

__all__ = ["RTOL", "validate_run"]

#: relative tolerance on times (absolute below 1 s)
RTOL = 1e-9
OUTCOMES = ("completed", "failed", "interrupted", "checkpointed", "migrated")


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
    if not (math.isfinite(a.proactive) and a.proactive >= 0):
        raise InvalidSchedule(f"{name}: proactive checkpoint {a.proactive!r}, expected a time >= 0")
    if a.outcome == "checkpointed" and not a.proactive > 0:
        raise InvalidSchedule(f"{name}: checkpointed without a proactive checkpoint")
    if a.outcome == "completed" and a.proactive > 0:
        raise InvalidSchedule(f"{name}: completed, yet ends with a proactive checkpoint")
    C = float(result.checkpointing.cost)
    if a.proactive > C + _tol(C) or (a.outcome in ("interrupted", "checkpointed") and a.proactive > 0
                                      and not _close(a.proactive, C)):
        raise InvalidSchedule(f"{name}: proactive checkpoint of {_g(a.proactive)}, the checkpoint cost is {_g(C)}")
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
    for prev, a in itertools.pairwise(attempts):
        if prev.outcome == "checkpointed" and not (_close(a.start, prev.end) and set(a.nodes) == set(prev.nodes)):
            raise InvalidSchedule(f"job {jid} attempt {a.index}: after a proactive checkpoint it goes on at "
                                  f"{_g(prev.end)} on nodes {list(prev.nodes)}, not at {_g(a.start)} on "
                                  f"{list(a.nodes)}")
    for prev, a in itertools.pairwise(attempts):
        if prev.outcome == "migrated" and not _close(a.start, prev.end):
            raise InvalidSchedule(f"job {jid} attempt {a.index}: after its migration at {_g(prev.end)} it goes on "
                                  f"at once, not at {_g(a.start)}")
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
    M = float(result.migration_cost)
    saved = 0.0
    resumed = True  # no recovery: a first attempt, or one that goes on after a proactive checkpoint
    migrated = False  # the previous attempt migrated: the recovery is the migration cost
    for a in attempts:
        name = f"job {jid} attempt {a.index}"
        if not _close(a.recovery, M if migrated else 0.0 if resumed else R):
            what = (f"the migration cost {_g(M)} after a migration" if migrated else
                    ("0 for a first attempt" if a.index == 0 else "0 after a proactive checkpoint") if resumed
                    else f"R = {_g(R)} for a restart")
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
            if ran > planned + a.proactive + tol:
                raise InvalidSchedule(f"{name}: runs {_g(ran)}, longer than its R + E - U = {_g(planned)}"
                                      + (f" and its proactive checkpoint {_g(a.proactive)}" if a.proactive else ""))
            # how far its execution got (before saved_before if a failure cut its recovery)
            position = a.saved_before + (ran - a.recovery - a.proactive)
            if a.outcome == "migrated":  # it saved where its work stopped (none if in its recovery)
                if not _close(a.saved_after, max(position, a.saved_before)):
                    raise InvalidSchedule(f"{name}: saved {_g(a.saved_after)}, a migration saves where its work "
                                          f"stopped, {_g(max(position, a.saved_before))}")
            elif a.proactive > 0 and a.outcome != "failed":  # a proactive checkpoint saves it all
                if position < a.saved_before - tol or not _close(a.saved_after, position):
                    raise InvalidSchedule(f"{name}: saved {_g(a.saved_after)}, its proactive checkpoint "
                                          f"saves where its work stopped, {_g(position)}")
            else:
                before = cp.completed_by(a.saved_before + tol)
                fewest = max(before, cp.completed_by(position - tol))
                most = max(before, cp.completed_by(position + tol))
                options = [max(cp.end(m), a.saved_before) for m in range(fewest, most + 1)]
                if not any(_close(a.saved_after, u) for u in options):
                    raise InvalidSchedule(f"{name}: saved {_g(a.saved_after)}, the checkpoints completed by "
                                          f"then give {_g(options[-1])}")
        saved = a.saved_after
        resumed = a.outcome == "checkpointed"
        migrated = a.outcome == "migrated"
    last, first = attempts[-1], attempts[0]
    for what, have, want in (("completion", float(result.completion[j]), last.end),
                             ("first start", float(result.first_start[j]), first.start)):
        if not _close(have, want):
            attempt = "its completed attempt ends" if what == "completion" else "attempt 0 starts"
            raise InvalidSchedule(f"job {jid}: {what} {_g(have)}, but {attempt} at {_g(want)}")


def _node_intervals(result: SimulationResult) -> tuple[np.ndarray, ...]:
    """``(node, start, end, kind, ref)`` of every attempt on every node (kind 0, ``ref`` the
    attempt's position), every downtime (kind 1, ``ref`` the record's position) and every node
    a failed job keeps waiting for a stolen one (kind 2, ``ref`` the hold's position), sorted
    by node, start, end."""
    att, holds = result.attempts, result.holds
    spans = [(a.nodes, a.start, a.end) for a in att] + [(h.nodes, h.start, h.end) for h in holds]
    counts = np.array([len(x[0]) for x in spans], dtype=np.int64)
    nodes = np.concatenate([np.asarray(x[0], dtype=np.int64) for x in spans] + [np.empty(0, np.int64)])
    starts = np.repeat(np.array([x[1] for x in spans], dtype=np.float64), counts)
    ends = np.repeat(np.array([x[2] for x in spans], dtype=np.float64), counts)
    refs = np.repeat(np.r_[np.arange(len(att)), np.arange(len(holds))].astype(np.int64), counts)
    kinds = np.repeat(np.r_[np.zeros(len(att)), np.full(len(holds), 2)].astype(np.int64), counts)
    fr = result.failures
    node = np.r_[nodes, np.array([f.node for f in fr], dtype=np.int64)]
    start = np.r_[starts, np.array([f.time for f in fr], dtype=np.float64)]
    end = np.r_[ends, np.array([f.up for f in fr], dtype=np.float64)]
    kind = np.r_[kinds, np.ones(len(fr), np.int64)]
    ref = np.r_[refs, np.arange(len(fr), dtype=np.int64)]
    order = np.lexsort((end, start, node))
    return node[order], start[order], end[order], kind[order], ref[order]


def _check_nodes(result: SimulationResult, iv: tuple[np.ndarray, ...]) -> None:
    """Rule 4: consecutive intervals of a node (sorted by start) must not overlap; sorted by
    start, that is enough."""
    node, start, end, kind, ref = iv
    keep = (kind != 1) | (end - start > RTOL * np.maximum(1.0, np.abs(end)))  # D = 0: never down
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
        if kind[k] == 2:
            h = result.holds[int(ref[k])]
            return f"job {result.workload.ids[h.job]} keeping it [{_g(h.start)}, {_g(h.end)})"
        f = result.failures[int(ref[k])]
        return f"the node down on [{_g(f.time)}, {_g(f.up)}) (failure at {_g(f.time)})"

    first, second = what(i), what(i + 1)
    if kind[i] != 1 and kind[i + 1] != 1:
        raise InvalidSchedule(f"node {node[i]}: {second} overlaps {first}")
    if kind[i] == 1 and kind[i + 1] == 1:
        raise InvalidSchedule(f"node {node[i]}: fails at {_g(start[i + 1])} while down: "
                              f"{second} overlaps {first}")
    running, down = (first, second) if kind[i] != 1 else (second, first)
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
        if f.job >= 0 and f.reaction == "held":
            if not any(h.job == f.job and f.node in h.nodes and _close(h.end, t) for h in result.holds):
                raise InvalidSchedule(f"{where}: it hit a node job {result.workload.ids[f.job]} kept, but no "
                                      "node it kept ends then")
        elif f.job >= 0 and not any(a.outcome == "failed" and f.node in a.nodes and _close(a.end, t)
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


def _check_steals(result: SimulationResult, by_job: dict[int, list[Attempt]]) -> None:
    """Rule 7, node stealing: each steal moves nodes of the victim's attempt that ends then
    (interrupted, or completed) to the failed job's attempt that starts then, after the failure
    that decided it; every interrupted attempt is a victim's; every hold sits between a failed
    attempt of its job and the next, on nodes of the failed one."""
    ids = result.workload.ids
    stolen_at: set[tuple[int, float]] = set()
    for s in result.steals:
        where = f"steal decided at {_g(s.decided)} for job {ids[s.failed]} from job {ids[s.victim]}"
        if s.time < s.decided - _tol(s.decided):
            raise InvalidSchedule(f"{where}: happens at {_g(s.time)}, before it was decided")
        if s.cancelled:
            continue
        give = [a for a in by_job[s.victim] if _close(a.end, s.time) and a.outcome in ("interrupted", "completed")]
        take = [a for a in by_job[s.failed] if _close(a.start, s.time) and set(s.nodes) <= set(a.nodes)]
        if not give or not set(s.nodes) <= set(give[-1].nodes):
            raise InvalidSchedule(f"{where}: no attempt of the victim on nodes {list(s.nodes)} is "
                                  f"interrupted or completes at {_g(s.time)}")
        if not take or not set(s.nodes) <= set(take[0].nodes):
            raise InvalidSchedule(f"{where}: no attempt of the failed job starts at {_g(s.time)} on "
                                  f"nodes {list(s.nodes)}")
        prev = [a for a in by_job[s.failed] if a.index == take[0].index - 1]
        if not prev or prev[0].outcome != "failed" or prev[0].end > s.decided + _tol(s.decided):
            raise InvalidSchedule(f"{where}: the failed job has no failed attempt ending by then")
        stolen_at.add((s.victim, round(s.time, 6)))
    victims = {(s.victim, round(s.time, 6)) for s in result.steals if not s.cancelled}
    for a in result.attempts:
        if a.outcome == "interrupted" and (a.job, round(a.end, 6)) not in victims:
            raise InvalidSchedule(f"{_name(result, a)}: interrupted at {_g(a.end)}, but no node was stolen "
                                  "from it then")
    for h in result.holds:
        where = f"job {ids[h.job]} keeping nodes over [{_g(h.start)}, {_g(h.end)})"
        runs = by_job[h.job]
        before = [a for a in runs if a.end <= h.start + _tol(h.start)]
        after = [a for a in runs if a.start >= h.end - _tol(h.end)]
        if not before or before[-1].outcome != "failed" or (after and after[0].index != before[-1].index + 1):
            raise InvalidSchedule(f"{where}: it does not sit between a failed attempt of the job and the next")
        if not set(h.nodes) <= set(before[-1].nodes):
            raise InvalidSchedule(f"{where}: nodes {sorted(set(h.nodes) - set(before[-1].nodes))} were not "
                                  "its failed attempt's")


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
    _check_steals(result, {j: sorted(v, key=lambda a: a.index) for j, v in by_job.items()})
    if failures is not None:
        _check_trace(result, failures)
