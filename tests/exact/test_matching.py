"""Tests of the 2-in-p matching solver (Thm 1.1) against exhaustive search and the validator."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from coschedule.errors import SolverUnavailable, UnknownName
from coschedule.generators import random_instance, synthetic_instance, synthetic_profile
from coschedule.model import MoldableInstance, MoldableTask
from coschedule.results import Status
from coschedule.validate import validate_coschedule
from coschedule.exact.exhaustive import solve_exhaustive
from coschedule.exact.matching import (
    available_backends,
    default_time_unit,
    pair_costs,
    solve_matching,
)
from coschedule.exact.onepack_dp import one_pack_dp_cost

HAS_RUSTWORKX = importlib.util.find_spec("rustworkx") is not None
needs_rustworkx = pytest.mark.skipif(not HAS_RUSTWORKX, reason="rustworkx not installed")
BACKENDS = ["networkx", pytest.param("rustworkx", marks=needs_rustworkx)]

seeds = st.integers(0, 2**32 - 1)


def check_optimal(instance: MoldableInstance, backend: str, **kwargs: float) -> None:
    """The matching result is a valid 2-in-p co-schedule whose cost is the exhaustive optimum."""
    result = solve_matching(instance, backend=backend, **kwargs)
    assert result.status is Status.OPTIMAL
    assert result.method == "matching" and result.solver == backend
    cost = validate_coschedule(instance, result.solution, k=2)
    assert math.isclose(cost, result.objective, rel_tol=1e-12)
    assert result.bound is not None and result.bound <= result.objective
    reference = solve_exhaustive(instance, k=2).objective
    assert reference is not None
    assert abs(result.objective - reference) <= 1e-9 * reference + result.tolerance


def synthetic_with_min_procs(n: int, p: int, seed: int) -> MoldableInstance:
    """Eq. (1.13) tasks with random minimum processor counts (profiles stay valid)."""
    rng = np.random.default_rng(seed)
    tasks = tuple(
        MoldableTask(
            synthetic_profile(float(rng.integers(1_500_000, 2_500_000)), p),
            min_procs=int(rng.integers(1, max(1, p // 2), endpoint=True)),
        )
        for _ in range(n)
    )
    return MoldableInstance(tasks, p)


# ---------------------------------------------------------------- agreement with exhaustive


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=30, deadline=None)
@given(
    seed=seeds,
    n=st.integers(1, 9),
    p=st.integers(1, 12),
    with_min_procs=st.booleans(),
    integral=st.booleans(),
)
def test_random_matches_exhaustive(
    backend: str, seed: int, n: int, p: int, with_min_procs: bool, integral: bool
) -> None:
    inst = random_instance(n, p, seed=seed, with_min_procs=with_min_procs, integral=integral)
    check_optimal(inst, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(1, 10), p=st.integers(2, 16), with_min_procs=st.booleans())
def test_synthetic_matches_exhaustive(
    backend: str, seed: int, n: int, p: int, with_min_procs: bool
) -> None:
    if with_min_procs:
        inst = synthetic_with_min_procs(n, p, seed)
    else:
        inst = synthetic_instance(n, p, seed=seed)
    check_optimal(inst, backend)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, n=st.integers(2, 8), p=st.integers(2, 10), unit=st.sampled_from([0.5, 2.0, 8.0]))
def test_coarse_unit_stays_within_tolerance(seed: int, n: int, p: int, unit: float) -> None:
    """Even a coarse time unit keeps the objective within the reported n * unit."""
    inst = random_instance(n, p, seed=seed, with_min_procs=True)
    result = solve_matching(inst, backend="networkx", time_unit=unit)
    assert result.tolerance == n * unit
    check_optimal(inst, "networkx", time_unit=unit)


# ---------------------------------------------------------------- the pair costs


@settings(max_examples=30, deadline=None)
@given(seed=seeds, n=st.integers(2, 6), p=st.integers(1, 12), with_min_procs=st.booleans())
def test_pair_costs_match_one_pack_dp(seed: int, n: int, p: int, with_min_procs: bool) -> None:
    inst = random_instance(n, p, seed=seed, with_min_procs=with_min_procs)
    cost, split = pair_costs(inst)
    assert np.array_equal(cost, cost.T)
    for i in range(n):
        assert math.isinf(cost[i, i])
        for j in range(n):
            if i == j:
                continue
            assert cost[i, j] == one_pack_dp_cost(inst, [i, j])
            if math.isfinite(cost[i, j]):
                assert split[i, j] + split[j, i] == p
                assert split[i, j] >= inst.min_procs[i] and split[j, i] >= inst.min_procs[j]
                qi, qj = int(split[i, j]), int(split[j, i])
                assert max(inst.time(i, qi), inst.time(j, qj)) == cost[i, j]
            else:
                assert inst.min_procs[i] + inst.min_procs[j] > p


def test_default_time_unit_is_power_of_two() -> None:
    inst = synthetic_instance(5, 16, seed=1)
    unit = default_time_unit(inst)
    mantissa, _ = math.frexp(unit)
    assert mantissa == 0.5
    t_max = float(inst.time_matrix[:, inst.p].max())
    assert 2.0**-40 <= unit / t_max < 2.0**-39  # unit = 2^(ceil(log2 t_max) - 40)


# ---------------------------------------------------------------- the backends


@needs_rustworkx
@settings(max_examples=15, deadline=None)
@given(seed=seeds, n=st.integers(10, 60), p=st.integers(2, 24), with_min_procs=st.booleans())
def test_backends_agree(seed: int, n: int, p: int, with_min_procs: bool) -> None:
    inst = random_instance(n, p, seed=seed, with_min_procs=with_min_procs)
    a = solve_matching(inst, backend="networkx")
    b = solve_matching(inst, backend="rustworkx")
    validate_coschedule(inst, b.solution, k=2)
    assert abs(a.objective - b.objective) <= 1e-9 * a.objective + a.tolerance


def test_unknown_backend() -> None:
    inst = random_instance(3, 4, seed=0)
    with pytest.raises(UnknownName, match="networkx"):
        solve_matching(inst, backend="lemon")


@pytest.mark.parametrize("unit", [0.0, -1.0, math.inf, math.nan])
def test_bad_time_unit(unit: float) -> None:
    with pytest.raises(ValueError, match="time_unit"):
        solve_matching(random_instance(3, 4, seed=0), backend="networkx", time_unit=unit)


def test_auto_backend() -> None:
    result = solve_matching(random_instance(4, 4, seed=0))
    assert result.solver == ("rustworkx" if HAS_RUSTWORKX else "networkx")


def test_missing_rustworkx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rustworkx", None)  # makes `import rustworkx` fail
    inst = random_instance(4, 4, seed=0)
    assert available_backends() == ["networkx"]
    with pytest.raises(SolverUnavailable, match=r"coschedule-hpc\[fast\]"):
        solve_matching(inst, backend="rustworkx")
    assert solve_matching(inst, backend="auto").solver == "networkx"


# ---------------------------------------------------------------- small cases


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_task_gets_whole_platform(backend: str) -> None:
    inst = MoldableInstance((MoldableTask((4.0, 3.0, 2.5), min_procs=2),), 3)
    result = solve_matching(inst, backend=backend)
    assert result.objective == 2.5
    assert [(a.task, a.procs) for pk in result.solution.packs for a in pk.allocations] == [(0, 3)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_perfectly_parallel_tasks_stay_alone(backend: str) -> None:
    """With linear speed-up pairing never saves time: all packs hold one task."""
    tasks = tuple(MoldableTask(tuple(w / q for q in range(1, 9))) for w in (8.0, 16.0, 24.0))
    result = solve_matching(MoldableInstance(tasks, 8), backend=backend)
    assert result.info["edges"] == 0
    assert math.isclose(result.objective, 6.0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sequential_tasks_pair_up(backend: str) -> None:
    """Tasks that do not speed up at all are best paired (2-in-2, paper's warm-up case)."""
    tasks = tuple(MoldableTask((t, t)) for t in (5.0, 4.0, 3.0, 1.0))
    result = solve_matching(MoldableInstance(tasks, 2), backend=backend)
    assert result.objective == 5.0 + 3.0
    assert all(len(pk.allocations) == 2 for pk in result.solution.packs)
