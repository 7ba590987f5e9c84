"""The lower-bound families of Propositions 3 and 4 ([Benoit2021] §4.4)."""

from __future__ import annotations

import math

import pytest

from coschedule.errors import InvalidInstance
from coschedule.families import (
    PROP3_MAX_P,
    PROP4_MAX_JOBS,
    prop3_claims,
    prop3_instance,
    prop3_witness_schedule,
    prop4_claims,
    prop4_instance,
    prop4_sets,
    prop4_witness_schedule,
)
from coschedule.rigid import lower_bound, t_max, total_area
from coschedule.schedule import Outcome
from coschedule.validate import validate_rigid

PS = [1, 2, 3, 4, 5]
#: rounding slack of makespans accumulated over up to P^(P-1) attempts
RTOL = 1e-9


# ------------------------------------------------------------------ Proposition 3


@pytest.mark.parametrize("P", [1, 2, 3, 4, 10, 50])
def test_prop3_family(P):
    inst, f = prop3_instance(P)
    assert inst.n == P and inst.P == P
    assert all(job.procs == 1 for job in inst.jobs)
    assert [job.time for job in inst.jobs] == [1.0 / j for j in range(1, P + 1)]
    assert f.failures == tuple(range(P))  # f_j = j - 1
    assert [job.name for job in inst.jobs] == [f"J{j}" for j in range(1, P + 1)]
    f.check(inst)


@pytest.mark.parametrize("P", [1, 2, 3, 4, 10, 50])
def test_prop3_witness(P):
    inst, f = prop3_instance(P)
    sched = prop3_witness_schedule(P)
    makespan = validate_rigid(inst, f, sched, contiguous=True)
    assert math.isclose(makespan, 1.0, rel_tol=RTOL)
    assert len(sched.executions) == P * (P + 1) // 2
    lb = lower_bound(inst, f)
    assert lb <= makespan * (1 + RTOL)
    assert math.isclose(t_max(inst, f), 1.0, rel_tol=RTOL)  # the witness is optimal


@pytest.mark.parametrize("P", [1, 2, 3, 4, 10, 50])
def test_prop3_claims(P):
    shelf, opt = prop3_claims(P)
    assert math.isclose(shelf, sum(1.0 / j for j in range(1, P + 1)))
    assert opt == 1.0
    inst, f = prop3_instance(P)
    # the claimed optimum is attained by the witness and matches the lower bound L(f)
    assert math.isclose(prop3_witness_schedule(P).makespan, opt, rel_tol=RTOL)
    assert math.isclose(lower_bound(inst, f), opt, rel_tol=RTOL)
    # Theta(ln P): ln(P+1) <= H_P <= 1 + ln P
    assert math.log(P + 1) <= shelf <= 1 + math.log(P) + 1e-12
    assert prop3_claims(P).shelf_makespan == shelf


def test_prop3_any_shelf_has_every_height():
    # the argument of the proof: job J_j's f_j + 1 = j attempts need j distinct shelves, and a
    # shelf holding J_j is at least 1/j high; the j-th shelf holds J_P..J_j at least
    P = 6
    inst, f = prop3_instance(P)
    heights = [max(inst.jobs[j].time for j in range(P) if f.attempts(j) >= s) for s in range(1, P + 1)]
    assert heights == [1.0 / s for s in range(1, P + 1)]
    assert math.isclose(sum(heights), prop3_claims(P).shelf_makespan)


# ------------------------------------------------------------------ Proposition 4


@pytest.mark.parametrize("P", PS)
def test_prop4_family_sizes(P):
    eps = 1e-3
    inst, f = prop4_instance(P, eps)
    sets = prop4_sets(P)
    assert inst.P == P and inst.n == P + P**P - 1
    assert len(sets) == P and sets[0].start == 0 and sets[-1].stop == inst.n
    assert all(job.procs == 1 for job in inst.jobs)
    for i, members in enumerate(sets, start=1):
        assert len(members) == 1 + (P - 1) * P ** (i - 1)
        large, *small = members
        assert inst.jobs[large].name == f"L{i}"
        assert math.isclose(inst.jobs[large].time, 1.0 / P ** (i - 1))
        assert f.failures[large] == P ** (i - 1) - 1
        # the large job's attempts take 1 in total
        assert math.isclose(f.attempts(large) * inst.jobs[large].time, 1.0)
        for j in small:
            assert math.isclose(inst.jobs[j].time, (1 + eps) / P**i)
            assert f.failures[j] == 0
    assert f.total_failures == sum(P ** (i - 1) - 1 for i in range(1, P + 1))


@pytest.mark.parametrize("P", [2, 3, 4])
def test_prop4_lpt_takes_the_sets_in_order(P):
    # small jobs of set i are slightly longer than the large job of set i + 1
    inst, _ = prop4_instance(P, 1e-3)
    times = [job.time for job in inst.jobs]
    assert times == sorted(times, reverse=True)
    assert len(set(times)) == 2 * P  # P large times, P small times, all distinct


@pytest.mark.parametrize("P", PS)
@pytest.mark.parametrize("eps", [1e-3, 0.1])
def test_prop4_witness(P, eps):
    inst, f = prop4_instance(P, eps)
    sched = prop4_witness_schedule(P, eps)
    makespan = validate_rigid(inst, f, sched, contiguous=True)
    _, opt_bound = prop4_claims(P, eps)
    assert math.isclose(makespan, opt_bound, rel_tol=RTOL)
    if eps < 1 / max(P - 1, 1):
        assert makespan < 2
    lb = lower_bound(inst, f)
    assert lb <= makespan * (1 + RTOL)
    # all large jobs end by time 1, before any small job starts on their processor
    larges = {members[0] for members in prop4_sets(P)}
    assert max(e.end for e in sched.executions if e.job in larges) <= 1 + RTOL
    assert sum(e.outcome is Outcome.FAILURE for e in sched.executions) == f.total_failures


@pytest.mark.parametrize("P", PS)
def test_prop4_claims(P):
    eps = 1e-3
    lpt, opt_bound = prop4_claims(P, eps)
    assert lpt == P
    assert opt_bound == pytest.approx(1 + (1 + eps) * (P - 1) / P)
    assert opt_bound < 2
    inst, f = prop4_instance(P, eps)
    # the bound holds (a schedule attains it) and it is the optimum: it meets L(f) = A(f)/P
    assert prop4_witness_schedule(P, eps).makespan <= opt_bound * (1 + RTOL)
    assert math.isclose(lower_bound(inst, f), opt_bound, rel_tol=RTOL)
    assert math.isclose(total_area(inst, f) / P, opt_bound, rel_tol=RTOL)
    assert math.isclose(t_max(inst, f), 1.0, rel_tol=RTOL)
    # Omega(P): the ratio grows linearly
    assert lpt / opt_bound > P / 2


def test_prop4_rshelffill_shelves_add_up_to_P():
    # the proof's R-SHELFILL/LPT run: set i takes P^(i-1) shelves of height 1/P^(i-1), each with
    # one attempt of the large job and P - 1 small jobs (which never fail, so nothing is refilled)
    P, eps = 3, 1e-3
    inst, f = prop4_instance(P, eps)
    total = 0.0
    for members in prop4_sets(P):
        large, *small = members
        shelves = f.attempts(large)
        assert len(small) == shelves * (P - 1)
        assert all(inst.jobs[large].time > inst.jobs[j].time for j in small)
        total += shelves * inst.jobs[large].time  # the shelf height is the large job's time
    assert math.isclose(total, prop4_claims(P, eps).rshelffill_lpt_makespan)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_P(bad):
    for fn in (prop3_instance, prop4_instance, prop3_claims, prop4_claims):
        with pytest.raises(ValueError, match=r"P must be a positive integer"):
            fn(bad)


@pytest.mark.parametrize("eps", [0.0, -0.1, math.inf, math.nan])
def test_prop4_bad_eps(eps):
    with pytest.raises(ValueError, match=r"eps must be positive"):
        prop4_instance(3, eps)


def test_prop4_too_large():
    assert PROP4_MAX_JOBS == 46_661
    with pytest.raises(InvalidInstance, match=r"prop4 with P = 8 has 16,777,223 jobs .*the largest P this toolkit builds is 6 \(46,661 jobs\)"):
        prop4_instance(8)
    with pytest.raises(InvalidInstance, match=r"largest P this toolkit builds is 6"):
        prop4_witness_schedule(7)


def test_prop3_too_large():
    with pytest.raises(InvalidInstance, match=r"prop3 with P = 1001 has 501,501 job attempts; the largest P this toolkit builds is 1000"):
        prop3_instance(PROP3_MAX_P + 1)


@pytest.mark.parametrize(("family", "P", "largest"), [("prop4", "8", "6"), ("prop3", "5000", "1000")])
def test_cli_family_too_large_is_one_line(capsys, family, P, largest):
    from coschedule.cli import main

    assert main(["counterexample", family, "--P", P]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"the largest P this toolkit builds is {largest}" in err
