"""Campaign specifications of the rigid simulator (the default ``simulator``): the grid, its
sources of instances, and its cells. (Other simulators' specs: :mod:`.simulators`.)

A campaign is the product

    instances (from sources) x heuristics x priorities x parameters (qbar, P) x N scenarios

declared in a TOML file (or by ``coschedule simulate`` flags, which build the same
:class:`CampaignSpec`). Every cell of the grid (one instance, one heuristic, one priority, one
value of each parameter) is simulated on ``N`` failure scenarios and gives one row of results.

Everything random in a cell comes from seeds derived from the campaign's ``seed`` and the cell's
*values* (never its position in the grid, the worker that runs it, or the time), through
:class:`numpy.random.SeedSequence`:

* a synthetic job set: ``(seed, crc32(source name), set index)``;
* the failure scenarios: ``(seed, crc32(instance key), qbar in units of 1e-9)`` -- the same
  scenarios for every heuristic, priority and platform size ``P`` (common random numbers, as
  §5.1 of [Benoit2021] evaluates every heuristic on the same 1000 scenarios);
* the RANDOM priority order: ``(seed, crc32(instance key), RANDOM_STREAM)``.

So adding a value of ``qbar`` to a grid, or running it on another machine, with another number of
workers or on a Dask cluster, leaves every existing cell's numbers unchanged.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from coschedule.errors import FormatError
from coschedule.rigid import RigidInstance, RigidJob, SilentErrors

from .sources import (  # noqa: F401  (re-exported: the public names of campaign specs)
    CampaignError,
    FilesSource,
    InstanceRef,
    Source,
    SyntheticSource,
    TraceSource,
    _crc,
    _expect,
    _relative,
    _resolve,
    _source_from_dict,
    area_ratio,
    canonical_names,
    describe_sources,
    names_and_policies,
    recorded_sources,
    table_kwargs,
)

__all__ = [
    "SPEC_FORMAT",
    "CampaignError",
    "CampaignSpec",
    "Cell",
    "FilesSource",
    "InstanceRef",
    "SyntheticSource",
    "TraceSource",
    "load_spec",
    "parse_values",
]

#: ``format`` written in the database's metadata, with the spec
SPEC_FORMAT = "coschedule/campaign-spec"
SPEC_VERSION = 1
#: the key of the RANDOM priority's seed stream (any constant distinct from qbar keys)
RANDOM_STREAM = 0x5EED_0F_0DE5
#: default cap on the expected number of failures per scenario (see CampaignSpec.max_failures)
DEFAULT_MAX_FAILURES = 1e6


def qbar_key(qbar: float) -> int:
    """``qbar`` in integer units of 1e-9: the value that seeds the scenarios (exact, portable)."""
    return round(qbar * 1e9)


# --------------------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class Cell:
    """One point of the grid: everything a worker needs, and nothing it must look up."""

    simulator: ClassVar[str] = "rigid"

    id: str
    source: str
    instance_key: str
    procs: np.ndarray
    times: np.ndarray
    P: int
    P_grid: int | None
    qbar: float
    heuristic: str
    priority: str
    scenarios: int
    scenario_seed: tuple[int, ...]
    priority_seed: tuple[int, ...]
    keep: bool
    priority_source: Any = None  # a user's rule (coschedule.plugins.PolicySource): its file's text travels with it

    def instance(self) -> RigidInstance:
        jobs = tuple(RigidJob(int(p), float(t), name=f"J{j}") for j, (p, t) in enumerate(zip(self.procs, self.times)))
        return RigidInstance(jobs, self.P, name=self.instance_key)


def cell_id(instance_key: str, P_grid: int | None, qbar: float, heuristic: str, priority: str) -> str:
    """The cell's primary key in the database: its values, never its position."""
    return f"{instance_key}|P={P_grid if P_grid is not None else '-'}|q={qbar_key(qbar)}|{heuristic}|{priority}"


# ---------------------------------------------------------------------------------------- spec


def _heuristic_names() -> tuple[str, ...]:
    """Every name of ``RIGID_HEURISTICS``; those without a fast kernel (``r-list-1-kept``,
    ``r-list-q-kept``) run the reference implementation, slowly."""
    from coschedule.heuristics import RIGID_HEURISTICS

    return tuple(RIGID_HEURISTICS)


def _priority_names() -> tuple[str, ...]:
    from coschedule.heuristics.priorities import PRIORITIES

    return tuple(PRIORITIES)


@dataclass(frozen=True)
class CampaignSpec:
    """A campaign's grid; its :meth:`digest` identifies the database it writes.

    ``P`` empty means each instance's own platform size; ``max_failures`` refuses (before any
    work) a grid where some instance and ``qbar`` expect more failures per scenario than this:
    with very skewed job areas, ``q_j = 1 - (1 - qbar)^(a_j / abar)`` approaches 1 and one
    scenario could hold billions of re-executions.
    """

    simulator: ClassVar[str] = "rigid"

    sources: tuple[Source, ...]
    heuristics: tuple[str, ...]
    priorities: tuple[str, ...] = ("LPT",)
    qbar: tuple[float, ...] = (0.0,)
    P: tuple[int, ...] = ()
    scenarios: int = 1000
    seed: int = 0
    name: str = "campaign"
    keep_makespans: bool = False
    max_failures: float = DEFAULT_MAX_FAILURES
    #: where a user's rule file named relatively is read from (the spec's folder); not a TOML key
    policy_base: str = "."
    #: the users' priority rules of ``priorities``, resolved by :meth:`normalized`; not a TOML key
    policy_sources: tuple[Any, ...] = ()

    # ------------------------------------------------------------------ normalisation, checks

    def normalized(self) -> CampaignSpec:
        """Canonical names (``r-list-0``, ``LPT``), sorted unique parameter values."""
        heur = canonical_names(self.heuristics, _heuristic_names(), "heuristic")
        prio, users = names_and_policies(self.priorities, _priority_names(), "priority", "priority",
                                         self.policy_base, fold=str.upper)
        for q in self.qbar:
            if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 <= q < 1:
                raise CampaignError(f"qbar must be in [0, 1), got {q!r}")
        for P in self.P:
            if isinstance(P, bool) or not isinstance(P, int) or P < 1:
                raise CampaignError(f"P must be a positive integer, got {P!r}")
        if isinstance(self.scenarios, bool) or not isinstance(self.scenarios, int) or self.scenarios < 1:
            raise CampaignError(f"scenarios must be a positive integer, got {self.scenarios!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int) or self.seed < 0:
            raise CampaignError(f"seed must be an integer >= 0, got {self.seed!r}")
        if not (self.max_failures > 0):
            raise CampaignError(f"max_failures must be > 0, got {self.max_failures!r}")
        if not self.sources:
            raise CampaignError("the campaign has no instance source (synthetic, files or swf)")
        if not heur or not prio or not self.qbar:
            raise CampaignError("the campaign needs at least one heuristic, one priority and one qbar")
        names = [s.name for s in self.sources]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise CampaignError(f"two sources are named {min(dup)!r}; give them distinct names")
        return CampaignSpec(
            sources=tuple(self.sources),
            heuristics=tuple(dict.fromkeys(heur)),
            priorities=tuple(dict.fromkeys(prio)),
            qbar=tuple(sorted({float(q) for q in self.qbar})),
            P=tuple(sorted({int(P) for P in self.P})),
            scenarios=self.scenarios,
            seed=self.seed,
            name=self.name,
            keep_makespans=bool(self.keep_makespans),
            max_failures=float(self.max_failures),
            policy_base=self.policy_base, policy_sources=tuple({u.ref: u for u in users}.values()),
        )

    def check(self) -> None:
        """Everything that can go wrong before the first cell: sources parse, jobs fit every
        ``P`` of the grid, no instance expects more than ``max_failures`` failures."""
        for src in self.sources:
            src.check()
        for ref in self.instances():
            inst = ref.instance
            widest = int(inst.procs.max())
            for P in self.P:
                if widest > P:
                    j = int(np.argmax(inst.procs))
                    raise CampaignError(f"{ref.key}: {inst.job_label(j)} needs {widest} processors, more than P = {P}")
            for q in self.qbar:
                expected = expected_failures(inst, q)
                if expected > self.max_failures:
                    raise CampaignError(
                        f"{ref.key}: qbar = {q:g} expects {expected:.3g} failures per scenario "
                        f"(max_failures = {self.max_failures:.3g}; its job areas are very skewed); "
                        "lower qbar, drop the instance, or raise max_failures"
                    )

    # ------------------------------------------------------------------------ the grid

    def instances(self) -> Iterator[InstanceRef]:
        for src in self.sources:
            yield from src.instances(self.seed)

    def n_instances(self) -> int:
        return sum(src.size() for src in self.sources)

    @property
    def platforms(self) -> tuple[int | None, ...]:
        return self.P if self.P else (None,)

    def n_cells(self) -> int:
        return self.n_instances() * len(self.heuristics) * len(self.priorities) * len(self.qbar) * len(self.platforms)

    @property
    def runs_per_cell(self) -> int:
        """Simulations per cell: the ``scenarios``."""
        return self.scenarios

    def describe_sources(self) -> str:
        return describe_sources(self.sources)

    def grid_line(self) -> str:
        """The grid's size, as ``coschedule simulate --dry-run`` prints it."""
        cells = self.n_cells()
        return (f"grid: {self.n_instances()} instances x {len(self.heuristics)} heuristics x "
                f"{len(self.priorities)} priorities x {len(self.qbar)} qbar x {len(self.platforms)} P = "
                f"{cells} cells x {self.scenarios} scenarios = {cells * self.scenarios} simulations")

    def grid_info(self) -> dict[str, Any]:
        """The grid's size as ``coschedule simulate --dry-run --json`` prints it."""
        cells = self.n_cells()
        return {"instances": self.n_instances(), "heuristics": len(self.heuristics),
                "priorities": len(self.priorities), "qbar": len(self.qbar), "P": len(self.platforms),
                "cells": cells, "scenarios_per_cell": self.scenarios, "simulations": cells * self.scenarios}

    def cells(self) -> Iterator[Cell]:
        """The grid, lazily, the costliest cells first (high ``qbar``, R-List-Q) so that the
        workers finish together; instances are regenerated for each ``qbar`` (cheap), never
        all held in memory."""
        # the order of progress.HEURISTIC_WEIGHTS (R-ShelfFill's -failed/-queue fillings cost
        # less than R-List-1 and more than R-List-0 per attempt); the shelf heuristics come last
        cost = {"r-list-q-kept": 0, "r-list-1-kept": 1, "r-list-q": 2, "r-list-1": 3,
                "r-shelffill-b-failed": 3.5, "r-shelffill-nb-failed": 3.5, "r-shelffill-b-queue": 3.5,
                "r-shelffill-nb-queue": 3.5, "r-list-0": 4}
        heur = sorted(self.heuristics, key=lambda h: cost.get(h, 5))
        user = {src.ref: src for src in self.policy_sources}
        for q in sorted(self.qbar, reverse=True):
            for h in heur:
                for ref in self.instances():
                    inst = ref.instance
                    sseed = (self.seed, _crc(ref.key), qbar_key(q))
                    pseed = (self.seed, _crc(ref.key), RANDOM_STREAM)
                    for P_grid in self.platforms:
                        P = inst.P if P_grid is None else P_grid
                        for prio in self.priorities:
                            yield Cell(
                                id=cell_id(ref.key, P_grid, q, h, prio),
                                source=ref.source,
                                instance_key=ref.key,
                                procs=inst.procs,
                                times=inst.times,
                                P=P,
                                P_grid=P_grid,
                                qbar=q,
                                heuristic=h,
                                priority=prio,
                                scenarios=self.scenarios,
                                scenario_seed=sseed,
                                priority_seed=pseed,
                                keep=self.keep_makespans,
                                priority_source=user.get(prio),
                            )

    # ---------------------------------------------------------------------- identity

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SPEC_FORMAT,
            "version": SPEC_VERSION,
            "name": self.name,
            "seed": self.seed,
            "scenarios": self.scenarios,
            "heuristics": list(self.heuristics),
            "priorities": list(self.priorities),
            "qbar": list(self.qbar),
            "P": list(self.P),
            "keep_makespans": self.keep_makespans,
            "max_failures": self.max_failures,
            "sources": [s.to_dict() for s in self.sources],
            **recorded_sources(self.policy_sources),
        }

    def digest(self) -> str:
        """SHA-256 of the canonical spec (what the numbers depend on; not the name)."""
        d = self.to_dict()
        d.pop("name")
        text = json.dumps(d, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def expected_failures(instance: RigidInstance, qbar: float) -> float:
    """``sum_j q_j / (1 - q_j)``: the expected number of failures of one scenario."""
    if qbar == 0:
        return 0.0
    lam = SilentErrors.from_qbar(instance, qbar).lam
    x = lam * instance.areas
    with np.errstate(over="ignore"):
        return float(np.sum(np.expm1(x)))  # q / (1 - q) = e^x - 1


# ------------------------------------------------------------------------------- parsing


def parse_values(text: str, kind: Any, what: str) -> tuple[Any, ...]:
    """``"0,0.1,0.3"`` or a range ``"START:STOP:STEP"`` (both ends included); ``kind`` is
    ``int``, ``float`` or a function from a string to a float (e.g.
    :func:`coschedule.units.seconds`: ``"1h,6h,1d"``, ``"1h:10h:1h"``)."""
    conv = float if kind in (int, float) else kind
    try:
        if ":" in text:
            parts = text.split(":")
            if len(parts) != 3:
                raise ValueError
            start, stop, step = (conv(x) for x in parts)
            if step <= 0 or stop < start:
                raise ValueError
            count = math.floor((stop - start) / step + 1e-9) + 1
            vals = [start + i * step for i in range(count)]
            if kind is int:
                return tuple(round(v) for v in vals)
            return tuple(round(v, 12) for v in vals)
        out: list[Any] = []
        for item in text.split(","):
            item = item.strip()
            if kind is int:
                out.append(int(item))
            else:
                out.append(conv(item))
        return tuple(out)
    except ValueError:
        raise CampaignError(
            f"{what}: expected a comma-separated list or START:STOP:STEP, got {text!r}"
        ) from None


def spec_from_dict(data: Any, where: str = "spec", base: str | Path = ".", *,
                   traces_dir: str | None = None) -> Any:
    """The spec of a TOML table, read by the simulator its ``simulator`` key names (default
    ``rigid``: a :class:`CampaignSpec`; ``batch``: a
    :class:`~coschedule.campaign.simulators.batch.adapter.BatchSpec`); ``traces_dir`` is where bare trace names are
    looked up (see :class:`TraceSource`)."""
    from coschedule.campaign.registry import spec_from_table

    return spec_from_table(data, where, base, traces_dir=traces_dir)


def rigid_spec_from_dict(data: Any, where: str = "spec", base: str | Path = ".", *,
                         traces_dir: str | None = None) -> CampaignSpec:
    """A :class:`CampaignSpec` from the TOML table (``[[source]]`` tables for the sources; a
    ``simulator`` key, if there, says ``"rigid"``)."""
    if not isinstance(data, dict):
        raise CampaignError(f"{where}: expected a table")
    data = {k: v for k, v in data.items() if not (k == "simulator" and v == "rigid")}
    known = {f.name for f in fields(CampaignSpec)} | {"source"}
    known -= {"sources", "policy_base", "policy_sources"}
    kw = table_kwargs(data, where, known, ("heuristics", "priorities", "qbar", "P"),
                      (("scenarios", int), ("seed", int), ("name", str), ("keep_makespans", bool),
                       ("max_failures", (int, float))))
    kw["sources"] = tuple(_source_from_dict(s, f"{where}: source[{i}]", Path(base), traces_dir)
                          for i, s in enumerate(kw.pop("source")))
    kw.setdefault("heuristics", ())
    return CampaignSpec(**kw, policy_base=str(base))


def load_spec(path: str | Path, *, traces_dir: str | None = None) -> Any:
    """Read a campaign TOML file (of the simulator its ``simulator`` key names: a
    :class:`CampaignSpec` by default); relative paths in it are relative to its folder, and bare
    trace file names are also looked up in ``traces_dir`` and the bundled traces (see
    :class:`TraceSource`)."""
    from coschedule.io import read_utf8

    p = Path(path)
    try:
        text = read_utf8(p, "a TOML file")
    except FormatError as e:
        raise CampaignError(str(e)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CampaignError(f"{p}: not valid TOML: {e}") from None
    if not data:
        raise CampaignError(f"{p}: empty campaign spec (no sources, no heuristics)")
    spec = spec_from_dict(data, where=str(p), base=p.parent, traces_dir=traces_dir)
    if "name" not in data:
        spec = replace(spec, name=p.stem)
    return spec


def _kwargs(spec: CampaignSpec) -> dict[str, Any]:
    return {f.name: getattr(spec, f.name) for f in fields(CampaignSpec)}


def replace_spec(spec: CampaignSpec, **changes: Any) -> CampaignSpec:
    return CampaignSpec(**{**_kwargs(spec), **changes})
