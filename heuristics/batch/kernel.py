"""The batch policies of :mod:`coschedule.heuristics.batch` (FCFS, EASY, conservative
backfilling) and node stealing of :mod:`coschedule.heuristics.batch.stealing` (SFSJ and the 18
variants Hxyz) with node failures and checkpointing, in one compiled kernel: the fast path of
:func:`coschedule.heuristics.batch.run.run_batch`.

It replays the reference -- the event loop :class:`coschedule.sim.engine.Simulation` driving
the policy objects -- decision for decision: the same events in the same order at each instant
(ends by push order, the ends of victims' checkpoints -- the reference's ``CHECKPOINT`` events,
by push order --, recoveries, failures in the trace's order, submissions), the same queue
order, the same lowest-index nodes, the same profile operations of
:mod:`coschedule.sim.profile` (its compiled kernels, called in the same order), the same float
operations of the checkpoint model and of node stealing's stop points and estimates; hence the
same attempts, failure records, steals and holds, bit for bit (tests compare them on random
workloads with failures and checkpoints, and on the bundled traces). The reference stays the
definition and the way in for any other policy.

Modules: :mod:`.batch_engine` holds the state in arrays and the engine's actions (start,
interrupt, requeue, hold, end of an attempt; conservative backfilling's plan on counts),
:mod:`.stealing_kernel` node stealing's choices and reactions, :mod:`.nodeset_kernel` the plan
with reservations on nodes; this one the event loop (:func:`_simulate`), EASY's and FCFS's
decisions, and the wrapper that builds the reference's records (:func:`simulate_kernel`).

Without numba the kernel runs as plain Python (correct, slower than the reference):
:func:`coschedule.heuristics.batch.run.run_batch` then uses the reference.

numba compiles :func:`_simulate` once per policy family (:func:`_families`: FCFS and EASY; conservative
on counts; on nodes; node stealing on counts or on nodes), each with only the code its policies
reach, and the first time a family runs: a first EASY run no longer compiles node stealing and
the plans (docs/benchmarks.md, "The first run").

Developers: numba's on-disk cache keeps :func:`_simulate` with everything it calls compiled in,
and re-compiles it only when *this* file changes (its content; numba issue 1833). After editing
:mod:`.batch_engine`, :mod:`.stealing_kernel` or :mod:`coschedule.sim.profile` alone, clear the
cache (:data:`coschedule.jit.CACHE_DIR`) or the tests run the old kernel.
"""

from __future__ import annotations

import numpy as np

from coschedule.heuristics.batch.backfilling import default_reservations
from coschedule.heuristics.batch.engine import (
    _BLOCK,
    _CNT,
    _COMPL,
    _E_HELD,
    _E_NO_EVENT,
    _E_NODES,
    _ENDSEQ,
    _ERR,
    _EXE,
    _FAILED,
    _FIRST,
    _FREE,
    _HELD,
    _HOLDPOS,
    _HSINCE,
    _HSIZE,
    _HUNTIL,
    _K,
    _LENGTH,
    _LOSE,
    _NA,
    _NC,
    _NF,
    _NH,
    _NHOLD,
    _NI,
    _NREQ,
    _NRUN,
    _NS,
    _PAUSED,
    _PENDF,
    _PENDV,
    _POOL,
    _PRIO,
    _PROCS,
    _QLEN,
    _RESUB,
    _RUNNING,
    _RUNPOS,
    _START,
    _STATE,
    _STOLE,
    _SUBMIT,
    _UNSUBMITTED,
    _WAITING,
    _WALL,
    _WALLFULL,
    _WORK,
    _WSIZE,
    ERRORS,
    _close_hold,
    _compact_pool,
    _complete,
    _drop_node,
    _grow,
    _heap_pop,
    _interrupt,
    _lowest_free,
    _occupied,
    _plan_counts,
    _queue_insert,
    _room,
    _start,
)
from coschedule.heuristics.batch.nodeset_kernel import _alloc, _plan_nodes, _reserved_nodes
from coschedule.heuristics.batch.stealing_kernel import (
    REASONS,
    _held_failed,
    _job_failed,
    _transfer,
    _wait,
    _wake,
)
from coschedule.jit import njit
from coschedule.sim.intervals import nodesets
from coschedule.sim.profile import _add, _earliest_fit, _first_below, summary_size
from coschedule.sim.result import (
    REACTIONS,
    FailureRecord,
    HoldRecord,
    LazyAttempts,
    SimulationResult,
    StealRecord,
)

__all__ = ["KERNEL_POLICIES", "simulate_kernel"]

_FCFS, _EASY, _CONSERVATIVE, _STEALING = 0, 1, 2, 3


def _kernel_policies() -> dict[str, int]:
    from coschedule.heuristics.batch.stealing import STEALING_POLICIES

    return {"fcfs": _FCFS, "easy": _EASY, "conservative": _CONSERVATIVE, "baseline": _CONSERVATIVE,
            **{name: _STEALING for name in STEALING_POLICIES}}


#: policy name -> code in the kernel: the batch policies and every node-stealing policy
KERNEL_POLICIES: dict[str, int] = _kernel_policies()

# an attempt's outcome: its position in coschedule.sim.result.OUTCOMES (completed, failed, interrupted, checkpointed)
_R_IDLE, _R_SPARE, _R_STEAL, _R_WAIT, _R_HELD = range(5)  # the REACTIONS of the failure records


@njit(cache=True)
def _simulate(
    policy: int, prm: np.ndarray, N: int,
    submit: np.ndarray, procs: np.ndarray, work: np.ndarray, length: np.ndarray, wall_full: np.ndarray,
    block: np.ndarray, K: np.ndarray, cost: float, R: float, final: bool,
    fail_t: np.ndarray, fail_n: np.ndarray, downtime: float, steal: bool | None, on_nodes: bool | None,
    on_counts: bool | None,
):
    """One run (module docstring). ``prm``: timing, victim rule, criterion, run-time tie-break,
    ``knows_downtime``, ``N`` (:mod:`.stealing_kernel`), the release reading (1: resubmission,
    ``cf[_SUBMIT]`` then moves at each restart), the reservations (1: on nodes); ``work`` the lengths, ``length`` and
    ``wall_full`` extended by the checkpoints, ``block`` ``T + C`` and ``K`` the checkpoints per
    job (the reference's numbers), ``cost`` C, ``R`` the recovery, ``final`` the final
    checkpoint of eq. (1). ``steal``, ``on_nodes``, ``on_counts``: ``True`` for node stealing,
    conservative's plan with reservations on nodes, its plan on counts, else ``None``: numba prunes
    the branches ``if x is not None`` of an argument typed ``None`` before it types the kernel, so
    each family compiles only its own code (:func:`_families`)."""
    n = submit.shape[0]
    F = fail_t.shape[0]
    stealing = steal is not None  # policy == _STEALING
    knows_downtime = prm[4] != 0
    # ---- jobs (batch_engine's layout)
    ji = np.zeros((_NI, n), dtype=np.int64)
    ji[_STATE, :] = _UNSUBMITTED
    ji[_PRIO, :] = 1
    ji[_ENDSEQ, :] = -1
    ji[_RUNPOS, :] = -1
    ji[_PENDF, :] = -1
    ji[_PENDV, :] = -1
    ji[_HOLDPOS, :] = -1
    jf = np.zeros((_NF, n))
    jf[_START, :] = np.nan
    jf[_FIRST, :] = np.nan
    jf[_COMPL, :] = np.nan
    jf[_PAUSED, :] = -1.0
    jf[_HSINCE, :] = -1.0
    ci = np.empty((2, n), dtype=np.int64)
    cf = np.empty((5, n))
    for j in range(n):  # (a loop: assigning an array to a row compiles numba's shape-error message, 2 s)
        jf[_EXE, j] = length[j]
        jf[_WALL, j] = wall_full[j]
        ci[_PROCS, j] = procs[j]
        ci[_K, j] = K[j]
        cf[_SUBMIT, j] = submit[j]
        cf[_WORK, j] = work[j]
        cf[_LENGTH, j] = length[j]
        cf[_WALLFULL, j] = wall_full[j]
        cf[_BLOCK, j] = block[j]
    J = (ji, jf, ci, cf)
    state = ji[_STATE]
    cur_cnt = ji[_CNT]
    end_seq = ji[_ENDSEQ]
    wall = jf[_WALL]
    start_time = jf[_START]
    c = np.zeros(_NC, dtype=np.int64)
    c[_FREE] = N
    c[_RESUB] = prm[6]
    # the jobs that hold nodes hold at most N of them: the pool is compacted beyond a few N
    pool_limit = 2 * N + 1024
    pool = np.empty(2 * pool_limit, dtype=np.int64)
    # ---- nodes
    node_job = np.full(N, -1, dtype=np.int64)
    up = np.ones(N, dtype=np.bool_)
    up_at = np.zeros(N)
    NODES = (node_job, up, up_at)
    running = np.empty(n, dtype=np.int64)  # unordered
    # ---- queue and reservations
    queue = np.empty(n, dtype=np.int64)
    reserved = np.full(n, np.inf)
    # ---- events: ends in a heap (start, interrupt, suspend push or void them); the ends of
    # victims' checkpoints in another; recoveries in a FIFO (constant downtime)
    cap_a = n + 3 * F + 4  # attempts: n completed, and per failure at most 3 others
    ht = np.empty(cap_a)
    hs = np.empty(cap_a, dtype=np.int64)
    hj = np.empty(cap_a, dtype=np.int64)
    EV = (ht, hs, hj)
    wt = np.empty(F + 1)
    ws = np.empty(F + 1, dtype=np.int64)
    wj = np.empty(F + 1, dtype=np.int64)
    rec_t = np.empty(F + 1)
    rec_n = np.empty(F + 1, dtype=np.int64)
    rec_head = 0
    rec_tail = 0
    nxt_sub = 0
    nxt_fail = 0
    # ---- records
    ar = np.empty((3, cap_a), dtype=np.int64)  # job, index, outcome
    af = np.empty((6, cap_a))  # start, end, recovery, saved before, saved after, proactive
    a_noff = np.zeros(cap_a + 1, dtype=np.int64)
    a_nodes = np.empty(max(16, int(procs.sum())), dtype=np.int32)  # node ids of every attempt
    fi = np.empty((4, F + 1), dtype=np.int64)  # node, job, idle, reaction
    ff = np.empty((2, F + 1))  # time, up
    nf = 0
    cap_s = 3 * F + 4  # per failure at most two steal records, and one per steal decided
    sr = np.empty((3, cap_s), dtype=np.int64)  # failed, victim, reason
    sf = np.empty((2, cap_s))  # decided, time
    s_noff = np.zeros(cap_s + 1, dtype=np.int64)
    s_nodes = np.empty(16, dtype=np.int32)
    holding = np.empty(n, dtype=np.int64)
    hr = np.empty(F + 4, dtype=np.int64)  # at most one hold per failure
    hf = np.empty((2, F + 4))  # start, end
    h_noff = np.zeros(F + 5, dtype=np.int64)
    h_nodes = np.empty(16, dtype=np.int32)
    pi = np.empty((5, F + 1), dtype=np.int64)  # steals waiting for their victim
    pf = np.empty((4, F + 1))
    PD = (pi, pf, wt, ws, wj)
    A = (ar, af, a_noff, a_nodes)
    S = (sr, sf, s_noff, s_nodes)
    HO = (holding, hr, hf, h_noff, h_nodes)
    # ---- the profile (conservative: kept across instants; EASY: rebuilt); live occupations
    # (running jobs, reservations, down nodes, holds) leave at most 2 (2 n + N) + 1 breakpoints
    # after an advance; one instant's passes add at most 2 per ended job, 4 per compressed one
    # and 2 per placed one
    cap_p = 12 * n + 4 * N + 16
    ts = np.empty(cap_p)
    fr = np.empty(cap_p, dtype=np.int64)
    bsum = np.empty(summary_size(cap_p), dtype=np.int64)
    pm = np.empty(cap_p, dtype=np.int64)  # the compression's prefix maximum
    plen = 1
    ts[0] = 0.0
    fr[0] = N
    cap2 = 2 * (n + N) + 16 if stealing and prm[2] == 3 else 16  # K3's scratch profile
    ts2 = np.empty(cap2)
    fr2 = np.empty(cap2, dtype=np.int64)
    P2 = (ts2, fr2, np.empty(summary_size(cap2), dtype=np.int64))
    if on_nodes is not None:  # reservations="nodes" (nodeset_kernel)
        NS, npool, rpool = _alloc(cap_p, n, N)
    # ---- per-instant scratch
    ended = np.empty(n, dtype=np.int64)
    submitted = np.empty(n, dtype=np.int64)
    old = np.empty(n, dtype=np.int64)
    tmp_p = np.empty(n, dtype=np.int64)
    tmp_d = np.empty(n)
    tmp_s = np.empty(n)
    sel = np.empty(max(N, 1), dtype=np.int64)
    buf = np.empty(max(N, 1), dtype=np.int64)

    done = 0
    now = 0.0
    while done < n:
        # the next instant
        now = np.inf
        if c[_HSIZE] > 0:
            now = ht[0]
        if c[_WSIZE] > 0 and wt[0] < now:
            now = wt[0]
        if rec_head < rec_tail and rec_t[rec_head] < now:
            now = rec_t[rec_head]
        if nxt_fail < F and fail_t[nxt_fail] < now:
            now = fail_t[nxt_fail]
        if nxt_sub < n and submit[nxt_sub] < now:
            now = submit[nxt_sub]
        if now == np.inf:  # (the reference raises: no event left)
            c[_ERR] = _E_NO_EVENT
            break
        nend = 0
        nsub = 0
        nfailed = 0
        nrecovered = 0
        useful = False
        replan = False  # the stealing policy's _replan
        c[_NREQ] = 0
        # ends, in push order
        while c[_HSIZE] > 0 and ht[0] == now:
            j = hj[0]
            s = hs[0]
            c[_HSIZE] = _heap_pop(ht, hs, hj, c[_HSIZE])
            if end_seq[j] != s or state[j] != _RUNNING:
                continue  # void
            a_nodes = _grow(a_nodes, a_noff[c[_NA]] + cur_cnt[j])
            A = (ar, af, a_noff, a_nodes)
            _complete(j, now, J, node_job, pool, running, A, c)
            ended[nend] = j
            nend += 1
            done += 1
            useful = True
        # the ends of victims' checkpoints, in push order
        while c[_WSIZE] > 0 and wt[0] == now:
            pid = wj[0]
            c[_WSIZE] = _heap_pop(wt, ws, wj, c[_WSIZE])
            useful = True
            replan = True
            a_nodes, h_nodes, s_nodes, pool = _room(1, N, a_nodes, h_nodes, s_nodes, pool, a_noff, h_noff, s_noff, c)
            A = (ar, af, a_noff, a_nodes)
            S = (sr, sf, s_noff, s_nodes)
            HO = (holding, hr, hf, h_noff, h_nodes)
            if steal is not None:  # (only node stealing pushes these)
                _wake(pid, now, R, J, NODES, pool, running, queue, EV, A, HO, S, PD, buf, c)
        # recoveries
        while rec_head < rec_tail and rec_t[rec_head] == now:
            x = rec_n[rec_head]
            rec_head += 1
            up[x] = True
            if node_job[x] < 0:
                c[_FREE] += 1
            nrecovered += 1
            useful = True
        # failures, one at a time
        while nxt_fail < F and fail_t[nxt_fail] == now:
            x = fail_n[nxt_fail]
            nxt_fail += 1
            if not up[x]:
                continue
            back = now + downtime
            j = node_job[x]
            if back > now:  # a downtime of 0 is a transient failure: the node stays up
                up[x] = False
                up_at[x] = back
                rec_t[rec_tail] = back
                rec_n[rec_tail] = x
                rec_tail += 1
                if j < 0:
                    c[_FREE] -= 1
            ff[0, nf] = now
            ff[1, nf] = back
            fi[0, nf] = x
            fi[1, nf] = j
            nfailed += 1
            useful = True
            if j < 0:
                fi[2, nf] = c[_FREE]
                fi[3, nf] = _R_IDLE
                nf += 1
                continue
            node_job[x] = -1
            if back <= now:
                c[_FREE] += 1  # transient: the node stays up, idle
            fi[2, nf] = c[_FREE]
            c[_STOLE] = 0
            a_nodes, h_nodes, s_nodes, pool = _room(2, N, a_nodes, h_nodes, s_nodes, pool, a_noff, h_noff, s_noff, c)
            A = (ar, af, a_noff, a_nodes)
            S = (sr, sf, s_noff, s_nodes)
            HO = (holding, hr, hf, h_noff, h_nodes)
            if state[j] == _HELD:  # a node a failed job keeps while it waits for a stolen one
                _close_hold(j, now, True, J, pool, HO, c)  # its record shows the node it kept failed
                _drop_node(j, x, ji, pool)
                if steal is not None:
                    _held_failed(j, now, J, NODES, pool, queue, HO, S, PD, buf, c)
                else:
                    c[_ERR] = _E_HELD
                fi[3, nf] = _R_HELD
            else:
                _interrupt(j, now, _FAILED, x, _LOSE, 0.0, R, J, pool, running, A, c)
                if steal is not None:
                    _job_failed(j, now, prm, cost, R, final, J, NODES, pool, running, queue, EV, A, HO, S, PD, P2,
                                buf, c)
                elif c[_FREE] > 0 and _lowest_free(node_job, up, 1, buf) == 1:
                    _start(j, now, buf, 1, J, node_job, pool, running, EV, c)  # on a spare node
                else:
                    _wait(j, now, J, NODES, pool, queue, HO, c)
                if c[_STOLE]:
                    fi[3, nf] = _R_STEAL
                elif state[j] == _RUNNING:
                    fi[3, nf] = _R_SPARE
                else:
                    fi[3, nf] = _R_WAIT
            nf += 1
        # submissions
        while nxt_sub < n and submit[nxt_sub] == now:
            state[nxt_sub] = _WAITING
            submitted[nsub] = nxt_sub
            nsub += 1
            nxt_sub += 1
            useful = True
        if not useful:
            continue
        # ------------------------------------------------------------ the policy decides
        if steal is not None:  # a victim that completed before it would stop hands over
            for y in range(nend):
                pid = ji[_PENDV, ended[y]]
                if pid >= 0:
                    replan = True
                    a_nodes, h_nodes, s_nodes, pool = _room(1, N, a_nodes, h_nodes, s_nodes, pool, a_noff, h_noff,
                                                            s_noff, c)
                    A = (ar, af, a_noff, a_nodes)
                    S = (sr, sf, s_noff, s_nodes)
                    HO = (holding, hr, hf, h_noff, h_nodes)
                    _transfer(pid, now, R, J, NODES, pool, running, queue, EV, A, HO, S, PD, buf, c)
        conservative = policy == _CONSERVATIVE or stealing
        rebuild = replan or nfailed > 0 or c[_NREQ] > 0 or (nrecovered > 0 and not knows_downtime)
        nold = 0
        if conservative and nend > 0 and not rebuild:
            nold = c[_QLEN]  # the queue before this instant's submissions, to compress
            for y in range(nold):
                old[y] = queue[y]
        for y in range(nsub):
            c[_QLEN] = _queue_insert(queue, c[_QLEN], submitted[y], ji[_PRIO], cf[_SUBMIT])
        qlen = c[_QLEN]
        nstart = 0  # the jobs to start, in order, go to tmp_p[:nstart]
        if on_nodes is not None:  # conservative (or stealing) with reservations on nodes
            npool, rpool = _plan_nodes(NS, npool, rpool, rebuild, now, N, running, c[_NRUN], J, pool, up, up_at,
                                       knows_downtime, holding, c[_NHOLD], ended, nend, old, nold, submitted, nsub,
                                       queue, qlen, reserved, tmp_p, tmp_d, tmp_s)
        elif on_counts is not None:  # conservative (or stealing) on counts
            plen = _plan_counts(ts, fr, plen, bsum, pm, rebuild, now, N, running, c[_NRUN], J, up, up_at,
                                knows_downtime, holding, c[_NHOLD], ended, nend, old, nold, submitted, nsub, queue,
                                qlen, reserved, tmp_p, tmp_d, tmp_s)
        if conservative:
            w = 0
            for y in range(qlen):
                j = queue[y]
                if reserved[j] <= now:  # (the reference scans the queue the same way)
                    reserved[j] = np.inf
                    tmp_p[nstart] = j
                    nstart += 1
                else:
                    queue[w] = j
                    w += 1
            qlen = w
        elif qlen > 0:
            # FCFS and EASY: heads while they fit
            h = 0
            avail = c[_FREE]
            while h < qlen and procs[queue[h]] <= avail:
                avail -= procs[queue[h]]
                tmp_p[nstart] = queue[h]
                nstart += 1
                h += 1
            w = 0
            if policy == _EASY and h < qlen and avail > 0:
                # EASY: reserve the head at its earliest fit, backfill what delays it not.
                # The profile holds the running jobs before this instant's starts, then the
                # heads started now (as the reference: they are running when it is built)
                plen = _occupied(ts, fr, bsum, now, N, running, c[_NRUN], start_time, wall, ci[_PROCS], up, up_at,
                                 knows_downtime, holding, 0, jf[_HUNTIL], cur_cnt)
                for y in range(nstart):
                    j = tmp_p[y]
                    plen = _add(ts, fr, plen, bsum, now, now + wall[j], -procs[j])
                head = queue[h]
                i = _earliest_fit(ts, fr, plen, bsum, procs[head], wall[head], 0, np.inf, np.inf)
                if i >= 0:
                    s = ts[i]
                    plen = _add(ts, fr, plen, bsum, s, s + wall[head], -procs[head])
                queue[w] = head
                w += 1
                for y in range(h + 1, qlen):
                    j = queue[y]
                    p = procs[j]
                    if p <= avail and fr[0] >= p and _first_below(ts, fr, plen, bsum, 1, p, now + wall[j]) == plen:
                        plen = _add(ts, fr, plen, bsum, now, now + wall[j], -p)
                        avail -= p
                        tmp_p[nstart] = j
                        nstart += 1
                    else:
                        queue[w] = j
                        w += 1
            elif h > 0:
                for y in range(h, qlen):
                    queue[w] = queue[y]
                    w += 1
            else:
                w = qlen  # nothing started: the queue stays as it is
            qlen = w
        c[_QLEN] = qlen
        # ------------------------------------------------------------ starts, in order
        for y in range(nstart):
            j = tmp_p[y]
            p = procs[j]
            if on_nodes is not None:
                got = _reserved_nodes(j, NS, rpool, node_job, up, sel)
            else:
                got = _lowest_free(node_job, up, p, sel)
            if got < p:
                c[_ERR] = _E_NODES
                break
            pool = _grow(pool, c[_POOL] + p)
            _start(j, now, sel, p, J, node_job, pool, running, EV, c)
        if c[_ERR] != 0:
            break
        if c[_POOL] > pool_limit:  # compact the node pool
            pool, k = _compact_pool(pool, ji)
            c[_POOL] = k
    na, ns, nh = c[_NA], c[_NS], c[_NH]
    return (ar[:, :na], af[:, :na], a_noff[: na + 1], a_nodes[: a_noff[na]], fi[:, :nf], ff[:, :nf],
            sr[:, :ns], sf[:, :ns], s_noff[: ns + 1], s_nodes[: s_noff[ns]],
            hr[:nh], hf[:, :nh], h_noff[: nh + 1], h_nodes[: h_noff[nh]],
            jf[_COMPL].copy(), jf[_FIRST].copy(), now, c[_ERR])


def _families(code: int, reservations: str) -> tuple[bool | None, bool | None, bool | None]:
    """``(steal, on_nodes, on_counts)`` of :func:`_simulate` for a policy code: ``None`` for the
    parts a run of that policy never reaches. numba compiles one kernel per combination (FCFS and
    EASY; conservative on counts; on nodes; node stealing on either), each only the first time it
    runs (docs/benchmarks.md, "The first run")."""
    conservative = code in (_CONSERVATIVE, _STEALING)
    return (True if code == _STEALING else None, True if conservative and reservations == "nodes" else None,
            True if conservative and reservations == "count" else None)


def _policy_code(policy: str) -> tuple[int, int, int, int]:
    """``(code, timing, victim, criterion)`` of a policy name of :data:`KERNEL_POLICIES`."""
    code = KERNEL_POLICIES[policy.lower()]
    if code != _STEALING:
        return code, 0, 0, 0
    from coschedule.heuristics.batch.stealing import STEALING_POLICIES

    p = STEALING_POLICIES[policy.lower()]()
    return code, p.timing, p.victim, p.criterion


def simulate_kernel(workload, policy: str, *, failures, downtime: float, checkpointing, knows_downtime: bool = False,
                    n_nodes: int | None = None, victim_tiebreak: str = "release",
                    release: str = "resubmission", reservations: str | None = None) -> SimulationResult:
    """The run of :class:`coschedule.sim.engine.Simulation` with the policy ``policy`` (a name
    of :data:`KERNEL_POLICIES`; ``victim_tiebreak`` for node stealing; ``release`` and
    ``reservations`` as the policies' options, ``None``: the policy's default), computed by the compiled
    kernel (module docstring)."""
    from coschedule.sim.engine import Simulation

    code, timing, victim, criterion = _policy_code(policy)
    if victim_tiebreak not in ("release", "runtime"):
        raise ValueError(f"node stealing: victim_tiebreak must be one of release, runtime, got {victim_tiebreak!r}")
    if release not in ("resubmission", "first"):
        raise ValueError(f"release must be one of resubmission, first, got {release!r}")
    if reservations is None:
        reservations = default_reservations(policy)
    if reservations not in ("count", "nodes") or reservations == "nodes" and code in (_FCFS, _EASY):
        raise ValueError(f"reservations={reservations!r}: 'count', or 'nodes' for conservative and node stealing")
    # the same per-job numbers as the reference, computed by the same code
    sim = Simulation(workload, _NoPolicy(), failures=failures, downtime=downtime, checkpointing=checkpointing,
                     n_nodes=n_nodes)
    workload = sim.workload
    N = sim.n_nodes
    prm = np.array([timing, victim, criterion, int(victim_tiebreak == "runtime"), int(bool(knows_downtime)), N,
                    int(release == "resubmission"), int(reservations == "nodes")], dtype=np.int64)
    out = _simulate(
        code, prm, N, workload.submit.astype(np.float64), workload.nodes.astype(np.int64),
        workload.length.astype(np.float64), np.array(sim.length), np.array(sim.wall_full), np.array(sim.block),
        np.array(sim.checkpoints, dtype=np.int64), float(checkpointing.cost), float(checkpointing.R),
        bool(checkpointing.final_checkpoint),
        sim.failures.times.astype(np.float64), sim.failures.nodes.astype(np.int64), float(sim.downtime),
        *_families(code, reservations),
    )
    (ar, af, a_noff, a_nodes, fi, ff, sr, sf, s_noff, s_nodes, hr, hf, h_noff, h_nodes,
     completion, first_start, horizon, err) = out
    if err:
        raise RuntimeError(f"policy {policy!r}: {ERRORS[int(err)]} "
                           f"(at {float(horizon)}; the reference raises there too)")
    # node sets as intervals (coschedule.sim.intervals), not tuples of tens of thousands of ids
    attempts = LazyAttempts.from_columns(*ar, *af, a_noff, a_nodes)
    records = tuple(FailureRecord(t, x, u, j, i, REACTIONS[r])
                    for x, j, i, r, t, u in zip(*(row.tolist() for row in fi), *(row.tolist() for row in ff)))
    steals = tuple(StealRecord(d, t, f, v, nodes, timing, REASONS[why]) for nodes, f, v, why, d, t in zip(
        nodesets(s_noff, s_nodes), *(row.tolist() for row in sr), *(row.tolist() for row in sf)))
    holds = tuple(HoldRecord(j, s, e, nodes)
                  for nodes, j, s, e in zip(nodesets(h_noff, h_nodes), hr.tolist(), *(row.tolist() for row in hf)))
    return SimulationResult(
        workload=sim.workload, policy=_NAMES.get(code, policy.lower()), attempts=attempts,
        failures=records, downtime=sim.downtime, checkpointing=checkpointing, length=np.array(sim.length),
        walltime=np.array(sim.wall_full), checkpoints=np.array(sim.checkpoints, dtype=np.int64),
        completion=completion, first_start=first_start, horizon=float(horizon), steals=steals, holds=holds,
    )


_NAMES = {_FCFS: "fcfs", _EASY: "easy", _CONSERVATIVE: "conservative"}


class _NoPolicy:
    """Stands for a policy while the per-job numbers are computed (nothing is run)."""

    name = "kernel"

    def reset(self, sim):  # pragma: no cover - never run
        raise AssertionError

    job_failed = decide = reset
