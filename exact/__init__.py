"""Exact formulations, one module per problem, behind one registry.

:func:`solve_kinp` solves k-in-p co-scheduling ([Aupy2017] §1.3.6) with
a named *method* (the formulation) and *solver* (the backend):

========== ============================================================ ==================
method     what                                                         solvers
========== ============================================================ ==================
subsetdp   vectorised DP over subsets (auto when n is small, any k)     numpy
setcover   set covering over priced, non-dominated packs (auto otherwise) highs, cbc, cpsat
ilp        the paper's ILP (1.12), as printed (reference formulation)    highs, cbc, cpsat
matching   2-in-p as a min-weight perfect matching with loops (Thm 1.1)  rustworkx, networkx
exhaustive memoised search over set partitions (n <= 16; test reference) python
========== ============================================================ ==================

Every call returns an :class:`~coschedule.results.ExactResult` that states what was proved.
"""

from __future__ import annotations

import dataclasses
import math
import time

from coschedule.errors import InvalidInstance, unknown_name
from coschedule.model import CoSchedule, MoldableInstance
from coschedule.results import ExactResult, Status
from coschedule.timelimit import TIME_LIMIT_MARGIN, Deadline, TimeLimitReached

from .exhaustive import solve_exhaustive
from .kinp_ilp import build_kinp_ilp, decode_kinp_ilp
from .kinp_setcover import MAX_COLUMNS as SETCOVER_MAX_COLUMNS
from .kinp_setcover import build_kinp_setcover, decode_kinp_setcover, start_vector
from .kinp_subsetdp import MAX_N as SUBSETDP_MAX_N
from .kinp_subsetdp import MAX_WORK as SUBSETDP_MAX_WORK
from .kinp_subsetdp import solve_subset_dp, subset_dp_work
from .mip import BACKENDS, MIP_REL_GAP, MipSolution, available_backends, default_backend, preload, solve_mip
from .lns import lns_packs
from .units import time_unit_for

# rigid jobs under silent errors (T_OPT(f), shelves, expected makespan): ``coschedule.exact.rigid``
# works after ``import coschedule.exact``; it only needs the model (no cycle back to this module)
from . import rigid

__all__ = [
    "METHODS",
    "rigid",
    "TIME_LIMIT_MARGIN",
    "solve_kinp",
    "auto_method",
    "available_backends",
    "available_solvers",
    "default_backend",
    "solve_mip",
]

#: the set-cover MIP is warm-started by a neighbourhood search above this many tasks
LNS_MIN_N = 15

METHODS = ("auto", "subsetdp", "setcover", "ilp", "matching", "exhaustive")
MATCHING_BACKENDS = ("auto", "rustworkx", "networkx")


def available_solvers() -> dict[str, list[str]]:
    """Method -> the solvers usable with it on this machine."""
    out = {
        "subsetdp": ["numpy"],
        "setcover": available_backends(),
        "ilp": available_backends(),
        "exhaustive": ["python"],
    }
    match = ["networkx"]
    try:
        import rustworkx  # noqa: F401

        match.insert(0, "rustworkx")
    except ImportError:
        pass
    out["matching"] = match
    return out


def _from_mip(
    instance: MoldableInstance, method: str, sol: MipSolution, cs: CoSchedule | None,
    rounding: float, t0: float, info: dict,
) -> ExactResult:
    objective = cs.cost(instance) if cs is not None else None
    tol = rounding + (max(1e-6, MIP_REL_GAP * abs(objective)) if objective is not None else 0.0)
    bound = sol.bound
    if bound is not None:
        bound = bound - rounding
        if objective is not None:
            bound = min(bound, objective)
    status = sol.status
    if status is Status.OPTIMAL and objective is None:
        status = Status.UNKNOWN
    return ExactResult(
        status, objective, bound, cs, method, sol.solver, time.perf_counter() - t0,
        tolerance=tol, info={**info, **sol.info},
    )


def _budget(time_limit: float | None, t0: float, share: float) -> float:
    """Seconds for a preliminary step: ``share`` of what is left of the limit (10 s if none)."""
    if time_limit is None:
        return 10.0
    return max(0.0, share * (time_limit - (time.perf_counter() - t0)))


def _method_for_solver(solver: str, instance: MoldableInstance, k: int) -> str:
    """With ``method="auto"`` and an explicit solver, the method that solver serves."""
    if solver in BACKENDS:
        return "setcover"
    if solver in MATCHING_BACKENDS:
        return "matching"
    if solver == "numpy":
        return "subsetdp"
    if solver == "python":
        return "exhaustive"
    valid = [*BACKENDS, *MATCHING_BACKENDS[1:], "numpy", "python"]
    raise unknown_name("solver", solver, valid)


def auto_method(instance: MoldableInstance, k: int) -> str:
    """The method ``"auto"`` picks.

    * ``matching`` for 2-in-p (polynomial, Thm 1.1);
    * ``subsetdp`` for ``n <= 15`` (well under a second for any k);
    * ``setcover`` for small packs (``k <= 4``) while the candidate packs fit in memory: with
      its warm start and pack-count cut it is the fastest for k = 3 and n >= 18;
    * ``subsetdp`` when its work fits (e.g. ``k = n`` up to ``n = 18``), else ``setcover``.
    """
    n = instance.n
    kk = min(k, n, instance.p)
    if kk == 2 and n > 2:
        return "matching"
    if n <= 15:
        return "subsetdp"
    columns = sum(math.comb(n, s) for s in range(1, kk + 1))
    if kk <= 4 and columns <= SETCOVER_MAX_COLUMNS:
        return "setcover"
    if n <= SUBSETDP_MAX_N and subset_dp_work(n, kk) <= SUBSETDP_MAX_WORK:
        return "subsetdp"
    return "setcover"


def solve_kinp(
    instance: MoldableInstance,
    k: int,
    *,
    method: str = "auto",
    solver: str | None = None,
    time_limit: float | None = None,
    time_unit: float | None = None,
    threads: int | None = None,
) -> ExactResult:
    """Solve k-in-p-CoSchedule (Definition 1.1) exactly.

    Parameters
    ----------
    method
        ``"auto"`` (:func:`auto_method`), or one of :data:`METHODS`.
    solver
        Backend for the method (see the module table); ``None`` picks the best available.
    time_limit
        Seconds for the whole call (building the model, solving, decoding): it returns within
        ``time_limit + TIME_LIMIT_MARGIN`` (:mod:`coschedule.timelimit`) for every method and
        backend. A run stopped by it is reported ``FEASIBLE`` (with a bound when the backend
        gives one) or ``UNKNOWN``, never ``OPTIMAL``, and ``info["time_limit_reached"]`` says
        during which step ("time limit reached while building the model").
    time_unit
        Round every time to this unit, making the model integral (CP-SAT always needs one: by
        default :func:`coschedule.exact.units.time_unit_for`; the matching has its own default). The
        rounding error is reported in ``ExactResult.tolerance``.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInstance(f"k must be a positive integer, got {k!r}")
    m = method.lower()
    solver = None if solver is None or solver.lower() == "auto" else solver.lower()
    if m not in METHODS:
        raise unknown_name("method", method, METHODS)
    if m == "auto":
        m = auto_method(instance, k) if solver is None else _method_for_solver(solver.lower(), instance, k)
    if m in ("setcover", "ilp"):
        preload(default_backend() if solver is None else solver)  # imports are not counted
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit, t0)
    if m == "subsetdp":
        if solver not in (None, "numpy"):
            raise unknown_name("solver for subsetdp", solver, ["numpy"])
        return solve_subset_dp(instance, k, deadline=deadline)
    if m == "exhaustive":
        if solver not in (None, "python"):
            raise unknown_name("solver for exhaustive", solver, ["python"])
        return solve_exhaustive(instance, k, deadline=deadline)
    if m == "matching":
        if min(k, instance.p) != 2:
            raise InvalidInstance(
                f"the matching method solves 2-in-p only (got k = {k}, p = {instance.p})"
            )
        from .matching import solve_matching

        backend = solver or "auto"  # already lower-case
        if backend not in MATCHING_BACKENDS:
            raise unknown_name("solver for matching", backend, MATCHING_BACKENDS)
        return solve_matching(instance, backend=backend, time_unit=time_unit, deadline=deadline)
    backend = default_backend() if solver is None else solver.lower()
    if backend not in BACKENDS:
        raise unknown_name("solver", backend, list(BACKENDS))
    if backend == "cpsat" and time_unit is None:
        time_unit = time_unit_for(instance.time_matrix)  # CP-SAT needs integers
    info: dict = {}
    if time_unit is not None:
        info["time_unit"] = time_unit
    try:
        if m == "setcover":
            model, cols = build_kinp_setcover(instance, k, time_unit=time_unit, deadline=deadline)
        else:
            model = build_kinp_ilp(instance, k, time_unit=time_unit, deadline=deadline)
    except TimeLimitReached as e:
        return ExactResult(Status.UNKNOWN, None, None, None, m, backend, time.perf_counter() - t0,
                           info={**info, "time_limit_reached": str(e)})
    info["build_time"] = time.perf_counter() - t0
    if m == "setcover":
        info.update(columns=cols.count, candidates=cols.enumerated)
        start = None
        if instance.n > LNS_MIN_N:
            packs, lns_cost = lns_packs(instance, k, max_seconds=_budget(time_limit, t0, 0.1))
            start = start_vector(cols, packs, instance.p)
            info["lns_cost"] = lns_cost
        sol = solve_mip(model, backend, deadline=deadline, threads=threads, start=start)
        if sol.x is None and start is not None:  # the solver found nothing better in time
            sol = dataclasses.replace(sol, x=start, status=Status.FEASIBLE)
        cs = decode_kinp_setcover(instance, cols, sol) if sol.x is not None else None
    else:  # ilp
        info.update(variables=model.num_vars, rows=model.num_rows)
        sol = solve_mip(model, backend, deadline=deadline, threads=threads)
        cs = decode_kinp_ilp(instance, sol) if sol.x is not None else None
    return _from_mip(instance, m, sol, cs, model.rounding, t0, info)


