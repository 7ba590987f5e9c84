"""The 1-pack dynamic program of §1.4.2 against a brute force over every allocation."""

from __future__ import annotations

import itertools
import math

import pytest
from coschedule_testing import instances, random_instances
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.model import MoldableInstance, MoldableTask, Pack
from coschedule.exact.onepack_dp import one_pack_dp, one_pack_dp_cost


def every_allocation_cost(instance: MoldableInstance, tasks: list[int]) -> float:
    """min over sigma in prod [min_procs(i), p] with sum sigma <= p of max_i t(i, sigma(i)).

    Written out here (not the shared helper) so that the profile is read through
    ``MoldableTask.times`` directly, independently of ``MoldableInstance.time``.
    """
    best = math.inf
    p = instance.p
    for sigma in itertools.product(*(range(instance.tasks[i].min_procs, p + 1) for i in tasks)):
        if sum(sigma) <= p:
            profiles = [instance.tasks[i].times for i in tasks]
            best = min(best, max(t[min(q, len(t)) - 1] for t, q in zip(profiles, sigma)))
    return best


@st.composite
def instance_and_tasks(draw: st.DrawFn, n: tuple[int, int] = (1, 4), p: tuple[int, int] = (1, 7)):
    instance = draw(instances(n=n, p=p))
    tasks = draw(st.permutations(range(instance.n)))
    size = draw(st.integers(1, instance.n))
    return instance, list(tasks[:size])


@given(instance_and_tasks())
def test_dp_equals_brute_force(case):
    instance, tasks = case
    expected = every_allocation_cost(instance, tasks)
    got = one_pack_dp_cost(instance, tasks)
    if math.isinf(expected):
        assert math.isinf(got)
    else:
        assert got == expected  # both are one of the profile values: no rounding involved


@given(instance_and_tasks(n=(1, 5), p=(1, 8)))
def test_pack_attains_the_dp_cost(case):
    instance, tasks = case
    cost = one_pack_dp_cost(instance, tasks)
    if math.isinf(cost):  # the minima do not fit side by side
        assert sum(instance.tasks[i].min_procs for i in tasks) > instance.p
        with pytest.raises(InvalidInstance, match="cannot share one pack"):
            one_pack_dp(instance, tasks)
        return
    pack = one_pack_dp(instance, tasks)
    assert isinstance(pack, Pack)
    assert sorted(pack.tasks) == sorted(tasks)
    assert pack.procs <= instance.p
    for a in pack.allocations:
        assert instance.tasks[a.task].min_procs <= a.procs <= instance.p
    assert pack.cost(instance) == cost


@given(random_instances(n=(1, 6), p=(1, 8)))
def test_single_task_runs_on_all_processors(instance):
    # one task alone: (1.1) says more processors never hurt, so the cost is t(i, p)
    for i in range(instance.n):
        assert one_pack_dp_cost(instance, [i]) == instance.time(i, instance.p)
        assert one_pack_dp(instance, [i]).cost(instance) == instance.time(i, instance.p)


@given(random_instances(n=(2, 5), p=(1, 7)), st.data())
def test_cost_monotone_in_the_task_set(instance, data):
    # adding a task takes processors away from the others: the pack never gets cheaper
    tasks = data.draw(st.permutations(range(instance.n)))
    costs = [one_pack_dp_cost(instance, list(tasks[: s + 1])) for s in range(instance.n)]
    assert all(b >= a for a, b in itertools.pairwise(costs)), costs


def test_small_pack_by_hand():
    # p = 4: A = (8, 4, 4, 4), B = (8, 4, 4, 4), C = (6, 6, 6, 6).
    # {A, B}: 2 + 2 processors, cost 4. {A, B, C}: C takes 1, A and B share 3, so one of them
    # runs on 1 processor: cost 8. {A, C}: A on 3, C on 1: cost 6.
    ab = MoldableTask((8.0, 4.0, 4.0, 4.0))
    inst = MoldableInstance((ab, ab, MoldableTask((6.0,) * 4)), 4)
    assert one_pack_dp_cost(inst, [0, 1]) == 4.0
    assert one_pack_dp_cost(inst, [0, 1, 2]) == 8.0
    assert one_pack_dp_cost(inst, [2, 0]) == 6.0
    pack = one_pack_dp(inst, [0, 1])
    assert {a.task: a.procs for a in pack.allocations} == {0: 2, 1: 2}


def test_minimum_processors_by_hand():
    # p = 5; A needs 3, B needs 2: together only on exactly 3 + 2, cost max(10, 12) = 12
    a = MoldableTask((None, None, 10.0, 9.0, 8.0), min_procs=3)
    b = MoldableTask((None, 12.0, 8.0, 6.0, 6.0), min_procs=2)
    c = MoldableTask((5.0,) * 5)
    inst = MoldableInstance((a, b, c), 5)
    assert one_pack_dp_cost(inst, [0, 1]) == 12.0
    assert {x.task: x.procs for x in one_pack_dp(inst, [1, 0]).allocations} == {0: 3, 1: 2}
    assert math.isinf(one_pack_dp_cost(inst, [0, 1, 2]))  # 3 + 2 + 1 > 5
    with pytest.raises(InvalidInstance, match="cannot share one pack"):
        one_pack_dp(inst, [0, 1, 2])


def test_empty_pack_is_refused():
    inst = MoldableInstance((MoldableTask((1.0,)),), 1)
    with pytest.raises(InvalidInstance, match="at least one task"):
        one_pack_dp_cost(inst, [])
    with pytest.raises(InvalidInstance, match="at least one task"):
        one_pack_dp(inst, [])
