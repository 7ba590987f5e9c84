"""A tiny online instance on the integer time grid: what the clairvoyant models are built from.

:func:`clairvoyant_instance` takes what :func:`coschedule.heuristics.batch.run.run_batch` takes (a
:class:`~coschedule.sim.workload.Workload`, a :class:`~coschedule.sim.failures.FailureTrace`, the
downtime ``D`` and a :class:`~coschedule.sim.checkpointing.Checkpointing`), checks that it is
small and that every time is a multiple of one time unit, and gives a
:class:`ClairvoyantInstance`: the same instance in integers of that unit, with each job's
checkpoint layout and the failures that count.

Checkpoint layout (the engine's, :mod:`coschedule.sim.checkpointing`)
---------------------------------------------------------------------
Job ``j`` executes the *positions* ``0 .. E_j`` (``E_j = L_j + K_j C``, from
:meth:`~coschedule.sim.checkpointing.Checkpointing.per_job`): blocks of ``T_j`` work then a
checkpoint of ``C``, block length ``B_j = T_j + C``. The ``m``-th checkpoint ends at position
``m B_j``. A stop can save the end of checkpoint ``m`` for ``1 <= m <= S_j`` (:attr:`stops`):
``S_j = K_j``, or ``K_j - 1`` with ``final_checkpoint`` (the last checkpoint then ends at ``E_j``,
where the job is complete anyway). The work parts are the open position intervals
``(m B_j, m B_j + T_j)`` for ``m < S_j`` and ``(S_j B_j, W_j)`` (:attr:`work_end`: ``W_j =
S_j B_j + L_j - S_j T_j``) for the last block: where a proactive checkpoint may be taken.

Failures that count
-------------------
As in the engine, a failure of a node that is down (``t0 <= t < t0 + D`` after an applied failure
``t0`` of the same node) is ignored; the others are *applied* (:attr:`failures`). With ``D = 0``
every failure is applied and its node stays up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from coschedule.errors import InvalidInstance
from coschedule.sim.checkpointing import NO_CHECKPOINTING, Checkpointing
from coschedule.sim.failures import FailureTrace
from coschedule.sim.workload import Workload

__all__ = ["MAX_SIZE", "ClairvoyantInstance", "applied_failures", "clairvoyant_instance", "find_unit"]

#: the default limit on jobs and on nodes (``max_size=None`` lifts it)
MAX_SIZE = 8
#: a time is a multiple of the unit when ``|t / u - round(t / u)| <= REL_TOL max(1, t / u)``
REL_TOL = 1e-9
#: the default unit is found among fractions of a second with a denominator at most this
MAX_DENOMINATOR = 1000
#: ... that are this close to the value, relatively (floats read from text are closer still)
FIT_TOL = 1e-12
#: the largest time in units (CP-SAT works on 64-bit integers: head room for sums)
MAX_UNITS = 2**40


def _g(x: float) -> str:
    return f"{x:.10g}"


def applied_failures(trace: FailureTrace, downtime: float) -> list[tuple[float, int]]:
    """``(time, node)`` of the failures the engine applies: a failure of a node still down from
    an applied one (``t0 <= t < t0 + D``) is ignored (module docstring). In time order, ties in
    the trace's order."""
    back: dict[int, float] = {}
    out = []
    for t, x in zip(trace.times.tolist(), trace.nodes.tolist()):
        if downtime > 0 and t < back.get(x, -math.inf):
            continue
        back[x] = t + downtime
        out.append((float(t), int(x)))
    return out


def find_unit(named: list[tuple[str, float]]) -> Fraction:
    """The largest unit (a fraction of a second) of which every value is an integer multiple:
    the greatest common divisor of the values, each read as a fraction with a denominator of at
    most :data:`MAX_DENOMINATOR` (0.5, 0.1 and 2/3 are fine; an irrational Young/Daly period is
    not). Raises :class:`InvalidInstance` naming the first value that is no such fraction.

    >>> find_unit([("a", 10.0), ("b", 4.0), ("c", 0.0)])
    Fraction(2, 1)
    >>> find_unit([("a", 1.5), ("b", 2.0)])
    Fraction(1, 2)
    """
    num, den = 0, 1
    for what, v in named:
        f = Fraction(v).limit_denominator(MAX_DENOMINATOR)
        if abs(float(f) - v) > FIT_TOL * max(1.0, abs(v)):
            raise InvalidInstance(f"clairvoyant optimum: {what} ({_g(v)} s) is not a multiple of a common "
                                  "time unit (every time must be an integer multiple of one unit)")
        # gcd(a/b, c/d) = gcd(a d, c b) / (b d)
        num, den = math.gcd(num * f.denominator, f.numerator * den), den * f.denominator
        g = math.gcd(num, den)
        if g:
            num, den = num // g, den // g
    return Fraction(num, den) if num else Fraction(1)


@dataclass(frozen=True, eq=False)
class ClairvoyantInstance:
    """A tiny online instance in integer time units (module docstring).

    Every time field is an integer number of :attr:`unit` seconds; ``job`` indices follow the
    workload's order.
    """

    workload: Workload
    trace: FailureTrace
    downtime_s: float
    checkpointing: Checkpointing
    unit: float
    submit: tuple[int, ...]
    nodes: tuple[int, ...]
    length: tuple[int, ...]  # E_j, checkpoints included
    block: tuple[int, ...]  # B_j = T_j + C (0 when no stop can save a checkpoint: S_j = 0)
    stops: tuple[int, ...]  # S_j: the checkpoints a stop can save
    work_end: tuple[int, ...]  # W_j: where the last block's work ends
    C: int  # checkpoint cost (0: no checkpointing)
    R: int  # recovery cost of a restart
    D: int  # downtime
    failures: tuple[tuple[int, int], ...]  # applied failures (time, node), in time order
    n_nodes: int

    @property
    def n(self) -> int:
        return len(self.submit)

    @property
    def ids(self) -> tuple[str, ...]:
        return self.workload.ids

    @property
    def checkpoints(self) -> bool:
        """Whether a stopped attempt can save anything (checkpointing is on)."""
        return self.C > 0

    def seconds(self, units: float) -> float:
        return float(units) * self.unit

    def period(self, j: int) -> int:
        """``T_j`` in units (only meaningful when ``block[j] > 0``)."""
        return self.block[j] - self.C

    def checkpoint_ends(self, j: int) -> list[int]:
        """The positions a regular stop of job ``j`` can save: ``m B_j``, ``1 <= m <= S_j``."""
        return [m * self.block[j] for m in range(1, self.stops[j] + 1)]

    def in_work_part(self, j: int, x: int) -> bool:
        """Whether position ``x`` lies strictly inside a work part of job ``j``: where a
        proactive checkpoint may save it."""
        if not self.checkpoints:
            return False
        S, B = self.stops[j], self.block[j]
        if S and x < S * B:
            return 0 < x % B < B - self.C
        return S * B < x < self.work_end[j]

    def proactive_positions(self, j: int) -> list[int]:
        """Every position a proactive checkpoint of job ``j`` may save, in order."""
        return [x for x in range(1, self.work_end[j]) if self.in_work_part(j, x)]


def _integer(v: float, unit: float, what: str) -> int:
    q = v / unit
    r = round(q)
    if abs(q - r) > REL_TOL * max(1.0, abs(q)):
        raise InvalidInstance(f"clairvoyant optimum: {what} ({_g(v)} s) is not a multiple of the time unit "
                              f"{_g(unit)} s")
    if abs(r) > MAX_UNITS:
        raise InvalidInstance(f"clairvoyant optimum: {what} ({_g(v)} s) is {r} time units of {_g(unit)} s, "
                              f"more than {MAX_UNITS}")
    return int(r)


def clairvoyant_instance(
    workload: Workload,
    *,
    failures: FailureTrace | None = None,
    downtime: float = 0.0,
    checkpointing: Checkpointing = NO_CHECKPOINTING,
    unit: float | None = None,
    max_size: int | None = MAX_SIZE,
    n_nodes: int | None = None,
) -> ClairvoyantInstance:
    """The instance of ``workload`` on ``n_nodes`` nodes (default: the workload's) under
    ``failures``, ``downtime`` and ``checkpointing`` (the arguments of
    :func:`coschedule.heuristics.batch.run.run_batch`), in integer units.

    Parameters
    ----------
    unit
        The time unit in seconds; by default the largest one that divides every time
        (:func:`find_unit`).
    max_size
        Refuse more jobs, or more nodes, than this (default :data:`MAX_SIZE`; ``None``: no limit).
        The models grow with jobs x attempts x nodes and their solve time much faster.

    Raises
    ------
    InvalidInstance
        Too many jobs or nodes, or a time that is not a multiple of the unit; one line naming
        the value. The times checked: submissions, lengths ``L_j`` and extended lengths ``E_j``,
        the applied failures, ``D`` (when there are failures), ``C`` and ``R`` (with
        checkpointing; without it a job never gains from a restart, so ``R`` plays no part), and
        the block length ``T_j + C`` of each job that has a checkpoint a stop can save (the
        Young/Daly period is usually irrational: choose ``node_mtbf`` so that it is not, or keep
        jobs shorter than their period).
    """
    N = workload.n_nodes if n_nodes is None else int(n_nodes)
    if max_size is not None:
        if workload.n > max_size:
            raise InvalidInstance(f"clairvoyant optimum: {workload.n} jobs, more than {max_size}: the model is for "
                                  "tiny instances (max_size lifts the limit)")
        if N > max_size:
            raise InvalidInstance(f"clairvoyant optimum: {N} nodes, more than {max_size}: the model is for "
                                  "tiny instances (max_size lifts the limit)")
    if workload.n == 0:
        raise InvalidInstance("clairvoyant optimum: the workload has no job")
    wide = np.flatnonzero(workload.nodes > N)
    if wide.size:
        k = int(wide[0])
        raise InvalidInstance(f"job {workload.ids[k]}: {workload.nodes[k]} nodes, wider than the platform ({N})")
    trace = failures if failures is not None else FailureTrace.none(N)
    if trace.n_nodes != N:
        raise InvalidInstance(f"the failure trace is for {trace.n_nodes} nodes, the platform has {N}")
    if not (isinstance(downtime, (int, float)) and math.isfinite(downtime) and downtime >= 0):
        raise InvalidInstance(f"downtime must be a finite number >= 0, got {downtime!r}")
    ck = checkpointing
    K, E, _, B = ck.per_job(workload.length, workload.walltime, workload.nodes)
    final = ck.final_checkpoint
    stops = [int(max(k - 1, 0)) if final else int(k) for k in K.tolist()]
    applied = applied_failures(trace, float(downtime))

    named: list[tuple[str, float]] = []
    for j, jid in enumerate(workload.ids):
        named += [(f"job {jid}: submit time", float(workload.submit[j])),
                  (f"job {jid}: length", float(workload.length[j])),
                  (f"job {jid}: length with its checkpoints", float(E[j]))]
        if stops[j]:
            named.append((f"job {jid}: checkpoint block T + C", float(B[j])))
    if ck.enabled:
        named += [("checkpoint cost C", float(ck.cost)), ("recovery cost R", ck.R)]
    if applied:
        named.append(("downtime D", float(downtime)))
        named += [(f"the failure time of node {x}", t) for t, x in applied]
    if unit is None:
        u = float(find_unit(named))
    else:
        u = float(unit)
        if not (math.isfinite(u) and u > 0):
            raise InvalidInstance(f"clairvoyant optimum: the time unit must be a positive number of seconds, got {unit!r}")
    ints = [_integer(v, u, what) for what, v in named]
    del ints  # every value checked; the fields below are converted one by one
    n = workload.n
    submit = tuple(_integer(float(workload.submit[j]), u, "submit") for j in range(n))
    length = tuple(_integer(float(E[j]), u, "length") for j in range(n))
    C = _integer(float(ck.cost), u, "C") if ck.enabled else 0
    R = _integer(ck.R, u, "R") if ck.enabled else 0
    block, work_end = [], []
    for j in range(n):
        if stops[j]:
            b = _integer(float(B[j]), u, "block")
            block.append(b)
            L = _integer(float(workload.length[j]), u, "length")
            work_end.append(stops[j] * b + L - stops[j] * (b - C))
        else:
            block.append(0)
            work_end.append(_integer(float(workload.length[j]), u, "length"))
        if stops[j] and not 0 < block[j] - C:
            raise InvalidInstance(f"job {workload.ids[j]}: checkpoint period T = {_g(float(B[j]) - ck.cost)} s "
                                  "is not positive")
    D = _integer(float(downtime), u, "downtime") if applied else 0
    fails = tuple((_integer(t, u, "failure"), x) for t, x in applied)
    return ClairvoyantInstance(
        workload=workload, trace=trace, downtime_s=float(downtime), checkpointing=ck, unit=u,
        submit=submit, nodes=tuple(int(p) for p in workload.nodes.tolist()), length=length,
        block=tuple(block), stops=tuple(stops), work_end=tuple(work_end), C=C, R=R, D=D,
        failures=fails, n_nodes=N,
    )
