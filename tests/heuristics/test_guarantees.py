"""The paper's guarantees as properties ([Benoit2021] §4.2).

The proofs of Props. 1 and 2 only use ``T_1 <= t_max(f)`` and ``A(f) <= P T_OPT``, i.e. the two
lower bounds (5) and (6). They therefore give the stronger, cheaply checkable statements

* GREEDY (R-List, m = 0), any priority:        T <= (2 - 1/P) L(f)
* RESERVATION (m = 1 or |Q|) with LJF:          T <= (3 - 4/(P+1)) L(f)

with ``L(f) = max(t_max(f), A(f)/P)`` <= T_OPT(f), for instances of any size. The exact optimum is
checked separately on small instances (tests/exact/test_rigid_exact.py and below).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from coschedule.rigid import FailureScenario, RigidInstance, RigidJob, lower_bound
from coschedule.validate import validate_rigid
from coschedule.heuristics import RIGID_HEURISTICS, r_list
from coschedule.heuristics.priorities import PRIORITIES

REL = 1e-9


@st.composite
def rigid_cases(draw, *, n=(1, 12), P=(1, 16), max_failures=3, adversarial=None):
    """A random instance and scenario; ``adversarial`` favours widths near (P+1)/2 and long jobs
    that fail often, the regime of the proofs' worst cases."""
    P_ = draw(st.integers(*P))
    n_ = draw(st.integers(*n))
    adv = draw(st.booleans()) if adversarial is None else adversarial
    jobs = []
    for _ in range(n_):
        if adv:
            half = (P_ + 1) // 2
            procs = draw(st.integers(max(1, half - 1), min(P_, half + 1)))
        else:
            procs = draw(st.integers(1, P_))
        time = draw(st.one_of(st.integers(1, 20).map(float), st.floats(0.01, 100.0)))
        jobs.append(RigidJob(procs, time))
    failures = tuple(draw(st.integers(0, max_failures)) for _ in range(n_))
    return RigidInstance(tuple(jobs), P_), FailureScenario(failures)


@given(rigid_cases(), st.sampled_from(sorted(PRIORITIES)), st.integers(0, 2**32 - 1))
def test_greedy_within_2_minus_1_over_P_of_lower_bound(case, priority, seed):
    instance, scenario = case
    schedule = r_list(instance, scenario, m=0, priority=priority, seed=seed)
    makespan = validate_rigid(instance, scenario, schedule)
    L = lower_bound(instance, scenario)
    assert makespan >= L * (1 - REL)
    assert makespan <= (2 - 1 / instance.P) * L * (1 + REL)  # Prop. 2


@given(rigid_cases(), st.sampled_from([1, "Q"]))
def test_reservation_with_ljf_within_3_minus_4_over_P_plus_1(case, m):
    instance, scenario = case
    schedule = r_list(instance, scenario, m=m, priority="LJF")
    makespan = validate_rigid(instance, scenario, schedule)
    L = lower_bound(instance, scenario)
    assert makespan >= L * (1 - REL)
    assert makespan <= (3 - 4 / (instance.P + 1)) * L * (1 + REL)  # Prop. 1


@given(rigid_cases(n=(1, 10)), st.sampled_from(sorted(RIGID_HEURISTICS)),
       st.sampled_from(sorted(PRIORITIES)), st.integers(0, 2**32 - 1))
def test_every_heuristic_valid_and_above_lower_bound(case, name, priority, seed):
    instance, scenario = case
    schedule = RIGID_HEURISTICS[name](instance, scenario, priority=priority, seed=seed)
    makespan = validate_rigid(instance, scenario, schedule)
    assert makespan >= lower_bound(instance, scenario) * (1 - REL)


def _conservative_plan(instance, order):
    """Failure-free conservative backfilling, computed statically: each job in queue order gets
    the earliest start at which it fits for its whole duration (an independent reference)."""
    placed = []  # (start, end, procs)

    def fits(start, job):
        end = start + job.time
        points = [start] + [a for a, _, _ in placed if start < a < end]
        return all(
            sum(p for a, b, p in placed if a <= x < b) + job.procs <= instance.P for x in points
        )

    starts = {}
    for j in order:
        job = instance.jobs[j]
        for start in sorted({0.0} | {b for _, b, _ in placed}):
            if fits(start, job):
                break
        placed.append((start, start + job.time, job.procs))
        starts[j] = start
    return starts


@given(rigid_cases(n=(1, 9), max_failures=0), st.sampled_from(sorted(PRIORITIES)),
       st.integers(0, 2**32 - 1))
def test_without_failures_conservative_keeps_its_first_plan(case, priority, seed):
    """NOTES 1: without failures a fresh round never moves a reservation, so R-List-Q is the
    static conservative-backfilling plan made at time 0."""
    from coschedule.heuristics.priorities import priority_order

    instance, none = case
    schedule = r_list(instance, none, m="Q", priority=priority, seed=seed)
    validate_rigid(instance, none, schedule)
    rank = priority_order(instance, priority, seed=seed)
    plan = _conservative_plan(instance, sorted(range(instance.n), key=lambda j: rank[j]))
    got = {e.job: e.start for e in schedule.executions}
    for j in range(instance.n):
        assert abs(got[j] - plan[j]) <= 1e-9 * max(1.0, plan[j]), (j, got[j], plan[j])


@given(rigid_cases(n=(1, 10), max_failures=0), st.booleans(), st.sampled_from(sorted(PRIORITIES)),
       st.integers(0, 2**32 - 1))
def test_without_failures_shelffill_is_shelf(case, backfill, priority, seed):
    """R-ShelfFill only differs from R-Shelf when a job fails."""
    from coschedule.heuristics import r_shelf, r_shelf_fill

    instance, none = case
    a = r_shelf(instance, none, backfill=backfill, priority=priority, seed=seed)
    b = r_shelf_fill(instance, none, backfill=backfill, priority=priority, seed=seed)
    key = lambda e: (e.job, e.attempt)  # noqa: E731
    assert [(e.job, e.start, e.end) for e in sorted(a.executions, key=key)] == [
        (e.job, e.start, e.end) for e in sorted(b.executions, key=key)
    ]
