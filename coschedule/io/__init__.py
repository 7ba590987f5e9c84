"""JSON formats for instances and solutions (documented in ``docs/formats.md``).

Moldable tasks (``coschedule/moldable-instance``, ``coschedule/coschedule``) and rigid jobs
under silent errors (``coschedule/rigid-instance``, ``coschedule/failure-scenario``,
``coschedule/rigid-schedule``); :func:`load_any_instance` reads either kind of instance.

Every file carries ``format`` and ``version``. Readers validate everything on the way in and
raise :class:`~coschedule.errors.FormatError` (file syntax, missing or mistyped fields) or
:class:`~coschedule.errors.InvalidInstance` (model invariants) with the file name and the
JSON location of the problem, e.g. ``inst.json: tasks[3].times[5]: not a number: "x"``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coschedule.errors import FormatError, InvalidInstance
from coschedule.model import Allocation, CoSchedule, MoldableInstance, MoldableTask, Pack
from coschedule.rigid import FailureScenario, RigidInstance, RigidJob
from coschedule.schedule import Execution, Outcome, Schedule

__all__ = [
    "INSTANCE_FORMAT",
    "SOLUTION_FORMAT",
    "FORMAT_VERSION",
    "read_json",
    "instance_to_dict",
    "instance_from_dict",
    "load_instance",
    "save_instance",
    "coschedule_to_dict",
    "coschedule_from_dict",
    "load_coschedule",
    "save_json",
    "RIGID_INSTANCE_FORMAT",
    "SCENARIO_FORMAT",
    "RIGID_SCHEDULE_FORMAT",
    "rigid_instance_to_dict",
    "rigid_instance_from_dict",
    "load_rigid_instance",
    "save_rigid_instance",
    "scenario_to_dict",
    "scenario_from_dict",
    "load_scenario",
    "save_scenario",
    "schedule_to_dict",
    "schedule_from_dict",
    "load_schedule",
    "save_schedule",
    "load_any_instance",
    "INSTANCE_READERS",
    "MAKESPAN_RTOL",
]

INSTANCE_FORMAT = "coschedule/moldable-instance"
SOLUTION_FORMAT = "coschedule/coschedule"
FORMAT_VERSION = 1


def read_file_bytes(path: Path, kind: str) -> bytes:
    """The bytes of a user's input file (``kind`` names what it should be, e.g. "a JSON file");
    a missing file, a folder or an unreadable file is a one-line :class:`FormatError`."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise FormatError(f"{path}: is a directory, expected {kind}") from None
    except OSError as e:
        raise FormatError(f"{path}: cannot read: {e.strerror or e}") from None


def read_utf8(path: Path, kind: str) -> str:
    """:func:`read_file_bytes` decoded as UTF-8 (an error names the byte)."""
    try:
        return read_file_bytes(path, kind).decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; a syntax error names the file, line and column."""
    path = Path(path)
    text = read_utf8(path, "a JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None


def save_json(data: Any, path: str | Path) -> None:
    """Write JSON atomically (a temporary file renamed over the target)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def _check_header(data: Any, where: str, expected: str) -> None:
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected a JSON object at top level")
    fmt = data.get("format")
    if fmt != expected:
        raise FormatError(f"{where}: format is {fmt!r}, expected {expected!r}")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise FormatError(f"{where}: unsupported version {version!r} (this reader knows {FORMAT_VERSION})")


def _field(obj: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if key not in obj:
        raise FormatError(f"{where}: missing field {key!r}")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise FormatError(f"{where}.{key}: expected {names}, got {value!r}")
    return value


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


# ================================================================ rigid jobs (§3 of the paper)
#
# Three more formats for ``resilient-rigid-jobs.md``: rigid instances, failure scenarios and
# rigid schedules (executions of every attempt). Same conventions as above: ``format`` and
# ``version`` first, every problem reported with the file name and the JSON location, e.g.
# ``inst.json: jobs[3].procs: 12 > P 10``.

RIGID_INSTANCE_FORMAT = "coschedule/rigid-instance"
SCENARIO_FORMAT = "coschedule/failure-scenario"
RIGID_SCHEDULE_FORMAT = "coschedule/rigid-schedule"



def _at(where: str, loc: str) -> str:
    """``file: loc`` (``loc`` is a JSON path such as ``jobs[3].procs``), or ``file`` alone."""
    return f"{where}: {loc}" if loc else where


def _key(loc: str, key: str) -> str:
    return f"{loc}.{key}" if loc else key


def _get(
    obj: dict[str, Any], key: str, where: str, loc: str, kind: type | tuple[type, ...], *, default: Any = ...
) -> Any:
    """``obj[key]`` checked against ``kind`` (bools are never numbers); located errors."""
    if key not in obj:
        if default is not ...:
            return default
        raise FormatError(f"{_at(where, loc)}: missing field {key!r}")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise FormatError(f"{_at(where, _key(loc, key))}: expected {names}, got {value!r}")
    return value


def _number(obj: dict[str, Any], key: str, where: str, loc: str) -> float:
    """A finite JSON number (``NaN`` and ``Infinity`` are refused)."""
    value = obj.get(key)
    if key not in obj:
        raise FormatError(f"{_at(where, loc)}: missing field {key!r}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(f"{_at(where, _key(loc, key))}: not a number: {value!r}")
    try:
        x = float(value)
    except OverflowError:
        x = math.inf
    if not math.isfinite(x):
        raise FormatError(f"{_at(where, _key(loc, key))}: not a finite number: {value!r}")
    return x


def _optional_name(obj: dict[str, Any], key: str, where: str, loc: str) -> str | None:
    name = obj.get(key)
    if name is not None and not isinstance(name, str):
        raise FormatError(f"{_at(where, _key(loc, key))}: expected a string, got {name!r}")
    return name


# ---------------------------------------------------------------- rigid instances


def rigid_instance_to_dict(instance: RigidInstance) -> dict[str, Any]:
    """The ``coschedule/rigid-instance`` object of ``instance`` (``name`` omitted when ``None``)."""
    out: dict[str, Any] = {"format": RIGID_INSTANCE_FORMAT, "version": FORMAT_VERSION}
    if instance.name is not None:
        out["name"] = instance.name
    out["P"] = int(instance.P)
    jobs = []
    for job in instance.jobs:
        entry: dict[str, Any] = {"procs": int(job.procs), "time": float(job.time)}
        if job.name is not None:
            entry["name"] = job.name
        jobs.append(entry)
    out["jobs"] = jobs
    return out


def rigid_instance_from_dict(data: Any, where: str = "instance") -> RigidInstance:
    """Parse a ``coschedule/rigid-instance`` object; ``where`` prefixes every error message.

    Raises
    ------
    FormatError
        wrong header, missing or mistyped field (``jobs[2].time: not a number: 'x'``).
    InvalidInstance
        a model invariant: ``P < 1``, no job, ``procs`` outside ``1..P``
        (``jobs[3].procs: 12 > P 10``), a time that is not positive.
    """
    _check_header(data, where, RIGID_INSTANCE_FORMAT)
    P = _get(data, "P", where, "", int)
    if P < 1:
        raise InvalidInstance(f"{where}: P: platform size must be >= 1, got {P}")
    raw_jobs = _get(data, "jobs", where, "", list)
    if not raw_jobs:
        raise InvalidInstance(f"{where}: jobs: instance has no job")
    jobs = []
    for j, raw in enumerate(raw_jobs):
        loc = f"jobs[{j}]"
        if not isinstance(raw, dict):
            raise FormatError(f"{where}: {loc}: expected an object, got {raw!r}")
        procs = _get(raw, "procs", where, loc, int)
        if procs < 1:
            raise InvalidInstance(f"{where}: {loc}.procs: must be >= 1, got {procs}")
        if procs > P:
            raise InvalidInstance(f"{where}: {loc}.procs: {procs} > P {P}")
        time = _number(raw, "time", where, loc)
        if time <= 0:
            raise InvalidInstance(f"{where}: {loc}.time: must be positive, got {raw['time']!r}")
        name = _optional_name(raw, "name", where, loc)
        jobs.append(RigidJob(procs, time, name))
    name = data.get("name")
    return RigidInstance(tuple(jobs), P, name if isinstance(name, str) else None)


def load_rigid_instance(path: str | Path) -> RigidInstance:
    """Read a rigid-job instance file (``format: coschedule/rigid-instance``)."""
    return rigid_instance_from_dict(read_json(path), str(path))


def save_rigid_instance(instance: RigidInstance, path: str | Path) -> None:
    save_json(rigid_instance_to_dict(instance), path)


# ---------------------------------------------------------------- failure scenarios


def scenario_to_dict(
    scenario: FailureScenario,
    *,
    instance: RigidInstance | str | None = None,
    qbar: float | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """The ``coschedule/failure-scenario`` object of ``scenario``.

    ``instance`` (an instance, whose name is stored and whose size is checked, or a name) and
    the provenance ``qbar`` / ``seed`` are optional and informative only.
    """
    out: dict[str, Any] = {"format": SCENARIO_FORMAT, "version": FORMAT_VERSION}
    if isinstance(instance, RigidInstance):
        scenario.check(instance)
        instance = instance.name
    if instance is not None:
        out["instance"] = instance
    if qbar is not None:
        out["qbar"] = float(qbar)
    if seed is not None:
        out["seed"] = int(seed)
    out["failures"] = [int(f) for f in scenario.failures]
    return out


def scenario_from_dict(
    data: Any, where: str = "scenario", *, instance: RigidInstance | None = None
) -> FailureScenario:
    """Parse a ``coschedule/failure-scenario`` object.

    With ``instance``, the number of entries must equal its number of jobs (the same check as
    :meth:`FailureScenario.check`, with the location). ``instance``, ``qbar`` and ``seed`` in
    the file are provenance: type-checked, otherwise ignored (read them with :func:`read_json`).
    """
    _check_header(data, where, SCENARIO_FORMAT)
    raw = _get(data, "failures", where, "", list)
    for j, f in enumerate(raw):
        if isinstance(f, bool) or not isinstance(f, int):
            raise FormatError(f"{where}: failures[{j}]: expected an integer >= 0, got {f!r}")
        if f < 0:
            raise InvalidInstance(f"{where}: failures[{j}]: negative number of failures {f}")
    _optional_name(data, "instance", where, "")
    if "qbar" in data:
        qbar = _number(data, "qbar", where, "")
        if not 0 <= qbar < 1:
            raise InvalidInstance(f"{where}: qbar: must be in [0, 1), got {qbar!r}")
    if "seed" in data and data["seed"] is not None:
        _get(data, "seed", where, "", int)
    scenario = FailureScenario(tuple(raw))
    if instance is not None and len(raw) != instance.n:
        raise InvalidInstance(
            f"{where}: failures: {len(raw)} entries but the instance has {instance.n} jobs"
        )
    return scenario


def load_scenario(path: str | Path, instance: RigidInstance | None = None) -> FailureScenario:
    """Read a failure-scenario file (``format: coschedule/failure-scenario``)."""
    return scenario_from_dict(read_json(path), str(path), instance=instance)


def save_scenario(
    scenario: FailureScenario,
    path: str | Path,
    *,
    instance: RigidInstance | str | None = None,
    qbar: float | None = None,
    seed: int | None = None,
) -> None:
    save_json(scenario_to_dict(scenario, instance=instance, qbar=qbar, seed=seed), path)


# ---------------------------------------------------------------- rigid schedules

#: relative tolerance between a file's ``makespan`` and its latest ``end``
MAKESPAN_RTOL = 1e-9

_OUTCOMES = {o.value: o for o in Outcome}


def schedule_to_dict(
    schedule: Schedule,
    *,
    instance: RigidInstance | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``coschedule/rigid-schedule`` object of ``schedule``.

    With ``instance``, its name (if any) and ``P`` are stored, for the reader's convenience.
    ``extra`` entries (e.g. ``{"heuristic": "R-LIST-0"}``) go into the header, before
    ``executions``. Executions keep their order; ``nodes`` is written only when set.
    """
    out: dict[str, Any] = {"format": RIGID_SCHEDULE_FORMAT, "version": FORMAT_VERSION}
    if instance is not None:
        if instance.name is not None:
            out["instance"] = instance.name
        out["P"] = int(instance.P)
    out["makespan"] = float(schedule.makespan)
    if extra:
        out.update(extra)
    executions = []
    for e in schedule.executions:
        entry: dict[str, Any] = {
            "job": int(e.job),
            "attempt": int(e.attempt),
            "start": float(e.start),
            "end": float(e.end),
            "procs": int(e.procs),
            "outcome": e.outcome.value,
        }
        if e.nodes is not None:
            entry["nodes"] = [int(x) for x in e.nodes]
        executions.append(entry)
    out["executions"] = executions
    return out


def schedule_from_dict(data: Any, where: str = "schedule") -> tuple[Schedule, dict[str, Any]]:
    """Parse a ``coschedule/rigid-schedule`` object; returns the schedule and its header.

    Only the structure is checked here (types, ``job``/``attempt``/``procs``/``nodes`` integers
    ``>= 0``, finite times, a known ``outcome``, and, if present, ``makespan`` equal to the
    latest ``end`` within ``MAKESPAN_RTOL``). Whether the schedule is feasible for an instance
    and a scenario is the job of :func:`coschedule.validate.validate_rigid`.
    """
    _check_header(data, where, RIGID_SCHEDULE_FORMAT)
    raw_execs = _get(data, "executions", where, "", list)
    executions = []
    for i, raw in enumerate(raw_execs):
        loc = f"executions[{i}]"
        if not isinstance(raw, dict):
            raise FormatError(f"{where}: {loc}: expected an object, got {raw!r}")
        ints = {}
        for key in ("job", "attempt", "procs"):
            value = _get(raw, key, where, loc, int)
            if value < 0:
                raise FormatError(f"{where}: {loc}.{key}: expected an integer >= 0, got {value}")
            ints[key] = value
        start = _number(raw, "start", where, loc)
        end = _number(raw, "end", where, loc)
        outcome_name = raw.get("outcome", Outcome.SUCCESS.value)
        if outcome_name not in _OUTCOMES:
            raise FormatError(
                f"{where}: {loc}.outcome: {outcome_name!r} is not one of {', '.join(map(repr, _OUTCOMES))}"
            )
        nodes = None
        if raw.get("nodes") is not None:
            raw_nodes = _get(raw, "nodes", where, loc, list)
            for k, x in enumerate(raw_nodes):
                if isinstance(x, bool) or not isinstance(x, int) or x < 0:
                    raise FormatError(f"{where}: {loc}.nodes[{k}]: expected a processor index >= 0, got {x!r}")
            nodes = tuple(raw_nodes)
        executions.append(
            Execution(ints["job"], ints["attempt"], start, end, ints["procs"], _OUTCOMES[outcome_name], nodes)
        )
    schedule = Schedule(tuple(executions))
    if "makespan" in data:
        claimed = _number(data, "makespan", where, "")
        if not math.isclose(claimed, schedule.makespan, rel_tol=MAKESPAN_RTOL, abs_tol=1e-12):
            raise FormatError(
                f"{where}: makespan: {claimed!r} differs from the latest end {schedule.makespan!r}"
            )
    header = {key: v for key, v in data.items() if key != "executions"}
    return schedule, header


def load_schedule(path: str | Path) -> tuple[Schedule, dict[str, Any]]:
    """Read a rigid-schedule file; returns the schedule and its header (``makespan``, ...)."""
    return schedule_from_dict(read_json(path), str(path))


def save_schedule(
    schedule: Schedule,
    path: str | Path,
    *,
    instance: RigidInstance | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    save_json(schedule_to_dict(schedule, instance=instance, extra=extra), path)


# ---------------------------------------------------------------- any instance

#: instance formats that :func:`load_any_instance` knows, format name -> reader
INSTANCE_READERS: dict[str, Callable[[Any, str], MoldableInstance | RigidInstance]] = {
    INSTANCE_FORMAT: instance_from_dict,
    RIGID_INSTANCE_FORMAT: rigid_instance_from_dict,
}


def load_any_instance(path: str | Path) -> MoldableInstance | RigidInstance:
    """Read an instance file of any known format, chosen by its ``format`` field.

    Returns a :class:`MoldableInstance` (``coschedule/moldable-instance``) or a
    :class:`RigidInstance` (``coschedule/rigid-instance``); any other ``format`` raises
    :class:`FormatError` listing the known ones.
    """
    where = str(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected a JSON object at top level")
    fmt = data.get("format")
    reader = INSTANCE_READERS.get(fmt) if isinstance(fmt, str) else None
    if reader is None:
        known = ", ".join(repr(k) for k in INSTANCE_READERS)
        raise FormatError(f"{where}: format is {fmt!r}, expected an instance format: one of {known}")
    instance: MoldableInstance | RigidInstance = reader(data, where)
    return instance
