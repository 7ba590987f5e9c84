"""R-List with kept reservations (``r_list(..., reservations="kept")``, NOTE 1).

The authors' simulator never revokes a reservation and fits failed jobs around the pending ones;
our default makes a fresh round at every completion instant (the §4.1 analysis). Checked here:
valid schedules above ``L(f)`` on random, tie-rich and decimal instances; the same schedule as
fresh rounds for ``m = "Q"`` without failures; hand-worked timelines where the two differ after
a failure; the registry names and :func:`coschedule.heuristics.fast.makespans` (reference only).
Timelines read ``job: [start, end) F|S`` (F = failed attempt, S = success).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import SolverUnavailable
from coschedule.generators import random_rigid, synthetic_rigid
from coschedule.rigid import (
    FailureScenario,
    RigidInstance,
    RigidJob,
    SilentErrors,
    lower_bound,
    rigid_instance,
)
from coschedule.schedule import Outcome
from coschedule.validate import validate_rigid
from coschedule.heuristics import RIGID_HEURISTICS, r_list
from coschedule.heuristics.fast import FAST_HEURISTICS, KERNEL_HEURISTICS, makespans
from coschedule.heuristics.priorities import PRIORITIES

RULES = sorted(PRIORITIES)
REL = 1e-12


def by_index(instance: RigidInstance, rng: np.random.Generator) -> np.ndarray:
    """A priority rule: the queue in job-index order (to write examples in queue order)."""
    return np.arange(instance.n, dtype=float)


def tied_instance(n: int, P: int, seed: int) -> RigidInstance:
    """Integral times 1..3: many equal keys and simultaneous completions."""
    rng = np.random.default_rng(seed)
    procs = rng.integers(1, P, endpoint=True, size=n)
    times = rng.integers(1, 3, endpoint=True, size=n)
    return RigidInstance(tuple(RigidJob(int(p), float(t)) for p, t in zip(procs, times)), P)


def decimal_instance(n: int, P: int, seed: int) -> RigidInstance:
    """Times 0.1, 0.2, 0.3, 0.7: sums such as 0.1 + 0.2 and 0.3 meet only within the tolerance."""
    rng = np.random.default_rng(seed)
    procs = rng.integers(1, P, endpoint=True, size=n)
    times = rng.choice([0.1, 0.2, 0.3, 0.7], size=n)
    return RigidInstance(tuple(RigidJob(int(p), float(t)) for p, t in zip(procs, times)), P)


def make(kind: str, n: int, P: int, seed: int) -> RigidInstance:
    if kind == "integral":
        return random_rigid(n, P, seed=seed, integral=True)
    if kind == "real":
        return random_rigid(n, P, seed=seed)
    if kind == "tied":
        return tied_instance(n, P, seed)
    return decimal_instance(n, P, seed)


def check(instance, scenario, schedule) -> float:
    """Valid, ``f_j + 1`` attempts per job, and ``T >= L(f)`` (Prop. 2's lower bound)."""
    T = validate_rigid(instance, scenario, schedule)
    assert len(schedule.executions) == instance.n + scenario.total_failures
    assert T >= lower_bound(instance, scenario) * (1 - REL)
    return T


def timeline(schedule) -> dict[int, list[tuple[float, float, str]]]:
    out: dict[int, list[tuple[float, float, str]]] = {}
    for e in sorted(schedule.executions, key=lambda e: (e.job, e.attempt)):
        out.setdefault(e.job, []).append((e.start, e.end, "S" if e.outcome is Outcome.SUCCESS else "F"))
    return out


# ---------------------------------------------------------------- valid schedules


@pytest.mark.parametrize("kind", ["integral", "real", "tied", "decimal"])
@pytest.mark.parametrize("m", [1, "Q"])
def test_kept_is_valid_on_seeded_instances(kind, m):
    """Ties (integral times), real times and decimal sums meeting within the tolerance; many
    failures; every priority rule."""
    for seed in range(40):
        rng = np.random.default_rng(seed)
        inst = make(kind, int(rng.integers(1, 25)), int(rng.integers(1, 12)), seed)
        for f in rng.integers(0, 4, endpoint=True, size=(3, inst.n)):
            sc = FailureScenario(tuple(int(x) for x in f))
            for priority in RULES:
                check(inst, sc, r_list(inst, sc, m=m, priority=priority, seed=seed, reservations="kept"))


@pytest.mark.parametrize("m", [1, "Q"])
def test_kept_is_valid_on_silent_error_scenarios(m):
    """The §5.1 setting (synthetic jobs, P = 10000 and a smaller platform), sampled scenarios."""
    for seed, P, qbar in ((1, 10000, 0.5), (2, 3000, 0.7)):
        inst = synthetic_rigid(40, P, seed=seed)
        for f in SilentErrors.from_qbar(inst, qbar).sample(inst, size=3, seed=seed):
            sc = FailureScenario(tuple(int(x) for x in f))
            for priority in ("LPT", "LA", "RANDOM"):
                check(inst, sc, r_list(inst, sc, m=m, priority=priority, seed=seed, reservations="kept"))


@st.composite
def rigid_cases(draw, *, n=(1, 10), P=(1, 12), max_failures=3):
    """An instance (integral or real times) and a scenario."""
    P_ = draw(st.integers(*P))
    n_ = draw(st.integers(*n))
    times = st.integers(1, 8).map(float) if draw(st.booleans()) else st.floats(0.1, 10.0)
    jobs = tuple(RigidJob(draw(st.integers(1, P_)), draw(times)) for _ in range(n_))
    failures = tuple(draw(st.integers(0, max_failures)) for _ in range(n_))
    return RigidInstance(jobs, P_), FailureScenario(failures)


@given(rigid_cases(), st.sampled_from(["r-list-1-kept", "r-list-q-kept"]), st.sampled_from(RULES),
       st.integers(0, 2**32 - 1))
def test_kept_registry_entries_valid_and_above_lower_bound(case, name, priority, seed):
    instance, scenario = case
    check(instance, scenario, RIGID_HEURISTICS[name](instance, scenario, priority=priority, seed=seed))


@given(rigid_cases(n=(1, 8)), st.sampled_from([1, "Q"]), st.data())
def test_kept_decisions_do_not_anticipate_failures(case, m, data):
    """One more failure of job ``j`` changes nothing that starts before that attempt ends."""
    instance, scenario = case
    j = data.draw(st.integers(0, instance.n - 1))
    worse = list(scenario.failures)
    worse[j] += 1
    worse_scenario = FailureScenario(tuple(worse))
    a = r_list(instance, scenario, m=m, reservations="kept")
    b = r_list(instance, worse_scenario, m=m, reservations="kept")
    check(instance, worse_scenario, b)
    revealed = next(e.end for e in a.executions if e.job == j and e.outcome is Outcome.SUCCESS)

    def before(s):
        return sorted((e.job, e.attempt, e.start, e.end) for e in s.executions if e.start < revealed)

    assert before(a) == before(b)


# ---------------------------------------------------------------- kept == fresh without failures


@pytest.mark.parametrize("kind", ["integral", "real", "synthetic"])
def test_kept_equals_fresh_for_q_without_failures(kind):
    """Without failures a fresh round never moves a reservation, so R-List-Q is the plan made
    at time 0 either way. (Decimal times are left out: when completions meet only within the
    tolerance, a fresh round starts a job at the round's instant and may then move a later
    reservation by a rounding error, while kept reservations start at their reserved instant.)"""
    count = 0
    for seed in range(120):
        rng = np.random.default_rng(seed)
        if kind == "synthetic":
            inst = synthetic_rigid(int(rng.integers(1, 30)), int(rng.integers(2000, 10001)), seed=seed)
        else:
            inst = make(kind, int(rng.integers(1, 30)), int(rng.integers(1, 16)), seed)
        sc = FailureScenario((0,) * inst.n)
        for priority in RULES:
            kept = r_list(inst, sc, m="Q", priority=priority, seed=seed, reservations="kept")
            assert kept == r_list(inst, sc, m="Q", priority=priority, seed=seed), (kind, seed, priority)
            count += 1
    assert count == 120 * len(RULES)


def test_m_0_is_the_same_either_way():
    for seed in range(10):
        inst = tied_instance(15, 5, seed)
        sc = FailureScenario(tuple(int(x) for x in np.random.default_rng(seed).integers(0, 3, size=15)))
        assert r_list(inst, sc, m=0, reservations="kept") == r_list(inst, sc, m=0)


def test_bad_reservations_is_rejected():
    inst = rigid_instance([(1, 1.0)], 1)
    with pytest.raises(ValueError, match="reservations must be one of"):
        r_list(inst, FailureScenario((0,)), m=1, reservations="sticky")


# ---------------------------------------------------------------- hand-worked examples


def test_q_kept_fits_the_failed_job_around_kept_reservations():
    """P = 2, queue J0 J1 J2 (by index): J0 (1 proc, t 1) fails once, J1 (2 procs, t 1),
    J2 (1 proc, t 2).

    Round at 0 (both modes): J0 reserved at 0, starts [0,1); J1 needs both processors: reserved
    at 1 [1,2); J2 would overlap J1 before 2: reserved at 2 [2,4).
    At 1, J0 fails.

    Fresh: the reservations of J1 and J2 are dropped; the round from queue J0 J1 J2 gives J0
    [1,2) (starts), J1 at 2 [2,3), J2 at 3 [3,5) (it cannot run beside J1). Makespan 5.
    Kept: J1 starts at its reservation, [1,2); J2 keeps [2,4); J0, without reservation, gets
    the earliest fit around them: not at 1 (J1 takes both), at 2 beside J2, [2,3). Makespan 4.
    """
    inst = rigid_instance([(1, 1.0), (2, 1.0), (1, 2.0)], 2)
    sc = FailureScenario((1, 0, 0))
    fresh = r_list(inst, sc, m="Q", priority=by_index)
    kept = r_list(inst, sc, m="Q", priority=by_index, reservations="kept")
    assert timeline(fresh) == {0: [(0, 1, "F"), (1, 2, "S")], 1: [(2, 3, "S")], 2: [(3, 5, "S")]}
    assert timeline(kept) == {0: [(0, 1, "F"), (2, 3, "S")], 1: [(1, 2, "S")], 2: [(2, 4, "S")]}
    assert (check(inst, sc, fresh), check(inst, sc, kept)) == (5.0, 4.0)
    assert RIGID_HEURISTICS["r-list-q-kept"](inst, sc, priority=by_index) == kept


def test_1_kept_never_revokes_a_reservation():
    """P = 2, queue J0 J1 J2 J3 (by index): J0 (1 proc, t 2) fails once, J1 (1, t 1),
    J2 (2 procs, t 1) fails once, J3 (1, t 3) fails once. m = 1.

    Both modes: at 0 the head J0 starts [0,2), J1 is backfilled [0,1) (J2 needs 2 processors,
    J3 finds none free). At 1 (J1 done) J2 is reserved at 2; J3 [1,4) would delay it.
    At 2 J0 fails.

    Fresh: the round drops J2's reservation; the head J0 starts [2,4) and J3 is backfilled
    [2,5); J2 is reserved at 5 (round at 4), starts [5,6) F, then [6,7) S; J3 fails at 5 and
    runs [7,10). Makespan 10.
    Kept: J2 starts at its reservation [2,3); the first unreserved job, J0, is reserved at 3
    (J3 would delay it: not backfilled). At 3 J2 fails: J0 starts [3,5); J2 reserved at 5
    [5,6) S; J3 is reserved at 6 only (round at 5) and runs [6,9) F, [9,12) S. Makespan 12.
    """
    inst = rigid_instance([(1, 2.0), (1, 1.0), (2, 1.0), (1, 3.0)], 2)
    sc = FailureScenario((1, 0, 1, 1))
    fresh = r_list(inst, sc, m=1, priority=by_index)
    kept = r_list(inst, sc, m=1, priority=by_index, reservations="kept")
    assert timeline(fresh) == {
        0: [(0, 2, "F"), (2, 4, "S")],
        1: [(0, 1, "S")],
        2: [(5, 6, "F"), (6, 7, "S")],
        3: [(2, 5, "F"), (7, 10, "S")],
    }
    assert timeline(kept) == {
        0: [(0, 2, "F"), (3, 5, "S")],
        1: [(0, 1, "S")],
        2: [(2, 3, "F"), (5, 6, "S")],
        3: [(6, 9, "F"), (9, 12, "S")],
    }
    assert (check(inst, sc, fresh), check(inst, sc, kept)) == (10.0, 12.0)
    assert RIGID_HEURISTICS["r-list-1-kept"](inst, sc, priority=by_index) == kept


def test_1_kept_adds_a_reservation_while_another_is_pending(monkeypatch):
    """P = 3, queue J0 J1 J2 J3 (by index): J0 (1 proc, t 4), J1 (3 procs, t 1), J2 (1, t 1)
    fails twice, J3 (3 procs, t 1). m = 1, kept.

    At 0: the head J0 starts [0,4); J2 is backfilled [0,1) (J1 and J3 need 3 processors).
    At 1 (J2 fails): the first unreserved job J1 is reserved at 4; J2 is backfilled [1,2).
    At 2 (J2 fails): the first unreserved job is J2: it fits now, [2,3).
    At 3 (J2 succeeds): the first unreserved job J3 is reserved at 5 (J1 holds [4,5)), while
    J1's reservation is still pending: two reservations at once.
    At 4 J1 starts [4,5), at 5 J3 [5,6). Makespan 6.
    """
    from coschedule.heuristics import rlist

    pending = []
    real = rlist._kept_round

    def spy(run, queue, m, now, running, reserved):
        started = real(run, queue, m, now, running, reserved)
        pending.append((now, dict(reserved)))
        return started

    monkeypatch.setattr(rlist, "_kept_round", spy)
    inst = rigid_instance([(1, 4.0), (3, 1.0), (1, 1.0), (3, 1.0)], 3)
    sc = FailureScenario((0, 0, 2, 0))
    kept = r_list(inst, sc, m=1, priority=by_index, reservations="kept")
    assert pending == [(0.0, {}), (1.0, {1: 4.0}), (2.0, {1: 4.0}), (3.0, {1: 4.0, 3: 5.0}),
                       (4.0, {3: 5.0}), (5.0, {})]
    assert timeline(kept) == {
        0: [(0, 4, "S")],
        1: [(4, 5, "S")],
        2: [(0, 1, "F"), (1, 2, "F"), (2, 3, "S")],
        3: [(5, 6, "S")],
    }
    assert check(inst, sc, kept) == 6.0


# ---------------------------------------------------------------- registry and makespans()


def test_registry_and_fast_names():
    assert {"r-list-1-kept", "r-list-q-kept"} <= set(RIGID_HEURISTICS)
    assert set(FAST_HEURISTICS) == set(RIGID_HEURISTICS)
    assert "r-list-q-kept" not in KERNEL_HEURISTICS


@pytest.mark.parametrize("name", ["r-list-1-kept", "r-list-q-kept"])
def test_makespans_runs_the_reference(name):
    inst = synthetic_rigid(30, 3000, seed=3)
    f = SilentErrors.from_qbar(inst, 0.5).sample(inst, size=4, seed=4)
    fn = RIGID_HEURISTICS[name]
    want = np.array([fn(inst, FailureScenario(tuple(int(x) for x in row)), priority="LA").makespan for row in f])
    np.testing.assert_array_equal(makespans(inst, f, name, priority="LA"), want)
    np.testing.assert_array_equal(makespans(inst, f, name.upper(), priority="LA", backend="reference"), want)
    with pytest.raises(SolverUnavailable, match="no numba kernel"):
        makespans(inst, f, name, backend="numba")
