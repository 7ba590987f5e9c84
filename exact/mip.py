"""A solver-neutral mixed-integer model and the backends that solve it.

Building a model is separate from solving it (``build_* -> MipModel``, ``solve_mip``). Backends
live in one registry (:data:`BACKENDS`, :func:`available_backends`, :func:`solve_mip`):

``cbc``
    COIN-OR CBC, the binary bundled with PuLP (always available), run on an MPS file that
    :func:`write_mps` writes; its process is killed at the deadline if it overruns its limit.
``highs``
    HiGHS through ``highspy`` (optional extra ``coschedule-hpc[highs]``). Pinned to highspy 1.12.0:
    ortools 9.15 ships its own HiGHS library under the same file name, and newer highspy
    releases fail to load beside it.
``cpsat``
    OR-Tools CP-SAT. It needs integer data: the model must have been built with an explicit
    integer time unit (``MipModel.integral``), otherwise :class:`SolverUnavailable` is raised.

What each backend reports is mapped onto :class:`coschedule.results.Status` with care:
CBC's solution file says "Stopped on time - objective value ..." for a run stopped with a
solution (``FEASIBLE``); only "Optimal" counts as a proof; HiGHS and CBC are run with a relative gap of
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

from coschedule import signals
from coschedule.errors import SolverUnavailable, unknown_name
from coschedule.results import Status
from coschedule.timelimit import Deadline, TimeLimitReached, cpsat_solve, stop_reserve

from .cstdout import c_stdout_quiet

__all__ = ["BACKENDS", "MipBuilder", "MipModel", "MipSolution", "available_backends", "cpsat_solve",
           "default_backend", "preload", "solve_mip", "write_mps"]

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

#: rows or columns translated between two looks at the clock
_CHECK_EVERY = 2000


def _stopped(solver: str, t0: float, step: str) -> MipSolution:
    """What a backend returns when the deadline passed before it had a solution."""
    return MipSolution(Status.UNKNOWN, None, None, None, solver, time.perf_counter() - t0,
                       {"time_limit_reached": f"time limit reached while {step}"})


def _solve_highs(
    model: MipModel, deadline: Deadline, threads: int | None, start: np.ndarray | None
) -> MipSolution:
    try:
        import highspy
    except ImportError as e:
        raise SolverUnavailable(
            f"backend 'highs' needs highspy ({e}); install it with: pip install 'coschedule-hpc[highs]'"
        ) from None
    t0 = time.perf_counter()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", MIP_REL_GAP)
    h.setOptionValue("random_seed", 0)
    if threads:
        h.setOptionValue("threads", int(threads))
    if model.num_rows and model.num_nonzeros / model.num_rows > DENSE_ROWS:
        # HiGHS's presolve does not look at the clock: on very dense rows (set cover with
        # k = n = 16: 32,000 nonzeros a row) it ran 70 s past a 10 s limit
        h.setOptionValue("presolve", "off")
    elif deadline.limited and _presolve_seconds(model) > 0.25 * deadline.remaining():
        # nor at the interrupt: the set cover for n = 60, k = 3 (1,800 nonzeros a row) spends
        # 3.5 s in presolve, so a short limit solves without it rather than overrun
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
    if deadline.expired():
        return _stopped("highs", t0, "building the model")
    cancelled = False
    with c_stdout_quiet():  # HiGHS prints a debug line with printf, output_flag or not
        if deadline.limited:
            reserve = stop_reserve(deadline, model.num_nonzeros)  # HiGHS takes a moment to stop
            h.setOptionValue("time_limit", max(1e-3, deadline.remaining() - reserve))
            # HiGHS's own limit is not always looked at (root LP, presolve): it runs in highspy's
            # solver thread and is cancelled through its interrupt callbacks
            h.HandleUserInterrupt = True
            try:  # startSolve inside: a signal right after it must still stop the thread it started
                h.startSolve()
                while not h.wait(0.02)[0]:
                    if not cancelled and deadline.remaining() <= reserve:
                        h.cancelSolve()
                        cancelled = True
            except BaseException as stop:  # Ctrl-C, SIGTERM: stop HiGHS's thread (a C++ thread alive at exit aborts)
                h.cancelSolve()
                wait_until = time.perf_counter() + 1.0
                while not h.wait(0.05)[0]:  # its presolve does not look at the cancel: the command ends without it
                    if time.perf_counter() > wait_until:
                        signals.end_now(stop)
                raise
        else:
            h.run()
    ms = h.getModelStatus()
    info = h.getInfo()
    has_sol = info.primal_solution_status == 2
    x = np.asarray(h.getSolution().col_value, dtype=float) if has_sol else None
    bound = info.mip_dual_bound if len(ints) else info.objective_function_value
    bound = float(bound) * model.obj_unit if bound is not None and math.isfinite(bound) else None
    if ms == highspy.HighsModelStatus.kOptimal and has_sol and not cancelled:
        status = Status.OPTIMAL
    elif ms == highspy.HighsModelStatus.kInfeasible and not cancelled:
        status, bound = Status.INFEASIBLE, None
    elif has_sol:
        status = Status.FEASIBLE
    else:
        status = Status.UNKNOWN
    if not len(ints) and status is not Status.OPTIMAL:
        bound = None  # an interrupted LP's objective bounds nothing
    obj = float(info.objective_function_value) * model.obj_unit if has_sol else None
    extra: dict[str, Any] = {"model_status": h.modelStatusToString(ms), "nodes": int(info.mip_node_count)}
    if cancelled or ms == highspy.HighsModelStatus.kTimeLimit:
        extra["time_limit_reached"] = "time limit reached while solving (HiGHS stopped at the deadline)"
    return MipSolution(status, x, obj, bound, "highs", time.perf_counter() - t0, extra)


def _presolve_seconds(model: MipModel) -> float:
    """A rough upper estimate of HiGHS's presolve time (it looks at no clock): ``2e-8 x nonzeros x
    nonzeros per row`` (108,000 nonzeros on 60 rows: 3.5 s), at least ``3e-5 x nonzeros`` (the
    k-in-p ILP, n = 40, k = 4, p = 200: 46 s for 1.6 million nonzeros, past a 10 s limit)."""
    if not model.num_rows:
        return 0.0
    return max(2e-8 * model.num_nonzeros * model.num_nonzeros / model.num_rows, 3e-5 * model.num_nonzeros)


def _fmt(v: float) -> str:
    return repr(float(v))


def write_mps(model: MipModel, path: str, deadline: Deadline | None = None) -> None:
    """Write ``model`` as a free-format MPS file (columns ``C<j>``, rows ``R<r>``).

    Every column gets explicit bounds (an integer column without bounds is not read as binary)
    and a row ``lo <= a x <= hi`` with both sides finite becomes an ``L`` row with a range.
    """
    deadline = deadline or Deadline.none()
    n, m = model.num_vars, model.num_rows
    lines = [f"NAME {model.name.replace(' ', '_')}", "ROWS", " N OBJ"]
    kind = []
    for r in range(m):
        lo, hi = model.row_lo[r], model.row_hi[r]
        if lo == hi:
            kind.append("E")
        elif math.isinf(lo) and math.isinf(hi):
            kind.append("N")
        elif math.isinf(lo):
            kind.append("L")
        elif math.isinf(hi):
            kind.append("G")
        else:
            kind.append("L")
        lines.append(f" {kind[-1]} R{r}" if kind[-1] != "N" else f" N F{r}")
    rows_of = np.repeat(np.arange(m), np.diff(model.row_start))
    order = np.lexsort((rows_of, model.col_index))
    cols_sorted, rows_sorted, vals_sorted = model.col_index[order], rows_of[order], model.value[order]
    bounds = np.searchsorted(cols_sorted, np.arange(n + 1))
    lines.append("COLUMNS")
    in_int = False
    for j in range(n):
        if j % _CHECK_EVERY == 0:
            deadline.check("writing the model for CBC")
        if model.integer[j] != in_int:
            lines.append("    MARKER 'MARKER' " + ("'INTORG'" if not in_int else "'INTEND'"))
            in_int = bool(model.integer[j])
        entries = [f"    C{j} OBJ {_fmt(model.obj[j])}"] if model.obj[j] != 0 else []
        for r, v in zip(rows_sorted[bounds[j]:bounds[j + 1]], vals_sorted[bounds[j]:bounds[j + 1]]):
            name = f"R{r}" if kind[r] != "N" else f"F{r}"
            entries.append(f"    C{j} {name} {_fmt(v)}")
        if not entries:  # a column in no row and not in the objective still needs a line
            entries.append(f"    C{j} OBJ 0.0")
        lines.extend(entries)
    if in_int:
        lines.append("    MARKER 'MARKER' 'INTEND'")
    lines.append("RHS")
    ranges = []
    for r in range(m):
        lo, hi = model.row_lo[r], model.row_hi[r]
        if kind[r] in ("E", "L"):
            rhs = hi
        elif kind[r] == "G":
            rhs = lo
        else:
            continue
        if rhs != 0:
            lines.append(f"    RHS R{r} {_fmt(rhs)}")
        if kind[r] == "L" and not math.isinf(lo):
            ranges.append(f"    RNG R{r} {_fmt(hi - lo)}")
    if ranges:
        lines.append("RANGES")
        lines.extend(ranges)
    lines.append("BOUNDS")
    for j in range(n):
        lo, hi = model.lb[j], model.ub[j]
        if lo == hi:
            lines.append(f" FX BND C{j} {_fmt(lo)}")
            continue
        if math.isinf(lo) and math.isinf(hi):
            lines.append(f" FR BND C{j}")
            continue
        if math.isinf(lo):
            lines.append(f" MI BND C{j}")
        elif lo != 0 or model.integer[j]:
            lines.append(f" LO BND C{j} {_fmt(lo)}")
        if math.isinf(hi):
            if model.integer[j]:
                lines.append(f" PL BND C{j}")
        else:
            lines.append(f" UP BND C{j} {_fmt(hi)}")
    lines.append("ENDATA")
    deadline.check("writing the model for CBC")
    with open(path, "w", encoding="ascii") as fh:
        fh.write("\n".join(lines) + "\n")


def _read_cbc_solution(path: str, n: int) -> tuple[str, np.ndarray | None]:
    """CBC's ``-solution`` file: ``(first line, column values or None)``."""
    with open(path, encoding="ascii", errors="replace") as fh:
        head = fh.readline().strip()
        x = np.zeros(n)
        for line in fh:
            parts = line.split()
            if parts and parts[0] == "**":
                parts = parts[1:]
            if len(parts) >= 3 and parts[1].startswith("C"):
                try:
                    x[int(parts[1][1:])] = float(parts[2])
                except ValueError:
                    continue
    return head, x


def _solve_cbc(
    model: MipModel, deadline: Deadline, threads: int | None, start: np.ndarray | None
) -> MipSolution:
    """CBC (the binary bundled with PuLP) on an MPS file, killed at the deadline if it overruns.

    CBC's own ``-sec`` limit is looked at only between phases (its root LP of the paper's ILP for
    n = 20 ran 2-30 s past it), so CBC gets 80 % of what is left as its own limit, to stop by
    itself with its incumbent, and its process is killed at the deadline otherwise (then nothing
    is known: ``UNKNOWN``).
    """
    import subprocess

    import pulp

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        # PuLP 3.x announces that 4.0 drops the bundled CBC; we pin pulp < 4
        warnings.simplefilter("ignore", DeprecationWarning)
        path = pulp.PULP_CBC_CMD(msg=False).path
    with tempfile.TemporaryDirectory() as tmp:
        mps, sol, mst = (os.path.join(tmp, f) for f in ("model.mps", "model.sol", "start.sol"))
        try:
            write_mps(model, mps, deadline)
        except TimeLimitReached as e:
            return _stopped("cbc", t0, e.step)
        args = [path, mps]
        if start is not None:
            with open(mst, "w", encoding="ascii") as fh:
                fh.write("Stopped on time - objective value 0\n")
                fh.writelines(f"{j:>7} C{j} {float(v):>15} {0:>23}\n" for j, v in enumerate(start))
            args += ["-mips", mst]
        if deadline.limited:
            args += ["-sec", f"{max(0.01, 0.8 * deadline.remaining()):.3f}"]
        args += ["-ratio", repr(MIP_REL_GAP), "-timeMode", "elapsed", "-randomSeed", "1"]
        if threads:
            args += ["-threads", str(int(threads))]
        args += ["-solve", "-printingOptions", "all", "-solution", sol]
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        killed = False
        try:
            proc.wait(timeout=deadline.remaining_or_none())
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            killed = True
        except BaseException:  # Ctrl-C: do not leave CBC running
            proc.kill()
            proc.wait()
            raise
        head, x = ("", None)
        if not killed and os.path.exists(sol):
            head, x = _read_cbc_solution(sol, model.num_vars)
    words = head.split()
    first = words[0] if words else ""
    has_value = len(words) >= 5 and words[4] == "objective"
    if killed:
        status = Status.UNKNOWN
    elif first == "Optimal":
        status = Status.OPTIMAL
    elif first in ("Infeasible", "Integer") and "infeasible" in head.lower():
        status = Status.INFEASIBLE
    elif first == "Stopped" and has_value:
        status = Status.FEASIBLE
    else:
        status = Status.UNKNOWN
    if status not in (Status.OPTIMAL, Status.FEASIBLE):
        x = None
    obj = float(model.obj @ x) * model.obj_unit if x is not None else None
    bound = obj if status is Status.OPTIMAL else None  # CBC's bound is not in its solution file
    extra: dict[str, Any] = {"cbc_status": head, "returncode": proc.returncode}
    if killed:
        extra["time_limit_reached"] = "time limit reached while solving (CBC killed at the deadline)"
    return MipSolution(status, x, obj, bound, "cbc", time.perf_counter() - t0, extra)


#: seconds of CP-SAT's presolve per nonzero, roughly (about 5 s for 1.6 million nonzeros)
CPSAT_PRESOLVE_PER_NONZERO = 4e-6


def _solve_cpsat(
    model: MipModel, deadline: Deadline, threads: int | None, start: np.ndarray | None
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
    try:
        xs = []
        for j, (lo, hi) in enumerate(zip(model.lb, model.ub)):
            if j % _CHECK_EVERY == 0:
                deadline.check("building the model for CP-SAT")
            xs.append(m.new_int_var(lower(lo), upper(hi), f"x{j}"))
        for r, (lo, hi, cols, vals) in enumerate(model.rows()):
            if r % 200 == 0:
                deadline.check("building the model for CP-SAT")
            m.add_linear_constraint(cp_model.LinearExpr.weighted_sum([xs[c] for c in cols], [int(v) for v in vals]),
                                    lower(lo), upper(hi))
        nz = np.flatnonzero(model.obj)
        m.minimize(cp_model.LinearExpr.weighted_sum([xs[j] for j in nz], [int(model.obj[j]) for j in nz]))
        if start is not None:
            for var, value in zip(xs, start):
                m.add_hint(var, int(round(value)))
        deadline.check("building the model for CP-SAT")
    except TimeLimitReached as e:
        return _stopped("cpsat", t0, e.step)
    solver = cp_model.CpSolver()
    # CP-SAT's LP-based workers come from 8 workers up: with 2, the set-cover master at n = 8 took seconds
    solver.parameters.num_workers = int(threads) if threads else max(8, os.cpu_count() or 1)
    solver.parameters.random_seed = 0
    if deadline.limited and CPSAT_PRESOLVE_PER_NONZERO * model.num_nonzeros > 0.25 * deadline.remaining():
        # CP-SAT's presolve ignores stop_search: 5 s past a 10 s limit on 1.6 million nonzeros
        solver.parameters.cp_model_presolve = False
    # its workers took 2 s to stop on 1.6 M nonzeros (11.1 s at a 10 s limit in CI); xs come first, in order
    reserve = stop_reserve(deadline, model.num_nonzeros, per_nonzero=1e-6) if deadline.limited else 0.0
    code = cpsat_solve(solver, m, deadline, reserve)
    has_sol = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    x = np.asarray(solver.response_proto.solution, dtype=float)[: len(xs)] if has_sol else None
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
    extra: dict[str, Any] = {"status_name": solver.status_name(code), "branches": solver.num_branches}
    if code in (cp_model.FEASIBLE, cp_model.UNKNOWN) and deadline.limited and not at_big:  # only its limit stops it
        extra["time_limit_reached"] = "time limit reached while solving"
    return MipSolution(status, x, obj, bnd, "cpsat", time.perf_counter() - t0, extra)


def _highs_available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


#: name -> (solve function, availability check)
_Backend = Callable[[MipModel, Deadline, int | None, np.ndarray | None], MipSolution]
BACKENDS: dict[str, tuple[_Backend, Callable[[], bool]]] = {
    "highs": (_solve_highs, _highs_available),
    "cbc": (_solve_cbc, lambda: True),
    "cpsat": (_solve_cpsat, lambda: True),
}


def preload(backend: str) -> None:
    """Import a backend's package (ortools and pandas take about a second the first time), so
    that a time limit counted afterwards is spent on the model, not on imports."""
    try:
        if backend == "cpsat":
            import ortools.sat.python.cp_model  # noqa: F401
        elif backend == "highs":
            import highspy  # noqa: F401
        elif backend == "cbc":
            import pulp  # noqa: F401
    except ImportError:  # reported by the backend itself when it runs
        pass


def available_backends() -> list[str]:
    """Names of the backends usable on this machine."""
    return [name for name, (_, ok) in BACKENDS.items() if ok()]


def default_backend() -> str:
    """HiGHS when highspy is installed, otherwise CBC."""
    return "highs" if _highs_available() else "cbc"


def solve_mip(
    model: MipModel, backend: str | None = None, *, time_limit: float | None = None,
    threads: int | None = None, start: np.ndarray | None = None, deadline: Deadline | None = None,
) -> MipSolution:
    """Solve ``model`` with a named backend (``None``: :func:`default_backend`).

    ``start`` is an optional feasible point handed to the solver as a warm start (HiGHS:
    ``setSolution``; CBC: a ``-mips`` solution file; CP-SAT: hints). ``time_limit`` (seconds
    from now) or ``deadline`` bounds the whole call, translation to the backend included
    (:mod:`coschedule.timelimit`); a solve stopped by it is never ``OPTIMAL``, and
    ``info["time_limit_reached"]`` says where it stopped.
    """
    name = default_backend() if backend is None else backend.lower()
    if name not in BACKENDS:
        raise unknown_name("solver", name, list(BACKENDS))
    if deadline is None:
        deadline = Deadline.after(time_limit)
    return BACKENDS[name][0](model, deadline, threads, start)
