"""The clairvoyant optimum (``coschedule.exact.clairvoyant``): CP-SAT against the exhaustive
search on random tiny instances, the §3 toy example of [Du2024], never worse than any policy of
the registry on the same instance, honest time limits, one-line errors, and the validator."""

from __future__ import annotations

import dataclasses
import math
import time
from pathlib import Path

import coschedule.exact.clairvoyant
import numpy as np
import pytest
from coschedule.exact.clairvoyant import (
    DEFAULT_MAX_ATTEMPTS,
    OBJECTIVES,
    ClairvoyantSchedule,
    clairvoyant_instance,
    exhaustive_optimum,
    greedy_schedule,
    objective_value,
    schedule_from_run,
    solve_clairvoyant,
    validate_clairvoyant,
)
from coschedule.heuristics.batch import BATCH_POLICIES
from coschedule_testing import fewer, package_doctests, seeds
from hypothesis import given
from hypothesis import strategies as st

from coschedule.batch import run_batch
from coschedule.errors import InvalidInstance, InvalidSchedule
from coschedule.results import Status
from coschedule.sim.checkpointing import NO_CHECKPOINTING, Checkpointing
from coschedule.sim.engine import Attempt, FailureRecord
from coschedule.sim.failures import FailureTrace, read_failures
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload, read_batsim
from coschedule.timelimit import TIME_LIMIT_MARGIN

ROOT = Path(__file__).resolve().parents[2]
TOY = ROOT / "instances" / "batch"


# ---------------------------------------------------------------- instances


def workload(submit, nodes, lengths, N) -> Workload:
    n = len(nodes)
    return Workload(tuple(f"j{j}" for j in range(n)), np.array(submit, dtype=float), np.array(nodes),
                    np.array(lengths, dtype=float), np.array(lengths, dtype=float), N)


@dataclasses.dataclass(frozen=True)
class Case:
    wl: Workload
    trace: FailureTrace
    downtime: float
    ck: Checkpointing

    def instance(self):
        return clairvoyant_instance(self.wl, failures=self.trace, downtime=self.downtime, checkpointing=self.ck)

    def run(self, policy: str):
        ck = self.ck
        return run_batch(self.wl, policy, failures=self.trace, downtime=self.downtime, checkpoint_cost=ck.cost,
                         recovery_cost=ck.recovery, node_mtbf=ck.node_mtbf if ck.enabled else None,
                         final_checkpoint=ck.final_checkpoint, backend="reference")


@st.composite
def tiny_cases(draw: st.DrawFn, *, checkpoints: bool | None = None) -> Case:
    """Up to 3 jobs on up to 3 nodes, integer times, up to 3 failures; without checkpoints, or
    with a Young/Daly period T of 2 or 3 for the size of the first job (jobs of another size
    whose period is not an integer are kept shorter than it, so they have no checkpoint)."""
    N = draw(st.integers(1, 3))
    n = draw(st.integers(1, 3))
    sizes = [draw(st.integers(1, N)) for _ in range(n)]
    lengths = [draw(st.integers(1, 4)) for _ in range(n)]
    submit = sorted(draw(st.integers(0, 3)) for _ in range(n))
    on = draw(st.booleans()) if checkpoints is None else checkpoints
    ck = NO_CHECKPOINTING
    if on:
        T, C = draw(st.integers(2, 3)), draw(st.integers(1, 2))
        ck = Checkpointing(cost=float(C), recovery=float(draw(st.integers(0, 2))),
                           node_mtbf=sizes[0] * T * T / (2 * C), final_checkpoint=draw(st.booleans()))
        for j in range(n):
            Tp = ck.period(sizes[j])
            if abs(Tp - round(Tp)) > 1e-9:  # no integer period: no checkpoint
                if math.floor(Tp) >= 1:
                    lengths[j] = min(lengths[j], math.floor(Tp))
                else:
                    sizes[j] = sizes[0]
    F = draw(st.integers(0, 3))
    times = [float(draw(st.integers(0, 8))) for _ in range(F)]
    where = [draw(st.integers(0, N - 1)) for _ in range(F)]
    trace = FailureTrace(np.array(times), np.array(where, dtype=np.int64), N)
    return Case(workload(submit, sizes, lengths, N), trace, float(draw(st.integers(0, 3))), ck)


def check(res, case: Case) -> ClairvoyantSchedule:
    """A result's schedule passes the validator and has the objective it claims."""
    sched = res.solution
    validate_clairvoyant(sched, failures=case.trace, downtime=case.downtime, checkpointing=case.ck,
                         n_nodes=case.wl.n_nodes)
    assert res.objective == pytest.approx(sched.objective(res.info["objective"]), abs=1e-9)
    assert res.bound is None or res.bound <= res.objective + 1e-9
    return sched


def engine_validates(sched: ClairvoyantSchedule, case: Case, like) -> None:
    """Rebuild ``sched`` (one attempt per job) as a :class:`SimulationResult` (from a policy's run
    ``like`` of the same instance) and run :func:`coschedule.sim.validate.validate_run` on it,
    trace included: every applied failure struck an idle node."""
    assert sched.attempt_counts().max() == 1
    attempts = tuple(Attempt(a.job, a.index, a.start, a.end, a.nodes, a.recovery, a.saved_before, a.saved_after,
                             "completed" if a.outcome == "completed" else "interrupted")
                     for a in sched.attempts)
    records, back = [], {}
    D = case.downtime
    for t, x in zip(case.trace.times.tolist(), case.trace.nodes.tolist()):
        if D > 0 and t < back.get(x, -1.0):
            continue
        back[x] = t + D
        records.append(FailureRecord(t, x, t + D, -1, 0, "idle"))
    first = np.full(case.wl.n, math.inf)
    for a in sched.attempts:
        first[a.job] = min(first[a.job], a.start)
    horizon = max([a.end for a in sched.attempts] + [r.time for r in records])
    result = dataclasses.replace(like, policy="clairvoyant", attempts=attempts, failures=tuple(records),
                                 completion=sched.completion, first_start=first, horizon=horizon, steals=(),
                                 holds=())
    validate_run(result, failures=case.trace)


# ---------------------------------------------------------------- CP-SAT = exhaustive search


@fewer(0.6)
@given(tiny_cases())
def test_cpsat_matches_exhaustive_search(case):
    """Both objectives: the CP-SAT optimum is the optimum of the exhaustive search over the time
    grid with the same attempts per job; without checkpoints the search gets two attempts per
    job and CP-SAT one (the proof that one suffices)."""
    inst = case.instance()
    A = DEFAULT_MAX_ATTEMPTS if inst.checkpoints else 1
    for objective in OBJECTIVES:
        res = solve_clairvoyant(inst, objective, max_attempts=A)
        assert res.status is Status.OPTIMAL
        sched = check(res, case)
        assert sched.attempt_counts().max() <= A
        want = exhaustive_optimum(inst, objective, max_attempts=A if inst.checkpoints else 2)
        assert res.objective == pytest.approx(want, abs=1e-9)
        assert res.info["unconditional"] is (not inst.checkpoints)


def test_stops_and_proactive_checkpoints_pay_off():
    """One job of 2 nodes on 3, period T = 2 (C = 1, R = 0): E = 5 + 2 = 7, checkpoint ends 3 and
    6, proactive positions 1 and 4. Node 2 is down on [0, 5), node 0 on [5, 10). In one attempt
    the job needs 7 units on two nodes: nodes 1-2 from 5, completing at 12. In two: nodes 0-1
    from 0 until the failure at 5, a proactive checkpoint at position 4 ending at 5, then nodes
    1-2 from 5 for the 3 that remain: 8 (a regular stop at 3 would give 9)."""
    ck = Checkpointing(cost=1.0, recovery=0.0, node_mtbf=4.0)  # T = sqrt(2 * (4 / 2) * 1) = 2
    case = Case(workload([0], [2], [5], 3), FailureTrace(np.array([0.0, 5.0]), np.array([2, 0]), 3), 5.0, ck)
    inst = case.instance()
    assert inst.length == (7,) and inst.checkpoint_ends(0) == [3, 6] and inst.proactive_positions(0) == [1, 4]
    one = solve_clairvoyant(inst, "max", max_attempts=1)
    two = solve_clairvoyant(inst, "max", max_attempts=2)
    check(one, case), check(two, case)
    assert one.objective == 12 == exhaustive_optimum(inst, "max", max_attempts=1)
    assert two.objective == 8 == exhaustive_optimum(inst, "max", max_attempts=2)
    assert two.info["attempts"] == "optimal among schedules of at most 2 attempts per job"
    first, second = two.solution.attempts_of(0)
    assert (first.start, first.end, first.nodes, first.saved_after, first.proactive) == (0, 5, (0, 1), 4, True)
    assert (second.start, second.end, second.nodes, second.saved_before) == (5, 8, (1, 2), 4)


# ---------------------------------------------------------------- the toy example of §3


@pytest.fixture(scope="module")
def toy() -> Case:
    wl = read_batsim(TOY / "toy.json")
    return Case(wl, read_failures(TOY / "toy-failures.csv", n_nodes=8), 5.0, NO_CHECKPOINTING)


def test_toy_example_optimum(toy):
    """[Du2024] §3: Baseline gives flows 8, 5, 15, 25, 3 (max 25, weighted 256/15), node stealing
    (SFSJ) 8, 11, 11, 21, 10 (max 21, weighted 221/15), as in the paper's Table 1. The clairvoyant optimum, derived by hand in
    docs/clairvoyant.md: max flow 20 (J3 and J4 cannot overlap), weighted mean 203/15. The
    exhaustive search finds the same."""
    inst = toy.instance()
    baseline = toy.run("conservative")
    assert baseline.flow.tolist() == [8, 5, 15, 25, 3]
    stealing = toy.run("sfsj").flow
    assert stealing.tolist() == [8, 11, 11, 21, 10]
    found = {}
    for objective in OBJECTIVES:
        res = solve_clairvoyant(inst, objective)
        assert res.status is Status.OPTIMAL and res.info["unconditional"]
        check(res, toy)
        found[objective] = res.objective
        assert res.objective <= objective_value(objective, baseline.flow, toy.wl.nodes)
        assert res.objective <= objective_value(objective, stealing, toy.wl.nodes)
        assert res.objective == pytest.approx(exhaustive_optimum(inst, objective, max_attempts=1), abs=1e-12)
    assert found == {"max": 20.0, "weighted": pytest.approx(203 / 15, abs=1e-12)}
    assert objective_value("weighted", baseline.flow, toy.wl.nodes) == pytest.approx(256 / 15)
    assert objective_value("weighted", stealing, toy.wl.nodes) == pytest.approx(221 / 15)


def test_toy_example_hint_and_engine_validator(toy):
    """The policies' runs, converted, are clairvoyant schedules no worse than the runs; warm-started
    from one, CP-SAT returns the same optimum; the optimal schedule passes the engine's validator."""
    inst = toy.instance()
    for policy in BATCH_POLICIES:
        run = toy.run(policy)
        conv = schedule_from_run(inst, run)
        validate_clairvoyant(conv, failures=toy.trace, downtime=5.0, n_nodes=8)
        assert np.all(conv.completion <= run.completion) and conv.attempt_counts().max() == 1
        res = solve_clairvoyant(inst, "max", hint=run)
        assert res.status is Status.OPTIMAL and res.objective == 20.0
        engine_validates(check(res, toy), toy, run)


# ---------------------------------------------------------------- never worse than a policy


def policy_names() -> list[str]:
    """Every name of the registry (node stealing's will appear there too)."""
    return sorted(BATCH_POLICIES)


@fewer(0.6)
@given(tiny_cases(), st.sampled_from(OBJECTIVES))
def test_never_worse_than_any_policy(case, objective):
    """On the same instance, the clairvoyant optimum is at most every policy's value, run through
    ``run_batch`` (the policy's run, converted, is a clairvoyant schedule; max_attempts is raised
    to the attempts it uses so that it stays in the model)."""
    inst = case.instance()
    runs = {name: case.run(name) for name in policy_names()}
    converted = {name: schedule_from_run(inst, run) for name, run in runs.items()}
    for name, conv in converted.items():
        validate_clairvoyant(conv, failures=case.trace, downtime=case.downtime, checkpointing=case.ck,
                             n_nodes=case.wl.n_nodes)
        assert np.all(conv.completion <= runs[name].completion + 1e-9), name
    A = max([DEFAULT_MAX_ATTEMPTS] + [int(c.attempt_counts().max()) for c in converted.values()])
    res = solve_clairvoyant(inst, objective, max_attempts=A)
    assert res.status is Status.OPTIMAL
    sched = check(res, case)
    for name, run in runs.items():
        assert res.objective <= objective_value(objective, run.flow, case.wl.nodes) + 1e-9, name
    if sched.attempt_counts().max() == 1:  # the engine's validator knows stops only as node steals
        engine_validates(sched, case, runs[policy_names()[0]])


def test_node_stealing_runs_convert():
    """Node stealing's stops (T1 at once, T2 after a proactive checkpoint, T3 at the next regular
    checkpoint) and a cancelled steal whose victim goes on after its proactive checkpoint
    (``checkpointed``) convert to clairvoyant schedules that complete no job later, and the
    optimum stays below every policy. A (3 nodes, length 50) and V (1 node, length 450, period
    100, C = 2, R = 3: E = 458) on 4 nodes; node 0 fails at 40 (then node 1 at 41), down 1000."""
    ck = Checkpointing(cost=2.0, recovery=3.0, node_mtbf=2500.0)
    wl = Workload(("A", "V"), np.array([0.0, 0.0]), np.array([3, 1]), np.array([100.0, 900.0]),
                  np.array([50.0, 450.0]), 4)
    seen = set()
    for failures in ([(40.0, 0)], [(40.0, 0), (41.0, 1)]):
        trace = FailureTrace(np.array([t for t, _ in failures]), np.array([x for _, x in failures]), 4)
        case = Case(wl, trace, 1000.0, ck)
        inst = case.instance()
        runs = {name: case.run(name) for name in policy_names()}
        A = DEFAULT_MAX_ATTEMPTS
        for name, run in runs.items():
            seen |= {a.outcome for a in run.attempts} | {"proactive" for a in run.attempts if a.proactive}
            conv = schedule_from_run(inst, run)
            validate_clairvoyant(conv, failures=trace, downtime=1000.0, checkpointing=ck, n_nodes=4)
            assert np.all(conv.completion <= run.completion), name
            A = max(A, int(conv.attempt_counts().max()))
        for objective in OBJECTIVES:
            res = solve_clairvoyant(inst, objective, max_attempts=A)
            assert res.status is Status.OPTIMAL
            check(res, case)
            for name, run in runs.items():
                assert res.objective <= objective_value(objective, run.flow, wl.nodes) + 1e-9, name
    assert {"interrupted", "checkpointed", "proactive", "failed"} <= seen


@fewer(0.4)
@given(tiny_cases(checkpoints=True), seeds)
def test_hint_keeps_the_answer(case, seed):
    """Warm-started from a policy's run, the answer is optimal and the same as without."""
    inst = case.instance()
    name = policy_names()[seed % len(policy_names())]
    run = case.run(name)
    for objective in OBJECTIVES:
        res = solve_clairvoyant(inst, objective, hint=run)
        assert res.status is Status.OPTIMAL
        check(res, case)
        limits = res.info["max_attempts"]
        plain = solve_clairvoyant(inst, objective, max_attempts=max(limits.values()))
        assert res.objective <= objective_value(objective, run.flow, case.wl.nodes) + 1e-9
        assert res.objective >= plain.objective - 1e-9  # the hint's slots are within the plain model's


# ---------------------------------------------------------------- time limits


def hard_case() -> Case:
    """8 jobs of 2 nodes on 8 nodes, lengths up to 20 with a period of 4 (C = R = 1), 4 failures:
    CP-SAT does not prove the optimum in seconds."""
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 21, 8)
    submit = np.sort(rng.integers(0, 11, 8))
    trace = FailureTrace(rng.integers(0, 30, 4).astype(float), rng.integers(0, 8, 4), 8)
    ck = Checkpointing(cost=1.0, recovery=1.0, node_mtbf=16.0)
    return Case(workload(submit, [2] * 8, lengths, 8), trace, 5.0, ck)


@pytest.mark.parametrize("limit", [0.0, 1.0])
def test_time_limit_is_never_optimal(limit):
    case = hard_case()
    inst = case.instance()
    t0 = time.perf_counter()
    res = solve_clairvoyant(inst, "weighted", time_limit=limit)
    assert time.perf_counter() - t0 <= limit + TIME_LIMIT_MARGIN + 0.5
    assert res.status in (Status.FEASIBLE, Status.UNKNOWN)
    assert "time limit reached" in res.info["time_limit_reached"]
    sched = check(res, case)
    assert res.gap is not None and res.gap > 0
    assert sched.objective("weighted") <= greedy_schedule(inst).objective("weighted") + 1e-9


# ---------------------------------------------------------------- input checks


def test_sizes_are_refused_in_one_line():
    big = workload([0] * 9, [1] * 9, [1] * 9, 8)
    with pytest.raises(InvalidInstance, match=r"^clairvoyant optimum: 9 jobs, more than 8: .*max_size") as e:
        clairvoyant_instance(big)
    assert "\n" not in str(e.value)
    with pytest.raises(InvalidInstance, match="9 nodes, more than 8"):
        clairvoyant_instance(workload([0], [1], [1], 9))
    assert clairvoyant_instance(big, max_size=None).n == 9
    assert clairvoyant_instance(workload([0], [1], [1], 9), max_size=9).n_nodes == 9


def test_times_off_the_grid_are_refused_in_one_line():
    wl = workload([0, 1], [1, 2], [3, 4], 2)
    trace = FailureTrace(np.array([1.0001]), np.array([0]), 2)
    with pytest.raises(InvalidInstance, match=r"the failure time of node 0 \(1.0001 s\) is not a multiple"):
        clairvoyant_instance(wl, failures=trace)
    # an irrational Young/Daly period: sqrt(2 * 1 * 1) for the 1-node job, which checkpoints
    ck = Checkpointing(cost=1.0, node_mtbf=1.0)
    with pytest.raises(InvalidInstance, match=r"job j0: checkpoint block T \+ C \(2.414213562 s\)"):
        clairvoyant_instance(wl, checkpointing=ck)
    # ... but a job shorter than its period has no checkpoint: T plays no part
    short = workload([0], [1], [1], 2)
    assert clairvoyant_instance(short, checkpointing=ck).stops == (0,)
    # the unit: found (halves here), or given and checked
    half = clairvoyant_instance(workload([0, 0.5], [1, 1], [1.5, 2], 2))
    assert half.unit == 0.5 and half.length == (3, 4) and half.submit == (0, 1)
    with pytest.raises(InvalidInstance, match=r"job j1: submit time \(0.5 s\) is not a multiple of the time unit 1 s"):
        clairvoyant_instance(workload([0, 0.5], [1, 1], [1, 2], 2), unit=1.0)


def test_failures_on_a_down_node_are_ignored_as_by_the_engine():
    """A failure of a node within its downtime changes nothing; one at the instant it is back
    counts (the engine brings the node back before it fails again)."""
    wl = workload([0], [1], [2], 1)
    trace = FailureTrace(np.array([1.0, 3.0, 6.0]), np.array([0, 0, 0]), 1)
    inst = clairvoyant_instance(wl, failures=trace, downtime=5.0)
    assert inst.failures == ((1, 0), (6, 0))
    res = solve_clairvoyant(inst, "max")
    # [0, 1) is too short, the node is down on [1, 6) and [6, 11): the job runs from 11
    assert res.objective == 13 == exhaustive_optimum(inst, "max")
    run = Case(wl, trace, 5.0, NO_CHECKPOINTING).run("fcfs")
    assert run.completion.tolist() == [13.0]


def test_transient_failures_allow_a_start_at_their_instant():
    """``D = 0``: an attempt may end or start exactly at a failure of its node, not run across it."""
    wl = workload([0, 0], [1, 1], [2, 3], 1)
    trace = FailureTrace(np.array([2.0, 4.0]), np.array([0, 0]), 1)
    inst = clairvoyant_instance(wl, failures=trace, downtime=0.0)
    res = solve_clairvoyant(inst, "max")
    # j0 on [0, 2), then j1 cannot run [2, 5) across 4: it starts at 4 and ends at 7
    assert res.objective == 7 == exhaustive_optimum(inst, "max")
    sched = check(res, Case(wl, trace, 0.0, NO_CHECKPOINTING))
    j1 = sched.attempts_of(1)[0]
    assert (j1.start, j1.end) == (4, 7)
    j0 = dataclasses.replace(sched.attempts_of(0)[0], start=0.0, end=2.0)
    across = ClairvoyantSchedule(wl, (j0, dataclasses.replace(j1, start=2.0, end=5.0)))
    with pytest.raises(InvalidSchedule, match=r"^node 0: job j1 attempt 0 \[2, 5\) runs across its failure at 4$"):
        validate_clairvoyant(across, failures=trace)
    with pytest.raises(InvalidSchedule, match=r"runs while it is down on \[(2, 3|4, 5)\)"):
        validate_clairvoyant(sched, failures=trace, downtime=1.0)


def test_validator_catches_broken_schedules(toy):
    inst = toy.instance()
    good = solve_clairvoyant(inst, "max").solution
    ok = {"failures": toy.trace, "downtime": 5.0, "n_nodes": 8}
    validate_clairvoyant(good, **ok)
    att = list(good.attempts)
    j3 = next(i for i, a in enumerate(att) if toy.wl.ids[a.job] == "J3")
    j4 = next(i for i, a in enumerate(att) if toy.wl.ids[a.job] == "J4")

    def broken(i, **change):
        new = list(att)
        new[i] = dataclasses.replace(new[i], **change)
        return ClairvoyantSchedule(toy.wl, tuple(new))

    big = next(i for i, a in enumerate(att) if a.start == 0 and len(a.nodes) == 6)
    other = j4 if big == j3 else j3
    a = att[big]
    assert 2 not in a.nodes  # node 2 is down on [1, 6)
    cases = [
        (broken(other, start=a.start, end=a.end, nodes=a.nodes), "overlaps"),
        (broken(big, end=a.end + 1), "runs 11, expected 10"),
        (broken(big, nodes=a.nodes[:-1]), "the job needs 6 distinct ones"),
        (broken(big, outcome="stopped"), "the last attempt completes"),
        (broken(big, recovery=1.0, end=a.end + 1), "recovery 1, expected 0"),
    ]
    for sched, message in cases:
        with pytest.raises(InvalidSchedule, match=message):
            validate_clairvoyant(sched, **ok)
    early = dataclasses.replace(toy.wl, submit=np.ones(5))  # the same order: jobs start at 0
    with pytest.raises(InvalidSchedule, match="before its submission"):
        validate_clairvoyant(ClairvoyantSchedule(early, good.attempts), **ok)


def test_objectives_and_unknown_name(toy):
    inst = toy.instance()
    with pytest.raises(InvalidInstance, match="objective must be one of max, weighted"):
        solve_clairvoyant(inst, "mean")
    with pytest.raises(InvalidInstance, match="max_attempts must be a positive integer"):
        solve_clairvoyant(inst, "max", max_attempts=0)


def test_doctests():
    assert package_doctests(coschedule.exact.clairvoyant).failed == 0


def test_docs_page_examples_run():
    """The ``python`` blocks of docs/clairvoyant.md are doctests with their real outputs."""
    import doctest

    result = doctest.testfile(str(ROOT / "docs" / "clairvoyant.md"), module_relative=False, encoding="utf-8",
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10 and result.failed == 0
