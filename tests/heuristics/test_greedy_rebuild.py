"""The greedy rebuild kernel (Algorithm 1 with costs: EndGreedy, IteratedGreedy, EndLocal) against
the plain heap loop it replaced, one sift per pair given, on the very calls that runs make:
synthetic packs with failures, and a pack of identical applications where every value ties (the
heap breaks them by position)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coschedule.heuristics import redistribution
from coschedule.heuristics.redistribution import _before, _value, greedy_rebuild, run_pack
from coschedule.redistribution.kernels import k_can_grow
from coschedule.redistribution.model import YEAR, MalleablePack, Resilience


def _heap_loop(ids, jcur, kmin, alpha, base, tucur, pairs, ver, jexact, p_even, seq, par, tab, use_tab, mem, prm):
    """The former kernel: pop the largest value (then the lowest position), give it two
    processors if that improves it, else drop it; one sift per step."""
    m = ids.shape[0]
    k = kmin.copy()
    heap = [(_value(x, k[x], ids, jcur, alpha, base, tucur, seq, par, tab, use_tab, mem, prm), x) for x in range(m)]

    def top() -> int:
        best = 0
        for y in range(1, len(heap)):
            if _before(heap[y][0], heap[y][1], heap[best][0], heap[best][1]):
                best = y
        return best

    while pairs > 0 and heap:
        y = top()
        cur, x = heap[y]
        nv = math.inf
        if k_can_grow(ids[x], k[x], ver, jexact, p_even, seq, par, tab, use_tab, mem, prm):
            nv = _value(x, k[x] + 2, ids, jcur, alpha, base, tucur, seq, par, tab, use_tab, mem, prm)
        if nv < cur:
            k[x] += 2
            pairs -= 1
            heap[y] = (nv, x)
        else:
            heap.pop(y)
    return k


def _calls(monkeypatch, pack: MalleablePack, res: Resilience, runs) -> list[tuple]:
    """The arguments of every greedy rebuild the runs make (copies: the lazy j_max arrays change)."""
    calls: list[tuple] = []
    real = redistribution.greedy_rebuild

    def record(*args):
        calls.append(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args))
        return real(*args)

    monkeypatch.setattr(redistribution, "greedy_rebuild", record)
    for at_end, at_failure, seed in runs:
        run_pack(pack, res, at_end=at_end, at_failure=at_failure, seed=seed)
    return calls


def _check(calls: list[tuple]) -> int:
    ties = 0
    for args in calls:
        a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        b = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        got = greedy_rebuild(*a)  # the kernel itself (the module's name is the recorder now)
        want = _heap_loop(*b)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(a[7], b[7])  # the lazy j_max arrays: the same counts reached
        np.testing.assert_array_equal(a[8], b[8])
        ties += len(set(np.unique(got).tolist())) < len(got)
    return ties


@pytest.mark.parametrize("seed", [0, 1])
def test_same_counts_as_the_heap_loop_on_synthetic_runs(monkeypatch, seed):
    pack = MalleablePack.synthetic(24, 200, seed=seed)
    res = Resilience(node_mtbf=0.5 * YEAR, c=1.0)
    runs = [("greedy", "iterated", seed), ("local", "iterated", seed + 5), ("greedy", "saf", seed + 9)]
    calls = _calls(monkeypatch, pack, res, runs)
    assert len(calls) > 30
    _check(calls)


def test_same_counts_when_every_value_ties(monkeypatch):
    """Identical applications at the same point: every value ties, so positions decide (the lower
    first); with a number of pairs that the applications do not share evenly, the counts differ
    by position. The calls of runs of such a pack, and the same calls with fewer pairs."""
    n = 9
    pack = MalleablePack(p=64, memory=np.full(n, 2.0e6), seq=np.full(n, 1.0e4), par=np.full(n, 4.0e5))
    calls = _calls(monkeypatch, pack, Resilience(node_mtbf=0.1 * YEAR), [("greedy", "iterated", 3), ("local", "saf", 4)])
    assert len(calls) >= 5
    uneven = []
    for args in calls:
        m = len(args[0])
        for pairs in range(1, int(args[6]) + 1):
            if pairs % m:
                uneven.append((*args[:6], pairs, *args[7:]))
    assert len(uneven) > 20
    _check(calls + uneven)
    tied = [a for a in uneven if len(np.unique(a[5])) == 1 and len(np.unique(a[1])) == 1 and len(a[0]) > 1]
    assert tied
    split = 0
    for args in tied:
        got = greedy_rebuild(*[x.copy() if isinstance(x, np.ndarray) else x for x in args])
        assert np.all(np.diff(got) <= 0)  # the lower positions first
        split += got[0] > got[-1]
    assert split  # (the others stop before the pairs run out: no application improvable any more)
