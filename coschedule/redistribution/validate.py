"""The validator of pack simulations: malleable applications under fail-stop failures with
buddy checkpointing and processor redistribution ([Aupy2017] §1.3.3–1.3.5, §1.5; the simulator
is :mod:`coschedule.sim.pack`).

:func:`validate_pack_run` checks a :class:`~coschedule.sim.pack.PackResult` independently of the
simulator: it reads only the records (phases, failures, ends, the initial allocation) and
recomputes every duration and every fraction of work with the model's formulas
(:class:`~coschedule.redistribution.PackModel`: ``t_{i,k}``, ``C_{i,k}``, ``tau_{i,k}``,
``RC^{j->k}`` of (1.11)), never with the simulator's bookkeeping or kernels. It raises
:class:`~coschedule.errors.InvalidSchedule` on the first violated rule, with one line that names
the application (index and name), the time and the rule.

Rules
-----
1. **Records**: every phase names an existing application, a kind among ``compute``,
   ``downtime``, ``recovery``, ``redistribution``, ``checkpoint`` (a compute phase has an outcome
   ``completed``, ``failed`` or ``redistributed``, the others none), finite times with
   ``start < end`` (the simulator omits zero-length phases), an even number ``>= min_procs`` of
   distinct processors in ``0..p-1``; the initial allocation is even, ``>= min_procs`` and
   ``<= p`` in all; every failure record names an existing processor, an application or -1, an
   effect among ``idle``, ``ignored``, ``restart``, ``rollback``, ``redistributed``, and a time
   before the makespan.
2. **Tiling**: each application's phases tile ``[0, end_i)`` without gap or overlap; the first
   starts at 0 on ``initial[i]`` processors; the last is a compute phase ``completed`` at
   ``ends[i]``.
3. **Transitions** (between two compute phases; ``D`` the downtime, ``C = R`` of (§1.3.3)):

   * after a compute phase ``failed`` at ``t`` (on ``j`` processors): a downtime of ``D``, a
     recovery of ``C_{i,j}``, on the same processors; then, if the failure's effect is
     ``redistributed``, a redistribution of ``RC^{j->k}`` (1.11) and a checkpoint of
     ``C_{i,k}`` on ``k != j`` processors, the next compute phase on those; if ``rollback``,
     the next compute phase on the same processors;
   * after a compute phase ``redistributed``: a redistribution of ``RC^{j->k}``, a checkpoint
     of ``C_{i,k}``, ``k != j``, then compute on those processors; it ends at an event: an
     application completes, or a failure strikes a computation (``rollback`` or
     ``redistributed``), at that instant;
   * a phase of zero length is absent (``D = 0``, ``C = 0``...), and a compute phase of zero
     length too (an event at the very instant an application resumes: its transition follows
     the previous one directly);
   * model ``eq1.6`` only, a ``restart`` failure at ``t`` during a recovery cuts it at ``t``:
     the recovery ends there (no longer than its length), and a downtime of ``D`` and a
     recovery of ``C_{i,j}`` follow on the recovering processors (those it computed on, ``j``
     of them), then what was to follow the recovery (the redistribution and its checkpoint of
     a failure answered by one), then compute.

4. **Work** (per compute phase of duration ``d`` on ``k`` processors from ``alpha``, with
   ``W = alpha t_{i,k}``, ``tau = tau_{i,k}``, ``C = C_{i,k}``, ``N = floor(d / tau)``, ``r = d -
   N tau``): ``completed``: ``d = W + N^ff C`` with ``N^ff = floor(W / (tau - C))`` (1.4), and
   ``alpha_end = 0``; ``redistributed``: ``alpha_end = alpha - w / t_{i,k}`` with ``w = N (tau -
   C) + min(r, tau - C)`` (the checkpoint in progress is abandoned, its work kept); ``failed``:
   ``w = N (tau - C)`` (rollback to the last checkpoint); neither runs past ``W + N^ff C``. The
   next compute phase starts from ``alpha_end``, the other phases keep it, and the fractions
   ``alpha_start - alpha_end`` of an application's compute phases add up to 1.
5. **Processors** (half-open intervals): an application holds the processors of each of its
   phases over the phase, and over a transition also those it computes on next: processors
   change hands at the decision (:mod:`coschedule.sim.pack`), so a faulty application that
   grows holds its new processors from its failure on, through its downtime and recovery. A
   redistribution keeps the smaller of the two processor sets, as (1.11) counts its rounds. A
   sweep over all holdings checks that no processor is held by two applications at once, hence
   that at most ``p`` are in use at every instant (a faulty application that gave processors
   away at its failure, while its recovery on ``j`` of them goes on, would fail here).
6. **Failures**: each compute phase ``failed`` at ``t`` ends at a failure record ``rollback`` or
   ``redistributed`` of the application at ``t`` on one of its processors, one record per
   phase; ``idle`` iff no application holds the processor then (-1 as the application; the
   failures of one instant are handled in the records' order, so a processor idle at its
   failure may be handed over at that instant by a later failure's redistribution);
   ``ignored`` iff the holder is in a transition phase then (under ``eq1.6``: not a recovery
   on that processor after its first instant); ``restart`` iff ``eq1.6`` and the processor is
   one of a recovery in progress, after its first instant (rule 3).
   Given the trace (``failures=``), the records are exactly its failures before the makespan
   (same times and processors).

Times compare with a relative tolerance of ``1e-9`` (:data:`RTOL`, absolute below 1 s),
fractions of work with an absolute one of ``1e-9`` (:data:`ALPHA_TOL`). Running time ``O(H log
H + F log H)`` for ``H`` (phase, processor) pairs and ``F`` failure records.

>>> from coschedule.redistribution import MalleablePack, Resilience
>>> from coschedule.heuristics.redistribution import run_pack
>>> pack = MalleablePack.synthetic(3, 12, seed=1, m_inf=1000, m_sup=3000)
>>> result = run_pack(pack, Resilience(node_mtbf=86400.0), at_end="greedy", at_failure="saf", seed=2)
>>> validate_pack_run(result)  # passes silently
>>> del result.failures[0]  # the failure that ended application 0's first compute phase
>>> validate_pack_run(result)
Traceback (most recent call last):
...
coschedule.errors.InvalidSchedule: application 0 (T0): compute phase failed at t=4764.668602 with no failure record (rollback or redistributed) there (rule: failures)
"""

from __future__ import annotations

import bisect
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from coschedule.errors import InvalidSchedule
from coschedule.redistribution.model import PackModel
from coschedule.sim.failures import FailureTrace
from coschedule.redistribution.simulation import PackFailure, PackPhase, PackResult
from coschedule.sim.validate import RTOL, _close, _g, _tol  # one tolerance for every executed-schedule check

__all__ = ["ALPHA_TOL", "EFFECTS", "RTOL", "validate_pack_run"]

#: absolute tolerance on remaining fractions of work
ALPHA_TOL = 1e-9
#: the effects of a failure record
EFFECTS = ("idle", "ignored", "restart", "rollback", "redistributed")
KINDS = ("compute", "downtime", "recovery", "redistribution", "checkpoint")
OUTCOMES = ("completed", "failed", "redistributed")
_HIT = ("rollback", "redistributed")
_INT_TYPES = {int, np.int64, np.int32}




def _fail(msg: str) -> InvalidSchedule:
    return InvalidSchedule(msg)


# ------------------------------------------------------------------ records


def _check_shape(result: PackResult) -> None:
    pack = result.pack
    n, p = pack.n, pack.p
    init = np.asarray(result.initial).reshape(-1)
    ends = np.asarray(result.ends).reshape(-1)
    if init.size != n or ends.size != n:
        raise _fail(f"result: {init.size} initial counts and {ends.size} end times for {n} applications "
                    "(rule: records)")
    kmin = np.asarray(pack.min_procs)
    for i in range(n):
        k = int(init[i])
        if k % 2 or k < int(kmin[i]):
            raise _fail(f"application {i} ({pack.names[i]}): initial allocation of {k} processors, expected "
                        f"an even count >= {int(kmin[i])} (rule: records)")
    if int(init.sum()) > p:
        raise _fail(f"initial allocation uses {int(init.sum())} processors but p = {p} (rule: processors)")


def _check_phase(result: PackResult, ph: PackPhase) -> None:
    pack = result.pack
    n, p = pack.n, pack.p
    if not (isinstance(ph.app, (int, np.integer)) and 0 <= ph.app < n):
        raise _fail(f"phase of application index {ph.app!r}: no such application ({n} applications) "
                    "(rule: records)")
    name = f"application {ph.app} ({pack.names[ph.app]})"
    if ph.kind not in KINDS:
        raise _fail(f"{name}: phase kind {ph.kind!r} at t={_g(ph.start)} is not one of {', '.join(KINDS)} "
                    "(rule: records)")
    if ph.kind == "compute" and ph.outcome not in OUTCOMES:
        raise _fail(f"{name}: compute phase at t={_g(ph.start)}: outcome {ph.outcome!r} is not one of "
                    f"{', '.join(OUTCOMES)} (rule: records)")
    if ph.kind != "compute" and ph.outcome:
        raise _fail(f"{name}: {ph.kind} phase at t={_g(ph.start)} has an outcome {ph.outcome!r} (rule: records)")
    if not (math.isfinite(ph.start) and math.isfinite(ph.end) and 0 <= ph.start < ph.end):
        raise _fail(f"{name}: {ph.kind} phase [{_g(ph.start)}, {_g(ph.end)}) needs finite times with "
                    "0 <= start < end (zero-length phases are omitted) (rule: records)")
    for a in (ph.alpha_start, ph.alpha_end):
        if not (math.isfinite(a) and -ALPHA_TOL <= a <= 1.0 + ALPHA_TOL):
            raise _fail(f"{name}: {ph.kind} phase at t={_g(ph.start)}: remaining fraction {a!r} not in [0, 1] "
                        "(rule: work)")
    k = len(ph.procs)
    kmin = int(np.asarray(pack.min_procs)[ph.app])
    if k % 2 or k < kmin:
        raise _fail(f"{name}: {ph.kind} phase at t={_g(ph.start)} on {k} processors, expected an even count "
                    f">= {kmin} (rule: processors)")
    if not (set(map(type, ph.procs)) <= _INT_TYPES and 0 <= min(ph.procs) and max(ph.procs) < p):
        for x in ph.procs:
            if not (isinstance(x, (int, np.integer)) and 0 <= x < p):
                raise _fail(f"{name}: {ph.kind} phase at t={_g(ph.start)}: processor {x!r} does not exist "
                            f"(processors 0..{p - 1}) (rule: processors)")
    if len(set(ph.procs)) != k:
        raise _fail(f"{name}: {ph.kind} phase at t={_g(ph.start)} names a processor twice (rule: processors)")


def _check_failure(result: PackResult, f: PackFailure) -> None:
    n, p = result.pack.n, result.pack.p
    where = f"failure at t={_g(f.time)} on processor {f.proc}"
    if not (isinstance(f.proc, (int, np.integer)) and 0 <= f.proc < p):
        raise _fail(f"{where}: the processor does not exist (processors 0..{p - 1}) (rule: records)")
    if not (isinstance(f.app, (int, np.integer)) and -1 <= f.app < n):
        raise _fail(f"{where}: it hit application index {f.app!r}, which does not exist (rule: records)")
    if f.effect not in EFFECTS:
        raise _fail(f"{where}: effect {f.effect!r} is not one of {', '.join(EFFECTS)} (rule: records)")
    if (f.app == -1) != (f.effect == "idle"):
        raise _fail(f"{where}: effect {f.effect!r} with application {f.app} (idle, and only idle, names -1) "
                    "(rule: failures)")
    if not (math.isfinite(f.time) and 0 <= f.time < result.makespan):
        raise _fail(f"{where}: recorded, but the run is over at {_g(result.makespan)} (rule: failures)")


# ------------------------------------------------------------------ one application


@dataclass
class _Item:
    """A transition phase still expected: its kind and whose processors it runs on (``old``:
    the count before the transition; ``new``: the count after a redistribution; ``fixed``:
    those of a restart)."""

    kind: str
    mode: str


class _App:
    """Rules 2-4 for one application: a walk over its phases with the transition still expected."""

    def __init__(self, result: PackResult, pm: PackModel, i: int, phases: list[PackPhase],
                 records: list[tuple[int, PackFailure]], used: set[int], events: list[float]) -> None:
        self.result, self.pm, self.i = result, pm, i
        self.res = result.res
        self.name = f"application {i} ({result.pack.names[i]})"
        self.phases = sorted(phases, key=lambda ph: ph.start)
        self.records = records  # (index, record) of this application: restart / rollback / redistributed
        self.used = used
        self.events = events  # sorted times of the ends and of the failures that hit a computation
        self.memory_zero = float(pm.checkpoint(i, 2)) == 0.0  # C = 0 and RC = S for every count
        # state of the walk
        self.t = 0.0
        self.alpha = 1.0
        self.procs: tuple[int, ...] | None = None
        self.todo: list[_Item] = []
        self.old: tuple[int, ...] = ()  # processors before the transition in progress
        self.fixed: tuple[int, ...] = ()  # those of a restart
        self.change = False  # the transition changes the count
        self.new: tuple[int, ...] | None = None  # the count after it, once seen
        self.prev: PackPhase | None = None
        self.work = 0.0  # sum of alpha_start - alpha_end over compute phases
        self.transition = -1
        self.trans_of: list[int] = []  # per phase: its transition (-1: compute)

    # -------------------------------------------------------------- helpers
    def err(self, what: str, rule: str) -> InvalidSchedule:
        return InvalidSchedule(f"{self.name}: {what} (rule: {rule})")

    def record(self, t: float, effects: Sequence[str]) -> tuple[int, PackFailure] | None:
        for idx, f in self.records:
            if idx not in self.used and f.effect in effects and _close(f.time, t):
                return idx, f
        return None

    def duration(self, item: _Item, k: int | None) -> float:
        """The length of ``item`` (``k``: the count it runs on, when known)."""
        i = self.i
        if item.kind == "downtime":
            return float(self.res.downtime)
        if item.kind == "recovery":
            return float(self.pm.checkpoint(i, len(self.fixed) if item.mode == "fixed" else len(self.old)))
        j = len(self.old)
        if item.kind == "redistribution":
            return float(self.pm.redistribution_cost(i, j, k if k is not None else j + 2))
        return float(self.pm.checkpoint(i, k if k is not None else 2))  # checkpoint after a redistribution

    def may_be_absent(self, item: _Item) -> bool:
        """Whether the simulator may have omitted ``item`` (zero length)."""
        if item.kind == "downtime":
            return self.res.downtime <= _tol(self.t)
        if item.kind == "recovery":
            return self.duration(item, None) <= _tol(self.t)
        if item.kind == "redistribution":  # RC = S + rounds (c m / (jk) + beta): 0 iff S = 0 and C = 0
            return self.res.start <= _tol(self.t) and self.memory_zero
        return self.memory_zero

    def at_event(self, t: float) -> bool:
        k = bisect.bisect_left(self.events, t - _tol(t))
        return k < len(self.events) and self.events[k] <= t + _tol(t)

    def in_transition(self) -> bool:
        prev = self.prev
        return prev is not None and (prev.kind != "compute" or prev.outcome in ("failed", "redistributed"))

    # -------------------------------------------------------------- the walk
    def run(self) -> list[int]:
        if not self.phases:
            raise self.err("no phase at all (every application runs to completion)", "tiling")
        init = int(np.asarray(self.result.initial).reshape(-1)[self.i])
        first = self.phases[0]
        if not _close(first.start, 0.0):
            raise self.err(f"first phase starts at {_g(first.start)}, expected 0", "tiling")
        if len(first.procs) != init:
            raise self.err(f"first phase on {len(first.procs)} processors, the initial allocation gives it {init}",
                           "tiling")
        for ph in self.phases:
            if not _close(ph.start, self.t):
                what = "a gap" if ph.start > self.t else "an overlap"
                raise self.err(f"{ph.kind} phase starts at {_g(ph.start)} but the previous one ends at "
                               f"{_g(self.t)}: {what}", "tiling")
            if (ph.kind != "compute" and self.prev is not None and self.prev.kind != "compute"
                    and all(self.may_be_absent(item) for item in self.todo) and self.record(ph.start, _HIT)):
                self.zero_compute(ph)  # a failure at the very end of its transition: it had not computed
            r = self.record(ph.start, ("restart",)) if self.in_transition() else None
            if r is not None:
                self.restart(ph, r)
            if ph.kind == "compute":
                self.compute(ph)
            else:
                self.transition_phase(ph)
            self.prev = ph
            self.t = ph.end
        last = self.phases[-1]
        if last.kind != "compute" or last.outcome != "completed":
            raise self.err(f"the last phase ({last.kind} at t={_g(last.start)}) is not a completed compute phase",
                           "tiling")
        end = float(np.asarray(self.result.ends).reshape(-1)[self.i])
        if not _close(last.end, end):
            raise self.err(f"completes at {_g(last.end)} but the result says it ends at {_g(end)}", "tiling")
        if abs(self.work - 1.0) > ALPHA_TOL:
            raise self.err(f"the fractions of work of its compute phases add up to {self.work!r}, not 1", "work")
        return self.trans_of

    def restart(self, ph: PackPhase, r: tuple[int, PackFailure]) -> None:
        """Rule 3, last case: a failure at ``ph.start`` starts the transition over."""
        t = ph.start
        if self.res.model != "eq1.6":
            raise self.err(f"failure at t={_g(t)} recorded as a restart, but under the {self.res.model!r} model "
                           "a failure during a transition is ignored", "failures")
        prev = self.prev
        assert prev is not None
        if prev.kind != "recovery":
            raise self.err(f"failure at t={_g(t)} during its {prev.kind} recorded as a restart (eq1.6 restarts "
                           "recoveries only)", "failures")
        if r[1].proc not in prev.procs:
            raise self.err(f"failure at t={_g(t)} of processor {r[1].proc}, which is not recovering, recorded as "
                           "a restart", "failures")
        self.used.add(r[0])
        while (more := self.record(t, ("restart",))) is not None:  # other failures of that instant
            self.used.add(more[0])
        procs = ph.procs
        if procs != prev.procs:
            raise self.err(f"restart at t={_g(t)} on processors {_short(procs)}, but it was recovering on "
                           f"{_short(prev.procs)}", "transitions")
        self.fixed = procs
        self.todo = [_Item("downtime", "fixed"), _Item("recovery", "fixed")]
        if self.change:  # the redistribution that was to follow the recovery follows the new one
            self.todo += [_Item("redistribution", "new"), _Item("checkpoint", "new")]

    def check_kept(self, ph: PackPhase, new: tuple[int, ...]) -> None:
        """A redistribution from ``old`` to ``new`` keeps the smaller set (rule 5)."""
        a, b = set(self.old), set(new)
        if not (a <= b or b <= a):
            raise self.err(f"{ph.kind} at t={_g(ph.start)}: redistributed from processors {_short(self.old)} to "
                           f"{_short(new)}, which keeps neither set (a redistribution keeps the smaller one)",
                           "processors")

    def start_transition(self, ph: PackPhase, record: PackFailure | None) -> None:
        """The transition after compute phase ``ph`` (``record``: the failure that ended it)."""
        self.old = ph.procs
        self.new = None
        self.transition += 1
        if ph.outcome == "failed":
            assert record is not None
            self.todo = [_Item("downtime", "old"), _Item("recovery", "old")]
            self.change = record.effect == "redistributed"
        else:
            self.todo = []
            self.change = True
        if self.change:
            self.todo += [_Item("redistribution", "new"), _Item("checkpoint", "new")]

    def transition_phase(self, ph: PackPhase) -> None:
        while self.todo and self.todo[0].kind != ph.kind and self.may_be_absent(self.todo[0]):
            self.todo.pop(0)
        if not self.todo:
            self.zero_compute(ph)
            while self.todo and self.todo[0].kind != ph.kind and self.may_be_absent(self.todo[0]):
                self.todo.pop(0)
        if not self.todo or self.todo[0].kind != ph.kind:
            want = self.todo[0].kind if self.todo else "compute"
            raise self.err(f"{ph.kind} phase at t={_g(ph.start)}, expected a {want} phase", "transitions")
        item = self.todo.pop(0)
        k = len(ph.procs)
        if item.mode == "old" and ph.procs != self.old:
            raise self.err(f"{ph.kind} at t={_g(ph.start)} on processors {_short(ph.procs)}, expected those it "
                           f"computed on, {_short(self.old)}", "transitions")
        if item.mode == "fixed" and ph.procs != self.fixed:
            raise self.err(f"{ph.kind} at t={_g(ph.start)} on processors {_short(ph.procs)}, expected those of its "
                           f"restart, {_short(self.fixed)}", "transitions")
        if item.mode == "new":
            if self.new is None:
                if k == len(self.old):
                    raise self.err(f"{ph.kind} at t={_g(ph.start)}: redistributed from {k} to {k} processors "
                                   "(a redistribution changes the count)", "transitions")
                self.check_kept(ph, ph.procs)
                self.new = ph.procs
            elif ph.procs != self.new:
                raise self.err(f"{ph.kind} at t={_g(ph.start)} on processors {_short(ph.procs)}, expected those "
                               f"of its redistribution, {_short(self.new)}", "transitions")
        length = self.duration(item, k)
        d = ph.end - ph.start
        cut = self.record(ph.end, ("restart",)) is not None
        if (d > length + _tol(ph.start, ph.end)) or (not cut and not _close(d, length)):
            rule = {"downtime": "D", "recovery": f"R = C_{{i,{len(self.old)}}}",
                    "redistribution": f"RC^{{{len(self.old)}->{k}}} (1.11)", "checkpoint": f"C_{{i,{k}}}"}[ph.kind]
            if item.mode == "fixed" and ph.kind == "recovery":
                rule = f"R = C_{{i,{len(self.fixed)}}}"
            raise self.err(f"{ph.kind} at t={_g(ph.start)} lasts {_g(d)}, expected {rule} = {_g(length)}",
                           "transitions")
        for a in (ph.alpha_start, ph.alpha_end):
            if abs(a - self.alpha) > ALPHA_TOL:
                raise self.err(f"{ph.kind} at t={_g(ph.start)}: remaining fraction {a!r}, expected {self.alpha!r} "
                               "(it does not compute)", "work")
        self.procs = ph.procs
        self.trans_of.append(self.transition)

    def zero_compute(self, ph: PackPhase) -> None:
        """A transition at ``ph.start`` right after the previous one (a compute phase of length 0)."""
        r = self.record(ph.start, _HIT)
        outcome = "failed" if r is not None else "redistributed"
        if r is None and ph.kind not in ("redistribution", "checkpoint"):
            raise self.err(f"{ph.kind} phase at t={_g(ph.start)} after the end of its transition, with no failure "
                           "there", "transitions")
        procs = self.procs if self.procs is not None else ph.procs  # a failure at time 0
        self.compute(PackPhase(self.i, "compute", ph.start, ph.start, procs, self.alpha, self.alpha, outcome))

    def compute(self, ph: PackPhase) -> None:
        while self.todo and self.may_be_absent(self.todo[0]):
            self.todo.pop(0)
        if self.todo:
            raise self.err(f"compute phase at t={_g(ph.start)} before its transition ends (a {self.todo[0].kind} "
                           "is missing)", "transitions")
        if self.procs is not None:
            if self.change and self.new is None:  # the new processors were not seen (zero-length phases)
                if len(ph.procs) == len(self.old):
                    raise self.err(f"compute phase at t={_g(ph.start)} on {len(ph.procs)} processors after a "
                                   "redistribution from as many", "transitions")
                self.check_kept(ph, ph.procs)
            elif ph.procs != self.procs:
                raise self.err(f"compute phase at t={_g(ph.start)} on processors {_short(ph.procs)}, expected "
                               f"{_short(self.procs)}", "transitions")
        if abs(ph.alpha_start - self.alpha) > ALPHA_TOL:
            raise self.err(f"compute phase at t={_g(ph.start)} starts from a remaining fraction "
                           f"{ph.alpha_start!r}, expected {self.alpha!r}", "work")
        self.check_work(ph)
        if ph.outcome == "redistributed" and not self.at_event(ph.end):
            raise self.err(f"redistributed at t={_g(ph.end)}, when no application ends and no failure strikes a "
                           "computation", "transitions")
        self.work += ph.alpha_start - ph.alpha_end
        self.alpha = ph.alpha_end
        self.procs = ph.procs
        self.change = False
        if ph.end > ph.start:
            self.trans_of.append(-1)
        rec = None
        if ph.outcome == "failed":
            r = self.record(ph.end, _HIT)
            if r is None:
                raise self.err(f"compute phase failed at t={_g(ph.end)} with no failure record (rollback or "
                               "redistributed) there", "failures")
            self.used.add(r[0])
            rec = r[1]
            if rec.proc not in ph.procs:
                raise self.err(f"failure at t={_g(ph.end)} on processor {rec.proc} ended a compute phase on "
                               f"processors {_short(ph.procs)}", "failures")
        if ph.outcome == "completed":
            if ph is not self.phases[-1]:
                raise self.err(f"completed at t={_g(ph.end)}, yet has phases after", "tiling")
            self.todo = []
        else:
            self.start_transition(ph, rec)

    def check_work(self, ph: PackPhase) -> None:
        """Rule 4."""
        i, k = self.i, len(ph.procs)
        tik = float(self.pm.pack.time(i, k))
        C = float(self.pm.checkpoint(i, k))
        tau = float(self.pm.period(i, k))
        chunk = tau - C
        a0 = float(ph.alpha_start)
        W = a0 * tik
        nff = 0 if math.isinf(tau) else math.floor(W / chunk)
        ff = W + nff * C
        d = ph.end - ph.start
        at = f"{ph.outcome} compute phase at t={_g(ph.start)} on {k} processors"
        if ph.outcome == "completed":
            nffs = {nff} if math.isinf(tau) else _floors(W / chunk)
            if not any(_close(d, W + m * C) for m in nffs) and not _close(ph.end, ph.start + ff):
                raise self.err(f"{at} lasts {_g(d)}, expected alpha t_{{i,k}} + N^ff C_{{i,k}} = {_g(ff)} "
                               f"(alpha = {a0:.10g}, t_{{i,k}} = {tik:.7g}, N^ff = {nff}, C = {C:.7g})", "work")
            if abs(ph.alpha_end) > ALPHA_TOL:
                raise self.err(f"{at} leaves a remaining fraction {ph.alpha_end!r}, expected 0", "work")
            return
        if d > ff + _tol(ph.start, ph.end):
            raise self.err(f"{at} lasts {_g(d)}, longer than its fault-free time alpha t + N^ff C = {_g(ff)}",
                           "work")
        wants = []
        for n in ({0} if math.isinf(tau) else _floors(d / tau)):
            if math.isinf(tau):
                w = d if ph.outcome == "redistributed" else 0.0
            else:
                w = n * chunk + (min(max(d - n * tau, 0.0), chunk) if ph.outcome == "redistributed" else 0.0)
            wants.append(a0 - min(w, W) / tik)
        if not any(abs(ph.alpha_end - want) <= ALPHA_TOL for want in wants):
            how = ("N (tau - C) + min(r, tau - C)" if ph.outcome == "redistributed"
                   else "N (tau - C), back to its last checkpoint")
            raise self.err(f"{at} lasts {_g(d)} and leaves {ph.alpha_end!r}, expected alpha - w / t_{{i,k}} = "
                           f"{wants[0]!r} with w = {how} (tau = {tau:.7g}, C = {C:.7g})", "work")


def _floors(x: float) -> set[int]:
    """``floor(x)``, and the neighbouring integer too when ``x`` is within rounding of it."""
    f = math.floor(x)
    out = {f}
    if x - f <= 1e-9 * max(1.0, abs(x)):
        out.add(f - 1)
    if f + 1 - x <= 1e-9 * max(1.0, abs(x)):
        out.add(f + 1)
    return {m for m in out if m >= 0}


def _short(procs: Sequence[int]) -> str:
    s = sorted(int(x) for x in procs)
    text = " ".join(str(x) for x in s[:8])
    return f"{{{text}{' ...' if len(s) > 8 else ''}}} ({len(s)})"


# ------------------------------------------------------------------ processors and failures


def _holdings(by_app: list[list[PackPhase]], trans: list[list[int]]) -> list[tuple[float, float, int, tuple[int, ...]]]:
    """Rule 5: per phase, its processors; during a transition, also those it computes on next."""
    holds = []
    for i, phs in enumerate(by_app):
        phs = sorted(phs, key=lambda ph: ph.start)
        tr_i = trans[i]
        final: dict[int, tuple[int, ...]] = {}  # transition -> the processors it hands over to
        for k, (ph, tr) in enumerate(zip(phs, tr_i)):
            if tr >= 0:
                nxt = phs[k + 1] if k + 1 < len(phs) else None
                if nxt is not None and tr_i[k + 1] < 0:
                    final[tr] = nxt.procs
                elif nxt is None or tr_i[k + 1] != tr:
                    final[tr] = ph.procs
        for ph, tr in zip(phs, tr_i):
            procs = ph.procs
            if tr >= 0 and final[tr] != procs:
                procs = tuple(sorted(set(procs).union(final[tr])))
            holds.append((ph.start, ph.end, i, procs))
    return holds


class _PerProcessor:
    """Per processor, its holdings ``(start, end, app)`` sorted by start, read on demand from the
    sorted arrays of all of them."""

    def __init__(self, xs: np.ndarray, ss: np.ndarray, es: np.ndarray, apps: np.ndarray, p: int) -> None:
        self.ss, self.es, self.apps = ss, es, apps
        self.bounds = np.searchsorted(xs, np.arange(p + 1))
        self._cache: dict[int, list[tuple[float, float, int]]] = {}

    def __getitem__(self, x: int) -> list[tuple[float, float, int]]:
        got = self._cache.get(x)
        if got is None:
            lo, hi = int(self.bounds[x]), int(self.bounds[x + 1])
            got = list(zip(self.ss[lo:hi].tolist(), self.es[lo:hi].tolist(), self.apps[lo:hi].tolist()))
            self._cache[x] = got
        return got


def _sweep(holds: list[tuple[float, float, int, tuple[int, ...]]], p: int, names: Sequence[str]) -> _PerProcessor:
    """Rule 5: per processor, its holdings sorted in time, never overlapping; the processors in
    use at every instant (one sweep over all holdings) at most ``p``. Returns, per processor,
    the holdings ``(start, end, app)`` sorted by start. Vectorised: one sort of all the
    (processor, holding) pairs."""
    sizes = np.array([len(h[3]) for h in holds], dtype=np.int64)
    xs = np.fromiter((x for h in holds for x in h[3]), dtype=np.int64, count=int(sizes.sum()))
    ss = np.repeat(np.array([h[0] for h in holds], dtype=float), sizes)
    es = np.repeat(np.array([h[1] for h in holds], dtype=float), sizes)
    apps = np.repeat(np.array([h[2] for h in holds], dtype=np.int64), sizes)
    order = np.lexsort((es, ss, xs))
    xs, ss, es, apps = xs[order], ss[order], es[order], apps[order]
    same = xs[1:] == xs[:-1]
    tol = RTOL * np.maximum(1.0, np.maximum(np.abs(es[:-1]), np.abs(ss[1:])))
    bad = np.flatnonzero(same & (es[:-1] > ss[1:] + tol))
    if bad.size:
        k = int(bad[0])
        x, a1, a2 = int(xs[k]), int(apps[k]), int(apps[k + 1])
        raise _fail(f"application {a2} ({names[a2]}): processor {x} at t={_g(float(ss[k + 1]))} is still held by "
                    f"application {a1} ({names[a1]}) until {_g(float(es[k]))} (rule: processors)")
    # processors in use: releases before acquisitions at one instant
    times = np.concatenate([np.array([h[0] for h in holds], dtype=float), np.array([h[1] for h in holds], dtype=float)])
    kinds = np.concatenate([np.ones(len(holds), dtype=np.int64), np.zeros(len(holds), dtype=np.int64)])
    deltas = np.concatenate([sizes, -sizes])
    ev = np.lexsort((kinds, times))
    used = np.cumsum(deltas[ev])
    over = np.flatnonzero(used > p)
    if over.size:
        k = int(over[0])
        raise _fail(f"{int(used[k])} processors in use at t={_g(float(times[ev][k]))} but p = {p} (rule: processors)")
    return _PerProcessor(xs, ss, es, apps, p)


def _check_effects(result: PackResult, per: list[list], by_app: list[list[PackPhase]]) -> None:
    """Rule 6: what each failure did, against the holdings and the phases."""
    names = result.pack.names
    app_phases = [sorted(phs, key=lambda ph: ph.start) for phs in by_app]
    app_starts = [[ph.start for ph in phs] for phs in app_phases]
    eq16 = result.res.model == "eq1.6"
    hit_times = [(f.time, k) for k, f in enumerate(result.failures) if f.effect in _HIT]
    for idx, f in enumerate(result.failures):
        t, x = f.time, int(f.proc)
        if f.effect in _HIT:
            continue  # matched to the failed compute phase in the walk (rules 3, 6)
        lo = bisect.bisect_right([h[0] for h in per[x]], t)
        held = [(s, a) for s, e, a in per[x][:lo] if s <= t < e]
        holders = {a for _, a in held}
        where = f"failure at t={_g(t)} on processor {x}"
        if f.effect == "idle":
            # a processor free at the failure may be handed over at that instant, by the decision of a
            # failure recorded after it (failures of one instant are handled in the records' order)
            for s, a in held:
                if s < t or not any(_close(u, t) and k > idx for u, k in hit_times):
                    raise _fail(f"{where}: recorded idle but application {a} ({names[a]}) holds it "
                                "(rule: failures)")
            continue
        if holders - {f.app}:
            a = min(holders - {f.app})
            raise _fail(f"{where}: recorded as hitting application {f.app} but application {a} ({names[a]}) "
                        "holds it (rule: failures)")
        if f.app not in holders:
            raise _fail(f"{where}: recorded {f.effect} by application {f.app} ({names[f.app]}), which does not "
                        "hold it then (rule: failures)")
        if f.effect == "restart":
            continue  # matched to the phases in the walk (rule 3)
        # ignored: the holder is in a transition phase
        k = bisect.bisect_right(app_starts[f.app], t) - 1
        ph = app_phases[f.app][k]
        if ph.kind == "compute":
            raise _fail(f"application {f.app} ({names[f.app]}): {where} struck its compute phase "
                        f"[{_g(ph.start)}, {_g(ph.end)}) but is recorded ignored (rule: failures)")
        if eq16 and ph.kind == "recovery" and x in ph.procs and ph.start < t:
            raise _fail(f"application {f.app} ({names[f.app]}): {where} struck its recovery under the eq1.6 "
                        "model, which restarts it, but is recorded ignored (rule: failures)")


def _check_trace(result: PackResult, failures: FailureTrace) -> None:
    p = result.pack.p
    if failures.n_nodes != p:
        raise _fail(f"the failure trace is for {failures.n_nodes} processors but the pack has p = {p} "
                    "(rule: failures)")
    end = result.makespan
    want = Counter((float(t), int(x)) for t, x in zip(failures.times.tolist(), failures.nodes.tolist()) if t < end)
    have = Counter((float(f.time), int(f.proc)) for f in result.failures)
    missing = want - have
    if missing:
        t, x = min(missing)
        raise _fail(f"failure at t={_g(t)} on processor {x} of the trace is not in the result (rule: failures)")
    extra = have - want
    if extra:
        t, x = min(extra)
        raise _fail(f"failure at t={_g(t)} on processor {x} of the result is not in the trace (rule: failures)")


def validate_pack_run(result: PackResult, failures: FailureTrace | None = None) -> None:
    """Check a pack simulation's records (module docstring, rules 1-6); ``failures``: the trace
    it ran on, to check that every failure before the makespan was applied. Raises
    :class:`~coschedule.errors.InvalidSchedule` with one line on the first violation."""
    pack = result.pack
    n, p = pack.n, pack.p
    pm = PackModel(pack, result.res)
    _check_shape(result)
    by_app: list[list[PackPhase]] = [[] for _ in range(n)]
    for ph in result.phases:
        _check_phase(result, ph)
        by_app[int(ph.app)].append(ph)
    recs: list[list[tuple[int, PackFailure]]] = [[] for _ in range(n)]
    for idx, f in enumerate(result.failures):
        _check_failure(result, f)
        if f.effect in ("restart", "rollback", "redistributed"):
            recs[int(f.app)].append((idx, f))
    events = sorted([ph.end for ph in result.phases if ph.kind == "compute" and ph.outcome == "completed"]
                    + [f.time for f in result.failures if f.effect in _HIT])
    used: set[int] = set()
    trans = [_App(result, pm, i, by_app[i], recs[i], used, events).run() for i in range(n)]
    for idx, f in enumerate(result.failures):
        if f.effect in ("restart", "rollback", "redistributed") and idx not in used:
            what = "no compute phase of it fails" if f.effect in _HIT else "no transition of it starts over"
            raise _fail(f"application {f.app} ({pack.names[f.app]}): failure at t={_g(f.time)} on processor "
                        f"{f.proc} recorded {f.effect}, but {what} there (rule: failures)")
    per = _sweep(_holdings(by_app, trans), p, pack.names)
    _check_effects(result, per, by_app)
    if failures is not None:
        _check_trace(result, failures)
