"""Node stealing ([Du2024] §3, §4.2, §7): the toy example, SFSJ = H111, the timings T1-T3 on
cases worked by hand from first principles (Figs. 14-16, with the printed formulas where they
depart), the consecutive failures of §7.2.3 (Figs. 17-18), the criteria, and every variant's
runs through the validator.

Hand-worked cases: ``T = sqrt(2 (mu / p) C)`` with ``mu = 25``, ``C = 2``: a one-node job
checkpoints every ``T = 10`` of work (blocks of 12); ``R = 3``. Timelines read ``job: [start,
end) on nodes``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from coschedule.heuristics.batch import BATCH_POLICIES, get_batch_policy
from coschedule.heuristics.stealing import STEALING_POLICIES, NodeStealing
from hypothesis import given, settings
from hypothesis import strategies as st

from coschedule import data
from coschedule.batch import run_batch
from coschedule.errors import InvalidSchedule
from coschedule.sim.checkpointing import Checkpointing, StopPoint
from coschedule.sim.engine import Simulation
from coschedule.sim.failures import FailureTrace, poisson_failures, read_failures
from coschedule.sim.metrics import summarize, utilization
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload, read_batsim

VARIANTS = sorted(k for k in STEALING_POLICIES if k != "sfsj")
TOY = data.bundled_root() / "instances" / "batch"
CK = Checkpointing(cost=2.0, recovery=3.0, node_mtbf=25.0)  # T = 10 for one node


def workload(N: int, *jobs: tuple[float, int, float, float]) -> Workload:
    """Jobs ``(submit, nodes, wall, length)``, named A, B, C... in that order."""
    submit, nodes, wall, length = zip(*jobs)
    return Workload(tuple("ABCDEFGH"[: len(jobs)]), np.array(submit, dtype=float), np.array(nodes),
                    np.array(wall, dtype=float), np.array(length, dtype=float), N)


def trace(N: int, *failures: tuple[float, int]) -> FailureTrace:
    times, nodes = zip(*failures)
    return FailureTrace(np.array(times, dtype=float), np.array(nodes), N)


def run(policy, w, tr, *, downtime=100.0, ck=CK, knows_downtime=False):
    result = run_batch(w, policy, failures=tr, downtime=downtime, node_mtbf=ck.node_mtbf,
                       checkpoint_cost=ck.cost, recovery_cost=ck.recovery, knows_downtime=knows_downtime,
                       backend="reference")
    validate_run(result, failures=tr)
    return result


def timeline(result, job=None):
    """``(job, start, end, nodes, outcome, saved_after, proactive)`` of every attempt."""
    out = [(result.workload.ids[a.job], a.start, a.end, a.nodes, a.outcome, a.saved_after, a.proactive)
           for a in sorted(result.attempts, key=lambda a: (a.job, a.index))]
    return [x for x in out if job is None or x[0] == job]


# ----------------------------------------------------------------------------- names


def test_eighteen_variants_and_sfsj_in_the_registry():
    assert VARIANTS == [f"h{x}{y}{z}" for x in (1, 2, 3) for y in (1, 2) for z in (1, 2, 3)]
    for name in VARIANTS:
        p = get_batch_policy(name.upper())
        assert (p.timing, p.victim, p.criterion) == tuple(int(c) for c in name[1:])
        assert p.name == name and name in BATCH_POLICIES
    assert get_batch_policy("sfsj").name == "sfsj"
    assert type(get_batch_policy("sfsj")) is type(get_batch_policy("h111"))
    with pytest.raises(ValueError, match="timing must be 1..3"):
        NodeStealing(4, 1, 1)
    with pytest.raises(ValueError, match="victim_tiebreak must be one of release, runtime"):
        NodeStealing(victim_tiebreak="oldest")


# ----------------------------------------------------------------------------- §3 toy example


def toy(policy: str, knows_downtime: bool = False):
    w = read_batsim(TOY / "toy.json")
    f = read_failures(TOY / "toy-failures.csv", n_nodes=8)
    result = run_batch(w, policy, failures=f, downtime=5.0, knows_downtime=knows_downtime)
    validate_run(result, failures=f)
    return result


@pytest.mark.parametrize("knows_downtime", [False, True])
def test_toy_example_node_stealing(knows_downtime):
    """Table 1 and Fig. 2(c): J2 is the victim (not J1: same size and release, later in queue
    order); J3 restarts at 1 on P2 and P4..P8; J2 restarts at 6 on P3, back from its downtime;
    J4 runs [11, 21); J5 runs on P1 once J1 ends. Flows 8, 11, 11, 21, 10: mean 12.2, weighted
    mean 221/15, maximum 25 -> 21."""
    base, steal = toy("conservative", knows_downtime), toy("sfsj", knows_downtime)
    assert base.flow.tolist() == [8, 5, 15, 25, 3]
    assert steal.flow.tolist() == [8, 11, 11, 21, 10]
    flows = [Fraction(x) for x in steal.flow.tolist()]
    sizes = steal.workload.nodes.tolist()
    assert sum(flows) / 5 == Fraction(61, 5)
    assert sum(s * f for s, f in zip(sizes, flows)) / sum(sizes) == Fraction(221, 15)
    assert (max(base.flow), max(steal.flow)) == (25, 21)
    assert timeline(steal) == [
        ("J1", 0, 8, (0,), "completed", 0, 0),
        ("J2", 0, 1, (1,), "interrupted", 0, 0),
        ("J2", 6, 11, (2,), "completed", 0, 0),
        ("J3", 0, 1, (2, 3, 4, 5, 6, 7), "failed", 0, 0),
        ("J3", 1, 11, (1, 3, 4, 5, 6, 7), "completed", 0, 0),
        ("J4", 11, 21, (0, 1, 2, 3, 4, 5), "completed", 0, 0),
        ("J5", 8, 10, (0,), "completed", 0, 0),
    ]
    (s,) = steal.steals
    assert (s.decided, s.time, s.failed, s.victim, s.nodes, s.cancelled) == (1, 1, 2, 1, (1,), "")
    assert [f.reaction for f in steal.failures] == ["steal"]
    u = utilization(steal)
    assert (u.steals, u.replaced, u.waited) == (1, 0, 0)
    assert u.stealing == pytest.approx(1.0)  # J2's one unit of work, lost to the steal


def test_sfsj_is_h111_on_random_runs():
    for seed in range(6):
        w, tr, kw = random_case(seed)
        a, b = run("sfsj", w, tr, **kw), run("h111", w, tr, **kw)
        assert a.attempts == b.attempts and a.steals == b.steals and a.failures == b.failures
        assert a.policy == "sfsj" and b.policy == "h111"


# ----------------------------------------------------------------------------- stop points


def test_t2_stop_points_fig14_from_first_principles():
    """A victim restarted with R_first = 3 from position 6 (a proactive checkpoint left it a
    first period T_first = 4: its next checkpoint is at positions [10, 12)). Fig. 15's five
    cases, each from the layout: where the job is at t_fail, what is saved and when."""

    def sp(t_run):
        return CK.stop_point(2, t_run=t_run, recovery=3.0, saved=6.0, work=45.0, nodes=1, checkpoints=4)

    T, C, R, T_first = 10.0, 2.0, 3.0, 4.0
    t_first = R + T_first + C  # 9
    # case 1, in the recovery: nothing to save, stop at once, resubmitted unchanged
    assert sp(2.0) == StopPoint(0.0, 6.0)
    # case 2, in the first period: a proactive checkpoint saves position 8 (t_useful =
    # t_run - R_first = 2); T'_first = T_first - 2 = 2: the next checkpoint still starts at 10
    assert sp(5.0) == StopPoint(C, 8.0, proactive=True)
    assert 10.0 - sp(5.0).saved == T_first - (5.0 - R)
    # case 3, in the checkpoint after it: wait t_first - t_run = 1, saved T_first + C = 6 more
    assert sp(8.0) == StopPoint(t_first - 8.0, 12.0)
    # case 4, in a regular period: proactive, t_useful = t_run - R_first = 11, position 17;
    # T'_first = T - (t_run - t_first - 0) = 5: the next checkpoint starts at position 22
    assert sp(14.0) == StopPoint(C, 17.0, proactive=True)
    assert 22.0 - 17.0 == T - (14.0 - t_first)
    # case 5, in a regular checkpoint ([22, 24) at t_run 19..21): wait until it ends
    s5 = sp(20.0)
    assert s5 == StopPoint(1.0, 24.0)
    k = math.floor((20.0 - t_first) / (T + C))
    assert s5.wait == T + C - (20.0 - t_first - k * (T + C))  # the printed t_checkpoint holds
    printed = T_first + C + k * (T + C)  # the printed t_useful is one period short
    assert s5.saved - 6.0 == printed + (T + C) == 18.0


def test_t2_case5_example_of_the_issue():
    """R_first = 0, T = T_first = 10, C = 2, t_run = 23: the second checkpoint runs [22, 24),
    the job stops at 24 having saved 24; the printed case 5 gives t_useful = 12."""
    s = CK.stop_point(2, t_run=23.0, recovery=0.0, saved=0.0, work=45.0, nodes=1, checkpoints=4)
    assert s == StopPoint(1.0, 24.0)
    t_first = 12.0
    assert 10 + 2 + math.floor((23 - t_first) / 12) * 12 == 12  # as printed
    # eq. (4) as printed, t'_exec = R + t_exec - t_useful with t_exec = R_first + E - U, counts
    # R_first twice; from first principles the resubmission runs R + E - U'
    E = 45.0 + 4 * 2.0
    assert 3.0 + E - s.saved == 32.0


def test_t2_departures_at_the_boundaries():
    """At the very end of a regular checkpoint nothing is unsaved: stop at once (the printed
    case 4 would take a proactive checkpoint there); a checkpoint starting at t_fail serves as
    the one to wait for (case 2 as printed would take a proactive one with T'_first = 0)."""
    at_end = CK.stop_point(2, t_run=24.0, recovery=0.0, saved=0.0, work=45.0, nodes=1, checkpoints=4)
    assert at_end == StopPoint(0.0, 24.0)
    starting = CK.stop_point(2, t_run=10.0, recovery=0.0, saved=0.0, work=45.0, nodes=1, checkpoints=4)
    assert starting == StopPoint(2.0, 12.0)


def test_t2_victim_that_would_complete_first_and_without_checkpointing():
    near_end = CK.stop_point(2, t_run=52.0, recovery=0.0, saved=0.0, work=45.0, nodes=1, checkpoints=4)
    assert near_end == StopPoint(1.0, 53.0, completes=True)  # E = 53: it ends before C = 2
    none = Checkpointing()
    assert none.stop_point(2, t_run=5.0, recovery=0.0, saved=0.0, work=8.0, nodes=1, checkpoints=0) == StopPoint(0, 0)
    assert none.stop_point(3, t_run=5.0, recovery=0.0, saved=0.0, work=8.0, nodes=1,
                           checkpoints=0) == StopPoint(3.0, 8.0, completes=True)


def test_t3_stop_points_fig16():
    """T3: in the recovery, stop at once; otherwise at the end of the next regular checkpoint,
    t_checkpoint = R_first + ceil((t_run - R_first) / (T + C)) (T + C) - t_run (the printed
    formula holds, U = 0); a job with no checkpoint left completes first."""

    def sp(t_run, saved=0.0):
        return CK.stop_point(3, t_run=t_run, recovery=3.0, saved=saved, work=45.0, nodes=1, checkpoints=4)

    assert sp(2.0) == StopPoint(0.0, 0.0)
    for t_run in (5.0, 14.0, 16.0, 26.5):
        m = math.ceil((t_run - 3.0) / 12.0)
        assert sp(t_run) == StopPoint(3.0 + m * 12.0 - t_run, m * 12.0)
    assert sp(15.0) == StopPoint(0.0, 12.0)  # at a checkpoint's end: nothing unsaved
    assert sp(44.0) == StopPoint(7.0, 48.0)  # the fourth and last checkpoint ends at 48
    assert sp(52.0) == StopPoint(4.0, 53.0, completes=True)  # none left: it completes at 53


def test_stop_point_t1_is_at_once_even_inside_a_checkpoint():
    assert CK.stop_point(1, t_run=11.0, recovery=0.0, saved=0.0, work=45.0, nodes=1, checkpoints=4) == \
        StopPoint(0.0, 0.0)
    with pytest.raises(ValueError, match="timing must be 1, 2 or 3"):
        CK.stop_point(4, t_run=1.0, recovery=0.0, saved=0.0, work=45.0, nodes=1, checkpoints=4)


# ----------------------------------------------------------------------------- runs by hand
# With mu = 2500 (CK100): a one-node job checkpoints every T = 100 (blocks of 102), a 3-node
# one every 57.7. A: 3 nodes, length 50 (no checkpoint), wall 100 (extended to 102). V: 1 node,
# length 450, wall 900 (K = 4, E = 458; W = 916). A starts on nodes 0-2, V on node 3 (N = 4).
# Node 0 fails at 40 (down 1000): no node is free, V is the victim (1 < 3 nodes).

CK100 = Checkpointing(cost=2.0, recovery=3.0, node_mtbf=2500.0)
AV = workload(4, (0, 3, 100, 50), (0, 1, 900, 450))


def run100(policy, w, tr, **kw):
    return run(policy, w, tr, downtime=1000.0, ck=CK100, **kw)


def test_t1_interrupts_at_once():
    r = run100("h111", AV, trace(4, (40, 0)))
    assert timeline(r) == [
        ("A", 0, 40, (0, 1, 2), "failed", 0, 0),
        ("A", 40, 93, (1, 2, 3), "completed", 0, 0),  # R + E = 3 + 50
        ("B", 0, 40, (3,), "interrupted", 0, 0),  # no checkpoint yet: its 40 units are lost
        ("B", 93, 554, (1,), "completed", 0, 0),  # R + E = 3 + 458
    ]
    assert r.holds == ()


def test_t2_proactive_checkpoint_then_the_resubmission_resumes_its_period():
    """V checkpoints at 40 (position 40) until 42; A keeps nodes 1-2 over [40, 42), restarts
    at 42 on 1-3. V restarts at 95 with 3 + 458 - 40 = 421: T'_first = 60, its next checkpoint
    covers positions [100, 102), i.e. [158, 160) -- a failure at 159.5 finds nothing new
    saved, one at 160 finds 102."""
    r = run100("h211", AV, trace(4, (40, 0)))
    assert timeline(r) == [
        ("A", 0, 40, (0, 1, 2), "failed", 0, 0),
        ("A", 42, 95, (1, 2, 3), "completed", 0, 0),
        ("B", 0, 42, (3,), "interrupted", 40, 2),
        ("B", 95, 516, (1,), "completed", 40, 0),
    ]
    assert [(h.job, h.start, h.end, h.nodes) for h in r.holds] == [(0, 40, 42, (1, 2))]
    assert (r.steals[0].decided, r.steals[0].time, r.steals[0].timing) == (40, 42, 2)
    u = utilization(r)
    assert u.held == pytest.approx(2 * 2) and u.stealing == pytest.approx(2 + 3)  # its checkpoint, its R
    for t, saved in ((159.5, 40.0), (160.0, 102.0)):
        r2 = run100("h211", AV, trace(4, (40, 0), (t, 1)))
        assert timeline(r2, "B")[1][4:6] == ("failed", saved)


def test_t2_failure_inside_a_regular_checkpoint_waits_for_it():
    """V (here A: 1 node, from 0) checkpoints over [100, 102); B (3 nodes, from 95) fails at
    101: V stops at 102 having saved 102, no proactive checkpoint."""
    w = workload(4, (0, 1, 900, 450), (95, 3, 100, 50))
    r = run100("h211", w, trace(4, (101, 1)))
    assert timeline(r, "A")[0] == ("A", 0, 102, (0,), "interrupted", 102, 0)
    assert timeline(r, "B")[1] == ("B", 102, 155, (0, 2, 3), "completed", 0, 0)
    assert timeline(r, "A")[1] == ("A", 155, 514, (0,), "completed", 102, 0)  # 3 + 458 - 102


def test_t3_waits_for_the_next_regular_checkpoint():
    r = run100("h311", AV, trace(4, (40, 0)))
    assert timeline(r) == [
        ("A", 0, 40, (0, 1, 2), "failed", 0, 0),
        ("A", 102, 155, (1, 2, 3), "completed", 0, 0),
        ("B", 0, 102, (3,), "interrupted", 102, 0),
        ("B", 155, 514, (1,), "completed", 102, 0),  # 3 + 458 - 102
    ]
    assert [(h.start, h.end, h.nodes) for h in r.holds] == [(40, 102, (1, 2))]


def test_t3_victim_that_completes_first_hands_over_at_its_end():
    w = workload(4, (0, 3, 100, 50), (0, 1, 160, 80))  # V: no checkpoint, ends at 80
    r = run100("h311", w, trace(4, (40, 0)))
    assert timeline(r) == [
        ("A", 0, 40, (0, 1, 2), "failed", 0, 0),
        ("A", 80, 133, (1, 2, 3), "completed", 0, 0),
        ("B", 0, 80, (3,), "completed", 0, 0),
    ]
    assert (r.steals[0].time, r.steals[0].nodes) == (80, (3,))


def test_t3_victim_completes_as_one_of_its_nodes_fails():
    """V (nodes 3-4, no checkpoint) completes at 80 as its node 3 fails: node 4 is still up and
    idle, and A (keeping 1-2 since 40) takes it (the engine once took node 3, down, and raised)."""
    w = workload(5, (0, 3, 100, 50), (0, 2, 160, 80))
    r = run("h311", w, trace(5, (40, 0), (80, 3)), downtime=1000.0, ck=Checkpointing())
    assert [(s.decided, s.time, s.nodes, s.cancelled) for s in r.steals] == [(40, 80, (4,), "")]
    assert timeline(r, "A")[1][:4] == ("A", 80, 130, (1, 2, 4))


# ----------------------------------------------------------------------------- §7.2.3


def test_victim_fails_during_its_proactive_checkpoint():
    """Fig. 17, t_fail^2: the steal is cancelled, A goes back to the queue (releasing 1-2);
    V's failure then meets a free node (Algorithm 1): it restarts at once on node 1 from its
    last regular checkpoint (none: 0), its proactive checkpoint lost."""
    r = run100("h211", AV, trace(4, (40, 0), (41, 3)))
    (s,) = r.steals
    assert (s.cancelled, s.time) == ("the victim failed", 41)
    assert timeline(r, "B") == [("B", 0, 41, (3,), "failed", 0, 1), ("B", 41, 502, (1,), "completed", 0, 0)]
    assert [f.reaction for f in r.failures] == ["steal", "spare"]


def test_failed_job_loses_more_nodes_than_the_victim_has():
    """Fig. 17, t_fail^4: a second node of A fails at 41: A has lost 2 nodes, V has 1: the
    steal is cancelled, A waits in the queue, V goes on after its proactive checkpoint, on the
    same node, without recovery (458 - 40 = 418 more)."""
    r = run100("h211", AV, trace(4, (40, 0), (41, 1)))
    assert r.steals[0].cancelled == "the failed job lost more nodes than the victim has"
    assert timeline(r, "B") == [("B", 0, 42, (3,), "checkpointed", 40, 2), ("B", 42, 460, (3,), "completed", 40, 0)]
    assert [f.reaction for f in r.failures] == ["steal", "held"]
    assert [(h.start, h.end, h.nodes) for h in r.holds] == [(40, 41, (1, 2))]


def test_the_same_victim_gives_as_many_nodes_as_were_lost():
    """Fig. 17, t_fail^5: V has 2 nodes; A loses a second node at 41: V gives both at 42."""
    w = workload(5, (0, 3, 100, 50), (0, 2, 900, 450))
    r = run100("h211", w, trace(5, (40, 0), (41, 1)))
    (s,) = r.steals
    assert (s.time, s.nodes, s.cancelled) == (42, (3, 4), "")
    assert timeline(r, "A")[1][:4] == ("A", 42, 95, (2, 3, 4))
    assert [(h.start, h.end, h.nodes) for h in r.holds] == [(40, 41, (1, 2)), (41, 42, (2,))]


def test_t3_victim_fails_while_waited_for():
    """Fig. 18, t_fail^1: V fails at 90, before its checkpoint ends at 102."""
    r = run100("h311", AV, trace(4, (40, 0), (90, 3)))
    assert r.steals[0].cancelled == "the victim failed"
    assert timeline(r, "B")[0] == ("B", 0, 90, (3,), "failed", 0, 0)


def test_no_surviving_node_no_waiting_steal():
    """A one-node failed job has nothing to keep: under T2/T3 it cannot wait for a stolen node
    (§7.2.1) and goes back to the queue; under T1 it steals at once (criterion K2 here)."""
    w = workload(2, (0, 1, 90, 45), (1, 1, 90, 45))
    for policy, stolen in (("h112", True), ("h212", False), ("h312", False)):
        r = run100(policy, w, trace(2, (5, 0)))
        assert any(not s.cancelled for s in r.steals) is stolen, policy
        if not stolen:
            assert r.steals[0].cancelled == "the failed job has no node left"


# ----------------------------------------------------------------------------- choices


def test_victim_choices_and_tiebreaks():
    """Running: A (3 nodes), C (1 node, released 0), B (2 nodes, released 1), D and E (1 node,
    released 2). V1: fewest nodes, latest release, then the later in queue order: E; V2:
    latest release, then fewest nodes: E too, then D once E is taken; V1 by running time: C,
    started last."""
    w = workload(8, (0, 3, 50, 40), (0, 1, 50, 40), (1, 2, 50, 40), (2, 1, 50, 40), (2, 1, 50, 40))
    sim = Simulation(w, NodeStealing(1, 1, 1))
    sim.policy.reset(sim)
    sim.now = 3.0
    for j, nodes in ((0, [0, 1, 2]), (1, [3]), (2, [4, 5]), (3, [6]), (4, [7])):
        sim.state[j] = 0
        sim.start(j, nodes)
    assert sim.policy.choose_victim(sim, 0) == 4
    sim.policy.victim = 2
    assert sim.policy.choose_victim(sim, 0) == 4
    sim.policy.victims[4] = None
    assert sim.policy.choose_victim(sim, 0) == 3
    sim.policy.victim, sim.policy.victims = 1, {}
    sim.start_time[3] = sim.start_time[4] = 1.0
    sim.policy.victim_tiebreak = "runtime"
    assert sim.policy.choose_victim(sim, 0) == 1


def test_k3_estimates_by_hand():
    """Toy example at t = 1 (no checkpoint, R = 0; node 2 down, out of the plan): waiting, J2
    ends at 5 (flow 5) and J3 starts at 5 (flow 15); stealing, J3 restarts at 1 (flow 11) and
    J2 fits at 8 when J1 ends (flow 13): 13 < 15, steal."""
    seen = []

    class Spy(NodeStealing):
        def estimate(self, sim, failed, victim, stop):
            out = super().estimate(sim, failed, victim, stop)
            seen.append((failed, victim, out))
            return out

    w = read_batsim(TOY / "toy.json")
    f = read_failures(TOY / "toy-failures.csv", n_nodes=8)
    r = Simulation(w, Spy(1, 1, 3), failures=f, downtime=5.0).run()
    assert seen == [(2, 1, ((11.0, 13.0), (15.0, 5.0)))]
    assert r.flow.tolist() == [8, 11, 11, 21, 10]


def test_k3_declines_when_the_victim_would_suffer_more():
    """AV at 40: waiting, V ends at 916 (its wall time, extended) and A (wall 3 + 102) fits
    then: flows 1021 and 916; stealing, A ends at 145 and V (wall 3 + 916) fits then: 145 and
    1064 > 1021: no steal."""
    seen = []

    class Spy(NodeStealing):
        def estimate(self, sim, failed, victim, stop):
            out = super().estimate(sim, failed, victim, stop)
            seen.append(out)
            return out

    r = Simulation(AV, Spy(1, 1, 3), failures=trace(4, (40, 0)), downtime=1000.0, checkpointing=CK100).run()
    assert seen == [((145.0, 1064.0), (1021.0, 916.0))]
    assert not r.steals and [f.reaction for f in r.failures] == ["wait"]


def test_k1_and_k2():
    assert run100("h112", AV, trace(4, (40, 0))).steals == ()  # V released at 0, not after A
    later = workload(4, (0, 3, 100, 50), (1, 1, 900, 450))
    assert len(run100("h112", later, trace(4, (40, 0))).steals) == 1
    same = workload(2, (0, 1, 100, 50), (0, 1, 900, 450))  # same size: K1 never steals
    assert run100("h111", same, trace(2, (40, 0))).steals == ()


@pytest.mark.parametrize("backend", ["reference", "kernel"])
def test_a_restarted_jobs_release_under_both_readings(backend):
    """5 nodes: A (1 node, released 0) on node 0, B (1 node, released 5) on 1, C (2 nodes,
    released 6) on 2-3. A fails at 10 and restarts at once on the spare node 4: resubmitted at
    10. C fails at 20 and no node is free. V1 (fewest nodes, latest release) picks A when a
    restarted job's release is its resubmission (10 > 5), B when it is its first submission
    (5 > 0). K2 (H112) steals from A (released 10, after C's 6) but not from B (5 < 6)."""
    w = workload(5, (0, 1, 200, 100), (5, 1, 200, 100), (6, 2, 200, 100))
    tr = trace(5, (10, 0), (20, 2))
    victims = {}
    for release in ("resubmission", "first"):
        for policy in ("sfsj", "h112"):
            r = run_batch(w, policy, failures=tr, downtime=1000.0, release=release, backend=backend)
            validate_run(r, failures=tr)
            assert [f.reaction for f in r.failures] == ["spare", "steal" if (policy, release) != ("h112", "first")
                                                         else "wait"]
            victims[policy, release] = [w.ids[s.victim] for s in r.steals]
    assert victims == {("sfsj", "resubmission"): ["A"], ("h112", "resubmission"): ["A"],
                       ("sfsj", "first"): ["B"], ("h112", "first"): []}
    with pytest.raises(ValueError, match="release must be one of resubmission, first"):
        run_batch(w, "sfsj", failures=tr, release="latest", backend=backend)


# ----------------------------------------------------------------------------- properties


def random_case(seed: int, *, roomy: bool = False):
    rng = np.random.default_rng(seed)
    N = int(rng.integers(2, 9))
    n = int(rng.integers(2, 10))
    if roomy:  # every job fits with a node to spare even with N/2 nodes down
        N = 8
        nodes = rng.integers(1, 2, n)
        n = min(n, 3)
        nodes = nodes[:n]
    else:
        nodes = rng.integers(1, N + 1, n)
    length = rng.integers(1, 60, n).astype(float)
    wall = np.ceil(length * rng.uniform(1, 3, n))
    submit = np.sort(rng.integers(0, 40, n)).astype(float)
    w = Workload(tuple(f"j{i}" for i in range(n)), submit, nodes, wall, length, N)
    mtbf = float(rng.choice([50.0, 200.0, 1000.0]))
    D = float(rng.choice([0.0, 3.0, 20.0]))
    C = float(rng.choice([0.0, 1.0, 4.0]))
    tr = poisson_failures(N, node_mtbf=mtbf, horizon=2000.0, downtime=D, seed=seed)
    if roomy:
        tr = FailureTrace(tr.times[:4], tr.nodes[:4], N)
    ck = Checkpointing(cost=C, node_mtbf=mtbf) if C else Checkpointing()
    return w, tr, {"downtime": D, "ck": ck}


@settings(deadline=None)
@given(seed=st.integers(0, 10**6), knows=st.booleans())
def test_every_variant_passes_the_validator(seed, knows):
    w, tr, kw = random_case(seed)
    for name in VARIANTS:
        result = run(name, w, tr, knows_downtime=knows, **kw)
        u = utilization(result)
        assert sum(u.parts().values()) == pytest.approx(u.capacity, rel=1e-9)
        useful = float((w.length * w.nodes).sum())
        assert utilization(result).useful == pytest.approx(useful, rel=1e-9, abs=1e-6)


@settings(deadline=None)
@given(seed=st.integers(0, 10**6))
def test_with_a_free_node_always_every_variant_is_baseline(seed):
    """At most 3 one-node jobs and 4 failures on 8 nodes: a free node is always there."""
    w, tr, kw = random_case(seed, roomy=True)
    base = run("conservative", w, tr, **kw)
    assert all(f.reaction in ("idle", "spare") for f in base.failures)
    for name in VARIANTS:
        r = run(name, w, tr, **kw)
        assert r.attempts == base.attempts and r.steals == () and r.holds == ()


# ----------------------------------------------------------------------------- the validator


def rejected(result, message):
    with pytest.raises(InvalidSchedule) as info:
        validate_run(result)
    assert re.search(message, str(info.value)), str(info.value)


def test_validator_catches_broken_steals():
    r = run100("h211", AV, trace(4, (40, 0)))
    victim = next(a for a in r.attempts if a.outcome == "interrupted")

    def with_attempt(**changes):
        return dataclasses.replace(r, attempts=tuple(dataclasses.replace(a, **changes) if a == victim else a
                                                     for a in r.attempts))

    rejected(with_attempt(proactive=1.0), "proactive checkpoint of 1, the checkpoint cost is 2")
    rejected(with_attempt(saved_after=39.0), "its proactive checkpoint saves where its work stopped, 40")
    rejected(dataclasses.replace(r, steals=()), "interrupted at 42, but no node was stolen from it then")
    rejected(dataclasses.replace(r, steals=(dataclasses.replace(r.steals[0], nodes=(2,)),)),
             "no attempt of the victim on nodes \\[2\\]")
    rejected(dataclasses.replace(r, holds=(dataclasses.replace(r.holds[0], nodes=(1, 3)),)),
             "node 3: .* overlaps|nodes \\[3\\] were not its failed attempt's")
    rejected(dataclasses.replace(r, holds=(dataclasses.replace(r.holds[0], end=43.0),)), "node 1: .* overlaps")
    cancelled = run100("h211", AV, trace(4, (40, 0), (41, 1)))
    moved = tuple(dataclasses.replace(a, nodes=(2,)) if a.job == 1 and a.index == 1 else a
                  for a in cancelled.attempts)
    rejected(dataclasses.replace(cancelled, attempts=moved), "after a proactive checkpoint it goes on at 42")


def test_validator_two_steals_for_one_job_at_one_instant():
    """Nodes 0 and 1 of A fail at one instant: A restarts at 10 on C's node (a first attempt over
    [10, 10), hit by the second failure), then on B's: each steal is checked against the attempt
    that holds its node, not the first to start then."""
    w = workload(5, (0, 3, 100, 50), (0, 1, 100, 50), (0, 1, 100, 50))
    r = run("sfsj", w, trace(5, (10, 0), (10, 1)), downtime=100.0, ck=Checkpointing())
    assert [(s.time, s.victim, s.nodes) for s in r.steals] == [(10, 2, (4,)), (10, 1, (3,))]
    assert timeline(r, "A")[1:3] == [("A", 10, 10, (1, 2, 4), "failed", 0, 0),
                                     ("A", 10, 60, (2, 3, 4), "completed", 0, 0)]


def test_summary_reports_the_steals():
    r = toy("sfsj")
    s = summarize(r, prune=0)
    text = s.table()
    assert "node stealing: 1 steals (0 cancelled)" in text and "stealing" in text
    d = s.to_dict()["utilization"]
    assert (d["steals"], d["replaced"], d["waited"]) == (1, 0, 0)
    assert "node stealing" not in summarize(toy("conservative"), prune=0).table()


def test_gantt_tells_stolen_from_failed():
    pytest.importorskip("matplotlib")
    from coschedule.plot import plot_batch_run

    r = run100("h211", AV, trace(4, (40, 0)))
    fig = plot_batch_run(r)
    ax = fig.axes[0]
    assert "1 failed, 1 stopped by node stealing" in ax.get_title()
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "attempt stopped by\nnode stealing" in legend and "nodes kept for\na stolen one" in legend
    toy_ax = plot_batch_run(toy("sfsj")).axes[0]
    assert "J2\nstolen" in [t.get_text() for t in toy_ax.texts]  # the victim, labelled so
