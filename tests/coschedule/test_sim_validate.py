"""The validator of executed online schedules (coschedule.sim.validate): it accepts what the
three batch policies execute on random workloads with failures and checkpointing, and rejects
hand-corrupted results, one rule at a time, with one line that names the culprit."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.batch import run_batch
from coschedule.errors import InvalidSchedule
from coschedule.sim import FailureTrace, Workload, read_batsim, read_failures
from coschedule.sim.engine import FailureRecord, SimulationResult
from coschedule.sim.validate import validate_run

BATCH = Path(__file__).resolve().parents[2] / "instances" / "batch"
POLICIES = ("fcfs", "easy", "conservative")


@st.composite
def batch_runs(draw: st.DrawFn) -> tuple[SimulationResult, FailureTrace]:
    """A small random run: workload, failures (with a downtime, possibly 0), checkpointing
    (Young/Daly periods of a few seconds, so that jobs checkpoint, fail and restart), a policy.
    Times are multiples of 1/4 so that ties happen."""
    N = draw(st.integers(1, 6))
    n = draw(st.integers(1, 7))
    quarter = st.integers(1, 160).map(lambda k: k / 4)
    submit = [draw(st.integers(0, 120)) / 4 for _ in range(n)]
    nodes = [draw(st.integers(1, N)) for _ in range(n)]
    length = [draw(quarter) for _ in range(n)]
    walltime = [L + draw(st.integers(0, 40)) / 4 for L in length]
    workload = Workload(tuple(f"j{k}" for k in range(n)), submit, nodes, walltime, length, N)
    k = draw(st.integers(0, 8))
    times = [draw(st.integers(0, 400)) / 4 for _ in range(k)]
    trace = FailureTrace(times, [draw(st.integers(0, N - 1)) for _ in range(k)], N)
    checkpointing = draw(st.booleans())
    result = run_batch(
        workload, draw(st.sampled_from(POLICIES)), failures=trace,
        downtime=draw(st.sampled_from([0.0, 2.5, 10.0])),
        node_mtbf=draw(st.sampled_from([8.0, 30.0, 200.0])) if checkpointing else None,
        checkpoint_cost=draw(st.sampled_from([0.5, 2.0])) if checkpointing else 0.0,
        recovery_cost=draw(st.sampled_from([None, 0.0, 1.25])) if checkpointing else None,
        final_checkpoint=draw(st.booleans()),
    )
    return result, trace


@given(batch_runs())
def test_the_three_policies_pass_the_validator(run):
    result, trace = run
    validate_run(result, failures=trace)


@pytest.mark.parametrize("policy", POLICIES)
def test_the_toy_example_passes(policy):
    trace = read_failures(BATCH / "toy-failures.csv", n_nodes=8)
    result = run_batch(read_batsim(BATCH / "toy.json"), policy, failures=trace, downtime=5)
    validate_run(result, failures=trace)


# ------------------------------------------------------------------ corrupted results
@pytest.fixture(scope="module")
def base():
    """A run with checkpointing whose attempts are known (4 nodes, C = 2, R = 3, D = 10):
    A (2 nodes, L = 100, T = 20, 4 checkpoints, E = 108) fails at 50 on node 0 after two
    checkpoints (U = 44) and restarts at once on nodes 1-2 for 3 + 108 - 44 = 67; B runs
    [5, 37) on node 2, C [117, 139) on all nodes."""
    workload = Workload(("A", "B", "C"), [0, 5, 10], [2, 1, 4], [120, 40, 30], [100, 30, 20], 4)
    trace = FailureTrace([50.0], [0], 4)
    result = run_batch(workload, "conservative", failures=trace, downtime=10, node_mtbf=200,
                       checkpoint_cost=2, recovery_cost=3)
    got = [(a.job, a.index, a.start, a.end, a.nodes, a.saved_after, a.outcome) for a in result.attempts]
    assert got == [(0, 0, 0, 50, (0, 1), 44, "failed"), (1, 0, 5, 37, (2,), 0, "completed"),
                   (0, 1, 50, 117, (1, 2), 44, "completed"), (2, 0, 117, 139, (0, 1, 2, 3), 0, "completed")]
    validate_run(result, failures=trace)
    return result


def attempt(result, which_job, which_attempt, /, **changes):
    """``result`` with attempt ``which_attempt`` of job index ``which_job`` changed."""
    attempts = tuple(dataclasses.replace(a, **changes) if (a.job, a.index) == (which_job, which_attempt) else a
                     for a in result.attempts)
    return dataclasses.replace(result, attempts=attempts)


def rejected(result, message, **kwargs):
    with pytest.raises(InvalidSchedule) as info:
        validate_run(result, **kwargs)
    text = str(info.value)
    assert "\n" not in text
    assert re.fullmatch(message, text), text


def test_overlapping_attempts_on_a_node(base):
    rejected(attempt(base, 1, 0, nodes=(1,)),
             r"node 1: job B attempt 0 \[5, 37\) overlaps job A attempt 0 \[0, 50\)")


def test_a_down_node_runs_nothing(base):
    # A restarts at 50 on node 0, down on [50, 60)
    rejected(attempt(base, 0, 1, nodes=(0, 1)),
             r"node 0: job A attempt 1 \[50, 117\) runs while the node down on \[50, 60\) \(failure at 50\)")


def test_a_node_fails_only_when_up(base):
    extra = FailureRecord(55.0, 0, 65.0, -1)
    rejected(dataclasses.replace(base, failures=base.failures + (extra,)),
             r"node 0: fails at 55 while down: the node down on \[55, 65\) .*overlaps the node down on \[50, 60\).*")


def test_a_failure_of_a_busy_node_ends_its_attempt(base):
    transient = dataclasses.replace(base, downtime=0.0,
                                    failures=(FailureRecord(50.0, 0, 50.0, 0), FailureRecord(20.0, 2, 20.0, -1)))
    rejected(transient, r"failure at 20 on node 2: job B attempt 0 runs there over \[5, 37\) and does not end then")


def test_a_failed_attempt_was_ended_by_a_failure(base):
    rejected(dataclasses.replace(base, failures=(FailureRecord(50.0, 0, 60.0, -1),)),
             r"job A attempt 0: failed at 50, but no failure of one of its nodes hit it then")
    rejected(dataclasses.replace(base, failures=(FailureRecord(50.0, 0, 60.0, 1),)),
             r"failure at 50 on node 0: it hit job B, which has no attempt on the node failed then")


def test_failure_records_downtime(base):
    rejected(dataclasses.replace(base, failures=(FailureRecord(50.0, 0, 55.0, 0),)),
             r"failure at 50 on node 0: back at 55, expected 60 \(downtime 10\)")
    rejected(dataclasses.replace(base, failures=(FailureRecord(50.0, 4, 60.0, 0),)),
             r"failure at 50 on node 4: the node does not exist \(nodes 0..3\)")


def test_no_start_before_submission(base):
    rejected(attempt(base, 1, 0, start=4.0), r"job B attempt 0: starts at 4, before its submission at 5")


def test_attempts_are_numbered_and_sequential(base):
    rejected(attempt(base, 0, 1, index=2), r"job A: attempts numbered \[0, 2\], expected 0..1")
    rejected(attempt(base, 0, 1, start=49.0), r"job A attempt 1: starts at 49, before attempt 0 ends at 50")


def test_one_completed_attempt_and_it_is_the_last(base):
    rejected(attempt(base, 0, 0, outcome="completed"), r"job A attempt 0: completed, yet attempt 1 follows")
    rejected(attempt(base, 0, 1, outcome="interrupted"),
             r"job A: no completed attempt \(the last, 1, interrupted at 117\)")
    rejected(attempt(base, 0, 1, outcome="lost"),
             r"job A attempt 1: outcome 'lost' is not one of completed, failed, interrupted, checkpointed, migrated")


def test_each_attempt_has_the_jobs_node_count(base):
    rejected(attempt(base, 0, 1, nodes=(1,)), r"job A attempt 1: runs on 1 nodes, the job has 2")
    rejected(attempt(base, 0, 1, nodes=(1, 1)), r"job A attempt 1: node 1 appears twice")
    rejected(attempt(base, 0, 1, nodes=(1, 7)), r"job A attempt 1: node 7 does not exist \(nodes 0..3\)")


def test_saved_time_after_a_failure(base):
    rejected(attempt(base, 0, 0, saved_after=22.0),
             r"job A attempt 0 \(failed at 50\): saved 22, the checkpoints completed by then give 44")
    rejected(attempt(base, 0, 1, saved_before=22.0),
             r"job A attempt 1: saved before 22, expected 44 \(what the previous attempts saved\)")


def test_recovery(base):
    rejected(attempt(base, 0, 1, recovery=0.0), r"job A attempt 1: recovery 0, expected R = 3 for a restart")
    rejected(attempt(base, 1, 0, recovery=3.0), r"job B attempt 0: recovery 3, expected 0 for a first attempt")


def test_completed_length(base):
    rejected(attempt(base, 0, 1, end=118.0),
             r"job A attempt 1 \(completed at 118\): runs 68, expected R \+ E - U = 3 \+ 108 - 44 = 67")
    longer = attempt(attempt(base, 0, 0, end=110.0), 0, 1, start=110.0)
    rejected(longer, r"job A attempt 0 \(failed at 110\): runs 110, longer than its R \+ E - U = 108")


def test_completion_matches(base):
    completion = base.completion.copy()
    completion[2] = 140.0
    rejected(dataclasses.replace(base, completion=completion),
             r"job C: completion 140, but its completed attempt ends at 139")


def test_every_job_completes(base):
    dropped = tuple(a for a in base.attempts if a.job != 1)
    rejected(dataclasses.replace(base, attempts=dropped), r"job B: no attempt \(every job must complete\)")


def test_the_trace_is_applied(base):
    more = FailureTrace([50.0, 30.0], [0, 3], 4)  # node 3 idle and up at 30
    rejected(base, r"failure at 30 on node 3 of the trace: not applied, though the node is up", failures=more)
    rejected(base, r"failure at 50 on node 0: not in the failure trace", failures=FailureTrace([51.0], [0], 4))
    validate_run(base, failures=FailureTrace([50.0, 55.0, 200.0], [0, 0, 1], 4))  # down at 55; after the run


def test_saved_time_with_a_final_checkpoint():
    """With ``final_checkpoint`` the last checkpoint sits at the end of the work (eq. (1))."""
    workload = Workload(("A",), [0], [1], [50], [30], 1)
    # T = sqrt(2 * 25 * 2) = 10: checkpoints after 10 and 20 of work, and at the end (E = 36);
    # the failure at 25 finds two blocks of 12 done (U = 24): the restart runs 1 + 36 - 24
    trace = FailureTrace([25.0], [0], 1)
    result = run_batch(workload, "fcfs", failures=trace, node_mtbf=25, checkpoint_cost=2,
                       recovery_cost=1, final_checkpoint=True)
    assert [(a.start, a.end, a.saved_after) for a in result.attempts] == [(0, 25, 24), (25, 38, 24)]
    assert np.array_equal(result.checkpoints, [3])
    validate_run(result, failures=trace)
    rejected(attempt(result, 0, 0, saved_after=12.0),
             r"job A attempt 0 \(failed at 25\): saved 12, the checkpoints completed by then give 24")
