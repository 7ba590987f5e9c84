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

Your own decisions
------------------
``--at-end`` and ``--at-failure`` (``run_pack(at_end=..., at_failure=...)``,
:class:`PackRedistribution`) also take a class that is not built in, named
``path/to/file.py:Class``, ``package.module:Class`` or by an installed package's entry point in
``coschedule.policies.redistribution`` (:mod:`coschedule.plugins`, docs/own-policy.md; a built-in
name wins over a registered one). Its constructor takes no argument; one object is made per run
(one for both when the same reference is given to both: it then needs both methods). The
simulator (:class:`~coschedule.redistribution.simulation.PackSimulation`, a Python event loop)
calls, on the object given to

* ``--at-end``: ``on_end(sim, t, ended)`` once per instant ``t`` at which applications end
  (``ended``: their indices; their processors are free now) while others still run;
* ``--at-failure``: ``on_failure(sim, t, app)`` when a failure strikes ``app`` while it computes
  and ``app`` is then the longest (largest expected finish) of the running applications
  (§1.5.1); ``sim.faulty`` is ``app``, rolled back to its last checkpoint: it pays its downtime
  and recovery whatever is decided.

What it reads: ``sim.candidates(t)`` (the applications that may take part, as arrays ``(ids,
counts, remaining fractions, bases, expected finishes)``), ``sim.eligible(t)`` (their indices),
``sim.value(i, k, t, alpha=None)`` (``i``'s expected finish on ``k`` processors from ``t``, the
redistribution and the checkpoint included), ``sim.can_grow(i, k)`` (``k + 2 <= j_max``, 1.8),
``sim.free_count()``, ``sim.k[i]`` (counts), ``sim.alpha_now(i, t)``, ``sim.done[i]``,
``sim.faulty`` (-1 at an end), ``sim.pack`` (``n``, ``p``, ``min_procs``), ``sim.res`` and
``sim.model`` (:class:`~coschedule.redistribution.model.PackModel`). All of it is read-only:
never assign to ``sim``'s attributes nor write into its arrays (the run is checked afterwards by
:func:`~coschedule.redistribution.validate.validate_pack_run`).

The one action: ``sim.redistribute({app: new_count, ...})``, every change of the decision in one
call; doing nothing keeps every count. Its rules: each application is one of
``sim.eligible(t)`` and not already redistributed in this decision, each count a whole even
number at least its ``min_procs``, and the new counts fit in the free processors plus those the
others give back. A broken rule is a one-line :class:`~coschedule.errors.PolicyError` naming the
policy, ``t``, the application and the rule; an exception of the class is one line naming its
file, line and ``t`` (:func:`coschedule.plugins.raised`); a class without the method it is given
for, one line. The built-in decisions are :func:`end_local`, :func:`rebuild` and
:func:`shortest_applications_first` (or a subclass of :class:`PackRedistribution`). The run's
``policy`` names the reference where a built-in's name would be: ``EndGreedy+my.py:Greedy``.
"""

from __future__ import annotations

import copy
import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from coschedule import plugins
from coschedule.errors import (
    CoscheduleError,
    InvalidInstance,
    InvalidSchedule,
    PolicyError,
    unknown_name,
)
from coschedule.jit import njit
from coschedule.redistribution.kernels import (
    k_can_grow,
    k_checkpoint,
    k_expected,
    k_rc,
)
from coschedule.redistribution.model import MalleablePack, PackModel, Resilience
from coschedule.redistribution.options import AT_END, AT_FAILURE
from coschedule.redistribution.simulation import PackResult, PackSimulation, RuleBroken
from coschedule.redistribution.validate import validate_pack_run
from coschedule.rng import Seed
from coschedule.sim.failures import FailureTrace, poisson_failures

__all__ = [
    "AT_END",
    "AT_FAILURE",
    "PackRedistribution",
    "decision_name",
    "decision_source",
    "end_local",
    "rebuild",
    "resilient_optimal_1_pack",
    "run_pack",
    "shortest_applications_first",
    "unknown_decision",
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

@njit(cache=True, inline="always")
def _value(x, k, ids, jcur, alpha, base, tucur, seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    i = ids[x]
    if k == jcur[x]:
        return tucur[x]
    return (base[x] + k_rc(i, jcur[x], k, mem, prm) + k_checkpoint(i, k, mem, prm)
            + k_expected(i, k, alpha[x], seq, par, tab, use_tab, mem, prm))


@njit(cache=True, inline="always")
def _before(v1, x1, v2, x2):  # type: ignore[no-untyped-def]
    """Heap order: larger value first, then the lower position."""
    return v1 > v2 or (v1 == v2 and x1 < x2)


@njit(cache=True, inline="always")
def _sift_down(hv, hx, size, pos):  # type: ignore[no-untyped-def]
    """Move the entry at ``pos`` down to its place (:func:`_before`'s order): the larger child
    moves up into the hole until none comes before the entry, which then fills it (the same
    places as swapping it down, a third of the writes)."""
    v = hv[pos]
    x = hx[pos]
    while True:
        left = 2 * pos + 1
        if left >= size:
            break
        best = left
        right = left + 1
        if right < size and _before(hv[right], hx[right], hv[left], hx[left]):
            best = right
        if not _before(hv[best], hx[best], v, x):
            break
        hv[pos] = hv[best]
        hx[pos] = hx[best]
        pos = best
    hv[pos] = v
    hx[pos] = x


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

#: what ``at_end`` and ``at_failure`` take: a built-in name, a user's reference or its resolved source
Decision = str | plugins.PolicySource

_AT = {"end": (AT_END, "--at-end", "on_end", "on_end(sim, t, ended)"),
       "failure": (AT_FAILURE, "--at-failure", "on_failure", "on_failure(sim, t, app)")}


def unknown_decision(name: str, at: str) -> CoscheduleError:
    """The one-line error of a name (``at``: ``"end"`` or ``"failure"``) that is neither built in
    nor a user's class."""
    names, option, _, _ = _AT[at]
    err = unknown_name(f"{at} heuristic", str(name), names, context=f"({option})")
    return type(err)(f"{err}; or your own: FILE.py:CLASS, MODULE:CLASS (coschedule policies)")


def decision_source(name: Decision, at: str, *, base: str | Path = ".") -> plugins.PolicySource | None:
    """``name`` (given to ``--at-end`` if ``at`` is ``"end"``, ``--at-failure`` if ``"failure"``)
    as a user's class (:func:`coschedule.plugins.resolve`, kind ``redistribution``; ``base``: where
    a relative file is read from; a resolved source, as a campaign's cell carries it, is itself),
    None for a built-in name (any case; it wins over a registered one). An unknown name is a
    one-line error (:func:`unknown_decision`)."""
    if isinstance(name, plugins.PolicySource):
        return name
    if isinstance(name, str) and name.lower() in _AT[at][0]:
        return None
    src = plugins.resolve(name, "redistribution", base=base) if isinstance(name, str) else None
    if src is None:
        raise unknown_decision(name, at)
    return src


def decision_name(name: Decision, at: str) -> str:
    """The name of a decision in results: the paper's (``EndLocal``...) for a built-in, the
    reference as written for a user's class."""
    if isinstance(name, plugins.PolicySource):
        return name.ref
    key = name.lower() if isinstance(name, str) else name
    return _NAMES[key] if key in _AT[at][0] else str(name)


def _same(a: plugins.PolicySource, b: plugins.PolicySource) -> bool:
    return (a.origin, a.target, a.attr, a.digest) == (b.origin, b.target, b.attr, b.digest)


def _ask(src: plugins.PolicySource, method: Callable[..., Any], sim: PackSimulation, t: float, arg: Any) -> None:
    """A user's decision: its exceptions and the rules it breaks, one line naming it."""
    try:
        method(sim, t, arg)
    except RuleBroken as e:
        raise PolicyError(f"policy {src.ref!r} at t = {e.time:g} s: {e.rule}") from None
    except Exception as e:  # the user's code raised: one line, where in their file
        raise plugins.raised(src, e, t) from e


@dataclass
class PackRedistribution:
    """The policy of a pack simulation: ``at_end`` in :data:`AT_END`, ``at_failure`` in
    :data:`AT_FAILURE` (module docstring), or either a user's class (module docstring, "Your own
    decisions"; ``base``: where a relative file is read from)."""

    at_end: Decision = "none"
    at_failure: Decision = "none"
    base: str | Path = field(default=".", repr=False, compare=False)

    def __post_init__(self) -> None:
        self._src_end = decision_source(self.at_end, "end", base=self.base)
        self._src_failure = decision_source(self.at_failure, "failure", base=self.base)
        if self._src_end is None:
            self.at_end = str(self.at_end).lower()
        if self._src_failure is None:
            self.at_failure = str(self.at_failure).lower()
        self._make()

    def _make(self) -> None:
        """New objects of the users' classes (one for both when the same class is given to both)."""
        end, fail = self._src_end, self._src_failure
        self._user_end: Any = None
        self._user_failure: Any = None
        if end is not None and fail is not None and _same(end, fail):
            self._user_end = self._user_failure = plugins.instantiate(
                end, {}, {}, ("on_end", "on_failure"), "given to both --at-end and --at-failure, a class has "
                "on_end(sim, t, ended) and on_failure(sim, t, app) (coschedule docs redistribution)")
            return
        for src, at in ((end, "end"), (fail, "failure")):
            if src is not None:
                _, option, method, call = _AT[at]
                obj = plugins.instantiate(src, {}, {}, (method,), f"given to {option}, a class has {call} "
                                          "(coschedule docs redistribution)")
                setattr(self, f"_user_{at}", obj)

    def fresh(self) -> PackRedistribution:
        """The same decisions with new objects of the users' classes, for a new run."""
        other = copy.copy(self)
        if self.user:
            other._make()
        return other

    @property
    def user(self) -> str:
        """The references of the users' classes, joined by ``" and "`` ("" for built-ins only)."""
        refs = dict.fromkeys(s.ref for s in (self._src_end, self._src_failure) if s is not None)
        return " and ".join(refs)

    @property
    def sources(self) -> dict[str, plugins.PolicySource]:
        """``at_end`` and ``at_failure`` -> the user's class's source, when it is one."""
        return {k: s for k, s in (("at_end", self._src_end), ("at_failure", self._src_failure)) if s is not None}

    @property
    def name(self) -> str:
        return f"{decision_name(self.at_end, 'end')}+{decision_name(self.at_failure, 'failure')}"

    # PackPolicy (coschedule.redistribution.simulation)
    def on_end(self, sim: PackSimulation, t: float, ended: Sequence[int]) -> None:
        if self._user_end is not None:
            assert self._src_end is not None
            _ask(self._src_end, self._user_end.on_end, sim, t, ended)
        elif self.at_end == "local":
            end_local(sim, t)
        elif self.at_end == "greedy":
            rebuild(sim, t)

    def on_failure(self, sim: PackSimulation, t: float, app: int) -> None:
        if self._user_failure is not None:
            assert self._src_failure is not None
            _ask(self._src_failure, self._user_failure.on_failure, sim, t, app)
        elif self.at_failure == "saf":
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


def run_pack(pack: MalleablePack, res: Resilience | None = None, *, at_end: Decision = "none",
             at_failure: Decision = "none", failures: FailureTrace | None = None, seed: Seed = None,
             initial: Sequence[int] | None = None, fault_free: bool = False, base: str | Path = ".") -> PackResult:
    """Simulate ``pack`` under ``res`` with the given heuristics, from Resilient Optimal-1-pack
    (or ``initial``). Failures: ``failures`` (a trace over the ``p`` processors), else Poisson
    failures of MTBF ``res.node_mtbf`` per processor from ``seed`` (:func:`~coschedule.sim.
    failures.poisson_failures`, drawn over a horizon that is doubled, with the same seed, until
    the run ends inside it), none if ``fault_free`` or the MTBF is infinite. The trace the run
    saw is ``result.trace``, and a drawn trace's horizon ``result.trace_horizon``.

    ``at_end`` and ``at_failure`` may name a user's class (module docstring, "Your own
    decisions"; ``base``: where a relative file is read from), or be its resolved
    :class:`~coschedule.plugins.PolicySource` (as a campaign's cell carries it): a new object of it for each run
    the horizon's doubling makes, its run checked by
    :func:`~coschedule.redistribution.validate.validate_pack_run` (a failed check, an exception,
    a broken rule: one line naming it)."""
    res = res if res is not None else Resilience()
    policy = PackRedistribution(at_end, at_failure, base=base)
    model = PackModel(pack, res)
    sigma = resilient_optimal_1_pack(pack, model=model) if initial is None else np.asarray(initial)
    if failures is not None or fault_free or res.rate == 0:
        trace = None if fault_free else failures
        return _checked(policy, _simulate(policy, PackSimulation(pack, res, policy, sigma, trace, model=model)))
    horizon = 2.0 * float(np.max(model.expected(np.arange(pack.n), sigma, 1.0)))
    while True:
        trace = poisson_failures(pack.p, node_mtbf=res.node_mtbf, horizon=horizon, downtime=res.downtime, seed=seed)
        out = _simulate(policy, PackSimulation(pack, res, policy, sigma, trace, model=model))
        if out.makespan < horizon:
            out.trace_horizon = horizon
            return _checked(policy, out)
        horizon *= 2.0
        policy = policy.fresh()


def _simulate(policy: PackRedistribution, sim: PackSimulation) -> PackResult:
    """``sim``'s run; with a user's decisions, anything that goes wrong is one line naming them."""
    if not policy.user:
        return sim.run()
    try:
        return sim.run()
    except CoscheduleError:
        raise
    except Exception as e:  # outside the user's calls: the state they were given was changed
        raise PolicyError(f"policy {policy.user!r}: the simulation failed at t = {sim.now:g} s with "
                          f"{type(e).__name__}: {' '.join(str(e).split())} (the simulation's state is read-only: "
                          "act only through sim.redistribute)") from e


def _checked(policy: PackRedistribution, out: PackResult) -> PackResult:
    """``out``, checked by the validator when a user's class decided."""
    if policy.user:
        try:
            validate_pack_run(out, failures=out.trace)
        except InvalidSchedule as e:
            raise PolicyError(f"policy {policy.user!r}: its run is invalid: {e} (the simulation's state is "
                              "read-only: act only through sim.redistribute)") from None
    return out
