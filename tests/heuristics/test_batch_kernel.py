"""The compiled kernel of the batch policies replays the reference (the event loop driving the
policy objects) bit for bit: every attempt (start, end, nodes, recovery, saved time, outcome,
proactive checkpoint), every applied failure (and how the policy reacted), every steal and hold
and every completion, on random workloads with failures, downtimes and checkpointing, and on a
slice of a real trace; for FCFS, EASY, conservative backfilling and the 19 node-stealing
policies. Every kernel run passes the validator."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule import jit
from coschedule.batch import _use_kernel, run_batch
from coschedule.data import traces_dir
from coschedule.heuristics.stealing import STEALING_POLICIES
from coschedule.sim.failures import FailureTrace, poisson_failures
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload, workload_from_swf
from coschedule.swf import read_swf

POLICIES = ("fcfs", "easy", "conservative")
#: sfsj and h111 ... h323
STEALING = tuple(sorted(STEALING_POLICIES))


def _same(w, policy, **kw):
    ref = run_batch(w, policy, backend="reference", **kw)
    fast = run_batch(w, policy, backend="kernel", **kw)
    assert fast.attempts == ref.attempts
    assert fast.failures == ref.failures
    assert fast.steals == ref.steals and fast.holds == ref.holds
    assert np.array_equal(fast.completion, ref.completion) and np.array_equal(fast.first_start, ref.first_start)
    assert fast.horizon == ref.horizon and fast.policy == ref.policy
    validate_run(fast, failures=kw.get("failures"))
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
       st.sampled_from([0.0, 1.5]), st.booleans(), st.sampled_from(["resubmission", "first"]),
       st.sampled_from(["count", "nodes"]))
def test_the_kernel_replays_the_reference(case, policy, downtime, knows, cost, final, release, reservations):
    w, trace = case
    ck = {"checkpoint_cost": cost, "node_mtbf": 400.0, "recovery_cost": None if cost else 0.5,
              "final_checkpoint": final} if cost else {"recovery_cost": 0.5}
    if policy == "conservative":  # reservations on nodes: conservative backfilling and node stealing only
        ck["reservations"] = reservations
    _same(w, policy, failures=trace, downtime=downtime, knows_downtime=knows, release=release, **ck)


@pytest.mark.parametrize(("policy", "reservations"), [*((p, "count") for p in POLICIES), ("conservative", "nodes")])
def test_the_kernel_replays_the_reference_on_a_real_trace(policy, reservations):
    """The first 1500 jobs of the KTH SP2 log on its 100 nodes, with drawn failures (platform MTBF one day), a downtime
    of an hour and checkpoints of five minutes; conservative backfilling on counts and on nodes."""
    w = workload_from_swf(read_swf(traces_dir() / "KTH-SP2-1996-2.1-cln.swf.gz"))
    head = Workload(ids=w.ids[:1500], submit=w.submit[:1500], nodes=w.nodes[:1500],
                    walltime=w.walltime[:1500], length=w.length[:1500], n_nodes=w.n_nodes)
    r = _same(head, policy, node_mtbf=100 * 86400.0, seed=4, downtime=3600.0, checkpoint_cost=300.0,
              reservations=reservations)
    assert len(r.failures) > 3 and r.restarts > 0  # the case exercises failures


def test_backend_choices():
    w = Workload(ids=("a",), submit=[0.0], nodes=[1], walltime=[1.0], length=[1.0], n_nodes=1)
    with pytest.raises(ValueError, match="backend must be one of"):
        run_batch(w, "easy", backend="gpu")
    with pytest.raises(ValueError, match="the kernel runs the policies"):
        run_batch(w, object(), backend="kernel")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- node stealing


def stealing_case(seed: int):
    """A small busy run where failures often find no spare node: 3 to 9 nodes, 4 to 12 jobs
    submitted by t = 20 (half the time narrow ones more often), node MTBF 30 to 150 over the first
    200 time units (then none: every run ends), downtime 0 (transient failures), 3, 20 or 100
    (known to the scheduler or not), checkpoints of 0 (none), 1, 2 or 4 with a recovery of C or of
    0, 1 or 3 and sometimes the final checkpoint of eq. (1), V1's tie-break by release or by
    running time; times integral half the time (ties between ends, the ends of checkpoints and
    failures, several failures at one instant), floats otherwise; a restarted job's release its
    resubmission or (40 %) its first submission; reservations on counts or (half the time) on
    nodes (drawn last, so that the earlier draws keep their values)."""
    rng = np.random.default_rng(seed)
    N = int(rng.integers(3, 10))
    n = int(rng.integers(4, 13))
    nodes = rng.integers(1, N + 1, n)
    if rng.random() < 0.5:
        nodes = np.minimum(nodes, rng.integers(1, N + 1, n))
    integral = bool(rng.random() < 0.5)
    length = rng.integers(2, 60, n).astype(float) if integral else rng.uniform(1.0, 60.0, n)
    wall = np.ceil(length * rng.uniform(1, 2.5, n)) if integral else length * rng.uniform(1, 2.5, n)
    submit = np.sort(rng.integers(0, 20, n)).astype(float)
    w = Workload(tuple(f"j{i}" for i in range(n)), submit, nodes, wall, length, N)
    mtbf = float(rng.choice([30.0, 60.0, 150.0]))
    D = float(rng.choice([0.0, 3.0, 20.0, 100.0]))
    C = float(rng.choice([0.0, 1.0, 2.0, 4.0]))
    trace = poisson_failures(N, node_mtbf=mtbf, horizon=200.0, downtime=D, seed=seed)
    if rng.random() < 0.5:
        trace = FailureTrace(np.floor(trace.times), trace.nodes, N)
    kw = {"failures": trace, "downtime": D, "knows_downtime": bool(rng.random() < 0.5)}
    if C:
        kw.update(checkpoint_cost=C, node_mtbf=2 * mtbf * N, final_checkpoint=bool(rng.random() < 0.3),
                  recovery_cost=None if rng.random() < 0.5 else float(rng.choice([0.0, 1.0, 3.0])))
    if rng.random() < 0.3:
        kw["victim_tiebreak"] = "runtime"
    kw["release"] = "first" if rng.random() < 0.4 else "resubmission"
    kw["reservations"] = "nodes" if rng.random() < 0.5 else "count"
    return w, kw


@given(seed=st.integers(0, 2**32 - 1))
def test_the_kernel_replays_node_stealing(seed):
    w, kw = stealing_case(seed)
    for policy in STEALING:
        _same(w, policy, **kw)


def _tally(result, counts: Counter) -> None:
    for s in result.steals:
        if s.cancelled:
            counts[s.cancelled] += 1
        elif s.time > s.decided:
            counts[f"T{s.timing} steal after a wait"] += 1
        else:
            counts["steal at once"] += 1
        if len(s.nodes) > 1:
            counts["several nodes stolen"] += 1
    for a in result.attempts:
        if a.proactive > 0:
            counts[f"proactive checkpoint, then {a.outcome}"] += 1
        elif a.outcome == "interrupted":
            counts["victim stopped at a regular checkpoint or at once"] += 1
    counts.update(f"failure: {f.reaction}" for f in result.failures)
    counts["holds"] += len(result.holds)


def test_the_stealing_cases_exercise_every_branch():
    """A fixed sweep over the seeds of :func:`stealing_case`: the kernel replays every policy on
    each, and across them steals happen at once and after T2's proactive checkpoints and T3's
    waits, a victim suspended for its proactive checkpoint fails, goes on (its steal cancelled)
    or gives its nodes, steals are cancelled for each of the three reasons of §7.2.3 and several
    nodes go at once to a failed job that lost more than one."""
    counts: Counter = Counter()
    for seed in range(20):
        w, kw = stealing_case(seed)
        for policy in STEALING:
            _tally(_same(w, policy, **kw), counts)
    for what in ("steal at once", "T2 steal after a wait", "T3 steal after a wait", "several nodes stolen",
                 "the victim failed", "the failed job lost more nodes than the victim has",
                 "the failed job has no node left", "proactive checkpoint, then interrupted",
                 "proactive checkpoint, then checkpointed", "proactive checkpoint, then failed",
                 "victim stopped at a regular checkpoint or at once", "failure: steal", "failure: held",
                 "failure: spare", "failure: wait", "failure: idle", "holds"):
        assert counts[what] > 0, (what, counts)


def _av(*failures):
    """A (3 nodes) and V (1 node) on 4 nodes: the hand-worked runs of test_stealing."""
    w = Workload(("A", "V"), np.array([0.0, 0.0]), np.array([3, 1]), np.array([100.0, 160.0]),
                 np.array([50.0, 80.0]), 4)
    times, where = zip(*failures)
    return w, FailureTrace(np.array(times), np.array(where), 4)


def test_a_victim_whose_node_fails_as_it_completes():
    """T3: A keeps nodes 1-2 until V (no checkpoint) completes at 80; V's node fails at 80:
    the steal is cancelled ("the victim's nodes failed as it completed") and A waits; with a
    second node of V still free, A takes that one."""
    w, trace = _av((40.0, 0), (80.0, 3))
    r = _same(w, "h311", failures=trace, downtime=1000.0)
    assert [s.cancelled for s in r.steals] == ["the victim's nodes failed as it completed"]
    # V on two nodes (3-4): node 4 is still free at 80, A takes it
    w2 = Workload(w.ids, w.submit, np.array([3, 2]), w.walltime, w.length, 5)
    r = _same(w2, "h311", failures=FailureTrace(trace.times, trace.nodes, 5), downtime=1000.0)
    assert [(s.time, s.nodes, s.cancelled) for s in r.steals] == [(80.0, (4,), "")]


def test_the_kernel_replays_node_stealing_on_a_real_trace():
    """Five days of the KTH SP2 log on its 100 nodes (days 30 to 35: 268 jobs), drawn failures of
    node MTBF 30 hours (about one every 18 minutes on the platform), a downtime of an hour,
    checkpoints of five minutes; V1's tie-break by running time for H323; reservations on counts
    for the first five runs, on nodes (the default) for H111 and H213."""
    w = workload_from_swf(read_swf(traces_dir() / "KTH-SP2-1996-2.1-cln.swf.gz"))
    a, b = np.searchsorted(w.submit, w.submit[0] + np.array([30, 35]) * 86400.0)
    part = Workload(ids=w.ids[a:b], submit=w.submit[a:b] - w.submit[a], nodes=w.nodes[a:b],
                    walltime=w.walltime[a:b], length=w.length[a:b], n_nodes=w.n_nodes)
    seen: Counter = Counter()
    for policy, extra in (("sfsj", {}), ("h213", {}), ("h323", {"victim_tiebreak": "runtime"}),
                          ("h112", {"release": "first"}), ("h113", {}), ("h111", None), ("h213", None)):
        extra = {"reservations": "count", **extra} if extra is not None else {}
        r = _same(part, policy, node_mtbf=30 * 3600.0, seed=3, downtime=3600.0, checkpoint_cost=300.0, **extra)
        _tally(r, seen)
    for what in ("steal at once", "T2 steal after a wait", "T3 steal after a wait", "the victim failed"):
        assert seen[what] > 0, (what, seen)


def test_auto_runs_node_stealing_on_the_kernel():
    assert _use_kernel("sfsj", "auto") is jit.HAVE_NUMBA and _use_kernel("H323", "auto") is jit.HAVE_NUMBA
    assert _use_kernel("sfsj", "reference") is False and _use_kernel("h213", "kernel") is True
    w, trace = _av((40.0, 0))
    with pytest.raises(ValueError, match="victim_tiebreak must be one of"):
        run_batch(w, "h111", failures=trace, backend="kernel", victim_tiebreak="oldest")
    with pytest.raises(ValueError, match="victim_tiebreak is an option of the node-stealing policies"):
        run_batch(w, "conservative", failures=trace, backend="kernel", victim_tiebreak="runtime")
