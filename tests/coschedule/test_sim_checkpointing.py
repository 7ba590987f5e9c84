"""The checkpoint model of [Du2024] §5.2 against hand computations: Young/Daly periods, the
number of checkpoints (our default and eq. (1) as printed), the saved time after a failure and
the restart's length and wall time (eq. (4) with the job's saved time)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.batch import run_batch
from coschedule.sim.checkpointing import Checkpointing, chance_up_at_once
from coschedule.sim.failures import FailureTrace
from coschedule.sim.workload import Workload

YEAR = 365 * 86400.0


def test_young_daly_period_of_section_6_1():
    """mu_ind = 5.61 years, C = 5 min: 8 h for a 128-node job, as §6.1 says."""
    ck = Checkpointing(cost=300.0, node_mtbf=5.61 * YEAR)
    assert ck.period(128) == pytest.approx(math.sqrt(2 * 5.61 * YEAR / 128 * 300.0))
    assert ck.period(128) / 3600 == pytest.approx(8.0, abs=0.01)
    # mu_job = mu_ind / p: four times the nodes, half the period
    assert ck.period(512) == pytest.approx(ck.period(128) / 2)


def test_short_jobs_never_checkpoint_by_default_but_do_under_eq_1():
    ck = Checkpointing(cost=300.0, node_mtbf=5.61 * YEAR)
    T = ck.period(128)
    assert ck.checkpoints(0.9 * T, 128) == 0 and ck.extended(0.9 * T, 128) == 0.9 * T  # §6.1
    assert ck.checkpoints(2.5 * T, 128) == 2  # after each full period followed by more work
    assert ck.checkpoints(2.0 * T, 128) == 1  # no checkpoint at the very end
    eq1 = Checkpointing(cost=300.0, node_mtbf=5.61 * YEAR, final_checkpoint=True)
    assert eq1.checkpoints(0.9 * T, 128) == 1 and eq1.checkpoints(2.5 * T, 128) == 3
    assert eq1.extended(2.5 * T, 128) == pytest.approx(2.5 * T + 3 * 300.0)  # eq. (1)


def test_no_checkpointing_and_bad_parameters():
    ck = Checkpointing()
    assert not ck.enabled and ck.period(4) == math.inf and ck.R == 0.0 and ck.extended(7.0, 4) == 7.0
    assert Checkpointing(cost=5.0, node_mtbf=10.0).R == 5.0
    assert Checkpointing(cost=5.0, recovery=2.0, node_mtbf=10.0).R == 2.0
    with pytest.raises(ValueError, match="needs the node MTBF"):
        Checkpointing(cost=5.0)
    with pytest.raises(ValueError, match="cost must be a number >= 0"):
        Checkpointing(cost=-1.0, node_mtbf=10.0)


@given(st.floats(0.0, 1000.0), st.integers(0, 6))
def test_saved_counts_whole_blocks(elapsed, left):
    ck = Checkpointing(cost=2.0, node_mtbf=25.0 * 4)  # p = 4: T = sqrt(2 * 25 * 2) = 10
    assert ck.period(4) == pytest.approx(10.0)
    assert ck.saved(elapsed, 4, left) == min(int(elapsed // 12.0), left)


def test_a_failed_job_restarts_from_its_last_checkpoint():
    """One job of 4 nodes, work 35, T = 10, C = 2: blocks end at 12, 24, 36 and it runs
    35 + 3 * 2 = 41. A failure at t = 30 finds two checkpoints done (U = 24): the restart (on a
    free node, at once) runs R + 41 - 24 = 3 + 17 = 20, wall time R + W - U."""
    w = Workload(ids=("A",), submit=[0.0], nodes=[4], walltime=[50.0], length=[35.0], n_nodes=5)
    ck_args = dict(checkpoint_cost=2.0, recovery_cost=3.0, node_mtbf=100.0)
    r = run_batch(w, "conservative", failures=FailureTrace([30.0], [0], 5), downtime=100.0, **ck_args)
    first, second = r.attempts
    assert (first.start, first.end, first.outcome, first.saved_after) == (0.0, 30.0, "failed", 24.0)
    assert second.start == 30.0 and second.recovery == 3.0 and second.saved_before == 24.0
    assert second.end == pytest.approx(30.0 + 3.0 + 41.0 - 24.0)
    assert set(second.nodes) == {1, 2, 3, 4}  # the surviving nodes and the free node 4
    assert r.walltime[0] == pytest.approx(50.0 + 4 * 2.0)  # eq. (2): ceil(50/10) - 1 = 4
    # a failure exactly when a checkpoint completes finds it complete
    r = run_batch(w, "conservative", failures=FailureTrace([24.0], [0], 5), downtime=100.0, **ck_args)
    assert r.attempts[0].saved_after == 24.0
    r = run_batch(w, "conservative", failures=FailureTrace([23.9], [0], 5), downtime=100.0, **ck_args)
    assert r.attempts[0].saved_after == 12.0


@given(st.lists(st.tuples(st.floats(1.0, 1e6), st.floats(1.0, 1e6), st.integers(1, 50000)), min_size=1, max_size=20),
       st.booleans(), st.sampled_from([0.0, 300.0, 7.5]))
def test_per_job_arrays_are_the_scalar_methods(jobs, final, cost):
    ck = Checkpointing(cost=cost, node_mtbf=5.61 * YEAR, final_checkpoint=final)
    work, wall, nodes = (np.array(x) for x in zip(*jobs))
    K, E, W, block = ck.per_job(work, wall, nodes)
    for k, (L, Wt, p) in enumerate(jobs):
        assert K[k] == ck.checkpoints(L, p)
        assert E[k] == L + ck.checkpoints(L, p) * ck.cost  # bit for bit
        assert W[k] == ck.extended(Wt, p)
        assert block[k] == ck.period(p) + ck.cost


@given(n=st.integers(1, 60), data=st.data(), mtbf=st.floats(1.0, 1e6), downtime=st.floats(0.0, 1e6))
def test_the_chance_of_nodes_up_at_once_is_the_binomial_tail(n, data, mtbf, downtime):
    """Against the tail summed term by term with exact binomial coefficients."""
    width = data.draw(st.integers(0, n + 1))
    a = mtbf / (mtbf + downtime)
    if width > n:
        exact = 0.0
    elif downtime == 0 or width == 0:
        exact = 1.0
    else:
        exact = math.fsum(math.comb(n, k) * a**k * (1 - a) ** (n - k) for k in range(width, n + 1))
    got = chance_up_at_once(n, width, mtbf, downtime)
    assert math.isclose(got, exact, rel_tol=1e-9, abs_tol=1e-300)


def test_the_chance_on_a_large_platform():
    """A whole-machine job at a platform MTBF equal to the downtime has e^-1 (the node-stealing
    sweep's hardest point, which runs); a million nodes take milliseconds."""
    n = 49_152
    assert math.isclose(chance_up_at_once(n, n, n * 3600.0, 3600.0), math.exp(-1), rel_tol=1e-4)
    assert chance_up_at_once(100, 100, 1e7, 1e13) == 0.0
    assert chance_up_at_once(10**6, 10**6 // 2, 1e6, 1e6) > 0.49
