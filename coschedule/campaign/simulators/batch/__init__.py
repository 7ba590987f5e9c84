"""The ``batch`` campaign simulator: the online batch scheduler with node failures and
checkpointing ([Du2024]), one run of :func:`~coschedule.heuristics.batch.run.run_batch` per cell.

* :mod:`.adapter` -- :class:`~.adapter.BatchSpec`, its grid (workloads x policies x failure
  settings x seeds), seeds, result columns and the simulation of one cell;
* :mod:`.figures` -- the names of its figures (read by ``coschedule report --help``);
* :mod:`.report` -- the groups of stored rows, their tables and the figures of [Du2024].

``SIMULATOR`` is built when first read (the registry reads it when a campaign needs it): the
adapter and the report import numpy and the simulator, which the command line's help does not need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from coschedule._lazy import built_on_first_read
from coschedule.campaign.registry import Simulator

if TYPE_CHECKING:
    SIMULATOR: Simulator

__all__ = ["SIMULATOR"]


def _build() -> Simulator:
    from . import adapter, report

    return Simulator(
        "batch", "online batch scheduling with node failures and checkpointing (run_batch)",
        adapter.BATCH_SCHEMA, adapter.batch_spec_from_dict, adapter.simulate_batch_cell,
        lambda spec, numba: adapter.batch_costs(spec), report.summarize_batch,
        report.format_batch_tables, report.format_batch_markdown,
        lambda spec: "one simulation each", figure=report.batch_figure,
    )


__getattr__ = built_on_first_read(__name__, "SIMULATOR", _build)
