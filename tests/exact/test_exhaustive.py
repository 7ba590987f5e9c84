"""Exhaustive search over set partitions (§1.4.3, first method), against a brute force."""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import lru_cache

import pytest
from coschedule_testing import brute_force_one_pack, fewer, instances, random_instances
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.model import MoldableInstance, MoldableTask
from coschedule.results import Status
from coschedule.validate import validate_coschedule
from coschedule.exact.exhaustive import MAX_N, solve_exhaustive


def set_partitions(items: list[int]) -> Iterator[list[list[int]]]:
    """Every partition of ``items`` into non-empty blocks, each exactly once."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in set_partitions(rest):
        yield [[first], *partition]  # first alone
        for b in range(len(partition)):  # first joins block b
            yield partition[:b] + [[first, *partition[b]]] + partition[b + 1 :]


@pytest.mark.parametrize("n, bell", [(0, 1), (1, 1), (2, 2), (3, 5), (4, 15), (5, 52), (6, 203)])
def test_set_partitions_enumerator(n, bell):
    parts = [tuple(sorted(tuple(sorted(b)) for b in p)) for p in set_partitions(list(range(n)))]
    assert len(parts) == bell == len(set(parts))
    assert all(sorted(i for b in p for i in b) == list(range(n)) for p in parts)


def brute_force_optimum(inst: MoldableInstance, k: int) -> float:
    """Best co-schedule cost over every partition into blocks of at most ``k`` tasks."""

    @lru_cache(maxsize=None)
    def block_cost(block: tuple[int, ...]) -> float:
        return brute_force_one_pack(inst, list(block))

    best = math.inf
    for partition in set_partitions(list(range(inst.n))):
        if all(len(b) <= k for b in partition):
            best = min(best, math.fsum(block_cost(tuple(sorted(b))) for b in partition))
    return best


@fewer(0.6)
@given(
    instances(n=(1, 5), p=(1, 6)),
    st.sampled_from([1, 2, 3, "n"]),
)
def test_exhaustive_equals_brute_force(inst, k):
    k = inst.n if k == "n" else k
    result = solve_exhaustive(inst, k)
    expected = brute_force_optimum(inst, k)
    assert result.status is Status.OPTIMAL and result.proved_optimal
    assert math.isclose(result.objective, expected, rel_tol=1e-9)
    assert math.isclose(result.bound, result.objective, rel_tol=1e-9)
    assert result.gap == 0.0
    # the returned co-schedule is valid, has at most k tasks per pack and costs the objective
    assert math.isclose(
        validate_coschedule(inst, result.solution, k, claimed_cost=result.objective),
        expected,
        rel_tol=1e-9,
    )
    assert result.method == "exhaustive"


@given(instances(n=(1, 8), p=(1, 8)))
def test_k1_is_sum_of_times_on_p(inst):
    # Theorem 1.1: with one task per pack, every task gets all p processors
    result = solve_exhaustive(inst, 1)
    assert math.isclose(
        result.objective, math.fsum(inst.time(i, inst.p) for i in range(inst.n)), rel_tol=1e-12
    )
    assert all(len(pk.allocations) == 1 and pk.procs == inst.p for pk in result.solution.packs)


@given(instances(n=(2, 7), p=(1, 7)), st.integers(1, 6))
def test_optimum_non_increasing_in_k(inst, k):
    # a larger k allows every co-schedule of a smaller one
    assert solve_exhaustive(inst, k + 1).objective <= solve_exhaustive(inst, k).objective * (
        1 + 1e-12
    )


@given(random_instances(n=(1, 6), p=(1, 6), with_min_procs=True), st.integers(1, 6))
def test_never_infeasible_with_min_procs(inst, k):
    # every task fits alone (min_procs <= p is an instance invariant), so k >= 1 is feasible
    result = solve_exhaustive(inst, k)
    assert result.status is Status.OPTIMAL
    validate_coschedule(inst, result.solution, k, claimed_cost=result.objective)


def test_tasks_that_need_the_whole_platform_run_alone():
    # each task needs all p = 3 processors: no two can share a pack, whatever k
    task = MoldableTask((None, None, 4.0), min_procs=3)
    inst = MoldableInstance((task, task, MoldableTask((6.0, 3.0))), 3)
    for k in (1, 2, 3):
        result = solve_exhaustive(inst, k)
        assert result.status is Status.OPTIMAL
        assert result.objective == 4.0 + 4.0 + 3.0  # the third task on 3 processors: 3
        assert len(result.solution.packs) == 3


def test_small_example_by_hand():
    # p = 2: A = (10, 6), B = (10, 6), C = (3, 3).
    # k = 1: 6 + 6 + 3 = 15; k = 2: {A, B} on 1 + 1 (10) and C (3) = 13;
    # k = 3: A, B, C cannot share 2 processors, so the best is still 13
    a = MoldableTask((10.0, 6.0))
    inst = MoldableInstance((a, a, MoldableTask((3.0, 3.0))), 2)
    assert solve_exhaustive(inst, 1).objective == 15.0
    assert solve_exhaustive(inst, 2).objective == 13.0
    assert solve_exhaustive(inst, 3).objective == 13.0


def test_input_errors():
    inst = MoldableInstance((MoldableTask((1.0,)),) * (MAX_N + 1), 2)
    with pytest.raises(InvalidInstance, match=rf"n <= {MAX_N}"):
        solve_exhaustive(inst, 2)
    with pytest.raises(InvalidInstance, match="k must be >= 1"):
        solve_exhaustive(MoldableInstance((MoldableTask((1.0,)),), 2), 0)
