"""The benchmark's rows report what the solvers proved, and their numbers are right."""

from __future__ import annotations

import pytest

from coschedule.bench import bench_kinp, bench_matching
from coschedule.generators import synthetic_instance
from exact import solve_kinp
from exact.exhaustive import solve_exhaustive


def test_kinp_rows_match_exhaustive_search():
    rows = list(bench_kinp({"3": [4], "n": [5]}, p=4, time_limit=30))
    assert [(r.k, r.n) for r in rows] == [("3", 4), ("n", 5)]
    for row in rows:
        k = row.n if row.k == "n" else int(row.k)
        ref = solve_exhaustive(synthetic_instance(row.n, 4, seed=row.n), k).objective
        assert row.default_status == "optimal"
        assert row.default_objective == pytest.approx(ref, rel=1e-9)
        if row.ilp_status == "optimal":
            assert row.ilp_objective == pytest.approx(ref, rel=1e-6)
            assert not row.speedup.startswith(">")
        else:
            assert row.ilp_status in ("feasible", "unknown") and row.speedup.startswith(">")


def test_ilp_not_rerun_after_it_fails_to_prove():
    rows = list(bench_kinp({"3": [7, 8]}, p=8, time_limit=0.5))
    assert rows[0].ilp_status in ("feasible", "unknown")
    assert rows[1].ilp_time is None and rows[1].ilp_status.startswith("skipped")
    assert rows[1].default_status == "optimal"


def test_matching_rows_are_optimal():
    (row,) = list(bench_matching([12], p=8, solver="networkx"))
    ref = solve_kinp(synthetic_instance(12, 8, seed=12), 2, method="subsetdp").objective
    assert row.status == "optimal" and row.solver == "networkx"
    assert row.objective == pytest.approx(ref, rel=1e-9)
