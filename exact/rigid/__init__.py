"""Exact solvers for rigid jobs under a known failure scenario ([Benoit2021] §3).

* :func:`solve_rigid_opt` -- ``T_OPT(f)``, the clairvoyant optimum of §3.3: every attempt of
  every job is known in advance and placed by a CP-SAT model (cumulative resource; with
  ``contiguous=True`` also a processor block per attempt: rectangle strip packing).
* :func:`solve_shelf_opt` -- the best *shelf* schedule under ``f`` (the yardstick of Prop. 3).
* :func:`expected_makespan_mc` and :func:`expected_makespan_exact` -- the expected makespan
  (7) of any algorithm, by sampling or by enumerating scenarios with a sound error bound.

A time limit never gives ``OPTIMAL``: that status means CP-SAT proved the rounded model
optimal. Both solvers first build a schedule with a greedy (a serial schedule-generation
scheme, SGS, for ``T_OPT``; first fit for shelves); it bounds the horizon, and it is
returned, ``FEASIBLE`` with the proved bound, if CP-SAT finds nothing better within the
limit (so ``UNKNOWN`` does not occur).

Modules
-------
* :mod:`.integer` -- integer time units and what they prove, the attempts, the serial SGS,
  decoding integer starts into a real schedule;
* :mod:`.topt` -- the CP-SAT model of ``T_OPT(f)`` and :func:`solve_rigid_opt`;
* :mod:`.shelf` -- the CP-SAT model of the best shelf schedule and :func:`solve_shelf_opt`;
* :mod:`.expected` -- the expected makespan (7), by sampling or by enumeration.
"""

from .expected import Algorithm, expected_makespan_exact, expected_makespan_mc
from .integer import MAX_UNITS, chain_bound
from .shelf import ShelfCpModel, build_shelf_cp, solve_shelf_opt
from .topt import RigidCpModel, build_rigid_cp, solve_rigid_opt

__all__ = [
    "MAX_UNITS",
    "Algorithm",
    "RigidCpModel",
    "ShelfCpModel",
    "build_rigid_cp",
    "build_shelf_cp",
    "chain_bound",
    "expected_makespan_exact",
    "expected_makespan_mc",
    "solve_rigid_opt",
    "solve_shelf_opt",
]
