"""Node sets as interval arrays (coschedule.sim.intervals): a NodeSet reads as the tuple of its ids
(what an Attempt's nodes were), the many-sets conversion of the kernel's output agrees with sets
converted one by one (in pieces, with sets out of order), and the helpers agree with Python sets
and with format_nodes."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.sim import intervals as iv_module
from coschedule.sim.intervals import (
    NodeSet,
    format_intervals,
    format_many,
    ids_to_intervals,
    iv_subset,
    nodesets,
    runs_to_intervals,
)
from coschedule.sim.nodesets import format_nodes

node_sets = st.lists(st.integers(0, 60), unique=True, max_size=25)


@given(node_sets)
def test_a_nodeset_reads_as_the_tuple_of_its_ids(ids):
    s = NodeSet.from_ids(ids)
    t = tuple(ids)
    assert s == t and tuple(s) == t and len(s) == len(t) and hash(s) == hash(t)
    assert (s != t) is False and s != (*t, 99)
    assert all(x in s for x in t) and 61 not in s and -1 not in s and "a" not in s
    assert [s[k] for k in range(len(t))] == list(t) and list(s[1:3]) == list(t[1:3])
    if t:
        assert s[-1] == t[-1]
    assert np.asarray(s).tolist() == list(t)
    assert pickle.loads(pickle.dumps(s)) == s
    assert format_intervals(s.intervals) == format_nodes(t) == format_nodes(s)
    assert s.intervals.tolist() == ids_to_intervals(t).tolist()
    with pytest.raises(IndexError):
        s[len(t)]


def test_a_nodeset_checks_its_intervals():
    assert NodeSet([0, 4, 7, 8]) == (0, 1, 2, 3, 7)
    assert repr(NodeSet([0, 4, 7, 8])) == "NodeSet('0-3 7')"
    for bad in ([0, 4, 4, 8], [3, 1], [0, 2, 1, 3], [-1, 2], [0]):
        with pytest.raises(ValueError, match="sorted, disjoint and maximal"):
            NodeSet(bad)
    with pytest.raises(ValueError, match="distinct"):
        NodeSet.from_ids([1, 1])


@given(st.lists(node_sets, max_size=12), st.sampled_from([1, 3, 8, iv_module.PIECE]))
def test_many_sets_at_once(sets, piece):
    default = iv_module.PIECE
    iv_module.PIECE = piece
    try:
        off = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum([len(x) for x in sets], out=off[1:])
        ids = np.array([x for s in sets for x in s], dtype=np.int32)
        iv_off, iv, unsorted = runs_to_intervals(off, ids)
        for k, s in enumerate(sets):
            assert iv[iv_off[k]: iv_off[k + 1]].tolist() == ids_to_intervals(s).tolist()
        assert unsorted.tolist() == [k for k, s in enumerate(sets) if list(s) != sorted(s)]
        assert [tuple(x) for x in nodesets(off, ids)] == [tuple(s) for s in sets]
        assert format_many(iv, iv_off[:-1], iv_off[1:]) == [format_nodes(s) for s in sets]
    finally:
        iv_module.PIECE = default


@given(node_sets, node_sets)
def test_subset(a, b):
    assert iv_subset(ids_to_intervals(a), ids_to_intervals(b)) == (set(a) <= set(b))


@pytest.mark.parametrize("at_once", [1, 3])
def test_a_compiled_runs_attempts_are_the_same_gathered_a_few_at_a_time(at_once, monkeypatch):
    """LazyAttempts.from_columns gathers the attempts' node ids REORDER_AT_ONCE attempts at a time
    (memory at a million attempts): cut in pieces of 1 or 3, the table and every attempt's nodes
    are those of one piece; node stealing's unsorted sets keep their order."""
    from coschedule.batch import run_batch
    from coschedule.sim import result as result_module
    from coschedule.sim.synthetic import scale_workload

    w = scale_workload(300, seed=4)
    runs = {}
    for size in (result_module.REORDER_AT_ONCE, at_once):
        monkeypatch.setattr(result_module, "REORDER_AT_ONCE", size)
        r = run_batch(w, "sfsj", node_mtbf=2e5, seed=1, downtime=60.0, checkpoint_cost=30.0)
        runs[size] = (r.attempts.table if hasattr(r.attempts, "table") else None,
                      [tuple(a.nodes) for a in r.attempts])
    (t0, nodes0), (t1, nodes1) = runs.values()
    assert nodes0 == nodes1 and len(nodes0) > 300
    assert np.array_equal(t0.iv, t1.iv) and np.array_equal(t0.iv_off, t1.iv_off)
