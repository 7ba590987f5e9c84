"""The Python API as a notebook user meets it: keyword-only parameters where the order is not
obvious, ``coschedule.exact.rigid`` reachable from ``import coschedule.exact``, short reprs."""

from __future__ import annotations

import subprocess
import sys

import pytest

import coschedule
from coschedule.generators import (
    random_instance,
    random_profile,
    random_rigid,
    synthetic_instance,
    synthetic_profile,
    synthetic_rigid,
)
from coschedule.heuristics import RIGID_HEURISTICS, pack_approx, r_list
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


def test_fast_makespans_and_priority_order_take_priority_and_seed_by_keyword():
    import numpy as np

    from coschedule.heuristics.fast import makespans
    from coschedule.heuristics.priorities import priority_order

    inst = random_rigid(4, 4, seed=2)
    f = np.zeros((2, 4), dtype=np.int64)
    with pytest.raises(TypeError):
        makespans(inst, f, "r-list-0", "LA")  # type: ignore[misc]
    with pytest.raises(TypeError):
        priority_order(inst, "RANDOM", 3)  # type: ignore[misc]
    assert makespans(inst, f, "r-list-0", priority="LA", seed=0).shape == (2,)
    assert sorted(priority_order(inst, "RANDOM", seed=3).tolist()) == [0, 1, 2, 3]


def test_import_exact_exposes_rigid():
    code = "import coschedule.exact as e; print(e.rigid.solve_rigid_opt.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "solve_rigid_opt"


def test_big_objects_print_one_line():
    big = synthetic_rigid(2000, seed=1)
    assert repr(big) == "RigidInstance(n=2000, P=10000, name='synthetic-rigid-n2000-P10000')"
    f = SilentErrors.from_qbar(big, 0.3).scenarios(big, size=1, seed=1)[0]
    assert repr(f).startswith("FailureScenario(n=2000, total_failures=")
    sched = r_list(big, f)
    text = repr(sched)
    assert text.startswith("Schedule(executions=") and "jobs=2000" in text and "\n" not in text
    mold = synthetic_instance(500, 8, seed=1)
    assert repr(mold) == "MoldableInstance(n=500, p=8, name='synthetic-n500-p8')"
    cs = pack_approx(synthetic_instance(50, 8, seed=1), 3)
    assert repr(cs).startswith("CoSchedule(packs=") and repr(cs).endswith("tasks=50)")
    for obj in (big, f, sched, mold, cs):
        assert len(repr(obj)) < 120


def test_small_objects_print_every_field():
    inst = rigid_instance([(2, 3.0), (1, 5.0)], 4, name="demo")
    assert repr(inst) == (
        "RigidInstance(jobs=(RigidJob(procs=2, time=3.0, name=None), RigidJob(procs=1, time=5.0, "
        "name=None)), P=4, name='demo')"
    )
    assert repr(FailureScenario((0, 2))) == "FailureScenario(failures=(0, 2))"
    sched = r_list(inst, FailureScenario((0, 0)))
    assert repr(sched).startswith("Schedule(executions=(Execution(job=")
    small = random_instance(2, 3, seed=1)
    names = {name: getattr(coschedule, name) for name in coschedule.__all__}  # exported lazily: not all in vars()
    assert eval(repr(small), names) == small  # a full repr round-trips
