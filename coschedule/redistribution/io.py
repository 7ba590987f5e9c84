"""Packs of malleable applications (``coschedule/malleable-pack``) and the per-application
timeline of a pack run ([Aupy2017] §1.3.3-1.5; documented in ``docs/formats.md``).

A pack file is the compact form of a :class:`~coschedule.redistribution.MalleablePack`: ``p``
processors and, per application, its memory ``m_i`` and its fault-free times, either in closed
form ``t_{i,j} = seq + par / j`` (eq. (1.13) is of this form) or as a table ``times[j-1]``::

    {"format": "coschedule/malleable-pack", "version": 1, "name": "demo", "p": 16,
     "applications": [{"name": "A", "memory": 1000, "seq": 40, "par": 3600},
                      {"name": "B", "memory": 2000, "times": [900, 500, 380, 300]}]}

:func:`load_pack` also takes a moldable instance (``coschedule/moldable-instance``: its
``memory`` fields are the ``m_i``). Errors are one line naming the file, the field and the
application's index (``pack.json: applications[3].memory: expected a number >= 0, got -1``).

The timeline (:func:`timeline_rows`, :func:`write_timeline_csv`) is one CSV row per phase of
every application of a :class:`~coschedule.redistribution.simulation.PackResult`.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import numpy as np

from coschedule.errors import FormatError, InvalidInstance
from coschedule.io.files import FORMAT_VERSION, _check_header, _field, read_json, save_json, writing
from coschedule.io.moldable import INSTANCE_FORMAT, instance_from_dict
from coschedule.redistribution.model import MalleablePack

__all__ = [
    "PACK_FORMAT",
    "TIMELINE_COLUMNS",
    "load_pack",
    "pack_from_dict",
    "pack_to_dict",
    "save_pack",
    "timeline_rows",
    "write_timeline_csv",
]

PACK_FORMAT = "coschedule/malleable-pack"

#: the columns of the timeline CSV, in order (``docs/formats.md``)
TIMELINE_COLUMNS = ("app", "name", "kind", "start", "end", "procs", "nodes", "alpha_start", "alpha_end",
                    "outcome")

_NUMBER = (int, float)


def _number(value: Any) -> Any:
    """A float as JSON writes it, integers without ``.0`` (``1834567`` rather than ``1834567.0``)."""
    x = float(value)
    return int(x) if x.is_integer() and abs(x) < 2**53 else x


# ---------------------------------------------------------------- the pack format


def pack_to_dict(pack: MalleablePack) -> dict[str, Any]:
    """The compact JSON object of ``pack`` (``seq``/``par`` or ``times`` per application, its
    ``min_procs`` only when above two). :func:`pack_from_dict` reads it back equal."""
    apps = []
    for i in range(pack.n):
        entry: dict[str, Any] = {"name": pack.names[i], "memory": _number(pack.memory[i])}
        if pack.table is not None:
            entry["times"] = [_number(t) for t in pack.table[i]]
        else:
            assert pack.seq is not None and pack.par is not None
            entry["seq"] = _number(pack.seq[i])
            entry["par"] = _number(pack.par[i])
        assert pack.min_procs is not None
        if int(pack.min_procs[i]) > 2:
            entry["min_procs"] = int(pack.min_procs[i])
        apps.append(entry)
    out: dict[str, Any] = {"format": PACK_FORMAT, "version": FORMAT_VERSION}
    if pack.name is not None:
        out["name"] = pack.name
    out["p"] = pack.p
    out["applications"] = apps
    return out


def _nonnegative(raw: dict[str, Any], key: str, loc: str) -> float:
    value = _field(raw, key, loc, _NUMBER)
    if not math.isfinite(value) or value < 0:
        raise InvalidInstance(f"{loc}.{key}: expected a number >= 0, got {value!r}")
    return float(value)


def _times(raw: dict[str, Any], loc: str, min_procs: int) -> list[float]:
    times = _field(raw, "times", loc, list)
    if not times:
        raise FormatError(f"{loc}.times: empty profile")
    out = []
    for j, t in enumerate(times):
        if t is None and j + 1 < min_procs:  # below the minimum: never read
            out.append(math.inf)
            continue
        if isinstance(t, bool) or not isinstance(t, _NUMBER):
            raise FormatError(f"{loc}.times[{j}]: not a number: {t!r}")
        if not math.isfinite(t) or t <= 0:
            raise InvalidInstance(f"{loc}.times[{j}]: expected a time > 0, got {t!r}")
        out.append(float(t))
    if len(out) < min_procs:
        raise InvalidInstance(f"{loc}.times: {len(out)} times, but min_procs = {min_procs} needs a time on "
                              f"{min_procs} processors")
    return out


def pack_from_dict(data: Any, where: str = "pack") -> MalleablePack:
    """Read a ``coschedule/malleable-pack`` object (module docstring); every application in one
    form, closed (``seq``, ``par``) or tabulated (``times``, extended by its last value)."""
    _check_header(data, where, PACK_FORMAT)
    p = _field(data, "p", where, int)
    if p < 2:
        raise InvalidInstance(f"{where}.p: expected an integer >= 2 (processors come in pairs), got {p}")
    raw_apps = _field(data, "applications", where, list)
    if not raw_apps:
        raise InvalidInstance(f"{where}.applications: the pack has no application")
    names: list[str] = []
    memory: list[float] = []
    seq: list[float] = []
    par: list[float] = []
    rows: list[list[float]] = []
    kmin: list[int] = []
    form = None
    for i, raw in enumerate(raw_apps):
        loc = f"{where}: applications[{i}]"
        if not isinstance(raw, dict):
            raise FormatError(f"{loc}: expected an object, got {raw!r}")
        name = raw.get("name", f"T{i}")
        if not isinstance(name, str):
            raise FormatError(f"{loc}.name: expected a string, got {name!r}")
        names.append(name)
        memory.append(_nonnegative(raw, "memory", loc))
        mp = raw.get("min_procs", 1)
        if isinstance(mp, bool) or not isinstance(mp, int) or mp < 1:
            raise FormatError(f"{loc}.min_procs: expected an integer >= 1, got {mp!r}")
        if mp > p:
            raise InvalidInstance(f"{loc}: needs at least {mp} processors but p = {p}")
        kmin.append(mp)
        has_closed = "seq" in raw or "par" in raw
        has_table = "times" in raw
        if has_closed == has_table:
            raise FormatError(f"{loc}: give either seq and par (t_j = seq + par/j) or times, "
                              + ("not both" if has_closed else "got neither"))
        mine = "closed" if has_closed else "table"
        if form is not None and mine != form:
            raise FormatError(f"{loc}: the pack mixes closed-form (seq, par) and tabulated (times) "
                              "applications; use one form for all")
        form = mine
        if has_closed:
            a, b = _nonnegative(raw, "seq", loc), _nonnegative(raw, "par", loc)
            if a + b <= 0:
                raise InvalidInstance(f"{loc}: seq and par are both 0 (the application takes no time)")
            seq.append(a)
            par.append(b)
        else:
            rows.append(_times(raw, loc, mp))
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise FormatError(f"{where}.name: expected a string, got {name!r}")
    table = None
    if form == "table":
        width = max(len(r) for r in rows)
        table = np.array([r + [r[-1]] * (width - len(r)) for r in rows])
    try:
        return MalleablePack(
            p=p, memory=np.array(memory), seq=np.array(seq) if form == "closed" else None,
            par=np.array(par) if form == "closed" else None, table=table, names=tuple(names),
            min_procs=np.array(kmin), name=name,
        )
    except InvalidInstance as e:
        raise InvalidInstance(f"{where}: {str(e).removeprefix('pack: ')}") from None


def load_pack(path: str | Path) -> MalleablePack:
    """Read a pack file: ``coschedule/malleable-pack``, or a moldable instance
    (``coschedule/moldable-instance``, whose ``memory`` fields are the ``m_i``; 0 when absent)
    turned into a pack by :meth:`MalleablePack.from_instance`."""
    where = str(path)
    data = read_json(path)
    fmt = data.get("format") if isinstance(data, dict) else None
    if fmt == INSTANCE_FORMAT:
        instance = instance_from_dict(data, where)
        try:
            return MalleablePack.from_instance(instance)
        except InvalidInstance as e:
            raise InvalidInstance(f"{where}: {str(e).removeprefix('pack: ')}") from None
    if fmt != PACK_FORMAT and isinstance(data, dict):
        raise FormatError(f"{where}: format is {fmt!r}, expected {PACK_FORMAT!r} or {INSTANCE_FORMAT!r}")
    return pack_from_dict(data, where)


def save_pack(pack: MalleablePack, path: str | Path) -> None:
    """Write ``pack`` in the compact form (:func:`pack_to_dict`), atomically."""
    save_json(pack_to_dict(pack), path)


# ---------------------------------------------------------------- the timeline of a run


def timeline_rows(result: Any) -> list[dict[str, Any]]:
    """One row per phase of a :class:`~coschedule.redistribution.simulation.PackResult`, by application then
    start time: the columns of :data:`TIMELINE_COLUMNS` (``procs`` the count, ``nodes`` the
    processors as an interval string, ``0-7 12-15``)."""
    from coschedule.sim.nodesets import format_nodes

    names = result.pack.names
    phases = sorted(result.phases, key=lambda ph: (ph.app, ph.start))
    return [{"app": ph.app, "name": names[ph.app], "kind": ph.kind, "start": ph.start, "end": ph.end,
             "procs": len(ph.procs), "nodes": format_nodes(ph.procs), "alpha_start": ph.alpha_start,
             "alpha_end": ph.alpha_end, "outcome": ph.outcome} for ph in phases]


def write_timeline_csv(result: Any, path: str | Path) -> int:
    """Write :func:`timeline_rows` as CSV (a header line; floats with ``repr`` precision, so that
    reading them back gives the same numbers). Returns the number of rows."""
    rows = timeline_rows(result)
    with writing(path, newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(TIMELINE_COLUMNS)
        for r in rows:
            w.writerow([repr(float(r[c])) if c in ("start", "end", "alpha_start", "alpha_end") else r[c]
                        for c in TIMELINE_COLUMNS])
    return len(rows)
