"""The formats of the moldable tasks of k-in-p co-scheduling ([Aupy2017]):
instances (``coschedule/moldable-instance``) and solutions, i.e. packs of tasks with their
processor allocations (``coschedule/coschedule``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from coschedule.errors import FormatError, InvalidInstance
from coschedule.model import Allocation, CoSchedule, MoldableInstance, MoldableTask, Pack

from .files import FORMAT_VERSION, _check_header, _field, read_json, save_json

INSTANCE_FORMAT = "coschedule/moldable-instance"
SOLUTION_FORMAT = "coschedule/coschedule"


# ---------------------------------------------------------------- instances


def instance_to_dict(instance: MoldableInstance) -> dict[str, Any]:
    tasks = []
    for task in instance.tasks:
        times = [None if math.isinf(t) else t for t in task.times]
        entry: dict[str, Any] = {"times": times}
        if task.name is not None:
            entry["name"] = task.name
        if task.min_procs != 1:
            entry["min_procs"] = task.min_procs
        if task.memory:
            entry["memory"] = task.memory
        tasks.append(entry)
    out: dict[str, Any] = {"format": INSTANCE_FORMAT, "version": FORMAT_VERSION}
    if instance.name is not None:
        out["name"] = instance.name
    out["p"] = instance.p
    out["tasks"] = tasks
    return out


def instance_from_dict(data: Any, where: str = "instance") -> MoldableInstance:
    _check_header(data, where, INSTANCE_FORMAT)
    p = _field(data, "p", where, int)
    if p < 1:
        raise InvalidInstance(f"{where}.p: platform size must be >= 1, got {p}")
    raw_tasks = _field(data, "tasks", where, list)
    if not raw_tasks:
        raise InvalidInstance(f"{where}.tasks: instance has no task")
    tasks = []
    for i, raw in enumerate(raw_tasks):
        loc = f"{where}: tasks[{i}]"
        if not isinstance(raw, dict):
            raise FormatError(f"{loc}: expected an object, got {raw!r}")
        times = _field(raw, "times", loc, list)
        if not times:
            raise FormatError(f"{loc}.times: empty profile")
        min_procs = raw.get("min_procs", 1)
        if isinstance(min_procs, bool) or not isinstance(min_procs, int):
            raise FormatError(f"{loc}.min_procs: expected int, got {min_procs!r}")
        if min_procs > p:
            raise InvalidInstance(
                f"{loc}: needs at least {min_procs} processors but the platform has p = {p}"
            )
        for j, t in enumerate(times):
            if j + 1 < min_procs:
                continue
            if isinstance(t, bool) or not isinstance(t, (int, float)):
                raise FormatError(f"{loc}.times[{j}]: not a number: {t!r}")
            if t < 0:
                raise InvalidInstance(f"{loc}.times[{j}]: negative time {t!r}")
        memory = raw.get("memory", 0.0)
        if isinstance(memory, bool) or not isinstance(memory, (int, float)):
            raise FormatError(f"{loc}.memory: expected a number, got {memory!r}")
        name = raw.get("name")
        if name is not None and not isinstance(name, str):
            raise FormatError(f"{loc}.name: expected a string, got {name!r}")
        try:
            tasks.append(
                MoldableTask(
                    tuple(math.inf if t is None else t for t in times),
                    min_procs=min_procs,
                    memory=float(memory),
                    name=name,
                )
            )
        except InvalidInstance as e:
            msg = str(e)
            for prefix in (f"task {name!r}: ", "task: "):
                msg = msg.removeprefix(prefix)
            raise InvalidInstance(f"{loc}: {msg}") from None
    name = data.get("name")
    try:
        return MoldableInstance(tuple(tasks), p, name=name if isinstance(name, str) else None)
    except InvalidInstance as e:
        raise InvalidInstance(f"{where}: {e}") from None


def load_instance(path: str | Path) -> MoldableInstance:
    """Read a moldable-task instance file (``format: coschedule/moldable-instance``)."""
    return instance_from_dict(read_json(path), str(path))


def save_instance(instance: MoldableInstance, path: str | Path) -> None:
    save_json(instance_to_dict(instance), path)


# ---------------------------------------------------------------- solutions


def coschedule_to_dict(
    instance: MoldableInstance,
    coschedule: CoSchedule,
    *,
    k: int | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    packs = []
    for pack in coschedule.packs:
        packs.append(
            {
                "cost": pack.cost(instance),
                "tasks": [
                    {
                        "task": a.task,
                        **({"name": instance.tasks[a.task].name} if instance.tasks[a.task].name else {}),
                        "procs": a.procs,
                        "time": instance.time(a.task, a.procs),
                    }
                    for a in pack.allocations
                ],
            }
        )
    out: dict[str, Any] = {"format": SOLUTION_FORMAT, "version": FORMAT_VERSION}
    if instance.name is not None:
        out["instance"] = instance.name
    out["p"] = instance.p
    if k is not None:
        out["k"] = k
    out["cost"] = coschedule.cost(instance)
    if extra:
        out.update(extra)
    out["packs"] = packs
    return out


def coschedule_from_dict(data: Any, where: str = "solution") -> tuple[CoSchedule, dict[str, Any]]:
    """Parse a solution file; returns the co-schedule and its header (``cost``, ``k``, ...)."""
    _check_header(data, where, SOLUTION_FORMAT)
    raw_packs = _field(data, "packs", where, list)
    packs = []
    for b, raw in enumerate(raw_packs):
        loc = f"{where}: packs[{b}]"
        if not isinstance(raw, dict):
            raise FormatError(f"{loc}: expected an object")
        allocations = []
        for j, item in enumerate(_field(raw, "tasks", loc, list)):
            iloc = f"{loc}.tasks[{j}]"
            if not isinstance(item, dict):
                raise FormatError(f"{iloc}: expected an object")
            allocations.append(
                Allocation(_field(item, "task", iloc, int), _field(item, "procs", iloc, int))
            )
        packs.append(Pack(tuple(allocations)))
    header = {key: v for key, v in data.items() if key != "packs"}
    return CoSchedule(tuple(packs)), header


def load_coschedule(path: str | Path) -> tuple[CoSchedule, dict[str, Any]]:
    return coschedule_from_dict(read_json(path), str(path))
