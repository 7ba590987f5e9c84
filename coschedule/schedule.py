"""The one timeline representation shared by every algorithm.

A schedule is a collection of *executions* ``(job, attempt, start, end, procs, outcome)``;
makespan, flows, utilisation and Gantt charts are derived from it. Pack and shelf schedules
are views over it (see ``CoSchedule.to_schedule``). Intervals are half-open ``[start, end)``:
a job may start exactly when another ends.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ._repr import REPR_MAX_ITEMS, full_repr, summary_repr

__all__ = ["Outcome", "Execution", "Schedule"]


class Outcome(enum.Enum):
    SUCCESS = "success"
    FAILURE = "failure"


@dataclass(frozen=True)
class Execution:
    """One attempt of one job on ``procs`` processors during ``[start, end)``.

    ``nodes`` optionally names the processors used (contiguous or torus views).
    """

    job: int
    attempt: int
    start: float
    end: float
    procs: int
    outcome: Outcome = Outcome.SUCCESS
    nodes: tuple[int, ...] | None = None

    @property
    def duration(self) -> float:
        return self.end - self.start


@dataclass(frozen=True)
class Schedule:
    executions: tuple[Execution, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "executions", tuple(self.executions))

    def __repr__(self) -> str:
        if len(self.executions) <= REPR_MAX_ITEMS:
            return full_repr(self)
        return summary_repr(self, executions=len(self.executions), jobs=len(self.jobs()),
                            makespan=self.makespan)

    @property
    def makespan(self) -> float:
        return max((e.end for e in self.executions), default=0.0)

    def jobs(self) -> set[int]:
        return {e.job for e in self.executions}
