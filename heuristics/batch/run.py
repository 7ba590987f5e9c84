"""One batch run from names and numbers: the workload, a policy of
:mod:`coschedule.heuristics.batch` by name, failures from a file or drawn from a seed, the
checkpoint model; what the ``batch`` command and the campaigns call (the simulation core,
:mod:`coschedule.sim`, never imports a policy: this module wires them).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from coschedule.heuristics.batch.backfilling import default_reservations
from coschedule.heuristics.batch.policies import batch_policy_source, user_policy
from coschedule.plugins import PolicySource, raised
from coschedule.sim.checkpointing import Checkpointing, failure_horizon
from coschedule.sim.engine import Policy, Simulation
from coschedule.sim.failures import FailureTrace, poisson_failures
from coschedule.sim.result import SimulationResult
from coschedule.sim.workload import Workload

__all__ = ["BACKENDS", "failure_horizon", "make_policy", "run_batch"]

#: values of ``run_batch(..., backend=...)``
BACKENDS = ("auto", "kernel", "reference")


def _use_kernel(policy: object, backend: str) -> bool:
    if backend == "reference":
        return False
    from coschedule import jit
    from coschedule.heuristics.batch.kernel import KERNEL_POLICIES

    fits = isinstance(policy, str) and policy.lower() in KERNEL_POLICIES
    if backend == "kernel":
        if not fits:
            raise ValueError("the kernel runs the policies fcfs, easy, conservative (baseline) and node stealing "
                             f"sfsj, h111..h323 (by name), not {policy!r}")
        return True
    return fits and jit.HAVE_NUMBA


def _is_stealing(name: str) -> bool:
    from coschedule.heuristics.batch.stealing import STEALING_POLICIES

    return name.lower() in STEALING_POLICIES


def make_policy(policy: str | Policy, **options: Any) -> Policy:
    """A policy object: ``policy`` itself, or a new one by name (``fcfs``, ``easy``,
    ``conservative`` / ``baseline``, node stealing ``sfsj``, ``h111`` ... ``h323``)."""
    if isinstance(policy, str):
        from coschedule.heuristics.batch.policies import get_batch_policy

        return get_batch_policy(policy, **options)
    return policy


def run_batch(
    workload: Workload,
    policy: str | Policy | PolicySource = "conservative",
    *,
    failures: FailureTrace | None = None,
    node_mtbf: float | None = None,
    seed: int | None = None,
    downtime: float = 0.0,
    checkpoint_cost: float = 0.0,
    recovery_cost: float | None = None,
    final_checkpoint: bool = False,
    knows_downtime: bool = False,
    backend: str = "auto",
    n_nodes: int | None = None,
    victim_tiebreak: str | None = None,
    release: str = "resubmission",
    reservations: str | None = None,
) -> SimulationResult:
    """Simulate ``policy`` on ``workload``.

    Failures: ``failures`` (a trace), else per-node Poisson failures of MTBF ``node_mtbf`` drawn
    from ``seed`` (:func:`~coschedule.sim.failures.poisson_failures`), else none. ``n_nodes``:
    the platform's size when it is not the workload's (the result's workload then says it). Checkpointing:
    ``checkpoint_cost`` C > 0 turns it on (Young/Daly periods from ``node_mtbf``, which it then
    needs); ``recovery_cost`` R defaults to C (0 without checkpointing).

    ``victim_tiebreak``: for node stealing (``sfsj``, ``h1yz`` ...), how V1 breaks ties between
    jobs of the fewest nodes: ``"release"`` (the latest released, default) or ``"runtime"`` (the
    one running for the shortest time).

    ``release``: what a restarted job's release is, for the queue order and node stealing's
    victims, K2 and K3 (:mod:`coschedule.heuristics.batch.backfilling`): ``"resubmission"``
    (default: the instant it was submitted again, as Batsim does for [Du2024]) or ``"first"``
    (its first submission). A policy object brings its own.

    ``reservations``: what conservative backfilling and node stealing reserve
    (:mod:`coschedule.heuristics.batch.backfilling`, "Reservations"): ``"nodes"`` (their default:
    particular nodes, as batsched, the paper's scheduler, does) or ``"count"`` (node counts, the
    nodes chosen at start). FCFS and EASY take ``"count"`` only (their default). A policy object
    brings its own.

    ``backend``: ``"reference"`` runs the event loop :class:`~coschedule.sim.engine.Simulation`
    with the policy object; ``"kernel"`` the compiled kernel of the built-in policies -- FCFS,
    EASY, conservative backfilling and the 19 node-stealing policies
    (:mod:`coschedule.heuristics.batch.kernel`: the same attempts, failure records, steals
    and holds, bit for bit, in a fraction of the time); ``"auto"`` (default) the kernel when
    numba is installed and the policy is given by a name it knows, else the reference.

    A user's policy (``file.py:Class``, ``module:Class``, a registered name, or its
    :class:`~coschedule.plugins.PolicySource`; docs/own-policy.md) runs on the reference loop; it
    gets the options its constructor takes, and an exception it raises becomes one
    :class:`~coschedule.errors.PolicyError` line naming its file and line.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    mtbf = math.inf if node_mtbf is None else float(node_mtbf)
    ck = Checkpointing(cost=float(checkpoint_cost), recovery=recovery_cost, node_mtbf=mtbf,
                       final_checkpoint=final_checkpoint)
    user = policy if isinstance(policy, PolicySource) else batch_policy_source(policy) if isinstance(policy, str) else None
    named = isinstance(policy, str) or user is not None
    options: dict[str, Any] = {} if not named else {"knows_downtime": knows_downtime, "release": release}
    if user is not None:  # a user's policy: the options it is asked for, no defaults of ours
        if reservations is not None:
            options["reservations"] = reservations
    elif isinstance(policy, str):
        if reservations is None:
            reservations = default_reservations(policy)
        if reservations != "count" or default_reservations(policy) != "count":  # (fcfs, easy: counts only)
            options["reservations"] = reservations
    if victim_tiebreak is not None:
        if not isinstance(policy, str) or not _is_stealing(policy):
            raise ValueError(f"victim_tiebreak is an option of the node-stealing policies, not of {policy!r}")
        options["victim_tiebreak"] = victim_tiebreak
    use_kernel = _use_kernel(policy, backend)

    def once(trace: FailureTrace | None) -> SimulationResult:
        if use_kernel:
            from coschedule.heuristics.batch.kernel import simulate_kernel

            assert isinstance(policy, str)
            make_policy(policy, **options)  # an unknown name or option fails here, as with the reference
            return simulate_kernel(workload, policy, failures=trace, downtime=downtime, checkpointing=ck,
                                   knows_downtime=knows_downtime, n_nodes=n_nodes,
                                   victim_tiebreak=victim_tiebreak or "release", release=release,
                                   reservations=reservations)
        made = user_policy(user, **options) if user is not None else make_policy(policy, **options)
        sim = Simulation(workload, made, failures=trace, downtime=downtime, checkpointing=ck, n_nodes=n_nodes)
        if user is None:
            return sim.run()
        try:
            return sim.run()
        except Exception as e:  # the user's code raised: one line, where in their file
            raise raised(user, e, sim.now) from e

    if failures is not None or node_mtbf is None:
        return once(failures)
    horizon = failure_horizon(workload, ck)
    N = workload.n_nodes if n_nodes is None else int(n_nodes)
    if seed is None:  # one root for every horizon tried, so that each trace extends the last
        seed = int(np.random.default_rng().integers(0, 2**63))
    while True:
        trace = poisson_failures(N, node_mtbf=mtbf, horizon=horizon, downtime=downtime, seed=seed)
        result = once(trace)
        if result.horizon < horizon:
            return result
        del result  # the longer run's peak memory without this one
        horizon *= 2.0
