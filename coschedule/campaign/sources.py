"""Where a campaign's instances come from: synthetic job sets (§5.1 of [Benoit2021]), rigid
instance files, and the day-sets of SWF traces; how a spec's ``[[source]]`` table becomes one.

Every source yields :class:`InstanceRef` s whose ``key`` names the instance independently of the
folder the campaign runs in, so that seeds (derived from the key) are the same on every machine.
"""

from __future__ import annotations

import glob
import itertools
import math
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from coschedule.errors import CampaignError, FormatError, InvalidInstance, unknown_name
from coschedule.rigid import RigidInstance

__all__ = [
    "CampaignError",
    "FilesSource",
    "InstanceRef",
    "Source",
    "SyntheticSource",
    "TraceSource",
    "area_ratio",
    "describe_sources",
]


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


# ----------------------------------------------------------------------------------- sources


@dataclass(frozen=True)
class InstanceRef:
    """One instance of a campaign: its stable key, its source and the jobs."""

    key: str
    source: str
    instance: RigidInstance


@dataclass(frozen=True)
class SyntheticSource:
    """``sets`` job sets of §5.1: ``n`` jobs, ``p_j`` uniform in ``procs``, ``t_j`` in ``times``.

    The jobs do not depend on ``P`` (the grid's ``P`` values re-platform the same sets, as
    Fig. 4(b) and Fig. 6 vary ``P`` over the same 30 sets); ``P`` is the platform size when the
    grid gives none.
    """

    sets: int = 30
    n: int = 100
    procs: tuple[int, int] = (50, 2000)
    times: tuple[float, float] = (100.0, 20000.0)
    P: int = 10000
    name: str = "synthetic"
    kind: str = field(default="synthetic", init=False)

    def check(self) -> None:
        if self.sets < 1 or self.n < 1:
            raise CampaignError(f"source {self.name!r}: sets and n must be >= 1")
        lo, hi = self.procs
        if not 1 <= lo <= hi:
            raise CampaignError(f"source {self.name!r}: need 1 <= procs[0] <= procs[1], got {list(self.procs)}")
        tlo, thi = self.times
        if not 0 < tlo <= thi < math.inf:
            raise CampaignError(f"source {self.name!r}: need 0 < times[0] <= times[1], got {list(self.times)}")
        if self.P < hi:
            raise CampaignError(f"source {self.name!r}: P = {self.P} is smaller than procs[1] = {hi}")

    def instances(self, seed: int) -> Iterator[InstanceRef]:
        from coschedule.generators import synthetic_rigid

        for k in range(self.sets):
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _crc(self.name), k])))
            jobs = synthetic_rigid(self.n, self.P, seed=rng, procs=self.procs, times=self.times).jobs
            key = f"{self.name}#{k}"
            yield InstanceRef(key, self.name, RigidInstance(jobs, self.P, name=key))

    def size(self) -> int:
        return self.sets

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "sets": self.sets, "n": self.n,
                "procs": list(self.procs), "times": list(self.times), "P": self.P}


@dataclass(frozen=True)
class FilesSource:
    """Rigid-instance JSON files (glob patterns, relative to the spec file's folder)."""

    paths: tuple[str, ...]
    name: str = "files"
    base: str = field(default=".", compare=False)
    kind: str = field(default="files", init=False)

    @cached_property
    def files(self) -> tuple[tuple[str, str], ...]:
        """``(path as found relative to base, path to open)`` for every matching file."""
        out: list[tuple[str, str]] = []
        for pattern in self.paths:
            full = _resolve(pattern, self.base)
            hits = sorted(glob.glob(full))
            if not hits:
                raise CampaignError(f"source {self.name!r}: no file matches {pattern!r}")
            out.extend((_relative(h, self.base), h) for h in hits)
        return tuple(out)

    def check(self) -> None:
        for _ in self.instances(0):
            pass

    def instances(self, seed: int) -> Iterator[InstanceRef]:
        from coschedule.io import load_rigid_instance

        for rel, path in self.files:
            try:
                inst = load_rigid_instance(path)
            except (FormatError, InvalidInstance) as e:
                raise CampaignError(f"source {self.name!r}: {e}") from None
            except OSError as e:
                raise CampaignError(f"source {self.name!r}: {path}: {e.strerror}") from None
            yield InstanceRef(f"file:{rel}", self.name, inst)

    def size(self) -> int:
        return len(self.files)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "paths": list(self.paths)}


@dataclass(frozen=True)
class TraceSource:
    """Day-sets of an SWF trace: the jobs submitted on each calendar day (Table 1 protocol).

    ``P`` defaults to the machine size of the trace's header; ``days`` caps the number of sets
    (from ``first_day`` on), ``min_jobs`` skips quieter days, and ``max_area_ratio`` skips the
    days where some job's area exceeds that many times the day's mean area: under the §5.1
    error model such a job fails with probability ``1 - (1 - qbar)^ratio`` (``1 - 6e-8`` for a
    ratio of 158 at ``qbar = 0.1``), i.e. tens of millions of re-executions per scenario.

    ``path`` is looked up by :func:`coschedule.data.find_trace` (relative to ``base``, then in
    ``traces_dir`` or ``$COSCHEDULE_TRACES``, then in the bundled traces); ``where`` names the
    source in error messages (``campaigns/x.toml: source[0]``). Neither enters the digest.
    """

    path: str
    days: int | None = None
    first_day: int = 0
    min_jobs: int = 1
    P: int | None = None
    max_area_ratio: float | None = None
    name: str = ""
    base: str = field(default=".", compare=False)
    traces_dir: str | None = field(default=None, compare=False)
    where: str = field(default="", compare=False)
    kind: str = field(default="swf", init=False)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", Path(self.path).name.split(".swf")[0])

    @cached_property
    def _sets(self) -> tuple[InstanceRef, ...]:
        from coschedule.swf import day_sets, read_swf

        try:
            trace = read_swf(self.file())
            sets = day_sets(trace, P=self.P, min_jobs=self.min_jobs, days=None, first_day=self.first_day)
            kept = (d for d in sets if self.max_area_ratio is None or area_ratio(d.instance) <= self.max_area_ratio)
            refs = tuple(InstanceRef(f"swf:{self.name}:day{d.day:03d}", self.name, d.instance)
                         for d in itertools.islice(kept, self.days))
        except (FormatError, InvalidInstance) as e:
            raise CampaignError(f"source {self.name!r}: {e}") from None
        if not refs:
            raise CampaignError(f"source {self.name!r}: no day with at least {self.min_jobs} jobs")
        return refs

    def file(self) -> Path:
        """The SWF file of ``path`` (:func:`coschedule.data.find_trace`); not found, an error
        that names the spec file, the key and every place looked."""
        return locate_trace(self.path, self.base, self.traces_dir, self.where or f"source {self.name!r}")

    def check(self) -> None:
        if self.min_jobs < 1 or self.first_day < 0 or (self.days is not None and self.days < 1):
            raise CampaignError(f"source {self.name!r}: need min_jobs >= 1, first_day >= 0, days >= 1")
        if self.max_area_ratio is not None and not self.max_area_ratio >= 1:
            raise CampaignError(f"source {self.name!r}: max_area_ratio must be >= 1, got {self.max_area_ratio!r}")
        self._sets  # noqa: B018 (parses the trace)

    def instances(self, seed: int) -> Iterator[InstanceRef]:
        return iter(self._sets)

    def size(self) -> int:
        return len(self._sets)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "path": self.path, "days": self.days,
                "first_day": self.first_day, "min_jobs": self.min_jobs, "P": self.P,
                "max_area_ratio": self.max_area_ratio}


def area_ratio(instance: RigidInstance) -> float:
    """``max_j a_j / mean_j a_j``: how skewed the job areas are (1 when all equal)."""
    a = instance.areas
    return float(a.max() / a.mean())


Source = SyntheticSource | FilesSource | TraceSource


def _expect(obj: dict[str, Any], key: str, kinds: type | tuple[type, ...], where: str) -> Any:
    value = obj[key]
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise CampaignError(f"{where}: {key} must be {_kind_name(kinds)}, got {value!r}")
    if not isinstance(value, kinds):
        raise CampaignError(f"{where}: {key} must be {_kind_name(kinds)}, got {value!r}")
    return value


def _kind_name(kinds: type | tuple[type, ...]) -> str:
    ks = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join({int: "an integer", float: "a number", str: "a string", list: "a list",
                        bool: "true or false", dict: "a table"}.get(k, k.__name__) for k in ks)


def canonical_names(values: Sequence[Any], valid: Sequence[str], kind: str, fold: Any = str.lower) -> list[str]:
    """``values`` as the registry spells them (``fold``: ``str.lower`` or ``str.upper``); an
    unknown one raises :class:`CampaignError` listing the ``valid`` names."""
    out = []
    for v in values:
        if not isinstance(v, str) or fold(v) not in valid:
            raise CampaignError(str(unknown_name(kind, str(v), valid)))
        out.append(fold(v))
    return out


def names_and_policies(values: Sequence[Any], valid: Sequence[str], kind: str, what: str, base: str | Path = ".",
                       fold: Any = str.lower) -> tuple[list[str], tuple[Any, ...]]:
    """A spec's policy names: a built-in one (in ``valid``) as the registry spells it, a user's
    (``file.py:Class``, ``module:Class``, a name registered for the simulator ``kind``;
    :mod:`coschedule.plugins`) as written; and the users' policies resolved, a relative file read
    from ``base`` (the spec's folder). An unknown name raises :class:`CampaignError` listing
    ``valid`` (``what``: the registry's word for its names)."""
    from coschedule import plugins

    out, users = [], []
    for v in values:
        if isinstance(v, str) and fold(v) in valid:
            out.append(fold(v))
            continue
        src = plugins.resolve(v, kind, base=base) if isinstance(v, str) else None
        if src is None:
            err = unknown_name(what, str(v), valid)
            raise CampaignError(f"{err}; or your own: FILE.py:CLASS, MODULE:CLASS (coschedule policies)")
        plugins.load(src)  # a file that does not load, or has no such class, is said before the first cell
        out.append(v)
        users.append(src)
    return out, tuple(users)


def recorded_sources(sources: Sequence[Any]) -> dict[str, Any]:
    """What a spec's ``to_dict`` records of its users' policies: ``{"policy_sources": {reference:
    SHA-256 of its source}}`` (a changed file is a different campaign: the store refuses the
    resume), nothing when there is none."""
    return {"policy_sources": {src.ref: src.digest for src in sources}} if sources else {}


def table_kwargs(data: dict[str, Any], where: str, known: set[str], lists: Sequence[str],
                 scalars: Sequence[tuple[str, type | tuple[type, ...]]], *, what: str = "") -> dict[str, Any]:
    """The keyword arguments of a spec from its TOML table: an unknown key is an error listing
    ``known``; each of ``lists`` is a list (a bare value becomes a list of one) made a tuple; each
    of ``scalars`` has its type; ``[[source]]`` tables come back raw under ``"source"``."""
    extra = set(data) - known
    if extra:
        raise CampaignError(f"{where}: unknown key {min(extra)!r}{what}; valid: {', '.join(sorted(known))}")
    kw: dict[str, Any] = {}
    for key in lists:
        if key in data:
            val = data[key]
            if isinstance(val, (int, float, str)) and not isinstance(val, bool):
                val = [val]
            if not isinstance(val, list):
                raise CampaignError(f"{where}: {key} must be a list")
            kw[key] = tuple(val)
    for key, kind in scalars:
        if key in data:
            kw[key] = _expect(data, key, kind, where)
    srcs = data.get("source", [])
    if isinstance(srcs, dict):
        srcs = [srcs]
    if not isinstance(srcs, list):
        raise CampaignError(f"{where}: source must be an array of tables ([[source]])")
    kw["source"] = srcs
    return kw


def locate_trace(path: str, base: str, traces_dir: str | None, where: str) -> Path:
    """The SWF file of ``path`` (:func:`coschedule.data.find_trace`); not found, an error that
    names ``where`` (the spec file and the source), the key and every place looked."""
    from coschedule.data import find_trace

    try:
        return find_trace(path, base=base, traces_dir=traces_dir)
    except FormatError as e:
        raise CampaignError(f"{where}: path = {path!r}: {e}") from None


def source_kind(obj: Any, where: str, allowed: dict[str, set[str]], what: str = "") -> str:
    """The ``kind`` of a ``[[source]]`` table, once it is a table of a known kind (``allowed``:
    kind -> its keys) with no other key; else :class:`CampaignError`."""
    if not isinstance(obj, dict):
        raise CampaignError(f"{where}: a source must be a table")
    kind = obj.get("kind")
    if kind not in allowed:
        raise CampaignError(f"{where}: kind must be one of {', '.join(allowed)}; got {kind!r}")
    extra = set(obj) - allowed[kind]
    if extra:
        raise CampaignError(f"{where}: unknown key {min(extra)!r} for a {kind} source{what}")
    return str(kind)


def _source_from_dict(obj: Any, where: str, base: Path, traces_dir: str | None = None) -> Source:
    kind = source_kind(obj, where, {
        "synthetic": {"kind", "name", "sets", "n", "procs", "times", "P"},
        "files": {"kind", "name", "paths"},
        "swf": {"kind", "name", "path", "days", "first_day", "min_jobs", "P", "max_area_ratio"},
    })
    kw: dict[str, Any] = {}
    for key in obj:
        if key == "kind":
            continue
        if key in ("sets", "n", "P", "days", "first_day", "min_jobs"):
            kw[key] = _expect(obj, key, int, where)
        elif key == "max_area_ratio":
            kw[key] = float(_expect(obj, key, (int, float), where))
        elif key in ("procs", "times"):
            val = _expect(obj, key, list, where)
            if len(val) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in val):
                raise CampaignError(f"{where}: {key} must be [low, high], got {val!r}")
            kw[key] = (int(val[0]), int(val[1])) if key == "procs" else (float(val[0]), float(val[1]))
        elif key == "paths":
            val = _expect(obj, key, list, where)
            if not val or not all(isinstance(v, str) for v in val):
                raise CampaignError(f"{where}: paths must be a non-empty list of strings")
            kw[key] = tuple(val)
        elif key == "path":
            kw[key] = _expect(obj, key, str, where)
        else:
            kw[key] = _expect(obj, key, str, where)
    if kind == "synthetic":
        return SyntheticSource(**kw)
    kw["base"] = str(base)
    if kind == "files":
        if "paths" not in kw:
            raise CampaignError(f"{where}: a files source needs paths")
        return FilesSource(**kw)
    if "path" not in kw:
        raise CampaignError(f"{where}: an swf source needs path")
    return TraceSource(**kw, traces_dir=traces_dir, where=where)


def _resolve(path: str, base: str | Path) -> str:
    """``path`` (``~`` expanded) relative to ``base`` unless absolute."""
    p = Path(os.path.expanduser(path))
    return str(p if p.is_absolute() else Path(base) / p)


def _relative(path: str, base: str | Path) -> str:
    """``path`` relative to ``base`` when inside it (keys must not depend on where the repo is)."""
    try:
        return Path(path).resolve().relative_to(Path(base).resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def describe_sources(sources: Sequence[Source]) -> str:
    return ", ".join(f"{s.name} ({s.kind}, {s.size()} sets)" for s in sources)
