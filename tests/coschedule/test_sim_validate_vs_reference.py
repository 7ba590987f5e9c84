"""The vectorised validator (coschedule.sim.validate: node sets as intervals, sweeps over their
endpoints) against the per-node one it replaced (validate_reference.py, kept verbatim): on random
runs with failures, checkpoints, node stealing (SFSJ, H213, H311, ...) and both readings of the
reservations, from the compiled kernel (node sets as intervals) and from the reference event loop
(node tuples), both accept the run; and each run corrupted one way at a time -- an attempt's
times, saved times, outcome, index, job or nodes, a failure record, a steal, a hold, the trace --
is rejected by both with the same line (or accepted by both)."""

from __future__ import annotations

import dataclasses

import numpy as np
import validate_reference
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidSchedule
from coschedule.heuristics.batch.run import run_batch
from coschedule.sim import validate_nodes
from coschedule.sim.failures import FailureTrace, poisson_failures
from coschedule.sim.result import FailureRecord, SimulationResult
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload

POLICIES = ("fcfs", "easy", "conservative", "sfsj", "h213", "h311", "h122", "h323")


def verdict(check, result: SimulationResult, trace: FailureTrace | None) -> str:
    """``"ok"``, or the exception's type and line."""
    try:
        check(result, failures=trace)
    except InvalidSchedule as e:
        return f"InvalidSchedule: {e}"
    except (KeyError, IndexError, TypeError, ValueError) as e:  # pragma: no cover - a corrupted record
        return f"{type(e).__name__}: {e}"
    return "ok"


def same_verdict(result: SimulationResult, trace: FailureTrace | None) -> str:
    old = verdict(validate_reference.validate_run, result, trace)
    new = verdict(validate_run, result, trace)
    assert new == old
    return new


@st.composite
def runs(draw: st.DrawFn) -> tuple[SimulationResult, FailureTrace]:
    """A random run: 2-8 nodes, 2-10 jobs, Poisson failures, downtime 0-20, checkpoints or not,
    a policy (node stealing among them), reservations on nodes or counts, the kernel or the
    reference loop."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    N, n = int(rng.integers(2, 9)), int(rng.integers(2, 11))
    length = rng.integers(1, 60, n).astype(float) / draw(st.sampled_from([1.0, 4.0]))
    w = Workload(tuple(f"j{i}" for i in range(n)), np.sort(rng.integers(0, 40, n)).astype(float),
                 rng.integers(1, N + 1, n), np.ceil(length * rng.uniform(1, 3, n)), length, N)
    mtbf = float(rng.choice([50.0, 200.0, 1000.0]))
    downtime = float(rng.choice([0.0, 3.0, 20.0]))
    trace = poisson_failures(N, node_mtbf=mtbf, horizon=3000.0, downtime=downtime, seed=int(rng.integers(2**31)))
    policy = draw(st.sampled_from(POLICIES))
    kw: dict = {"reservations": draw(st.sampled_from(["nodes", "count"]))} if policy not in ("fcfs", "easy") else {}
    if draw(st.booleans()):
        kw.update(checkpoint_cost=float(rng.choice([1.0, 4.0])), node_mtbf=mtbf,
                  final_checkpoint=draw(st.booleans()))
    result = run_batch(w, policy, failures=trace, downtime=downtime,
                       backend=draw(st.sampled_from(["auto", "reference"])), **kw)
    return result, trace


def _attempt(result: SimulationResult, k: int, **changes) -> SimulationResult:
    att = list(result.attempts)
    att[k] = dataclasses.replace(att[k], **changes)
    return dataclasses.replace(result, attempts=tuple(att))


WAYS = ("start", "end", "recovery", "saved_before", "saved_after", "proactive", "outcome", "index", "job",
        "node", "nodes-dup", "nodes-drop", "nodes-shift", "drop", "copy", "failure", "failure-node",
        "failure-job", "failure-drop", "failure-add", "steal", "hold", "completion", "trace")


def corruptions(draw: st.DrawFn, result: SimulationResult, trace: FailureTrace, ways: tuple[str, ...] = WAYS,
                k: int | None = None):
    """One corrupted copy of ``result`` (and the trace to check it against), one of ``ways``, on
    attempt ``k`` (drawn if ``None``) when it changes an attempt."""
    att, N, n = result.attempts, result.workload.n_nodes, result.workload.n
    k = draw(st.integers(0, len(att) - 1)) if k is None else k
    a = att[k]
    delta = draw(st.sampled_from([-5.0, -1.0, -0.5, -1e-12, 1e-12, 0.5, 1.0, 5.0]))
    what = draw(st.sampled_from(ways))
    if what in ("start", "end", "recovery", "saved_before", "saved_after", "proactive"):
        return _attempt(result, k, **{what: getattr(a, what) + delta}), trace
    if what == "outcome":
        return _attempt(result, k, outcome=draw(st.sampled_from(
            ["completed", "failed", "interrupted", "checkpointed", "migrated", "lost"]))), trace
    if what == "index":
        return _attempt(result, k, index=a.index + draw(st.sampled_from([-1, 1]))), trace
    if what == "job":
        return _attempt(result, k, job=draw(st.integers(0, n))), trace
    ids = list(a.nodes)
    if what == "node":
        ids[draw(st.integers(0, len(ids) - 1))] = draw(st.integers(-1, N))
        return _attempt(result, k, nodes=tuple(ids)), trace
    if what == "nodes-dup":
        return _attempt(result, k, nodes=(*ids[1:], ids[-1])), trace
    if what == "nodes-drop":
        return _attempt(result, k, nodes=tuple(ids[1:])), trace
    if what == "nodes-shift":
        return _attempt(result, k, nodes=tuple((x + 1) % N for x in ids)), trace
    if what == "drop":
        return dataclasses.replace(result, attempts=tuple(att[:k]) + tuple(att[k + 1:])), trace
    if what == "copy":
        return dataclasses.replace(result, attempts=(*att, a)), trace
    fr = list(result.failures)
    if what.startswith("failure") and (fr or what == "failure-add"):
        i = draw(st.integers(0, max(len(fr) - 1, 0)))
        if what == "failure":
            fr[i] = dataclasses.replace(fr[i], time=fr[i].time + delta, up=fr[i].up + delta)
        elif what == "failure-node":
            fr[i] = dataclasses.replace(fr[i], node=draw(st.integers(0, N - 1)))
        elif what == "failure-job":
            fr[i] = dataclasses.replace(fr[i], job=draw(st.integers(-1, n - 1)),
                                        reaction=draw(st.sampled_from([fr[i].reaction, "held"])))
        elif what == "failure-drop":
            del fr[i]
        else:
            t = float(draw(st.sampled_from([a.start, a.end, (a.start + a.end) / 2])))
            fr.append(FailureRecord(t, draw(st.integers(0, N - 1)), t + float(result.downtime), -1))
        return dataclasses.replace(result, failures=tuple(fr)), trace
    if what == "steal" and result.steals:
        i = draw(st.integers(0, len(result.steals) - 1))
        s = result.steals[i]
        change = draw(st.sampled_from(["time", "nodes", "drop", "decided"]))
        st_ = list(result.steals)
        if change == "drop":
            del st_[i]
        elif change in ("time", "decided"):
            st_[i] = dataclasses.replace(s, **{change: getattr(s, change) + delta})
        else:
            st_[i] = dataclasses.replace(s, nodes=tuple(sorted({(x + 1) % N for x in s.nodes})))
        return dataclasses.replace(result, steals=tuple(st_)), trace
    if what == "hold" and result.holds:
        i = draw(st.integers(0, len(result.holds) - 1))
        h = result.holds[i]
        change = draw(st.sampled_from(["start", "end", "nodes", "dup"]))
        hs = list(result.holds)
        if change in ("start", "end"):
            hs[i] = dataclasses.replace(h, **{change: getattr(h, change) + delta})
        elif change == "nodes":
            hs[i] = dataclasses.replace(h, nodes=tuple(sorted({(x + 1) % N for x in h.nodes})))
        else:
            hs[i] = dataclasses.replace(h, nodes=(*h.nodes, *h.nodes[:1]))
        return dataclasses.replace(result, holds=tuple(hs)), trace
    if what == "completion":
        field = draw(st.sampled_from(["completion", "first_start"]))
        values = getattr(result, field).copy()
        values[draw(st.integers(0, n - 1))] += delta
        return dataclasses.replace(result, **{field: values}), trace
    if what == "trace" and len(trace.times):
        i = draw(st.integers(0, len(trace.times) - 1))
        times = trace.times.copy()
        times[i] = max(0.0, times[i] + delta)
        return result, FailureTrace(np.sort(times), trace.nodes[np.argsort(times, kind="stable")], trace.n_nodes)
    return result, None


@given(runs(), st.data(), st.sampled_from([1, 2, 3, 5, validate_nodes.WINDOW]), st.sampled_from([1, 2, validate_nodes.CHUNK]))
def test_the_fast_validator_gives_the_references_verdicts(run, data, window, chunk):
    """With windows of a few items and chunks of one or two windows, a run's checks are cut in
    many pieces: the verdicts stay the reference's."""
    default = validate_nodes.WINDOW, validate_nodes.CHUNK
    validate_nodes.WINDOW, validate_nodes.CHUNK = window, chunk
    try:
        check(run, data)
    finally:
        validate_nodes.WINDOW, validate_nodes.CHUNK = default


def check(run: tuple[SimulationResult, FailureTrace], data: st.DataObject) -> None:
    result, trace = run
    assert same_verdict(result, trace) == "ok"
    assert same_verdict(result, None) == "ok"
    rejected = 0
    for _ in range(12):
        bad, against = corruptions(data.draw, result, trace)
        rejected += same_verdict(bad, against) != "ok"
    assert rejected  # some corruption is caught (by both)
    stopped = [k for k, a in enumerate(result.attempts) if a.outcome in ("interrupted", "checkpointed")]
    for _ in range(6 if result.steals or result.holds else 0):  # node stealing's records and its victims
        ways = ("steal", "hold") + (("nodes-shift", "start", "end", "saved_after", "outcome") if stopped else ())
        bad, against = corruptions(data.draw, result, trace, ways, data.draw(st.sampled_from(stopped or [0])))
        same_verdict(bad, against)
