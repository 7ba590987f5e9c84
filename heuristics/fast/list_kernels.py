"""The R-List kernels (:func:`coschedule.heuristics.rlist.r_list`), compiled by numba: a fresh
round at every instant with ``min(k, |Q|)`` reservations (:func:`_list_one`: R-List-0 and
R-List-1), and R-List-Q incrementally and lazily (:func:`_list_q_one`), both driven over many
scenarios by :func:`_list_makespans`. Their availability profile is the simulation core's
(:mod:`coschedule.sim.profile`: ``ts``, ``free_at`` and the block summaries ``bsum``), used
through its kernels.
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.jit import njit
from coschedule.sim.profile import (
    _add,
    _add_at,
    _advance,
    _earliest_fit,
    _fits_at,
    _lower_bound,
    _max_before,
    _of_running,
    _summarize,
    summary_size,
)

from .events import _complete, _next_instant, _start

#: R-List-Q: how far (in longest jobs) from the instant it needs the lazy search looks first
WINDOW = 0.05


@njit(cache=True)
def _list_one(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    k_max: int,
    tol: float,
    rel: float,
    queue: np.ndarray,
    attempt: np.ndarray,
    run_end: np.ndarray,
    run_job: np.ndarray,
    ts: np.ndarray,
    free_at: np.ndarray,
    bsum: np.ndarray,
) -> float:
    """Makespan of R-List (:func:`coschedule.heuristics.rlist.r_list`) with ``min(k_max, |Q|)``
    reservations per round, on one scenario: at each round, a fresh profile of the running jobs
    (:func:`coschedule.sim.profile._of_running`), the reservations, then backfilling."""
    n = procs.shape[0]
    for r in range(n):
        queue[r] = job_at[r]  # queue[:qlen]: the waiting jobs in priority order
    attempt[:] = 0
    qlen = n
    nrun = 0
    free = P
    now = 0.0
    while True:
        if qlen > 0:  # one scheduling round at `now`: the jobs that start leave the queue
            k = min(k_max, qlen)
            w = 0
            if k == 0:  # greedy: start, in queue order, every job that fits now
                for x in range(qlen):
                    j = queue[x]
                    if procs[j] <= free:
                        free -= procs[j]
                        nrun = _start(run_end, run_job, nrun, now + times[j], j)
                    else:
                        queue[w] = j
                        w += 1
            else:
                length = _of_running(ts, free_at, bsum, now, P, run_end, run_job, procs, nrun)
                for x in range(qlen):
                    j = queue[x]
                    p = procs[j]
                    d = times[j]
                    if x < k:  # reservations, in priority order
                        i = _earliest_fit(ts, free_at, length, bsum, p, d, 0, math.inf, math.inf)
                        # i >= 0: the last segment has all P processors free
                        length = _add_at(ts, free_at, length, bsum, i, ts[i] + d, -p)
                        start = i == 0  # the reservation starts now: start it now
                    else:  # backfilling, if it delays no reservation (most need too many now)
                        start = free_at[0] >= p and _fits_at(ts, free_at, length, bsum, 0, p, d)
                        if start:
                            length = _add_at(ts, free_at, length, bsum, 0, now + d, -p)
                    if start:
                        free -= p
                        nrun = _start(run_end, run_job, nrun, now + d, j)
                    else:
                        queue[w] = j
                        w += 1
            qlen = w
        if nrun == 0:
            return now
        now, c = _next_instant(run_end, nrun, tol, rel)
        nrun, qlen, freed = _complete(run_end, run_job, nrun, c, procs, rank, failures, attempt,
                                      queue, qlen)
        free += freed


# R-List-Q, incrementally. With m = |Q| every queued job holds a reservation after a round. A
# fresh round at the next instant `now` gives the SAME reservation to every queued job before
# the first one that (a) holds none (a job that just failed: it re-enters at its own rank) or
# (b) was reserved before `now` (only possible when completions within the tolerance were
# grouped). Up to that job (the cut), the profile it sees is the previous round's profile on
# [now, inf): the jobs that started since run in the same intervals, the jobs that ended lie in
# the past, no new job comes before it, and the breakpoints at or after `now` are the same; so
# is the earliest fit. So a round without failure makes no reservation at all, and a round with
# one keeps the reservations before the cut and makes those from the cut on again.
#
# Lazily. After a failure nearly every reservation from the cut on moves (n = 1000: about 500
# of 540 per failure), but only those that start before the next failure are ever used. So a
# queued job's reservation is either DETERMINED (res[j] is its start; its interval is in the
# profile) or BOUNDED (res[j] <= its start, the start unknown). The profile F holds the running
# jobs and the determined reservations. For a queued job y, N_y is the profile its fresh round
# sees (the running jobs and the reservations of the jobs queued before y) and H_y the least
# bound of the bounded jobs queued before y.
#
# * Invariant: a determined job z queued after a bounded job y ends by res[y]. So on
#   [res[y], inf), F = N_y minus the bounded jobs before y, which start at or after H_y.
# * Hence a search from res[y] in F is sound: a start blocked in F is blocked in N_y (F has at
#   least N_y's free processors), and a start t that fits in F with t + d <= H_y fits in N_y
#   (F = N_y before H_y). The earliest such start determines y; otherwise the search gives a
#   new bound: a start that fits in F but ends after H_y, or the first candidate at or after a
#   horizon `until` (beyond it nothing is needed yet). A job determined so ends by H_y: the
#   invariant holds.
# * Time passes: a job that starts leaves the queue with its interval (by the invariant it ends
#   before the bounds of the jobs queued before it), one that ends lies in the past.
# * A cut (a failure): the jobs from the cut on are reserved again. A determined one is given
#   back (its interval leaves F); the bounds after it may rest on that interval (a blocker) and
#   go back to `now`, as do the new jobs. The bounds before the first one given back stay: they
#   rest on intervals still in F, and the fresh round only adds the new jobs' intervals.
# * A round needs to know which reservations start now (none before), the next round which
#   start then: after every round each bound exceeds the instant of the next one (_resolve
#   makes it so, and looks further ahead when a start at `need` cannot be told yet).
#
# The starts are those of the fresh rounds, so are the makespans (tests: == the fresh kernel,
# == the reference). The profile merges equal neighbours in _advance (no count of endpoints):
# the earliest fits are the same (a start at a breakpoint whose two sides are equal would fit
# one breakpoint earlier), and a bound that falls between breakpoints resumes at the next one.


@njit(cache=True)
def _resolve(
    ts: np.ndarray,
    free_at: np.ndarray,
    length: int,
    bsum: np.ndarray,
    procs: np.ndarray,
    times: np.ndarray,
    queue: np.ndarray,
    qlen: int,
    det: np.ndarray,
    res: np.ndarray,
    need: float,
    window: float,
) -> tuple[int, float]:
    """Determine reservations (in queue order, comment above) until every bounded one starts
    after ``need``: the searches stop at ``until = need + window``, doubled until that holds.
    Returns the profile's new length and the least bound left (``inf``: all determined)."""
    until = need + window
    while True:
        known = math.inf  # H: the least bound of the jobs seen so far
        top = _max_before(ts, free_at, length, bsum, until)  # no more free before `until`
        for x in range(qlen):
            j = queue[x]
            if det[j]:
                continue
            lb = res[j]
            d = times[j]
            if lb < until and procs[j] > top:  # no candidate before `until`
                lb = until
                res[j] = lb
            elif lb < until:
                x0 = 0 if lb <= ts[0] else _lower_bound(ts, length, lb)
                i = _earliest_fit(ts, free_at, length, bsum, procs[j], d, x0, until, known)
                lb = ts[i]  # i >= 0: the last segment has all P processors free
                res[j] = lb
                if lb < until and lb + d <= known:
                    det[j] = True
                    length = _add_at(ts, free_at, length, bsum, i, lb + d, -procs[j])
                    top = _max_before(ts, free_at, length, bsum, until)
                    continue
            known = min(known, lb)
        if known > need:
            return length, known
        window *= 2.0
        until = need + window


@njit(cache=True)
def _list_q_one(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    tol: float,
    rel: float,
    window: float,
    queue: np.ndarray,
    attempt: np.ndarray,
    held: np.ndarray,
    det: np.ndarray,
    res: np.ndarray,
    run_end: np.ndarray,
    run_job: np.ndarray,
    started: np.ndarray,
    ts: np.ndarray,
    free_at: np.ndarray,
    bsum: np.ndarray,
) -> float:
    """Makespan of R-List-Q on one scenario, reusing the previous round's reservations and
    determining them lazily (comment above; ``window``: how far :func:`_resolve` looks first)."""
    n = procs.shape[0]
    for r in range(n):
        queue[r] = job_at[r]  # queue[:qlen]: the queued jobs in priority order
    attempt[:] = 0
    held[:] = False  # held[j]: queued job j has a reservation, determined (det[j]) or bounded
    det[:] = False
    qlen = n
    nrun = 0
    now = 0.0
    ts[0] = now
    free_at[0] = P
    length = 1
    _summarize(free_at, length, bsum, 0, length)
    known = math.inf  # the least bound of a queued job (every bound exceeds `now`)
    while True:
        if qlen > 0:
            # up to the cut, the reservations that start now start now (out of the queue,
            # into `started`); a bounded one starts after now
            nstart = 0
            w = 0
            cut = qlen
            for x in range(qlen):
                j = queue[x]
                if not held[j] or res[j] < now:
                    cut = x
                    break
                if res[j] == now:
                    started[nstart] = j
                    nstart += 1
                else:
                    queue[w] = j
                    w += 1
            length = _advance(ts, free_at, length, bsum, now)
            if cut < qlen:  # from the cut on, reserve again
                given_back = False
                for x in range(cut, qlen):
                    j = queue[x]
                    if det[j]:  # given back: the bounds after it may rest on its interval
                        s = res[j]
                        length = _add(ts, free_at, length, bsum, s, s + times[j], procs[j])
                        det[j] = False
                        given_back = True
                    if given_back or not held[j]:
                        held[j] = True
                        res[j] = now
                    queue[w] = j
                    w += 1
                known = now
            qlen = w
            if known <= now:
                length, known = _resolve(ts, free_at, length, bsum, procs, times,
                                         queue, qlen, det, res, now, window)
                w = 0
                for x in range(qlen):
                    j = queue[x]
                    if det[j] and res[j] == now:
                        started[nstart] = j
                        nstart += 1
                    else:
                        queue[w] = j
                        w += 1
                qlen = w
            for x in range(nstart):
                j = started[x]
                held[j] = False  # its interval stays in the profile while it runs
                det[j] = False
                nrun = _start(run_end, run_job, nrun, now + times[j], j)
        if nrun == 0:
            return now
        # the next instant; before it, every bound must exceed it
        now, c = _next_instant(run_end, nrun, tol, rel)
        if qlen > 0 and known <= now:
            length, known = _resolve(ts, free_at, length, bsum, procs, times,
                                     queue, qlen, det, res, now, window)
        # its completions; failed jobs re-enter the queue at their rank, without reservation
        nrun, qlen, _ = _complete(run_end, run_job, nrun, c, procs, rank, failures, attempt,
                                  queue, qlen)


@njit(cache=True)
def _list_makespans(
    P: int,
    procs: np.ndarray,
    times: np.ndarray,
    rank: np.ndarray,
    job_at: np.ndarray,
    failures: np.ndarray,
    k_max: int,
    incremental: bool,
    tol: float,
    rel: float,
) -> np.ndarray:
    """R-List on every scenario (rows of ``failures``); ``incremental`` (only with
    ``k_max >= n``) selects :func:`_list_q_one`."""
    n = procs.shape[0]
    S = failures.shape[0]
    out = np.empty(S)
    queue = np.empty(n, dtype=np.int64)
    attempt = np.empty(n, dtype=np.int64)
    held = np.empty(n, dtype=np.bool_)
    det = np.empty(n, dtype=np.bool_)
    res = np.empty(n)
    run_end = np.empty(n)
    run_job = np.empty(n, dtype=np.int64)
    started = np.empty(n, dtype=np.int64)
    # now, two breakpoints per job (running, or reserved in F), two more per interval given back
    # since the last advance (_list_q_one advances at every round), room for two insertions
    cap = 4 * n + 4
    ts = np.empty(cap)
    free_at = np.empty(cap, dtype=np.int64)
    bsum = np.empty(summary_size(cap), dtype=np.int64)
    window = WINDOW * times.max() if n > 0 else 1.0
    for s in range(S):
        if incremental:
            out[s] = _list_q_one(
                P, procs, times, rank, job_at, failures[s], tol, rel, window,
                queue, attempt, held, det, res, run_end, run_job, started, ts, free_at, bsum,
            )
        else:
            out[s] = _list_one(
                P, procs, times, rank, job_at, failures[s], k_max, tol, rel,
                queue, attempt, run_end, run_job, ts, free_at, bsum,
            )
    return out
