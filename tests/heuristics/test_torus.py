"""The torus schedulers of [Oliner2004] (:mod:`coschedule.heuristics.torus`) on the simulation
core: cases worked by hand (placement, predictors, backfilling, restarts), Fig. 2's decision,
and random runs through the independent validator.

Timelines read ``job: [start, end) on nodes``; the rings ``1x1xZ`` keep the geometry easy to
follow (a box is a cyclic interval of nodes).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance, InvalidSchedule
from coschedule.heuristics.torus import (
    FailureOracle,
    TorusScheduler,
    choose_partition,
    get_torus_policy,
)
from coschedule.sim.engine import Simulation
from coschedule.sim.failures import FailureTrace
from coschedule.sim.workload import Workload
from coschedule.torus import box_shapes, box_sizes
from coschedule.torus.failures import clustered_failures, count_failures
from coschedule.torus.metrics import capacity_parts, torus_metrics
from coschedule.torus.run import TorusRun, run_torus
from coschedule.torus.validate import validate_torus_run
from coschedule.torus.workload import TorusJobs, torus_workload


def jobs(dims, *rows: tuple[float, int, float, float]) -> TorusJobs:
    """Jobs ``(submit, size, estimate, length)`` named A, B, C ..."""
    submit, size, wall, length = zip(*rows)
    w = Workload(tuple("ABCDEFGHIJKL"[:len(rows)]), np.array(submit, float), np.array(size),
                 np.array(wall, float), np.array(length, float), math.prod(dims))
    return torus_workload(w, dims)


def trace(dims, *failures: tuple[float, int]) -> FailureTrace:
    times, nodes = zip(*failures) if failures else ((), ())
    return FailureTrace(np.array(times, float), np.array(nodes, dtype=np.int64), math.prod(dims))


def timeline(run: TorusRun) -> list[tuple[str, float, float, tuple[int, ...], str]]:
    ids = run.result.workload.ids
    return [(ids[a.job], a.start, a.end, a.nodes, a.outcome)
            for a in sorted(run.result.attempts, key=lambda a: (a.job, a.index))]


def checked(run: TorusRun) -> TorusRun:
    validate_torus_run(run)
    return run


# --------------------------------------------------------------------------- Fig. 2 (§5.2.1)
@pytest.mark.parametrize("a", [0.0, 0.1, 0.3, 0.5, 0.51, 0.9, 1.0])
def test_fig2_balancing_decided_by_pf_above_half(a: float) -> None:
    """Fig. 2 (a) L_MFP = 3, L_PF = 4 P_f against (b) L_MFP = 5, L_PF = 0: (b) exactly when
    P_f > 0.5. With the §4.1 rule P_f = a (4 flagged nodes, max); with §5.2.1's product P_f =
    1 - (1 - a)^4, so (b) already from a > 1 - 0.5^(1/4) ≈ 0.159."""
    loss, hits = np.array([3, 5]), np.array([4, 0])
    assert choose_partition("balancing", loss, hits, 4, a, "max") == (1 if a > 0.5 else 0)
    pf = 1 - (1 - a) ** 4
    assert choose_partition("balancing", loss, hits, 4, a, "product") == (1 if pf > 0.5 else 0)


def test_choice_ties() -> None:
    loss = np.array([2, 1, 1, 1])
    assert choose_partition("fcfs", loss, np.zeros(4, int), 2) == 1  # the first of least loss
    # tiebreak: among the least loss, the first predicted safe; all flagged: the first of them
    assert choose_partition("tiebreak", loss, np.array([0, 1, 0, 0]), 2, 1.0) == 2
    assert choose_partition("tiebreak", loss, np.array([0, 1, 3, 2]), 2, 1.0) == 1
    # tiebreak never trades MFP loss for safety
    assert choose_partition("tiebreak", np.array([1, 2]), np.array([5, 0]), 2, 1.0) == 0
    # balancing: equal E_loss -> the lower L_MFP
    assert choose_partition("balancing", np.array([3, 5]), np.array([1, 0]), 4, 0.5) == 0


# --------------------------------------------------------------------------- predictors
RING = (1, 1, 4)


def test_balancing_and_tiebreak_avoid_a_predicted_failure() -> None:
    """Ring of 4, A (2 units, 10 s) at 0, node 0 fails at 5. Every 2-box leaves an MFP of 2:
    all tie. FCFS takes the first, {0, 1}: A fails at 5 and restarts there, [5, 15). Balancing
    (a = 0.5: E = 2 + 0.5·2 for the boxes with node 0) and Tie-breaking (a = 1) take {1, 2}:
    A ends at 10."""
    j, f = jobs(RING, (0, 2, 10, 10)), trace(RING, (5.0, 0))
    fcfs = checked(run_torus(j, "fcfs", failures=f))
    assert timeline(fcfs) == [("A", 0, 5, (0, 1), "failed"), ("A", 5, 15, (0, 1), "completed")]
    for run in (run_torus(j, "balancing", failures=f, confidence=0.5),
                run_torus(j, "tiebreak", failures=f, accuracy=1.0)):
        assert timeline(checked(run)) == [("A", 0, 10, (1, 2), "completed")]
    # the window is (now, now + t^e]: a failure after the estimated end is not predicted
    late = trace(RING, (10.5, 0))
    assert timeline(run_torus(j, "balancing", failures=late, confidence=0.9))[0][3] == (0, 1)


@pytest.mark.parametrize("policy,option", [("balancing", "confidence"), ("tiebreak", "accuracy")])
def test_silent_predictor_is_fcfs(policy: str, option: str) -> None:
    """a = 0, or no failure at all: the fault-aware schedulers place as FCFS does."""
    dims = (2, 2, 4)
    rng = np.random.default_rng(5)
    n = 30
    w = Workload(tuple(str(k) for k in range(n)), np.sort(rng.uniform(0, 200, n)),
                 rng.choice([1, 2, 4, 8], n), np.full(n, 60.0), rng.uniform(1, 60, n), 16)
    j = torus_workload(w, dims)
    f = count_failures(dims, 20, start=0, end=300, seed=2)
    base = run_torus(j, "fcfs", failures=f)
    assert timeline(run_torus(j, policy, failures=f, **{option: 0.0})) == timeline(base)
    assert timeline(run_torus(j, policy, **{option: 1.0})) == timeline(run_torus(j, "fcfs"))


def test_tiebreak_misses_are_drawn_once_per_failure() -> None:
    """One uniform draw per failure of the log: the failures detected at accuracy a are among
    those detected at any higher accuracy, and every query sees the same detections."""
    times = np.arange(10.0)
    nodes = np.arange(10) % 3
    u = np.random.default_rng(0).uniform(size=10)
    seen = []
    for a in (0.2, 0.5, 0.8):
        o = FailureOracle(times, nodes, 3, keep=u < a)
        seen.append(set(zip(o.times, o.nodes)))
        assert o.failing(9.5).tolist() == o.failing(9.5).tolist()
    assert seen[0] <= seen[1] <= seen[2]
    o = FailureOracle(times, nodes, 3)
    o.advance(4.0)  # failures at or before now are past
    assert o.next.tolist() == [6.0, 7.0, 5.0]
    assert o.failing(5.0).tolist() == [False, False, True]


# --------------------------------------------------------------------------- the scheduler
def test_restart_from_the_beginning_on_a_node_available_at_once() -> None:
    """§6.1: a failure loses the whole job; the node is up again at once (D = 0), so the job
    restarts at the failure's instant; with a downtime the node is out until it is back."""
    j = jobs((1, 1, 2), (0, 2, 10, 10))
    run = checked(run_torus(j, "fcfs", failures=trace((1, 1, 2), (4.0, 1))))
    assert timeline(run) == [("A", 0, 4, (0, 1), "failed"), ("A", 4, 14, (0, 1), "completed")]
    run = checked(run_torus(j, "fcfs", failures=trace((1, 1, 2), (4.0, 1)), downtime=3.0))
    assert timeline(run) == [("A", 0, 4, (0, 1), "failed"), ("A", 7, 17, (0, 1), "completed")]
    m = torus_metrics(run)
    assert m.mean_wait == 7.0 and m.mean_response == 17.0  # wait from the last start


def test_failed_job_keeps_its_arrival_place() -> None:
    """Ring of 2, D = 3. A (2 units) fails at 4 and goes back to the queue ahead of B (arrived
    at 1): A is the head. Node 1 is down until 7, and down nodes stay occupied in the
    projection, so A has no shadow time and reserves nothing: B (1 unit, 2 s) starts at 4 on
    node 0; A restarts at 7 when node 1 is back."""
    dims = (1, 1, 2)
    j = jobs(dims, (0, 2, 10, 10), (1, 1, 2, 2))
    run = checked(run_torus(j, "fcfs", failures=trace(dims, (4.0, 1)), downtime=3.0))
    assert timeline(run) == [("A", 0, 4, (0, 1), "failed"), ("A", 7, 17, (0, 1), "completed"),
                             ("B", 4, 6, (0,), "completed")]


def test_backfilling_respects_the_reserved_partition() -> None:
    """Ring of 8. A (6 units) runs [0, 10) on 0-5. B (4) arrives at 1: no 4-box is free; at
    A's estimated end (10) every 4-box is, the first is reserved: {0..3}. C (2 units, 100 s)
    arrives at 2: it ends after the shadow but its only free box {6, 7} is outside the reserved
    one: it starts now. D (2 units, 5 s) at 3: no free box. B starts at 10 on {0..3}."""
    dims = (1, 1, 8)
    j = jobs(dims, (0, 6, 10, 10), (1, 4, 5, 5), (2, 2, 100, 100), (3, 2, 5, 5))
    run = checked(run_torus(j, "fcfs"))
    t = {a[0]: a[1:] for a in timeline(run)}
    assert t["C"][:3] == (2, 102, (6, 7))
    assert t["B"][:3] == (10, 15, (0, 1, 2, 3))
    assert t["D"][0] == 10  # beside B, on {4, 5}
    # strict FCFS: nothing overtakes B
    strict = {a[0]: a[1:] for a in timeline(checked(run_torus(j, "fcfs", backfill=False)))}
    assert strict["B"][0] == 10 and strict["C"][0] == 10 and strict["D"][0] >= 10


def test_backfilled_job_ends_by_the_shadow_anywhere() -> None:
    """Ring of 4: A (2) [0, 10); B (4) at 1 is blocked, shadow 10, reserved the whole ring. C
    (2 units, 5 s) at 2 ends by 10: it backfills. D (1 unit, 20 s) at 3 would end after 10 and
    every free box meets the reservation: it waits for B."""
    j = jobs(RING, (0, 2, 10, 10), (1, 4, 5, 5), (2, 2, 5, 5), (3, 1, 20, 20))
    t = {a[0]: a[1:3] for a in timeline(checked(run_torus(j, "fcfs")))}
    assert t == {"A": (0, 10), "B": (10, 15), "C": (2, 7), "D": (15, 35)}


def test_least_mfp_loss_placement() -> None:
    """Fig. 1: on a ring of 8 with node 3 busy (B holds it), a 2-unit job placed at {4, 5}
    leaves an MFP of 2 ({6, 7, 0, 1, 2} has 5 nodes: MFP 5 if placed at {1, 2}); the least
    loss keeps the large free run: A goes next to the busy node."""
    dims = (1, 1, 8)
    j = jobs(dims, (0, 1, 100, 100), (1, 2, 10, 10))
    t = {a[0]: a[3] for a in timeline(checked(run_torus(j, "fcfs")))}
    assert t["A"] == (0,)
    assert t["B"] in ((1, 2), (6, 7))  # next to A: the 5 remaining nodes stay one run


def test_sizes_without_a_box_are_refused_by_the_scheduler() -> None:
    w = Workload(("A",), np.zeros(1), np.array([5]), np.ones(1), np.ones(1), 16)
    with pytest.raises(InvalidInstance, match="job A: 5 nodes has no box shape"):
        Simulation(w, TorusScheduler((2, 2, 4))).run()
    with pytest.raises(InvalidInstance, match="confidence is a parameter of balancing"):
        get_torus_policy("fcfs", (2, 2, 4), confidence=0.5)
    with pytest.raises(InvalidInstance, match="accuracy must be a number in"):
        get_torus_policy("tiebreak", (2, 2, 4), accuracy=1.5)
    with pytest.raises(ValueError, match="unknown torus policy 'balance'"):
        get_torus_policy("balance", (2, 2, 4))


# --------------------------------------------------------------------------- workload, failures
def test_torus_workload_units_rounding_and_scaling() -> None:
    w = Workload(("a", "b", "c", "d"), np.zeros(4), np.array([11, 256, 3, 129]), np.array([20.0, 5, 5, 5]),
                 np.array([10.0, 5, 5, 5]), 256)
    j = torus_workload(w, (4, 4, 8), load_scale=1.2)  # unit 2: 256 nodes on 128 units
    assert j.unit == 2
    assert j.requested_units.tolist() == [6, 128, 2, 65]
    # 65 = 5 x 13, 66 = 2 x 3 x 11, 68 = 4 x 17, 70 = 2 x 5 x 7: no box on 4x4x8; 72 = 3 x 3 x 8
    assert j.workload.nodes.tolist() == [6, 128, 2, 72]
    assert all(box_shapes(int(s), (4, 4, 8)) for s in j.workload.nodes)
    assert j.rounded == 1 and j.wide == ()
    assert j.workload.length.tolist() == pytest.approx([12.0, 6, 6, 6])
    assert j.workload.walltime.tolist() == pytest.approx([24.0, 6, 6, 6])
    j1 = torus_workload(w, (4, 4, 8), unit=1)
    assert j1.wide == ("b", "d") and j1.n == 2
    assert j1.workload.nodes.tolist() == [12, 3]  # 11 has no box on 4x4x8: 12 = 2x2x3


def test_clustered_failures() -> None:
    dims = (4, 4, 8)
    f = clustered_failures(dims, 400, start=100.0, end=1000.0, seed=3)
    g = clustered_failures(dims, 400, start=100.0, end=1000.0, seed=3)
    assert len(f) == 400 and f == g
    assert f.times.min() >= 100 and f.times.max() < 1000
    times, counts = np.unique(f.times, return_counts=True)
    assert counts.mean() > 2.5  # bursts of simultaneous failures (mean 4)
    for t in times[:50]:  # every burst stays in a 3x3x3 neighbourhood (wrapping)
        nodes = f.nodes[f.times == t]
        coords = np.array(np.unravel_index(nodes, dims)).T
        for d, size in enumerate(dims):
            spread = {(c - coords[0, d]) % size for c in coords[:, d]}
            assert spread <= {0, 1, size - 1}
    u = count_failures(dims, 50, start=0, end=10, seed=1, model="uniform")
    assert len(u) == 50 and len(np.unique(u.times)) == 50


# --------------------------------------------------------------------------- metrics
def test_capacity_parts_by_hand() -> None:
    """Ring of 4: A (2 units, 10 s) and B (4 units, 10 s) at 0. A [0, 10), B [10, 20); T = 20.
    utilized = (2·10 + 4·10) / (20·4) = 0.75; unused = 0 (2 free units but B asks 4); lost
    0.25. A alone: utilized 0.5, unused 0.5 (2 free, nobody waits)."""
    run = checked(run_torus(jobs(RING, (0, 2, 10, 10), (0, 4, 10, 10)), "fcfs"))
    T, util, unused, lost = capacity_parts(run.result)
    assert (T, util, unused, lost) == pytest.approx((20, 0.75, 0.0, 0.25))
    run = run_torus(jobs(RING, (0, 2, 10, 10)), "fcfs")
    assert capacity_parts(run.result) == pytest.approx((10, 0.5, 0.5, 0.0))
    # a 1-unit job waiting behind: f = 2 free, q = 1 asked -> 1 unused unit while it waits
    run = checked(run_torus(jobs(RING, (0, 2, 10, 10), (0, 4, 10, 10), (1, 1, 10, 10)), "fcfs"))
    T, util, unused, lost = capacity_parts(run.result)
    # C backfills? it ends at 11 > shadow 10 and every free box meets the reservation: waits
    assert T == 30 and util == pytest.approx((20 + 40 + 10) / 120)
    # unused: [0,1) f 2 q 4 -> 0; [1,10) f 2 q 5 -> 0; [10,20) f 0; [20,30) f 3 q 0 -> 3
    assert unused == pytest.approx(30 / 120)


def test_bounded_slowdown_rules() -> None:
    """Requests 100, run times 100 and 2, both run at once (response = run time). Over the
    request, max(t^r, Γ)/max(w, Γ) = 1 and 0.1 (the job ran shorter than it asked); over the run
    time (the default) 1 and 1; as printed, max(t^r, Γ)/min(t^e, Γ) = 10 and 10/2 = 5 over the
    run time, 10 and 10/10 = 1 over the request."""
    run = run_torus(jobs((1, 1, 2), (0, 1, 100, 100), (0, 1, 100, 2)), "fcfs")
    assert torus_metrics(run).mean_bsld == pytest.approx(1.0)
    assert torus_metrics(run).bsld_time == "run"
    assert torus_metrics(run, bsld_time="request").mean_bsld == pytest.approx((1 + 0.1) / 2)
    assert torus_metrics(run, bsld="min").mean_bsld == pytest.approx((10 + 5) / 2)
    assert torus_metrics(run, bsld="min", bsld_time="request").mean_bsld == pytest.approx((10 + 1) / 2)
    with pytest.raises(ValueError, match="unknown bounded-slowdown time 'wall'"):
        torus_metrics(run, bsld_time="wall")


def test_metrics_against_an_independent_computation() -> None:
    """A hand-made run on a ring of 4 with a failure: A (2 units, asks 50 s, runs 20) at 0,
    B (4 units, asks 30, runs 8) at 1, C (1 unit, asks 40, runs 4) at 2, node 0 fails at 10.
    The per-job times are read from the attempts here, the definitions of §3.4 applied with
    numpy, and compared with torus_metrics: wait and response from the last start, the bounded
    slowdown over the run time and over the request, and the batch metrics' bounded slowdown
    (coschedule.sim.metrics: the same definition over the run time)."""
    from coschedule.sim.metrics import bounded_slowdown

    run = checked(run_torus(jobs(RING, (0, 2, 50, 20), (1, 4, 30, 8), (2, 1, 40, 4)), "fcfs",
                            failures=trace(RING, (10.0, 0))))
    w = run.result.workload
    last = {a.job: (a.start, a.end) for a in run.result.attempts if a.outcome == "completed"}
    assert any(a.outcome == "failed" for a in run.result.attempts)  # the failure hit a job
    ts = np.array([last[j][0] for j in range(3)])
    tf = np.array([last[j][1] for j in range(3)])
    ta = np.array([0.0, 1.0, 2.0])
    run_time, request = np.array([20.0, 8.0, 4.0]), np.array([50.0, 30.0, 40.0])
    m = torus_metrics(run)
    assert m.mean_wait == pytest.approx(np.mean(ts - ta))
    assert m.mean_response == pytest.approx(np.mean(tf - ta))
    resp = tf - ta
    by_run = np.maximum(resp, 10) / np.maximum(run_time, 10)
    by_request = np.maximum(resp, 10) / np.maximum(request, 10)
    assert m.mean_bsld == pytest.approx(by_run.mean()) and m.max_bsld == pytest.approx(by_run.max())
    assert torus_metrics(run, bsld_time="request").mean_bsld == pytest.approx(by_request.mean())
    assert by_run.min() >= 1.0 > by_request.min()  # over the request, a slowdown below 1
    assert m.mean_bsld == pytest.approx(float(np.mean(bounded_slowdown(run.result))))  # NOTES.md 24
    d = m.to_dict()
    assert d["mean_response"] == pytest.approx(np.mean(resp)) and d["bounded_slowdown_time"] == "run"
    assert "mean response" in m.table() and "max(run time, Γ)" in m.table()
    assert np.array_equal(w.length, run_time)


# --------------------------------------------------------------------------- random runs
DIMS = [(1, 1, 5), (2, 2, 2), (1, 3, 4), (2, 2, 4), (3, 1, 3), (4, 4, 8)]


@st.composite
def torus_cases(draw):
    dims = draw(st.sampled_from(DIMS))
    N = math.prod(dims)
    sizes = [int(s) for s in box_sizes(dims)]
    n = draw(st.integers(1, 14))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    size = rng.choice(sizes, n)
    length = rng.integers(1, 50, n).astype(float)
    wall = length + rng.integers(0, 20, n) * rng.integers(0, 2, n)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.integers(0, 60, n)).astype(float), size, wall,
                 length, N)
    k = draw(st.integers(0, 12))
    f = FailureTrace(rng.integers(0, 150, k).astype(float), rng.integers(0, N, k), N)
    policy = draw(st.sampled_from(["fcfs", "balancing", "tiebreak"]))
    opts = {"balancing": {"confidence": draw(st.sampled_from([0.1, 0.5, 1.0])),
                          "pf": draw(st.sampled_from(["max", "product"]))},
            "tiebreak": {"accuracy": draw(st.sampled_from([0.3, 1.0]))}, "fcfs": {}}[policy]
    migration = draw(st.booleans())
    return dict(jobs=torus_workload(w, dims), policy=policy, failures=f, backfill=draw(st.booleans()),
                downtime=draw(st.sampled_from([0.0, 7.0])), seed=seed, migration=migration,
                migration_cost=draw(st.sampled_from([0.0, 3.0])) if migration else 0.0, **opts)


@given(torus_cases())
def test_random_runs_pass_the_validator(case) -> None:
    run = run_torus(case.pop("jobs"), case.pop("policy"), **case)
    validate_torus_run(run)
    assert np.isfinite(run.result.completion).all()
    m = torus_metrics(run)
    assert m.util + m.unused + m.lost == pytest.approx(1.0)
    assert 0 <= m.unused <= 1 and m.util > 0


@given(torus_cases())
def test_strict_fcfs_starts_in_arrival_order_without_failures(case) -> None:
    case.update(failures=None, backfill=False)
    run = run_torus(case.pop("jobs"), case.pop("policy"), **case)
    w = run.result.workload
    order = np.lexsort((np.arange(w.n), w.submit))
    starts = run.result.first_start[order]
    assert (np.diff(starts) >= 0).all()


def test_validator_rejects_a_partition_that_is_not_a_box() -> None:
    import dataclasses

    run = run_torus(jobs((1, 1, 8), (0, 2, 10, 10)), "fcfs")
    a = run.result.attempts[0]
    bad = dataclasses.replace(run.result, attempts=(dataclasses.replace(a, nodes=(0, 2)),))
    with pytest.raises(InvalidSchedule, match="not a contiguous rectangular partition"):
        validate_torus_run(dataclasses.replace(run, result=bad))
    wrap = dataclasses.replace(run.result, attempts=(dataclasses.replace(a, nodes=(0, 7)),))
    validate_torus_run(dataclasses.replace(run, result=wrap))  # {7, 0} wraps: a box


@given(torus_cases())
def test_box_table_and_finder_place_alike(case) -> None:
    """The scheduler's bitmask table (:class:`~coschedule.torus.index.BoxIndex`) and the finder
    behind :class:`~coschedule.torus.index.GenericIndex` (free partitions, MFP after each
    candidate, predicted nodes) give the same run, attempt for attempt."""
    from coschedule.heuristics.torus import policies as torus_mod
    from coschedule.torus.index import GenericIndex

    jobs_ = case.pop("jobs")
    policy = case.pop("policy")
    table = run_torus(jobs_, policy, **case)
    real = torus_mod.make_index
    torus_mod.make_index = GenericIndex  # type: ignore[assignment]
    try:
        generic = run_torus(jobs_, policy, **case)
    finally:
        torus_mod.make_index = real
    assert timeline(generic) == timeline(table)


# --------------------------------------------------------------------------- migration
def test_migration_defragments_for_the_head() -> None:
    """Ring of 8: A, B, C (2 units) at 0 take {0,1}, {2,3}, {4,5}; D (4 units) arrives at 1. B ends
    at 5: units {2, 3} and {6, 7} are free, 4 units but no 4-box. With migration the running jobs
    are re-placed, largest first then by arrival: A keeps {0, 1}, C moves to {2, 3} (the first of
    least MFP loss), D starts at 5 on {4..7}. Without migration D waits for A and C (10). A move
    costing 1 s delays C's end by 1 s; C keeps its 5 s of work."""
    dims = (1, 1, 8)
    j = jobs(dims, (0, 2, 10, 10), (0, 2, 5, 5), (0, 2, 10, 10), (1, 4, 3, 3))
    plain = {a[0]: a[1:] for a in timeline(checked(run_torus(j, "fcfs", migration=False)))}
    assert plain["D"][:2] == (10, 13)
    run = checked(run_torus(j, "fcfs"))  # migration is on by default (§5.2.1)
    assert run.params["migration"] is True
    assert timeline(run) == [("A", 0, 10, (0, 1), "completed"), ("B", 0, 5, (2, 3), "completed"),
                             ("C", 0, 5, (4, 5), "migrated"), ("C", 5, 10, (2, 3), "completed"),
                             ("D", 5, 8, (4, 5, 6, 7), "completed")]
    assert run.params["migrations"] == 1
    # C's last start is 0: the migration continues its run (its wait is 0, not 5)
    assert torus_metrics(run).mean_wait == pytest.approx((0 + 0 + 0 + 4) / 4)
    costly = checked(run_torus(j, "fcfs", migration=True, migration_cost=1.0))
    c = [a for a in costly.result.attempts if a.job == 2]
    assert (c[1].start, c[1].end, c[1].recovery, c[1].saved_before) == (5, 11, 1.0, 5.0)


def test_validator_checks_migrations() -> None:
    import dataclasses

    dims = (1, 1, 8)
    j = jobs(dims, (0, 2, 10, 10), (0, 2, 5, 5), (0, 2, 10, 10), (1, 4, 3, 3))
    run = run_torus(j, "fcfs", migration=True)
    atts = list(run.result.attempts)
    k = next(i for i, a in enumerate(atts) if a.outcome == "migrated")
    lost = atts.copy()
    lost[k] = dataclasses.replace(atts[k], saved_after=0.0)  # a migration that kept no work
    with pytest.raises(InvalidSchedule, match="a migration saves where its work stopped"):
        validate_torus_run(dataclasses.replace(run, result=dataclasses.replace(run.result, attempts=tuple(lost))))
    with pytest.raises(InvalidSchedule, match="the migration cost 2 after a migration"):
        validate_torus_run(dataclasses.replace(run, result=dataclasses.replace(run.result, migration_cost=2.0)))


@given(torus_cases(), st.integers(30, 60))
def test_caches_change_nothing(case, n) -> None:
    """The scheduler's caches (the head's reservation, the jobs known to find no partition)
    give the runs of a scheduler that recomputes everything at every instant."""
    from coschedule.heuristics.torus import TorusScheduler

    dims = case["jobs"].dims
    rng = np.random.default_rng(case["seed"])
    sizes = [int(s) for s in box_sizes(dims)]
    length = rng.integers(1, 80, n).astype(float)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.integers(0, 100, n)).astype(float),
                 rng.choice(sizes, n), length + rng.integers(0, 30, n), length, math.prod(dims))
    case["jobs"] = torus_workload(w, dims)
    case["backfill"] = True
    jobs_ = case.pop("jobs")
    policy = case.pop("policy")
    cached = run_torus(jobs_, policy, **case)
    TorusScheduler.caches = False
    try:
        fresh = run_torus(jobs_, policy, **case)
    finally:
        TorusScheduler.caches = True
    assert timeline(fresh) == timeline(cached)


def test_caches_change_nothing_on_busy_queues() -> None:
    """Long queues on four tori, 60 seeds: the cached scheduler's runs are those of one that
    recomputes everything (a cache kept across a reservation that moved made 2 of these 60
    differ)."""
    from coschedule.heuristics.torus import TorusScheduler

    for seed in range(60):
        dims = [(2, 2, 4), (4, 4, 8), (1, 3, 5), (2, 2, 2)][seed % 4]
        rng = np.random.default_rng(seed)
        n, N = 150, math.prod(dims)
        length = rng.integers(1, 100, n).astype(float)
        w = Workload(tuple(map(str, range(n))), np.sort(rng.integers(0, 400, n)).astype(float),
                     rng.choice([int(s) for s in box_sizes(dims)], n), length * rng.uniform(1, 3, n), length, N)
        j = torus_workload(w, dims)
        cached = run_torus(j, "fcfs")
        TorusScheduler.caches = False
        try:
            fresh = run_torus(j, "fcfs")
        finally:
            TorusScheduler.caches = True
        assert timeline(fresh) == timeline(cached), seed


@given(st.sampled_from(DIMS), st.integers(0, 2**32 - 1), st.integers(0, 64))
def test_partial_mfp_after(dims, seed, floor) -> None:
    """mfp_after's partial answers: every value it gives is exact; with first_only it gives
    exactly the rows of the largest value; with a floor, exactly the rows at or above it."""
    from coschedule.torus.index import BoxIndex

    ix = BoxIndex(dims)
    rng = np.random.default_rng(seed)
    occ = rng.uniform(size=dims) < rng.uniform(0, 0.8)
    free = ix.free_boxes(ix.pack(occ))
    for size in sorted({int(s) for s in box_sizes(dims)})[:4]:
        rows = ix.of_size(free, size)
        exact = ix.mfp_after(free, rows)
        first = ix.mfp_after(free, rows, first_only=True)
        low = ix.mfp_after(free, rows, floor=floor)
        if rows.size:
            assert np.array_equal(first >= 0, exact == exact.max())
        assert np.array_equal(first[first >= 0], exact[first >= 0])
        assert np.array_equal(low >= 0, exact >= floor) and np.array_equal(low[low >= 0], exact[low >= 0])
