"""Co-scheduling moldable tasks in packs: Algorithms 1–3 of [Aupy2017].

All three honour minimum processor counts (end of §1.4.4): the preliminary step gives task
``i`` its ``min_procs`` processors instead of one.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence

from coschedule.errors import InvalidInstance, unknown_name
from coschedule.model import CoSchedule, MoldableInstance, Pack

__all__ = ["optimal_1_pack", "make_pack", "pack_approx", "HEURISTICS", "get_heuristic"]


def optimal_1_pack(instance: MoldableInstance, tasks: Sequence[int] | None = None) -> Pack:
    """Optimal processor assignment of tasks that share one pack (Alg. 1, Thm 1.3).

    Start from ``sigma(i) = min_procs(i)`` and give the ``p - sum(sigma)`` remaining processors
    one at a time to the task that currently takes longest (a heap; ties go to the lowest task
    index). The resulting pack has minimum cost ``max_i t(i, sigma(i))`` among all 1-pack
    schedules of these tasks (Thm 1.3). No early stop on a plateau of the longest task's
    profile: (1.1)–(1.2) allow a plateau followed by a decrease.

    Running time ``O(k log k + p log k)`` for ``k`` tasks.

    Raises
    ------
    InvalidInstance
        if the tasks' minimum processor counts exceed ``p``.
    """
    ids = list(range(instance.n)) if tasks is None else [int(i) for i in tasks]
    if not ids:
        raise InvalidInstance("a pack needs at least one task")
    if len(set(ids)) != len(ids):
        raise InvalidInstance(f"a task appears twice in the pack: {ids}")
    T = instance.time_matrix
    p = instance.p
    sigma = {i: int(instance.min_procs[i]) for i in ids}
    available = p - sum(sigma.values())
    if available < 0:
        raise InvalidInstance(
            f"tasks {ids} need {p - available} processors together but p = {p}"
        )
    heap = [(-T[i, sigma[i]], i) for i in ids]
    heapq.heapify(heap)
    while available > 0:
        neg_time, i = heap[0]
        q = sigma[i]
        if q == p:
            break  # only possible for a single task: it already has every processor
        sigma[i] = q + 1
        available -= 1
        heapq.heapreplace(heap, (-T[i, q + 1], i))
    return Pack.of((i, sigma[i]) for i in ids)


def make_pack(instance: MoldableInstance, k: int, sigma: Sequence[int]) -> CoSchedule:
    """Packs of at most ``k`` tasks for fixed allocations ``sigma`` (Alg. 2, Make-Pack).

    Tasks are taken by non-increasing ``t(i, sigma(i))`` (ties: lower index first) and placed in
    the first pack that has enough free processors and fewer than ``k`` tasks; a new pack is
    opened when none fits (First Fit Decreasing Height). ``O(n log n + n * packs)``.
    """
    _check_k(k)
    n, p = instance.n, instance.p
    if len(sigma) != n:
        raise InvalidInstance(f"sigma has {len(sigma)} entries for {n} tasks")
    T = instance.time_matrix
    for i, q in enumerate(sigma):
        if not instance.min_procs[i] <= q <= p:
            raise InvalidInstance(f"{instance.task_label(i)}: sigma {q} outside [min_procs, p]")
    order = sorted(range(n), key=lambda i: (-T[i, sigma[i]], i))
    free: list[int] = []
    members: list[list[int]] = []
    for i in order:
        q = sigma[i]
        for b in range(len(free)):
            if free[b] >= q and len(members[b]) < k:
                free[b] -= q
                members[b].append(i)
                break
        else:
            free.append(p - q)
            members.append([i])
    return CoSchedule(tuple(Pack.of((i, int(sigma[i])) for i in grp) for grp in members))


def pack_approx(instance: MoldableInstance, k: int | None = None) -> CoSchedule:
    """Pack-Approx (Alg. 3): a 3-approximation for p-in-p co-scheduling (Thm 1.6).

    Start with ``sigma(i) = min_procs(i)``; repeatedly build packs with :func:`make_pack`, then
    give one more processor to the task with the longest time ``t(i, sigma(i))`` (ties: lowest
    index). Stop when (i) that task already has ``p`` processors, or (ii) the total work
    ``sum_i sigma(i) t(i, sigma(i))`` exceeds ``p`` times the longest time. Every
    ``sigma`` visited, including the one that meets the stopping rule, is evaluated; the
    cheapest co-schedule seen is returned (the first one on ties).

    ``k`` defaults to ``p`` (the p-in-p problem of Thm 1.6); with ``k < p`` the same procedure
    runs with packs of at most ``k`` tasks (no guarantee is claimed then).
    ``O(n p)`` calls to Make-Pack.
    """
    k = instance.p if k is None else k
    _check_k(k)
    T = instance.time_matrix
    p = instance.p
    sigma = [int(q) for q in instance.min_procs]
    best: CoSchedule | None = None
    best_cost = math.inf
    while True:
        cs = make_pack(instance, k, sigma)
        cost = cs.cost(instance)
        if cost < best_cost:
            best, best_cost = cs, cost
        times = [T[i, q] for i, q in enumerate(sigma)]
        longest = max(range(instance.n), key=lambda i: (times[i], -i))
        work = math.fsum(q * t for q, t in zip(sigma, times))
        if sigma[longest] >= p or work > p * times[longest]:
            break
        sigma[longest] += 1
    assert best is not None
    return best


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInstance(f"k must be a positive integer, got {k!r}")


def _all_in_one(instance: MoldableInstance, k: int | None = None) -> CoSchedule:
    """Every task in a single pack with Alg. 1's allocation (needs ``n <= k`` and fits)."""
    if k is not None and instance.n > k:
        raise InvalidInstance(f"one pack cannot hold {instance.n} tasks with k = {k}")
    return CoSchedule((optimal_1_pack(instance),))


def _one_per_pack(instance: MoldableInstance, k: int | None = None) -> CoSchedule:
    """Each task alone on all ``p`` processors: the 1-in-p optimum (Thm 1.1)."""
    return CoSchedule(tuple(Pack.of([(i, instance.p)]) for i in range(instance.n)))


def _make_pack_minimal(instance: MoldableInstance, k: int | None = None) -> CoSchedule:
    """Make-Pack with every task on its minimum processor count (Pack-Approx's first step)."""
    return make_pack(instance, instance.p if k is None else k, [int(q) for q in instance.min_procs])


#: name -> heuristic(instance, k) returning a CoSchedule
HEURISTICS: dict[str, Callable[[MoldableInstance, int | None], CoSchedule]] = {
    "pack-approx": pack_approx,
    "make-pack-1": _make_pack_minimal,
    "one-pack": _all_in_one,
    "sequential": _one_per_pack,
}


def get_heuristic(name: str) -> Callable[[MoldableInstance, int | None], CoSchedule]:
    """Look up a co-scheduling heuristic by name; raises ``UnknownName`` listing the valid ones."""
    try:
        return HEURISTICS[name.lower()]
    except KeyError:
        raise unknown_name("heuristic", name, list(HEURISTICS)) from None
