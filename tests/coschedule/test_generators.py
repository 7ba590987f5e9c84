"""Seeded generators: reproducibility, eq. (1.13), and validity of random profiles."""

from __future__ import annotations

import math

import numpy as np
import pytest
from coschedule_testing import seeds
from hypothesis import given
from hypothesis import strategies as st

from coschedule.generators import (
    M_INF,
    M_SUP,
    SYNTHETIC_F,
    random_instance,
    random_profile,
    synthetic_instance,
    synthetic_profile,
)
from coschedule.model import PROFILE_RTOL, MoldableTask


@given(seeds, st.integers(1, 10), st.integers(1, 12), st.booleans(), st.booleans())
def test_random_instance_same_seed_same_instance(seed, n, p, mp, integral):
    a = random_instance(n, p, seed=seed, with_min_procs=mp, integral=integral)
    b = random_instance(n, p, seed=seed, with_min_procs=mp, integral=integral)
    assert a == b
    assert a.n == n and a.p == p


@given(seeds, st.integers(1, 10), st.integers(1, 12))
def test_synthetic_instance_same_seed_same_instance(seed, n, p):
    assert synthetic_instance(n, p, seed=seed) == synthetic_instance(n, p, seed=seed)


def test_different_seeds_differ():
    assert random_instance(5, 6, seed=1) != random_instance(5, 6, seed=2)
    assert synthetic_instance(5, 6, seed=1) != synthetic_instance(5, 6, seed=2)


def test_generator_object_is_shared_stream():
    rng = np.random.default_rng(7)
    first = random_instance(3, 4, seed=rng)
    second = random_instance(3, 4, seed=rng)
    assert first != second  # the stream advanced
    assert random_instance(3, 4, seed=np.random.default_rng(7)) == first


def test_bad_seed_type_rejected():
    with pytest.raises(TypeError, match="seed"):
        random_instance(2, 2, seed=1.5)


def test_eq_1_13_by_hand():
    # m = 1024: log2(m) = 10, t(m, 1) = 2 m log2 m = 20480 (the sequential time of eq. 1.13)
    # t(m, 4) = 0.08 * 20480 + 0.92 * 20480 / 4 + (1024 / 4) * 10 = 1638.4 + 4710.4 + 2560
    times = synthetic_profile(1024, 6)
    assert len(times) == 6
    assert times[3] == pytest.approx(8908.8, rel=1e-12)
    # the formula itself at q = 1 adds the communication term m log2 m to t(m, 1)
    assert times[0] == pytest.approx(20480 + 10240, rel=1e-12)
    assert SYNTHETIC_F == 0.08


@given(st.integers(2, 10**7), st.integers(1, 40), st.floats(0, 1))
def test_synthetic_profile_matches_formula_and_is_valid(m, p, f):
    times = synthetic_profile(m, p, f=f)
    t1 = 2 * m * math.log2(m)
    for q, t in enumerate(times, start=1):
        assert t == pytest.approx(f * t1 + (1 - f) * t1 / q + m / q * math.log2(m), rel=1e-12)
    MoldableTask(times)  # (1.1) and (1.2)


@pytest.mark.parametrize("m, f", [(1, 0.08), (0.5, 0.08), (100, -0.1), (100, 1.5)])
def test_synthetic_profile_bad_parameters(m, f):
    with pytest.raises(ValueError):
        synthetic_profile(m, 4, f=f)


@given(seeds, st.integers(1, 10), st.integers(1, 16))
def test_synthetic_instance_sizes_and_memory(seed, n, p):
    inst = synthetic_instance(n, p, seed=seed)
    for i, task in enumerate(inst.tasks):
        assert M_INF <= task.memory <= M_SUP
        assert task.memory == int(task.memory)
        assert task.times == synthetic_profile(int(task.memory), p)
        assert task.name == f"T{i}"


def test_synthetic_instance_custom_range_and_errors():
    inst = synthetic_instance(20, 3, seed=0, m_inf=10, m_sup=12)
    assert {t.memory for t in inst.tasks} <= {10.0, 11.0, 12.0}
    with pytest.raises(ValueError):
        synthetic_instance(0, 3, seed=0)
    with pytest.raises(ValueError):
        synthetic_instance(2, 3, seed=0, m_inf=12, m_sup=10)


@given(seeds, st.integers(1, 24), st.data(), st.booleans())
def test_random_profiles_are_valid(seed, p, data, integral):
    min_procs = data.draw(st.integers(1, p), label="min_procs")
    times = random_profile(p, seed=seed, min_procs=min_procs, integral=integral)
    assert len(times) == p
    assert all(math.isinf(t) for t in times[: min_procs - 1])
    task = MoldableTask(times, min_procs=min_procs)  # raises if (1.1) or (1.2) fails
    finite = task.times[min_procs - 1 :]
    assert 1.0 <= finite[0] <= 100.0  # t1 range of the first usable time
    if integral:
        assert all(t == math.floor(t) and t >= 1 for t in finite)
        # integral profiles satisfy (1.1)-(1.2) exactly, without the tolerance
        for j in range(min_procs, p):
            assert finite[j - min_procs + 1] <= finite[j - min_procs]
            assert (j + 1) * finite[j - min_procs + 1] >= j * finite[j - min_procs]


@given(seeds, st.integers(1, 10), st.integers(1, 16), st.booleans(), st.booleans())
def test_random_instance_profiles_valid(seed, n, p, mp, integral):
    inst = random_instance(n, p, seed=seed, with_min_procs=mp, integral=integral)
    for task in inst.tasks:
        assert 1 <= task.min_procs <= max(1, p // 2)
        if not mp:
            assert task.min_procs == 1
        # rebuilding the task from its stored profile re-runs every check
        assert MoldableTask(task.times, min_procs=task.min_procs).times == task.times
        if integral:
            assert all(t == math.floor(t) for t in task.times if math.isfinite(t))


def test_random_profiles_hit_boundary_cases():
    # plateaus (1.1 tight) and linear steps (1.2 tight) are common by design
    plateaus = linear = 0
    for seed in range(50):
        times = random_profile(8, seed=seed)
        for j in range(1, 8):
            plateaus += times[j] == times[j - 1]
            linear += math.isclose((j + 1) * times[j], j * times[j - 1], rel_tol=PROFILE_RTOL)
    assert plateaus > 20 and linear > 20


def test_random_instance_with_min_procs_uses_them():
    inst = random_instance(40, 8, seed=3, with_min_procs=True)
    assert max(inst.min_procs) > 1
