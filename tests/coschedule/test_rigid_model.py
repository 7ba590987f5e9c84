"""The rigid-job model ([Benoit2021] §3): validation, the silent-error model
(§3.4, §5.1), the lower bound L(f) of (5)-(6), and the rigid generators."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from coschedule_testing import seeds
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.generators import (
    SYNTHETIC_RIGID_PROCS,
    SYNTHETIC_RIGID_TIMES,
    random_rigid,
    synthetic_rigid,
)
from coschedule.rigid import (
    FailureScenario,
    RigidInstance,
    RigidJob,
    SilentErrors,
    lower_bound,
    lower_bounds,
    rigid_instance,
    t_max,
    total_area,
)

# ------------------------------------------------------------------ validation messages


@pytest.mark.parametrize(
    "procs, time, name, match",
    [
        (0, 1.0, None, r"^job: procs must be a positive integer, got 0$"),
        (-3, 1.0, "x", r"^job 'x': procs must be a positive integer, got -3$"),
        (2.0, 1.0, None, r"procs must be a positive integer, got 2\.0"),
        (True, 1.0, None, r"procs must be a positive integer, got True"),
        (1, 0.0, None, r"^job: time must be positive and finite, got 0\.0$"),
        (1, -2, "b", r"^job 'b': time must be positive and finite, got -2$"),
        (1, math.inf, None, r"time must be positive and finite, got inf"),
        (1, math.nan, None, r"time must be positive and finite, got nan"),
        (1, "x", None, r"^job: time is not a number: 'x'$"),
        (1, None, None, r"time is not a number: None"),
    ],
)
def test_rigid_job_validation(procs, time, name, match):
    with pytest.raises(InvalidInstance, match=match):
        RigidJob(procs, time, name)


def test_rigid_job_normalises_types():
    job = RigidJob(np.int64(3), np.float32(2.5))
    assert type(job.procs) is int and type(job.time) is float
    assert job.area == 7.5


def test_rigid_instance_validation():
    with pytest.raises(InvalidInstance, match=r"^platform size P must be a positive integer, got 0$"):
        RigidInstance((RigidJob(1, 1.0),), 0)
    with pytest.raises(InvalidInstance, match=r"P must be a positive integer, got 4\.0"):
        RigidInstance((RigidJob(1, 1.0),), 4.0)
    with pytest.raises(InvalidInstance, match=r"^instance has no job$"):
        RigidInstance((), 4)
    with pytest.raises(InvalidInstance, match=r"^job 1 \(b\): procs 5 > P 4$"):
        RigidInstance((RigidJob(1, 1.0, "a"), RigidJob(5, 1.0, "b")), 4)
    with pytest.raises(InvalidInstance, match=r"^job 0: procs 5 > P 4$"):
        RigidInstance([RigidJob(5, 1.0)], 4)


def test_rigid_instance_arrays_are_read_only():
    inst = rigid_instance([(2, 3.0), (1, 5.0)], 4, name="demo")
    assert inst.n == 2 and inst.name == "demo"
    assert inst.procs.tolist() == [2, 1] and inst.times.tolist() == [3.0, 5.0]
    assert inst.areas.tolist() == [6.0, 5.0]
    for arr in (inst.procs, inst.times, inst.areas):
        with pytest.raises(ValueError):
            arr[0] = 0


def test_failure_scenario_validation():
    with pytest.raises(InvalidInstance, match=r"^scenario: failures of job 1 must be an integer >= 0, got -1$"):
        FailureScenario((0, -1))
    with pytest.raises(InvalidInstance, match=r"failures of job 0 must be an integer >= 0, got 1\.0"):
        FailureScenario((1.0,))
    with pytest.raises(InvalidInstance, match=r"failures of job 0 must be an integer >= 0, got True"):
        FailureScenario((True,))
    f = FailureScenario([np.int64(2), 0])
    assert f.failures == (2, 0) and type(f.failures[0]) is int
    assert f.attempts(0) == 3 and f.total_failures == 2
    assert FailureScenario.none(3).failures == (0, 0, 0)
    inst = rigid_instance([(1, 1.0)] * 3, 2)
    with pytest.raises(InvalidInstance, match=r"^scenario has 2 entries but the instance has 3 jobs$"):
        f.check(inst)
    FailureScenario.none(3).check(inst)


# ------------------------------------------------------------------ lower bound L(f)


def test_lower_bound_t_max_dominates():
    inst = rigid_instance([(2, 3.0), (1, 5.0)], 4)
    f = FailureScenario((1, 0))
    assert t_max(inst, f) == 6.0  # (1 + 1) * 3
    assert total_area(inst, f) == 17.0  # 2 * 2 * 3 + 1 * 5
    assert lower_bound(inst, f) == 6.0  # max(6, 17 / 4)


def test_lower_bound_area_dominates():
    inst = rigid_instance([(4, 2.0), (4, 2.0), (2, 1.0)], 4)
    f = FailureScenario((0, 1, 2))
    assert t_max(inst, f) == 4.0
    assert total_area(inst, f) == 8.0 + 16.0 + 6.0
    assert lower_bound(inst, f) == 7.5  # 30 / 4 > 4


def test_lower_bound_failure_free_single_job():
    inst = rigid_instance([(3, 2.5)], 3)
    assert lower_bound(inst, FailureScenario.none(1)) == 2.5


def test_lower_bound_checks_scenario():
    with pytest.raises(InvalidInstance, match=r"scenario has 1 entries"):
        lower_bound(rigid_instance([(1, 1.0)] * 2, 2), FailureScenario((0,)))


# ------------------------------------------------------------------ silent errors


def test_qbar_gives_mean_area_job_probability_qbar():
    # areas 2, 4, 6: the middle job has exactly the mean area
    inst = rigid_instance([(1, 2.0), (2, 2.0), (3, 2.0)], 3)
    for qbar in (0.0, 1e-6, 0.1, 0.3, 0.5, 0.9, 0.999):
        q = SilentErrors.from_qbar(inst, qbar).q(inst)
        assert math.isclose(q[1], qbar, rel_tol=1e-12, abs_tol=1e-15)
        # q_j = 1 - (1 - qbar)^(a_j / abar) (§5.1)
        assert np.allclose(q, 1 - (1 - qbar) ** (inst.areas / 4.0), rtol=1e-12, atol=1e-15)


def test_qbar_zero_means_no_failure():
    inst = random_rigid(5, 8, seed=0)
    model = SilentErrors.from_qbar(inst, 0.0)
    assert model.lam == 0.0 and (model.q(inst) == 0).all()
    assert (model.sample(inst, size=50, seed=1) == 0).all()


@pytest.mark.parametrize("qbar", [-0.1, 1.0, 1.5])
def test_qbar_out_of_range(qbar):
    with pytest.raises(InvalidInstance, match=r"qbar must be in \[0, 1\)"):
        SilentErrors.from_qbar(random_rigid(2, 2, seed=0), qbar)


@pytest.mark.parametrize("lam", [-1.0, math.inf, math.nan])
def test_bad_rate(lam):
    with pytest.raises(InvalidInstance, match=r"error rate lambda must be finite and >= 0"):
        SilentErrors(lam)


@given(seeds, st.floats(0.0, 0.95))
def test_sampling_is_seeded(seed, qbar):
    inst = random_rigid(6, 10, seed=seed)
    model = SilentErrors.from_qbar(inst, qbar)
    a = model.sample(inst, size=20, seed=seed)
    b = model.sample(inst, size=20, seed=seed)
    assert a.shape == (20, 6) and a.dtype == np.int64
    assert (a == b).all() and (a >= 0).all()
    assert model.scenarios(inst, size=20, seed=seed) == [FailureScenario(tuple(int(x) for x in row)) for row in a]


def test_sampling_shares_a_generator():
    inst = random_rigid(4, 10, seed=1)
    model = SilentErrors.from_qbar(inst, 0.5)
    rng = np.random.default_rng(7)
    first, second = model.sample(inst, size=10, seed=rng), model.sample(inst, size=10, seed=rng)
    assert not (first == second).all()  # one stream, consumed
    assert (model.sample(inst, size=10, seed=7) == first).all()


def test_empirical_mean_of_failures():
    # f_j is geometric: mean q/(1-q), variance q/(1-q)^2; check within 5 standard errors
    inst = rigid_instance([(1, 1.0), (2, 1.0), (4, 1.0), (8, 1.0)], 8)
    model = SilentErrors.from_qbar(inst, 0.4)
    q = model.q(inst)
    N = 200_000
    sample = model.sample(inst, size=N, seed=12345)
    mean = sample.mean(axis=0)
    mu = q / (1 - q)
    se = np.sqrt(q / (1 - q) ** 2 / N)
    assert (np.abs(mean - mu) < 5 * se).all(), (mean, mu, se)


def test_probability_sums_to_one_over_a_truncated_grid():
    inst = rigid_instance([(1, 1.0), (2, 1.5)], 2)
    model = SilentErrors.from_qbar(inst, 0.3)
    q = model.q(inst)
    K = 60  # tail mass of f_j >= K is q_j^K, tiny here
    total = math.fsum(
        model.probability(inst, FailureScenario((a, b))) for a, b in itertools.product(range(K), repeat=2)
    )
    assert math.isclose(total, (1 - q[0] ** K) * (1 - q[1] ** K), rel_tol=1e-12)
    assert math.isclose(total, 1.0, abs_tol=1e-9)


def test_probability_by_hand():
    inst = rigid_instance([(1, 1.0), (3, 2.0)], 3)
    model = SilentErrors(0.1)
    q0, q1 = 1 - math.exp(-0.1), 1 - math.exp(-0.6)
    assert math.isclose(model.probability(inst, FailureScenario((2, 0))), q0**2 * (1 - q0) * (1 - q1))
    assert math.isclose(model.probability(inst, FailureScenario((0, 3))), (1 - q0) * q1**3 * (1 - q1))
    assert math.isclose(model.probability(inst, FailureScenario.none(2)), math.exp(-0.7))


def test_probability_without_errors():
    inst = rigid_instance([(1, 1.0), (3, 2.0)], 3)
    model = SilentErrors(0.0)
    assert model.probability(inst, FailureScenario.none(2)) == 1.0
    assert model.probability(inst, FailureScenario((1, 0))) == 0.0


# ------------------------------------------------------------------ generators


@given(seeds, st.integers(1, 30), st.integers(1, 40), st.booleans())
def test_random_rigid(seed, n, P, integral):
    inst = random_rigid(n, P, seed=seed, integral=integral)
    assert inst == random_rigid(n, P, seed=seed, integral=integral)
    assert inst.n == n and inst.P == P
    assert (1 <= inst.procs).all() and (inst.procs <= P).all()
    assert (1 <= inst.times).all() and (inst.times <= 10).all()
    if integral:
        assert (inst.times == np.round(inst.times)).all()


def test_random_rigid_covers_the_ranges():
    inst = random_rigid(400, 5, seed=0, integral=True)
    assert set(inst.procs.tolist()) == {1, 2, 3, 4, 5}
    assert set(inst.times.tolist()) == {float(t) for t in range(1, 11)}


def test_synthetic_rigid_defaults_are_section_5_1():
    assert SYNTHETIC_RIGID_PROCS == (50, 2000) and SYNTHETIC_RIGID_TIMES == (100.0, 20000.0)
    inst = synthetic_rigid(seed=1)
    assert inst.n == 100 and inst.P == 10000
    assert inst == synthetic_rigid(seed=1) and inst != synthetic_rigid(seed=2)
    big = synthetic_rigid(5000, seed=2)
    assert big.procs.min() == 50 and big.procs.max() == 2000  # both ends reached
    assert 100 <= big.times.min() < 110 and 19890 < big.times.max() <= 20000
    assert abs(big.procs.mean() - 1025) < 30 and abs(big.times.mean() - 10050) < 300


def test_synthetic_rigid_options_and_errors():
    inst = synthetic_rigid(10, 64, seed=3, procs=(1, 64), times=(1.0, 2.0))
    assert inst.procs.max() <= 64 and (inst.times < 2.0).all()
    with pytest.raises(ValueError, match=r"procs range \(50, 2000\) exceeds the platform size P = 1000"):
        synthetic_rigid(P=1000)
    with pytest.raises(ValueError, match=r"n must be >= 1"):
        synthetic_rigid(0)
    with pytest.raises(ValueError, match=r"need 0 < times\[0\] <= times\[1\]"):
        synthetic_rigid(times=(0.0, 1.0))
    with pytest.raises(ValueError, match=r"need 1 <= procs\[0\] <= procs\[1\]"):
        synthetic_rigid(procs=(10, 5))


@given(seed=seeds, qbar=st.sampled_from([0.0, 0.3, 0.8]))
def test_vectorised_lower_bounds_are_the_scalar_ones_exactly(seed, qbar):
    """``lower_bounds`` (the campaigns' normalizer) against ``lower_bound`` per scenario: equal floats."""
    inst = random_rigid(9, 16, seed=seed % 2**32)
    failures = SilentErrors.from_qbar(inst, qbar).sample(inst, size=20, seed=seed % 2**32)
    expected = [lower_bound(inst, FailureScenario(tuple(int(x) for x in row))) for row in failures]
    assert lower_bounds(inst, failures).tolist() == expected
