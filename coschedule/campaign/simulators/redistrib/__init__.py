"""The ``redistrib`` campaign simulator: a pack of malleable applications under failures, with
processor redistribution ([Aupy2017] §1.5), one run of
:func:`~coschedule.heuristics.redistribution.run_pack` per cell, normalised by the faulty run on
the same pack and failures.

* :mod:`.adapter` -- its grid (n x p x MTBF x c x runs x variants), seeds, result columns and the
  simulation of one cell;
* :mod:`.report` -- mean normalised makespans with Student-t intervals, tables and figures.
"""

from coschedule.campaign.registry import Simulator

from . import adapter, report

__all__ = ["SIMULATOR"]

SIMULATOR = Simulator(
    "redistrib", "malleable applications under failures with processor redistribution (run_pack)",
    adapter.REDISTRIB_SCHEMA, adapter.redistrib_spec_from_dict, adapter.simulate_redistrib_cell,
    lambda spec, numba: adapter.redistrib_costs(spec), report.summarize_redistrib,
    report.format_redistrib_tables, report.format_redistrib_markdown,
    lambda spec: "one simulation each (and its faulty baseline)", figure=report.redistrib_figure,
)
