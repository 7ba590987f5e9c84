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

Times compare with a relative tolerance of ``1e-9`` (:data:`RTOL`), integers exactly.

How
---
Node sets are intervals (:class:`~coschedule.sim.result.AttemptTable`, :mod:`.intervals`), and
each rule runs in numpy over all attempts or jobs at once: rules 2 and 3 compute, with the same
formulas as the per-attempt code below, which attempts and jobs break a rule, and only those go
through that code, which names the first culprit in the order a per-attempt loop would meet it;
rules 4 and 5 are sweeps over the endpoints of the node intervals (:mod:`.validate_nodes`).
A valid run never reaches the per-attempt code. Running time ``O(A log A + P log P + F log F)``
for ``A`` attempts, ``P`` (item, node segment) pairs (:mod:`.validate_nodes`) and ``F``
failures, plus the steals and holds; the slow reference, per attempt and per node, is kept in
the tests (tests/coschedule/validate_reference.py), which check that both give the same verdict
and the same line.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidSchedule
from .failures import FailureTrace
from .intervals import intervals_of, iv_subset
from .result import OUTCOMES, Attempt, AttemptTable, SimulationResult
from .validate_nodes import check_nodes

__all__ = ["RTOL", "validate_run"]

#: relative tolerance on times (absolute below 1 s)
RTOL = 1e-9
_COMPLETED, _FAILED, _INTERRUPTED, _CHECKPOINTED, _MIGRATED = range(len(OUTCOMES))  # their codes


def _tol(*values: float) -> float:
    largest = 1.0  # (a loop: the validators call this per phase and per attempt)
    for v in values:
        largest = max(largest, abs(v))
    return RTOL * largest


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= RTOL * max(1.0, abs(a), abs(b))


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
        if prev.outcome == "checkpointed" and not (_close(a.start, prev.end) and _same_nodes(a.nodes, prev.nodes)):
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


def _same_nodes(a: Sequence[int], b: Sequence[int]) -> bool:
    return bool(np.array_equal(intervals_of(a), intervals_of(b)))


def _contains(iv: np.ndarray, x: int) -> bool:
    return int(iv.searchsorted(int(x), "right")) % 2 == 1


def _tols(*values: np.ndarray | float) -> np.ndarray:
    """:func:`_tol` over arrays."""
    top: np.ndarray | float = 1.0
    for v in values:
        top = np.maximum(top, np.abs(v))
    return RTOL * top  # type: ignore[return-value]


def _closev(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    return np.abs(a - b) <= _tols(a, b)


# ------------------------------------------------------------------ rules 2 and 3 over arrays
def _suspect_attempts(result: SimulationResult, t: AttemptTable) -> np.ndarray:
    """Rule 2's conditions (:func:`_check_attempt`) over every attempt at once."""
    wl = result.workload
    o, s, e, pr = t.outcome, t.start, t.end, t.proactive
    C = float(result.checkpointing.cost)
    bad = ~t.clean | (t.job < 0) | (t.job >= wl.n) | (o < 0)
    with np.errstate(invalid="ignore"):
        bad |= ~(np.isfinite(s) & np.isfinite(e) & (s <= e + _tols(e)))
        bad |= ~(np.isfinite(pr) & (pr >= 0))
        bad |= ((o == _CHECKPOINTED) & ~(pr > 0)) | ((o == _COMPLETED) & (pr > 0))
        bad |= (pr > C + _tol(C)) | (((o == _INTERRUPTED) | (o == _CHECKPOINTED)) & (pr > 0) & ~_closev(pr, C))
    bad |= t.size != (wl.nodes[np.clip(t.job, 0, max(wl.n - 1, 0))] if wl.n else -1)
    full = np.flatnonzero(t.iv_off[1:] > t.iv_off[:-1])  # nodes within [0, N)
    bad[full] |= (t.iv[t.iv_off[full]] < 0) | (t.iv[t.iv_off[full + 1] - 1] > wl.n_nodes)
    return bad


def _completed_by(x: np.ndarray, T: np.ndarray, L: np.ndarray, C: float, K: np.ndarray) -> np.ndarray:
    """:meth:`_Checkpoints.completed_by` over arrays: the same bisection."""
    lo, hi = np.zeros_like(K), K.copy()
    while np.any(lo < hi):
        mid = (lo + hi + 1) // 2
        up = (lo < hi) & (_ends(mid, T, L, C) <= x)
        down = (lo < hi) & ~up
        lo = np.where(up, mid, lo)
        hi = np.where(down, mid - 1, hi)
    return lo


def _ends(m: np.ndarray, T: np.ndarray, L: np.ndarray, C: float) -> np.ndarray:
    """:meth:`_Checkpoints.end` over arrays."""
    with np.errstate(invalid="ignore"):
        return np.where(m == 0, 0.0, np.minimum(m * T, L) + m * C)


class _Jobs:
    """The attempts grouped by job (sorted by index, as :func:`validate_run` has them) and rule
    3's conditions (:func:`_check_sequence`, :func:`_check_work`) over every job at once."""

    def __init__(self, result: SimulationResult, t: AttemptTable) -> None:
        wl, ck = result.workload, result.checkpointing
        n = wl.n
        self.order = order = np.lexsort((t.index, t.job))
        J = t.job[order]
        counts = np.bincount(J, minlength=n)
        self.first = first = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=first[1:])
        m = order.shape[0]
        rank = np.arange(m) - first[J]
        head = rank == 0
        last = rank == counts[J] - 1
        o, s, e = t.outcome[order], t.start[order], t.end[order]
        rec, sb, sa, pr = t.recovery[order], t.saved_before[order], t.saved_after[order], t.proactive[order]
        op, ep, sap = np.full(m, -1), np.zeros(m), np.zeros(m)  # the previous attempt's, if any
        op[1:], ep[1:], sap[1:] = o[:-1], e[:-1], sa[:-1]
        op[head], ep[head], sap[head] = -1, 0.0, 0.0
        bad = (t.index[order] != rank) | ~(np.isfinite(rec) & np.isfinite(sb) & np.isfinite(sa))
        submit = wl.submit[J]
        with np.errstate(invalid="ignore"):
            # rule 3, the order
            bad |= head & (s < submit - _tols(submit))
            bad |= ~head & (s < ep - _tols(ep))
            bad |= (op == _MIGRATED) & ~_closev(s, ep)
            after = np.flatnonzero(op == _CHECKPOINTED)
            bad[after] |= ~_closev(s[after], ep[after]) | np.array(
                [not np.array_equal(t.nodes(order[r]), t.nodes(order[r - 1])) for r in after.tolist()], dtype=bool)
            bad |= (~last & (o == _COMPLETED)) | (last & (o != _COMPLETED))
            # rule 3, the work
            L, p = wl.length.astype(np.float64), wl.nodes.astype(np.int64)
            cost, mtbf = float(ck.cost), float(ck.node_mtbf)
            R = float(ck.cost if ck.recovery is None else ck.recovery)
            if cost > 0:
                T = np.sqrt(2.0 * (mtbf / p) * cost)
                k = np.ceil(L / T)
                K = (k if ck.final_checkpoint else np.maximum(k - 1, 0)).astype(np.int64)
            else:
                T, K = np.full(n, np.inf), np.zeros(n, dtype=np.int64)
            E = L + K * cost
            EJ, TJ, LJ, KJ = E[J], T[J], L[J], K[J]
            want = np.where(op == _MIGRATED, float(result.migration_cost), np.where((op == _CHECKPOINTED) | head,
                                                                                     0.0, R))
            bad |= ~_closev(rec, want) | ~_closev(sb, sap)
            planned = rec + EJ - sb
            ran = e - s
            tol = _tols(s, e, EJ)
            done = o == _COMPLETED
            bad |= done & (~_closev(sa, sb) | (np.abs(ran - planned) > tol))
            bad |= ~done & (ran > planned + pr + tol)
            position = sb + (ran - rec - pr)
            moved = o == _MIGRATED
            bad |= moved & ~_closev(sa, np.maximum(position, sb))
            proactive = ~done & ~moved & (pr > 0) & (o != _FAILED)
            bad |= proactive & ((position < sb - tol) | ~_closev(sa, position))
            lost = np.flatnonzero(~done & ~moved & ~proactive)  # saved what its completed checkpoints give
            x = (TJ[lost], LJ[lost], cost, KJ[lost])
            before = _completed_by(sb[lost] + tol[lost], *x)
            fewest = np.maximum(before, _completed_by(position[lost] - tol[lost], *x))
            most = np.maximum(before, _completed_by(position[lost] + tol[lost], *x))
            u = sa[lost]
            fits = (_closev(u, np.maximum(_ends(fewest, *x[:3]), sb[lost]))
                    | _closev(u, np.maximum(_ends(most, *x[:3]), sb[lost])))
            bad[lost] |= (most - fewest > 1) | ~fits
            # the result's completion and first start
            jobs = np.flatnonzero(counts > 0)
            ends = ~_closev(result.completion[jobs].astype(np.float64), e[first[jobs + 1] - 1])
            starts = ~_closev(result.first_start[jobs].astype(np.float64), s[first[jobs]])
        suspect = counts == 0
        suspect[J[bad]] = True
        suspect[jobs[ends | starts]] = True
        self.suspects = np.flatnonzero(suspect)

    def rows(self, j: int) -> list[int]:
        """The positions of job ``j``'s attempts, by index."""
        if not 0 <= j < self.first.shape[0] - 1:
            raise KeyError(j)
        return self.order[self.first[j]: self.first[j + 1]].tolist()


# ------------------------------------------------------------------ rules 5 and 7 on the table
def _check_failures(result: SimulationResult, t: AttemptTable, jobs: _Jobs, busy: list[int]) -> None:
    """Rule 5 (its first part from :func:`~coschedule.sim.validate_nodes.busy_failures`)."""
    ids = result.workload.ids
    holds: dict[int, list] = {}
    for h in result.holds:
        holds.setdefault(h.job, []).append(h)
    outcome, ends, off, iv = t.outcome.tolist(), t.end.tolist(), t.iv_off.tolist(), t.iv

    def on(r: int, x: int) -> bool:  # node x is one of attempt r's
        return _contains(iv[off[r]: off[r + 1]], x)

    for f, k in zip(result.failures, busy):
        t_f = f.time
        if k >= 0:
            a = result.attempts[k]
            raise InvalidSchedule(f"failure at {_g(f.time)} on node {f.node}: {_name(result, a)} runs there over "
                                  f"[{_g(a.start)}, {_g(a.end)}) and does not end then")
        if f.job >= 0 and f.reaction == "held":
            if not any(f.node in h.nodes and _close(h.end, t_f) for h in holds.get(f.job, ())):
                raise InvalidSchedule(f"failure at {_g(f.time)} on node {f.node}: it hit a node job {ids[f.job]} "
                                      "kept, but no node it kept ends then")
        elif f.job >= 0 and not any(outcome[r] == _FAILED and _close(ends[r], t_f) and on(r, f.node)
                                    for r in jobs.rows(int(f.job))):
            raise InvalidSchedule(f"failure at {_g(f.time)} on node {f.node}: it hit job {ids[f.job]}, which has "
                                  "no attempt on the node failed then")
    ended: dict[int, list[tuple[int, float]]] = {}
    for f in result.failures:
        if f.job >= 0:
            ended.setdefault(int(f.job), []).append((int(f.node), f.time))
    jobs_of = t.job.tolist()
    for r in np.flatnonzero(t.outcome == _FAILED).tolist():
        end = ends[r]
        if not any(_close(time, end) and on(r, x) for x, time in ended.get(jobs_of[r], ())):
            raise InvalidSchedule(f"{_name(result, result.attempts[r])}: failed at {_g(end)}, but no failure of "
                                  "one of its nodes hit it then")


def _check_steals(result: SimulationResult, t: AttemptTable, jobs: _Jobs) -> None:
    """Rule 7, node stealing: each steal moves nodes of the victim's attempt that ends then
    (interrupted, or completed) to the failed job's attempt that starts then, after the failure
    that decided it; every interrupted attempt is a victim's; every hold sits between a failed
    attempt of its job and the next, on nodes of the failed one."""
    ids = result.workload.ids
    rows = jobs.rows
    for s in result.steals:
        where = f"steal decided at {_g(s.decided)} for job {ids[s.failed]} from job {ids[s.victim]}"
        if s.time < s.decided - _tol(s.decided):
            raise InvalidSchedule(f"{where}: happens at {_g(s.time)}, before it was decided")
        if s.cancelled:
            continue
        iv = intervals_of(s.nodes)
        give = [r for r in rows(s.victim) if _close(float(t.end[r]), s.time) and t.outcome[r] in (_INTERRUPTED,
                                                                                                   _COMPLETED)]
        take = [r for r in rows(s.failed) if _close(float(t.start[r]), s.time) and iv_subset(iv, t.nodes(r))]
        if not give or not iv_subset(iv, t.nodes(give[-1])):
            raise InvalidSchedule(f"{where}: no attempt of the victim on nodes {list(s.nodes)} is "
                                  f"interrupted or completes at {_g(s.time)}")
        if not take:
            raise InvalidSchedule(f"{where}: no attempt of the failed job starts at {_g(s.time)} on "
                                  f"nodes {list(s.nodes)}")
        prev = [r for r in rows(s.failed) if t.index[r] == t.index[take[0]] - 1]
        if not prev or t.outcome[prev[0]] != _FAILED or t.end[prev[0]] > s.decided + _tol(s.decided):
            raise InvalidSchedule(f"{where}: the failed job has no failed attempt ending by then")
    victims = {(s.victim, round(s.time, 6)) for s in result.steals if not s.cancelled}
    for r in np.flatnonzero(t.outcome == _INTERRUPTED).tolist():
        if (int(t.job[r]), round(float(t.end[r]), 6)) not in victims:
            raise InvalidSchedule(f"{_name(result, result.attempts[r])}: interrupted at {_g(float(t.end[r]))}, "
                                  "but no node was stolen from it then")
    for h in result.holds:
        where = f"job {ids[h.job]} keeping nodes over [{_g(h.start)}, {_g(h.end)})"
        runs = rows(h.job)
        before = [r for r in runs if t.end[r] <= h.start + _tol(h.start)]
        after = [r for r in runs if t.start[r] >= h.end - _tol(h.end)]
        if not before or t.outcome[before[-1]] != _FAILED or (after and t.index[after[0]] != t.index[before[-1]] + 1):
            raise InvalidSchedule(f"{where}: it does not sit between a failed attempt of the job and the next")
        if not iv_subset(intervals_of(h.nodes), t.nodes(before[-1])):
            extra = sorted(set(h.nodes) - set(result.attempts[before[-1]].nodes))
            raise InvalidSchedule(f"{where}: nodes {extra} were not its failed attempt's")


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
    table = AttemptTable.of(result.attempts)
    for k in np.flatnonzero(_suspect_attempts(result, table)).tolist():
        _check_attempt(result, result.attempts[k])  # raises, unless the suspicion was unfounded
    jobs = _Jobs(result, table)
    for j in jobs.suspects.tolist():
        ordered = [result.attempts[r] for r in jobs.rows(j)]
        _check_sequence(result, j, ordered)
        _check_work(result, j, ordered)
    _check_failures(result, table, jobs, check_nodes(result, table))
    _check_steals(result, table, jobs)
    if failures is not None:
        _check_trace(result, failures)
