"""The state of a batch run in flat arrays, and the engine's actions on it, compiled: what the
batch kernel (:mod:`.batch_kernel`) does where the reference
(:class:`coschedule.sim.engine.Simulation`) calls ``start``, ``interrupt``, ``requeue``,
``hold`` and the end of an attempt. Each action mirrors its reference method float operation
for float operation; the callers (the kernel's loop, :mod:`.stealing_kernel`) call them in the
reference's order.

Layout
------
* ``ji`` (int64) and ``jf`` (float64): one row per per-job variable (the ``_STATE`` ... and
  ``_SAVED`` ... constants below), one column per job; ``ci`` and ``cf`` the constants per job
  (nodes, checkpoints; release, work, extended length and wall time, block ``T + C``).
* ``c`` (int64): the counters (running jobs, free nodes, the node pool's use, the event heap,
  the queue, the records, an error code) at the ``_NRUN`` ... indices.
* A job's nodes (held, or running on) are ``pool[ji[_OFF, j] : ji[_OFF, j] + ji[_CNT, j]]``,
  sorted; the pool only grows within an instant and is compacted between instants. A job that
  completed keeps ``_LASTOFF``/``_LASTCNT`` for the rest of that instant (the engine's
  ``last_nodes``: a victim that completes hands its node over then).
* Bundles passed to the actions: ``J = (ji, jf, ci, cf)``, ``EV = (ht, hs, hj)`` (the heap of
  attempt ends: time, sequence, job; a cancelled end is recognised by its sequence), ``A = (ar,
  af, a_noff, a_nodes)`` the attempts (rows job, index, outcome; start, end, recovery, saved
  before and after, proactive checkpoint; node offsets, node ids), ``HO = (holding, hr, hf,
  h_noff, h_nodes)`` the failed jobs keeping nodes and the hold records.
* Times ``>= 0`` are kept with ``-1`` for "none" (``_PAUSED``: not suspended; ``_HSINCE``: not
  holding).

The node-id arrays of the records (``a_nodes``, ``h_nodes``) and the pool must have room for
what an action appends: the caller grows them first (:func:`_grow`), since an action cannot
hand a new array back through a bundle.
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.jit import njit
from coschedule.sim.profile import _add, _advance, _earliest_fit, _lower_bound, _place, _prefix_max

# job states (as coschedule.sim.engine)
_WAITING, _RUNNING, _DONE, _UNSUBMITTED, _HELD = 0, 1, 2, 3, 4
# attempt outcomes: completed, failed, interrupted, checkpointed
_COMPLETED, _FAILED, _INTERRUPTED, _CHECKPOINTED = 0, 1, 2, 3
# what an interrupted attempt keeps: its completed regular checkpoints, a position given, or the
# position its work stopped at (a proactive checkpoint)
_LOSE, _SAVE_AT, _PROACTIVE = 0, 1, 2
# restart priorities of [Du2024] §4.2
_PRIORITY_FAILED, _PRIORITY_VICTIM = 3, 2

# rows of ji
_STATE, _PRIO, _SCOUNT, _ATTEMPT, _ENDSEQ, _OFF, _CNT, _RUNPOS, _LASTOFF, _LASTCNT, _PENDF, _PENDV, _HOLDPOS = range(13)
_NI = 13
# rows of jf
_SAVED, _EXE, _WALL, _RECOV, _START, _FIRST, _COMPL, _PAUSED, _HSINCE, _HUNTIL = range(10)
_NF = 10
# rows of ci and cf
_PROCS, _K = 0, 1
_SUBMIT, _WORK, _LENGTH, _WALLFULL, _BLOCK = range(5)
# counters
(_NRUN, _FREE, _POOL, _HSIZE, _SEQ, _WSIZE, _WSEQ, _QLEN, _NA, _NS, _NH, _NP, _NHOLD, _NREQ, _STOLE,
 _ERR, _RESUB) = range(17)
_NC = 17  # _RESUB: 1 if a restarted job's release is its resubmission (cf[_SUBMIT] then moves)
# errors: the reference raises a RuntimeError there (the kernel stops and the wrapper raises)
_E_NODES, _E_STEAL, _E_NO_PROACTIVE, _E_HELD, _E_NO_EVENT = 1, 2, 3, 4, 5
ERRORS = {
    _E_NODES: "a job was to start on nodes that are down or busy",
    _E_STEAL: "a steal from a victim that was neither interrupted nor completed then, or of too many nodes",
    _E_NO_PROACTIVE: "a job took no proactive checkpoint",
    _E_HELD: "a failed job that keeps nodes without a pending steal",
    _E_NO_EVENT: "no event left but jobs have not completed",
}


@njit(cache=True)
def _saved_count(elapsed: float, block: float, checkpoints: int) -> int:
    """How many of the next ``checkpoints`` checkpoints (blocks of ``block``) an attempt
    completes in ``elapsed`` after its recovery; a checkpoint ending exactly then counts."""
    if checkpoints <= 0 or elapsed <= 0:
        return 0
    m = int(math.floor(elapsed / block))  # noqa: RUF046 - as the reference
    if (m + 1) * block <= elapsed:  # a quotient rounded down
        m += 1
    return min(m, checkpoints)


@njit(cache=True)
def _occupied(
    ts: np.ndarray, fr: np.ndarray, bsum: np.ndarray, now: float, N: int,
    running: np.ndarray, nrun: int, start_time: np.ndarray, wall: np.ndarray, procs: np.ndarray,
    up: np.ndarray, up_at: np.ndarray, knows_downtime: bool,
    holding: np.ndarray, nhold: int, hold_until: np.ndarray, held: np.ndarray,
) -> int:
    """A fresh profile from ``now`` (in ``ts, fr, bsum``; its length returned): the running jobs
    until their start plus wall time, the down nodes until they are back (for good when that is
    not known) and the nodes the failed jobs ``holding`` keep (``held`` of them) until their
    planned steal. Every occupation starts at ``now``, so the profile is the same whatever the
    order of the additions (its breakpoints are the distinct ends, its values sums)."""
    ts[0] = now
    fr[0] = N
    plen = 1
    for y in range(nrun):
        j = running[y]
        plen = _add(ts, fr, plen, bsum, now, start_time[j] + wall[j], -procs[j])
    for x in range(N):
        if not up[x]:
            t = up_at[x] if knows_downtime else np.inf
            plen = _add(ts, fr, plen, bsum, now, t, -1)
    for y in range(nhold):
        j = holding[y]
        plen = _add(ts, fr, plen, bsum, now, hold_until[j], -held[j])
    return plen


@njit(cache=True)
def _grow(a: np.ndarray, need: int) -> np.ndarray:
    """``a``, or a copy at least twice as long when it has fewer than ``need`` entries."""
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    for i in range(a.shape[0]):  # (a loop: a slice assignment compiles numba's shape-error message, 2 s)
        b[i] = a[i]
    return b


@njit(cache=True)
def _heap_push(ht: np.ndarray, hs: np.ndarray, hj: np.ndarray, size: int, t: float, s: int, j: int) -> int:
    """Min-heap of (time, sequence) with payload ``j``; returns the new size."""
    x = size
    while x > 0:
        parent = (x - 1) >> 1
        if ht[parent] < t or (ht[parent] == t and hs[parent] < s):
            break
        ht[x] = ht[parent]
        hs[x] = hs[parent]
        hj[x] = hj[parent]
        x = parent
    ht[x] = t
    hs[x] = s
    hj[x] = j
    return size + 1


@njit(cache=True)
def _heap_pop(ht: np.ndarray, hs: np.ndarray, hj: np.ndarray, size: int) -> int:
    """Remove the top; returns the new size."""
    size -= 1
    t = ht[size]
    s = hs[size]
    j = hj[size]
    x = 0
    while True:
        c = 2 * x + 1
        if c >= size:
            break
        if c + 1 < size and (ht[c + 1] < ht[c] or (ht[c + 1] == ht[c] and hs[c + 1] < hs[c])):
            c += 1
        if t < ht[c] or (t == ht[c] and s < hs[c]):
            break
        ht[x] = ht[c]
        hs[x] = hs[c]
        hj[x] = hj[c]
        x = c
    if size > 0:
        ht[x] = t
        hs[x] = s
        hj[x] = j
    return size


@njit(cache=True)
def _queue_insert(queue: np.ndarray, qlen: int, j: int, prio: np.ndarray, submit: np.ndarray) -> int:
    """Insert ``j`` in the queue sorted by (-priority, submission, job); returns the new length."""
    x = qlen
    while x > 0:
        k = queue[x - 1]
        if -prio[k] < -prio[j] or (prio[k] == prio[j] and (submit[k] < submit[j] or (submit[k] == submit[j] and k < j))):
            break
        queue[x] = queue[x - 1]
        x -= 1
    queue[x] = j
    return qlen + 1


@njit(cache=True)
def _enqueue(j: int, queue: np.ndarray, J, c: np.ndarray) -> None:
    """The policy's ``_enqueue``: ``j`` into the queue at its place."""
    ji, cf = J[0], J[3]
    c[_QLEN] = _queue_insert(queue, c[_QLEN], j, ji[_PRIO], cf[_SUBMIT])


@njit(cache=True)
def _lowest_free(node_job: np.ndarray, up: np.ndarray, count: int, sel: np.ndarray) -> int:
    """The ``count`` lowest-index nodes up and idle into ``sel``; how many there were."""
    k = 0
    if count <= 0:
        return 0
    for x in range(node_job.shape[0]):
        if up[x] and node_job[x] < 0:
            sel[k] = x
            k += 1
            if k == count:
                break
    return k


@njit(cache=True)
def _leave_running(j: int, running: np.ndarray, ji: np.ndarray, c: np.ndarray) -> None:
    """Take ``j`` out of the (unordered) list of running jobs."""
    p = ji[_RUNPOS, j]
    nrun = c[_NRUN] - 1
    last = running[nrun]
    running[p] = last
    ji[_RUNPOS, last] = p
    ji[_RUNPOS, j] = -1
    c[_NRUN] = nrun


@njit(cache=True)
def _record_attempt(j: int, now: float, outcome: int, before: float, proactive: float, J, pool: np.ndarray,
                    A, c: np.ndarray) -> None:
    """The record of ``j``'s attempt ending now on its current nodes (``Attempt``)."""
    ji, jf = J[0], J[1]
    ar, af, a_noff, a_nodes = A
    na = c[_NA]
    off = ji[_OFF, j]
    cnt = ji[_CNT, j]
    base = a_noff[na]
    for y in range(cnt):
        a_nodes[base + y] = pool[off + y]
    a_noff[na + 1] = base + cnt
    ar[0, na] = j
    ar[1, na] = ji[_ATTEMPT, j]
    ar[2, na] = outcome
    af[0, na] = jf[_START, j]
    af[1, na] = now
    af[2, na] = jf[_RECOV, j]
    af[3, na] = before
    af[4, na] = jf[_SAVED, j]
    af[5, na] = proactive
    c[_NA] = na + 1


@njit(cache=True)
def _complete(j: int, now: float, J, node_job: np.ndarray, pool: np.ndarray, running: np.ndarray, A,
              c: np.ndarray) -> None:
    """``Simulation._end``: ``j`` completes now; its nodes are free (and remembered for the
    instant)."""
    ji, jf = J[0], J[1]
    _record_attempt(j, now, _COMPLETED, jf[_SAVED, j], 0.0, J, pool, A, c)
    off = ji[_OFF, j]
    cnt = ji[_CNT, j]
    for y in range(cnt):
        node_job[pool[off + y]] = -1
    c[_FREE] += cnt
    ji[_LASTOFF, j] = off
    ji[_LASTCNT, j] = cnt
    ji[_CNT, j] = 0
    ji[_STATE, j] = _DONE
    _leave_running(j, running, ji, c)
    ji[_ENDSEQ, j] = -1
    jf[_COMPL, j] = now


@njit(cache=True)
def _start(j: int, now: float, extra: np.ndarray, nextra: int, J, node_job: np.ndarray, pool: np.ndarray,
           running: np.ndarray, EV, c: np.ndarray) -> None:
    """``Simulation.start``: ``j`` (waiting, or failed and holding nodes) starts now on the nodes
    it holds plus ``extra[:nextra]`` (sorted, up and idle); its end is pushed. The caller has
    closed its hold (the reference does it inside ``start``; nothing in between reads it)."""
    ji, jf = J[0], J[1]
    ht, hs, hj = EV
    off = ji[_OFF, j]
    cnt = ji[_CNT, j]
    noff = c[_POOL]
    a = 0
    b = 0
    k = 0
    while a < cnt or b < nextra:  # merge the two sorted lists
        if b == nextra or (a < cnt and pool[off + a] < extra[b]):
            pool[noff + k] = pool[off + a]
            a += 1
        else:
            pool[noff + k] = extra[b]
            b += 1
        k += 1
    for y in range(nextra):
        node_job[extra[y]] = j
    c[_FREE] -= nextra
    c[_POOL] = noff + k
    ji[_OFF, j] = noff
    ji[_CNT, j] = k
    if ji[_STATE, j] == _HELD and c[_RESUB]:  # a failed job restarted at once is resubmitted now
        J[3][_SUBMIT, j] = now
    ji[_STATE, j] = _RUNNING
    jf[_START, j] = now
    if math.isnan(jf[_FIRST, j]):
        jf[_FIRST, j] = now
    running[c[_NRUN]] = j
    ji[_RUNPOS, j] = c[_NRUN]
    c[_NRUN] += 1
    c[_HSIZE] = _heap_push(ht, hs, hj, c[_HSIZE], now + jf[_EXE, j], c[_SEQ], j)
    ji[_ENDSEQ, j] = c[_SEQ]
    c[_SEQ] += 1


@njit(cache=True)
def _interrupt(j: int, now: float, outcome: int, failed_node: int, mode: int, given: float, R: float, J,
               pool: np.ndarray, running: np.ndarray, A, c: np.ndarray) -> None:
    """``Simulation.interrupt``: end ``j``'s running attempt now with ``outcome``; it keeps its
    nodes but ``failed_node``. ``mode``: ``_LOSE`` (what its regular checkpoints saved),
    ``_SAVE_AT`` (the position ``given``, the end of a regular checkpoint) or ``_PROACTIVE``
    (where its work stopped, a suspended job). Its next attempt: recovery ``R``."""
    ji, jf, ci, cf = J
    stop = now
    if jf[_PAUSED, j] >= 0.0:  # where its work stopped
        stop = jf[_PAUSED, j]
        jf[_PAUSED, j] = -1.0
    start = jf[_START, j]
    before = jf[_SAVED, j]
    count = ji[_SCOUNT, j]
    b = cf[_BLOCK, j]
    enabled = b < np.inf
    if mode != _LOSE:
        if mode == _PROACTIVE:
            if stop == now and outcome != _CHECKPOINTED:
                c[_ERR] = _E_NO_PROACTIVE
            x = stop - start - jf[_RECOV, j]
            if 0.0 > x:  # noqa: PLR1730 - max(x, 0.0) as Python evaluates it
                x = 0.0
            given = before + x
        jf[_SAVED, j] = given
        ji[_SCOUNT, j] = _saved_count(given, b, ci[_K, j]) if enabled else 0
    else:
        elapsed = stop - start - jf[_RECOV, j]
        if elapsed > 0:
            # the work since the last regular checkpoint's end: 0 unless a proactive checkpoint
            # saved a position inside a block
            offset = before - count * b if count else before
            k = _saved_count(elapsed + offset, b, ci[_K, j] - count)
            if k:
                ji[_SCOUNT, j] = count + k
                jf[_SAVED, j] = ji[_SCOUNT, j] * b
    _record_attempt(j, now, outcome, before, now - stop, J, pool, A, c)
    ji[_ENDSEQ, j] = -1  # its end, if still pushed, is void
    _leave_running(j, running, ji, c)
    ji[_ATTEMPT, j] += 1
    jf[_RECOV, j] = R
    jf[_EXE, j] = R + cf[_LENGTH, j] - jf[_SAVED, j]
    jf[_WALL, j] = R + cf[_WALLFULL, j] - jf[_SAVED, j]
    if failed_node >= 0:
        _drop_node(j, failed_node, ji, pool)
    ji[_STATE, j] = _HELD


@njit(cache=True)
def _drop_node(j: int, x: int, ji: np.ndarray, pool: np.ndarray) -> None:
    """Remove node ``x`` from ``j``'s nodes (kept sorted)."""
    off = ji[_OFF, j]
    w = 0
    for y in range(ji[_CNT, j]):
        if pool[off + y] != x:
            pool[off + w] = pool[off + y]
            w += 1
    ji[_CNT, j] = w


@njit(cache=True)
def _hold(j: int, now: float, until: float, J, HO, c: np.ndarray) -> None:
    """``Simulation.hold``: failed job ``j`` keeps its nodes idle until ``until`` (planned)."""
    ji, jf = J[0], J[1]
    holding = HO[0]
    jf[_HUNTIL, j] = until
    jf[_HSINCE, j] = now
    holding[c[_NHOLD]] = j
    ji[_HOLDPOS, j] = c[_NHOLD]
    c[_NHOLD] += 1
    c[_STOLE] = 1


@njit(cache=True)
def _close_hold(j: int, now: float, keep_empty: bool, J, pool: np.ndarray, HO, c: np.ndarray) -> None:
    """``Simulation._close_hold``: ``j``'s hold ends now; its record (``HoldRecord``) unless it
    lasted no time (and ``keep_empty`` is false)."""
    ji, jf = J[0], J[1]
    holding, hr, hf, h_noff, h_nodes = HO
    since = jf[_HSINCE, j]
    jf[_HSINCE, j] = -1.0
    p = ji[_HOLDPOS, j]
    last = holding[c[_NHOLD] - 1]
    holding[p] = last
    ji[_HOLDPOS, last] = p
    ji[_HOLDPOS, j] = -1
    c[_NHOLD] -= 1
    if now > since or keep_empty:
        nh = c[_NH]
        off = ji[_OFF, j]
        cnt = ji[_CNT, j]
        base = h_noff[nh]
        for y in range(cnt):
            h_nodes[base + y] = pool[off + y]
        h_noff[nh + 1] = base + cnt
        hr[nh] = j
        hf[0, nh] = since
        hf[1, nh] = now
        c[_NH] = nh + 1


@njit(cache=True)
def _requeue(j: int, now: float, priority: int, J, node_job: np.ndarray, up: np.ndarray, pool: np.ndarray, HO,
             c: np.ndarray) -> None:
    """``Simulation.requeue``: failed (or interrupted) job ``j`` releases its nodes and waits
    with ``priority``; the caller puts it in the queue."""
    ji, jf = J[0], J[1]
    if jf[_HSINCE, j] >= 0.0:
        _close_hold(j, now, False, J, pool, HO, c)
    off = ji[_OFF, j]
    for y in range(ji[_CNT, j]):
        x = pool[off + y]
        if node_job[x] == j:
            node_job[x] = -1
            if up[x]:
                c[_FREE] += 1
    ji[_CNT, j] = 0
    ji[_STATE, j] = _WAITING
    ji[_PRIO, j] = priority
    if c[_RESUB]:
        J[3][_SUBMIT, j] = now
    c[_NREQ] += 1


@njit(cache=True)
def _compact_pool(pool: np.ndarray, ji: np.ndarray) -> tuple[np.ndarray, int]:
    """Copy the node lists of the jobs that hold nodes to the front of a new pool."""
    n = ji.shape[1]
    total = 0
    for j in range(n):
        total += ji[_CNT, j]
    new = np.empty(max(16, 2 * total + 16), dtype=pool.dtype)
    k = 0
    for j in range(n):
        cnt = ji[_CNT, j]
        if cnt > 0:
            off = ji[_OFF, j]
            for y in range(cnt):
                new[k + y] = pool[off + y]
            ji[_OFF, j] = k
            k += cnt
    return new, k


@njit(cache=True)
def _compress_moving(
    ts: np.ndarray, fr: np.ndarray, length: int, bsum: np.ndarray, pm: np.ndarray,
    procs: np.ndarray, durations: np.ndarray, starts: np.ndarray,
) -> int:
    """The profile's :func:`~coschedule.sim.profile._compress` (the reference's
    ``AvailabilityProfile.compress``), with the same starts and the same profile arrays, doing the
    take-out and put-back only for the jobs that move.

    Job ``j`` (``p`` nodes for ``d``, reserved at ``s``), once taken out, fits at a breakpoint
    ``t < s`` exactly when the profile as it is has ``p`` free nodes on ``[t, min(t + d, s))``:
    on ``[s, t + d)`` it gets its own ``p`` nodes back, and no segment has fewer than 0 free nodes.
    That is the profile's earliest fit bounded in time at ``s`` (``until = known = s``), on the
    profile as it is: the same ``t`` as the reference's search once the job is out. When there is
    none, the reference puts the job back at ``s``, which changes nothing when ``s`` and ``s + d``
    are breakpoints (the usual case; otherwise it takes the reference's path). A job that moves is
    taken out and put back as in the reference; the prefix maximum ``pm`` (``_compress``'s test
    that a job cannot start earlier) is recomputed from its new start on only. Without the
    invariant (a segment below 0 free nodes) every job takes the reference's path."""
    _prefix_max(fr, length, pm)
    nonneg = True
    for x in range(length):
        if fr[x] < 0:
            nonneg = False
            break
    for j in range(procs.shape[0]):
        s = starts[j]
        p = procs[j]
        if s <= ts[0] or s == np.inf:
            continue
        k = _lower_bound(ts, length, s)  # segments 0 .. k-1 start before s
        if pm[k - 1] < p:
            continue
        d = durations[j]
        i = -1
        if nonneg:
            i = _earliest_fit(ts, fr, length, bsum, p, d, 0, s, s)
            if i < 0 or ts[i] >= s:  # it stays: nothing to do if s and s + d are breakpoints
                i = -1
                e = _lower_bound(ts, length, s + d)
                if k < length and ts[k] == s and (e < length and ts[e] == s + d or s + d == np.inf):
                    continue
        length = _add(ts, fr, length, bsum, s, s + d, p)  # take it out (inserting at s and after)
        if i < 0:  # the reference's search
            i = _earliest_fit(ts, fr, length, bsum, p, d, 0, np.inf, np.inf)
        s2 = ts[i]  # (i: the same breakpoint before and after the take-out, which inserts at s and after)
        starts[j] = s2
        length = _add(ts, fr, length, bsum, s2, s2 + d, -p)
        # entries before s2's index i are unchanged (the changes start at s2, the insertions after)
        best = pm[i - 1] if i > 0 else fr[0]
        for x in range(i, length):
            best = max(best, fr[x])
            pm[x] = best
    return length


@njit(cache=True)
def _room(k, N, a_nodes, h_nodes, s_nodes, pool, a_noff, h_noff, s_noff, c):  # type: ignore[no-untyped-def]
    """The record arrays (attempt, hold and steal nodes) and the node pool grown, if need be, to
    take ``k`` platforms' worth of nodes more (one steal at most) before an action that may
    write them."""
    return (_grow(a_nodes, a_noff[c[_NA]] + k * N), _grow(h_nodes, h_noff[c[_NH]] + k * N),
            _grow(s_nodes, s_noff[c[_NS]] + N), _grow(pool, c[_POOL] + k * N))


@njit(cache=True)
def _gather(jobs: np.ndarray, procs: np.ndarray, wall: np.ndarray, tmp_p: np.ndarray, tmp_d: np.ndarray) -> None:
    """The sizes and wall times of ``jobs`` into ``tmp_p``, ``tmp_d``: what a plan places, in
    queue order (both plans, counts and node sets)."""
    for y in range(jobs.shape[0]):
        tmp_p[y] = procs[jobs[y]]
        tmp_d[y] = wall[jobs[y]]


@njit(cache=True)
def _plan_counts(  # type: ignore[no-untyped-def]
    ts, fr, plen, bsum, pm, rebuild, now, N, running, nrun, J, up, up_at, knows_downtime, holding, nhold,
    ended, nend, old, nold, submitted, nsub, queue, qlen, reserved, tmp_p, tmp_d, tmp_s,
):
    """Conservative backfilling's plan on counts (``Conservative.decide`` with
    ``reservations="count"``): rebuilt (the running jobs, down nodes and holds, then the queue
    placed) or, the ended jobs removed, the old queue ``old[:nold]`` compressed and the
    submitted jobs placed; the starts in ``reserved``. Returns the profile's length."""
    ji, jf, ci = J[0], J[1], J[2]
    procs, start_time, wall = ci[_PROCS], jf[_START], jf[_WALL]
    if rebuild:
        plen = _occupied(ts, fr, bsum, now, N, running, nrun, start_time, wall, procs, up, up_at,
                         knows_downtime, holding, nhold, jf[_HUNTIL], ji[_CNT])
        _gather(queue[:qlen], procs, wall, tmp_p, tmp_d)
        plen = _place(ts, fr, plen, bsum, tmp_p[:qlen], tmp_d[:qlen], tmp_s[:qlen])
        reserved[queue[:qlen]] = tmp_s[:qlen]
        return plen
    plen = _advance(ts, fr, plen, bsum, now)
    for y in range(nend):
        j = ended[y]
        plen = _add(ts, fr, plen, bsum, start_time[j], start_time[j] + wall[j], procs[j])
    if nend > 0 and nold > 0:
        _gather(old[:nold], procs, wall, tmp_p, tmp_d)
        tmp_s[:nold] = reserved[old[:nold]]
        plen = _compress_moving(ts, fr, plen, bsum, pm, tmp_p[:nold], tmp_d[:nold], tmp_s[:nold])
        reserved[old[:nold]] = tmp_s[:nold]
    if nsub > 0:
        _gather(submitted[:nsub], procs, wall, tmp_p, tmp_d)
        plen = _place(ts, fr, plen, bsum, tmp_p[:nsub], tmp_d[:nsub], tmp_s[:nsub])
        reserved[submitted[:nsub]] = tmp_s[:nsub]
    return plen
