"""Batch campaigns (``simulator = "batch"``): online batch scheduling with node failures.

A campaign is the product

    workloads (from sources) x policies x failure settings x seeds

where a failure setting is ``(node_mtbf, downtime, checkpoint_cost, recovery_cost)`` and the
failure-free setting (``node_mtbf`` none) has one cell per workload and policy (downtime,
checkpoints and seeds change nothing without failures). Each cell is **one run** of
:func:`coschedule.heuristics.batch.run.run_batch` and gives one row: the cell's values, then the result columns
of :func:`batch_metrics` (the metrics of ``coschedule.sim.metrics``).

Seeds come from the cell's values, never its position, the worker or the clock: the failures of
seed index ``k`` on workload ``key`` at MTBF ``m`` are drawn from the integer root

    SeedSequence((campaign seed, crc32(key), round(m * 1000), k))

(:func:`failure_seed`; ``run_batch(..., seed=root)`` draws the same trace from it). Every policy,
downtime, checkpoint and recovery cost of a workload, MTBF and seed index sees the same draws
(common random numbers: one trace drives every policy of a comparison; a longer downtime only
drops the failures that strike a node still down). Adding a value to the grid, or a seed, leaves
every existing cell's numbers unchanged.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, fields
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
from coschedule.campaign.workloads import (
    WorkloadSource,
    describe_workloads,
    workload_source_from_dict,
)
from coschedule.sim.checkpointing import MAX_EXPECTED_RESTARTS

if TYPE_CHECKING:  # coschedule.sim imports numba: not before a cell runs
    from coschedule.sim.workload import Workload

__all__ = [
    "BATCH_RESULTS",
    "BATCH_SCHEMA",
    "METRIC_COLUMNS",
    "BatchCell",
    "BatchSpec",
    "MetricOptions",
    "batch_cell_id",
    "batch_metrics",
    "batch_spec_from_dict",
    "failure_seed",
    "simulate_batch_cell",
]

#: what the result columns mean (``meta`` key ``results``): a database written with other
#: metrics is not resumed. Bump it whenever :func:`batch_metrics` computes something else.
BATCH_RESULTS = "batch-summary/2"  # 2: node stealing's parts and counts
#: the scalar result columns: ``(name, SQL type, path in the summary dict)``; the ``metrics``
#: JSON column keeps the whole dict (:meth:`coschedule.sim.metrics.Summary.to_dict`)
METRIC_COLUMNS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("mean_flow", "REAL", ("flow", "mean")),
    ("max_flow", "REAL", ("flow", "max")),
    ("weighted_flow", "REAL", ("flow", "weighted_mean")),
    ("mean_wait", "REAL", ("wait", "mean")),
    ("mean_slowdown", "REAL", ("bounded_slowdown", "mean")),
    ("useful", "REAL", ("utilization", "fractions", "useful")),
    ("idle", "REAL", ("utilization", "fractions", "idle")),
    ("failures", "INTEGER NOT NULL", ("utilization", "failures")),
    ("restarts", "INTEGER NOT NULL", ("utilization", "restarts")),
)
BATCH_SCHEMA = ResultSchema.table(
    (("id", "TEXT PRIMARY KEY"), ("source", "TEXT NOT NULL"), ("workload", "TEXT NOT NULL"),
     ("jobs", "INTEGER NOT NULL"), ("nodes", "INTEGER NOT NULL"), ("policy", "TEXT NOT NULL"),
     ("node_mtbf", "REAL"), ("downtime", "REAL NOT NULL"), ("checkpoint_cost", "REAL NOT NULL"),
     ("recovery_cost", "REAL NOT NULL"), ("seed_index", "INTEGER"), ("seed", "INTEGER"),
     *((name, kind) for name, kind, _ in METRIC_COLUMNS), ("seconds", "REAL NOT NULL")),
    json=("metrics",), nullable_ints=("seed_index", "seed"), version=2, results=BATCH_RESULTS,
)
#: refuse a grid where some job expects more restarts than this per checkpoint period
DEFAULT_MAX_RESTARTS = MAX_EXPECTED_RESTARTS


# ------------------------------------------------------------------------------- the metrics


@dataclass(frozen=True)
class MetricOptions:
    """The parameters of :func:`coschedule.sim.metrics.summarize` a batch campaign uses:
    ``classes`` (inner boundaries of the size classes, ``None``: its default), ``prune`` (the
    fraction of jobs dropped at each end before the flow statistics), ``window`` (the
    utilization window in seconds, ``None``: the whole run) and ``gamma`` (Γ of the bounded
    slowdown, seconds)."""

    classes: tuple[int, ...] | None = None
    prune: float = 0.2
    window: tuple[float, float] | None = None
    gamma: float = 10.0


def batch_metrics(result: Any, options: MetricOptions = MetricOptions()) -> dict[str, Any]:
    """The result of one run (a :class:`~coschedule.sim.engine.SimulationResult`) as the
    campaign stores it: ``coschedule.sim.metrics.summarize(result, ...).to_dict()`` ([Du2024]
    §5.3: pruned flows overall and per size class, waits, bounded slowdowns, the utilization
    breakdown of the window, failures and restarts). The one place that turns a run into
    numbers: :data:`BATCH_RESULTS` changes with it."""
    from coschedule.sim.metrics import summarize

    return summarize(result, classes=options.classes, prune=options.prune, window=options.window,
                     gamma=options.gamma).to_dict()


def _pick(d: dict[str, Any], path: tuple[str, ...]) -> Any:
    for key in path:
        d = d[key]
    return d


def _jsonable(x: Any) -> Any:
    """``x`` with every non-finite float as ``None`` (JSON has no NaN)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


# ------------------------------------------------------------------------------------- cells


@dataclass(frozen=True)
class BatchCell:
    """One run: everything a worker needs (the jobs included), and nothing it must look up.
    ``node_mtbf`` ``None``: failure-free (then ``seed`` is ``None``); ``recovery_cost`` ``None``:
    the checkpoint cost."""

    simulator: ClassVar[str] = "batch"

    id: str
    source: str
    workload_key: str
    workload: Workload
    policy: str
    node_mtbf: float | None
    downtime: float
    checkpoint_cost: float
    recovery_cost: float | None
    seed_index: int | None
    seed: int | None
    knows_downtime: bool = False
    final_checkpoint: bool = False
    metrics: MetricOptions = MetricOptions()
    release: str = "resubmission"
    reservations: str = "nodes"
    policy_source: Any = None  # a user's policy (coschedule.plugins.PolicySource): its file's text travels with it


def _num(x: float) -> str:
    return repr(float(x))


def batch_cell_id(key: str, policy: str, node_mtbf: float | None, downtime: float = 0.0,
                  checkpoint_cost: float = 0.0, recovery_cost: float | None = None,
                  seed_index: int | None = None) -> str:
    """The cell's primary key: its values (``KEY|POLICY|mtbf=none`` without failures)."""
    if node_mtbf is None:
        return f"{key}|{policy}|mtbf=none"
    R = "C" if recovery_cost is None else _num(recovery_cost)
    return (f"{key}|{policy}|mtbf={_num(node_mtbf)}|D={_num(downtime)}|C={_num(checkpoint_cost)}|R={R}"
            f"|s={seed_index}")


def failure_seed(seed: int, key: str, node_mtbf: float, index: int) -> int:
    """The integer root of the failures of seed ``index`` (module docstring), in ``[0, 2^63)``."""
    ss = np.random.SeedSequence([seed, _crc(key), round(node_mtbf * 1000), index])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def simulate_batch_cell(cell: BatchCell, backend: str = "auto") -> dict[str, Any]:
    """Run one cell; the row the store keeps. ``backend="reference"`` runs the reference event
    loop, anything else lets ``run_batch`` pick (its compiled kernel gives the same numbers).
    The run is checked by the validator (:func:`~coschedule.sim.validate.validate_run`) before
    its row is made, as ``coschedule batch`` checks its run: a cell whose run breaks a rule
    fails with that rule's one line, and nothing of it is stored."""
    from coschedule.heuristics.batch.run import run_batch
    from coschedule.sim.validate import validate_run

    t0 = time.perf_counter()
    user = cell.policy_source
    result = run_batch(cell.workload, user or cell.policy, node_mtbf=cell.node_mtbf, seed=cell.seed,
                       downtime=cell.downtime, checkpoint_cost=cell.checkpoint_cost,
                       recovery_cost=cell.recovery_cost, final_checkpoint=cell.final_checkpoint,
                       knows_downtime=cell.knows_downtime, release=cell.release,
                       reservations=("count" if cell.policy in ("fcfs", "easy") else None if user else
                                     cell.reservations),
                       backend="reference" if backend == "reference" else "auto")
    validate_run(result)
    metrics = _jsonable(batch_metrics(result, cell.metrics))
    row: dict[str, Any] = {
        "id": cell.id, "source": cell.source, "workload": cell.workload_key, "jobs": cell.workload.n,
        "nodes": cell.workload.n_nodes, "policy": cell.policy, "node_mtbf": cell.node_mtbf,
        "downtime": cell.downtime, "checkpoint_cost": cell.checkpoint_cost,
        "recovery_cost": cell.checkpoint_cost if cell.recovery_cost is None else cell.recovery_cost,
        "seed_index": cell.seed_index, "seed": cell.seed,
    }
    row.update({name: _pick(metrics, path) for name, _, path in METRIC_COLUMNS})
    row["metrics"] = metrics
    row["seconds"] = time.perf_counter() - t0
    return row


# -------------------------------------------------------------------------------------- spec


def _policy_names() -> tuple[str, ...]:
    from coschedule.heuristics.batch.policies import BATCH_POLICIES

    return tuple(BATCH_POLICIES)


def _policies(values: Any, base: str) -> tuple[list[str], tuple[Any, ...]]:
    """The built-in names as the registry spells them, a user's policy as written, and the users'
    policies resolved (:func:`~coschedule.campaign.sources.names_and_policies`)."""
    return names_and_policies(values, _policy_names(), "batch", "batch policy", base)


def _number(v: Any, what: str, *, low: float = 0.0, strict: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < low or (strict and v == low):
        raise CampaignError(f"{what} must be a finite number {'>' if strict else '>='} {low:g}, got {v!r}")
    return float(v)


def _metric_options(spec: BatchSpec) -> dict[str, Any]:
    """``classes``, ``prune``, ``window`` and ``gamma`` of ``spec``, checked and canonical."""
    from coschedule.sim.metrics import size_classes

    classes = spec.classes
    if classes is not None:
        if any(isinstance(b, bool) or not isinstance(b, int) for b in classes):
            raise CampaignError(f"classes must be integers (the inner boundaries of the size classes), got {list(classes)}")
        try:
            size_classes(2**62, classes)
        except ValueError as e:
            raise CampaignError(f"classes: {e}") from None
        classes = tuple(classes)
    prune = _number(spec.prune, "prune")
    if not prune < 0.5:
        raise CampaignError(f"prune must be a fraction in [0, 0.5), got {spec.prune!r}")
    window = spec.window
    if window is not None:
        if len(window) != 2:
            raise CampaignError(f"window must be [start, end] in seconds, got {list(window)}")
        window = (_number(window[0], "window start"), _number(window[1], "window end"))
        if not window[0] < window[1]:
            raise CampaignError(f"window must have start < end, got {list(window)}")
    return {"classes": classes, "prune": prune, "window": window,
            "gamma": _number(spec.gamma, "gamma", strict=True)}


def _mtbf(v: Any) -> float | None:
    """``None`` (failure-free) for ``None``, ``"none"`` or infinity; else a number > 0."""
    if v is None or (isinstance(v, str) and v.lower() == "none") or (isinstance(v, float) and v == math.inf):
        return None
    return _number(v, "node_mtbf", strict=True)


@dataclass(frozen=True)
class BatchSpec:
    """A batch campaign's grid (module docstring); its :meth:`digest` identifies its database.

    ``node_mtbf``: per-node MTBFs in seconds, ``None`` for failure-free; ``platform_mtbf``:
    platform MTBFs in seconds, each giving every workload the node MTBF ``platform_mtbf x N``
    (its own node count: the paper's "MTBF of the platform", [Du2024] §5.2); ``recovery_cost``
    ``None``: R = C. ``seeds``: failure traces per failure setting (indices ``0 .. seeds-1``).
    ``knows_downtime``, ``final_checkpoint``, ``release`` (a restarted job's release:
    ``"resubmission"``, the default, or ``"first"``) and ``reservations`` (``"nodes"``, the
    default: reservations on particular nodes, as batsched does, or ``"count"``; for
    conservative backfilling and node stealing, FCFS and EASY run on counts, and a grid of
    FCFS and EASY only says ``"count"``) go to
    :func:`~coschedule.heuristics.batch.run.run_batch`;
    ``classes``, ``prune``, ``window`` and ``gamma`` to :func:`coschedule.sim.metrics.summarize`
    (:class:`MetricOptions`).
    ``max_restarts`` refuses (before any work) a grid where some job expects more restarts per
    checkpoint period than this (without checkpoints: per run), ``e^{nodes * segment / node_mtbf}
    - 1``: such a run may never end. It is not part of the digest (it changes no number).
    """

    simulator: ClassVar[str] = "batch"

    sources: tuple[WorkloadSource, ...]
    policies: tuple[str, ...]
    node_mtbf: tuple[float | None, ...] = (None,)
    platform_mtbf: tuple[float, ...] = ()
    downtime: tuple[float, ...] = (0.0,)
    checkpoint_cost: tuple[float, ...] = (0.0,)
    recovery_cost: tuple[float | None, ...] = (None,)
    seeds: int = 1
    seed: int = 0
    name: str = "campaign"
    knows_downtime: bool = False
    final_checkpoint: bool = False
    release: str = "resubmission"
    reservations: str = "nodes"
    classes: tuple[int, ...] | None = None
    prune: float = 0.2
    window: tuple[float, float] | None = None
    gamma: float = 10.0
    max_restarts: float = DEFAULT_MAX_RESTARTS
    #: where a user's policy file named relatively is read from (the spec's folder); not a TOML key
    policy_base: str = "."
    #: the users' policies of ``policies``, resolved by :meth:`normalized`; not a TOML key
    policy_sources: tuple[Any, ...] = ()

    # ------------------------------------------------------------------ normalisation, checks

    def normalized(self) -> BatchSpec:
        """Canonical policy names (lower case), sorted unique values (failure-free first)."""
        pol, users = _policies(self.policies, self.policy_base)
        mtbf = {_mtbf(m) for m in self.node_mtbf}
        for key in ("seeds", "seed"):
            v = getattr(self, key)
            low = 1 if key == "seeds" else 0
            if isinstance(v, bool) or not isinstance(v, int) or v < low:
                raise CampaignError(f"{key} must be an integer >= {low}, got {v!r}")
        if self.release not in ("resubmission", "first"):
            raise CampaignError(f"release must be one of resubmission, first, got {self.release!r}")
        if self.reservations not in ("count", "nodes"):
            raise CampaignError(f"reservations must be one of count, nodes, got {self.reservations!r}")
        if not (self.max_restarts > 0):
            raise CampaignError(f"max_restarts must be > 0, got {self.max_restarts!r}")
        if not self.sources:
            raise CampaignError("the campaign has no workload source (swf, batsim or synthetic)")
        if not pol or not mtbf or not self.downtime or not self.checkpoint_cost or not self.recovery_cost:
            raise CampaignError("the campaign needs at least one policy and one value of node_mtbf, downtime, "
                                "checkpoint_cost and recovery_cost")
        names = [s.name for s in self.sources]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise CampaignError(f"two sources are named {min(dup)!r}; give them distinct names")
        return BatchSpec(
            sources=tuple(self.sources),
            policies=tuple(dict.fromkeys(pol)),
            node_mtbf=tuple(sorted(mtbf, key=lambda m: -1.0 if m is None else m)),
            platform_mtbf=tuple(sorted({_number(m, "platform_mtbf", strict=True) for m in self.platform_mtbf})),
            downtime=tuple(sorted({_number(d, "downtime") for d in self.downtime})),
            checkpoint_cost=tuple(sorted({_number(c, "checkpoint_cost") for c in self.checkpoint_cost})),
            recovery_cost=tuple(sorted({None if r is None else _number(r, "recovery_cost") for r in self.recovery_cost},
                                       key=lambda r: -1.0 if r is None else r)),
            policy_base=self.policy_base, policy_sources=users,
            seeds=self.seeds, seed=self.seed, name=self.name, knows_downtime=bool(self.knows_downtime),
            final_checkpoint=bool(self.final_checkpoint), release=self.release,
            reservations=self.reservations if any(p not in ("fcfs", "easy") for p in pol) else "count",
            **_metric_options(self),
            max_restarts=float(self.max_restarts),
        )

    def check(self) -> None:
        """Everything that can go wrong before the first cell: the sources load, and no job of a
        failure setting expects more than ``max_restarts`` restarts per segment, nor waits for more
        nodes up at once than the downtime leaves a chance of."""
        from coschedule.sim.checkpointing import Checkpointing, why_endless

        for src in self.sources:
            src.check()
        for ref in self.workloads():
            w = ref.workload
            for m in self._failing(w):
                for C, R, D in itertools.product(self.checkpoint_cost, self.recovery_cost, self.downtime):
                    reason = why_endless(w, Checkpointing(cost=C, recovery=R, node_mtbf=m), m, D,
                                         limit=self.max_restarts, options=False)
                    if reason:
                        raise CampaignError(f"{ref.key}: {reason}")

    # ------------------------------------------------------------------------ the grid

    def workloads(self) -> Iterator[Any]:
        for src in self.sources:
            yield from src.workloads(self.seed)

    def n_instances(self) -> int:
        return sum(src.size() for src in self.sources)

    def _failing(self, workload: Any = None) -> tuple[float, ...]:
        """The node MTBFs of the failure settings (of ``workload``: with its platform MTBFs)."""
        out = [m for m in self.node_mtbf if m is not None]
        if workload is not None:
            out += [pm * workload.n_nodes for pm in self.platform_mtbf]
        return tuple(dict.fromkeys(out))

    def _settings(self) -> int:
        """Cells per workload and policy."""
        free = 1 if None in self.node_mtbf else 0
        return free + (len(self._failing()) + len(self.platform_mtbf)) * len(self.downtime) * len(self.checkpoint_cost) * len(
            self.recovery_cost) * self.seeds

    def n_cells(self) -> int:
        return self.n_instances() * len(self.policies) * self._settings()

    @property
    def runs_per_cell(self) -> int:
        """Simulations per cell: one."""
        return 1

    def cells(self) -> Iterator[BatchCell]:
        """The grid, lazily, workload by workload (each loaded or generated once), the runs with
        the most failures (lowest MTBF) first."""
        common: dict[str, Any] = {"knows_downtime": self.knows_downtime, "final_checkpoint": self.final_checkpoint,
                                  "release": self.release, "reservations": self.reservations,
                                  "metrics": MetricOptions(self.classes, self.prune, self.window, self.gamma)}
        user = {src.ref: src for src in self.policy_sources}
        for ref in self.workloads():
            for m in self._failing(ref.workload):
                for k in range(self.seeds):
                    root = failure_seed(self.seed, ref.key, m, k)
                    for D in self.downtime:
                        for C in self.checkpoint_cost:
                            for R in self.recovery_cost:
                                for pol in self.policies:
                                    yield BatchCell(batch_cell_id(ref.key, pol, m, D, C, R, k), ref.source, ref.key,
                                                    ref.workload, pol, m, D, C, R, k, root, **common,
                                                    policy_source=user.get(pol))
            if None in self.node_mtbf:
                for pol in self.policies:
                    yield BatchCell(batch_cell_id(ref.key, pol, None), ref.source, ref.key, ref.workload, pol,
                                    None, 0.0, 0.0, 0.0, None, None, **common, policy_source=user.get(pol))

    def grid_line(self) -> str:
        """The grid's size, as ``coschedule simulate --dry-run`` prints it."""
        free = "1 failure-free + " if None in self.node_mtbf else ""
        mtbfs = f"{len(self._failing())} node_mtbf"
        if self.platform_mtbf:
            mtbfs = f"({mtbfs} + {len(self.platform_mtbf)} platform_mtbf)"
        failing = (f"{mtbfs} x {len(self.downtime)} downtime x "
                   f"{len(self.checkpoint_cost)} checkpoint_cost x {len(self.recovery_cost)} recovery_cost x "
                   f"{self.seeds} seeds")
        return (f"grid: {self.n_instances()} workloads x {len(self.policies)} policies x ({free}{failing}) = "
                f"{self.n_cells()} cells, one simulation each")

    def grid_info(self) -> dict[str, Any]:
        """The grid's size as ``coschedule simulate --dry-run --json`` prints it."""
        return {"simulator": self.simulator, "workloads": self.n_instances(), "policies": len(self.policies),
                "failure_free": None in self.node_mtbf, "node_mtbf": len(self._failing()),
                "platform_mtbf": len(self.platform_mtbf),
                "downtime": len(self.downtime), "checkpoint_cost": len(self.checkpoint_cost),
                "recovery_cost": len(self.recovery_cost), "seeds": self.seeds, "cells": self.n_cells(),
                "simulations": self.n_cells()}

    def describe_sources(self) -> str:
        return describe_workloads(self.sources)

    # ---------------------------------------------------------------------- identity

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SPEC_FORMAT,
            "version": SPEC_VERSION,
            "simulator": self.simulator,
            "name": self.name,
            "seed": self.seed,
            "seeds": self.seeds,
            "policies": list(self.policies),
            "node_mtbf": list(self.node_mtbf),
            **({"platform_mtbf": list(self.platform_mtbf)} if self.platform_mtbf else {}),
            "downtime": list(self.downtime),
            "checkpoint_cost": list(self.checkpoint_cost),
            "recovery_cost": list(self.recovery_cost),
            "knows_downtime": self.knows_downtime,
            "final_checkpoint": self.final_checkpoint,
            "release": self.release,
            "reservations": self.reservations,
            "classes": None if self.classes is None else list(self.classes),
            "prune": self.prune,
            "window": None if self.window is None else list(self.window),
            "gamma": self.gamma,
            "max_restarts": self.max_restarts,
            "sources": [s.to_dict() for s in self.sources],
            **recorded_sources(self.policy_sources),
        }

    def digest(self) -> str:
        """SHA-256 of the canonical spec (what the numbers depend on: not the name, not
        ``max_restarts``)."""
        d = self.to_dict()
        d.pop("name")
        d.pop("max_restarts")
        text = json.dumps(d, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def batch_costs(spec: BatchSpec) -> dict[str, float]:
    """Cell id -> estimated cost in seconds (the ETA of the progress line weighs cells by it):
    ``0.3 + 5e-5 jobs + 9e-5 F^1.5``, ``F`` the failures expected over the run (nodes x the span
    of the submissions plus the mean length, over the node MTBF). Fitted to the cells of the
    bundled du2024 campaigns (1 to 20 s; a cell's cost grows faster than its failures, as a
    failure-laden queue makes each plan longer); the ETA of those campaigns, ten seconds and a
    minute in, came within 2x of the real time, where weighing by the jobs alone said 3x for the
    MTBF sweep."""
    costs = {}
    spans: dict[str, float] = {}
    for c in spec.cells():
        w = c.workload
        if c.workload_key not in spans:
            spans[c.workload_key] = (float(w.submit.max() - w.submit.min()) + float(w.length.mean())) if w.n else 0.0
        failures = 0.0 if c.node_mtbf is None else w.n_nodes * spans[c.workload_key] / c.node_mtbf
        costs[c.id] = 0.3 + 5e-5 * w.n + 9e-5 * failures ** 1.5
    return costs


# ------------------------------------------------------------------------------- parsing

_GRID_KEYS = ("policies", "node_mtbf", "platform_mtbf", "downtime", "checkpoint_cost", "recovery_cost")


def batch_spec_from_dict(data: Any, where: str = "spec", base: str | Path = ".", *,
                         traces_dir: str | None = None) -> BatchSpec:
    """A :class:`BatchSpec` from the TOML table (``simulator = "batch"``; ``[[source]]`` tables
    for the workloads; ``node_mtbf`` values are seconds or ``"none"``)."""
    if not isinstance(data, dict):
        raise CampaignError(f"{where}: expected a table")
    known = {f.name for f in fields(BatchSpec)} | {"source", "simulator"}
    known -= {"sources", "policy_base", "policy_sources"}
    kw = table_kwargs(data, where, known, (*_GRID_KEYS, "classes", "window"),
                      (("seeds", int), ("seed", int), ("name", str), ("knows_downtime", bool), ("release", str),
                       ("reservations", str),
                       ("final_checkpoint", bool), ("prune", (int, float)), ("gamma", (int, float)),
                       ("max_restarts", (int, float))), what=" for a batch campaign")
    kw.pop("simulator", None)
    kw["sources"] = tuple(workload_source_from_dict(s, f"{where}: source[{i}]", Path(base), traces_dir)
                          for i, s in enumerate(kw.pop("source")))
    kw.setdefault("policies", ())
    return BatchSpec(**kw, policy_base=str(base))
