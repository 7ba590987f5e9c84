"""The clairvoyant optimum of tiny online instances: how good is the best possible reaction to
failures? ([Du2024]; the model, its dominance arguments and what is proved:
``docs/clairvoyant.md``.)

The failures are known in advance. A clairvoyant schedule runs each job as a chain of attempts
on any of its node count of nodes, the first not before its submission; every attempt but the
last stops, saving the end of a regular checkpoint or a position where it takes a proactive
checkpoint, and the next one resumes from there after the recovery ``R``. No node runs two
attempts at once, none runs on a node while it is down, none across a failure of one of its
nodes. Under the engine's checkpoint layout (:mod:`coschedule.sim.checkpointing`) everything an
online policy of :mod:`coschedule.sim.engine` does is such a schedule (a policy's failed or
interrupted attempt, cut short at its last save, is one of these stops), so the optimum is at
most every policy's value on the same instance.

* :func:`clairvoyant_instance`: the instance in integer time units (sizes up to 8 jobs and 8
  nodes by default), or a one-line :class:`~coschedule.errors.InvalidInstance`;
* :func:`solve_clairvoyant`: the CP-SAT model (:mod:`.cpsat`) of the maximum flow or the
  weighted mean flow, as an :class:`~coschedule.results.ExactResult`;
* :func:`validate_clairvoyant`: the independent checker of a schedule;
* :func:`exhaustive_optimum`: a dynamic program over the time grid, the tests' reference;
* :func:`schedule_from_run`, :func:`greedy_schedule`: schedules without a solver.

>>> from coschedule.sim import read_batsim, read_failures
>>> from coschedule.data import instances_dir
>>> toy = instances_dir() / "batch"
>>> wl = read_batsim(toy / "toy.json")
>>> inst = clairvoyant_instance(wl, failures=read_failures(toy / "toy-failures.csv", n_nodes=8), downtime=5)
>>> res = solve_clairvoyant(inst, "max")
>>> res.status.value, res.objective
('optimal', 20.0)
"""

from __future__ import annotations

from .cpsat import DEFAULT_MAX_ATTEMPTS, attempt_limits, solve_clairvoyant
from .exhaustive import exhaustive_optimum
from .instance import MAX_SIZE, ClairvoyantInstance, clairvoyant_instance, find_unit
from .schedule import (
    OBJECTIVES,
    ClairvoyantAttempt,
    ClairvoyantSchedule,
    greedy_schedule,
    objective_value,
    schedule_from_run,
    validate_clairvoyant,
)

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "MAX_SIZE",
    "OBJECTIVES",
    "ClairvoyantAttempt",
    "ClairvoyantInstance",
    "ClairvoyantSchedule",
    "attempt_limits",
    "clairvoyant_instance",
    "exhaustive_optimum",
    "find_unit",
    "greedy_schedule",
    "objective_value",
    "schedule_from_run",
    "solve_clairvoyant",
    "validate_clairvoyant",
]
