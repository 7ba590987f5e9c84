"""Monte Carlo checks of the two expected-time formulas of coschedule.redistribution (NOTES.md
12): each against an event-by-event simulation of its own failure model, written here.

* ``"eq1.6"`` (:func:`expected_time`, [Aupy2017] (1.6)): failures strike during work,
  checkpoints and recoveries, not during the downtime;
* ``"simulation"`` (:func:`expected_time_simulation`, the model of §1.5.4): failures strike
  during work and checkpoints only, not during the downtime nor the recovery.

The execution is ``N^ff`` periods of ``tau - C`` work and one checkpoint, then ``tau_last`` work
with no checkpoint (1.4)-(1.5); a failure sends the current period back to its beginning after a
downtime ``D`` and a recovery ``R``. The simulation keeps one exponential failure clock per
sample that runs only while the application is exposed (memoryless, so stopping it during a
downtime is the same as ignoring the failures that would strike there), and walks through the
segments; samples are vectorised with numpy. Parameters make failures frequent (``rate tau``
near 1) so that the two models differ by many standard errors: each formula must sit within 4
standard errors of its own model's mean and outside the other model's interval.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from coschedule.redistribution import (
    FAILURE_MODELS,
    MalleablePack,
    PackModel,
    Resilience,
    expected_time,
    expected_time_simulation,
)

FORMULAS = {"eq1.6": expected_time, "simulation": expected_time_simulation}
SAMPLES = 400_000


def segments(work: float, period: float, checkpoint: float) -> list[float]:
    """The exposed lengths of the execution: ``N^ff`` full periods then ``tau_last`` (if any),
    counted here by subtraction rather than by (1.4)'s floor."""
    out: list[float] = []
    left = work
    while left >= period - checkpoint:
        out.append(period)
        left -= period - checkpoint
    if left > 0:
        out.append(left)
    return out


def simulate(model: str, work: float, *, rate: float, period: float, checkpoint: float, recovery: float,
             downtime: float, samples: int, seed: int) -> np.ndarray:
    """Completion times of ``samples`` independent executions under ``model``, event by event."""
    rng = np.random.default_rng(seed)
    total = np.zeros(samples)
    clock = rng.exponential(1 / rate, samples)  # exposed time left before the next failure
    for length in segments(work, period, checkpoint):
        pending = np.arange(samples)  # samples still in this segment
        while pending.size:
            e = clock[pending]
            done = e >= length
            ok = pending[done]
            total[ok] += length
            clock[ok] -= length
            hit = pending[~done]
            total[hit] += clock[hit] + downtime  # the failure, then the downtime (no failure there)
            if model == "simulation":
                total[hit] += recovery  # no failure during the recovery either
                clock[hit] = rng.exponential(1 / rate, hit.size)
            else:
                clock[hit] = rng.exponential(1 / rate, hit.size)
                recovering = hit
                while recovering.size:  # a failure during the recovery: downtime, recovery again
                    r = clock[recovering]
                    through = r >= recovery
                    fine = recovering[through]
                    total[fine] += recovery
                    clock[fine] -= recovery
                    again = recovering[~through]
                    total[again] += clock[again] + downtime
                    clock[again] = rng.exponential(1 / rate, again.size)
                    recovering = again
            pending = hit  # the period starts again from its beginning
    return total


#: work, rate, period, checkpoint, recovery, downtime: rate x period from 0.6 to 1.6
CASES = {
    "paper-R=C": (10.0, 0.25, 4.0, 1.0, 1.0, 2.0),  # N^ff = 3, tau_last = 1; R = C as in §1.3.3
    "long-recovery": (10.0, 0.25, 4.0, 1.0, 2.0, 2.0),
    "whole-periods": (12.0, 0.4, 4.0, 1.0, 1.0, 0.5),  # tau_last = 0: four checkpointed periods
    "no-checkpoint": (3.0, 0.2, math.inf, 1.0, 1.5, 1.0),  # one incomplete period only
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
@pytest.mark.parametrize("model", FAILURE_MODELS)
def test_formula_matches_its_model_and_not_the_other(model, case):
    work, rate, period, C, R, D = CASES[case]
    kw = {"rate": rate, "period": period, "checkpoint": C, "recovery": R, "downtime": D}
    times = simulate(model, work, samples=SAMPLES, seed=sum(map(ord, model + case)), **kw)
    mean = times.mean()
    se = times.std(ddof=1) / math.sqrt(times.size)
    assert se < 2e-3 * mean  # the interval is narrow enough to tell the models apart
    own = FORMULAS[model](work, **kw)
    other = FORMULAS["simulation" if model == "eq1.6" else "eq1.6"](work, **kw)
    assert abs(own - mean) < 4 * se, (own, mean, se)
    assert abs(other - mean) > 8 * se, (other, mean, se)
    assert times.min() >= sum(segments(work, period, C)) - 1e-9  # never faster than fault-free


def test_eq16_is_never_below_the_simulation_model():
    # e^{rate R} (1 + rate D) >= 1 + rate (D + R): failures during recoveries only add time
    for work, rate, period, C, R, D in CASES.values():
        kw = {"rate": rate, "period": period, "checkpoint": C, "recovery": R, "downtime": D}
        assert expected_time(work, **kw) > expected_time_simulation(work, **kw)
        assert expected_time(work, **{**kw, "recovery": 0.0}) == pytest.approx(
            expected_time_simulation(work, **{**kw, "recovery": 0.0}), rel=1e-14)


def test_simulation_without_failures_is_the_fault_free_time():
    # a sanity check of the simulator itself: a vanishing rate gives work + N^ff C exactly
    times = simulate("eq1.6", 10.0, rate=1e-12, period=4.0, checkpoint=1.0, recovery=1.0, downtime=2.0,
                     samples=1000, seed=1)
    assert np.allclose(times, 13.0, rtol=0, atol=1e-9)


@pytest.mark.parametrize("model", FAILURE_MODELS)
def test_pack_model_is_the_scalar_formula_of_its_failure_model(model):
    pack = MalleablePack.synthetic(5, 40, seed=8)
    res = Resilience(node_mtbf=2 * 365 * 86400.0, c=3.0, beta=0.5, downtime=120.0, model=model)
    pm = PackModel(pack, res)
    ks = np.arange(2, 41, 2)
    alphas = np.array([0.0, 0.013, 0.37, 1.0])
    grid = pm.expected(np.arange(5)[:, None, None], ks[None, :, None], alphas[None, None, :])
    assert grid.shape == (5, ks.size, alphas.size)
    for i in range(pack.n):
        for a, k in enumerate(ks):
            C = pm.checkpoint(i, k)
            assert C == pytest.approx(3.0 * pack.memory[i] / k + 0.5, rel=1e-15)
            for b, alpha in enumerate(alphas):
                want = FORMULAS[model](alpha * pack.time(i, k), rate=k / res.node_mtbf, period=pm.period(i, k),
                                       checkpoint=C, recovery=C, downtime=120.0)
                assert grid[i, a, b] == pytest.approx(want, rel=1e-12, abs=1e-300)
                assert pm.expected(i, int(k), float(alpha)) == pytest.approx(want, rel=1e-12, abs=1e-300)


def test_pack_model_under_frequent_failures_matches_its_simulation():
    # a pack whose application-level rate makes rate x tau about 1.1: PackModel's t^R against the
    # event-by-event simulation of each model (R = C, as PackModel assumes)
    pack = MalleablePack(p=4, memory=[40.0], seq=[5.0], par=[60.0])
    for model in FAILURE_MODELS:
        pm = PackModel(pack, Resilience(node_mtbf=200.0, downtime=3.0, model=model))
        C, tau, rate = pm.checkpoint(0, 4), pm.period(0, 4), 4 / 200.0
        assert 0.5 < rate * tau < 2
        times = simulate(model, pack.time(0, 4), rate=rate, period=tau, checkpoint=C, recovery=C, downtime=3.0,
                         samples=SAMPLES, seed=3)
        se = times.std(ddof=1) / math.sqrt(times.size)
        assert abs(pm.expected(0, 4, 1.0) - times.mean()) < 4 * se
