"""The batch policies under node failures: the §3 toy example of [Du2024] and the failure
rules of :mod:`coschedule.heuristics.batch` on tiny cases worked by hand.

Timelines in the docstrings read ``job: [start, end) on nodes`` (nodes 0-based: the paper's
P_k is node k - 1).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from coschedule.heuristics.batch import Conservative

from coschedule import data
from coschedule.batch import run_batch
from coschedule.sim.checkpointing import Checkpointing
from coschedule.sim.engine import FailureRecord, Instant, Simulation
from coschedule.sim.failures import FailureTrace, read_failures
from coschedule.sim.workload import Workload, read_batsim

POLICIES = ["fcfs", "easy", "conservative"]


def workload(N: int, *jobs: tuple[float, int, float, float]) -> Workload:
    """Jobs ``(submit, nodes, wall, length)``, named A, B, C... in that order."""
    submit, nodes, wall, length = zip(*jobs)
    ids = tuple("ABCDEFGH"[: len(jobs)])
    return Workload(ids, np.array(submit, dtype=float), np.array(nodes), np.array(wall, dtype=float),
                    np.array(length, dtype=float), N)


def trace(N: int, *failures: tuple[float, int]) -> FailureTrace:
    times, nodes = zip(*failures)
    return FailureTrace(np.array(times, dtype=float), np.array(nodes), N)


def timeline(result) -> list[tuple[int, float, float, tuple[int, ...], str]]:
    """``(job, start, end, nodes, outcome)`` of every attempt, by job then attempt."""
    attempts = sorted(result.attempts, key=lambda a: (a.job, a.index))
    return [(a.job, a.start, a.end, a.nodes, a.outcome) for a in attempts]


# ----------------------------------------------------------------------------- §3 toy example

TOY = data.bundled_root() / "instances" / "batch"


def toy_run(policy: str = "conservative", *, failures: bool = True, knows_downtime: bool = True):
    w = read_batsim(TOY / "toy.json")
    f = read_failures(TOY / "toy-failures.csv", n_nodes=8) if failures else None
    return run_batch(w, policy, failures=f, downtime=5.0, knows_downtime=knows_downtime)


@pytest.mark.parametrize("knows_downtime", [True, False])
def test_toy_example_baseline_flows(knows_downtime: bool) -> None:
    """Table 1, "without node stealing": flows 8, 5, 15, 25, 3; mean 11.2; the weighted mean
    is 256/15 (the paper prints 17)."""
    result = toy_run(knows_downtime=knows_downtime)
    assert result.flow.tolist() == [8.0, 5.0, 15.0, 25.0, 3.0]
    flows = [Fraction(x) for x in result.flow.tolist()]
    sizes = result.workload.nodes.tolist()
    assert sum(flows) / len(flows) == Fraction(56, 5)
    assert sum(s * f for s, f in zip(sizes, flows)) / sum(sizes) == Fraction(256, 15)


@pytest.mark.parametrize("knows_downtime", [True, False])
def test_toy_example_baseline_timeline(knows_downtime: bool) -> None:
    """§3 and Figure 2(b): J3 fails at t = 1 (P3 down until 6) and restarts at 5 on P2 and
    P4..P8; J5 is backfilled at t = 1 (on the lowest free node, P4; the figure draws P6); J4
    runs [15, 25)."""
    result = toy_run(knows_downtime=knows_downtime)
    assert timeline(result) == [
        (0, 0.0, 8.0, (0,), "completed"),
        (1, 0.0, 5.0, (1,), "completed"),
        (2, 0.0, 1.0, (2, 3, 4, 5, 6, 7), "failed"),
        (2, 5.0, 15.0, (1, 3, 4, 5, 6, 7), "completed"),
        (3, 15.0, 25.0, (0, 1, 2, 3, 4, 5), "completed"),
        (4, 1.0, 3.0, (3,), "completed"),
    ]
    assert result.failures == (FailureRecord(1.0, 2, 6.0, 2, idle=0, reaction="wait"),)  # no free node (§3)


def test_toy_example_failure_free() -> None:
    """Figure 2(a): J4 at 10 on P1..P6, J5 backfilled at 5: flows 8, 5, 10, 20, 7."""
    result = toy_run(failures=False)
    assert result.flow.tolist() == [8.0, 5.0, 10.0, 20.0, 7.0]
    assert result.first_start.tolist() == [0.0, 0.0, 0.0, 10.0, 5.0]
    assert result.restarts == 0


# ----------------------------------------------------------------------------- failure rules


@pytest.mark.parametrize("policy", POLICIES)
def test_failed_job_restarts_at_once_with_a_free_node(policy: str) -> None:
    """4 nodes. A: 2 nodes [0, 10) on 0, 1; node 0 fails at 3 (down until 8). Nodes 2 and 3
    are free: A restarts at 3 on its surviving node 1 plus the lowest free node, 2."""
    w = workload(4, (0, 2, 10, 10))
    result = run_batch(w, policy, failures=trace(4, (3, 0)), downtime=5.0)
    assert timeline(result) == [
        (0, 0.0, 3.0, (0, 1), "failed"),
        (0, 3.0, 13.0, (1, 2), "completed"),
    ]


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_failed_job_without_a_free_node_waits_ahead_of_regular_jobs(policy: str) -> None:
    """(The backfilling policies: under strict FCFS no running job was submitted after a
    waiting one, so first submission alone puts a failed job first.)

    3 nodes. C: 2 nodes, runs [0, 5) but its wall time is 20; X: 2 nodes, wall 5, submitted
    at 1, waits; A: 1 node, wall 10, submitted at 2, backfilled at 2 on node 2. Node 2 fails at
    3 (down until 13): no free node, so A releases its nodes and waits with priority 3. At 5
    (C ends) A goes first although X was submitted before it: A [5, 15) on node 0; X needs 2
    nodes, has them when node 2 is back: [13, 18) on nodes 1, 2."""
    w = workload(3, (0, 2, 20, 5), (1, 2, 5, 5), (2, 1, 10, 10))
    result = run_batch(w, policy, failures=trace(3, (3, 2)), downtime=10.0)
    assert timeline(result) == [
        (0, 0.0, 5.0, (0, 1), "completed"),
        (1, 13.0, 18.0, (1, 2), "completed"),
        (2, 2.0, 3.0, (2,), "failed"),
        (2, 5.0, 15.0, (0,), "completed"),
    ]


@pytest.mark.parametrize("policy", POLICIES)
def test_two_failed_jobs_are_ordered_by_their_release(policy: str) -> None:
    """2 nodes. A (submitted at 0) on node 0, B (submitted at 1) on node 1, both 1 node for 10.
    B fails first (node 1 at 2, back at 12), then A (node 0 at 3, back at 13); no free node
    either time, so each is resubmitted at its failure. With the resubmission as the release
    (the default) B, resubmitted at 2, takes the first node back: B [12, 22) on 1, A [13, 23)
    on 0. With the first submission (``release="first"``) A, submitted at 0, does: A [12, 22)
    on 1, B [13, 23) on 0."""
    w = workload(2, (0, 1, 10, 10), (1, 1, 10, 10))
    tr = trace(2, (2, 1), (3, 0))
    assert timeline(run_batch(w, policy, failures=tr, downtime=10.0)) == [
        (0, 0.0, 3.0, (0,), "failed"),
        (0, 13.0, 23.0, (0,), "completed"),
        (1, 1.0, 2.0, (1,), "failed"),
        (1, 12.0, 22.0, (1,), "completed"),
    ]
    assert timeline(run_batch(w, policy, failures=tr, downtime=10.0, release="first")) == [
        (0, 0.0, 3.0, (0,), "failed"),
        (0, 12.0, 22.0, (1,), "completed"),
        (1, 1.0, 2.0, (1,), "failed"),
        (1, 13.0, 23.0, (0,), "completed"),
    ]


@pytest.mark.parametrize("policy", POLICIES)
def test_failures_on_an_idle_node_and_on_a_down_node(policy: str) -> None:
    """2 nodes. A: 1 node [0, 10) on node 0. Node 1, idle, fails at 1: it is only taken down
    (until 6). It fails again at 3, while down: ignored (it is back at 6, not 8). B: 1 node,
    submitted at 4, waits for node 1: [6, 8)."""
    w = workload(2, (0, 1, 10, 10), (4, 1, 2, 2))
    result = run_batch(w, policy, failures=trace(2, (1, 1), (3, 1)), downtime=5.0)
    assert result.failures == (FailureRecord(1.0, 1, 6.0, -1, idle=0, reaction="idle"),)  # node 0 runs A
    assert timeline(result) == [
        (0, 0.0, 10.0, (0,), "completed"),
        (1, 6.0, 8.0, (1,), "completed"),
    ]


@pytest.mark.parametrize("policy", POLICIES)
def test_a_job_ending_when_its_node_fails_has_completed(policy: str) -> None:
    """1 node. A: [0, 5); the node fails at 5, down until 8. A has completed (the failure hits
    an idle node); B, waiting, starts when the node is back."""
    w = workload(1, (0, 1, 5, 5), (0, 1, 1, 1))
    result = run_batch(w, policy, failures=trace(1, (5, 0)), downtime=3.0)
    assert result.failures == (FailureRecord(5.0, 0, 8.0, -1, idle=0, reaction="idle"),)
    assert timeline(result) == [
        (0, 0.0, 5.0, (0,), "completed"),
        (1, 8.0, 9.0, (0,), "completed"),
    ]
    assert result.restarts == 0


class RecordingConservative(Conservative):
    """Conservative backfilling recording each job's first reservation."""

    def reset(self, sim: Simulation) -> None:
        super().reset(sim)
        self.first: dict[int, float] = {}

    def decide(self, sim: Simulation, instant: Instant) -> None:
        super().decide(sim, instant)
        for j, s in self.reserved.items():
            self.first.setdefault(j, s)


def test_checkpointed_job_restarts_with_what_it_saved() -> None:
    """C = R = 1, node MTBF 8: a 1-node job checkpoints every T = sqrt(2 * 8 * 1) = 4 units of
    work. A: length 10 (2 checkpoints, E = 12), wall 12 (2 checkpoints, W = 14), on node 0 of 2.
    Node 0 fails at 11: two blocks of T + C = 5 are saved, U = 10. A restarts at once on node 1
    and runs R + E - U = 3, to 14, with the wall time R + W - U = 5. B (2 nodes, submitted at
    12; node 0 is back at 13) is reserved at 11 + 5 = 16, and starts at 14 when A ends."""
    w = workload(2, (0, 1, 12, 10), (12, 2, 1, 1))
    failures = trace(2, (11, 0))
    result = run_batch(w, "conservative", failures=failures, downtime=2.0, checkpoint_cost=1.0, node_mtbf=8.0,
                       knows_downtime=True)
    assert result.length.tolist()[0] == 12.0 and result.walltime.tolist()[0] == 14.0
    attempts = [a for a in result.attempts if a.job == 0]
    assert [(a.start, a.end, a.nodes, a.recovery, a.saved_before, a.saved_after, a.outcome) for a in attempts] == [
        (0.0, 11.0, (0,), 0.0, 0.0, 10.0, "failed"),
        (11.0, 14.0, (1,), 1.0, 10.0, 10.0, "completed"),
    ]
    assert result.first_start.tolist()[1] == 14.0

    policy = RecordingConservative(knows_downtime=True)
    sim = Simulation(w, policy, failures=failures, downtime=2.0,
                     checkpointing=Checkpointing(cost=1.0, node_mtbf=8.0))
    sim.run()
    assert sim.exec[0] == 3.0 and sim.wall[0] == 5.0
    assert policy.first[1] == 16.0


@pytest.mark.parametrize("policy", POLICIES)
def test_checkpointed_job_without_a_free_node_restarts_later(policy: str) -> None:
    """1 node, the same job A (C = R = 1, MTBF 8, E = 12): the node fails at 11, down until 13.
    A releases it, waits, and restarts when it is back: [13, 16), R + E - U = 3."""
    w = workload(1, (0, 1, 12, 10))
    result = run_batch(w, policy, failures=trace(1, (11, 0)), downtime=2.0, checkpoint_cost=1.0, node_mtbf=8.0)
    assert timeline(result) == [
        (0, 0.0, 11.0, (0,), "failed"),
        (0, 13.0, 16.0, (0,), "completed"),
    ]


# ----------------------------------------------------------------------------- recoveries


def test_a_planned_recovery_delays_no_reservation() -> None:
    """With ``knows_downtime`` the plan already holds the instant a down node comes back, so
    that instant brings no news and no reservation may move later (regression: the plan was
    recomputed from scratch there, in queue order, and a job due to start at that very
    instant was pushed back).

    2 nodes; node 0 fails at 1, back at 3. A (1 node, wall 8) starts at 1 on node 1 and ends
    at 3; B (2 nodes, wall 2) is planned at 9; C (1 node, wall 3, submitted at 2) is
    reserved at 3, when node 0 is back. At 3 A ends and node 0 is back: compression moves B
    to 6 (after C); C starts at 3, as reserved."""
    w = workload(2, (1, 1, 8, 2), (1, 2, 2, 2), (2, 1, 3, 3))
    policy = RecordingConservative(knows_downtime=True)
    result = run_batch(w, policy, failures=trace(2, (1, 0)), downtime=2.0)
    assert policy.first[2] == 3.0
    assert result.first_start.tolist() == [1.0, 6.0, 3.0]
