"""R-ShelfFill's ``refill`` option: what may run in a shelf's freed processors before its end
(Alg. 3's own job, §4.4's "failed jobs ... if they fit in", or any queued job), see
:mod:`coschedule.heuristics.rshelf` and docs/rigid.md."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_rigid_heuristics import RULES, by_index, check, rigid_cases, seeds, timeline

from coschedule.errors import UnknownName
from coschedule.heuristics import RIGID_HEURISTICS, r_shelf, r_shelf_fill
from coschedule.heuristics.rshelf import REFILLS
from coschedule.rigid import FailureScenario, RigidInstance, rigid_instance


def hand_instance() -> tuple[RigidInstance, FailureScenario]:
    """P = 3, queue in index order; (procs, time, failures):
    J0 (1, 1, 1), J1 (1, 5, 1), J2 (2, 1, 0), J3 (1, 4, 1), J4 (1, 1, 0)."""
    inst = rigid_instance([(1, 1.0), (1, 5.0), (2, 1.0), (1, 4.0), (1, 1.0)], 3)
    return inst, FailureScenario((1, 1, 0, 1, 0))


def test_refill_own_is_algorithm_3():
    """Shelf 1 at 0 (First-Fit): J0, J1, J3 (J2 needs 2 of the 1 left): T_1 = 5.
        J0 F at 1, 1 + 1 <= 5: re-executes [1,2) S.  J3 F at 4 (4 + 4 > 5) and J1 F at 5
        (5 + 5 > 5) go back to the queue.
    Shelf 2 at 5: J1, J2 (full): T_2 = 10; J2 S at 6, J1 S at 10.
    Shelf 3 at 10: J3, J4: J4 S at 11, J3 S at 14                              -> 14
    """
    inst, sc = hand_instance()
    s = r_shelf_fill(inst, sc, priority=by_index)
    assert s == r_shelf_fill(inst, sc, priority=by_index, refill="own")
    assert check(inst, sc, s) == 14.0
    assert timeline(s) == [
        (0, 0, 0.0, 1.0, "F"), (0, 1, 1.0, 2.0, "S"),
        (1, 0, 0.0, 5.0, "F"), (1, 1, 5.0, 10.0, "S"),
        (2, 0, 5.0, 6.0, "S"),
        (3, 0, 0.0, 4.0, "F"), (3, 1, 10.0, 14.0, "S"),
        (4, 0, 10.0, 11.0, "S"),
    ]


def test_refill_failed_runs_a_waiting_failed_job_in_a_later_shelf():
    """Shelf 1 as with "own" (J0 refills at 1 on its processor); J3 F at 4 cannot end by 5.
    Shelf 2 at 5: J1, J2: T_2 = 10. J2 S at 6 frees 2 processors: J3, failed and waiting,
        fits (1 proc) and ends by T_2 (6 + 4 = 10 <= 10): [6,10) S. J4 never ran: it waits.
    Shelf 3 at 10: J4 [10,11)                                                  -> 11
    """
    inst, sc = hand_instance()
    s = r_shelf_fill(inst, sc, priority=by_index, refill="failed")
    assert check(inst, sc, s) == 11.0
    assert timeline(s) == [
        (0, 0, 0.0, 1.0, "F"), (0, 1, 1.0, 2.0, "S"),
        (1, 0, 0.0, 5.0, "F"), (1, 1, 5.0, 10.0, "S"),
        (2, 0, 5.0, 6.0, "S"),
        (3, 0, 0.0, 4.0, "F"), (3, 1, 6.0, 10.0, "S"),
        (4, 0, 10.0, 11.0, "S"),
    ]


def test_refill_queue_also_starts_never_run_jobs_inside_a_shelf():
    """Shelf 1 at 0: J0, J1, J3; T_1 = 5.
        1: J0 F, re-executes [1,2).  2: J0 S frees 1: J4 (1, 1) ends by 5: [2,3).
        4: J3 F frees 1 (2 free): J2 (2, 1) ends at 5 <= 5: [4,5); J3 (4 + 4 > 5) waits.
        5: J1 F, J2 S: the shelf is over.
    Shelf 2 at 5: J1, J3: J3 S at 9, J1 S at 10                                 -> 10
    """
    inst, sc = hand_instance()
    s = r_shelf_fill(inst, sc, priority=by_index, refill="queue")
    assert check(inst, sc, s) == 10.0
    assert timeline(s) == [
        (0, 0, 0.0, 1.0, "F"), (0, 1, 1.0, 2.0, "S"),
        (1, 0, 0.0, 5.0, "F"), (1, 1, 5.0, 10.0, "S"),
        (2, 0, 4.0, 5.0, "S"),
        (3, 0, 0.0, 4.0, "F"), (3, 1, 5.0, 9.0, "S"),
        (4, 0, 2.0, 3.0, "S"),
    ]


def test_registry_names_are_the_refill_readings():
    inst, sc = hand_instance()
    for b, backfill in (("b", True), ("nb", False)):
        for refill in ("failed", "queue"):
            got = RIGID_HEURISTICS[f"r-shelffill-{b}-{refill}"](inst, sc, priority=by_index)
            assert got == r_shelf_fill(inst, sc, backfill=backfill, priority=by_index, refill=refill)


def test_unknown_refill_is_rejected():
    inst, sc = hand_instance()
    with pytest.raises(UnknownName, match="own.*failed.*queue"):
        r_shelf_fill(inst, sc, refill="all")


@given(case=rigid_cases(), backfill=st.booleans(), priority=st.sampled_from(RULES), seed=seeds)
def test_every_refill_schedule_is_valid(case, backfill, priority, seed):
    """The validator accepts every schedule of every reading. Without failures "own" and
    "failed" are R-Shelf (NFDH / FFDH): nothing fails, so nothing refills; "queue" is not
    (it starts never-run jobs inside a shelf)."""
    instance, scenario = case
    for refill in REFILLS:
        s = r_shelf_fill(instance, scenario, backfill=backfill, priority=priority, seed=seed, refill=refill)
        check(instance, scenario, s)
    none = FailureScenario.none(instance.n)
    plain = r_shelf(instance, none, backfill=backfill, priority=priority, seed=seed)
    for refill in ("own", "failed"):
        s = r_shelf_fill(instance, none, backfill=backfill, priority=priority, seed=seed, refill=refill)
        assert s == plain


@given(case=rigid_cases(max_failures=0), priority=st.sampled_from(RULES), seed=seeds)
def test_failed_is_own_when_every_job_fits_in_one_shelf_and_fails_once(case, priority, seed):
    """All jobs in shelf 1, each failing once: a failed job that cannot end by T_1 when it fails
    never can later, and the ones that can fit on their own processors; so "failed" re-runs
    exactly Alg. 3's jobs, and shelf 2 (the rest, which all fit) is the same too."""
    instance, _ = case
    if sum(j.procs for j in instance.jobs) > instance.P:
        return
    sc = FailureScenario((1,) * instance.n)
    own = r_shelf_fill(instance, sc, priority=priority, seed=seed)
    failed = r_shelf_fill(instance, sc, priority=priority, seed=seed, refill="failed")
    assert check(instance, sc, own) == pytest.approx(check(instance, sc, failed), rel=1e-12)
