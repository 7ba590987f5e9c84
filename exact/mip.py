"""A solver-neutral mixed-integer model and the backends that solve it.

Building a model is separate from solving it (``build_* -> MipModel``, ``solve_mip``). Backends
live in one registry (:data:`BACKENDS`, :func:`available_backends`, :func:`solve_mip`):

``cbc``
    COIN-OR CBC through PuLP (bundled with PuLP; always available).
``highs``
    HiGHS through ``highspy`` (optional extra ``coschedule[highs]``). Pinned to highspy 1.12.0:
    ortools 9.15 ships its own HiGHS library under the same file name, and newer highspy
    releases fail to load beside it.
``cpsat``
    OR-Tools CP-SAT. It needs integer data: the model must have been built with an explicit
    integer time unit (``MipModel.integral``), otherwise :class:`SolverUnavailable` is raised.

What each backend reports is mapped onto :class:`coschedule.results.Status` with care:
PuLP's ``LpStatus`` says "Optimal" for CBC runs stopped at the time limit with a solution, so
only ``sol_status == 1`` counts as a proof; HiGHS and CBC are run with a relative gap of
``MIP_REL_GAP = 1e-9`` (HiGHS's default stops at 1e-4); CP-SAT's ``OPTIMAL`` is a proof on the integer model.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from coschedule.errors import SolverUnavailable, unknown_name
from coschedule.results import Status

__all__ = [
    "MipBuilder",
    "MipModel",
    "MipSolution",
    "BACKENDS",
    "available_backends",
    "default_backend",
    "solve_mip",
]

#: relative optimality gap asked of the float MIP backends (HiGHS, CBC)
MIP_REL_GAP = 1e-9
#: HiGHS runs without presolve above this many nonzeros per row (see _solve_highs)
DENSE_ROWS = 8000


@dataclass(frozen=True)
class MipModel:
    """``min obj . x  s.t.  row_lo <= A x <= row_hi,  lb <= x <= ub,  x_j integer where integer[j]``.

    ``A`` is stored row-wise (CSR: ``row_start``, ``col_index``, ``value``). ``obj_unit`` converts
    the model's objective into time (``time = obj_unit * objective``); ``integral`` says that all
    data are integers (objective, matrix, bounds), which CP-SAT needs; ``rounding`` bounds the
    error, in time, that rounding data to the integer unit may introduce in the objective.
    """

    name: str
    obj: np.ndarray
    lb: np.ndarray
    ub: np.ndarray
    integer: np.ndarray
    row_start: np.ndarray
    col_index: np.ndarray
    value: np.ndarray
    row_lo: np.ndarray
    row_hi: np.ndarray
    obj_unit: float = 1.0
    integral: bool = False
    rounding: float = 0.0

    @property
    def num_vars(self) -> int:
        return len(self.obj)

    @property
    def num_rows(self) -> int:
        return len(self.row_lo)

    @property
    def num_nonzeros(self) -> int:
        return len(self.value)

    def rows(self) -> Any:
        """Iterate ``(lo, hi, cols, vals)`` row by row."""
        for r in range(self.num_rows):
            a, b = self.row_start[r], self.row_start[r + 1]
            yield self.row_lo[r], self.row_hi[r], self.col_index[a:b], self.value[a:b]


class MipBuilder:
    """Accumulates variables and rows, then freezes them into a :class:`MipModel`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._obj: list[np.ndarray] = []
        self._lb: list[np.ndarray] = []
        self._ub: list[np.ndarray] = []
        self._int: list[np.ndarray] = []
        self._nvars = 0
        self._row_cols: list[np.ndarray] = []
        self._row_vals: list[np.ndarray] = []
        self._row_lo: list[float] = []
        self._row_hi: list[float] = []

    def add_vars(
        self, count: int, *, obj: Any = 0.0, lb: Any = 0.0, ub: Any = math.inf, integer: bool = True
    ) -> np.ndarray:
        """Add ``count`` variables; returns their indices."""
        idx = np.arange(self._nvars, self._nvars + count)
        self._obj.append(np.broadcast_to(np.asarray(obj, dtype=float), (count,)).copy())
        self._lb.append(np.broadcast_to(np.asarray(lb, dtype=float), (count,)).copy())
        self._ub.append(np.broadcast_to(np.asarray(ub, dtype=float), (count,)).copy())
        self._int.append(np.full(count, integer, dtype=bool))
        self._nvars += count
        return idx

    def add_row(self, cols: Sequence[int] | np.ndarray, vals: Any, lo: float, hi: float) -> None:
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.broadcast_to(np.asarray(vals, dtype=float), cols.shape).copy()
        self._row_cols.append(cols)
        self._row_vals.append(vals)
        self._row_lo.append(float(lo))
        self._row_hi.append(float(hi))

    def build(self, *, obj_unit: float = 1.0, integral: bool = False, rounding: float = 0.0) -> MipModel:
        cat = lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt)  # noqa: E731
        lengths = np.array([len(c) for c in self._row_cols], dtype=np.int64)
        row_start = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        model = MipModel(
            self.name,
            cat(self._obj, float),
            cat(self._lb, float),
            cat(self._ub, float),
            cat(self._int, bool),
            row_start,
            cat(self._row_cols, np.int64),
            cat(self._row_vals, float),
            np.array(self._row_lo, dtype=float),
            np.array(self._row_hi, dtype=float),
            obj_unit,
            integral,
            rounding,
        )
        if integral:
            _check_integral(model)
        return model


def _check_integral(model: MipModel) -> None:
    for name, arr in (("objective", model.obj), ("matrix", model.value)):
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ValueError(f"{model.name}: {name} has non-integer coefficients")
    if not np.all(model.integer):
        raise ValueError(f"{model.name}: an integral model has only integer variables")


@dataclass(frozen=True)
class MipSolution:
    """Raw outcome of a backend, in the model's variables (objective and bound in time units)."""

    status: Status
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    solver: str
    time: float
    info: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------ backends


def _solve_highs(
    model: MipModel, time_limit: float | None, threads: int | None, start: np.ndarray | None
) -> MipSolution:
    try:
        import highspy
    except ImportError as e:
        raise SolverUnavailable(
            f"backend 'highs' needs highspy ({e}); install it with: pip install 'coschedule[highs]'"
        ) from None
    t0 = time.perf_counter()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", MIP_REL_GAP)
    h.setOptionValue("random_seed", 0)
    if threads:
        h.setOptionValue("threads", int(threads))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if model.num_rows and model.num_nonzeros / model.num_rows > DENSE_ROWS:
        # HiGHS's presolve does not look at the clock: on very dense rows (set cover with
        # k = n = 16: 32,000 nonzeros a row) it ran 70 s past a 10 s limit
        h.setOptionValue("presolve", "off")
    inf = highspy.kHighsInf
    n = model.num_vars
    lb = np.where(np.isinf(model.lb), -inf, model.lb)
    ub = np.where(np.isinf(model.ub), inf, model.ub)
    empty_i = np.zeros(0, dtype=np.int32)
    h.addCols(n, model.obj, lb, ub, 0, np.zeros(n, dtype=np.int32), empty_i, np.zeros(0))
    if model.num_rows:
        lo = np.where(np.isinf(model.row_lo), -inf, model.row_lo)
        hi = np.where(np.isinf(model.row_hi), inf, model.row_hi)
        h.addRows(
            model.num_rows, lo, hi, model.num_nonzeros,
            model.row_start[:-1].astype(np.int32), model.col_index.astype(np.int32), model.value,
        )
    ints = np.flatnonzero(model.integer).astype(np.int32)
    if len(ints):
        h.changeColsIntegrality(
            len(ints), ints, np.array([highspy.HighsVarType.kInteger] * len(ints))
        )
    if start is not None:
        warm = highspy.HighsSolution()
        warm.col_value = [float(v) for v in start]
        warm.value_valid = True
        h.setSolution(warm)
    h.run()
    ms = h.getModelStatus()
    info = h.getInfo()
    has_sol = info.primal_solution_status == 2
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_sol else None
    bound = info.mip_dual_bound if len(ints) else info.objective_function_value
    bound = float(bound) * model.obj_unit if bound is not None and math.isfinite(bound) else None
    if ms == highspy.HighsModelStatus.kOptimal and has_sol:
        status = Status.OPTIMAL
    elif ms == highspy.HighsModelStatus.kInfeasible:
        status, bound = Status.INFEASIBLE, None
    elif has_sol:
        status = Status.FEASIBLE
    else:
        status = Status.UNKNOWN
    obj = float(info.objective_function_value) * model.obj_unit if has_sol else None
    return MipSolution(
        status, x, obj, bound, "highs", time.perf_counter() - t0,
        {"model_status": h.modelStatusToString(ms), "nodes": int(info.mip_node_count)},
    )


def _solve_cbc(
    model: MipModel, time_limit: float | None, threads: int | None, start: np.ndarray | None
) -> MipSolution:
    import pulp

    t0 = time.perf_counter()
    prob = pulp.LpProblem(model.name.replace(" ", "_"), pulp.LpMinimize)
    xs = []
    for j in range(model.num_vars):
        lo = None if math.isinf(model.lb[j]) else float(model.lb[j])
        hi = None if math.isinf(model.ub[j]) else float(model.ub[j])
        cat = pulp.LpInteger if model.integer[j] else pulp.LpContinuous
        xs.append(prob.add_variable(f"x{j}", lo, hi, cat=cat))
        if start is not None:
            xs[-1].setInitialValue(float(start[j]))
    prob += pulp.LpAffineExpression([(xs[j], float(c)) for j, c in enumerate(model.obj) if c != 0])
    for r, (lo, hi, cols, vals) in enumerate(model.rows()):
        expr = pulp.LpAffineExpression([(xs[c], float(v)) for c, v in zip(cols, vals)])
        if lo == hi:
            prob += pulp.LpConstraint(expr, pulp.LpConstraintEQ, f"r{r}", float(lo))
        else:
            if math.isfinite(lo):
                prob += pulp.LpConstraint(expr, pulp.LpConstraintGE, f"r{r}lo", float(lo))
            if math.isfinite(hi):
                prob += pulp.LpConstraint(expr, pulp.LpConstraintLE, f"r{r}hi", float(hi))
    with tempfile.TemporaryDirectory() as tmp:
        with warnings.catch_warnings():
            # PuLP 3.x announces that 4.0 drops the bundled CBC; we pin pulp < 4
            warnings.simplefilter("ignore", DeprecationWarning)
            solver = pulp.PULP_CBC_CMD(
                msg=False, timeLimit=time_limit, gapRel=MIP_REL_GAP, threads=threads,
                keepFiles=False, options=["randomSeed 1"], warmStart=start is not None,
            )
        solver.tmpDir = tmp
        prob.solve(solver)
    sol = prob.sol_status
    # sol_status: 1 proven optimal, 2 feasible (stopped), 0 no solution, -1 infeasible, -2 unbounded
    if sol == pulp.LpSolutionOptimal:
        status = Status.OPTIMAL
    elif sol == pulp.LpSolutionIntegerFeasible:
        status = Status.FEASIBLE
    elif sol == pulp.LpSolutionInfeasible or prob.status == pulp.LpStatusInfeasible:
        status = Status.INFEASIBLE
    else:
        status = Status.UNKNOWN
    x = None
    obj = None
    if status in (Status.OPTIMAL, Status.FEASIBLE):
        x = np.array([v.varValue if v.varValue is not None else 0.0 for v in xs], dtype=float)
        obj = float(model.obj @ x) * model.obj_unit
    bound = obj if status is Status.OPTIMAL else None  # CBC's bound is not reported by PuLP
    return MipSolution(
        status, x, obj, bound, "cbc", time.perf_counter() - t0,
        {"pulp_status": pulp.LpStatus[prob.status], "sol_status": sol},
    )


def _solve_cpsat(
    model: MipModel, time_limit: float | None, threads: int | None, start: np.ndarray | None
) -> MipSolution:
    from ortools.sat.python import cp_model

    if not model.integral:
        raise SolverUnavailable(
            f"backend 'cpsat' needs integer data, but {model.name} was built with float times; "
            "build it with an integer time unit"
        )
    t0 = time.perf_counter()
    m = cp_model.CpModel()

    # every variable and coefficient is an integer, so a fractional lower bound rounds up and a
    # fractional upper bound rounds down without changing the feasible set
    def lower(v: float) -> int:
        return -big if math.isinf(v) else math.ceil(v)

    def upper(v: float) -> int:
        return big if math.isinf(v) else math.floor(v)

    big = 2**53
    xs = [m.new_int_var(lower(lo), upper(hi), f"x{j}")
          for j, (lo, hi) in enumerate(zip(model.lb, model.ub))]
    for lo, hi, cols, vals in model.rows():
        expr = sum(int(v) * xs[c] for c, v in zip(cols, vals))
        m.add_linear_constraint(expr, lower(lo), upper(hi))
    m.minimize(sum(int(c) * xs[j] for j, c in enumerate(model.obj) if c != 0))
    if start is not None:
        for var, value in zip(xs, start):
            m.add_hint(var, int(round(value)))
    solver = cp_model.CpSolver()
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = float(time_limit)
    # CP-SAT's portfolio gets its LP-based workers only from 8 workers up: with 2 (one per core
    # of a small machine) the set-cover master at n = 8 takes seconds instead of milliseconds
    solver.parameters.num_workers = int(threads) if threads else max(8, os.cpu_count() or 1)
    solver.parameters.random_seed = 0
    code = solver.solve(m)
    has_sol = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    x = np.array([solver.value(v) for v in xs], dtype=float) if has_sol else None
    at_big = x is not None and bool(
        np.any(np.isinf(model.lb) & (x <= -big)) or np.any(np.isinf(model.ub) & (x >= big))
    )
    if at_big:
        # a value at the artificial bound that stands in for infinity: the model is (likely)
        # unbounded, and this "optimum" (and its bound) prove nothing about it
        code, has_sol, x = cp_model.UNKNOWN, False, None
    if code == cp_model.OPTIMAL:
        status = Status.OPTIMAL
    elif code == cp_model.FEASIBLE:
        status = Status.FEASIBLE
    elif code == cp_model.INFEASIBLE:
        status = Status.INFEASIBLE
    else:
        status = Status.UNKNOWN
    obj = float(solver.objective_value) * model.obj_unit if has_sol else None
    bnd = (
        float(solver.best_objective_bound) * model.obj_unit
        if status is not Status.INFEASIBLE and not at_big else None
    )
    return MipSolution(
        status, x, obj, bnd, "cpsat", time.perf_counter() - t0,
        {"status_name": solver.status_name(code), "branches": solver.num_branches},
    )


def _highs_available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


#: name -> (solve function, availability check)
_Backend = Callable[[MipModel, float | None, int | None, np.ndarray | None], MipSolution]
BACKENDS: dict[str, tuple[_Backend, Callable[[], bool]]] = {
    "highs": (_solve_highs, _highs_available),
    "cbc": (_solve_cbc, lambda: True),
    "cpsat": (_solve_cpsat, lambda: True),
}


def available_backends() -> list[str]:
    """Names of the backends usable on this machine."""
    return [name for name, (_, ok) in BACKENDS.items() if ok()]


def default_backend() -> str:
    """HiGHS when highspy is installed, otherwise CBC."""
    return "highs" if _highs_available() else "cbc"


def solve_mip(
    model: MipModel, backend: str | None = None, *, time_limit: float | None = None,
    threads: int | None = None, start: np.ndarray | None = None,
) -> MipSolution:
    """Solve ``model`` with a named backend (``None``: :func:`default_backend`).

    ``start`` is an optional feasible point handed to the solver as a warm start (HiGHS:
    ``setSolution``; CBC: PuLP's ``warmStart``; CP-SAT: hints).
    """
    name = default_backend() if backend is None else backend.lower()
    if name not in BACKENDS:
        raise unknown_name("solver", name, list(BACKENDS))
    return BACKENDS[name][0](model, time_limit, threads, start)
