"""Schedulers of a 3-D torus machine under failures ([Oliner2004] §4-§6): Krevat's FCFS with
backfilling and MFP placement (§5.1), and the fault-aware **Balancing** (§5.2.1) and
**Tie-breaking** (§5.2.2) schedulers with their predictors (§4.1, §4.2). They run on the
simulation core's event loop (:mod:`coschedule.sim.engine`), nodes numbered as in
:mod:`coschedule.torus.geometry`, partitions from :mod:`coschedule.torus.index`.

The scheduler (shared)
----------------------
* **Queue.** Waiting jobs by arrival (first submission, then workload order): FCFS (§5.1). A job
  hit by a failure loses its work (§6.1: no checkpointing, it restarts from the beginning),
  frees its partition and goes back to the queue at its arrival's place -- ahead of every job
  that arrived after it.
* **When.** At every instant with an arrival, a termination or a failure (and a node back from a
  downtime), once every event of the instant is applied; a placed job starts at once (§6.1).
* **FCFS step.** While the queue's head has a free partition of its size, it is placed and
  starts.
* **Backfilling** (on by default; the paper names no variant, this is ours): EASY with a
  reserved partition. When the head has no free partition, the scheduler projects the running
  jobs' estimated ends (start + ``t^e``) and frees their partitions, earliest first, until the
  head has one: that instant is the head's *shadow time*, and the partition Krevat's rule would
  give it then (least MFP loss at that projected occupancy) is *reserved*. Every later job, in
  queue order, then starts now if it has a free partition that either lies outside the reserved
  one or whose job is estimated to end by the shadow time -- so no backfilled job delays the
  head, as estimated (failures are not foreseen). Down nodes stay occupied in the projection. A
  head that cannot fit even then (nodes down) reserves nothing: later jobs start wherever they
  fit.
* **Migration** (on by default: §5.2.1, Balancing "is based on the FCFS scheduler for BG/L [11],
  including backfilling and migration"; §3.2: "The scheduler is able to migrate jobs around the
  torus" by checkpoint, move, restart; ``migration=False`` for Krevat's FCFS without it): when the head
  has no free partition although enough units are free, the scheduler re-places every running job
  and then the head on the torus with only its down units occupied -- the largest jobs first
  (then by arrival), each by the placement rule below, a running job's predictor window being
  its remaining estimate. When everything fits, the jobs whose partition changed migrate
  (:meth:`~coschedule.sim.engine.Simulation.migrate`: they keep their work and go on at once,
  after ``migration_cost`` seconds, 0 by default as the paper names no cost) and the head
  starts; else nothing moves. Then the FCFS step goes on, and backfilling.
* **Placement** among the free partitions of the job's size ``s_j`` (each distinct node set
  once), with ``L_MFP`` = MFP size before minus after the placement (§5.1, Fig. 1):

  - ``fcfs`` (Krevat): least ``L_MFP``;
  - ``balancing``: least ``E_loss = L_MFP + L_PF``, ``L_PF = P_f · s_j`` (§5.2.1);
  - ``tiebreak``: least ``L_MFP``; among the partitions of exactly that loss (MFP sizes are
    integers: "equal" is exact), one predicted not to fail (§5.2.2).

  Remaining ties go to the lower ``L_MFP`` (balancing), then to the first partition in the
  finder's order (shape, then base, lexicographic): deterministic, so that a tie-breaking run
  whose every candidate is predicted to fail ("an arbitrary choice", §4.2) is reproducible.

Predictors
----------
Both read the failure log (the run's trace: the oracle of §4, "job log and associated failure
log"); the window of a job placed at ``t`` is ``(t, t + t^e_j]``.

* **Balancing predictor** (§4.1), confidence ``a``: ``p_n^f = a`` when node ``n`` fails in the
  window, else 0. ``P_f`` of a partition with ``k`` such nodes: ``pf="max"`` (default, §4.1:
  ``max_n p_n^f`` = ``a`` when ``k >= 1``) or ``pf="product"`` (§5.2.1: ``1 - Π(1 - p_n^f)
  = 1 - (1 - a)^k``). The default follows §4.1 and §5.2.1's own remark that at ``a = 0.1``
  "E_loss would be ≈ 1/10 the job size" (true of ``max``; ``product`` grows with ``k``).
* **Tie-breaking predictor** (§4.2), accuracy ``a``: no false positives; a real failure is
  missed with probability ``1 - a``. The miss is drawn **once per failure event of the log**
  (a uniform ``u_k`` from ``seed``; detected when ``u_k < a``): every query, partition and
  window that covers that failure sees the same answer, repeated queries agree, and for one seed
  the failures detected at accuracy ``a`` are among those detected at any higher accuracy. A
  partition is predicted to fail when one of its nodes has a detected failure in the window.

Your own torus policy
---------------------
``get_torus_policy`` and :func:`~.run.run_torus` (``coschedule torus simulate --policy``) also
take a policy that is not built in, named ``path/to/file.py:Class``, ``package.module:Class`` or
by a package's entry point in ``coschedule.policies.torus`` (:mod:`coschedule.plugins`,
docs/own-policy.md). The class's objects follow the engine's protocol
(:class:`coschedule.sim.policy.Policy`: ``reset(sim)``, ``job_failed(sim, job, node)``,
``decide(sim, instant)``) and start every job on a partition (the run is checked by
:func:`coschedule.torus.validate.validate_torus_run`). The smallest one is a subclass of
:class:`TorusScheduler` with a ``choose(sim, job, partitions)`` method: ``partitions`` are the
free :class:`~coschedule.torus.geometry.Box` es of the job's size (in the finder's order), and it
returns the index of the one the job gets -- for every start (FCFS step, backfilling) and every
job a migration re-places; the queue, backfilling and migration stay the built-in's (the head's
reserved partition stays Krevat's least MFP loss). The constructor gets ``dims`` (the torus) when
it has that parameter, and the run's options (``backfill``, ``migration``, ``confidence``,
``accuracy``, ``pf``, ``seed``) that it takes; an option it does not take is an error unless it
has its default value (:func:`user_torus_policy`).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from coschedule import plugins
from coschedule.errors import CoscheduleError, InvalidInstance, PolicyError, unknown_name
from coschedule.rng import as_generator
from coschedule.sim.engine import Instant, Simulation
from coschedule.sim.policy import PROTOCOL
from coschedule.torus.geometry import Box, Dims, box_shapes, check_dims
from coschedule.torus.index import make_index

__all__ = ["PF_RULES", "PROTOCOL", "TORUS_POLICIES", "FailureOracle", "TorusScheduler", "choose_partition",
           "get_torus_policy", "torus_policy_source", "unknown_torus_policy", "user_torus_policy"]

#: how a partition's failure probability combines its nodes' (§4.1 / §5.2.1)
PF_RULES = ("max", "product")
_EPS = 1e-9


class FailureOracle:
    """The failure log as the predictors read it: for each node, its next failure after the
    current time (optionally only the failures kept by ``keep``)."""

    def __init__(self, times: np.ndarray, nodes: np.ndarray, n_nodes: int, keep: np.ndarray | None = None) -> None:
        if keep is not None:
            times, nodes = times[keep], nodes[keep]
        self.times = times.tolist()
        self.nodes = nodes.tolist()
        self.per_node: list[list[float]] = [[] for _ in range(n_nodes)]
        for t, x in zip(self.times, self.nodes):
            self.per_node[x].append(t)
        self.pos = [0] * n_nodes  # index of each node's next failure
        self.next = np.full(n_nodes, math.inf)
        for x, ts in enumerate(self.per_node):
            if ts:
                self.next[x] = ts[0]
        self.k = 0  # failures consumed (time <= now)

    def advance(self, now: float) -> None:
        """Forget the failures at or before ``now``."""
        times, nodes, k = self.times, self.nodes, self.k
        while k < len(times) and times[k] <= now:
            x = nodes[k]
            p = self.pos[x] + 1
            self.pos[x] = p
            ts = self.per_node[x]
            self.next[x] = ts[p] if p < len(ts) else math.inf
            k += 1
        self.k = k

    def failing(self, until: float) -> np.ndarray:
        """Nodes with a failure in ``(now, until]``."""
        return self.next <= until


class TorusScheduler:
    """Krevat's FCFS with backfilling and one of the placements ``fcfs``, ``balancing``,
    ``tiebreak`` (module docstring).

    Parameters
    ----------
    dims : (X, Y, Z)
        The torus; the simulation's ``n_nodes`` must be ``X·Y·Z``.
    placement : str
        ``"fcfs"`` (least MFP loss), ``"balancing"`` or ``"tiebreak"``.
    backfill : bool
        EASY backfilling with a reserved partition (default True); False: strict FCFS.
    migration : bool
        Re-place the running jobs when that lets the blocked head start (default True, the
        paper's system, §5.2.1); the cost of a move is the simulation's ``migration_cost``.
    confidence : float
        ``a`` of the balancing predictor (``balancing`` only), in ``[0, 1]``.
    accuracy : float
        ``a`` of the tie-breaking predictor (``tiebreak`` only), in ``[0, 1]``.
    pf : str
        ``"max"`` (default) or ``"product"``: ``P_f`` of a partition (``balancing``).
    seed : int or numpy.random.Generator
        The tie-breaking predictor's draws (one per failure of the log).

    A subclass may place jobs its own way with ``choose(sim, job, partitions) -> index`` (module
    docstring, "Your own torus policy"); the rest of the scheduler stays the same.
    """

    #: keep the head's reservation and skip jobs known to find no partition between instants
    #: where nothing changed (False: recompute everything at every instant; the same runs, tested)
    caches = True

    #: a subclass's own placement (module docstring, "Your own torus policy"):
    #: ``choose(sim, job, partitions) -> index`` of the free box the job gets; None: the built-in rule
    choose: Callable[[Simulation, int, list[Box]], int] | None = None

    def __init__(self, dims: Sequence[int], placement: str = "fcfs", *, backfill: bool = True,
                 migration: bool = True, confidence: float = 0.0, accuracy: float = 0.0, pf: str = "max",
                 seed: Any = 0) -> None:
        self.dims: Dims = check_dims(dims)
        if placement not in TORUS_POLICIES:
            raise unknown_name("torus policy", placement, TORUS_POLICIES)
        for label, v in (("confidence", confidence), ("accuracy", accuracy)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1:
                raise InvalidInstance(f"{label} must be a number in [0, 1], got {v!r}")
        if pf not in PF_RULES:
            raise unknown_name("P_f rule", pf, PF_RULES)
        if placement != "balancing" and confidence:
            raise InvalidInstance(f"confidence is a parameter of balancing, not of {placement}")
        if placement != "tiebreak" and accuracy:
            raise InvalidInstance(f"accuracy is a parameter of tiebreak, not of {placement}")
        self.name = placement
        self.placement = placement
        self.backfill = bool(backfill)
        self.migration = bool(migration)
        self.confidence = float(confidence)
        self.accuracy = float(accuracy)
        self.pf = pf
        self.seed = seed
        self.index = make_index(self.dims)

    def __repr__(self) -> str:
        extra = {"balancing": f", confidence={self.confidence:g}, pf={self.pf!r}",
                 "tiebreak": f", accuracy={self.accuracy:g}"}.get(self.placement, "")
        return (f"TorusScheduler({self.dims}, {self.placement!r}, backfill={self.backfill}, "
                f"migration={self.migration}{extra})")

    # ------------------------------------------------------------------ engine calls
    def reset(self, sim: Simulation) -> None:
        if sim.n_nodes != self.index.n_nodes:
            raise InvalidInstance(f"the torus {self.dims} has {self.index.n_nodes} nodes, the platform {sim.n_nodes}")
        for j, p in enumerate(sim.procs):
            if not box_shapes(p, self.dims):
                raise InvalidInstance(f"job {sim.workload.ids[j]}: {p} nodes has no box shape in the torus "
                                      f"{self.dims} (round it up: coschedule.torus.box_size_at_least)")
        self.queue: list[tuple[float, int]] = []
        tr = sim.failures
        self.oracle: FailureOracle | None = None
        if self.placement == "balancing" and self.confidence > 0:
            self.oracle = FailureOracle(tr.times, tr.nodes, sim.n_nodes)
        elif self.placement == "tiebreak" and self.accuracy > 0:
            u = as_generator(self.seed).uniform(size=len(tr))
            self.oracle = FailureOracle(tr.times, tr.nodes, sim.n_nodes, keep=u < self.accuracy)
        self.migrations = 0  # repacks applied
        self.held_bits: dict[int, np.ndarray] = {}  # each running job's partition, packed
        self._empty = self.index.pack(np.zeros(self.index.n_nodes, dtype=bool))
        # the head's reservation depends on the running jobs and the down units only: kept until
        # a job starts, ends, fails or migrates, or a unit comes back
        self._version = 0
        # the same, but for the head's reservation, which a backfilled job that ends by the shadow
        # time leaves as it is (the occupancy from then on is the same); the only difference
        self._rversion = 0
        self._reservation: tuple[int, int, float, np.ndarray | None] | None = None
        self._tried: tuple[int, int] | None = None  # (version, head) of the last backfilling pass

    def job_failed(self, sim: Simulation, job: int, node: int) -> None:
        sim.requeue(job)
        bisect.insort(self.queue, (sim.submit[job], job))

    def decide(self, sim: Simulation, instant: Instant) -> None:
        for j in instant.submitted:
            bisect.insort(self.queue, (sim.submit[j], j))
        if instant.ended or instant.failed_nodes or instant.recovered:
            self._version += 1
            self._rversion += 1
        if not self.queue:
            return
        if self.oracle is not None:
            self.oracle.advance(sim.now)
        ix = self.index
        occ = (sim.node_job >= 0) | ~sim.up
        bits = ix.pack(occ)
        free = ix.free_boxes(bits)
        q = self.queue
        started: set[int] = set()
        k = 0
        while k < len(q):  # the FCFS step
            j = q[k][1]
            row = self._place(sim, j, free, None)
            if row is None and self.migration and self._repack(sim, j):
                bits = ix.pack((sim.node_job >= 0) | ~sim.up)  # the head started after the moves
                free = ix.free_boxes(bits)
                started.add(j)
                k += 1
                continue
            if row is None:
                break
            bits, free = self._start(sim, j, row, bits)
            started.add(j)
            k += 1
        if k < len(q) and self.backfill:
            head, version = q[k][1], self._version
            if self.caches and self._tried == (version, head):
                # nothing started, ended, failed or came back since the last backfilling pass,
                # which started no job (same occupancy, same reservation): only the jobs that
                # arrived since may start
                # (those not started are behind the head: q[:k] started, q[k] is the head)
                rest = sorted((sim.submit[j], j) for j in instant.submitted if j not in started)
                rest = [item for item in rest if item > q[k]]
            else:
                rest = q[k + 1:]
            if rest:
                self._backfill(sim, head, rest, bits, free, started)
            self._tried = (version, head) if self._version == version else None
        if started:  # q[:k] started in the FCFS step, the backfilled ones are behind the head
            left = q[k:]
            for j in started.difference(item[1] for item in q[:k]):
                del left[bisect.bisect_left(left, (sim.submit[j], j))]
            self.queue = left

    # ------------------------------------------------------------------ steps
    def _start(self, sim: Simulation, j: int, row: Any, bits: np.ndarray, *,
               keeps_reservation: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Start ``j`` on ``row``; the packed occupancy and free boxes after. ``keeps_reservation``:
        ``j`` ends (by its wall time) by the head's shadow time, so the head's reservation stays
        what it is: the first instant it fits and the occupancy then are the same."""
        ix = self.index
        sim.start(j, ix.nodes(row))
        self._version += 1
        if not keeps_reservation:
            self._rversion += 1
        self.held_bits[j] = ix.occupy(self._empty, row)
        bits = bits | self.held_bits[j]
        return bits, ix.free_boxes(bits)

    def _repack(self, sim: Simulation, head: int) -> bool:
        """Migration (module docstring): re-place the running jobs and the head; apply it (moves
        and the head's start) and say True when everything fits."""
        ix = self.index
        p = sim.procs[head]
        if int(np.count_nonzero((sim.node_job < 0) & sim.up)) < p or not sim.running:
            return False
        order = sorted(sim.running, key=lambda j: (-sim.procs[j], sim.submit[j], j))
        bits = ix.pack(~sim.up)
        chosen: dict[int, Any] = {}
        now = sim.now
        for j in order + [head]:
            until = sim.start_time[j] + sim.wall[j] if j != head else now + sim.wall[j]
            row = self._place(sim, j, ix.free_boxes(bits), None, until=until)
            if row is None:
                return False
            chosen[j] = row
            bits = ix.occupy(bits, row)
        moves = {}
        for j in order:
            nodes = ix.nodes(chosen[j])
            if sorted(nodes) != sorted(sim.held[j]):
                moves[j] = nodes
        if moves:
            sim.migrate(moves)
        for j in moves:
            self.held_bits[j] = ix.occupy(self._empty, chosen[j])
        self.held_bits[head] = ix.occupy(self._empty, chosen[head])
        sim.start(head, ix.nodes(chosen[head]))
        self._version += 1
        self._rversion += 1
        self.migrations += 1
        return True

    def _backfill(self, sim: Simulation, head: int, rest: Sequence[tuple[float, int]], bits: np.ndarray,
                  free: np.ndarray, started: set[int]) -> None:
        cached = self._reservation
        if self.caches and cached is not None and cached[0] == self._rversion and cached[1] == head:
            shadow, reserved = cached[2], cached[3]
        else:
            shadow, reserved = self._reserve(sim, head, bits)
            self._reservation = (self._rversion, head, shadow, reserved)
        now = sim.now
        hopeless: set[tuple[int, bool]] = set()  # (size, ends by the shadow) with no partition now
        mfp = self.index.mfp_size(free)  # no partition is larger
        for _, j in rest:
            p = sim.procs[j]
            if p > mfp:
                continue
            early = now + sim.wall[j] <= shadow
            key = (p, early)
            if key in hopeless:
                continue
            row = self._place(sim, j, free, None if early else reserved)
            if row is None:
                hopeless.add(key)  # starting jobs only takes partitions away
                continue
            bits, free = self._start(sim, j, row, bits, keeps_reservation=early)
            started.add(j)
            mfp = self.index.mfp_size(free)

    def _reserve(self, sim: Simulation, head: int, bits: np.ndarray) -> tuple[float, np.ndarray | None]:
        """The head's shadow time and reserved partition (as a node mask); ``(inf, None)``
        when it cannot fit even once every running job has ended. ``bits``: the packed
        occupancy now."""
        ix = self.index
        p = sim.procs[head]
        running = sorted(sim.running, key=lambda j: sim.start_time[j] + sim.wall[j])
        if not running:
            return math.inf, None
        ends = np.array([sim.start_time[j] + sim.wall[j] for j in running])
        # the occupancy once the first k jobs have ended: fits or not is monotone in k, so a
        # bisection over the instants (all jobs ending at one instant go together)
        released = np.bitwise_or.accumulate(np.array([self.held_bits[j] for j in running]), axis=0)
        last = np.r_[np.flatnonzero(ends[1:] != ends[:-1]), len(running) - 1]  # last job of each instant
        if not ix.has_free(bits & ~released[last[-1]], p):
            return math.inf, None
        lo, hi = 0, len(last) - 1  # the first instant at which the head fits is in last[lo..hi]
        while lo < hi:
            mid = (lo + hi) // 2
            if ix.has_free(bits & ~released[last[mid]], p):
                hi = mid
            else:
                lo = mid + 1
        k = int(last[lo])
        free = ix.free_boxes(bits & ~released[k])
        row = self._least_loss(free, ix.of_size(free, p))
        mask = np.zeros(ix.n_nodes, dtype=bool)
        mask[ix.nodes(row)] = True
        return max(float(ends[k]), sim.now), mask

    def _least_loss(self, free: np.ndarray, rows: Any) -> Any:
        if len(rows) == 1:
            return rows[0]
        return rows[int(np.argmax(self.index.mfp_after(free, rows, first_only=True)))]

    def _place(self, sim: Simulation, j: int, free: np.ndarray, avoid: np.ndarray | None, *,
               until: float | None = None) -> Any:
        """The partition job ``j`` gets now (a row of the index), or None; ``until``: the end of
        the predictor's window (default: now plus its estimate)."""
        ix = self.index
        p = sim.procs[j]
        rows = ix.of_size(free, p)
        if avoid is not None and len(rows):
            keep = ix.hits(rows, avoid) == 0
            rows = rows[keep] if isinstance(rows, np.ndarray) else [r for r, k in zip(rows, keep) if k]
        if not len(rows):
            return None
        if self.choose is not None:
            return self._chosen(sim, j, rows)
        if len(rows) == 1:
            return rows[0]
        if self.oracle is None:  # fcfs, or a predictor that says nothing (a = 0)
            return rows[int(np.argmax(ix.mfp_after(free, rows, first_only=True)))]
        before = ix.mfp_size(free)
        failing = self.oracle.failing(sim.now + sim.wall[j] if until is None else until)
        # L_MFP of the partitions that can win; the others (-1 from mfp_after) lose more: +inf
        if self.placement == "tiebreak":  # the predictor is asked about the tied partitions only
            after = ix.mfp_after(free, rows, first_only=True)
            tied = np.flatnonzero(after >= 0)
            if tied.size == 1:
                return rows[int(tied[0])]
            sub = rows[tied] if isinstance(rows, np.ndarray) else [rows[int(t)] for t in tied]
            hits = np.zeros(len(rows), dtype=np.int64)
            hits[tied] = ix.hits(sub, failing)
        else:  # balancing: the best E_loss among the least L_MFP bounds the L_MFP worth knowing
            hits = ix.hits(rows, failing)
            a = self.confidence
            pfail = np.where(hits > 0, a, 0.0) if self.pf == "max" else 1.0 - (1.0 - a) ** hits
            after = ix.mfp_after(free, rows, first_only=True)
            known = after >= 0
            bound = float(((before - after[known]) + pfail[known] * p).min())
            floor = max(0, math.ceil(before - bound - 1e-6))
            if floor < int(after.max()):
                after = ix.mfp_after(free, rows, floor=floor)
        loss = np.where(after >= 0, before - after, np.iinfo(np.int64).max // 4)
        a = self.confidence if self.placement == "balancing" else self.accuracy
        return rows[choose_partition(self.placement, loss, hits, p, a, self.pf)]


    def _chosen(self, sim: Simulation, j: int, rows: Any) -> Any:
        """The row of the partition a subclass's ``choose`` picks among ``rows``."""
        assert self.choose is not None
        k = self.choose(sim, j, [self.index.box(r) for r in rows])
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or not 0 <= k < len(rows):
            raise PolicyError(f"policy {self.name!r} at t = {sim.now:g} s: job {sim.workload.ids[j]}: choose returned "
                              f"{k!r}, not the index of one of its {len(rows)} free partitions (0..{len(rows) - 1})")
        return rows[int(k)]


def choose_partition(rule: str, loss: np.ndarray, hits: np.ndarray, size: int, a: float = 0.0,
                     pf: str = "max") -> int:
    """The index of the candidate partition a placement rule picks (module docstring).

    ``loss``: each candidate's ``L_MFP``; ``hits``: how many of its nodes the predictor flags
    (fail in the job's window; for ``tiebreak``, detected failures); ``size``: the job's
    ``s_j``; ``a``: the confidence (``balancing``) or accuracy (``tiebreak``, where only
    ``hits > 0`` matters).

    >>> choose_partition("balancing", np.array([3, 5]), np.array([4, 0]), 4, a=0.6)  # Fig. 2
    1
    """
    loss = np.asarray(loss)
    if rule == "fcfs":
        return int(np.argmin(loss))
    if rule == "balancing":
        hits = np.asarray(hits)
        pfail = np.where(hits > 0, a, 0.0) if pf == "max" else 1.0 - (1.0 - a) ** hits
        e = loss + pfail * size
        best = e.min()
        tied = np.flatnonzero(e <= best + _EPS * max(1.0, abs(best)))
        return int(tied[np.argmin(loss[tied])])  # argmin: the first of the least loss
    if rule == "tiebreak":
        tied = np.flatnonzero(loss == loss.min())
        safe = tied[np.asarray(hits)[tied] == 0]
        return int(safe[0]) if safe.size else int(tied[0])
    raise unknown_name("torus policy", rule, TORUS_POLICIES)


#: the placements, by name (the scheduler is the same)
TORUS_POLICIES = ("fcfs", "balancing", "tiebreak")



#: the options a user's policy is given when its constructor takes them, and their defaults (an
#: option it does not take is an error unless it has this value); ``dims`` and ``seed`` are
#: given when taken, never an error
OPTION_DEFAULTS: dict[str, Any] = {"backfill": True, "migration": True, "confidence": 0.0, "accuracy": 0.0, "pf": "max"}


def unknown_torus_policy(name: str) -> CoscheduleError:
    """The one-line error of a name that is neither built in nor a user's policy."""
    err = unknown_name("torus policy", str(name), TORUS_POLICIES)
    return type(err)(f"{err}; or your own: FILE.py:CLASS, MODULE:CLASS (coschedule policies)")


def torus_policy_source(name: str, *, base: str | Path = ".") -> plugins.PolicySource | None:
    """``name`` as a user's torus policy (:func:`coschedule.plugins.resolve`, kind ``torus``),
    None for a built-in name (or an unknown one). A built-in name wins over a registered one."""
    if not isinstance(name, str) or name.lower() in TORUS_POLICIES:
        return None
    return plugins.resolve(name, "torus", base=base)


def user_torus_policy(src: plugins.PolicySource, dims: Sequence[int], **options: Any) -> Any:
    """A new policy object of ``src``'s class (module docstring, "Your own torus policy"):
    ``dims`` and ``options`` that its constructor takes are given to it; one it does not take is
    an error unless it has its default value (``seed`` excepted: it is also the failures'). The
    object must have the engine's methods (:data:`PROTOCOL`); it is named ``src.ref`` unless it
    has a name of its own: a string ``name`` (not the built-in placement's name that a subclass of
    :class:`TorusScheduler` gets from its constructor; a ``name`` class attribute is its own)."""
    policy = plugins.instantiate(src, options, OPTION_DEFAULTS, PROTOCOL, "a torus policy has reset(sim), "
                                 "job_failed(sim, job, node) and decide(sim, instant) (or subclass TorusScheduler)",
                                 given={"dims": tuple(dims)}, lenient=("seed",))
    name = getattr(policy, "name", None)
    if isinstance(policy, TorusScheduler) and name == policy.placement:  # the built-in's, set by its constructor
        own = getattr(type(policy), "name", None)  # a class attribute the constructor shadowed
        name = own if isinstance(own, str) else None
    if not isinstance(name, str) or not name:
        name = src.ref
    if getattr(policy, "name", None) != name:
        try:
            policy.name = name
        except AttributeError:
            raise InvalidInstance(f"policy {src.ref!r}: its name attribute is not a string") from None
    return policy


def get_torus_policy(name: str, dims: Sequence[int], *, base: str | Path = ".", **options: Any) -> Any:
    """A new :class:`TorusScheduler` by placement name (case-insensitive): ``fcfs``,
    ``balancing``, ``tiebreak``; ``options`` go to its constructor. A user's policy
    (``file.py:Class``, ``module:Class``, a registered name; ``base``: where a relative file is
    read from) is made by :func:`user_torus_policy`."""
    src = torus_policy_source(name, base=base)
    if src is not None:
        return user_torus_policy(src, dims, **options)
    key = str(name).lower()
    if key not in TORUS_POLICIES:
        raise unknown_torus_policy(str(name))
    return TorusScheduler(dims, key, **options)
