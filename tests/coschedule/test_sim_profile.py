"""The availability profile against a naive reference: free nodes evaluated instant by instant
from the list of occupations, and earliest fits found by trying every candidate start."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedule.sim.profile import BLOCK, AvailabilityProfile, _add_at, _earliest_fit, _fits_at


class NaiveProfile:
    """Occupations as a list; everything recomputed from it."""

    def __init__(self, capacity: int, now: float = 0.0) -> None:
        self.capacity, self.now, self.occ = capacity, now, []

    def free_at(self, t: float) -> int:
        return self.capacity - sum(p for s, e, p in self.occ if s <= t < e)

    def points(self) -> list[float]:
        pts = {self.now} | {x for s, e, _ in self.occ for x in (s, e) if self.now < x < math.inf}
        return sorted(pts)

    def fits(self, start: float, p: int, d: float) -> bool:
        end = start + d
        return all(self.free_at(t) >= p for t in [start] + [x for x in self.points() if start < x < end])

    def earliest_fit(self, p: int, d: float) -> float:
        for t in self.points():
            if self.fits(t, p, d):
                return t
        return math.inf


def _check_same(prof: AvailabilityProfile, ref: NaiveProfile) -> None:
    for t in ref.points() + [ref.now + 1e6]:
        assert prof.free_at(t) == ref.free_at(t), t
    steps = prof.steps()
    assert all(a[0] < b[0] for a, b in zip(steps, steps[1:]))
    assert steps[0][0] == ref.now


times = st.integers(min_value=0, max_value=60).map(float)


@settings(deadline=None)
@given(
    capacity=st.integers(1, 12),
    ops=st.lists(st.tuples(times, st.integers(1, 40).map(float), st.integers(1, 12), st.booleans()), max_size=70),
    queries=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 50).map(float)), min_size=1, max_size=8),
)
def test_profile_matches_the_naive_one(capacity, ops, queries):
    prof, ref = AvailabilityProfile(capacity, size_hint=8), NaiveProfile(capacity)
    live = []
    for s, d, p, remove in ops:
        if remove and live:
            s0, e0, p0 = live.pop(len(live) // 2)
            prof.remove(s0, e0, p0)
            ref.occ.remove((s0, e0, p0))
        else:
            prof.add(s, s + d, p)
            ref.occ.append((s, s + d, p))
            live.append((s, s + d, p))
    _check_same(prof, ref)
    for p, d in queries:
        assert prof.earliest_fit(p, d) == ref.earliest_fit(p, d)
        assert prof.fits(5.0, p, d) == ref.fits(5.0, p, d)
    # advancing forgets the past but keeps the future
    prof.advance(20.0)
    ref.now = 20.0
    _check_same(prof, ref)
    for p, d in queries:
        assert prof.earliest_fit(p, d) == ref.earliest_fit(p, d)


@settings(deadline=None)
@given(
    capacity=st.integers(1, 10),
    running=st.lists(st.tuples(st.integers(1, 30).map(float), st.integers(1, 10)), max_size=6),
    jobs=st.lists(st.tuples(st.integers(1, 10), st.integers(1, 30).map(float)), min_size=1, max_size=25),
    ends_early=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_place_and_compress_are_the_obvious_loops(capacity, running, jobs, ends_early):
    """place = each job reserved at its earliest fit in order; compress = each job taken out and
    put back at its earliest fit among the others, in order (checked on the naive profile)."""
    running = [(e, min(p, capacity)) for e, p in running]
    prof, ref = AvailabilityProfile(capacity, size_hint=8), NaiveProfile(capacity)
    used = 0
    kept = []
    for e, p in running:
        if used + p <= capacity:
            used += p
            prof.add(0.0, e, p)
            ref.occ.append((0.0, e, p))
            kept.append((e, p))
    procs = [min(p, capacity) for p, _ in jobs]
    durs = [d for _, d in jobs]
    starts = prof.place(procs, durs)
    for j, (p, d) in enumerate(zip(procs, durs)):
        s = ref.earliest_fit(p, d)
        assert starts[j] == s
        ref.occ.append((s, s + d, p))
    _check_same(prof, ref)
    # some running jobs end now (t = 0.5 would be mid-segment: use their planned end minus 0)
    for (e, p), early in zip(kept, ends_early):
        if early:
            prof.remove(0.0, e, p)
            ref.occ.remove((0.0, e, p))
    new = prof.compress(procs, durs, starts)
    for j, (p, d) in enumerate(zip(procs, durs)):
        s = starts[j]
        ref.occ.remove((s, s + d, p))
        s2 = ref.earliest_fit(p, d)
        ref.occ.append((s2, s2 + d, p))
        assert new[j] == s2 and s2 <= s
    _check_same(prof, ref)


def test_a_long_profile_crosses_many_blocks():
    """Thousands of segments: summaries of many blocks, growth of the arrays."""
    rng = np.random.default_rng(3)
    cap = 1000
    prof, ref = AvailabilityProfile(cap, size_hint=8), NaiveProfile(cap)
    for _ in range(40 * BLOCK):
        s = float(rng.integers(0, 5000))
        d = float(rng.integers(1, 50))
        p = int(rng.integers(1, 20))
        prof.add(s, s + d, p)
        ref.occ.append((s, s + d, p))
    assert len(prof) > 10 * BLOCK
    for p in (1, 200, 600, 900, 1000):
        assert prof.earliest_fit(p, 30.0) == ref.earliest_fit(p, 30.0)


def test_a_node_down_for_good_caps_what_ever_fits():
    prof = AvailabilityProfile(4)
    prof.add(0.0, math.inf, 1)
    assert prof.earliest_fit(4, 1.0) == math.inf
    assert list(prof.place([4, 3], [1.0, 1.0])) == [math.inf, 0.0]
    prof.remove(0.0, math.inf, 1)
    assert prof.earliest_fit(4, 1.0) == 1.0


def test_time_never_goes_back():
    prof = AvailabilityProfile(2, now=5.0)
    with pytest.raises(ValueError, match="back in time"):
        prof.advance(4.0)


# ------------------------------------------------------------------ bounded searches, kernels


def _random_profile(
    capacity: int, ops: list[tuple[float, float, int]]
) -> tuple[AvailabilityProfile, NaiveProfile]:
    prof, ref = AvailabilityProfile(capacity, size_hint=8), NaiveProfile(capacity)
    for s, d, p in ops:
        prof.add(s, s + d, p)
        ref.occ.append((s, s + d, p))
    return prof, ref


ops_strategy = st.lists(
    st.tuples(times, st.integers(1, 40).map(float), st.integers(1, 12)), max_size=60
)


@settings(max_examples=150, deadline=None)
@given(capacity=st.integers(1, 12), ops=ops_strategy,
       p=st.integers(1, 12), d=st.integers(1, 50).map(float), until=st.integers(0, 120).map(float))
def test_a_search_bounded_in_time_stops_at_until_with_a_lower_bound(capacity, ops, p, d, until):
    prof, ref = _random_profile(capacity, ops)
    want = ref.earliest_fit(p, d)
    got = prof.earliest_fit(p, d, until=until)
    if want < until:
        assert got == want
    else:
        assert until <= got <= want


def _first_fitting(steps, x, p, d, until, known):
    """The specification of ``_earliest_fit(..., x, until, known)`` on the profile's own
    breakpoints: the first i >= x at or after `until`, or with no segment of fewer than p free
    nodes on [ts[i], min(ts[i] + d, known))."""
    for i in range(x, len(steps)):
        t, f = steps[i]
        if f < p:
            continue
        if t >= until:
            return i
        end = min(t + d, known)
        if all(fk >= p for tk, fk in steps[i:] if tk < end):
            return i
    return -1


@settings(max_examples=200, deadline=None)
@given(capacity=st.integers(1, 12), ops=ops_strategy, p=st.integers(1, 12),
       d=st.integers(1, 50).map(float), x=st.integers(0, 200),
       until=st.one_of(st.just(math.inf), st.integers(0, 120).map(float)),
       known=st.one_of(st.just(math.inf), st.integers(0, 120).map(float)))
def test_the_earliest_fit_kernel_from_an_index_until_a_horizon(
    capacity, ops, p, d, x, until, known
):
    prof, _ = _random_profile(capacity, ops)
    steps = prof.steps()
    x = min(x, len(steps) - 1)
    got = _earliest_fit(prof._ts, prof._free, len(prof), prof._bsum, p, d, x, until, known)
    assert got == _first_fitting(steps, x, p, d, until, known)


@settings(max_examples=150, deadline=None)
@given(capacity=st.integers(1, 12), ops=ops_strategy, p=st.integers(1, 12),
       d=st.integers(1, 50).map(float), delta=st.integers(-12, 12), data=st.data())
def test_fits_at_and_add_at_a_breakpoint(capacity, ops, p, d, delta, data):
    prof, ref = _random_profile(capacity, ops)
    i = data.draw(st.integers(0, len(prof) - 1))
    t = prof.steps()[i][0]
    assert _fits_at(prof._ts, prof._free, len(prof), prof._bsum, i, p, d) == ref.fits(t, p, d)
    assert prof.fits(t, p, d) == ref.fits(t, p, d)
    # _add_at(i, end) is add(ts[i], end): same steps
    other, _ = _random_profile(capacity, ops)
    other._room(2)
    other._len = _add_at(other._ts, other._free, len(other), other._bsum, i, t + d, -delta)
    prof.add(t, t + d, delta)
    assert other.steps() == prof.steps()
    _check_summaries(other)


def _check_summaries(prof: AvailabilityProfile) -> None:
    """Every full block is summarised by its least and most free nodes (the last, partial one
    has no summary)."""
    free = prof._free[: len(prof)]
    for b in range(len(prof) // BLOCK):
        block = free[b * BLOCK : (b + 1) * BLOCK]
        assert (prof._bsum[2 * b], prof._bsum[2 * b + 1]) == (block.min(), block.max())


def test_summaries_of_full_blocks_through_adds_removals_and_advances():
    rng = np.random.default_rng(5)
    prof = AvailabilityProfile(500, size_hint=8)
    live = []
    for step in range(30 * BLOCK):
        if live and rng.random() < 0.3:
            prof.remove(*live.pop(int(rng.integers(len(live)))))
        else:
            s = float(rng.integers(0, 3000))
            live.append((s, s + float(rng.integers(1, 60)), int(rng.integers(1, 30))))
            prof.add(*live[-1])
        if step % 97 == 96:
            prof.advance(prof.now + 10.0)
        _check_summaries(prof)
    assert len(prof) > 5 * BLOCK


@settings(max_examples=100, deadline=None)
@given(capacity=st.integers(1, 40), now=times,
       running=st.lists(st.tuples(st.one_of(times, st.just(math.inf)), st.integers(1, 8)),
                        max_size=40))
def test_the_profile_of_running_jobs_is_one_add_each(capacity, now, running):
    built = AvailabilityProfile.of_running(capacity, now, running)
    added = AvailabilityProfile(capacity, now, size_hint=8)
    for end, p in running:
        added.add(now, end, p)
    added.advance(now)  # merges equal neighbours: of_running makes one breakpoint per end
    assert built.steps() == added.steps()
    _check_summaries(built)
