"""Node stealing ([Du2024] §4.2 SFSJ, §7 the variants Hxyz; the reference is
:class:`coschedule.heuristics.batch.stealing.NodeStealing`) in compiled form, for the batch kernel
(:mod:`.batch_kernel`): the policy's choices (the stop point of a victim, the victim, criterion
K3's flow estimates) and its reactions (Algorithm 1 at a failure, a failure on a node a failed
job keeps, the end of a victim's checkpoint, a victim that completes), on the arrays of
:mod:`.batch_engine`.

Each function mirrors one piece of the reference, float operation for float operation and call
for call, so that the kernel's runs are the reference's bit for bit:

* :func:`_stop_point` -- :meth:`coschedule.sim.checkpointing.Checkpointing.stop_point`;
* :func:`_choose_victim` -- :meth:`~coschedule.heuristics.batch.stealing.NodeStealing.choose_victim`;
* :func:`_k3_steals` -- :meth:`~coschedule.heuristics.batch.stealing.NodeStealing.estimate` and
  criterion K3 of :meth:`~coschedule.heuristics.batch.stealing.NodeStealing.accepts`;
* :func:`_job_failed` -- ``NodeStealing.job_failed`` for a running job, :func:`_held_failed`
  for a failed job that keeps nodes (§7.2.3), :func:`_wake` -- ``NodeStealing.wake``,
  :func:`_transfer` -- ``NodeStealing._transfer``, :func:`_steal` -- ``Simulation.steal``,
  :func:`_resume` -- ``Simulation.resume``.

A steal decided but waiting for its victim (the reference's ``_Pending``) is a column ``pid``
of ``pi`` (rows failed job, victim, nodes lost, proactive, completes) and ``pf`` (rows decided,
wait, saved position, until); ``ji[_PENDF, f]`` and ``ji[_PENDV, v]`` point to it (-1: none).
Bundles: ``PD = (pi, pf, wt, ws, wj)`` the steals and the heap of their wake-ups (the
reference's ``CHECKPOINT`` events), ``S = (sr, sf, s_noff, s_nodes)`` the steal records (rows
failed job, victim, reason; decided, time), ``NODES = (node_job, up, up_at)``, ``P2 = (ts, fr,
bsum)`` a scratch profile for K3; ``prm`` holds timing, victim rule, criterion, the run-time
tie-break, ``knows_downtime`` and the number of nodes.
"""

from __future__ import annotations

import numpy as np

from coschedule.heuristics.batch.engine import (
    _BLOCK,
    _CHECKPOINTED,
    _CNT,
    _COMPL,
    _DONE,
    _E_HELD,
    _E_STEAL,
    _ENDSEQ,
    _ERR,
    _EXE,
    _FREE,
    _HELD,
    _HSINCE,
    _HUNTIL,
    _INTERRUPTED,
    _K,
    _LASTCNT,
    _LASTOFF,
    _LENGTH,
    _LOSE,
    _NHOLD,
    _NP,
    _NRUN,
    _NS,
    _OFF,
    _PAUSED,
    _PENDF,
    _PENDV,
    _PRIORITY_FAILED,
    _PRIORITY_VICTIM,
    _PROACTIVE,
    _PROCS,
    _RECOV,
    _RUNNING,
    _SAVE_AT,
    _SAVED,
    _START,
    _STATE,
    _STOLE,
    _SUBMIT,
    _WALL,
    _WALLFULL,
    _WORK,
    _WSEQ,
    _WSIZE,
    _close_hold,
    _enqueue,
    _heap_push,
    _hold,
    _interrupt,
    _lowest_free,
    _occupied,
    _requeue,
    _saved_count,
    _start,
)
from coschedule.jit import njit
from coschedule.sim.profile import _add, _advance, _earliest_fit

__all__: list[str] = []

#: why a steal was cancelled (StealRecord.cancelled), by code; 0: it happened
REASONS = (
    "",
    "the victim failed",
    "the failed job lost more nodes than the victim has",
    "the failed job has no node left",
    "the victim's nodes failed as it completed",
)
_R_VICTIM_FAILED, _R_LOST_MORE, _R_NO_NODE, _R_VICTIM_NODES = 1, 2, 3, 4
# prm
_TIMING, _RULE, _CRITERION, _BY_RUNTIME, _KNOWS, _N = range(6)


@njit(cache=True)
def _stop_point(
    timing: int, t_run: float, recovery: float, saved: float, work: float, block: float, K: int,
    cost: float, final: bool,
) -> tuple[float, float, bool, bool]:
    """``(wait, saved, proactive, completes)``: when and how a running job stops for node
    stealing by timing ``timing`` (the reference's :class:`~coschedule.sim.checkpointing.StopPoint`);
    ``block`` its ``T + C`` (``inf`` without checkpointing), ``K`` its checkpoints."""
    enabled = cost > 0
    E = work + K * cost
    U = saved
    if t_run <= recovery:
        return 0.0, U, False, False
    p = U + (t_run - recovery)
    B = block if enabled else np.inf
    m = _saved_count(p, block, K) if enabled else 0
    done = U
    if m:
        done = m * B if m * B > U else U  # noqa: FURB136 - max(U, m B) as Python evaluates it
    if timing == 1 or (timing == 2 and not enabled):
        return 0.0, done, False, False
    if m < K:
        fin = final and m + 1 == K
        end = E if fin else (m + 1) * B
        if p >= end - cost:  # inside that checkpoint
            return end - p, end, False, fin
    if p <= done:
        return 0.0, done, False, False
    if timing == 2:
        if E - p <= cost:
            return E - p, E, False, True
        return cost, p, True, False
    if m < K and not (final and m + 1 == K):
        end = (m + 1) * B
        return end - p, end, False, False
    return E - p, E, False, True


@njit(cache=True)
def _choose_victim(
    rule: int, by_runtime: bool, running: np.ndarray, nrun: int, victim_of: np.ndarray, paused_at: np.ndarray,
    procs: np.ndarray, submit: np.ndarray, start_time: np.ndarray,
) -> int:
    """The running job V1 (``rule`` 1: fewest nodes, then latest release -- or latest start with
    ``by_runtime`` --, then highest index) or V2 (2: latest release, then fewest nodes, then
    highest index) picks; -1 when none can be one (every running job already a victim, or
    suspended for its proactive checkpoint: ``victim_of >= 0``, ``paused_at >= 0``). The keys
    are distinct, so the order of ``running`` does not matter."""
    best = -1
    for x in range(nrun):
        v = running[x]
        if victim_of[v] >= 0 or paused_at[v] >= 0:
            continue
        if best < 0:
            best = v
            continue
        if rule == 1:
            a = start_time[v] if by_runtime else submit[v]
            b = start_time[best] if by_runtime else submit[best]
            better = procs[v] < procs[best] or (procs[v] == procs[best] and (a > b or (a == b and v > best)))
        else:
            better = submit[v] > submit[best] or (
                submit[v] == submit[best] and (procs[v] < procs[best] or (procs[v] == procs[best] and v > best)))
        if better:
            best = v
    return best


@njit(cache=True)
def _k3_steals(
    ts: np.ndarray, fr: np.ndarray, bsum: np.ndarray, plen: int, now: float,
    failed: int, victim: int, wait: float, saved: float, held_failed: int,
    procs: np.ndarray, wall: np.ndarray, wall_full: np.ndarray, submit: np.ndarray, start_time: np.ndarray,
    R: float,
) -> bool:
    """Criterion K3 on the plan ``ts, fr`` of :func:`_occupied` (changed here): the largest of
    the two jobs' estimated flows is strictly smaller when ``victim`` stops after ``wait`` (having
    saved ``saved``) and gives a node to ``failed`` (which keeps ``held_failed`` nodes) than when
    ``failed`` waits in the queue."""
    pf = procs[failed]
    pv = procs[victim]
    wf = wall[failed]
    wv = wall[victim]
    sf = submit[failed]
    sv = submit[victim]
    end_v = start_time[victim] + wv
    i = _earliest_fit(ts, fr, plen, bsum, pf, wf, 0, np.inf, np.inf)
    at = np.inf if i < 0 else ts[i]
    wait_f = at + wf - sf
    wait_v = end_v - sv
    tsv = now + wait
    plen = _add(ts, fr, plen, bsum, now, end_v, pv)
    if tsv > now:
        plen = _add(ts, fr, plen, bsum, now, tsv, -(pv + held_failed))
    plen = _add(ts, fr, plen, bsum, tsv, tsv + wf, -pf)
    plen = _advance(ts, fr, plen, bsum, tsv)
    wv2 = R + wall_full[victim] - saved
    i = _earliest_fit(ts, fr, plen, bsum, pv, wv2, 0, np.inf, np.inf)
    back = np.inf if i < 0 else ts[i]
    steal_f = tsv + wf - sf
    steal_v = back + wv2 - sv
    return max(steal_f, steal_v) < max(wait_f, wait_v)



# ------------------------------------------------------------------------------ actions


@njit(cache=True)
def _record_steal(decided: float, now: float, f: int, v: int, nodes: np.ndarray, count: int, reason: int, S,
                  c: np.ndarray) -> None:
    """A ``StealRecord`` (``count`` nodes of ``nodes``; none and a ``reason`` when cancelled)."""
    sr, sf, s_noff, s_nodes = S
    ns = c[_NS]
    base = s_noff[ns]
    for y in range(count):
        s_nodes[base + y] = nodes[y]
    s_noff[ns + 1] = base + count
    sr[0, ns] = f
    sr[1, ns] = v
    sr[2, ns] = reason
    sf[0, ns] = decided
    sf[1, ns] = now
    c[_NS] = ns + 1


@njit(cache=True)
def _steal(f: int, v: int, count: int, decided: float, now: float, J, NODES, pool: np.ndarray,
           running: np.ndarray, EV, HO, S, buf: np.ndarray, c: np.ndarray) -> None:
    """``Simulation.steal``: ``count`` lowest-index nodes of victim ``v`` (just interrupted: it
    goes back to the queue with priority 2, the caller enqueues it; or just completed: among its
    nodes still up and idle) go to failed job ``f``, which starts now on them and the nodes it
    keeps."""
    ji, jf = J[0], J[1]
    node_job, up = NODES[0], NODES[1]
    st = ji[_STATE, v]
    if st == _HELD:
        off = ji[_OFF, v]
        cnt = ji[_CNT, v]
    elif st == _DONE and jf[_COMPL, v] == now:
        off = ji[_LASTOFF, v]
        cnt = ji[_LASTCNT, v]
    else:
        c[_ERR] = _E_STEAL
        return
    k = 0  # the candidates: all its nodes, or those of a completed victim still up and idle
    for y in range(cnt):
        x = pool[off + y]
        if st == _HELD or (up[x] and node_job[x] < 0):
            buf[k] = x
            k += 1
    if not 0 < count <= k:
        c[_ERR] = _E_STEAL
        return
    if st == _HELD:
        _requeue(v, now, _PRIORITY_VICTIM, J, node_job, up, pool, HO, c)
    if jf[_HSINCE, f] >= 0.0:
        _close_hold(f, now, False, J, pool, HO, c)
    _start(f, now, buf, count, J, node_job, pool, running, EV, c)
    _record_steal(decided, now, f, v, buf, count, 0, S, c)
    c[_STOLE] = 1


@njit(cache=True)
def _wait(j: int, now: float, J, NODES, pool: np.ndarray, queue: np.ndarray, HO, c: np.ndarray) -> None:
    """``NodeStealing._wait``: ``j`` back to the queue with priority 3."""
    node_job, up = NODES[0], NODES[1]
    _requeue(j, now, _PRIORITY_FAILED, J, node_job, up, pool, HO, c)
    _enqueue(j, queue, J, c)


@njit(cache=True)
def _cancel(pid: int, reason: int, now: float, J, NODES, pool: np.ndarray, queue: np.ndarray, HO, S, PD,
            buf: np.ndarray, c: np.ndarray) -> None:
    """``NodeStealing._cancel``: steal ``pid`` will not happen; its failed job waits in the
    queue (a suspended victim goes on at its wake-up)."""
    ji = J[0]
    pi, pf = PD[0], PD[1]
    f = pi[0, pid]
    v = pi[1, pid]
    ji[_PENDF, f] = -1
    ji[_PENDV, v] = -1
    _record_steal(pf[0, pid], now, f, v, buf, 0, reason, S, c)
    _wait(f, now, J, NODES, pool, queue, HO, c)


@njit(cache=True)
def _job_failed(j: int, now: float, prm: np.ndarray, cost: float, R: float, final: bool, J, NODES,
                pool: np.ndarray, running: np.ndarray, queue: np.ndarray, EV, A, HO, S, PD, P2, buf: np.ndarray,
                c: np.ndarray) -> None:
    """``NodeStealing.job_failed`` for running job ``j`` just interrupted by a failure
    (Algorithm 1): a spare node, else a victim by choice y tested by criterion z, stopped by
    timing x -- at once, or later while ``j`` keeps its nodes."""
    ji, jf, ci, cf = J
    node_job, up, up_at = NODES
    pi, pf, wt, ws, wj = PD
    pid = ji[_PENDV, j]
    if pid >= 0:  # the victim failed (§7.2.3, first case)
        _cancel(pid, _R_VICTIM_FAILED, now, J, NODES, pool, queue, HO, S, PD, buf, c)
    if c[_FREE] > 0 and _lowest_free(node_job, up, 1, buf) == 1:  # a spare node
        _start(j, now, buf, 1, J, node_job, pool, running, EV, c)
        return
    v = _choose_victim(prm[_RULE], prm[_BY_RUNTIME] != 0, running, c[_NRUN], ji[_PENDV], jf[_PAUSED],
                       ci[_PROCS], cf[_SUBMIT], jf[_START])
    if v < 0:
        _wait(j, now, J, NODES, pool, queue, HO, c)
        return
    wait, saved, proactive, completes = _stop_point(
        prm[_TIMING], now - jf[_START, v], jf[_RECOV, v], jf[_SAVED, v], cf[_WORK, v], cf[_BLOCK, v], ci[_K, v],
        cost, final)
    crit = prm[_CRITERION]
    if crit == 1:
        ok = ci[_PROCS, v] < ci[_PROCS, j]
    elif crit == 2:
        ok = cf[_SUBMIT, v] > cf[_SUBMIT, j]
    else:
        ts, fr, bsum = P2
        plen = _occupied(ts, fr, bsum, now, prm[_N], running, c[_NRUN], jf[_START], jf[_WALL], ci[_PROCS], up,
                         up_at, prm[_KNOWS] != 0, HO[0], c[_NHOLD], jf[_HUNTIL], ji[_CNT])
        ok = _k3_steals(ts, fr, bsum, plen, now, j, v, wait, saved, ji[_CNT, j], ci[_PROCS], jf[_WALL],
                        cf[_WALLFULL], cf[_SUBMIT], jf[_START], R)
    if not ok:
        _wait(j, now, J, NODES, pool, queue, HO, c)
        return
    if wait <= 0 and not completes:
        _interrupt(v, now, _INTERRUPTED, -1, _LOSE, 0.0, R, J, pool, running, A, c)
        _steal(j, v, 1, now, now, J, NODES, pool, running, EV, HO, S, buf, c)
        _enqueue(v, queue, J, c)
        return
    if ji[_CNT, j] == 0:  # no node to keep while waiting (§7.2.1)
        _record_steal(now, now, j, v, buf, 0, _R_NO_NODE, S, c)
        _wait(j, now, J, NODES, pool, queue, HO, c)
        return
    pid = c[_NP]
    c[_NP] += 1
    pi[0, pid] = j
    pi[1, pid] = v
    pi[2, pid] = 1
    pi[3, pid] = proactive
    pi[4, pid] = completes
    until = now + wait
    pf[0, pid] = now
    pf[1, pid] = wait
    pf[2, pid] = saved
    pf[3, pid] = until
    _hold(j, now, until, J, HO, c)
    if proactive:  # Simulation.suspend: its end is void, its work stops now
        jf[_PAUSED, v] = now
        ji[_ENDSEQ, v] = -1
    ji[_PENDF, j] = pid
    ji[_PENDV, v] = pid
    if not completes:
        c[_WSIZE] = _heap_push(wt, ws, wj, c[_WSIZE], until, c[_WSEQ], pid)
        c[_WSEQ] += 1


@njit(cache=True)
def _held_failed(j: int, now: float, J, NODES, pool: np.ndarray, queue: np.ndarray, HO, S, PD, buf: np.ndarray,
                 c: np.ndarray) -> None:
    """``NodeStealing.job_failed`` for a failed job ``j`` that keeps nodes and lost one more
    (§7.2.3, second case): cancel when the victim has fewer nodes than it lost or it has none
    left, else wait on for the same victim."""
    ji, ci = J[0], J[2]
    pi, pf = PD[0], PD[1]
    pid = ji[_PENDF, j]
    if pid < 0:
        c[_ERR] = _E_HELD
        return
    pi[2, pid] += 1
    if ci[_PROCS, pi[1, pid]] < pi[2, pid]:
        _cancel(pid, _R_LOST_MORE, now, J, NODES, pool, queue, HO, S, PD, buf, c)
    elif ji[_CNT, j] == 0:
        _cancel(pid, _R_NO_NODE, now, J, NODES, pool, queue, HO, S, PD, buf, c)
    else:
        _hold(j, now, pf[3, pid], J, HO, c)


@njit(cache=True)
def _transfer(pid: int, now: float, R: float, J, NODES, pool: np.ndarray, running: np.ndarray, queue: np.ndarray,
              EV, A, HO, S, PD, buf: np.ndarray, c: np.ndarray) -> None:
    """``NodeStealing._transfer``: the victim stops now (or has just completed) and its nodes
    go to the failed job."""
    ji = J[0]
    node_job, up = NODES[0], NODES[1]
    pi, pf = PD[0], PD[1]
    f = pi[0, pid]
    v = pi[1, pid]
    lost = pi[2, pid]
    ji[_PENDF, f] = -1
    ji[_PENDV, v] = -1
    if ji[_STATE, v] == _RUNNING:
        if pi[3, pid]:
            _interrupt(v, now, _INTERRUPTED, -1, _PROACTIVE, 0.0, R, J, pool, running, A, c)
        else:
            _interrupt(v, now, _INTERRUPTED, -1, _SAVE_AT, pf[2, pid], R, J, pool, running, A, c)
        _steal(f, v, lost, pf[0, pid], now, J, NODES, pool, running, EV, HO, S, buf, c)
        _enqueue(v, queue, J, c)
        return
    # the victim completed now: its nodes that are still up and idle
    off = ji[_LASTOFF, v]
    free = 0
    for y in range(ji[_LASTCNT, v]):
        x = pool[off + y]
        if up[x] and node_job[x] < 0:
            free += 1
    if free < lost:
        _record_steal(pf[0, pid], now, f, v, buf, 0, _R_VICTIM_NODES, S, c)
        _wait(f, now, J, NODES, pool, queue, HO, c)
        return
    _steal(f, v, lost, pf[0, pid], now, J, NODES, pool, running, EV, HO, S, buf, c)


@njit(cache=True)
def _resume(v: int, now: float, R: float, J, node_job: np.ndarray, pool: np.ndarray, running: np.ndarray, EV, A,
            buf: np.ndarray, c: np.ndarray) -> None:
    """``Simulation.resume``: suspended ``v`` has taken its proactive checkpoint and goes on at
    once on the same nodes, without recovery (its steal was cancelled)."""
    jf, cf = J[1], J[3]
    _interrupt(v, now, _CHECKPOINTED, -1, _PROACTIVE, 0.0, R, J, pool, running, A, c)
    jf[_RECOV, v] = 0.0
    jf[_EXE, v] = cf[_LENGTH, v] - jf[_SAVED, v]
    jf[_WALL, v] = cf[_WALLFULL, v] - jf[_SAVED, v]
    release = cf[_SUBMIT, v]  # it goes on: the same submission
    _start(v, now, buf, 0, J, node_job, pool, running, EV, c)
    cf[_SUBMIT, v] = release


@njit(cache=True)
def _wake(pid: int, now: float, R: float, J, NODES, pool: np.ndarray, running: np.ndarray, queue: np.ndarray, EV,
          A, HO, S, PD, buf: np.ndarray, c: np.ndarray) -> None:
    """``NodeStealing.wake``: the victim's checkpoint is done; the node changes hands, or (the
    steal cancelled) a victim still in that proactive checkpoint goes on."""
    ji, jf = J[0], J[1]
    pi, pf = PD[0], PD[1]
    if ji[_PENDF, pi[0, pid]] != pid:  # cancelled
        v = pi[1, pid]
        if jf[_PAUSED, v] == pf[0, pid]:
            _resume(v, now, R, J, NODES[0], pool, running, EV, A, buf, c)
        return
    _transfer(pid, now, R, J, NODES, pool, running, queue, EV, A, HO, S, PD, buf, c)
