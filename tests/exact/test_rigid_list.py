"""The best priority order for R-List: no named rule beats it, it never beats T_OPT(f)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.generators import random_rigid
from coschedule.rigid import FailureScenario, lower_bound
from coschedule.validate import validate_rigid
from coschedule.exact.rigid import solve_rigid_opt
from coschedule.exact.rigid_list import solve_list_opt
from coschedule.heuristics import r_list
from coschedule.heuristics.priorities import PRIORITIES


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1), st.sampled_from([0, 1, "Q"]))
def test_best_order_beats_every_rule_and_not_the_optimum(n, P, seed, m):
    instance = random_rigid(n, P, seed=seed, integral=True)
    rng = np.random.default_rng(seed)
    scenario = FailureScenario(tuple(int(x) for x in rng.integers(0, 3, size=n)))
    res = solve_list_opt(instance, scenario, m=m)
    best = validate_rigid(instance, scenario, res.solution)
    assert best == pytest.approx(res.objective)
    assert best >= lower_bound(instance, scenario) * (1 - 1e-12)
    for rule in PRIORITIES:
        assert best <= r_list(instance, scenario, m=m, priority=rule, seed=seed).makespan * (1 + 1e-12)
    opt = solve_rigid_opt(instance, scenario, threads=None)
    assert opt.status.value == "optimal"
    assert best >= opt.objective - opt.tolerance


def test_equals_brute_force_over_orders():
    instance = random_rigid(5, 4, seed=11, integral=True)
    scenario = FailureScenario((1, 0, 2, 0, 1))
    brute = min(
        r_list(instance, scenario, m=0, priority=lambda inst, rng, p=perm: np.array(p, dtype=float)).makespan
        for perm in itertools.permutations(range(5))
    )
    assert solve_list_opt(instance, scenario).objective == pytest.approx(brute)


def test_refuses_large_n():
    instance = random_rigid(10, 4, seed=0)
    with pytest.raises(InvalidInstance, match="orders"):
        solve_list_opt(instance, FailureScenario.none(10))


def test_time_limit_gives_a_feasible_order_never_a_false_optimum():
    """A cut-short enumeration is FEASIBLE with the best order so far (validated), within the
    limit plus the margin; the full enumeration of the same instance is OPTIMAL and no worse."""
    import time

    from coschedule.results import Status
    from coschedule.timelimit import TIME_LIMIT_MARGIN

    for seed in range(50):  # an instance whose best order does not meet L(f): no early stop
        instance = random_rigid(8, 4, seed=seed, integral=True)
        scenario = FailureScenario((1, 0, 2, 0, 1, 0, 0, 1))
        full = solve_list_opt(instance, scenario, m=0)
        if full.objective > lower_bound(instance, scenario) * (1 + 1e-9):
            break
    else:
        pytest.fail("no instance without an early stop")
    assert full.status is Status.OPTIMAL and full.info["orders_tried"] == full.info["orders"]
    t0 = time.perf_counter()
    cut = solve_list_opt(instance, scenario, m=0, time_limit=0.05)
    assert time.perf_counter() - t0 <= 0.05 + TIME_LIMIT_MARGIN
    assert cut.status is Status.FEASIBLE and "time_limit_reached" in cut.info
    assert cut.info["orders_tried"] < cut.info["orders"]
    assert validate_rigid(instance, scenario, cut.solution) == pytest.approx(cut.objective)
    assert cut.objective >= full.objective - 1e-9 and cut.bound <= full.objective
