"""One torus run from names and numbers ([Oliner2004] §6): the jobs of a log on the torus, a
scheduler of :mod:`.policies` by name (or a user's own, ``file.py:Class``, ``module:Class`` or
an installed package's entry point), failures from a file or a count drawn from a seed; what the
``torus simulate`` command and the campaigns call. The simulation core (:mod:`coschedule.sim`)
never imports a policy: this module wires them, as :func:`~coschedule.heuristics.batch.run.run_batch`
does for the batch scheduler. The first layout's name of this module, ``coschedule.torus.run``,
still imports it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from coschedule import plugins
from coschedule.errors import InvalidInstance, InvalidSchedule, PolicyError
from coschedule.sim.engine import Simulation
from coschedule.sim.failures import FailureTrace
from coschedule.sim.workload import Workload
from coschedule.torus.failures import count_failures
from coschedule.torus.geometry import Dims
from coschedule.torus.result import TorusRun, failure_period
from coschedule.torus.validate import validate_torus_run
from coschedule.torus.workload import TorusJobs, torus_workload

from .policies import OPTION_DEFAULTS, get_torus_policy, torus_policy_source, user_torus_policy

__all__ = ["TorusRun", "failure_period", "run_torus"]  # the first two for the old name coschedule.torus.run


def run_torus(
    jobs: TorusJobs | Workload,
    policy: str | plugins.PolicySource = "fcfs",
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
    base: str | Path = ".",
) -> TorusRun:
    """Simulate the scheduler ``policy`` (``fcfs``, ``balancing``, ``tiebreak``) on the torus.

    ``policy`` may also be a user's own (``file.py:Class``, ``module:Class``, a name registered in
    ``coschedule.policies.torus``, or its resolved :class:`~coschedule.plugins.PolicySource` as a
    campaign's cell carries it; ``base``: where a relative file is read from;
    :mod:`coschedule.heuristics.torus.policies`, "Your own torus policy"): its constructor gets
    ``dims`` and the options below that it takes (``backfill``, ``migration``, ``confidence``,
    ``accuracy``, ``pf``, and ``seed`` as the tie-breaking predictor's generator), an option it
    does not take is an error unless at its default; an exception it raises, a rule of the engine
    it breaks or a start on nodes that are not a partition of the job's size is a one-line
    :class:`~coschedule.errors.PolicyError` naming it. The run's ``policy`` is the reference.

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
    if not (isinstance(downtime, (int, float)) and downtime >= 0 and math.isfinite(downtime)):
        raise InvalidInstance(f"downtime must be a finite number >= 0, got {downtime!r}")
    if migration_cost and not migration:
        raise InvalidInstance("migration_cost applies to migration: give migration=True")
    params: dict[str, Any] = {"backfill": bool(backfill), "migration": bool(migration),
                              "migration_cost": float(migration_cost), "migrations": 0, "downtime": float(downtime),
                              "seed": seed,
                              "failure_model": failure_model if failure_count else None}
    user = policy if isinstance(policy, plugins.PolicySource) else torus_policy_source(policy, base=base)
    if user is not None:
        return _run_user(user, jobs, trace, params, confidence=confidence, accuracy=accuracy, pf=pf,
                         seed=np.random.default_rng([root, 1]))
    options: dict[str, Any] = {"backfill": backfill, "migration": migration}
    if policy.lower() == "balancing":
        options.update(confidence=confidence, pf=pf)
    elif policy.lower() == "tiebreak":
        options.update(accuracy=accuracy, seed=np.random.default_rng([root, 1]))
    for label, value, owner in (("confidence", confidence, "balancing"), ("accuracy", accuracy, "tiebreak")):
        if value and policy.lower() != owner:
            raise InvalidInstance(f"{label} is a parameter of {owner}, not of {policy}")
    sched = get_torus_policy(policy, jobs.dims, **options)
    result = Simulation(w, sched, failures=trace, downtime=float(downtime), migration_cost=migration_cost).run()
    params["migrations"] = sched.migrations
    if sched.placement == "balancing":
        params.update(confidence=float(confidence), pf=pf)
    if sched.placement == "tiebreak":
        params["accuracy"] = float(accuracy)
    return TorusRun(result, jobs, trace, sched.placement, params)


def _run_user(src: plugins.PolicySource, jobs: TorusJobs, trace: FailureTrace, params: dict[str, Any],
              **predictor: Any) -> TorusRun:
    """:func:`run_torus` of a user's policy: made with the options it takes, its exceptions and
    its starts off a partition one line naming it."""
    options = {"backfill": params["backfill"], "migration": params["migration"], **predictor}
    sched = user_torus_policy(src, jobs.dims, **options)
    sim = Simulation(jobs.workload, sched, failures=trace, downtime=params["downtime"],
                     migration_cost=params["migration_cost"])
    try:
        result = sim.run()
    except Exception as e:  # the user's code raised: one line, where in their file
        raise plugins.raised(src, e, sim.now) from e
    migrations = getattr(sched, "migrations", 0)
    params["migrations"] = migrations if isinstance(migrations, int) else 0
    params.update({k: v for k, v in predictor.items() if k != "seed" and v != OPTION_DEFAULTS[k]})
    run = TorusRun(result, jobs, trace, src.ref, params)
    try:
        validate_torus_run(run)
    except InvalidSchedule as e:
        raise PolicyError(f"policy {src.ref!r}: {e}") from None
    return run

