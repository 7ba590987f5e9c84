"""The geometry of a 3-D torus machine ([Oliner2004] §3.1, §3.3; BlueGene/L).

A torus of shape ``(X, Y, Z)`` has ``N = X·Y·Z`` nodes with wrap-around links in each
dimension. Node ``(i, j, k)`` has the flat index ``i·Y·Z + j·Z + k`` (numpy's C order: an
occupancy array of the torus's shape, raveled, is indexed by node).

A *partition* is a :class:`Box`: a base ``(i, j, k)`` and a shape ``(x, y, z)`` with
``1 <= x <= X`` (and so on); it holds the nodes ``((i + a) mod X, (j + b) mod Y, (k + c) mod Z)``
for ``0 <= a < x, 0 <= b < y, 0 <= c < z`` -- contiguous and rectangular, possibly wrapping
([Oliner2004] §3.3, NOTES.md 15). A box as wide as the torus in a dimension holds the same nodes
whatever its base there: its *canonical* base is 0 in that dimension, so every distinct node set
is one ``(base, shape)`` (:meth:`Box.canonical`).

The *sizes that have a box* are the products ``x·y·z`` of shapes that fit; a job of another
size (a prime above every dimension, say) has no partition: :func:`box_size_at_least` gives the
smallest size above it that has one (Krevat's rounding, NOTES.md 17).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from ..errors import InvalidInstance

__all__ = [
    "EMPTY_BOX",
    "Box",
    "Dims",
    "box_from_nodes",
    "box_shapes",
    "box_size_at_least",
    "box_sizes",
    "check_dims",
    "check_occupancy",
    "format_dims",
    "parse_dims",
]

Dims = tuple[int, int, int]


class Box(NamedTuple):
    """A partition of the torus: ``base`` ``(i, j, k)`` and ``shape`` ``(x, y, z)`` (module
    docstring). It unpacks as ``base, shape``."""

    base: Dims
    shape: Dims

    @property
    def size(self) -> int:
        x, y, z = self.shape
        return x * y * z

    def coords(self, dims: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The node coordinates along each dimension (each a cyclic interval)."""
        return tuple(  # type: ignore[return-value]
            (b + np.arange(s)) % d for b, s, d in zip(self.base, self.shape, dims)
        )

    def nodes(self, dims: Sequence[int]) -> np.ndarray:
        """The flat indices of its nodes, sorted."""
        _, Y, Z = dims
        ci, cj, ck = self.coords(dims)
        flat = (ci[:, None, None] * (Y * Z) + cj[None, :, None] * Z + ck[None, None, :]).reshape(-1)
        return np.sort(flat)

    def mask(self, dims: Sequence[int]) -> np.ndarray:
        """A boolean array of the torus's shape, True on its nodes."""
        m = np.zeros(tuple(dims), dtype=bool)
        ci, cj, ck = self.coords(dims)
        m[np.ix_(ci, cj, ck)] = True
        return m

    def canonical(self, dims: Sequence[int]) -> Box:
        """The same node set with base 0 where it is as wide as the torus, bases reduced mod
        the dimension."""
        base = tuple(0 if s >= d else b % d for b, s, d in zip(self.base, self.shape, dims))
        return Box(base, self.shape)  # type: ignore[arg-type]

    def label(self) -> str:
        """``(i,j,k)+xXyXz``, e.g. ``(0,2,6)+2x2x4``."""
        i, j, k = self.base
        return f"({i},{j},{k})+{format_dims(self.shape)}"


#: the box of size 0 (:func:`~coschedule.torus.max_free_partition` of a full torus)
EMPTY_BOX = Box((0, 0, 0), (0, 0, 0))

_DIMS = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def parse_dims(text: str) -> Dims:
    """``"4x4x8"`` as ``(4, 4, 8)``; an error names the text."""
    m = _DIMS.match(text)
    if not m or min(int(g) for g in m.groups()) < 1:
        raise InvalidInstance(f"torus shape {text!r}: expected XxYxZ with positive integers, e.g. 4x4x8")
    return check_dims(tuple(int(g) for g in m.groups()))


def format_dims(dims: Sequence[int]) -> str:
    return "x".join(str(int(d)) for d in dims)


#: the most nodes a torus may have: 64 times BlueGene/L's 65,536 (the partition finders keep
#: arrays of the torus's size per box shape; past it they would not fit a machine's memory)
MAX_TORUS_NODES = 2**22


def check_dims(dims: Iterable[int]) -> Dims:
    """Three positive integers whose product is at most :data:`MAX_TORUS_NODES`."""
    t = tuple(dims)
    if len(t) != 3 or any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1 for d in t):
        raise InvalidInstance(f"torus shape {t!r}: expected three positive integers (X, Y, Z)")
    size = int(t[0]) * int(t[1]) * int(t[2])
    if size > MAX_TORUS_NODES:
        raise InvalidInstance(f"torus shape {'x'.join(str(int(d)) for d in t)}: {size:,} nodes, more than "
                              f"{MAX_TORUS_NODES:,} (64 times BlueGene/L's 65,536)")
    return (int(t[0]), int(t[1]), int(t[2]))


def check_occupancy(occupied: object) -> np.ndarray:
    """A 3-D boolean array (True = busy or down); anything else is an error that says what it
    got."""
    a = np.asarray(occupied)
    if a.ndim != 3 or min(a.shape) < 1:
        raise InvalidInstance(f"occupancy: expected a 3-D array of the torus's shape, got shape {a.shape}")
    if a.dtype != bool:
        if not np.issubdtype(a.dtype, np.integer) or not np.isin(a, (0, 1)).all():
            raise InvalidInstance(f"occupancy: expected booleans (or 0/1), got {a.dtype}")
        a = a.astype(bool)
    return a


@functools.lru_cache(maxsize=4096)
def _shapes(size: int, dims: Dims) -> tuple[Dims, ...]:
    X, Y, Z = dims
    out = []
    for x in range(1, min(X, size) + 1):
        if size % x:
            continue
        rest = size // x
        for y in range(1, min(Y, rest) + 1):
            if rest % y:
                continue
            z = rest // y
            if z <= Z:
                out.append((x, y, z))
    return tuple(out)


def box_shapes(size: int, dims: Sequence[int]) -> tuple[Dims, ...]:
    """Every shape ``(x, y, z)`` with ``x·y·z = size`` that fits the torus (the divisor triples
    of the appendix's SHAPES), in lexicographic order; empty when there is none."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise InvalidInstance(f"partition size must be a positive integer, got {size!r}")
    return _shapes(int(size), check_dims(dims))


@functools.lru_cache(maxsize=256)
def _sizes(dims: Dims) -> np.ndarray:
    X, Y, Z = dims
    s = np.unique(np.arange(1, X + 1)[:, None, None] * np.arange(1, Y + 1)[None, :, None]
                  * np.arange(1, Z + 1)[None, None, :])
    s.setflags(write=False)
    return s


def box_sizes(dims: Sequence[int]) -> np.ndarray:
    """The sizes that have at least one box shape in the torus, increasing."""
    return _sizes(check_dims(dims))


def box_size_at_least(size: int, dims: Sequence[int]) -> int | None:
    """The smallest size ``>= size`` that has a box shape (``size`` itself when it has one);
    ``None`` when ``size`` exceeds the torus."""
    s = _sizes(check_dims(dims))
    k = int(np.searchsorted(s, size))
    return int(s[k]) if k < s.size else None


def _cyclic_interval(values: np.ndarray, d: int) -> tuple[int, int] | None:
    """``(start, length)`` when the distinct ``values`` (in ``0..d-1``) form one cyclic
    interval, else None; a full dimension starts at 0."""
    v = np.unique(values)
    n = v.size
    if n == d:
        return 0, d
    present = np.zeros(d, dtype=bool)
    present[v] = True
    starts = np.flatnonzero(present & ~np.roll(present, 1))
    if starts.size != 1:
        return None
    return int(starts[0]), n


def box_from_nodes(nodes: Iterable[int], dims: Sequence[int]) -> Box | None:
    """The box whose node set is exactly ``nodes`` (flat indices), canonical; ``None`` when the
    set is no contiguous rectangular (wrapping) partition of the torus, or is empty."""
    X, Y, Z = check_dims(dims)
    idx = np.unique(np.asarray(list(nodes), dtype=np.int64))
    if idx.size == 0 or idx[0] < 0 or idx[-1] >= X * Y * Z:
        return None
    i, rest = np.divmod(idx, Y * Z)
    j, k = np.divmod(rest, Z)
    parts = [_cyclic_interval(c, d) for c, d in ((i, X), (j, Y), (k, Z))]
    if any(p is None for p in parts):
        return None
    base = tuple(p[0] for p in parts)  # type: ignore[index]
    shape = tuple(p[1] for p in parts)  # type: ignore[index]
    if math.prod(shape) != idx.size:  # the coordinates span a box the nodes do not fill
        return None
    return Box(base, shape)  # type: ignore[arg-type]
