"""Processor allocation and redistribution for a pack of malleable applications under fail-stop
errors ([Aupy2017] §1.4.2 "With failures", §1.5): Resilient Optimal-1-pack (Thm 1.4), the
initial allocation of every heuristic, and the redistribution policies of §1.5.2–1.5.3 that the
pack simulator (:mod:`coschedule.redistribution.simulation`) calls at application ends and failures.

Every decision compares *expected finish times* with the costs included
(:meth:`~coschedule.redistribution.simulation.PackSimulation.value`): application ``i`` given ``k`` processors at
``t`` finishes on average at ``t^U_i`` if ``k`` is its count, else at ``base + RC^{j->k} +
C_{i,k} + t^R_{i,k}(alpha_i)`` (``base = t``, or ``t + D + R_{f,j}`` for the faulty
application), with ``t^R`` of the failure model the simulation runs.

**Improvable** (§1.5.3): an application on ``k`` processors is improvable when ``k + 2 <=
j_max`` (1.8) and two more processors lower its expected finish (costs included). In the greedy
loops below, the longest application that is not improvable keeps its count and leaves the
loop, and the processors go on to the next longest (as Resilient Optimal-1-pack does at
``j_max``): the largest expected finish is the same as if the loop stopped there, and the other
applications are not left below the counts they had (a rebuild that stopped would leave them
at two processors each).

At an end (§1.5.2)
    ``local`` -- **EndLocal** (the results' ENDMETHOD): the free processors go two by two to the
    application with the largest expected finish, if it is improvable.
    ``greedy`` -- **EndGreedy**: Algorithm 1 again over the eligible applications and the free
    processors: two each (their minimum), then two more to the longest if it is improvable;
    the applications whose count changed are redistributed (some may lose processors), the
    others keep their state (the paper's temporary ``alpha^t_i``).
At a failure of the longest application ``f`` (§1.5.3)
    ``saf`` -- **ShortestApplicationsFirst**: the free processors go to ``f`` while it is
    improvable; then, while it still is, two processors are taken from the eligible application
    with the smallest expected finish whose finish with two fewer stays below ``f``'s finish
    with two more (the next shortest is tried when the shortest would not); it stops when no
    donor qualifies. Since ``f``'s finish goes on dropping, the last pairs taken are given back
    until every donor's finish is below ``f``'s final one.
    ``iterated`` -- **IteratedGreedy**: the EndGreedy rebuild at the failure, ``f`` included with
    its rolled-back ``alpha_f`` and its downtime and recovery in its ``base``; ``f`` starts the
    rebuild from its own count, not from two: it recovers on its processors, so it gives none
    away (and, the longest, it would not: a rebuild only takes from applications below it).
``none`` at either: no redistribution there.

The pseudo-code of these heuristics is in the authors' report RR-8795, which we could not
read; the choices above follow the text of §1.5 (``docs/redistribution.md``).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from coschedule.errors import InvalidInstance, unknown_name
from coschedule.jit import njit
from coschedule.redistribution.kernels import (
    k_can_grow,
    k_checkpoint,
    k_expected,
    k_rc,
)
from coschedule.redistribution.model import MalleablePack, PackModel, Resilience
from coschedule.redistribution.options import AT_END, AT_FAILURE
from coschedule.redistribution.simulation import PackResult, PackSimulation
from coschedule.rng import Seed
from coschedule.sim.failures import FailureTrace, poisson_failures

__all__ = [
    "AT_END",
    "AT_FAILURE",
    "PackRedistribution",
    "resilient_optimal_1_pack",
    "run_pack",
]

_NAMES = {"none": "none", "local": "EndLocal", "greedy": "EndGreedy", "saf": "ShortestApplicationsFirst",
          "iterated": "IteratedGreedy"}


def resilient_optimal_1_pack(pack: MalleablePack, res: Resilience | None = None, *,
                             model: PackModel | None = None) -> np.ndarray:
    """The allocation of Thm 1.4 (Algorithm 1 with ``t^R_{i,j}(1)`` for ``t_{i,j}``, processors
    two by two): every application gets two processors (its ``min_procs`` rounded up to even, if
    more), then two more at a time go to the application with the largest expected time
    ``t^R_{i,j}(1)``, never beyond its ``j_max`` (1.8). An application at its ``j_max`` leaves
    the competition and the pairs go on to the others; processors no application can use
    (every one at its ``j_max``) stay free. Ties go to the lowest index. An odd processor is
    never used. When ``t^R_{i,j}(1)`` does not rise with ``j`` below ``j_max`` (the assumption
    that follows (1.8)), it minimises the largest expected time ``max_i t^R_{i,sigma(i)}(1)``
    over all even allocations (Thm 1.4; checked against the DP of
    :mod:`coschedule.exact.resilient_onepack`). The floor in ``N^ff`` (1.4) can break that
    assumption (``t^R`` jumps up by about a checkpoint where one more checkpoint is needed);
    then the greedy can lose to the DP: on 8.6 % of small random packs, by up to 39 %, and on
    none of the paper-like packs we tried (``docs/redistribution.md``).

    Cost: a heap of ``n`` over at most ``p/2`` steps, ``O(n log n + p log n)`` evaluations of
    ``t^R``, plus those ``j_max`` needs (computed lazily, :func:`coschedule.redistribution.
    k_can_grow`: usually one per step); the paper's "O(n)" for Thm 1.4 counts neither.

    Needs ``p >= 2n`` (one-line error otherwise). Returns ``sigma`` as an int array.
    """
    pm = model if model is not None else PackModel(pack, res if res is not None else Resilience())
    pack = pm.pack
    n = pack.n
    kmin = np.asarray(pack.min_procs, dtype=np.int64)
    if int(kmin.sum()) > pack.p_even:
        raise InvalidInstance(
            f"Resilient Optimal-1-pack needs two processors per application: {n} applications "
            f"need {int(kmin.sum())} but p = {pack.p}"
        )
    args = pm.kernel_args()
    ver = kmin.copy()
    jexact = np.zeros(n, dtype=np.int64)
    sigma = kmin.copy()
    left = pack.p_even - int(sigma.sum())

    def grows(i: int) -> bool:
        return bool(k_can_grow(i, int(sigma[i]), ver, jexact, pack.p_even, *args))

    heap = [(-float(k_expected(i, int(sigma[i]), 1.0, *args)), i) for i in range(n) if grows(i)]
    heapq.heapify(heap)
    while left >= 2 and heap:
        _, i = heapq.heappop(heap)
        sigma[i] += 2
        left -= 2
        if grows(i):
            heapq.heappush(heap, (-float(k_expected(i, int(sigma[i]), 1.0, *args)), i))
    return sigma


# ------------------------------------------------------------------ the greedy rebuild (kernel)

@njit(cache=True)
def _value(x, k, ids, jcur, alpha, base, tucur, seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    i = ids[x]
    if k == jcur[x]:
        return tucur[x]
    return (base[x] + k_rc(i, jcur[x], k, mem, prm) + k_checkpoint(i, k, mem, prm)
            + k_expected(i, k, alpha[x], seq, par, tab, use_tab, mem, prm))


@njit(cache=True)
def _before(v1, x1, v2, x2):  # type: ignore[no-untyped-def]
    """Heap order: larger value first, then the lower position."""
    return v1 > v2 or (v1 == v2 and x1 < x2)


@njit(cache=True)
def _sift_down(hv, hx, size, pos):  # type: ignore[no-untyped-def]
    while True:
        left = 2 * pos + 1
        if left >= size:
            return
        best = left
        right = left + 1
        if right < size and _before(hv[right], hx[right], hv[left], hx[left]):
            best = right
        if _before(hv[best], hx[best], hv[pos], hx[pos]):
            hv[best], hv[pos] = hv[pos], hv[best]
            hx[best], hx[pos] = hx[pos], hx[best]
            pos = best
        else:
            return


@njit(cache=True)
def greedy_rebuild(ids, jcur, kmin, alpha, base, tucur, pairs, ver, jexact, p_even,
                   seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    """Algorithm 1 with costs (EndGreedy, IteratedGreedy): applications ``ids`` start at
    ``kmin``; while ``pairs`` remain, the one with the largest value (expected finish, costs
    included) gets two more if it is improvable, else the loop stops. Returns the counts."""
    m = ids.shape[0]
    k = kmin.copy()
    hv = np.empty(m)
    hx = np.empty(m, dtype=np.int64)
    for x in range(m):
        hv[x] = _value(x, k[x], ids, jcur, alpha, base, tucur, seq, par, tab, use_tab, mem, prm)
        hx[x] = x
    for pos in range(m // 2 - 1, -1, -1):
        _sift_down(hv, hx, m, pos)
    size = m
    while pairs > 0 and size > 0:
        x = hx[0]
        cur = hv[0]
        nv = math.inf
        if k_can_grow(ids[x], k[x], ver, jexact, p_even, seq, par, tab, use_tab, mem, prm):
            nv = _value(x, k[x] + 2, ids, jcur, alpha, base, tucur, seq, par, tab, use_tab, mem, prm)
        if nv < cur:
            k[x] += 2
            pairs -= 1
            hv[0] = nv
        else:  # not improvable: it keeps its count, the others go on
            size -= 1
            hv[0] = hv[size]
            hx[0] = hx[size]
        _sift_down(hv, hx, size, 0)
    return k


# ------------------------------------------------------------------ the policies

@dataclass
class PackRedistribution:
    """The policy of a pack simulation: ``at_end`` in :data:`AT_END`, ``at_failure`` in
    :data:`AT_FAILURE` (module docstring)."""

    at_end: str = "none"
    at_failure: str = "none"

    def __post_init__(self) -> None:
        if self.at_end not in AT_END:
            raise unknown_name("end heuristic", self.at_end, AT_END, context="(--at-end)")
        if self.at_failure not in AT_FAILURE:
            raise unknown_name("failure heuristic", self.at_failure, AT_FAILURE, context="(--at-failure)")

    @property
    def name(self) -> str:
        return f"{_NAMES[self.at_end]}+{_NAMES[self.at_failure]}"

    # PackPolicy (coschedule.redistribution.simulation)
    def on_end(self, sim: PackSimulation, t: float, ended: Sequence[int]) -> None:
        if self.at_end == "local":
            end_local(sim, t)
        elif self.at_end == "greedy":
            rebuild(sim, t)

    def on_failure(self, sim: PackSimulation, t: float, app: int) -> None:
        if self.at_failure == "saf":
            shortest_applications_first(sim, t, app)
        elif self.at_failure == "iterated":
            rebuild(sim, t)


def end_local(sim: PackSimulation, t: float) -> None:
    """EndLocal: :func:`greedy_rebuild` from the current counts with the free pairs only."""
    if sim.free_count() >= 2:
        rebuild(sim, t, local=True)


def rebuild(sim: PackSimulation, t: float, *, local: bool = False) -> None:
    """EndGreedy / IteratedGreedy: :func:`greedy_rebuild` over the eligible applications from
    their minimum counts, with the free processors and theirs; ``local`` (EndLocal): from their
    current counts, with the free processors only. The counts that changed are applied."""
    ids, jcur, alpha, base, tucur = sim.candidates(t)
    if ids.size == 0:
        return
    if local:
        kmin = jcur.copy()
        pairs = sim.free_count() // 2
    else:
        kmin = np.asarray(sim.pack.min_procs, dtype=np.int64)[ids].copy()
        if sim.faulty >= 0:  # the faulty application recovers on its processors: it gives none away
            x = int(np.searchsorted(ids, sim.faulty))
            kmin[x] = jcur[x]
        pairs = (sim.free_count() + int(jcur.sum()) - int(kmin.sum())) // 2
    new = greedy_rebuild(ids, jcur, kmin, alpha, base, tucur, pairs, sim.ver, sim.jexact, sim.pack.p_even,
                         *sim.args)
    changed = np.flatnonzero(new != jcur)
    if changed.size:
        sim.redistribute({int(ids[x]): int(new[x]) for x in changed})


def shortest_applications_first(sim: PackSimulation, t: float, f: int) -> None:
    """ShortestApplicationsFirst (module docstring)."""
    k_f = int(sim.k[f])
    a_f = sim.alpha_now(f, t)
    pairs = sim.free_count() // 2

    def improves(k: int) -> tuple[bool, float]:
        if not sim.can_grow(f, k):
            return False, math.inf
        nv = sim.value(f, k + 2, t, a_f)
        return nv < sim.value(f, k, t, a_f), nv

    ok, nv = improves(k_f)
    while ok and pairs:
        k_f += 2
        pairs -= 1
        ok, nv = improves(k_f)
    alloc = {f: k_f}
    if ok:
        ids, k, alpha, _, cur = sim.candidates(t)  # cur: their finish with their own counts
        others = ids != f
        ids, k, alpha, cur = ids[others], k[others], alpha[others], cur[others]
        if ids.size:
            kmin = np.asarray(sim.pack.min_procs, dtype=np.int64)[ids]
            pm = sim.model
            lower = np.maximum(k - 2, kmin)
            cand = np.where(k - 2 >= kmin, t + pm.redistribution_cost(ids, k, lower) + pm.checkpoint(ids, lower)
                            + pm.expected(ids, lower, alpha), math.inf)
            taken: list[tuple[int, float, float]] = []  # (donor, its finish and candidate before)
            while ok:
                qualifies = np.flatnonzero(cand < nv)  # finish with two fewer stays below f's
                if qualifies.size == 0:
                    break
                x = int(qualifies[np.argmin(cur[qualifies])])  # the shortest of them
                d = int(ids[x])
                taken.append((x, float(cur[x]), float(cand[x])))
                k[x] -= 2
                cur[x] = cand[x]
                cand[x] = sim.value(d, int(k[x]) - 2, t, float(alpha[x])) if k[x] - 2 >= kmin[x] else math.inf
                k_f += 2
                ok, nv = improves(k_f)
            # f's finish went on dropping after a donor qualified: give back the last pairs until
            # every donor ends before f (§1.5.3: a donor's new time stays below the faulty one's)
            v_f = sim.value(f, k_f, t, a_f)
            while taken and max(cur[x] for x, _, _ in taken) >= v_f:
                x, c0, d0 = taken.pop()
                k[x] += 2
                cur[x], cand[x] = c0, d0
                k_f -= 2
                v_f = sim.value(f, k_f, t, a_f)
            for x, _, _ in taken:
                alloc[int(ids[x])] = int(k[x])
            alloc[f] = k_f
    sim.redistribute(alloc)


def run_pack(pack: MalleablePack, res: Resilience | None = None, *, at_end: str = "none", at_failure: str = "none",
             failures: FailureTrace | None = None, seed: Seed = None, initial: Sequence[int] | None = None,
             fault_free: bool = False) -> PackResult:
    """Simulate ``pack`` under ``res`` with the given heuristics, from Resilient Optimal-1-pack
    (or ``initial``). Failures: ``failures`` (a trace over the ``p`` processors), else Poisson
    failures of MTBF ``res.node_mtbf`` per processor from ``seed`` (:func:`~coschedule.sim.
    failures.poisson_failures`, drawn over a horizon that is doubled, with the same seed, until
    the run ends inside it), none if ``fault_free`` or the MTBF is infinite. The trace the run
    saw is ``result.trace``, and a drawn trace's horizon ``result.trace_horizon``."""
    res = res if res is not None else Resilience()
    policy = PackRedistribution(at_end, at_failure)
    model = PackModel(pack, res)
    sigma = resilient_optimal_1_pack(pack, model=model) if initial is None else np.asarray(initial)
    if failures is not None or fault_free or res.rate == 0:
        trace = None if fault_free else failures
        out = PackSimulation(pack, res, policy, sigma, trace, model=model).run()
        return out
    horizon = 2.0 * float(np.max(model.expected(np.arange(pack.n), sigma, 1.0)))
    while True:
        trace = poisson_failures(pack.p, node_mtbf=res.node_mtbf, horizon=horizon, downtime=res.downtime, seed=seed)
        out = PackSimulation(pack, res, policy, sigma, trace, model=model).run()
        if out.makespan < horizon:
            out.trace_horizon = horizon
            return out
        horizon *= 2.0
