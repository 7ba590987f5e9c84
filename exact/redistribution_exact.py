"""Exact reference for one pack with redistributions at application ends, no failure, a constant
redistribution cost ``S`` ([Aupy2017] §1.4.5, the setting of Thm 1.7), for small packs.

The problem
-----------
A :class:`~coschedule.redistribution.MalleablePack` of ``n`` applications shares the ``P = p -
p mod 2`` processors usable in pairs. Nothing fails and nothing is checkpointed (§1.3.5 (1),
"Fault-free scenario"); application ``i`` on ``k`` processors computes its work at rate ``1 /
t_{i,k}`` (a fraction ``alpha`` of it takes ``alpha t_{i,k}``). The cost of a redistribution is
the constant ``S``: (1.11) with ``beta = 0`` and an infinite bandwidth, paid by *every*
application whose processor count changes, whatever the change. Allocations are even (buddy
pairs, §1.3.3): every count is even, at least ``min_procs_i`` (which the pack rounds up to an even
number >= 2), and the counts of the running applications sum to at most ``P``.

* **Time 0.** Choose an allocation of all ``n`` applications. It costs nothing; every
  application starts computing its whole work (``alpha_i = 1``).
* **Events.** An application ends when its remaining fraction reaches 0; its processors are
  released. Ends within a relative ``EVENT_RTOL`` (``1e-12``) of the earliest one form one
  event, at the earliest end time ``t_e`` (each application keeps its own end time for the
  makespan).
* **Decisions.** At an event, a new allocation of the still-running applications may be chosen
  (or the current one kept). An application whose count changes stops computing for ``S``
  seconds (its redistribution, holding its *new* count: processors leaving one application can
  join another at the same instant, as in §1.3.5), then computes its remaining fraction at rate
  ``1 / t_{i,k'}``. An application whose count does not change goes on without a pause. Counts may
  go down as well as up, and processors may be left idle.
* **Applications still redistributing** at an event (redistribution ending later than ``t_e``,
  by more than ``EVENT_RTOL``) sit it out, as §1.5.1 says: their count cannot change at this
  event and their processors are not available to the others.
* **Objective.** The makespan, the time the last application ends. No redistribution happens
  but at an end, so there are at most ``n - 1`` decisions after time 0.

This is what the pack simulator (:func:`coschedule.heuristics.redistribution.run_pack`) computes
with ``Resilience(node_mtbf=inf, c=0, beta=0, start=S)`` and no failure (``C = 0``, ``RC = S``
for a change): its heuristics at application ends, EndLocal and EndGreedy (§1.5.2), make
decisions of this search space, so their makespans are never below the optimum (up to how
float ties between ends are grouped).

The search
----------
A depth-first branch and bound over the decision tree (initial allocation, then one
allocation per event), children visited by increasing lower bound. For each child (the state
just after a decision at ``t``; ``t2`` its next event):

* an **upper bound**: keep this allocation to the end (a feasible schedule); the incumbent is
  the best of them (at the root, the best one is the no-redistribution optimum over even
  allocations);
* a **lower bound**, the largest of: the end of each application ending at ``t2``; for every
  other application, ``min(end if it is never changed again, t'' + S + alpha'' tmin_i)``, where
  ``t'' = max(t2, end of its redistribution)`` is the earliest instant it can change,
  ``alpha''`` its remaining fraction then and ``tmin_i`` its smallest time over every even count
  up to ``P`` (it may get every processor once the others have ended; a change pays ``S`` and
  computes at most at rate ``1/tmin_i``; the later the change, the later the end, since
  ``tmin_i <= t_{i,k_i}``); and the area bound ``t2 + (sum_i alpha_i(t2) wmin_i + the area
  held by applications still redistributing after t2) / P``, with ``wmin_i`` the smallest work
  ``k t_{i,k}``;
* before a child is explored, a **fluid relaxation** at the incumbent ``U``: after ``t2`` each
  application either keeps its count (area ``alpha k t_{i,k}``, if it then ends by ``U``) or
  computes in at most ``U - t'' - S`` seconds with any mix of counts, which needs at least the
  area ``D g_i(alpha / D)``, ``g_i`` the lower convex envelope of the points ``(1/t_{i,k}, k)``
  and the origin (the least processor density sustaining an average rate); if the smallest
  total area exceeds ``P (U - t2)``, no schedule below the children ends by ``U``: pruned. This
  is the bound that makes ``S = 0`` cheap (the area bound alone prices every application at its
  cheapest work, which the optimum does not use).

No assumption on the profile ((1.1)-(1.2)) is needed: the minima and envelopes are taken over
the table. A child is pruned when a bound reaches the incumbent (relative ``1e-12``). Nothing
is memoised and no time is rounded: an optimum is exact up to float rounding, claimed within
``OPTIMAL_RTOL`` (``1e-9``) relative. The answer is replayed by :func:`replay`, independently of
the search, and its makespan is the reported objective.

Cost: exponential; ``O(prod_e A_e)`` nodes at worst, with ``A_e`` the number of allocations at
event ``e`` (70 at the root for ``n = 4, p = 16``), under a millisecond a node. Measured in
``docs/redistribution-exact-notes.md``: every pack of ``n <= 6`` on ``p = 16`` tried was solved
within 10 s. Refused above ``MAX_N`` applications or ``MAX_P`` processors.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from coschedule.errors import InvalidInstance, InvalidSchedule
from coschedule.redistribution.model import MalleablePack, as_pack, even_allocations
from coschedule.results import ExactResult, Status
from coschedule.timelimit import Deadline

__all__ = [
    "EVENT_RTOL",
    "MAX_N",
    "MAX_P",
    "OPTIMAL_RTOL",
    "Decision",
    "Event",
    "RedistributionSchedule",
    "Replay",
    "Segment",
    "no_redistribution_optimum",
    "replay",
    "solve_redistribution",
]

#: refuse packs with more applications than this (the tree grows like a product of binomials)
MAX_N = 8
#: refuse packs with more usable processors than this
MAX_P = 32
#: ends within this relative distance of the earliest form one event
EVENT_RTOL = 1e-12
#: an optimality claim holds within this relative tolerance (float rounding of the times)
OPTIMAL_RTOL = 1e-9
#: a child whose lower bound reaches the incumbent within this relative margin is pruned
_PRUNE_RTOL = 1e-12
#: a decision's time must match its event's time within this relative tolerance
_MATCH_RTOL = 1e-9


def _kmin(pack: MalleablePack) -> list[int]:
    """The even minimum counts (the pack rounds ``min_procs`` up to even, >= 2)."""
    assert pack.min_procs is not None
    return [int(x) for x in pack.min_procs]


def _same_instant(t: float, t0: float) -> bool:
    """``t`` belongs to the event at ``t0`` (``t >= t0``)."""
    return t <= t0 + EVENT_RTOL * max(1.0, abs(t0))


@dataclass(frozen=True)
class Decision:
    """The allocation chosen at one event: ``alloc[i]`` processors for application ``i`` (0 for
    an application that has ended). The first decision, at ``time = 0``, is the initial one."""

    time: float
    alloc: tuple[int, ...]


@dataclass(frozen=True)
class Segment:
    """A piece of one application's timeline: ``kind`` is ``"compute"`` or ``"redistribute"``
    (the ``S`` seconds after a change, holding the new count ``procs``)."""

    kind: str
    start: float
    end: float
    procs: int


@dataclass(frozen=True)
class Event:
    """One decision point of a replay: the applications that ended at ``time`` (none at time 0),
    those still running, those of them still redistributing (frozen), and the allocation before
    and after the decision (0 for an application not running)."""

    time: float
    ended: tuple[int, ...]
    running: tuple[int, ...]
    frozen: tuple[int, ...]
    before: tuple[int, ...]
    after: tuple[int, ...]


@dataclass(frozen=True)
class Replay:
    """What a decision list does: the makespan, each application's end and timeline, and the
    events (decision points) in order."""

    makespan: float
    ends: tuple[float, ...]
    timeline: tuple[tuple[Segment, ...], ...]
    events: tuple[Event, ...]

    @property
    def redistributions(self) -> int:
        """How many times an application changed its count (each paid ``S``)."""
        return sum(1 for line in self.timeline for s in line if s.kind == "redistribute")


@dataclass(frozen=True)
class RedistributionSchedule:
    """A solution: one decision per event (``decisions[0]`` at time 0) and its replay."""

    decisions: tuple[Decision, ...]
    start: float
    replay: Replay

    @property
    def makespan(self) -> float:
        return self.replay.makespan


# ---------------------------------------------------------------------------------- replay


def _check_alloc(pack: MalleablePack, e: int, d: Decision, t: float, running: Sequence[int],
                 frozen: Sequence[int], before: Sequence[int]) -> None:
    n, P = pack.n, pack.p_even
    if len(d.alloc) != n:
        raise InvalidSchedule(f"event {e}: the allocation has {len(d.alloc)} entries for {n} applications")
    if abs(d.time - t) > _MATCH_RTOL * max(1.0, abs(t)):
        raise InvalidSchedule(f"event {e}: decision at time {d.time!r} but the event happens at {t!r}")
    run = set(running)
    kmin = _kmin(pack)
    for i, k in enumerate(d.alloc):
        if i not in run:
            if k != 0:
                raise InvalidSchedule(f"event {e}: application {i} is not running but gets {k} processors")
            continue
        if isinstance(k, bool) or int(k) != k or k % 2 or k < kmin[i]:
            raise InvalidSchedule(f"event {e}: application {i} gets {k!r} processors; it needs an even "
                                  f"number >= {kmin[i]}")
    for i in frozen:
        if d.alloc[i] != before[i]:
            raise InvalidSchedule(f"event {e}: application {i} is still redistributing and cannot change "
                                  f"from {before[i]} to {d.alloc[i]} processors")
    if sum(d.alloc) > P:
        raise InvalidSchedule(f"event {e}: {sum(d.alloc)} processors allocated but only {P} usable")


def replay(pack: MalleablePack, decisions: Sequence[Decision], start: float = 0.0) -> Replay:
    """The makespan and timeline of a decision list under the semantics of the module docstring.

    ``decisions[0]`` is the initial allocation (time 0); ``decisions[e]`` the allocation chosen at
    the ``e``-th end event. A list shorter than the number of events keeps the last allocation
    (no change) at the remaining events. An invalid decision (odd or too small count, too many
    processors, a change of an application still redistributing, a time that is not its event's,
    more decisions than events) raises :class:`~coschedule.errors.InvalidSchedule`.

    Written for clarity, independently of the search: a plain event loop, ``O(n^2)`` per
    decision list.
    """
    pack = as_pack(pack)
    S = _check_start(start)
    n = pack.n
    decisions = list(decisions)
    if not decisions:
        raise InvalidSchedule("no initial allocation (decisions[0])")
    alive = list(range(n))
    _check_alloc(pack, 0, decisions[0], 0.0, alive, [], [0] * n)
    k = [int(x) for x in decisions[0].alloc]
    alpha = [1.0] * n
    resume = [0.0] * n  # when the application computes (again)
    segs: list[list[tuple[str, float, float, int]]] = [[] for _ in range(n)]
    ends = [math.nan] * n
    events = [Event(0.0, (), tuple(alive), (), (0,) * n, tuple(k))]
    t = 0.0
    while alive:
        fin = {i: max(resume[i], t) + alpha[i] * float(pack.time(i, k[i])) for i in alive}
        t_next = min(fin.values())
        ended = [i for i in alive if _same_instant(fin[i], t_next)]
        for i in alive:  # progress up to t_next (the ending ones: to their end)
            a = max(resume[i], t)
            if i in ended:
                if fin[i] > a:
                    segs[i].append(("compute", a, fin[i], k[i]))
                ends[i] = fin[i]
                alpha[i] = 0.0
            elif t_next > a:
                alpha[i] -= (t_next - a) / float(pack.time(i, k[i]))
                segs[i].append(("compute", a, t_next, k[i]))
        t = t_next
        alive = [i for i in alive if i not in ended]
        if not alive:
            break
        before = [k[i] if i in alive else 0 for i in range(n)]
        frozen = [i for i in alive if not _same_instant(resume[i], t)]
        e = len(events)
        if e < len(decisions):
            d = decisions[e]
            _check_alloc(pack, e, d, t, alive, frozen, before)
            after = [int(x) for x in d.alloc]
        else:
            after = list(before)
        for i in alive:
            if after[i] != k[i]:
                if resume[i] > t and segs[i] and segs[i][-1][0] == "redistribute":
                    kind, s0, _, q = segs[i][-1]
                    segs[i][-1] = (kind, s0, t, q)  # ended within EVENT_RTOL of t
                segs[i].append(("redistribute", t, t + S, after[i]))
                resume[i] = t + S
                k[i] = after[i]
        events.append(Event(t, tuple(ended), tuple(alive), tuple(frozen), tuple(before),
                            tuple(after)))
    if len(decisions) > len(events):
        raise InvalidSchedule(f"{len(decisions)} decisions for {len(events)} events")
    timeline = tuple(tuple(Segment(*s) for s in line) for line in segs)
    return Replay(max(ends), tuple(ends), timeline, tuple(events))


# ------------------------------------------------------------------------ the exact search


def _check_start(start: float) -> float:
    if isinstance(start, bool) or not isinstance(start, (int, float)) or not math.isfinite(start) or start < 0:
        raise InvalidInstance(f"redistribution start-up S must be a finite number >= 0, got {start!r}")
    return float(start)


def _check_size(pack: MalleablePack) -> None:
    if pack.n > MAX_N:
        raise InvalidInstance(f"the exact redistribution search is limited to n <= {MAX_N} applications "
                              f"(got {pack.n})")
    if pack.p_even > MAX_P:
        raise InvalidInstance(f"the exact redistribution search is limited to p <= {MAX_P} processors "
                              f"(got {pack.p})")


def no_redistribution_optimum(pack: MalleablePack) -> tuple[float, tuple[int, ...]]:
    """``min max_i t_{i,k_i}`` over every even allocation (``k_i >= min_procs_i``, ``sum <= P``)
    and one minimiser (the first in :func:`~coschedule.redistribution.even_allocations`
    order): the makespan without redistribution, by enumeration."""
    pack = as_pack(pack)
    best, arg = math.inf, tuple(_kmin(pack))
    for a in even_allocations(pack.n, pack.p_even, _kmin(pack)):
        v = max(float(pack.time(i, k)) for i, k in enumerate(a))
        if v < best:
            best, arg = v, a
    return best, arg


@cache
def _pair_allocations(umin: tuple[int, ...], budget: int) -> tuple[tuple[int, ...], ...]:
    """Every pair allocation ``u_j >= umin_j`` with ``sum u <= budget``."""
    ks = even_allocations(len(umin), 2 * budget, [2 * u for u in umin])
    return tuple(tuple(k // 2 for k in a) for a in ks)


class _Cut(Exception):
    """The deadline stopped the search; ``bound`` is a valid lower bound on the unexplored part."""

    def __init__(self, bound: float, step: str) -> None:
        super().__init__(step)
        self.bound = bound
        self.step = step


@dataclass
class _Child:
    lb: float
    ub: float
    t2: float
    u: tuple[int, ...]          # pairs per running application (parallel to apps)
    resume: tuple[float, ...]
    alpha2: tuple[float, ...]   # remaining fraction at t2
    fin: tuple[float, ...]      # end if never changed again
    done2: float                # latest end of an application ended by t2
    leaf: bool


class _Search:
    def __init__(self, pack: MalleablePack, S: float, deadline: Deadline) -> None:
        self.pack = pack
        self.S = S
        self.deadline = deadline
        self.n = pack.n
        self.Q = pack.p_even // 2
        self.P = float(pack.p_even)
        Q = self.Q
        self.umin = [k // 2 for k in _kmin(pack)]
        # T[i][u]: time on 2u processors (inf below min_procs). An application may get every
        # processor once the others have ended, so its bounds range over all even counts:
        # tmin[i], wmin[i] its smallest time and work, lines[i] the lower convex envelope of the
        # points (rate 1/t_{i,2u}, 2u) and the origin (idle), as supporting lines (c0, c1): the
        # least processor density that sustains an average rate rho is max(c0 + c1 rho)
        self.T = [[float(pack.time(i, 2 * u)) if u >= self.umin[i] else math.inf for u in range(Q + 1)]
                  for i in range(self.n)]
        self.tmin = [min(row) for row in self.T]
        self.wmin = [min(2 * u * x for u, x in enumerate(row) if math.isfinite(x)) for row in self.T]
        self.lines = [self._envelope(i) for i in range(self.n)]
        self.best = math.inf
        self.best_path: list[Decision] = []
        self.nodes = 0
        self.fluid_cuts = 0

    def _child(self, t: float, apps: Sequence[int], alpha: Sequence[float], u: tuple[int, ...],
               resume: tuple[float, ...], done: float) -> _Child:
        """Bounds of the state just after a decision at ``t`` (module docstring)."""
        T, S = self.T, self.S
        fin = tuple(max(r, t) + a * T[i][x] for i, a, x, r in zip(apps, alpha, u, resume))
        ub = max(done, max(fin))
        t2 = min(fin)
        ending = [_same_instant(f, t2) for f in fin]
        done2 = max([done] + [f for f, e in zip(fin, ending) if e])
        if all(ending):
            return _Child(ub, ub, t2, u, resume, (), fin, done2, True)
        lb = done2
        area = 0.0
        alpha2 = []
        for i, a, x, r, f, e in zip(apps, alpha, u, resume, fin, ending):
            if e:
                alpha2.append(0.0)
                continue
            a0 = max(r, t)
            a2 = a - max(0.0, t2 - a0) / T[i][x]
            alpha2.append(a2)
            tt = max(t2, r)
            att = a - max(0.0, tt - a0) / T[i][x]
            lb = max(lb, min(f, tt + S + att * self.tmin[i]))
            area += a2 * self.wmin[i] + 2 * x * max(0.0, r - t2)
        lb = max(lb, t2 + area / self.P)
        return _Child(max(lb, t2), ub, t2, u, resume, tuple(alpha2), fin, done2, False)

    def _envelope(self, i: int) -> tuple[tuple[float, float], ...]:
        pts = sorted({(1.0 / self.T[i][u], 2.0 * u) for u in range(self.umin[i], self.Q + 1)})
        hull: list[tuple[float, float]] = [(0.0, 0.0)]
        for q in pts:
            while len(hull) >= 2:
                (x1, y1), (x2, y2) = hull[-2], hull[-1]
                if (x2 - x1) * (q[1] - y1) - (y2 - y1) * (q[0] - x1) <= 0:  # hull[-1] not below
                    hull.pop()
                else:
                    break
            if q[0] > hull[-1][0]:
                hull.append(q)
        out = []
        for (x1, y1), (x2, y2) in itertools.pairwise(hull):
            c1 = (y2 - y1) / (x2 - x1)
            out.append((y1 - c1 * x1, c1))
        return tuple(out)

    def _fluid_exceeds(self, apps: Sequence[int], c: _Child, T_: float) -> bool:
        """True if no continuation of child ``c`` ends by ``T_``: the processor area the survivors
        need after ``t2`` exceeds ``P (T_ - t2)`` (fluid relaxation, module docstring)."""
        t2, S = c.t2, self.S
        if T_ <= t2:
            return True
        ending = [_same_instant(f, t2) for f in c.fin]
        cap = self.P * (T_ - t2)
        total = 0.0
        for i, x, r, f, e, a in zip(apps, c.u, c.resume, c.fin, ending, c.alpha2):
            if e:
                continue
            s = max(t2, r)
            keep = a * 2 * x * self.T[i][x] if f <= T_ else math.inf
            d = T_ - s - S
            if d > 0 and d >= a * self.tmin[i]:
                change = max(c0 * d + c1 * a for c0, c1 in self.lines[i])
            else:
                change = math.inf
            total += 2 * x * (s - t2) + min(keep, change)
            if total > cap:
                return True
        return False

    def _children(self, t: float, apps: Sequence[int], alpha: Sequence[float], u_old: Sequence[int],
                  resume: Sequence[float], frozen: Sequence[bool], done: float,
                  root: bool) -> list[_Child]:
        free = [j for j, f in enumerate(frozen) if not f]
        budget = self.Q - sum(x for x, f in zip(u_old, frozen) if f)
        out = []
        for choice in _pair_allocations(tuple(self.umin[apps[j]] for j in free), budget):
            u = list(u_old)
            r = list(resume)
            for j, x in zip(free, choice):
                if root:
                    u[j] = x
                elif x != u_old[j]:
                    u[j] = x
                    r[j] = t + self.S
            out.append(self._child(t, apps, alpha, tuple(u), tuple(r), done))
        return out

    def _decision(self, t: float, apps: Sequence[int], u: Sequence[int]) -> Decision:
        alloc = [0] * self.n
        for i, x in zip(apps, u):
            alloc[i] = 2 * x
        return Decision(t, tuple(alloc))

    def node(self, t: float, apps: list[int], alpha: Sequence[float], u_old: Sequence[int],
             resume: Sequence[float], done: float, path: list[Decision], root: bool = False) -> None:
        """Explore the decisions at ``t`` (pre-decision state), depth first."""
        self.nodes += 1
        frozen = [False] * len(apps) if root else [not _same_instant(r, t) for r in resume]
        kids = self._children(t, apps, alpha, u_old, resume, frozen, done, root)
        for c in kids:
            if c.ub < self.best:
                self.best = c.ub
                self.best_path = path + [self._decision(t, apps, c.u)]
        kids.sort(key=lambda c: (c.lb, c.ub))
        for idx, c in enumerate(kids):
            if c.leaf or c.lb >= self.best * (1.0 - _PRUNE_RTOL):
                continue
            if self.deadline.expired():
                raise _Cut(min(k.lb for k in kids[idx:]), "searching the redistribution decisions")
            if self._fluid_exceeds(apps, c, self.best * (1.0 - _PRUNE_RTOL)):
                self.fluid_cuts += 1
                continue
            keep = [j for j, f in enumerate(c.fin) if not _same_instant(f, c.t2)]
            sub_apps = [apps[j] for j in keep]
            try:
                self.node(c.t2, sub_apps, [c.alpha2[j] for j in keep], [c.u[j] for j in keep],
                          [c.resume[j] for j in keep], c.done2, path + [self._decision(t, apps, c.u)])
            except _Cut as cut:
                rest = [k.lb for k in kids[idx + 1:]]
                raise _Cut(min([cut.bound] + rest), cut.step) from None


def solve_redistribution(pack: MalleablePack, *, start: float = 0.0, time_limit: float | None = None,
                         deadline: Deadline | None = None) -> ExactResult:
    """The optimal redistribution schedule of one pack without failure (module docstring).

    Parameters
    ----------
    pack
        The applications (a :class:`~coschedule.redistribution.MalleablePack` or a moldable
        instance); at most ``MAX_N`` applications and ``MAX_P`` usable processors.
    start
        The constant redistribution cost ``S >= 0`` (seconds).
    time_limit, deadline
        Stop the search after ``time_limit`` seconds or at ``deadline`` (checked before every
        node explored); the call returns within ``time_limit + TIME_LIMIT_MARGIN``.

    Returns
    -------
    ExactResult
        ``OPTIMAL`` (within ``OPTIMAL_RTOL`` relative) when the search completed; ``FEASIBLE``
        with the best schedule found, a proved lower bound and ``info["time_limit_reached"]``
        when the limit stopped it. ``solution`` is a :class:`RedistributionSchedule` whose
        :func:`replay` makespan is ``objective``. ``info``: ``nodes`` explored, ``fluid_cuts``
        (children pruned by the fluid relaxation), ``no_redistribution`` (the best makespan
        without any change), ``redistributions`` (changes of count in the solution).

    >>> import numpy as np
    >>> pack = MalleablePack(p=6, memory=np.zeros(2), table=np.array([[12.0 / j for j in range(1, 7)]] * 2))
    >>> r = solve_redistribution(pack, start=1.0)
    >>> r.status.value, r.objective, r.info["no_redistribution"]
    ('optimal', 5.0, 6.0)
    """
    t0 = time.perf_counter()
    pack = as_pack(pack)
    S = _check_start(start)
    _check_size(pack)
    deadline = Deadline.after(time_limit, t0) if deadline is None else deadline
    search = _Search(pack, S, deadline)
    apps = list(range(pack.n))
    cut: _Cut | None = None
    try:
        search.node(0.0, apps, [1.0] * pack.n, [0] * pack.n, [0.0] * pack.n, 0.0, [], root=True)
    except _Cut as c:
        cut = c
    no_redist, _ = no_redistribution_optimum(pack)
    rep = replay(pack, search.best_path, S)
    decisions = tuple(Decision(e.time, e.after) for e in rep.events)
    rep = replay(pack, decisions, S)
    value = rep.makespan
    if abs(value - search.best) > OPTIMAL_RTOL * max(1.0, abs(value)):
        raise RuntimeError(f"internal error: the search found {search.best!r} but its schedule replays to "
                           f"{value!r}")
    solution = RedistributionSchedule(decisions, S, rep)
    info: dict[str, object] = {"nodes": search.nodes, "fluid_cuts": search.fluid_cuts,
                               "no_redistribution": no_redist, "redistributions": rep.redistributions}
    elapsed = time.perf_counter() - t0
    if cut is not None:
        info["time_limit_reached"] = f"time limit reached while {cut.step}"
        return ExactResult(Status.FEASIBLE, value, min(value, cut.bound), solution, "branch-and-bound",
                           "python", elapsed, tolerance=OPTIMAL_RTOL * max(1.0, abs(value)), info=info)
    return ExactResult(Status.OPTIMAL, value, value, solution, "branch-and-bound", "python", elapsed,
                       tolerance=OPTIMAL_RTOL * max(1.0, abs(value)), info=info)

