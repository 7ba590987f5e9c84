"""Exact solvers for rigid jobs under a failure scenario (:mod:`coschedule.exact.rigid`).

``T_OPT(f)`` is checked against an independent brute force on tiny instances, including a
coarse time unit that forces rounding (the bound and tolerance rule of the module); then the
orderings ``L(f) <= T_OPT <= T_OPT(contiguous)`` and ``T_OPT <= shelf optimum``, Prop. 3's
instance, honesty under time limits, and the expected makespan (7) by enumeration and by
Monte Carlo.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest
from coschedule_testing import fewer, package_doctests, seeds
from hypothesis import given
from hypothesis import strategies as st

import coschedule.exact.rigid
from coschedule.errors import InvalidInstance
from coschedule.results import Status
from coschedule.rigid import (
    FailureScenario,
    RigidInstance,
    SilentErrors,
    lower_bound,
    rigid_instance,
)
from coschedule.validate import validate_rigid
from coschedule.exact.rigid import (
    chain_bound,
    expected_makespan_exact,
    expected_makespan_mc,
    solve_rigid_opt,
    solve_shelf_opt,
)

#: CP-SAT workers in the tests (the default max(8, cores) oversubscribes small CI machines)
THREADS = 4
EPS = 1e-9


# ------------------------------------------------------------------ independent references


def brute_force_topt(procs: list[int], times: list[int], P: int, failures: list[int]) -> int:
    """``T_OPT(f)`` for integer durations, by the serial schedule-generation scheme (SGS)
    over every activity list that respects the chains.

    Why this is exact: the problem is a resource-constrained project scheduling problem (one
    cumulative resource of capacity ``P``, precedence chains, makespan: a regular objective).
    Some optimal schedule is *active* (no attempt can start earlier without delaying
    another), and the serial SGS run over all precedence-feasible activity lists generates
    exactly the set of active schedules (Sprecher, Kolisch and Drexl, EJOR 1995; Kolisch,
    EJOR 1996). With integer durations every active start is an integer, so a time-indexed
    profile suffices. Shares no code with :mod:`coschedule.exact.rigid`.
    """
    nat = [f + 1 for f in failures]
    horizon = sum(t * a for t, a in zip(times, nat))
    usage = [0] * (horizon + 1)
    ready = [0] * len(procs)
    left = list(nat)
    best = [horizon]

    def rec(current: int) -> None:
        if current >= best[0]:
            return
        if not any(left):
            best[0] = current
            return
        for j in range(len(procs)):
            if not left[j]:
                continue
            t = ready[j]
            while any(usage[x] + procs[j] > P for x in range(t, t + times[j])):
                t += 1
            for x in range(t, t + times[j]):
                usage[x] += procs[j]
            old = ready[j]
            ready[j], left[j] = t + times[j], left[j] - 1
            rec(max(current, t + times[j]))
            ready[j], left[j] = old, left[j] + 1
            for x in range(t, t + times[j]):
                usage[x] -= procs[j]

    rec(0)
    return best[0]


def brute_force_shelf(procs: list[int], times: list[float], P: int, failures: list[int]) -> float:
    """The optimal shelf schedule: every assignment of attempts to unordered shelves (a set
    partition) with at most one attempt of a job per shelf and at most ``P`` processors per
    shelf; cost = sum of the longest time of each shelf. Shelf order is free because the
    attempts of a job can always be numbered in shelf order."""
    attempts = [j for j, f in enumerate(failures) for _ in range(f + 1)]
    best = [math.inf]
    shelves: list[list[int]] = []

    def rec(i: int) -> None:
        if i == len(attempts):
            best[0] = min(best[0], sum(max(times[j] for j in sh) for sh in shelves))
            return
        j = attempts[i]
        for sh in shelves:
            if j not in sh and sum(procs[k] for k in sh) + procs[j] <= P:
                sh.append(j)
                rec(i + 1)
                sh.pop()
        shelves.append([j])
        rec(i + 1)
        shelves.pop()

    rec(0)
    return best[0]


@st.composite
def tiny_cases(draw: st.DrawFn) -> tuple[list[int], list[int], int, list[int]]:
    """n <= 4 jobs, integer times 1..6, P <= 4, at most 7 attempts in all."""
    P = draw(st.integers(1, 4))
    n = draw(st.integers(1, 4))
    procs = [draw(st.integers(1, P)) for _ in range(n)]
    times = [draw(st.integers(1, 6)) for _ in range(n)]
    failures = [draw(st.integers(0, 2)) for _ in range(n)]
    while sum(failures) + n > 7:
        failures[failures.index(max(failures))] -= 1
    return procs, times, P, failures


def synthetic(n: int, seed: int, P: int = 10_000) -> RigidInstance:
    """§5.1's synthetic jobs: procs U{50..2000}, times U[100, 20000]."""
    rng = np.random.default_rng(seed)
    procs = rng.integers(50, 2001, n)
    times = rng.uniform(100, 20_000, n)
    return rigid_instance(list(zip(procs.tolist(), times.tolist())), P)


def prop3(P: int) -> tuple[RigidInstance, FailureScenario]:
    """Prop. 3: P unit jobs, t_j = 1/j, f_j = j - 1."""
    inst = rigid_instance([(1, 1 / j) for j in range(1, P + 1)], P)
    return inst, FailureScenario(tuple(j - 1 for j in range(1, P + 1)))


def check_result(res, instance, scenario, *, contiguous=False) -> None:
    """What every result must satisfy: a valid schedule, its true makespan as objective, a
    bound between L(f) and the objective, optimality only within the tolerance."""
    assert res.status in (Status.OPTIMAL, Status.FEASIBLE)
    mk = validate_rigid(instance, scenario, res.solution, contiguous=contiguous)
    assert res.objective == pytest.approx(mk, abs=EPS)
    assert lower_bound(instance, scenario) - EPS <= res.bound <= res.objective + EPS
    if res.status is Status.OPTIMAL:
        assert res.objective - res.bound <= res.tolerance + EPS


# ------------------------------------------------------------------ T_OPT(f)


@fewer(0.6)
@given(tiny_cases())
def test_topt_matches_brute_force(case):
    procs, times, P, failures = case
    want = brute_force_topt(procs, times, P, failures)
    inst = rigid_instance(list(zip(procs, times)), P)
    f = FailureScenario(tuple(failures))
    res = solve_rigid_opt(inst, f, threads=THREADS)
    check_result(res, inst, f)
    assert res.status is Status.OPTIMAL
    # integer times are multiples of the default (power-of-two) unit: no rounding at all
    assert res.tolerance == 0.0
    assert res.objective == pytest.approx(want, abs=EPS)
    assert res.bound == pytest.approx(want, abs=EPS)


@fewer(0.6)
@given(tiny_cases(), st.sampled_from([0.25, 0.4, 0.7, 1.0]))
def test_rounding_rule_is_sound(case, unit):
    """Times k/3 with a coarse unit: durations really are rounded up. The true optimum is
    brute/3; the result must be within its tolerance of it and the bound below it."""
    procs, times, P, failures = case
    want = brute_force_topt(procs, times, P, failures) / 3
    inst = rigid_instance([(p, t / 3) for p, t in zip(procs, times)], P)
    f = FailureScenario(tuple(failures))
    res = solve_rigid_opt(inst, f, time_unit=unit, threads=THREADS)
    check_result(res, inst, f)
    assert res.objective >= want - EPS
    assert res.bound <= want + EPS
    assert res.status is Status.OPTIMAL
    assert res.objective - want <= res.tolerance + EPS


@fewer(0.6)
@given(tiny_cases())
def test_orderings_and_shelf_optimum(case):
    procs, times, P, failures = case
    inst = rigid_instance(list(zip(procs, times)), P)
    f = FailureScenario(tuple(failures))
    opt = solve_rigid_opt(inst, f, threads=THREADS)
    strip = solve_rigid_opt(inst, f, contiguous=True, threads=THREADS)
    shelf = solve_shelf_opt(inst, f, threads=THREADS)
    check_result(opt, inst, f)
    check_result(strip, inst, f, contiguous=True)
    check_result(shelf, inst, f)
    assert opt.status is strip.status is shelf.status is Status.OPTIMAL
    assert opt.objective >= lower_bound(inst, f) - EPS
    assert strip.objective >= opt.objective - opt.tolerance - EPS
    assert shelf.objective >= opt.objective - opt.tolerance - EPS
    assert shelf.objective == pytest.approx(brute_force_shelf(procs, times, P, failures), abs=EPS)
    # a shelf schedule: all attempts of a shelf start together, one attempt of a job per shelf
    starts = {e.start for e in shelf.solution.executions}
    for s in starts:
        jobs = [e.job for e in shelf.solution.executions if e.start == s]
        assert len(jobs) == len(set(jobs))


@pytest.mark.parametrize("P", [2, 3, 4, 5])
def test_prop3_instance(P):
    """T_OPT = 1 (every job alone on its processor) but the best shelf schedule is H_P."""
    inst, f = prop3(P)
    harmonic = math.fsum(1 / j for j in range(1, P + 1))
    for contiguous in (False, True):
        res = solve_rigid_opt(inst, f, contiguous=contiguous, threads=THREADS)
        check_result(res, inst, f, contiguous=contiguous)
        assert res.status is Status.OPTIMAL
        assert abs(res.objective - 1.0) <= res.tolerance + EPS
    shelf = solve_shelf_opt(inst, f, threads=THREADS)
    check_result(shelf, inst, f)
    assert shelf.status is Status.OPTIMAL
    assert abs(shelf.objective - harmonic) <= shelf.tolerance + EPS
    assert shelf.bound <= harmonic + EPS


def test_zero_failures_is_the_failure_free_problem():
    # three jobs of 3 procs on P = 4 must run one after another; the 1-proc job fits beside
    inst = rigid_instance([(3, 2.0), (3, 1.5), (3, 1.0), (1, 4.5)], 4)
    res = solve_rigid_opt(inst, FailureScenario.none(4), threads=THREADS)
    assert res.status is Status.OPTIMAL
    assert res.objective == pytest.approx(4.5)


@pytest.mark.parametrize("limit", [0.0, 0.05])
def test_time_limit_never_claims_an_unproved_optimum(limit):
    inst = synthetic(40, 0)
    f = SilentErrors.from_qbar(inst, 0.3).scenarios(inst, size=1, seed=0)[0]
    res = solve_rigid_opt(inst, f, time_limit=limit, threads=2)
    check_result(res, inst, f)
    if res.status is Status.OPTIMAL:
        assert res.info["cp_status"] == "OPTIMAL"
    if limit == 0.0:
        # CP-SAT had no time: the SGS schedule is returned, bounded by L(f) only
        assert res.status is Status.FEASIBLE and res.info["source"] == "sgs"
    shelf = solve_shelf_opt(inst, f, time_limit=limit, threads=2)
    check_result(shelf, inst, f)


@pytest.mark.parametrize("contiguous", [False, True])
def test_hint_is_used_and_never_hurts(contiguous):
    inst = synthetic(12, 3, P=3000)
    f = SilentErrors.from_qbar(inst, 0.5).scenarios(inst, size=1, seed=3)[0]
    base = solve_rigid_opt(inst, f, contiguous=contiguous, time_limit=1.0, threads=THREADS)
    again = solve_rigid_opt(
        inst, f, contiguous=contiguous, time_limit=0.0, hint=base.solution, threads=THREADS
    )
    check_result(again, inst, f, contiguous=contiguous)
    # the hint in integer units loses at most one unit per attempt of a chain
    times = [inst.jobs[e.job].time for e in base.solution.executions]
    k = chain_bound(times, base.objective)
    assert again.objective <= base.objective + k * again.info["unit"] + EPS
    with pytest.raises(ValueError):
        solve_rigid_opt(inst, FailureScenario.none(inst.n), hint=base.solution)


def test_input_errors():
    inst, f = prop3(3)
    with pytest.raises(InvalidInstance):
        solve_rigid_opt(inst, FailureScenario((0, 0)))
    with pytest.raises(InvalidInstance):
        solve_shelf_opt(inst, FailureScenario((0, 0, 0, 0)))
    with pytest.raises(ValueError, match="time unit"):
        solve_rigid_opt(inst, f, time_unit=0.0)
    with pytest.raises(ValueError, match="time unit"):
        solve_shelf_opt(inst, f, time_unit=-1.0)


def test_chain_bound_and_doctests():
    assert chain_bound([1.0, 1.0, 1.0], 2.5) == 2
    assert chain_bound([5.0], 1.0) == 1
    failed, attempted = package_doctests(coschedule.exact.rigid)
    assert failed == 0 and attempted >= 1  # chain_bound's, in coschedule.exact.rigid.integer


# ------------------------------------------------------------------ expected makespan (7)


def tiny_expectation_case() -> tuple[RigidInstance, SilentErrors]:
    inst = rigid_instance([(2, 3.0), (1, 2.0), (3, 1.5)], 4)
    return inst, SilentErrors.from_qbar(inst, 0.3)


@functools.cache
def _topt(instance: RigidInstance, failures: tuple[int, ...]) -> float:
    res = solve_rigid_opt(instance, FailureScenario(failures), threads=THREADS)
    assert res.status is Status.OPTIMAL
    return res.objective


def topt(instance: RigidInstance, scenario: FailureScenario) -> float:
    return _topt(instance, scenario.failures)


def test_expected_makespan_exact_agrees_with_monte_carlo():
    inst, model = tiny_expectation_case()
    value, neglected, err = expected_makespan_exact(inst, model, topt, max_failures=8)
    assert neglected < 1e-2 and math.isfinite(err)
    mean, half = expected_makespan_mc(inst, model, topt, samples=3000, seed=7, confidence=0.99)
    assert half > 0
    assert abs(mean - value) <= half + err


@given(seeds)
def test_monte_carlo_is_reproducible(seed):
    inst, model = tiny_expectation_case()
    cheap = lambda i, f: float(sum((x + 1) * t for x, t in zip(f.failures, i.times)))
    a = expected_makespan_mc(inst, model, cheap, samples=50, seed=seed)
    b = expected_makespan_mc(inst, model, cheap, samples=50, seed=seed)
    assert a == b


def test_truncation_shrinks_and_bounds_hold():
    inst, model = tiny_expectation_case()
    runs = [expected_makespan_exact(inst, model, topt, max_failures=m) for m in range(6)]
    for (v1, n1, e1), (v2, n2, e2) in itertools.pairwise(runs):
        assert n2 < n1 and e2 < e1
        assert v1 <= v2 + EPS
        # the error bound of the coarser truncation covers the finer one
        assert v2 <= v1 + e1 + EPS


def test_zero_error_rate_gives_the_failure_free_makespan():
    inst, _ = tiny_expectation_case()
    model = SilentErrors(0.0)
    free = topt(inst, FailureScenario.none(inst.n))
    value, neglected, err = expected_makespan_exact(inst, model, topt, max_failures=3)
    assert value == pytest.approx(free, abs=EPS)
    assert neglected == 0.0 and err <= 1e-9 * free
    mean, half = expected_makespan_mc(inst, model, topt, samples=20, seed=1)
    assert mean == pytest.approx(free, abs=EPS) and half == 0.0


def test_error_bound_assumption_is_checked():
    inst, model = tiny_expectation_case()
    too_long = lambda i, f: 1e9
    assert expected_makespan_exact(inst, model, too_long, max_failures=1)[2] == math.inf
    with pytest.raises(ValueError):
        expected_makespan_exact(inst, model, topt, max_failures=-1)
    with pytest.raises(ValueError):
        expected_makespan_mc(inst, model, topt, samples=1)
