"""Conservative backfilling with reservations on node identities (``reservations="nodes"``,
:mod:`.backfilling`, "Reservations"; batsched's plan, [Du2024] §5.1) in the compiled batch
kernel (:mod:`.kernel`): the plan of ``Conservative.decide`` on the node-set profile
(:mod:`coschedule.sim.nodeset_profile`, whose compiled kernels the reference runs too), called
in the reference's order, and the start of a job on its reserved nodes.

State (``NS``, from :func:`_alloc`): the profile's arrays ``ts, fr, bsum, so, sl, meta``, three
scratch lists ``sa, sb, sc``, each job's reservation
``roff[j], rlen[j]`` (entries of ``rpool``; ``rlen`` 0: none) with ``rmeta[0]`` the top of
``rpool``, and ``buf`` for a job's nodes as intervals. The two pools (``npool`` the profile's
lists, ``rpool`` the reservations) may be replaced when they grow: each function returns them.
A job's nodes in the engine's pool (:mod:`.engine`) are sorted ids; the profile takes intervals.
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.heuristics.batch.engine import (
    _CNT,
    _HUNTIL,
    _LASTCNT,
    _LASTOFF,
    _OFF,
    _PROCS,
    _START,
    _WALL,
    _gather,
)
from coschedule.jit import njit
from coschedule.sim.nodeset_profile import (
    _advance,
    _change,
    _compress,
    _init,
    _of_occupations,
    _place,
)
from coschedule.sim.nodesets import _ids_to_iv
from coschedule.sim.profile import summary_size

__all__: list[str] = []


@njit(cache=True)
def _alloc(cap: int, n: int, N: int):  # type: ignore[no-untyped-def]
    """The state for profiles of ``cap`` breakpoints, ``n`` jobs, ``N`` nodes (all free from 0),
    and the pools."""
    NS = (np.empty(cap), np.empty(cap, dtype=np.int64), np.empty(summary_size(cap), dtype=np.int64),
          np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int64), np.zeros(2, dtype=np.int64),
          np.empty(N + 4, dtype=np.int64), np.empty(N + 4, dtype=np.int64),
          np.empty(N + 4, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
          np.zeros(1, dtype=np.int64), np.empty(N + 4, dtype=np.int64),
          np.empty(n + N + 4), np.empty(n + N + 4, dtype=np.int64), np.empty(n + N + 4, dtype=np.int64),
          np.empty(2 * n + 4 * N + 8, dtype=np.int64))
    npool = np.empty(64 + 4 * N, dtype=np.int64)
    _init(NS[0], NS[1], NS[3], NS[4], NS[5], npool, 0.0, N)  # all nodes free from 0
    return NS, npool, np.empty(64 + 4 * N, dtype=np.int64)


@njit(cache=True)
def _occupy(NS, npool, jpool, off, cnt, start, end, release):  # type: ignore[no-untyped-def]
    """The nodes ``jpool[off : off + cnt]`` (sorted ids) occupied or given back on ``[start, end)``."""
    ts, fr, bsum, so, sl, meta = NS[0], NS[1], NS[2], NS[3], NS[4], NS[5]
    buf = NS[12]
    m = _ids_to_iv(jpool, off, cnt, buf)
    return _change(ts, fr, bsum, so, sl, meta, npool, start, end, buf, 0, m, release)


@njit(cache=True)
def _plan_nodes(  # type: ignore[no-untyped-def]
    NS, npool, rpool, rebuild, now, N, running, nrun, J, jpool, up, up_at, knows_downtime, holding, nhold,
    ended, nend, old, nold, submitted, nsub, queue, qlen, reserved, tmp_p, tmp_d, tmp_s,
):
    """``Conservative.decide``'s plan with ``reservations="nodes"``: rebuilt from the running
    jobs on their nodes until start plus wall time, the down nodes (until back, or for good
    when that is not known) and the nodes failed jobs keep, then the queue placed; or advanced
    to ``now``, the ended jobs' nodes given back, the old queue ``old[:nold]`` compressed and the
    submitted jobs placed. The starts go to ``reserved``, the nodes to ``roff``/``rlen``.
    Returns the two pools."""
    ts, fr, bsum, so, sl, meta, sa, sb, sc = NS[0], NS[1], NS[2], NS[3], NS[4], NS[5], NS[6], NS[7], NS[8]
    roff, rlen, rmeta = NS[9], NS[10], NS[11]
    ji, jf, ci = J[0], J[1], J[2]
    procs, start_time, wall = ci[_PROCS], jf[_START], jf[_WALL]
    if rebuild:
        iends, ioff, ilen, ipool = NS[13], NS[14], NS[15], NS[16]
        k = 0
        w = 0
        for y in range(nrun + nhold):  # the running jobs, then the holds
            j = running[y] if y < nrun else holding[y - nrun]
            m = _ids_to_iv(jpool, ji[_OFF, j], ji[_CNT, j], ipool[w:])
            iends[k], ioff[k], ilen[k] = start_time[j] + wall[j] if y < nrun else jf[_HUNTIL, j], w, m
            k += 1
            w += m
        for x in range(N):  # the down nodes (a loop of its own: the test is rarely true)
            if not up[x]:
                ipool[w] = x
                ipool[w + 1] = x + 1
                iends[k], ioff[k], ilen[k] = up_at[x] if knows_downtime else math.inf, w, 2
                k += 1
                w += 2
        npool = _of_occupations(ts, fr, bsum, so, sl, meta, npool, now, N, iends, ipool, ioff, ilen, k, sa, sb)
        rlen[:] = 0
        rmeta[0] = 0
        _gather(queue[:qlen], procs, wall, tmp_p, tmp_d)
        npool, rpool = _place(ts, fr, bsum, so, sl, meta, npool, queue[:qlen], tmp_p[:qlen], tmp_d[:qlen],
                              tmp_s[:qlen], roff, rlen, rpool, rmeta, sa, sb, sc)
        reserved[queue[:qlen]] = tmp_s[:qlen]
        return npool, rpool
    _advance(ts, fr, bsum, so, sl, meta, npool, now)
    for y in range(nend):
        j = ended[y]
        npool = _occupy(NS, npool, jpool, ji[_LASTOFF, j], ji[_LASTCNT, j], start_time[j], start_time[j] + wall[j],
                        True)
    if nend > 0 and nold > 0:
        _gather(old[:nold], procs, wall, tmp_p, tmp_d)
        tmp_s[:nold] = reserved[old[:nold]]
        npool, rpool = _compress(ts, fr, bsum, so, sl, meta, npool, old[:nold], tmp_p[:nold], tmp_d[:nold],
                                 tmp_s[:nold], roff, rlen, rpool, rmeta, sa, sb, sc)
        reserved[old[:nold]] = tmp_s[:nold]
    if nsub > 0:
        _gather(submitted[:nsub], procs, wall, tmp_p, tmp_d)
        npool, rpool = _place(ts, fr, bsum, so, sl, meta, npool, submitted[:nsub], tmp_p[:nsub], tmp_d[:nsub],
                              tmp_s[:nsub], roff, rlen, rpool, rmeta, sa, sb, sc)
        reserved[submitted[:nsub]] = tmp_s[:nsub]
    return npool, rpool


@njit(cache=True)
def _reserved_nodes(j, NS, rpool, node_job, up, sel):  # type: ignore[no-untyped-def]
    """Job ``j``'s reserved nodes as ids into ``sel`` (its reservation is then spent); how many,
    or -1 when one of them is down or busy (the reference's ``start`` raises there)."""
    roff, rlen = NS[9], NS[10]
    k = 0
    for y in range(roff[j], roff[j] + rlen[j], 2):
        for x in range(rpool[y], rpool[y + 1]):
            if not up[x] or node_job[x] >= 0:
                return -1
            sel[k] = x
            k += 1
    rlen[j] = 0
    return k
