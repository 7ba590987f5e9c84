"""Rules 4 and 5 of :mod:`.validate` -- no node runs two things at once, a down node runs
nothing, a failure of a busy node ends its attempt -- as sorted sweeps over the endpoints of node
intervals, in numpy.

What the rules need is, for each node, the attempts, holds and downtimes on it sorted by start,
end and position (attempts, then holds, then failures, in the run's order); rule 4 fails on the
first two consecutive ones that overlap. Node sets are intervals (:mod:`.intervals`), so the
nodes fall into **elementary segments**: cut ``[0, N)`` at every interval endpoint of every
attempt and hold; every node of a segment carries the same attempts and holds, so a check on one
segment is the check on each of its nodes. The per-node check (tests/coschedule/
validate_reference.py) becomes the same check on (item, segment) pairs: the items sorted once,
their intervals cut into segments, the pairs grouped by segment in that order (one stable sort).

A failed node is one node of its segment: its downtimes go between that segment's items, and
only their neighbours there can overlap them (the segment's items not overlapping one another).
Cutting at every failed node as well would multiply the pairs (a month of a 1,024-node machine
with 700 failures: every long-lived segment cut in two at each failed node, ten times the pairs),
so that is done only to name the first conflict once one is known to exist: the same check on
the segments of attempts, holds and failed nodes (:func:`segments` with ``failures=True``), which
is the per-node check on each failed node.

Running time ``O(P log P + F log P)`` for ``P`` (item, segment) pairs and ``F`` failures: on the
Mira-like month with failures (5,000 attempts of about 5,000 nodes each, 1,000 failures) ``P`` is
about a million, against 25 million (attempt, node) pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidSchedule
from .intervals import NodeSet, ids_to_intervals
from .result import AttemptTable, SimulationResult

__all__ = ["Segments", "busy_failures", "check_nodes", "segments"]

#: relative tolerance on times (absolute below 1 s); the validator's
RTOL = 1e-9


def _g(x: float) -> str:
    return f"{x:.10g}"


@dataclass(frozen=True)
class Segments:
    """The items -- attempts, holds, and downtimes with ``failures`` -- with their ``start``,
    ``end``, ``until`` (``end`` less the tolerance: another item may start from then on), ``kind``
    (0 attempt, 1 downtime, 2 hold) and ``ref`` (the position among the attempts, failure records
    or holds), and the (item, segment) pairs: ``seg`` and ``item``, grouped by segment, then by the
    item's start, end and position. Time is cut into windows (:data:`WINDOW`; window ``w > 0``
    from ``windows[w - 1]`` on), an item in every window it overlaps; segment ``s`` is the nodes
    ``[b % stride + base, ...)`` of window ``b // stride``, ``b = bounds[s]``, up to the next bound."""

    bounds: np.ndarray
    start: np.ndarray
    end: np.ndarray
    until: np.ndarray
    kind: np.ndarray
    ref: np.ndarray
    seg: np.ndarray
    item: np.ndarray
    windows: np.ndarray
    stride: int
    base: int

    def window(self, t: float) -> int:
        """The window of instant ``t``."""
        return int(np.searchsorted(self.windows, t, "right"))

    def on(self, node: int, w: int) -> np.ndarray:
        """The items on ``node`` in window ``w``, in order."""
        x = node - self.base
        s = int(np.searchsorted(self.bounds, w * self.stride + x, "right")) - 1 if 0 <= x < self.stride else -1
        if s < 0 or s + 1 >= self.bounds.shape[0]:
            return self.item[:0]
        return self.item[np.searchsorted(self.seg, s, "left"): np.searchsorted(self.seg, s, "right")]


#: items per time window, by start: an attempt's intervals are cut only by the nodes of the
#: attempts, holds and failures of its windows, not of the whole run
WINDOW = 1024


def _layers(nodes: Sequence[int]) -> list[np.ndarray]:
    """A hold's nodes as interval arrays: the set, then once more each node it lists twice (and so
    on: the per-node check sees a node listed twice as two items)."""
    if isinstance(nodes, NodeSet):
        return [nodes.intervals]
    ids, times = np.unique(np.asarray(nodes, dtype=np.int64), return_counts=True)
    return [ids_to_intervals(ids[times > k]) for k in range(int(times.max()) if times.size else 1)]


def _until(end: np.ndarray) -> np.ndarray:
    return end - RTOL * np.maximum(1.0, np.abs(end))


def _spread(counts: np.ndarray) -> np.ndarray:
    """``0, 1, ..., c - 1`` for each ``c`` of ``counts``, concatenated."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


@dataclass(frozen=True)
class _Items:
    """The items of :class:`Segments` before they are cut into pairs: their intervals
    (``iv[2 * off[k]: 2 * off[k + 1]]``), times, kinds, refs, ranks in the order (start, end,
    position), and the windows' bounds."""

    iv: np.ndarray
    off: np.ndarray
    start: np.ndarray
    end: np.ndarray
    kind: np.ndarray
    ref: np.ndarray
    rank: np.ndarray
    windows: np.ndarray
    base: int
    stride: int

    @property
    def n_windows(self) -> int:
        return self.windows.shape[0] + 1


def _items(result: SimulationResult, table: AttemptTable, failures: bool) -> _Items:
    fr = result.failures if failures else ()
    m, f = len(table), len(fr)
    layers = [(k, x, iv) for k, x in enumerate(result.holds) for iv in _layers(x.nodes)]
    h = len(layers)
    f_node = np.array([x.node for x in fr], dtype=np.int64)
    f_iv = np.empty(2 * f, dtype=np.int64)
    f_iv[0::2], f_iv[1::2] = f_node, f_node + 1
    iv = np.concatenate([table.iv, *(x[2] for x in layers), f_iv])
    counts = np.concatenate([np.diff(table.iv_off), np.array([x[2].shape[0] for x in layers], dtype=np.int64),
                             np.full(f, 2, dtype=np.int64)]) // 2  # intervals per item
    off = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=off[1:])
    start = np.concatenate([table.start, np.array([x[1].start for x in layers], dtype=np.float64),
                            np.array([x.time for x in fr], dtype=np.float64)])
    end = np.concatenate([table.end, np.array([x[1].end for x in layers], dtype=np.float64),
                          np.array([x.up for x in fr], dtype=np.float64)])
    kind = np.concatenate([np.zeros(m, np.int64), np.full(h, 2, np.int64), np.ones(f, np.int64)])
    ref = np.concatenate([np.arange(m), np.array([x[0] for x in layers], dtype=np.int64), np.arange(f)])
    position = np.concatenate([np.arange(m), m + ref[m: m + h], m + len(result.holds) + np.arange(f)])
    rank = np.empty(start.shape[0], dtype=np.int64)
    rank[np.lexsort((position, end, start))] = np.arange(start.shape[0])
    windows = np.sort(start[: m + h])[WINDOW::WINDOW]
    base = int(min(0, iv[0::2].min())) if iv.size else 0
    stride = int(max(result.workload.n_nodes, iv[1::2].max() if iv.size else 0)) - base + 1
    return _Items(iv, off, start, end, kind, ref, rank, windows, base, stride)


def _pairs(it: _Items, w0: int, w1: int) -> Segments:
    """The :class:`Segments` of the windows ``w0 <= w < w1`` only: the items that overlap them,
    each once per window of them it overlaps."""
    first = np.searchsorted(it.windows, it.start, "right")
    last = np.maximum(np.searchsorted(it.windows, it.end, "right"), first)
    lo, hi = np.maximum(first, w0), np.minimum(last, w1 - 1)
    sel = np.flatnonzero(lo <= hi)
    sel = sel[np.argsort(it.rank[sel], kind="stable")]  # the items in the order (start, end, position)
    counts = it.off[sel + 1] - it.off[sel]
    owner = np.repeat(sel, counts)
    k = np.repeat(it.off[sel], counts) + _spread(counts)  # their intervals, in that order
    a, b = it.iv[2 * k], it.iv[2 * k + 1]
    del k
    reps = (hi - lo + 1)[owner]
    w = np.repeat(lo[owner], reps) + _spread(reps)
    a = np.repeat(a, reps) - it.base + w * it.stride
    b = np.repeat(b, reps) - it.base + w * it.stride
    del w
    owner = np.repeat(owner, reps)
    bounds = np.unique(np.concatenate([a, b]))
    lo_s, hi_s = np.searchsorted(bounds, a), np.searchsorted(bounds, b)
    del a, b
    c = hi_s - lo_s
    seg = np.repeat(lo_s, c) + _spread(c)
    item = np.repeat(owner, c)
    del owner, lo_s, hi_s, c
    by_seg = np.argsort(seg, kind="stable")
    return Segments(bounds, it.start, it.end, _until(it.end), it.kind, it.ref.astype(np.int64), seg[by_seg],
                    item[by_seg], it.windows, it.stride, it.base)


def segments(result: SimulationResult, table: AttemptTable, *, failures: bool = False) -> Segments:
    """The pairs of ``result``'s attempts (``table``) and holds, and with ``failures`` its
    downtimes (module docstring), over the whole run."""
    it = _items(result, table, failures)
    return _pairs(it, 0, it.n_windows)


#: windows whose pairs are built and checked at once: the memory of the checks is that of this
#: many windows' pairs, not the run's (100,000 jobs with 190,000 failures: 1.4 GB at once)
CHUNK = 32


def _overlaps(sg: Segments) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs without the downtimes of no length (D = 0: never down) -- ``(seg, item)`` --
    and the positions there of those followed in their segment by one that starts before they
    end."""
    seg, item = sg.seg, sg.item
    never = np.flatnonzero((sg.kind == 1) & ~(sg.end - sg.start > RTOL * np.maximum(1.0, np.abs(sg.end))))
    if never.size:
        keep = ~np.isin(item, never)
        seg, item = seg[keep], item[keep]
    return seg, item, np.flatnonzero((seg[1:] == seg[:-1]) & (sg.start[item[1:]] < sg.until[item[:-1]]))


def _down_overlaps(result: SimulationResult, sg: Segments, w0: int = 0, w1: int | None = None) -> bool:
    """Whether a downtime overlaps an item or another downtime of its node in the windows
    ``w0 <= w < w1`` (those of ``sg``), the items of each segment not overlapping one another: per
    failed node and window, its downtimes between its items there."""
    fr = result.failures
    if not fr:
        return False
    node = np.array([f.node for f in fr], dtype=np.int64)
    t = np.array([f.time for f in fr], dtype=np.float64)
    up = np.array([f.up for f in fr], dtype=np.float64)
    until = _until(up)
    down = np.flatnonzero(up - t > RTOL * np.maximum(1.0, np.abs(up)))  # D = 0: never down
    first = np.searchsorted(sg.windows, t[down], "right")
    reps = np.searchsorted(sg.windows, up[down], "right") - first + 1
    down, w = np.repeat(down, reps), np.repeat(first, reps) + _spread(reps)
    mine = (w >= w0) & (w < (sg.windows.shape[0] + 1 if w1 is None else w1))
    down, w = down[mine], w[mine]
    order = np.lexsort((down, up[down], t[down], w, node[down]))  # by node, window, start, end, position
    down, w = down[order].tolist(), w[order].tolist()
    q = 0
    while q < len(down):
        x, here = int(node[down[q]]), w[q]
        r = q
        while r < len(down) and node[down[r]] == x and w[r] == here:
            r += 1
        mine = down[q:r]
        items = sg.on(x, here)
        start, end = sg.start[items], sg.end[items]
        # where each downtime goes among the items (after those of the same start and end)
        where = []
        for k in mine:
            lo, hi = np.searchsorted(start, t[k], "left"), np.searchsorted(start, t[k], "right")
            where.append(int(lo + np.searchsorted(end[lo:hi], up[k], "right")))
        for z, k in enumerate(mine):
            at = where[z]
            if z > 0 and where[z - 1] == at:
                before = until[mine[z - 1]]
            else:
                before = sg.until[items[at - 1]] if at > 0 else -np.inf
            if z + 1 < len(mine) and where[z + 1] == at:
                after = t[mine[z + 1]]
            else:
                after = sg.start[items[at]] if at < items.shape[0] else np.inf
            if t[k] < before or after < until[k]:
                return True
        q = r
    return False


def check_nodes(result: SimulationResult, table: AttemptTable) -> list[int]:
    """Rule 4: consecutive items of a node (sorted by start) must not overlap; sorted by start,
    that is enough. The earliest conflict is reported, on its lowest node. Checked :data:`CHUNK`
    windows at a time; returns :func:`busy_failures` of every failure record."""
    it = _items(result, table, False)
    busy = [-1] * len(result.failures)
    f_window = np.searchsorted(it.windows, np.array([f.time for f in result.failures], dtype=np.float64), "right")
    for w0 in range(0, it.n_windows, CHUNK):
        w1 = min(w0 + CHUNK, it.n_windows)
        sg = _pairs(it, w0, w1)
        if _overlaps(sg)[2].size or _down_overlaps(result, sg, w0, w1):
            _conflict(result, table, w0, w1)
        for k, b in zip(np.flatnonzero((w0 <= f_window) & (f_window < w1)).tolist(),
                        busy_failures(result, sg, np.flatnonzero((w0 <= f_window) & (f_window < w1)))):
            busy[k] = b
    return busy


def _conflict(result: SimulationResult, table: AttemptTable, w0: int, w1: int) -> None:
    """Raise the earliest conflict of rule 4, known to be in windows ``w0 <= w < w1`` (the first
    chunk where one is: every conflict is found in the window of its second item's start)."""
    full = _pairs(_items(result, table, True), w0, w1)  # every failed node a segment of its own
    seg, item, bad = _overlaps(full)
    # the earliest conflict: the pair whose second starts first, found whole in the window of that
    # start (both run then); on its lowest node; there, the first
    then = full.start[item[bad + 1]]
    earliest = then.min()
    bad = bad[(then == earliest) & (full.bounds[seg[bad]] // full.stride == full.window(earliest))]
    nodes = full.bounds[seg[bad]] % full.stride + full.base
    pick = np.lexsort((bad, nodes))[0]
    i, node = int(bad[pick]), int(nodes[pick])
    ids = result.workload.ids
    kind, ref = full.kind[item[i: i + 2]].tolist(), full.ref[item[i: i + 2]].tolist()

    def what(k: int) -> str:
        if kind[k] == 0:
            a = result.attempts[ref[k]]
            return f"job {ids[a.job]} attempt {a.index} [{_g(a.start)}, {_g(a.end)})"
        if kind[k] == 2:
            h = result.holds[ref[k]]
            return f"job {ids[h.job]} keeping it [{_g(h.start)}, {_g(h.end)})"
        f = result.failures[ref[k]]
        return f"the node down on [{_g(f.time)}, {_g(f.up)}) (failure at {_g(f.time)})"

    first, second = what(0), what(1)
    if kind[0] != 1 and kind[1] != 1:
        raise InvalidSchedule(f"node {node}: {second} overlaps {first}")
    if kind[0] == 1 and kind[1] == 1:
        raise InvalidSchedule(f"node {node}: fails at {_g(full.start[item[i + 1]])} while down: {second} overlaps "
                              f"{first}")
    running, down = (first, second) if kind[0] != 1 else (second, first)
    raise InvalidSchedule(f"node {node}: {running} runs while {down}")


def busy_failures(result: SimulationResult, sg: Segments, which: np.ndarray | None = None) -> list[int]:
    """Rule 5, first part: per failure record (those at positions ``which``, in its window of
    ``sg``), the position of the attempt that runs on its node across it without ending then
    (-1: none)."""
    out = []
    fr = result.failures
    for f in (fr if which is None else [fr[k] for k in which.tolist()]):
        here = sg.on(int(f.node), sg.window(f.time))
        on = here[sg.kind[here] == 0]  # the attempts on the node, by start
        t = f.time
        tol = RTOL * max(1.0, abs(t))
        # the last attempt on the node started before t: the only one that can run across t
        k = int(np.searchsorted(sg.start[on], t - tol, "left")) - 1
        out.append(int(sg.ref[on[k]]) if k >= 0 and sg.end[on[k]] > t + tol else -1)
    return out
