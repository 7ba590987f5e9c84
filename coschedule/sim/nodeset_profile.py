"""Conservative backfilling's plan on node *identities*: free nodes over time as node sets, the
profile batsched keeps ([Du2024] §5.1: the paper's simulations ran Batsim with the Batsched
scheduler, which "take[s] decisions on when and where (which nodes) to schedule a job").

Model
-----
``capacity`` nodes ``0 .. N-1``. From ``now`` on, breakpoints ``ts[0] = now < ts[1] < ...``
and, on ``[ts[i], ts[i+1])``, the *set* of free nodes, kept as sorted disjoint half-open
intervals ``[a, b)`` (procset's model; batsched's ``IntervalSet``), with its size ``fr[i]``.
An occupation takes a node set on ``[start, end)`` (a running job on its nodes until its start
plus wall time, a reservation, a down node until it comes back, the nodes a failed job keeps).

Earliest fit (batsched's ``Schedule::add_job_first_fit``): the first breakpoint ``s`` such that
the intersection of the free sets of the segments that meet ``[s, s + d)`` holds at least ``p``
nodes; the job gets the ``p`` lowest-index nodes of that intersection (batsched's basic resource
selector). A segment with fewer than ``p`` free nodes blocks every start whose window meets it
(the count profile's search, :func:`coschedule.sim.profile._earliest_fit`, skips them by the
same block summaries); a start whose window holds ``p`` free nodes in every segment but not ``p``
common to all of them is skipped for the next breakpoint, as batsched moves to the next anchor.
The earliest fit never falls on a breakpoint whose two sides have the same set (the one before
fits too), so :func:`_advance` merges those and the results do not depend on where such
breakpoints lie.

Against the count profile (:mod:`.profile`): a node-set fit is a count fit, never the other way
round; a plan that fits by counts can always be given nodes at start time, while here the nodes
are fixed when the reservation is made, so free nodes can stay idle that a count plan would
fill (fragmentation). With one node (or jobs of the whole platform) the two are the same.

Layout (shared by :class:`NodeSetProfile` and the compiled batch kernel,
:mod:`coschedule.heuristics.batch.nodeset_kernel`): ``ts`` (float64), ``fr`` (int64, the set
sizes), ``bsum`` (the count profile's block summaries of ``fr``), ``so``/``sl`` (each segment's
list: offset and number of int64 entries, two per interval, in ``pool``), ``meta`` (int64:
length, pool top). Lists are immutable once written (a split segment shares its list);
:func:`_ensure` compacts a pool when it is full. A set of job nodes given to an operation is a
flat list ``b, bo, bn`` (array, offset, entries) in the same format.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from coschedule.jit import njit

from .nodesets import (
    _iv_diff,
    _iv_inter,
    _iv_inter_size,
    _iv_lowest,
    _iv_same,
    _iv_size,
    _iv_union,
    intervals,
    nodes_of,
)
from .profile import (
    BLOCK,
    _earliest_fit,
    _first_at_least,
    _first_below,
    _lower_bound,
    _summarize,
    summary_size,
)

__all__ = ["NodeSetProfile", "intervals", "nodes_of"]

Intervals = tuple[tuple[int, int], ...]


# ------------------------------------------------------------------------------ pools
@njit(cache=True)
def _ensure(pool: np.ndarray, meta: np.ndarray, top: int, offs: np.ndarray, lens: np.ndarray, count: int,
            need: int) -> np.ndarray:
    """``pool`` with room for ``need`` more entries after ``meta[top]``: when full, the lists
    ``offs[:count]``/``lens[:count]`` are copied to a new pool (twice what they and ``need``
    take), consecutive owners of one list keeping one copy."""
    if meta[top] + need <= pool.shape[0]:
        return pool
    live = 0
    for y in range(count):
        if y == 0 or offs[y] != offs[y - 1] or lens[y] != lens[y - 1]:
            live += lens[y]
    new = np.empty(max(2 * (live + need), 64), dtype=np.int64)
    w = 0
    prev = -1
    for y in range(count):
        if y > 0 and offs[y] == prev and lens[y] == lens[y - 1]:
            offs[y] = offs[y - 1]
            continue
        prev = offs[y]
        for z in range(lens[y]):
            new[w + z] = pool[prev + z]
        offs[y] = w
        w += lens[y]
    meta[top] = w
    return new


# ------------------------------------------------------------------------------ profile kernels
@njit(cache=True)
def _init(ts, fr, so, sl, meta, pool, now: float, capacity: int) -> None:  # type: ignore[no-untyped-def]
    """All ``capacity`` nodes free from ``now`` (the pool needs two entries)."""
    ts[0] = now
    fr[0] = capacity
    pool[0] = 0
    pool[1] = capacity
    so[0] = 0
    sl[0] = 2 if capacity > 0 else 0
    meta[0] = 1
    meta[1] = 2


@njit(cache=True)
def _split(ts, fr, so, sl, length: int, t: float) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """Make ``t > ts[0]`` (finite) a breakpoint (a new one splits the segment before it, sharing
    its list); returns its index and the new length."""
    k = _lower_bound(ts, length, t)
    if k < length and ts[k] == t:
        return k, length
    for x in range(length, k, -1):
        ts[x] = ts[x - 1]
        fr[x] = fr[x - 1]
        so[x] = so[x - 1]
        sl[x] = sl[x - 1]
    ts[k] = t
    fr[k] = fr[k - 1]
    so[k] = so[k - 1]
    sl[k] = sl[k - 1]
    return k, length + 1


@njit(cache=True)
def _change(ts, fr, bsum, so, sl, meta, pool, start: float, end: float,  # type: ignore[no-untyped-def]
            b: np.ndarray, bo: int, bn: int, release: bool) -> np.ndarray:
    """Occupy (``release`` false) or give back the nodes ``b[bo : bo + bn]`` on
    ``[max(start, ts[0]), end)`` (``end`` may be ``inf``); returns the pool (the arrays need room
    for two more breakpoints)."""
    length = meta[0]
    if end <= ts[0] or end <= start:
        return pool
    i = 0
    if start > ts[0]:
        i, length = _split(ts, fr, so, sl, length, start)
    k = length
    if end < math.inf:
        k, length = _split(ts, fr, so, sl, length, end)
    meta[0] = length
    need = 0
    for x in range(i, k):
        need += sl[x] + bn + 2
    pool = _ensure(pool, meta, 1, so, sl, length, need)
    top = meta[1]
    src = -1
    srcn = -1
    dst = 0
    dstn = 0
    for x in range(i, k):
        if so[x] == src and sl[x] == srcn:  # the list of the segment before: the same result
            so[x] = dst
            sl[x] = dstn
            fr[x] = fr[x - 1]
            continue
        src = so[x]
        srcn = sl[x]
        if release:
            m = _iv_union(pool, src, srcn, b, bo, bn, pool, top)
        else:
            m = _iv_diff(pool, src, srcn, b, bo, bn, pool, top)
        dst = top
        dstn = m
        so[x] = top
        sl[x] = m
        fr[x] = _iv_size(pool, top, m)
        top += m
    meta[1] = top
    if length >= BLOCK:
        _summarize(fr, length, bsum, i, length)
    return pool


@njit(cache=True)
def _of_occupations(ts, fr, bsum, so, sl, meta, pool, now: float, capacity: int,  # type: ignore[no-untyped-def]
                    ends, ipool, ioff, ilen, count: int, sa: np.ndarray, sb: np.ndarray) -> np.ndarray:
    """The profile from ``now`` of ``count`` node-disjoint occupations that all start then:
    occupation ``k`` holds ``ipool[ioff[k] : ioff[k] + ilen[k]]`` until ``ends[k]`` (over if not
    after ``now``; ``inf``: for good). The profile :func:`_change` gives from ``now`` for each,
    in one pass: the free set now, then at each distinct end the nodes freed added. Returns the
    pool (its old lists dropped)."""
    cur = sa
    other = sb
    n = 0
    for k in range(count):
        if ends[k] > now:
            n = _iv_union(cur, 0, n, ipool, ioff[k], ilen[k], other, 0)
            cur, other = other, cur
    m = 0  # the complement: free now
    lo = 0
    for y in range(0, n, 2):
        if cur[y] > lo:
            other[m] = lo
            other[m + 1] = cur[y]
            m += 2
        lo = cur[y + 1]
    if lo < capacity:
        other[m] = lo
        other[m + 1] = capacity
        m += 2
    cur, other = other, cur
    n = m
    meta[1] = 0
    length = 0
    order = np.argsort(ends[:count], kind="mergesort")
    x = 0
    t = now
    while True:
        meta[0] = length
        pool = _ensure(pool, meta, 1, so, sl, length, n)
        top = meta[1]
        for y in range(n):
            pool[top + y] = cur[y]
        ts[length] = t
        so[length] = top
        sl[length] = n
        fr[length] = _iv_size(cur, 0, n)
        meta[1] = top + n
        length += 1
        while x < count and ends[order[x]] <= now:
            x += 1
        if x == count or ends[order[x]] == math.inf:
            break
        t = ends[order[x]]
        while x < count and ends[order[x]] == t:
            k = order[x]
            n = _iv_union(cur, 0, n, ipool, ioff[k], ilen[k], other, 0)
            cur, other = other, cur
            x += 1
    meta[0] = length
    if length >= BLOCK:
        _summarize(fr, length, bsum, 0, length)
    return pool


@njit(cache=True)
def _window(ts, so, sl, length: int, pool, i: int, end: float, p: int,  # type: ignore[no-untyped-def]
            sa: np.ndarray, sb: np.ndarray, hi: int) -> tuple[np.ndarray, int]:
    """The intersection of the free sets of segments ``i ..`` that start before ``end``, of
    nodes below ``hi``, in ``sa`` or ``sb`` (returned with its entries); it stops early, below
    ``p`` nodes."""
    o = so[i]
    n = 0
    for y in range(0, sl[i], 2):
        if pool[o + y] >= hi:
            break
        sa[n] = pool[o + y]
        sa[n + 1] = min(pool[o + y + 1], hi)
        n += 2
    cur = sa
    other = sb
    y = i + 1
    while y < length and ts[y] < end and n > 0:
        if so[y] != so[y - 1] or sl[y] != sl[y - 1]:
            n = _iv_inter(cur, 0, n, pool, so[y], sl[y], other, 0)
            cur, other = other, cur
            if p > 1 and _iv_size(cur, 0, n) < p:
                return cur, n
        y += 1
    return cur, n


@njit(cache=True)
def _fit(ts, fr, bsum, so, sl, length: int, pool, p: int, d: float,  # type: ignore[no-untyped-def]
         sa: np.ndarray, sb: np.ndarray, out: np.ndarray) -> tuple[int, int]:
    """The earliest fit (module docstring): the breakpoint's index and, in ``out``, the ``p``
    lowest nodes of the intersection (its entries); ``(-1, 0)`` when none."""
    x = 0
    while True:
        i = _first_at_least(fr, length, bsum, x, p)
        if i == length:
            return -1, 0
        end = ts[i] + d
        k = _first_below(ts, fr, length, bsum, i + 1, p, end)
        if k < length:  # a segment with fewer than p nodes blocks every start up to it
            x = k + 1
            continue
        cur, n = _window(ts, so, sl, length, pool, i, end, p, sa, sb, 1 << 62)
        if _iv_size(cur, 0, n) >= p:
            return i, _iv_lowest(cur, 0, n, p, out, 0)
        x = i + 1


@njit(cache=True)
def _advance(ts, fr, bsum, so, sl, meta, pool, now: float) -> None:  # type: ignore[no-untyped-def]
    """Start the profile at ``now`` (``>= ts[0]``), drop the past, merge breakpoints whose two
    sides have the same set."""
    length = meta[0]
    z = _lower_bound(ts, length, now)
    if z == length or ts[z] > now:
        z -= 1
    ts[0] = now
    fr[0] = fr[z]
    so[0] = so[z]
    sl[0] = sl[z]
    out = 1
    for x in range(z + 1, length):
        if not _iv_same(pool, so[x], sl[x], pool, so[out - 1], sl[out - 1]):
            ts[out] = ts[x]
            fr[out] = fr[x]
            so[out] = so[x]
            sl[out] = sl[x]
            out += 1
    meta[0] = out
    if out >= BLOCK:
        _summarize(fr, out, bsum, 0, out)


@njit(cache=True)
def _reserve(ts, fr, bsum, so, sl, meta, pool, j: int, p: int, d: float,  # type: ignore[no-untyped-def]
             roff, rlen, rpool, rmeta, sa, sb, sc) -> tuple[float, np.ndarray, np.ndarray]:
    """Job ``j`` (slot of ``roff``/``rlen``) at its earliest fit, its nodes in ``rpool``;
    returns its start (``inf``: never, nothing reserved) and the two pools."""
    i, m = _fit(ts, fr, bsum, so, sl, meta[0], pool, p, d, sa, sb, sc)
    if i < 0:
        rlen[j] = 0
        return math.inf, pool, rpool
    s = ts[i]
    rpool = _ensure(rpool, rmeta, 0, roff, rlen, roff.shape[0], m)
    top = rmeta[0]
    for y in range(m):
        rpool[top + y] = sc[y]
    roff[j] = top
    rlen[j] = m
    rmeta[0] = top + m
    pool = _change(ts, fr, bsum, so, sl, meta, pool, s, s + d, rpool, top, m, False)
    return s, pool, rpool


@njit(cache=True)
def _place(ts, fr, bsum, so, sl, meta, pool, jobs, procs, durations, starts,  # type: ignore[no-untyped-def]
           roff, rlen, rpool, rmeta, sa, sb, sc) -> tuple[np.ndarray, np.ndarray]:
    """Each job ``jobs[y]`` in order at its earliest fit, reserved before the next one (the
    count profile's :func:`~coschedule.sim.profile._place`); returns the two pools."""
    for y in range(jobs.shape[0]):
        starts[y], pool, rpool = _reserve(ts, fr, bsum, so, sl, meta, pool, jobs[y], procs[y], durations[y],
                                          roff, rlen, rpool, rmeta, sa, sb, sc)
    return pool, rpool


@njit(cache=True)
def _fits_without(ts, so, sl, length: int, pool, i: int, s: float, p: int, d: float,  # type: ignore[no-untyped-def]
                  b: np.ndarray, bo: int, bn: int, sa: np.ndarray, sb: np.ndarray, sc: np.ndarray) -> bool:
    """Whether ``p`` nodes are free on all of ``[ts[i], ts[i] + d)`` (``ts[i] < s``) once the
    reservation of the nodes ``J = b[bo : bo + bn]`` on ``[s, s + d)`` is given back, the profile
    left as it is: the nodes free on the segments of the window that start before ``s`` (``A``),
    and on those from ``s`` on (``C``, which gain ``J``): ``|A & (C | J)| = |A & C| + |A & J|``
    (``C`` and ``J`` are disjoint)."""
    end = ts[i] + d
    cur, n = _window(ts, so, sl, length, pool, i, min(s, end), p, sa, sb, 1 << 62)
    if _iv_size(cur, 0, n) < p:
        return False
    k = _lower_bound(ts, length, s)
    if k == length or ts[k] >= end:  # no segment starts in [s, end)
        return True
    sc[:n] = cur[:n]
    got = _iv_inter_size(sc, 0, n, b, bo, bn)
    if got >= p:
        return True
    cur2, n2 = _window(ts, so, sl, length, pool, k, end, 1, sa, sb, 1 << 62)
    return got + _iv_inter_size(sc, 0, n, cur2, 0, n2) >= p


@njit(cache=True)
def _compress(ts, fr, bsum, so, sl, meta, pool, jobs, procs, durations, starts,  # type: ignore[no-untyped-def]
              roff, rlen, rpool, rmeta, sa, sb, sc) -> tuple[np.ndarray, np.ndarray]:
    """Conservative backfilling's compression as batsched does it (``make_decisions``: each
    waiting job in order taken out and added again first fit, [Du2024] §4.1), in the count
    profile's order and tie rules (:func:`~coschedule.sim.profile._compress`): a reservation
    at or before now, or none, stays. It comes back no later (its own nodes fit where it was),
    perhaps on other nodes.

    Most jobs come back where they were, and those are left as they are, without the take-out
    and the put-back (each rewrites the lists of every segment of the window). Job ``j`` (``p``
    nodes for ``d`` at ``s`` on ``J``), once out, can start at a breakpoint ``t < s`` only if
    ``p`` nodes are free *by count* on ``[t, min(t + d, s))``: on ``[s, t + d)`` its own nodes
    come back. Those breakpoints are the count profile's earliest fits bounded at ``s`` (as the
    count plan's compression finds them, :func:`coschedule.heuristics.batch.engine._compress_moving`)
    on the profile as it is, in :func:`_fit`'s order; at each, :func:`_fits_without` asks whether
    the nodes fit too. When none does, it comes back at ``s`` on the ``p`` lowest nodes of
    ``W | J``, ``W`` the nodes free on all of its window (the free sets there gain ``J``): its
    own nodes when ``W`` has none below its highest one. Every other job is taken out and put
    back where that search found it (the breakpoint :func:`_fit` would find: the same candidates
    in the same order). Returns the two pools."""
    for y in range(jobs.shape[0]):
        s = starts[y]
        j = jobs[y]
        p = procs[y]
        d = durations[y]
        length = meta[0]
        if s <= ts[0] or s == math.inf:
            continue
        x = 0
        while True:  # the breakpoints before s where it fits by count, in _fit's order
            i = _earliest_fit(ts, fr, length, bsum, p, d, x, s, s)
            if i < 0 or ts[i] >= s or _fits_without(ts, so, sl, length, pool, i, s, p, d, rpool, roff[j], rlen[j],
                                                    sa, sb, sc):
                break
            x = i + 1
        if i < 0 or ts[i] >= s:  # no earlier start on nodes
            k = _lower_bound(ts, length, s)
            if k == length or ts[k] > s:
                k -= 1  # the segment holding s
            _, n = _window(ts, so, sl, length, pool, k, s + d, 1, sa, sb, rpool[roff[j] + rlen[j] - 1])
            if n == 0:  # no free node of its window below its highest one
                continue
        s2 = ts[i] if i >= 0 and ts[i] < s else s  # where _fit puts it once out (the same order)
        pool = _change(ts, fr, bsum, so, sl, meta, pool, s, s + d, rpool, roff[j], rlen[j], True)
        i = _lower_bound(ts, meta[0], s2)  # (the take-out splits at s and after only)
        cur, n = _window(ts, so, sl, meta[0], pool, i, s2 + d, p, sa, sb, 1 << 62)
        m = _iv_lowest(cur, 0, n, p, sc, 0)
        starts[y] = s2
        if not _iv_same(sc, 0, m, rpool, roff[j], rlen[j]):
            rpool = _ensure(rpool, rmeta, 0, roff, rlen, roff.shape[0], m)
            top = rmeta[0]
            for z in range(m):
                rpool[top + z] = sc[z]
            roff[j] = top
            rlen[j] = m
            rmeta[0] = top + m
        pool = _change(ts, fr, bsum, so, sl, meta, pool, s2, s2 + d, rpool, roff[j], m, False)
    return pool, rpool


# ------------------------------------------------------------------------------ the class
def _pairs(flat: np.ndarray) -> Intervals:
    return tuple((int(flat[y]), int(flat[y + 1])) for y in range(0, flat.shape[0], 2))


class NodeSetProfile:
    """Free node sets over ``[now, inf)`` (module docstring); ``capacity`` nodes, all free at
    first.

    >>> prof = NodeSetProfile(4)
    >>> prof.add(0.0, 10.0, [1, 2])          # a running job on nodes 1-2 until t = 10
    >>> prof.earliest_fit(2, 5.0)            # nodes 0 and 3 are free, not adjacent
    (0.0, ((0, 1), (3, 4)))
    >>> prof.earliest_fit(3, 5.0)
    (10.0, ((0, 3),))
    >>> prof.steps()
    [(0.0, ((0, 1), (3, 4))), (10.0, ((0, 4),))]
    """

    __slots__ = ("_bsum", "_fr", "_meta", "_pool", "_sl", "_so", "_ts", "capacity")

    def __init__(self, capacity: int, now: float = 0.0, *, size_hint: int = 64) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = int(capacity)
        room = max(int(size_hint), 8)
        self._ts = np.empty(room)
        self._fr = np.empty(room, dtype=np.int64)
        self._so = np.empty(room, dtype=np.int64)
        self._sl = np.empty(room, dtype=np.int64)
        self._bsum = np.empty(summary_size(room), dtype=np.int64)
        self._pool = np.empty(64, dtype=np.int64)
        self._meta = np.zeros(2, dtype=np.int64)
        _init(self._ts, self._fr, self._so, self._sl, self._meta, self._pool, float(now), self.capacity)

    @classmethod
    def of_occupations(cls, capacity: int, now: float,
                       occupations: Iterable[tuple[float, Iterable[int]]]) -> NodeSetProfile:
        """The profile at ``now`` of node-disjoint occupations ``(end, nodes)`` that all start
        then (running jobs, down nodes, held nodes; ``end`` not after ``now``: over, ``inf``:
        for good), in one compiled pass (:func:`_of_occupations`); the same profile as
        :meth:`add` from ``now`` for each.

        >>> NodeSetProfile.of_occupations(4, 1.0, [(5.0, [0, 1]), (3.0, [3])]).steps()
        [(1.0, ((2, 3),)), (3.0, ((2, 4),)), (5.0, ((0, 4),))]
        """
        items = [(float(e), intervals(nodes)) for e, nodes in occupations]
        prof = cls(capacity, now, size_hint=len(items) + 8)
        ends = np.array([e for e, _ in items], dtype=np.float64)
        ilen = np.array([iv.shape[0] for _, iv in items], dtype=np.int64)
        ioff = np.concatenate(([0], np.cumsum(ilen)[:-1])).astype(np.int64) if items else ilen
        ipool = np.concatenate([iv for _, iv in items] + [np.zeros(2, dtype=np.int64)])
        prof._pool = _of_occupations(prof._ts, prof._fr, prof._bsum, prof._so, prof._sl, prof._meta, prof._pool,
                                     float(now), prof.capacity, ends, ipool, ioff, ilen, len(items),
                                     *prof._scratch()[:2])
        return prof

    def _room(self, extra: int) -> None:
        length = int(self._meta[0])
        if length + extra <= self._ts.shape[0]:
            return
        room = max(length + extra, 2 * self._ts.shape[0])
        for name in ("_ts", "_fr", "_so", "_sl"):
            old = getattr(self, name)
            new = np.empty(room, dtype=old.dtype)
            new[:length] = old[:length]
            setattr(self, name, new)
        self._bsum = np.empty(summary_size(room), dtype=np.int64)
        _summarize(self._fr, length, self._bsum, 0, length)

    def _scratch(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        size = self.capacity + 4
        return (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64))

    @property
    def now(self) -> float:
        """The start of the profile."""
        return float(self._ts[0])

    def __len__(self) -> int:
        """The number of segments."""
        return int(self._meta[0])

    def steps(self) -> list[tuple[float, Intervals]]:
        """``(start, free nodes as intervals)`` of every segment, in order."""
        return [(float(self._ts[x]), _pairs(self._pool[self._so[x]: self._so[x] + self._sl[x]]))
                for x in range(len(self))]

    def free_at(self, t: float) -> Intervals:
        """The free nodes at instant ``t >= now``."""
        length = len(self)
        k = _lower_bound(self._ts, length, float(t))
        if k == length or self._ts[k] > t:
            k -= 1
        k = max(k, 0)
        return _pairs(self._pool[self._so[k]: self._so[k] + self._sl[k]])

    def __repr__(self) -> str:
        return f"NodeSetProfile(capacity={self.capacity}, now={self.now}, segments={len(self)})"

    # -------------------------------------------------------------- changes
    def advance(self, now: float) -> None:
        """Move the start to ``now`` (never back) and forget the past."""
        now = float(now)
        if now < self._ts[0]:
            raise ValueError(f"the profile cannot go back in time: now = {self.now}, asked {now}")
        _advance(self._ts, self._fr, self._bsum, self._so, self._sl, self._meta, self._pool, now)

    def _change(self, start: float, end: float, nodes: Iterable[int], release: bool) -> None:
        iv = intervals(nodes)
        self._room(2)
        self._pool = _change(self._ts, self._fr, self._bsum, self._so, self._sl, self._meta, self._pool,
                             float(start), float(end), iv, 0, iv.shape[0], release)

    def add(self, start: float, end: float, nodes: Iterable[int]) -> None:
        """Occupy ``nodes`` (ids) on ``[start, end)`` (the part before ``now`` is ignored; ``end``
        may be ``inf``)."""
        self._change(start, end, nodes, False)

    def remove(self, start: float, end: float, nodes: Iterable[int]) -> None:
        """Give back an occupation made by :meth:`add` with the same arguments."""
        self._change(start, end, nodes, True)

    # -------------------------------------------------------------- questions
    def earliest_fit(self, p: int, d: float) -> tuple[float, Intervals]:
        """The earliest start ``s >= now`` with ``p`` nodes free on all of ``[s, s + d)`` and
        the ``p`` lowest of them; ``(inf, ())`` when none."""
        sa, sb, sc = self._scratch()
        i, m = _fit(self._ts, self._fr, self._bsum, self._so, self._sl, len(self), self._pool, int(p), float(d),
                    sa, sb, sc)
        return (math.inf, ()) if i < 0 else (float(self._ts[i]), _pairs(sc[:m]))

    # -------------------------------------------------------------- passes
    def _jobs(self, procs: Sequence[int] | np.ndarray, durations: Sequence[float] | np.ndarray,
              sets: Sequence[Intervals] | None) -> tuple:
        p = np.ascontiguousarray(procs, dtype=np.int64)
        d = np.ascontiguousarray(durations, dtype=np.float64)
        q = p.shape[0]
        roff = np.zeros(q, dtype=np.int64)
        rlen = np.zeros(q, dtype=np.int64)
        flat = [np.asarray(s, dtype=np.int64).reshape(-1) for s in sets] if sets is not None else []
        rpool = np.empty(max(sum(f.shape[0] for f in flat), 16), dtype=np.int64)
        rmeta = np.zeros(1, dtype=np.int64)
        for y, f in enumerate(flat):
            roff[y], rlen[y] = rmeta[0], f.shape[0]
            rpool[rmeta[0]: rmeta[0] + f.shape[0]] = f
            rmeta[0] += f.shape[0]
        self._room(4 * q + 2)
        return np.arange(q, dtype=np.int64), p, d, roff, rlen, rpool, rmeta

    def place(self, procs: Sequence[int] | np.ndarray, durations: Sequence[float] | np.ndarray
              ) -> tuple[np.ndarray, list[Intervals]]:
        """Reserve each job, in order, at its earliest fit on its nodes (conservative
        backfilling's plan); returns the starts (``inf``: never fits, nothing reserved) and the
        node sets."""
        jobs, p, d, roff, rlen, rpool, rmeta = self._jobs(procs, durations, None)
        starts = np.empty(p.shape[0])
        self._pool, rpool = _place(self._ts, self._fr, self._bsum, self._so, self._sl, self._meta, self._pool,
                                   jobs, p, d, starts, roff, rlen, rpool, rmeta, *self._scratch())
        return starts, [_pairs(rpool[roff[y]: roff[y] + rlen[y]]) for y in range(p.shape[0])]

    def compress(self, procs: Sequence[int] | np.ndarray, durations: Sequence[float] | np.ndarray,
                 starts: Sequence[float] | np.ndarray, sets: Sequence[Intervals]) -> tuple[np.ndarray, list[Intervals]]:
        """The compression of reservations made by :meth:`place` (``starts[j]`` for
        ``durations[j]`` on ``sets[j]``): in order, each taken out and added again at its
        earliest fit (:func:`_compress`); returns the new starts (each ``<=`` the old) and sets."""
        jobs, p, d, roff, rlen, rpool, rmeta = self._jobs(procs, durations, sets)
        out = np.array(starts, dtype=np.float64)
        self._pool, rpool = _compress(self._ts, self._fr, self._bsum, self._so, self._sl, self._meta, self._pool,
                                      jobs, p, d, out, roff, rlen, rpool, rmeta, *self._scratch())
        return out, [_pairs(rpool[roff[y]: roff[y] + rlen[y]]) for y in range(p.shape[0])]
