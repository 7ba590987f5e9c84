"""Counterexample search (coschedule.search): determinism, certified ratios within the proven
guarantees, shrinking, and files that reload and validate."""

from __future__ import annotations

import math

import pytest
from coschedule_testing import package_doctests

import coschedule.search
from coschedule.errors import UnknownName
from coschedule.families import prop3_claims, prop3_instance
from coschedule.io import (
    load_coschedule,
    load_instance,
    load_rigid_instance,
    load_scenario,
    load_schedule,
    read_json,
)
from coschedule.results import Status
from coschedule.rigid import SilentErrors, lower_bound
from coschedule.search import (
    expected_ratio,
    expected_ratio_search,
    guarantee,
    rigid_ratio,
    search_worst,
    search_worst_kinp,
)
from coschedule.validate import validate_coschedule, validate_rigid

TINY = {"n": 4, "P": 3, "restarts": 2, "steps": 12}


def _key(result):
    return (result.ratio, result.ratio_upper, result.compact(), result.heuristic_makespan,
            result.evaluations, result.solves, result.history)


# ---------------------------------------------------------------- rigid search


def test_same_seed_same_result():
    a = search_worst("r-shelf-nb", seed=7, **TINY)
    b = search_worst("r-shelf-nb", seed=7, **TINY)
    assert _key(a) == _key(b)
    assert a.instance == b.instance and a.scenario == b.scenario
    assert a.heuristic_schedule == b.heuristic_schedule


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tiny_budget_finds_a_bad_instance_for_r_shelf_nb(seed):
    res = search_worst("r-shelf-nb", n=4, P=4, restarts=3, steps=10, seed=seed)
    assert res.ratio > 1.0
    assert res.proved  # integral times: the optimum is proved with no rounding
    assert res.exact.tolerance == 0.0
    assert res.ratio == pytest.approx(res.ratio_upper, rel=1e-12)
    assert res.ratio == pytest.approx(res.heuristic_makespan / res.exact.objective, rel=1e-12)
    assert res.instance.n <= 4 and res.scenario is not None
    assert all(f <= 3 for f in res.scenario.failures)


@pytest.mark.parametrize(
    "heuristic, priority, P",
    [("r-list-0", "LPT", 3), ("r-list-0", "SPT", 4), ("r-list-1", "LJF", 3), ("r-list-q", "LJF", 4)],
)
def test_ratio_within_the_proven_guarantee(heuristic, priority, P):
    res = search_worst(heuristic, priority=priority, n=4, P=P, restarts=2, steps=15, seed=3,
                       temperature=0.05)
    bound = guarantee(heuristic, priority, P)
    assert bound is not None and res.guarantee == bound
    assert 1.0 <= res.ratio <= res.ratio_upper + 1e-12
    assert res.ratio <= bound + 1e-9
    for imp in res.history:
        assert 1.0 <= imp.ratio <= bound + 1e-9


def test_shrinking_never_lowers_the_ratio():
    kw = {"n": 5, "P": 4, "restarts": 2, "steps": 12, "seed": 5}
    raw = search_worst("r-shelffill-nb", shrink=False, **kw)
    small = search_worst("r-shelffill-nb", shrink=True, **kw)
    # the search phase draws the same numbers, so the shrink starts from `raw`'s instance
    assert small.options["jobs_before_shrink"] == raw.instance.n
    assert small.ratio >= raw.ratio - 1e-9
    assert small.instance.n <= raw.instance.n
    assert sum(small.scenario.failures) <= sum(raw.scenario.failures) or small.ratio > raw.ratio
    searched = [imp.ratio for imp in small.history if imp.phase == "search"]
    assert max(searched) == pytest.approx(raw.ratio, rel=1e-12)


def test_written_files_reload_and_validate(tmp_path):
    res = search_worst("r-shelf-b", n=4, P=3, restarts=2, steps=10, seed=2)
    paths = res.write(tmp_path)
    assert all(p.exists() for p in paths)
    instance = load_rigid_instance(tmp_path / "instance.json")
    scenario = load_scenario(tmp_path / "scenario.json", instance)
    assert instance == res.instance and scenario == res.scenario
    heur, hh = load_schedule(tmp_path / "heuristic-schedule.json")
    opt, oh = load_schedule(tmp_path / "optimum-schedule.json")
    assert validate_rigid(instance, scenario, heur) == pytest.approx(hh["makespan"], rel=1e-12)
    assert validate_rigid(instance, scenario, opt) == pytest.approx(oh["makespan"], rel=1e-12)
    summary = read_json(tmp_path / "summary.json")
    assert summary["heuristic_makespan"] == pytest.approx(hh["makespan"])
    assert summary["ratio"] == pytest.approx(hh["makespan"] / oh["makespan"], rel=1e-12)
    assert summary["failures"] == list(scenario.failures)
    assert hh["heuristic"] == "r-shelf-b" and oh["result"]["status"] == "optimal"
    # the heuristic replayed on the reloaded files gives the stored schedule's makespan
    again = rigid_ratio("r-shelf-b", instance, scenario)
    assert again.makespan == pytest.approx(hh["makespan"], rel=1e-12)
    assert again.ratio == pytest.approx(summary["ratio"], rel=1e-12)


def test_callbacks_report_every_step_and_every_improvement():
    steps, improvements = [], []
    res = search_worst("r-list-1", n=3, P=3, restarts=2, steps=5, seed=0,
                       progress=steps.append, on_improvement=improvements.append)
    assert len([s for s in steps if s.phase == "search"]) == 2 * 5
    assert tuple(improvements) == res.history
    assert all(s.best >= s.current - 1e-12 for s in steps if s.phase == "search")


def test_real_valued_times_give_a_certified_interval():
    res = search_worst("r-shelf-nb", n=3, P=3, restarts=1, steps=8, seed=4, integral_times=False)
    assert 1.0 <= res.ratio <= res.ratio_upper + 1e-12
    assert res.ratio <= res.heuristic_makespan / lower_bound(res.instance, res.scenario) + 1e-12


def test_rigid_ratio_on_prop3():
    instance, scenario = prop3_instance(4)
    ev = rigid_ratio("r-shelf-b", instance, scenario)
    H = prop3_claims(4).shelf_makespan
    assert ev.makespan == pytest.approx(H, rel=1e-12)
    assert ev.exact is not None and ev.exact.status is Status.OPTIMAL
    assert ev.ratio == pytest.approx(H, rel=1e-6)  # T_OPT = 1 up to the CP-SAT unit
    # T_OPT = 1 = L(f): the certified interval contains makespan / 1
    assert ev.ratio <= ev.makespan + 1e-12 and ev.ratio_upper == pytest.approx(ev.makespan, rel=1e-12)
    # R-ShelfFill meets L(f) = 1: ratio exactly 1, no solve
    fill = rigid_ratio("r-shelffill-b", instance, scenario)
    assert fill.ratio == fill.ratio_upper == 1.0 and fill.exact is None


def test_guarantees_and_bad_arguments():
    assert guarantee("r-list-0", "RANDOM", 5) == pytest.approx(1.8)
    assert guarantee("R-List-Q", "ljf", 3) == pytest.approx(2.0)
    assert guarantee("r-list-q", "LPT", 3) is None
    assert guarantee("r-shelffill-nb", "LPT", 3) is None
    assert guarantee("pack-approx") == 3.0
    with pytest.raises(UnknownName):
        search_worst("r-nope", n=2, P=2, restarts=1, steps=1, seed=0)
    with pytest.raises(ValueError, match="n must be"):
        search_worst("r-list-0", n=0, P=2, restarts=1, steps=1, seed=0)
    with pytest.raises(ValueError, match="max_failures"):
        search_worst("r-list-0", n=2, P=2, restarts=1, steps=1, seed=0, max_failures=-1)


# ---------------------------------------------------------------- k-in-p search


def test_kinp_search_is_deterministic_and_within_three():
    kw = {"n": 5, "p": 4, "restarts": 2, "steps": 15, "seed": 11}
    a = search_worst_kinp(**kw)
    b = search_worst_kinp(**kw)
    assert _key(a) == _key(b) and a.instance == b.instance
    assert a.kind == "kinp" and a.k == 4 and a.scenario is None
    assert a.proved and 1.0 <= a.ratio <= 3.0 + 1e-9
    assert a.guarantee == 3.0


def test_kinp_written_files_reload_and_validate(tmp_path):
    res = search_worst_kinp(n=4, p=3, k=2, restarts=2, steps=10, seed=3, integral_times=False)
    res.write(tmp_path)
    instance = load_instance(tmp_path / "instance.json")
    heur, hh = load_coschedule(tmp_path / "heuristic-coschedule.json")
    opt, oh = load_coschedule(tmp_path / "optimum-coschedule.json")
    assert validate_coschedule(instance, heur, 2) == pytest.approx(hh["cost"], rel=1e-9)
    assert validate_coschedule(instance, opt, 2) == pytest.approx(oh["cost"], rel=1e-9)
    assert read_json(tmp_path / "summary.json")["ratio"] == pytest.approx(hh["cost"] / oh["cost"], rel=1e-9)


def test_kinp_unknown_heuristic():
    with pytest.raises(UnknownName):
        search_worst_kinp("make-pack-1", n=3, p=3, restarts=1, steps=1, seed=0)


# ---------------------------------------------------------------- expected ratio (§4.4)


def test_expected_ratio_on_prop3_needs_no_solve():
    # unit-width jobs, one per processor: T_OPT(f) = t_max(f) = L(f), met by R-List-0
    instance, _ = prop3_instance(4)
    est = expected_ratio("r-shelf-b", instance, SilentErrors(0.5), samples=200, seed=1)
    assert est.ratio_opt == pytest.approx(est.ratio_L, rel=1e-12)
    assert est.ratio_opt >= 1.0 and est.unproved == 0
    assert est.half_width_opt >= 0 and math.isfinite(est.half_width_opt)
    tiny = expected_ratio("r-shelf-b", instance, SilentErrors(1e-9), samples=50, seed=1)
    assert tiny.ratio_opt == pytest.approx(1.0, abs=1e-6)


def test_expected_ratio_search_small(tmp_path):
    kw = {"n": 3, "P": 3, "restarts": 1, "steps": 4, "seed": 2, "samples": 30, "final_samples": 60}
    a = expected_ratio_search("r-shelf-nb", **kw)
    b = expected_ratio_search("r-shelf-nb", **kw)
    assert (a.search_ratio, a.compact(), a.final) == (b.search_ratio, b.compact(), b.final)
    assert a.search_ratio >= 1.0 and a.final.ratio_opt >= 1.0
    assert a.final.ratio_L >= a.final.ratio_opt - 1e-12  # L(f) <= T_OPT(f) on every draw
    assert a.final.samples == 60
    lo, hi = (0.01, 0.6)
    assert lo <= a.qbar <= hi
    a.write(tmp_path)
    assert load_rigid_instance(tmp_path / "instance.json") == a.instance
    assert read_json(tmp_path / "summary.json")["final"]["samples"] == 60


def test_doctests():
    failed, attempted = package_doctests(coschedule.search)
    assert failed == 0 and attempted >= 1  # guarantee's, in coschedule.search.result
