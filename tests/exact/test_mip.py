"""The solver-neutral MIP layer (:mod:`coschedule.exact.mip`): every backend on the same tiny models."""

from __future__ import annotations

import dataclasses
import importlib.util
import math

import numpy as np
import pytest

from coschedule.errors import SolverUnavailable, UnknownName
from coschedule.results import Status
from coschedule.exact.mip import BACKENDS, MipBuilder, MipModel, available_backends, default_backend, solve_mip

HAS_HIGHS = importlib.util.find_spec("highspy") is not None
ALL = [
    pytest.param("highs", marks=pytest.mark.skipif(not HAS_HIGHS, reason="no highspy")),
    "cbc",
    "cpsat",
]


def knapsack() -> MipModel:
    """max 10a + 13b + 7c + 8d  s.t.  5a + 6b + 3c + 4d <= 10, binary.

    Pairs within the capacity: b + d (10) is worth 21, b + c 20, a + d 18, a + c 17; no three
    items fit (the lightest three weigh 12). Optimum 21 (b and d), i.e. -21 as a minimisation.
    """
    bld = MipBuilder("knapsack")
    x = bld.add_vars(4, obj=[-10.0, -13.0, -7.0, -8.0], lb=0.0, ub=1.0)
    bld.add_row(x, [5.0, 6.0, 3.0, 4.0], -math.inf, 10.0)
    return bld.build(integral=True)


def covering() -> MipModel:
    """Cover elements 0..3 with sets S0 = {0, 1} (3), S1 = {1, 2} (3), S2 = {2, 3} (3),
    S3 = {0, 3} (3), S4 = {0, 1, 2, 3} (7), and integer copies allowed (ub 2).

    Two disjoint sets (S0 + S2 or S1 + S3) cover everything for 6 < 7; one set alone covers
    everything only as S4 (7). Optimum 6.
    """
    bld = MipBuilder("covering")
    x = bld.add_vars(5, obj=[3.0, 3.0, 3.0, 3.0, 7.0], lb=0.0, ub=2.0)
    sets = [{0, 1}, {1, 2}, {2, 3}, {0, 3}, {0, 1, 2, 3}]
    for e in range(4):
        bld.add_row([x[s] for s in range(5) if e in sets[s]], 1.0, 1.0, math.inf)
    return bld.build(integral=True)


def general_integer() -> MipModel:
    """min -x - 2y  s.t.  2x + 3y <= 12,  y - x <= 1,  x, y integer in [0, 10].

    By y: y = 0, x = 6 gives -6; y = 1, x = 4 gives -6; y = 2 (x >= 1, 2x <= 6) x = 3 gives -7;
    y = 3 needs x >= 2 and 2x <= 3, y = 4 needs x >= 3 and x <= 0: impossible. Optimum -7 at
    (3, 2), the only point that reaches it.
    """
    bld = MipBuilder("general")
    x, y = bld.add_vars(2, obj=[-1.0, -2.0], lb=0.0, ub=10.0)
    bld.add_row([x, y], [2.0, 3.0], -math.inf, 12.0)
    bld.add_row([y, x], [1.0, -1.0], -math.inf, 1.0)
    return bld.build(integral=True)


@pytest.mark.parametrize("backend", ALL)
@pytest.mark.parametrize(
    "build, optimum, x",
    [(knapsack, -21.0, [0, 1, 0, 1]), (covering, 6.0, None), (general_integer, -7.0, [3, 2])],
)
def test_backend_reaches_known_optimum(backend, build, optimum, x):
    model = build()
    sol = solve_mip(model, backend)
    assert sol.status is Status.OPTIMAL and sol.solver == backend
    assert sol.objective == pytest.approx(optimum, abs=1e-6)
    assert sol.bound == pytest.approx(optimum, abs=1e-6)
    assert float(model.obj @ sol.x) == pytest.approx(optimum, abs=1e-6)
    if x is not None:
        assert np.allclose(sol.x, x, atol=1e-6)
    # the point is feasible for every row and bound
    for lo, hi, cols, vals in model.rows():
        act = float(vals @ sol.x[cols])
        assert lo - 1e-6 <= act <= hi + 1e-6
    assert np.all(sol.x >= model.lb - 1e-6) and np.all(sol.x <= model.ub + 1e-6)
    assert np.allclose(sol.x, np.round(sol.x), atol=1e-6)


@pytest.mark.parametrize("backend", ALL)
def test_obj_unit_scales_objective_and_bound(backend):
    m = knapsack()
    scaled = dataclasses.replace(m, obj_unit=0.5)
    sol = solve_mip(scaled, backend)
    assert sol.objective == pytest.approx(-10.5) and sol.bound == pytest.approx(-10.5)


@pytest.mark.parametrize("backend", ALL)
@pytest.mark.parametrize("variant", ["cover-too-much", "odd-equality"])
def test_infeasible_model(backend, variant):
    bld = MipBuilder(variant)
    if variant == "cover-too-much":  # two binaries cannot sum to 3
        x = bld.add_vars(2, obj=1.0, lb=0.0, ub=1.0)
        bld.add_row(x, 1.0, 3.0, math.inf)
    else:  # 2x = 1 has no integer solution (the LP relaxation is feasible)
        x = bld.add_vars(1, obj=1.0, lb=0.0, ub=10.0)
        bld.add_row(x, 2.0, 1.0, 1.0)
    sol = solve_mip(bld.build(integral=True), backend)
    assert sol.status is Status.INFEASIBLE
    assert sol.x is None and sol.objective is None and sol.bound is None


@pytest.mark.parametrize("backend", ALL)
@pytest.mark.parametrize(
    "row_lo, row_hi, var_lb, obj, optimum",
    [
        (0.5, math.inf, 0.0, 1.0, 1.0),  # x >= 0.5 means x >= 1 for an integer
        (-math.inf, -0.5, -10.0, -1.0, 1.0),  # x <= -0.5 means x <= -1: min -x is 1
        (-math.inf, math.inf, 0.5, 1.0, 1.0),  # a fractional variable bound
        (-math.inf, 2.5, 0.0, -1.0, -2.0),  # x <= 2.5 means x <= 2
    ],
)
def test_fractional_bounds_of_an_integral_model(backend, row_lo, row_hi, var_lb, obj, optimum):
    # regression: CP-SAT truncated fractional bounds toward zero (x >= 0.5 became x >= 0)
    bld = MipBuilder("fractional")
    x = bld.add_vars(1, obj=obj, lb=var_lb, ub=10.0)
    bld.add_row(x, 1.0, row_lo, row_hi)
    sol = solve_mip(bld.build(integral=True), backend)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(optimum)


@pytest.mark.parametrize("backend", ALL)
def test_unbounded_model_is_not_optimal(backend):
    # regression: CP-SAT replaced the infinite bound by 2^53 and claimed that optimal
    bld = MipBuilder("unbounded")
    x = bld.add_vars(1, obj=-1.0, lb=0.0)
    bld.add_row(x, 1.0, 0.0, math.inf)
    sol = solve_mip(bld.build(integral=True), backend)
    assert sol.status is not Status.OPTIMAL and sol.status is not Status.FEASIBLE
    assert sol.x is None and sol.bound is None


@pytest.mark.parametrize("backend", [b for b in ALL if b != "cpsat"])
def test_continuous_variables(backend):
    # min x + y  s.t.  x + y >= 1.5, x integer in [0, 5], y continuous in [0, 0.25]:
    # x = 1 would need y >= 0.5 > 0.25, so x = 2, y = 0: optimum 2 (the LP relaxation gives 1.5)
    bld = MipBuilder("mixed")
    x = bld.add_vars(1, obj=1.0, lb=0.0, ub=5.0, integer=True)
    y = bld.add_vars(1, obj=1.0, lb=0.0, ub=0.25, integer=False)
    bld.add_row([x[0], y[0]], 1.0, 1.5, math.inf)
    sol = solve_mip(bld.build(), backend)
    assert sol.status is Status.OPTIMAL
    assert sol.objective == pytest.approx(2.0, abs=1e-6)


def test_cpsat_refuses_float_model():
    bld = MipBuilder("float")
    bld.add_vars(1, obj=0.5, lb=0.0, ub=1.0)
    with pytest.raises(SolverUnavailable, match="integer"):
        solve_mip(bld.build(), "cpsat")


def test_integral_build_checks_coefficients():
    bld = MipBuilder("not-integral")
    x = bld.add_vars(1, obj=1.5, lb=0.0, ub=1.0)
    bld.add_row(x, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="objective has non-integer"):
        bld.build(integral=True)
    bld = MipBuilder("continuous")
    bld.add_vars(1, obj=1.0, integer=False)
    with pytest.raises(ValueError, match="only integer variables"):
        bld.build(integral=True)


def test_unknown_backend():
    with pytest.raises(UnknownName, match="'glpk'.*cbc, cpsat, highs"):
        solve_mip(knapsack(), "glpk")


def test_registry():
    names = available_backends()
    assert {"cbc", "cpsat"} <= set(names) <= set(BACKENDS)
    assert ("highs" in names) == HAS_HIGHS
    assert default_backend() == ("highs" if HAS_HIGHS else "cbc")
    assert solve_mip(knapsack()).solver == default_backend()


def test_model_shape():
    m = covering()
    assert (m.num_vars, m.num_rows) == (5, 4)
    # every element lies in two of the pairs and in S4
    assert m.num_nonzeros == sum(len(c) for _, _, c, _ in m.rows()) == 4 * 3


def test_c_stdout_is_quiet_inside_the_block_only():
    """HiGHS prints a debug line with C's printf whatever its output_flag (it broke `coschedule solve
    --json`): c_stdout_quiet drops what C and Python write to descriptor 1 inside the block, in a
    process whose stdout is a pipe (C's buffer is then full-buffered), and nothing outside it."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import ctypes
        from coschedule.exact.cstdout import c_stdout_quiet
        libc = ctypes.CDLL(None)
        print("before")
        libc.printf(b"C before\\n")
        with c_stdout_quiet():
            libc.printf(b"C inside\\n")
            print("Python inside")
        libc.printf(b"C after\\n")
        libc.fflush(None)
        print("after")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.splitlines() == ["before", "C before", "C after", "after"], done.stdout
