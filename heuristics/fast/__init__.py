"""Makespans of the resilient rigid heuristics over many failure scenarios, fast.

Large campaigns ([Benoit2021] §5.1: 1000 scenarios per job set, 30 sets, seven
heuristics, seven priorities) only need the makespan of each scenario. :func:`makespans`
computes it with compiled kernels (numba, an optional dependency: ``pip install
'coschedule[fast]'``) that replay the reference implementations :func:`coschedule.heuristics.r_list`,
:func:`coschedule.heuristics.r_shelf` and :func:`coschedule.heuristics.r_shelf_fill` decision for decision: the same
float operations in the same order, the same equal-time tolerance
(:func:`coschedule.heuristics.rlist.time_tolerance`: completions within it are one instant, the round is at
the latest of them), the same tie-breaking, hence bit-identical makespans. Without numba,
:func:`makespans` calls the reference implementation once per scenario (same results, slower).

Kernels
-------
* **Queue.** Always "the waiting jobs sorted by priority rank" (a failed job re-enters at its
  own rank, NOTE 5): R-List keeps the array of the queued jobs in rank order (a failed job is
  inserted at its rank, the jobs that start leave it in one pass), the shelves a boolean array
  indexed by rank.
* **Events.** The running jobs sorted by the end of their attempt: the completions of the next
  instant are a prefix, popped together (NOTE 2); a new attempt is inserted in ``O(r)``.
* **Profile** (``m > 0``). The simulation core's availability profile
  (:mod:`coschedule.sim.profile`: flat arrays, block summaries, numba kernels), the one the
  reference uses too, searched by its earliest-fit and fits kernels. R-List-1 builds it afresh
  at every round from the running jobs. R-List-Q keeps it from round to round and only redoes
  the reservations that a fresh round can change (from the first job that just failed), and
  lazily: a reservation is determined only when a round needs it, otherwise bounded from below
  by a search that stops at a horizon (see :mod:`.list_kernels`). A round without failure makes
  no reservation at all, and the starts are those of fresh rounds.
* **Shelves.** A loop over shelves, as :func:`coschedule.heuristics.rshelf._shelves`.

On the §5.1 setting (100 jobs, ``P = 10000``, ``qbar = 0.3``, LPT) one scenario takes about
0.02 ms with R-List-0, 0.045 ms with R-List-1, 0.24 ms with R-List-Q and 0.003 to 0.005 ms with
the shelves, on one core, against 1.3, 5, 20 and 0.65 ms with the reference
(:func:`coschedule.bench.bench_rlist`, ``docs/rigid.md``). R-List-Q grows with the failures:
about 7.5 ms at ``qbar = 0.9`` (about 7300 rounds, nearly all with a failure), and with ``n``:
about 25 ms at ``n = 1000``, ``P = 10^5`` (12 ms before the lazy reservations at
``qbar = 0.9``, 163 ms at ``n = 1000``, measured back to back).

Modules
-------
* :mod:`.dispatch` -- :func:`makespans`, its argument checks and :data:`BACKENDS`;
* :mod:`coschedule.jit` (also reachable as ``fast.jit``) -- numba or its absence (:data:`HAVE_NUMBA`), ``njit``, the cache directory
  (``~/.cache/coschedule/numba``) and the notice printed when the kernels compile;
* :mod:`.events` -- the event list of the R-List kernels (their profile is the core's);
* :mod:`.list_kernels` -- R-List with ``m`` reservations per round, and R-List-Q incrementally
  and lazily;
* :mod:`.shelf_kernels` -- R-Shelf and R-ShelfFill.

Whether numba is used is read from ``jit.HAVE_NUMBA`` at each call (patch that one to pretend
numba is missing; ``HAVE_NUMBA`` here is a copy for readers).
"""

from __future__ import annotations

from .dispatch import BACKENDS, FAST_HEURISTICS, KERNEL_HEURISTICS, makespans
from coschedule import jit
from coschedule.jit import HAVE_NUMBA

__all__ = ["BACKENDS", "FAST_HEURISTICS", "HAVE_NUMBA", "KERNEL_HEURISTICS", "makespans"]
