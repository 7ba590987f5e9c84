"""What an online run records (:mod:`.engine` makes them): every attempt of a job
(:class:`Attempt`), every applied failure (:class:`FailureRecord`), node stealing's steals and holds,
and the whole run (:class:`SimulationResult`), for the validator (:mod:`.validate`), the metrics
(:mod:`.metrics`) and ``jobs.csv``.

A record's ``nodes`` is a tuple of node ids, or a :class:`~coschedule.sim.intervals.NodeSet`
that reads as one and keeps them as a handful of ranges (the compiled batch kernel's records).
:class:`AttemptTable` holds a run's attempts as columns, with their node sets as interval arrays:
what the validator sweeps over.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .checkpointing import Checkpointing
from .intervals import NodeSet, runs_to_intervals
from .workload import Workload

__all__ = [
    "CHECKPOINTED",
    "COMPLETED",
    "FAILED",
    "INTERRUPTED",
    "MIGRATED",
    "OUTCOMES",
    "REACTIONS",
    "Attempt",
    "AttemptTable",
    "FailureRecord",
    "HoldRecord",
    "LazyAttempts",
    "SimulationResult",
    "StealRecord",
]

#: outcomes of an attempt (:attr:`Attempt.outcome`)
COMPLETED, FAILED, INTERRUPTED, CHECKPOINTED = "completed", "failed", "interrupted", "checkpointed"
MIGRATED = "migrated"
#: every outcome, in the order of :attr:`AttemptTable.outcome`'s codes
OUTCOMES = (COMPLETED, FAILED, INTERRUPTED, CHECKPOINTED, MIGRATED)
#: how the policy reacted to a failure (:attr:`FailureRecord.reaction`)
REACTIONS = ("idle", "spare", "steal", "wait", "held")


@dataclass(frozen=True)
class Attempt:
    """One run of job ``job`` (its ``index``-th) on ``nodes`` over ``[start, end)``: first a
    recovery of ``recovery`` (0 for a first attempt), then its work from saved time
    ``saved_before`` to ``saved_after`` (or to the job's end when ``outcome`` is
    ``"completed"``), then, when ``proactive > 0``, a proactive checkpoint of that length at its
    end (node stealing, timing T2 of [Du2024] §7.1). ``outcome``: ``"completed"``, ``"failed"``
    (a node failed), ``"interrupted"`` (a policy stopped it: node stealing) or
    ``"checkpointed"`` (it took a proactive checkpoint and goes on at once, on the same nodes,
    in the next attempt, without recovery: a node steal that was cancelled) or ``"migrated"``
    (a policy moved it to other nodes: it saved where its work stopped and goes on at once, in
    the next attempt, whose recovery is the run's migration cost; the torus scheduler).
    ``nodes``: a tuple of node ids, or a :class:`~coschedule.sim.intervals.NodeSet` that reads
    as that tuple."""

    job: int
    index: int
    start: float
    end: float
    nodes: Sequence[int]
    recovery: float
    saved_before: float
    saved_after: float
    outcome: str
    proactive: float = 0.0


@dataclass(frozen=True)
class FailureRecord:
    """A failure the engine applied: ``node`` down on ``[time, up)``; ``job`` it hit (-1: an
    idle node); ``idle``: the nodes up and idle when it struck, before any decision (not
    counting the failed node, nor the other nodes of the job it hit): whether a free node could
    replace the failed one ([Du2024] Table 5b, "empty node"). ``reaction``: what the policy did
    (:data:`REACTIONS`): ``idle`` (the node ran nothing), ``spare`` (the job restarted at once
    on a free node), ``steal`` (node stealing, at once or pending), ``wait`` (the job went back
    to the queue), ``held`` (it hit a node a failed job held while waiting for a stolen one)."""

    time: float
    node: int
    up: float
    job: int
    idle: int = -1
    reaction: str = ""


@dataclass(frozen=True)
class StealRecord:
    """Node stealing ([Du2024] §4.2, §7): at the failure of ``decided`` the policy chose to
    take nodes of running job ``victim`` for failed job ``failed``; at ``time`` the ``nodes``
    went from the victim's attempt that ended then (interrupted, or completed) to the failed
    job's attempt that started then. ``cancelled`` (empty when the steal happened) says why it
    did not: then ``nodes`` is empty and ``time`` is when it was cancelled."""

    decided: float
    time: float
    failed: int
    victim: int
    nodes: Sequence[int]
    timing: int
    cancelled: str = ""


@dataclass(frozen=True)
class HoldRecord:
    """Failed job ``job`` kept ``nodes`` (the survivors of its failed attempt) idle over
    ``[start, end)``, waiting for a stolen node ([Du2024] §7.2.1, the fictitious job): no other
    job may use them."""

    job: int
    start: float
    end: float
    nodes: Sequence[int]


#: attempts whose intervals :func:`_reorder` gathers at once
REORDER_AT_ONCE = 1 << 16


def _reorder(iv: np.ndarray, lo: np.ndarray, hi: np.ndarray, new_off: np.ndarray) -> np.ndarray:
    """The slices ``iv[lo[x]:hi[x]]`` of every ``x`` one after the other (at ``new_off[x]:new_off[x
    + 1]``), gathered :data:`REORDER_AT_ONCE` attempts at a time: index arrays for all at once
    cost several times the array (a million jobs with a million failures: gigabytes at the
    run's peak)."""
    out = np.empty(int(new_off[-1]), dtype=iv.dtype)
    for a in range(0, lo.shape[0], REORDER_AT_ONCE):
        b = min(lo.shape[0], a + REORDER_AT_ONCE)
        n = hi[a:b] - lo[a:b]
        total = int(new_off[b] - new_off[a])
        if total:
            idx = np.repeat(lo[a:b] - (new_off[a:b] - new_off[a]), n) + np.arange(total)
            out[new_off[a]: new_off[b]] = iv[idx]
    return out


class LazyAttempts(Sequence[Attempt]):
    """A tuple of :class:`Attempt` s made on first use: a compiled run (the kernel of
    :mod:`coschedule.heuristics.batch.kernel`) returns its attempts as arrays, and the
    objects cost more to build than the run itself; who reads them pays for them. It behaves as
    the tuple: length, indexing, iteration, equality with a tuple or another sequence of
    attempts. ``table``: the same attempts as columns (:meth:`from_columns`), which
    :meth:`AttemptTable.of` returns without building the objects."""

    __slots__ = ("_count", "_make", "_tuple", "table")

    def __init__(self, make: Callable[[], tuple[Attempt, ...]], count: int,
                 table: AttemptTable | None = None) -> None:
        self._make: Callable[[], tuple[Attempt, ...]] | None = make
        self._count = int(count)
        self._tuple: tuple[Attempt, ...] | None = None
        self.table = table

    @classmethod
    def from_columns(cls, job: np.ndarray, index: np.ndarray, outcome: np.ndarray, start: np.ndarray,
                     end: np.ndarray, recovery: np.ndarray, saved_before: np.ndarray, saved_after: np.ndarray,
                     proactive: np.ndarray, node_off: np.ndarray, node_ids: np.ndarray) -> LazyAttempts:
        """The attempts of a compiled run: one per column entry (``outcome`` a code of
        :data:`OUTCOMES`), attempt ``k`` on the distinct node ids ``node_ids[node_off[k]:node_off[k +
        1]]``; ordered by start, job and index, as :class:`~coschedule.sim.engine.Simulation`
        orders its own. Each one's nodes become a :class:`~coschedule.sim.intervals.NodeSet`
        (:func:`~coschedule.sim.intervals.runs_to_intervals`, vectorised), shared by the table
        and the objects."""
        order = np.lexsort((index, job, start))
        # the ids in the attempts' order first (4 bytes an id), then their intervals (16 bytes an
        # interval, as many as ids on scattered nodes): reordering the intervals instead held two
        # copies of them at the run's peak
        node_off = np.asarray(node_off, dtype=np.int64)
        lo, hi = node_off[:-1][order], node_off[1:][order]
        sizes = hi - lo
        ids_off = np.zeros(order.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=ids_off[1:])
        ids = _reorder(np.asarray(node_ids), lo, hi, ids_off)
        new_off, iv, unsorted = runs_to_intervals(ids_off, ids)
        kept = {int(x): np.asarray(ids[ids_off[x]: ids_off[x + 1]], dtype=np.int64) for x in unsorted}
        del ids
        f = np.float64
        table = AttemptTable(
            np.asarray(job, dtype=np.int64)[order], np.asarray(index, dtype=np.int64)[order],
            np.asarray(outcome, dtype=np.int64)[order], np.asarray(start, dtype=f)[order],
            np.asarray(end, dtype=f)[order], np.asarray(recovery, dtype=f)[order],
            np.asarray(saved_before, dtype=f)[order], np.asarray(saved_after, dtype=f)[order],
            np.asarray(proactive, dtype=f)[order], new_off, iv, sizes, np.ones(order.shape[0], dtype=bool))
        iv.flags.writeable = False  # and so every attempt's view of it

        def make() -> tuple[Attempt, ...]:
            t, bounds, trusted = table, new_off.tolist(), NodeSet._trusted
            return tuple(
                Attempt(j, k, s, e, trusted(iv[bounds[x]: bounds[x + 1]], kept.get(x), n), r, sb, sa,
                        OUTCOMES[o], p)
                for x, (j, k, o, s, e, r, sb, sa, p, n) in enumerate(zip(
                    t.job.tolist(), t.index.tolist(), t.outcome.tolist(), t.start.tolist(), t.end.tolist(),
                    t.recovery.tolist(), t.saved_before.tolist(), t.saved_after.tolist(), t.proactive.tolist(),
                    t.size.tolist())))

        return cls(make, order.shape[0], table)

    def _get(self) -> tuple[Attempt, ...]:
        if self._tuple is None:
            assert self._make is not None
            self._tuple = tuple(self._make())
            self._make = None
        return self._tuple

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        return self._get()[k]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._get())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyAttempts):
            other = other._get()
        return self._get() == other if isinstance(other, tuple) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._get())

    def __repr__(self) -> str:
        return f"LazyAttempts({self._count} attempts)"

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (tuple, (self._get(),))


@dataclass(frozen=True, eq=False)
class AttemptTable:
    """A run's attempts as columns, row ``k`` the ``k``-th attempt of the sequence; the nodes of
    row ``k`` are the flat interval array ``iv[iv_off[k]:iv_off[k + 1]]`` (:mod:`.intervals`).
    ``outcome``: the position in :data:`OUTCOMES` (-1: another value); ``size``: how many nodes
    the attempt lists (repeats counted); ``clean``: its job is an integer and its nodes distinct
    integers (a row that is not has no intervals: the validator reads its object)."""

    job: np.ndarray
    index: np.ndarray
    outcome: np.ndarray
    start: np.ndarray
    end: np.ndarray
    recovery: np.ndarray
    saved_before: np.ndarray
    saved_after: np.ndarray
    proactive: np.ndarray
    iv_off: np.ndarray
    iv: np.ndarray
    size: np.ndarray
    clean: np.ndarray

    def __len__(self) -> int:
        return int(self.job.shape[0])

    def nodes(self, k: int) -> np.ndarray:
        """The interval array of row ``k``."""
        return self.iv[self.iv_off[k]: self.iv_off[k + 1]]

    @classmethod
    def of(cls, attempts: Sequence[Attempt]) -> AttemptTable:
        """The table of ``attempts``: a compiled run's own (:meth:`LazyAttempts.from_columns`),
        else read from the objects (their node tuples to intervals in one vectorised pass)."""
        if isinstance(attempts, LazyAttempts) and attempts.table is not None:
            return attempts.table
        att = list(attempts)
        m = len(att)
        jobs = [a.job for a in att]
        job_ok = np.array([isinstance(j, (int, np.integer)) for j in jobs], dtype=bool)
        codes = {name: k for k, name in enumerate(OUTCOMES)}
        outcome = np.array([codes.get(a.outcome, -1) if isinstance(a.outcome, str) else -1 for a in att],
                           dtype=np.int64)
        sets = [a.nodes for a in att]
        size = np.array([len(x) for x in sets], dtype=np.int64)
        clean = job_ok.copy()
        # node tuples: every id an integer? then to intervals, repeats found, all at once
        listed = [k for k, x in enumerate(sets) if not isinstance(x, NodeSet)]
        ints = [k for k in listed if all(isinstance(v, (int, np.integer)) for v in sets[k])]
        clean[np.setdiff1d(np.array(listed, dtype=np.int64), np.array(ints, dtype=np.int64))] = False
        off = np.zeros(len(ints) + 1, dtype=np.int64)
        np.cumsum([len(sets[k]) for k in ints], out=off[1:])
        ids = np.fromiter(itertools.chain.from_iterable(sets[k] for k in ints), dtype=np.int64, count=int(off[-1]))
        seg = np.repeat(np.arange(len(ints)), np.diff(off))
        ids = ids[np.lexsort((ids, seg))]  # increasing within each set
        repeat = np.unique(seg[1:][(ids[1:] == ids[:-1]) & (seg[1:] == seg[:-1])])
        clean[np.array(ints, dtype=np.int64)[repeat]] = False
        keep = ~np.isin(seg, repeat)
        off[1:] = np.cumsum(np.bincount(seg[keep], minlength=len(ints)))
        t_off, t_iv, _ = runs_to_intervals(off, ids[keep])
        per: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * m
        for r, k in enumerate(ints):
            per[k] = t_iv[t_off[r]: t_off[r + 1]]
        for k, x in enumerate(sets):
            if isinstance(x, NodeSet):
                per[k] = x.intervals
            elif not clean[k]:
                per[k] = np.empty(0, dtype=np.int64)
        iv_off = np.zeros(m + 1, dtype=np.int64)
        np.cumsum([p.shape[0] for p in per], out=iv_off[1:])
        iv = np.concatenate(per) if m else np.empty(0, dtype=np.int64)
        return cls(np.array([int(j) if ok else -1 for j, ok in zip(jobs, job_ok)], dtype=np.int64),
                   _column([a.index for a in att]), outcome, _column([a.start for a in att]),
                   _column([a.end for a in att]), _column([a.recovery for a in att]),
                   _column([a.saved_before for a in att]), _column([a.saved_after for a in att]),
                   _column([a.proactive for a in att]), iv_off, iv.astype(np.int64), size, clean)


def _column(values: list[object]) -> np.ndarray:
    """Numbers as float64; a value that is not one becomes NaN (the validator then reads the object)."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        out = np.full(len(values), np.nan)
        for k, v in enumerate(values):
            try:
                out[k] = float(v)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                pass
        return out


@dataclass(frozen=True)
class SimulationResult:
    """An executed online schedule and what produced it."""

    workload: Workload
    policy: str
    attempts: Sequence[Attempt]  # a tuple, or a LazyAttempts that becomes one on first use
    failures: tuple[FailureRecord, ...]
    downtime: float
    checkpointing: Checkpointing
    length: np.ndarray  # extended length E of each job
    walltime: np.ndarray  # extended wall time W of each job
    checkpoints: np.ndarray  # K: checkpoints in a whole run of each job
    completion: np.ndarray  # end of each job's completed attempt
    first_start: np.ndarray
    horizon: float  # the last event's time
    steals: tuple[StealRecord, ...] = ()
    holds: tuple[HoldRecord, ...] = ()
    migration_cost: float = 0.0  # the recovery of an attempt after a migration

    @property
    def flow(self) -> np.ndarray:
        """Completion minus (first) submission, per job."""
        return self.completion - self.workload.submit

    @property
    def restarts(self) -> int:
        """Attempts that did not complete."""
        return int(np.count_nonzero(AttemptTable.of(self.attempts).outcome != OUTCOMES.index(COMPLETED)))
