"""An attempt's nodes as a handful of ranges: node sets as sorted interval arrays, in numpy.

A node set is a flat int64 array ``[a0, b0, a1, b1, ...]`` of sorted, disjoint, maximal
half-open intervals ``[a, b)`` (procset's model, the format of :mod:`.nodesets`, whose compiled
kernels compute on it). On Mira an attempt runs on tens of thousands of nodes in a few ranges:
kept as intervals from the kernel's results to the validator (:mod:`.validate`), the metrics and
``jobs.csv``, its nodes cost a few numbers instead of a tuple of tens of thousands of ints.

:class:`NodeSet` holds one and behaves as the tuple of its node ids that an
:class:`~coschedule.sim.result.Attempt` used to hold (length, iteration, indexing, ``in``,
equality with that tuple, its hash): a run's records read as before, and who wants the ranges
reads :attr:`NodeSet.intervals`. Its ids are in increasing order, unless it was made from ids in
another order (node stealing's restart: its survivors, then the stolen nodes), which it keeps.

>>> s = NodeSet.from_ids([7, 0, 1, 2, 3])
>>> s.intervals.tolist(), len(s), 3 in s, s == (0, 1, 2, 3, 7), format_intervals(s.intervals)
([0, 4, 7, 8], 5, True, True, '0-3 7')

This module imports numpy only (no numba): the CLI and the validator read node sets without
loading a compiler.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = [
    "NodeSet",
    "format_intervals",
    "format_many",
    "ids_to_intervals",
    "intervals_of",
    "iv_subset",
    "nodesets",
    "runs_to_intervals",
]

_EMPTY = np.empty(0, dtype=np.int64)


class NodeSet(Sequence[int]):
    """The node ids of a set kept as intervals ``[a0, b0, a1, b1, ...]`` (module docstring).

    ``NodeSet(intervals)`` checks that they are sorted, disjoint, maximal and non-negative;
    :meth:`from_ids` makes one from ids in any order (kept, when not increasing). It compares
    equal to the tuple of its ids (in its order) and hashes as that tuple."""

    __slots__ = ("_ids", "_iv", "_len")

    def __init__(self, intervals: Iterable[int] | np.ndarray) -> None:
        iv = np.array(intervals, dtype=np.int64).reshape(-1)  # a copy of its own
        if iv.size % 2 or iv.size and (iv[0] < 0 or np.any(iv[1:] <= iv[:-1])):
            raise ValueError(f"node intervals must be sorted, disjoint and maximal [a0, b0, a1, ...] with "
                             f"0 <= a0 < b0 < a1 < ..., got {iv.tolist()[:12]}")
        self._set(iv, None)

    def _set(self, iv: np.ndarray, ids: np.ndarray | None, size: int = -1) -> None:
        if iv.flags.writeable:
            iv.flags.writeable = False
        self._iv = iv
        self._ids = ids
        self._len = size if size >= 0 else int((iv[1::2] - iv[0::2]).sum()) if ids is None else int(ids.shape[0])

    @classmethod
    def _trusted(cls, iv: np.ndarray, ids: np.ndarray | None = None, size: int = -1) -> NodeSet:
        """One made of valid intervals (and the ids in their order when not increasing; ``size``
        its node count when known), unchecked."""
        s = object.__new__(cls)
        s._set(iv, ids, size)
        return s

    @classmethod
    def from_ids(cls, ids: Iterable[int]) -> NodeSet:
        """The set of distinct node ids ``ids`` (ints >= 0), in their order."""
        arr = np.fromiter((int(x) for x in ids), dtype=np.int64) if not isinstance(ids, np.ndarray) else \
            ids.astype(np.int64)
        if arr.size and arr.min() < 0:
            raise ValueError(f"node ids must be >= 0, got {int(arr.min())}")
        iv = ids_to_intervals(arr)
        if int((iv[1::2] - iv[0::2]).sum()) != arr.size:
            raise ValueError("node ids must be distinct")
        ordered = arr.size < 2 or bool(np.all(arr[1:] > arr[:-1]))
        return cls._trusted(iv, None if ordered else arr)

    @property
    def intervals(self) -> np.ndarray:
        """The flat interval array (read-only)."""
        return self._iv

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[int]:
        if self._ids is not None:
            return iter(self._ids.tolist())
        iv = self._iv.tolist()
        return itertools.chain.from_iterable(map(range, iv[0::2], iv[1::2]))

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        if isinstance(k, slice):
            return tuple(self)[k]
        k = int(k)
        if k < 0:
            k += self._len
        if not 0 <= k < self._len:
            raise IndexError("NodeSet index out of range")
        if self._ids is not None:
            return int(self._ids[k])
        sizes = np.cumsum(self._iv[1::2] - self._iv[0::2])
        y = int(np.searchsorted(sizes, k, "right"))
        return int(self._iv[2 * y + 1] - (sizes[y] - k))

    def __contains__(self, x: object) -> bool:
        if not isinstance(x, (int, np.integer)):
            return False
        y = int(np.searchsorted(self._iv, int(x), "right"))
        return y % 2 == 1  # inside [a, b): after an a, before its b

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodeSet):
            if self._len != other._len or not np.array_equal(self._iv, other._iv):
                return False
            mine, theirs = self._ids, other._ids
            return (mine is None) == (theirs is None) and (mine is None or np.array_equal(mine, theirs))
        if isinstance(other, tuple):
            return len(other) == self._len and tuple(self) == other
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"NodeSet({format_intervals(self._iv)!r})"

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        ids = self._ids if self._ids is not None else _ids_of(self._iv)
        return ids.astype(dtype or np.int64)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (NodeSet._trusted, (self._iv.copy(), None if self._ids is None else self._ids.copy()))


def _ids_of(iv: np.ndarray) -> np.ndarray:
    a, b = iv[0::2], iv[1::2]
    sizes = b - a
    if not sizes.size:
        return _EMPTY.copy()
    return np.arange(int(sizes.sum()), dtype=np.int64) + np.repeat(a - (np.cumsum(sizes) - sizes), sizes)


def ids_to_intervals(ids: Iterable[int] | np.ndarray) -> np.ndarray:
    """Node ids (any order; duplicates ignored) as a flat interval array."""
    x = np.unique(np.asarray(ids if isinstance(ids, np.ndarray) else list(ids), dtype=np.int64))
    if not x.size:
        return _EMPTY.copy()
    cut = np.flatnonzero(x[1:] != x[:-1] + 1)
    out = np.empty(2 * (cut.size + 1), dtype=np.int64)
    out[0::2] = x[np.r_[0, cut + 1]]
    out[1::2] = x[np.r_[cut, x.size - 1]] + 1
    return out


def intervals_of(nodes: Sequence[int]) -> np.ndarray:
    """The interval array of a node set: a :class:`NodeSet`'s own, else computed from the ids."""
    return nodes.intervals if isinstance(nodes, NodeSet) else ids_to_intervals(nodes)


def format_intervals(iv: np.ndarray) -> str:
    """The interval string (``"0-3 7"``, :func:`~coschedule.sim.nodesets.format_nodes`) of a flat
    interval array."""
    v = iv.tolist()
    return " ".join(str(a) if b == a + 1 else f"{a}-{b - 1}" for a, b in zip(v[0::2], v[1::2]))


def format_many(iv: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[str]:
    """:func:`format_intervals` of the interval arrays ``iv[lo[k]:hi[k]]``, all at once (only
    those intervals are formatted: a chunk of a run's rows costs the chunk, not the run)."""
    lo, hi = np.asarray(lo, dtype=np.int64) // 2, np.asarray(hi, dtype=np.int64) // 2
    counts = hi - lo
    pairs = np.repeat(lo, counts) + (np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts))
    a, b = iv[0::2][pairs].tolist(), iv[1::2][pairs].tolist()
    words = [str(x) if y == x + 1 else f"{x}-{y - 1}" for x, y in zip(a, b)]
    ends = np.cumsum(counts).tolist()
    return [" ".join(words[e - c: e]) for c, e in zip(counts.tolist(), ends)]


def iv_subset(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether interval array ``a`` lies within ``b``: each interval of ``a`` inside one of ``b``
    (maximal intervals: a range of ``a`` cannot straddle a gap of ``b``)."""
    if not a.size:
        return True
    k = np.searchsorted(b[0::2], a[0::2], "right") - 1
    return bool(np.all(k >= 0) and np.all(a[1::2] <= b[1::2][np.maximum(k, 0)]))


#: ids per piece of :func:`runs_to_intervals`: small temporaries, which the allocator reuses (a
#: month of Mira lists 25 million ids; whole-array temporaries cost more in fresh pages than in work)
PIECE = 1 << 20


def runs_to_intervals(off: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Many node sets at once: set ``k`` is ``ids[off[k]:off[k + 1]]`` (distinct ids, increasing in
    most sets, as the batch kernel writes them). Returns ``(iv_off, iv, unsorted)``: set ``k``'s
    intervals ``iv[iv_off[k]:iv_off[k + 1]]`` and the sets whose ids were not increasing (sorted
    here). Vectorised, by pieces of about :data:`PIECE` ids: ``O(S)`` for ``S`` ids in all, plus a
    sort of the sets not in order."""
    off = np.asarray(off, dtype=np.int64)
    m = off.shape[0] - 1
    # pieces of whole sets, about PIECE ids each
    cuts = np.unique(np.r_[0, np.searchsorted(off, off[0] + PIECE * np.arange(1, (off[-1] - off[0]) // PIECE + 1)),
                           m]) if m else np.zeros(1, dtype=np.int64)
    counts, unsorted = [], []
    # each id starts at most one interval: the intervals go straight into room for that many (the
    # pages never written are never resident), not into pieces concatenated at the end (twice the
    # intervals at once: a million attempts on scattered nodes, gigabytes)
    out = np.empty(2 * int(off[-1] - off[0]) if m else 0, dtype=np.int64)
    used = 0
    for k0, k1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        c, iv, u = _runs_piece(off[k0: k1 + 1], ids)
        counts.append(c)
        out[used: used + iv.shape[0]] = iv
        used += iv.shape[0]
        unsorted.append(u + k0)
    iv_off = np.zeros(m + 1, dtype=np.int64)
    if m:
        np.cumsum(np.concatenate(counts), out=iv_off[1:])
    return (iv_off, out[:used] if used else _EMPTY.copy(),
            np.concatenate(unsorted) if unsorted else _EMPTY.copy())


def _runs_piece(off: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`runs_to_intervals` of the sets ``off`` delimits: the interval entries of each, the
    intervals, the sets not in order (numbered from 0)."""
    m = off.shape[0] - 1
    rel = off - off[0]
    x = np.asarray(ids)[off[0]: off[-1]]
    first = rel[:-1][rel[1:] > rel[:-1]]  # positions where a non-empty set begins
    new = np.zeros(x.shape[0], dtype=bool)
    new[first] = True
    step = np.diff(x)  # node ids < 2**31: no overflow in the kernel's int32
    down = np.flatnonzero((step <= 0) & ~new[1:]) + 1  # inside a set, not increasing
    unsorted = np.unique(np.searchsorted(rel, down, "right") - 1) if down.size else _EMPTY
    if unsorted.size:
        x = x.astype(np.int64)  # a copy: sort those sets in place
        for k in unsorted.tolist():
            x[rel[k]: rel[k + 1]].sort()
        step = np.diff(x)
    cut = new
    cut[1:] |= step != 1
    starts = np.flatnonzero(cut)
    ends = np.append(starts[1:], x.shape[0])[: starts.shape[0]] - 1
    iv = np.empty(2 * starts.shape[0], dtype=np.int64)
    iv[0::2] = x[starts]
    iv[1::2] = x[ends].astype(np.int64) + 1
    owner = np.searchsorted(rel, starts, "right") - 1
    return 2 * np.bincount(owner, minlength=m), iv, unsorted


def nodesets(off: np.ndarray, ids: np.ndarray) -> list[NodeSet]:
    """The sets ``ids[off[k]:off[k + 1]]`` (distinct ids) as :class:`NodeSet` s, each in its order."""
    iv_off, iv, unsorted = runs_to_intervals(off, ids)
    bounds = iv_off.tolist()
    out = [NodeSet._trusted(iv[bounds[k]: bounds[k + 1]]) for k in range(len(bounds) - 1)]
    for k in unsorted.tolist():
        out[k] = NodeSet._trusted(out[k].intervals, np.asarray(ids[off[k]: off[k + 1]], dtype=np.int64))
    return out
