"""The node-set availability profile against a brute force: a per-node timeline (each node's
busy intervals), and earliest fits found by trying every candidate start and collecting the
nodes free on the whole window; place and compress against the obvious loops on it."""

from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedule.sim.nodeset_profile import NodeSetProfile, intervals, nodes_of
from coschedule.sim.profile import BLOCK, AvailabilityProfile


class Timeline:
    """Per node, the list of its busy intervals; everything recomputed from them."""

    def __init__(self, capacity: int, now: float = 0.0) -> None:
        self.capacity, self.now = capacity, now
        self.busy: list[list[tuple[float, float]]] = [[] for _ in range(capacity)]

    def add(self, s: float, e: float, nodes) -> None:
        for x in nodes:
            self.busy[x].append((s, e))

    def remove(self, s: float, e: float, nodes) -> None:
        for x in nodes:
            self.busy[x].remove((s, e))

    def free_on(self, x: int, s: float, e: float) -> bool:
        return all(not (b < e and s < c and b < c) for b, c in self.busy[x]) if e > s else \
            all(not (b <= s < c) for b, c in self.busy[x])

    def free_at(self, t: float) -> list[int]:
        return [x for x in range(self.capacity) if all(not (b <= t < c) for b, c in self.busy[x])]

    def points(self) -> list[float]:
        pts = {self.now} | {y for iv in self.busy for b, c in iv for y in (b, c) if self.now < y < math.inf}
        return sorted(pts)

    def earliest_fit(self, p: int, d: float):
        for t in self.points():
            free = [x for x in range(self.capacity) if self.free_on(x, t, t + d)]
            if len(free) >= p:
                return t, free[:p]
        return math.inf, []


def _check_same(prof: NodeSetProfile, ref: Timeline) -> None:
    for t in ref.points() + [ref.now + 1e6]:
        assert nodes_of(prof.free_at(t)) == ref.free_at(t), t
    steps = prof.steps()
    assert all(a[0] < b[0] for a, b in itertools.pairwise(steps))
    assert steps[0][0] == ref.now


times = st.integers(min_value=0, max_value=60).map(float)


@settings(deadline=None)
@given(
    capacity=st.integers(1, 12),
    ops=st.lists(st.tuples(times, st.integers(1, 40).map(float), st.sets(st.integers(0, 11), min_size=1),
                           st.booleans()), max_size=60),
    queries=st.lists(st.tuples(st.integers(1, 12), st.integers(0, 50).map(float)), min_size=1, max_size=8),
    now=st.integers(0, 50).map(float),
)
def test_profile_matches_the_per_node_timeline(capacity, ops, queries, now):
    prof, ref = NodeSetProfile(capacity, size_hint=8), Timeline(capacity)
    live = []
    for s, d, nodes, remove in ops:
        nodes = sorted(x for x in nodes if x < capacity)
        if remove and live:
            s0, e0, n0 = live.pop(len(live) // 2)
            prof.remove(s0, e0, n0)
            ref.remove(s0, e0, n0)
            continue
        # an occupation only on nodes free on its interval (a consistent plan)
        nodes = [x for x in nodes if ref.free_on(x, s, s + d)]
        if nodes:
            prof.add(s, s + d, nodes)
            ref.add(s, s + d, nodes)
            live.append((s, s + d, nodes))
    _check_same(prof, ref)
    for p, d in queries:
        s, iv = prof.earliest_fit(p, d)
        t, free = ref.earliest_fit(p, d)
        assert (s, nodes_of(iv)) == (t, free)
    prof.advance(now)  # forgets the past, keeps the future, merges equal neighbours
    ref.now = now
    _check_same(prof, ref)
    steps = prof.steps()
    assert all(a[1] != b[1] for a, b in itertools.pairwise(steps))
    for p, d in queries:
        s, iv = prof.earliest_fit(p, d)
        assert (s, nodes_of(iv)) == tuple(ref.earliest_fit(p, d))


@settings(deadline=None)
@given(
    capacity=st.integers(1, 10),
    running=st.lists(st.tuples(st.integers(1, 30).map(float), st.integers(1, 10)), max_size=6),
    jobs=st.lists(st.tuples(st.integers(1, 10), st.integers(1, 30).map(float)), min_size=1, max_size=25),
    ends_early=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_place_and_compress_are_the_obvious_loops(capacity, running, jobs, ends_early):
    """place = each job reserved at its earliest fit on its lowest nodes, in order; compress =
    each job taken out and added again at its earliest fit among the others, in order
    (batsched's make_decisions), checked on the per-node timeline."""
    prof, ref = NodeSetProfile(capacity, size_hint=8), Timeline(capacity)
    kept = []
    nxt = 0
    for e, p in running:
        if nxt + p <= capacity:
            nodes = list(range(nxt, nxt + p))
            nxt += p
            prof.add(0.0, e, nodes)
            ref.add(0.0, e, nodes)
            kept.append((e, nodes))
    procs = [min(p, capacity) for p, _ in jobs]
    durs = [d for _, d in jobs]
    starts, sets = prof.place(procs, durs)
    for j, (p, d) in enumerate(zip(procs, durs)):
        s, free = ref.earliest_fit(p, d)
        assert (starts[j], nodes_of(sets[j])) == (s, free)
        ref.add(s, s + d, free)
    _check_same(prof, ref)
    for (e, nodes), early in zip(kept, ends_early):
        if early:  # ends now, before its planned end
            prof.remove(0.0, e, nodes)
            ref.remove(0.0, e, nodes)
    new, new_sets = prof.compress(procs, durs, starts, sets)
    for j, (p, d) in enumerate(zip(procs, durs)):
        s = starts[j]
        if s <= 0.0:  # a reservation falling now stays (it starts now)
            assert (new[j], new_sets[j]) == (s, sets[j])
            continue
        ref.remove(s, s + d, nodes_of(sets[j]))
        s2, free = ref.earliest_fit(p, d)
        ref.add(s2, s2 + d, free)
        assert (new[j], nodes_of(new_sets[j])) == (s2, free) and s2 <= s
    _check_same(prof, ref)


@settings(deadline=None)
@given(
    running=st.lists(st.integers(1, 30).map(float), max_size=4),
    jobs=st.lists(st.integers(1, 30).map(float), min_size=1, max_size=20),
)
def test_with_one_node_the_plan_is_the_count_plan(running, jobs):
    """On a single node node sets are counts: the same starts, place and compress."""
    ns, cnt = NodeSetProfile(1), AvailabilityProfile(1)
    if running:
        ns.add(0.0, running[0], [0])
        cnt.add(0.0, running[0], 1)
    ones = [1] * len(jobs)
    s_ns, sets = ns.place(ones, jobs)
    s_cnt = cnt.place(ones, jobs)
    assert np.array_equal(s_ns, s_cnt)
    assert all(nodes_of(x) == ([0] if s < math.inf else []) for x, s in zip(sets, s_ns))
    if running:
        ns.remove(0.0, running[0], [0])
        cnt.remove(0.0, running[0], 1)
    assert np.array_equal(ns.compress(ones, jobs, s_ns, sets)[0], cnt.compress(ones, jobs, s_cnt))


def test_fragmentation_hand_worked():
    """2 nodes: node 1 busy until 5, node 0 reserved from 10. Counts: 1 free on [0, 5), 2 on
    [5, 10), 1 on [10, 30): a job of one node for 12 fits at 0 by counts (a node free at every
    instant of [0, 12)). By node sets no node is free on all of [0, 12) (node 0 is taken at 10,
    node 1 is busy until 5): the job starts at 5 on node 1. For 10 it fits at 0 on node 0."""
    ns, cnt = NodeSetProfile(2), AvailabilityProfile(2)
    ns.add(10.0, 30.0, [0])
    ns.add(0.0, 5.0, [1])
    cnt.add(10.0, 30.0, 1)
    cnt.add(0.0, 5.0, 1)
    assert cnt.earliest_fit(1, 12.0) == 0.0
    assert ns.earliest_fit(1, 12.0) == (5.0, ((1, 2),))
    assert ns.earliest_fit(1, 10.0) == (0.0, ((0, 1),))


def test_a_long_profile_and_pool_compaction():
    """Thousands of segments and occupations (block summaries, growth, the pools compacted)
    against the timeline at a few instants."""
    rng = np.random.default_rng(7)
    prof, ref = NodeSetProfile(40, size_hint=8), Timeline(40)
    live = []
    for k in range(6 * BLOCK):
        s = float(k)
        nodes = sorted(rng.choice(40, size=int(rng.integers(1, 6)), replace=False).tolist())
        nodes = [x for x in nodes if ref.free_on(x, s, s + 7.0)]
        if nodes:
            prof.add(s, s + 7.0, nodes)
            ref.add(s, s + 7.0, nodes)
            live.append((s, s + 7.0, nodes))
        if k % 3 == 0 and live:
            s0, e0, n0 = live.pop(int(rng.integers(0, len(live))))
            prof.remove(s0, e0, n0)
            ref.remove(s0, e0, n0)
    assert len(prof) > 2 * BLOCK
    _check_same(prof, ref)
    for p, d in ((1, 3.0), (20, 10.0), (35, 2.0), (40, 1.0)):
        s, iv = prof.earliest_fit(p, d)
        assert (s, nodes_of(iv)) == tuple(ref.earliest_fit(p, d))


@settings(deadline=None)
@given(
    capacity=st.integers(1, 12),
    now=st.integers(0, 20).map(float),
    occupations=st.lists(st.tuples(st.one_of(st.integers(0, 40).map(float), st.just(math.inf)),
                                   st.sets(st.integers(0, 11), min_size=1)), max_size=10),
)
def test_the_profile_of_occupations_is_one_add_each(capacity, now, occupations):
    """One pass over node-disjoint occupations from now = one add each (the same segments)."""
    taken: set[int] = set()
    items = []
    for end, nodes in occupations:
        mine = sorted(x for x in nodes if x < capacity and x not in taken)
        if mine:
            taken.update(mine)
            items.append((end, mine))
    prof = NodeSetProfile(capacity, now)
    for end, nodes in items:
        prof.add(now, end, nodes)
    assert NodeSetProfile.of_occupations(capacity, now, items).steps() == prof.steps()


def test_intervals_round_trip():
    assert intervals([7, 0, 1, 2, 3, 11, 10, 12]).tolist() == [0, 4, 7, 8, 10, 13]
    assert nodes_of(((0, 2), (5, 6))) == [0, 1, 5]
