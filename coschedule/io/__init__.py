"""JSON formats for instances and solutions (documented in ``docs/formats.md``).

Moldable tasks (``coschedule/moldable-instance``, ``coschedule/coschedule``) and rigid jobs
under silent errors (``coschedule/rigid-instance``, ``coschedule/failure-scenario``,
``coschedule/rigid-schedule``); :func:`load_any_instance` reads either kind of instance.

Every file carries ``format`` and ``version``. Readers validate everything on the way in and
raise :class:`~coschedule.errors.FormatError` (file syntax, missing or mistyped fields) or
:class:`~coschedule.errors.InvalidInstance` (model invariants) with the file name and the
JSON location of the problem, e.g. ``inst.json: tasks[3].times[5]: not a number: "x"``.

Modules
-------
* :mod:`.files` -- the one reader of user files, :func:`read_json`, :func:`save_json`;
* :mod:`.moldable` -- moldable instances and co-schedules (k-in-p);
* :mod:`.rigid` -- rigid instances, failure scenarios and rigid schedules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from coschedule.errors import FormatError
from coschedule.model import MoldableInstance
from coschedule.rigid import RigidInstance

from .files import FORMAT_VERSION, read_file_bytes, read_json, read_utf8, save_json
from .moldable import (
    INSTANCE_FORMAT,
    SOLUTION_FORMAT,
    coschedule_from_dict,
    coschedule_to_dict,
    instance_from_dict,
    instance_to_dict,
    load_coschedule,
    load_instance,
    save_instance,
)
from .rigid import (
    MAKESPAN_RTOL,
    RIGID_INSTANCE_FORMAT,
    RIGID_SCHEDULE_FORMAT,
    SCENARIO_FORMAT,
    load_rigid_instance,
    load_scenario,
    load_schedule,
    rigid_instance_from_dict,
    rigid_instance_to_dict,
    save_rigid_instance,
    save_scenario,
    save_schedule,
    scenario_from_dict,
    scenario_to_dict,
    schedule_from_dict,
    schedule_to_dict,
)

__all__ = [
    "INSTANCE_FORMAT",
    "SOLUTION_FORMAT",
    "FORMAT_VERSION",
    "read_file_bytes",
    "read_utf8",
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
