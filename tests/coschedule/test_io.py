"""JSON instance and solution files: round trips and error messages that locate the problem."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from coschedule_testing import instances
from hypothesis import HealthCheck, given, settings

from coschedule.errors import FormatError, InvalidInstance
from coschedule.io import (
    FORMAT_VERSION,
    INSTANCE_FORMAT,
    SOLUTION_FORMAT,
    coschedule_from_dict,
    coschedule_to_dict,
    instance_from_dict,
    instance_to_dict,
    load_coschedule,
    load_instance,
    read_json,
    save_instance,
    save_json,
)
from coschedule.model import CoSchedule, MoldableInstance, MoldableTask, Pack
from coschedule.validate import validate_coschedule
from coschedule.heuristics.packs import pack_approx


def _write(path, data):
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _instance_dict(**over):
    data = {
        "format": INSTANCE_FORMAT,
        "version": FORMAT_VERSION,
        "p": 4,
        "tasks": [{"times": [8, 5, 4, 4]}, {"times": [6, 3], "name": "b"}],
    }
    data.update(over)
    return data


# ------------------------------------------------------------------ round trips


def test_instance_round_trip_by_hand(tmp_path):
    inst = MoldableInstance(
        (
            MoldableTask((8.0, 5.0, 4.0), name="a", memory=12.5),
            MoldableTask((None, 7.0, 5.0), min_procs=2),
        ),
        3,
        name="demo",
    )
    path = tmp_path / "inst.json"
    save_instance(inst, path)
    raw = json.loads(path.read_text())
    assert raw["format"] == INSTANCE_FORMAT and raw["version"] == FORMAT_VERSION
    assert raw["tasks"][1] == {"times": [None, 7.0, 5.0], "min_procs": 2}
    assert load_instance(path) == inst
    assert not (tmp_path / "inst.json.tmp").exists()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(instances())
def test_instance_round_trip(tmp_path, inst):
    path = tmp_path / "inst.json"
    save_instance(inst, path)
    back = load_instance(path)
    assert back == inst
    assert (back.time_matrix == inst.time_matrix).all()


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(instances())
def test_solution_round_trip(tmp_path, inst):
    cs = pack_approx(inst)
    path = tmp_path / "sol.json"
    save_json(coschedule_to_dict(inst, cs, k=inst.p, extra={"method": "pack-approx"}), path)
    back, header = load_coschedule(path)
    assert back == cs
    assert header["format"] == SOLUTION_FORMAT
    assert header["k"] == inst.p and header["p"] == inst.p
    assert header["method"] == "pack-approx"
    assert "packs" not in header
    validate_coschedule(inst, back, header["k"], claimed_cost=header["cost"])


def test_solution_dict_contents():
    inst = MoldableInstance((MoldableTask((8.0, 5.0), name="a"), MoldableTask((6.0, 3.0))), 2)
    cs = CoSchedule((Pack.of({0: 1, 1: 1}),))
    data = coschedule_to_dict(inst, cs)
    assert data["cost"] == 8.0 and "k" not in data
    assert data["packs"] == [
        {
            "cost": 8.0,
            "tasks": [
                {"task": 0, "name": "a", "procs": 1, "time": 8.0},
                {"task": 1, "procs": 1, "time": 6.0},
            ],
        }
    ]


def test_numpy_scalars_are_saved_as_plain_numbers(tmp_path):
    # the model accepts numpy integers for p and min_procs; the files must still be JSON
    inst = MoldableInstance(
        (MoldableTask((None, 3.0, 2.0), min_procs=np.int64(2), memory=np.float32(5.0)),),
        np.int64(3),
    )
    path = tmp_path / "np.json"
    save_instance(inst, path)
    back = load_instance(path)
    assert back == inst
    assert type(back.p) is int and type(back.tasks[0].min_procs) is int


# ------------------------------------------------------------------ file-level errors


def test_malformed_json_names_file_line_and_column(tmp_path):
    path = _write(tmp_path / "bad.json", '{\n  "p": 4,\n  "tasks": [,]\n}\n')
    with pytest.raises(FormatError, match=rf"{path}:3:13: malformed JSON"):
        read_json(path)
    with pytest.raises(FormatError, match=r"bad\.json:3:13"):
        load_instance(path)


def test_missing_file(tmp_path):
    with pytest.raises(FormatError, match=r"no such file"):
        load_instance(tmp_path / "absent.json")


def test_directory_instead_of_file(tmp_path):
    with pytest.raises(FormatError, match=r"is a directory"):
        load_instance(tmp_path)


def test_not_utf8(tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"name": "\xe9"}')
    with pytest.raises(FormatError, match=r"not UTF-8"):
        load_instance(path)


def test_top_level_not_an_object(tmp_path):
    with pytest.raises(FormatError, match=r"expected a JSON object"):
        load_instance(_write(tmp_path / "list.json", "[1, 2]"))


@pytest.mark.parametrize(
    "over, match",
    [
        ({"format": "coschedule/coschedule"}, r"format is 'coschedule/coschedule', expected"),
        ({"format": None}, r"format is None"),
        ({"version": 2}, r"unsupported version 2"),
        ({"version": "1"}, r"unsupported version '1'"),
    ],
)
def test_wrong_format_or_version(tmp_path, over, match):
    path = _write(tmp_path / "inst.json", _instance_dict(**over))
    with pytest.raises(FormatError, match=rf"inst\.json: {match}"):
        load_instance(path)


def test_solution_reader_rejects_instance_file(tmp_path):
    path = _write(tmp_path / "inst.json", _instance_dict())
    with pytest.raises(FormatError, match=r"format is 'coschedule/moldable-instance'"):
        load_coschedule(path)


@pytest.mark.parametrize("field", ["p", "tasks"])
def test_missing_top_level_field(tmp_path, field):
    data = _instance_dict()
    del data[field]
    path = _write(tmp_path / "inst.json", data)
    with pytest.raises(FormatError, match=rf"inst\.json: missing field '{field}'"):
        load_instance(path)


def test_missing_times_field(tmp_path):
    data = _instance_dict(tasks=[{"times": [1.0]}, {"name": "x"}])
    with pytest.raises(FormatError, match=r"tasks\[1\]: missing field 'times'"):
        load_instance(_write(tmp_path / "inst.json", data))


@pytest.mark.parametrize("p", ["4", 4.0, True, None])
def test_mistyped_p(tmp_path, p):
    with pytest.raises(FormatError, match=r"inst\.json\.p: expected int"):
        load_instance(_write(tmp_path / "inst.json", _instance_dict(p=p)))


def test_non_positive_p(tmp_path):
    with pytest.raises(InvalidInstance, match=r"\.p: platform size must be >= 1, got 0"):
        load_instance(_write(tmp_path / "inst.json", _instance_dict(p=0)))


def test_no_task(tmp_path):
    with pytest.raises(InvalidInstance, match=r"tasks: instance has no task"):
        load_instance(_write(tmp_path / "inst.json", _instance_dict(tasks=[])))


# ------------------------------------------------------------------ task-level errors


@pytest.mark.parametrize("bad", ["x", None, True, [1], {"t": 1}])
def test_non_number_time_located(tmp_path, bad):
    data = _instance_dict(tasks=[{"times": [4, 2]}, {"times": [6, 5, bad]}])
    path = _write(tmp_path / "inst.json", data)
    with pytest.raises(FormatError, match=rf"inst\.json: tasks\[1\]\.times\[2\]: not a number"):
        load_instance(path)


@pytest.mark.parametrize("bad", [-5, -0.5])
def test_negative_time_located(tmp_path, bad):
    data = _instance_dict(tasks=[{"times": [6, bad]}])
    with pytest.raises(InvalidInstance, match=rf"tasks\[0\]\.times\[1\]: negative time {bad}"):
        load_instance(_write(tmp_path / "inst.json", data))


def test_zero_time_rejected(tmp_path):
    data = _instance_dict(tasks=[{"times": [4]}, {"times": [6, 0]}])
    with pytest.raises(InvalidInstance, match=r"tasks\[1\]: time on 2 processors must be positive"):
        load_instance(_write(tmp_path / "inst.json", data))


def test_nan_time_rejected(tmp_path):
    path = _write(tmp_path / "inst.json", json.dumps(_instance_dict()).replace("[8, 5", "[NaN, 5"))
    with pytest.raises(InvalidInstance, match=r"tasks\[0\]: time on 1 processors"):
        load_instance(path)


def test_integer_too_large_for_a_float_rejected(tmp_path):
    data = _instance_dict(tasks=[{"times": [10**400, 5]}])
    with pytest.raises(InvalidInstance, match=r"tasks\[0\]: time on 1 processors must be positive"):
        load_instance(_write(tmp_path / "inst.json", data))


@pytest.mark.parametrize("name", [None, "solver"])
def test_non_monotone_profile_names_task(tmp_path, name):
    task = {"times": [6, 4, 5]}
    if name:
        task["name"] = name
    data = _instance_dict(tasks=[{"times": [3]}, task])
    with pytest.raises(InvalidInstance) as err:
        load_instance(_write(tmp_path / "inst.json", data))
    msg = str(err.value)
    assert msg.startswith(f"{tmp_path / 'inst.json'}: tasks[1]: time increases from 2 to 3")
    assert "(1.1)" in msg
    assert "task 'solver'" not in msg and "task:" not in msg  # the model's prefix is replaced


def test_superlinear_profile_names_task(tmp_path):
    data = _instance_dict(tasks=[{"times": [6, 2.5]}])
    with pytest.raises(InvalidInstance, match=r"tasks\[0\]: work decreases from 1 to 2"):
        load_instance(_write(tmp_path / "inst.json", data))


def test_empty_profile(tmp_path):
    data = _instance_dict(tasks=[{"times": []}])
    with pytest.raises(FormatError, match=r"tasks\[0\]\.times: empty profile"):
        load_instance(_write(tmp_path / "inst.json", data))


def test_min_procs_in_files(tmp_path):
    ok = _instance_dict(tasks=[{"times": [None, "ignored", 5, 4], "min_procs": 3}])
    inst = load_instance(_write(tmp_path / "ok.json", ok))
    assert inst.time(0, 2) == math.inf and inst.time(0, 3) == 5.0
    for bad, times, exc, match in [
        ("3", [None, None, 5, 4], FormatError, r"tasks\[0\]\.min_procs: expected int"),
        (0, [5, 5, 5, 4], InvalidInstance, r"tasks\[0\]: min_procs 0 < 1"),
        (9, [None, None, 5, 4], InvalidInstance, r"tasks\[0\]: needs at least 9 processors but the platform has p = 4"),
        (2, [None, None, 5, 4], FormatError, r"tasks\[0\]\.times\[1\]: not a number: None"),
    ]:
        data = _instance_dict(tasks=[{"times": times, "min_procs": bad}])
        with pytest.raises(exc, match=match):
            load_instance(_write(tmp_path / "bad.json", data))


def test_min_procs_above_p(tmp_path):
    data = _instance_dict(p=2, tasks=[{"times": [None, None, 5], "min_procs": 3}])
    with pytest.raises(InvalidInstance, match=r"inst\.json: tasks\[0\]: needs at least 3 processors"):
        load_instance(_write(tmp_path / "inst.json", data))


@pytest.mark.parametrize(
    "task, match",
    [
        ("notatask", r"tasks\[0\]: expected an object"),
        ({"times": [1], "memory": "big"}, r"tasks\[0\]\.memory: expected a number"),
        ({"times": [1], "name": 3}, r"tasks\[0\]\.name: expected a string"),
        ({"times": 5}, r"tasks\[0\]\.times: expected list"),
    ],
)
def test_mistyped_task_fields(tmp_path, task, match):
    with pytest.raises(FormatError, match=match):
        load_instance(_write(tmp_path / "inst.json", _instance_dict(tasks=[task])))


def test_in_memory_reader_uses_default_location():
    with pytest.raises(FormatError, match=r"^instance: tasks\[0\]\.times\[0\]: not a number"):
        instance_from_dict(_instance_dict(tasks=[{"times": ["x"]}]))
    assert instance_from_dict(instance_to_dict(instance_from_dict(_instance_dict()))).p == 4


# ------------------------------------------------------------------ solution errors


@pytest.mark.parametrize(
    "packs, match",
    [
        (None, r"missing field 'packs'"),
        ([3], r"packs\[0\]: expected an object"),
        ([{"cost": 1}], r"packs\[0\]: missing field 'tasks'"),
        ([{"tasks": [7]}], r"packs\[0\]\.tasks\[0\]: expected an object"),
        ([{"tasks": [{"task": 0}]}], r"packs\[0\]\.tasks\[0\]: missing field 'procs'"),
        ([{"tasks": [{"task": "0", "procs": 1}]}], r"packs\[0\]\.tasks\[0\]\.task: expected int"),
    ],
)
def test_malformed_solution(tmp_path, packs, match):
    data = {"format": SOLUTION_FORMAT, "version": FORMAT_VERSION}
    if packs is not None:
        data["packs"] = packs
    with pytest.raises(FormatError, match=rf"sol\.json: {match}"):
        load_coschedule(_write(tmp_path / "sol.json", data))


def test_solution_from_dict():
    cs, header = coschedule_from_dict(
        {"format": SOLUTION_FORMAT, "version": 1, "cost": 3.0,
         "packs": [{"tasks": [{"task": 1, "procs": 2}, {"task": 0, "procs": 1}]}]}
    )
    assert cs == CoSchedule((Pack.of([(1, 2), (0, 1)]),))
    assert header == {"format": SOLUTION_FORMAT, "version": 1, "cost": 3.0}


# ---------------------------------------------------------------- writing a user's file


def test_writing_replaces_the_file_whole_only_when_the_block_ends(tmp_path):
    from coschedule.io.files import writing

    target = tmp_path / "out.csv"
    target.write_text("former\n")
    with writing(target) as fh:
        fh.write("new\n")
        assert target.read_text() == "former\n"  # not yet
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


@pytest.mark.parametrize("error", [KeyboardInterrupt, ValueError])
def test_writing_leaves_nothing_when_the_block_fails(tmp_path, error):
    from coschedule.io.files import writing

    target = tmp_path / "out.csv"
    target.write_text("former\n")
    with pytest.raises(error), writing(target) as fh:
        fh.write("half")
        raise error()
    assert target.read_text() == "former\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]  # no temporary file


def test_writing_refuses_a_folder_and_a_missing_folder_naming_the_path(tmp_path):
    from coschedule.io.files import writing

    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    for path, message in [(tmp_path / "d", "is a directory"), (tmp_path / "link", "is a directory"),
                          (tmp_path / "nodir" / "x.json", "no such directory")]:
        with pytest.raises(FormatError, match=message) as info, writing(path):
            pass
        assert str(info.value).startswith(f"{path}: ")
    assert (tmp_path / "link").is_symlink()
