"""The torus simulator kind's schedulers ([Oliner2004]) and its run from names and numbers, above
the torus model (:mod:`coschedule.torus`) and the simulation core (:mod:`coschedule.sim`).

* :mod:`.policies` -- Krevat's FCFS with backfilling and migration, and the fault-aware
  Balancing and Tie-breaking schedulers with their predictors (:func:`get_torus_policy`); a
  user's own policy, named ``file.py:Class``, ``module:Class`` or by an installed package's entry
  point (:func:`user_torus_policy`; its smallest form: a subclass of :class:`TorusScheduler` with
  a ``choose(sim, job, partitions)`` placement);
* :mod:`.run` -- :func:`~.run.run_torus`: the jobs of a log on the torus, a scheduler by name,
  failures from a file or a count from a seed; what ``coschedule torus simulate`` and the
  campaigns call (its first name, ``coschedule.torus.run``, still imports it).
"""

from .policies import (
    PF_RULES,
    TORUS_POLICIES,
    FailureOracle,
    TorusScheduler,
    choose_partition,
    get_torus_policy,
    torus_policy_source,
    user_torus_policy,
)

__all__ = ["PF_RULES", "TORUS_POLICIES", "FailureOracle", "TorusScheduler", "choose_partition", "get_torus_policy",
           "torus_policy_source", "user_torus_policy"]
