"""The ``torus`` campaign simulator: fault-aware scheduling on a BlueGene/L torus with failures
([Oliner2004]), one validated run of :func:`~coschedule.heuristics.torus.run.run_torus` per cell.

* :mod:`.adapter` -- :class:`~.adapter.TorusSpec`, its grid (workloads x load scales x failure
  counts x seeds x schedulers, every scheduler of a point on the same failure trace), seeds,
  result columns and the simulation of one cell;
* :mod:`.report` -- means with Student-t intervals, their tables and the figures of [Oliner2004].
"""

from coschedule.campaign.registry import Simulator

from . import adapter, report

__all__ = ["SIMULATOR"]

SIMULATOR = Simulator(
    "torus", "fault-aware scheduling on a BlueGene/L torus with failures (run_torus)",
    adapter.TORUS_SCHEMA, adapter.torus_spec_from_dict, adapter.simulate_torus_cell,
    lambda spec, numba: adapter.torus_costs(spec), report.summarize_torus,
    report.format_torus_tables, report.format_torus_markdown,
    lambda spec: "one simulation each", figure=report.torus_figure,
)
