"""Redistribution campaigns (``simulator = "redistrib"``): a pack of malleable applications under
fail-stop failures, with and without processor redistribution ([Aupy2017] §1.5.4-1.5.5).

A campaign is the product

    n (applications) x p (processors) x MTBF (years, per processor) x c x runs x variants

where a *point* is one ``(n, p, MTBF, c)`` and a *variant* (:data:`VARIANTS`) is what the
simulator does at application ends and at failures, with or without failures:

============================  ==========  ============  ========
variant                       at an end   at a failure  failures
============================  ==========  ============  ========
``faulty``                    none        none          yes: the baseline
``fault-free-none``           none        none          no
``fault-free-local``          EndLocal    --            no
``fault-free-greedy``         EndGreedy   --            no
``local+saf``                 EndLocal    ShortestApplicationsFirst   yes
``local+iterated``            EndLocal    IteratedGreedy              yes
``greedy+saf``                EndGreedy   ShortestApplicationsFirst   yes
``greedy+iterated``           EndGreedy   IteratedGreedy              yes
============================  ==========  ============  ========

Each **cell** is one run of one variant at one point: :func:`~coschedule.heuristics.
redistribution.run_pack` from Resilient Optimal-1-pack's allocation, validated by
:func:`coschedule.redistribution.validate.validate_pack_run` before its row is written. Its row holds
the raw makespan, the makespan of the ``faulty`` run of the same pack on the same failure trace,
and their ratio (§1.5.5 normalises by the faulty run without redistribution): the cell computes
that baseline too (at most once per process for a pack and trace: the runs are deterministic, so
a cached baseline is the same number), whether or not ``faulty`` is among the spec's variants.
The ``faulty`` cell's ratio is 1.0 exactly.

Seeds come from the cell's values, never its position, the worker or the clock:

* the pack of run ``k`` with ``n`` applications: :meth:`~coschedule.redistribution.MalleablePack.
  synthetic` from ``SeedSequence((campaign seed, crc32("pack"), n, k))`` (:func:`pack_seed`):
  the same ``m_i`` at every ``p``, MTBF and ``c``;
* the failures of run ``k`` on ``p`` processors: :func:`~coschedule.sim.failures.poisson_failures`
  from ``SeedSequence((campaign seed, crc32("failures"), p, k))`` (:func:`failure_seed`), at the
  point's MTBF, with the point's downtime, over a horizon of twice the largest expected time of
  the initial allocation, doubled until the run ends inside it (as ``run_pack(seed=...)`` does).
  The trace of a horizon is a prefix of the trace of any longer one, so every variant of a run
  sees the same failures up to its own makespan (common random numbers: the ratios are paired),
  and so does every ``c`` of a run at one ``p`` and MTBF.

Neither the variant nor ``c`` enter a seed: adding a variant, a value or a run leaves every
existing cell's numbers unchanged. The report and the figures: :mod:`.redistrib_report`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from coschedule.campaign.sources import CampaignError, _crc, recorded_sources, table_kwargs
from coschedule.campaign.spec import SPEC_FORMAT, SPEC_VERSION
from coschedule.campaign.store import ResultSchema
from coschedule.errors import unknown_name

if TYPE_CHECKING:  # numba-compiled modules: not before a cell runs
    from coschedule.redistribution.model import MalleablePack, Resilience
    from coschedule.redistribution.simulation import PackResult
    from coschedule.sim.failures import FailureTrace

__all__ = [
    "AXES",
    "REDISTRIB_RESULTS",
    "REDISTRIB_SCHEMA",
    "VARIANTS",
    "RedistribCell",
    "RedistribSpec",
    "failure_seed",
    "pack_seed",
    "redistrib_cell_id",
    "redistrib_costs",
    "redistrib_spec_from_dict",
    "run_variant",
    "simulate_redistrib_cell",
]

#: variant -> (at_end, at_failure, fault_free) of :func:`~coschedule.heuristics.redistribution.run_pack`
VARIANTS: dict[str, tuple[str, str, bool]] = {
    "faulty": ("none", "none", False),
    "fault-free-none": ("none", "none", True),
    "fault-free-local": ("local", "none", True),
    "fault-free-greedy": ("greedy", "none", True),
    "local+saf": ("local", "saf", False),
    "local+iterated": ("local", "iterated", False),
    "greedy+saf": ("greedy", "saf", False),
    "greedy+iterated": ("greedy", "iterated", False),
}
#: the grid's axes, as the spec and the rows name them
AXES = ("n", "p", "mtbf_years", "c")

#: what the result columns mean (``meta`` key ``results``): a database written with other
#: results is not resumed. Bump it whenever :func:`simulate_redistrib_cell` computes something else.
REDISTRIB_RESULTS = "redistrib-makespans/1"
REDISTRIB_SCHEMA = ResultSchema.table(
    (("id", "TEXT PRIMARY KEY"), ("n", "INTEGER NOT NULL"), ("p", "INTEGER NOT NULL"),
     ("mtbf_years", "REAL NOT NULL"), ("c", "REAL NOT NULL"), ("variant", "TEXT NOT NULL"),
     ("at_end", "TEXT NOT NULL"), ("at_failure", "TEXT NOT NULL"), ("fault_free", "INTEGER NOT NULL"),
     ("run", "INTEGER NOT NULL"), ("pack_seed", "INTEGER NOT NULL"), ("failure_seed", "INTEGER NOT NULL"),
     ("makespan", "REAL NOT NULL"), ("faulty_makespan", "REAL NOT NULL"), ("ratio", "REAL NOT NULL"),
     ("failures", "INTEGER NOT NULL"), ("failures_hit", "INTEGER NOT NULL"),
     ("redistributions", "INTEGER NOT NULL"), ("changes", "INTEGER NOT NULL"), ("seconds", "REAL NOT NULL")),
    json=("details",), version=2, results=REDISTRIB_RESULTS,
)


# ------------------------------------------------------------------------------------- seeds


def _root(parts: list[int]) -> int:
    return int(np.random.SeedSequence(parts).generate_state(1, np.uint64)[0] >> np.uint64(1))


def pack_seed(seed: int, n: int, run: int) -> int:
    """The integer seed of the pack of run ``run`` with ``n`` applications, in ``[0, 2^63)``."""
    return _root([seed, _crc("pack"), int(n), int(run)])


def failure_seed(seed: int, p: int, run: int) -> int:
    """The integer root of the failure trace of run ``run`` on ``p`` processors, in ``[0, 2^63)``."""
    return _root([seed, _crc("failures"), int(p), int(run)])


# ------------------------------------------------------------------------------------- cells


def _num(x: float) -> str:
    return repr(float(x))


def redistrib_cell_id(n: int, p: int, mtbf_years: float, c: float, run: int, variant: str) -> str:
    """The cell's primary key, from its values: ``n=N|p=P|mtbf=Y|c=C|r=K|VARIANT``."""
    return f"n={int(n)}|p={int(p)}|mtbf={_num(mtbf_years)}|c={_num(c)}|r={int(run)}|{variant}"


@dataclass(frozen=True)
class RedistribCell:
    """One run of one variant at one point, with everything a worker needs."""

    simulator: ClassVar[str] = "redistrib"

    id: str
    n: int
    p: int
    mtbf_years: float
    c: float
    variant: str
    run: int
    pack_seed: int
    failure_seed: int
    m_inf: float
    m_sup: float
    f: float
    downtime: float
    failure_model: str = "simulation"
    period_formula: str = "first-order"
    #: the users' classes its variant names (coschedule.plugins.PolicySource): their files' text travels with them
    decision_sources: tuple[Any, ...] = ()

    def pack(self) -> MalleablePack:
        """The run's pack: eq. (1.13) with ``m_i`` uniform integers in ``[m_inf, m_sup]``."""
        from coschedule.redistribution.model import MalleablePack

        return MalleablePack.synthetic(self.n, self.p, seed=self.pack_seed, m_inf=self.m_inf, m_sup=self.m_sup,
                                       f=self.f)

    def resilience(self) -> Resilience:
        """The point's platform: MTBF, ``c``, ``beta = S = 0``, the downtime and failure model."""
        from coschedule.redistribution.model import YEAR, Resilience

        return Resilience(node_mtbf=self.mtbf_years * YEAR, c=self.c, beta=0.0, start=0.0, downtime=self.downtime,
                          model=self.failure_model, period_formula=self.period_formula)


def run_variant(pack: MalleablePack, res: Resilience, variant: str, root: int, *,
                initial: np.ndarray | None = None, sources: tuple[Any, ...] = ()) -> tuple[PackResult, FailureTrace | None]:
    """One run of ``variant`` (:data:`VARIANTS`) of ``pack`` on the failures of ``root`` (module
    docstring: ``run_pack(seed=root)``), from Resilient Optimal-1-pack's allocation (or
    ``initial``, which must be it); ``sources``: the users' classes the variant names, resolved.
    Returns the result and the failure trace it ran on (``None`` for a fault-free variant)."""
    from coschedule.heuristics.redistribution import run_pack

    at_end, at_failure, fault_free = variant_parts(variant)
    users = {src.ref: src for src in sources}
    out = run_pack(pack, res, at_end=users.get(at_end, at_end), at_failure=users.get(at_failure, at_failure),
                   seed=root, initial=initial, fault_free=fault_free)
    return out, out.trace


def variant_parts(variant: str) -> tuple[str, str, bool]:
    """``(at_end, at_failure, fault_free)`` of a variant: one of :data:`VARIANTS`, or
    ``END+FAILURE`` where either side is a user's class (``file.py:Class``, docs/own-policy.md)
    or a built-in name, with failures."""
    if variant in VARIANTS:
        return VARIANTS[variant]
    at_end, _, at_failure = variant.partition("+")
    return at_end, at_failure, False


def _validator() -> Any:
    """:func:`coschedule.redistribution.validate.validate_pack_run` (one place, so a test can stand a
    rejecting validator in for it)."""
    from coschedule.redistribution.validate import validate_pack_run

    return validate_pack_run


def _checked(cell: RedistribCell, result: PackResult, trace: FailureTrace | None, what: str) -> float:
    """Validate one run; the seconds it took. A run the validator
    rejects raises :class:`~coschedule.errors.InvalidSchedule` naming the cell."""
    from coschedule.errors import InvalidSchedule

    validate = _validator()
    t0 = time.perf_counter()
    try:
        validate(result, failures=trace)
    except InvalidSchedule as e:
        raise InvalidSchedule(f"cell {cell.id}{what}: {e}") from None
    return time.perf_counter() - t0


#: (pack seed, n, p, the platform, failure root) -> (faulty makespan, its failures): the baselines
#: this process computed last (a run is deterministic: a cached baseline is the same number)
_BASELINES: OrderedDict[tuple[Any, ...], tuple[float, int]] = OrderedDict()
_BASELINES_KEPT = 32


def _baseline_key(cell: RedistribCell) -> tuple[Any, ...]:
    return (cell.pack_seed, cell.n, cell.p, cell.m_inf, cell.m_sup, cell.f, cell.mtbf_years, cell.c, cell.downtime,
            cell.failure_model, cell.period_formula, cell.failure_seed)


def simulate_redistrib_cell(cell: RedistribCell, backend: str = "auto") -> dict[str, Any]:
    """Run one cell (and its faulty baseline unless this process has it), validate the runs,
    and return the row the store keeps (``backend`` changes nothing: the pack simulator has one
    event loop)."""
    from coschedule.heuristics.redistribution import resilient_optimal_1_pack
    from coschedule.redistribution.model import PackModel

    t0 = time.perf_counter()
    pack = cell.pack()
    res = cell.resilience()
    sigma = resilient_optimal_1_pack(pack, model=PackModel(pack, res))
    t1 = time.perf_counter()
    result, trace = run_variant(pack, res, cell.variant, cell.failure_seed, initial=sigma, sources=cell.decision_sources)
    t2 = time.perf_counter()
    validated = _checked(cell, result, trace, "")
    key = _baseline_key(cell)
    base_seconds: float | None = None
    if cell.variant == "faulty":
        _BASELINES[key] = (result.makespan, len(result.failures))
    elif key not in _BASELINES:
        tb = time.perf_counter()
        base, base_trace = run_variant(pack, res, "faulty", cell.failure_seed, initial=sigma)
        base_seconds = time.perf_counter() - tb
        _checked(cell, base, base_trace, " (its faulty baseline)")
        _BASELINES[key] = (base.makespan, len(base.failures))
    _BASELINES.move_to_end(key)
    while len(_BASELINES) > _BASELINES_KEPT:
        _BASELINES.popitem(last=False)
    faulty, faulty_failures = _BASELINES[key]
    at_end, at_failure, fault_free = variant_parts(cell.variant)
    effects: dict[str, int] = {}
    for fl in result.failures:
        effects[fl.effect] = effects.get(fl.effect, 0) + 1
    row: dict[str, Any] = {
        "id": cell.id, "n": cell.n, "p": cell.p, "mtbf_years": cell.mtbf_years, "c": cell.c, "variant": cell.variant,
        "at_end": at_end, "at_failure": at_failure, "fault_free": int(fault_free), "run": cell.run,
        "pack_seed": cell.pack_seed, "failure_seed": cell.failure_seed,
        "makespan": result.makespan, "faulty_makespan": faulty, "ratio": result.makespan / faulty,
        "failures": len(result.failures), "failures_hit": result.failures_hit,
        "redistributions": result.redistributions, "changes": int(result.changes.sum()),
        "seconds": t2 - t1,
    }
    horizon = result.trace_horizon if math.isfinite(result.trace_horizon) else None
    row["details"] = {
        "policy": result.policy, "failure_effects": effects, "faulty_failures": faulty_failures,
        "trace_failures": None if trace is None else len(trace), "trace_horizon": horizon,
        "initial_max": int(sigma.max()), "initial_used": int(sigma.sum()),
        "setup_seconds": t1 - t0, "validate_seconds": validated, "validated": validated is not None,
        "baseline_seconds": base_seconds,
    }
    return row


# -------------------------------------------------------------------------------------- spec


def _number(v: Any, key: str, *, low: float = 0.0, strict: bool = False) -> float:
    ok = (not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
          and (v > low if strict else v >= low))
    if not ok:
        raise CampaignError(f"{key} must be a finite number {'>' if strict else '>='} {low:g}, got {v!r}")
    return float(v)


def _count(v: Any, key: str, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < low:
        raise CampaignError(f"{key} must be an integer >= {low}, got {v!r}")
    return int(v)


@dataclass(frozen=True)
class RedistribSpec:
    """A redistribution campaign's grid (module docstring); its :meth:`digest` identifies its
    database.

    ``n``, ``p``, ``mtbf_years`` (a processor's MTBF, years of 365 days), ``c`` (the time to
    checkpoint or move one data unit, :class:`~coschedule.redistribution.Resilience`'s ``c``):
    the values of each axis; every ``(n, p)`` needs ``p >= 2n``. ``variants``: among
    :data:`VARIANTS`; ``runs``: packs and failure traces per point (the paper's 50); ``m_inf``,
    ``m_sup``, ``f``: the synthetic packs of §1.5.4; ``downtime``: ``D`` in seconds;
    ``failure_model`` and ``period_formula``: as :class:`~coschedule.redistribution.Resilience`.
    """

    simulator: ClassVar[str] = "redistrib"

    variants: tuple[str, ...]
    n: tuple[int, ...] = (100,)
    p: tuple[int, ...] = (1000,)
    mtbf_years: tuple[float, ...] = (100.0,)
    c: tuple[float, ...] = (1.0,)
    runs: int = 1
    seed: int = 0
    m_inf: float = 1.5e6
    m_sup: float = 2.5e6
    f: float = 0.08
    downtime: float = 60.0
    failure_model: str = "simulation"
    period_formula: str = "first-order"
    name: str = "campaign"
    #: where a user's class file named relatively is read from (the spec's folder); not a TOML key
    policy_base: str = "."
    #: the users' classes the variants name, resolved by :meth:`normalized`; not a TOML key
    policy_sources: tuple[Any, ...] = ()

    # ------------------------------------------------------------------ normalisation, checks

    def normalized(self) -> RedistribSpec:
        """Canonical variant names, sorted unique values; an error names the key."""
        from coschedule.redistribution.model import FAILURE_MODELS, PERIOD_FORMULAS

        try:
            variants, users = _variants(self.variants, self.policy_base)
        except CampaignError as e:
            raise CampaignError(f"variants: {e}") from None
        if not variants:
            raise CampaignError(f"variants must list at least one of {', '.join(VARIANTS)}")
        for key in AXES:
            if not getattr(self, key):
                raise CampaignError(f"{key} needs at least one value")
        ns = tuple(sorted({_count(v, "n", 1) for v in self.n}))
        ps = tuple(sorted({_count(v, "p", 2) for v in self.p}))
        if 2 * ns[-1] > ps[0]:
            raise CampaignError(f"n = {ns[-1]} applications need p >= {2 * ns[-1]} processors (two each), but p "
                                f"has {ps[0]}")
        m_inf = _number(self.m_inf, "m_inf", low=1.0, strict=True)
        m_sup = _number(self.m_sup, "m_sup", low=1.0, strict=True)
        if m_sup < m_inf:
            raise CampaignError(f"m_sup ({m_sup:g}) must be >= m_inf ({m_inf:g})")
        f = _number(self.f, "f")
        if f > 1:
            raise CampaignError(f"f (the sequential fraction) must be in [0, 1], got {self.f!r}")
        for key, valid in (("failure_model", FAILURE_MODELS), ("period_formula", PERIOD_FORMULAS)):
            v = getattr(self, key)
            if v not in valid:
                raise CampaignError(f"{key} must be one of {', '.join(valid)}, got {v!r}")
        return RedistribSpec(
            variants=variants, n=ns, p=ps,
            mtbf_years=tuple(sorted({_number(v, "mtbf_years", strict=True) for v in self.mtbf_years})),
            c=tuple(sorted({_number(v, "c") for v in self.c})),
            runs=_count(self.runs, "runs", 1), seed=_count(self.seed, "seed", 0), m_inf=m_inf, m_sup=m_sup, f=f,
            downtime=_number(self.downtime, "downtime"), failure_model=self.failure_model,
            period_formula=self.period_formula, name=self.name, policy_base=self.policy_base, policy_sources=users,
        )

    def check(self) -> None:
        """Everything that can go wrong before the first cell: no pack of the grid (a point's
        packs are those of its ``n`` and runs) may have an application whose failures would not
        let it end (:meth:`~coschedule.redistribution.model.PackModel.why_endless`, the check of
        ``coschedule redistrib``)."""
        from coschedule.redistribution.model import PackModel

        first = self._in_order()[0]
        packs: dict[int, MalleablePack] = {}  # run -> its pack, for the current n
        for cell in self.cells():
            if cell.variant != first:
                continue  # one check per point and run: its variants share the pack and platform
            if packs and next(iter(packs.values())).n != cell.n:
                packs.clear()
            if cell.run not in packs:
                packs[cell.run] = cell.pack()
            reason = PackModel(packs[cell.run], cell.resilience()).why_endless(options=False)
            if reason:
                raise CampaignError(f"n = {cell.n}, p = {cell.p}, run {cell.run}: {reason}")

    # ------------------------------------------------------------------------ the grid

    @property
    def sources(self) -> tuple[str, ...]:
        """Where the packs come from (``coschedule simulate`` checks that a spec has one)."""
        return (f"synthetic eq. (1.13), m in [{self.m_inf:g}, {self.m_sup:g}], f = {self.f:g}",)

    @property
    def heuristics(self) -> tuple[str, ...]:
        """The variants (``coschedule simulate`` checks that a spec has some)."""
        return self.variants

    def points(self) -> Iterator[tuple[int, int, float, float]]:
        """``(n, p, mtbf_years, c)`` of every point, in order."""
        yield from itertools.product(self.n, self.p, self.mtbf_years, self.c)

    def n_cells(self) -> int:
        return len(self.n) * len(self.p) * len(self.mtbf_years) * len(self.c) * self.runs * len(self.variants)

    @property
    def runs_per_cell(self) -> int:
        """Simulations per cell: one (its faulty baseline aside)."""
        return 1

    def _in_order(self) -> list[str]:
        """The variants in the order of a run's cells: ``faulty`` first when listed."""
        return sorted(self.variants, key=lambda v: v != "faulty")

    def cells(self) -> Iterator[RedistribCell]:
        """The grid, lazily: point by point, run by run, every variant of a run together (the
        same pack and failure trace; ``faulty`` first when listed, so that its run is the
        baseline the others reuse)."""
        order = self._in_order()
        users = {src.ref: src for src in self.policy_sources}
        mine = {v: tuple(users[x] for x in variant_parts(v)[:2] if x in users) for v in order}
        for n, p, mtbf, c in self.points():
            for k in range(self.runs):
                ps, fs = pack_seed(self.seed, n, k), failure_seed(self.seed, p, k)
                for v in order:
                    yield RedistribCell(redistrib_cell_id(n, p, mtbf, c, k, v), n, p, mtbf, c, v, k, ps, fs,
                                        self.m_inf, self.m_sup, self.f, self.downtime, self.failure_model,
                                        self.period_formula, mine[v])

    def grid_line(self) -> str:
        """The grid's size, as ``coschedule simulate --dry-run`` prints it."""
        return (f"grid: {len(self.n)} n x {len(self.p)} p x {len(self.mtbf_years)} mtbf_years x {len(self.c)} c x "
                f"{self.runs} runs x {len(self.variants)} variants ({', '.join(self.variants)}) = {self.n_cells()} "
                "cells, one simulation each (and its faulty baseline)")

    def grid_info(self) -> dict[str, Any]:
        """The grid's size as ``coschedule simulate --dry-run --json`` prints it."""
        return {"simulator": self.simulator, **{k: len(getattr(self, k)) for k in AXES}, "runs": self.runs,
                "variants": len(self.variants), "cells": self.n_cells(), "simulations": self.n_cells()}

    def describe_sources(self) -> str:
        return (f"packs of n = {'/'.join(map(str, self.n))} malleable applications of eq. (1.13) (f = {self.f:g}, "
                f"m uniform integers in [{self.m_inf:g}, {self.m_sup:g}]) on p = {'/'.join(map(str, self.p))} "
                f"processors, MTBF {'/'.join(f'{y:g}' for y in self.mtbf_years)} years, c = "
                f"{'/'.join(f'{x:g}' for x in self.c)}, downtime {self.downtime:g} s")

    # ---------------------------------------------------------------------- identity

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SPEC_FORMAT, "version": SPEC_VERSION, "simulator": self.simulator, "name": self.name,
            "seed": self.seed, "runs": self.runs, "variants": list(self.variants), "n": list(self.n),
            "p": list(self.p), "mtbf_years": list(self.mtbf_years), "c": list(self.c), "m_inf": self.m_inf,
            "m_sup": self.m_sup, "f": self.f, "downtime": self.downtime, "failure_model": self.failure_model,
            "period_formula": self.period_formula,
            **recorded_sources(self.policy_sources),
        }

    def digest(self) -> str:
        """SHA-256 of the canonical spec (what the numbers depend on: not the name)."""
        d = self.to_dict()
        d.pop("name")
        return hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


#: seconds of one run of each variant for n = 1000 at p = 5000, MTBF 100 years (measured, one core)
_WEIGHTS = {"faulty": 0.04, "fault-free-none": 0.03, "fault-free-local": 0.18, "fault-free-greedy": 0.4,
            "local+saf": 0.2, "local+iterated": 0.28, "greedy+saf": 0.45, "greedy+iterated": 0.5}


def redistrib_costs(spec: RedistribSpec) -> dict[str, float]:
    """Cell id -> estimated seconds (for the progress bar's ETA): the measured cost of the
    variant at ``n = 1000``, ``p = 5000``, in proportion to ``n``, to the square root of ``p``,
    and growing with the failures (the MTBF)."""
    out = {}
    for cell in spec.cells():
        scale = cell.n / 1000.0 * math.sqrt(cell.p / 5000.0) * (1.0 + 5.0 / cell.mtbf_years)
        extra = 0.0 if cell.variant == "faulty" else _WEIGHTS["faulty"]
        out[cell.id] = scale * (_WEIGHTS.get(cell.variant, _WEIGHTS["greedy+iterated"]) + extra)
    return out


# ------------------------------------------------------------------------------- parsing


def _variants(values: Any, base: str) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """The variants as :data:`VARIANTS` spells them, or ``END+FAILURE`` with a user's class on a
    side (:func:`variant_parts`); and the users' classes resolved (a relative file from ``base``)."""
    from coschedule import plugins
    from coschedule.redistribution.options import AT_END, AT_FAILURE

    out: list[str] = []
    users: dict[str, Any] = {}
    installed = plugins.registered("redistribution")
    for v in values:
        if isinstance(v, str) and v.lower() in VARIANTS:
            out.append(v.lower())
            continue
        sides = v.split("+") if isinstance(v, str) else []
        if len(sides) != 2 or not any(plugins.is_reference(x) or installed.get(x.lower())
                                      for x in sides):
            err = unknown_name("variant", str(v), tuple(VARIANTS))
            raise CampaignError(f"{err}; or END+FAILURE with your own class on a side (e.g. local+my.py:Mine)")
        for side, builtin in zip(sides, (AT_END, AT_FAILURE)):
            if side.lower() not in builtin:
                src = plugins.resolve(side, "redistribution", base=base)
                if src is None:
                    raise CampaignError(str(unknown_name("decision", side, builtin)))
                plugins.load(src)  # said before the first cell: a file that does not load, no such class
                users[src.ref] = src
        out.append(v)
    return tuple(dict.fromkeys(out)), tuple(users.values())


def redistrib_spec_from_dict(data: Any, where: str = "spec", base: str | Path = ".", *,
                             traces_dir: str | None = None) -> RedistribSpec:
    """A :class:`RedistribSpec` from the TOML table (``simulator = "redistrib"``), normalized;
    an error names the file and the key."""
    if not isinstance(data, dict):
        raise CampaignError(f"{where}: expected a table")
    known = {fl.name for fl in fields(RedistribSpec)} - {"policy_base", "policy_sources"} | {"simulator"}
    kw = table_kwargs(data, where, known, ("variants", *AXES),
                      (("runs", int), ("seed", int), ("m_inf", (int, float)), ("m_sup", (int, float)),
                       ("f", (int, float)), ("downtime", (int, float)), ("failure_model", str),
                       ("period_formula", str), ("name", str)),
                      what=" for a redistrib campaign")
    kw.pop("simulator", None)
    kw.pop("source", None)
    kw.setdefault("variants", ())
    try:
        return RedistribSpec(**kw, policy_base=str(base)).normalized()
    except CampaignError as e:
        raise CampaignError(f"{where}: {e}") from None


def with_changes(spec: RedistribSpec, **changes: Any) -> RedistribSpec:
    """``spec`` with ``changes``, normalized."""
    return replace(spec, **changes).normalized()
