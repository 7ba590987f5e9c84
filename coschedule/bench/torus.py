"""``coschedule bench torus``: the torus's partition finders, measured against each other in one
run ([Oliner2004] Appendix; :mod:`coschedule.torus.finder`).

Cases (:data:`TORUS_CASES`, a function each; ``--cases`` picks some), on random occupancies with
exactly half the nodes occupied unless said otherwise (:func:`coschedule.torus.random_occupancy`,
seed 0):

* ``free-8``, ``free-64``, ``free-512``: every free partition of ``s`` nodes on a 16×16×16 torus,
  by the fast finder, the appendix as printed (``appendix``: every node of every box counted) and
  the appendix with an early stop (``appendix-early``: not the paper's, measured so that the fast
  finder is also compared with a fair version of it). The three lists are checked identical
  before anything is printed; the ratios are each method's time over the fast one's, both in
  this run;
* ``free-8-10``, ``free-64-10``: the same at 10 % occupancy, where there are free partitions of 64
  nodes (at 50 % there is none: the MFP of such a torus has about a dozen nodes, so ``free-64``
  and ``free-512`` measure how fast each method proves that there is none);
* ``mfp-bgl``: the MFP of the full BlueGene/L node torus, 32×32×64 (65,536 nodes), fast only;
  ``mfp-bgl-10`` and ``mfp-bgl-1`` at 10 % and 1 % occupancy (larger MFPs, fewer pairs cut off);
* ``mfp-16``: the MFP of 16×16×16 by the fast finder and ``appendix-early``. The appendix as
  printed is not measured there by default (:func:`appendix_mfp_checks` counts the node checks
  it would make: about 6.4e9 at seed 0); ``mfp-16-appendix`` measures it (long: not in
  :data:`DEFAULT_CASES`);
* ``mfp-8``: the MFP of 8×8×8 by the three, so that the appendix as printed is measured on an MFP
  query at all.

The fast finder's time is the least of ``repeat`` runs; the others run once. Times are wall
seconds (``time.perf_counter``) of one thread. The MFPs of different methods may be different
boxes of the same size (ties): they agree when their sizes are equal.

* ``sim-nasa``: one whole simulation of the shipped NASA iPSC/860 log (18,066 jobs kept of
  the archive's 18,239 lines: the cleaned log's jobs with a run time and a size) on the 4×4×8
  torus with 4,000 clustered failures (seed 0) and Balancing at confidence 0.5: the CPU seconds
  of :func:`~coschedule.heuristics.torus.run.run_torus` in this process (one thread, the partition table
  built afresh), against the issue's target of 30 s on one core; ``sim-nasa-fcfs`` the same
  with FCFS, for context. Each run is checked by the validator (not timed) before its row is
  made;
* ``sim-nasa-command``: the same run as a user types it, ``coschedule torus simulate
  NASA-iPSC-1993-3.1-cln --policy balancing --confidence 0.5 --failure-count 4000 --seed 0 -o
  jobs.csv``, in a fresh process (:func:`coschedule.bench.common.measure_command`): the whole
  command's CPU beside that of the ``run_torus`` it calls.

A case is a function ``(repeat, progress) -> row``; the CLI prints rows by their ``kind``.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from coschedule.bench.common import NOT_MEASURED, CommandRow, measure_command
from coschedule.torus import (
    Dims,
    box_shapes,
    box_sizes,
    free_partitions,
    max_free_partition,
    random_occupancy,
)

__all__ = [
    "DEFAULT_CASES",
    "SIM_TARGET",
    "TORUS_CASES",
    "FinderRow",
    "SimRow",
    "appendix_mfp_checks",
    "bench_free",
    "bench_mfp",
    "bench_simulation",
    "bench_torus",
]

#: the finders whose time is the least of ``repeat`` runs (the others run once: they are slow)
REPEATED = ("fast",)
#: the occupied fraction and the seed of every case's random occupancy
FRACTION, SEED = 0.5, 0

Progress = Callable[[str], None] | None


@dataclass(frozen=True)
class FinderRow:
    """One case of the finders (module docstring). ``seconds[m]`` is ``None`` when method ``m``
    was not measured, ``notes[m]`` then says why."""

    case: str
    kind: str  # "free" (free partitions of a size) or "mfp"
    dims: Dims
    fraction: float
    seed: int
    size: int | None  # the size asked (kind "free")
    result: int  # free partitions found, or the MFP's size
    seconds: dict[str, float | None]
    runs: dict[str, int]
    agree: bool  # every measured method gave the same list (free) or the same size (mfp)
    shapes: int = 0  # box shapes of the size asked (kind "free")
    notes: dict[str, str] = field(default_factory=dict)

    def ratio(self, method: str) -> float | None:
        """``method``'s time over the fast finder's, both measured in this run."""
        t, fast = self.seconds.get(method), self.seconds.get("fast")
        return None if t is None or not fast else t / fast

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case, "kind": self.kind, "dims": list(self.dims),
                "fraction": self.fraction, "seed": self.seed, "size": self.size,
                "shapes": self.shapes, "result": self.result,
                "seconds": self.seconds, "runs": self.runs, "agree": self.agree,
                "ratios": {m: self.ratio(m) for m in self.seconds if m != "fast"},
                "notes": {m: f"{NOT_MEASURED}: {why}" for m, why in self.notes.items()}}


def _timed(fn: Callable[[], Any], runs: int) -> tuple[Any, float]:
    """The result of ``fn`` and the least wall time of ``runs`` calls."""
    best, out = math.inf, None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def _measure(query: Callable[[str], Any], methods: Sequence[str], repeat: int, case: str,
             progress: Progress) -> tuple[dict[str, Any], dict[str, float | None], dict[str, int]]:
    results: dict[str, Any] = {}
    seconds: dict[str, float | None] = {}
    runs: dict[str, int] = {}
    for m in methods:
        n = repeat if m in REPEATED else 1
        if progress:
            progress(f"{case}: {m} ...")
        results[m], seconds[m] = _timed(functools.partial(query, m), n)
        runs[m] = n
    return results, seconds, runs


def bench_free(case: str, dims: Sequence[int], size: int, *, fraction: float = FRACTION,
               seed: int = SEED, methods: Sequence[str] = ("fast", "appendix", "appendix-early"),
               repeat: int = 5, progress: Progress = None) -> FinderRow:
    """Every free partition of ``size`` nodes by each of ``methods`` on one random occupancy."""
    occ = random_occupancy(dims, fraction, seed=seed)
    results, seconds, runs = _measure(lambda m: free_partitions(occ, size, method=m), methods,
                                      repeat, case, progress)
    first = results[methods[0]]
    return FinderRow(case, "free", occ.shape, fraction, seed, size, len(first), seconds, runs,
                     all(r == first for r in results.values()),
                     shapes=len(box_shapes(size, occ.shape)))


def appendix_mfp_checks(occ: np.ndarray, mfp_size: int) -> int:
    """The node checks of the appendix as printed on an MFP query whose answer has ``mfp_size``
    nodes: every base of every shape of every size from the number of free nodes down to it,
    each box's nodes all counted."""
    dims: Dims = occ.shape  # type: ignore[assignment]
    n_free = occ.size - int(np.count_nonzero(occ))
    total = 0
    for s in box_sizes(dims).tolist():
        if mfp_size <= s <= n_free:
            total += s * sum(math.prod(1 if x == d else d for x, d in zip(shape, dims))
                             for shape in box_shapes(s, dims))
    return total


def bench_mfp(case: str, dims: Sequence[int], *, fraction: float = FRACTION, seed: int = SEED,
              methods: Sequence[str] = ("fast",), skip: Sequence[str] = (), skip_hint: str = "",
              repeat: int = 5, progress: Progress = None) -> FinderRow:
    """The MFP by each of ``methods`` on one random occupancy; ``skip``: methods reported as not
    measured (the appendix as printed: with the node checks it would make), ``skip_hint`` added
    to why."""
    occ = random_occupancy(dims, fraction, seed=seed)
    results, seconds, runs = _measure(lambda m: max_free_partition(occ, method=m), methods,
                                      repeat, case, progress)
    size = results[methods[0]].size
    notes: dict[str, str] = {}
    for m in skip:
        seconds[m] = None
        why = (f"{appendix_mfp_checks(occ, size):.3g} node checks" if m == "appendix"
               else "too slow here")
        notes[m] = f"{why}; {skip_hint}" if skip_hint else why
    return FinderRow(case, "mfp", occ.shape, fraction, seed, None, size, seconds, runs,
                     len({r.size for r in results.values()}) == 1, notes=notes)


def _free_case(size: int, percent: int = 50) -> Callable[[int, Progress], FinderRow]:
    name = f"free-{size}" + ("" if percent == 50 else f"-{percent}")

    def case(repeat: int, progress: Progress) -> FinderRow:
        return bench_free(name, (16, 16, 16), size, fraction=percent / 100, repeat=repeat,
                          progress=progress)

    return case


def _mfp_bgl_case(percent: int = 50) -> Callable[[int, Progress], FinderRow]:
    name = "mfp-bgl" + ("" if percent == 50 else f"-{percent}")

    def case(repeat: int, progress: Progress) -> FinderRow:
        return bench_mfp(name, (32, 32, 64), fraction=percent / 100, repeat=repeat,
                         progress=progress)

    return case


def _mfp_16(repeat: int, progress: Progress) -> FinderRow:
    return bench_mfp("mfp-16", (16, 16, 16), methods=("fast", "appendix-early"),
                     skip=("appendix",), skip_hint="--cases mfp-16-appendix measures it",
                     repeat=repeat, progress=progress)


def _mfp_16_appendix(repeat: int, progress: Progress) -> FinderRow:
    return bench_mfp("mfp-16-appendix", (16, 16, 16),
                     methods=("fast", "appendix-early", "appendix"), repeat=repeat,
                     progress=progress)


def _mfp_8(repeat: int, progress: Progress) -> FinderRow:
    return bench_mfp("mfp-8", (8, 8, 8), methods=("fast", "appendix", "appendix-early"),
                     repeat=repeat, progress=progress)


#: the target of one whole NASA simulation with Balancing (issue: under 30 s on one core)
SIM_TARGET = 30.0


@dataclass(frozen=True)
class SimRow:
    """One whole torus simulation (module docstring): CPU and wall seconds, least of ``runs``."""

    case: str
    kind: str  # "sim"
    workload: str
    jobs: int
    failures: int
    policy: str
    cpu: float
    wall: float
    runs: int
    agree: bool  # the run passed the validator
    mean_bsld: float
    target: float = SIM_TARGET

    def ratio(self) -> float:
        """CPU seconds over the target."""
        return self.cpu / self.target

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case, "kind": self.kind, "workload": self.workload, "jobs": self.jobs,
                "failures": self.failures, "policy": self.policy, "cpu_seconds": self.cpu,
                "wall_seconds": self.wall, "runs": self.runs, "validated": self.agree,
                "mean_bounded_slowdown": self.mean_bsld, "target_seconds": self.target,
                "ratio_to_target": self.ratio()}


def bench_simulation(case: str, policy: str, *, repeat: int = 1, progress: Progress = None, jobs: Any = None,
                     failure_count: int = 4000, **options: Any) -> SimRow:
    """One whole simulation of the NASA log (module docstring), the least CPU of ``repeat``;
    ``jobs`` (a :class:`~coschedule.torus.workload.TorusJobs`) replaces the log."""
    from coschedule.data import bundled_trace
    from coschedule.heuristics.torus.run import run_torus
    from coschedule.sim.workload import workload_from_swf
    from coschedule.swf import read_swf
    from coschedule.torus.index import make_index
    from coschedule.torus.metrics import torus_metrics
    from coschedule.torus.validate import validate_torus_run
    from coschedule.torus.workload import torus_workload

    if jobs is None:
        jobs = torus_workload(workload_from_swf(read_swf(bundled_trace("NASA-iPSC-1993-3.1-cln"))), (4, 4, 8))
    best_cpu, best_wall, run = math.inf, math.inf, None
    for k in range(repeat):
        if progress:
            progress(f"{case}: run {k + 1} of {repeat} ...")
        make_index.cache_clear()
        c0, w0 = time.process_time(), time.perf_counter()
        run = run_torus(jobs, policy, failure_count=failure_count, seed=0, **options)
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    assert run is not None
    validate_torus_run(run)
    return SimRow(case, "sim", jobs.workload.name, jobs.n, len(run.trace), policy, best_cpu, best_wall, repeat, True,
                  torus_metrics(run).mean_bsld)


def _sim_nasa(repeat: int, progress: Progress) -> SimRow:
    return bench_simulation("sim-nasa", "balancing", confidence=0.5, repeat=1, progress=progress)


def _sim_nasa_fcfs(repeat: int, progress: Progress) -> SimRow:
    return bench_simulation("sim-nasa-fcfs", "fcfs", repeat=1, progress=progress)


def _sim_nasa_command(repeat: int, progress: Progress) -> CommandRow:
    """``sim-nasa``'s run as a user types it: ``coschedule torus simulate`` on the NASA log,
    validation and ``jobs.csv`` included, beside the simulation it calls."""
    import tempfile

    if progress:
        progress("sim-nasa-command ...")
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-torus-") as tmp:
        argv = ["torus", "simulate", "NASA-iPSC-1993-3.1-cln", "--policy", "balancing", "--confidence", "0.5",
                "--failure-count", "4000", "--seed", str(SEED), "-o", f"{tmp}/jobs.csv"]
        return measure_command("sim-nasa-command", argv, "coschedule.heuristics.torus.run:run_torus", repeat=1)


#: case name -> ``(repeat, progress) -> row``, in the order they run
TORUS_CASES: dict[str, Callable[[int, Progress], FinderRow | SimRow | CommandRow]] = {
    "free-8": _free_case(8),
    "free-64": _free_case(64),
    "free-512": _free_case(512),
    "free-8-10": _free_case(8, 10),
    "free-64-10": _free_case(64, 10),
    "mfp-bgl": _mfp_bgl_case(),
    "mfp-bgl-10": _mfp_bgl_case(10),
    "mfp-bgl-1": _mfp_bgl_case(1),
    "mfp-16": _mfp_16,
    "mfp-8": _mfp_8,
    "mfp-16-appendix": _mfp_16_appendix,
    "sim-nasa": _sim_nasa,
    "sim-nasa-fcfs": _sim_nasa_fcfs,
    "sim-nasa-command": _sim_nasa_command,
}
#: the cases run when none is named (``mfp-16-appendix`` takes about a quarter of an hour)
DEFAULT_CASES = tuple(c for c in TORUS_CASES if c != "mfp-16-appendix")


def bench_torus(cases: Sequence[str] = DEFAULT_CASES, *, repeat: int = 5,
                progress: Progress = None) -> list[FinderRow | SimRow | CommandRow]:
    """Run ``cases`` (names of :data:`TORUS_CASES`) in order."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    unknown = [c for c in cases if c not in TORUS_CASES]
    if unknown:
        from coschedule.errors import unknown_name

        raise unknown_name("torus benchmark case", unknown[0], list(TORUS_CASES))
    return [TORUS_CASES[c](repeat, progress) for c in cases]

