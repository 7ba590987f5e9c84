"""heuristics.fast: makespans over many failure scenarios, identical to the reference.

The reference is the registry :data:`coschedule.heuristics.RIGID_HEURISTICS` called once per scenario (the
plain implementations of ``coschedule.heuristics.rlist`` and ``coschedule.heuristics.rshelf``). Every comparison is
EXACT (``assert_array_equal``): the kernels replay the same float operations in the same order.
Instances include integral times with many simultaneous completions, real times whose sums meet
within the tolerance (NOTE 2), and the §5.1 synthetic setting with ``qbar = 0.3``.
"""

from __future__ import annotations

import numpy as np
import pytest
from coschedule_testing import package_doctests
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance, SolverUnavailable, UnknownName
from coschedule.generators import random_rigid, synthetic_rigid
from coschedule.rigid import FailureScenario, RigidInstance, RigidJob, SilentErrors, rigid_instance
from coschedule.heuristics import RIGID_HEURISTICS, fast
from coschedule.heuristics.fast import FAST_HEURISTICS, HAVE_NUMBA, jit, list_kernels, makespans
from coschedule.heuristics.priorities import PRIORITIES, priority_order
from coschedule.heuristics.rlist import TIME_REL, time_tolerance

NAMES = sorted(RIGID_HEURISTICS)
#: the heuristics with a numba kernel (the "-kept" R-List variants run the reference only)
KERNELS = sorted(fast.KERNEL_HEURISTICS)
RULES = sorted(PRIORITIES)
seeds = st.integers(0, 2**32 - 1)
needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")


def by_index(instance: RigidInstance, rng: np.random.Generator) -> np.ndarray:
    """A priority rule: the queue in job-index order."""
    return np.arange(instance.n, dtype=float)


def reference(instance, scenarios, name, priority="LPT", seed=None) -> np.ndarray:
    """The registry's heuristic on each scenario (a row of failure counts)."""
    fn = RIGID_HEURISTICS[name]
    return np.array(
        [fn(instance, FailureScenario(tuple(int(x) for x in row)), priority=priority, seed=seed).makespan
         for row in scenarios]
    )


def assert_same(instance, scenarios, name, priority="LPT", seed=None, backend="auto"):
    got = makespans(instance, scenarios, name, priority=priority, seed=seed, backend=backend)
    want = reference(instance, scenarios, name, priority, seed)
    np.testing.assert_array_equal(got, want, err_msg=f"{name} {priority} seed={seed}")


def sampled(instance, qbar, size, seed) -> np.ndarray:
    return SilentErrors.from_qbar(instance, qbar).sample(instance, size=size, seed=seed)


def tied_instance(n: int, P: int, seed: int) -> RigidInstance:
    """Integral times in 1..3 and procs in 1..P: many equal keys and simultaneous completions."""
    rng = np.random.default_rng(seed)
    jobs = tuple(RigidJob(int(p), float(t)) for p, t in zip(rng.integers(1, P, endpoint=True, size=n),
                                                           rng.integers(1, 3, endpoint=True, size=n)))
    return RigidInstance(jobs, P)


def decimal_instance(n: int, P: int, seed: int) -> RigidInstance:
    """Times 0.1, 0.2, 0.3, 0.7: sums such as 0.1 + 0.2 and 0.3 meet only within the tolerance."""
    rng = np.random.default_rng(seed)
    times = rng.choice([0.1, 0.2, 0.3, 0.7], size=n)
    jobs = tuple(RigidJob(int(p), float(t)) for p, t in zip(rng.integers(1, P, endpoint=True, size=n), times))
    return RigidInstance(jobs, P)


@st.composite
def cases(draw, *, n=(1, 14), P=(1, 16), max_failures=4, count=(1, 4)):
    """An instance (real, integral or decimal times) and a few scenarios."""
    n_ = draw(st.integers(*n))
    P_ = draw(st.integers(*P))
    seed = draw(seeds)
    kind = draw(st.sampled_from(["real", "integral", "decimal", "tied"]))
    if kind == "real":
        inst = random_rigid(n_, P_, seed=seed)
    elif kind == "integral":
        inst = random_rigid(n_, P_, seed=seed, integral=True)
    elif kind == "decimal":
        inst = decimal_instance(n_, P_, seed)
    else:
        inst = tied_instance(n_, P_, seed)
    S = draw(st.integers(*count))
    f = np.random.default_rng(seed + 1).integers(0, max_failures, endpoint=True, size=(S, n_))
    return inst, f


# ---------------------------------------------------------------- API


def test_the_seven_heuristics_of_the_registry():
    assert sorted(FAST_HEURISTICS) == NAMES


def test_arguments_are_checked():
    inst = rigid_instance([(1, 1.0), (2, 2.0)], 2)
    with pytest.raises(UnknownName, match="r-list-0.*r-shelffill-nb"):
        makespans(inst, np.zeros((1, 2), dtype=int), "r-list-2")
    with pytest.raises(UnknownName, match="numba"):
        makespans(inst, np.zeros((1, 2), dtype=int), "r-list-0", backend="cuda")
    with pytest.raises(UnknownName, match="LPT"):
        makespans(inst, np.zeros((1, 2), dtype=int), "r-list-0", priority="longest")
    with pytest.raises(InvalidInstance, match=r"shape \(S, 2\)"):
        makespans(inst, np.zeros((1, 3), dtype=int), "r-list-0")
    with pytest.raises(InvalidInstance, match="integers"):
        makespans(inst, np.zeros((1, 2)), "r-list-0")
    with pytest.raises(InvalidInstance, match="scenario 1: failures of job 0 must be >= 0, got -1"):
        makespans(inst, [[0, 0], [-1, 0]], "r-list-0")


@pytest.mark.parametrize("backend", ["auto", "reference", pytest.param("numba", marks=needs_numba)])
def test_shapes(backend):
    inst = rigid_instance([(1, 1.0), (2, 2.0)], 2)
    assert makespans(inst, np.zeros((0, 2), dtype=int), "r-list-q", backend=backend).shape == (0,)
    one = makespans(inst, [1, 0], "R-List-Q", backend=backend)  # one scenario, any case
    assert one.shape == (1,) and one.dtype == np.float64
    assert one[0] == 4.0  # job 1 [0,2), job 0 [2,3) F [3,4) S


# ---------------------------------------------------------------- identical to the reference


@needs_numba
@pytest.mark.parametrize("name", KERNELS)
@given(case=cases(), priority=st.sampled_from(RULES), seed=seeds)
def test_random_instances(name, case, priority, seed):
    inst, f = case
    assert_same(inst, f, name, priority, seed, backend="numba")


@needs_numba
@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("priority", RULES)
def test_ties_and_simultaneous_completions(name, priority):
    """Integral times 1..3 (equal keys, exact sums, crowds of simultaneous completions) and
    decimal times (sums that meet within the tolerance), many failures."""
    for k in range(3):
        for inst in (tied_instance(25, 6, seed=k), decimal_instance(25, 6, seed=k)):
            f = np.random.default_rng(k).integers(0, 4, endpoint=True, size=(6, inst.n))
            assert_same(inst, f, name, priority, seed=k, backend="numba")


@needs_numba
@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("priority", RULES)
def test_synthetic_setting_of_section_5_1(name, priority):
    """100 jobs, procs U{50..2000}, times U[100, 20000], P = 10000, qbar = 0.3 (and a smaller
    platform, where queues are longer)."""
    count = 2 if name == "r-list-q" else 4  # the reference R-List-Q takes ~25 ms per scenario
    for seed, P in ((1, 10000), (2, 4000)):
        inst = synthetic_rigid(100, P, seed=seed)
        assert_same(inst, sampled(inst, 0.3, count, seed), name, priority, seed, backend="numba")


@needs_numba
@pytest.mark.parametrize("name", KERNELS)
def test_no_failure_and_many_failures(name):
    inst = synthetic_rigid(40, 5000, seed=7)
    f = np.vstack([np.zeros(40, dtype=int), sampled(inst, 0.9, 3, 7)])
    assert_same(inst, f, name, backend="numba")


@needs_numba
@pytest.mark.parametrize("m", ["r-list-1", "r-list-q"])
def test_grouped_completions_move_an_old_reservation(m):
    """NOTE 2 against the kept reservations of R-List-Q. P = 2, queue A B C (by index):
    A (0.1 + 0.2) and B (0.3) start at 0; C is reserved at 0.3, B's end. A ends at
    0.30000000000000004, the same instant: the round is at that later end, so C starts there,
    not at its old reservation."""
    inst = rigid_instance([(1, 0.1 + 0.2), (1, 0.3), (1, 1.0)], 2)
    f = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    got = makespans(inst, f, m, priority=by_index, backend="numba")
    np.testing.assert_array_equal(got, reference(inst, f, m, by_index))
    assert got[0] == 0.1 + 0.2 + 1.0


@needs_numba
@pytest.mark.parametrize("priority", RULES)
def test_incremental_r_list_q_equals_fresh_rounds(priority):
    """The R-List-Q kernel keeps reservations from round to round; the generic kernel makes a
    fresh round at every instant (as the reference). Both compiled, so on many scenarios."""
    cases_ = [
        (synthetic_rigid(100, 10000, seed=3), 0.3),
        (synthetic_rigid(60, 3000, seed=4), 0.6),
        (tied_instance(40, 8, seed=5), 0.5),
        (decimal_instance(40, 8, seed=6), 0.5),
    ]
    for inst, qbar in cases_:
        f = sampled(inst, qbar, 150, seed=8)
        rank = priority_order(inst, priority, seed=9)
        job_at = np.empty_like(rank)
        job_at[rank] = np.arange(inst.n)
        args = (inst.P, np.array(inst.procs), np.array(inst.times), rank, job_at, f, inst.n)
        tol = (time_tolerance(inst), TIME_REL)
        fresh = list_kernels._list_makespans(*args, False, *tol)
        kept = list_kernels._list_makespans(*args, True, *tol)
        np.testing.assert_array_equal(kept, fresh)
        np.testing.assert_array_equal(kept, makespans(inst, f, "r-list-q", priority=priority, seed=9))


@needs_numba
def test_random_priority_is_drawn_once():
    """With a Generator the order is drawn once for all scenarios; with the same int seed it is
    the order the reference draws for every scenario."""
    inst = synthetic_rigid(30, 3000, seed=2)
    f = sampled(inst, 0.3, 5, 3)
    for name in NAMES:
        got = makespans(inst, f, name, priority="RANDOM", seed=np.random.default_rng(11))
        np.testing.assert_array_equal(got, reference(inst, f, name, "RANDOM", 11))


# ---------------------------------------------------------------- without numba


@pytest.mark.parametrize("name", NAMES)
def test_fallback_without_numba(monkeypatch, name):
    monkeypatch.setattr(jit, "HAVE_NUMBA", False)
    inst = synthetic_rigid(20, 2000, seed=5)
    f = sampled(inst, 0.5, 3, 6)
    got = makespans(inst, f, name, priority="RANDOM", seed=np.random.default_rng(4))
    np.testing.assert_array_equal(got, reference(inst, f, name, "RANDOM", 4))
    assert_same(inst, f, name, "LA")
    with pytest.raises(SolverUnavailable, match="numba"):
        makespans(inst, f, name, backend="numba")


@pytest.mark.parametrize("name", NAMES)
@given(case=cases(n=(1, 8), count=(1, 2)), priority=st.sampled_from(RULES), seed=seeds)
def test_reference_backend(name, case, priority, seed):
    inst, f = case
    assert_same(inst, f, name, priority, seed, backend="reference")


# ---------------------------------------------------------------- the benchmark


@pytest.mark.parametrize("numba", [pytest.param(True, marks=needs_numba), False])
def test_bench_rlist_rows(monkeypatch, numba):
    from coschedule.bench import RLIST_HEURISTICS, bench_rlist

    if not numba:
        monkeypatch.setattr(jit, "HAVE_NUMBA", False)
    rows = list(bench_rlist(n=20, P=3000, scenarios=12, reference_scenarios=4, repeat=2, seed=3))
    assert [r.heuristic for r in rows] == list(RLIST_HEURISTICS)
    for row in rows:
        assert row.backend == ("numba" if numba else "reference")
        assert row.identical is True and row.reference_scenarios == 4
        assert row.fast_ms > 0 and row.reference_ms is not None and row.reference_ms > 0
        inst = synthetic_rigid(20, 3000, seed=3)
        want = reference(inst, sampled(inst, 0.3, 12, 4), row.heuristic)
        assert row.mean_makespan == pytest.approx(want.mean(), rel=1e-12)
        d = row.to_dict()
        assert d["heuristic"] == row.heuristic and "speedup" in d
        # nothing unmeasured: no target, no C++ figure, unless a baseline binary was run
        assert "target_ms" not in d and d["baseline"] == "not measured" and d["baseline_ms"] is None


def test_doctests():
    failed, attempted = package_doctests(fast)
    assert failed == 0 and attempted >= 1  # makespans', in coschedule.heuristics.fast.dispatch
