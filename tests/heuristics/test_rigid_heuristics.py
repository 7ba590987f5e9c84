"""R-List, R-Shelf and R-ShelfFill ([Benoit2021] §4, Algs. 1-3).

Hand-worked timelines for each algorithm and each NOTES choice, Props. 3 and 4, the structure
that Prop. 2's proof relies on, independent failure-free references (greedy list scheduling,
EASY's head reservation, NFDH/FFDH) and properties on random instances and scenarios.
Timelines read ``job: [start, end) F|S`` (F = failed attempt, S = success).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from coschedule_testing import fewer
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance, UnknownName
from coschedule.heuristics import (
    RIGID_HEURISTICS,
    get_rigid_heuristic,
    r_list,
    r_shelf,
    r_shelf_fill,
)
from coschedule.heuristics.priorities import PRIORITIES, priority_order
from coschedule.rigid import (
    FailureScenario,
    RigidInstance,
    RigidJob,
    SilentErrors,
    lower_bound,
    rigid_instance,
)
from coschedule.schedule import Execution, Outcome, Schedule
from coschedule.validate import validate_rigid

NAMES = sorted(RIGID_HEURISTICS)
RULES = sorted(PRIORITIES)
REL = 1e-9
seeds = st.integers(0, 2**32 - 1)


def by_index(instance: RigidInstance, rng: np.random.Generator) -> np.ndarray:
    """A priority rule: the queue in job-index order (to write examples in queue order)."""
    return np.arange(instance.n, dtype=float)


def timeline(schedule: Schedule) -> list[tuple[int, int, float, float, str]]:
    """``(job, attempt, start, end, F|S)`` sorted by job and attempt."""
    return sorted(
        (e.job, e.attempt, e.start, e.end, "F" if e.outcome is Outcome.FAILURE else "S")
        for e in schedule.executions
    )


def starts(schedule: Schedule) -> dict[tuple[int, int], float]:
    return {(e.job, e.attempt): e.start for e in schedule.executions}


def check(instance: RigidInstance, scenario: FailureScenario, schedule: Schedule) -> float:
    makespan = validate_rigid(instance, scenario, schedule)
    assert makespan >= lower_bound(instance, scenario) * (1 - REL)
    return makespan


@st.composite
def rigid_cases(draw, *, n=(1, 10), P=(1, 12), max_failures=3, integral=None):
    """An instance and a scenario. Integral times (stored as floats) make every sum exact and
    produce many simultaneous completions; real times exercise the tolerance."""
    P_ = draw(st.integers(*P))
    n_ = draw(st.integers(*n))
    whole = draw(st.booleans()) if integral is None else integral
    times = st.integers(1, 8).map(float) if whole else st.floats(0.1, 10.0)
    jobs = tuple(RigidJob(draw(st.integers(1, P_)), draw(times)) for _ in range(n_))
    failures = tuple(draw(st.integers(0, max_failures)) for _ in range(n_))
    return RigidInstance(jobs, P_), FailureScenario(failures)


def queue_order(instance, priority, seed=None) -> list[int]:
    rank = priority_order(instance, priority, seed=seed)
    return sorted(range(instance.n), key=lambda j: rank[j])


# ---------------------------------------------------------------- registry and arguments


def test_registry_names_and_lookup():
    assert NAMES == sorted(
        [
            "r-list-0",
            "r-list-1",
            "r-list-1-kept",
            "r-list-q",
            "r-list-q-kept",
            "r-shelf-b",
            "r-shelf-nb",
            "r-shelffill-b",
            "r-shelffill-b-failed",
            "r-shelffill-b-queue",
            "r-shelffill-nb",
            "r-shelffill-nb-failed",
            "r-shelffill-nb-queue",
        ]
    )
    assert get_rigid_heuristic("R-List-Q") is RIGID_HEURISTICS["r-list-q"]
    with pytest.raises(UnknownName, match="r-list-0.*r-shelffill-nb"):
        get_rigid_heuristic("r-list-2")


def test_registry_entries_are_the_functions():
    inst = rigid_instance([(2, 3.0), (3, 1.0), (1, 2.0), (4, 2.0)], 5)
    sc = FailureScenario((1, 0, 2, 1))
    same = {
        "r-list-0": r_list(inst, sc, m=0, priority="SPT"),
        "r-list-1": r_list(inst, sc, m=1, priority="SPT"),
        "r-list-q": r_list(inst, sc, m="Q", priority="SPT"),
        "r-shelf-b": r_shelf(inst, sc, backfill=True, priority="SPT"),
        "r-shelf-nb": r_shelf(inst, sc, backfill=False, priority="SPT"),
        "r-shelffill-b": r_shelf_fill(inst, sc, backfill=True, priority="SPT"),
        "r-shelffill-nb": r_shelf_fill(inst, sc, backfill=False, priority="SPT"),
    }
    for name, schedule in same.items():
        assert RIGID_HEURISTICS[name](inst, sc, priority="SPT") == schedule, name


@pytest.mark.parametrize("m", [-1, True, 1.5, "all", None])
def test_bad_m_is_rejected(m):
    inst = rigid_instance([(1, 1.0)], 1)
    with pytest.raises(ValueError, match="m must be"):
        r_list(inst, FailureScenario((0,)), m=m)


def test_scenario_of_the_wrong_length_is_rejected():
    inst = rigid_instance([(1, 1.0), (1, 2.0)], 1)
    for fn in RIGID_HEURISTICS.values():
        with pytest.raises(InvalidInstance, match="2 jobs"):
            fn(inst, FailureScenario((0,)))


def test_unknown_priority_is_rejected():
    inst = rigid_instance([(1, 1.0)], 1)
    with pytest.raises(UnknownName, match="LPT"):
        r_shelf(inst, FailureScenario((0,)), priority="longest")


# ---------------------------------------------------------------- properties of every heuristic


@pytest.mark.parametrize("name", NAMES)
@given(case=rigid_cases(), seed=seeds)
def test_every_priority_gives_a_valid_schedule_above_the_lower_bound(name, case, seed):
    instance, scenario = case
    fn = RIGID_HEURISTICS[name]
    for priority in RULES:
        schedule = fn(instance, scenario, priority=priority, seed=seed)
        check(instance, scenario, schedule)
        assert len(schedule.executions) == instance.n + scenario.total_failures


@pytest.mark.parametrize("name", NAMES)
@given(case=rigid_cases(n=(1, 8)), seed=seeds)
def test_random_priority_is_reproducible(name, case, seed):
    instance, scenario = case
    fn = RIGID_HEURISTICS[name]
    assert (fn(instance, scenario, priority="RANDOM", seed=seed)
            == fn(instance, scenario, priority="RANDOM", seed=seed))


@pytest.mark.parametrize("name", NAMES)
@given(case=rigid_cases(n=(1, 8)), data=st.data())
def test_decisions_do_not_anticipate_failures(name, case, data):
    """Dynamic scheduling (§3.5): making one more attempt of job ``j`` fail changes nothing that
    starts before that attempt ends, when the failure is revealed."""
    instance, scenario = case
    j = data.draw(st.integers(0, instance.n - 1))
    worse = list(scenario.failures)
    worse[j] += data.draw(st.integers(1, 2))
    worse_scenario = FailureScenario(tuple(worse))
    fn = RIGID_HEURISTICS[name]
    a = fn(instance, scenario)
    b = fn(instance, worse_scenario)
    check(instance, worse_scenario, b)
    revealed = next(e.end for e in a.executions if e.job == j and e.outcome is Outcome.SUCCESS)

    def before(s: Schedule) -> list[tuple[int, int, float, float]]:
        return sorted(
            (e.job, e.attempt, e.start, e.end) for e in s.executions if e.start < revealed
        )

    assert before(a) == before(b)


@given(case=rigid_cases(n=(1, 10)))
def test_m_at_least_n_is_conservative(case):
    """NOTE 8: ``m = "Q"`` reserves for the whole current queue, like any ``m >= n``."""
    instance, scenario = case
    q = r_list(instance, scenario, m="Q")
    assert r_list(instance, scenario, m=instance.n) == q
    assert r_list(instance, scenario, m=instance.n + 5) == q
    assert r_list(instance, scenario, m="q") == q


# ---------------------------------------------------------------- R-List, hand-worked


def test_greedy_with_a_failure():
    """P = 4, LPT queue J0 J3 J1 J2; J1 fails once.

    procs  0 1 2 3 4 5 6 7 8
    J0 p2  [=======)               0-4 S
    J3 p1  [=====)                 0-3 S
    J1 p2        [===)[===)        3-5 F, 5-7 S   (J2 needs 3 procs: waits)
    J2 p3                  [=)     7-8 S
    """
    inst = rigid_instance([(2, 4.0), (2, 2.0), (3, 1.0), (1, 3.0)], 4)
    sc = FailureScenario((0, 1, 0, 0))
    s = r_list(inst, sc, m=0)
    assert check(inst, sc, s) == 8.0
    assert timeline(s) == [
        (0, 0, 0.0, 4.0, "S"),
        (1, 0, 3.0, 5.0, "F"),
        (1, 1, 5.0, 7.0, "S"),
        (2, 0, 7.0, 8.0, "S"),
        (3, 0, 0.0, 3.0, "S"),
    ]


def test_reservations_stop_backfilling_that_would_delay_the_head():
    """P = 4, queue X Y B C (index order), no failure.

    GREEDY:  X p2 [0,10)  Y p2 [0,1)  C p2 [1,13) (fits at 1)  B p4 [13,18)   -> 18
    EASY:    at 1 the head B reserves [10,15); C [1,13) would overlap it: C waits
             X [0,10)  Y [0,1)  B [10,15)  C [15,27)                           -> 27
    CONSERVATIVE: the same reservations from time 0                          -> 27
    """
    inst = rigid_instance([(2, 10.0), (2, 1.0), (4, 5.0), (2, 12.0)], 4)
    sc = FailureScenario.none(4)
    greedy = r_list(inst, sc, m=0, priority=by_index)
    assert check(inst, sc, greedy) == 18.0
    assert starts(greedy) == {(0, 0): 0.0, (1, 0): 0.0, (2, 0): 13.0, (3, 0): 1.0}
    for m in (1, "Q"):
        s = r_list(inst, sc, m=m, priority=by_index)
        assert check(inst, sc, s) == 27.0
        assert starts(s) == {(0, 0): 0.0, (1, 0): 0.0, (2, 0): 10.0, (3, 0): 15.0}


def test_easy_and_conservative_differ():
    """P = 4, queue X Y B C D (index order), no failure.

    CONSERVATIVE at 0: X [0,10) and Y [0,2) start; B reserves [10,15), C [2,6) (the hole
    after Y), D cannot fit [0,3) without overlapping C: it reserves [6,9).
        X p2 [0,10)  Y p1 [0,2)  C p2 [2,6)  D p1 [6,9)  B p4 [10,15)
    EASY at 0: X is the head and starts now, so nobody else holds a reservation this round:
    Y and D backfill now; C (2 procs, 1 free) waits; at 2 B reserves [10,15); at 3 C fits.
        X p2 [0,10)  Y p1 [0,2)  D p1 [0,3)  C p2 [3,7)  B p4 [10,15)
    GREEDY is EASY here.
    """
    inst = rigid_instance([(2, 10.0), (1, 2.0), (4, 5.0), (2, 4.0), (1, 3.0)], 4)
    sc = FailureScenario.none(5)
    cons = r_list(inst, sc, m="Q", priority=by_index)
    easy = r_list(inst, sc, m=1, priority=by_index)
    greedy = r_list(inst, sc, m=0, priority=by_index)
    assert check(inst, sc, cons) == check(inst, sc, easy) == 15.0
    assert starts(cons) == {(0, 0): 0.0, (1, 0): 0.0, (2, 0): 10.0, (3, 0): 2.0, (4, 0): 6.0}
    assert starts(easy) == {(0, 0): 0.0, (1, 0): 0.0, (2, 0): 10.0, (3, 0): 3.0, (4, 0): 0.0}
    assert starts(greedy) == starts(easy)


def test_a_failure_triggers_a_fresh_round_of_reservations():
    """NOTE 1. P = 4, queue X B C (index order), X fails once, conservative.

    at 0: X [0,2) starts; B reserves [2,5); C [0,1) fits before it and starts.
    at 2: X failed and is back at the head: a fresh round gives X [2,4) and moves B to [4,7).
        X p2 [0,2) F [2,4) S    C p2 [0,1)    B p4 [4,7)                          -> 7
    (Keeping the old reservation would give B [2,5) and X [5,7).)
    """
    inst = rigid_instance([(2, 2.0), (4, 3.0), (2, 1.0)], 4)
    sc = FailureScenario((1, 0, 0))
    for m in (1, "Q"):
        s = r_list(inst, sc, m=m, priority=by_index)
        assert check(inst, sc, s) == 7.0
        assert timeline(s) == [
            (0, 0, 0.0, 2.0, "F"),
            (0, 1, 2.0, 4.0, "S"),
            (1, 0, 4.0, 7.0, "S"),
            (2, 0, 0.0, 1.0, "S"),
        ]


def test_simultaneous_completions_are_processed_together():
    """NOTE 2. P = 2, queue A B C E (index order).

    A [0,1) and B [0,1) end together; with both processors free, the head C (2 procs) starts:
        A p1 [0,1)  B p1 [0,1)  C p2 [1,6)  E p1 [6,7)
    (Processing A alone first would backfill E at 1 and push C to 2.)
    """
    inst = rigid_instance([(1, 1.0), (1, 1.0), (2, 5.0), (1, 1.0)], 2)
    sc = FailureScenario.none(4)
    for m in (0, 1, "Q"):
        s = r_list(inst, sc, m=m, priority=by_index)
        assert check(inst, sc, s) == 7.0
        assert starts(s) == {(0, 0): 0.0, (1, 0): 0.0, (2, 0): 1.0, (3, 0): 6.0}


def test_failed_jobs_of_one_instant_are_reinserted_before_the_round():
    """NOTE 2 and 5. P = 2, queue A B C (index order); A and B both fail once at 1.

    At 1 both are re-inserted at their own ranks, ahead of C:
        A p1 [0,1) F [1,2) S   B p1 [0,1) F [1,2) S   C p2 [2,3)
    """
    inst = rigid_instance([(1, 1.0), (1, 1.0), (2, 1.0)], 2)
    sc = FailureScenario((1, 1, 0))
    for m in (0, 1, "Q"):
        s = r_list(inst, sc, m=m, priority=by_index)
        assert check(inst, sc, s) == 3.0
        assert starts(s) == {(0, 0): 0.0, (0, 1): 1.0, (1, 0): 0.0, (1, 1): 1.0, (2, 0): 2.0}


def test_float_sums_that_meet_are_simultaneous():
    """NOTE 2 with real times. P = 2, queue A B C D; A (0.1) fails twice, B takes 0.3.

    A's third attempt ends at 0.1 + 0.1 + 0.1 = 0.30000000000000004, B at 0.3: the same
    instant within the tolerance, so C (2 procs) starts there, not D.
        A p1 [0,.1) F [.1,.2) F [.2,.3) S   B p1 [0,.3)   C p2 [.3,1.3)   D p1 [1.3,2.3)
    """
    inst = rigid_instance([(1, 0.1), (1, 0.3), (2, 1.0), (1, 1.0)], 2)
    sc = FailureScenario((2, 0, 0, 0))
    s = r_list(inst, sc, m=0, priority=by_index)
    assert check(inst, sc, s) == pytest.approx(2.3)
    got = starts(s)
    assert got[2, 0] == pytest.approx(0.3) and got[2, 0] >= 0.1 + 0.1 + 0.1
    assert got[3, 0] == pytest.approx(1.3)


# ---------------------------------------------------------------- R-List, references


def reference_greedy(instance, scenario, order):
    """Greedy list scheduling with re-execution, written independently: at each instant where
    something ends, finish everything that ends then, then start the queued jobs that fit, in
    priority order. Exact for integral times."""
    P = instance.P
    pos = {j: i for i, j in enumerate(order)}
    attempt = [0] * instance.n
    queued = set(range(instance.n))
    running = []  # (start, end, job)
    result = []
    t = 0.0
    while queued or running:
        for s, e, j in [r for r in running if r[1] <= t]:
            result.append((j, attempt[j], s, e, "F" if attempt[j] < scenario.failures[j] else "S"))
            if attempt[j] < scenario.failures[j]:
                queued.add(j)
            attempt[j] += 1
        running = [r for r in running if r[1] > t]
        free = P - sum(instance.jobs[j].procs for _, _, j in running)
        for j in sorted(queued, key=pos.__getitem__):
            if instance.jobs[j].procs <= free:
                free -= instance.jobs[j].procs
                running.append((t, t + instance.jobs[j].time, j))
                queued.discard(j)
        if running:
            t = min(e for _, e, _ in running)
    return sorted(result)


@given(case=rigid_cases(integral=True), priority=st.sampled_from(RULES), seed=seeds)
def test_greedy_matches_an_independent_simulation(case, priority, seed):
    instance, scenario = case
    s = r_list(instance, scenario, m=0, priority=priority, seed=seed)
    assert timeline(s) == reference_greedy(
        instance, scenario, queue_order(instance, priority, seed)
    )


def waiting_at(schedule: Schedule, tau: float) -> set[int]:
    """Jobs whose next attempt starts after ``tau`` although their previous one (if any) has
    ended by ``tau``: the queue at ``tau``, after that instant's round."""
    runs: dict[int, list[Execution]] = {}
    for e in schedule.executions:
        runs.setdefault(e.job, []).append(e)
    out = set()
    for j, rs in runs.items():
        rs.sort(key=lambda e: e.attempt)
        for a, e in enumerate(rs):
            if e.start > tau and (a == 0 or rs[a - 1].end <= tau):
                out.add(j)
    return out


@given(case=rigid_cases(integral=True), priority=st.sampled_from(RULES), seed=seeds)
def test_greedy_never_lets_a_fitting_job_wait(case, priority, seed):
    """The structure behind Prop. 2: at every instant of the schedule, every waiting job needs
    more processors than are idle, and the makespan is within (2 - 1/P) L(f)."""
    instance, scenario = case
    s = r_list(instance, scenario, m=0, priority=priority, seed=seed)
    makespan = check(instance, scenario, s)
    for tau in sorted({0.0} | {e.end for e in s.executions}):
        used = sum(e.procs for e in s.executions if e.start <= tau < e.end)
        for j in waiting_at(s, tau):
            assert instance.jobs[j].procs > instance.P - used, (tau, j)
    assert makespan <= (2 - 1 / instance.P) * lower_bound(instance, scenario) * (1 + REL)


@given(case=rigid_cases(integral=True, max_failures=0), priority=st.sampled_from(RULES), seed=seeds)
def test_without_failures_the_easy_head_is_never_delayed(case, priority, seed):
    """R-List-1, no failure: whenever a job is the head of the queue, its actual start is the
    earliest instant at which it fits beside the jobs running then (its reservation)."""
    instance, none = case
    s = r_list(instance, none, m=1, priority=priority, seed=seed)
    check(instance, none, s)
    start = {e.job: e.start for e in s.executions}
    order = queue_order(instance, priority, seed)
    for tau in sorted({0.0} | {e.end for e in s.executions}):
        queue = [j for j in order if start[j] >= tau]
        if not queue:
            break
        head = instance.jobs[queue[0]]
        running = [e for e in s.executions if e.start < tau < e.end]
        reservation = min(
            c
            for c in [tau] + [e.end for e in running]
            if sum(e.procs for e in running if e.end > c) + head.procs <= instance.P
        )
        assert start[queue[0]] == reservation, (tau, queue[0])


def reference_conservative(instance, order):
    """Failure-free conservative backfilling planned once at time 0: each job, in queue order,
    at the earliest instant where it fits for its whole duration beside those placed before."""
    placed = []  # (start, end, procs)
    plan = {}
    for j in order:
        job = instance.jobs[j]
        for c in sorted({0.0} | {e for _, e, _ in placed}):
            points = [c] + [s for s, _, _ in placed if c < s < c + job.time]
            if all(
                sum(p for s, e, p in placed if s <= x < e) + job.procs <= instance.P for x in points
            ):
                break
        placed.append((c, c + job.time, job.procs))
        plan[j] = c
    return plan


@given(case=rigid_cases(integral=True, max_failures=0), priority=st.sampled_from(RULES), seed=seeds)
def test_without_failures_conservative_is_its_time_zero_plan(case, priority, seed):
    """NOTE 1: without failures a fresh round never moves a reservation."""
    instance, none = case
    s = r_list(instance, none, m="Q", priority=priority, seed=seed)
    check(instance, none, s)
    plan = reference_conservative(instance, queue_order(instance, priority, seed))
    assert {e.job: e.start for e in s.executions} == plan


# ---------------------------------------------------------------- R-Shelf and R-ShelfFill


def nfdh_instance():
    """P = 10, (procs, time): a (6,5) b (5,4) c (3,3) d (4,2) e (2,1), already in LPT order."""
    return rigid_instance([(6, 5.0), (5, 4.0), (3, 3.0), (4, 2.0), (2, 1.0)], 10)


def test_without_failures_r_shelf_nb_lpt_is_nfdh():
    """NFDH by hand:
    shelf 1 at 0, height 5: a (4 left); b needs 5: closed
    shelf 2 at 5, height 4: b (5 left), c (2 left); d needs 4: closed
    shelf 3 at 9, height 2: d, e                                          -> 11
    """
    inst = nfdh_instance()
    sc = FailureScenario.none(5)
    want = {(0, 0): 0.0, (1, 0): 5.0, (2, 0): 5.0, (3, 0): 9.0, (4, 0): 9.0}
    for fn in (r_shelf, r_shelf_fill):
        s = fn(inst, sc, backfill=False, priority="LPT")
        assert check(inst, sc, s) == 11.0
        assert starts(s) == want


def test_without_failures_r_shelf_b_lpt_is_ffdh():
    """FFDH by hand:
        shelf 1 at 0, height 5: a (4 left), c (1 left)
        shelf 2 at 5, height 4: b (5 left), d (1 left)
        shelf 3 at 9, height 1: e                                             -> 10
    and GREEDY: a c [0,..); d [3,5); b e [5,..)                              -> 9
    """
    inst = nfdh_instance()
    sc = FailureScenario.none(5)
    want = {(0, 0): 0.0, (1, 0): 5.0, (2, 0): 0.0, (3, 0): 5.0, (4, 0): 9.0}
    for fn in (r_shelf, r_shelf_fill):
        s = fn(inst, sc, backfill=True, priority="LPT")
        assert check(inst, sc, s) == 10.0
        assert starts(s) == want
    assert check(inst, sc, r_list(inst, sc, m=0)) == 9.0


def test_shelf_fill_re_executes_inside_the_shelf():
    """P = 4, LPT queue J0 J2 J1; J1 fails twice, J2 once.

    R-ShelfFill: one shelf [0,4) (height 4); J1 re-executes twice and J2 once inside it, J2's
    second attempt ending exactly at the shelf's end (t + t_k <= T_i, NOTE 7):
        J0 p1 [0,4)   J2 p2 [0,2) F [2,4) S   J1 p1 [0,1) F [1,2) F [2,3) S     -> 4
    R-Shelf: failed jobs wait for the next shelf:
        shelf [0,4): J0, J2 F, J1 F;  shelf [4,6): J2 S, J1 F;  shelf [6,7): J1 S -> 7
    """
    inst = rigid_instance([(1, 4.0), (1, 1.0), (2, 2.0)], 4)
    sc = FailureScenario((0, 2, 1))
    for backfill in (False, True):
        fill = r_shelf_fill(inst, sc, backfill=backfill)
        assert check(inst, sc, fill) == 4.0
        assert timeline(fill) == [
            (0, 0, 0.0, 4.0, "S"),
            (1, 0, 0.0, 1.0, "F"),
            (1, 1, 1.0, 2.0, "F"),
            (1, 2, 2.0, 3.0, "S"),
            (2, 0, 0.0, 2.0, "F"),
            (2, 1, 2.0, 4.0, "S"),
        ]
        shelf = r_shelf(inst, sc, backfill=backfill)
        assert check(inst, sc, shelf) == 7.0
        assert timeline(shelf) == [
            (0, 0, 0.0, 4.0, "S"),
            (1, 0, 0.0, 1.0, "F"),
            (1, 1, 4.0, 5.0, "F"),
            (1, 2, 6.0, 7.0, "S"),
            (2, 0, 0.0, 2.0, "F"),
            (2, 1, 4.0, 6.0, "S"),
        ]


def test_a_new_shelf_waits_for_every_completion_at_its_start():
    """NOTE 6. P = 2, LPT queue A B C; B fails once; A and B both end at T_1 = 2.

    Both completions are processed before the shelf is built, so B (failed) joins C:
        shelf [0,2): A S, B F;   shelf [2,4): B S, C                             -> 4
    (Building the shelf at A's completion alone would give [2,3): C, then [3,5): B -> 5.)
    The failure ends exactly at T_1, so R-ShelfFill cannot re-execute it in shelf 1.
    """
    inst = rigid_instance([(1, 2.0), (1, 2.0), (1, 1.0)], 2)
    sc = FailureScenario((0, 1, 0))
    for fn in (r_shelf, r_shelf_fill):
        for backfill in (False, True):
            s = fn(inst, sc, backfill=backfill)
            assert check(inst, sc, s) == 4.0
            assert starts(s) == {(0, 0): 0.0, (1, 0): 0.0, (1, 1): 2.0, (2, 0): 2.0}


def test_next_fit_closes_the_shelf_first_fit_scans_on():
    """P = 4, LPT queue J0 J1 J2 J3 with J2 = (3 procs, 3) and J3 = (1 proc, 2); J0 fails once.

        NB: shelf [0,4): J0 F, J1;  [4,8): J0 S (J2 does not fit: closed);
            [8,11): J2, J3                                                       -> 11
        B:  shelf [0,4): J0 F, J1;  [4,8): J0 S, J3 (J2 skipped);  [8,11): J2    -> 11
    Same makespan, different shelves: J3 starts at 8 (NB) or 4 (B).
    """
    inst = rigid_instance([(2, 4.0), (2, 4.0), (3, 3.0), (1, 2.0)], 4)
    sc = FailureScenario((1, 0, 0, 0))
    nb = r_shelf(inst, sc, backfill=False)
    b = r_shelf(inst, sc, backfill=True)
    assert check(inst, sc, nb) == check(inst, sc, b) == 11.0
    assert starts(nb) == {(0, 0): 0.0, (0, 1): 4.0, (1, 0): 0.0, (2, 0): 8.0, (3, 0): 8.0}
    assert starts(b) == {(0, 0): 0.0, (0, 1): 4.0, (1, 0): 0.0, (2, 0): 8.0, (3, 0): 4.0}


def reference_shelves(instance, order, first_fit):
    """NFDH (Next-Fit) or FFDH (First-Fit) shelves of the failure-free jobs, in queue order."""
    plan = {}
    remaining = list(order)
    t = 0.0
    while remaining:
        left, shelf = instance.P, []
        for j in remaining:
            if instance.jobs[j].procs <= left:
                shelf.append(j)
                left -= instance.jobs[j].procs
            elif not first_fit:
                break
        remaining = [j for j in remaining if j not in shelf]
        for j in shelf:
            plan[j] = t
        t += max(instance.jobs[j].time for j in shelf)
    return plan


@pytest.mark.parametrize("backfill", [False, True])
@given(case=rigid_cases(max_failures=0), priority=st.sampled_from(RULES), seed=seeds)
def test_without_failures_shelves_are_nfdh_or_ffdh(backfill, case, priority, seed):
    instance, none = case
    plan = reference_shelves(instance, queue_order(instance, priority, seed), backfill)
    for fn in (r_shelf, r_shelf_fill):
        s = fn(instance, none, backfill=backfill, priority=priority, seed=seed)
        check(instance, none, s)
        assert {e.job: e.start for e in s.executions} == pytest.approx(plan)


def replay_shelves(instance: RigidInstance, schedule: Schedule, *, fill: bool) -> int:
    """Read the shelves back from a schedule and check Alg. 2 / Alg. 3's structure: the
    attempts starting at ``t`` form a shelf of at most ``P`` processors and height
    ``T_i - t = max t_j``; with ``fill``, a failed attempt ending at ``e`` is followed at once by
    the job's next attempt iff ``e + t_j <= T_i``; the next shelf starts when the last attempt
    of this one ends. Returns the number of shelves."""
    key = {(e.job, e.attempt): e for e in schedule.executions}
    left = set(key)
    t, count = 0.0, 0
    while left:
        members = [key[k] for k in sorted(left) if key[k].start == t]
        assert members, f"nothing starts at {t}"
        assert sum(e.procs for e in members) <= instance.P
        T = t + max(instance.jobs[e.job].time for e in members)
        last = T
        for e in members:
            left.discard((e.job, e.attempt))
            d = instance.jobs[e.job].time
            while e.outcome is Outcome.FAILURE and fill and e.end + d <= T * (1 + REL):
                e = key[e.job, e.attempt + 1]
                assert e.start == key[e.job, e.attempt - 1].end
                left.discard((e.job, e.attempt))
            last = max(last, e.end)
            if e.outcome is Outcome.FAILURE:
                assert key[e.job, e.attempt + 1].start >= last
        t, count = last, count + 1
    return count


@given(case=rigid_cases(), backfill=st.booleans(), priority=st.sampled_from(RULES), seed=seeds)
def test_shelves_follow_algorithms_2_and_3(case, backfill, priority, seed):
    instance, scenario = case
    for fn, fill in ((r_shelf, False), (r_shelf_fill, True)):
        s = fn(instance, scenario, backfill=backfill, priority=priority, seed=seed)
        check(instance, scenario, s)
        replay_shelves(instance, s, fill=fill)


# ---------------------------------------------------------------- Props. 3 and 4


def prop3_instance(P: int) -> tuple[RigidInstance, FailureScenario]:
    """Prop. 3: ``P`` unit jobs, ``t_j = 1/j``, ``f_j = j - 1`` (``j = 1..P``)."""
    inst = rigid_instance([(1, 1.0 / j) for j in range(1, P + 1)], P)
    return inst, FailureScenario(tuple(range(P)))


@pytest.mark.parametrize("P", [1, 2, 4, 10])
def test_prop3_shelves_take_the_harmonic_number(P):
    """R-Shelf runs shelves of heights 1, 1/2, ..., 1/P: makespan ``H_P``; R-ShelfFill re-runs
    job ``j`` ``j`` times inside the first shelf (``j * 1/j <= 1``, NOTE 7): makespan 1 = T_OPT;
    GREEDY also restarts every failed job at once: makespan 1."""
    inst, sc = prop3_instance(P)
    harmonic = math.fsum(1.0 / j for j in range(1, P + 1))
    for priority in RULES:
        for backfill in (False, True):
            shelf = r_shelf(inst, sc, backfill=backfill, priority=priority, seed=1)
            assert check(inst, sc, shelf) == pytest.approx(harmonic, rel=REL)
            fill = r_shelf_fill(inst, sc, backfill=backfill, priority=priority, seed=1)
            assert check(inst, sc, fill) == pytest.approx(1.0, rel=REL)
        for m in (0, 1, "Q"):
            greedy = r_list(inst, sc, m=m, priority=priority, seed=1)
            assert check(inst, sc, greedy) == pytest.approx(1.0, rel=REL)


def prop4_instance(P: int, eps: float = 1e-3) -> tuple[RigidInstance, FailureScenario]:
    """Prop. 4: set ``i = 1..P`` holds one job of time ``1/P^(i-1)`` failing ``P^(i-1) - 1``
    times and ``(P-1) P^(i-1)`` jobs of time ``(1+eps)/P^i`` that never fail; all on 1 proc."""
    jobs, failures = [], []
    for i in range(1, P + 1):
        jobs.append((1, 1.0 / P ** (i - 1)))
        failures.append(P ** (i - 1) - 1)
        for _ in range((P - 1) * P ** (i - 1)):
            jobs.append((1, (1 + eps) / P**i))
            failures.append(0)
    return rigid_instance(jobs, P), FailureScenario(tuple(failures))


def prop4_optimal_like(inst: RigidInstance, sc: FailureScenario) -> Schedule:
    """The proof's schedule: set ``i``'s long job re-runs back to back on processor ``i`` over
    ``[0, 1)``, then set ``i``'s short jobs follow on the same processor."""
    P = inst.P
    out, proc, t, j = [], -1, 0.0, 0
    for j, job in enumerate(inst.jobs):
        if sc.failures[j] > 0 or job.time == 1.0:  # the long job of the next set
            proc, t = proc + 1, 0.0
            for a in range(sc.failures[j] + 1):
                end = (a + 1) / P**proc
                out.append(
                    Execution(
                        j, a, t, end, 1, Outcome.FAILURE if a < sc.failures[j] else Outcome.SUCCESS
                    )
                )
                t = end
            t = 1.0
        else:
            out.append(Execution(j, 0, t, t + job.time, 1))
            t += job.time
    return Schedule(tuple(out))


@pytest.mark.parametrize("P", [2, 3, 4])
def test_prop4_shelf_fill_lpt_takes_P(P):
    """With LPT every set fills shelves of its long job's height: set 1 one shelf of height 1,
    set i ``P^(i-1)`` shelves of height ``1/P^(i-1)`` (the long job fails exactly at each shelf's
    end, so it cannot refill). Expected makespan: exactly ``P`` (1 + P·1/P + P²·1/P² for P = 3),
    against ``T_OPT <= 1 + (1+eps)(P-1)/P < 2``."""
    inst, sc = prop4_instance(P)
    for backfill in (False, True):
        s = r_shelf_fill(inst, sc, backfill=backfill, priority="LPT")
        assert check(inst, sc, s) == pytest.approx(float(P), rel=REL)
    opt = prop4_optimal_like(inst, sc)
    assert validate_rigid(inst, sc, opt) == pytest.approx(1 + 1.001 * (P - 1) / P)
    greedy = check(inst, sc, r_list(inst, sc, m=0))
    assert greedy <= (2 - 1 / P) * lower_bound(inst, sc) * (1 + REL)  # Prop. 2 still holds


# ---------------------------------------------------------------- the paper's workload


@pytest.mark.slow
@given(seed=seeds)
@fewer(0.2)
def test_synthetic_workload(seed):
    """§5.1's setting, scaled down: 30 jobs, procs U{50..2000}, times U[100, 20000), P = 10000,
    qbar = 0.3; every heuristic is valid and above L(f)."""
    rng = np.random.default_rng(seed)
    jobs = tuple(
        RigidJob(int(p), float(t))
        for p, t in zip(
            rng.integers(50, 2000, endpoint=True, size=30), rng.uniform(100.0, 20000.0, size=30)
        )
    )
    inst = RigidInstance(jobs, 10000)
    for sc in SilentErrors.from_qbar(inst, 0.3).scenarios(inst, size=3, seed=rng):
        for fn in RIGID_HEURISTICS.values():
            check(inst, sc, fn(inst, sc, priority="LPT"))
