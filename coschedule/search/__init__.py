"""Counterexample search: instances on which a heuristic is far from the exact optimum.

Issue 3 §5 (search mode) and [Benoit2021] §4. For a heuristic that has an exact
counterpart, a seeded local search looks for the instance (and, for rigid jobs, the failure
scenario ``f``) that maximises

    ``ratio = heuristic makespan / optimum``,

then *shrinks* the worst one to a minimal instance that keeps the ratio.

* :func:`search_worst` -- a resilient rigid heuristic of
  :data:`coschedule.heuristics.RIGID_HEURISTICS` against ``T_OPT(f)``
  (:func:`coschedule.exact.rigid.solve_rigid_opt`, CP-SAT).
* :func:`search_worst_kinp` -- the co-scheduling heuristic Pack-Approx against the exact
  k-in-p optimum (:func:`coschedule.exact.solve_kinp`, subset DP for small ``n``).
* :func:`expected_ratio_search` -- the open question at the end of §4.4: the largest
  *expected*-makespan ratio of a shelf heuristic under the exponential error model, by a
  documented Monte Carlo proxy (:func:`expected_ratio`).

What is certified
-----------------
The reported ``ratio`` is ``makespan / U`` with ``U`` the makespan of a *validated* schedule
(the solver's best, or the heuristic's own schedule if that is better): ``U >= OPT``, so
``ratio`` is a proved **lower bound** on the true ratio, whatever the solver status.
``ratio_upper = makespan / B`` with ``B`` the solver's proved lower bound (at least ``L(f)``)
bounds it from above; both are equal when the optimum is proved with zero tolerance (integral
times, the default: the CP-SAT unit is then 1 and no rounding occurs). A candidate whose
heuristic makespan equals ``L(f)`` has ratio exactly 1 and is not solved.

Method
------
``restarts`` random starts, each followed by ``steps`` local moves (change one job's
processors or time, one job's failures by one, swap two jobs -- ties in the priority queue
break by index --, duplicate or remove a job, keeping ``1 <= jobs <= n``). A move is accepted
when its ratio is at least the current one (hill climbing with sideways moves); with
``temperature > 0`` a worse move is accepted with probability ``exp(delta / T)``, ``T``
decreasing linearly to 0 over each restart (simulated annealing). The uniform draw is made
*before* the evaluation, so a candidate whose cheap upper bound ``makespan / L(f)`` cannot
pass the acceptance threshold is rejected without calling the solver. Evaluations are
cached. The best instance is then shrunk greedily: remove jobs, lower failures, normalise
and lower times and processor counts, accepting each change while the ratio stays at least
the best ratio minus ``1e-9``.

Determinism
-----------
All randomness comes from one ``numpy.random.Generator`` seeded by ``seed``; the solver
runs with one CP-SAT worker and CP-SAT's fixed random seed (``threads=1``). The same seed
then gives the same result, **provided no solve hits** ``time_limit_per_solve``: a solve cut
by the wall-clock limit may return a different incumbent on another run or machine. The
result says whether that happened (``SearchResult.options["time_limited_solves"]``).

Running time: about ``restarts * steps`` heuristic runs and at most as many CP-SAT solves
(10-50 ms each for ``n <= 6``), plus the shrinking.

Modules
-------
* :mod:`.engine` -- the local search, its cache and the shrinking, shared by every search;
* :mod:`.result` -- :class:`SearchResult` and the proven :func:`guarantee` of each heuristic;
* :mod:`.rigid` -- rigid jobs against ``T_OPT(f)``: :func:`rigid_ratio`, :func:`search_worst`;
* :mod:`.kinp` -- Pack-Approx against the k-in-p optimum: :func:`search_worst_kinp`;
* :mod:`.expected` -- expected-makespan ratios: :func:`expected_ratio`,
  :func:`expected_ratio_search`.
"""

from .engine import MAX_SHRINK_EVALUATIONS, RATIO_EPS, SHRINK_EPS, Improvement, Progress
from .expected import (
    ExpectedRatioEstimate,
    ExpectedRatioResult,
    expected_ratio,
    expected_ratio_search,
)
from .kinp import KINP_HEURISTICS, search_worst_kinp
from .result import SearchResult, guarantee
from .rigid import RatioEvaluation, rigid_ratio, search_worst

__all__ = [
    "KINP_HEURISTICS",
    "MAX_SHRINK_EVALUATIONS",
    "RATIO_EPS",
    "SHRINK_EPS",
    "ExpectedRatioEstimate",
    "ExpectedRatioResult",
    "Improvement",
    "Progress",
    "RatioEvaluation",
    "SearchResult",
    "expected_ratio",
    "expected_ratio_search",
    "guarantee",
    "rigid_ratio",
    "search_worst",
    "search_worst_kinp",
]
