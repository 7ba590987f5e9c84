"""The benchmark's rows report what the solvers proved, and their numbers are right."""

from __future__ import annotations

import json

import pytest

from coschedule.bench import bench_kinp, bench_matching
from coschedule.generators import synthetic_instance
from coschedule.exact import solve_kinp
from coschedule.exact.exhaustive import solve_exhaustive


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


def test_bench_campaign_times_a_fresh_run_against_the_cpp_baseline(tmp_path, capsys):
    from coschedule.bench import CPP_FIG5_SECONDS, FIG5_SIMULATIONS, bench_campaign
    from coschedule.cli import main

    spec = tmp_path / "tiny.toml"
    spec.write_text('scenarios = 7\nheuristics = ["r-list-0", "r-shelf-b"]\nqbar = [0, 0.2]\n'
                    '[[source]]\nkind = "synthetic"\nsets = 2\nn = 8\nprocs = [1, 10]\nP = 20\n')
    row = bench_campaign(str(spec), workers=1)
    assert row.cells == 2 * 2 * 2 and row.simulations == row.cells * 7
    assert row.baseline_seconds == pytest.approx(CPP_FIG5_SECONDS * row.simulations / FIG5_SIMULATIONS)
    assert row.speedup == pytest.approx(row.baseline_seconds / row.seconds)
    assert not list(tmp_path.glob("*.sqlite"))  # a temporary database, removed afterwards
    assert main(["bench", "campaign", "--spec", str(spec), "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["campaign"]
    assert data["simulations"] == 56 and data["workers"] == 1
    assert main(["bench", "campaign", "--spec", str(tmp_path / "none.toml")]) == 2
