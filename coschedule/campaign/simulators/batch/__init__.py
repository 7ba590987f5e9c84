"""The ``batch`` campaign simulator: the online batch scheduler with node failures and
checkpointing ([Du2024]), one run of :func:`~coschedule.heuristics.batch.run.run_batch` per cell.

* :mod:`.adapter` -- :class:`~.adapter.BatchSpec`, its grid (workloads x policies x failure
  settings x seeds), seeds, result columns and the simulation of one cell;
* :mod:`.report` -- the groups of stored rows, their tables and the figures of [Du2024].
"""

from coschedule.campaign.registry import Simulator

from . import adapter, report

__all__ = ["SIMULATOR"]

SIMULATOR = Simulator(
    "batch", "online batch scheduling with node failures and checkpointing (run_batch)",
    adapter.BATCH_SCHEMA, adapter.batch_spec_from_dict, adapter.simulate_batch_cell,
    lambda spec, numba: adapter.batch_costs(spec), report.summarize_batch,
    report.format_batch_tables, report.format_batch_markdown,
    lambda spec: "one simulation each", figure=report.batch_figure,
)
