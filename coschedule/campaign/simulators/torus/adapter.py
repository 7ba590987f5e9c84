"""Torus campaigns (``simulator = "torus"``): fault-aware scheduling on a BlueGene/L-style torus.

A campaign is the product ([Oliner2004] §6-§7)

    workloads x load scales x failure counts x downtimes x seeds x schedulers x migration

where a *scheduler* is ``fcfs`` (Krevat's, once per point), ``balancing`` at each confidence
``a`` or ``tiebreak`` at each accuracy ``a`` (:mod:`coschedule.heuristics.torus`), and
``migration`` lists ``true`` (the paper's system, §5.2.1: Balancing "is based on the FCFS
scheduler for BG/L [11], including backfilling and migration"; the default), ``false``, or
both: each scheduler then runs with and without it, on the same failure traces. A failure
count of 0 has one cell per workload, load scale and scheduler (downtime and seeds change
nothing without failures). Each cell is **one run** of :func:`coschedule.heuristics.torus.run.run_torus`,
checked by :func:`coschedule.torus.validate.validate_torus_run` before its row is written, and
gives one row: the cell's values, then the fields of
:class:`~coschedule.torus.metrics.TorusMetrics`.

Seeds come from the cell's values, never its position, the worker or the clock. The failures of
replicate ``k`` (the seed index) of a *point* -- workload ``key`` on the torus ``shape`` at load
scale ``c``, with ``K`` failures spread by ``model`` -- are drawn from the integer root

    SeedSequence((campaign seed, crc32(key), crc32(shape), crc32(repr(c)), K, crc32(model), k))

(:func:`torus_failure_seed`; ``run_torus(..., seed=root)`` draws the trace from it, and the
tie-breaking predictor's misses from its own stream of the same root). Neither the scheduler,
its confidence or accuracy, its migration, nor the downtime enter it: every scheduler of a point and replicate
runs on the same failure trace (common random numbers: the comparisons are paired), and adding
a scheduler, a value or a seed leaves every existing cell's numbers unchanged. At one point and
replicate, the tie-breaking predictor detects the same failures at accuracy ``a`` as at any
lower accuracy, plus some (one draw per failure of the log).

The shape of the paper's experiments: :file:`campaigns/oliner2004-*.toml`; the report and the
figures: :mod:`.torus_report`.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from coschedule.campaign.sources import (
    CampaignError,
    _crc,
    names_and_policies,
    recorded_sources,
    table_kwargs,
)
from coschedule.campaign.spec import SPEC_FORMAT, SPEC_VERSION
from coschedule.campaign.store import ResultSchema
from coschedule.campaign.workloads import SwfWorkload, WorkloadSource, workload_source_from_dict

if TYPE_CHECKING:  # coschedule.sim imports numba: not before a cell runs
    from coschedule.torus.workload import TorusJobs

__all__ = [
    "METRIC_COLUMNS",
    "TORUS_RESULTS",
    "TORUS_SCHEMA",
    "TorusCell",
    "TorusSpec",
    "simulate_torus_cell",
    "torus_cell_id",
    "torus_costs",
    "torus_failure_seed",
    "torus_spec_from_dict",
]

#: what the result columns mean (``meta`` key ``results``): a database written with other
#: metrics is not resumed. Bump it whenever :func:`simulate_torus_cell` computes something else.
TORUS_RESULTS = "torus-metrics/3"  # 2: the migration column, bsld_time; 3: a migration does not restart the wait
#: the result columns: ``(name, SQL type)``, named as
#: :meth:`~coschedule.torus.metrics.TorusMetrics.to_dict` names them
METRIC_COLUMNS: tuple[tuple[str, str], ...] = (
    ("failures", "INTEGER NOT NULL"),
    ("job_failures", "INTEGER NOT NULL"),
    ("mean_wait", "REAL"),
    ("mean_response", "REAL"),
    ("mean_bounded_slowdown", "REAL"),
    ("max_bounded_slowdown", "REAL"),
    ("span", "REAL"),
    ("utilized", "REAL"),
    ("unused", "REAL"),
    ("lost", "REAL"),
)
TORUS_SCHEMA = ResultSchema.table(
    (("id", "TEXT PRIMARY KEY"), ("source", "TEXT NOT NULL"), ("workload", "TEXT NOT NULL"),
     ("jobs", "INTEGER NOT NULL"), ("shape", "TEXT NOT NULL"), ("unit", "INTEGER NOT NULL"),
     ("load_scale", "REAL NOT NULL"), ("policy", "TEXT NOT NULL"), ("confidence", "REAL"), ("accuracy", "REAL"),
     ("failure_count", "INTEGER NOT NULL"), ("failure_model", "TEXT"), ("downtime", "REAL NOT NULL"),
     ("migration", "INTEGER NOT NULL"), ("seed_index", "INTEGER"), ("seed", "INTEGER"), *METRIC_COLUMNS,
     ("seconds", "REAL NOT NULL")),
    json=("details",), nullable_ints=("seed_index", "seed"), version=2, results=TORUS_RESULTS,
)

POLICIES = ("fcfs", "balancing", "tiebreak")
#: the spec's parameter of each fault-aware scheduler
PARAMETER = {"balancing": "confidence", "tiebreak": "accuracy"}


# ------------------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class TorusCell:
    """One run: everything a worker needs (the jobs on the torus included). ``confidence`` is
    ``None`` unless ``policy`` is ``balancing``, ``accuracy`` unless ``tiebreak``;
    ``failure_count`` 0: no failure (then ``seed`` and ``seed_index`` are ``None``)."""

    simulator: ClassVar[str] = "torus"

    id: str
    source: str
    workload_key: str
    jobs: TorusJobs
    shape: str
    load_scale: float
    policy: str
    confidence: float | None
    accuracy: float | None
    failure_count: int
    failure_model: str | None
    downtime: float
    seed_index: int | None
    seed: int | None
    pf: str = "max"
    backfill: bool = True
    bsld: str = "max"
    gamma: float = 10.0
    migration: bool = True
    bsld_time: str = "run"
    policy_source: Any = None  # a user's policy (coschedule.plugins.PolicySource): its file's text travels with it


def _num(x: float) -> str:
    return repr(float(x))


def torus_cell_id(key: str, shape: str, load_scale: float, policy: str, parameter: float | None = None,
                  failure_count: int = 0, failure_model: str | None = None, downtime: float = 0.0,
                  seed_index: int | None = None, migration: bool = True) -> str:
    """The cell's primary key, from its values: ``KEY|SHAPE|c=C|K=0|POLICY`` without failures,
    ``KEY|SHAPE|c=C|K=K|MODEL|D=D|s=k|POLICY``, with ``|a=A`` after ``balancing`` and
    ``tiebreak``, and ``|no-migration`` at the end of a run without migration."""
    sched = policy if parameter is None else f"{policy}|a={_num(parameter)}"
    if not migration:
        sched += "|no-migration"
    head = f"{key}|{shape}|c={_num(load_scale)}|K={int(failure_count)}"
    if not failure_count:
        return f"{head}|{sched}"
    return f"{head}|{failure_model}|D={_num(downtime)}|s={seed_index}|{sched}"


def torus_failure_seed(seed: int, key: str, shape: str, load_scale: float, failure_count: int, model: str,
                       index: int) -> int:
    """The integer root of replicate ``index`` of a point (module docstring), in ``[0, 2^63)``."""
    ss = np.random.SeedSequence([seed, _crc(key), _crc(shape), _crc(_num(load_scale)), int(failure_count),
                                 _crc(model), index])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def _finite(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    return x


def simulate_torus_cell(cell: TorusCell, backend: str = "auto") -> dict[str, Any]:
    """Run one cell, validate the executed schedule, and return the row the store keeps
    (``backend`` changes nothing: the torus has one event loop). A run the validator rejects
    raises :class:`~coschedule.errors.InvalidSchedule`, naming the cell, and writes nothing."""
    from coschedule.errors import InvalidSchedule
    from coschedule.heuristics.torus.run import run_torus
    from coschedule.torus.metrics import torus_metrics
    from coschedule.torus.validate import validate_torus_run

    t0 = time.perf_counter()
    run = run_torus(cell.jobs, cell.policy_source or cell.policy, failure_count=cell.failure_count or None,
                    failure_model=cell.failure_model or "clustered", seed=cell.seed, downtime=cell.downtime,
                    confidence=cell.confidence or 0.0, accuracy=cell.accuracy or 0.0, pf=cell.pf,
                    backfill=cell.backfill, migration=cell.migration)
    t1 = time.perf_counter()
    try:
        validate_torus_run(run)
    except InvalidSchedule as e:
        raise InvalidSchedule(f"cell {cell.id}: {e}") from None
    t2 = time.perf_counter()
    m = torus_metrics(run, gamma=cell.gamma, bsld=cell.bsld, bsld_time=cell.bsld_time).to_dict()
    # the other t^e of the slowdown, for the reproduction's two columns (docs/reproduce-oliner2004.md)
    other = "request" if cell.bsld_time == "run" else "run"
    alt = torus_metrics(run, gamma=cell.gamma, bsld=cell.bsld, bsld_time=other)
    row: dict[str, Any] = {
        "id": cell.id, "source": cell.source, "workload": cell.workload_key, "jobs": cell.jobs.n,
        "shape": cell.shape, "unit": cell.jobs.unit, "load_scale": cell.load_scale, "policy": cell.policy,
        "confidence": cell.confidence, "accuracy": cell.accuracy, "failure_count": cell.failure_count,
        "failure_model": cell.failure_model, "downtime": cell.downtime, "migration": bool(cell.migration),
        "seed_index": cell.seed_index,
        "seed": cell.seed,
        "failures": m["failures"], "job_failures": m["job_failures"], "mean_wait": m["mean_wait"],
        "mean_response": m["mean_response"], "mean_bounded_slowdown": m["mean_bounded_slowdown"],
        "max_bounded_slowdown": m["max_bounded_slowdown"], "span": m["span"], "utilized": m["utilized"],
        "unused": m["unused"], "lost": m["lost"],
    }
    row["details"] = _finite({
        "metrics": m, "wide_dropped": len(cell.jobs.wide), "rounded": cell.jobs.rounded,
        "pf": cell.pf, "backfill": cell.backfill, "migrations": run.params["migrations"],
        "bounded_slowdown_other": {"time": other, "mean": alt.mean_bsld, "max": alt.max_bsld},
        "run_seconds": t1 - t0, "validate_seconds": t2 - t1,
    })
    row["seconds"] = time.perf_counter() - t0
    return row


# -------------------------------------------------------------------------------------- spec


def _number(v: Any, key: str, *, low: float = 0.0, high: float = math.inf, strict: bool = False) -> float:
    ok = (not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and v <= high
          and (v > low if strict else v >= low))
    if not ok:
        rng = f"in [{low:g}, {high:g}]" if math.isfinite(high) else f"{'>' if strict else '>='} {low:g}"
        raise CampaignError(f"{key} must be a finite number {rng}, got {v!r}")
    return float(v)


def _count(v: Any, key: str, low: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise CampaignError(f"{key} must be an integer >= {low}, got {v!r}")
    return int(v)


def _choice(v: Any, key: str, valid: tuple[str, ...]) -> str:
    if not isinstance(v, str) or v.lower() not in valid:
        raise CampaignError(f"{key} must be one of {', '.join(valid)}, got {v!r}")
    return v.lower()


@dataclass(frozen=True)
class TorusSpec:
    """A torus campaign's grid (module docstring); its :meth:`digest` identifies its database.

    ``shape``: the torus, ``"XxYxZ"``; ``unit``: log nodes per torus unit (``None``: the
    smallest that fits the log's machine, :func:`~coschedule.torus.workload.torus_workload`);
    ``load_scale``: the values of ``c``; ``policies``: among ``fcfs``, ``balancing``,
    ``tiebreak``; ``confidence`` (balancing's ``a``) and ``accuracy`` (tie-breaking's ``a``):
    values in ``[0, 1]``, each required by its scheduler and refused without it; ``pf``:
    balancing's ``P_f`` rule; ``failure_count``: failures over each log's period (the same values
    for every workload, or ``((source name, values), ...)``: each its own, as the paper gives
    NASA and SDSC 4,000 and LLNL 1,000), spread by ``failure_model`` (``clustered`` or
    ``uniform``, :mod:`coschedule.torus.failures`);
    ``downtime``: seconds a failed node stays down (0: transient, §6.1); ``migration``: with
    (``True``, the paper's system, §5.2.1), without, or both; ``seeds``: replicates
    (failure traces) per point; ``bsld``, ``bsld_time`` and ``gamma``: the bounded slowdown's
    rule, its ``t^e`` (``run``, the default, or ``request``) and ``Γ``
    (:func:`~coschedule.torus.metrics.torus_metrics`).
    """

    simulator: ClassVar[str] = "torus"

    sources: tuple[WorkloadSource, ...]
    policies: tuple[str, ...]
    shape: str = "4x4x8"
    unit: int | None = None
    load_scale: tuple[float, ...] = (1.0,)
    confidence: tuple[float, ...] = ()
    accuracy: tuple[float, ...] = ()
    pf: str = "max"
    failure_count: tuple[int, ...] | tuple[tuple[str, tuple[int, ...]], ...] = (0,)
    failure_model: str = "clustered"
    downtime: tuple[float, ...] = (0.0,)
    backfill: bool = True
    migration: tuple[bool, ...] = (True,)
    seeds: int = 1
    seed: int = 0
    bsld: str = "max"
    bsld_time: str = "run"
    gamma: float = 10.0
    name: str = "campaign"
    #: where a user's policy file named relatively is read from (the spec's folder); not a TOML key
    policy_base: str = "."
    #: the users' policies of ``policies``, resolved by :meth:`normalized`; not a TOML key
    policy_sources: tuple[Any, ...] = ()

    # ------------------------------------------------------------------ normalisation, checks

    def normalized(self) -> TorusSpec:
        """Canonical names (lower case) and shape, sorted unique values; an error names the key."""
        from coschedule.errors import InvalidInstance
        from coschedule.torus.geometry import format_dims, parse_dims

        if not self.sources:
            raise CampaignError("the campaign has no workload (a workload key or [[source]] tables)")
        names = [s.name for s in self.sources]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise CampaignError(f"two workloads are named {min(dup)!r}; give them distinct names ([[source]] name)")
        if not isinstance(self.shape, str):
            raise CampaignError(f"shape must be a string XxYxZ (e.g. \"4x4x8\"), got {self.shape!r}")
        try:
            shape = format_dims(parse_dims(self.shape.strip().lower()))
        except InvalidInstance as e:
            raise CampaignError(f"shape: {e}") from None
        try:
            listed, users = names_and_policies(self.policies, POLICIES, "torus", "torus policy", self.policy_base)
        except CampaignError as e:
            raise CampaignError(f"policies: {e}") from None
        pol = tuple(dict.fromkeys(listed))
        if not pol:
            raise CampaignError("policies must list at least one of fcfs, balancing, tiebreak")
        values: dict[str, tuple[float, ...]] = {}
        for key in ("confidence", "accuracy"):
            values[key] = tuple(sorted({_number(a, key, high=1.0) for a in getattr(self, key)}))
        for owner, key in PARAMETER.items():
            if owner in pol and not values[key]:
                raise CampaignError(f"policy {owner} needs {key} (values in [0, 1], e.g. [0.1, 0.9])")
            if owner not in pol and values[key]:
                raise CampaignError(f"{key} is the parameter of {owner}, which policies does not list")
        if not self.load_scale or not self.downtime:
            raise CampaignError("load_scale and downtime need at least one value each")
        return TorusSpec(
            sources=tuple(self.sources), policies=pol, shape=shape,
            unit=None if self.unit is None else _count(self.unit, "unit", 1),
            load_scale=tuple(sorted({_number(c, "load_scale", strict=True) for c in self.load_scale})),
            confidence=values["confidence"], accuracy=values["accuracy"],
            pf=_choice(self.pf, "pf", ("max", "product")),
            failure_count=_failure_counts(self.failure_count, names),
            failure_model=_choice(self.failure_model, "failure_model", ("clustered", "uniform")),
            downtime=tuple(sorted({_number(d, "downtime") for d in self.downtime})),
            backfill=bool(self.backfill), migration=_migration(self.migration),
            seeds=_count(self.seeds, "seeds", 1), seed=_count(self.seed, "seed"),
            bsld=_choice(self.bsld, "bsld", ("max", "min")), bsld_time=_choice(self.bsld_time, "bsld_time",
                                                                                ("run", "request")),
            gamma=_number(self.gamma, "gamma", strict=True),
            name=self.name, policy_base=self.policy_base, policy_sources=tuple({u.ref: u for u in users}.values()),
        )

    def check(self) -> None:
        """Everything that can go wrong before the first cell: the sources load, and each keeps
        at least one job on the torus (jobs wider than it are dropped)."""
        for src in self.sources:
            src.check()
        for ref, c, jobs in self._torus_workloads(self.load_scale[:1]):
            if not jobs.n:
                raise CampaignError(f"{ref.key}: no job fits the torus {self.shape} (unit {jobs.unit}); "
                                    f"all {len(jobs.wide)} are wider")

    # ------------------------------------------------------------------------ the grid

    def dims(self) -> tuple[int, int, int]:
        from coschedule.torus.geometry import parse_dims

        return parse_dims(self.shape)

    def workloads(self) -> Iterator[Any]:
        for src in self.sources:
            yield from src.workloads(self.seed)

    def _torus_workloads(self, scales: tuple[float, ...]) -> Iterator[tuple[Any, float, TorusJobs]]:
        from coschedule.errors import InvalidInstance
        from coschedule.torus.workload import torus_workload

        for ref in self.workloads():
            for c in scales:
                try:
                    yield ref, c, torus_workload(ref.workload, self.dims(), load_scale=c, unit=self.unit)
                except InvalidInstance as e:
                    raise CampaignError(f"{ref.key}: {e}") from None

    def n_instances(self) -> int:
        return sum(src.size() for src in self.sources)

    def schedulers(self) -> tuple[tuple[str, float | None], ...]:
        """``(policy, its parameter or None)``: fcfs once, balancing at each confidence,
        tiebreak at each accuracy."""
        out: list[tuple[str, float | None]] = []
        for p in self.policies:
            if p in PARAMETER:
                out += [(p, a) for a in getattr(self, PARAMETER[p])]
            else:
                out.append((p, None))
        return tuple(out)

    def counts(self, source: str) -> tuple[int, ...]:
        """The failure counts of the workloads of ``source`` (a source's name)."""
        fc = self.failure_count
        if fc and isinstance(fc[0], tuple):
            return dict(fc)[source]  # type: ignore[arg-type]
        return fc  # type: ignore[return-value]

    def _per_scale(self, source: str) -> int:
        """Runs per workload of ``source`` and load scale, per scheduler."""
        counts = self.counts(source)
        failing = sum(1 for k in counts if k)
        return (len(counts) - failing) + failing * len(self.downtime) * self.seeds

    def n_cells(self) -> int:
        return sum(src.size() * self._per_scale(src.name) for src in self.sources) * len(self.load_scale) * len(
            self.schedulers()) * len(self.migration)

    @property
    def runs_per_cell(self) -> int:
        """Simulations per cell: one."""
        return 1

    def cells(self) -> Iterator[TorusCell]:
        """The grid, lazily, workload by workload and load scale by load scale (each put on the
        torus once), the largest failure counts first; within a point and replicate, every
        scheduler (the same failure trace)."""
        common: dict[str, Any] = {"pf": self.pf, "backfill": self.backfill, "bsld": self.bsld, "gamma": self.gamma,
                                  "bsld_time": self.bsld_time}
        scheds = [(pol, a, m) for pol, a in self.schedulers() for m in self.migration]
        user = {src.ref: src for src in self.policy_sources}
        for ref, c, jobs in self._torus_workloads(self.load_scale):
            for K in sorted(self.counts(ref.source), reverse=True):
                if not K:
                    for pol, a, m in scheds:
                        yield TorusCell(torus_cell_id(ref.key, self.shape, c, pol, a, migration=m), ref.source,
                                        ref.key, jobs, self.shape, c, pol, *_split(pol, a), 0, None, 0.0, None, None,
                                        migration=m, **common, policy_source=user.get(pol))
                    continue
                for k in range(self.seeds):
                    root = torus_failure_seed(self.seed, ref.key, self.shape, c, K, self.failure_model, k)
                    for D in self.downtime:
                        for pol, a, m in scheds:
                            yield TorusCell(torus_cell_id(ref.key, self.shape, c, pol, a, K, self.failure_model, D, k,
                                                          m), ref.source, ref.key, jobs, self.shape, c, pol,
                                            *_split(pol, a), K, self.failure_model, D, k, root, migration=m, **common,
                                            policy_source=user.get(pol))

    def grid_line(self) -> str:
        """The grid's size, as ``coschedule simulate --dry-run`` prints it."""
        sched = " + ".join(f"{p}" if p not in PARAMETER else f"{p} x {len(getattr(self, PARAMETER[p]))} "
                           f"{PARAMETER[p]}" for p in self.policies)
        shapes = {self.counts(src.name) for src in self.sources}
        if len(shapes) == 1:
            counts = shapes.pop()
            failing = sum(1 for k in counts if k)
            free = "1 failure-free + " if failing < len(counts) else ""
            per = f"({free}{failing} failure_count x {len(self.downtime)} downtime x {self.seeds} seeds)"
        else:
            per = f"(each its failure_count x {len(self.downtime)} downtime x {self.seeds} seeds)"
        mig = "" if len(self.migration) == 1 else f" x {len(self.migration)} migration"
        return (f"grid: {self.n_instances()} workloads x {len(self.load_scale)} load_scale x {per} x ({sched}){mig} = "
                f"{self.n_cells()} cells, one simulation each, on the torus {self.shape}")

    def grid_info(self) -> dict[str, Any]:
        """The grid's size as ``coschedule simulate --dry-run --json`` prints it."""
        return {"simulator": self.simulator, "workloads": self.n_instances(), "shape": self.shape,
                "load_scale": len(self.load_scale),
                "failure_count": {src.name: len(self.counts(src.name)) for src in self.sources},
                "downtime": len(self.downtime), "seeds": self.seeds, "schedulers": len(self.schedulers()),
                "migration": len(self.migration),
                "cells": self.n_cells(), "simulations": self.n_cells()}

    def describe_sources(self) -> str:
        parts = []
        for ref, _, jobs in self._torus_workloads(self.load_scale[:1]):
            w = ref.workload
            extra = f", {len(jobs.wide)} wider dropped" if jobs.wide else ""
            parts.append(f"{ref.key} ({w.n} jobs on {w.n_nodes} nodes; {jobs.n} on the torus {self.shape} "
                         f"at unit {jobs.unit}{extra}, {jobs.rounded} rounded up to a box size)")
        return ", ".join(parts)

    # ---------------------------------------------------------------------- identity

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SPEC_FORMAT, "version": SPEC_VERSION, "simulator": self.simulator, "name": self.name,
            "seed": self.seed, "seeds": self.seeds, "shape": self.shape, "unit": self.unit,
            "load_scale": list(self.load_scale), "policies": list(self.policies),
            "confidence": list(self.confidence), "accuracy": list(self.accuracy), "pf": self.pf,
            "failure_count": _counts_dict(self.failure_count), "failure_model": self.failure_model,
            "downtime": list(self.downtime), "backfill": self.backfill, "migration": list(self.migration),
            "bsld": self.bsld, "bsld_time": self.bsld_time, "gamma": self.gamma,
            "sources": [s.to_dict() for s in self.sources],
            **recorded_sources(self.policy_sources),
        }

    def digest(self) -> str:
        """SHA-256 of the canonical spec (what the numbers depend on: not the name)."""
        d = self.to_dict()
        d.pop("name")
        return hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _failure_counts(value: Any, names: list[str]) -> tuple[int, ...] | tuple[tuple[str, tuple[int, ...]], ...]:
    """``failure_count`` canonical: sorted unique counts, for all sources or per source (a
    mapping, or pairs, from each source's name: every source needs its own, and no other)."""
    def counts(vs: Any, key: str) -> tuple[int, ...]:
        vs = [vs] if isinstance(vs, int) and not isinstance(vs, bool) else vs
        if not isinstance(vs, (list, tuple)) or not vs:
            raise CampaignError(f"{key} must be a non-empty list of integers >= 0, got {vs!r}")
        from coschedule.torus.failures import MAX_FAILURES

        out = tuple(sorted({_count(k, key) for k in vs}))
        if out[-1] > MAX_FAILURES:
            raise CampaignError(f"{key}: {out[-1]:,} failures is more than {MAX_FAILURES:,} (the paper draws 1,000 to "
                                "10,000 over a log)")
        return out

    pairs = value.items() if isinstance(value, dict) else value
    if isinstance(value, dict) or (value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)
                                                 for v in value)):
        per = {str(k): counts(v, f"failure_count.{k}") for k, v in pairs}
        extra = sorted(set(per) - set(names))
        if extra:
            raise CampaignError(f"failure_count.{extra[0]}: no workload has that name (workloads: {', '.join(names)})")
        missing = [n for n in names if n not in per]
        if missing:
            raise CampaignError(f"failure_count has no value for the workload {missing[0]!r} (a table gives each "
                                "workload its own counts)")
        return tuple((n, per[n]) for n in names)
    return counts(value, "failure_count")


def _migration(value: Any) -> tuple[bool, ...]:
    """``migration`` canonical: ``true``, ``false`` or a list of them -> ``(True,)``,
    ``(False,)`` or ``(True, False)`` (with first: the paper's system, then the other reading)."""
    vs = [value] if isinstance(value, bool) else value
    if not isinstance(vs, (list, tuple)) or not vs or not all(isinstance(v, bool) for v in vs):
        raise CampaignError(f"migration must be true, false or a list of them, got {value!r}")
    return tuple(sorted(set(vs), reverse=True))


def _counts_dict(fc: Any) -> Any:
    """``failure_count`` as JSON: a list, or ``{source name: list}``."""
    if fc and isinstance(fc[0], tuple):
        return {name: list(ks) for name, ks in fc}
    return list(fc)


def _split(policy: str, a: float | None) -> tuple[float | None, float | None]:
    """``(confidence, accuracy)`` of a scheduler."""
    return (a, None) if policy == "balancing" else (None, a) if policy == "tiebreak" else (None, None)


def torus_costs(spec: TorusSpec) -> dict[str, float]:
    """Cell id -> estimated cost (any unit, for the progress bar's ETA): its jobs, and as much
    again per 1,000 failures."""
    return {c.id: float(c.jobs.n) * (1.0 + c.failure_count / 1000.0) for c in spec.cells()}


# ------------------------------------------------------------------------------- parsing

_GRID_KEYS = ("policies", "load_scale", "confidence", "accuracy", "downtime")


def torus_spec_from_dict(data: Any, where: str = "spec", base: str | Path = ".", *,
                         traces_dir: str | None = None) -> TorusSpec:
    """A :class:`TorusSpec` from the TOML table (``simulator = "torus"``), normalized; an error
    names the file and the key. Workloads: ``workload`` (an SWF trace, a bundled name or a path,
    or a list of them) and/or ``[[source]]`` tables (as a batch campaign's: slices, Batsim JSON,
    synthetic generators)."""
    if not isinstance(data, dict):
        raise CampaignError(f"{where}: expected a table")
    known = {f.name for f in fields(TorusSpec)} | {"source", "simulator", "workload"}
    known -= {"sources", "policy_base", "policy_sources"}
    kw = table_kwargs(data, where, known, (*_GRID_KEYS, "workload"),
                      (("shape", str), ("unit", int), ("pf", str), ("failure_model", str), ("backfill", bool),
                       ("seeds", int), ("seed", int), ("bsld", str), ("bsld_time", str), ("gamma", (int, float)),
                       ("name", str)),
                      what=" for a torus campaign")
    kw.pop("simulator", None)
    if "failure_count" in data:  # a list (or one count) for every workload, or a table by workload name
        kw["failure_count"] = data["failure_count"]
    if "migration" in data:  # true, false, or both: checked by normalized()
        kw["migration"] = data["migration"]
    sources: list[WorkloadSource] = []
    for i, path in enumerate(kw.pop("workload", ())):
        if not isinstance(path, str):
            raise CampaignError(f"{where}: workload must be a trace name or path (or a list of them), got {path!r}")
        sources.append(SwfWorkload(path=path, base=str(base), traces_dir=traces_dir, where=f"{where}: workload[{i}]"))
    sources += [workload_source_from_dict(s, f"{where}: source[{i}]", Path(base), traces_dir)
                for i, s in enumerate(kw.pop("source"))]
    kw.setdefault("policies", ())
    try:
        return TorusSpec(sources=tuple(sources), **kw, policy_base=str(base)).normalized()
    except CampaignError as e:
        raise CampaignError(f"{where}: {e}") from None


def with_changes(spec: TorusSpec, **changes: Any) -> TorusSpec:
    """``spec`` with ``changes`` (command-line overrides), normalized."""
    return replace(spec, **changes).normalized()
