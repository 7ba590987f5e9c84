"""Every box of a small torus as a bitmask: the placement queries of a scheduler in a few numpy
operations ([Oliner2004] §5.1-5.2; the torus of the simulations has 128 units).

:class:`BoxIndex` lists every distinct box (canonical bases, :mod:`.geometry`) of a torus once,
sorted by size (largest first), then shape, then base, with its nodes packed in ``W =
ceil(N / 64)`` 64-bit words. An occupancy packs the same way (:meth:`BoxIndex.pack`); then

* :meth:`~BoxIndex.free_boxes`: which boxes are free -- one AND over the table;
* :meth:`~BoxIndex.mfp_size`: the size of the first free box (the MFP);
* :meth:`~BoxIndex.of_size`: the free boxes of a size, in shape-then-base order (the order of
  :func:`~coschedule.torus.free_partitions`);
* :meth:`~BoxIndex.mfp_after`: for each candidate box, the MFP size once it is taken -- the
  largest free box disjoint from it, found by scanning the free boxes from the largest, in
  blocks, until every candidate has its answer (usually within the first block).

The table has ``B = Π_d (d (d - 1) + 1)`` boxes (9,633 for ``4×4×8``, 185,193 for ``8×8×8``):
:data:`MAX_BOXES` bounds it; a larger torus uses :class:`GenericIndex`, the same queries on the
finder of :mod:`.finder` (slower per query, no table). :func:`make_index` picks.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Protocol

import numpy as np

from .finder import free_partitions, max_free_partition
from .geometry import Box, Dims, check_dims

__all__ = ["MAX_BOXES", "BoxIndex", "GenericIndex", "PartitionIndex", "make_index"]

class PartitionIndex(Protocol):
    """What a scheduler asks of a torus's boxes (:class:`BoxIndex` and :class:`GenericIndex`):
    a packed occupancy ``occ``, the ``free`` state it gives, and candidate boxes as opaque
    ``rows`` (table rows, or :class:`~coschedule.torus.geometry.Box` es)."""

    dims: Dims
    n_nodes: int

    def pack(self, occupied: np.ndarray) -> np.ndarray: ...
    def free_boxes(self, occ: np.ndarray) -> np.ndarray: ...
    def mfp_size(self, free: np.ndarray) -> int: ...
    def has_free(self, occ: np.ndarray, size: int) -> bool: ...
    def of_size(self, free: np.ndarray, size: int) -> Any: ...
    def occupy(self, occ: np.ndarray, row: Any) -> np.ndarray: ...
    def box(self, row: Any) -> Box: ...
    def nodes(self, row: Any) -> list[int]: ...
    def hits(self, rows: Any, node_mask: np.ndarray) -> np.ndarray: ...
    def mfp_after(self, free: np.ndarray, rows: Any, *, floor: int = 0, first_only: bool = False) -> np.ndarray: ...


#: the largest table :func:`make_index` builds (boxes)
MAX_BOXES = 250_000
_BLOCK = 256


def _popcount(words: np.ndarray) -> np.ndarray:
    """The set bits of each row of 64-bit ``words`` (``np.bitwise_count`` is numpy >= 2.0; the
    toolkit supports 1.26)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words).sum(axis=1).astype(np.int64)
    bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8).reshape(words.shape[0], -1), axis=1)
    return bits.sum(axis=1, dtype=np.int64)


def _box_count(dims: Dims) -> int:
    return math.prod(d * (d - 1) + 1 for d in dims)


class BoxIndex:
    """The boxes of a torus of shape ``dims`` as bitmasks (module docstring)."""

    def __init__(self, dims: Dims) -> None:
        dims = check_dims(dims)
        self.dims = dims
        X, Y, Z = dims
        self.n_nodes = N = X * Y * Z
        self.words = W = (N + 63) // 64
        per_dim = []
        for d in dims:  # (extent, base) pairs of one dimension: base 0 only for a full extent
            extents = np.repeat(np.arange(1, d), d)
            bases = np.tile(np.arange(d), d - 1)
            per_dim.append((np.r_[extents, d], np.r_[bases, 0]))
        (ex, bx), (ey, by), (ez, bz) = per_dim
        grid = np.meshgrid(np.arange(ex.size), np.arange(ey.size), np.arange(ez.size), indexing="ij")
        gx, gy, gz = (g.ravel() for g in grid)
        shape = np.stack([ex[gx], ey[gy], ez[gz]], axis=1)
        base = np.stack([bx[gx], by[gy], bz[gz]], axis=1)
        size = shape.prod(axis=1)
        order = np.lexsort((base[:, 2], base[:, 1], base[:, 0], shape[:, 2], shape[:, 1], shape[:, 0], -size))
        self.shape = shape[order]
        self.base = base[order]
        self.size = size[order]
        B = self.size.size
        # bitmasks: per dimension, which coordinates each (extent, base) covers, then their product
        bits = np.zeros((B, W), dtype=np.uint64)
        cover = [np.zeros((e.size, d), dtype=bool) for (e, _), d in zip(per_dim, dims)]
        for (e, b), c, d in zip(per_dim, cover, dims):
            for r in range(e.size):
                c[r, (b[r] + np.arange(e[r])) % d] = True
        cx, cy, cz = (c[g[order]] for c, g in zip(cover, (gx, gy, gz)))
        for start in range(0, B, 4096):  # a block of boxes at a time: (blk, X, Y, Z) booleans
            sl = slice(start, min(start + 4096, B))
            m = (cx[sl, :, None, None] & cy[sl, None, :, None] & cz[sl, None, None, :]).reshape(-1, N)
            bits[sl] = self._pack_rows(m)
        self.bits = bits
        self._cols = [np.ascontiguousarray(bits[:, w]) for w in range(W)]  # one word of every box
        # boxes of each size: a contiguous range of rows (sizes decreasing)
        sizes, first = np.unique(-self.size, return_index=True)
        self._range = {int(-s): (int(f), int(f2)) for s, f, f2 in zip(sizes, first, np.r_[first[1:], B])}

    def _pack_rows(self, m: np.ndarray) -> np.ndarray:
        W = self.words
        padded = np.zeros((m.shape[0], W * 64), dtype=bool)
        padded[:, :m.shape[1]] = m
        return np.packbits(padded, axis=1, bitorder="little").view(np.uint64).reshape(m.shape[0], W)

    def __len__(self) -> int:
        return int(self.size.size)

    def pack(self, occupied: np.ndarray) -> np.ndarray:
        """The occupancy (any shape with ``N`` booleans in node order) as ``W`` words."""
        return self._pack_rows(np.asarray(occupied, dtype=bool).reshape(1, -1))[0]

    def box(self, row: int) -> Box:
        return Box(tuple(self.base[row].tolist()), tuple(self.shape[row].tolist()))  # type: ignore[arg-type]

    def rows_of_size(self, size: int) -> tuple[int, int]:
        """The range of rows of the boxes of ``size`` (empty when no shape has it)."""
        return self._range.get(int(size), (0, 0))

    def free_boxes(self, occ_bits: np.ndarray) -> np.ndarray:
        """A boolean per box: free under the packed occupancy."""
        cols = self._cols
        acc = cols[0] & occ_bits[0]
        for w in range(1, self.words):
            acc |= cols[w] & occ_bits[w]
        return acc == 0

    def mfp_size(self, free: np.ndarray) -> int:
        """The MFP's size: the first free box's (rows sorted by size, largest first)."""
        k = int(np.argmax(free)) if free.size else 0
        return int(self.size[k]) if free.size and free[k] else 0

    def has_free(self, occ_bits: np.ndarray, size: int) -> bool:
        """Whether a box of ``size`` is free (only those boxes are tested)."""
        lo, hi = self.rows_of_size(size)
        if lo == hi:
            return False
        acc = self._cols[0][lo:hi] & occ_bits[0]
        for w in range(1, self.words):
            acc |= self._cols[w][lo:hi] & occ_bits[w]
        return not bool(acc.all())

    def of_size(self, free: np.ndarray, size: int) -> np.ndarray:
        """The rows of the free boxes of ``size``, in shape-then-base order."""
        lo, hi = self.rows_of_size(size)
        return lo + np.flatnonzero(free[lo:hi])

    def occupy(self, occ_bits: np.ndarray, row: int) -> np.ndarray:
        """The packed occupancy once box ``row`` is taken."""
        return occ_bits | self.bits[row]

    def nodes(self, row: int) -> list[int]:
        """The flat node indices of box ``row``, increasing."""
        return np.flatnonzero(np.unpackbits(self.bits[row].view(np.uint8), bitorder="little")).tolist()

    def hits(self, rows: np.ndarray, node_mask: np.ndarray) -> np.ndarray:
        """For each row, how many of its nodes ``node_mask`` (``N`` booleans) marks."""
        mb = self.pack(node_mask)
        return _popcount(self.bits[np.asarray(rows, dtype=np.int64)] & mb)

    def mfp_after(self, free: np.ndarray, rows: np.ndarray, *, floor: int = 0, first_only: bool = False) -> np.ndarray:
        """For each row of ``rows`` (free boxes), the MFP size once that box is taken.

        Only values ``>= floor`` are sought: a row whose value is smaller gets -1. With
        ``first_only``, only the rows of the largest value are sought (the others get -1): what
        a least-loss choice needs, without scanning on for the rows that lose more. Either way
        a value that is not -1 is exact."""
        rows = np.asarray(rows, dtype=np.int64)
        out = np.full(rows.size, -1 if (floor > 0 or first_only) else 0, dtype=np.int64)
        if not rows.size:
            return out
        pending = np.arange(rows.size)
        cand = self.bits[rows]
        free_rows = np.flatnonzero(free)
        sizes = self.size[free_rows]  # decreasing
        end = int(np.searchsorted(-sizes, -floor, side="right")) if floor > 0 else free_rows.size
        start, block = 0, 4
        while start < end:  # blocks of 4, 16, 64, 256, 256 ... free boxes
            blk = free_rows[start:min(start + block, end)]
            start += block
            block = min(4 * block, _BLOCK)
            c, f = cand[pending], self.bits[blk]
            inter = c[:, None, 0] & f[None, :, 0]
            for w in range(1, self.words):
                inter |= c[:, None, w] & f[None, :, w]
            disjoint = inter == 0
            hit = disjoint.any(axis=1)
            if hit.any():
                first = np.argmax(disjoint[hit], axis=1)
                found = self.size[blk[first]]
                out[pending[hit]] = found
                pending = pending[~hit]
                if not pending.size:
                    break
                if first_only and end > start:  # only the boxes as large as the best found
                    end = min(end, int(np.searchsorted(-sizes, -int(out.max()), side="right")))
        if first_only:
            if floor <= 0 and (out < 0).all():  # no free box is disjoint from any: all 0, all tied
                out[:] = 0
            out[out < out.max()] = -1
        return out


class GenericIndex:
    """The queries of :class:`BoxIndex` on a torus too large for its table, through the finder
    (a box is then its own identity: ``rows`` are lists of :class:`Box`)."""

    def __init__(self, dims: Dims) -> None:
        self.dims = check_dims(dims)
        self.n_nodes = math.prod(self.dims)

    def pack(self, occupied: np.ndarray) -> np.ndarray:
        return np.asarray(occupied, dtype=bool).reshape(self.dims).copy()

    def free_boxes(self, occ: np.ndarray) -> np.ndarray:
        return occ  # the occupancy itself stands for "which boxes are free"

    def mfp_size(self, occ: np.ndarray) -> int:
        return max_free_partition(occ).size

    def has_free(self, occ: np.ndarray, size: int) -> bool:
        return bool(free_partitions(occ, size))

    def of_size(self, occ: np.ndarray, size: int) -> list[Box]:
        return free_partitions(occ, size)

    def occupy(self, occ: np.ndarray, b: Box) -> np.ndarray:
        return occ | b.mask(self.dims)

    def box(self, b: Box) -> Box:
        return b

    def nodes(self, b: Box) -> list[int]:
        return b.nodes(self.dims).tolist()

    def hits(self, boxes: list[Box], node_mask: np.ndarray) -> np.ndarray:
        m = np.asarray(node_mask, dtype=bool).reshape(self.dims)
        return np.array([int(np.count_nonzero(m[b.mask(self.dims)])) for b in boxes], dtype=np.int64)

    def mfp_after(self, occ: np.ndarray, boxes: list[Box], *, floor: int = 0, first_only: bool = False) -> np.ndarray:
        out = np.zeros(len(boxes), dtype=np.int64)
        for k, b in enumerate(boxes):
            o = occ.copy()
            o[b.mask(self.dims)] = True
            out[k] = max_free_partition(o).size
        out[out < floor] = -1
        if first_only and out.size:
            out[out < out.max()] = -1
        return out


@functools.lru_cache(maxsize=8)
def make_index(dims: Dims) -> PartitionIndex:
    """A :class:`BoxIndex` when the torus has at most :data:`MAX_BOXES` boxes, else a
    :class:`GenericIndex` (cached per shape: a table is built once per process)."""
    dims = check_dims(dims)
    return BoxIndex(dims) if _box_count(dims) <= MAX_BOXES else GenericIndex(dims)
