"""The integer linear program (1.12) of [Aupy2017] (Thm 1.5), as printed.

Variables ``x[i, j, b]`` (task ``i`` runs in pack ``b`` on ``j`` processors) and ``y[b]`` (the
cost of pack ``b``), ``1 <= i, b <= n``, ``1 <= j <= p``::

    minimise   sum_b y[b]
    (i)   sum_{j,b} x[i,j,b] = 1             for every task i
    (ii)  sum_{i,j} x[i,j,b] <= k            for every pack b
    (iii) sum_{i,j} j x[i,j,b] <= p          for every pack b
    (iv)  x[i,j,b] t(i,j) <= y[b]            for every i, j, b

It is kept as the reference formulation: ``n^2 p`` binaries and as many rows (iv), and the
packs are interchangeable, so branch-and-bound struggles beyond a handful of tasks (the paper's
ILP does not prove optimality for n = 6, p = 8, k = 3 within 60 s with CBC or HiGHS). The one
addition is the minimum-processor variant (end of §1.4.4): ``x[i,j,b]`` is fixed to 0 for
``j < min_procs(i)``.
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.model import CoSchedule, MoldableInstance, Pack
from coschedule.timelimit import Deadline

from .mip import MipBuilder, MipModel, MipSolution
from .units import to_units

__all__ = ["build_kinp_ilp", "decode_kinp_ilp"]


def _index(i: int, j: int, b: int, n: int, p: int) -> int:
    return (i * p + (j - 1)) * n + b


def build_kinp_ilp(
    instance: MoldableInstance, k: int, *, time_unit: float | None = None, deadline: Deadline | None = None,
) -> MipModel:
    """Model (1.12) for ``instance`` and ``k``.

    With a ``deadline`` the clock is looked at every task of the rows (iv) (``n p n`` rows), and
    :class:`~coschedule.timelimit.TimeLimitReached` is raised once it has passed.

    With ``time_unit`` the times are rounded to integers of that unit and ``y`` is integer, so
    that CP-SAT can take the model; the objective is then in units (``obj_unit = time_unit``).
    """
    if k < 1:
        raise InvalidInstance(f"k must be >= 1, got {k}")
    n, p = instance.n, instance.p
    T = instance.time_matrix[:, 1:]  # T[i, j-1]
    if time_unit is not None:
        T = to_units(T, time_unit)
    bld = MipBuilder(f"kinp_ilp_n{n}_p{p}_k{k}")
    ub = np.ones((n, p, n))
    for i, mp in enumerate(instance.min_procs):
        ub[i, : mp - 1, :] = 0.0
    x = bld.add_vars(n * p * n, obj=0.0, lb=0.0, ub=ub.ravel(), integer=True)
    y = bld.add_vars(n, obj=1.0, lb=0.0, ub=math.inf, integer=time_unit is not None)
    X = x.reshape(n, p, n)
    for i in range(n):  # (i)
        bld.add_row(X[i].ravel(), 1.0, 1.0, 1.0)
    jcoef = np.broadcast_to(np.arange(1, p + 1)[None, :], (n, p)).ravel()
    for b in range(n):
        cols = X[:, :, b].ravel()
        bld.add_row(cols, 1.0, -math.inf, k)  # (ii)
        bld.add_row(cols, jcoef, -math.inf, p)  # (iii)
    deadline = deadline or Deadline.none()
    for i in range(n):  # (iv)
        deadline.check("building the model")
        for j in range(p):
            t = T[i, j]
            if not math.isfinite(t):
                continue  # x fixed to 0 below min_procs
            for b in range(n):
                bld.add_row([X[i, j, b], y[b]], [t, -1.0], -math.inf, 0.0)
    if time_unit is None:
        return bld.build()
    return bld.build(obj_unit=time_unit, integral=True, rounding=n * time_unit / 2)


def decode_kinp_ilp(instance: MoldableInstance, sol: MipSolution) -> CoSchedule:
    """Packs from the ``x[i, j, b]`` at 1 (empty packs dropped)."""
    assert sol.x is not None
    n, p = instance.n, instance.p
    X = sol.x[: n * p * n].reshape(n, p, n) > 0.5
    packs = []
    for b in range(n):
        items = [(int(i), int(j) + 1) for i, j in zip(*np.nonzero(X[:, :, b]))]
        if items:
            packs.append(Pack.of(items))
    return CoSchedule(tuple(packs))


