"""Compile the toolkit's numba kernels once, into numba's on-disk cache
(:data:`coschedule.jit.CACHE_DIR`), so that no later run waits for a compile: ``coschedule warmup``.

numba compiles a kernel for the types of its arguments, not their values, so a tiny run of each
family compiles what a month of Mira would: each entry of :data:`KERNELS` runs one (the batch
kernel once per policy family, :func:`coschedule.heuristics.batch.kernel._families`; the rigid
heuristics' two kernels; the redistribution heuristics, every pair, with failures). A family whose
kernels are in the cache costs a fraction of a second; its first compile 5-15 s of CPU
(docs/benchmarks.md, "The first run"). The torus simulator has no compiled kernel.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from coschedule import jit
from coschedule.errors import unknown_name

__all__ = ["KERNELS", "Warmed", "warm_up"]


@dataclass(frozen=True)
class Warmed:
    """One family of :data:`KERNELS`: the kernels numba compiled for it (none: they loaded from
    the cache) and the CPU seconds it took."""

    family: str
    compiled: tuple[str, ...]
    cpu_s: float


def _batch(policy: str, reservations: str) -> Callable[[], None]:
    def run() -> None:
        from coschedule.heuristics.batch.run import run_batch
        from coschedule.sim.failures import FailureTrace
        from coschedule.sim.workload import Workload

        workload = Workload(("a", "b", "c", "d"), np.array([0.0, 0.0, 1.0, 2.0]), np.array([2, 1, 3, 1]),
                            np.array([10.0, 8.0, 6.0, 9.0]), np.array([5.0, 4.0, 3.0, 6.0]), 4, name="warmup")
        failures = FailureTrace(np.array([1.5, 3.0]), np.array([0, 2]), 4)
        run_batch(workload, policy, failures=failures, downtime=2.0, checkpoint_cost=0.5, node_mtbf=100.0,
                  reservations=reservations, backend="kernel")

    return run


def _rigid() -> None:
    from coschedule.heuristics.fast import KERNEL_HEURISTICS, makespans
    from coschedule.rigid import rigid_instance

    instance = rigid_instance([(1, 2.0), (2, 1.0), (1, 3.0), (3, 1.5)], 4)
    for heuristic in KERNEL_HEURISTICS:
        makespans(instance, np.array([[0, 1, 0, 2], [1, 0, 2, 0]]), heuristic, backend="numba")


def _redistribution() -> None:
    from coschedule.heuristics.redistribution import run_pack
    from coschedule.redistribution.model import YEAR, MalleablePack, Resilience
    from coschedule.redistribution.options import AT_END, AT_FAILURE

    pack = MalleablePack.synthetic(6, 24, seed=1)
    res = Resilience(node_mtbf=0.5 * YEAR)  # a few hundred failures: every kernel runs
    for at_end in AT_END:
        for at_failure in AT_FAILURE:
            run_pack(pack, res, at_end=at_end, at_failure=at_failure, seed=1)


#: family -> a tiny run that compiles its kernels (in the order ``coschedule warmup`` runs them)
KERNELS: dict[str, Callable[[], None]] = {
    "batch-easy": _batch("easy", "count"),  # FCFS and EASY share it
    "batch-conservative-count": _batch("conservative", "count"),
    "batch-conservative-nodes": _batch("conservative", "nodes"),
    "batch-stealing-count": _batch("sfsj", "count"),
    "batch-stealing-nodes": _batch("sfsj", "nodes"),
    "rigid": _rigid,
    "redistribution": _redistribution,
}


def warm_up(families: Iterable[str] | None = None,
            progress: Callable[[str], None] | None = None) -> list[Warmed]:
    """Run each family of :data:`KERNELS` (default: all) once; what numba compiled for each and
    its CPU time. ``progress(family)`` is called before each. Without numba nothing compiles (the
    runs take the reference paths)."""
    names = list(KERNELS) if families is None else list(families)
    for name in names:
        if name not in KERNELS:
            raise unknown_name("kernel family", name, KERNELS)
    out = []
    for name in names:
        if progress is not None:
            progress(name)
        start = time.process_time()
        with jit.compiled() as compiled:
            KERNELS[name]()
        out.append(Warmed(name, tuple(compiled), time.process_time() - start))
    return out
