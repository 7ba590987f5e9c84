"""An executed torus schedule ([Oliner2004] §6): :class:`TorusRun`, what the metrics
(:mod:`.metrics`), the validator (:mod:`.validate`) and the picture take, and the period over
which a failure count is spread (:func:`failure_period`). The run itself, from names and numbers,
is :func:`coschedule.heuristics.torus.run.run_torus`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coschedule.sim.failures import FailureTrace
from coschedule.sim.result import SimulationResult
from coschedule.sim.workload import Workload

from .geometry import Dims
from .workload import TorusJobs

__all__ = ["TorusRun", "failure_period"]


@dataclass(frozen=True)
class TorusRun:
    """An executed torus schedule and what produced it: the engine's ``result`` (attempts on
    flat node indices), the ``jobs`` (sizes, scaling, what was dropped), the failure ``trace``
    it ran on and the scheduler's parameters."""

    result: SimulationResult
    jobs: TorusJobs
    trace: FailureTrace
    policy: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def dims(self) -> Dims:
        return self.jobs.dims


def failure_period(workload: Workload) -> tuple[float, float]:
    """The log's period over which a failure count is spread: from the first submission to the
    latest ``submit + t`` (each job's end were it to start at once)."""
    if not workload.n:
        return 0.0, 0.0
    return float(workload.submit.min()), float((workload.submit + workload.length).max())
