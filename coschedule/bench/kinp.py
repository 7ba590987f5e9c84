"""``coschedule bench kinp``: on seeded eq. (1.13) instances (p = 32), the paper's ILP (1.12) with
CBC against the default exact method, each capped by a time limit, for k = 3 and k = n and growing
n; and the 2-in-p matching for large n (p = 64). Every row says whether optimality was proved."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

from coschedule.generators import synthetic_instance
from coschedule.results import ExactResult, Status
from coschedule.validate import validate_coschedule

__all__ = ["KINP_SIZES", "MATCHING_SIZES", "TIME_LIMIT_CASE", "KinpRow", "MatchingRow", "TimeLimitRow", "bench_kinp",
           "bench_matching", "bench_time_limits"]


#: default sizes: k -> list of n ("n" means k = n)
KINP_SIZES: dict[str, list[int]] = {
    "3": [4, 6, 8, 12, 16, 20, 30, 40, 50, 60],
    "n": [4, 6, 8, 10, 12, 14, 16, 18],
}

MATCHING_SIZES = [200, 500, 1000]


@dataclass(frozen=True)
class KinpRow:
    k: str
    n: int
    p: int
    seed: int
    ilp_time: float | None
    ilp_status: str
    ilp_objective: float | None
    default_method: str
    default_time: float
    default_status: str
    default_objective: float | None
    default_bound: float | None

    @property
    def ilp_excess(self) -> str:
        """How far the ILP's answer is above the default method's (``-`` if either is missing)."""
        if self.ilp_objective is None or not self.default_objective:
            return "-"
        return f"{100 * (self.ilp_objective / self.default_objective - 1):+.2f}%"

    @property
    def speedup(self) -> str:
        """ILP time / default time; ``>x`` when the ILP hit its cap."""
        if self.ilp_time is None:
            return "-"
        ratio = self.ilp_time / max(self.default_time, 1e-6)
        return (">" if self.ilp_status != "optimal" else "") + f"{ratio:.3g}"

    def to_dict(self) -> dict:
        return {**asdict(self), "speedup": self.speedup, "ilp_excess": self.ilp_excess}


@dataclass(frozen=True)
class MatchingRow:
    n: int
    p: int
    seed: int
    solver: str
    time: float
    status: str
    objective: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def _checked(instance, k: int, res: ExactResult) -> ExactResult:
    if res.solution is not None:
        validate_coschedule(instance, res.solution, k)
    return res


def bench_kinp(
    sizes: dict[str, list[int]] | None = None,
    *,
    p: int = 32,
    time_limit: float = 60.0,
    ilp_solver: str = "cbc",
    run_ilp: bool = True,
    ilp_every_row: bool = False,
    progress: Callable[[str], None] | None = None,
) -> Iterator[KinpRow]:
    """Yield one row per (k, n). Seeds are ``n`` (printed). Once the ILP fails to prove
    optimality for some n, it is not run for larger n of the same k (it only gets harder),
    unless ``ilp_every_row``."""
    from coschedule.exact import solve_kinp

    sizes = KINP_SIZES if sizes is None else sizes
    for klabel, ns in sizes.items():
        ilp_gave_up_at: int | None = None
        for n in ns:
            k = n if klabel == "n" else int(klabel)
            inst = synthetic_instance(n, p, seed=n)
            if progress:
                progress(f"k={klabel} n={n}: default method ...")
            d = _checked(inst, k, solve_kinp(inst, k, time_limit=time_limit))
            ilp = None
            if run_ilp and (ilp_gave_up_at is None or ilp_every_row):
                if progress:
                    progress(f"k={klabel} n={n}: paper's ILP ({ilp_solver}) ...")
                t0 = time.perf_counter()
                ilp = _checked(inst, k, solve_kinp(inst, k, method="ilp", solver=ilp_solver, time_limit=time_limit))
                if ilp.status is not Status.OPTIMAL and ilp_gave_up_at is None:
                    ilp_gave_up_at = n
                ilp_time = time.perf_counter() - t0
            yield KinpRow(
                klabel, n, p, n,
                ilp_time if ilp else None,
                ilp.status.value if ilp else (f"skipped (capped at n={ilp_gave_up_at})" if run_ilp else "skipped"),
                ilp.objective if ilp else None,
                d.method, d.time, d.status.value, d.objective, d.bound,
            )


def bench_matching(
    sizes: list[int] | None = None, *, p: int = 64, solver: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> Iterator[MatchingRow]:
    from coschedule.exact.matching import solve_matching

    for n in MATCHING_SIZES if sizes is None else sizes:
        inst = synthetic_instance(n, p, seed=n)
        if progress:
            progress(f"2-in-p matching n={n} ...")
        res = _checked(inst, 2, solve_matching(inst, backend=solver))
        yield MatchingRow(n, p, n, res.solver, res.time, res.status.value, res.objective)


#: the time-limit case (issue "the edges", point 4): the paper's ILP (1.12) of the eq. (1.13)
#: instance n = 40, P = 200, seed 1 (``coschedule generate synthetic --n 40 --P 200 --seed 1``)
#: for k = 4 -- 320,000 binaries, 1.6 million nonzeros -- under ``--time-limit 10``; HiGHS's
#: presolve once ran 47-97 s past it and CP-SAT's 5 s
TIME_LIMIT_CASE = {"n": 40, "P": 200, "seed": 1, "k": 4, "limit": 10.0}

#: the child of a time-limit row: import the solver's package (not counted, as solve_kinp does
#: not count it), then run the ``coschedule solve`` command ``argv[1]`` (JSON list, with --json)
#: through the CLI's entry point and print its wall time, status and reported time
_TIME_LIMIT_CHILD = r"""
import contextlib, io, json, sys, time
from coschedule.exact.mip import preload
preload(sys.argv[2])
from coschedule.cli import main
out = io.StringIO()
t0 = time.perf_counter()
with contextlib.redirect_stdout(out):
    code = main(json.loads(sys.argv[1]))
wall = time.perf_counter() - t0
result = json.loads(out.getvalue())["result"] if code == 0 else {}
print(json.dumps({"code": code, "wall": wall, "status": result.get("status"), "reported": result.get("time"),
                  "reached": (result.get("info") or {}).get("time_limit_reached")}))
"""


@dataclass(frozen=True)
class TimeLimitRow:
    """One backend on :data:`TIME_LIMIT_CASE`: the whole ``coschedule solve`` command's wall time
    (its solver's import aside) against the limit plus the margin the toolkit promises."""

    solver: str
    limit: float
    margin: float
    wall: float
    status: str
    reported: float | None
    reached: str | None

    @property
    def met(self) -> bool:
        return self.wall <= self.limit + self.margin

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "met": self.met}


def bench_time_limits(solvers: list[str] | None = None,
                      progress: Callable[[str], None] | None = None) -> list[TimeLimitRow]:
    """:data:`TIME_LIMIT_CASE` with each backend (default: those installed), each in a fresh
    process."""
    import json
    import tempfile
    from pathlib import Path

    from coschedule.bench.common import run_child
    from coschedule.exact.mip import available_backends
    from coschedule.io import save_instance
    from coschedule.timelimit import TIME_LIMIT_MARGIN

    case = TIME_LIMIT_CASE
    rows = []
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-limits-") as tmp:
        path = str(Path(tmp) / "s40.json")
        save_instance(synthetic_instance(case["n"], case["P"], seed=case["seed"]), path)
        for solver in solvers or available_backends():
            if progress:
                progress(f"time limit, {solver} ...")
            argv = ["solve", path, "--k", str(case["k"]), "--method", "ilp", "--solver", solver,
                    "--time-limit", f"{case['limit']:g}", "--json"]
            out, _, _ = run_child(["-c", _TIME_LIMIT_CHILD, json.dumps(argv), solver])
            if out["code"] != 0:
                raise RuntimeError(f"coschedule {' '.join(argv)}: exit {out['code']}")
            rows.append(TimeLimitRow(solver, case["limit"], TIME_LIMIT_MARGIN, out["wall"], out["status"],
                                     out["reported"], out["reached"]))
    return rows
