"""R-Shelf and R-ShelfFill: resilient shelf scheduling of rigid jobs ([Benoit2021]
§4.3-4.4, Algs. 2 and 3), and the registry of every resilient rigid heuristic.

Semantics
---------
Queue order, dynamic failures and the time tolerance are those of :mod:`coschedule.heuristics.rlist`
(NOTE 5: by priority rank, ties by index, a failed job re-inserted at its own rank; a failure is
revealed when its attempt ends).

* **Shelf trigger (NOTE 6).** A new shelf is built at ``T_i``, the end of the current shelf,
  after *all* completions at ``T_i`` are processed (the failed jobs among them are back in the
  queue). Every attempt of shelf ``S_i`` ends by ``T_i``, so nothing else happens in between and
  the event loop of Algs. 2-3 reduces to a loop over shelves; the result is the same as
  processing each completion as an event.
* **Shelf contents.** The queue is scanned in order; a job joins the shelf if its processors fit
  in what the shelf has left. ``backfill=False`` (``b = 0``, Next-Fit) closes the shelf at the
  first job that does not fit; ``backfill=True`` (``b = 1``, First-Fit) scans the whole queue.
  All jobs of a shelf start together, and its height is their longest time:
  ``T_i = start + max t_j``.
* **Filling (Alg. 3, NOTE 7).** In R-ShelfFill, a job of shelf ``S_i`` whose attempt fails at
  ``t`` re-executes at once on its own processors if ``t + t_k <= T_i`` (``<=``: a re-execution
  may end exactly at the shelf's end; compared within :func:`~heuristics.rlist.time_tolerance`);
  this may chain several times. Otherwise it goes back to the queue for a later shelf. ``T_i`` is
  the end of the shelf the job belongs to. When a chain overshoots ``T_i`` by less than the
  tolerance, the next shelf starts at that chain's end, so that no processor is used twice.

* **What fills a shelf (``refill``).** Alg. 3 re-executes only the job ``J_k`` whose attempt
  just failed, at once, on its own processors (``refill="own"``, the default: the pseudocode).
  §4.4's prose is looser: "failed jobs can be re-executed within the same shelf if they fit in,
  hence better filling the shelves". ``refill="failed"`` reads it so: at each completion instant
  ``t < T_i`` inside the shelf, the freed processors are offered, in queue order, to every
  *failed* job in the queue (the ones that just failed, and those waiting since an earlier
  shelf) that fits in the free processors and ends by ``T_i``. ``refill="queue"`` offers them to
  every queued job, never-run ones included: that breaks §2.1's definition of a shelf (idle
  processors "are not reassigned to other jobs until the completion of the longest job of the
  shelf") and is no reading of the paper; it bounds what any filling inside the shelves can
  gain. Both scan the whole queue (First-Fit) whatever ``b``, since ``b`` governs how a shelf is
  built and Alg. 3's re-execution does not depend on it. Neither changes ``T_i``.

Without failures, R-Shelf with ``backfill=False`` and LPT is Next-Fit Decreasing Height and with
``backfill=True`` First-Fit Decreasing Height (§4.4); R-ShelfFill equals R-Shelf with
``refill="own"`` or ``"failed"`` (with ``"queue"`` a never-run job may start inside a shelf).

The authors' simulator (``vlefevre/job-scheduling``, ``main.cpp``, commit 3212e40) builds
R-Shelf's shelves as this module does (its ``naive`` flag is ``b = 0``; a new shelf when its last
running job's end has been processed) and gives the same shelves and makespans scenario for
scenario (docs/rigid.md, docs/reproduce.md's Fig. 4); it has no R-ShelfFill, so the authors'
filling rule cannot be read from it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from coschedule.errors import unknown_name
from coschedule.rigid import FailureScenario, RigidInstance
from coschedule.rng import Seed
from coschedule.schedule import Schedule

from .priorities import PriorityRule
from .rlist import _fit_in_order, _Run, r_list

__all__ = ["REFILLS", "RIGID_HEURISTICS", "get_rigid_heuristic", "r_shelf", "r_shelf_fill"]

#: what R-ShelfFill re-executes inside a shelf (module docstring): Alg. 3's own job, any failed
#: queued job (§4.4's prose), or any queued job (not the paper's: an upper bound on filling)
REFILLS: tuple[str, ...] = ("own", "failed", "queue")


def _build_shelf(run: _Run, queue: list[int], backfill: bool) -> list[int]:
    """Jobs of the next shelf, in queue order (Alg. 2's inner loop)."""
    # Next-Fit (b = 0) closes the shelf at the first job that does not fit
    return _fit_in_order(run, queue, run.P, next_fit=not backfill)


def _run_shelf(run: _Run, queue: list[int], shelf: list[int], start: float, fill: bool) -> float:
    """Execute one shelf from ``start``; re-insert the jobs that fail for good in it; return the
    instant at which its last attempt ends (``T_i``, or a hair later after a filled chain)."""
    times = run.times
    shelf_end = start + max(times[j] for j in shelf)  # T_i
    last = shelf_end
    limit = run.latest_same_instant(shelf_end)
    for j in shelf:
        t = start
        while True:
            end = t + times[j]
            if not run.finish(j, t, end):
                break  # success
            if fill and end + times[j] <= limit:
                t = end  # Alg. 3: re-execute at once inside the shelf
                continue
            run.requeue(queue, j)
            break
        last = max(last, end)
    return last


def _refill_shelf(run: _Run, queue: list[int], shelf: list[int], start: float, anyone: bool) -> float:
    """Execute one shelf from ``start`` with ``refill="failed"`` (``anyone=False``) or
    ``"queue"`` (``anyone=True``): at each completion instant before ``T_i``, queued jobs (failed
    ones only, unless ``anyone``) start in queue order if they fit in the free processors and end
    by ``T_i``. Returns the instant at which the shelf's last attempt ends."""
    times, procs, job_at, rank = run.times, run.procs, run.job_at, run.rank
    shelf_end = start + max(times[j] for j in shelf)  # T_i
    limit = run.latest_same_instant(shelf_end)
    free = run.P - sum(procs[j] for j in shelf)
    events = [(start + times[j], seq, j, start) for seq, j in enumerate(shelf)]
    heapq.heapify(events)
    seq = len(events)
    last = shelf_end
    while events:
        # every completion at this instant (NOTE 2's grouping), then one filling round
        now = events[0][0]
        same = run.latest_same_instant(now)
        while events and events[0][0] <= same:
            end, _, j, t = heapq.heappop(events)
            now = max(now, end)
            last = max(last, end)
            free += procs[j]
            if run.finish(j, t, end):
                run.requeue(queue, j)
        if now >= shelf_end:
            continue  # T_i: the shelf is over
        for r in list(queue):
            j = job_at[r]
            if procs[j] <= free and now + times[j] <= limit and (anyone or run.attempt[j] > 0):
                queue.remove(rank[j])
                free -= procs[j]
                heapq.heappush(events, (now + times[j], seq, j, now))
                seq += 1
    return last


def _shelves(
    instance: RigidInstance,
    scenario: FailureScenario,
    backfill: bool,
    fill: bool,
    priority: str | PriorityRule,
    seed: Seed,
    refill: str = "own",
) -> Schedule:
    if refill not in REFILLS:
        raise unknown_name("refill", str(refill), list(REFILLS))
    run = _Run(instance, scenario, priority, seed)
    queue = run.initial_queue()
    now = 0.0
    while queue:
        shelf = _build_shelf(run, queue, backfill)
        chosen = {run.rank[j] for j in shelf}
        queue[:] = [r for r in queue if r not in chosen]
        if fill and refill != "own":
            now = _refill_shelf(run, queue, shelf, now, refill == "queue")
        else:
            now = _run_shelf(run, queue, shelf, now, fill)
    return run.schedule()


def r_shelf(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    backfill: bool = True,
    priority: str | PriorityRule = "LPT",
    seed: Seed = None,
) -> Schedule:
    """R-Shelf (Alg. 2): shelves built from the queue; failed jobs wait for a later shelf.

    ``backfill=False`` is ``b = 0`` (Next-Fit: the shelf closes at the first queued job that does
    not fit); ``backfill=True`` is ``b = 1`` (First-Fit: the whole queue is scanned). Without
    failures and with LPT these are NFDH and FFDH, 3- and 2.7-approximations; with failures any
    shelf algorithm is ``Omega(ln P)`` from the optimum (Prop. 3).

    Running time ``O(S |Q|)`` for ``S`` shelves (``S <= sum_j (f_j + 1)``). The choices the
    paper leaves open are listed in the module docstring.
    """
    return _shelves(instance, scenario, backfill, False, priority, seed)


def r_shelf_fill(
    instance: RigidInstance,
    scenario: FailureScenario,
    *,
    backfill: bool = True,
    priority: str | PriorityRule = "LPT",
    seed: Seed = None,
    refill: str = "own",
) -> Schedule:
    """R-ShelfFill (Alg. 3): R-Shelf where a job failing at ``t`` re-executes at once in its
    shelf when ``t + t_k <= T_i`` (the shelf's end), possibly several times.

    ``refill`` says what may run in a shelf's freed processors before ``T_i``: ``"own"`` (the
    default, Alg. 3: the job that just failed, on its own processors), ``"failed"`` (§4.4's
    "failed jobs can be re-executed within the same shelf if they fit in": any failed job of
    the queue) or ``"queue"`` (any queued job; not the paper's, an upper bound on filling). See
    the module docstring; an unknown value raises ``UnknownName`` listing :data:`REFILLS`.

    On Prop. 3's instance it is optimal where R-Shelf is ``H_P`` times worse; with LPT it is
    still ``Omega(P)`` from the optimum in the worst case (Prop. 4). Running time
    ``O(S |Q| + sum_j f_j)`` with ``"own"``; ``O(E (|Q| + log n))`` for ``E`` attempts otherwise.
    """
    return _shelves(instance, scenario, backfill, True, priority, seed, refill)


RigidHeuristic = Callable[..., Schedule]


def _named(fn: Callable[..., Schedule], name: str, **options: object) -> RigidHeuristic:
    def heuristic(
        instance: RigidInstance,
        scenario: FailureScenario,
        *,
        priority: str | PriorityRule = "LPT",
        seed: Seed = None,
    ) -> Schedule:
        return fn(instance, scenario, priority=priority, seed=seed, **options)

    heuristic.__name__ = heuristic.__qualname__ = name.replace("-", "_")
    opts = ", ".join(f"{k}={v!r}" for k, v in options.items())
    heuristic.__doc__ = f"``{name}`` of §5.1: :func:`{fn.__name__}` with {opts}."
    return heuristic


#: the seven heuristics of §5.1, then R-ShelfFill with the looser fillings (``refill``), and
#: R-List-1 and R-List-Q with kept reservations (NOTE 1), each
#: ``fn(instance, scenario, *, priority="LPT", seed=None)``
RIGID_HEURISTICS: dict[str, RigidHeuristic] = {
    "r-list-0": _named(r_list, "r-list-0", m=0),
    "r-list-1": _named(r_list, "r-list-1", m=1),
    "r-list-q": _named(r_list, "r-list-q", m="Q"),
    "r-shelf-b": _named(r_shelf, "r-shelf-b", backfill=True),
    "r-shelf-nb": _named(r_shelf, "r-shelf-nb", backfill=False),
    "r-shelffill-b": _named(r_shelf_fill, "r-shelffill-b", backfill=True),
    "r-shelffill-nb": _named(r_shelf_fill, "r-shelffill-nb", backfill=False),
    # R-ShelfFill's looser fillings (``refill``, the module docstring)
    "r-shelffill-b-failed": _named(r_shelf_fill, "r-shelffill-b-failed", backfill=True, refill="failed"),
    "r-shelffill-nb-failed": _named(r_shelf_fill, "r-shelffill-nb-failed", backfill=False, refill="failed"),
    "r-shelffill-b-queue": _named(r_shelf_fill, "r-shelffill-b-queue", backfill=True, refill="queue"),
    "r-shelffill-nb-queue": _named(r_shelf_fill, "r-shelffill-nb-queue", backfill=False, refill="queue"),
    # R-List with the authors' kept reservations (NOTE 1); no fast kernel, reference only
    "r-list-1-kept": _named(r_list, "r-list-1-kept", m=1, reservations="kept"),
    "r-list-q-kept": _named(r_list, "r-list-q-kept", m="Q", reservations="kept"),
}


def get_rigid_heuristic(name: str) -> RigidHeuristic:
    """Look up a resilient rigid heuristic by name (case-insensitive); raises ``UnknownName``
    listing the valid ones."""
    try:
        return RIGID_HEURISTICS[name.lower()]
    except KeyError:
        raise unknown_name("rigid heuristic", name, list(RIGID_HEURISTICS)) from None
