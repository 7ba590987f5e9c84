"""Free partitions and the maximal free partition (MFP) of a torus ([Oliner2004] §5.1, §5.2.1,
Appendix §9), three ways (and a variant of the appendix's) that agree box for box (tests).

Every function takes ``occupied``, a boolean array of the torus's shape (True = busy or down).
A partition of size ``s`` is *free* when none of its nodes is occupied. ``free_partitions``
returns every free :class:`~coschedule.torus.geometry.Box` of size ``s``, each distinct node set
once (canonical bases: 0 where the box is as wide as the torus), sorted by shape then base;
``max_free_partition`` returns one largest free box (the MFP), or the empty box of size 0 when
every node is occupied.

``method="naive"``
    The exhaustive search of earlier work (Appendix: "finding all free partitions of any size,
    and then selecting the subset of partitions of size s"): every shape and every base of the
    torus, each box checked node by node (stopping at the first occupied node); ``O(N^2)``
    boxes of up to ``N`` nodes on an ``M×M×M`` torus, ``O(N^3)`` node checks (``N = M^3``: the
    appendix's ``O(M^9)``). Small tori only: the reference of the tests.
``method="appendix"``
    The appendix's algorithm as printed: the SHAPES of size ``s`` (divisor triples, computed as
    needed), every base of each shape in increasing ``(i, j, k)`` order, a direct freeness check
    that counts the busy nodes of the box, all of them (the text checks "each element in PARTS"
    and describes no early stop); a dimension the shape fills is not searched further than base
    0 (the appendix's "no need to search in any of the dimensions further, once we hit the value
    for that dimension of required length"). It describes no MFP procedure: its MFP is the
    largest ``s`` that has a free partition, trying ``s = N, N - 1, ...`` (sizes with no shape,
    and sizes above the number of free nodes, skipped).
``method="appendix-early"``
    The same, with the one obvious improvement the text does not print: a box's check stops at
    its first occupied node. Not the paper's algorithm; measured beside it
    (``coschedule bench torus``) so that the fast method is not only compared with a strawman.
``method="fast"`` (default)
    Ours. Free partitions: window ANDs of the free mask (:class:`_Erosions`): the mask of the
    bases whose ``1×1×z`` box is free is the AND of ``z`` cyclic shifts of the free mask along
    the last axis, built by binary splitting (``E_{a+b}(k) = E_a(k) & E_b(k + a)``); then along
    ``y`` on that, then along ``x``; each window length is computed once per query and shared
    by the shapes that need it, and a window with no True ends every shape that needs it. So
    one numpy expression tests every base of a shape at once, wrapping or not: at most three
    windows per shape, each ``O(N)`` numpy work once its two halves are known (memoised, so
    ``O(log M)`` extra lengths per window length). MFP: a free box of shape ``(x, y, z)`` at a
    base means every smaller shape is free there, so the largest free ``z`` for given ``(x, y)``
    (the longest axis last) is non-increasing in ``x`` and ``y``. For each ``(x, y)`` the mask
    ``F_xy`` of the ``(i, j, k)`` whose ``x×y×1`` box is free is one AND of two rolled masks of
    the previous ones; the longest cyclic run of True along the last axis of ``F_xy`` is the
    largest free ``z``, found from the positions of the False entries in one vectorised pass. A
    pair whose bound ``x·y·min(z(x-1,y), z(x,y-1))`` cannot beat the best is not measured; a
    ``y`` whose mask is empty ends the row, an ``x`` whose mask is empty ends the search. The
    cost is ``O(N)`` per pair measured, so it depends on the occupancy, not on the number of
    shapes: on random occupancies most pairs are cut off early (``coschedule bench torus``
    measures it; the paper's "O(M^3)" for the MFP and the appendix's bounds disagree, we quote
    neither).

Ties (several largest free boxes): ``naive``, ``appendix`` and ``appendix-early`` return the
first in their order (shape then base, lexicographic); ``fast`` the first it meets (its smallest
``(x, y)``, then the lowest row and start). Only the size is the same across methods.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

import numpy as np

from ..errors import unknown_name
from .geometry import EMPTY_BOX, Box, Dims, box_shapes, box_sizes, check_occupancy

__all__ = ["FINDERS", "free_partitions", "max_free_partition"]


# --------------------------------------------------------------------- naive (the reference)
def _box_free(occ: np.ndarray, base: Dims, shape: Dims) -> bool:
    """Node by node, stopping at the first occupied node."""
    X, Y, Z = occ.shape
    i0, j0, k0 = base
    x, y, z = shape
    for a in range(x):
        i = (i0 + a) % X
        for b in range(y):
            j = (j0 + b) % Y
            for c in range(z):
                if occ[i, j, (k0 + c) % Z]:
                    return False
    return True


def _bases(shape: Dims, dims: Dims) -> itertools.product:
    """Every distinct base of ``shape``: 0 only where it fills the dimension."""
    return itertools.product(*(range(1) if s == d else range(d) for s, d in zip(shape, dims)))


def _naive_all_free(occ: np.ndarray) -> list[Box]:
    dims: Dims = occ.shape  # type: ignore[assignment]
    free = []
    for shape in itertools.product(*(range(1, d + 1) for d in dims)):
        for base in _bases(shape, dims):  # type: ignore[arg-type]
            if _box_free(occ, base, shape):  # type: ignore[arg-type]
                free.append(Box(base, shape))  # type: ignore[arg-type]
    return free


def _naive_free(occ: np.ndarray, size: int) -> list[Box]:
    return [b for b in _naive_all_free(occ) if b.size == size]


def _naive_mfp(occ: np.ndarray) -> Box:
    best = EMPTY_BOX
    for b in _naive_all_free(occ):
        if b.size > best.size:
            best = b
    return best


# --------------------------------------------------------------------- the appendix as printed
def _busy_nodes(occ: np.ndarray, base: Dims, shape: Dims) -> int:
    """Node by node, all of them: the printed algorithm checks each element of PARTS and
    describes no early stop."""
    X, Y, Z = occ.shape
    i0, j0, k0 = base
    x, y, z = shape
    busy = 0
    for a in range(x):
        i = (i0 + a) % X
        for b in range(y):
            j = (j0 + b) % Y
            for c in range(z):
                busy += bool(occ[i, j, (k0 + c) % Z])
    return busy


def _appendix_free(occ: np.ndarray, size: int, *, early_stop: bool = False) -> list[Box]:
    dims: Dims = occ.shape  # type: ignore[assignment]
    out = []
    for shape in box_shapes(size, dims):
        for base in _bases(shape, dims):
            if (_box_free(occ, base, shape) if early_stop  # type: ignore[arg-type]
                    else _busy_nodes(occ, base, shape) == 0):  # type: ignore[arg-type]
                out.append(Box(base, shape))  # type: ignore[arg-type]
    return out


def _appendix_mfp(occ: np.ndarray, *, early_stop: bool = False) -> Box:
    for s in box_sizes(occ.shape)[::-1].tolist():
        if s > occ.size - int(np.count_nonzero(occ)):
            continue  # more nodes than are free: no box (a check the printed text implies)
        found = _appendix_free(occ, s, early_stop=early_stop)
        if found:
            return found[0]
    return EMPTY_BOX


# --------------------------------------------------------------------- fast (ours)
class _Erosions:
    """Window ANDs of the free mask: ``get((x, y, z))`` is True at ``(i, j, k)`` when the box of
    that shape at that base is free. Computed along ``z``, then ``y``, then ``x``, by binary
    splitting (``E_{a+b}(k) = E_a(k) & E_b(k + a)``, cyclic), each window length once per
    call and shared by the shapes that need it; an all-False window ends a shape at once."""

    def __init__(self, free: np.ndarray) -> None:
        self.free = free
        self.cache: dict[tuple[int, ...], np.ndarray | None] = {}

    def _window(self, key: tuple[int, ...], prev: np.ndarray, length: int, axis: int) -> np.ndarray | None:
        """``prev`` ANDed over ``length`` consecutive positions along ``axis`` (cyclic)."""
        memo = self.cache
        k = key + (length,)
        if k in memo:
            return memo[k]
        if length == 1:
            out: np.ndarray | None = prev
        else:
            half = length // 2
            a = self._window(key, prev, half, axis)
            b = a if length - half == half else self._window(key, prev, length - half, axis)
            if a is None or b is None:
                out = None
            else:
                out = a & np.roll(b, -half, axis=axis)
                if not out.any():
                    out = None
        memo[k] = out
        return out

    def get(self, shape: Dims) -> np.ndarray | None:
        x, y, z = shape
        ez = self._window((), self.free, z, 2)
        if ez is None:
            return None
        ezy = self._window((z,), ez, y, 1)
        if ezy is None:
            return None
        return self._window((z, y), ezy, x, 0)


def _fast_free(occ: np.ndarray, size: int) -> list[Box]:
    dims: Dims = occ.shape  # type: ignore[assignment]
    shapes = box_shapes(size, dims)
    if not shapes or size > occ.size - int(np.count_nonzero(occ)):
        return []
    er = _Erosions(~occ)
    out: list[Box] = []
    for shape in shapes:
        e = er.get(shape)
        if e is None:
            continue
        e = e[tuple(slice(0, 1) if s == d else slice(None) for s, d in zip(shape, dims))]
        bi, bj, bk = np.nonzero(e)
        out.extend(Box((i, j, k), shape) for i, j, k in zip(bi.tolist(), bj.tolist(), bk.tolist()))
    return out


def _longest_cyclic_run(F: np.ndarray) -> tuple[int, int, int]:
    """``(length, row, start)`` of the longest cyclic run of True along the last axis of ``F``
    (rows: the other axes raveled); a row all True gives the full length from start 0; length 0
    when ``F`` has no True."""
    L = F.shape[-1]
    rows = F.reshape(-1, L)
    full = rows.all(axis=1)
    if full.any():
        return L, int(np.argmax(full)), 0
    r, c = np.nonzero(~rows)  # every row has a False; row-major: by row, then column
    first = np.r_[True, r[1:] != r[:-1]]
    last = np.r_[r[1:] != r[:-1], True]
    inner = c[1:] - c[:-1] - 1
    inner[~(r[1:] == r[:-1])] = -1
    wrap = c[first] + L - c[last] - 1
    ki = int(np.argmax(inner)) if inner.size else -1
    kw = int(np.argmax(wrap))
    if ki >= 0 and inner[ki] > wrap[kw]:
        return int(inner[ki]), int(r[ki]), int(c[ki] + 1)
    lastc = c[last]
    return int(wrap[kw]), int(r[last][kw]), int((lastc[kw] + 1) % L)


def _fast_mfp(occ: np.ndarray) -> Box:
    dims: Dims = occ.shape  # type: ignore[assignment]
    if occ.all():
        return EMPTY_BOX
    if not occ.any():
        return Box((0, 0, 0), dims)
    perm = sorted(range(3), key=lambda d: dims[d])  # the longest axis last (stable)
    A = np.transpose(~occ, perm)
    a1, a2, a3 = A.shape
    best_size, best = 0, EMPTY_BOX
    zub = np.full((a1 + 1, a2 + 1), a3, dtype=np.int64)  # upper bounds on the largest free z
    zub[0, :] = a3
    zub[:, 0] = a3
    Fx1 = A
    ys = np.arange(a2 + 1)
    for x in range(1, a1 + 1):
        # what row x (and every row after it) could still reach, from the bounds of row x - 1
        reach = ys[1:] * zub[x - 1, 1:]
        if a1 * int(reach.max()) <= best_size:
            break
        if x > 1:
            Fx1 = Fx1 & np.roll(A, -(x - 1), axis=0)
            if not Fx1.any():
                break
        rest = np.maximum.accumulate(reach[::-1])[::-1] * x  # best volume of row x from y on
        F = Fx1
        for y in range(1, a2 + 1):
            if rest[y - 1] <= best_size:
                zub[x, y:] = zub[x - 1, y:]
                break
            if y > 1:
                F = F & np.roll(Fx1, -(y - 1), axis=1)
                if not F.any():
                    zub[x, y:] = 0
                    break
            ub = int(min(zub[x - 1, y], zub[x, y - 1]))
            if x * y * ub <= best_size:
                zub[x, y] = ub
                continue
            z, row, start = _longest_cyclic_run(F)
            zub[x, y] = z
            if x * y * z > best_size:
                best_size = x * y * z
                i, j = divmod(row, a2)
                pb = (0 if x == a1 else i, 0 if y == a2 else j, start)
                ps = (x, y, z)
                base, shape = [0, 0, 0], [0, 0, 0]
                for pos, d in enumerate(perm):
                    base[d], shape[d] = pb[pos], ps[pos]
                best = Box(tuple(base), tuple(shape))  # type: ignore[arg-type]
    return best


#: method name -> (free_partitions, max_free_partition)
FINDERS: dict[str, tuple[Callable[[np.ndarray, int], list[Box]], Callable[[np.ndarray], Box]]] = {
    "fast": (_fast_free, _fast_mfp),
    "appendix": (_appendix_free, _appendix_mfp),
    "appendix-early": (functools.partial(_appendix_free, early_stop=True),
                       functools.partial(_appendix_mfp, early_stop=True)),
    "naive": (_naive_free, _naive_mfp),
}


def _finder(method: str) -> tuple[Callable[[np.ndarray, int], list[Box]], Callable[[np.ndarray], Box]]:
    try:
        return FINDERS[method]
    except (KeyError, TypeError):
        raise unknown_name("partition finder", str(method), FINDERS) from None


def free_partitions(occupied: object, size: int, *, method: str = "fast") -> list[Box]:
    """Every free box of ``size`` nodes (module docstring), each distinct node set once, as
    ``(base, shape)`` pairs sorted by shape then base.

    >>> occ = np.zeros((2, 2, 4), dtype=bool); occ[0, 0, 0] = True
    >>> [b.label() for b in free_partitions(occ, 8)]
    ['(1,0,0)+1x2x4', '(0,1,0)+2x1x4', '(0,0,1)+2x2x2', '(0,0,2)+2x2x2']
    """
    occ = check_occupancy(occupied)
    shapes = box_shapes(size, occ.shape)  # checks size
    if not shapes:
        return []
    found = _finder(method)[0](occ, int(size))
    return sorted(found, key=lambda b: (b.shape, b.base))


def max_free_partition(occupied: object, *, method: str = "fast") -> Box:
    """One largest free box (the MFP, module docstring); size 0 when every node is occupied.

    >>> occ = np.zeros((4, 4, 8), dtype=bool); occ[:, :, 0] = True
    >>> max_free_partition(occ).size
    112
    """
    occ = check_occupancy(occupied)
    return _finder(method)[1](occ)
