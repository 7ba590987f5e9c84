"""The malleable pack model of [Aupy2017] §1.3.3-1.3.5 (coschedule.redistribution): Young's
period as printed (1.3) and first-order (NOTES.md 10), the redistribution cost (1.11) and its
case (1.9), the lambda -> 0 limits, N^ff (1.4) and tau_last (1.5) by hand, j_max (1.8) against
its definition, the packs of eq. (1.13) against coschedule.generators, one-line errors, and the
doctests of the model and of its heuristics. The expected-time formulas themselves are checked
against Monte Carlo in test_redistribution_montecarlo.py."""

from __future__ import annotations

import dataclasses
import doctest
import math

import numpy as np
import pytest
from coschedule_testing import seeds
from hypothesis import given
from hypothesis import strategies as st

import coschedule.heuristics.redistribution as heuristics_redistribution
from coschedule.errors import InvalidInstance, UnknownName
from coschedule.generators import random_instance, synthetic_instance
from coschedule.model import MoldableInstance, MoldableTask
from coschedule.redistribution import (
    FAILURE_MODELS,
    PERIOD_FORMULAS,
    YEAR,
    MalleablePack,
    PackModel,
    Resilience,
    as_pack,
    even_allocations,
    expected_time,
    expected_time_simulation,
    k_can_grow,
    k_checkpoint,
    k_expected,
    k_fault_free,
    k_jmax,
    k_period,
    k_rc,
    k_time,
    redistribution_cost,
    young_period,
)
from coschedule.redistribution import model as redistribution

SCALAR_FORMULAS = {"eq1.6": expected_time, "simulation": expected_time_simulation}


def one_line(exc: pytest.ExceptionInfo) -> str:
    msg = str(exc.value)
    assert msg and "\n" not in msg, msg
    return msg


def jmax_by_definition(pm: PackModel, i: int) -> int:
    """(1.8) read literally over the even counts the application may get: the smallest even
    ``j >= kmin_i`` such that ``t^R_{i,k}(1) >= t^R_{i,j}(1)`` for every even ``k > j``, ``k <= p``.
    The expected times come from one vectorised call; the definition is two plain loops."""
    ks = list(range(int(pm.pack.min_procs[i]), pm.pack.p_even + 1, 2))
    tr = [float(x) for x in np.atleast_1d(pm.expected(i, np.array(ks), 1.0))]
    for a, j in enumerate(ks):
        if all(tr[b] >= tr[a] for b in range(a + 1, len(ks))):
            return j
    raise AssertionError("unreachable: the largest count always qualifies")


@st.composite
def amdahl_packs(draw: st.DrawFn, *, n: tuple[int, int] = (1, 4), p: tuple[int, int] = (2, 30),
                 min_procs: bool = False) -> MalleablePack:
    """Closed-form packs ``t = seq + par / j`` with random memory (and minimum counts)."""
    nn = draw(st.integers(*n))
    pp = draw(st.integers(max(p[0], 2 * nn), max(p[1], 2 * nn)))
    rng = np.random.default_rng(draw(seeds))
    mp = None
    if min_procs:
        mp = rng.integers(1, max(1, pp // nn - 1), size=nn, endpoint=True)
        if int(np.sum(mp + mp % 2)) > pp:
            mp = np.ones(nn, dtype=np.int64)
    return MalleablePack(p=pp, memory=rng.uniform(0.0, 100.0, nn), seq=rng.uniform(0.0, 20.0, nn),
                         par=rng.uniform(0.5, 200.0, nn), min_procs=mp)


@st.composite
def table_packs(draw: st.DrawFn, *, n: tuple[int, int] = (1, 4), p: tuple[int, int] = (2, 30)) -> MalleablePack:
    """Packs of random profiles that satisfy (1.1)-(1.2) (coschedule.generators.random_instance),
    with minimum processor counts and random memory."""
    nn = draw(st.integers(*n))
    pp = draw(st.integers(max(p[0], 2 * nn), max(p[1], 2 * nn)))
    seed = draw(seeds)
    inst = random_instance(nn, pp, seed=seed, with_min_procs=draw(st.booleans()))
    mem = np.random.default_rng(seed).uniform(0.0, 100.0, nn)
    tasks = tuple(MoldableTask(t.times, min_procs=t.min_procs, memory=float(m), name=t.name)
                  for t, m in zip(inst.tasks, mem))
    need = sum(max(2, t.min_procs + t.min_procs % 2) for t in tasks)
    if need > pp:  # the minima do not fit in pairs: drop them
        tasks = tuple(MoldableTask(_fill(t), memory=t.memory, name=t.name) for t in tasks)
    return MalleablePack.from_instance(MoldableInstance(tasks, pp))


def _fill(task: MoldableTask) -> tuple[float, ...]:
    """The profile with the entries below ``min_procs`` set to the first defined time (still
    (1.1)-(1.2): constant time, growing work)."""
    first = task.times[task.min_procs - 1]
    return tuple(first if j < task.min_procs else t for j, t in enumerate(task.times, start=1))


def resiliences(*, mtbf: tuple[float, float] = (20.0, 5000.0)) -> st.SearchStrategy[Resilience]:
    """Platforms with small MTBFs (seconds, against times of 1-200 s), so that j_max binds."""
    return st.builds(
        Resilience,
        node_mtbf=st.floats(*mtbf),
        c=st.floats(0.1, 5.0),
        beta=st.one_of(st.just(0.0), st.floats(0.0, 1.0)),
        start=st.floats(0.0, 5.0),
        downtime=st.floats(0.0, 5.0),
        model=st.sampled_from(FAILURE_MODELS),
    )


# ------------------------------------------------------------------ Young's period (1.3)

#: the paper's numbers (§1.5.4): MTBF 100 years per processor, c = 1, m = 2e6, j = 10
MU, M, J = 100 * YEAR, 2e6, 10


def test_printed_and_first_order_periods_differ_by_one_checkpoint():
    mu, C = MU / J, M / J
    first = young_period(mu, C)
    printed = young_period(mu, C, "printed")
    assert first == pytest.approx(math.sqrt(2 * mu * C) + C, rel=1e-15)
    assert printed == pytest.approx(math.sqrt(2 * mu * C + C), rel=1e-15)
    # sqrt(2 mu C + C) = sqrt(2 mu C) + C / (2 sqrt(2 mu C)) + ...: the printed period lacks C
    assert first - printed == pytest.approx(C - C / (2 * math.sqrt(2 * mu * C)), rel=1e-9)
    assert C / (first - printed) == pytest.approx(1.0, abs=1e-6)
    assert C == 2e5 and first > 1.1e7  # the difference is a checkpoint: 2e5 s, 1.8 % of the period


@pytest.mark.parametrize("scale", [60.0, 3600.0, 1 / 60])
def test_first_order_period_scales_with_the_time_unit_and_the_printed_one_does_not(scale):
    # the same platform in another time unit: a period must scale like a time
    mu, C = 50.0, 2.0
    assert young_period(scale * mu, scale * C) == pytest.approx(scale * young_period(mu, C), rel=1e-12)
    printed, printed_scaled = young_period(mu, C, "printed"), young_period(scale * mu, scale * C, "printed")
    assert abs(printed_scaled / (scale * printed) - 1) > 1e-3  # (1.3) as printed adds a time to a time^2
    assert printed_scaled**2 == pytest.approx(scale**2 * 2 * mu * C + scale * C, rel=1e-12)


def test_pack_model_uses_the_first_order_period_by_default_and_the_printed_one_on_request():
    pack = MalleablePack.synthetic(3, 24, seed=5)
    ks = np.array([2, 6, 10, 24])
    for i in range(pack.n):
        for formula in ("first-order", "printed"):
            res = Resilience() if formula == "first-order" else Resilience(period_formula="printed")
            assert res.period_formula == formula
            pm = PackModel(pack, res)
            for k in ks:
                C = float(pack.memory[i]) / k  # c = 1, beta = 0
                assert pm.checkpoint(i, k) == pytest.approx(C, rel=1e-15)
                want = young_period(res.node_mtbf / k, C, formula)
                assert pm.period(i, k) == pytest.approx(want, rel=1e-13)
            vec = pm.period(i, ks)
            assert np.allclose(vec, [pm.period(i, int(k)) for k in ks], rtol=1e-15, atol=0)
    first = PackModel(pack).period(0, 10)
    printed = PackModel(pack, Resilience(period_formula="printed")).period(0, 10)
    assert first - printed == pytest.approx(pack.memory[0] / 10, rel=1e-6)


def test_period_limits_and_errors():
    assert young_period(math.inf, 5.0) == math.inf  # no failure: never checkpoint
    assert young_period(100.0, 0.0) == math.inf  # free checkpoints: the formula's limit
    assert math.isinf(PackModel(MalleablePack.synthetic(1, 4, seed=0), Resilience(node_mtbf=math.inf)).period(0, 2))
    with pytest.raises(UnknownName, match="period formula 'young'"):
        young_period(1.0, 1.0, "young")
    with pytest.raises(UnknownName, match="valid: first-order, printed"):
        Resilience(period_formula="second-order")
    # the printed period is shorter than the checkpoint once C >= 2 mu_{i,j} + 1: no work fits
    pack = MalleablePack(p=4, memory=[100.0], seq=[1.0], par=[10.0])
    pm = PackModel(pack, Resilience(node_mtbf=10.0, period_formula="printed"))  # mu/2 = 5, C = 50
    with pytest.raises(InvalidInstance) as exc:
        pm.period(0, 2)
    assert "printed period" in one_line(exc)
    assert PackModel(pack, Resilience(node_mtbf=10.0)).period(0, 2) == pytest.approx(math.sqrt(500.0) + 50.0)


# ------------------------------------------------------------------ redistribution cost (1.9), (1.11)


@given(st.integers(1, 200), st.integers(1, 200), st.floats(0.0, 1e7), st.floats(0.0, 10.0),
       st.floats(0.0, 1.0), st.floats(0.0, 100.0))
def test_redistribution_cost_is_1_9_when_growing_and_symmetric(j, k, m, c, beta, start):
    rc = redistribution_cost(m, j, k, c=c, beta=beta, start=start)
    if j == k:
        assert rc == 0.0  # no redistribution, not even the start-up S
        return
    lo, hi = min(j, k), max(j, k)
    # (1.9), the case k > j of (1.11): max(j, k - j) rounds
    assert rc == pytest.approx(start + max(lo, hi - lo) * (c * m / (lo * hi) + beta), rel=1e-12, abs=1e-300)
    assert redistribution_cost(m, k, j, c=c, beta=beta, start=start) == pytest.approx(rc, rel=1e-15)  # (1.11)
    if beta == 0.0 and start == 0.0:
        assert rc == pytest.approx(max(min(j, k), abs(k - j)) * c * m / (j * k), rel=1e-12, abs=1e-300)


def test_redistribution_cost_by_hand():
    # 4 -> 6: max(4, 2) = 4 rounds of 1200 / 24 = 50
    assert redistribution_cost(1200.0, 4, 6) == pytest.approx(200.0)
    # 2 -> 10: max(2, 8) = 8 rounds (eight new processors each receive from both old ones)
    assert redistribution_cost(1000.0, 2, 10, c=2.0, beta=0.5, start=3.0) == pytest.approx(3 + 8 * (100.0 + 0.5))
    # shrinking 10 -> 8: max(min = 8, 2) = 8 rounds
    assert redistribution_cost(800.0, 10, 8) == pytest.approx(8 * 10.0)
    assert redistribution_cost(800.0, 6, 6, start=100.0) == 0.0
    with pytest.raises(InvalidInstance) as exc:
        redistribution_cost(10.0, 0, 4)
    assert "0 -> 4" in one_line(exc)


def test_pack_model_redistribution_cost_vectorised_equals_scalar():
    pack = MalleablePack.synthetic(4, 40, seed=11)
    res = Resilience(c=0.7, beta=0.01, start=2.0)
    pm = PackModel(pack, res)
    i = np.arange(pack.n)[:, None, None]
    j = np.arange(2, 41, 2)[None, :, None]
    k = np.arange(2, 41, 2)[None, None, :]
    got = pm.redistribution_cost(i, j, k)
    assert got.shape == (4, 20, 20)
    for a in range(pack.n):
        for b, jj in enumerate(range(2, 41, 2)):
            for d, kk in enumerate(range(2, 41, 2)):
                want = redistribution_cost(float(pack.memory[a]), jj, kk, c=0.7, beta=0.01, start=2.0)
                assert got[a, b, d] == pytest.approx(want, rel=1e-13)
    assert np.all(got[:, np.arange(20), np.arange(20)] == 0.0)
    assert pm.redistribution_cost(1, 4, 4) == 0.0 and isinstance(pm.redistribution_cost(1, 4, 6), float)


# ------------------------------------------------------------------ lambda = 0 and lambda -> 0

CASES = [  # work, period, checkpoint, recovery, downtime
    (100.0, 30.0, 5.0, 5.0, 1.0),
    (110.0, 30.0, 5.0, 2.0, 0.0),
    (7.5, 30.0, 5.0, 5.0, 10.0),
    (1e4, 101.0, 1.0, 3.0, 60.0),
]


@pytest.mark.parametrize("fn", [expected_time, expected_time_simulation])
@pytest.mark.parametrize("case", CASES)
def test_without_failures_the_time_is_the_work_plus_the_checkpoints(fn, case):
    work, period, C, R, D = case
    n_ff = math.floor(work / (period - C))
    assert fn(work, rate=0.0, period=period, checkpoint=C, recovery=R, downtime=D) == pytest.approx(
        work + n_ff * C, rel=1e-15)
    assert fn(work, rate=0.0, period=math.inf, checkpoint=C, recovery=R, downtime=D) == work


@pytest.mark.parametrize("fn", [expected_time, expected_time_simulation])
@pytest.mark.parametrize("case", CASES)
def test_the_formulas_tend_to_the_fault_free_time_as_the_rate_vanishes(fn, case):
    # continuity at lambda = 0, with the first-order term: both models lose, per unit of rate,
    # (D + R) per unit of time (a failure's downtime and recovery) plus half of each period
    # squared (the expected re-execution); they differ only from the order rate^2 on
    work, period, C, R, D = case
    n_ff = math.floor(work / (period - C))
    last = work - n_ff * (period - C)
    t0 = work + n_ff * C
    slope = (D + R) * t0 + (n_ff * period**2 + last**2) / 2
    for rate in (1e-6, 1e-8, 1e-10):
        t = fn(work, rate=rate, period=period, checkpoint=C, recovery=R, downtime=D)
        assert t > t0
        assert (t - t0) / rate == pytest.approx(slope, rel=max(1e-4, 50 * rate * (period + R + D)))


@given(amdahl_packs(p=(2, 16)), st.sampled_from(FAILURE_MODELS), st.floats(0.0, 1.0))
def test_no_failure_pack_model_is_fault_free(pack, model, alpha):
    pm = PackModel(pack, Resilience(node_mtbf=math.inf, model=model))
    assert pm.res.rate == 0.0
    i = np.arange(pack.n)[:, None]
    k = np.arange(2, pack.p_even + 1, 2)[None, :]
    assert np.all(np.isinf(pm.period(i, k)))
    assert np.all(pm.checkpoints(i, k, alpha) == 0)
    ff = pm.fault_free(i, k, alpha)
    assert np.allclose(ff, alpha * pack.time(i, k), rtol=1e-15, atol=0)
    assert np.allclose(pm.expected(i, k, alpha), ff, rtol=1e-15, atol=0)


def test_pack_model_tends_to_its_fault_free_time_as_the_mtbf_grows():
    # finite MTBF: t^R exceeds the fault-free time t + N^ff C (checkpoints included), by less and
    # less as the MTBF grows; at 100 years some checkpoints are taken (N^ff >= 1)
    pack = MalleablePack.synthetic(3, 20, seed=2)
    i, k = np.arange(3)[:, None], np.arange(2, 21, 2)[None, :]
    for model in FAILURE_MODELS:
        prev = None
        for years in (100.0, 1e4, 1e6, 1e8):
            pm = PackModel(pack, Resilience(node_mtbf=years * YEAR, model=model))
            rel = pm.expected(i, k, 1.0) / pm.fault_free(i, k, 1.0) - 1
            assert np.all(rel > 0)
            if years == 100.0:
                assert pm.checkpoints(i, k, 1.0).max() >= 1
            if prev is not None:
                assert np.all(rel < prev)
            prev = rel
        assert np.all(prev < 1e-7)  # ~ lambda (D + t/2): 3e-8 at 1e8 years


# ------------------------------------------------------------------ N^ff (1.4), tau_last (1.5)

#: node MTBF 100 s on k = 2 processors: mu_{i,2} = 50; m = 8, c = 1: C = 4; tau = sqrt(400) + 4
#: = 24, a period of 20 work and 4 checkpoint; t_{i,2} = par / 2 = 100
HAND = MalleablePack(p=4, memory=[8.0], seq=[0.0], par=[200.0])


@pytest.mark.parametrize("alpha, n_ff, last", [(1.0, 5, 0.0), (0.5, 2, 10.0), (0.1, 0, 10.0),
                                               (0.59, 2, 19.0), (0.61, 3, 1.0), (0.0, 0, 0.0)])
@pytest.mark.parametrize("model", FAILURE_MODELS)
def test_checkpoint_count_and_last_period_by_hand(alpha, n_ff, last, model):
    pm = PackModel(HAND, Resilience(node_mtbf=100.0, downtime=3.0, model=model))
    assert pm.checkpoint(0, 2) == 4.0 and pm.period(0, 2) == 24.0
    assert pm.checkpoints(0, 2, alpha) == n_ff
    assert pm.fault_free(0, 2, alpha) == pytest.approx(100 * alpha + 4 * n_ff, rel=1e-14, abs=1e-14)
    r = 2 / 100.0  # lambda j
    body = n_ff * math.expm1(r * 24) / r + math.expm1(r * last) / r
    factor = math.exp(r * 4) * (1 + r * 3) if model == "eq1.6" else 1 + r * (3 + 4)
    assert pm.expected(0, 2, alpha) == pytest.approx(factor * body, rel=1e-12, abs=1e-300)
    fn = SCALAR_FORMULAS[model]
    assert fn(100 * alpha, rate=r, period=24.0, checkpoint=4.0, recovery=4.0, downtime=3.0) == pytest.approx(
        factor * body, rel=1e-12, abs=1e-300)


def test_a_work_of_whole_periods_ends_with_a_checkpoint_and_an_empty_last_period():
    # 3 x 25 work: N^ff = 3 (the last checkpoint is taken), tau_last = 0 contributes nothing
    for fn in SCALAR_FORMULAS.values():
        whole = fn(75.0, rate=0.01, period=30.0, checkpoint=5.0, recovery=5.0, downtime=1.0)
        just_less = fn(75.0 - 1e-9, rate=0.01, period=30.0, checkpoint=5.0, recovery=5.0, downtime=1.0)
        per = fn(25.0, rate=0.01, period=30.0, checkpoint=5.0, recovery=5.0, downtime=1.0)
        assert whole == pytest.approx(3 * per, rel=1e-14)
        assert whole - just_less == pytest.approx(per - fn(25.0 - 1e-9, rate=0.01, period=30.0, checkpoint=5.0,
                                                           recovery=5.0, downtime=1.0), rel=1e-6)


@pytest.mark.parametrize("fn", [expected_time, expected_time_simulation])
def test_expected_time_errors_are_one_line(fn):
    kw = {"rate": 0.01, "checkpoint": 5.0, "recovery": 5.0, "downtime": 1.0}
    for period in (5.0, 4.0, 0.0):
        with pytest.raises(InvalidInstance) as exc:
            fn(10.0, period=period, **kw)
        msg = one_line(exc)
        assert f"period ({period:g})" in msg and "checkpoint (5)" in msg
    with pytest.raises(InvalidInstance) as exc:
        fn(10.0, period=math.nan, **kw)
    assert "period" in one_line(exc) and "nan" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        fn(-1.0, period=30.0, **kw)
    assert one_line(exc).startswith("expected time: work must be") and "-1.0" in one_line(exc)
    for name in ("rate", "checkpoint", "recovery", "downtime"):
        bad = {**kw, name: -0.5}
        with pytest.raises(InvalidInstance) as exc:
            fn(10.0, period=30.0, **bad)
        assert f"{name} must be" in one_line(exc)


# ------------------------------------------------------------------ j_max (1.8)


@given(st.one_of(amdahl_packs(p=(2, 40)), amdahl_packs(p=(2, 40), min_procs=True), table_packs(p=(2, 40))),
       resiliences())
def test_jmax_is_the_definition(pack, res):
    pm = PackModel(pack, res)
    jm = pm.jmax()
    assert jm.shape == (pack.n,) and jm.dtype == np.int64
    for i in range(pack.n):
        assert jm[i] == jmax_by_definition(pm, i)
        assert jm[i] % 2 == 0 and pack.min_procs[i] <= jm[i] <= pack.p_even


def test_jmax_is_the_definition_above_the_minimum():
    # closed-form applications with minimum counts: (1.8) over the counts they may get. Before
    # the fix PackModel.jmax (and k_jmax) ran from j = 2 and clipped to min_procs, giving
    # j_max = min_procs where t^R was lowest below the minimum although a larger count beat
    # t^R(min_procs) (4 applications here), and disagreed with the heuristics' k_can_grow
    rng = np.random.default_rng(0)
    clipped_before = 0
    for _ in range(400):
        n = int(rng.integers(1, 4))
        p = int(rng.integers(10, 60))
        pack = MalleablePack(p=p, memory=rng.uniform(0, 100, n), seq=rng.uniform(0, 20, n),
                             par=rng.uniform(1, 200, n), min_procs=rng.integers(1, p // (2 * n) + 1, n))
        pm = PackModel(pack, Resilience(node_mtbf=float(rng.uniform(50, 2000)), downtime=1.0))
        jm = pm.jmax()
        for i in range(n):
            assert jm[i] == jmax_by_definition(pm, i)
            ks = np.arange(2, pack.p_even + 1, 2)
            old = max(int(ks[np.argmin(pm.expected(i, ks, 1.0))]), int(pack.min_procs[i]))
            clipped_before += old != jm[i]
    assert clipped_before >= 3  # the case the fix is about was exercised


def test_jmax_strictly_inside_on_a_synthetic_pack():
    # eq. (1.13) with checkpoints 100 times costlier than the paper's (c = 100) on a 5-year MTBF:
    # N^ff's floor makes t^R rise after some counts, and past j_max it never comes back down
    pack = MalleablePack.synthetic(4, 32, seed=3)
    pm = PackModel(pack, Resilience(node_mtbf=5 * YEAR, c=100.0))
    jm = pm.jmax()
    assert jm.tolist() == [16, 22, 22, 20]
    assert np.all((jm > 2) & (jm < pack.p))
    for i in range(pack.n):
        assert jm[i] == jmax_by_definition(pm, i)
        tr = pm.expected(i, np.arange(2, 33, 2), 1.0)
        assert np.all(tr[jm[i] // 2:] > tr[jm[i] // 2 - 1])  # nothing beyond j_max beats it
    # with the paper's checkpoint cost nothing binds on so few processors
    assert np.all(PackModel(pack, Resilience(node_mtbf=5 * YEAR)).jmax() == 32)


@given(seeds, st.integers(1, 4), st.integers(8, 40), st.sampled_from([1.0, 5.0]), st.sampled_from(FAILURE_MODELS))
def test_jmax_of_synthetic_packs_is_the_definition(seed, n, p, years, model):
    pack = MalleablePack.synthetic(n, max(p, 2 * n), seed=seed)
    pm = PackModel(pack, Resilience(node_mtbf=years * YEAR, c=100.0, model=model))
    jm = pm.jmax()
    assert [int(jm[i]) for i in range(n)] == [jmax_by_definition(pm, i) for i in range(n)]


def test_jmax_without_failures_is_p():
    pack = MalleablePack.synthetic(3, 21, seed=4)
    assert PackModel(pack, Resilience(node_mtbf=math.inf)).jmax().tolist() == [20, 20, 20]


# ------------------------------------------------------------------ the scalar kernels


@given(st.one_of(amdahl_packs(p=(2, 24), min_procs=True), table_packs(p=(2, 24))), resiliences(),
       st.sampled_from(PERIOD_FORMULAS), st.floats(0.0, 1.0))
def test_scalar_kernels_are_the_pack_model(pack, res, formula, alpha):
    # the numba kernels of the pack simulator (plain Python without numba) against PackModel
    res = dataclasses.replace(res, period_formula=formula)
    pm = PackModel(pack, res)
    args = pm.kernel_args()
    seq, par, tab, use_tab, mem, prm = args
    ks = np.arange(2, pack.p_even + 1, 2)
    for i in range(pack.n):
        for k in ks[ks >= pack.min_procs[i]]:
            C = k_checkpoint(i, int(k), mem, prm)
            assert C == pytest.approx(pm.checkpoint(i, k), rel=1e-14)
            try:
                tau = pm.period(i, k)
            except InvalidInstance:  # the printed period below the checkpoint: no kernel value
                continue
            assert k_period(C, int(k), prm) == pytest.approx(tau, rel=1e-14)
            assert k_time(i, int(k), seq, par, tab, use_tab) == pytest.approx(pack.time(i, k), rel=1e-15)
            assert k_expected(i, int(k), alpha, *args) == pytest.approx(pm.expected(i, k, alpha), rel=1e-12,
                                                                        abs=1e-300)
            assert k_fault_free(i, int(k), alpha, *args) == pytest.approx(pm.fault_free(i, k, alpha), rel=1e-13,
                                                                          abs=1e-300)
            for j in (2, int(k), pack.p_even):
                assert k_rc(i, j, int(k), mem, prm) == pytest.approx(pm.redistribution_cost(i, j, k), rel=1e-14)


@given(st.one_of(amdahl_packs(p=(2, 40), min_procs=True), table_packs(p=(2, 40))), resiliences())
def test_jmax_kernels_agree_with_the_numpy_path(pack, res):
    pm = PackModel(pack, res)
    args = pm.kernel_args()
    numpy_path = _numpy_jmax(pm)
    assert k_jmax(pack.min_procs, pack.p_even, *args).tolist() == numpy_path.tolist()
    # the lazy test of the heuristics: k + 2 <= j_max(i), in the order the greedy asks
    ver = pack.min_procs.copy()
    exact = np.zeros(pack.n, dtype=np.int64)
    for i in range(pack.n):
        for k in range(int(pack.min_procs[i]), pack.p_even + 1, 2):
            assert k_can_grow(i, k, ver, exact, pack.p_even, *args) == (k + 2 <= numpy_path[i])


def _numpy_jmax(pm: PackModel) -> np.ndarray:
    """PackModel.jmax's numpy path (the one used without numba)."""
    saved = redistribution.HAVE_NUMBA
    redistribution.HAVE_NUMBA = False
    try:
        return PackModel(pm.pack, pm.res).jmax()
    finally:
        redistribution.HAVE_NUMBA = saved


# ------------------------------------------------------------------ MalleablePack


@given(seeds, st.integers(1, 6), st.integers(1, 24))
def test_synthetic_pack_is_the_synthetic_instance(seed, n, extra):
    p = 2 * n + extra - 1
    pack = MalleablePack.synthetic(n, p, seed=seed)
    inst = synthetic_instance(n, p, seed=seed)
    assert pack.n == n and pack.p == p and pack.table is None
    assert np.array_equal(pack.memory, [t.memory for t in inst.tasks])  # the same m_i draws
    js = np.arange(1, p + 1)
    for i, task in enumerate(inst.tasks):
        assert np.allclose(pack.time(i, js), task.times, rtol=1e-13, atol=0)  # eq. (1.13)
    assert pack.names == tuple(t.name for t in inst.tasks) and pack.name == inst.name
    assert pack.min_procs.tolist() == [2] * n


def test_synthetic_pack_draws_in_the_papers_range():
    pack = MalleablePack.synthetic(500, 1000, seed=9)
    assert pack.memory.min() >= 1_500_000 and pack.memory.max() <= 2_500_000
    assert np.all(pack.memory == np.round(pack.memory))
    # t(m, 1) = 2 m log2 m, and eq. (1.13) adds m log2 m of overhead on one processor
    m = pack.memory[0]
    assert pack.time(0, 1) == pytest.approx(3 * m * math.log2(m), rel=1e-14)


@given(seeds, st.integers(1, 5), st.integers(0, 12))
def test_from_instance_round_trip(seed, n, extra):
    p = 2 * n + extra
    rng = np.random.default_rng(seed)
    base = random_instance(n, p, seed=rng)
    inst = MoldableInstance(tuple(MoldableTask(t.times, memory=float(m), name=t.name)
                                  for t, m in zip(base.tasks, rng.uniform(0, 1e6, n))), p, name="r")
    pack = MalleablePack.from_instance(inst)
    assert pack.n == n and pack.p == p and pack.name == "r"
    assert np.array_equal(pack.memory, [t.memory for t in inst.tasks])
    for i, task in enumerate(inst.tasks):
        assert pack.time(i, np.arange(1, p + 1)).tolist() == list(task.times)
        assert pack.time(i, p + 5) == task.times[-1]  # extended by its last value
    assert pack.to_instance() == inst
    assert as_pack(inst).to_instance() == inst and as_pack(pack) is pack
    synth = MalleablePack.synthetic(n, p, seed=seed)
    again = MalleablePack.from_instance(synth.to_instance())
    assert np.array_equal(again.memory, synth.memory)
    assert np.allclose(again.table, synth.time(np.arange(n)[:, None], np.arange(1, p + 1)[None, :]), rtol=1e-15)


def test_from_instance_round_trip_with_minimum_counts():
    # before the fix to_instance dropped min_procs: the table's inf below a minimum then made it
    # raise, and a closed-form pack's minimum was lost
    prof = (9.0, 6.0, 5.0, 4.0, 3.5) + (3.0,) * 7  # on 1..12 processors
    inst = MoldableInstance(tuple(MoldableTask(prof, min_procs=mp, memory=1.0, name=name)
                                  for name, mp in (("a", 3), ("b", 1), ("c", 2), ("d", 4))), 12)
    pack = MalleablePack.from_instance(inst)
    assert pack.min_procs.tolist() == [4, 2, 2, 4]  # in pairs
    back = pack.to_instance()
    assert [t.min_procs for t in back.tasks] == [4, 1, 2, 4]  # odd minima become the pack's pairs
    assert back.tasks[1:] == inst.tasks[1:]
    assert back.tasks[0].times[3:] == inst.tasks[0].times[3:]
    closed = MalleablePack(p=12, memory=[1.0, 1.0], seq=[1.0, 1.0], par=[8.0, 8.0], min_procs=[5, 1])
    assert [t.min_procs for t in closed.to_instance().tasks] == [6, 1]
    assert MalleablePack.from_instance(closed.to_instance()).min_procs.tolist() == [6, 2]


def test_pack_errors_are_one_line():
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack.synthetic(5, 9, seed=0)
    assert "5 applications need 10 processors" in one_line(exc) and "p = 9" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack(p=8, memory=[1.0, -2.0], seq=[1.0, 1.0], par=[1.0, 1.0])
    assert "application 1" in one_line(exc) and "-2.0" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack(p=8, memory=[1.0, math.nan], seq=[1.0, 1.0], par=[1.0, 1.0])
    assert "application 1" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack(p=1, memory=[1.0], seq=[1.0], par=[1.0])
    assert "p must be an integer >= 2" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack(p=8, memory=[1.0], seq=[0.0], par=[0.0])
    assert "application 0" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack(p=8, memory=[1.0], seq=[1.0], par=[1.0], table=[[1.0]])
    one_line(exc)
    with pytest.raises(InvalidInstance) as exc:  # p < 2n through an instance
        MalleablePack.from_instance(MoldableInstance(tuple(MoldableTask((2.0, 1.0, 1.0)) for _ in range(2)), 3))
    assert "2 applications need 4 processors" in one_line(exc)
    with pytest.raises(InvalidInstance) as exc:
        MalleablePack.synthetic(0, 8)
    one_line(exc)
    with pytest.raises(TypeError, match="MalleablePack or a MoldableInstance"):
        as_pack([1, 2])


def test_even_allocations_enumerates_the_search_space():
    alls = even_allocations(2, 9)
    assert alls == [(2, 2), (2, 4), (2, 6), (4, 2), (4, 4), (6, 2)]
    assert even_allocations(2, 8, kmin=[4, 2]) == [(4, 2), (4, 4), (6, 2)]
    assert even_allocations(3, 5) == []
    for sigma in even_allocations(3, 14):
        assert sum(sigma) <= 14 and all(k % 2 == 0 and k >= 2 for k in sigma)
    assert len(even_allocations(3, 14)) == math.comb(7, 3)  # pairs: u_i >= 1, sum <= 7


# ------------------------------------------------------------------ doctests


@pytest.mark.parametrize("module", [redistribution, heuristics_redistribution])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.failed == 0
    if module is redistribution:
        assert result.attempted >= 5


def test_worst_expected_restarts_against_a_loop():
    """Against the definition, application by application and count by count: the fewest
    expected restarts of a segment (period, or the whole fault-free time, plus the recovery) over
    the grid of even counts, the largest over the applications."""
    pack = MalleablePack.synthetic(6, 40, seed=3)
    res = Resilience(node_mtbf=20 * 86400.0)
    model = PackModel(pack, res)
    expected, i, k = model.worst_expected_restarts()
    ks = sorted({max(2, int(x) // 2 * 2) for x in np.geomspace(2, pack.p_even, 64)})
    fewest = []
    for a in range(pack.n):
        best = math.inf
        for kk in ks:
            if kk < pack.min_procs[a]:
                continue
            C = float(model.checkpoint(a, kk))
            seg = min(float(model.period(a, kk)), float(model.fault_free(a, kk, 1.0))) + C
            best = min(best, math.expm1(kk * seg / res.node_mtbf))
        fewest.append(best)
    assert i == int(np.argmax(fewest)) and math.isclose(expected, max(fewest), rel_tol=1e-9)
    assert k in ks and k >= pack.min_procs[i]
    assert PackModel(pack, Resilience(node_mtbf=math.inf)).worst_expected_restarts() == (0.0, 0, 0)
    # a tenth of the MTBF: far more restarts
    assert PackModel(pack, Resilience(node_mtbf=2 * 86400.0)).worst_expected_restarts()[0] > 10 * expected


@pytest.mark.parametrize("formula", ["first-order", "printed"])
def test_scalar_paths_give_the_vectorised_floats(formula):
    """C, tau, RC and t for one application and one count (the simulator's and the validator's
    calls) take a scalar path: the very floats of the vectorised one, for every argument type."""
    rng = np.random.default_rng(7)
    pack = MalleablePack.synthetic(40, 600, seed=3)
    pm = PackModel(pack, Resilience(node_mtbf=3 * YEAR, c=0.7, beta=2.5, start=4.0, period_formula=formula))
    for _ in range(300):
        i = int(rng.integers(40))
        j, k = (int(x) for x in 2 * rng.integers(1, 300, size=2))
        vi, vj, vk = np.array([i]), np.array([j]), np.array([k])
        for kind in (int, np.int64, float):
            a, b = kind(j), kind(k)
            assert pm.checkpoint(i, b) == pm.checkpoint(vi, vk)[0]
            assert pm.period(np.int64(i), b) == pm.period(vi, vk)[0]
            assert pm.redistribution_cost(i, a, b) == pm.redistribution_cost(vi, vj, vk)[0]
            assert pack.time(i, b) == pack.time(vi, vk)[0]
        assert pm.redistribution_cost(i, k, k) == 0.0
    free = PackModel(pack, Resilience(node_mtbf=3 * YEAR, c=0.0, beta=0.0))
    assert free.period(1, 4) == math.inf  # no checkpoint, no period
    if formula == "printed":  # a period shorter than its checkpoint: the vectorised path's error
        short = PackModel(pack, Resilience(node_mtbf=1.0, c=1.0, period_formula=formula))
        with pytest.raises(InvalidInstance, match="shorter than the checkpoint"):
            short.period(0, 2)
