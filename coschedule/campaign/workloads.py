"""Where a batch campaign's workloads come from: SWF traces (a bundled name or a path), Batsim
JSON workloads, and synthetic workloads made by a generator registered by name.

A source yields :class:`WorkloadRef` s whose ``key`` names the workload independently of the
folder the campaign runs in (the failure seeds are derived from it). Every source can be cut to
a slice: the jobs submitted in ``days`` days from day ``first_day`` (days counted from the first
job's submission), then at most ``jobs`` of them; the slice's submission times start at 0 (a
shift changes no flow).

Synthetic workloads (``kind = "synthetic"``) come from :data:`WORKLOAD_GENERATORS`: a name ->
``generator(rng, **params) -> Workload`` registry, with the months of
:mod:`coschedule.sim.synthetic` (``mira-like``, ``params = { month = "2017-06" }`` or
``"2018-03"``; ``intrepid-like``; ``du2024-table6``, the 1,000 jobs on 128 nodes of [Du2024]
§6.3, ``params = { mean_interarrival = 174 }``) and whatever :func:`register_workload_generator` adds. Set ``k``
of a source is drawn from ``SeedSequence((campaign seed, crc32(source name), k))``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from coschedule.errors import CoscheduleError, FormatError, InvalidInstance, unknown_name

if TYPE_CHECKING:  # coschedule.sim imports numba: not before a workload is read
    from coschedule.sim.workload import Workload

from .sources import CampaignError, _crc, _expect, _resolve, locate_trace, source_kind

__all__ = [
    "WORKLOAD_GENERATORS",
    "BatsimWorkload",
    "SwfWorkload",
    "SyntheticWorkload",
    "WorkloadRef",
    "WorkloadSource",
    "register_workload_generator",
    "slice_workload",
]

DAY = 86400.0

def _mira_like(rng: np.random.Generator, *, month: str = "2017-06") -> Workload:
    """:func:`coschedule.sim.synthetic.mira_like` (imported when used: coschedule.sim loads numba)."""
    from coschedule.sim.synthetic import mira_like

    return mira_like(month, seed=rng)


def _intrepid_like(rng: np.random.Generator) -> Workload:
    """:func:`coschedule.sim.synthetic.intrepid_like`."""
    from coschedule.sim.synthetic import intrepid_like

    return intrepid_like(seed=rng)


def _table6(rng: np.random.Generator, *, mean_interarrival: float = 174.0) -> Workload:
    """:func:`coschedule.sim.synthetic.table6_workload` ([Du2024] §6.3, Table 6)."""
    from coschedule.sim.synthetic import table6_workload

    return table6_workload(seed=rng, mean_interarrival=float(mean_interarrival))


#: name -> synthetic workload generator ``fn(rng: numpy.random.Generator, **params) -> Workload``
WORKLOAD_GENERATORS: dict[str, Callable[..., Workload]] = {
    "mira-like": _mira_like, "intrepid-like": _intrepid_like, "du2024-table6": _table6,
}


def register_workload_generator(name: str, generator: Callable[..., Workload]) -> None:
    """Make ``generator`` the synthetic workload ``name`` of batch campaigns (``kind =
    "synthetic"``, ``generator = NAME``); it is called as ``generator(rng, **params)`` with a
    :class:`numpy.random.Generator` and the source's ``params`` table, and returns a
    :class:`~coschedule.sim.workload.Workload`. Registering a name again replaces it."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"a workload generator needs a non-empty name, got {name!r}")
    WORKLOAD_GENERATORS[name] = generator


@dataclass(frozen=True)
class WorkloadRef:
    """One workload of a campaign: its stable key, its source's name and the jobs."""

    key: str
    source: str
    workload: Workload


def slice_workload(w: Workload, *, first_day: int = 0, days: int | None = None, jobs: int | None = None) -> Workload:
    """The jobs of ``w`` submitted in ``[first_day, first_day + days)`` days after its first
    submission (all from ``first_day`` when ``days`` is ``None``), the first ``jobs`` of them,
    with submission times shifted so that the slice starts at 0."""
    from coschedule.sim.workload import Workload

    if first_day == 0 and days is None and jobs is None:
        return w
    t0 = (float(w.submit[0]) if w.n else 0.0) + first_day * DAY
    keep = w.submit >= t0
    if days is not None:
        keep &= w.submit < t0 + days * DAY
    idx = np.flatnonzero(keep)[:jobs]
    return Workload(tuple(w.ids[k] for k in idx.tolist()), w.submit[idx] - t0, w.nodes[idx], w.walltime[idx],
                    w.length[idx], w.n_nodes, name=w.name)


@dataclass(frozen=True, kw_only=True)
class _Slice:
    """The slice options every source has (module docstring)."""

    first_day: int = 0
    days: int | None = None
    jobs: int | None = None
    nodes: int | None = None  # the platform's nodes (default: the file's)

    def _check_slice(self, name: str) -> None:
        if self.first_day < 0 or (self.days is not None and self.days < 1) or (self.jobs is not None and self.jobs < 1):
            raise CampaignError(f"source {name!r}: need first_day >= 0, days >= 1, jobs >= 1")
        if self.nodes is not None and self.nodes < 1:
            raise CampaignError(f"source {name!r}: nodes must be >= 1, got {self.nodes}")

    def _cut(self, w: Workload, name: str) -> Workload:
        w = slice_workload(w, first_day=self.first_day, days=self.days, jobs=self.jobs)
        if not w.n:
            raise CampaignError(f"source {name!r}: no job in the slice (first_day = {self.first_day}, "
                                f"days = {self.days})")
        return w

    def _slice_dict(self) -> dict[str, Any]:
        return {"first_day": self.first_day, "days": self.days, "jobs": self.jobs, "nodes": self.nodes}


@dataclass(frozen=True, kw_only=True)
class _FileWorkload(_Slice):
    """A workload read from one file (``path``, relative to ``base``, the spec's folder), sliced;
    key ``KIND:NAME``."""

    path: str = ""
    name: str = ""
    base: str = field(default=".", compare=False)
    kind: str = field(default="", init=False)

    def _read(self) -> Workload:  # pragma: no cover - each kind reads its format
        raise NotImplementedError

    @cached_property
    def _workload(self) -> Workload:
        try:
            w = self._read()
        except (FormatError, InvalidInstance) as e:
            raise CampaignError(f"source {self.name!r}: {e}") from None
        return self._cut(w, self.name)

    def check(self) -> None:
        self._check_slice(self.name)
        self._workload  # noqa: B018 (reads the file)

    def workloads(self, seed: int) -> Iterator[WorkloadRef]:
        yield WorkloadRef(f"{self.kind}:{self.name}", self.name, self._workload)

    def size(self) -> int:
        return 1

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "path": self.path, **self._slice_dict()}


@dataclass(frozen=True, kw_only=True)
class SwfWorkload(_FileWorkload):
    """The online jobs of an SWF trace (:func:`~coschedule.sim.workload.workload_from_swf`),
    sliced. ``path`` is looked up like the rigid campaigns' traces
    (:func:`coschedule.data.find_trace`: relative to the spec's folder, then ``traces_dir`` or
    ``$COSCHEDULE_TRACES``, then the bundled traces), so a bare bundled name works. ``nodes``
    defaults to the machine size of the trace's header."""

    traces_dir: str | None = field(default=None, compare=False)
    where: str = field(default="", compare=False)
    kind: str = field(default="swf", init=False)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", Path(self.path).name.split(".swf")[0])

    def _read(self) -> Workload:
        from coschedule.sim.workload import workload_from_swf
        from coschedule.swf import read_swf

        file = locate_trace(self.path, self.base, self.traces_dir, self.where or f"source {self.name!r}")
        return workload_from_swf(read_swf(file), n_nodes=self.nodes)


@dataclass(frozen=True, kw_only=True)
class BatsimWorkload(_FileWorkload):
    """A Batsim JSON workload (:func:`~coschedule.sim.workload.read_batsim`), sliced. ``nodes``
    defaults to its ``nb_res``."""

    kind: str = field(default="batsim", init=False)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", Path(self.path).name.removesuffix(".json"))

    def _read(self) -> Workload:
        from coschedule.sim.workload import read_batsim

        w = read_batsim(_resolve(self.path, self.base))
        return w if self.nodes is None else _with_nodes(w, self.nodes)


@dataclass(frozen=True, kw_only=True)
class SyntheticWorkload(_Slice):
    """``sets`` workloads of the registered generator ``generator`` (:data:`WORKLOAD_GENERATORS`)
    with ``params``; set ``k`` from ``SeedSequence((campaign seed, crc32(name), k))``, key
    ``synthetic:NAME#k``. Generated in the main process: the cells carry the jobs."""

    generator: str = ""
    sets: int = 1
    params: tuple[tuple[str, Any], ...] = ()
    name: str = ""
    kind: str = field(default="synthetic", init=False)

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", self.generator)
        if isinstance(self.params, dict):
            object.__setattr__(self, "params", tuple(sorted(self.params.items())))

    def _generator(self) -> Callable[..., Workload]:
        if self.generator not in WORKLOAD_GENERATORS:
            valid = list(WORKLOAD_GENERATORS)
            hint = ("; none is registered (coschedule.campaign.register_workload_generator)" if not valid else "")
            raise CampaignError(f"source {self.name!r}: " + str(unknown_name("workload generator", self.generator, valid))
                                + hint)
        return WORKLOAD_GENERATORS[self.generator]

    def check(self) -> None:
        self._check_slice(self.name)
        if self.sets < 1:
            raise CampaignError(f"source {self.name!r}: sets must be >= 1, got {self.sets}")
        self._generator()

    def workloads(self, seed: int) -> Iterator[WorkloadRef]:
        gen = self._generator()
        for k in range(self.sets):
            rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _crc(self.name), k])))
            try:
                w = gen(rng, **dict(self.params))
                if self.nodes is not None:
                    w = _with_nodes(w, self.nodes)
            except (TypeError, ValueError, CoscheduleError) as e:
                raise CampaignError(f"source {self.name!r}: generator {self.generator!r}: {e}") from None
            yield WorkloadRef(f"synthetic:{self.name}#{k}", self.name, self._cut(w, self.name))

    def size(self) -> int:
        return self.sets

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "generator": self.generator, "sets": self.sets,
                "params": dict(self.params), **self._slice_dict()}


WorkloadSource = SwfWorkload | BatsimWorkload | SyntheticWorkload


def _with_nodes(w: Workload, nodes: int) -> Workload:
    """``w`` on a platform of ``nodes`` nodes."""
    from coschedule.sim.workload import Workload

    return Workload(w.ids, w.submit, w.nodes, w.walltime, w.length, nodes, name=w.name)

_SLICE_KEYS = {"first_day", "days", "jobs", "nodes"}
_ALLOWED = {
    "swf": {"kind", "name", "path"} | _SLICE_KEYS,
    "batsim": {"kind", "name", "path"} | _SLICE_KEYS,
    "synthetic": {"kind", "name", "generator", "sets", "params"} | _SLICE_KEYS,
}


def workload_source_from_dict(obj: Any, where: str, base: Path, traces_dir: str | None = None) -> WorkloadSource:
    """A batch campaign's ``[[source]]`` table as a workload source."""
    kind = source_kind(obj, where, _ALLOWED, " of a batch campaign")
    kw: dict[str, Any] = {}
    for key in obj:
        if key == "kind":
            continue
        if key in ("first_day", "days", "jobs", "nodes", "sets"):
            kw[key] = _expect(obj, key, int, where)
        elif key == "params":
            kw[key] = tuple(sorted(_expect(obj, key, dict, where).items()))
        else:
            kw[key] = _expect(obj, key, str, where)
    if kind == "synthetic":
        if "generator" not in kw:
            raise CampaignError(f"{where}: a synthetic source needs generator (a registered name)")
        return SyntheticWorkload(**kw)
    if "path" not in kw:
        raise CampaignError(f"{where}: a{'n' if kind == 'swf' else ''} {kind} source needs path")
    if kind == "swf":
        return SwfWorkload(**kw, base=str(base), traces_dir=traces_dir, where=where)
    return BatsimWorkload(**kw, base=str(base))


def workload_source_for(text: str, *, days: int | None = None, traces_dir: str | None = None,
                        where: str = "--workload") -> WorkloadSource:
    """The source of a command-line workload: a ``.json`` file is a Batsim workload, anything
    else an SWF trace (a bundled name, or a path relative to the working directory)."""
    if text.endswith(".json"):
        return BatsimWorkload(path=text, days=days, base=os.getcwd())
    return SwfWorkload(path=text, days=days, traces_dir=traces_dir, where=where)


def describe_workloads(sources: Sequence[WorkloadSource]) -> str:
    parts = []
    for s in sources:
        if isinstance(s, SyntheticWorkload):
            parts.append(f"{s.name} ({s.kind} {s.generator}, {s.size()} sets)")
        else:
            w = next(s.workloads(0)).workload
            parts.append(f"{s.name} ({s.kind}, {w.n} jobs on {w.n_nodes} nodes)")
    return ", ".join(parts)
