"""Replay the stored adversarial instances (instances/rigid) and check the paper's claims."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from coschedule.io import load_rigid_instance, load_scenario
from coschedule.rigid import lower_bound
from coschedule.validate import validate_rigid
from heuristics import RIGID_HEURISTICS
from heuristics.priorities import PRIORITIES

RIGID = Path(__file__).resolve().parents[2] / "instances" / "rigid"


def _load(name):
    instance = load_rigid_instance(RIGID / f"{name}.json")
    return instance, load_scenario(RIGID / f"{name}.scenario.json", instance)


@pytest.mark.parametrize("priority", sorted(PRIORITIES))
@pytest.mark.parametrize("backfill", ["b", "nb"])
def test_prop3_every_shelf_schedule_costs_H_P(priority, backfill):
    instance, scenario = _load("prop3-P8")
    H = sum(1 / j for j in range(1, 9))
    schedule = RIGID_HEURISTICS[f"r-shelf-{backfill}"](instance, scenario, priority=priority, seed=0)
    assert validate_rigid(instance, scenario, schedule) == pytest.approx(H, rel=1e-9)
    # the optimum is 1 (= t_max(f) = L(f)); R-List and the shelf-filling variant reach it
    assert lower_bound(instance, scenario) == pytest.approx(1.0)
    for name in ("r-list-0", "r-list-1", "r-list-q", f"r-shelffill-{backfill}"):
        s = RIGID_HEURISTICS[name](instance, scenario, priority=priority, seed=0)
        assert validate_rigid(instance, scenario, s) == pytest.approx(1.0, rel=1e-9)


@pytest.mark.parametrize("backfill", ["b", "nb"])
def test_prop4_shelffill_lpt_costs_P(backfill):
    instance, scenario = _load("prop4-P3")
    schedule = RIGID_HEURISTICS[f"r-shelffill-{backfill}"](instance, scenario, priority="LPT")
    assert validate_rigid(instance, scenario, schedule) == pytest.approx(3.0, rel=1e-9)
    # L(f) = A(f)/P = 1 + (1 + eps)(P - 1)/P, reached by the proof's schedule
    assert lower_bound(instance, scenario) == pytest.approx(1 + 1.001 * 2 / 3, rel=1e-9)
    assert math.isclose(3.0 / lower_bound(instance, scenario), 1.7993, rel_tol=1e-4)
