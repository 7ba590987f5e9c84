"""Node sets as interval strings, the notation of Batsim's ``jobs.csv`` and of procset/evalys.

``"0-3 7 10-12"`` is the nodes 0, 1, 2, 3, 7, 10, 11, 12: space-separated intervals ``a-b``
(``a <= b``) or single nodes, in increasing order, maximal (adjacent intervals are merged), with
0-based node indices. The empty set is ``""``.

>>> format_nodes([7, 0, 1, 2, 3, 11, 10, 12])
'0-3 7 10-12'
>>> parse_nodes("0-3 7")
[0, 1, 2, 3, 7]

In computations (the node-set profile, :mod:`.nodeset_profile`) a node set is a flat int64
interval list ``[a0, b0, a1, b1, ...]``: sorted disjoint half-open intervals ``[a, b)``, maximal
(procset's model); the compiled kernels ``_iv_*`` below take a list as ``(array, offset,
entries)`` and write their result at an offset of an output array.

>>> intervals([7, 0, 1, 2, 3, 11, 10, 12]).tolist()
[0, 4, 7, 8, 10, 13]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from coschedule.jit import njit

from ..errors import FormatError
from .intervals import NodeSet, format_intervals

__all__ = ["format_nodes", "intervals", "nodes_of", "parse_nodes"]


def format_nodes(nodes: Iterable[int]) -> str:
    """The interval string of a set of node indices (duplicates ignored; order irrelevant); of a
    :class:`~coschedule.sim.intervals.NodeSet`, straight from its intervals."""
    if isinstance(nodes, NodeSet):
        return format_intervals(nodes.intervals)
    values = sorted({int(x) for x in nodes})
    if values and values[0] < 0:
        raise ValueError(f"node indices must be >= 0, got {values[0]}")
    parts: list[str] = []
    k = 0
    while k < len(values):
        start = values[k]
        while k + 1 < len(values) and values[k + 1] == values[k] + 1:
            k += 1
        parts.append(str(start) if values[k] == start else f"{start}-{values[k]}")
        k += 1
    return " ".join(parts)


def parse_nodes(text: str, *, where: str = "node set") -> list[int]:
    """The sorted node indices of an interval string; accepts any order and overlaps (as procset
    does) and reports a malformed token with ``where``."""
    out: set[int] = set()
    for token in text.split():
        a, dash, b = token.partition("-")
        try:
            lo = int(a)
            hi = int(b) if dash else lo
        except ValueError:
            raise FormatError(f"{where}: {token!r} is not a node index or an interval a-b") from None
        if lo < 0 or hi < lo or not a.isdigit() or (dash and not b.isdigit()):
            raise FormatError(f"{where}: {token!r} is not a node index or an interval a-b with 0 <= a <= b")
        out.update(range(lo, hi + 1))
    return sorted(out)


def intervals(nodes: Iterable[int]) -> np.ndarray:
    """Node ids (any order, distinct) as a flat interval list ``[a0, b0, a1, b1, ...]``."""
    ids = np.unique(np.fromiter((int(x) for x in nodes), dtype=np.int64))
    out = np.empty(2 * ids.shape[0] + 2, dtype=np.int64)
    return out[: _ids_to_iv(ids, 0, ids.shape[0], out)]


def nodes_of(iv: Sequence[tuple[int, int]] | np.ndarray) -> list[int]:
    """The node ids of intervals ``((a, b), ...)`` or of a flat list."""
    flat = np.asarray(iv, dtype=np.int64).reshape(-1)
    return [x for y in range(0, flat.shape[0], 2) for x in range(int(flat[y]), int(flat[y + 1]))]


# ------------------------------------------------------------------------------ interval lists
@njit(cache=True)
def _iv_size(a: np.ndarray, ao: int, an: int) -> int:
    s = 0
    for y in range(ao, ao + an, 2):
        s += a[y + 1] - a[y]
    return s


@njit(cache=True)
def _iv_diff(a: np.ndarray, ao: int, an: int, b: np.ndarray, bo: int, bn: int, out: np.ndarray, oo: int) -> int:
    """``A \\ B`` into ``out[oo:]``; returns the entries written."""
    w = oo
    y = bo
    be = bo + bn
    for x in range(ao, ao + an, 2):
        lo = a[x]
        hi = a[x + 1]
        while y < be and b[y + 1] <= lo:
            y += 2
        z = y
        while z < be and b[z] < hi:
            if b[z] > lo:
                out[w] = lo
                out[w + 1] = b[z]
                w += 2
            lo = max(lo, b[z + 1])
            if lo >= hi:
                break
            z += 2
        if lo < hi:
            out[w] = lo
            out[w + 1] = hi
            w += 2
    return w - oo


@njit(cache=True)
def _iv_union(a: np.ndarray, ao: int, an: int, b: np.ndarray, bo: int, bn: int, out: np.ndarray, oo: int) -> int:
    """``A | B`` into ``out[oo:]``, adjacent intervals merged; returns the entries written."""
    w = oo
    x = ao
    y = bo
    ae = ao + an
    be = bo + bn
    while x < ae or y < be:
        if y >= be or (x < ae and a[x] <= b[y]):
            lo = a[x]
            hi = a[x + 1]
            x += 2
        else:
            lo = b[y]
            hi = b[y + 1]
            y += 2
        if w > oo and out[w - 1] >= lo:
            out[w - 1] = max(out[w - 1], hi)
        else:
            out[w] = lo
            out[w + 1] = hi
            w += 2
    return w - oo


@njit(cache=True)
def _iv_inter(a: np.ndarray, ao: int, an: int, b: np.ndarray, bo: int, bn: int, out: np.ndarray, oo: int) -> int:
    """``A & B`` into ``out[oo:]`` (not ``a`` or ``b`` themselves); returns the entries written."""
    w = oo
    x = ao
    y = bo
    ae = ao + an
    be = bo + bn
    while x < ae and y < be:
        lo = max(a[x], b[y])
        hi = min(a[x + 1], b[y + 1])
        if lo < hi:
            out[w] = lo
            out[w + 1] = hi
            w += 2
        if a[x + 1] < b[y + 1]:
            x += 2
        else:
            y += 2
    return w - oo


@njit(cache=True)
def _iv_inter_size(a: np.ndarray, ao: int, an: int, b: np.ndarray, bo: int, bn: int) -> int:
    """``|A & B|``, nothing written."""
    s = 0
    x = ao
    y = bo
    ae = ao + an
    be = bo + bn
    while x < ae and y < be:
        lo = max(a[x], b[y])
        hi = min(a[x + 1], b[y + 1])
        if lo < hi:
            s += hi - lo
        if a[x + 1] < b[y + 1]:
            x += 2
        else:
            y += 2
    return s


@njit(cache=True)
def _iv_lowest(a: np.ndarray, ao: int, an: int, p: int, out: np.ndarray, oo: int) -> int:
    """The ``p`` lowest nodes of ``A`` (it has at least ``p``) into ``out[oo:]``."""
    w = oo
    need = p
    for x in range(ao, ao + an, 2):
        if need <= 0:
            break
        lo = a[x]
        hi = min(a[x + 1], lo + need)
        out[w] = lo
        out[w + 1] = hi
        w += 2
        need -= hi - lo
    return w - oo


@njit(cache=True)
def _iv_same(a: np.ndarray, ao: int, an: int, b: np.ndarray, bo: int, bn: int) -> bool:
    if an != bn:
        return False
    for y in range(an):
        if a[ao + y] != b[bo + y]:
            return False
    return True


@njit(cache=True)
def _ids_to_iv(ids: np.ndarray, lo: int, count: int, out: np.ndarray) -> int:
    """Sorted distinct node ids ``ids[lo : lo + count]`` as intervals into ``out``; returns the
    entries written. A run of consecutive ids ``ids[y .. z]`` is the ``z`` with
    ``ids[z] - ids[y] = z - y`` (distinct sorted ids), found by doubling steps then halving
    them: a job's nodes, a few runs of thousands of ids, cost a few steps per run."""
    w = 0
    y = lo
    end = lo + count
    while y < end:
        a = ids[y]
        z = y  # ids[y .. z] consecutive
        step = 1
        while z + step < end and ids[z + step] - a == z + step - y:
            z += step
            step *= 2
        hi = min(z + step, end) - 1  # the run ends in [z, hi]
        while z < hi:
            mid = (z + hi + 1) >> 1
            if ids[mid] - a == mid - y:
                z = mid
            else:
                hi = mid - 1
        out[w] = a
        out[w + 1] = ids[z] + 1
        w += 2
        y = z + 1
    return w
