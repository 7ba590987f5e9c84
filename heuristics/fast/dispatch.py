"""The front end of the fast kernels: :func:`makespans` checks its arguments and dispatches each
heuristic to its compiled kernel or to the reference implementation (:data:`BACKENDS`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from coschedule import jit
from coschedule.errors import InvalidInstance, SolverUnavailable, unknown_name
from coschedule.rigid import FailureScenario, RigidInstance
from coschedule.rng import Seed

from ..priorities import PriorityRule, priority_order
from ..rlist import TIME_REL, time_tolerance
from ..rshelf import RIGID_HEURISTICS
from .list_kernels import _list_makespans
from .shelf_kernels import _shelf_makespans


class _Variant(NamedTuple):
    family: str  # "list" or "shelf"
    m: int = 0  # R-List: reservations per round, -1 for |Q|
    backfill: bool = False  # shelves: b = 1 (First-Fit) or b = 0 (Next-Fit)
    fill: bool = False  # shelves: R-ShelfFill
    refill: int = 0  # R-ShelfFill: the index of rshelf.REFILLS ("own", "failed", "queue")


_VARIANTS: dict[str, _Variant] = {
    "r-list-0": _Variant("list", 0),
    "r-list-1": _Variant("list", 1),
    "r-list-q": _Variant("list", -1),
    "r-shelf-b": _Variant("shelf", backfill=True),
    "r-shelf-nb": _Variant("shelf", backfill=False),
    "r-shelffill-b": _Variant("shelf", backfill=True, fill=True),
    "r-shelffill-nb": _Variant("shelf", backfill=False, fill=True),
    "r-shelffill-b-failed": _Variant("shelf", backfill=True, fill=True, refill=1),
    "r-shelffill-nb-failed": _Variant("shelf", backfill=False, fill=True, refill=1),
    "r-shelffill-b-queue": _Variant("shelf", backfill=True, fill=True, refill=2),
    "r-shelffill-nb-queue": _Variant("shelf", backfill=False, fill=True, refill=2),
}

#: the heuristics with a compiled kernel: the seven §5.1 variants of ``RIGID_HEURISTICS`` and
#: R-ShelfFill's ``refill`` readings
KERNEL_HEURISTICS: tuple[str, ...] = tuple(_VARIANTS)
#: the heuristics :func:`makespans` knows: every name of ``RIGID_HEURISTICS``; those without a
#: kernel (``r-list-1-kept``, ``r-list-q-kept``) always run the reference implementation
FAST_HEURISTICS: tuple[str, ...] = tuple(RIGID_HEURISTICS)


def _check_scenarios(instance: RigidInstance, scenarios: np.ndarray) -> np.ndarray:
    """``scenarios`` as a C-contiguous int64 array of shape ``(S, n)``."""
    arr = np.asarray(scenarios)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != instance.n:
        raise InvalidInstance(
            f"scenarios must have shape (S, {instance.n}) for {instance.n} jobs, "
            f"got {np.shape(scenarios)}"
        )
    if arr.size and (arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer)):
        raise InvalidInstance(f"scenarios: failure counts must be integers, got dtype {arr.dtype}")
    out = np.ascontiguousarray(arr, dtype=np.int64)
    if out.size and out.min() < 0:
        s, j = np.argwhere(out < 0)[0]
        raise InvalidInstance(f"scenario {s}: failures of job {j} must be >= 0, got {out[s, j]}")
    return out


def _variant(heuristic: str) -> _Variant:
    try:
        return _VARIANTS[heuristic.lower()]
    except (KeyError, AttributeError):
        raise unknown_name("rigid heuristic", str(heuristic), KERNEL_HEURISTICS) from None


def _known(heuristic: str) -> str:
    """The canonical (lower-case) name of a heuristic of ``RIGID_HEURISTICS``."""
    name = heuristic.lower() if isinstance(heuristic, str) else None
    if name not in RIGID_HEURISTICS:
        raise unknown_name("rigid heuristic", str(heuristic), FAST_HEURISTICS)
    return name


def _fixed_rule(rank: np.ndarray) -> PriorityRule:
    """A rule whose keys are the ranks: the queue order drawn once, for every scenario."""
    keys = rank.astype(float)
    return lambda inst, rng: keys


def _reference_makespans(
    instance: RigidInstance, scenarios: np.ndarray, heuristic: str, rank: np.ndarray
) -> np.ndarray:
    fn = RIGID_HEURISTICS[heuristic.lower()]
    rule = _fixed_rule(rank)
    return np.array(
        [fn(instance, FailureScenario(tuple(int(x) for x in row)), priority=rule).makespan for row in scenarios],
        dtype=float,
    )


def _compiled_makespans(
    instance: RigidInstance, scenarios: np.ndarray, heuristic: str, rank: np.ndarray
) -> np.ndarray:
    v = _variant(heuristic)
    # writable copies, so that every call has the same numba signature (one compilation)
    procs = np.array(instance.procs, dtype=np.int64)
    times = np.array(instance.times, dtype=np.float64)
    rank = np.array(rank, dtype=np.int64)
    job_at = np.empty_like(rank)
    job_at[rank] = np.arange(instance.n, dtype=np.int64)
    tol = float(time_tolerance(instance))
    P = int(instance.P)
    with jit.compile_notice():  # the first compile in a process says so on a terminal
        if v.family == "list":
            k_max = instance.n if v.m < 0 else min(v.m, instance.n)
            # any m >= n is m = |Q| at every round: the incremental kernel applies
            return _list_makespans(
                P, procs, times, rank, job_at, scenarios, k_max, k_max == instance.n, tol, TIME_REL
            )
        return _shelf_makespans(
            P, procs, times, rank, job_at, scenarios, v.backfill, v.fill, tol, TIME_REL, v.refill
        )


#: backend name -> implementation(instance, scenarios, heuristic, rank); "auto" picks one
BACKENDS: dict[str, Callable[[RigidInstance, np.ndarray, str, np.ndarray], np.ndarray]] = {
    "numba": _compiled_makespans,
    "reference": _reference_makespans,
}


def makespans(
    instance: RigidInstance,
    scenarios: np.ndarray,
    heuristic: str,
    *,
    priority: str | PriorityRule = "LPT",
    seed: Seed = None,
    backend: str = "auto",
) -> np.ndarray:
    """Makespan of a resilient rigid heuristic on each of ``S`` failure scenarios.

    Parameters
    ----------
    instance
        The rigid jobs.
    scenarios
        Integer array of shape ``(S, n)``: ``scenarios[s, j]`` failed attempts of job ``j`` in
        scenario ``s`` (as :meth:`coschedule.rigid.SilentErrors.sample` returns); a single
        scenario of shape ``(n,)`` is accepted.
    heuristic
        A name of :data:`coschedule.heuristics.RIGID_HEURISTICS` (:data:`FAST_HEURISTICS`, any case): the
        seven §5.1 variants ``r-list-0``, ``r-list-1``, ``r-list-q``, ``r-shelf-b``,
        ``r-shelf-nb``, ``r-shelffill-b``, ``r-shelffill-nb``, and R-ShelfFill's looser
        fillings ``r-shelffill-{b,nb}-{failed,queue}``, which have compiled kernels
        (:data:`KERNEL_HEURISTICS`), and ``r-list-1-kept``, ``r-list-q-kept`` (R-List with
        the authors' kept reservations, NOTE 1), which have none and always run the reference.
    priority, seed
        A rule of :data:`coschedule.heuristics.priorities.PRIORITIES` or a callable, and the seed for
        RANDOM. The queue order is drawn ONCE for all scenarios (with an int seed this is what
        calling the heuristic per scenario does; with a ``Generator`` it would redraw).
    backend
        ``"auto"`` (numba when importable and the heuristic has a kernel, else the reference),
        ``"numba"`` (raises :class:`~coschedule.errors.SolverUnavailable` without numba or for a
        heuristic without a kernel) or ``"reference"`` (the plain implementations of
        :mod:`coschedule.heuristics.rlist` and :mod:`coschedule.heuristics.rshelf`, one call per scenario).

    Returns
    -------
    numpy.ndarray
        ``S`` makespans (float64), whatever the backend identical (bit for bit) to
        ``RIGID_HEURISTICS[heuristic](instance, FailureScenario(row), priority=priority, seed=seed).makespan``
        for each row.

    Notes
    -----
    The first numba call compiles the kernels (seconds, said once on stderr when it is a
    terminal), then they are cached on disk in the user's cache directory
    (``NUMBA_CACHE_DIR``, else ``$XDG_CACHE_HOME/coschedule/numba`` or
    ``~/.cache/coschedule/numba``: :mod:`coschedule.jit`). Running time per
    scenario: ``O(E n)`` for R-List-0 and the shelves, ``O(E n (r + n))`` at worst for
    R-List-1 and R-List-Q (``E`` attempts, ``r`` running jobs), as the reference, with a
    constant about 50 to 100 times smaller; see :mod:`coschedule.heuristics.fast` and
    :func:`coschedule.bench.bench_rlist` for measured times.

    >>> from coschedule.generators import synthetic_rigid
    >>> from coschedule.rigid import SilentErrors
    >>> inst = synthetic_rigid(seed=1)
    >>> f = SilentErrors.from_qbar(inst, 0.3).sample(inst, size=5, seed=2)
    >>> bool(np.array_equal(makespans(inst, f, "r-list-q"),
    ...                     makespans(inst, f, "r-list-q", backend="reference")))
    True
    """
    name = _known(heuristic)
    f = _check_scenarios(instance, scenarios)
    if backend == "auto":
        backend = "numba" if jit.HAVE_NUMBA and name in _VARIANTS else "reference"
    elif backend not in BACKENDS:
        raise unknown_name("backend", backend, ["auto", *BACKENDS])
    if backend == "numba" and name not in _VARIANTS:
        raise SolverUnavailable(
            f"{name!r} has no numba kernel (only {', '.join(KERNEL_HEURISTICS)}): "
            "use backend='reference' or 'auto'"
        )
    if backend == "numba" and not jit.HAVE_NUMBA:
        raise SolverUnavailable("backend 'numba' needs numba: pip install 'coschedule[fast]'")
    rank = priority_order(instance, priority, seed=seed)
    if f.shape[0] == 0:
        return np.empty(0)
    return BACKENDS[backend](instance, f, heuristic, rank)
