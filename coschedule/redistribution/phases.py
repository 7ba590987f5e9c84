"""Rules 1-4 of :func:`~.validate.validate_pack_run` (the module docstring there lists them): the
records of a pack run (shapes, phases, failure records) and, per application, the walk over its
phases that recomputes every duration and fraction of work with the model's formulas. The sweeps
over processors and the failure trace (rules 5-6) are in :mod:`.validate`.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from coschedule.errors import InvalidSchedule
from coschedule.redistribution.model import PackModel
from coschedule.redistribution.simulation import PackFailure, PackPhase, PackResult
from coschedule.sim.validate import (  # one tolerance for every executed-schedule check
    _close,
    _g,
    _tol,
)

__all__ = ["ALPHA_TOL", "EFFECTS", "KINDS", "OUTCOMES"]

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
