"""Pictures (matplotlib, optional extra ``plot``), one module per problem.

Every function returns a :class:`matplotlib.figure.Figure` built with the object-oriented API:
no pyplot, no global state, nothing to close, the same code headless and in a notebook (where
the returned figure shows as the cell's value). Given a ``path`` it also saves the figure there
(:func:`save_figure`: the suffix chooses the format; a name without one gets PNG and SVG).

* :mod:`.figure` -- what every picture shares: :func:`new_figure`, :func:`figure_paths`,
  :func:`save_figure`, labels that fit inside their rectangle, the colours;
* :mod:`.kinp` -- :func:`plot_coschedule` / :func:`plot_coschedules`: packs of moldable tasks as
  Gantt charts;
* :mod:`.rigid` -- :func:`plot_rigid_schedule` / :func:`plot_rigid_schedules`: rigid-job schedules
  with their failed attempts, several stacked on one time axis (a heuristic above the optimum, as
  [Benoit2021] Figs. 1 and 2 draw them);
* :mod:`.batch` -- :func:`plot_batch_run`: an online batch run on nodes that fail, nodes against
  time, with its failures and downtimes; the figures of the node-stealing experiments;
* :mod:`.torus` -- :func:`~.torus.plot_torus_run`: a torus run, its Gantt chart and the torus at
  an instant;
* :mod:`.redistribution` -- :func:`~.redistribution.plot_pack_run`: a pack run with
  redistributions, by application and by processor.

The campaigns' figures (a panel per varying axis) are drawn by their reports
(:mod:`coschedule.campaign.report` and each simulator's ``report`` module) with :func:`new_figure`.

Labels are drawn only where they fit inside their rectangle, so a chart of 60 tasks stays
readable; the time axis says its unit (``time_unit``, seconds by default).
"""

from .batch import BATCH_DETAIL_ATTEMPTS, BATCH_DETAIL_NODES, plot_batch_run
from .figure import figure_paths, new_figure, save_figure
from .kinp import plot_coschedule, plot_coschedules
from .rigid import plot_rigid_schedule, plot_rigid_schedules, processor_rows

__all__ = [
    "BATCH_DETAIL_ATTEMPTS",
    "BATCH_DETAIL_NODES",
    "figure_paths",
    "new_figure",
    "plot_batch_run",
    "plot_coschedule",
    "plot_coschedules",
    "plot_rigid_schedule",
    "plot_rigid_schedules",
    "processor_rows",
    "save_figure",
]
