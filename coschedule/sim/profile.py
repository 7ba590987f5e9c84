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

Speed
-----
The breakpoints sit in flat arrays, in order, summarised by blocks of :data:`BLOCK` entries
(the least and the most free nodes of each block): the searches skip a whole block whose
summary shows it holds no candidate, so a search costs ``O(L / BLOCK + BLOCK)`` per jump rather
than ``O(L)``, ``L`` the number of breakpoints; an insertion shifts the arrays (a memory move)
and refreshes the summaries after it, ``O(L)`` with a small constant. The kernels are compiled
by numba when it is installed (:mod:`coschedule.jit`) and run as plain Python otherwise (same
results, slower). The passes of conservative backfilling (:meth:`~AvailabilityProfile.place`,
:meth:`~AvailabilityProfile.compress`) run a whole queue in one compiled call.

Floats: a reservation at breakpoint ``s`` for ``d`` ends at ``s + d``, computed once, and its
removal recomputes the same sum, so occupations are added and removed exactly; node counts are
integers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from coschedule.jit import njit

__all__ = ["BLOCK", "AvailabilityProfile"]

#: entries per block of the summaries (the least and the most free nodes of each block)
BLOCK = 32


# ------------------------------------------------------------------------------ kernels
# Arrays: ts (float64), free (int64), bmin/bmax (int64, one entry per block); `length` entries
# are in use. Every kernel that inserts needs room for it (the wrapper grows the arrays).


@njit(cache=True)
def _summarize(free: np.ndarray, length: int, bmin: np.ndarray, bmax: np.ndarray, lo: int, hi: int) -> None:
    """Refresh the summaries of the blocks holding entries ``lo .. hi - 1``."""
    if hi > length:
        hi = length
    b = lo // BLOCK
    last = (hi - 1) // BLOCK
    while b <= last:
        x = b * BLOCK
        end = min(x + BLOCK, length)
        mn = free[x]
        mx = free[x]
        for y in range(x + 1, end):
            v = free[y]
            if v < mn:
                mn = v
            elif v > mx:
                mx = v
        bmin[b] = mn
        bmax[b] = mx
        b += 1


@njit(cache=True)
def _lower_bound(ts: np.ndarray, length: int, t: float) -> int:
    """First index ``x`` with ``ts[x] >= t`` (``length`` if none)."""
    lo = 0
    hi = length
    while lo < hi:
        mid = (lo + hi) >> 1
        if ts[mid] < t:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _first_at_least(free: np.ndarray, length: int, bmax: np.ndarray, x: int, p: int) -> int:
    """First index ``>= x`` with ``free >= p`` (``length`` if none)."""
    while x < length:
        if x % BLOCK == 0 and bmax[x // BLOCK] < p:
            x += BLOCK
            continue
        if free[x] >= p:
            return x
        x += 1
    return length


@njit(cache=True)
def _first_below(
    ts: np.ndarray, free: np.ndarray, length: int, bmin: np.ndarray, x: int, p: int, end: float
) -> int:
    """First index ``>= x`` with ``free < p`` that starts before ``end`` (``length`` if none)."""
    while x < length:
        if ts[x] >= end:
            return length
        if x % BLOCK == 0 and bmin[x // BLOCK] >= p:
            x += BLOCK
            continue
        if free[x] < p:
            return x
        x += 1
    return length


@njit(cache=True)
def _earliest_fit(
    ts: np.ndarray, free: np.ndarray, length: int, bmin: np.ndarray, bmax: np.ndarray,
    p: int, d: float, x: int,
) -> int:
    """Index of the first breakpoint ``>= x`` with ``p`` nodes free on ``[ts[i], ts[i] + d)``,
    or -1 when there is none (the last segment has fewer than ``p`` free nodes)."""
    while True:
        i = _first_at_least(free, length, bmax, x, p)
        if i == length:
            return -1
        k = _first_below(ts, free, length, bmin, i + 1, p, ts[i] + d)
        if k == length:
            return i
        x = k + 1


@njit(cache=True)
def _max_before(ts: np.ndarray, free: np.ndarray, length: int, bmax: np.ndarray, t: float) -> int:
    """The most free nodes on any segment that starts before ``t``."""
    best = free[0]
    x = 0
    while x < length and ts[x] < t:
        if x % BLOCK == 0 and x + BLOCK <= length and ts[x + BLOCK - 1] < t:
            if bmax[x // BLOCK] > best:
                best = bmax[x // BLOCK]
            x += BLOCK
            continue
        if free[x] > best:
            best = free[x]
        x += 1
    return best


@njit(cache=True)
def _insert(ts: np.ndarray, free: np.ndarray, length: int, t: float) -> int:
    """Make ``t`` (``> ts[0]``, finite) a breakpoint; return its index. The caller refreshes the
    summaries from that index on and adds one to ``length`` when ``ts[index] != t`` before."""
    k = _lower_bound(ts, length, t)
    if k < length and ts[k] == t:
        return k
    for x in range(length, k, -1):
        ts[x] = ts[x - 1]
        free[x] = free[x - 1]
    ts[k] = t
    free[k] = free[k - 1]
    return k


@njit(cache=True)
def _add(
    ts: np.ndarray, free: np.ndarray, length: int, bmin: np.ndarray, bmax: np.ndarray,
    start: float, end: float, delta: int,
) -> int:
    """Add ``delta`` free nodes on ``[max(start, ts[0]), end)`` (``end`` may be ``inf``);
    returns the new length. Room for two more entries is needed."""
    if end <= ts[0] or end <= start:
        return length
    grown = length
    if start <= ts[0]:
        i = 0
    else:
        i = _lower_bound(ts, grown, start)
        if i == grown or ts[i] != start:
            i = _insert(ts, free, grown, start)
            grown += 1
    if end == math.inf:
        k = grown
    else:
        k = _lower_bound(ts, grown, end)
        if k == grown or ts[k] != end:
            k = _insert(ts, free, grown, end)
            grown += 1
    for x in range(i, k):
        free[x] += delta
    if grown != length:
        _summarize(free, grown, bmin, bmax, i, grown)
    else:
        _summarize(free, grown, bmin, bmax, i, k)
    return grown


@njit(cache=True)
def _advance(ts: np.ndarray, free: np.ndarray, length: int, bmin: np.ndarray, bmax: np.ndarray, now: float) -> int:
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
    _summarize(free, out, bmin, bmax, 0, out)
    return out


@njit(cache=True)
def _place(
    ts: np.ndarray, free: np.ndarray, length: int, bmin: np.ndarray, bmax: np.ndarray,
    procs: np.ndarray, durations: np.ndarray, starts: np.ndarray,
) -> int:
    """Each job in order at its earliest fit, reserved before the next one is placed; the start
    in ``starts`` (``inf`` when it never fits). Returns the new length."""
    for j in range(procs.shape[0]):
        i = _earliest_fit(ts, free, length, bmin, bmax, procs[j], durations[j], 0)
        if i < 0:
            starts[j] = math.inf
            continue
        s = ts[i]
        starts[j] = s
        length = _add(ts, free, length, bmin, bmax, s, s + durations[j], -procs[j])
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
    ts: np.ndarray, free: np.ndarray, length: int, bmin: np.ndarray, bmax: np.ndarray,
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
        length = _add(ts, free, length, bmin, bmax, s, s + d, p)
        i = _earliest_fit(ts, free, length, bmin, bmax, p, d, 0)
        s2 = ts[i]
        starts[j] = s2
        length = _add(ts, free, length, bmin, bmax, s2, s2 + d, -p)
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

    __slots__ = ("_bmax", "_bmin", "_free", "_len", "_ts", "capacity")

    def __init__(self, capacity: int, now: float = 0.0, *, size_hint: int = 64) -> None:
        if capacity < 0:
            raise ValueError(f"capacity must be >= 0, got {capacity}")
        self.capacity = int(capacity)
        room = max(int(size_hint), 8)
        self._ts = np.empty(room, dtype=np.float64)
        self._free = np.empty(room, dtype=np.int64)
        self._bmin = np.empty(room // BLOCK + 1, dtype=np.int64)
        self._bmax = np.empty(room // BLOCK + 1, dtype=np.int64)
        self._ts[0] = float(now)
        self._free[0] = self.capacity
        self._len = 1
        _summarize(self._free, 1, self._bmin, self._bmax, 0, 1)

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
        self._bmin = np.empty(room // BLOCK + 1, dtype=np.int64)
        self._bmax = np.empty(room // BLOCK + 1, dtype=np.int64)
        _summarize(self._free, self._len, self._bmin, self._bmax, 0, self._len)

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
        self._len = _advance(self._ts, self._free, self._len, self._bmin, self._bmax, now)

    def add(self, start: float, end: float, p: int) -> None:
        """Occupy ``p`` nodes on ``[start, end)`` (the part before ``now`` is ignored; ``end``
        may be ``inf``). Capacity is not checked: see :meth:`fits`."""
        self._room(2)
        self._len = _add(self._ts, self._free, self._len, self._bmin, self._bmax,
                         float(start), float(end), -int(p))

    def remove(self, start: float, end: float, p: int) -> None:
        """Give back an occupation made by :meth:`add` with the same arguments."""
        self._room(2)
        self._len = _add(self._ts, self._free, self._len, self._bmin, self._bmax,
                         float(start), float(end), int(p))

    # -------------------------------------------------------------- questions
    def earliest_fit(self, p: int, d: float) -> float:
        """The earliest breakpoint ``s >= now`` with ``p`` nodes free on ``[s, s + d)``;
        ``inf`` when none (fewer than ``p`` nodes are ever free again)."""
        i = _earliest_fit(self._ts, self._free, self._len, self._bmin, self._bmax, int(p), float(d), 0)
        return math.inf if i < 0 else float(self._ts[i])

    def fits(self, start: float, p: int, d: float) -> bool:
        """Whether ``p`` nodes are free on all of ``[start, start + d)``."""
        start = float(start)
        k = _lower_bound(self._ts, self._len, start)
        if k == self._len or self._ts[k] > start:
            k -= 1
        k = max(k, 0)
        if self._free[k] < p:
            return False
        end = start + float(d)
        return _first_below(self._ts, self._free, self._len, self._bmin, k + 1, int(p), end) == self._len

    # -------------------------------------------------------------- passes
    def place(self, procs: Sequence[int] | np.ndarray, durations: Sequence[float] | np.ndarray) -> np.ndarray:
        """Reserve each job, in order, at its earliest fit (conservative backfilling's plan);
        returns the starts (``inf``: never fits, nothing reserved)."""
        p = np.ascontiguousarray(procs, dtype=np.int64)
        d = np.ascontiguousarray(durations, dtype=np.float64)
        starts = np.empty(p.shape[0], dtype=np.float64)
        self._room(2 * p.shape[0] + 2)
        self._len = _place(self._ts, self._free, self._len, self._bmin, self._bmax, p, d, starts)
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
        self._len = _compress(self._ts, self._free, self._len, self._bmin, self._bmax, p, d, out)
        return out
