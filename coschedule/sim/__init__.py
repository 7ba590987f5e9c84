"""The online simulation core shared by every fail-stop simulator (ARCHITECTURE.md, "Online
simulation"): the batch scheduler with node failures, the BlueGene/L torus scheduler and the
pack of malleable applications with redistribution all run on it; none keeps a private copy.

* :mod:`.events` -- the one event queue: a heap of ``(time, kind rank, sequence)`` whose ties
  are broken the same documented way on every run;
* :mod:`.failures` -- fail-stop failure traces: per-node Poisson failures from a seed, or read
  from / written to a ``time,node`` CSV file, so that one trace drives every policy of a
  comparison;
* :mod:`.workload` -- online jobs (submit, nodes, wall time, length) from SWF traces and Batsim
  JSON workloads, written as Batsim JSON;
* :mod:`.nodesets` -- node sets as interval strings (``"0-3 7"``), as Batsim's ``jobs.csv`` and
  evalys write them;
* :mod:`.jobs_csv` -- per-job results as Batsim's ``jobs.csv`` (evalys reads it).
* :mod:`.profile` -- the one availability profile (free nodes over time) of every
  reservation-based policy.
* :mod:`.metrics` -- the metrics of a run ([Du2024] §5.3): flow, wait, bounded slowdown, per
  size class, with pruning; the utilization decomposed over a time window (useful, checkpoint,
  recovery, lost, downtime, idle); :func:`summarize` gives them as a :class:`Summary` (JSON,
  text table); :func:`job_records` gives ``jobs.csv`` one row per attempt;
* :mod:`.validate` -- :func:`validate_run`, the check of an executed schedule, independent of
  the engine.
"""

from typing import TYPE_CHECKING

from .._lazy import attach

if TYPE_CHECKING:  # imported when first read (coschedule._lazy): the core's numpy and numba on use
    from .events import EVENT_ORDER, Event, EventKind, EventQueue
    from .failures import FailureTrace, poisson_failures, read_failures, uniform_failures, write_failures
    from .jobs_csv import JobRecord, write_jobs_csv
    from .metrics import (
        GAMMA,
        SIZE_BOUNDARIES,
        ClassStats,
        FlowStats,
        Summary,
        Utilization,
        bounded_slowdown,
        flow_stats,
        job_records,
        pruned_jobs,
        size_classes,
        summarize,
        utilization,
        waits,
    )
    from .nodesets import format_nodes, parse_nodes
    from .profile import AvailabilityProfile
    from .validate import validate_run
    from .workload import Workload, read_batsim, workload_from_swf, write_batsim

__all__ = [
    "EVENT_ORDER",
    "Event",
    "EventKind",
    "EventQueue",
    "FailureTrace",
    "poisson_failures",
    "read_failures",
    "uniform_failures",
    "write_failures",
    "Workload",
    "read_batsim",
    "workload_from_swf",
    "write_batsim",
    "AvailabilityProfile",
    "format_nodes",
    "parse_nodes",
    "JobRecord",
    "write_jobs_csv",
    "GAMMA",
    "SIZE_BOUNDARIES",
    "ClassStats",
    "FlowStats",
    "Summary",
    "Utilization",
    "bounded_slowdown",
    "flow_stats",
    "job_records",
    "pruned_jobs",
    "size_classes",
    "summarize",
    "utilization",
    "waits",
    "validate_run",
]

__getattr__, __dir__ = attach(__name__, {
    ".events": ("EVENT_ORDER", "Event", "EventKind", "EventQueue"),
    ".failures": ("FailureTrace", "poisson_failures", "read_failures", "uniform_failures", "write_failures"),
    ".jobs_csv": ("JobRecord", "write_jobs_csv"),
    ".metrics": ("GAMMA", "SIZE_BOUNDARIES", "ClassStats", "FlowStats", "Summary", "Utilization", "bounded_slowdown",
                 "flow_stats", "job_records", "pruned_jobs", "size_classes", "summarize", "utilization", "waits"),
    ".nodesets": ("format_nodes", "parse_nodes"),
    ".profile": ("AvailabilityProfile",),
    ".validate": ("validate_run",),
    ".workload": ("Workload", "read_batsim", "workload_from_swf", "write_batsim"),
})
