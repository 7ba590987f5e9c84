"""The Python API as a notebook user meets it: keyword-only parameters where the order is not
obvious, ``coschedule.exact.rigid`` reachable from ``import coschedule.exact``, short reprs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from coschedule.generators import (
    random_instance,
    random_profile,
    random_rigid,
    synthetic_instance,
    synthetic_profile,
    synthetic_rigid,
)
from coschedule.heuristics import RIGID_HEURISTICS, r_list
from coschedule.rigid import FailureScenario, SilentErrors, rigid_instance


def test_sample_and_scenarios_take_size_and_seed_by_keyword():
    inst = random_rigid(5, 8, seed=0)
    model = SilentErrors.from_qbar(inst, 0.3)
    with pytest.raises(TypeError):
        model.sample(inst, 10, 1)  # type: ignore[misc]
    with pytest.raises(TypeError):
        model.scenarios(inst, 10)  # type: ignore[misc]
    assert model.sample(inst, size=10, seed=1).shape == (10, 5)
    assert len(model.scenarios(inst, size=3, seed=1)) == 3


@pytest.mark.parametrize(
    "call",
    [
        lambda: random_rigid(4, 8, 1),
        lambda: synthetic_rigid(10, 10000, 1),
        lambda: random_instance(3, 4, 1),
        lambda: synthetic_instance(3, 4, 1),
        lambda: random_profile(4, 1),
        lambda: synthetic_profile(1024, 4, 0.1),
        lambda: rigid_instance([(1, 1.0)], 1, "name"),
    ],
)
def test_generators_take_seed_by_keyword(call):
    with pytest.raises(TypeError):
        call()


def test_registry_heuristics_take_priority_and_seed_by_keyword():
    inst = random_rigid(4, 4, seed=2)
    sc = FailureScenario.none(inst.n)
    fn = RIGID_HEURISTICS["r-list-0"]
    with pytest.raises(TypeError):
        fn(inst, sc, "LPT")  # type: ignore[misc]
    assert fn(inst, sc, priority="LPT", seed=0) == r_list(inst, sc, m=0, priority="LPT")


def test_import_exact_exposes_rigid():
    code = "import coschedule.exact as e; print(e.rigid.solve_rigid_opt.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "solve_rigid_opt"
