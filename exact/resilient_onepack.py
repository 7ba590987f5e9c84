"""RESILIENT-COSCHED-1PACK without redistribution, solved exactly by a dynamic program over
even allocations ([Aupy2017] §1.4.2 "With failures", Thm 1.4).

The pack's cost is the largest expected time ``max_i t^R_{i,k_i}(1)`` of (1.6) (or of the
failure model chosen in :class:`~coschedule.redistribution.Resilience`); processors come in
pairs (buddy checkpointing, §1.3.3), so the DP counts pairs: with ``u_i = k_i / 2`` and
``Q = floor(p / 2)``,

``c(i, q) = min_{kmin_i/2 <= u <= q} max(c(i-1, q-u), t^R_{i,2u}(1))``, ``c(0, q) = -inf``,

the optimal cost is ``c(n, Q)`` (a pack may leave pairs idle: ``c(0, .)`` absorbs them). No
``j_max`` (1.8) cap and no monotonicity assumption (1.7): every even ``k_i`` from ``min_procs``
to ``p`` is tried, so this is the independent reference for Resilient Optimal-1-pack
(:func:`coschedule.heuristics.redistribution.resilient_optimal_1_pack`).
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.model import MoldableInstance
from coschedule.redistribution.model import MalleablePack, PackModel, Resilience, as_pack

__all__ = ["resilient_one_pack_dp"]


def _expected_table(pm: PackModel) -> np.ndarray:
    """``T[i, u] = t^R_{i,2u}(1)`` for ``u = 0..Q``; ``inf`` (infeasible) below ``min_procs`` and
    at 0. An expected time too large for a float (``expm1`` overflows) is kept feasible as the
    largest float, so that the DP still returns an allocation."""
    pack = pm.pack
    q = pack.p_even // 2
    ks = np.arange(2, 2 * q + 1, 2)
    table = np.full((pack.n, q + 1), math.inf)
    with np.errstate(over="ignore", invalid="ignore"):  # a table's inf below its minimum
        table[:, 1:] = pm.expected(np.arange(pack.n)[:, None], ks[None, :], 1.0)
    table[~(table < math.inf)] = np.finfo(float).max
    table[:, 0] = math.inf
    kmin = np.asarray(pack.min_procs, dtype=np.int64)
    table[np.arange(q + 1)[None, :] * 2 < kmin[:, None]] = math.inf
    return table


def resilient_one_pack_dp(pack: MalleablePack | MoldableInstance, res: Resilience | None = None, *,
                          model: PackModel | None = None) -> tuple[float, np.ndarray]:
    """An optimal even allocation of one pack under failures, without redistribution.

    Minimises ``max_i t^R_{i,k_i}(1)`` over even ``k_i >= min_procs_i`` (``min_procs`` is
    rounded up to an even number >= 2 by :class:`~coschedule.redistribution.MalleablePack`)
    with ``sum_i k_i <= p`` (an odd processor is never used) ([Aupy2017] §1.4.2, "With
    failures"). ``model`` (a :class:`~coschedule.redistribution.PackModel`) takes precedence
    over ``pack`` and ``res``; ``res`` defaults to :class:`~coschedule.redistribution.Resilience`.

    Returns
    -------
    (cost, sigma)
        The optimal cost and an optimal allocation (``int64`` array, one even count per
        application); among the optimal choices for application ``i`` the DP keeps the fewest
        processors, given the later applications' choices.

    Raises
    ------
    InvalidInstance
        When the applications need more than ``p`` processors (two each at least), one line.

    Running time ``O(n p^2 / 4)``, memory ``O(n p)``: a reference for small ``p``.

    >>> from coschedule.redistribution import MalleablePack, Resilience
    >>> pack = MalleablePack(p=8, memory=[0.0, 0.0], seq=[0.0, 0.0], par=[12.0, 4.0])
    >>> cost, sigma = resilient_one_pack_dp(pack, Resilience(node_mtbf=math.inf))
    >>> cost, sigma.tolist()   # no failure, no checkpoint: t = par / k, 12 / 6 = 4 / 2
    (2.0, [6, 2])
    """
    pm = model if model is not None else PackModel(as_pack(pack), res if res is not None else Resilience())
    pk = pm.pack
    n, q = pk.n, pk.p_even // 2
    need = int(np.asarray(pk.min_procs, dtype=np.int64).sum())
    if need > 2 * q:
        raise InvalidInstance(f"resilient 1-pack: {n} applications need {need} processors "
                              f"(two each at least, in pairs) but p = {pk.p}")
    table = _expected_table(pm)
    qs = np.arange(q + 1)
    shift = qs[:, None] - qs[None, :]  # shift[q, u] = q - u: the pairs left to the first i - 1
    valid = shift >= 0
    shift = np.where(valid, shift, 0)
    cost = np.full(q + 1, -math.inf)  # c(0, q): nothing to run
    arg = np.zeros((n, q + 1), dtype=np.int64)
    for i in range(n):
        vals = np.maximum(cost[shift], table[i][None, :])
        vals[~valid] = math.inf
        arg[i] = np.argmin(vals, axis=1)  # first minimiser: the fewest pairs for application i
        cost = vals[qs, arg[i]]
    sigma = np.zeros(n, dtype=np.int64)
    left = q
    for i in range(n - 1, -1, -1):
        sigma[i] = 2 * arg[i, left]
        left -= int(arg[i, left])
    best = float(cost[q])
    return (math.inf if best == np.finfo(float).max else best), sigma
