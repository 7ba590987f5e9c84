"""The independent validators: co-schedules (Definition 1.1) and processor capacity."""

from __future__ import annotations

import math

import pytest
from coschedule_testing import instances, random_instances
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidSchedule
from coschedule.model import Allocation, CoSchedule, MoldableInstance, MoldableTask, Pack
from coschedule.schedule import Execution, Schedule
from coschedule.validate import check_capacity, validate_coschedule
from coschedule.heuristics.packs import HEURISTICS, make_pack, optimal_1_pack, pack_approx

# ------------------------------------------------------------------ heuristics are valid


@given(instances(), st.integers(1, 8))
def test_heuristic_coschedules_pass_validation(inst, k):
    for name, heuristic in HEURISTICS.items():
        if name == "one-pack" and (inst.n > k or sum(inst.min_procs) > inst.p):
            continue
        cs = heuristic(inst, k)
        cost = validate_coschedule(inst, cs, k, claimed_cost=cs.cost(inst))
        assert math.isclose(cost, cs.cost(inst), rel_tol=1e-12)


@given(random_instances(with_min_procs=True))
def test_pack_approx_and_optimal_1_pack_valid_with_min_procs(inst):
    validate_coschedule(inst, pack_approx(inst), inst.p)
    if sum(inst.min_procs) <= inst.p:
        pack = optimal_1_pack(inst)
        validate_coschedule(inst, CoSchedule((pack,)))
        assert pack.procs == inst.p  # Algorithm 1 hands out every processor


# ------------------------------------------------------------------ mutations are rejected


@pytest.fixture
def inst():
    return MoldableInstance(
        (
            MoldableTask((8.0, 5.0, 4.0, 4.0)),
            MoldableTask((6.0, 3.0)),
            MoldableTask((None, 7.0, 5.0), min_procs=2, name="wide"),
            MoldableTask((2.0, 2.0, 2.0)),
        ),
        4,
    )


@pytest.fixture
def good():
    # packs {0:2, 1:2} (cost 5) and {2:2, 3:2} (cost 7)
    return CoSchedule((Pack.of({0: 2, 1: 2}), Pack.of({2: 2, 3: 2})))


def test_reference_coschedule_is_valid(inst, good):
    assert validate_coschedule(inst, good, 2, claimed_cost=12.0) == 12.0


def test_task_dropped(inst, good):
    bad = CoSchedule((good.packs[0], Pack.of({2: 2})))
    with pytest.raises(InvalidSchedule, match=r"task 3 is in no pack"):
        validate_coschedule(inst, bad)


def test_task_duplicated(inst, good):
    bad = CoSchedule(good.packs + (Pack.of({1: 4}),))
    with pytest.raises(InvalidSchedule, match=r"task 1 appears in 2 packs"):
        validate_coschedule(inst, bad)
    same_pack = CoSchedule((Pack.of([(0, 1), (0, 1), (1, 2)]), good.packs[1]))
    with pytest.raises(InvalidSchedule, match=r"task 0 appears in 2 packs"):
        validate_coschedule(inst, same_pack)


def test_pack_over_p_processors(inst, good):
    bad = CoSchedule((Pack.of({0: 3, 1: 2}), good.packs[1]))
    with pytest.raises(InvalidSchedule, match=r"pack 0 uses 5 processors > p = 4"):
        validate_coschedule(inst, bad)


def test_allocation_over_p(inst, good):
    bad = CoSchedule((Pack.of({0: 5}), Pack.of({1: 1}), good.packs[1]))
    with pytest.raises(InvalidSchedule, match=r"pack 0, task 0: 5 processors > p = 4"):
        validate_coschedule(inst, bad)


def test_pack_over_k_tasks(inst):
    cs = CoSchedule((Pack.of({0: 1, 1: 1, 3: 1}), Pack.of({2: 4})))
    assert validate_coschedule(inst, cs, 3) == 8.0 + 5.0
    with pytest.raises(InvalidSchedule, match=r"pack 0 has 3 tasks > k = 2"):
        validate_coschedule(inst, cs, 2)
    with pytest.raises(InvalidSchedule, match=r"k must be >= 1"):
        validate_coschedule(inst, cs, 0)


def test_allocation_below_min_procs(inst, good):
    bad = CoSchedule((good.packs[0], Pack.of({2: 1, 3: 3})))
    with pytest.raises(InvalidSchedule, match=r"pack 1, task 2 \(wide\): 1 processors < minimum 2"):
        validate_coschedule(inst, bad)


@pytest.mark.parametrize("procs", [0, -1])
def test_allocation_of_no_processor(inst, good, procs):
    bad = CoSchedule((Pack.of({0: 2, 1: procs}), good.packs[1]))
    with pytest.raises(InvalidSchedule, match=r"processors < minimum 1"):
        validate_coschedule(inst, bad)


def test_non_integer_allocation(inst, good):
    bad = CoSchedule((Pack((Allocation(0, 2.0), Allocation(1, 2))), good.packs[1]))
    with pytest.raises(InvalidSchedule, match=r"processor count 2\.0 is not an integer"):
        validate_coschedule(inst, bad)


@pytest.mark.parametrize("task", [4, -1, 17])
def test_unknown_task_index(inst, good, task):
    bad = CoSchedule(good.packs + (Pack.of({task: 1}),))
    with pytest.raises(InvalidSchedule, match=rf"pack 2: unknown task index {task} \(n = 4\)"):
        validate_coschedule(inst, bad)


@pytest.mark.parametrize("claimed", [11.0, 12.001, 0.0, math.inf])
def test_wrong_claimed_cost(inst, good, claimed):
    with pytest.raises(InvalidSchedule, match=r"claimed cost .* differs from recomputed cost 12"):
        validate_coschedule(inst, good, claimed_cost=claimed)


def test_claimed_cost_within_tolerance_accepted(inst, good):
    assert validate_coschedule(inst, good, claimed_cost=12.0 * (1 + 1e-10)) == 12.0


def test_empty_pack(inst, good):
    bad = CoSchedule((good.packs[0], Pack(()), good.packs[1]))
    with pytest.raises(InvalidSchedule, match=r"pack 1 is empty"):
        validate_coschedule(inst, bad)


def test_empty_coschedule(inst):
    with pytest.raises(InvalidSchedule, match=r"task 0 is in no pack"):
        validate_coschedule(inst, CoSchedule(()))


@given(random_instances(n=(2, 8)), st.data())
def test_random_mutations_rejected(inst, data):
    cs = pack_approx(inst)
    validate_coschedule(inst, cs, inst.p)
    packs = [list(pk.allocations) for pk in cs.packs]
    b = data.draw(st.integers(0, len(packs) - 1), label="pack")
    j = data.draw(st.integers(0, len(packs[b]) - 1), label="allocation")
    a = packs[b][j]
    kind = data.draw(st.sampled_from(["drop", "duplicate", "unknown", "below-min", "over-p"]))
    if kind == "drop":
        del packs[b][j]
        match = "in no pack"
    elif kind == "duplicate":
        packs.append([Allocation(a.task, a.procs)])
        match = "appears in 2 packs"
    elif kind == "unknown":
        packs[b][j] = Allocation(inst.n, a.procs)
        match = "unknown task index"
    elif kind == "below-min":
        packs[b][j] = Allocation(a.task, inst.tasks[a.task].min_procs - 1)
        match = "< minimum"
    else:
        packs[b][j] = Allocation(a.task, inst.p + 1)
        match = "> p ="
    mutated = CoSchedule(tuple(Pack(tuple(pk)) for pk in packs if pk))
    with pytest.raises(InvalidSchedule, match=match):
        validate_coschedule(inst, mutated, inst.p)


@given(random_instances(n=(2, 8), p=(2, 8)))
def test_overfull_pack_rejected(inst):
    cs = make_pack(inst, inst.n, [int(q) for q in inst.min_procs])
    first = list(cs.packs[0].allocations)
    if len(cs.packs) > 1:
        # First Fit opened pack 1 because its first task did not fit in pack 0: merge them
        moved = cs.packs[1].allocations[0]
        first.append(moved)
        rest = (Pack(cs.packs[1].allocations[1:]),) if len(cs.packs[1].allocations) > 1 else ()
        rest += cs.packs[2:]
    else:
        # a single pack of n >= 2 tasks: widen its first task by the free processors plus one
        free = inst.p - sum(a.procs for a in first)
        first[0] = Allocation(first[0].task, first[0].procs + free + 1)
        rest = ()
    used = sum(a.procs for a in first)
    assert used > inst.p
    mutated = CoSchedule((Pack(tuple(first)),) + rest)
    with pytest.raises(InvalidSchedule, match=rf"pack 0 uses {used} processors > p = {inst.p}"):
        validate_coschedule(inst, mutated)


# ------------------------------------------------------------------ capacity, half-open


def test_capacity_back_to_back_jobs_share_processors():
    ex = [Execution(0, 0, 0.0, 2.0, 4), Execution(1, 0, 2.0, 5.0, 4)]
    check_capacity(ex, 4)
    check_capacity(Schedule(tuple(ex)), 4)


def test_capacity_overlap_rejected():
    ex = [Execution(0, 0, 0.0, 2.0, 3), Execution(1, 0, 1.5, 5.0, 2)]
    with pytest.raises(InvalidSchedule, match=r"5 processors in use at time 1\.5 > capacity 4"):
        check_capacity(ex, 4)
    check_capacity(ex, 5)


def test_capacity_many_events_at_one_instant():
    # three jobs end at t = 1 while three others start: the load never exceeds 3
    ex = [Execution(i, 0, 0.0, 1.0, 1) for i in range(3)]
    ex += [Execution(3 + i, 0, 1.0, 2.0, 1) for i in range(3)]
    check_capacity(ex, 3)
    with pytest.raises(InvalidSchedule, match=r"4 processors in use at time 1 > capacity 3"):
        check_capacity(ex + [Execution(9, 0, 1.0, 1.5, 1)], 3)


def test_capacity_zero_length_execution_occupies_nothing():
    ex = [Execution(0, 0, 0.0, 2.0, 4), Execution(1, 0, 1.0, 1.0, 4)]
    check_capacity(ex, 4)


def test_capacity_single_job_too_wide():
    with pytest.raises(InvalidSchedule, match=r"> capacity 2"):
        check_capacity([Execution(0, 0, 0.0, 1.0, 3)], 2)


@pytest.mark.parametrize(
    "execution, match",
    [
        (Execution(0, 0, 2.0, 1.0, 1), "ends before it starts"),
        (Execution(0, 0, 0.0, math.inf, 1), "non-finite interval"),
        (Execution(0, 0, math.nan, 1.0, 1), "non-finite interval"),
        (Execution(0, 0, 0.0, 1.0, -1), "negative processor count"),
    ],
)
def test_capacity_malformed_execution(execution, match):
    with pytest.raises(InvalidSchedule, match=match):
        check_capacity([execution], 4)
