"""One shared suite for every exact k-in-p method and backend (``solve_kinp``, §1.3.6).

Every (method, solver) pair runs on the same instances: random ones from the shared
strategies, checked against the exhaustive search, and stored ones whose optima are derived
by hand below. Then: honesty under time limits, PuLP's status pitfall, input errors, the
``auto`` choice, and monotonicity of the optimum in ``k``.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from coschedule_testing import fewer, random_instances, synthetic_instances
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance, SolverUnavailable, UnknownName
from coschedule.generators import random_instance, synthetic_instance
from coschedule.io import load_instance
from coschedule.model import MoldableInstance, MoldableTask
from coschedule.results import ExactResult, Status
from coschedule.validate import validate_coschedule
from coschedule.exact import METHODS, auto_method, solve_kinp
from coschedule.exact.exhaustive import solve_exhaustive
from coschedule.exact.kinp_setcover import MAX_COLUMNS, build_kinp_setcover, candidate_packs
from coschedule.exact.kinp_subsetdp import MAX_N as SUBSETDP_MAX_N
from coschedule.exact import mip
from coschedule.exact.mip import solve_mip

HAS_HIGHS = importlib.util.find_spec("highspy") is not None
HAS_RUSTWORKX = importlib.util.find_spec("rustworkx") is not None
needs_highs = pytest.mark.skipif(not HAS_HIGHS, reason="highspy not installed")
needs_rustworkx = pytest.mark.skipif(not HAS_RUSTWORKX, reason="rustworkx not installed")

INSTANCES_DIR = Path(__file__).resolve().parents[2] / "instances" / "kinp"

#: the formulations that scale to n = 8 (and "auto")
FAST = [
    pytest.param("subsetdp", "numpy", id="subsetdp-numpy"),
    pytest.param("setcover", "highs", id="setcover-highs", marks=needs_highs),
    pytest.param("setcover", "cbc", id="setcover-cbc"),
    pytest.param("setcover", "cpsat", id="setcover-cpsat"),
    pytest.param("auto", None, id="auto"),
]
#: the paper's ILP (1.12): only tiny instances are proved quickly
ILP = [
    pytest.param("ilp", "highs", id="ilp-highs", marks=needs_highs),
    pytest.param("ilp", "cbc", id="ilp-cbc"),
    pytest.param("ilp", "cpsat", id="ilp-cpsat"),
]
#: every backend of every method, for the stored instances
EVERY = [
    *FAST,
    *ILP,
    pytest.param("exhaustive", "python", id="exhaustive-python"),
    pytest.param("matching", "networkx", id="matching-networkx"),
    pytest.param("matching", "rustworkx", id="matching-rustworkx", marks=needs_rustworkx),
]
#: generous: the ILP cases below are proved in about a second; OPTIMAL is asserted
ILP_TIME_LIMIT = 60.0


def solve_checked(
    instance: MoldableInstance,
    k: int,
    method: str,
    solver: str | None,
    expected: float,
    **kwargs: float,
) -> ExactResult:
    """Solve and check: proved optimal, equal to ``expected``, a valid k-in-p co-schedule."""
    result = solve_kinp(instance, k, method=method, solver=solver, **kwargs)
    assert result.status is Status.OPTIMAL, result.describe()
    assert result.proved_optimal and result.gap == 0.0
    if method != "auto":
        assert (result.method, result.solver) == (method, solver)
    else:
        assert result.method == auto_method(instance, k)
    assert abs(result.objective - expected) <= result.tolerance + 1e-9 * expected, (
        f"{method}/{solver}: {result.objective!r} != optimum {expected!r} "
        f"(tolerance {result.tolerance!r})"
    )
    cost = validate_coschedule(instance, result.solution, k)
    assert math.isclose(cost, result.objective, rel_tol=1e-9)
    if result.bound is not None:  # a proved lower bound never exceeds the optimum
        assert result.bound <= expected + result.tolerance + 1e-9 * expected
    assert result.describe().startswith("optimal") and "NOT" not in result.describe()
    return result


def resolve_k(instance: MoldableInstance, k: int | str) -> int:
    return instance.n if k == "n" else int(k)


# ------------------------------------------------------------ random instances vs exhaustive

#: eq. (1.13), and random profiles with and without minimum processor counts
SMALL = st.one_of(
    synthetic_instances(n=(1, 8), p=(1, 8)),
    random_instances(n=(1, 8), p=(1, 8), with_min_procs=False),
    random_instances(n=(1, 8), p=(1, 8), with_min_procs=True),
)
#: what the paper's ILP proves within about a second (n = 4, p = 4 is the slowest)
TINY = st.one_of(
    synthetic_instances(n=(1, 4), p=(1, 4)),
    random_instances(n=(1, 4), p=(1, 4), with_min_procs=False),
    random_instances(n=(1, 4), p=(1, 4), with_min_procs=True),
)
KS = st.sampled_from([2, 3, "n"])


@pytest.mark.parametrize("method, solver", FAST)
@given(instance=SMALL, k=KS)
def test_fast_methods_equal_exhaustive(method, solver, instance, k):
    k = resolve_k(instance, k)
    solve_checked(instance, k, method, solver, solve_exhaustive(instance, k).objective)


@pytest.mark.parametrize("method, solver", ILP)
@given(instance=TINY, k=KS)
def test_ilp_equals_exhaustive(method, solver, instance, k):
    k = resolve_k(instance, k)
    result = solve_checked(
        instance,
        k,
        method,
        solver,
        solve_exhaustive(instance, k).objective,
        time_limit=ILP_TIME_LIMIT,
    )
    assert result.time < ILP_TIME_LIMIT


def make_instance(kind: str, n: int, p: int, seed: int) -> MoldableInstance:
    if kind == "synthetic":
        return synthetic_instance(n, p, seed=seed)
    return random_instance(n, p, seed=seed, with_min_procs=kind == "min_procs")


KINDS = ["synthetic", "random", "min_procs"]


# hypothesis favours small draws; this grid pins the largest sizes of each kind
@pytest.mark.parametrize("method, solver", FAST)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [2, 3, 8])
def test_fast_methods_at_n8_p8(method, solver, kind, k):
    instance = make_instance(kind, 8, 8, seed=k)
    solve_checked(instance, k, method, solver, solve_exhaustive(instance, k).objective)


@pytest.mark.parametrize("method, solver", ILP)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [2, 3, 4])
def test_ilp_at_n4_p4(method, solver, kind, k):
    instance = make_instance(kind, 4, 4, seed=k)
    result = solve_checked(
        instance,
        k,
        method,
        solver,
        solve_exhaustive(instance, k).objective,
        time_limit=ILP_TIME_LIMIT,
    )
    assert result.time < ILP_TIME_LIMIT


@needs_highs
@fewer(0.2)
@given(instance=random_instances(n=(9, 14), p=(2, 8)), k=st.sampled_from([3, 4]))
def test_setcover_equals_subsetdp_beyond_exhaustive(instance, k):
    # two formulations agree where the pure-Python reference gets slow
    dp = solve_kinp(instance, k, method="subsetdp")
    assert dp.status is Status.OPTIMAL
    solve_checked(instance, k, "setcover", "highs", dp.objective)


# ------------------------------------------------------------ stored instances, known optima


def hand_three_tasks() -> MoldableInstance:
    """p = 4; A = B = (8, 4, 4, 4), C = (6, 6, 6, 6) (sequential).

    * k = 1: each task alone on 4 processors: 4 + 4 + 6 = 14.
    * k = 2: {A, B} on 2 + 2 costs 4, C alone 6: 10; {A, C} on 3 + 1 costs 6, B alone 4: 10;
      three singletons 14. Optimum 10.
    * k = 3: {A, B, C} on 4 processors: one of A, B gets a single processor (8), e.g.
      A 2, B 1, C 1: cost 8 < 10. Optimum 8 (= 8 for every k >= 3).
    """
    a = MoldableTask((8.0, 4.0, 4.0, 4.0), name="A")
    b = MoldableTask((8.0, 4.0, 4.0, 4.0), name="B")
    c = MoldableTask((6.0, 6.0, 6.0, 6.0), name="C")
    return MoldableInstance((a, b, c), 4, name="hand-three-tasks")


def hand_min_procs() -> MoldableInstance:
    """p = 5 with minimum processor counts; A needs 3, B needs 2.

    A = (-, -, 10, 9, 8), B = (-, 12, 8, 6, 6), C = (5, 5, 5, 5, 5).

    * k = 1: 8 + 6 + 5 = 19.
    * k = 2: {A, B} only on 3 + 2: max(10, 12) = 12, plus C 5: 17; {A, C} on 4 + 1: 9, plus B
      6: 15; {B, C} on 4 + 1: 6, plus A 8: 14. Optimum 14.
    * k = 3: A, B, C need 3 + 2 + 1 = 6 > 5 processors, so no pack holds all three: 14.
    """
    a = MoldableTask((None, None, 10.0, 9.0, 8.0), min_procs=3, name="A")
    b = MoldableTask((None, 12.0, 8.0, 6.0, 6.0), min_procs=2, name="B")
    c = MoldableTask((5.0,) * 5, name="C")
    return MoldableInstance((a, b, c), 5, name="hand-min-procs")


def hand_sequential() -> MoldableInstance:
    """p = 1: a pack holds one task, so every k gives 3 + 4 + 5 = 12."""
    return MoldableInstance(tuple(MoldableTask((float(t),)) for t in (3, 4, 5)), 1)


def hand_single_task() -> MoldableInstance:
    """One task (9, 5, 4) on p = 3: it runs alone on 3 processors, 4 for every k."""
    return MoldableInstance((MoldableTask((9.0, 5.0, 4.0)),), 3)


#: (instance factory, k, optimum)
STORED = [
    (hand_three_tasks, 1, 14.0),
    (hand_three_tasks, 2, 10.0),
    (hand_three_tasks, 3, 8.0),
    (hand_min_procs, 1, 19.0),
    (hand_min_procs, 2, 14.0),
    (hand_min_procs, 3, 14.0),
    (hand_sequential, 1, 12.0),
    (hand_sequential, 2, 12.0),
    (hand_sequential, 3, 12.0),
    (hand_single_task, 1, 4.0),
    (hand_single_task, 2, 4.0),
]


def _applicable(method: str, instance: MoldableInstance, k: int) -> bool:
    if method == "matching":
        return min(k, instance.p) == 2
    return True


@pytest.mark.parametrize("method, solver", EVERY)
@pytest.mark.parametrize(
    "factory, k, optimum", STORED, ids=[f"{f.__name__}-k{k}" for f, k, _ in STORED]
)
def test_stored_instances_by_hand(method, solver, factory, k, optimum):
    instance = factory()
    if not _applicable(method, instance, k):
        with pytest.raises(InvalidInstance, match="2-in-p"):
            solve_kinp(instance, k, method=method, solver=solver)
        return
    solve_checked(instance, k, method, solver, optimum, time_limit=ILP_TIME_LIMIT)


FIGURE_1_1 = INSTANCES_DIR / "figure-1-1.json"


@pytest.mark.parametrize("method, solver", [*FAST, pytest.param("exhaustive", "python")])
@pytest.mark.parametrize(
    "k, optimum",
    [
        # instances/README.md: the optimal 3-in-8 co-schedule costs 114
        (3, 114.0),
        # Theorem: with one task per pack each task runs on all 8 processors, so the optimum
        # is the sum of the last profile column 43+36+51+4+39+1+15+16+24
        (1, 229.0),
    ],
)
def test_figure_1_1(method, solver, k, optimum):
    instance = load_instance(FIGURE_1_1)
    assert (instance.n, instance.p) == (9, 8)
    result = solve_checked(instance, k, method, solver, optimum)
    if k == 3:  # four packs of 3, 2, 3 and 1 tasks (README)
        assert sorted(len(pk.allocations) for pk in result.solution.packs) == [1, 2, 3, 3]


# ------------------------------------------------------------ time limits are honest


@pytest.fixture(scope="module")
def hard_ilp_instance():
    """n = 8, p = 8, k = 3: the paper's ILP is not proved within 60 s here."""
    instance = synthetic_instance(8, 8, seed=1)
    return instance, solve_exhaustive(instance, 3).objective


@pytest.mark.slow
@pytest.mark.parametrize("time_limit", [0.05, 1.0])
@pytest.mark.parametrize("solver", [pytest.param("highs", marks=needs_highs), "cbc", "cpsat"])
def test_ilp_time_limit_is_never_reported_optimal(hard_ilp_instance, solver, time_limit):
    instance, optimum = hard_ilp_instance
    result = solve_kinp(instance, 3, method="ilp", solver=solver, time_limit=time_limit)
    tol = result.tolerance + 1e-9 * optimum
    assert result.status in (Status.FEASIBLE, Status.UNKNOWN), result.describe()
    assert not result.proved_optimal
    if result.bound is not None:
        assert result.bound <= optimum + tol
    if result.status is Status.FEASIBLE:
        assert "NOT proved optimal" in result.describe()
        assert result.objective >= optimum - tol
        cost = validate_coschedule(instance, result.solution, 3)
        assert math.isclose(cost, result.objective, rel_tol=1e-9)
        assert result.gap is None or result.gap >= 0
    else:
        assert result.objective is None and result.solution is None
        assert result.describe().startswith("unknown")
    if solver == "cbc" and result.status is Status.FEASIBLE:
        # CBC's solution file says "Stopped on time - objective value X" for such a run (PuLP's
        # own parser turned that into LpStatus "Optimal"; we read the file ourselves)
        assert result.info["cbc_status"].startswith("Stopped")


def _pretend_cbc_hit_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rewrite CBC's solution-file header as CBC writes it when stopped by the time limit.

    The run is real and its values are kept; only the first line changes from
    ``Optimal - objective value X`` to ``Stopped on time - objective value X``.
    """
    original = mip._read_cbc_solution

    def read(path, n):
        head, x = original(path, n)
        words = head.split()
        assert words[0] == "Optimal", head
        return " ".join(["Stopped", "on", "time", *words[1:]]), x

    monkeypatch.setattr(mip, "_read_cbc_solution", read)


def test_cbc_stopped_by_time_limit_is_feasible_not_optimal(monkeypatch):
    instance = hand_three_tasks()
    model, _ = build_kinp_setcover(instance, 3)
    _pretend_cbc_hit_the_time_limit(monkeypatch)
    sol = solve_mip(model, "cbc")
    assert sol.info["cbc_status"].startswith("Stopped on time - objective value")
    assert sol.status is Status.FEASIBLE  # what was proved
    assert sol.x is not None and sol.bound is None
    result = solve_kinp(instance, 3, method="setcover", solver="cbc")
    assert result.status is Status.FEASIBLE and not result.proved_optimal
    assert "NOT proved optimal" in result.describe()
    assert result.objective == pytest.approx(8.0)  # the solution itself is kept
    validate_coschedule(instance, result.solution, 3, claimed_cost=result.objective)


# ------------------------------------------------------------ errors


@pytest.fixture
def small():
    return hand_three_tasks()


def test_unknown_method_lists_valid_names(small):
    with pytest.raises(UnknownName, match="'simplex'") as err:
        solve_kinp(small, 2, method="simplex")
    for name in METHODS:
        assert name in str(err.value)


@pytest.mark.parametrize("method", ["setcover", "ilp", "auto"])
def test_unknown_solver_lists_valid_names(small, method):
    with pytest.raises(UnknownName, match="'gurobi'") as err:
        solve_kinp(small, 3, method=method, solver="gurobi")
    for name in ("highs", "cbc", "cpsat"):
        assert name in str(err.value)


@pytest.mark.parametrize(
    "method, solver, valid",
    [
        ("subsetdp", "highs", "numpy"),
        ("exhaustive", "cbc", "python"),
        ("matching", "cpsat", "networkx"),
    ],
)
def test_solver_of_another_method_is_refused(small, method, solver, valid):
    with pytest.raises(UnknownName, match=valid):
        solve_kinp(small, 2, method=method, solver=solver)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "3"])
@pytest.mark.parametrize("method", ["auto", "subsetdp", "setcover", "ilp"])
def test_k_below_one_or_not_an_integer(small, method, k):
    with pytest.raises(InvalidInstance, match="k must be a positive integer"):
        solve_kinp(small, k, method=method)


def test_cpsat_refuses_a_float_model(small):
    model, _ = build_kinp_setcover(small, 2)  # no time unit: float prices
    assert not model.integral
    with pytest.raises(SolverUnavailable, match="integer"):
        solve_mip(model, "cpsat")


def test_setcover_refuses_too_many_candidate_packs():
    instance = MoldableInstance((MoldableTask((4.0, 2.0, 2.0, 2.0, 2.0)),) * 10, 5)
    # 10 + 45 + 120 = 175 packs of at most 3 tasks
    with pytest.raises(InvalidInstance, match=r"175 candidate packs.*limit of 100"):
        candidate_packs(instance, 3, max_columns=100)
    assert candidate_packs(instance, 3, max_columns=175).enumerated == 175


def test_setcover_refuses_before_enumerating():
    # n = 60, k = 5: sum_{s <= 5} C(60, s) = 5,985,197 candidates > MAX_COLUMNS
    instance = MoldableInstance((MoldableTask((4.0, 2.0, 2.0, 2.0, 2.0)),) * 60, 5)
    assert sum(math.comb(60, s) for s in range(1, 6)) > MAX_COLUMNS
    with pytest.raises(InvalidInstance, match=r"5,985,197 candidate packs.*ilp"):
        solve_kinp(instance, 5, method="setcover", solver="cbc")


def test_subsetdp_refuses_large_instances():
    task = MoldableTask((4.0, 2.0))
    with pytest.raises(InvalidInstance, match=rf"n <= {SUBSETDP_MAX_N}"):
        solve_kinp(MoldableInstance((task,) * (SUBSETDP_MAX_N + 1), 2), 2, method="subsetdp")
    # n = k = 20 is below the n limit, but its 3^20 / 2 pairs are over the work limit
    with pytest.raises(InvalidInstance, match="use --method setcover"):
        solve_kinp(MoldableInstance((task,) * 20, 2), 20, method="subsetdp")


# ------------------------------------------------------------ the auto choice


def _uniform(n: int, p: int) -> MoldableInstance:
    return MoldableInstance((MoldableTask(tuple(8.0 / min(j, 2) for j in range(1, p + 1))),) * n, p)


@pytest.mark.parametrize(
    "n, p, k, expected",
    [
        (5, 8, 2, "matching"),  # Theorem 1.1: 2-in-p is polynomial
        (5, 2, 4, "matching"),  # p = 2 allows two tasks per pack whatever k
        (2, 8, 2, "subsetdp"),  # no pair to match
        (8, 8, 3, "subsetdp"),  # small n: the DP proves by construction, no solver
        (8, 8, 8, "subsetdp"),
        (60, 8, 3, "setcover"),  # far beyond the DP's 2^n table
    ],
)
def test_auto_method(n, p, k, expected):
    assert auto_method(_uniform(n, p), k) == expected


@pytest.mark.parametrize("solver, method", [("cbc", "setcover"), ("numpy", "subsetdp")])
def test_auto_follows_an_explicit_solver(small, solver, method):
    result = solve_kinp(small, 3, solver=solver)
    assert (result.method, result.solver) == (method, solver)
    assert result.objective == pytest.approx(8.0)


# ------------------------------------------------------------ monotonicity in k


@pytest.mark.parametrize(
    "method, solver",
    [
        ("subsetdp", "numpy"),
        pytest.param("setcover", "highs", marks=needs_highs),
        ("setcover", "cbc"),
    ],
)
@given(
    instance=st.one_of(
        random_instances(n=(1, 7), p=(1, 8)), synthetic_instances(n=(1, 7), p=(1, 8))
    )
)
def test_optimum_non_increasing_in_k(method, solver, instance):
    values = []
    for k in range(1, instance.n + 1):
        result = solve_kinp(instance, k, method=method, solver=solver)
        assert result.status is Status.OPTIMAL
        values.append(result.objective)
    # k = 1: every task alone on all p processors
    assert values[0] == pytest.approx(sum(instance.time(i, instance.p) for i in range(instance.n)))
    # a larger k allows every co-schedule of a smaller one
    assert all(b <= a * (1 + 1e-9) for a, b in itertools.pairwise(values)), values
    # and k >= min(n, p) changes nothing more: no pack holds more than p tasks
    cap = min(instance.n, instance.p)
    assert np.allclose(values[cap - 1 :], values[cap - 1], rtol=1e-9)
