"""The one availability profile: free nodes over time as a step function, for every
reservation-based policy (R-List's reservations, FCFS, EASY and conservative backfilling, the
schedule recomputed after a failure).

Model
-----
``capacity`` identical nodes. From ``now`` on, the number of free nodes is a step function:
breakpoints ``ts[0] = now < ts[1] < ...`` and ``free[i]`` free nodes on ``[ts[i], ts[i+1])``;
the last segment is unbounded. An *occupation* takes ``p`` nodes on ``[start, end)`` (a running
job until its wall time, a reservation, a down node until it comes back); ``end`` may be
``inf`` (a node down for good). Only counts are kept, not node identities: for identical nodes
a plan that fits by counts is always realisable by nodes chosen when each job starts (jobs hold
their nodes on an interval; give each starting job any nodes free at its start, in start
order), so node identities are the engine's business, at start time.

Earliest fit
------------
``earliest_fit(p, d)`` is the first breakpoint ``s`` with at least ``p`` free nodes on all of
``[s, s + d)``. Only breakpoints need be tried (free capacity changes only there); when segment
``k`` blocks a start at ``ts[i]``, every start up to ``ts[k]`` overlaps it too, so the search
resumes after ``k``. Breakpoints whose two sides have the same value change no fit (a start
there would fit one breakpoint earlier), so :meth:`AvailabilityProfile.advance` merges them.

Searches bounded in time
------------------------
A policy that needs only the reservations starting before some instant may stop a search
there: ``earliest_fit(p, d, until=T)`` is the earliest fit when it is before ``T``, else a
breakpoint ``>= T`` that no fit precedes, a lower bound to resume from later. The kernel
(:func:`_earliest_fit`) also takes the index to resume from and a time ``known`` after which
the profile may still lose free nodes (occupations not added yet): windows are then checked
only before ``known``, and a fit is certain only when it ends by ``known``. R-List-Q's kernel
determines its reservations so, lazily
(:func:`coschedule.heuristics.fast.list_kernels._resolve`).

Speed
-----
The breakpoints sit in flat arrays, in order, summarised by blocks of :data:`BLOCK` entries:
``bsum[2 b]`` and ``bsum[2 b + 1]`` are the least and the most free nodes of block ``b``, kept
for full blocks only (the last, partial block is scanned; a profile shorter than a block keeps
no summary). The searches skip a block whose summary shows it holds no candidate (or no
blocker), from wherever they start in it, so a search costs ``O(L / BLOCK + BLOCK)`` per jump
rather than ``O(L)``, ``L`` the number of breakpoints; an insertion shifts the arrays (a memory
move) and refreshes the summaries after it, ``O(L)`` with a small constant. A change at a known
breakpoint (:func:`_add_at`, :func:`_fits_at`: a reservation at an earliest fit, or now) needs
no binary search: one pass over the segments it covers. The kernels are compiled by numba when
it is installed (:mod:`coschedule.jit`) and run as plain Python otherwise (same results,
slower). The passes of conservative backfilling (:meth:`~AvailabilityProfile.place`,
:meth:`~AvailabilityProfile.compress`) run a whole queue in one compiled call, and
:meth:`~AvailabilityProfile.of_running` builds the profile of running jobs in one. numba passes
each array to a compiled function as a structure of seven words: kernels called many times per
scheduling round take few arrays (one summary array, not two), and the builder of the running
jobs' profile is inlined into its callers.

Floats: a reservation at breakpoint ``s`` for ``d`` ends at ``s + d``, computed once, and its
removal recomputes the same sum, so occupations are added and removed exactly; node counts are
integers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from coschedule.jit import njit

__all__ = ["BLOCK", "AvailabilityProfile", "summary_size"]

#: entries per block of the summaries (the least and the most free nodes of each block)
BLOCK = 32
_SHIFT = 5  # BLOCK == 1 << _SHIFT: block arithmetic by shifts and masks (x >= 0)
_MASK = BLOCK - 1


@njit(cache=True)
def summary_size(room: int) -> int:
    """Length of the summary array ``bsum`` for profile arrays of ``room`` entries."""
    return 2 * (room // BLOCK + 1)


# ------------------------------------------------------------------------------ kernels
# Arrays: ts (float64), free (int64), bsum (int64: bsum[2 b] and bsum[2 b + 1] the least and the
# most free nodes of block b, for its full blocks only); `length` entries
# are in use. Every kernel that inserts needs room for it (the wrapper grows the arrays).


@njit(cache=True)
def _summarize(free: np.ndarray, length: int, bsum: np.ndarray, lo: int, hi: int) -> None:
    """Refresh the summaries of the full blocks holding entries ``lo .. hi - 1`` (a block is
    summarised once all its :data:`BLOCK` entries are in use; the searches scan the last,
    partial one, so a profile shorter than a block has no summaries to keep)."""
    if hi > length:
        hi = length
    b = lo >> _SHIFT
    last = min((hi - 1) >> _SHIFT, (length >> _SHIFT) - 1)
    while b <= last:
        x = b << _SHIFT
        mn = free[x]
        mx = free[x]
        for y in range(x + 1, x + BLOCK):  # branch-free: vectorised
            v = free[y]
            mn = min(mn, v)
            mx = max(mx, v)
        bsum[2 * b] = mn
        bsum[2 * b + 1] = mx
        b += 1


@njit(cache=True)
def _lower_bound(ts: np.ndarray, length: int, t: float) -> int:
    """First index ``x`` with ``ts[x] >= t`` (``length`` if none; ``length >= 1``), with few
    unpredictable branches."""
    base = 0
    size = length
    while size > 1:
        half = size >> 1
        base += (ts[base + half] < t) * half
        size -= half
    return base + 1 if ts[base] < t else base


@njit(cache=True)
def _first_at_least(free: np.ndarray, length: int, bsum: np.ndarray, x: int, p: int) -> int:
    """First index ``>= x`` with ``free >= p`` (``length`` if none)."""
    while x < length:
        stop = ((x >> _SHIFT) + 1) << _SHIFT  # the end of x's block
        if stop > length:  # the last, partial block: no summary
            stop = length
        elif bsum[2 * (x >> _SHIFT) + 1] < p:  # no candidate in the rest of the block
            x = stop
            continue
        while x < stop:
            if free[x] >= p:
                return x
            x += 1
    return length


@njit(cache=True)
def _first_below(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray, x: int, p: int, end: float
) -> int:
    """First index ``>= x`` with ``free < p`` that starts before ``end`` (``length`` if none)."""
    while x < length:
        stop = ((x >> _SHIFT) + 1) << _SHIFT  # the end of x's block
        if stop > length:  # the last, partial block: no summary
            stop = length
        elif bsum[2 * (x >> _SHIFT)] >= p:  # no blocker in the rest of the block
            if stop == length or ts[stop] >= end:
                return length
            x = stop
            continue
        while x < stop:
            if ts[x] >= end:
                return length
            if free[x] < p:
                return x
            x += 1
    return length


@njit(cache=True)
def _earliest_fit(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray,
    p: int, d: float, x: int, until: float, known: float,
) -> int:
    """Index of the first breakpoint ``i >= x`` with ``p`` nodes free on ``[ts[i], ts[i] + d)``,
    or -1 when there is none (the last segment has fewer than ``p`` free nodes).

    ``until = known = inf``: the earliest fit. Otherwise the search is bounded in time (module
    docstring): it stops at the first candidate (a breakpoint with ``p`` free nodes) at or
    after ``until``, unchecked, and checks each window only before ``known``. It returns the
    first breakpoint ``i >= x`` that is at or after ``until`` or has no segment with fewer than
    ``p`` free nodes on ``[ts[i], min(ts[i] + d, known))``: the fit when ``ts[i] < until`` and
    ``ts[i] + d <= known``, else a lower bound of it."""
    while True:
        i = _first_at_least(free, length, bsum, x, p)
        if i == length:
            return -1
        if ts[i] >= until:
            return i
        end = ts[i] + d
        k = _first_below(ts, free, length, bsum, i + 1, p, min(end, known))
        if k == length:
            return i
        x = k + 1


@njit(cache=True)
def _fits_at(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray, i: int, p: int, d: float
) -> bool:
    """Whether ``p`` nodes are free on all of ``[ts[i], ts[i] + d)``, ``i`` a breakpoint."""
    if free[i] < p:
        return False
    return _first_below(ts, free, length, bsum, i + 1, p, ts[i] + d) == length


@njit(cache=True)
def _fits(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray, start: float, p: int, d: float
) -> bool:
    """Whether ``p`` nodes are free on all of ``[start, start + d)``; the part before ``ts[0]``
    is not checked (the past is forgotten)."""
    k = _lower_bound(ts, length, start)
    if k == length or ts[k] > start:
        k -= 1  # `start` falls inside segment k
    k = max(k, 0)  # a start before ts[0]: from ts[0] on
    if free[k] < p:
        return False
    return _first_below(ts, free, length, bsum, k + 1, p, start + d) == length


@njit(cache=True)
def _max_before(ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray, t: float) -> int:
    """The most free nodes on any segment that starts before ``t``."""
    best = free[0]
    x = 0
    while x < length and ts[x] < t:
        if x & _MASK == 0 and x + BLOCK <= length and ts[x + BLOCK - 1] < t:  # a full block
            best = max(best, bsum[2 * (x >> _SHIFT) + 1])
            x += BLOCK
            continue
        if free[x] > best:
            best = free[x]
        x += 1
    return best


@njit(cache=True)
def _insert(ts: np.ndarray, free: np.ndarray, length: int, k: int, t: float, v: int) -> None:
    """Shift entries ``k ..`` one place up and put a breakpoint ``t`` with ``v`` free nodes at
    ``k`` (the caller keeps the order, adds one to the length and refreshes the summaries)."""
    for x in range(length, k, -1):
        ts[x] = ts[x - 1]
        free[x] = free[x - 1]
    ts[k] = t
    free[k] = v


@njit(cache=True)
def _add_at(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray,
    i: int, end: float, delta: int,
) -> int:
    """Add ``delta`` free nodes on ``[ts[i], end)`` (``end > ts[i]``, may be ``inf``), ``i`` a
    breakpoint (a reservation at an earliest fit, or now); returns the new length. Room for one
    more entry is needed. One pass over the segments changed, which also finds the end."""
    k = i
    while k < length and ts[k] < end:
        free[k] += delta
        k += 1
    hi = k
    if k < length and ts[k] != end or k == length and end != math.inf:
        _insert(ts, free, length, k, end, free[k - 1] - delta)  # as before the change
        length += 1
        hi = length
    if length >= BLOCK:  # else no full block, no summary (and no call)
        _summarize(free, length, bsum, i, hi)
    return length


@njit(cache=True)
def _add(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray,
    start: float, end: float, delta: int,
) -> int:
    """Add ``delta`` free nodes on ``[max(start, ts[0]), end)`` (``end`` may be ``inf``);
    returns the new length. Room for two more entries is needed."""
    if end <= ts[0] or end <= start:
        return length
    i = 0
    if start > ts[0]:
        i = _lower_bound(ts, length, start)
        if i == length or ts[i] != start:  # a new breakpoint splits segment i - 1
            _insert(ts, free, length, i, start, free[i - 1])
            length = _add_at(ts, free, length + 1, bsum, i, end, delta)
            if length >= BLOCK:  # every entry after i moved
                _summarize(free, length, bsum, i, length)
            return length
    return _add_at(ts, free, length, bsum, i, end, delta)


@njit(cache=True)
def _advance(ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray, now: float) -> int:
    """Start the profile at ``now`` (``>= ts[0]``), drop the past and merge breakpoints whose
    two sides are equal; return the new length."""
    z = _lower_bound(ts, length, now)
    if z == length or ts[z] > now:
        z -= 1  # `now` falls inside segment z
    ts[0] = now
    free[0] = free[z]
    out = 1
    for x in range(z + 1, length):
        if free[x] != free[out - 1]:
            ts[out] = ts[x]
            free[out] = free[x]
            out += 1
    if out >= BLOCK:
        _summarize(free, out, bsum, 0, out)
    return out


@njit(cache=True, inline="always")
def _of_running(
    ts: np.ndarray, free: np.ndarray, bsum: np.ndarray, now: float, capacity: int,
    ends: np.ndarray, jobs: np.ndarray, procs: np.ndarray, count: int,
) -> int:
    """The profile of ``count`` running jobs from ``now``: job ``jobs[x]`` holds
    ``procs[jobs[x]]`` nodes until ``ends[x]`` (``> now``, sorted: an event list; equal ends make
    one breakpoint; ``inf``: for good); returns its length (room for ``count + 1`` entries is
    needed). Inlined into its callers: numba passes every array as a structure of seven words,
    and a call per scheduling round would cost more than this loop."""
    used = 0
    for x in range(count):
        used += procs[jobs[x]]
    ts[0] = now
    free[0] = capacity - used
    length = 1
    x = 0
    while x < count and ends[x] < math.inf:  # sorted: those that end for good come last
        end = ends[x]
        while x < count and ends[x] == end:
            used -= procs[jobs[x]]
            x += 1
        ts[length] = end
        free[length] = capacity - used
        length += 1
    if length >= BLOCK:
        _summarize(free, length, bsum, 0, length)
    return length


@njit(cache=True)
def _place(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray,
    procs: np.ndarray, durations: np.ndarray, starts: np.ndarray,
) -> int:
    """Each job in order at its earliest fit, reserved before the next one is placed; the start
    in ``starts`` (``inf`` when it never fits). Returns the new length."""
    for j in range(procs.shape[0]):
        i = _earliest_fit(ts, free, length, bsum, procs[j], durations[j], 0, math.inf, math.inf)
        if i < 0:
            starts[j] = math.inf
            continue
        s = ts[i]
        starts[j] = s
        length = _add(ts, free, length, bsum, s, s + durations[j], -procs[j])
    return length


@njit(cache=True)
def _prefix_max(free: np.ndarray, length: int, pm: np.ndarray) -> None:
    """``pm[x]`` = the most free nodes on segments ``0 .. x``."""
    best = free[0]
    for x in range(length):
        if free[x] > best:
            best = free[x]
        pm[x] = best


@njit(cache=True)
def _compress(
    ts: np.ndarray, free: np.ndarray, length: int, bsum: np.ndarray,
    procs: np.ndarray, durations: np.ndarray, starts: np.ndarray,
) -> int:
    """Conservative backfilling's compression: in order, each reserved job is taken out and put
    back at its earliest fit among all the others (never later than it was). Returns the new
    length.

    A job that cannot start earlier -- no segment before its start has ``p`` free nodes, which
    taking it out does not change -- is left in place without being taken out: same result.
    That test reads a prefix maximum of the free nodes, recomputed only after a job moves, so
    a pass costs ``O(Q log L)`` plus ``O(L)`` per job that moves."""
    pm = np.empty(free.shape[0], dtype=np.int64)
    _prefix_max(free, length, pm)
    for j in range(procs.shape[0]):
        s = starts[j]
        p = procs[j]
        if s <= ts[0] or s == math.inf:
            continue
        k = _lower_bound(ts, length, s)  # segments 0 .. k-1 start before s
        if pm[k - 1] < p:
            continue
        d = durations[j]
        length = _add(ts, free, length, bsum, s, s + d, p)
        i = _earliest_fit(ts, free, length, bsum, p, d, 0, math.inf, math.inf)
        s2 = ts[i]
        starts[j] = s2
        length = _add(ts, free, length, bsum, s2, s2 + d, -p)
        _prefix_max(free, length, pm)
    return length


# ------------------------------------------------------------------------------ the class


class AvailabilityProfile:
    """Free nodes over ``[now, inf)`` (module docstring); ``capacity`` nodes, all free at first.

    >>> prof = AvailabilityProfile(8)
    >>> prof.add(0.0, 10.0, 6)           # a running job: 6 nodes until t = 10
    >>> prof.earliest_fit(4, 5.0), prof.earliest_fit(2, 5.0)
    (10.0, 0.0)
    >>> prof.place([6, 1], [10.0, 2.0])  # reservations in queue order
    array([10.,  0.])
    >>> prof.steps()
    [(0.0, 1), (2.0, 2), (10.0, 2), (20.0, 8)]
    """

    __slots__ = ("_bsum", "_free", "_len", "_ts", "capacity")

    def __init__(self, capacity: int, now: float = 0.0, *, size_hint: int = 64) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = int(capacity)
        room = max(int(size_hint), 8)
        self._ts = np.empty(room, dtype=np.float64)
        self._free = np.empty(room, dtype=np.int64)
        self._bsum = np.empty(summary_size(room), dtype=np.int64)
        self._ts[0] = float(now)
        self._free[0] = self.capacity
        self._len = 1  # shorter than a block: no summary yet

    @classmethod
    def of_running(
        cls, capacity: int, now: float, running: Iterable[tuple[float, int]]
    ) -> AvailabilityProfile:
        """The profile at ``now`` of running jobs: each ``(end, nodes)`` holds ``nodes`` nodes
        until ``end`` (``inf``: for good; an end not after ``now`` is over), in one compiled
        call (:func:`_of_running`); the same profile as :meth:`add` from ``now`` for each.

        >>> AvailabilityProfile.of_running(8, 1.0, [(5.0, 2), (3.0, 4), (5.0, 1)]).steps()
        [(1.0, 1), (3.0, 5), (5.0, 8)]
        """
        pairs = sorted((float(e), int(p)) for e, p in running if e > now)
        count = len(pairs)
        prof = cls(capacity, now, size_hint=count + 8)
        ends = np.array([e for e, _ in pairs], dtype=np.float64)
        nodes = np.array([p for _, p in pairs], dtype=np.int64)
        prof._len = _of_running(prof._ts, prof._free, prof._bsum, float(now), prof.capacity,
                                ends, np.arange(count, dtype=np.int64), nodes, count)
        return prof

    # -------------------------------------------------------------- housekeeping
    def _room(self, extra: int) -> None:
        need = self._len + extra
        if need <= self._ts.shape[0]:
            return
        room = max(need, 2 * self._ts.shape[0])
        for name, dtype in (("_ts", np.float64), ("_free", np.int64)):
            old = getattr(self, name)
            new = np.empty(room, dtype=dtype)
            new[: self._len] = old[: self._len]
            setattr(self, name, new)
        self._bsum = np.empty(summary_size(room), dtype=np.int64)
        _summarize(self._free, self._len, self._bsum, 0, self._len)

    @property
    def now(self) -> float:
        """The start of the profile."""
        return float(self._ts[0])

    def __len__(self) -> int:
        """The number of segments."""
        return self._len

    def steps(self) -> list[tuple[float, int]]:
        """``(start, free nodes)`` of every segment, in order."""
        return [(float(t), int(f)) for t, f in zip(self._ts[: self._len], self._free[: self._len])]

    def free_at(self, t: float) -> int:
        """Free nodes at instant ``t >= now``."""
        k = _lower_bound(self._ts, self._len, float(t))
        if k == self._len or self._ts[k] > t:
            k -= 1
        return int(self._free[max(k, 0)])

    def __repr__(self) -> str:
        return f"AvailabilityProfile(capacity={self.capacity}, now={self.now}, segments={self._len})"

    # -------------------------------------------------------------- changes
    def advance(self, now: float) -> None:
        """Move the start to ``now`` (never back) and forget the past."""
        now = float(now)
        if now < self._ts[0]:
            raise ValueError(f"the profile cannot go back in time: now = {self.now}, asked {now}")
        self._len = _advance(self._ts, self._free, self._len, self._bsum, now)

    def add(self, start: float, end: float, p: int) -> None:
        """Occupy ``p`` nodes on ``[start, end)`` (the part before ``now`` is ignored; ``end``
        may be ``inf``). Capacity is not checked: see :meth:`fits`."""
        self._room(2)
        self._len = _add(self._ts, self._free, self._len, self._bsum,
                         float(start), float(end), -int(p))

    def remove(self, start: float, end: float, p: int) -> None:
        """Give back an occupation made by :meth:`add` with the same arguments."""
        self._room(2)
        self._len = _add(self._ts, self._free, self._len, self._bsum,
                         float(start), float(end), int(p))

    # -------------------------------------------------------------- questions
    def earliest_fit(self, p: int, d: float, *, until: float = math.inf) -> float:
        """The earliest breakpoint ``s >= now`` with ``p`` nodes free on ``[s, s + d)``;
        ``inf`` when none (fewer than ``p`` nodes are ever free again).

        With a finite ``until``, a fit at or after ``until`` is not looked for: the answer is
        then a breakpoint ``>= until`` that is no later than the earliest fit (a lower bound;
        module docstring, "Searches bounded in time"). Before ``until`` it is the earliest fit."""
        i = _earliest_fit(self._ts, self._free, self._len, self._bsum, int(p), float(d), 0,
                          float(until), math.inf)
        return math.inf if i < 0 else float(self._ts[i])

    def fits(self, start: float, p: int, d: float) -> bool:
        """Whether ``p`` nodes are free on all of ``[start, start + d)`` (the part before ``now``
        is not checked)."""
        start = float(start)
        if start <= self._ts[0] and self._free[0] < p:  # the usual answer, without a kernel call
            return False
        return bool(_fits(self._ts, self._free, self._len, self._bsum, start, int(p), float(d)))

    # -------------------------------------------------------------- passes
    def place(self, procs: Sequence[int] | np.ndarray, durations: Sequence[float] | np.ndarray) -> np.ndarray:
        """Reserve each job, in order, at its earliest fit (conservative backfilling's plan);
        returns the starts (``inf``: never fits, nothing reserved)."""
        p = np.ascontiguousarray(procs, dtype=np.int64)
        d = np.ascontiguousarray(durations, dtype=np.float64)
        starts = np.empty(p.shape[0], dtype=np.float64)
        self._room(2 * p.shape[0] + 2)
        self._len = _place(self._ts, self._free, self._len, self._bsum, p, d, starts)
        return starts

    def compress(self, procs: Sequence[int] | np.ndarray, durations: Sequence[float] | np.ndarray,
                 starts: np.ndarray) -> np.ndarray:
        """Mu'alem-Feitelson compression of reservations made by :meth:`place` or :meth:`add`
        (``starts[j]`` for ``durations[j]``): in order, each is taken out and put back at its
        earliest fit among all the others; returns the new starts (each ``<=`` the old)."""
        p = np.ascontiguousarray(procs, dtype=np.int64)
        d = np.ascontiguousarray(durations, dtype=np.float64)
        out = np.array(starts, dtype=np.float64)
        self._room(4 * p.shape[0] + 2)
        self._len = _compress(self._ts, self._free, self._len, self._bsum, p, d, out)
        return out
