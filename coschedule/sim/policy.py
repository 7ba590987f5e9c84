"""What a batch policy is to the engine (:mod:`.engine`): the :class:`Policy` protocol it
implements and the :class:`Instant` it reads; written for users who bring their own policy
(docs/own-policy.md), since the built-in ones (:mod:`coschedule.heuristics.batch`) follow the
same rules.

The engine's promises
---------------------
* **One call per instant.** Every event of an instant is applied first (jobs ending, then nodes
  coming back, then failures, then submissions), then :meth:`Policy.decide` is called once with
  the :class:`Instant` that lists what changed. Failures are the exception: each failure of a
  node running a job calls :meth:`Policy.job_failed` at once, before the next event.
* **Deterministic.** Events of one kind at one instant come in push order; failures in the
  trace's order; the same workload, trace and policy give the same run.
* **What a policy may read** on the :class:`~.engine.Simulation` ``sim``: ``sim.now``,
  ``sim.n_nodes``, ``sim.n``; per job ``j`` (0-based, in workload order; the ids of the file are
  ``sim.workload.ids[j]``): ``sim.submit[j]``, ``sim.release[j]`` (its latest resubmission),
  ``sim.procs[j]`` (nodes it needs), ``sim.wall[j]`` (the wall time its next or current attempt
  is planned with), ``sim.priority[j]`` (3 failed, 2 stolen from, 1 regular),
  ``sim.start_time[j]``, ``sim.held[j]`` (its nodes), ``sim.is_waiting(j)``,
  ``sim.is_running(j)``, ``sim.is_done(j)``; ``sim.running`` (running job -> planned end);
  per node: ``sim.up`` (a boolean array), ``sim.node_job`` (the job on each node, -1 idle),
  ``sim.free_mask()``, ``sim.free_count()``, ``sim.lowest_free(count)``, ``sim.down_nodes()``.
  The actual length of a job (``sim.length``, ``sim.exec``) is there because the engine needs
  it: an online policy does not read it, it reads the wall time.
* **What a policy may do**: ``sim.start(j, nodes)`` (a waiting job, or a failed job still holding
  its nodes), ``sim.requeue(j, priority)`` (a failed job back in the queue), and
  ``sim.wake(t, data)`` to be called again at ``t`` (its ``wake(sim, data, instant)``). Node
  stealing's actions (``hold``, ``steal``, ``suspend``, ``resume``, ``interrupt``) are for
  policies that steal, as :mod:`coschedule.heuristics.batch.stealing` does.
* **What it must never do**: write the state (the lists and arrays above are the engine's),
  start a job before its submission, on a node that is down, busy or does not exist, on the
  wrong number of nodes, or twice; leave a failed job neither restarted nor requeued; leave a
  job waiting for ever. The engine refuses each with a
  :class:`~coschedule.errors.PolicyError` naming the policy, the time, the job and the rule
  (``coschedule batch`` prints it on one line and exits 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: the methods the engine calls on a policy (:class:`Policy`); what a user's class must have
PROTOCOL = ("reset", "job_failed", "decide")

#: what the engine passes as ``sim``: a :class:`coschedule.sim.engine.Simulation` (not imported
#: here: the engine imports this module)
Simulation = Any

__all__ = ["PROTOCOL", "Instant", "Policy"]


@dataclass
class Instant:
    """What changed at instant ``now`` before the policy decides: the jobs that ended, were
    submitted, failed (and were restarted or requeued by :meth:`Policy.job_failed`), were put
    back in the queue outside a failure; the nodes that failed and that came back."""

    now: float
    ended: list[int] = field(default_factory=list)
    submitted: list[int] = field(default_factory=list)
    failed_nodes: list[int] = field(default_factory=list)
    recovered: list[int] = field(default_factory=list)
    failed_jobs: list[int] = field(default_factory=list)
    requeued: list[int] = field(default_factory=list)  # put back in the queue outside a failure


@runtime_checkable
class Policy(Protocol):
    """What the engine calls (module docstring); the policies live in
    :mod:`coschedule.heuristics.batch` or in a user's file (the engine never imports them)."""

    name: str

    def reset(self, sim: Simulation) -> None:
        """Before the first event: forget any earlier run (a policy object may run twice)."""

    def job_failed(self, sim: Simulation, job: int, node: int) -> None:
        """``node`` of running ``job`` failed at ``sim.now``; ``job`` holds its other nodes
        (``sim.held[job]``). Call ``sim.start(job, nodes)`` or ``sim.requeue(job, priority)``."""

    def decide(self, sim: Simulation, instant: Instant) -> None:
        """Once per instant, after every event of it: start jobs with ``sim.start``."""

    # A policy that calls :meth:`Simulation.wake` also has
    # ``wake(self, sim, data, instant) -> None``, called at that instant (a CHECKPOINT event).
