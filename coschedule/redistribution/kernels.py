"""Scalar kernels of the pack model (numba).

The pack simulator and its heuristics evaluate t^R for one (application, count) at a time,
millions of times per run: these scalar functions compute what PackModel computes, compiled
by numba when it is installed (coschedule.jit), plain Python otherwise. Their arguments are
PackModel.kernel_args(): seq, par (closed form) or tab (table, use_tab), mem, and prm =
[c, beta, S, rate, node_mtbf, D, eq16, printed]. tests/coschedule/test_redistribution_model.py
checks them against PackModel.

A kernel that calls them has them inlined by numba (``inline="always"``): a call between
compiled functions passes, and counts references to, every array it takes, and the greedy
rebuild of :mod:`coschedule.heuristics.redistribution` took half as long again with the calls.
"""

from __future__ import annotations

import math

import numpy as np

from coschedule.jit import njit

__all__ = ["k_can_grow", "k_checkpoint", "k_expected", "k_fault_free", "k_jmax", "k_period", "k_rc", "k_time"]


@njit(cache=True, inline="always")
def k_time(i, k, seq, par, tab, use_tab):  # type: ignore[no-untyped-def]
    """``t_{i,k}``."""
    if use_tab:
        kk = min(k, tab.shape[1])
        return tab[i, kk - 1]
    return seq[i] + par[i] / k


@njit(cache=True, inline="always")
def k_checkpoint(i, k, mem, prm):  # type: ignore[no-untyped-def]
    """``C_{i,k}``."""
    return prm[0] * mem[i] / k + prm[1]


@njit(cache=True, inline="always")
def k_period(C, k, prm):  # type: ignore[no-untyped-def]
    """``tau`` for a checkpoint ``C`` on ``k`` processors (``inf``: no checkpoint)."""
    if prm[3] == 0.0 or C <= 0.0:
        return math.inf
    mu = prm[4] / k
    if prm[7] != 0.0:
        return math.sqrt(2.0 * mu * C + C)
    return math.sqrt(2.0 * mu * C) + C


@njit(cache=True, inline="always")
def _k_g(rate, x):  # type: ignore[no-untyped-def]
    if rate == 0.0:
        return x
    return math.expm1(rate * x) / rate


@njit(cache=True, inline="always")
def k_expected(i, k, alpha, seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    """``t^R_{i,k}(alpha)`` under the model of ``prm``."""
    work = alpha * k_time(i, k, seq, par, tab, use_tab)
    C = k_checkpoint(i, k, mem, prm)
    tau = k_period(C, k, prm)
    rate = prm[3] * k
    n = 0.0
    last = work
    if tau < math.inf:
        n = math.floor(work / (tau - C))
        last = work - n * (tau - C)
    body = _k_g(rate, last)
    if n > 0.0:
        body += n * _k_g(rate, tau)
    if prm[6] != 0.0:
        return math.exp(rate * C) * (1.0 + rate * prm[5]) * body
    return (1.0 + rate * (prm[5] + C)) * body


@njit(cache=True, inline="always")
def k_fault_free(i, k, alpha, seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    """``alpha t_{i,k} + N^ff C_{i,k}``."""
    work = alpha * k_time(i, k, seq, par, tab, use_tab)
    C = k_checkpoint(i, k, mem, prm)
    tau = k_period(C, k, prm)
    if tau < math.inf:
        return work + math.floor(work / (tau - C)) * C
    return work


@njit(cache=True, inline="always")
def k_rc(i, j, k, mem, prm):  # type: ignore[no-untyped-def]
    """``RC_i^{j -> k}`` of (1.11); 0 when ``j = k``."""
    if j == k:
        return 0.0
    lo = min(k, j)
    d = k - j if k > j else j - k
    rounds = max(d, lo)
    return prm[2] + rounds * (prm[0] * mem[i] / (j * k) + prm[1])


@njit(cache=True)
def k_jmax(kmin, p_even, seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    """``j_max`` of (1.8) for every application, at ``alpha = 1``: scanning ``k`` down from
    ``p_even`` to the application's minimum with the minimum of the larger counts; the smallest
    ``j`` with ``t^R(j) <=`` that minimum."""
    n = mem.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        best = math.inf
        ans = p_even
        k = p_even
        while k >= kmin[i]:
            v = k_expected(i, k, 1.0, seq, par, tab, use_tab, mem, prm)
            if v <= best:
                ans = k
                best = v
            k -= 2
        out[i] = max(kmin[i], ans)
    return out


@njit(cache=True, inline="always")
def k_can_grow(i, k, ver, exact, p_even, seq, par, tab, use_tab, mem, prm):  # type: ignore[no-untyped-def]
    """Whether ``k + 2 <= j_max(i)`` (1.8), computed lazily: ``ver[i]`` is a count ``V`` known
    to satisfy ``j_max(i) >= V`` (start: the application's minimum), ``exact[i]`` is ``j_max(i)``
    once known (0 before). ``j_max >= j + 2`` as soon as some larger count beats ``t^R(j)``; a
    count no larger one beats is ``j_max`` itself. Same answers as :meth:`PackModel.jmax`, at
    the cost of the counts the caller reaches (plus a scan past each non-decrease)."""
    if k + 2 > p_even:
        return False
    if ver[i] >= k + 2:
        return True
    if exact[i] > 0:
        return k + 2 <= exact[i]
    while ver[i] < k + 2:
        j = ver[i]
        tj = k_expected(i, j, 1.0, seq, par, tab, use_tab, mem, prm)
        l = j + 2
        found = False
        while l <= p_even:
            if k_expected(i, l, 1.0, seq, par, tab, use_tab, mem, prm) < tj:
                found = True
                break
            l += 2
        if not found:
            exact[i] = j
            return k + 2 <= j
        ver[i] = j + 2
    return True
