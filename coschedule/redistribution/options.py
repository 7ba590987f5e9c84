"""The names and defaults of the redistribution simulator's options: its heuristics, failure models,
period formulas, downtime. A module without numpy, which ``coschedule redistrib --help`` reads to
list the choices without importing the simulator; :mod:`.model` and
:mod:`coschedule.heuristics.redistribution` export them as before.
"""

__all__ = ["AT_END", "AT_FAILURE", "DEFAULT_DOWNTIME", "FAILURE_MODELS", "PERIOD_FORMULAS", "YEAR"]

#: one year in seconds (MTBFs are given in years on the command line)
YEAR = 365.0 * 86400.0
#: downtime D of a failed processor, seconds (the paper gives no value: our choice, one minute)
DEFAULT_DOWNTIME = 60.0
#: the failure models of :class:`~.model.Resilience` (:mod:`.model`'s docstring)
FAILURE_MODELS = ("simulation", "eq1.6")
#: ``first-order``: sqrt(2 mu C) + C (our default); ``printed``: sqrt(2 mu C + C), (1.3) as printed
PERIOD_FORMULAS = ("first-order", "printed")

#: redistribution at an application's end: none, EndLocal, EndGreedy
AT_END = ("none", "local", "greedy")
#: redistribution at a failure: none, ShortestApplicationsFirst, IteratedGreedy
AT_FAILURE = ("none", "saf", "iterated")
