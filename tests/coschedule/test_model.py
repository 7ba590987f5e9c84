"""The problem model (§1.3.1-1.3.2): profile validation, min_procs, packs and co-schedules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from coschedule_testing import instances
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.model import (
    PROFILE_RTOL,
    Allocation,
    CoSchedule,
    MoldableInstance,
    MoldableTask,
    Pack,
    coschedule_from_sigma,
)
from coschedule.heuristics.packs import HEURISTICS

# ------------------------------------------------------------------ profile checks (1.1), (1.2)


def test_valid_profile_is_stored_as_floats():
    task = MoldableTask([10, 6, 5, 5])
    assert task.times == (10.0, 6.0, 5.0, 5.0)
    assert all(isinstance(t, float) for t in task.times)
    assert task.work(2) == 12.0


def test_time_increase_violates_1_1_and_names_task_and_counts():
    with pytest.raises(InvalidInstance, match=r"task 'A': time increases from 2 to 3 processors"):
        MoldableTask((10.0, 6.0, 7.0), name="A")
    with pytest.raises(InvalidInstance, match=r"\(1\.1\)"):
        MoldableTask((10.0, 6.0, 7.0), name="A")


def test_work_decrease_violates_1_2_and_names_task_and_counts():
    # work 10 -> 2*4 = 8: superlinear speedup
    with pytest.raises(
        InvalidInstance, match=r"task 'B': work decreases from 1 to 2 processors \(10 -> 8\)"
    ):
        MoldableTask((10.0, 4.0), name="B")
    with pytest.raises(InvalidInstance, match=r"from 2 to 3 processors.*\(1\.2\)"):
        MoldableTask((10.0, 6.0, 3.9), name="B")


def test_boundary_profiles_are_valid():
    # plateau (1.1 tight) and perfectly linear (1.2 tight)
    assert MoldableTask((6.0, 6.0, 6.0)).time(3) == 6.0
    assert MoldableTask((12.0, 6.0, 4.0, 3.0)).time(4) == 3.0


def test_tolerance_accepts_rounding_noise_but_not_real_violations():
    tiny = 1e-3 * PROFILE_RTOL
    MoldableTask((10.0, 10.0 * (1 + tiny)))  # (1.1) within tolerance
    MoldableTask((10.0, 5.0 * (1 - tiny)))  # (1.2) within tolerance
    with pytest.raises(InvalidInstance, match=r"\(1\.1\)"):
        MoldableTask((10.0, 10.0 * (1 + 1e3 * PROFILE_RTOL)))
    with pytest.raises(InvalidInstance, match=r"\(1\.2\)"):
        MoldableTask((10.0, 5.0 * (1 - 1e3 * PROFILE_RTOL)))


@pytest.mark.parametrize("bad", [0, 0.0, -1.0, math.nan, math.inf, -math.inf])
def test_non_positive_or_non_finite_time_rejected(bad):
    with pytest.raises(InvalidInstance, match=r"time on 2 processors must be positive and finite"):
        MoldableTask((10.0, bad, 4.0))


@pytest.mark.parametrize("bad", [None, "x", True, [1.0]])
def test_missing_or_non_numeric_time_rejected(bad):
    with pytest.raises(InvalidInstance, match=r"time on 1 processors"):
        MoldableTask((bad, 4.0))


def test_empty_profile_rejected():
    with pytest.raises(InvalidInstance, match=r"profile has 0 entries"):
        MoldableTask(())


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_bad_min_procs_rejected(bad):
    with pytest.raises(InvalidInstance, match="min_procs"):
        MoldableTask((5.0, 4.0, 3.0), min_procs=bad)


@pytest.mark.parametrize("memory", [-1.0, math.nan, math.inf, "big", None])
def test_bad_memory_rejected(memory):
    with pytest.raises(InvalidInstance, match="memory must be"):
        MoldableTask((5.0,), memory=memory)


def test_numpy_scalars_become_python_numbers():
    task = MoldableTask((None, 3.0), min_procs=np.int64(2), memory=np.float32(1.5))
    inst = MoldableInstance((task,), np.int32(4))
    assert type(task.min_procs) is int and task.min_procs == 2
    assert type(task.memory) is float and task.memory == 1.5
    assert type(inst.p) is int and inst.p == 4


# ------------------------------------------------------------------ min_procs


def test_min_procs_times_below_minimum_are_infinite_and_ignored():
    # entries below min_procs are ignored, whatever they hold (even a superlinear "speedup")
    task = MoldableTask((None, 1.0, 9.0, 7.0, 6.0), min_procs=3)
    assert task.times[:2] == (math.inf, math.inf)
    assert task.time(1) == math.inf and task.time(2) == math.inf
    assert task.time(3) == 9.0 and task.time(5) == 6.0 and task.time(9) == 6.0
    assert task.work(2) == math.inf


def test_min_procs_checks_start_at_minimum():
    with pytest.raises(InvalidInstance, match=r"from 3 to 4 processors"):
        MoldableTask((None, None, 9.0, 9.5), min_procs=3)
    with pytest.raises(InvalidInstance, match=r"work decreases from 3 to 4"):
        MoldableTask((None, None, 9.0, 6.0), min_procs=3)


def test_min_procs_longer_than_profile_rejected():
    with pytest.raises(InvalidInstance, match=r"profile has 2 entries but min_procs is 3"):
        MoldableTask((5.0, 4.0), min_procs=3)


def test_platform_too_small_for_min_procs():
    tasks = (MoldableTask((4.0,)), MoldableTask((None, None, 3.0), min_procs=3, name="big"))
    with pytest.raises(InvalidInstance, match=r"task 1 \(big\): needs at least 3 .* p = 2"):
        MoldableInstance(tasks, 2)
    assert MoldableInstance(tasks, 3).time(1, 3) == 3.0


# ------------------------------------------------------------------ instances


def test_profile_extended_beyond_its_length_and_truncated_at_p():
    inst = MoldableInstance((MoldableTask((4.0, 2.5)), MoldableTask((9.0, 6.0, 4.0, 3.0))), 3)
    assert inst.time(0, 3) == 2.5  # last value repeated
    assert inst.time(1, 3) == 4.0
    assert inst.time(0, 4) == math.inf  # beyond the platform
    assert inst.time(0, 0) == math.inf
    T = inst.time_matrix
    assert T.shape == (2, 4)
    assert list(T[0]) == [math.inf, 4.0, 2.5, 2.5]
    assert list(T[1]) == [math.inf, 9.0, 6.0, 4.0]
    assert not T.flags.writeable


@given(instances())
def test_time_matrix_agrees_with_task_lookup(inst):
    for i in range(inst.n):
        for q in range(inst.p + 1):
            assert inst.time_matrix[i, q] == inst.time(i, q) == inst.tasks[i].time(q)
        assert inst.min_procs[i] == inst.tasks[i].min_procs


def test_empty_instance_rejected():
    with pytest.raises(InvalidInstance, match="no task"):
        MoldableInstance((), 4)


@pytest.mark.parametrize("p", [0, -1, 2.0, True])
def test_bad_platform_size_rejected(p):
    with pytest.raises(InvalidInstance, match="platform size p"):
        MoldableInstance((MoldableTask((1.0,)),), p)


def test_task_labels():
    inst = MoldableInstance((MoldableTask((1.0,)), MoldableTask((1.0,), name="x")), 1)
    assert inst.task_label(0) == "task 0"
    assert inst.task_label(1) == "task 1 (x)"


# ------------------------------------------------------------------ packs and co-schedules


@pytest.fixture
def small():
    return MoldableInstance(
        (
            MoldableTask((8.0, 5.0, 4.0, 4.0)),
            MoldableTask((6.0, 3.0)),
            MoldableTask((2.0, 2.0, 2.0)),
        ),
        4,
    )


def test_pack_and_coschedule_costs(small):
    pack = Pack.of({0: 2, 1: 1})
    assert pack.tasks == (0, 1) and pack.procs == 3
    assert pack.cost(small) == 6.0  # max(5, 6)
    cs = CoSchedule((pack, Pack.of([(2, 4)])))
    assert cs.cost(small) == 8.0
    assert coschedule_from_sigma([[0, 1], [2]], [2, 1, 4]) == cs


def test_canonical_orders_packs_by_cost_and_tasks_by_index(small):
    cs = CoSchedule((Pack.of([(2, 1)]), Pack.of([(1, 2), (0, 2)])))
    canon = cs.canonical(small)
    assert canon.packs[0].tasks == (0, 1)
    assert canon.packs[1].tasks == (2,)
    assert canon.cost(small) == cs.cost(small)


def test_to_schedule_places_packs_back_to_back(small):
    cs = CoSchedule((Pack.of({0: 2, 1: 2}), Pack.of({2: 4})))
    sched = cs.to_schedule(small)
    by_job = {e.job: e for e in sched.executions}
    assert (by_job[0].start, by_job[0].end, by_job[0].procs) == (0.0, 5.0, 2)
    assert (by_job[1].start, by_job[1].end) == (0.0, 3.0)
    assert (by_job[2].start, by_job[2].end, by_job[2].procs) == (5.0, 7.0, 4)
    assert sched.makespan == 7.0 == cs.cost(small)
    assert sched.jobs() == {0, 1, 2}


@given(instances(), st.sampled_from(sorted(set(HEURISTICS) - {"one-pack"})))
def test_timeline_makespan_equals_cost(inst, name):
    cs = HEURISTICS[name](inst, None)
    sched = cs.to_schedule(inst)
    assert math.isclose(sched.makespan, cs.cost(inst), rel_tol=1e-12)
    assert sorted(e.job for e in sched.executions) == list(range(inst.n))
    # every execution lasts its task's time on its allocation
    allocs = {a.task: a.procs for pk in cs.packs for a in pk.allocations}
    for e in sched.executions:
        assert e.procs == allocs[e.job]
        assert math.isclose(e.duration, inst.time(e.job, e.procs), rel_tol=1e-9)


def test_allocation_is_a_value():
    assert Allocation(1, 2) == Allocation(1, 2)
    assert Pack([Allocation(0, 1)]).allocations == (Allocation(0, 1),)
