"""Exact 2-in-p co-scheduling as a minimum-weight perfect matching with loops (Thm 1.1).

Paper: [Aupy2017] §1.4.1, Theorem 1.1. Build a graph with one vertex
per task, a *loop* on ``v_i`` of weight ``t(i, p)`` (the task alone on the whole platform) and
an edge ``{v_i, v_i'}`` of weight ``c(i, i')``, the optimal cost of the 2-task pack
``{T_i, T_i'}``. A minimum-weight perfect matching in which loops may cover their vertex is an
optimal 2-in-p co-schedule: every co-schedule with packs of at most two tasks is such a
matching and vice versa, and both have the same cost.

Loops are removed by a standard reformulation. With the *saving*
``s(i, i') = t(i, p) + t(i', p) - c(i, i')`` of pairing two tasks instead of running each
alone,

.. math::

    \\min_{\\text{perfect } M \\text{ with loops}} w(M)
    = \\sum_i t(i, p) - \\max_{M \\text{ matching}} \\sum_{\\{i,i'\\} \\in M} s(i, i'),

where the maximum runs over ordinary matchings (unmatched vertices take their loop). An edge
with ``s <= 0`` never helps a maximum-weight matching, so only edges of positive saving are
built: the graph is sparser whenever pairing is not always worth it.

The blossom algorithm of networkx (and of rustworkx) is exact only on *integer* weights, so
savings are expressed in an explicit integer time unit; see :func:`default_time_unit` and
:func:`solve_matching` for the resulting tolerance.
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from coschedule.errors import InvalidInstance, SolverUnavailable, unknown_name
from coschedule.model import CoSchedule, MoldableInstance, Pack
from coschedule.results import ExactResult, Status
from coschedule.timelimit import Deadline, TimeLimitReached

from .units import time_unit_for

__all__ = [
    "BACKENDS",
    "UNIT_BITS",
    "available_backends",
    "default_time_unit",
    "pair_costs",
    "solve_matching",
]

#: the default time unit is ``2**-UNIT_BITS`` times the largest loop weight (rounded down to a
#: power of two): integer savings stay below ``2**(UNIT_BITS + 2)``, well inside float64's exact
#: integer range, while the rounding error per pack is ~1e-12 of the largest time
UNIT_BITS = 40

#: integer weights above this would no longer be exact roundings of float64 savings
_MAX_WEIGHT = 2**52

#: rows of the pair-cost matrix computed per numpy block (bounds the temporary array size)
_BLOCK_ELEMENTS = 4_000_000


# --------------------------------------------------------------------------------------------
# Step 1: the edge weights (optimal 2-task packs)
# --------------------------------------------------------------------------------------------


def pair_costs(instance: MoldableInstance, *, deadline: Deadline | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Optimal cost and processor split of every 2-task pack.

    For tasks ``i != i'``,

    .. math::

        c(i, i') = \\min_{1 \\le q \\le p - 1} \\max\\big(t(i, q),\\ t(i', p - q)\\big),

    the edge weight of Thm 1.1. Minimum processor counts are honoured through
    ``t(i, q) = inf`` for ``q < min_procs(i)`` (``instance.time_matrix``), so ``q`` effectively
    ranges over ``[min_procs(i), p - min_procs(i')]``; if ``min_procs(i) + min_procs(i') > p``
    the pair cannot share a pack and ``c(i, i') = inf``.

    Returns
    -------
    cost : numpy.ndarray, shape (n, n)
        ``cost[i, i']`` = ``c(i, i')``; symmetric, ``inf`` on the diagonal and for pairs that do
        not fit.
    split : numpy.ndarray of int64, shape (n, n)
        ``split[i, i']`` = processors given to task ``i`` in an optimal pack with ``i'``, so that
        ``split[i, i'] + split[i', i] = p``; among the optimal splits, the one giving the
        lower-indexed task the fewest processors. 0 where ``cost`` is ``inf``.

    Notes
    -----
    Vectorised over blocks of rows of the upper triangle: ``O(n^2 p)`` arithmetic and
    ``O(n^2)`` memory (about 0.3 s for ``n = 1000``, ``p = 64``).
    """
    T = instance.time_matrix
    n, p = instance.n, instance.p
    cost = np.full((n, n), math.inf)
    split = np.zeros((n, n), dtype=np.int64)
    if p < 2 or n < 2:
        return cost, split
    q = np.arange(1, p)  # processors of the first task
    first = T[:, q]  # first[i, k] = t(i, q_k)
    second = T[:, p - q]  # second[i', k] = t(i', p - q_k)
    rows = max(1, _BLOCK_ELEMENTS // (n * (p - 1)))
    for a in range(0, n - 1, rows):
        if deadline is not None:
            deadline.check("pricing the pairs")
        b = min(a + rows, n - 1)
        # tasks a..b-1 against every task i' > a (the upper triangle plus a small corner)
        vals = np.maximum(first[a:b, None, :], second[None, a + 1 :, :])
        arg = np.argmin(vals, axis=2)  # first minimiser: fewest processors for task i
        best = np.take_along_axis(vals, arg[:, :, None], axis=2)[:, :, 0]
        cost[a:b, a + 1 :] = best
        split[a:b, a + 1 :] = q[arg]
    upper = np.triu(np.ones((n, n), dtype=bool), k=1)
    cost = np.where(upper, cost, cost.T)
    cost[~(upper | upper.T)] = math.inf  # diagonal
    split = np.where(upper, split, (p - split).T)
    split[~np.isfinite(cost)] = 0
    return cost, split


def default_time_unit(instance: MoldableInstance) -> float:
    """The default integer time unit of :func:`solve_matching`.

    :func:`coschedule.exact.units.time_unit_for` over the loop weights ``t(i, p)`` with ``UNIT_BITS`` bits:
    ``unit = 2**(ceil(log2(t_max)) - UNIT_BITS)``, ``t_max = max_i t(i, p)``. Every positive
    saving is below ``t(i, p) + t(i', p) <= 2 t_max``, so integer weights stay below
    ``2**(UNIT_BITS + 1)``. A power of two makes ``saving / unit`` an exact
    float operation, so the only error is the final rounding to an integer.
    """
    return time_unit_for(instance.time_matrix[:, instance.p], bits=UNIT_BITS)


# --------------------------------------------------------------------------------------------
# Step 2: maximum-weight matching backends (integer weights)
# --------------------------------------------------------------------------------------------

Edges = list[tuple[int, int, int]]
Matcher = Callable[[int, Edges], list[tuple[int, int]]]


def _match_networkx(n: int, edges: Edges) -> list[tuple[int, int]]:
    """networkx's pure-Python blossom (reference backend)."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from(edges)
    matching = nx.max_weight_matching(graph, maxcardinality=False, weight="weight")
    return [(int(u), int(v)) for u, v in matching]


def _import_rustworkx() -> ModuleType:
    try:
        import rustworkx
    except ImportError as exc:
        raise SolverUnavailable(
            "matching backend 'rustworkx' is not installed; "
            "install it with `pip install 'coschedule-hpc[fast]'` (or use backend='networkx')"
        ) from exc
    return rustworkx


def _match_rustworkx(n: int, edges: Edges) -> list[tuple[int, int]]:
    """rustworkx's compiled blossom (same algorithm, much faster)."""
    rx = _import_rustworkx()
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n))  # node indices 0..n-1 in order
    graph.add_edges_from(edges)
    matching = rx.max_weight_matching(graph, max_cardinality=False, weight_fn=int)
    return [(int(u), int(v)) for u, v in matching]


#: backend name -> matcher(n, [(i, i', integer weight)]) returning the matched pairs
BACKENDS: dict[str, Matcher] = {
    "networkx": _match_networkx,
    "rustworkx": _match_rustworkx,
}


def available_backends() -> list[str]:
    """Names of the matching backends that can run here (networkx always can)."""
    names = ["networkx"]
    try:
        _import_rustworkx()
    except SolverUnavailable:
        pass
    else:
        names.append("rustworkx")
    return names


def _match_child(name: str, n: int, edges: Edges, conn: Any) -> None:
    conn.send(BACKENDS[name](n, edges))
    conn.close()


def _match_within(name: str, n: int, edges: Edges, deadline: Deadline) -> list[tuple[int, int]]:
    """The matcher's pairs, or :class:`TimeLimitReached` at the deadline.

    Neither blossom implementation can be interrupted (networkx's is pure Python, rustworkx's
    holds the interpreter), so with a limit it runs in a forked child process, killed at the
    deadline. Without ``fork`` (Windows) it runs here and the limit is checked after it.
    """
    import multiprocessing as mp

    if not deadline.limited or "fork" not in mp.get_all_start_methods():
        pairs = BACKENDS[name](n, edges)
        deadline.check("running the blossom algorithm")
        return pairs
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "multi-threaded, fork() may deadlock"
        proc = ctx.Process(target=_match_child, args=(name, n, edges, send), daemon=True)
        proc.start()
    send.close()
    try:
        if recv.poll(deadline.remaining()):
            try:
                return [(int(u), int(v)) for u, v in recv.recv()]
            except EOFError:
                raise RuntimeError(f"the {name} matching process died (exit code {proc.exitcode})") from None
        raise TimeLimitReached(f"running the blossom algorithm ({name}, {len(edges):,} edges)")
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()


def _resolve_backend(backend: str) -> str:
    name = backend.lower()
    if name == "auto":
        return "rustworkx" if "rustworkx" in available_backends() else "networkx"
    if name not in BACKENDS:
        raise unknown_name("matching backend", backend, [*BACKENDS, "auto"])
    if name == "rustworkx":
        _import_rustworkx()  # fail early, with the install hint
    return name


# --------------------------------------------------------------------------------------------
# Step 3: the solver
# --------------------------------------------------------------------------------------------


def _integer_savings(instance: MoldableInstance, cost: np.ndarray, unit: float) -> Edges:
    """Edges ``(i, i', round(s(i, i') / unit))`` with ``i < i'`` and a positive integer weight."""
    loop = instance.time_matrix[:, instance.p]
    with np.errstate(invalid="ignore"):
        saving = loop[:, None] + loop[None, :] - cost  # -inf where the pair does not fit
    iu, ju = np.nonzero(np.triu(saving > 0, k=1))
    weights = np.rint(saving[iu, ju] / unit)
    if weights.size and weights.max() > _MAX_WEIGHT:
        raise InvalidInstance(
            f"time_unit {unit!r} is too small: integer weights reach {weights.max():.3g} "
            f"> 2**52, beyond float64 precision; use a larger unit"
        )
    keep = weights > 0
    return list(
        zip(iu[keep].tolist(), ju[keep].tolist(), weights[keep].astype(np.int64).tolist())
    )


def solve_matching(
    instance: MoldableInstance,
    *,
    backend: str = "auto",
    time_unit: float | None = None,
    time_limit: float | None = None,
    deadline: Deadline | None = None,
) -> ExactResult:
    """Optimal 2-in-p co-schedule by maximum-weight matching (Thm 1.1, §1.4.1).

    Steps: (1) price every 2-task pack with :func:`pair_costs`; (2) turn the minimum-weight
    perfect matching *with loops* of Thm 1.1 into a maximum-weight matching on the savings
    ``s(i, i') = t(i, p) + t(i', p) - c(i, i')``, keeping only edges with ``s > 0`` (see the
    module docstring); (3) round savings to integers in ``time_unit`` and run the blossom
    algorithm with ``max_cardinality=False``; (4) decode: a matched pair shares one pack with
    the split of :func:`pair_costs`, an unmatched task runs alone on all ``p`` processors.

    Parameters
    ----------
    instance
        The tasks and the platform; minimum processor counts are honoured.
    backend
        ``"networkx"`` (reference, pure Python), ``"rustworkx"`` (compiled, optional:
        ``pip install 'coschedule-hpc[fast]'``) or ``"auto"`` (rustworkx if installed, else
        networkx).
    time_unit
        The integer time unit of the weights; default :func:`default_time_unit`
        (about ``2**-40`` times the largest ``t(i, p)``, a power of two).
    time_limit, deadline
        Seconds from now, or a :class:`~coschedule.timelimit.Deadline`, for the whole call.
        With a limit the blossom algorithm runs in a child process (``fork``, where the
        platform has it) that is killed at the deadline; the result is then ``UNKNOWN`` with
        ``info["time_limit_reached"]``.

    Returns
    -------
    ExactResult
        ``status`` is ``OPTIMAL`` (2-in-p always has a solution: every task alone), with
        ``method="matching"``, ``solver`` the backend used, ``objective`` recomputed from the
        decoded :class:`~coschedule.model.CoSchedule` and ``tolerance = n * time_unit``:
        the optimum is at least ``bound = objective - tolerance``.

    Notes
    -----
    **Guarantee.** Rounding changes each saving by at most ``unit / 2`` (an edge whose saving
    rounds to 0 is dropped, also within ``unit / 2``). For the matching ``M`` optimal for the
    integer weights and any matching ``M'``,
    ``s(M') <= unit * w(M') + |M'| unit / 2 <= unit * w(M) + |M'| unit / 2
    <= s(M) + (|M| + |M'|) unit / 2``, and matchings have at most ``n / 2`` edges, so ``M``
    loses at most ``n * unit / 2`` of saving. The reported ``tolerance = n * unit`` doubles
    that to cover float rounding: ``OPT <= objective <= OPT + n * unit``. With the default
    unit this is about ``n * 1e-12`` times the largest ``t(i, p)``.

    **Running time.** ``O(n^2 p)`` vectorised arithmetic for the pair costs plus the blossom
    algorithm's ``O(n^3)`` on at most ``n (n - 1) / 2`` edges: rustworkx handles
    ``n = 1000, p = 64`` in 10-40 s here (see docs/benchmarks.md); networkx is practical up to a few hundred tasks.

    Raises
    ------
    UnknownName
        for an unknown ``backend``.
    SolverUnavailable
        if ``backend="rustworkx"`` is requested but not installed.
    ValueError
        if ``time_unit`` is not positive and finite, or so small that weights exceed
        ``2**52``.
    """
    name = _resolve_backend(backend)
    if time_unit is not None and not (math.isfinite(time_unit) and time_unit > 0):
        raise InvalidInstance(f"time_unit must be positive and finite, got {time_unit!r}")
    t0 = time.perf_counter()
    deadline = Deadline.after(time_limit, t0) if deadline is None else deadline
    n, p = instance.n, instance.p
    unit = default_time_unit(instance) if time_unit is None else float(time_unit)

    try:
        cost, split = pair_costs(instance, deadline=deadline)
        edges = _integer_savings(instance, cost, unit)
        deadline.check("building the graph")
        t_build = time.perf_counter() - t0
        pairs = _match_within(name, n, edges, deadline) if edges else []
    except TimeLimitReached as e:
        return ExactResult(Status.UNKNOWN, None, None, None, "matching", name, time.perf_counter() - t0,
                           info={"time_limit_reached": str(e)})

    matched: set[int] = set()
    packs: list[Pack] = []
    for u, v in pairs:
        i, j = min(u, v), max(u, v)
        matched.update((i, j))
        qi = int(split[i, j])
        packs.append(Pack.of([(i, qi), (j, p - qi)]))
    packs.extend(Pack.of([(i, p)]) for i in range(n) if i not in matched)
    cs = CoSchedule(tuple(packs)).canonical(instance)
    objective = cs.cost(instance)
    tolerance = n * unit
    elapsed = time.perf_counter() - t0
    return ExactResult(
        Status.OPTIMAL,
        objective,
        objective - tolerance,
        cs,
        "matching",
        name,
        elapsed,
        tolerance=tolerance,
        info={
            "edges": len(edges),
            "pairs": len(pairs),
            "time_unit": unit,
            "build_time": t_build,
        },
    )
