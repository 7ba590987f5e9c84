"""Metrics of online runs (coschedule.sim.metrics): the §3 toy example of [Du2024] by hand
(flows, utilization decomposition), a run with checkpoints by hand, pruning, size classes, the
JSON and text forms, and the per-attempt jobs.csv that evalys reads."""

from __future__ import annotations

import csv
import doctest
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_sim_validate import batch_runs  # the shared strategy of random runs (sibling module)

from coschedule.batch import run_batch
from coschedule.sim import FailureTrace, Workload, read_batsim, read_failures, write_jobs_csv
from coschedule.sim import metrics as metrics_module
from coschedule.sim.metrics import (
    bounded_slowdown,
    job_records,
    pruned_jobs,
    size_classes,
    summarize,
    utilization,
    waits,
)

BATCH = Path(__file__).resolve().parents[2] / "instances" / "batch"


@pytest.fixture(scope="module")
def toy():
    """Baseline on the toy example with the failure of P_3 (node 2) at t = 1, D = 5 (Fig. 2b)."""
    trace = read_failures(BATCH / "toy-failures.csv", n_nodes=8)
    return run_batch(read_batsim(BATCH / "toy.json"), "conservative", failures=trace, downtime=5)


@pytest.fixture(scope="module")
def checkpointed():
    """4 nodes, C = 2, R = 3, D = 10 (the validator tests' run): A (2 nodes, L = 100, T = 20,
    4 checkpoints) fails at 50 after two checkpoints (U = 44) and restarts at once for 67 s;
    B (1 node, L = 30, 1 checkpoint) on [5, 37); C (4 nodes, L = 20, 1 checkpoint) on [117, 139)."""
    workload = Workload(("A", "B", "C"), [0, 5, 10], [2, 1, 4], [120, 40, 30], [100, 30, 20], 4, name="ck")
    return run_batch(workload, "conservative", failures=FailureTrace([50.0], [0], 4), downtime=10,
                     node_mtbf=200, checkpoint_cost=2, recovery_cost=3)


def test_toy_flows(toy):
    """Table 1 of [Du2024]: flows without node stealing 8, 5, 15, 25, 3 (mean 11.2, weighted
    256/15); without failures 8, 5, 10, 20, 7."""
    assert toy.flow.tolist() == [8, 5, 15, 25, 3]
    s = summarize(toy, prune=0)
    assert (s.flow.count, s.flow.max) == (5, 25)
    assert s.flow.mean == pytest.approx(11.2, rel=1e-12)
    assert s.flow.weighted_mean == pytest.approx(256 / 15, rel=1e-12)
    free = run_batch(read_batsim(BATCH / "toy.json"), "conservative")
    assert free.flow.tolist() == [8, 5, 10, 20, 7]
    assert summarize(free, prune=0).flow.mean == pytest.approx(10.0, rel=1e-12)


def test_toy_waits_and_bounded_slowdowns(toy):
    assert waits(toy).tolist() == [0, 0, 0, 15, 1]  # J3 first starts at 0, J4 at 15, J5 at 1
    # flow / max(L, 10): J4 25 / 10, J3 15 / 10; the others are below 1
    assert bounded_slowdown(toy).tolist() == pytest.approx([1, 1, 1.5, 2.5, 1], rel=1e-12)
    assert bounded_slowdown(toy, gamma=1.0).tolist() == pytest.approx([1, 1, 1.5, 2.5, 1.5], rel=1e-12)
    with pytest.raises(ValueError, match="gamma must be a finite number > 0"):
        bounded_slowdown(toy, gamma=0.0)


def test_toy_utilization_by_hand(toy):
    """8 nodes over [0, 25): useful 8 + 5 + 60 + 60 + 2 = 135 node-s; J3 lost 6 nodes x 1 s;
    node 2 down on [1, 6); no checkpoint nor recovery; idle is the rest, 54. At least one node
    is idle except on [0, 1) (all busy) and [5, 6) (J1, J3 and the down node 2): 23 s of 25."""
    u = utilization(toy)
    assert (u.start, u.end, u.n_nodes, u.capacity) == (0, 25, 8, 200)
    expected = {"useful": 135, "checkpoint": 0, "recovery": 0, "lost": 6, "stealing": 0, "held": 0, "downtime": 5, "idle": 54}
    assert u.parts() == pytest.approx(expected, rel=1e-12)
    assert math.fsum(u.parts().values()) == pytest.approx(u.capacity, rel=1e-12)
    assert u.fractions()["useful"] == pytest.approx(135 / 200, rel=1e-12)
    assert u.idle_time_share == pytest.approx(23 / 25, rel=1e-12)
    # right after the failure at 1, J3 waits and J5 took node 3: nodes 4-7 are idle
    assert (u.failures, u.failures_hit, u.failures_idle_after, u.restarts) == (1, 1, 1, 1)
    assert u.idle_after_failure_share == 1.0
    # just before it, on [0, 1), every node was busy; when it struck (after nothing else at 1) too
    assert (u.failures_idle_before, u.failures_spare) == (0, 0) and u.idle_before_failure_share == 0.0


def test_toy_utilization_in_a_window(toy):
    """Over [2, 10): useful J1 6, J2 3, J5 1, J3 6 x 5; node 2 down 4 s; idle: node 0 on
    [8, 10), node 2 on [6, 10), node 3 on [3, 5), nodes 4-7 on [2, 5). The failure at 1 and the
    attempt it ended are outside."""
    u = utilization(toy, (2.0, 10.0))
    assert u.capacity == 64
    expected = {"useful": 40, "checkpoint": 0, "recovery": 0, "lost": 0, "stealing": 0, "held": 0, "downtime": 4, "idle": 20}
    assert u.parts() == pytest.approx(expected, rel=1e-12)
    assert u.idle_time_share == pytest.approx(7 / 8, rel=1e-12)  # all busy or down on [5, 6)
    assert (u.failures, u.restarts) == (0, 0) and math.isnan(u.idle_after_failure_share)
    with pytest.raises(ValueError, match="window must be finite with start <= end"):
        utilization(toy, (3.0, 2.0))


def test_checkpointed_utilization_by_hand(checkpointed):
    """Useful = sum of L p = 200 + 30 + 80; checkpoints: A 4 x 2 nodes x 2 s (two saved before
    the failure, two in the restart), B 1 x 2 s, C 1 x 4 x 2 s = 26; recovery R = 3 on A's 2
    nodes; lost: A's 6 s after its checkpoint at 44 on 2 nodes; node 0 down 10 s; 4 nodes over
    [0, 139): idle = 556 - 364 = 192."""
    u = utilization(checkpointed)
    expected = {"useful": 310, "checkpoint": 26, "recovery": 6, "lost": 12, "stealing": 0, "held": 0, "downtime": 10, "idle": 192}
    assert u.parts() == pytest.approx(expected, rel=1e-12)
    # a window that cuts A's attempts: [40, 60) holds 2 s of work and A's 2nd checkpoint
    # [42, 44) of its saved part, its lost [44, 50), the restart's recovery [50, 53) and 7 s of
    # its work, on 2 nodes; node 0 down on [50, 60); node 2 idle on [40, 50), node 3 throughout
    w = utilization(checkpointed, (40.0, 60.0))
    assert w.parts() == pytest.approx({"useful": 2 * 2 + 7 * 2, "checkpoint": 2 * 2, "recovery": 3 * 2,
                                       "lost": 6 * 2, "stealing": 0, "held": 0, "downtime": 10, "idle": 10 + 20}, rel=1e-12)


def test_pruning():
    """[Du2024] §5.3.3: by submission, the first and the last 20 % of the jobs are dropped."""
    assert pruned_jobs(5, 0.2).tolist() == [1, 2, 3]
    assert pruned_jobs(10, 0.25).tolist() == [2, 3, 4, 5, 6, 7]
    assert pruned_jobs(15, 0.2).tolist() == list(range(3, 12))
    assert pruned_jobs(4, 0.0).tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"prune must be a fraction in \[0, 0.5\)"):
        pruned_jobs(4, 0.5)


def test_toy_pruned_flows(toy):
    s = summarize(toy)  # the default 20 %: J2, J3, J4 remain
    assert (s.jobs, s.jobs_kept) == (5, 3)
    assert s.flows.tolist() == [5, 15, 25]
    assert (s.flow.mean, s.flow.weighted_mean) == pytest.approx((15, (5 + 90 + 150) / 13), rel=1e-12)
    assert s.utilization == utilization(toy)  # the window does not depend on the pruning


def test_size_classes():
    assert size_classes(49152) == [(1, 128, False), (128, 512, False), (512, 2048, False), (2048, 8192, False),
                                   (8192, 32768, False), (32768, 49152, True)]
    assert size_classes(8) == [(1, 8, True)]
    assert size_classes(8, (2, 8, 16)) == [(1, 2, False), (2, 8, True)]  # N = 8 ends the last class
    for bad, message in (((4, 2), "must increase"), ((1,), "not an integer >= 2"), ((2.5,), "not an integer")):
        with pytest.raises(ValueError, match=message):
            size_classes(8, bad)


def test_toy_classes_and_empty_class(toy):
    s = summarize(toy, prune=0, classes=(2, 3))
    small, empty, large = s.classes
    assert (small.label, empty.label, large.label) == ("[1, 2)", "[2, 3)", "[3, 8]")
    assert (small.flow.count, small.flow.max, small.flow.mean) == (3, 8, pytest.approx(16 / 3))
    assert (large.flow.count, large.flow.max, large.flow.weighted_mean) == (2, 25, 20)
    assert empty.flow.count == 0 and math.isnan(empty.flow.mean) and math.isnan(empty.flow.max)
    d = s.to_dict()["classes"][1]
    assert d == {"label": "[2, 3)", "low": 2, "high": 3, "closed": False, "count": 0, "max": None,
                 "mean": None, "weighted_mean": None}


def test_to_dict_is_json_ready(toy):
    d = summarize(toy, prune=0, window=(2.0, 10.0)).to_dict()
    text = json.dumps(d, allow_nan=False)  # no NaN, no numpy type
    assert json.loads(text) == d
    u = d["utilization"]
    assert u["window"] == [2.0, 10.0] and u["capacity"] == 64.0
    assert u["node_seconds"]["useful"] == pytest.approx(40.0)
    assert u["idle_after_failure_share"] is None  # no failure in the window
    assert d["flow"] == {"count": 5, "max": 25.0, "mean": pytest.approx(11.2), "weighted_mean": pytest.approx(256 / 15)}

    def python_only(x):
        if isinstance(x, dict):
            return all(python_only(v) for v in x.values())
        if isinstance(x, list):
            return all(python_only(v) for v in x)
        return x is None or type(x) in (int, float, str, bool)

    assert python_only(d)


def test_table_is_aligned(toy):
    text = summarize(toy, prune=0).table()
    lines = text.splitlines()
    assert lines[0] == "policy conservative, 8 nodes, 5 jobs, 5 kept (no pruning), Γ = 10 s"
    assert lines[1].split() == ["flow", "(s)", "jobs", "max", "mean", "weighted"]
    assert lines[2].split() == ["all", "5", "25.00", "11.20", "17.07"]
    assert len({len(line) for line in lines[1:4]}) == 1  # right-aligned columns
    parts = [line for line in lines if line.startswith("  ")]
    assert [p.split()[0] for p in parts] == ["useful", "checkpoint", "recovery", "lost", "downtime", "idle"]
    assert len({len(p) for p in parts}) == 1
    assert "  useful      135.00  67.50 %" in parts
    assert lines[-2] == "at least one node idle: 92.00 % of the time"
    assert "at least one node idle right after 1 of them (100.00 %)" in lines[-1]


@given(batch_runs(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_the_six_parts_add_up(run, a, b):
    """Over any window the six parts add up to N x window; over the whole run the useful work is
    the sum of L p and the failure counts are the records'."""
    result, _ = run
    H = result.horizon
    whole = utilization(result)
    assert math.fsum(whole.parts().values()) == pytest.approx(whole.capacity, rel=1e-9, abs=1e-9)
    assert whole.useful == pytest.approx(float((result.workload.length * result.workload.nodes).sum()), rel=1e-9)
    assert all(v >= -1e-9 for v in whole.parts().values())
    assert whole.failures == sum(1 for f in result.failures if f.time < H)
    assert whole.restarts == result.restarts
    lo, hi = sorted((a * 1.2 * H - 0.1 * H, b * 1.2 * H - 0.1 * H))  # windows may reach past the run
    u = utilization(result, (lo, hi))
    assert math.fsum(u.parts().values()) == pytest.approx(u.capacity, rel=1e-9, abs=1e-9)
    assert all(v >= -1e-9 for v in u.parts().values())
    assert 0 <= u.failures_idle_after <= u.failures
    # a node idle just before a failure's instant, recounted from the records: busy are the
    # attempts, holds and downtimes that cover (t - dt, t)
    N = result.workload.n_nodes

    def busy_before(t):
        return (sum(len(x.nodes) for x in result.attempts if x.start < t <= x.end)
                + sum(len(h.nodes) for h in result.holds if h.start < t <= h.end)
                + sum(1 for f in result.failures if f.time < t <= f.up))

    expected = sum(1 for f in result.failures if lo <= f.time < hi and busy_before(f.time) < N)
    assert u.failures_idle_before == expected


def test_job_records_one_row_per_attempt(toy, tmp_path):
    records = job_records(toy)
    rows = [(r.job_id, r.submission_time, r.starting_time, r.finish_time, r.final_state, r.metadata)
            for r in records]
    assert rows == [
        ("J1", 0, 0, 8, "COMPLETED_SUCCESSFULLY", "completed"),
        ("J2", 0, 0, 5, "COMPLETED_SUCCESSFULLY", "completed"),
        ("J3", 0, 0, 1, "COMPLETED_KILLED", "failed"),
        ("J3#1", 1, 5, 15, "COMPLETED_SUCCESSFULLY", "completed"),  # put back at 1, restarted at 5
        ("J4", 0, 15, 25, "COMPLETED_SUCCESSFULLY", "completed"),
        ("J5", 0, 1, 3, "COMPLETED_SUCCESSFULLY", "completed"),
    ]
    assert [r.requested_time for r in records] == [8, 5, 10, 10, 10, 2]
    path = tmp_path / "jobs.csv"
    write_jobs_csv(records, path)
    written = list(csv.DictReader(path.open()))
    assert [r["allocated_resources"] for r in written] == ["0", "1", "2-7", "1 3-7", "0-5", "3"]
    assert [r["workload_name"] for r in written] == ["toy"] * 6


def test_job_records_requested_time_of_a_restart(checkpointed):
    """A restart asks for R + W - U: 3 + 130 - 44 (A's wall time 120 plus 5 checkpoints)."""
    records = {r.job_id: r for r in job_records(checkpointed)}
    assert set(records) == {"A", "A#1", "B", "C"}
    assert records["A"].requested_time == 130 and records["A#1"].requested_time == 89
    assert records["A#1"].submission_time == 50 and records["A"].final_state == "COMPLETED_KILLED"


def test_evalys_reads_a_run_with_failures(checkpointed, toy, tmp_path):
    from evalys.jobset import JobSet  # in the test extra: a missing evalys fails, never skips

    for result in (toy, checkpointed):
        path = tmp_path / f"{result.workload.name}.csv"
        write_jobs_csv(job_records(result), path)
        js = JobSet.from_csv(str(path))
        df = js.df
        assert sorted(df["jobID"].astype(str)) == sorted(r.job_id for r in job_records(result))
        assert df["proc_alloc"].tolist() == [len(r.nodes) for r in job_records(result)]
        assert df["success"].tolist() == [int(r.final_state == "COMPLETED_SUCCESSFULLY") for r in job_records(result)]
        # evalys' load over time is the attempts' nodes: at most N, and N x horizon in all
        load = js.utilisation["load"]
        assert load.max() <= result.workload.n_nodes
        busy = float((np.diff(load.index.to_numpy()) * load.to_numpy()[:-1]).sum())
        u = utilization(result)
        assert busy == pytest.approx(u.useful + u.checkpoint + u.recovery + u.lost, rel=1e-9)


def test_doctests():
    result = doctest.testmod(metrics_module)
    assert result.attempted >= 3 and result.failed == 0
