"""Conservative backfilling's reservations on node counts or on node identities (batsched's,
[Du2024] §5.1): a hand-worked case where reservations on nodes leave a node idle that counts
fill (fragmentation), the same runs when fragmentation cannot matter, and the option's errors.

Timelines read ``job: [start, end) on nodes``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedule.heuristics.batch import get_batch_policy
from coschedule.heuristics.batch.run import run_batch
from coschedule.sim.failures import FailureTrace
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload


def timeline(result):
    return [(result.workload.ids[a.job], a.start, a.end, a.nodes) for a in result.attempts]


def fragmented() -> Workload:
    """3 nodes, all submitted at 0, lengths = wall times: J1 1 node for 5, J2 2 nodes for 10,
    J3 2 nodes for 10, J4 1 node for 12."""
    return Workload(ids=("J1", "J2", "J3", "J4"), submit=[0.0] * 4, nodes=[1, 2, 2, 1],
                    walltime=[5.0, 10.0, 10.0, 12.0], length=[5.0, 10.0, 10.0, 12.0], n_nodes=3)


@pytest.mark.parametrize("backend", ["reference", "kernel"])
def test_reservations_on_nodes_leave_a_node_idle_that_counts_fill(backend):
    """The plan at 0: J1 [0, 5) on node 0, J2 [0, 10) on nodes 1-2; J3 at 10 (three nodes free
    then). J4 (1 node for 12):

    * counts: free 0 on [0, 5), 1 on [5, 10), 1 on [10, 20) (J3 holds 2 of 3): one node at every
      instant of [5, 17), so J4 is reserved at 5; at 5 J1 ends and J4 starts on node 0, the
      lowest free; at 10 J3 starts on the lowest free nodes, 1-2. Flows 5, 10, 20, 17;
    * nodes: J3 holds nodes 0-1 on [10, 20) (the lowest of the three); on [5, 10) only node 0 is
      free and on [10, 20) only node 2: no node is free on all of [5, 17). J4 is reserved at 10
      on node 2 (free on [10, inf)), and node 0 stays idle on [5, 10). Flows 5, 10, 20, 22.
    """
    w = fragmented()
    count = run_batch(w, "conservative", backend=backend, reservations="count")
    nodes = run_batch(w, "conservative", backend=backend, reservations="nodes")
    assert timeline(count) == [("J1", 0.0, 5.0, (0,)), ("J2", 0.0, 10.0, (1, 2)), ("J4", 5.0, 17.0, (0,)),
                               ("J3", 10.0, 20.0, (1, 2))]
    assert timeline(nodes) == [("J1", 0.0, 5.0, (0,)), ("J2", 0.0, 10.0, (1, 2)), ("J3", 10.0, 20.0, (0, 1)),
                               ("J4", 10.0, 22.0, (2,))]
    assert count.flow.tolist() == [5.0, 10.0, 20.0, 17.0]
    assert nodes.flow.tolist() == [5.0, 10.0, 20.0, 22.0]
    for r in (count, nodes):
        validate_run(r)
    default = run_batch(w, "conservative", backend=backend)  # node sets, the paper's system, unless asked
    assert default.attempts == nodes.attempts and default.attempts != count.attempts


def test_the_compression_may_move_a_reservation_to_other_nodes():
    """batsched's compression takes each waiting job out and adds it again first fit, which
    may give it other nodes at the same start. 3 nodes: A 1 node on [0, 10) (wall 10, ends at
    2), B 1 node on [0, 4) (node 1), C 2 nodes for 6 and D 1 node for 20, all submitted at 0.
    Plan at 0: A node 0 [0, 10), B node 1 [0, 4), C at 4 on nodes 1-2 [4, 10), D at 10 on node 0
    ([0, 10) has no node free on all of [t, t + 20) before 10: node 2 is taken by C at 4).
    At 2 A ends: C is taken out and added again: at 2 only nodes 0 and 2 are free until 4, node
    1 from 4 -- C needs 2 nodes on [2, 8): nodes 0 and 2 are free on all of it: C starts at 2 on
    0 and 2; D then fits at 4 on node 1 (free from 4 on)."""
    w = Workload(ids=("A", "B", "C", "D"), submit=[0.0] * 4, nodes=[1, 1, 2, 1],
                 walltime=[10.0, 4.0, 6.0, 20.0], length=[2.0, 4.0, 6.0, 20.0], n_nodes=3)
    for backend in ("reference", "kernel"):
        r = run_batch(w, "conservative", backend=backend, reservations="nodes")
        assert timeline(r) == [("A", 0.0, 2.0, (0,)), ("B", 0.0, 4.0, (1,)), ("C", 2.0, 8.0, (0, 2)),
                               ("D", 4.0, 24.0, (1,))]
        validate_run(r)


@st.composite
def cases(draw, *, one_node: bool):
    N = 1 if one_node else draw(st.integers(1, 6))
    n = draw(st.integers(1, 12))
    submit = sorted(draw(st.lists(st.integers(0, 40).map(float), min_size=n, max_size=n)))
    length = draw(st.lists(st.integers(1, 30).map(float), min_size=n, max_size=n))
    extra = draw(st.lists(st.integers(0, 20).map(float), min_size=n, max_size=n))
    w = Workload(ids=tuple(f"j{k}" for k in range(n)), submit=submit, nodes=[N] * n,
                 walltime=[a + b for a, b in zip(length, extra)], length=length, n_nodes=N)
    k = draw(st.integers(0, 6))
    times = sorted(draw(st.lists(st.integers(0, 120).map(float), min_size=k, max_size=k)))
    where = draw(st.lists(st.integers(0, N - 1), min_size=k, max_size=k))
    return w, FailureTrace(times, where, N)


@settings(deadline=None, max_examples=40)
@given(case=st.one_of(cases(one_node=True), cases(one_node=False)),
       policy=st.sampled_from(["conservative", "sfsj", "h213", "h323"]),
       downtime=st.sampled_from([0.0, 5.0, 30.0]), knows=st.booleans())
def test_without_fragmentation_the_two_readings_agree(case, policy, downtime, knows):
    """On one node, or when every job takes the whole platform, a set of free nodes is all or
    nothing: node sets are counts, and both readings give the same run (nodes included)."""
    w, trace = case
    kw = {"failures": trace, "downtime": downtime, "knows_downtime": knows, "backend": "reference"}
    count = run_batch(w, policy, reservations="count", **kw)
    nodes = run_batch(w, policy, reservations="nodes", **kw)
    assert nodes.attempts == count.attempts and nodes.failures == count.failures
    assert np.array_equal(nodes.completion, count.completion)


def test_the_option_and_its_errors():
    assert get_batch_policy("conservative", reservations="nodes").reservations == "nodes"
    assert "reservations='nodes'" in repr(get_batch_policy("h213", reservations="nodes"))
    assert get_batch_policy("sfsj").reservations == get_batch_policy("conservative").reservations == "nodes"
    assert get_batch_policy("easy").reservations == get_batch_policy("fcfs").reservations == "count"
    with pytest.raises(ValueError, match="reservations must be one of nodes, count, got 'machines'"):
        get_batch_policy("conservative", reservations="machines")
    for name in ("fcfs", "easy"):
        with pytest.raises(ValueError, match=f"option of conservative backfilling and node stealing, not of {name}"):
            get_batch_policy(name, reservations="nodes")
    w = fragmented()
    with pytest.raises(ValueError, match="not of easy"):
        run_batch(w, "easy", reservations="nodes", backend="kernel")
