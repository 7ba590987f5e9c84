"""The exact redistribution search (one pack, no failure, constant cost S; [Aupy2017] §1.4.5)
against a brute force over every decision list, the no-redistribution optimum, hand-computed
schedules, a greedy-to-the-longest policy (§1.4.5's remark on Algorithm 1) and its time limit."""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pytest
from coschedule.exact.onepack_dp import one_pack_dp_cost
from coschedule.exact.redistribution_exact import (
    Decision,
    Replay,
    no_redistribution_optimum,
    replay,
    solve_redistribution,
)
from coschedule_testing import fewer, small_packs
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance, InvalidSchedule
from coschedule.generators import random_instance
from coschedule.model import MoldableInstance, MoldableTask
from coschedule.redistribution import MalleablePack
from coschedule.results import Status
from coschedule.timelimit import TIME_LIMIT_MARGIN

REL = 1e-9


def close(a: float, b: float) -> bool:
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


def scale(pack: MalleablePack) -> float:
    """The mean time of the applications on their fewest processors."""
    return float(np.mean(pack.time(np.arange(pack.n), pack.min_procs)))


def costs(pack: MalleablePack) -> st.SearchStrategy[float]:
    """S from nothing to more than any application's time, scaled to the pack."""
    scale_ = scale(pack)
    return st.sampled_from([0.0, 0.01, 0.1, 0.5, 2.0]).map(lambda f: f * scale_)


def brute_force(pack: MalleablePack, S: float) -> float:
    """The best makespan over every decision list, enumerated without pruning: every even
    allocation at time 0, then at each event every even allocation of the running applications
    that leaves the redistributing ones alone (keeping the current one included); each list is
    evaluated by :func:`replay`."""
    P = pack.p_even
    kmin = [int(k) for k in pack.min_procs]
    best = math.inf

    def allocations(apps: list[int], budget: int):
        for ks in itertools.product(*(range(kmin[i], budget + 1, 2) for i in apps)):
            if sum(ks) <= budget:
                yield ks

    def extend(prefix: list[Decision]) -> None:
        nonlocal best
        rep = replay(pack, prefix, S)
        e = len(prefix)
        if e == len(rep.events):
            best = min(best, rep.makespan)
            return
        ev = rep.events[e]
        free = [i for i in ev.running if i not in ev.frozen]
        budget = P - sum(ev.before[i] for i in ev.frozen)
        for ks in allocations(free, budget):
            alloc = list(ev.before)
            for i, k in zip(free, ks):
                alloc[i] = k
            extend(prefix + [Decision(ev.time, tuple(alloc))])

    for ks in allocations(list(range(pack.n)), P):
        extend([Decision(0.0, tuple(ks))])
    return best


def check_solution(pack: MalleablePack, S: float, res) -> Replay:
    """The solution replays to the objective, and the bound does not exceed it."""
    rep = replay(pack, res.solution.decisions, S)
    assert rep.makespan == res.objective
    assert len(res.solution.decisions) == len(rep.events)
    assert res.bound is not None and res.bound <= res.objective * (1 + REL)
    for i, line in enumerate(rep.timeline):  # every application completes its whole work
        work = sum((s.end - s.start) / pack.time(i, s.procs) for s in line if s.kind == "compute")
        assert close(work, 1.0), (i, work)
        assert all(s.procs % 2 == 0 and s.procs >= pack.min_procs[i] for s in line)
    return rep


def pair_instance(pack: MalleablePack) -> MoldableInstance:
    """The pack with pairs as processors (``t'(q) = t(2q)`` on ``p/2``): its 1-pack DP optimum
    is the even no-redistribution optimum."""
    Q = pack.p_even // 2
    tasks = tuple(MoldableTask(tuple(float(pack.time(i, 2 * q)) for q in range(1, Q + 1)),
                               min_procs=int(pack.min_procs[i]) // 2) for i in range(pack.n))
    return MoldableInstance(tasks, Q)


def linear_pack(p: int, works: list[float]) -> MalleablePack:
    """Perfect speedup ``t_{i,k} = works[i] / k``."""
    return MalleablePack(p=p, memory=np.zeros(len(works)),
                         table=np.array([[w / k for k in range(1, p + 1)] for w in works]))


# ------------------------------------------------------------------- (a) brute force


@given(st.data())
@fewer(0.8)
def test_branch_and_bound_equals_brute_force(data):
    pack = data.draw(small_packs())
    S = data.draw(costs(pack))
    res = solve_redistribution(pack, start=S)
    assert res.status is Status.OPTIMAL, res.describe()
    check_solution(pack, S, res)
    assert close(res.objective, brute_force(pack, S)), (res.objective, res.solution.decisions)


@pytest.mark.parametrize("seed", range(4))
def test_brute_force_four_applications(seed):
    """n = 4 on p = 10 (one extra pair at the start, up to three events)."""
    pack = MalleablePack.from_instance(random_instance(4, 10, seed=seed, integral=seed % 2 == 0))
    for S in (0.0, 1.0):
        res = solve_redistribution(pack, start=S)
        assert res.status is Status.OPTIMAL
        check_solution(pack, S, res)
        assert close(res.objective, brute_force(pack, S))


def test_identical_applications_end_together():
    """Ties: identical applications on equal counts end at one event (the group's processors
    are all released at once), as the brute force sees it."""
    pack = linear_pack(8, [12.0, 12.0, 12.0])
    for S in (0.0, 0.5, 3.0):
        res = solve_redistribution(pack, start=S)
        assert close(res.objective, brute_force(pack, S))
        assert res.objective <= res.info["no_redistribution"]


# ------------------------------------------------- (b) S = 0 and S huge against the 1-pack DP


@given(st.data())
@fewer(0.8)
def test_zero_cost_never_worse_and_huge_cost_no_redistribution(data):
    pack = data.draw(small_packs(n=(1, 4), p=(2, 12)))
    no_redist = one_pack_dp_cost(pair_instance(pack), list(range(pack.n)))
    assert close(no_redistribution_optimum(pack)[0], no_redist)
    zero = solve_redistribution(pack, start=0.0)
    assert zero.status is Status.OPTIMAL
    assert zero.objective <= no_redist * (1 + REL)
    # lower bounds every schedule obeys: each application alone on its best count, and the area
    P = pack.p_even
    best_k = [min(pack.time(i, k) for k in range(int(pack.min_procs[i]), P + 1, 2)) for i in range(pack.n)]
    area = sum(min(k * pack.time(i, k) for k in range(int(pack.min_procs[i]), P + 1, 2)) for i in range(pack.n))
    assert zero.objective >= max(best_k) * (1 - REL)
    assert zero.objective >= area / P * (1 - REL)
    huge = solve_redistribution(pack, start=10.0 * no_redist)
    assert huge.status is Status.OPTIMAL
    assert close(huge.objective, no_redist)
    assert huge.info["redistributions"] == 0
    check_solution(pack, 10.0 * no_redist, huge)


# ------------------------------------------------------------------ (c) by hand


def test_redistribution_strictly_helps_by_hand():
    """Two applications with perfect speedup ``t = 12/k`` on p = 6 (three pairs).

    Without redistribution: (2,2) ends at 6, (2,4) and (4,2) at 6 as well (the one on 2), so 6.
    With S = 1: (2,4); B ends at 12/4 = 3, A has done 3/6 = 1/2; A moves to 6 processors and
    ends at 3 + S + (1/2)(12/6) = 5 (to 4 processors: 3 + 1 + (1/2)(3) = 5.5; kept: 6). The
    only other first choices are (2,2), ending at 6, and (4,2), the mirror image: optimum 5.
    With S = 0 the same schedule ends at 4, the area bound 24/6: optimum 4.
    """
    pack = linear_pack(6, [12.0, 12.0])
    res = solve_redistribution(pack, start=1.0)
    assert res.status is Status.OPTIMAL
    assert res.info["no_redistribution"] == 6.0
    assert close(res.objective, 5.0)
    assert sorted(res.solution.decisions[0].alloc) == [2, 4]
    assert res.solution.decisions[1].time == 3.0
    assert max(res.solution.decisions[1].alloc) == 6
    assert close(solve_redistribution(pack, start=0.0).objective, 4.0)
    check_solution(pack, 1.0, res)


def test_replay_by_hand_and_an_application_still_redistributing():
    """p = 6, S = 3; A: t = 24/k (12 on 2, 6 on 4), B: 8/k (4 on 2), C: 4/k (2 on 2).

    (2,2,2) at 0. C ends at 2; A (5/6 left) moves to 4 processors: it redistributes over
    [2, 5], then computes 5/6 x 6 = 5, ending at 10. B ends at 4 while A is still
    redistributing: A sits that event out (its count cannot change), so the makespan is 10.
    """
    pack = linear_pack(6, [24.0, 8.0, 4.0])
    decisions = [Decision(0.0, (2, 2, 2)), Decision(2.0, (4, 2, 0)), Decision(4.0, (4, 0, 0))]
    rep = replay(pack, decisions, 3.0)
    assert close(rep.makespan, 10.0)
    assert [e.time for e in rep.events] == [0.0, 2.0, 4.0]
    assert rep.events[1].ended == (2,) and rep.events[2].ended == (1,)
    assert rep.events[2].frozen == (0,)
    assert [(s.kind, s.start, s.end, s.procs) for s in rep.timeline[0]][:2] == [
        ("compute", 0.0, 2.0, 2), ("redistribute", 2.0, 5.0, 4)]
    assert close(rep.timeline[0][2].end, 10.0)
    assert rep.redistributions == 1
    assert replay(pack, decisions[:2], 3.0).makespan == rep.makespan  # missing decisions keep
    with pytest.raises(InvalidSchedule, match="still redistributing"):
        replay(pack, decisions[:2] + [Decision(4.0, (6, 0, 0))], 3.0)
    # keeping A on 2 at time 2 and moving it to 6 at 4 (2/3 left, 4 on 6): 4 + 3 + 8/3
    better = replay(pack, [Decision(0.0, (2, 2, 2)), Decision(2.0, (2, 2, 0)), Decision(4.0, (6, 0, 0))], 3.0)
    assert close(better.makespan, 4 + 3 + 8 / 3)
    res = solve_redistribution(pack, start=3.0)
    assert res.objective <= better.makespan * (1 + REL)
    assert close(res.objective, brute_force(pack, 3.0))


@pytest.mark.parametrize("decisions, message", [
    ([], "no initial allocation"),
    ([Decision(0.0, (3, 2, 2))], "even"),
    ([Decision(0.0, (2, 2))], "entries"),
    ([Decision(0.0, (4, 2, 2))], "usable"),
    ([Decision(0.0, (2, 2, 2)), Decision(1.0, (2, 2, 0))], "event happens at 2"),
    ([Decision(0.0, (2, 2, 2)), Decision(2.0, (2, 2, 2))], "not running"),
    ([Decision(0.0, (2, 2, 2)), Decision(2.0, (2, 2, 0)), Decision(4.0, (2, 0, 0)), Decision(12.0, (0, 0, 0))],
     "4 decisions for 3 events"),
])
def test_replay_refuses_invalid_decisions(decisions, message):
    with pytest.raises(InvalidSchedule, match=message):
        replay(linear_pack(6, [24.0, 8.0, 4.0]), decisions, 1.0)


def test_invalid_arguments():
    pack = linear_pack(6, [12.0, 12.0])
    with pytest.raises(InvalidInstance, match="start-up S"):
        solve_redistribution(pack, start=-1.0)
    with pytest.raises(InvalidInstance, match="n <= 8"):
        solve_redistribution(linear_pack(20, [1.0] * 9))
    with pytest.raises(InvalidInstance, match="p <= 32"):
        solve_redistribution(linear_pack(40, [1.0, 2.0]))


# ---------------------------------------------- (d) greedy to the longest is not optimal


def greedy_to_the_longest(pack: MalleablePack, S: float = 0.0) -> Replay:
    """Algorithm 1 over pairs at time 0 (a pair at a time to the application with the longest
    time), then at each end every free pair, one at a time, to the running application (not
    redistributing) that would end last (EndLocal's rule, §1.5.2)."""
    P, n = pack.p_even, pack.n
    k = [int(x) for x in pack.min_procs]
    while P - sum(k) >= 2:
        i = max(range(n), key=lambda i: (pack.time(i, k[i]), -i))
        k[i] += 2
    decisions = [Decision(0.0, tuple(k))]
    while True:
        rep = replay(pack, decisions, S)
        e = len(decisions)
        if e == len(rep.events):
            return rep
        ev = rep.events[e]
        left = {i: 1.0 - sum((s.end - s.start) / pack.time(i, s.procs) for s in rep.timeline[i]
                             if s.kind == "compute" and s.end <= ev.time) for i in ev.running}
        resume = {i: max([ev.time] + [s.end for s in rep.timeline[i] if s.kind == "redistribute"
                                      and s.start <= ev.time]) for i in ev.running}
        alloc = list(ev.before)
        free = [i for i in ev.running if i not in ev.frozen]
        while P - sum(alloc) >= 2 and free:
            ends = {i: (resume[i] if alloc[i] == ev.before[i] else ev.time + S) + left[i] * pack.time(i, alloc[i])
                    for i in free}
            i = max(free, key=lambda i: (ends[i], -i))
            alloc[i] += 2
        decisions.append(Decision(ev.time, tuple(alloc)))


def test_greedy_to_the_longest_is_not_optimal():
    """§1.4.5 (i): Algorithm 1's rule gives processors to an application that gains nothing.

    p = 8, S = 0. A: 48 on 2, 32 on 4, 24 on 6, 21 on 8; B: 40 on 2 and on 4 (no speedup from 2
    to 4), 28 on 6, 24 on 8; C: 2 on any count. Algorithm 1: (2,2,2) then the fourth pair to A
    (48 is the longest): (4,2,2), no-redistribution makespan 40.
    Greedy: C ends at 2 and its pair goes to B, the longest (40 - 2 = 38 more on 2 or 4); A ends
    at 32, B (0.2 left) gets 8 processors and ends at 32 + 0.2 x 24 = 36.8.
    Better: C's pair to A (15/16 left, 24 on 6): A ends at 2 + 22.5 = 24.5; B (on 2 all along,
    0.95 - 22.5/40 = 0.3875 left) gets 8 and ends at 24.5 + 0.3875 x 24 = 33.8, the optimum.
    """
    table = np.array([[96, 48, 40, 32, 28, 24, 22.5, 21],
                      [80, 40, 40, 40, 34, 28, 26, 24],
                      [2, 2, 2, 2, 2, 2, 2, 2]], dtype=float)
    pack = MalleablePack(p=8, memory=np.zeros(3), table=table)
    greedy = greedy_to_the_longest(pack)
    assert greedy.events[0].after == (4, 2, 2)
    assert greedy.events[1].after == (4, 4, 0)
    assert close(greedy.makespan, 36.8)
    res = solve_redistribution(pack, start=0.0)
    assert res.status is Status.OPTIMAL
    assert close(res.objective, 33.8)
    assert res.solution.decisions[1].alloc == (6, 2, 0)
    assert greedy.makespan > res.objective * 1.08
    assert res.info["no_redistribution"] == 40.0


@given(pack=small_packs(n=(1, 4), p=(2, 10)), frac=st.sampled_from([0.0, 0.05, 0.5]))
@fewer(0.8)
def test_greedy_never_beats_the_optimum(pack, frac):
    S = frac * scale(pack)
    res = solve_redistribution(pack, start=S)
    assert greedy_to_the_longest(pack, S).makespan >= res.objective * (1 - REL)


# --------------------------------------------------------------------- (e) time limit


def test_time_limit_is_honest():
    """n = 6 on p = 16 (eq. (1.13), S = 5 % of a time on 2): a few seconds to prove; cut at
    0.05 s it answers within the margin, FEASIBLE with a bound, never OPTIMAL."""
    pack = MalleablePack.synthetic(6, 16, seed=3, m_inf=10, m_sup=1000)
    S = 0.05 * scale(pack)
    for limit in (0.0, 0.05):
        t0 = time.perf_counter()
        res = solve_redistribution(pack, start=S, time_limit=limit)
        assert time.perf_counter() - t0 <= limit + TIME_LIMIT_MARGIN
        assert res.status is Status.FEASIBLE, res.describe()
        assert "time limit reached" in res.info["time_limit_reached"]
        assert res.objective <= res.info["no_redistribution"] * (1 + REL)
        check_solution(pack, S, res)
        assert res.bound < res.objective


def test_bound_under_a_time_limit_is_below_the_optimum():
    pack = MalleablePack.synthetic(5, 16, seed=0, m_inf=10, m_sup=1000)
    S = 0.05 * scale(pack)
    full = solve_redistribution(pack, start=S)
    assert full.status is Status.OPTIMAL and full.info.get("time_limit_reached") is None
    for limit in (0.0, 0.01, 0.05):
        cut = solve_redistribution(pack, start=S, time_limit=limit)
        if cut.status is Status.OPTIMAL:  # finished within the limit
            assert close(cut.objective, full.objective)
            continue
        assert cut.bound <= full.objective * (1 + REL)
        assert cut.objective >= full.objective * (1 - REL)
