"""The figures ``coschedule report --figure`` draws of a batch campaign (:func:`.report.batch_figure`),
by name: a module of its own, which the command line reads to build its help without importing
the simulator."""

__all__ = ["FIGURES"]

#: ``coschedule report --figure`` of a batch campaign
FIGURES = ("flows", "ratios", "utilization", "sweep")
