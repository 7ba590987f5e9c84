"""Malleable applications under fail-stop errors, with processor redistribution ([Aupy2017]
§1.3.3-1.5): one simulator kind, its model layer in one folder.

* :mod:`.model` -- the pack (:class:`MalleablePack`, eq. (1.13)), the platform's resilience
  parameters (:class:`Resilience`) and :class:`PackModel`: checkpoints, Young's period, the
  expected times (1.4)-(1.6), ``j_max`` (1.8) and the redistribution cost (1.11);
* :mod:`.options` -- the names and defaults of its options (no numpy: the CLI's help reads them);
* :mod:`.kernels` -- the same formulas for one (application, count), compiled by numba;
* :mod:`.simulation` -- :class:`~.simulation.PackSimulation`, the execution of a pack under a
  failure trace on the shared event queue, with the decisions of a :class:`~.simulation.PackPolicy`;
* :mod:`.validate` -- :func:`~.validate.validate_pack_run`, the independent check of a run;
* :mod:`.io` -- the ``coschedule/malleable-pack`` file format and the per-application timeline.

The heuristics (EndLocal, EndGreedy, ShortestApplicationsFirst, IteratedGreedy) and
:func:`~coschedule.heuristics.redistribution.run_pack` are in :mod:`coschedule.heuristics.redistribution`,
the picture in :mod:`coschedule.plot.redistribution`.
"""

from typing import TYPE_CHECKING

from coschedule._lazy import attach

if TYPE_CHECKING:  # imported when first read (coschedule._lazy): the kernels compile with numba
    from .kernels import (
        k_can_grow,
        k_checkpoint,
        k_expected,
        k_fault_free,
        k_jmax,
        k_period,
        k_rc,
        k_time,
    )
    from .model import (
        MalleablePack,
        PackModel,
        Resilience,
        as_pack,
        even_allocations,
        expected_time,
        expected_time_simulation,
        redistribution_cost,
        young_period,
    )
    from .options import DEFAULT_DOWNTIME, FAILURE_MODELS, PERIOD_FORMULAS, YEAR

__all__ = [
    "DEFAULT_DOWNTIME",
    "FAILURE_MODELS",
    "PERIOD_FORMULAS",
    "YEAR",
    "MalleablePack",
    "PackModel",
    "Resilience",
    "as_pack",
    "even_allocations",
    "expected_time",
    "expected_time_simulation",
    "k_can_grow",
    "k_checkpoint",
    "k_expected",
    "k_fault_free",
    "k_jmax",
    "k_period",
    "k_rc",
    "k_time",
    "redistribution_cost",
    "young_period",
]

__getattr__, __dir__ = attach(__name__, {
    ".kernels": ("k_can_grow", "k_checkpoint", "k_expected", "k_fault_free", "k_jmax", "k_period", "k_rc", "k_time"),
    ".model": ("MalleablePack", "PackModel", "Resilience", "as_pack", "even_allocations", "expected_time",
               "expected_time_simulation", "redistribution_cost", "young_period"),
    ".options": ("DEFAULT_DOWNTIME", "FAILURE_MODELS", "PERIOD_FORMULAS", "YEAR"),
})
