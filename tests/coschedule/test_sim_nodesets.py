"""Node sets as interval strings, checked against procset (the library Batsim and evalys use)."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st
from procset import ProcSet

import coschedule.sim.nodesets as nodesets
from coschedule.errors import FormatError
from coschedule.sim.nodesets import format_nodes, parse_nodes

SETS = st.sets(st.integers(0, 200), max_size=60) | st.sets(st.integers(0, 5000), min_size=500, max_size=4000)


@given(SETS)
def test_format_is_procsets_and_parses_back(nodes):
    text = format_nodes(nodes)
    assert text == str(ProcSet(*nodes))
    assert parse_nodes(text) == sorted(nodes) == list(ProcSet.from_str(text))


@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 20)), max_size=10))
def test_parse_accepts_what_procset_accepts(intervals):
    text = " ".join(f"{a}-{a + w}" if w else str(a) for a, w in intervals)  # any order, overlaps
    assert parse_nodes(text) == list(ProcSet.from_str(text))


@pytest.mark.parametrize("text", ["a", "3-1", "-2", "1-", "1--3", "2-x"])
def test_malformed_tokens_are_named(text):
    with pytest.raises(FormatError, match=f"row 3: {text!r} is not a node index"):
        parse_nodes(text, where="row 3")


def test_doctests_and_empty_set():
    assert doctest.testmod(nodesets).failed == 0
    assert format_nodes([]) == "" and parse_nodes("") == []


@given(SETS)
def test_intervals_are_procsets_runs(nodes):
    """The compiled id-to-interval conversion (runs found by doubling then halving steps) gives
    procset's maximal intervals, for long runs as for isolated ids."""
    flat = nodesets.intervals(nodes)
    assert [(int(a), int(b) - 1) for a, b in zip(flat[::2], flat[1::2])] == list(ProcSet(*nodes).intervals())


@given(SETS, SETS)
def test_intersection_size_is_the_intersections(a, b):
    ia, ib = nodesets.intervals(a), nodesets.intervals(b)
    assert nodesets._iv_inter_size(ia, 0, ia.shape[0], ib, 0, ib.shape[0]) == len(a & b)
