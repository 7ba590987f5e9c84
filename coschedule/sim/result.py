"""What an online run records (:mod:`.engine` makes them): every attempt of a job
(:class:`Attempt`), every applied failure (:class:`FailureRecord`), node stealing's steals and holds,
and the whole run (:class:`SimulationResult`), for the validator (:mod:`.validate`), the metrics
(:mod:`.metrics`) and ``jobs.csv``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .checkpointing import Checkpointing
from .workload import Workload

__all__ = [
    "CHECKPOINTED",
    "COMPLETED",
    "FAILED",
    "INTERRUPTED",
    "MIGRATED",
    "REACTIONS",
    "Attempt",
    "FailureRecord",
    "HoldRecord",
    "LazyAttempts",
    "SimulationResult",
    "StealRecord",
]

#: outcomes of an attempt (:attr:`Attempt.outcome`)
COMPLETED, FAILED, INTERRUPTED, CHECKPOINTED = "completed", "failed", "interrupted", "checkpointed"
MIGRATED = "migrated"
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
    the next attempt, whose recovery is the run's migration cost; the torus scheduler)."""

    job: int
    index: int
    start: float
    end: float
    nodes: tuple[int, ...]
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
    nodes: tuple[int, ...]
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
    nodes: tuple[int, ...]


class LazyAttempts(Sequence[Attempt]):
    """A tuple of :class:`Attempt` s made on first use: a compiled run (the kernel of
    :mod:`coschedule.heuristics.batch.kernel`) returns its attempts as arrays, and the
    objects cost more to build than the run itself; who reads them pays for them. It behaves as
    the tuple: length, indexing, iteration, equality with a tuple or another sequence of
    attempts."""

    __slots__ = ("_count", "_make", "_tuple")

    def __init__(self, make: Callable[[], tuple[Attempt, ...]], count: int) -> None:
        self._make: Callable[[], tuple[Attempt, ...]] | None = make
        self._count = int(count)
        self._tuple: tuple[Attempt, ...] | None = None

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
        return sum(1 for a in self.attempts if a.outcome != COMPLETED)
