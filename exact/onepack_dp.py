"""The 1-pack dynamic program of [Aupy2017] §1.4.2.

``c(i, q) = min_{1 <= q' <= q} max(c(i-1, q-q'), t(i, q'))`` with ``c(1, q) = t(1, q)`` and
``c(i, 0) = inf``; the optimal cost of the pack is ``c(k, p)``. ``O(k p^2)``. It is the
independent reference for Algorithm 1 (Optimal-1-pack) and prices packs in the exhaustive
search. Minimum processor counts are honoured through ``t(i, q) = inf`` for ``q < min_procs``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.model import MoldableInstance, Pack

__all__ = ["one_pack_dp", "one_pack_dp_cost"]


def _tables(instance: MoldableInstance, tasks: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    p = instance.p
    # profile straight from the tasks, not Alg. 1's cached matrix
    rows = np.array([[instance.tasks[i].time(q) for q in range(p + 1)] for i in tasks])
    k = len(tasks)
    c = np.full((k, p + 1), math.inf)
    arg = np.zeros((k, p + 1), dtype=np.int64)
    c[0, 1:] = rows[0, 1:]
    arg[0, 1:] = np.arange(1, p + 1)
    q = np.arange(p + 1)
    shift = q[:, None] - q[None, :]  # shift[q, q'] = q - q'
    valid = (shift >= 0) & (q[None, :] >= 1)
    shift = np.where(valid, shift, 0)
    for i in range(1, k):
        vals = np.maximum(c[i - 1][shift], rows[i][None, :])
        vals[~valid] = math.inf
        arg[i] = np.argmin(vals, axis=1)  # first minimiser: the fewest processors for task i
        c[i] = vals[q, arg[i]]
    c[:, 0] = math.inf
    return c, arg


def one_pack_dp_cost(instance: MoldableInstance, tasks: Sequence[int]) -> float:
    """Optimal cost of one pack holding ``tasks`` (``inf`` if their minima exceed ``p``)."""
    if not tasks:
        raise InvalidInstance("a pack needs at least one task")
    c, _ = _tables(instance, list(tasks))
    return float(c[-1, instance.p])


def one_pack_dp(instance: MoldableInstance, tasks: Sequence[int]) -> Pack:
    """An optimal 1-pack schedule of ``tasks`` by the DP (back-tracked allocation)."""
    tasks = list(tasks)
    if not tasks:
        raise InvalidInstance("a pack needs at least one task")
    c, arg = _tables(instance, tasks)
    q = instance.p
    if math.isinf(c[-1, q]):
        raise InvalidInstance(f"tasks {tasks} cannot share one pack on p = {instance.p}")
    sigma = {}
    for i in range(len(tasks) - 1, -1, -1):
        qi = int(arg[i, q])
        sigma[tasks[i]] = qi
        q -= qi
    return Pack.of((i, sigma[i]) for i in tasks)
