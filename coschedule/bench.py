"""Benchmarks behind ``coschedule bench`` (a measurement, not a test).

``kinp``: on seeded eq. (1.13) instances (p = 32), the paper's ILP (1.12) with CBC against the
default exact method, each capped by a time limit, for k = 3 and k = n and growing n; and the
2-in-p matching for large n (p = 64). Every row says whether optimality was proved.

``rlist``: time per failure scenario of the seven resilient rigid heuristics of §5.1
(:data:`RLIST_HEURISTICS`) on the synthetic setting of [Benoit2021] §5.1, compiled
(:func:`coschedule.heuristics.fast.makespans`) against the plain reference implementation, with a
check that both give the same makespans; and, given the path of the authors' simulator (or any
program with its interface, :mod:`coschedule.baseline`), that program on the same scenarios.

``campaign``: the wall time of a whole campaign (by default ``campaigns/fig5-tenth.toml``, a tenth
of the paper's Fig. 5) run into a fresh database; given the authors' simulator, that simulator on
the campaign's cells it can run, timed and checked against our makespans.

``batch``: the batch simulator's time and memory (a Mira-like month with failures, LANL-CM5 and
KTH-SP2), and AccaSim side by side on KTH-SP2, lives in :mod:`coschedule.bench_batch` (this module
would pass 600 lines with it).

Every number these benchmarks print is measured by them; a comparison they cannot make is
printed as "not measured", never estimated.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .generators import synthetic_instance, synthetic_rigid
from .results import ExactResult, Status
from .validate import validate_coschedule

__all__ = [
    "KINP_SIZES",
    "MATCHING_SIZES",
    "NOT_MEASURED",
    "RLIST_HEURISTICS",
    "CampaignBaseline",
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

#: the seven heuristics of §5.1 (Fig. 4 compares the four shelf variants, Fig. 5 the three list
#: variants and the two R-ShelfFill variants), in the paper's order
RLIST_HEURISTICS = ("r-list-0", "r-list-1", "r-list-q", "r-shelf-b", "r-shelf-nb", "r-shelffill-b",
                    "r-shelffill-nb")
#: what a benchmark prints for a comparison it did not make
NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class RlistRow:
    """One heuristic: milliseconds per scenario, fast path and reference (and the baseline).

    ``fast_ms`` is the CPU time of the calling thread (the kernels use one core) and
    ``fast_wall_ms`` the wall-clock time, which other processes on the machine inflate; each is
    the best of the repeats. ``reference_ms`` is CPU time too. ``compile_s`` is the warm-up call
    on one scenario, excluded from ``fast_ms``: ``compiled`` is True when it JIT-compiled a
    kernel, False when it loaded numba's on-disk cache or found the kernel already compiled by
    an earlier row (then ``compile_s`` is about 0), None without numba. ``identical``: fast and
    reference makespans exactly equal on the ``reference_scenarios`` common scenarios.

    ``baseline`` says what was done with the baseline binary: ``"measured"``, or
    ``"not measured"`` (no binary given) or why it could not run this heuristic. When measured,
    ``baseline_ms`` and ``baseline_wall_ms`` are the binary's CPU and wall time per scenario
    over its whole run on all ``scenarios`` (start-up and reading its files included), and
    ``baseline_agree`` the scenarios whose makespans agree with ours (within
    :data:`coschedule.baseline.MAKESPAN_RTOL`; ``None`` for RANDOM, whose order the binary draws
    from the clock).
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
    baseline: str = NOT_MEASURED
    baseline_ms: float | None = None
    baseline_wall_ms: float | None = None
    baseline_agree: int | None = None

    @property
    def speedup(self) -> float | None:
        """Reference time / fast time, per scenario."""
        if self.reference_ms is None or self.fast_ms <= 0:
            return None
        return self.reference_ms / self.fast_ms

    @property
    def baseline_ratio(self) -> float | None:
        """Baseline CPU time / fast CPU time, per scenario (``None`` unless measured)."""
        if self.baseline_ms is None or self.fast_ms <= 0:
            return None
        return self.baseline_ms / self.fast_ms

    def to_dict(self) -> dict:
        return {**asdict(self), "speedup": self.speedup, "baseline_ratio": self.baseline_ratio}


def _timed(fn: Callable[..., np.ndarray], *args: object, **kwargs: object) -> tuple[np.ndarray, float, float]:
    """``(fn(*args, **kwargs), cpu seconds of this thread, wall seconds)``."""
    c0, w0 = time.thread_time(), time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.thread_time() - c0, time.perf_counter() - w0


def _compile_misses() -> int:
    """Total numba cache misses (= compilations) of the kernels, -1 without numba."""
    from coschedule import jit
    from coschedule.heuristics.fast import list_kernels, shelf_kernels

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
    baseline: str | None = None,
) -> Iterator[RlistRow]:
    """Yield one row per heuristic: time per scenario of the fast and the reference path, and of
    the ``baseline`` binary (:mod:`coschedule.baseline`) when its path is given.

    The instance is ``synthetic_rigid(n, P, seed=seed)`` (§5.1: procs U{50..2000}, times
    U[100, 20000]) and the scenarios ``SilentErrors.from_qbar(instance, qbar).sample(instance,
    size=scenarios, seed=seed + 1)``. The fast path is :func:`coschedule.heuristics.fast.makespans` (numba, or
    the reference when numba is missing: see ``backend``), warmed up on one scenario first, then
    timed on all ``scenarios``, best of ``repeat``; the reference (one call of the registry's
    heuristic per scenario) runs once on the first ``reference_scenarios``; the baseline runs
    once on all ``scenarios``, for the heuristics its interface offers.
    """
    from coschedule import jit
    from coschedule.heuristics.fast import makespans

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
        extra: dict[str, Any] = {}
        if baseline is not None:
            extra = _rlist_baseline(baseline, inst, f, name, priority, fast, progress)
        yield RlistRow(
            name, n, P, qbar, priority, seed, "numba" if jit.HAVE_NUMBA else "reference",
            scenarios, compile_s, compiled, 1000 * best_cpu / scenarios,
            1000 * best_wall / scenarios, k, ref_ms, identical, float(np.mean(fast)), **extra,
        )


def _rlist_baseline(binary: str, inst: Any, f: np.ndarray, name: str, priority: str, fast: np.ndarray,
                    progress: Callable[[str], None] | None) -> dict[str, Any]:
    from .baseline import compare_makespans, run_baseline, supported

    why = supported(name, priority)
    if why is not None:
        return {"baseline": f"{NOT_MEASURED}: {why}"}
    if progress:
        progress(f"{name}: baseline binary on {len(f)} scenarios ...")
    run = run_baseline(binary, inst, f, name, priority)
    agree = None if priority.upper() == "RANDOM" else compare_makespans(fast, run.makespans)
    return {"baseline": "measured", "baseline_ms": run.cpu_ms_per_scenario,
            "baseline_wall_ms": run.wall_ms_per_scenario, "baseline_agree": agree}


# ------------------------------------------------------------------------------ campaign

@dataclass(frozen=True)
class CampaignBaseline:
    """The baseline binary on the cells of a campaign it can run (:mod:`coschedule.baseline`):
    ``cells`` of them, ``scenarios`` simulations, its CPU and wall seconds (one process per
    cell, run one after the other), our compute seconds for the same cells (the ``seconds``
    column: the cell's scenarios sampled, simulated and bounded, on one core), and the cells
    whose mean makespan agrees with ours (``compared`` of them: RANDOM is timed, not compared)."""

    binary: str
    cells: int
    scenarios: int
    cpu_s: float
    wall_s: float
    ours_s: float
    compared: int
    agree: int
    skipped: str

    @property
    def ratio(self) -> float | None:
        """Baseline CPU seconds / our compute seconds on the same cells."""
        return self.cpu_s / self.ours_s if self.ours_s > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}


@dataclass(frozen=True)
class CampaignBench:
    """A campaign run from scratch: wall time, rate, memory, our compute seconds summed over the
    cells, and the baseline (``None``: not measured)."""

    spec: str
    cells: int
    simulations: int
    workers: int
    seconds: float
    compute_seconds: float
    peak_rss_mb: float | None
    worker_peak_rss_mb: float | None
    baseline: CampaignBaseline | None = None

    @property
    def per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k != "baseline"}
        return {**d, "per_second": self.per_second,
                "baseline": self.baseline.to_dict() if self.baseline else NOT_MEASURED}


def bench_campaign(spec_path: str, *, workers: int | None = None, db: str | None = None,
                   baseline: str | None = None, progress: bool = False) -> CampaignBench:
    """Run the campaign ``spec_path`` from scratch (into ``db``, or a temporary file that is
    deleted afterwards, also on SIGTERM when the CLI runs it) and time it. Its numbers are those
    of ``coschedule simulate``. With ``baseline`` (the path of the authors' simulator or a
    program with its interface), that program then runs every cell it can (R-List-0 and R-Shelf
    in the stored version of ``main.cpp``) on the same scenarios, and the row says how long it
    took and whether its mean makespans agree with ours."""
    import os
    import tempfile

    from .campaign import ResultStore, load_spec, run_campaign

    spec = load_spec(spec_path).normalized()
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-") as tmp:
        path = db or os.path.join(tmp, "bench.sqlite")
        if db and os.path.exists(db):
            raise ValueError(f"{db} exists: the benchmark needs a fresh database")
        summary = run_campaign(spec, path, workers=workers, progress=progress)
        with ResultStore.open(path) as store:
            rows = {r["id"]: r for r in store.rows()}
        base = _campaign_baseline(baseline, spec, rows) if baseline else None
    compute = float(sum(r["seconds"] for r in rows.values()))
    return CampaignBench(spec_path, summary.cells, summary.computed * spec.scenarios, summary.workers,
                         summary.seconds, compute, summary.peak_rss_mb, summary.worker_peak_rss_mb, base)


def _campaign_baseline(binary: str, spec: Any, rows: dict[str, dict[str, Any]]) -> CampaignBaseline:
    from .baseline import MAKESPAN_RTOL, run_baseline, supported
    from .campaign.run import cell_inputs

    cells = sims = compared = agree = 0
    cpu = wall = ours = 0.0
    skipped: set[str] = set()
    for cell in spec.cells():
        why = supported(cell.heuristic, cell.priority)
        if why is not None:
            skipped.add(cell.heuristic if cell.heuristic not in ("r-list-0", "r-shelf-b", "r-shelf-nb")
                        else cell.priority)
            continue
        inst, failures, _ = cell_inputs(cell)
        run = run_baseline(binary, inst, failures, cell.heuristic, cell.priority)
        row = rows[cell.id]
        cells += 1
        sims += run.scenarios
        cpu += run.cpu_s
        wall += run.wall_s
        ours += row["seconds"]
        if cell.priority != "RANDOM":
            compared += 1
            agree += bool(np.isclose(np.mean(run.makespans), row["mean_makespan"], rtol=MAKESPAN_RTOL, atol=0))
    return CampaignBaseline(binary, cells, sims, cpu, wall, ours, compared, agree,
                            ", ".join(sorted(skipped)))
