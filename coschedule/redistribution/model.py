"""Malleable applications under fail-stop errors: buddy checkpointing, expected times and
redistribution costs ([Aupy2017] §1.3.3–1.3.5, the model of §1.5).

A *pack* of ``n`` malleable applications shares ``p`` processors (:class:`MalleablePack`);
application ``i`` on ``j`` processors takes ``t_{i,j}`` fault-free (its moldable profile, or
eq. (1.13) in closed form) and holds ``m_i`` data. Allocations are even (buddy checkpointing
pairs the processors, §1.3.3). :class:`Resilience` holds the platform's parameters and
:class:`PackModel` evaluates, vectorised over applications and allocations:

* checkpoint ``C_{i,j} = c m_i / j + beta`` (§1.3.3 with ``c = 1/bw``; the paper's simulation
  uses ``beta = 0``), recovery ``R_{i,j} = C_{i,j}``, downtime ``D``;
* the period ``tau_{i,j}`` (Young, with the application MTBF ``mu/j``; see *Period* below);
* ``N^ff`` (1.4), ``tau_last`` (1.5) and the expected time ``t^R_{i,j}(alpha)`` of a fraction
  ``alpha`` of the work under the chosen failure model (below);
* ``j_max(i)`` (1.8), computed at ``alpha = 1`` over even ``j`` (the paper's (1.8) has no
  ``alpha``; we keep ``j_max`` fixed for a run);
* the redistribution cost (1.11), of which (1.9) is the case ``k > j``.

Period (NOTES.md 10)
--------------------
(1.3) is printed ``tau = sqrt(2 mu_{i,j} C_{i,j} + C_{i,j})``: it adds a time to a squared
time. We use Young's first-order period ``tau = sqrt(2 mu_{i,j} C_{i,j}) + C_{i,j}``: a
period holds ``tau - C`` of work and one checkpoint, as (1.4) counts them
(``period_formula="printed"`` gives (1.3) as printed). With ``lambda = 0`` or ``C = 0`` the
period is infinite: no checkpoint is taken.

Two failure models (one switch, :data:`FAILURE_MODELS`)
-------------------------------------------------------
* ``"simulation"`` (the default, §1.5.4): a failure may strike during work and checkpoints, not
  during the downtime, the recovery or a redistribution. The expected time of a period of
  length ``T`` (work and checkpoint) is ``(1/(lambda j) + D + R)(e^{lambda j T} - 1)``.
* ``"eq1.6"``: the model of (1.6): a failure may strike during work, checkpoints and
  recoveries, not during the downtime; the expected time of a period is
  ``e^{lambda j R}(1/(lambda j) + D)(e^{lambda j T} - 1)``.

Both are exact for their model (tested against Monte Carlo, ``tests/coschedule/
test_redistribution_montecarlo.py``); ``t^R`` sums ``N^ff`` full periods and the last,
incomplete one of ``tau_last`` work and no checkpoint (1.6).

>>> round(expected_time(100.0, rate=0.0, period=30.0, checkpoint=5.0, recovery=5.0,
...                     downtime=1.0), 6)   # four checkpoints, no failure: 100 + 4 x 5
120.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from coschedule.errors import InvalidInstance, unknown_name
from coschedule.generators import M_INF, M_SUP, SYNTHETIC_F
from coschedule.jit import HAVE_NUMBA
from coschedule.model import MoldableInstance
from coschedule.redistribution.kernels import k_jmax
from coschedule.redistribution.options import (
    DEFAULT_DOWNTIME,
    FAILURE_MODELS,
    PERIOD_FORMULAS,
    YEAR,
)
from coschedule.rng import Seed, as_generator
from coschedule.units import MAX_TIME

__all__ = [
    "DEFAULT_DOWNTIME",
    "FAILURE_MODELS",
    "PERIOD_FORMULAS",
    "YEAR",
    "MalleablePack",
    "PackModel",
    "Resilience",
    "as_pack",
    "even_allocations",
    "expected_time",
    "expected_time_simulation",
    "redistribution_cost",
    "young_period",
]


#: the scalar types of an application index or a processor count: the fast scalar paths below
#: (the same float64 operations in the same order as the vectorised ones, so the same numbers)
_SCALAR = (int, float, np.integer, np.floating)


def _g(rate: Any, x: Any) -> Any:
    """``(e^{rate x} - 1) / rate``, and ``x`` at ``rate = 0`` (its limit)."""
    if np.isscalar(rate):
        return x if rate == 0 else np.expm1(rate * x) / rate
    rate = np.asarray(rate, dtype=float)
    safe = np.where(rate > 0, rate, 1.0)
    return np.where(rate > 0, np.expm1(safe * x) / safe, x)


def _periods(work: Any, period: Any, checkpoint: Any) -> tuple[Any, Any]:
    """``(N^ff, tau_last)`` of (1.4)-(1.5) for ``work`` = alpha t_{i,j}; no checkpoint at all
    when the period is infinite."""
    chunk = np.asarray(period, dtype=float) - np.asarray(checkpoint, dtype=float)
    finite = np.isfinite(chunk)
    safe = np.where(finite, chunk, 1.0)
    n = np.where(finite, np.floor(np.asarray(work, dtype=float) / safe), 0.0)
    last = np.asarray(work, dtype=float) - n * np.where(finite, chunk, 0.0)
    if np.ndim(n) == 0:
        return float(n), float(last)
    return n, last


def _check_args(work: float, rate: float, period: float, checkpoint: float, recovery: float,
                downtime: float) -> None:
    for name, v in (("work", work), ("rate", rate), ("checkpoint", checkpoint), ("recovery", recovery),
                    ("downtime", downtime)):
        if not isinstance(v, (int, float, np.floating, np.integer)) or not math.isfinite(v) or v < 0:
            raise InvalidInstance(f"expected time: {name} must be a finite number >= 0, got {v!r}")
    if not isinstance(period, (int, float, np.floating, np.integer)) or math.isnan(period):
        raise InvalidInstance(f"expected time: period must be a number, got {period!r}")
    if not period > checkpoint:
        raise InvalidInstance(
            f"expected time: the period ({period:g}) must exceed the checkpoint ({checkpoint:g}): "
            "a period holds work and one checkpoint"
        )


def expected_time(work: float, *, rate: float, period: float, checkpoint: float, recovery: float,
                  downtime: float) -> float:
    """``t^R`` of (1.6): expected time to execute ``work`` seconds of fault-free computation
    (``alpha t_{i,j}``) checkpointed every ``period`` (work ``period - checkpoint``, then a
    checkpoint), with failures of rate ``rate`` (``lambda j``) that may strike during work,
    checkpoints and recoveries but not during the ``downtime``:

    ``e^{rate R} (1/rate + D) (N^ff (e^{rate tau} - 1) + e^{rate tau_last} - 1)``

    with ``N^ff`` of (1.4) and ``tau_last`` of (1.5); at ``rate = 0`` its limit, ``work`` plus
    ``N^ff`` checkpoints. ``period = inf``: no checkpoint. A one-line error when ``period <=
    checkpoint`` or an argument is negative.

    >>> round(expected_time(3600.0, rate=1e-5, period=1000.0, checkpoint=100.0, recovery=100.0,
    ...                     downtime=60.0), 1)
    4026.5
    """
    _check_args(work, rate, period, checkpoint, recovery, downtime)
    n, last = _periods(work, period, checkpoint)
    per = 0.0 if n == 0 else n * _g(rate, period)
    return float(math.exp(rate * recovery) * (1.0 + rate * downtime) * (per + _g(rate, last)))


def expected_time_simulation(work: float, *, rate: float, period: float, checkpoint: float,
                             recovery: float, downtime: float) -> float:
    """The expected time of the paper's simulation model (§1.5.4): as :func:`expected_time`, but
    failures never strike during the downtime nor the recovery, so a period of length ``T``
    takes ``(1/rate + D + R)(e^{rate T} - 1)`` on average.

    >>> round(expected_time_simulation(3600.0, rate=1e-5, period=1000.0, checkpoint=100.0,
    ...                                recovery=100.0, downtime=60.0), 1)
    4026.5
    """
    _check_args(work, rate, period, checkpoint, recovery, downtime)
    n, last = _periods(work, period, checkpoint)
    per = 0.0 if n == 0 else n * _g(rate, period)
    return float((1.0 + rate * (downtime + recovery)) * (per + _g(rate, last)))


def young_period(app_mtbf: float, checkpoint: float, formula: str = "first-order") -> float:
    """Young's period for an application of MTBF ``app_mtbf`` (``mu/j``) and checkpoint ``C``:
    ``sqrt(2 mu C) + C`` (``first-order``, the default) or ``sqrt(2 mu C + C)`` (``printed``:
    (1.3) as printed, NOTES.md 10); ``inf`` when ``mu`` is infinite or ``C = 0``.

    >>> young_period(5000.0, 100.0), round(young_period(5000.0, 100.0, "printed"), 3)
    (1100.0, 1000.05)
    """
    if formula not in PERIOD_FORMULAS:
        raise unknown_name("period formula", formula, PERIOD_FORMULAS)
    if checkpoint <= 0 or math.isinf(app_mtbf):
        return math.inf
    if formula == "printed":
        return math.sqrt(2.0 * app_mtbf * checkpoint + checkpoint)
    return math.sqrt(2.0 * app_mtbf * checkpoint) + checkpoint


def redistribution_cost(memory: float, j: int, k: int, *, c: float = 1.0, beta: float = 0.0,
                        start: float = 0.0) -> float:
    """``RC^{j -> k}`` of (1.11): ``S + max(min(j, k), |k - j|) (c m / (j k) + beta)`` for moving
    an application of ``m`` data from ``j`` to ``k`` processors (``c = 1/bw``); (1.9) is its case
    ``k > j``; 0 when ``j = k`` (no redistribution).

    >>> redistribution_cost(1200.0, 4, 6), redistribution_cost(1200.0, 6, 2)
    (200.0, 400.0)
    """
    if j == k:
        return 0.0
    if j < 1 or k < 1:
        raise InvalidInstance(f"redistribution: processor counts must be >= 1, got {j} -> {k}")
    return start + max(min(j, k), abs(k - j)) * (c * memory / (j * k) + beta)



#: the most processors a pack may have: a run handles them one by one at each event
MAX_PROCESSORS = 10_000_000

@dataclass(frozen=True)
class MalleablePack:
    """``n`` malleable applications on ``p`` processors.

    Each application's fault-free time is either in closed form ``t_{i,j} = seq_i + par_i / j``
    (eq. (1.13) is of this form: ``seq = f t(m,1)``, ``par = (1-f) t(m,1) + m log2 m``) or a
    table ``table[i, j-1]`` (a moldable profile, extended by its last value). ``memory[i]`` is
    ``m_i``. Build one with :meth:`synthetic` or :meth:`from_instance`.
    """

    p: int
    memory: np.ndarray
    seq: np.ndarray | None = None
    par: np.ndarray | None = None
    table: np.ndarray | None = None
    names: tuple[str, ...] = ()
    min_procs: np.ndarray | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.p, bool) or not isinstance(self.p, (int, np.integer)) or self.p < 2:
            raise InvalidInstance(f"pack: p must be an integer >= 2 (processors come in pairs), got {self.p!r}")
        if self.p > MAX_PROCESSORS:
            raise InvalidInstance(f"pack: p = {self.p:,} processors, more than {MAX_PROCESSORS:,} (a run handles "
                                  "its processors one by one at each event)")
        object.__setattr__(self, "p", int(self.p))
        mem = np.asarray(self.memory, dtype=float).reshape(-1)
        if mem.size == 0:
            raise InvalidInstance("pack: no application")
        if not np.all(np.isfinite(mem)) or mem.min() < 0 or mem.max() > MAX_TIME:
            i = int(np.flatnonzero(~np.isfinite(mem) | (mem < 0) | (mem > MAX_TIME))[0])
            raise InvalidInstance(f"pack: application {i}: memory must be a finite number in [0, {MAX_TIME:.0e}], "
                                  f"got {mem[i].item()!r}")
        mem.setflags(write=False)
        object.__setattr__(self, "memory", mem)
        n = mem.size
        if (self.table is None) == (self.seq is None):
            raise InvalidInstance("pack: give either a time table or the closed form (seq, par)")
        if self.table is not None:
            tab = np.asarray(self.table, dtype=float)
            if tab.ndim != 2 or tab.shape[0] != n:
                raise InvalidInstance(f"pack: the time table must have one row per application ({n})")
            tab.setflags(write=False)
            object.__setattr__(self, "table", tab)
        else:
            seq = np.asarray(self.seq, dtype=float).reshape(-1)
            par = np.asarray(self.par, dtype=float).reshape(-1)
            if seq.size != n or par.size != n:
                raise InvalidInstance(f"pack: seq and par need one value per application ({n})")
            bad = np.flatnonzero(~np.isfinite(seq) | ~np.isfinite(par) | (seq < 0) | (par < 0) | (seq + par <= 0)
                                 | (seq + par > MAX_TIME))
            if bad.size:
                i = int(bad[0])
                raise InvalidInstance(f"pack: application {i}: t(j) = seq + par/j needs seq, par >= 0, "
                                      f"not both 0, t(1) at most {MAX_TIME:.0e} s (31.7 million years), got "
                                      f"{seq[i].item()!r}, {par[i].item()!r}")
            seq.setflags(write=False)
            par.setflags(write=False)
            object.__setattr__(self, "seq", seq)
            object.__setattr__(self, "par", par)
        names = tuple(self.names) if self.names else tuple(f"T{i}" for i in range(n))
        if len(names) != n:
            raise InvalidInstance(f"pack: {len(names)} names for {n} applications")
        object.__setattr__(self, "names", names)
        mp = np.ones(n, dtype=np.int64) if self.min_procs is None else np.asarray(self.min_procs, dtype=np.int64)
        kmin = np.maximum(2, mp + (mp % 2))
        kmin.setflags(write=False)
        object.__setattr__(self, "min_procs", kmin)
        if int(kmin.sum()) > self.p:
            raise InvalidInstance(
                f"pack: {n} applications need {int(kmin.sum())} processors (two each at least, in pairs) "
                f"but p = {self.p}"
            )

    @property
    def n(self) -> int:
        return int(self.memory.size)

    @property
    def p_even(self) -> int:
        """The processors usable in pairs."""
        return self.p - self.p % 2

    def time(self, i: Any, k: Any) -> Any:
        """``t_{i,k}``, vectorised: ``i`` and ``k`` broadcast together."""
        if isinstance(i, _SCALAR) and isinstance(k, _SCALAR) and self.table is None:
            assert self.seq is not None and self.par is not None
            return float(self.seq[i] + self.par[i] / k)
        i = np.asarray(i)
        k = np.asarray(k)
        if self.table is not None:
            kk = np.clip(k, 1, self.table.shape[1]) - 1
            out = self.table[i, kk]
        else:
            assert self.seq is not None and self.par is not None
            out = self.seq[i] + self.par[i] / k
        return float(out) if np.ndim(out) == 0 else out

    @classmethod
    def synthetic(cls, n: int, p: int, *, seed: Seed = None, m_inf: float = M_INF, m_sup: float = M_SUP,
                  f: float = SYNTHETIC_F) -> MalleablePack:
        """``n`` applications of eq. (1.13) with ``m_i`` uniform integers in ``[m_inf, m_sup]``
        (§1.5.4; the same draws as :func:`coschedule.generators.synthetic_instance`), in closed
        form, so that ``n = 1000`` on ``p = 10000`` costs no profile table."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InvalidInstance(f"n must be a positive integer, got {n!r}")
        if not 1 < m_inf <= m_sup:
            raise InvalidInstance(f"need 1 < m_inf <= m_sup, got {m_inf}, {m_sup}")
        if not 0 <= f <= 1:
            raise InvalidInstance(f"sequential fraction f must be in [0, 1], got {f}")
        rng = as_generator(seed)
        m = rng.integers(int(m_inf), int(m_sup), endpoint=True, size=int(n)).astype(float)
        t1 = 2.0 * m * np.log2(m)
        return cls(p=p, memory=m, seq=f * t1, par=(1.0 - f) * t1 + m * np.log2(m),
                   name=f"synthetic-n{n}-p{p}")

    @classmethod
    def from_instance(cls, instance: MoldableInstance) -> MalleablePack:
        """A moldable instance's profiles as a pack (its ``memory`` fields are the ``m_i``)."""
        width = max(len(t.times) for t in instance.tasks)
        width = min(max(width, 1), instance.p)
        tab = np.array([[t.time(min(j, len(t.times))) for j in range(1, width + 1)] for t in instance.tasks])
        names = tuple(t.name if t.name is not None else f"T{i}" for i, t in enumerate(instance.tasks))
        return cls(p=instance.p, memory=np.array([t.memory for t in instance.tasks]), table=tab, names=names,
                   min_procs=np.array([t.min_procs for t in instance.tasks]), name=instance.name)

    def to_instance(self, p: int | None = None) -> MoldableInstance:
        """The moldable instance of this pack (profiles tabulated on ``1..p``). An application's
        minimum is its pack minimum (in pairs) when that is above 2, else the first count with a
        finite time (1, or a table's own minimum): ``from_instance`` round-trips an instance
        whose minima are 1 or even."""
        from coschedule.model import MoldableTask

        p = self.p if p is None else p
        js = np.arange(1, p + 1)
        tasks = []
        assert self.min_procs is not None
        for i in range(self.n):
            times = np.asarray(self.time(i, js), dtype=float)
            kmin = int(self.min_procs[i])
            lowest = kmin if kmin > 2 else int(np.argmax(np.isfinite(times))) + 1
            tasks.append(MoldableTask(tuple(float(x) for x in times), min_procs=lowest,
                                      memory=float(self.memory[i]), name=self.names[i]))
        return MoldableInstance(tuple(tasks), self.p, name=self.name)


@dataclass(frozen=True)
class Resilience:
    """The platform's failure and checkpoint parameters (§1.3.3, §1.5.4).

    ``node_mtbf``: MTBF ``mu`` of one processor in seconds (``inf``: no failure, ``lambda =
    0``); ``c``: time to checkpoint or move one data unit (``1/bw``); ``beta``: message start-up
    latency; ``start``: the redistribution start-up ``S``; ``downtime``: ``D``; ``model``: the
    failure model (:data:`FAILURE_MODELS`); ``period_formula``: :data:`PERIOD_FORMULAS`.
    The paper's simulation: ``mu = 100`` years, ``c = 1``, ``beta = S = 0``.
    """

    node_mtbf: float = 100.0 * YEAR
    c: float = 1.0
    beta: float = 0.0
    start: float = 0.0
    downtime: float = DEFAULT_DOWNTIME
    model: str = "simulation"
    period_formula: str = "first-order"

    def __post_init__(self) -> None:
        if not isinstance(self.node_mtbf, (int, float)) or math.isnan(self.node_mtbf) or self.node_mtbf <= 0:
            raise InvalidInstance(f"processor MTBF must be a number of seconds > 0, got {self.node_mtbf!r}")
        for name in ("c", "beta", "start", "downtime"):
            v = getattr(self, name)
            if isinstance(v, (int, float)) and v > MAX_TIME:
                raise InvalidInstance(f"{name} {v:.3g} s is beyond {MAX_TIME:.0e} s (31.7 million years)")
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                label = {"c": "checkpoint cost factor c", "start": "redistribution start-up S"}.get(name, name)
                raise InvalidInstance(f"{label} must be a finite number >= 0, got {v!r}")
        if self.model not in FAILURE_MODELS:
            raise unknown_name("failure model", self.model, FAILURE_MODELS)
        if self.period_formula not in PERIOD_FORMULAS:
            raise unknown_name("period formula", self.period_formula, PERIOD_FORMULAS)

    @property
    def rate(self) -> float:
        """``lambda = 1/mu`` of one processor (0 when ``mu`` is infinite)."""
        return 0.0 if math.isinf(self.node_mtbf) else 1.0 / self.node_mtbf


@dataclass
class PackModel:
    """A pack under a :class:`Resilience`: every quantity of §1.3.3–1.3.5 for application(s)
    ``i`` on ``k`` processors, vectorised (``i``, ``k``, ``alpha`` broadcast together)."""

    pack: MalleablePack
    res: Resilience = field(default_factory=Resilience)
    _jmax: np.ndarray | None = field(default=None, repr=False)

    @property
    def n(self) -> int:
        return self.pack.n

    def checkpoint(self, i: Any, k: Any) -> Any:
        """``C_{i,k} = c m_i / k + beta`` (also the recovery ``R_{i,k}``)."""
        if isinstance(i, _SCALAR) and isinstance(k, _SCALAR):
            return float(self.res.c * self.pack.memory[i] / float(k) + self.res.beta)
        return self.res.c * self.pack.memory[i] / np.asarray(k, dtype=float) + self.res.beta

    def period(self, i: Any, k: Any) -> Any:
        """``tau_{i,k}``, Young's period with ``mu_{i,k} = mu / k`` (module docstring)."""
        if isinstance(i, _SCALAR) and isinstance(k, _SCALAR) and self.res.rate != 0:
            C = self.checkpoint(i, k)
            if not C > 0:
                return math.inf
            mu = self.res.node_mtbf / float(k)
            if self.res.period_formula == "printed":
                tau = math.sqrt(2.0 * mu * C + C)
            else:
                tau = math.sqrt(2.0 * mu * C) + C
            if tau > C:
                return tau  # else the vectorised path says why
        C = np.asarray(self.checkpoint(i, k), dtype=float)
        kk = np.asarray(k, dtype=float)
        if self.res.rate == 0:
            return np.full(np.broadcast(C, kk).shape, math.inf) if np.ndim(C) or np.ndim(kk) else math.inf
        mu = self.res.node_mtbf / kk
        if self.res.period_formula == "printed":
            tau = np.sqrt(2.0 * mu * C + C)
        else:
            tau = np.sqrt(2.0 * mu * C) + C
        tau = np.where(C > 0, tau, math.inf)
        if np.any(tau <= C):
            if self.res.period_formula == "printed":
                raise InvalidInstance("the printed period (1.3) is shorter than the checkpoint: no work fits in a period")
            raise InvalidInstance(f"at a processor MTBF of {self.res.node_mtbf:.3g} s a checkpoint period holds its "
                                  "checkpoint and no work: the run would not end; raise the MTBF")
        return float(tau) if np.ndim(tau) == 0 else tau

    def checkpoints(self, i: Any, k: Any, alpha: Any) -> Any:
        """``N^ff_{i,k}(alpha)`` of (1.4)."""
        n, _ = _periods(np.asarray(alpha) * self.pack.time(i, k), self.period(i, k), self.checkpoint(i, k))
        return n

    def fault_free(self, i: Any, k: Any, alpha: Any) -> Any:
        """Fault-free time of a fraction ``alpha``: ``alpha t_{i,k} + N^ff C_{i,k}``."""
        work = np.asarray(alpha) * self.pack.time(i, k)
        n, _ = _periods(work, self.period(i, k), self.checkpoint(i, k))
        return work + n * self.checkpoint(i, k)

    def expected(self, i: Any, k: Any, alpha: Any) -> Any:
        """``t^R_{i,k}(alpha)``: (1.6) under ``eq1.6``, the §1.5.4 formula under ``simulation``."""
        work = np.asarray(alpha, dtype=float) * self.pack.time(i, k)
        C = self.checkpoint(i, k)
        tau = self.period(i, k)
        rate = self.res.rate * np.asarray(k, dtype=float)
        n, last = _periods(work, tau, C)
        gp = np.where(n > 0, _g(rate, np.where(np.isfinite(tau), tau, 0.0)), 0.0)
        body = n * gp + _g(rate, last)
        if self.res.model == "eq1.6":
            out = np.exp(rate * C) * (1.0 + rate * self.res.downtime) * body
        else:
            out = (1.0 + rate * (self.res.downtime + C)) * body
        return float(out) if np.ndim(out) == 0 else out

    def kernel_args(self) -> tuple[Any, ...]:
        """``(seq, par, tab, use_tab, mem, prm)``: the arguments of the scalar kernels below."""
        pk, r = self.pack, self.res
        if pk.table is not None:
            seq = par = np.zeros(pk.n)
            tab, use_tab = pk.table, True
        else:
            assert pk.seq is not None and pk.par is not None
            seq, par, tab, use_tab = pk.seq, pk.par, np.zeros((pk.n, 1)), False
        prm = np.array([r.c, r.beta, r.start, r.rate, r.node_mtbf, r.downtime,
                        1.0 if r.model == "eq1.6" else 0.0, 1.0 if r.period_formula == "printed" else 0.0])
        return (seq, par, np.ascontiguousarray(tab, dtype=float), use_tab, pk.memory, prm)

    def redistribution_cost(self, i: Any, j: Any, k: Any) -> Any:
        """``RC_i^{j -> k}`` of (1.11), vectorised; 0 where ``j = k``."""
        if isinstance(i, _SCALAR) and isinstance(j, _SCALAR) and isinstance(k, _SCALAR):
            j, k = float(j), float(k)
            if j == k:
                return 0.0
            rounds = max(min(j, k), abs(k - j))
            return float(self.res.start + rounds * (self.res.c * self.pack.memory[i] / (j * k) + self.res.beta))
        j = np.asarray(j, dtype=float)
        k = np.asarray(k, dtype=float)
        rounds = np.maximum(np.minimum(j, k), np.abs(k - j))
        out = np.where(j == k, 0.0,
                       self.res.start + rounds * (self.res.c * self.pack.memory[i] / (j * k) + self.res.beta))
        return float(out) if np.ndim(out) == 0 else out

    def worst_expected_restarts(self) -> tuple[float, int, int]:
        """How far the failures are from letting the pack end: for each application, the fewest
        expected restarts of one segment over the processor counts it may get (even counts from
        its minimum to ``p``, at most 64 of them on a geometric grid), and the largest of these
        over the applications, with that application and its count. A segment is what must run
        without a failure on any of its ``k`` processors: a period (its checkpoint included; the
        whole fault-free time when shorter) and the recovery after it, restarted ``exp(k lambda
        seg) - 1`` times on average. Past :data:`coschedule.sim.checkpointing.MAX_EXPECTED_RESTARTS`
        the run does not end (``coschedule redistrib`` at a node MTBF of a day ran until stopped);
        the command and the pack campaigns refuse it up front. ``(0, 0, 0)`` without failures."""
        if self.res.rate == 0 or self.n == 0:
            return 0.0, 0, 0
        top = max(2, self.pack.p_even)
        ks = np.unique(np.maximum(2, (np.geomspace(2, top, 64) // 2 * 2).astype(np.int64)))
        i, k = np.arange(self.n)[:, None], ks[None, :]
        C = np.asarray(self.checkpoint(i, k), dtype=float)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            seg = np.minimum(np.asarray(self.period(i, k), dtype=float), self.fault_free(i, k, 1.0)) + C
            restarts = np.expm1(self.res.rate * k * seg)
        restarts = np.where((k >= np.asarray(self.pack.min_procs)[:, None]) & ~np.isnan(restarts), restarts, np.inf)
        best = restarts.argmin(axis=1)
        fewest = restarts[np.arange(self.n), best]
        worst = int(np.argmax(fewest))
        return float(fewest[worst]), worst, int(ks[best[worst]])

    def why_endless(self, *, limit: float | None = None, options: bool = True) -> str | None:
        """Why a run of the pack under drawn failures would not end, or ``None`` when it would:
        some application expects more than ``limit`` restarts of a segment even at its best
        processor count (:meth:`worst_expected_restarts`; the default limit is
        :data:`coschedule.sim.checkpointing.MAX_EXPECTED_RESTARTS`), or no work fits in a period
        (:meth:`period`), or the first failure trace is one that
        :func:`~coschedule.sim.failures.poisson_failures` would not draw: ``run_pack`` draws one
        twice as long as the longest expected time, which is at least the longest application's
        fault-free time on the most processors it can have. The one check of ``coschedule
        redistrib`` (``options``: the settings named as its options) and of the pack campaigns."""
        from coschedule.sim.checkpointing import MAX_EXPECTED_RESTARTS
        from coschedule.sim.failures import too_long_to_draw
        from coschedule.units import format_duration

        limit = MAX_EXPECTED_RESTARTS if limit is None else limit
        try:
            expected, i, k = self.worst_expected_restarts()
        except InvalidInstance as e:
            return str(e)
        if expected <= limit:
            if self.res.rate == 0 or self.n == 0:
                return None
            fastest = (self.pack.table.min(axis=1) if self.pack.table is not None else
                       self.pack.time(np.arange(self.n), max(1, self.pack.p)))
            problem = too_long_to_draw(self.pack.p, self.res.node_mtbf, 2.0 * float(np.max(fastest)))
            return None if problem is None else f"{problem}: the run would not end"
        mtbf = (f"--node-mtbf {format_duration(self.res.node_mtbf)}" if options else
                f"mtbf_years = {self.res.node_mtbf / YEAR:g}, c = {self.res.c:g}")
        return (f"application {self.pack.names[i]} expects {expected:.3g} restarts of a checkpoint period even at "
                f"its best processor count ({k}) at {mtbf} (the limit is {limit:g}): the run would not end; raise "
                + ("--node-mtbf or lower --c" if options else "mtbf_years or lower c"))

    def jmax(self) -> np.ndarray:
        """``j_max(i)`` of (1.8) for every application: the smallest even ``j`` (at least the
        application's minimum) whose expected time ``t^R_{i,j}(1)`` no larger even ``k <= p``
        beats (the last minimiser's first occurrence of the suffix minimum). Computed once, at
        ``alpha = 1``, in chunks of applications: ``O(n p)`` evaluations."""
        if self._jmax is None and HAVE_NUMBA:
            out = k_jmax(self.pack.min_procs, self.pack.p_even, *self.kernel_args())
            out.setflags(write=False)
            self._jmax = out
        if self._jmax is None:
            pack = self.pack
            ks = np.arange(2, pack.p_even + 1, 2)
            out = np.empty(pack.n, dtype=np.int64)
            step = max(1, 2_000_000 // max(1, ks.size))
            for lo in range(0, pack.n, step):
                idx = np.arange(lo, min(pack.n, lo + step))
                tr = self.expected(idx[:, None], ks[None, :], 1.0)
                # suffix minimum over strictly larger k; j_max = first j with tr[j] <= it
                suffix = np.minimum.accumulate(tr[:, ::-1], axis=1)[:, ::-1]
                later = np.concatenate([suffix[:, 1:], np.full((idx.size, 1), math.inf)], axis=1)
                # ... among the counts the application may get (k >= its minimum)
                ok = (tr <= later) & (ks[None, :] >= np.asarray(pack.min_procs)[idx, None])
                first = np.argmax(ok, axis=1)
                out[idx] = ks[first]
            out = np.maximum(out, np.asarray(pack.min_procs))
            out.setflags(write=False)
            self._jmax = out
        return self._jmax


def as_pack(obj: MalleablePack | MoldableInstance) -> MalleablePack:
    """A pack from a pack or a moldable instance."""
    if isinstance(obj, MalleablePack):
        return obj
    if isinstance(obj, MoldableInstance):
        return MalleablePack.from_instance(obj)
    raise TypeError(f"expected a MalleablePack or a MoldableInstance, got {type(obj).__name__}")


def even_allocations(n: int, p: int, kmin: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    """Every even allocation of ``<= p`` processors to ``n`` applications, ``k_i >= kmin_i``
    (2 by default): the search space of the exact references (small ``n`` and ``p`` only)."""
    lo = [2] * n if kmin is None else [int(x) for x in kmin]
    out: list[tuple[int, ...]] = []

    def rec(i: int, left: int, cur: list[int]) -> None:
        if i == n:
            out.append(tuple(cur))
            return
        rest = sum(lo[i + 1:])
        for k in range(lo[i], left - rest + 1, 2):
            cur.append(k)
            rec(i + 1, left - k, cur)
            cur.pop()

    rec(0, p - p % 2, [])
    return out
