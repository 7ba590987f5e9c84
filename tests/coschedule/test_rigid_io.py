"""JSON files for rigid jobs: instances, failure scenarios and schedules.

Round trips, and error messages that name the file and the JSON location of the problem.
"""

from __future__ import annotations

import json

import pytest
from coschedule_testing import seeds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coschedule.errors import FormatError, InvalidInstance
from coschedule.families import (
    prop3_instance,
    prop3_witness_schedule,
    prop4_instance,
    prop4_witness_schedule,
)
from coschedule.generators import random_instance, random_rigid, synthetic_rigid
from coschedule.io import (
    FORMAT_VERSION,
    INSTANCE_FORMAT,
    RIGID_INSTANCE_FORMAT,
    RIGID_SCHEDULE_FORMAT,
    SCENARIO_FORMAT,
    load_any_instance,
    load_rigid_instance,
    load_scenario,
    load_schedule,
    rigid_instance_from_dict,
    rigid_instance_to_dict,
    save_instance,
    save_rigid_instance,
    save_scenario,
    save_schedule,
    scenario_from_dict,
    scenario_to_dict,
    schedule_from_dict,
    schedule_to_dict,
)
from coschedule.model import MoldableInstance
from coschedule.rigid import FailureScenario, RigidInstance, RigidJob, SilentErrors
from coschedule.schedule import Execution, Outcome, Schedule
from coschedule.validate import validate_rigid

NO_FIXTURE_CHECK = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(path, data):
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _inst(**over):
    data = {
        "format": RIGID_INSTANCE_FORMAT,
        "version": FORMAT_VERSION,
        "P": 10,
        "jobs": [{"procs": 4, "time": 2.5, "name": "a"}, {"procs": 10, "time": 1}],
    }
    data.update(over)
    return data


def _scen(**over):
    data = {"format": SCENARIO_FORMAT, "version": FORMAT_VERSION, "failures": [0, 2]}
    data.update(over)
    return data


def _sched(**over):
    data = {
        "format": RIGID_SCHEDULE_FORMAT,
        "version": FORMAT_VERSION,
        "executions": [
            {"job": 0, "attempt": 0, "start": 0, "end": 2.5, "procs": 4, "outcome": "success"},
        ],
    }
    data.update(over)
    return data


# ------------------------------------------------------------------ round trips


def test_rigid_instance_round_trip_by_hand(tmp_path):
    inst = RigidInstance((RigidJob(4, 2.5, "a"), RigidJob(10, 1.0)), 10, name="demo")
    path = tmp_path / "inst.json"
    save_rigid_instance(inst, path)
    raw = json.loads(path.read_text())
    assert raw == {
        "format": RIGID_INSTANCE_FORMAT,
        "version": 1,
        "name": "demo",
        "P": 10,
        "jobs": [{"procs": 4, "time": 2.5, "name": "a"}, {"procs": 10, "time": 1.0}],
    }
    assert load_rigid_instance(path) == inst
    assert not (tmp_path / "inst.json.tmp").exists()


@NO_FIXTURE_CHECK
@given(seeds, st.integers(1, 12), st.integers(1, 20), st.booleans())
def test_rigid_instance_round_trip(tmp_path, seed, n, P, integral):
    inst = random_rigid(n, P, seed=seed, integral=integral)
    path = tmp_path / "inst.json"
    save_rigid_instance(inst, path)
    back = load_rigid_instance(path)
    assert back == inst
    assert (back.times == inst.times).all() and (back.procs == inst.procs).all()
    assert type(back.P) is int and all(type(j.procs) is int for j in back.jobs)


def test_synthetic_rigid_round_trip_in_memory():
    inst = synthetic_rigid(seed=3)
    assert rigid_instance_from_dict(rigid_instance_to_dict(inst)) == inst


@NO_FIXTURE_CHECK
@given(seeds, st.integers(1, 10), st.floats(0.0, 0.9))
def test_scenario_round_trip(tmp_path, seed, n, qbar):
    inst = random_rigid(n, 8, seed=seed)
    scenario = SilentErrors.from_qbar(inst, qbar).scenarios(inst, size=1, seed=seed)[0]
    path = tmp_path / "f.json"
    save_scenario(scenario, path, instance=inst, qbar=qbar, seed=seed)
    raw = json.loads(path.read_text())
    assert raw["instance"] == inst.name and raw["qbar"] == qbar and raw["seed"] == seed
    assert raw["failures"] == list(scenario.failures)
    assert load_scenario(path) == scenario
    assert load_scenario(path, inst) == scenario


def test_scenario_minimal_dict():
    f = FailureScenario((1, 0, 3))
    assert scenario_to_dict(f) == {"format": SCENARIO_FORMAT, "version": 1, "failures": [1, 0, 3]}
    assert scenario_to_dict(f, instance="x")["instance"] == "x"
    assert scenario_from_dict(scenario_to_dict(f)) == f


def test_scenario_to_dict_checks_the_instance_size():
    inst = random_rigid(3, 4, seed=0)
    with pytest.raises(InvalidInstance, match=r"scenario has 2 entries but the instance has 3 jobs"):
        scenario_to_dict(FailureScenario((0, 1)), instance=inst)


@pytest.mark.parametrize("P", [1, 3, 4])
def test_schedule_round_trip_families(tmp_path, P):
    for (inst, f), sched in [
        (prop3_instance(P), prop3_witness_schedule(P)),
        (prop4_instance(P), prop4_witness_schedule(P)),
    ]:
        path = tmp_path / "s.json"
        save_schedule(sched, path, instance=inst, extra={"method": "witness"})
        back, header = load_schedule(path)
        assert back == sched
        assert header["format"] == RIGID_SCHEDULE_FORMAT and header["P"] == P
        assert header["instance"] == inst.name and header["method"] == "witness"
        assert header["makespan"] == sched.makespan and "executions" not in header
        validate_rigid(inst, f, back, contiguous=True)


def test_schedule_dict_contents():
    sched = Schedule(
        (
            Execution(1, 0, 0.0, 2.0, 3, Outcome.FAILURE),
            Execution(1, 1, 2.0, 4.0, 3, Outcome.SUCCESS, (0, 1, 2)),
        )
    )
    data = schedule_to_dict(sched)
    assert data == {
        "format": RIGID_SCHEDULE_FORMAT,
        "version": 1,
        "makespan": 4.0,
        "executions": [
            {"job": 1, "attempt": 0, "start": 0.0, "end": 2.0, "procs": 3, "outcome": "failure"},
            {"job": 1, "attempt": 1, "start": 2.0, "end": 4.0, "procs": 3, "outcome": "success", "nodes": [0, 1, 2]},
        ],
    }
    back, header = schedule_from_dict(data)
    assert back == sched and header["makespan"] == 4.0


def test_schedule_outcome_defaults_to_success_and_makespan_is_optional():
    sched, header = schedule_from_dict(_sched())
    assert sched.executions[0].outcome is Outcome.SUCCESS
    assert "makespan" not in header


def test_load_any_instance(tmp_path):
    rigid = random_rigid(4, 6, seed=1)
    moldable = random_instance(3, 4, seed=1)
    save_rigid_instance(rigid, tmp_path / "r.json")
    save_instance(moldable, tmp_path / "m.json")
    r = load_any_instance(tmp_path / "r.json")
    m = load_any_instance(tmp_path / "m.json")
    assert isinstance(r, RigidInstance) and r == rigid
    assert isinstance(m, MoldableInstance) and m == moldable


@pytest.mark.parametrize(
    "data, match",
    [
        (
            _scen(),
            (
                r"format is 'coschedule/failure-scenario', expected an instance format: one of "
                r"'coschedule/moldable-instance', 'coschedule/rigid-instance'"
            ),
        ),
        ({"version": 1}, r"format is None, expected an instance format"),
        ([1], r"expected a JSON object at top level"),
    ],
)
def test_load_any_instance_unknown_format(tmp_path, data, match):
    path = _write(tmp_path / "x.json", data)
    with pytest.raises(FormatError, match=rf"x\.json: {match}"):
        load_any_instance(path)


def test_load_any_instance_keeps_located_errors(tmp_path):
    path = _write(tmp_path / "x.json", _inst(jobs=[{"procs": 12, "time": 1}]))
    with pytest.raises(InvalidInstance, match=r"x\.json: jobs\[0\]\.procs: 12 > P 10"):
        load_any_instance(path)
    path = _write(tmp_path / "y.json", {"format": INSTANCE_FORMAT, "version": 1, "p": 2, "tasks": []})
    with pytest.raises(InvalidInstance, match=r"y\.json\.tasks: instance has no task"):
        load_any_instance(path)


# ------------------------------------------------------------------ file-level errors


@pytest.mark.parametrize("loader", [load_rigid_instance, load_scenario, load_schedule, load_any_instance])
def test_malformed_json(tmp_path, loader):
    path = _write(tmp_path / "bad.json", '{\n  "P": 4,\n  "jobs": [,]\n}\n')
    with pytest.raises(FormatError, match=r"bad\.json:3:12: malformed JSON"):
        loader(path)


@pytest.mark.parametrize(
    "loader, data",
    [
        (load_rigid_instance, _scen()),
        (load_scenario, _inst()),
        (load_schedule, _inst()),
        (load_rigid_instance, {"format": INSTANCE_FORMAT, "version": 1, "p": 2, "tasks": [{"times": [1]}]}),
    ],
)
def test_wrong_format(tmp_path, loader, data):
    path = _write(tmp_path / "f.json", data)
    with pytest.raises(FormatError, match=rf"f\.json: format is '{data['format']}', expected 'coschedule/"):
        loader(path)


@pytest.mark.parametrize("loader, make", [(load_rigid_instance, _inst), (load_scenario, _scen), (load_schedule, _sched)])
def test_wrong_version(tmp_path, loader, make):
    with pytest.raises(FormatError, match=r"f\.json: unsupported version 2 \(this reader knows 1\)"):
        loader(_write(tmp_path / "f.json", make(version=2)))


# ------------------------------------------------------------------ instance errors


@pytest.mark.parametrize(
    "over, exc, match",
    [
        ({"jobs": [{"procs": 2, "time": 1}, {"procs": 12, "time": 3}]}, InvalidInstance, r"jobs\[1\]\.procs: 12 > P 10"),
        ({"jobs": [{"procs": 0, "time": 1}]}, InvalidInstance, r"jobs\[0\]\.procs: must be >= 1, got 0"),
        ({"jobs": [{"procs": 2.0, "time": 1}]}, FormatError, r"jobs\[0\]\.procs: expected int, got 2\.0"),
        ({"jobs": [{"procs": True, "time": 1}]}, FormatError, r"jobs\[0\]\.procs: expected int, got True"),
        ({"jobs": [{"time": 1}]}, FormatError, r"jobs\[0\]: missing field 'procs'"),
        ({"jobs": [{"procs": 1}]}, FormatError, r"jobs\[0\]: missing field 'time'"),
        ({"jobs": [{"procs": 1, "time": 1}, {"procs": 1, "time": -2}]}, InvalidInstance,
         r"jobs\[1\]\.time: must be positive, got -2"),
        ({"jobs": [{"procs": 1, "time": 0}]}, InvalidInstance, r"jobs\[0\]\.time: must be positive, got 0"),
        ({"jobs": [{"procs": 1, "time": "3"}]}, FormatError, r"jobs\[0\]\.time: not a number: '3'"),
        ({"jobs": [{"procs": 1, "time": 10**400}]}, FormatError, r"jobs\[0\]\.time: not a finite number"),
        ({"jobs": [{"procs": 1, "time": 1, "name": 7}]}, FormatError, r"jobs\[0\]\.name: expected a string, got 7"),
        ({"jobs": ["job"]}, FormatError, r"jobs\[0\]: expected an object, got 'job'"),
        ({"jobs": []}, InvalidInstance, r"jobs: instance has no job"),
        ({"jobs": {"procs": 1}}, FormatError, r"jobs: expected list"),
        ({"P": 0}, InvalidInstance, r"P: platform size must be >= 1, got 0"),
        ({"P": "10"}, FormatError, r"P: expected int, got '10'"),
        ({"P": None}, FormatError, r"P: expected int, got None"),
    ],
)
def test_rigid_instance_errors_are_located(tmp_path, over, exc, match):
    path = _write(tmp_path / "inst.json", _inst(**over))
    with pytest.raises(exc, match=rf"^{tmp_path / 'inst.json'}: {match}"):
        load_rigid_instance(path)


@pytest.mark.parametrize("field", ["P", "jobs"])
def test_rigid_instance_missing_field(tmp_path, field):
    data = _inst()
    del data[field]
    with pytest.raises(FormatError, match=rf"inst\.json: missing field '{field}'"):
        load_rigid_instance(_write(tmp_path / "inst.json", data))


def test_rigid_instance_nan_time(tmp_path):
    text = json.dumps(_inst()).replace('"time": 1}', '"time": NaN}')
    with pytest.raises(FormatError, match=r"jobs\[1\]\.time: not a finite number: nan"):
        load_rigid_instance(_write(tmp_path / "inst.json", text))


def test_rigid_instance_in_memory_default_location():
    with pytest.raises(InvalidInstance, match=r"^instance: jobs\[0\]\.procs: 11 > P 10"):
        rigid_instance_from_dict(_inst(jobs=[{"procs": 11, "time": 1}]))


def test_rigid_instance_ignores_unknown_fields_and_non_string_name():
    inst = rigid_instance_from_dict(_inst(name=5, extra={"x": 1}))
    assert inst.name is None and inst.n == 2


# ------------------------------------------------------------------ scenario errors


@pytest.mark.parametrize(
    "over, exc, match",
    [
        ({"failures": [0, 1.0]}, FormatError, r"failures\[1\]: expected an integer >= 0, got 1\.0"),
        ({"failures": [0, "2"]}, FormatError, r"failures\[1\]: expected an integer >= 0, got '2'"),
        ({"failures": [True]}, FormatError, r"failures\[0\]: expected an integer >= 0, got True"),
        ({"failures": [None]}, FormatError, r"failures\[0\]: expected an integer >= 0, got None"),
        ({"failures": [3, -1]}, InvalidInstance, r"failures\[1\]: negative number of failures -1"),
        ({"failures": 3}, FormatError, r"failures: expected list, got 3"),
        ({"qbar": 1.5}, InvalidInstance, r"qbar: must be in \[0, 1\), got 1\.5"),
        ({"qbar": "0.3"}, FormatError, r"qbar: not a number: '0\.3'"),
        ({"seed": 1.5}, FormatError, r"seed: expected int, got 1\.5"),
        ({"instance": 3}, FormatError, r"instance: expected a string, got 3"),
    ],
)
def test_scenario_errors_are_located(tmp_path, over, exc, match):
    path = _write(tmp_path / "f.json", _scen(**over))
    with pytest.raises(exc, match=rf"^{tmp_path / 'f.json'}: {match}"):
        load_scenario(path)


def test_scenario_missing_failures(tmp_path):
    data = _scen()
    del data["failures"]
    with pytest.raises(FormatError, match=r"f\.json: missing field 'failures'"):
        load_scenario(_write(tmp_path / "f.json", data))


def test_scenario_length_mismatch(tmp_path):
    inst = rigid_instance_from_dict(_inst())
    path = _write(tmp_path / "f.json", _scen(failures=[0, 1, 2]))
    scenario = load_scenario(path)  # fine on its own
    with pytest.raises(InvalidInstance, match=r"scenario has 3 entries but the instance has 2 jobs"):
        scenario.check(inst)
    with pytest.raises(InvalidInstance, match=r"f\.json: failures: 3 entries but the instance has 2 jobs"):
        load_scenario(path, inst)


# ------------------------------------------------------------------ schedule errors


def _exec(**over):
    e = {"job": 0, "attempt": 0, "start": 0, "end": 2.5, "procs": 4}
    e.update(over)
    return e


@pytest.mark.parametrize(
    "executions, match",
    [
        ([3], r"executions\[0\]: expected an object, got 3"),
        ([_exec(), {"job": 0, "attempt": 1, "start": 2.5, "procs": 4}], r"executions\[1\]: missing field 'end'"),
        ([_exec(job="0")], r"executions\[0\]\.job: expected int, got '0'"),
        ([_exec(attempt=-1)], r"executions\[0\]\.attempt: expected an integer >= 0, got -1"),
        ([_exec(procs=1.5)], r"executions\[0\]\.procs: expected int, got 1\.5"),
        ([_exec(start="x")], r"executions\[0\]\.start: not a number: 'x'"),
        ([_exec(outcome="failed")], r"executions\[0\]\.outcome: 'failed' is not one of 'success', 'failure'"),
        ([_exec(nodes=[0, "1"])], r"executions\[0\]\.nodes\[1\]: expected a processor index >= 0, got '1'"),
        ([_exec(nodes=3)], r"executions\[0\]\.nodes: expected list, got 3"),
    ],
)
def test_schedule_errors_are_located(tmp_path, executions, match):
    path = _write(tmp_path / "s.json", _sched(executions=executions))
    with pytest.raises(FormatError, match=rf"^{tmp_path / 's.json'}: {match}"):
        load_schedule(path)


def test_schedule_makespan_must_match(tmp_path):
    path = _write(tmp_path / "s.json", _sched(makespan=3.0))
    with pytest.raises(FormatError, match=r"s\.json: makespan: 3\.0 differs from the latest end 2\.5"):
        load_schedule(path)
    _, header = load_schedule(_write(tmp_path / "t.json", _sched(makespan=2.5)))
    assert header["makespan"] == 2.5


def test_schedule_missing_executions(tmp_path):
    data = _sched()
    del data["executions"]
    with pytest.raises(FormatError, match=r"s\.json: missing field 'executions'"):
        load_schedule(_write(tmp_path / "s.json", data))


# ------------------------------------------------------------------ documentation


def test_docs_examples_are_valid():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.DOTALL)]
    by_format: dict[str, list] = {}
    for b in blocks:
        by_format.setdefault(b["format"], []).append(b)
    inst = rigid_instance_from_dict(by_format[RIGID_INSTANCE_FORMAT][0])
    scenarios = [scenario_from_dict(b) for b in by_format[SCENARIO_FORMAT]]
    sched, header = schedule_from_dict(by_format[RIGID_SCHEDULE_FORMAT][0])
    assert inst == prop3_instance(3)[0] and scenarios[0] == prop3_instance(3)[1]
    assert sched == prop3_witness_schedule(3)
    assert validate_rigid(inst, scenarios[0], sched, contiguous=True) == header["makespan"]
    # the sampled example is reproducible from the documented call
    rigid = random_rigid(4, 8, seed=1, integral=True)
    assert scenarios[1] == SilentErrors.from_qbar(rigid, 0.3).scenarios(rigid, size=1, seed=7)[0]
    assert by_format[SCENARIO_FORMAT][1]["instance"] == rigid.name
