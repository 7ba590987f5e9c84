"""The formats of rigid jobs under silent errors ([Benoit2021] §3): rigid
instances (``coschedule/rigid-instance``), failure scenarios (``coschedule/failure-scenario``)
and rigid schedules, the executions of every attempt (``coschedule/rigid-schedule``).

Same conventions as the other formats: ``format`` and ``version`` first, every problem reported
with the file name and the JSON location, e.g. ``inst.json: jobs[3].procs: 12 > P 10``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from coschedule.errors import FormatError, InvalidInstance
from coschedule.rigid import FailureScenario, RigidInstance, RigidJob
from coschedule.schedule import Execution, Outcome, Schedule

from .files import FORMAT_VERSION, _check_header, read_json, save_json

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
