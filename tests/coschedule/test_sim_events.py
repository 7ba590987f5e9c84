"""The one event queue: deterministic order (time, kind rank, push order), cancellation."""

from __future__ import annotations

import doctest
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import coschedule.sim.events as events_module
from coschedule.sim import EVENT_ORDER, EventKind, EventQueue

KINDS = st.sampled_from(list(EventKind))
PUSHES = st.lists(st.tuples(st.integers(0, 5).map(float), KINDS), max_size=40)


@given(PUSHES)
def test_pops_in_time_then_kind_then_push_order(pushes):
    q = EventQueue()
    for i, (t, kind) in enumerate(pushes):
        q.push(t, kind, i)
    got = []
    while len(q):
        e = q.pop()
        got.append(e.data)
    # the reference: a stable sort of the pushes by (time, rank)
    want = sorted(range(len(pushes)), key=lambda i: (pushes[i][0], int(pushes[i][1])))
    assert got == want
    assert q.peek_time() is None and q.pop_instant() == []


@given(PUSHES, st.data())
def test_cancelled_events_never_come_out(pushes, data):
    q = EventQueue()
    pushed = [q.push(t, kind, i) for i, (t, kind) in enumerate(pushes)]
    gone = data.draw(st.sets(st.sampled_from(range(len(pushed)))) if pushed else st.just(set()))
    for i in gone:
        q.cancel(pushed[i])
    assert len(q) == len(pushed) - len(gone)
    out = []
    while (batch := q.pop_instant()):
        assert len({e.time for e in batch}) == 1
        assert [e.kind for e in batch] == sorted(e.kind for e in batch)
        out += [e.data for e in batch]
    assert sorted(out) == sorted(set(range(len(pushed))) - gone)


def test_one_instant_order_is_documented():
    assert [k.name for k in EVENT_ORDER] == ["END", "REDISTRIBUTION_END", "CHECKPOINT", "RECOVERY",
                                             "FAILURE", "SUBMIT", "START"]
    q = EventQueue()
    for kind in reversed(EVENT_ORDER):
        q.push(3.0, kind)
    assert tuple(e.kind for e in q.pop_instant()) == EVENT_ORDER


def test_events_pushed_during_an_instant_come_at_the_next_call():
    q = EventQueue()
    q.push(1.0, EventKind.SUBMIT, "a")
    (first,) = q.pop_instant()
    q.push(1.0, EventKind.START, "a starts")  # a decision taken at t = 1
    q.push(1.0, EventKind.END, "zero-length job")
    assert [e.data for e in q.pop_instant()] == ["zero-length job", "a starts"]
    assert q.now == 1.0


@pytest.mark.parametrize("t", [-1.0, math.inf, math.nan])
def test_bad_times_are_refused(t):
    with pytest.raises(ValueError, match="finite number >= 0"):
        EventQueue().push(t, EventKind.SUBMIT)


def test_time_never_goes_back_and_handled_events_cannot_be_cancelled():
    q = EventQueue()
    e = q.push(2.0, EventKind.FAILURE, 3)
    assert q.pop() is e and q.now == 2.0
    with pytest.raises(ValueError, match="in the past"):
        q.push(1.0, EventKind.RECOVERY, 3)
    with pytest.raises(ValueError, match="not pending"):
        q.cancel(e)
    f = q.push(4.0, EventKind.END)
    q.cancel(f)
    with pytest.raises(ValueError, match="not pending"):
        q.cancel(f)
    with pytest.raises(IndexError):
        q.pop()


def test_doctests():
    assert doctest.testmod(events_module).failed == 0
