"""RESILIENT-COSCHED-1PACK without redistribution ([Aupy2017] §1.4.2 "With failures", Thm 1.4):
the exact DP over even allocations (coschedule.exact.resilient_onepack) against a brute force
over every even allocation, and Resilient Optimal-1-pack
(coschedule.heuristics.redistribution.resilient_optimal_1_pack) against the DP.

Thm 1.4's greedy is optimal when t^R_{i,j}(1) does not increase below j_max(i) (the paper's
assumption after (1.8)). N^ff's floor (1.4) breaks that assumption often (a count that adds a
checkpoint costs more than it saves): then the greedy can be worse than the DP, and
test_greedy_is_not_optimal_when_t_r_rises_below_j_max pins such a pack."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from coschedule.exact import resilient_onepack
from coschedule.exact.resilient_onepack import resilient_one_pack_dp
from coschedule.heuristics.redistribution import resilient_optimal_1_pack
from coschedule_testing import seeds
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.generators import random_instance
from coschedule.model import MoldableInstance, MoldableTask
from coschedule.redistribution import (
    FAILURE_MODELS,
    YEAR,
    MalleablePack,
    PackModel,
    Resilience,
    even_allocations,
)


def cost(pm: PackModel, sigma: np.ndarray | tuple[int, ...]) -> float:
    """``max_i t^R_{i,sigma_i}(1)``: the pack's expected makespan without redistribution."""
    return float(np.max(pm.expected(np.arange(pm.n), np.asarray(sigma), 1.0)))


def jmax_by_definition(pm: PackModel, i: int) -> int:
    """(1.8) over the counts application ``i`` may get: the smallest even ``j >= kmin_i`` that no
    larger even ``k <= p`` beats."""
    ks = list(range(int(pm.pack.min_procs[i]), pm.pack.p_even + 1, 2))
    tr = [float(x) for x in np.atleast_1d(pm.expected(i, np.array(ks), 1.0))]
    return next(j for a, j in enumerate(ks) if all(tr[b] >= tr[a] for b in range(a + 1, len(ks))))


def no_rise_below_jmax(pm: PackModel) -> bool:
    """The assumption after (1.8): ``t^R_{i,j}(1)`` non-increasing over even ``j`` from the
    application's minimum to ``j_max(i)``, for every application."""
    for i in range(pm.n):
        ks = np.arange(int(pm.pack.min_procs[i]), jmax_by_definition(pm, i) + 1, 2)
        if np.any(np.diff(np.atleast_1d(pm.expected(i, ks, 1.0))) > 0):
            return False
    return True


@st.composite
def packs(draw: st.DrawFn, *, n: tuple[int, int] = (1, 4), p: tuple[int, int] = (2, 30)) -> MalleablePack:
    """Amdahl packs ``seq + par / j`` (with or without minimum counts) or packs of random
    profiles that satisfy (1.1)-(1.2) (coschedule.generators.random_instance, with minimum
    counts), with random memory."""
    nn = draw(st.integers(*n))
    pp = draw(st.integers(max(p[0], 2 * nn), max(p[1], 2 * nn)))
    seed = draw(seeds)
    rng = np.random.default_rng(seed)
    mem = rng.uniform(0.0, 100.0, nn)
    kind = draw(st.sampled_from(["amdahl", "amdahl-min", "table"]))
    if kind == "table":
        base = random_instance(nn, pp, seed=rng, with_min_procs=draw(st.booleans()))
        tasks = [MoldableTask(t.times, min_procs=t.min_procs, memory=float(m), name=t.name)
                 for t, m in zip(base.tasks, mem)]
        if sum(max(2, t.min_procs + t.min_procs % 2) for t in tasks) > pp:
            # the minima do not fit in pairs: drop them, the time below a minimum becomes the
            # time on it (constant time, growing work: (1.1)-(1.2) still hold)
            tasks = [MoldableTask(tuple(t.times[max(j, t.min_procs) - 1] for j in range(1, pp + 1)),
                                  memory=t.memory, name=t.name) for t in tasks]
        return MalleablePack.from_instance(MoldableInstance(tuple(tasks), pp))
    mp = None
    if kind == "amdahl-min":
        mp = rng.integers(1, max(1, pp // nn - 1), size=nn, endpoint=True)
        if int(np.sum(mp + mp % 2)) > pp:
            mp = None
    return MalleablePack(p=pp, memory=mem, seq=rng.uniform(0.0, 20.0, nn), par=rng.uniform(0.5, 200.0, nn),
                         min_procs=mp)


def resiliences() -> st.SearchStrategy[Resilience]:
    """Small MTBFs (seconds, against times of 1-200 s) so that j_max binds; both failure models."""
    return st.builds(
        Resilience,
        node_mtbf=st.one_of(st.floats(20.0, 5000.0), st.just(math.inf)),
        c=st.floats(0.1, 5.0),
        beta=st.one_of(st.just(0.0), st.floats(0.0, 1.0)),
        downtime=st.floats(0.0, 5.0),
        model=st.sampled_from(FAILURE_MODELS),
    )


def check_allocation(pm: PackModel, sigma: np.ndarray) -> None:
    pack = pm.pack
    assert sigma.shape == (pack.n,) and np.issubdtype(sigma.dtype, np.integer)
    assert np.all(sigma % 2 == 0) and np.all(sigma >= 2) and np.all(sigma >= pack.min_procs)
    assert int(sigma.sum()) <= pack.p_even


# ------------------------------------------------------------------ the DP


@given(packs(n=(1, 3), p=(2, 14)), resiliences())
def test_dp_equals_brute_force_over_even_allocations(pack, res):
    pm = PackModel(pack, res)
    alls = even_allocations(pack.n, pack.p, pack.min_procs)
    assert alls
    best = min(cost(pm, s) for s in alls)
    got, sigma = resilient_one_pack_dp(pack, model=pm)
    check_allocation(pm, sigma)
    assert got == pytest.approx(best, rel=1e-12)
    assert cost(pm, sigma) == pytest.approx(got, rel=1e-12)
    assert tuple(int(k) for k in sigma) in alls


@given(packs(n=(1, 4), p=(2, 20)), resiliences())
def test_dp_arguments(pack, res):
    pm = PackModel(pack, res)
    a = resilient_one_pack_dp(pack, res)
    b = resilient_one_pack_dp(pack, model=pm)
    c = resilient_one_pack_dp(pack.to_instance(), res)  # the same pack, tabulated
    assert a[0] == b[0] == pytest.approx(c[0], rel=1e-12)
    assert np.array_equal(a[1], b[1])


def test_dp_without_failures_is_the_fault_free_optimum():
    # no failure, no checkpoint: t^R = t, the DP is Algorithm 1 on pairs; t = 12/k and 4/k on 8
    pack = MalleablePack(p=9, memory=[5.0, 5.0], seq=[0.0, 0.0], par=[12.0, 4.0])
    got, sigma = resilient_one_pack_dp(pack, Resilience(node_mtbf=math.inf))
    assert got == 2.0 and sigma.tolist() == [6, 2]
    got, sigma = resilient_one_pack_dp(MalleablePack(p=9, memory=[1.0], seq=[1.0], par=[8.0]),
                                       Resilience(node_mtbf=math.inf))
    assert got == 2.0 and sigma.tolist() == [8]  # the odd processor is never used


def test_dp_errors_are_one_line():
    inst = MoldableInstance(tuple(MoldableTask((4.0, 2.0, 1.5), memory=1.0) for _ in range(2)), 3)
    with pytest.raises(InvalidInstance) as exc:
        resilient_one_pack_dp(inst)
    msg = str(exc.value)
    assert "\n" not in msg and "2 applications need 4 processors" in msg and "p = 3" in msg
    with pytest.raises(InvalidInstance) as exc:
        resilient_optimal_1_pack(MalleablePack.synthetic(6, 11, seed=1))
    assert "\n" not in str(exc.value) and "6 applications need 12 processors" in str(exc.value)


def test_doctests():
    result = doctest.testmod(resilient_onepack)
    assert result.failed == 0 and result.attempted >= 3


# ------------------------------------------------------------------ Resilient Optimal-1-pack (Thm 1.4)


@given(packs(), resiliences())
def test_resilient_optimal_1_pack_against_the_dp(pack, res):
    pm = PackModel(pack, res)
    sigma = resilient_optimal_1_pack(pack, model=pm)
    check_allocation(pm, sigma)
    jm = pm.jmax()
    for i in range(pack.n):
        assert jm[i] == jmax_by_definition(pm, i)
        assert sigma[i] <= jm[i]  # never beyond j_max (1.8)
    optimum, _ = resilient_one_pack_dp(pack, model=pm)
    got = cost(pm, sigma)
    assert got >= optimum * (1 - 1e-12)  # the DP is a lower bound on every even allocation
    if no_rise_below_jmax(pm):  # Thm 1.4's assumption: then the greedy is optimal
        assert got == pytest.approx(optimum, rel=1e-9)
    assert np.array_equal(sigma, resilient_optimal_1_pack(pack, res))


def test_resilient_optimal_1_pack_is_optimal_whenever_t_r_does_not_rise_below_j_max():
    # seeded packs of both kinds and both models: count the cases so that the property above
    # is known to have exercised the optimal branch, with j_max binding, and the other one
    optimal = binding = worse = 0
    for seed in range(150):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(1, 5))
        p = int(rng.integers(2 * n, 40))
        pack = MalleablePack(p=p, memory=rng.uniform(0, 100, n), seq=rng.uniform(0, 20, n),
                             par=rng.uniform(1, 200, n))
        pm = PackModel(pack, Resilience(node_mtbf=float(rng.uniform(20, 500)), beta=float(rng.uniform(0, 1)),
                                        downtime=1.0, model=FAILURE_MODELS[seed % 2]))
        got = cost(pm, resilient_optimal_1_pack(pack, model=pm))
        optimum, _ = resilient_one_pack_dp(pack, model=pm)
        if no_rise_below_jmax(pm):
            assert got == pytest.approx(optimum, rel=1e-9), seed
            optimal += 1
            binding += bool(np.any(pm.jmax() < pack.p_even))
        elif got > optimum * (1 + 1e-9):
            worse += 1
    assert optimal >= 50 and binding >= 20 and worse >= 5, (optimal, binding, worse)


def test_greedy_is_not_optimal_when_t_r_rises_below_j_max():
    # node MTBF 182 s, D = 0, p = 6. B = (m 91, t = 12 + 156/j): on 4 processors N^ff goes from
    # 0 to 1 and t^R^B rises from 230.5 to 246.4 before falling to 171.5 on 6, its j_max. The
    # greedy gives the third pair to the longest, B, and makes it longer; the DP leaves B on 2.
    pack = MalleablePack(p=6, memory=[8.0, 91.0], seq=[20.0, 12.0], par=[113.0, 156.0])
    pm = PackModel(pack, Resilience(node_mtbf=182.0, downtime=0.0))
    tr_b = pm.expected(1, np.array([2, 4, 6]), 1.0)
    assert np.allclose(tr_b, [230.49, 246.39, 171.50], atol=0.01)
    assert pm.checkpoints(1, np.array([2, 4, 6]), 1.0).tolist() == [0, 1, 1]
    assert pm.jmax().tolist() == [6, 6] and not no_rise_below_jmax(pm)
    sigma = resilient_optimal_1_pack(pack, model=pm)
    optimum, best = resilient_one_pack_dp(pack, model=pm)
    assert sigma.tolist() == [2, 4] and cost(pm, sigma) == pytest.approx(246.39, abs=0.01)
    assert optimum == pytest.approx(230.49, abs=0.01) and best[1] == 2
    assert cost(pm, sigma) / optimum - 1 > 0.06


@pytest.mark.parametrize("years", [5.0, 100.0])
def test_on_synthetic_packs_of_the_papers_model(years):
    for seed in range(3):
        pack = MalleablePack.synthetic(8, 64, seed=seed)
        pm = PackModel(pack, Resilience(node_mtbf=years * YEAR))
        sigma = resilient_optimal_1_pack(pack, model=pm)
        check_allocation(pm, sigma)
        optimum, _ = resilient_one_pack_dp(pack, model=pm)
        assert cost(pm, sigma) >= optimum * (1 - 1e-12)
        if no_rise_below_jmax(pm):
            assert cost(pm, sigma) == pytest.approx(optimum, rel=1e-9)
        assert cost(pm, sigma) == pytest.approx(optimum, rel=1e-3)  # on these, at most 0.1 % off
