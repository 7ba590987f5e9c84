"""The pack simulator: malleable applications sharing ``p`` processors under fail-stop failures,
with buddy checkpointing and processor redistribution ([Aupy2017] §1.3.4–1.3.5, §1.5.1). It
runs on the simulation core: the one :class:`~coschedule.sim.events.EventQueue` (ends before
failures at one instant) and the fail-stop :class:`~coschedule.sim.failures.FailureTrace` s of
the batch and torus simulators; a *policy* (:class:`PackPolicy`, in
:mod:`coschedule.heuristics.redistribution`) decides the redistributions.

Execution of one application
----------------------------
Application ``i`` holds an even set of processors (ids ``0 .. p-1``). From ``t_lastR_i`` it
computes its remaining fraction ``alpha_i`` on ``k`` processors: ``tau - C`` of work, a
checkpoint of ``C``, and so on, the last piece of work (``tau_last``) with no checkpoint after
it (1.4)–(1.5). With no failure it ends at ``t_lastR_i + alpha_i t_{i,k} + N^ff C_{i,k}``; that
is when its ``END`` event fires. Its *expected* finish ``t^U_i = t_lastR_i + t^R_{i,k}(alpha_i)``
is what the heuristics compare ("the longest application").

Events
------
* **End** of applications: their processors become free; the policy's :meth:`PackPolicy.on_end`
  may redistribute free processors (and, for EndGreedy, others').
* **Failure** of processor ``x`` (from the trace): ignored if ``x`` is free, or if its
  application is between an event and its ``t_lastR`` (downtime, recovery, redistribution, the
  checkpoint after a redistribution) under the §1.5.4 model, the default. Under the ``eq1.6``
  model a failure of one of the recovering processors during the recovery strikes too: the
  application starts its downtime and recovery over (no new decision), then does what was to
  follow them (a redistribution and its checkpoint), which is (1.6)'s "failure during
  recovery"; a failure during a redistribution or the checkpoint after it is ignored under both
  models ((1.6)'s model has no redistribution). A failure of a buddy during a recovery is thus
  never fatal here (§1.3.3's fatal failure is not simulated; under the default model it cannot
  happen). Otherwise
  the application rolls back to its last checkpoint: ``alpha_f`` grows back by the work done
  since it (§1.3.5, 1.); without redistribution ``t_lastR_f = t + D + R_{f,j}`` and its period
  starts afresh (the paper does not say; our choice). The policy's
  :meth:`PackPolicy.on_failure` is called only if the faulty application is then the longest
  (largest ``t^U``) of the running ones (§1.5.1).

Redistribution (:meth:`PackSimulation.redistribute`)
----------------------------------------------------
At an event at time ``t``, applications with ``t < t_lastR`` sit out (§1.5.1): neither donors
nor receivers, their processors not available. An application that changes from ``j`` to ``k``
processors stops its work at ``t`` (a checkpoint in progress is abandoned: the work it protects
counts as done, the checkpoint time does not), then redistributes (``RC^{j->k}``, 1.11) and
takes a checkpoint (``C_{i,k}``) before computing again: ``t_lastR = t + RC + C_{i,k}``; the
faulty application pays its downtime and recovery first: ``t + D + R_{f,j} + RC + C_{f,k}``
(§1.3.5). Processors change hands at ``t``: donors give their highest-numbered ones, receivers
take the lowest free ones. The paper's simulation also removes, at a failure, "the applications
that end before ``t_lastR_f``" and releases their processors; here an application's processors
are free only once it has ended (they cannot serve two applications), so such applications are
merely left out of the failure's redistribution (:meth:`PackSimulation.eligible`) and their
processors go to the end-of-application redistribution, which the faulty application (still
before its ``t_lastR``) sits out.

Records
-------
Every phase of every application (:class:`PackPhase`: compute, downtime, recovery,
redistribution, checkpoint, with its processors and remaining fractions) and every failure
(:class:`PackFailure`) are kept in a :class:`PackResult`, which the independent validator
:func:`coschedule.redistribution.validate.validate_pack_run` checks.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from coschedule.errors import InvalidInstance, InvalidSchedule
from coschedule.redistribution.kernels import (
    k_can_grow,
    k_checkpoint,
    k_expected,
    k_fault_free,
    k_period,
    k_rc,
    k_time,
)
from coschedule.redistribution.model import MalleablePack, PackModel, Resilience
from coschedule.sim.events import Event, EventKind, EventQueue
from coschedule.sim.failures import FailureTrace

__all__ = ["PHASE_KINDS", "PackFailure", "PackPhase", "PackPolicy", "PackResult", "PackSimulation", "RuleBroken"]

#: the kinds of :class:`PackPhase`, in the order of a transition
PHASE_KINDS = ("compute", "downtime", "recovery", "redistribution", "checkpoint")


class RuleBroken(InvalidSchedule):
    """A decision broke a rule of :meth:`PackSimulation.redistribute` at simulated ``time``:
    ``rule`` says which (the application and the rule)."""

    def __init__(self, time: float, rule: str) -> None:
        super().__init__(f"redistribution at t = {time:g} s: {rule}")
        self.time, self.rule = time, rule

    def __reduce__(self) -> tuple[type, tuple[float, str]]:  # pickled by a campaign's worker
        return type(self), (self.time, self.rule)


def _whole(x: object) -> bool:
    """An application index or a count: an ``int`` or a numpy integer (not a bool, not a float)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


@dataclass(frozen=True)
class PackPhase:
    """Application ``app`` on ``procs`` over ``[start, end)``, doing ``kind``. For a
    ``compute`` phase, ``alpha_start`` is its remaining fraction at ``start`` and ``alpha_end``
    at ``end`` after the phase's outcome: ``completed`` (0), ``failed`` (rolled back to its last
    checkpoint) or ``redistributed`` (the work done counts); other phases have the application's
    remaining fraction in both."""

    app: int
    kind: str
    start: float
    end: float
    procs: tuple[int, ...]
    alpha_start: float
    alpha_end: float
    outcome: str = ""


@dataclass(frozen=True)
class PackFailure:
    """A failure of processor ``proc`` at ``time``; ``app`` it hit (-1: a free processor);
    ``effect``: ``idle`` (free processor), ``ignored`` (its application was in a downtime,
    recovery or redistribution that the model protects), ``restart`` (eq1.6: it struck a
    recovering processor, and the downtime and recovery start over), ``rollback`` (a computing application
    rolled back), ``redistributed`` (idem, and the policy redistributed)."""

    time: float
    proc: int
    app: int
    effect: str


@dataclass
class PackResult:
    """What a pack simulation did: per application its end time, allocations and phases."""

    pack: MalleablePack
    res: Resilience
    initial: np.ndarray
    ends: np.ndarray
    phases: list[PackPhase]
    failures: list[PackFailure]
    redistributions: int
    changes: np.ndarray
    policy: str = ""
    trace_horizon: float = math.inf
    #: the failure trace the run was given (``None``: none)
    trace: FailureTrace | None = None

    @property
    def makespan(self) -> float:
        return float(self.ends.max())

    @property
    def failures_hit(self) -> int:
        """Failures that struck a computing application (rolled back)."""
        return sum(1 for f in self.failures if f.effect in ("rollback", "redistributed"))

    def to_json(self) -> dict[str, object]:
        effects: dict[str, int] = {}
        for f in self.failures:
            effects[f.effect] = effects.get(f.effect, 0) + 1
        return {
            "makespan": self.makespan,
            "applications": self.pack.n,
            "processors": self.pack.p,
            "policy": self.policy,
            "failures": len(self.failures),
            "failures_hit": self.failures_hit,
            "failure_effects": effects,
            "redistributions": self.redistributions,
            "allocation_changes": int(self.changes.sum()),
        }


class PackPolicy(Protocol):
    """The decisions of a pack simulation (:mod:`coschedule.heuristics.redistribution`, whose
    docstring's "Your own decisions" says what a user's class reads and does)."""

    name: str

    def on_end(self, sim: PackSimulation, t: float, ended: Sequence[int]) -> None:
        """Applications ``ended`` just ended at ``t``; their processors are free."""

    def on_failure(self, sim: PackSimulation, t: float, app: int) -> None:
        """``app`` (the longest) rolled back at ``t``; :attr:`PackSimulation.faulty` is it."""


class PackSimulation:
    """One run of a pack (module docstring). ``initial``: the allocation at time 0 (even counts,
    at least each application's minimum, at most ``p`` in all)."""

    def __init__(self, pack: MalleablePack, res: Resilience, policy: PackPolicy, initial: Sequence[int],
                 failures: FailureTrace | None = None, *, model: PackModel | None = None) -> None:
        self.pack = pack
        self.res = res
        self.model = model if model is not None and model.pack is pack and model.res == res else PackModel(pack, res)
        self.policy = policy
        n, p = pack.n, pack.p
        self.n = n
        k0 = np.asarray(initial, dtype=np.int64).reshape(-1)
        if k0.size != n:
            raise InvalidInstance(f"initial allocation: {k0.size} counts for {n} applications")
        for i in range(n):
            if k0[i] % 2 or k0[i] < pack.min_procs[i]:
                raise InvalidInstance(
                    f"initial allocation: application {i} gets {k0[i]} processors; it needs an even count >= "
                    f"{pack.min_procs[i]}"
                )
        if int(k0.sum()) > p:
            raise InvalidInstance(f"initial allocation uses {int(k0.sum())} processors but p = {p}")
        if failures is not None and failures.n_nodes != p:
            raise InvalidInstance(f"failure trace is for {failures.n_nodes} processors but the pack has p = {p}")
        self.trace = failures
        self.failures = failures if failures is not None else FailureTrace.none(p)
        self.args = self.model.kernel_args()
        self.initial = k0.copy()
        self.k = k0.copy()
        self.alpha = np.ones(n)  # remaining fraction at t_last
        self.t_last = np.zeros(n)
        self.end = np.zeros(n)
        self.tU = np.zeros(n)
        self.done = np.zeros(n, dtype=bool)
        self.tik = np.zeros(n)  # t_{i,k}, C_{i,k}, tau_{i,k} of the current count
        self.ck = np.zeros(n)
        self.tau = np.zeros(n)
        self.changes = np.zeros(n, dtype=np.int64)
        self.redistributions = 0
        self.owner = np.full(p, -1, dtype=np.int64)
        self.procs: list[list[int]] = []
        nxt = 0
        for i in range(n):
            ids = list(range(nxt, nxt + int(k0[i])))
            nxt += int(k0[i])
            self.procs.append(ids)
            self.owner[ids] = i
        self.free: list[int] = list(range(nxt, p))  # sorted
        self.phases: list[PackPhase] = []
        self.phase_start = np.zeros(n)
        self.trans_index = np.zeros(n, dtype=np.int64)  # its first phase record
        # the recovery of the current transition (eq1.6 restarts): its end, processors, count,
        # and the redistribution and checkpoint that follow it
        self.rec_until = np.zeros(n)
        self.rec_procs: list[tuple[int, ...]] = [()] * n
        self.rec_k = np.zeros(n, dtype=np.int64)
        self.rest: list[tuple[float, float]] = [(0.0, 0.0)] * n
        self.down_until = np.zeros(n)  # end of the current downtime
        self.fail_log: list[PackFailure] = []
        self.queue = EventQueue()
        self.end_events: list[Event | None] = [None] * n
        self.now = 0.0
        self.faulty = -1
        self._fault_alpha = 0.0
        self._fault_base = 0.0
        self._decided = False
        self._moved: set[int] = set()  # the applications redistributed in the current decision
        self.ver = np.array(pack.min_procs, dtype=np.int64)
        self.jexact = np.zeros(n, dtype=np.int64)
        for i in range(n):
            self._set_count(i, int(k0[i]))
            self._schedule(i, 0.0, 1.0)

    # ------------------------------------------------------------------ model, per application
    def _set_count(self, i: int, k: int) -> None:
        s, pa, tb, ut, mem, prm = self.args
        self.k[i] = k
        self.tik[i] = k_time(i, k, s, pa, tb, ut)
        self.ck[i] = k_checkpoint(i, k, mem, prm)
        self.tau[i] = k_period(self.ck[i], k, prm)

    def expected(self, i: int, k: int, alpha: float) -> float:
        """``t^R_{i,k}(alpha)``."""
        return float(k_expected(i, k, alpha, *self.args))

    def fault_free(self, i: int, k: int, alpha: float) -> float:
        return float(k_fault_free(i, k, alpha, *self.args))

    def rc(self, i: int, j: int, k: int) -> float:
        return float(k_rc(i, j, k, self.args[4], self.args[5]))

    def checkpoint(self, i: int, k: int) -> float:
        return float(k_checkpoint(i, k, self.args[4], self.args[5]))

    def can_grow(self, i: int, k: int) -> bool:
        """``k + 2 <= j_max(i)`` (lazily, :func:`coschedule.redistribution.k_can_grow`)."""
        return bool(k_can_grow(i, k, self.ver, self.jexact, self.pack.p_even, *self.args))

    def _schedule(self, i: int, t_last: float, alpha: float) -> None:
        self.t_last[i] = t_last
        self.alpha[i] = alpha
        k = int(self.k[i])
        self.end[i] = t_last + self.fault_free(i, k, alpha)
        self.tU[i] = t_last + self.expected(i, k, alpha)
        self.phase_start[i] = t_last
        ev = self.end_events[i]
        if ev is not None:
            self.queue.cancel(ev)
        self.end_events[i] = self.queue.push(self.end[i], EventKind.END, i)

    # ------------------------------------------------------------------ state for the policies
    def work_done(self, ids: np.ndarray, t: float, *, failed: bool) -> np.ndarray:
        """Work (seconds of ``t_{i,k}``) done by applications ``ids`` since their ``t_lastR``:
        whole periods (1.10) and, unless ``failed``, the work of the current period (not a
        checkpoint in progress)."""
        e = np.maximum(t - self.t_last[ids], 0.0)
        tau, C, a, tik = self.tau[ids], self.ck[ids], self.alpha[ids], self.tik[ids]
        fin = np.isfinite(tau)
        safe = np.where(fin, tau, 1.0)
        n = np.where(fin, np.floor(e / safe), 0.0)
        chunk = np.where(fin, tau - C, 0.0)
        rest = 0.0 if failed else np.where(fin, np.minimum(e - n * safe, chunk), e)
        return np.minimum(n * chunk + rest, a * tik)

    def _work_done_one(self, i: int, t: float, *, failed: bool) -> float:
        """:meth:`work_done` of one application, in Python floats (the same operations, so the
        same numbers: a decision asks for one application at a time)."""
        e = max(0.0, t - float(self.t_last[i]))
        tau, C = float(self.tau[i]), float(self.ck[i])
        if math.isfinite(tau):
            n = math.floor(e / tau)
            chunk = tau - C
            rest = 0.0 if failed else min(e - n * tau, chunk)
            done = n * chunk + rest
        else:
            done = 0.0 if failed else e
        return min(done, float(self.alpha[i]) * float(self.tik[i]))

    def alphas_now(self, ids: np.ndarray, t: float) -> np.ndarray:
        """Remaining fractions of applications ``ids`` if they stopped at ``t`` (the faulty one:
        after its rollback)."""
        out = np.maximum(0.0, self.alpha[ids] - self.work_done(ids, t, failed=False) / self.tik[ids])
        if self.faulty >= 0:
            out[ids == self.faulty] = self._fault_alpha
        return out

    def alpha_now(self, i: int, t: float) -> float:
        """:meth:`alphas_now` of one application."""
        if i == self.faulty:
            return float(self._fault_alpha)
        return max(0.0, float(self.alpha[i]) - self._work_done_one(i, t, failed=False) / float(self.tik[i]))

    def base(self, i: int, t: float) -> float:
        """When ``i`` could start a redistribution decided at ``t``: ``t``, or ``t + D +
        R_{f,j}`` for the faulty application."""
        return self._fault_base if i == self.faulty else t

    def value(self, i: int, k: int, t: float, alpha: float | None = None) -> float:
        """The expected finish of ``i`` if it gets ``k`` processors at ``t``, costs included:
        ``t^U_i`` unchanged when ``k`` is its count, else ``base + RC + C_{i,k} + t^R_{i,k}``."""
        j = int(self.k[i])
        a = self.alpha_now(i, t) if alpha is None else alpha
        if k == j:
            if i == self.faulty:
                return self._fault_base + self.expected(i, k, a)
            return float(self.tU[i])
        return self.base(i, t) + self.rc(i, j, k) + self.checkpoint(i, k) + self.expected(i, k, a)

    def eligible(self, t: float) -> np.ndarray:
        """Running applications (sorted indices) that may take part in a redistribution at
        ``t``: not before their ``t_lastR`` (§1.5.1), and, at a failure, not ending before the
        faulty one's ``t_lastR`` without a redistribution (module docstring); the faulty one
        included."""
        run = ~self.done & (self.t_last <= t)
        if self.faulty >= 0:
            run &= self.end > self._fault_base
            run[self.faulty] = True
        return np.flatnonzero(run)

    def candidates(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What a decision at ``t`` weighs, per eligible application: ``(ids, counts, remaining
        fractions, base, current expected finish)`` (:meth:`value`'s terms, vectorised)."""
        ids = self.eligible(t)
        jcur = self.k[ids].astype(np.int64)
        alpha = self.alphas_now(ids, t)
        base = np.full(ids.size, t)
        tucur = self.tU[ids].astype(float)
        if self.faulty >= 0:
            x = int(np.searchsorted(ids, self.faulty))
            base[x] = self._fault_base
            tucur[x] = self._fault_base + self.expected(self.faulty, int(jcur[x]), self._fault_alpha)
        return ids, jcur, alpha, base, tucur

    def free_count(self) -> int:
        return len(self.free)

    # ------------------------------------------------------------------ decisions
    def redistribute(self, alloc: Mapping[int, int]) -> None:
        """Give each application of ``alloc`` (``{application: new count}``) its new count at the
        current instant (module docstring); unchanged counts are ignored. The one action of a
        policy. Raises :class:`RuleBroken` (nothing changed) for an application that is not one
        of the pack's or may not take part (:meth:`eligible`, or already redistributed in this
        decision), a count that is not a whole even number at least its minimum, or too few free
        processors for the new counts."""
        t = self.now
        if not isinstance(alloc, Mapping):
            raise RuleBroken(t, f"redistribute takes {{application: new count}}, not a {type(alloc).__name__}")
        changed: dict[int, int] = {}
        for i, k in alloc.items():
            if not _whole(i) or not 0 <= int(i) < self.n:
                raise RuleBroken(t, f"there is no application {i!r} (the pack has 0..{self.n - 1})")
            if not _whole(k):
                raise RuleBroken(t, f"application {int(i)} cannot get {k!r} processors: not a whole number")
            if int(k) != int(self.k[int(i)]):
                changed[int(i)] = int(k)
        if not changed:
            return
        elig = set(self.eligible(t).tolist())
        for i, k in changed.items():
            if i not in elig or i in self._moved:
                raise RuleBroken(t, f"application {i} may not take part: {self._why_not(i, t)}")
            if k % 2:
                raise RuleBroken(t, f"application {i} cannot get {k} processors: an odd count (processors go in "
                                    "buddy pairs)")
            if k < self.pack.min_procs[i]:
                raise RuleBroken(t, f"application {i} cannot get {k} processors: its minimum is "
                                    f"{self.pack.min_procs[i]}")
        need = sum(k - int(self.k[i]) for i, k in changed.items())
        if need > len(self.free):
            raise RuleBroken(t, f"the new counts need {need} more processors but {len(self.free)} are free")
        self._moved.update(changed)
        alphas = {i: self.alpha_now(i, t) for i in changed}
        olds = {i: int(self.k[i]) for i in changed}
        for i in changed:  # close the work on the processors it had
            self._close_compute(i, t, alphas[i], "failed" if i == self.faulty else "redistributed")
            if i == self.faulty:
                self._record_failure_transition(i, t, olds[i])
                self._decided = True
        # donors first: their highest-numbered processors become free
        for i, k in changed.items():
            if k < olds[i]:
                ids = self.procs[i]
                gone, self.procs[i] = ids[k:], ids[:k]
                self.owner[gone] = -1
                self.free.extend(gone)
        self.free.sort()  # donors' processors were appended
        for i, k in changed.items():
            j = olds[i]
            if k > j:
                got, self.free = self.free[: k - j], self.free[k - j:]
                self.owner[got] = i
                self.procs[i] = sorted(self.procs[i] + got)
            s = self.base(i, t)
            rc = self.rc(i, j, k)
            self._set_count(i, k)
            c = float(self.ck[i])
            if i != self.faulty:
                self.trans_index[i] = len(self.phases)
            self._add(i, "redistribution", s, s + rc, alphas[i])
            self._add(i, "checkpoint", s + rc, s + rc + c, alphas[i])
            if i != self.faulty:
                self.down_until[i] = self.rec_until[i] = t  # no downtime, no recovery
            else:
                self.rest[i] = (rc, c)  # what follows its recovery
            self._schedule(i, s + rc + c, alphas[i])
            self.changes[i] += 1
        self.redistributions += 1

    def _why_not(self, i: int, t: float) -> str:
        """Why application ``i`` may not take part in a redistribution at ``t`` (:meth:`eligible`)."""
        if self.done[i]:
            return "it has ended"
        if i in self._moved:
            return "it was redistributed already in this decision (give every count in one redistribute call)"
        if self.t_last[i] > t:
            return (f"it sits out until t = {self.t_last[i]:g} s (its downtime, recovery or redistribution and "
                    "checkpoint are not over)")
        return (f"it ends at t = {self.end[i]:g} s, before the struck application {self.faulty} could start a "
                f"redistribution (t = {self._fault_base:g} s)")

    # ------------------------------------------------------------------ records
    def _add(self, i: int, kind: str, start: float, end: float, alpha: float, outcome: str = "",
             procs: tuple[int, ...] | None = None) -> None:
        if end > start:
            held = tuple(self.procs[i]) if procs is None else procs
            self.phases.append(PackPhase(i, kind, start, end, held, alpha, alpha, outcome))

    def _close_compute(self, i: int, t: float, alpha_end: float, outcome: str) -> None:
        start = float(self.phase_start[i])
        if t > start:
            self.phases.append(PackPhase(i, "compute", start, t, tuple(self.procs[i]), float(self.alpha[i]),
                                         alpha_end, outcome))

    def _record_failure_transition(self, i: int, t: float, j: int) -> None:
        self.trans_index[i] = len(self.phases)
        D = self.res.downtime
        R = self.checkpoint(i, j)
        a = self._fault_alpha
        procs = tuple(self.procs[i])  # its processors before any change
        self._add(i, "downtime", t, t + D, a, procs=procs)
        self._add(i, "recovery", t + D, t + D + R, a, procs=procs)
        self.down_until[i] = t + D
        self.rec_until[i] = t + D + R
        self.rec_procs[i] = procs
        self.rec_k[i] = j
        self.rest[i] = (0.0, 0.0)

    def _truncate_transition(self, i: int, t: float) -> None:
        """eq1.6: a failure at ``t`` inside ``i``'s transition cuts its phases at ``t``."""
        lo = 0  # not trans_index[i]: it goes stale when another application's truncation shortens the list
        tail = self.phases[lo:]
        kept = [ph for ph in tail if ph.app != i or ph.start < t]
        self.phases[lo:] = [
            PackPhase(ph.app, ph.kind, ph.start, min(ph.end, t), ph.procs, ph.alpha_start, ph.alpha_end, ph.outcome)
            if ph.app == i and ph.end > t else ph
            for ph in kept
        ]

    # ------------------------------------------------------------------ the loop
    def run(self) -> PackResult:
        ftimes, fnodes = self.failures.times, self.failures.nodes
        for x in range(len(ftimes)):
            self.queue.push(float(ftimes[x]), EventKind.FAILURE, int(fnodes[x]))
        remaining = self.n
        while remaining:
            events = self.queue.pop_instant()
            if not events:
                raise RuntimeError("pack simulation: no event left while applications run")  # pragma: no cover
            t = events[0].time
            self.now = t
            ended = [int(e.data) for e in events if e.kind == EventKind.END]
            for i in ended:
                self._finish(i, t)
            remaining -= len(ended)
            if ended and remaining:
                self._moved = set()
                self.policy.on_end(self, t, ended)
            for e in events:
                if e.kind == EventKind.FAILURE and remaining:
                    self._failure(t, int(e.data))
        return PackResult(self.pack, self.res, self.initial, self.end.copy(), self.phases, self.fail_log,
                          self.redistributions, self.changes.copy(), getattr(self.policy, "name", ""),
                          trace=self.trace)

    def _finish(self, i: int, t: float) -> None:
        self.end_events[i] = None
        self._close_compute(i, t, 0.0, "completed")
        self.done[i] = True
        ids = self.procs[i]
        self.owner[ids] = -1
        for x in ids:
            bisect.insort(self.free, x)
        self.procs[i] = []

    def _failure(self, t: float, x: int) -> None:
        i = int(self.owner[x])
        if i < 0:
            self.fail_log.append(PackFailure(t, x, -1, "idle"))
            return
        j = int(self.k[i])
        if t < self.t_last[i]:  # downtime, recovery, redistribution or its checkpoint
            recovering = self.down_until[i] < t < self.rec_until[i] and x in self.rec_procs[i]
            if self.res.model != "eq1.6" or not recovering:
                self.fail_log.append(PackFailure(t, x, i, "ignored"))
                return
            # (1.6)'s model: a failure of a recovering processor starts the downtime and the
            # recovery over, then what was to follow them (a redistribution and its checkpoint)
            rc, c = self.rest[i]
            rk = int(self.rec_k[i])
            self._truncate_transition(i, t)
            self.trans_index[i] = len(self.phases)
            a = float(self.alpha[i])
            D, R = self.res.downtime, self.checkpoint(i, rk)
            procs = self.rec_procs[i]
            self._add(i, "downtime", t, t + D, a, procs=procs)
            self._add(i, "recovery", t + D, t + D + R, a, procs=procs)
            s0 = t + D + R
            self._add(i, "redistribution", s0, s0 + rc, a)
            self._add(i, "checkpoint", s0 + rc, s0 + rc + c, a)
            self.down_until[i], self.rec_until[i] = t + D, s0
            self._schedule(i, s0 + rc + c, a)
            self.fail_log.append(PackFailure(t, x, i, "restart"))
            return
        done = self._work_done_one(i, t, failed=True)
        alpha_f = max(0.0, float(self.alpha[i]) - done / float(self.tik[i]))
        self.faulty, self._fault_alpha = i, alpha_f
        self._fault_base = t + self.res.downtime + self.checkpoint(i, j)
        self._decided = False
        tU_f = self._fault_base + self.expected(i, j, alpha_f)
        others = ~self.done
        others[i] = False
        longest = not others.any() or tU_f >= float(self.tU[others].max())
        if longest:
            self._moved = set()
            self.policy.on_failure(self, t, i)
        if not self._decided:  # no redistribution for it: recover on its processors
            self._close_compute(i, t, alpha_f, "failed")
            self._record_failure_transition(i, t, j)
            self._schedule(i, self._fault_base, alpha_f)
            self.fail_log.append(PackFailure(t, x, i, "rollback"))
        else:
            self.fail_log.append(PackFailure(t, x, i, "redistributed"))
        self.faulty = -1
