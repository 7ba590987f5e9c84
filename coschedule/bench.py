"""Benchmarks behind ``coschedule bench`` (a measurement, not a test).

``kinp``: on seeded eq. (1.13) instances (p = 32), the paper's ILP (1.12) with CBC against the
default exact method, each capped by a time limit, for k = 3 and k = n and growing n; and the
2-in-p matching for large n (p = 64). Every row says whether optimality was proved.

``rlist``: time per failure scenario of the resilient rigid heuristics on the synthetic setting
of [Benoit2021] §5.1, compiled (:func:`coschedule.heuristics.fast.makespans`) against the
plain reference implementation, with a check that both give the same makespans.

``campaign``: the wall time of a whole campaign (by default ``campaigns/fig5-tenth.toml``, a tenth
of the paper's Fig. 5) run into a fresh database, against the authors' C++ simulator, which
would need about 13 hours on one core for the 10.5 million simulations of the full Fig. 5
([Benoit2021] §5; the issue's baseline), scaled to the campaign's size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from .generators import synthetic_instance, synthetic_rigid
from .results import ExactResult, Status
from .validate import validate_coschedule

__all__ = [
    "CPP_FIG5_SECONDS",
    "FIG5_SIMULATIONS",
    "KINP_SIZES",
    "MATCHING_SIZES",
    "RLIST_HEURISTICS",
    "RLIST_TARGETS_MS",
    "CampaignBench",
    "KinpRow",
    "MatchingRow",
    "RlistRow",
    "bench_campaign",
    "bench_kinp",
    "bench_matching",
    "bench_rlist",
]

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


# ---------------------------------------------------------------- resilient rigid heuristics

#: the five heuristics that issue 3 (§7, Speed) times
RLIST_HEURISTICS = ("r-list-0", "r-list-1", "r-list-q", "r-shelf-b", "r-shelffill-b")
#: issue 3, §7: targets per scenario on one core (the authors' C++ needs 3.1 and 11.5 ms)
RLIST_TARGETS_MS: dict[str, float] = {"r-list-0": 0.3, "r-list-q": 1.2}


@dataclass(frozen=True)
class RlistRow:
    """One heuristic: milliseconds per scenario, fast path and reference.

    ``fast_ms`` is the CPU time of the calling thread (the kernels use one core) and
    ``fast_wall_ms`` the wall-clock time, which other processes on the machine inflate; each is
    the best of the repeats. ``reference_ms`` is CPU time too. ``compile_s`` is the warm-up call
    on one scenario, excluded from ``fast_ms``: ``compiled`` is True when it JIT-compiled a
    kernel, False when it loaded numba's on-disk cache or found the kernel already compiled by
    an earlier row (then ``compile_s`` is about 0), None without numba. ``identical``: fast and
    reference makespans exactly equal on the ``reference_scenarios`` common scenarios.
    """

    heuristic: str
    n: int
    P: int
    qbar: float
    priority: str
    seed: int
    backend: str
    scenarios: int
    compile_s: float
    compiled: bool | None
    fast_ms: float
    fast_wall_ms: float
    reference_scenarios: int
    reference_ms: float | None
    identical: bool | None
    mean_makespan: float

    @property
    def speedup(self) -> float | None:
        """Reference time / fast time, per scenario."""
        if self.reference_ms is None or self.fast_ms <= 0:
            return None
        return self.reference_ms / self.fast_ms

    @property
    def target_ms(self) -> float | None:
        return RLIST_TARGETS_MS.get(self.heuristic)

    @property
    def meets_target(self) -> bool | None:
        return None if self.target_ms is None else self.fast_ms <= self.target_ms

    def to_dict(self) -> dict:
        return {
            **asdict(self),
            "speedup": self.speedup,
            "target_ms": self.target_ms,
            "meets_target": self.meets_target,
        }


def _timed(fn: Callable[..., np.ndarray], *args: object, **kwargs: object) -> tuple[np.ndarray, float, float]:
    """``(fn(*args, **kwargs), cpu seconds of this thread, wall seconds)``."""
    c0, w0 = time.thread_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.thread_time() - c0, time.perf_counter() - w0


def _compile_misses() -> int:
    """Total numba cache misses (= compilations) of the kernels, -1 without numba."""
    from coschedule.heuristics.fast import jit, list_kernels, shelf_kernels

    if not jit.HAVE_NUMBA:
        return -1
    total = 0
    for kernel in (list_kernels._list_makespans, shelf_kernels._shelf_makespans):
        total += sum(kernel.stats.cache_misses.values())
    return total


def bench_rlist(
    heuristics: Sequence[str] = RLIST_HEURISTICS,
    *,
    n: int = 100,
    P: int = 10000,
    qbar: float = 0.3,
    scenarios: int = 1000,
    reference_scenarios: int = 100,
    priority: str = "LPT",
    seed: int = 0,
    repeat: int = 3,
    progress: Callable[[str], None] | None = None,
) -> Iterator[RlistRow]:
    """Yield one row per heuristic: time per scenario of the fast and the reference path.

    The instance is ``synthetic_rigid(n, P, seed=seed)`` (§5.1: procs U{50..2000}, times
    U[100, 20000]) and the scenarios ``SilentErrors.from_qbar(instance, qbar).sample(instance,
    size=scenarios, seed=seed + 1)``. The fast path is :func:`coschedule.heuristics.fast.makespans` (numba, or
    the reference when numba is missing: see ``backend``), warmed up on one scenario first, then
    timed on all ``scenarios``, best of ``repeat``; the reference (one call of the registry's
    heuristic per scenario) runs once on the first ``reference_scenarios``.
    """
    from coschedule.heuristics.fast import jit, makespans

    from .rigid import SilentErrors

    if scenarios < 1 or repeat < 1 or reference_scenarios < 0:
        raise ValueError("need scenarios >= 1, repeat >= 1 and reference_scenarios >= 0")
    inst = synthetic_rigid(n, P, seed=seed)
    f = SilentErrors.from_qbar(inst, qbar).sample(inst, size=scenarios, seed=seed + 1)
    k = min(reference_scenarios, scenarios)
    for name in heuristics:
        if progress:
            progress(f"{name}: warm-up (compilation) ...")
        misses = _compile_misses()
        _, _, compile_s = _timed(makespans, inst, f[:1], name, priority=priority)
        compiled = None if misses < 0 else _compile_misses() > misses
        if progress:
            progress(f"{name}: {scenarios} scenarios x {repeat} ...")
        best_cpu = best_wall = float("inf")
        for _ in range(repeat):
            fast, cpu, wall = _timed(makespans, inst, f, name, priority=priority)
            best_cpu, best_wall = min(best_cpu, cpu), min(best_wall, wall)
        ref_ms = identical = None
        if k:
            if progress:
                progress(f"{name}: reference on {k} scenarios ...")
            ref, cpu, _ = _timed(makespans, inst, f[:k], name, priority=priority, backend="reference")
            ref_ms = 1000 * cpu / k
            identical = bool(np.array_equal(fast[:k], ref))
        yield RlistRow(
            name, n, P, qbar, priority, seed, "numba" if jit.HAVE_NUMBA else "reference",
            scenarios, compile_s, compiled, 1000 * best_cpu / scenarios,
            1000 * best_wall / scenarios, k, ref_ms, identical, float(np.mean(fast)),
        )


# ------------------------------------------------------------------------------ campaign

#: the baseline: the authors' C++ simulator needs about 13 hours on one core for Fig. 5 ...
CPP_FIG5_SECONDS = 13 * 3600.0
#: ... which is 30 sets x 5 heuristics x 7 priorities x 10 qbar x 1000 scenarios
FIG5_SIMULATIONS = 30 * 5 * 7 * 10 * 1000


@dataclass(frozen=True)
class CampaignBench:
    spec: str
    cells: int
    simulations: int
    workers: int
    seconds: float
    peak_rss_mb: float | None
    worker_peak_rss_mb: float | None

    @property
    def per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")

    @property
    def baseline_seconds(self) -> float:
        """The C++ simulator's time for as many simulations (one core, at the Fig. 5 rate)."""
        return CPP_FIG5_SECONDS * self.simulations / FIG5_SIMULATIONS

    @property
    def speedup(self) -> float:
        """Baseline time over our wall time (same work; ours on ``workers`` cores)."""
        return self.baseline_seconds / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        return {**asdict(self), "per_second": self.per_second, "baseline_seconds": self.baseline_seconds,
                "speedup": self.speedup}


def bench_campaign(spec_path: str, *, workers: int | None = None, db: str | None = None) -> CampaignBench:
    """Run the campaign ``spec_path`` from scratch (into ``db``, or a temporary file that is
    deleted afterwards) and time it. Its numbers are those of ``coschedule simulate``; the
    comparison with the C++ baseline assumes the same cost per simulation as Fig. 5's mix."""
    import os
    import tempfile

    from .campaign import load_spec, run_campaign

    spec = load_spec(spec_path).normalized()
    with tempfile.TemporaryDirectory() as tmp:
        path = db or os.path.join(tmp, "bench.sqlite")
        if db and os.path.exists(db):
            raise ValueError(f"{db} exists: the benchmark needs a fresh database")
        summary = run_campaign(spec, path, workers=workers)
    return CampaignBench(spec_path, summary.cells, summary.computed * spec.scenarios, summary.workers,
                         summary.seconds, summary.peak_rss_mb, summary.worker_peak_rss_mb)
