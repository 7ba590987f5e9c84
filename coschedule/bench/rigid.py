"""``coschedule bench rlist``: time per failure scenario of the seven resilient rigid heuristics of
[Benoit2021] §5.1 (:data:`RLIST_HEURISTICS`) on the synthetic setting of §5.1, compiled
(:func:`coschedule.heuristics.fast.makespans`) against the plain reference implementation, with a
check that both give the same makespans; and, given the path of the authors' simulator (or any
program with its interface, :mod:`.baseline`), that program on the same scenarios."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from coschedule.bench.common import NOT_MEASURED
from coschedule.generators import synthetic_rigid

__all__ = ["RLIST_HEURISTICS", "RlistRow", "bench_rlist"]


#: the seven heuristics of §5.1 (Fig. 4 compares the four shelf variants, Fig. 5 the three list
#: variants and the two R-ShelfFill variants), in the paper's order
RLIST_HEURISTICS = ("r-list-0", "r-list-1", "r-list-q", "r-shelf-b", "r-shelf-nb", "r-shelffill-b",
                    "r-shelffill-nb")


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
    :data:`coschedule.bench.baseline.MAKESPAN_RTOL`; ``None`` for RANDOM, whose order the binary draws
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
    reserves: str = "zero",
) -> Iterator[RlistRow]:
    """Yield one row per heuristic: time per scenario of the fast and the reference path, and of
    the ``baseline`` binary (:mod:`coschedule.bench.baseline`) when its path is given.

    The instance is ``synthetic_rigid(n, P, seed=seed)`` (§5.1: procs U{50..2000}, times
    U[100, 20000]) and the scenarios ``SilentErrors.from_qbar(instance, qbar).sample(instance,
    size=scenarios, seed=seed + 1)``. The fast path is :func:`coschedule.heuristics.fast.makespans` (numba, or
    the reference when numba is missing: see ``backend``), warmed up on one scenario first, then
    timed on all ``scenarios``, best of ``repeat``; the reference (one call of the registry's
    heuristic per scenario) runs once on the first ``reference_scenarios``; the baseline runs
    once on all ``scenarios``, for the heuristics its interface offers (its ``main`` passing
    ``m = reserves``: :data:`coschedule.bench.baseline.RESERVES`).
    """
    from coschedule import jit
    from coschedule.heuristics.fast import makespans
    from coschedule.rigid import SilentErrors

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
            extra = _rlist_baseline(baseline, inst, f, name, priority, fast, progress, reserves)
        yield RlistRow(
            name, n, P, qbar, priority, seed, "numba" if jit.HAVE_NUMBA else "reference",
            scenarios, compile_s, compiled, 1000 * best_cpu / scenarios,
            1000 * best_wall / scenarios, k, ref_ms, identical, float(np.mean(fast)), **extra,
        )


def _rlist_baseline(binary: str, inst: Any, f: np.ndarray, name: str, priority: str, fast: np.ndarray,
                    progress: Callable[[str], None] | None, reserves: str = "zero") -> dict[str, Any]:
    from coschedule.bench.baseline import compare_makespans, run_baseline, supported

    why = supported(name, priority, reserves)
    if why is not None:
        return {"baseline": f"{NOT_MEASURED}: {why}"}
    if progress:
        progress(f"{name}: baseline binary on {len(f)} scenarios ...")
    run = run_baseline(binary, inst, f, name, priority, reserves=reserves)
    agree = None if priority.upper() == "RANDOM" else compare_makespans(fast, run.makespans)
    return {"baseline": "measured", "baseline_ms": run.cpu_ms_per_scenario,
            "baseline_wall_ms": run.wall_ms_per_scenario, "baseline_agree": agree}
