"""The compiled kernel of the batch policies replays the reference (the event loop driving the
policy objects) bit for bit: every attempt (start, end, nodes, recovery, saved time, outcome),
every applied failure and every completion, on random workloads with failures, downtimes and
checkpointing, and on a slice of a real trace."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.batch import run_batch
from coschedule.data import traces_dir
from coschedule.sim.failures import FailureTrace
from coschedule.sim.workload import Workload, workload_from_swf
from coschedule.swf import read_swf

POLICIES = ("fcfs", "easy", "conservative")


def _same(w, policy, **kw):
    ref = run_batch(w, policy, backend="reference", **kw)
    fast = run_batch(w, policy, backend="kernel", **kw)
    assert fast.attempts == ref.attempts
    assert fast.failures == ref.failures
    assert np.array_equal(fast.completion, ref.completion) and np.array_equal(fast.first_start, ref.first_start)
    assert fast.horizon == ref.horizon and fast.policy == ref.policy
    return ref


@st.composite
def workloads(draw):
    N = draw(st.integers(1, 12))
    n = draw(st.integers(1, 18))
    integral = draw(st.booleans())
    num = st.integers(1, 40).map(float) if integral else st.floats(0.5, 40.0)
    submit = sorted(draw(st.lists(st.integers(0, 60).map(float), min_size=n, max_size=n)))
    length = draw(st.lists(num, min_size=n, max_size=n))
    extra = draw(st.lists(st.floats(0.0, 30.0), min_size=n, max_size=n))
    nodes = draw(st.lists(st.integers(1, N), min_size=n, max_size=n))
    w = Workload(ids=tuple(f"j{k}" for k in range(n)), submit=submit, nodes=nodes,
                 walltime=[a + b for a, b in zip(length, extra)], length=length, n_nodes=N)
    k = draw(st.integers(0, 10))
    times = sorted(draw(st.lists(st.integers(0, 150).map(float), min_size=k, max_size=k)))
    fnodes = draw(st.lists(st.integers(0, N - 1), min_size=k, max_size=k))
    return w, FailureTrace(times, fnodes, N)


@given(workloads(), st.sampled_from(POLICIES), st.sampled_from([0.0, 3.0, 25.0]), st.booleans(),
       st.sampled_from([0.0, 1.5]), st.booleans())
def test_the_kernel_replays_the_reference(case, policy, downtime, knows, cost, final):
    w, trace = case
    ck = dict(checkpoint_cost=cost, node_mtbf=400.0, recovery_cost=None if cost else 0.5,
              final_checkpoint=final) if cost else dict(recovery_cost=0.5)
    _same(w, policy, failures=trace, downtime=downtime, knows_downtime=knows, **ck)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_kernel_replays_the_reference_on_a_real_trace(policy):
    """The first 1500 jobs of the KTH SP2 log on its 100 nodes, with drawn failures (platform MTBF one day), a downtime
    of an hour and checkpoints of five minutes."""
    w = workload_from_swf(read_swf(traces_dir() / "KTH-SP2-1996-2.1-cln.swf.gz"))
    head = Workload(ids=w.ids[:1500], submit=w.submit[:1500], nodes=w.nodes[:1500],
                    walltime=w.walltime[:1500], length=w.length[:1500], n_nodes=w.n_nodes)
    r = _same(head, policy, node_mtbf=100 * 86400.0, seed=4, downtime=3600.0, checkpoint_cost=300.0)
    assert len(r.failures) > 3 and r.restarts > 0  # the case exercises failures


def test_backend_choices():
    w = Workload(ids=("a",), submit=[0.0], nodes=[1], walltime=[1.0], length=[1.0], n_nodes=1)
    with pytest.raises(ValueError, match="backend must be one of"):
        run_batch(w, "easy", backend="gpu")
    with pytest.raises(ValueError, match="the kernel runs the policies"):
        run_batch(w, object(), backend="kernel")  # type: ignore[arg-type]
