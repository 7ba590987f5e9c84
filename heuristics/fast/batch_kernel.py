"""The batch policies of :mod:`coschedule.heuristics.batch` (FCFS, EASY, conservative
backfilling) with node failures and checkpointing, in one compiled kernel: the fast path of
:func:`coschedule.batch.run_batch`.

It replays the reference -- the event loop :class:`coschedule.sim.engine.Simulation` driving
the policy objects -- decision for decision: the same events in the same order at each instant
(ends by push order, recoveries, failures in the trace's order, submissions), the same queue
order, the same lowest-index nodes, the same profile operations of
:mod:`coschedule.sim.profile` (its compiled kernels, called in the same order), the same float
operations of the checkpoint model; hence the same attempts, bit for bit (tests compare every
attempt on random workloads with failures and checkpoints, and on the bundled traces). The
reference stays the definition and the way in for any other policy (node stealing...).

Without numba the kernel runs as plain Python (correct, slower than the reference):
:func:`coschedule.batch.run_batch` then uses the reference.
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.jit import njit
from coschedule.sim.engine import COMPLETED, FAILED, Attempt, FailureRecord, LazyAttempts, SimulationResult
from coschedule.sim.profile import (
    _add,
    _advance,
    _compress,
    _earliest_fit,
    _first_below,
    _place,
    _summarize,
    summary_size,
)

__all__ = ["KERNEL_POLICIES", "simulate_kernel"]

#: policy name -> code in the kernel
KERNEL_POLICIES = {"fcfs": 0, "easy": 1, "conservative": 2, "baseline": 2}

_WAITING, _RUNNING, _DONE, _UNSUBMITTED, _HELD = 0, 1, 2, 3, 4


@njit(cache=True)
def _grow_f(a: np.ndarray, need: int) -> np.ndarray:
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _grow_i(a: np.ndarray, need: int) -> np.ndarray:
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
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
def _simulate(
    policy: int, knows_downtime: bool, N: int,
    submit: np.ndarray, procs: np.ndarray, length: np.ndarray, wall_full: np.ndarray,
    block: np.ndarray, K: np.ndarray, R: float, fail_t: np.ndarray, fail_n: np.ndarray, downtime: float,
):
    n = submit.shape[0]
    # ---- job state
    state = np.full(n, _UNSUBMITTED, dtype=np.int64)
    prio = np.ones(n, dtype=np.int64)
    saved = np.zeros(n)
    saved_count = np.zeros(n, dtype=np.int64)
    attempt = np.zeros(n, dtype=np.int64)
    exe = length.copy()
    wall = wall_full.copy()
    recov = np.zeros(n)
    start_time = np.full(n, np.nan)
    first_start = np.full(n, np.nan)
    completion = np.full(n, np.nan)
    end_seq = np.full(n, -1, dtype=np.int64)
    # a job's current nodes: node ids cur_nodes[cur_off[j] : cur_off[j] + cur_cnt[j]]
    cur_off = np.zeros(n, dtype=np.int64)
    cur_cnt = np.zeros(n, dtype=np.int64)
    total_procs = int(procs.sum())
    # the jobs that hold nodes hold at most N of them: the pool is compacted beyond a few N
    pool_limit = 2 * N + 1024
    pool = np.empty(2 * pool_limit, dtype=np.int64)
    pool_len = 0
    # ---- node state
    node_job = np.full(N, -1, dtype=np.int64)
    up = np.ones(N, dtype=np.bool_)
    up_at = np.zeros(N)
    free_count = N
    # ---- running jobs (unordered)
    running = np.empty(n, dtype=np.int64)
    run_pos = np.full(n, -1, dtype=np.int64)
    nrun = 0
    # ---- queue and reservations
    queue = np.empty(n, dtype=np.int64)
    qlen = 0
    reserved = np.full(n, np.inf)
    # ---- events: ends in a heap; recoveries in a FIFO (constant downtime)
    cap_h = n + fail_t.shape[0] + 4
    ht = np.empty(cap_h)
    hs = np.empty(cap_h, dtype=np.int64)
    hj = np.empty(cap_h, dtype=np.int64)
    hsize = 0
    seq = 0
    rec_t = np.empty(fail_t.shape[0] + 1)
    rec_n = np.empty(fail_t.shape[0] + 1, dtype=np.int64)
    rec_head = 0
    rec_tail = 0
    nxt_sub = 0
    nxt_fail = 0
    # ---- records
    cap_a = n + fail_t.shape[0] + 4
    a_job = np.empty(cap_a, dtype=np.int64)
    a_idx = np.empty(cap_a, dtype=np.int64)
    a_start = np.empty(cap_a)
    a_end = np.empty(cap_a)
    a_rec = np.empty(cap_a)
    a_sb = np.empty(cap_a)
    a_sa = np.empty(cap_a)
    a_out = np.empty(cap_a, dtype=np.int64)  # 0 completed, 1 failed
    a_noff = np.empty(cap_a + 1, dtype=np.int64)
    a_nodes = np.empty(max(16, total_procs), dtype=np.int32)  # node ids of every attempt
    na = 0
    a_noff[0] = 0
    f_time = np.empty(fail_t.shape[0] + 1)
    f_node = np.empty(fail_t.shape[0] + 1, dtype=np.int64)
    f_up = np.empty(fail_t.shape[0] + 1)
    f_job = np.empty(fail_t.shape[0] + 1, dtype=np.int64)
    f_idle = np.empty(fail_t.shape[0] + 1, dtype=np.int64)
    nf = 0
    # ---- the profile (conservative: kept across instants; EASY: rebuilt)
    # live occupations leave at most 2 (n + N) + 1 breakpoints after an advance; one instant's
    # passes add at most 2 per ended job, 4 per compressed one and 2 per placed one
    cap_p = 10 * n + 4 * N + 16
    ts = np.empty(cap_p)
    fr = np.empty(cap_p, dtype=np.int64)
    bsum = np.empty(summary_size(cap_p), dtype=np.int64)
    plen = 1
    ts[0] = 0.0
    fr[0] = N
    _summarize(fr, 1, bsum, 0, 1)  # (no full block yet: nothing)
    # ---- per-instant scratch
    ended = np.empty(n, dtype=np.int64)
    submitted = np.empty(n, dtype=np.int64)
    old = np.empty(n, dtype=np.int64)
    tmp_p = np.empty(n, dtype=np.int64)
    tmp_d = np.empty(n)
    tmp_s = np.empty(n)
    sel = np.empty(N, dtype=np.int64)
    down_t = np.empty(N)
    down_c = np.empty(N, dtype=np.int64)

    done = 0
    now = 0.0
    while done < n:
        # the next instant
        now = np.inf
        if hsize > 0:
            now = ht[0]
        if rec_head < rec_tail and rec_t[rec_head] < now:
            now = rec_t[rec_head]
        if nxt_fail < fail_t.shape[0] and fail_t[nxt_fail] < now:
            now = fail_t[nxt_fail]
        if nxt_sub < n and submit[nxt_sub] < now:
            now = submit[nxt_sub]
        nend = 0
        nsub = 0
        nfailed_nodes = 0
        nrecovered = 0
        useful = False
        # ends, in push order
        while hsize > 0 and ht[0] == now:
            j = hj[0]
            s = hs[0]
            hsize = _heap_pop(ht, hs, hj, hsize)
            if end_seq[j] != s or state[j] != _RUNNING:
                continue  # cancelled
            # record the completed attempt
            off = cur_off[j]
            c = cur_cnt[j]
            a_nodes = _grow_i(a_nodes, a_noff[na] + c)
            for y in range(c):
                a_nodes[a_noff[na] + y] = pool[off + y]
                node_job[pool[off + y]] = -1
            free_count += c
            a_job[na] = j
            a_idx[na] = attempt[j]
            a_start[na] = start_time[j]
            a_end[na] = now
            a_rec[na] = recov[j]
            a_sb[na] = saved[j]
            a_sa[na] = saved[j]
            a_out[na] = 0
            a_noff[na + 1] = a_noff[na] + c
            na += 1
            cur_cnt[j] = 0
            state[j] = _DONE
            p = run_pos[j]
            nrun -= 1
            last = running[nrun]
            running[p] = last
            run_pos[last] = p
            run_pos[j] = -1
            end_seq[j] = -1
            completion[j] = now
            ended[nend] = j
            nend += 1
            done += 1
            useful = True
        # recoveries
        while rec_head < rec_tail and rec_t[rec_head] == now:
            x = rec_n[rec_head]
            rec_head += 1
            up[x] = True
            if node_job[x] < 0:
                free_count += 1
            nrecovered += 1
            useful = True
        # failures, one at a time
        while nxt_fail < fail_t.shape[0] and fail_t[nxt_fail] == now:
            x = fail_n[nxt_fail]
            nxt_fail += 1
            if not up[x]:
                continue
            back = now + downtime
            j = node_job[x]
            if back > now:
                up[x] = False
                up_at[x] = back
                rec_t[rec_tail] = back
                rec_n[rec_tail] = x
                rec_tail += 1
                if j < 0:
                    free_count -= 1
            f_time[nf] = now
            f_node[nf] = x
            f_up[nf] = back
            f_job[nf] = j
            nfailed_nodes += 1
            useful = True
            if j < 0:
                f_idle[nf] = free_count
                nf += 1
                continue
            # interrupt j: its saved time, the attempt's record
            node_job[x] = -1
            if back <= now:
                free_count += 1  # transient: the node stays up, idle
            f_idle[nf] = free_count
            nf += 1
            elapsed = now - start_time[j] - recov[j]
            left = K[j] - saved_count[j]
            m = 0
            if left > 0 and elapsed > 0:
                b = block[j]
                m = int(math.floor(elapsed / b))
                if (m + 1) * b <= elapsed:
                    m += 1
                if m > left:
                    m = left
            before = saved[j]
            if m > 0:
                saved_count[j] += m
                saved[j] = saved_count[j] * block[j]
            off = cur_off[j]
            c = cur_cnt[j]
            a_nodes = _grow_i(a_nodes, a_noff[na] + c)
            for y in range(c):
                a_nodes[a_noff[na] + y] = pool[off + y]
            a_job[na] = j
            a_idx[na] = attempt[j]
            a_start[na] = start_time[j]
            a_end[na] = now
            a_rec[na] = recov[j]
            a_sb[na] = before
            a_sa[na] = saved[j]
            a_out[na] = 1
            a_noff[na + 1] = a_noff[na] + c
            na += 1
            end_seq[j] = -1
            p = run_pos[j]
            nrun -= 1
            last = running[nrun]
            running[p] = last
            run_pos[last] = p
            run_pos[j] = -1
            attempt[j] += 1
            recov[j] = R
            exe[j] = R + length[j] - saved[j]
            wall[j] = R + wall_full[j] - saved[j]
            # held nodes: the attempt's nodes but the failed one (kept sorted)
            w = 0
            for y in range(c):
                if pool[off + y] != x:
                    pool[off + w] = pool[off + y]
                    w += 1
            cur_cnt[j] = w
            state[j] = _HELD
            # the failure rule (Baseline): a spare node, else back to the queue with priority 3
            spare = -1
            if free_count > 0:
                for y in range(N):
                    if up[y] and node_job[y] < 0:
                        spare = y
                        break
            if spare >= 0:
                # restart now on the held nodes plus the spare, sorted
                pool = _grow_i(pool, pool_len + w + 1)
                noff = pool_len
                inserted = False
                k = 0
                for y in range(w):
                    v = pool[off + y]
                    if not inserted and spare < v:
                        pool[noff + k] = spare
                        k += 1
                        inserted = True
                    pool[noff + k] = v
                    k += 1
                if not inserted:
                    pool[noff + k] = spare
                    k += 1
                pool_len += k
                cur_off[j] = noff
                cur_cnt[j] = k
                node_job[spare] = j
                free_count -= 1
                state[j] = _RUNNING
                start_time[j] = now
                running[nrun] = j
                run_pos[j] = nrun
                nrun += 1
                hsize = _heap_push(ht, hs, hj, hsize, now + exe[j], seq, j)
                end_seq[j] = seq
                seq += 1
            else:
                for y in range(w):
                    node_job[pool[off + y]] = -1
                free_count += w
                cur_cnt[j] = 0
                state[j] = _WAITING
                prio[j] = 3
                qlen = _queue_insert(queue, qlen, j, prio, submit)
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
        nold = 0
        rebuild = nfailed_nodes > 0 or (nrecovered > 0 and not knows_downtime)
        if policy == 2 and nend > 0 and not rebuild:
            nold = qlen  # the queue before this instant's submissions, to compress
            for y in range(qlen):
                old[y] = queue[y]
        for y in range(nsub):
            qlen = _queue_insert(queue, qlen, submitted[y], prio, submit)
        nstart = 0  # the jobs to start, in order, go to tmp_p[:nstart]
        if policy == 2:
            if rebuild:
                # rebuild: running jobs until start + wall, down nodes, then place the queue
                plen = 1
                ts[0] = now
                fr[0] = N
                _summarize(fr, 1, bsum, 0, 1)  # (no full block yet: nothing)
                for y in range(nrun):
                    j = running[y]
                    plen = _add(ts, fr, plen, bsum, now, start_time[j] + wall[j], -procs[j])
                plen = _add_downs(ts, fr, plen, bsum, now, N, up, up_at, knows_downtime, down_t, down_c)
                for y in range(qlen):
                    tmp_p[y] = procs[queue[y]]
                    tmp_d[y] = wall[queue[y]]
                plen = _place(ts, fr, plen, bsum, tmp_p[:qlen], tmp_d[:qlen], tmp_s[:qlen])
                for y in range(qlen):
                    reserved[queue[y]] = tmp_s[y]
            else:
                plen = _advance(ts, fr, plen, bsum, now)
                for y in range(nend):
                    j = ended[y]
                    plen = _add(ts, fr, plen, bsum, start_time[j], start_time[j] + wall[j], procs[j])
                if nend > 0 and nold > 0:
                    for y in range(nold):
                        tmp_p[y] = procs[old[y]]
                        tmp_d[y] = wall[old[y]]
                        tmp_s[y] = reserved[old[y]]
                    plen = _compress(ts, fr, plen, bsum, tmp_p[:nold], tmp_d[:nold], tmp_s[:nold])
                    for y in range(nold):
                        reserved[old[y]] = tmp_s[y]
                if nsub > 0:
                    for y in range(nsub):
                        tmp_p[y] = procs[submitted[y]]
                        tmp_d[y] = wall[submitted[y]]
                    plen = _place(ts, fr, plen, bsum, tmp_p[:nsub], tmp_d[:nsub], tmp_s[:nsub])
                    for y in range(nsub):
                        reserved[submitted[y]] = tmp_s[y]
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
            avail = free_count
            while h < qlen and procs[queue[h]] <= avail:
                avail -= procs[queue[h]]
                tmp_p[nstart] = queue[h]
                nstart += 1
                h += 1
            w = 0
            if policy == 1 and h < qlen and avail > 0:
                # EASY: reserve the head at its earliest fit, backfill what delays it not.
                # The profile holds the running jobs before this instant's starts, then the
                # heads started now (as the reference: they are running when it is built)
                plen = 1
                ts[0] = now
                fr[0] = N
                _summarize(fr, 1, bsum, 0, 1)  # (no full block yet: nothing)
                for y in range(nrun):
                    j = running[y]
                    plen = _add(ts, fr, plen, bsum, now, start_time[j] + wall[j], -procs[j])
                for y in range(nstart):
                    j = tmp_p[y]
                    plen = _add(ts, fr, plen, bsum, now, now + wall[j], -procs[j])
                plen = _add_downs(ts, fr, plen, bsum, now, N, up, up_at, knows_downtime, down_t, down_c)
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
        # ------------------------------------------------------------ starts, in order
        for y in range(nstart):
            j = tmp_p[y]
            p = procs[j]
            k = 0
            for x in range(N):
                if up[x] and node_job[x] < 0:
                    sel[k] = x
                    k += 1
                    if k == p:
                        break
            pool = _grow_i(pool, pool_len + p)
            cur_off[j] = pool_len
            cur_cnt[j] = p
            for x in range(p):
                pool[pool_len + x] = sel[x]
                node_job[sel[x]] = j
            pool_len += p
            free_count -= p
            state[j] = _RUNNING
            start_time[j] = now
            if math.isnan(first_start[j]):
                first_start[j] = now
            running[nrun] = j
            run_pos[j] = nrun
            nrun += 1
            hsize = _heap_push(ht, hs, hj, hsize, now + exe[j], seq, j)
            end_seq[j] = seq
            seq += 1
        if pool_len > pool_limit:  # compact the node pool
            pool, pool_len = _compact_pool(pool, cur_off, cur_cnt, state)
    return (a_job[:na], a_idx[:na], a_start[:na], a_end[:na], a_rec[:na], a_sb[:na], a_sa[:na],
            a_out[:na], a_noff[: na + 1], a_nodes[: a_noff[na]], f_time[:nf], f_node[:nf], f_up[:nf],
            f_job[:nf], f_idle[:nf], completion, first_start, now)


@njit(cache=True)
def _add_downs(ts, fr, plen, bsum, now, N, up, up_at, knows_downtime, down_t, down_c) -> int:
    """Occupy each down node until it is back (or for good when the return is not known)."""
    for x in range(N):
        if not up[x]:
            t = up_at[x] if knows_downtime else np.inf
            plen = _add(ts, fr, plen, bsum, now, t, -1)
    return plen


@njit(cache=True)
def _compact_pool(pool, cur_off, cur_cnt, state):
    """Copy the node lists of the jobs that hold nodes to the front of a new pool."""
    total = 0
    for j in range(cur_cnt.shape[0]):
        total += cur_cnt[j]
    new = np.empty(max(16, 2 * total + 16), dtype=np.int64)
    k = 0
    for j in range(cur_cnt.shape[0]):
        c = cur_cnt[j]
        if c > 0:
            off = cur_off[j]
            for y in range(c):
                new[k + y] = pool[off + y]
            cur_off[j] = k
            k += c
    return new, k


def simulate_kernel(workload, policy: str, *, failures, downtime: float, checkpointing, knows_downtime: bool = False,
                    n_nodes: int | None = None) -> SimulationResult:
    """The run of :class:`coschedule.sim.engine.Simulation` with the policy ``policy`` (a name
    of :data:`KERNEL_POLICIES`), computed by the compiled kernel (module docstring)."""
    from coschedule.sim.engine import Simulation

    code = KERNEL_POLICIES[policy.lower()]
    # the same per-job numbers as the reference, computed by the same code
    sim = Simulation(workload, _NoPolicy(), failures=failures, downtime=downtime, checkpointing=checkpointing,
                     n_nodes=n_nodes)
    workload = sim.workload
    N = sim.n_nodes
    out = _simulate(
        code, bool(knows_downtime), N, workload.submit.astype(np.float64), workload.nodes.astype(np.int64),
        np.array(sim.length), np.array(sim.wall_full), np.array(sim.block),
        np.array(sim.checkpoints, dtype=np.int64), float(checkpointing.R),
        sim.failures.times.astype(np.float64), sim.failures.nodes.astype(np.int64), float(sim.downtime),
    )
    (a_job, a_idx, a_start, a_end, a_rec, a_sb, a_sa, a_out, a_noff, a_nodes,
     f_time, f_node, f_up, f_job, f_idle, completion, first_start, horizon) = out
    def make() -> tuple[Attempt, ...]:
        # one int object per node, shared by every attempt's tuple (a tuple of fresh ints would
        # cost 28 more bytes per node of every attempt: gigabytes on a month of Mira)
        name = list(range(N)).__getitem__
        offs = a_noff.tolist()
        attempts = [
            Attempt(j, k, s, e, tuple(map(name, a_nodes[offs[x]:offs[x + 1]].tolist())), r, sb, sa,
                    COMPLETED if o == 0 else FAILED)
            for x, (j, k, s, e, r, sb, sa, o) in enumerate(zip(
                a_job.tolist(), a_idx.tolist(), a_start.tolist(), a_end.tolist(), a_rec.tolist(), a_sb.tolist(),
                a_sa.tolist(), a_out.tolist()))
        ]
        attempts.sort(key=lambda a: (a.start, a.job, a.index))
        return tuple(attempts)

    # the built-in policies restart a failed job at once exactly when a node is free
    records = tuple(FailureRecord(t, x, u, j, i, "idle" if j < 0 else ("spare" if i > 0 else "wait"))
                    for t, x, u, j, i in
                    zip(f_time.tolist(), f_node.tolist(), f_up.tolist(), f_job.tolist(), f_idle.tolist()))
    return SimulationResult(
        workload=sim.workload, policy=_NAMES[code], attempts=LazyAttempts(make, a_job.shape[0]), failures=records,
        downtime=sim.downtime, checkpointing=checkpointing, length=np.array(sim.length),
        walltime=np.array(sim.wall_full), checkpoints=np.array(sim.checkpoints, dtype=np.int64),
        completion=completion, first_start=first_start, horizon=float(horizon),
    )


_NAMES = {0: "fcfs", 1: "easy", 2: "conservative"}


class _NoPolicy:
    """Stands for a policy while the per-job numbers are computed (nothing is run)."""

    name = "kernel"

    def reset(self, sim):  # pragma: no cover - never run
        raise AssertionError

    job_failed = decide = reset
