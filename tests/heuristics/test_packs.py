"""Algorithms 1-3 of §1.4.2-1.4.4: Optimal-1-pack, Make-Pack and Pack-Approx."""

from __future__ import annotations

import math

import pytest
from coschedule_testing import (
    brute_force_one_pack,
    fewer,
    instances,
    random_instances,
    synthetic_instances,
)
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance, UnknownName
from coschedule.model import CoSchedule, MoldableInstance, MoldableTask, Pack
from coschedule.validate import validate_coschedule
from coschedule.exact.exhaustive import solve_exhaustive
from coschedule.exact.onepack_dp import one_pack_dp_cost
from coschedule.heuristics.packs import HEURISTICS, get_heuristic, make_pack, optimal_1_pack, pack_approx

# ------------------------------------------------------------------ Algorithm 1 (Thm 1.3)


@st.composite
def instance_and_subset(draw, **kw):
    inst = draw(random_instances(**kw))
    tasks = draw(st.lists(st.integers(0, inst.n - 1), min_size=1, max_size=inst.n, unique=True))
    return inst, tasks


@pytest.mark.parametrize("with_min_procs", [False, True])
@given(data=st.data())
def test_optimal_1_pack_equals_dp(with_min_procs, data):
    inst, tasks = data.draw(
        instance_and_subset(n=(1, 8), p=(1, 16), with_min_procs=with_min_procs)
    )
    dp = one_pack_dp_cost(inst, tasks)
    if sum(inst.tasks[i].min_procs for i in tasks) > inst.p:
        assert dp == math.inf
        with pytest.raises(InvalidInstance, match="need .* processors together"):
            optimal_1_pack(inst, tasks)
        return
    pack = optimal_1_pack(inst, tasks)
    assert sorted(pack.tasks) == sorted(tasks)
    assert pack.procs == inst.p  # every processor is handed out
    assert all(a.procs >= inst.tasks[a.task].min_procs for a in pack.allocations)
    assert math.isclose(pack.cost(inst), dp, rel_tol=1e-12)


@given(instance_and_subset(n=(1, 4), p=(1, 7)))
def test_optimal_1_pack_equals_brute_force(case):
    inst, tasks = case
    expected = brute_force_one_pack(inst, tasks)
    assert math.isclose(one_pack_dp_cost(inst, tasks), expected, rel_tol=1e-12)  # inf == inf
    if math.isfinite(expected):
        assert math.isclose(optimal_1_pack(inst, tasks).cost(inst), expected, rel_tol=1e-12)


def test_optimal_1_pack_by_hand():
    # p = 5; A: 12, 6, 4, 3, 3 (linear then plateau); B: 9, 8, 8, 8, 8 (plateau from 2 on)
    inst = MoldableInstance((MoldableTask((12.0, 6.0, 4.0, 3.0)), MoldableTask((9.0, 8.0))), 5)
    pack = optimal_1_pack(inst)
    # A:1 (12) -> A:2 (6); B:1 (9) longest -> B:2 (8); B still longest -> B:3 (8), cost 8:
    # the optimum, since B needs 2 processors for 8 and A then has 3 for 4
    assert dict((a.task, a.procs) for a in pack.allocations) == {0: 2, 1: 3}
    assert pack.cost(inst) == 8.0


def test_optimal_1_pack_continues_through_a_plateau():
    # the longest task's plateau at 2-3 processors is followed by a decrease at 4
    inst = MoldableInstance((MoldableTask((10.0, 6.0, 6.0, 4.5)), MoldableTask((1.0,))), 5)
    pack = optimal_1_pack(inst)
    assert dict((a.task, a.procs) for a in pack.allocations) == {0: 4, 1: 1}
    assert pack.cost(inst) == 4.5


def test_optimal_1_pack_errors():
    inst = MoldableInstance((MoldableTask((4.0, 2.0)), MoldableTask((None, 3.0), min_procs=2)), 2)
    with pytest.raises(InvalidInstance, match="at least one task"):
        optimal_1_pack(inst, [])
    with pytest.raises(InvalidInstance, match="twice"):
        optimal_1_pack(inst, [0, 0])
    with pytest.raises(InvalidInstance, match=r"need 3 processors together but p = 2"):
        optimal_1_pack(inst)
    assert optimal_1_pack(inst, [1]) == Pack.of({1: 2})


# ------------------------------------------------------------------ Algorithm 2 (Make-Pack)


def constant_instance(times: list[float], p: int) -> MoldableInstance:
    """Tasks with flat profiles: t(i, j) = times[i] for every j, so any sigma is meaningful."""
    return MoldableInstance(tuple(MoldableTask((t,)) for t in times), p)


def test_make_pack_by_hand():
    inst = constant_instance([5, 9, 7, 7, 1, 3], 4)
    sigma = [1, 3, 1, 2, 1, 1]
    # order by decreasing time (ties: lower index first): T1 T2 T3 T0 T5 T4
    # k = 2: T1(3) opens A; T2(1) fills A; T3(2) opens B; T0(1) joins B;
    #        T5 cannot join B (2 tasks = k) although a processor is free: opens C; T4 joins C
    cs = make_pack(inst, 2, sigma)
    assert [[(a.task, a.procs) for a in pk.allocations] for pk in cs.packs] == [
        [(1, 3), (2, 1)],
        [(3, 2), (0, 1)],
        [(5, 1), (4, 1)],
    ]
    assert cs.cost(inst) == 9 + 7 + 3
    # k = 3: T5 takes B's last processor; T4 finds A and B full and opens C
    cs = make_pack(inst, 3, sigma)
    assert [[(a.task, a.procs) for a in pk.allocations] for pk in cs.packs] == [
        [(1, 3), (2, 1)],
        [(3, 2), (0, 1), (5, 1)],
        [(4, 1)],
    ]
    assert cs.cost(inst) == 9 + 7 + 1


def test_make_pack_is_first_fit_not_best_fit():
    # T0(2 procs) opens A (2 free), T1(3) opens B (1 free), T2(1) goes to A, the first pack
    # that fits, although B would fit it exactly
    inst = constant_instance([9, 8, 7], 4)
    cs = make_pack(inst, 4, [2, 3, 1])
    assert [pk.tasks for pk in cs.packs] == [(0, 2), (1,)]


def ffdh_violations(inst: MoldableInstance, k: int, sigma: list[int], cs: CoSchedule) -> list[str]:
    """Check the output of Make-Pack against the First Fit Decreasing Height rules."""
    where = {a.task: b for b, pk in enumerate(cs.packs) for a in pk.allocations}
    order = [a.task for pk in cs.packs for a in pk.allocations]
    order.sort(key=lambda i: (-inst.time(i, sigma[i]), i))
    problems = []
    used = [0] * len(cs.packs)
    count = [0] * len(cs.packs)
    opened = 0
    for i in order:
        b = where[i]
        if b > opened:
            problems.append(f"task {i} in pack {b} before pack {opened} was opened")
        for a in range(min(b, opened)):
            if used[a] + sigma[i] <= inst.p and count[a] < k:
                problems.append(f"task {i} fits in earlier pack {a} but went to {b}")
        opened = max(opened, b + 1)
        used[b] += sigma[i]
        count[b] += 1
    return problems


@given(instances(n=(1, 10)), st.integers(1, 10), st.data())
def test_make_pack_respects_k_p_and_ffdh(inst, k, data):
    sigma = [
        data.draw(st.integers(int(inst.min_procs[i]), inst.p), label=f"sigma[{i}]")
        for i in range(inst.n)
    ]
    cs = make_pack(inst, k, sigma)
    validate_coschedule(inst, cs, k)
    assert all(a.procs == sigma[a.task] for pk in cs.packs for a in pk.allocations)
    assert all(len(pk.allocations) <= k and pk.procs <= inst.p for pk in cs.packs)
    assert ffdh_violations(inst, k, sigma, cs) == []
    # decreasing heights: each pack's first task is its longest, and pack costs decrease
    costs = [pk.cost(inst) for pk in cs.packs]
    assert costs == sorted(costs, reverse=True)
    assert all(pk.cost(inst) == inst.time(pk.tasks[0], sigma[pk.tasks[0]]) for pk in cs.packs)


def test_ffdh_checker_detects_a_bad_packing():
    inst = constant_instance([9, 8, 7], 4)
    bad = CoSchedule((Pack.of({0: 2}), Pack.of({1: 3, 2: 1})))
    assert ffdh_violations(inst, 4, [2, 3, 1], bad) == [
        "task 2 fits in earlier pack 0 but went to 1"
    ]


def test_make_pack_errors():
    inst = MoldableInstance((MoldableTask((4.0, 2.0)), MoldableTask((None, 3.0), min_procs=2)), 2)
    with pytest.raises(InvalidInstance, match="sigma has 1 entries for 2 tasks"):
        make_pack(inst, 2, [1])
    with pytest.raises(InvalidInstance, match=r"task 1: sigma 1 outside \[min_procs, p\]"):
        make_pack(inst, 2, [1, 1])
    with pytest.raises(InvalidInstance, match=r"task 0: sigma 3 outside"):
        make_pack(inst, 2, [3, 2])
    for k in (0, -1, 1.5, True):
        with pytest.raises(InvalidInstance, match="k must be a positive integer"):
            make_pack(inst, k, [1, 2])


# ------------------------------------------------------------------ Algorithm 3 (Thm 1.6)


@fewer(0.6)
@given(st.one_of(random_instances(n=(1, 8), p=(1, 8)), synthetic_instances(n=(1, 8), p=(1, 8))))
def test_pack_approx_is_a_3_approximation(inst):
    opt = solve_exhaustive(inst, inst.p)
    cost = validate_coschedule(inst, pack_approx(inst), inst.p)
    assert cost >= opt.objective * (1 - 1e-9)
    assert cost <= 3 * opt.objective * (1 + 1e-9)


@fewer(0.6)
@given(random_instances(n=(1, 8), p=(2, 8), with_min_procs=True))
def test_pack_approx_is_a_3_approximation_with_min_procs(inst):
    opt = solve_exhaustive(inst, inst.p)
    cs = pack_approx(inst)
    cost = validate_coschedule(inst, cs, inst.p)
    assert opt.objective * (1 - 1e-9) <= cost <= 3 * opt.objective * (1 + 1e-9)


def sigma_sequence(inst: MoldableInstance) -> list[list[int]]:
    """The allocations Algorithm 3 visits, from the paper's description (§1.4.4)."""
    sigma = [t.min_procs for t in inst.tasks]
    seen = [list(sigma)]
    while True:
        times = [inst.time(i, q) for i, q in enumerate(sigma)]
        longest = times.index(max(times))  # first task of longest time
        work = sum(q * t for q, t in zip(sigma, times))
        if sigma[longest] == inst.p or work > inst.p * times[longest]:
            return seen
        sigma[longest] += 1
        seen.append(list(sigma))


@given(instances(n=(1, 10), p=(1, 10)), st.integers(1, 10))
def test_pack_approx_returns_the_best_coschedule_seen(inst, k):
    candidates = [make_pack(inst, k, s) for s in sigma_sequence(inst)]
    costs = [cs.cost(inst) for cs in candidates]
    best = candidates[costs.index(min(costs))]  # first on ties
    result = pack_approx(inst, k)
    assert result == best
    validate_coschedule(inst, result, k, claimed_cost=min(costs))
    assert len(candidates) <= inst.n * (inst.p - 1) + 1


@st.composite
def instances_with_twins(draw):
    """Instances whose tasks repeat a few profiles, so that ties in t(i, sigma(i)) abound."""
    pool = draw(random_instances(n=(1, 3), p=(1, 8)))
    picks = draw(st.lists(st.integers(0, pool.n - 1), min_size=2, max_size=8))
    return MoldableInstance(tuple(pool.tasks[j] for j in picks), pool.p)


@given(instances_with_twins())
def test_pack_approx_best_seen_with_tied_tasks(inst):
    candidates = [make_pack(inst, inst.p, s) for s in sigma_sequence(inst)]
    costs = [cs.cost(inst) for cs in candidates]
    assert pack_approx(inst) == candidates[costs.index(min(costs))]


def test_pack_approx_breaks_ties_towards_the_lowest_index():
    # p = 4. sigma = (1,1,1,1): times (64, 29, 11, 45), one pack, cost 64.
    # sigma = (2,1,1,1): times (45, 29, 11, 45): packs {0,3,1} {2}, cost 45 + 11 = 56; work
    #   175 <= 4 * 45, and T0 and T3 tie for the longest time: T0 (lowest index) gets a processor.
    # sigma = (3,1,1,1): times (32, 29, 11, 45): packs {3,0} {1,2}, cost 74; work 181 > 180: stop.
    # (Giving the processor to T3 instead would lead to a co-schedule of cost 55.)
    inst = MoldableInstance(
        (
            MoldableTask((64.0, 45.0, 32.0, 32.0)),
            MoldableTask((29.0,)),
            MoldableTask((11.0, 6.0, 5.0, 5.0)),
            MoldableTask((45.0, 23.0, 19.0, 19.0)),
        ),
        4,
    )
    assert sigma_sequence(inst) == [[1, 1, 1, 1], [2, 1, 1, 1], [3, 1, 1, 1]]
    cs = pack_approx(inst)
    assert cs == CoSchedule((Pack.of({0: 2, 3: 1, 1: 1}), Pack.of({2: 1})))
    assert cs.cost(inst) == 56.0


def test_pack_approx_by_hand():
    # p = 2, two identical tasks 10, 6 (work 10 -> 12): side by side on one processor each
    # costs 10, in sequence on two processors 12. Pack-Approx starts at sigma = (1, 1),
    # the total work 20 <= 2 * 10 keeps it going: sigma = (2, 1) costs 6 + 10 = 16, then the
    # work 12 + 10 = 22 > 2 * 10 stops it. Best seen: the first co-schedule, cost 10.
    inst = MoldableInstance((MoldableTask((10.0, 6.0)), MoldableTask((10.0, 6.0))), 2)
    assert [s for s in sigma_sequence(inst)] == [[1, 1], [2, 1]]
    cs = pack_approx(inst)
    assert cs == CoSchedule((Pack.of({0: 1, 1: 1}),))
    assert cs.cost(inst) == 10.0


def test_pack_approx_continues_when_work_equals_p_times_longest():
    # stopping rule (ii) needs the total work to be *greater* than p times the longest time.
    # p = 2: A = (42, 42), B = (34, 34), C = (76, 38).
    # sigma = (1, 1, 1): packs {C, A}, {B} cost 76 + 34 = 110; work 152 == 2 * 76: go on.
    # sigma = (1, 1, 2): packs {A, B}, {C} cost 42 + 38 = 80; work 152 > 2 * 42: stop.
    inst = MoldableInstance(
        (MoldableTask((42.0, 42.0)), MoldableTask((34.0, 34.0)), MoldableTask((76.0, 38.0))), 2
    )
    assert sigma_sequence(inst) == [[1, 1, 1], [1, 1, 2]]
    cs = pack_approx(inst)
    assert cs == CoSchedule((Pack.of({0: 1, 1: 1}), Pack.of({2: 2})))
    assert cs.cost(inst) == 80.0


def test_pack_approx_stops_when_longest_task_has_every_processor():
    inst = MoldableInstance((MoldableTask((8.0, 4.0, 8 / 3)),), 3)
    assert sigma_sequence(inst) == [[1], [2], [3]]
    assert pack_approx(inst) == CoSchedule((Pack.of({0: 3}),))


def test_pack_approx_k_validation():
    inst = constant_instance([1.0, 2.0], 2)
    with pytest.raises(InvalidInstance, match="k must be a positive integer"):
        pack_approx(inst, 0)
    assert pack_approx(inst, 1).packs == (Pack.of({1: 1}), Pack.of({0: 1}))


# ------------------------------------------------------------------ registry


def test_get_heuristic_known_names():
    assert get_heuristic("pack-approx") is pack_approx
    assert get_heuristic("PACK-APPROX") is pack_approx
    assert set(HEURISTICS) == {"pack-approx", "make-pack-1", "one-pack", "sequential"}


def test_get_heuristic_unknown_name_lists_valid_names():
    with pytest.raises(UnknownName) as err:
        get_heuristic("best-fit")
    msg = str(err.value)
    assert "'best-fit'" in msg
    for name in HEURISTICS:
        assert name in msg
    assert isinstance(err.value, ValueError)


@given(instances(n=(1, 6), p=(1, 6)))
def test_sequential_is_the_1_in_p_optimum(inst):
    # Theorem 1.1: every task alone on p processors
    cs = get_heuristic("sequential")(inst, 1)
    assert math.isclose(cs.cost(inst), sum(inst.time(i, inst.p) for i in range(inst.n)))
    assert math.isclose(cs.cost(inst), solve_exhaustive(inst, 1).objective, rel_tol=1e-12)


@given(instances(n=(1, 6), p=(1, 8)))
def test_one_pack_and_make_pack_1_heuristics(inst):
    mp1 = get_heuristic("make-pack-1")(inst, None)
    assert mp1 == make_pack(inst, inst.p, [int(q) for q in inst.min_procs])
    if sum(inst.min_procs) <= inst.p:
        one = get_heuristic("one-pack")(inst, inst.n)
        assert len(one.packs) == 1
        assert math.isclose(one.cost(inst), one_pack_dp_cost(inst, range(inst.n)), rel_tol=1e-12)
        if inst.n > 1:
            with pytest.raises(InvalidInstance, match="one pack cannot hold"):
                get_heuristic("one-pack")(inst, inst.n - 1)
