"""The default exact method for k-in-p co-scheduling: set covering over priced packs.

Design (``docs/algorithms.md``):

1. **Pack prices by thresholds.** For a time ``T`` let ``need(i, T)`` be the fewest processors
   (at least ``min_procs(i)``) on which task ``i`` takes at most ``T``; by (1.1) it is
   non-increasing in ``T``. A set ``B`` of tasks fits in one pack of cost ``T`` iff
   ``sum_{i in B} need(i, T) <= p``, so the optimal pack cost ``c(B)`` (what Algorithm 1
   computes) is the smallest profile value ``T`` with that property. All candidate packs are
   priced at once by a vectorised binary search over the sorted profile values.
2. **Dominance.** ``c`` is monotone (removing a task frees processors), so the k-in-p problem
   equals *set covering* with these columns: a cover can be turned into a partition of no
   greater cost by dropping duplicates. A pack ``B`` is then useless if some ``B + {j}`` (with
   ``|B| < k``) costs no more; checking one added task suffices by monotonicity. Only the
   non-dominated packs become columns.
3. **The master problem** ``min sum_B c(B) x_B`` s.t. every task covered, ``x`` binary, has
   one row per task, plus the valid inequality ``sum_B x_B >= ceil(n / s_max)`` (at least that
   many packs, ``s_max`` the largest pack size) which closes most of the LP gap when ``n`` is
   not a multiple of ``k``. It is solved by any MIP backend of :mod:`coschedule.exact.mip` (HiGHS by
   default, CBC, or CP-SAT with an integer time unit), warm-started with the packs of a
   large-neighbourhood search (:mod:`coschedule.exact.lns`).

The number of candidate packs is ``sum_{s <= min(k, p)} C(n, s)``; instances above
``max_columns`` are refused with a message (use the ILP or a heuristic there).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.model import CoSchedule, MoldableInstance, Pack
from coschedule.timelimit import Deadline

from .mip import MipBuilder, MipModel, MipSolution
from .units import to_units

__all__ = [
    "PackColumns",
    "candidate_packs",
    "build_kinp_setcover",
    "decode_kinp_setcover",
    "start_vector",
    "MAX_COLUMNS",
]

#: refuse to enumerate more candidate packs than this
MAX_COLUMNS = 4_000_000


@dataclass(frozen=True)
class PackColumns:
    """Non-dominated candidate packs: ``members[c]`` (task indices, ``-1`` padded), cost index."""

    thresholds: np.ndarray  # sorted distinct profile values
    need: np.ndarray  # need[i, tau] = fewest processors for task i to finish within thresholds[tau]
    members: list[np.ndarray]  # one (C_s, s) array per pack size s = 1..kmax
    cost_index: list[np.ndarray]  # threshold index of each pack's cost, per size
    enumerated: int  # candidate packs priced before the dominance filter

    @property
    def count(self) -> int:
        return sum(len(m) for m in self.members)


def _need_table(instance: MoldableInstance) -> tuple[np.ndarray, np.ndarray]:
    T = instance.time_matrix
    p = instance.p
    values = T[:, 1:]
    thresholds = np.unique(values[np.isfinite(values)])
    need = np.empty((instance.n, len(thresholds)), dtype=np.int64)
    for i in range(instance.n):
        mp = int(instance.min_procs[i])
        prof = T[i, mp : p + 1]  # non-increasing
        # entries strictly greater than the threshold must be skipped
        above = len(prof) - np.searchsorted(prof[::-1], thresholds, side="right")
        need[i] = mp + above
    need = np.minimum(need, p + 1)
    return thresholds, need


def _price(members: np.ndarray, need: np.ndarray, p: int) -> np.ndarray:
    """Smallest threshold index at which each pack fits; ``-1`` if it never fits."""
    count = len(members)
    last = need.shape[1] - 1
    fits_at_last = need[members, last].sum(axis=1) <= p
    lo = np.zeros(count, dtype=np.int64)
    hi = np.full(count, last, dtype=np.int64)
    active = fits_at_last.copy()
    while True:
        open_ = active & (lo < hi)
        if not open_.any():
            break
        idx = np.flatnonzero(open_)
        mid = (lo[idx] + hi[idx]) // 2
        ok = need[members[idx], mid[:, None]].sum(axis=1) <= p
        hi[idx] = np.where(ok, mid, hi[idx])
        lo[idx] = np.where(ok, lo[idx], mid + 1)
    return np.where(fits_at_last, lo, -1)


def _colex_rank(members: np.ndarray, binom: np.ndarray) -> np.ndarray:
    s = members.shape[1]
    return binom[members, np.arange(1, s + 1)[None, :]].sum(axis=1)


def candidate_packs(
    instance: MoldableInstance, k: int, *, max_columns: int = MAX_COLUMNS, deadline: Deadline | None = None,
) -> PackColumns:
    """Price every pack of at most ``k`` tasks and keep the non-dominated ones (the clock is
    looked at between pack sizes when a ``deadline`` is given)."""
    deadline = deadline or Deadline.none()
    if k < 1:
        raise InvalidInstance(f"k must be >= 1, got {k}")
    n, p = instance.n, instance.p
    mins = np.sort(instance.min_procs)
    kmax = min(k, n, int(np.searchsorted(np.cumsum(mins), p, side="right")))
    total = sum(math.comb(n, s) for s in range(1, kmax + 1))
    if total > max_columns:
        raise InvalidInstance(
            f"set-cover method: {total:,} candidate packs (n = {n}, k = {min(k, n)}, p = {p}) "
            f"exceed the limit of {max_columns:,}; use --method ilp or a smaller instance"
        )
    thresholds, need = _need_table(instance)
    binom = np.array(
        [[math.comb(a, b) for b in range(kmax + 2)] for a in range(n + 1)], dtype=np.int64
    )
    members: list[np.ndarray] = []
    costs: list[np.ndarray] = []  # indexed by colex rank, -1 = infeasible
    for s in range(1, kmax + 1):
        deadline.check("pricing the packs")
        combos = np.fromiter(
            itertools.chain.from_iterable(itertools.combinations(range(n), s)),
            dtype=np.int64, count=math.comb(n, s) * s,
        ).reshape(-1, s)
        by_rank = np.full(len(combos), -1, dtype=np.int64)
        by_rank[_colex_rank(combos, binom)] = _price(combos, need, p)
        members.append(combos)
        costs.append(by_rank)
    keep_members, keep_cost = [], []
    for s in range(1, kmax + 1):
        deadline.check("removing dominated packs")
        combos, cost_rank = members[s - 1], costs[s - 1]
        rank = _colex_rank(combos, binom)
        cost = cost_rank[rank]
        dominated = np.zeros(len(combos), dtype=bool)
        if s < kmax:
            # a parent D of size s+1 dominates each child D - {x} that costs at least as much;
            # both costs are indices into the same sorted table, so <= is exact
            parents = members[s]
            pcost = costs[s][_colex_rank(parents, binom)]
            flag = np.zeros(len(cost_rank), dtype=bool)
            for x in range(s + 1):
                child = np.delete(parents, x, axis=1)
                crank = _colex_rank(child, binom)
                hit = (pcost >= 0) & (pcost <= cost_rank[crank])
                flag[crank[hit]] = True
            dominated = flag[rank]
        keep = (cost >= 0) & ~dominated
        keep_members.append(combos[keep])
        keep_cost.append(cost[keep])
    return PackColumns(thresholds, need, keep_members, keep_cost, total)


def build_kinp_setcover(
    instance: MoldableInstance, k: int, *, time_unit: float | None = None,
    columns: PackColumns | None = None, deadline: Deadline | None = None,
) -> tuple[MipModel, PackColumns]:
    """The set-covering master over the non-dominated packs (one row per task)."""
    cols = candidate_packs(instance, k, deadline=deadline) if columns is None else columns
    n = instance.n
    price = np.concatenate([cols.thresholds[c] for c in cols.cost_index])
    rounding = 0.0
    obj_unit = 1.0
    if time_unit is not None:
        price = to_units(price, time_unit)
        rounding, obj_unit = n * time_unit / 2, time_unit
    bld = MipBuilder(f"kinp_setcover_n{n}_p{instance.p}_k{k}")
    x = bld.add_vars(len(price), obj=price, lb=0.0, ub=1.0, integer=True)
    # row i: sum of the columns that contain task i >= 1
    offsets = np.cumsum([0] + [len(m) for m in cols.members])[:-1]
    col_of = np.concatenate(
        [off + np.repeat(np.arange(len(m)), m.shape[1]) for off, m in zip(offsets, cols.members)]
    )
    task_of = np.concatenate([m.ravel() for m in cols.members])
    order = np.argsort(task_of, kind="stable")
    task_sorted, col_sorted = task_of[order], col_of[order]
    bounds = np.searchsorted(task_sorted, np.arange(n + 1))
    for i in range(n):
        bld.add_row(x[col_sorted[bounds[i] : bounds[i + 1]]], 1.0, 1.0, math.inf)
    # valid inequality: no pack holds more than the largest column, so at least
    # ceil(n / largest) packs are used. The LP alone may use n / largest packs, and when that
    # is fractional its bound is weak (e.g. 1.4% below the optimum for n = 40, k = 3).
    largest = max((m.shape[1] for m in cols.members if len(m)), default=1)
    bld.add_row(x, 1.0, math.ceil(n / largest), math.inf)
    if time_unit is None:
        return bld.build(), cols
    return bld.build(obj_unit=obj_unit, integral=True, rounding=rounding), cols


def decode_kinp_setcover(
    instance: MoldableInstance, cols: PackColumns, sol: MipSolution
) -> CoSchedule:
    """Chosen packs; a task covered twice stays in the first; allocations ``need(i, c(B))``."""
    assert sol.x is not None
    chosen = np.flatnonzero(sol.x > 0.5)
    starts = np.cumsum([0] + [len(m) for m in cols.members])
    flat_cost = np.concatenate(cols.cost_index)
    placed: set[int] = set()
    packs = []
    for c in chosen:
        tau = int(flat_cost[c])
        items = []
        size = int(np.searchsorted(starts, c, side="right")) - 1
        for i in cols.members[size][c - starts[size]]:
            i = int(i)
            if i not in placed:
                placed.add(i)
                items.append((i, int(cols.need[i, tau])))
        if items:
            packs.append(Pack.of(items))
    return CoSchedule(tuple(packs))



def start_vector(cols: PackColumns, packs: list[list[int]], p: int) -> np.ndarray | None:
    """The 0/1 column vector of a co-schedule given as packs of task indices.

    A pack removed as dominated is replaced by a one-task extension that costs no more,
    repeatedly, until a column is reached (one exists by construction of the dominance
    filter). Returns ``None`` if a pack cannot be represented (it does not fit).
    """
    starts = np.cumsum([0] + [len(m) for m in cols.members])
    lookup: dict[tuple[int, ...], int] = {}
    for s, mem in enumerate(cols.members):
        for r, row in enumerate(mem.tolist()):
            lookup[tuple(row)] = int(starts[s] + r)
    n, smax = cols.need.shape[0], len(cols.members)

    def tau(group: tuple[int, ...]) -> int:
        return int(_price(np.array([group], dtype=np.int64), cols.need, p)[0])

    x = np.zeros(cols.count)
    for pack in packs:
        group = tuple(sorted(int(i) for i in pack))
        level = tau(group)
        if level < 0 or len(group) > smax:
            return None
        while group not in lookup:
            for j in range(n):
                if j in group or len(group) >= smax:
                    continue
                cand = tuple(sorted((*group, j)))
                t = tau(cand)
                if 0 <= t <= level:
                    group = cand
                    break
            else:
                return None
        x[lookup[group]] = 1.0
    return x
