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

:func:`records_of` gives a run's rows (:func:`coschedule.sim.metrics.job_records`, one per attempt)
as :class:`JobRecords`: the :class:`JobRecord` objects made on first use, and the rows written
straight from the run's columns (:class:`~coschedule.sim.result.AttemptTable`, node sets as
intervals), the same bytes without an object per row.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidSchedule
from ..io.files import writing
from .intervals import format_many
from .nodesets import format_nodes
from .result import OUTCOMES, AttemptTable, SimulationResult

__all__ = ["COLUMNS", "FINAL_STATES", "JobRecord", "JobRecords", "records_of", "write_jobs_csv"]

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


class JobRecords(Sequence[JobRecord]):
    """A run's :class:`JobRecord` s, made on first use, and :meth:`rows`, their rows made from
    columns (what :func:`write_jobs_csv` writes)."""

    __slots__ = ("_make", "_records", "_rows", "_text")

    def __init__(self, make: Callable[[], list[JobRecord]],
                 rows: Callable[[], tuple[Iterable[list[list[Any]]], int] | None] | None = None,
                 text: Callable[[], tuple[Iterable[str], int] | None] | None = None) -> None:
        self._make = make
        self._rows = rows
        self._text = text
        self._records: list[JobRecord] | None = None

    def _get(self) -> list[JobRecord]:
        if self._records is None:
            self._records = self._make()
        return self._records

    def __len__(self) -> int:
        return len(self._get())

    def __getitem__(self, k):  # type: ignore[no-untyped-def]
        return self._get()[k]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._get())

    def rows(self) -> tuple[Iterable[list[list[Any]]], int]:
        """The rows of :meth:`JobRecord.row`, in order, in chunks; and their number."""
        rows = None if self._rows is None else self._rows()
        if rows is None:
            made = [r.row() for r in self._get()]
            return [made], len(made)
        return rows

    def text(self) -> tuple[Iterable[str], int] | None:
        """The rows as :func:`write_jobs_csv` writes them, in chunks, and their number, or
        ``None`` (then write :meth:`rows`)."""
        return None if self._text is None else self._text()


#: a character that makes csv quote a field (the delimiter, the quote, a line end)
_QUOTED = re.compile(r'[,"\r\n]')
#: rows made at once when a run's jobs.csv is written
ROWS_AT_ONCE = 50_000
#: Batsim's final state of an attempt, by outcome
_STATE = {"completed": "COMPLETED_SUCCESSFULLY", "failed": "COMPLETED_KILLED",
          "interrupted": "COMPLETED_KILLED", "checkpointed": "COMPLETED_KILLED", "migrated": "COMPLETED_KILLED"}


def records_of(result: SimulationResult) -> JobRecords:
    """One record per attempt, by job in submission order, then by attempt
    (:func:`coschedule.sim.metrics.job_records` says what each column holds)."""
    wl = result.workload
    name = wl.name or "w0"

    def make() -> list[JobRecord]:
        by_job: dict[int, list[Any]] = {}
        for a in result.attempts:
            by_job.setdefault(a.job, []).append(a)
        records = []
        for j in sorted(by_job):
            previous_end = float(wl.submit[j])
            for a in sorted(by_job[j], key=lambda a: a.index):
                job_id = wl.ids[j] if a.index == 0 else f"{wl.ids[j]}#{a.index}"
                records.append(JobRecord(
                    job_id=job_id, submission_time=previous_end, requested_nodes=int(wl.nodes[j]),
                    requested_time=float(a.recovery + result.walltime[j] - a.saved_before),
                    starting_time=float(a.start), finish_time=float(a.end), nodes=a.nodes,
                    final_state=_STATE[a.outcome], workload_name=name, metadata=a.outcome,
                ))
                previous_end = float(a.end)
        return records

    def arrays() -> list[Any] | None:
        """The rows' varying values, column by column, as arrays from the attempt table (by job,
        then attempt); ``None`` (make the records) when a row would not be valid."""
        t = AttemptTable.of(result.attempts)
        if not (t.clean.all() and np.all(t.outcome >= 0) and np.all((t.job >= 0) & (t.job < wl.n))):
            return None
        order = np.lexsort((t.index, t.job))
        J, k = t.job[order], t.index[order]
        start, end = t.start[order], t.end[order]
        first = np.ones(order.shape[0], dtype=bool)
        first[1:] = J[1:] != J[:-1]
        submit = np.where(first, wl.submit[J], np.r_[0.0, end[:-1]] if end.size else end)
        with np.errstate(invalid="ignore"):
            if not np.all(np.isfinite(submit) & np.isfinite(start) & np.isfinite(end)
                          & (submit <= start) & (start <= end)):
                return None  # the records raise there
            requested = t.recovery[order] + np.asarray(result.walltime, dtype=np.float64)[J] - t.saved_before[order]
            execution, turnaround = end - start, end - submit
            stretch = np.where(execution > 0, turnaround / np.where(execution > 0, execution, 1.0), -1.0)
        return [J, k, submit, wl.nodes[J], requested, t.outcome[order], start, execution, end, turnaround, stretch,
                t.iv_off[:-1][order], t.iv_off[1:][order], t.iv]

    def columns(a: list[Any], lo: int, hi: int) -> list[list[Any]]:
        """Rows ``lo`` to ``hi`` of :func:`arrays`, column by column, as Python values."""
        J, k, submit, p, requested, outcome, start, execution, end, turnaround, stretch, o0, o1, iv = a
        ids = wl.ids
        jobs = [ids[j] if x == 0 else f"{ids[j]}#{int(x)}" for j, x in zip(J[lo:hi].tolist(), k[lo:hi].tolist())]
        return [jobs, submit[lo:hi].tolist(), p[lo:hi].tolist(), requested[lo:hi].tolist(),
                [OUTCOMES[o] for o in outcome[lo:hi].tolist()], start[lo:hi].tolist(), execution[lo:hi].tolist(),
                end[lo:hi].tolist(), turnaround[lo:hi].tolist(), stretch[lo:hi].tolist(),
                format_many(iv, o0[lo:hi], o1[lo:hi])]

    def chunks(a: list[Any]) -> Iterator[list[list[Any]]]:
        """:func:`columns` :data:`ROWS_AT_ONCE` rows at a time (a million attempts' rows as Python
        values at once took gigabytes)."""
        n = a[0].shape[0]
        for lo in range(0, n, ROWS_AT_ONCE):
            yield columns(a, lo, min(n, lo + ROWS_AT_ONCE))

    def rows() -> tuple[Iterator[list[list[Any]]], int] | None:
        """The rows of :meth:`JobRecord.row` in chunks, and their number; ``None`` when a row
        would not be valid."""
        a = arrays()
        if a is None:
            return None

        def made() -> Iterator[list[list[Any]]]:
            for c in chunks(a):
                yield [[job, name, "", sub, p, req, int(o == "completed"), _STATE[o], s, ex, e, s - sub, tu, st, alloc,
                        -1.0, o] for job, sub, p, req, o, s, ex, e, tu, st, alloc in zip(*c)]
        return made(), int(a[0].shape[0])

    def text() -> tuple[Iterator[str], int] | None:
        """The rows as :mod:`csv` writes them (``repr`` of the floats, ``\\r\\n`` after each), with
        f-strings, in chunks, and their number; ``None`` when a job id or the workload's name would
        be quoted, or a row would not be valid."""
        if _QUOTED.search(name) or any(_QUOTED.search(i) for i in wl.ids):
            return None
        a = arrays()
        if a is None:
            return None
        state = {o: f"{int(o == 'completed')},{_STATE[o]}" for o in _STATE}

        def made() -> Iterator[str]:
            for c in chunks(a):
                yield "".join([f"{job},{name},,{sub!r},{p},{req!r},{state[o]},{s!r},{ex!r},{e!r},{s - sub!r},{tu!r},"
                               f"{st!r},{alloc},-1.0,{o}\r\n"
                               for job, sub, p, req, o, s, ex, e, tu, st, alloc in zip(*c)])
        return made(), int(a[0].shape[0])

    return JobRecords(make, rows, text)


def write_jobs_csv(records: Iterable[JobRecord], path: str | Path) -> int:
    """Write ``records`` as a Batsim ``jobs.csv``; returns the number of rows. A run's
    :class:`JobRecords` are written from its columns."""
    count = 0
    with writing(path, newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(COLUMNS)
        if isinstance(records, JobRecords):
            text = records.text()
            if text is not None:
                for part in text[0]:
                    fh.write(part)
                return text[1]
            rows, count = records.rows()
            for part in rows:
                writer.writerows(part)
            return count
        for record in records:
            writer.writerow(record.row())
            count += 1
    return count
