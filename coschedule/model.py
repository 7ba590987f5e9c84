"""The problem model: moldable tasks, platforms, packs and co-schedules.

Paper: [Aupy2017] §1.3.1–1.3.2. A task ``T_i`` has an execution-time
profile ``t(i, j)`` for ``j`` processors that is non-increasing in time (1.1) and non-decreasing
in work ``j * t(i, j)`` (1.2). A *pack* runs its tasks side by side from the same start, each on
its own processors; its cost is its longest task, and a co-schedule runs its packs one after
the other, so its cost is the sum of the pack costs.

Conventions (documented in ``docs/model.md``):

* ``times[j - 1]`` is the time on ``j`` processors. A profile shorter than the platform is
  extended with its last value ("never use more than j0 processors", §1.3.1); entries beyond
  the platform size are never used, but they are still checked against (1.1)-(1.2).
* A task with a minimum processor count ``min_procs`` (end of §1.4.4) cannot run on fewer
  processors: its time there is ``inf`` and (1.1)–(1.2) are checked only from ``min_procs`` on.
* Monotonicity is checked with a relative tolerance ``PROFILE_RTOL``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._repr import REPR_MAX_ITEMS, full_repr, summary_repr
from .errors import InvalidInstance
from .schedule import Execution, Schedule

__all__ = [
    "PROFILE_RTOL",
    "MoldableTask",
    "MoldableInstance",
    "Allocation",
    "Pack",
    "CoSchedule",
]

#: relative tolerance of the monotonicity checks (1.1) and (1.2)
PROFILE_RTOL = 1e-9


@dataclass(frozen=True)
class MoldableTask:
    """A moldable task with its execution-time profile.

    Parameters
    ----------
    times
        ``times[j - 1]`` = execution time on ``j`` processors. Entries below ``min_procs`` are
        ignored (they may be ``None`` or ``inf`` in files).
    min_procs
        Minimum number of processors the task can run on (1 by default).
    memory
        Memory footprint ``m_i`` (data size), used for checkpoint costs; 0 if unknown.
    name
        Optional label, used in messages and outputs.
    """

    times: tuple[float, ...]
    min_procs: int = 1
    memory: float = 0.0
    name: str | None = None

    def __post_init__(self) -> None:
        label = self.label
        if isinstance(self.min_procs, bool) or not isinstance(self.min_procs, (int, np.integer)):
            raise InvalidInstance(f"{label}: min_procs must be an integer, got {self.min_procs!r}")
        if self.min_procs < 1:
            raise InvalidInstance(f"{label}: min_procs {self.min_procs} < 1")
        if len(self.times) < self.min_procs:
            raise InvalidInstance(
                f"{label}: profile has {len(self.times)} entries but min_procs is {self.min_procs}"
            )
        clean: list[float] = []
        for j, t in enumerate(self.times, start=1):
            if j < self.min_procs:
                clean.append(math.inf)
                continue
            if t is None or isinstance(t, bool):
                raise InvalidInstance(f"{label}: time on {j} processors is missing")
            try:
                value = float(t)
            except (TypeError, ValueError):
                raise InvalidInstance(
                    f"{label}: time on {j} processors is not a number: {t!r}"
                ) from None
            except OverflowError:  # an integer too large for a float (e.g. from a JSON file)
                value = math.inf
            if not math.isfinite(value) or value <= 0:
                raise InvalidInstance(
                    f"{label}: time on {j} processors must be positive and finite, got {t!r}"
                )
            clean.append(value)
        try:
            memory = float(self.memory)
        except (TypeError, ValueError, OverflowError):
            raise InvalidInstance(f"{label}: memory must be a number, got {self.memory!r}") from None
        if not math.isfinite(memory) or memory < 0:
            raise InvalidInstance(f"{label}: memory must be >= 0, got {self.memory!r}")
        for j in range(self.min_procs, len(clean)):
            prev, cur = clean[j - 1], clean[j]
            if cur > prev * (1 + PROFILE_RTOL):
                raise InvalidInstance(
                    f"{label}: time increases from {j} to {j + 1} processors ({prev:g} -> {cur:g}),"
                    " violating (1.1)"
                )
            if (j + 1) * cur < j * prev * (1 - PROFILE_RTOL):
                raise InvalidInstance(
                    f"{label}: work decreases from {j} to {j + 1} processors "
                    f"({j * prev:g} -> {(j + 1) * cur:g}), violating (1.2)"
                )
        object.__setattr__(self, "times", tuple(clean))
        # plain Python numbers (numpy scalars are accepted but not JSON-serialisable)
        object.__setattr__(self, "min_procs", int(self.min_procs))
        object.__setattr__(self, "memory", memory)

    def __repr__(self) -> str:
        if len(self.times) <= 2 * REPR_MAX_ITEMS:
            return full_repr(self)
        return summary_repr(self, profile=f"{len(self.times)} times, {self.time(self.min_procs):.6g} .. "
                            f"{self.times[-1]:.6g}", min_procs=self.min_procs, memory=self.memory, name=self.name)

    @property
    def label(self) -> str:
        return f"task {self.name!r}" if self.name is not None else "task"

    def time(self, procs: int) -> float:
        """Execution time on ``procs`` processors (``inf`` below ``min_procs``)."""
        if procs < self.min_procs:
            return math.inf
        return self.times[min(procs, len(self.times)) - 1]

    def work(self, procs: int) -> float:
        return procs * self.time(procs)


@dataclass(frozen=True)
class MoldableInstance:
    """Moldable tasks on a platform of ``p`` identical processors (§1.3)."""

    tasks: tuple[MoldableTask, ...]
    p: int
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", tuple(self.tasks))
        if isinstance(self.p, bool) or not isinstance(self.p, (int, np.integer)) or self.p < 1:
            raise InvalidInstance(f"platform size p must be a positive integer, got {self.p!r}")
        object.__setattr__(self, "p", int(self.p))
        if not self.tasks:
            raise InvalidInstance("instance has no task")
        for i, task in enumerate(self.tasks):
            if task.min_procs > self.p:
                raise InvalidInstance(
                    f"{self.task_label(i)}: needs at least {task.min_procs} processors "
                    f"but the platform has p = {self.p}"
                )

    def __repr__(self) -> str:
        if self.n <= REPR_MAX_ITEMS:
            return full_repr(self)
        return summary_repr(self, n=self.n, p=self.p, name=self.name)

    @property
    def n(self) -> int:
        return len(self.tasks)

    def task_label(self, i: int) -> str:
        name = self.tasks[i].name
        return f"task {i}" + (f" ({name})" if name is not None else "")

    @cached_property
    def time_matrix(self) -> np.ndarray:
        """``T[i, j]`` = time of task ``i`` on ``j`` processors, ``j = 0..p`` (``T[:, 0] = inf``).

        Read-only; shared by the algorithms that need vectorised access.
        """
        T = np.full((self.n, self.p + 1), math.inf)
        for i, task in enumerate(self.tasks):
            prof = np.asarray(task.times[: self.p], dtype=float)
            T[i, 1 : 1 + len(prof)] = prof
            T[i, 1 + len(prof) :] = prof[-1]
        T.setflags(write=False)
        return T

    @cached_property
    def min_procs(self) -> np.ndarray:
        arr = np.array([t.min_procs for t in self.tasks], dtype=np.int64)
        arr.setflags(write=False)
        return arr

    def time(self, i: int, procs: int) -> float:
        """Time of task ``i`` on ``procs`` processors; ``inf`` outside ``[min_procs, p]``."""
        return self.tasks[i].time(procs) if procs <= self.p else math.inf


@dataclass(frozen=True)
class Allocation:
    """Task ``task`` runs on ``procs`` processors inside a pack."""

    task: int
    procs: int


@dataclass(frozen=True)
class Pack:
    """Tasks that start together and run side by side (§1.3.2)."""

    allocations: tuple[Allocation, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "allocations", tuple(self.allocations))

    @classmethod
    def of(cls, sigma: dict[int, int] | Iterable[tuple[int, int]]) -> "Pack":
        items = sigma.items() if isinstance(sigma, dict) else sigma
        return cls(tuple(Allocation(int(i), int(q)) for i, q in items))

    @property
    def tasks(self) -> tuple[int, ...]:
        return tuple(a.task for a in self.allocations)

    @property
    def procs(self) -> int:
        return sum(a.procs for a in self.allocations)

    def cost(self, instance: MoldableInstance) -> float:
        """Cost of the pack: its longest task (§1.3.2)."""
        return max(instance.time(a.task, a.procs) for a in self.allocations)


@dataclass(frozen=True)
class CoSchedule:
    """A sequence of packs (§1.3.2). Its cost is the sum of the pack costs."""

    packs: tuple[Pack, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "packs", tuple(self.packs))

    def __repr__(self) -> str:
        if len(self.packs) <= REPR_MAX_ITEMS:
            return full_repr(self)
        return summary_repr(self, packs=len(self.packs), tasks=sum(len(p.allocations) for p in self.packs))

    def cost(self, instance: MoldableInstance) -> float:
        return math.fsum(pack.cost(instance) for pack in self.packs)

    def canonical(self, instance: MoldableInstance) -> "CoSchedule":
        """The same co-schedule with packs sorted by decreasing cost and tasks by index."""
        packs = [
            Pack(tuple(sorted(p.allocations, key=lambda a: a.task))) for p in self.packs
        ]
        packs.sort(key=lambda pk: (-pk.cost(instance), pk.tasks))
        return CoSchedule(tuple(packs))

    def to_schedule(self, instance: MoldableInstance) -> Schedule:
        """The timeline view: packs one after the other, each task once, successful."""
        executions: list[Execution] = []
        start = 0.0
        for pack in self.packs:
            for a in pack.allocations:
                executions.append(
                    Execution(a.task, 0, start, start + instance.time(a.task, a.procs), a.procs)
                )
            start += pack.cost(instance)
        return Schedule(tuple(executions))


def coschedule_from_sigma(packs: Sequence[Sequence[int]], sigma: Sequence[int]) -> CoSchedule:
    """Build a co-schedule from task groups and a per-task processor count."""
    return CoSchedule(tuple(Pack.of((i, sigma[i]) for i in group) for group in packs))


__all__.append("coschedule_from_sigma")
