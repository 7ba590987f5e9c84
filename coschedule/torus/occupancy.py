"""Torus occupancy files: which nodes are busy or down, for ``coschedule torus mfp|free``.

An occupancy is a boolean array of the torus's shape (True = busy or down,
:func:`~coschedule.torus.geometry.check_occupancy`). Its file is UTF-8 text, one statement a line::

    # the machine at 14:00 -- '#' starts a comment, to the end of the line; blank lines are ignored
    shape 8x8x8          # the torus: X x Y x Z (optional, first statement)
    2-5,0-7,0-3          # job 17: i in 2..5, every j, k in 0..3
    7,3,5                # one node down: i,j,k
    7 3 6                # the same with spaces
    nodes 0-3 7          # flat node indices, as in jobs.csv

* ``i,j,k`` (commas or spaces between the three) marks node ``(i, j, k)``; any coordinate may be
  a range ``a-b`` (``a <= b``, both included; no wrap-around: a block that wraps is two lines),
  so one line marks a whole box;
* ``nodes LIST`` marks nodes by flat index ``i·Y·Z + j·Z + k``
  (:mod:`coschedule.torus.geometry`), ``LIST`` an interval string ``0-3 7``
  (:mod:`coschedule.sim.nodesets`, the notation of ``jobs.csv``);
* ``shape XxYxZ`` gives the torus's shape; it must come before the nodes. The reader may be told
  the shape instead (``--shape``); given both, they must agree.

A node marked twice is marked (a down node inside a job's box, say); every node not marked is
free. Coordinates are 0-based. Errors name the file and line: a malformed line, a coordinate or
index outside the torus, a shape that disagrees.

:func:`format_occupancy` writes the same format (the shape, then one line per maximal run of
busy nodes along ``k``), so that reading it back gives the same array.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import FormatError, InvalidInstance
from ..io.files import read_utf8, write_text
from ..rng import Seed, as_generator
from .geometry import Dims, check_dims, check_occupancy, format_dims, parse_dims

__all__ = [
    "format_occupancy",
    "parse_occupancy",
    "random_occupancy",
    "read_occupancy",
    "write_occupancy",
]

_COORD = re.compile(r"^(\d+)(?:-(\d+))?$")
_AXES = "ijk"


def _statements(text: str) -> list[tuple[int, str, str, str]]:
    """``(line number, statement, first word in lower case, the rest)`` of the non-blank lines,
    comments removed."""
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        stmt = line.split("#", 1)[0].strip()
        if stmt:
            word, *rest = stmt.split(None, 1)
            out.append((n, stmt, word.lower(), rest[0] if rest else ""))
    return out


def _coordinate(token: str, axis: int, dims: Dims, where: str) -> tuple[int, int]:
    """``(lo, hi)`` of one coordinate ``a`` or ``a-b``, checked against the torus."""
    m = _COORD.match(token)
    if not m:
        raise FormatError(f"{where}: {_AXES[axis]}: expected an integer or a range a-b, "
                          f"got {token!r}")
    lo = int(m.group(1))
    hi = lo if m.group(2) is None else int(m.group(2))
    d = dims[axis]
    if hi < lo:
        raise FormatError(f"{where}: {_AXES[axis]}: range {token!r} goes down (a-b needs a <= b; "
                          "a block that wraps around is two lines)")
    if hi >= d:
        raise FormatError(f"{where}: {_AXES[axis]} = {hi} is outside the {format_dims(dims)} torus "
                          f"({_AXES[axis]} in 0..{d - 1})")
    return lo, hi


def parse_occupancy(text: str, dims: Sequence[int] | None = None, *,
                    where: str = "occupancy") -> np.ndarray:
    """The occupancy the text of a file describes (module docstring), a boolean array of the
    torus's shape. ``dims``: the torus's shape when the caller knows it (the file's ``shape``
    line, if any, must agree); ``where`` names the text in errors (a file name).

    >>> occ = parse_occupancy("shape 2x2x4\\n0,0,0-3  # a job\\nnodes 15")
    >>> occ.shape, int(occ.sum()), bool(occ[1, 1, 3])
    ((2, 2, 4), 5, True)
    """
    given = None if dims is None else check_dims(dims)
    stmts = _statements(text)
    shape: Dims | None = None
    for k, (n, _, word, rest) in enumerate(stmts):
        if word != "shape":
            continue
        if k > 0:
            raise FormatError(f"{where}:{n}: the shape line must be the first statement "
                              "(before the nodes)")
        try:
            shape = parse_dims(rest)
        except InvalidInstance as e:
            raise FormatError(f"{where}:{n}: {e}") from None
        if given is not None and shape != given:
            raise FormatError(f"{where}:{n}: the file's torus is {format_dims(shape)}, "
                              f"not {format_dims(given)}")
    dims_ = given if given is not None else shape
    if dims_ is None:
        raise FormatError(f"{where}: no 'shape XxYxZ' line: give the torus's shape "
                          "(e.g. --shape 8x8x8)")
    occ = np.zeros(dims_, dtype=bool)
    n_nodes = occ.size
    flat = occ.reshape(-1)
    for n, stmt, word, rest in stmts:
        if word == "shape":
            continue
        at = f"{where}:{n}"
        if word == "nodes":
            from ..sim.nodesets import parse_nodes  # here: importing coschedule.sim takes a while

            idx = parse_nodes(rest, where=at)
            if idx and idx[-1] >= n_nodes:
                raise FormatError(f"{at}: node {idx[-1]} is outside the {format_dims(dims_)} torus "
                                  f"(nodes 0..{n_nodes - 1})")
            flat[idx] = True
            continue
        fields = [f.strip() for f in stmt.split(",")] if "," in stmt else stmt.split()
        if len(fields) != 3:
            raise FormatError(f"{at}: expected i,j,k (three coordinates or ranges a-b), "
                              f"'nodes LIST' or 'shape XxYxZ', got {stmt!r}")
        (i0, i1), (j0, j1), (k0, k1) = (_coordinate(t, a, dims_, at) for a, t in enumerate(fields))
        occ[i0:i1 + 1, j0:j1 + 1, k0:k1 + 1] = True
    return occ


def read_occupancy(path: str | Path, dims: Sequence[int] | None = None) -> np.ndarray:
    """Read an occupancy file (module docstring); errors name the file and line."""
    path = Path(path)
    return parse_occupancy(read_utf8(path, "an occupancy file"), dims, where=str(path))


def _runs(row: np.ndarray) -> list[tuple[int, int]]:
    """The maximal runs ``(lo, hi)`` of True in a 1-D boolean array (no wrap-around)."""
    padded = np.r_[False, row, False].astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return [(int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2])]


def format_occupancy(occupied: object, *, comment: str | None = None) -> str:
    """The text of an occupancy file: a comment line (``comment``, or the counts), the shape,
    then ``i,j,k`` or ``i,j,a-b`` for each maximal run of occupied nodes along ``k``.

    >>> occ = np.zeros((2, 2, 4), dtype=bool); occ[0, 0, :3] = occ[1, 1, 3] = True
    >>> print(format_occupancy(occ), end="")
    # coschedule torus occupancy: 4 of 16 nodes busy or down
    shape 2x2x4
    0,0,0-2
    1,1,3
    """
    occ = check_occupancy(occupied)
    head = comment if comment is not None else (
        f"coschedule torus occupancy: {int(occ.sum())} of {occ.size} nodes busy or down")
    lines = [f"# {line}" if line else "#" for line in head.splitlines()]
    lines.append(f"shape {format_dims(occ.shape)}")
    X, Y, _ = occ.shape
    for i in range(X):
        for j in range(Y):
            for lo, hi in _runs(occ[i, j]):
                lines.append(f"{i},{j},{lo}" if lo == hi else f"{i},{j},{lo}-{hi}")
    return "\n".join(lines) + "\n"


def write_occupancy(occupied: object, path: str | Path, *, comment: str | None = None) -> None:
    """Write :func:`format_occupancy` to ``path``."""
    write_text(path, format_occupancy(occupied, comment=comment))


def random_occupancy(dims: Sequence[int], fraction: float, *, seed: Seed = None) -> np.ndarray:
    """Exactly ``round(fraction · N)`` occupied nodes, drawn uniformly without replacement
    (``coschedule bench torus``'s random occupancies).

    >>> int(random_occupancy((4, 4, 8), 0.5, seed=1).sum())
    64
    """
    d = check_dims(dims)
    if not 0 <= fraction <= 1:
        raise InvalidInstance(f"occupied fraction must be in [0, 1], got {fraction!r}")
    n = int(np.prod(d))
    occ = np.zeros(n, dtype=bool)
    occ[as_generator(seed).choice(n, size=round(fraction * n), replace=False)] = True
    return occ.reshape(d)
