"""Per-job results of an online run as Batsim's ``jobs.csv``, which evalys and other tools read.

Columns, in Batsim's order: ``job_id, workload_name, profile, submission_time,
requested_number_of_resources, requested_time, success, final_state, starting_time,
execution_time, finish_time, waiting_time, turnaround_time, stretch, allocated_resources,
consumed_energy, metadata``. Times are seconds; ``allocated_resources`` is an interval string
(``"0-3 7"``, :mod:`coschedule.sim.nodesets`); ``success`` is 1 or 0 and ``final_state`` one of
Batsim's ``COMPLETED_SUCCESSFULLY``, ``COMPLETED_FAILED``, ``COMPLETED_KILLED``,
``COMPLETED_WALLTIME_REACHED``, ``REJECTED``. The derived columns follow Batsim:
``execution_time = finish - start``, ``waiting_time = start - submission``, ``turnaround_time =
finish - submission``, ``stretch = turnaround / execution`` (``-1`` for a zero execution time);
``consumed_energy`` is ``-1`` (not modelled).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidSchedule
from .nodesets import format_nodes

__all__ = ["COLUMNS", "FINAL_STATES", "JobRecord", "write_jobs_csv"]

COLUMNS: tuple[str, ...] = (
    "job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
    "requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
    "waiting_time", "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
    "metadata",
)
FINAL_STATES = ("COMPLETED_SUCCESSFULLY", "COMPLETED_FAILED", "COMPLETED_KILLED",
                "COMPLETED_WALLTIME_REACHED", "REJECTED")


@dataclass(frozen=True)
class JobRecord:
    """What happened to one job (or one attempt of it) in an online run."""

    job_id: str
    submission_time: float
    requested_nodes: int
    requested_time: float
    starting_time: float
    finish_time: float
    nodes: Sequence[int]
    final_state: str = "COMPLETED_SUCCESSFULLY"
    workload_name: str = "w0"
    profile: str = ""
    metadata: str = ""
    energy: float = field(default=-1.0)

    def __post_init__(self) -> None:
        if self.final_state not in FINAL_STATES:
            raise InvalidSchedule(f"job {self.job_id}: final_state {self.final_state!r} is not one of {FINAL_STATES}")
        times = (self.submission_time, self.starting_time, self.finish_time)
        if not all(math.isfinite(t) for t in times) or not times[0] <= times[1] <= times[2]:
            raise InvalidSchedule(f"job {self.job_id}: needs submission <= start <= finish, got {times}")

    def row(self) -> list[object]:
        execution = self.finish_time - self.starting_time
        turnaround = self.finish_time - self.submission_time
        return [
            self.job_id, self.workload_name, self.profile, self.submission_time, self.requested_nodes,
            self.requested_time, int(self.final_state == "COMPLETED_SUCCESSFULLY"), self.final_state,
            self.starting_time, execution, self.finish_time, self.starting_time - self.submission_time,
            turnaround, turnaround / execution if execution > 0 else -1.0, format_nodes(self.nodes),
            self.energy, self.metadata,
        ]


def write_jobs_csv(records: Iterable[JobRecord], path: str | Path) -> int:
    """Write ``records`` as a Batsim ``jobs.csv``; returns the number of rows."""
    count = 0
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        for record in records:
            writer.writerow(record.row())
            count += 1
    return count
