"""The online batch scheduler's policies ([Du2024]), their compiled kernel, and the run from names
and numbers -- everything of the batch simulator kind above the simulation core
(:mod:`coschedule.sim`, which never imports a policy).

* :mod:`.backfilling` -- strict FCFS, EASY and conservative backfilling (the paper's Baseline) on
  the core's event loop and availability profile, with the rules they share;
* :mod:`.stealing` -- node stealing for failed jobs: SFSJ and the 18 variants Hxyz (§7);
* :mod:`.policies` -- :data:`BATCH_POLICIES`, every policy by name, and :func:`get_batch_policy`;
* :mod:`.kernel` (with :mod:`.engine` and :mod:`.stealing_kernel`) -- the same policies as one
  numba loop on arrays, attempt for attempt the reference event loop's;
* :mod:`.run` -- :func:`~.run.run_batch`: a workload, a policy by name, failures from a file or
  a seed, the checkpoint model; what ``coschedule batch`` and the campaigns call
  (its first name, ``coschedule.batch``, still imports it).
"""

from .backfilling import BACKFILLING_POLICIES, EASY, FCFS, Conservative, QueuePolicy
from .policies import BATCH_POLICIES, get_batch_policy
from .stealing import STEALING_POLICIES, NodeStealing, stealing_policy

__all__ = [
    "BACKFILLING_POLICIES",
    "BATCH_POLICIES",
    "EASY",
    "FCFS",
    "STEALING_POLICIES",
    "Conservative",
    "NodeStealing",
    "QueuePolicy",
    "get_batch_policy",
    "stealing_policy",
]
