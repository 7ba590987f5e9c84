"""The validator of pack simulations: malleable applications under fail-stop failures with
buddy checkpointing and processor redistribution ([Aupy2017] §1.3.3–1.3.5, §1.5; the simulator
is :mod:`coschedule.redistribution.simulation`).

:func:`validate_pack_run` checks a :class:`~coschedule.redistribution.simulation.PackResult` independently of the
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
   change hands at the decision (:mod:`coschedule.redistribution.simulation`), so a faulty application that
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
from collections import Counter
from collections.abc import Sequence

import numpy as np

from coschedule.redistribution.model import PackModel
from coschedule.redistribution.simulation import PackFailure, PackPhase, PackResult
from coschedule.sim.failures import FailureTrace
from coschedule.sim.validate import (  # one tolerance for every executed-schedule check
    RTOL,
    _close,
    _g,
)

from .phases import (
    _HIT,
    ALPHA_TOL,
    EFFECTS,
    _App,
    _check_failure,
    _check_phase,
    _check_shape,
    _fail,
)

__all__ = ["ALPHA_TOL", "EFFECTS", "RTOL", "validate_pack_run"]


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
