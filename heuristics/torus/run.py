"""One torus run from names and numbers ([Oliner2004] §6): the jobs of a log on the torus, a
scheduler of :mod:`.policies` by name, failures from a file or a count drawn
from a seed; what the ``torus simulate`` command and the campaigns call. The simulation core
(:mod:`coschedule.sim`) never imports a policy: this module wires them, as
:func:`~coschedule.heuristics.batch.run.run_batch` does for the batch scheduler. The first
layout's name of this module, ``coschedule.torus.run``, still imports it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.sim.engine import Simulation
from coschedule.sim.failures import FailureTrace
from coschedule.sim.workload import Workload
from coschedule.torus.failures import count_failures
from coschedule.torus.geometry import Dims
from coschedule.torus.result import TorusRun, failure_period
from coschedule.torus.workload import TorusJobs, torus_workload

from .policies import get_torus_policy

__all__ = ["TorusRun", "failure_period", "run_torus"]  # the first two for the old name coschedule.torus.run


def run_torus(
    jobs: TorusJobs | Workload,
    policy: str = "fcfs",
    *,
    dims: Dims | None = None,
    load_scale: float = 1.0,
    failures: FailureTrace | None = None,
    failure_count: int | None = None,
    failure_model: str = "clustered",
    seed: int | None = None,
    downtime: float = 0.0,
    confidence: float = 0.0,
    accuracy: float = 0.0,
    pf: str = "max",
    backfill: bool = True,
    migration: bool = True,
    migration_cost: float = 0.0,
) -> TorusRun:
    """Simulate the scheduler ``policy`` (``fcfs``, ``balancing``, ``tiebreak``) on the torus.

    ``jobs``: a :class:`~coschedule.torus.workload.TorusJobs`, or a workload with ``dims`` (and
    ``load_scale``) to make one. Failures: ``failures`` (a trace on the torus's nodes), else
    ``failure_count`` failures spread over :func:`failure_period` by ``failure_model``
    (``clustered``, the default, or ``uniform``; :mod:`coschedule.torus.failures`) from
    ``seed``, else none. ``downtime`` 0 (default) makes
    failures transient (§6.1): the job is lost, the node is available at once; ``D > 0`` keeps
    the node down ``D`` seconds (§7.1's "realistic" case). ``migration``: Krevat's migration
    (:mod:`coschedule.heuristics.torus`), each move costing ``migration_cost`` seconds; on by
    default, as in the paper's system (§5.2.1: Balancing "is based on the FCFS scheduler for BG/L
    [11], including backfilling and migration"), ``False`` for FCFS without it. The tie-breaking predictor's draws
    come from ``seed``'s own stream (not the failures'): seed 0 when no seed is given.
    """
    if isinstance(jobs, Workload):
        if dims is None:
            raise InvalidInstance("run_torus: a workload needs dims (the torus shape)")
        jobs = torus_workload(jobs, dims, load_scale=load_scale)
    elif dims is not None and tuple(dims) != jobs.dims:
        raise InvalidInstance(f"run_torus: the jobs are for the torus {jobs.dims}, not {tuple(dims)}")
    w = jobs.workload
    N = w.n_nodes
    if failures is not None and failure_count is not None:
        raise InvalidInstance("give failures (a trace) or failure_count, not both")
    if failures is None and failure_count:
        start, end = failure_period(w)
        failures = count_failures(jobs.dims, int(failure_count), start=start, end=end, seed=seed,
                                  model=failure_model)
    trace = failures if failures is not None else FailureTrace.none(N)

    root = 0 if seed is None else int(seed)
    options: dict[str, Any] = {"backfill": backfill, "migration": migration}
    if policy.lower() == "balancing":
        options.update(confidence=confidence, pf=pf)
    elif policy.lower() == "tiebreak":
        options.update(accuracy=accuracy, seed=np.random.default_rng([root, 1]))
    for label, value, owner in (("confidence", confidence, "balancing"), ("accuracy", accuracy, "tiebreak")):
        if value and policy.lower() != owner:
            raise InvalidInstance(f"{label} is a parameter of {owner}, not of {policy}")
    sched = get_torus_policy(policy, jobs.dims, **options)
    if not (isinstance(downtime, (int, float)) and downtime >= 0 and math.isfinite(downtime)):
        raise InvalidInstance(f"downtime must be a finite number >= 0, got {downtime!r}")
    if migration_cost and not migration:
        raise InvalidInstance("migration_cost applies to migration: give migration=True")
    result = Simulation(w, sched, failures=trace, downtime=float(downtime), migration_cost=migration_cost).run()
    params = {"backfill": bool(backfill), "migration": bool(migration), "migration_cost": float(migration_cost),
              "migrations": sched.migrations, "downtime": float(downtime), "seed": seed,
              "failure_model": failure_model if failure_count else None}
    if sched.placement == "balancing":
        params.update(confidence=float(confidence), pf=pf)
    if sched.placement == "tiebreak":
        params["accuracy"] = float(accuracy)
    return TorusRun(result, jobs, trace, sched.placement, params)
