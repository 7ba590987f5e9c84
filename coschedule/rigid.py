"""Rigid parallel jobs under silent errors ([Benoit2021] §3).

A rigid job runs on exactly ``procs`` processors for ``time`` (error-free); its area is
``procs * time``. A silent error is detected at the end of an attempt and the job is re-executed
until an attempt succeeds. A *failure scenario* ``f`` gives the number of failed attempts of
each job: job ``j`` runs ``f_j + 1`` attempts.

Silent-error model (§3.4, §5.1): an attempt of job ``j`` fails with probability
``q_j = 1 - exp(-lambda a_j)``, independently, so ``f_j`` is geometric,
``P(f_j = f) = q_j^f (1 - q_j)``. With the average failure probability ``qbar`` of a job of
mean area ``abar``, ``lambda = -ln(1 - qbar) / abar`` and ``q_j = 1 - (1 - qbar)^(a_j / abar)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ._repr import REPR_MAX_ITEMS, full_repr, summary_repr
from .errors import InvalidInstance
from .rng import Seed, as_generator

__all__ = [
    "RigidJob",
    "RigidInstance",
    "FailureScenario",
    "SilentErrors",
    "lower_bound",
    "lower_bounds",
    "t_max",
    "total_area",
]


def _is_int(x: object) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


@dataclass(frozen=True)
class RigidJob:
    """A rigid job: ``procs`` processors for ``time`` (§3.1)."""

    procs: int
    time: float
    name: str | None = None

    def __post_init__(self) -> None:
        label = f"job {self.name!r}" if self.name is not None else "job"
        if not _is_int(self.procs) or self.procs < 1:
            raise InvalidInstance(f"{label}: procs must be a positive integer, got {self.procs!r}")
        if isinstance(self.time, (bool, str, bytes)) or not isinstance(self.time, (int, float, np.number)):
            raise InvalidInstance(f"{label}: time is not a number: {self.time!r}")
        try:
            t = float(self.time)
        except OverflowError:
            t = math.inf
        if not math.isfinite(t) or t <= 0:
            raise InvalidInstance(f"{label}: time must be positive and finite, got {self.time!r}")
        object.__setattr__(self, "procs", int(self.procs))
        object.__setattr__(self, "time", t)

    @property
    def area(self) -> float:
        return self.procs * self.time


@dataclass(frozen=True)
class RigidInstance:
    """``n`` rigid jobs on ``P`` identical processors, all released at time 0."""

    jobs: tuple[RigidJob, ...]
    P: int
    name: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "jobs", tuple(self.jobs))
        if not _is_int(self.P) or self.P < 1:
            raise InvalidInstance(f"platform size P must be a positive integer, got {self.P!r}")
        object.__setattr__(self, "P", int(self.P))
        if not self.jobs:
            raise InvalidInstance("instance has no job")
        for j, job in enumerate(self.jobs):
            if job.procs > self.P:
                raise InvalidInstance(f"{self.job_label(j)}: procs {job.procs} > P {self.P}")

    def __repr__(self) -> str:
        if self.n <= REPR_MAX_ITEMS:
            return full_repr(self)
        return summary_repr(self, n=self.n, P=self.P, name=self.name)

    @property
    def n(self) -> int:
        return len(self.jobs)

    def job_label(self, j: int) -> str:
        name = self.jobs[j].name
        return f"job {j}" + (f" ({name})" if name is not None else "")

    @cached_property
    def procs(self) -> np.ndarray:
        arr = np.array([job.procs for job in self.jobs], dtype=np.int64)
        arr.setflags(write=False)
        return arr

    @cached_property
    def times(self) -> np.ndarray:
        arr = np.array([job.time for job in self.jobs], dtype=float)
        arr.setflags(write=False)
        return arr

    @cached_property
    def areas(self) -> np.ndarray:
        arr = self.procs * self.times
        arr.setflags(write=False)
        return arr


@dataclass(frozen=True)
class FailureScenario:
    """``failures[j]`` = number of failed attempts of job ``j`` before its success (§3.2)."""

    failures: tuple[int, ...]

    def __post_init__(self) -> None:
        clean = []
        for j, f in enumerate(self.failures):
            if not _is_int(f) or f < 0:
                raise InvalidInstance(f"scenario: failures of job {j} must be an integer >= 0, got {f!r}")
            clean.append(int(f))
        object.__setattr__(self, "failures", tuple(clean))

    def __repr__(self) -> str:
        if len(self.failures) <= REPR_MAX_ITEMS:
            return full_repr(self)
        return summary_repr(self, n=len(self.failures), total_failures=self.total_failures)

    @classmethod
    def none(cls, n: int) -> "FailureScenario":
        """The failure-free scenario."""
        return cls((0,) * n)

    def check(self, instance: RigidInstance) -> None:
        if len(self.failures) != instance.n:
            raise InvalidInstance(
                f"scenario has {len(self.failures)} entries but the instance has {instance.n} jobs"
            )

    def attempts(self, j: int) -> int:
        return self.failures[j] + 1

    @property
    def total_failures(self) -> int:
        return sum(self.failures)


def t_max(instance: RigidInstance, scenario: FailureScenario) -> float:
    """``t_max(f) = max_j (f_j + 1) t_j``: the longest cumulative execution (5)."""
    scenario.check(instance)
    return max((f + 1) * job.time for f, job in zip(scenario.failures, instance.jobs))


def total_area(instance: RigidInstance, scenario: FailureScenario) -> float:
    """``A(f) = sum_j (f_j + 1) a_j``: the total cumulative area (6)."""
    scenario.check(instance)
    return math.fsum((f + 1) * job.area for f, job in zip(scenario.failures, instance.jobs))


def lower_bound(instance: RigidInstance, scenario: FailureScenario) -> float:
    """``L(f) = max(t_max(f), A(f) / P)``, a lower bound on ``T_OPT(f)`` by (5) and (6)."""
    return max(t_max(instance, scenario), total_area(instance, scenario) / instance.P)


def lower_bounds(instance: RigidInstance, failures: np.ndarray) -> np.ndarray:
    """:func:`lower_bound` of every row of ``failures`` (shape ``(S, n)``, as
    :meth:`SilentErrors.sample` returns), vectorised; ``A(f)`` is summed with :func:`math.fsum`
    as there, so both give the same floats on every machine."""
    attempts = np.asarray(failures) + 1
    tmax = (attempts * instance.times).max(axis=1)
    A = np.array([math.fsum(row) for row in attempts * instance.areas], dtype=float)
    return np.maximum(tmax, A / instance.P)


@dataclass(frozen=True)
class SilentErrors:
    """Exponentially distributed silent errors of rate ``lam`` per processor (§3.4)."""

    lam: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.lam) and self.lam >= 0):
            raise InvalidInstance(f"error rate lambda must be finite and >= 0, got {self.lam!r}")

    @classmethod
    def from_qbar(cls, instance: RigidInstance, qbar: float) -> "SilentErrors":
        """``lambda = -ln(1 - qbar) / abar`` with ``abar`` the mean job area (§5.1)."""
        if not (0 <= qbar < 1):
            raise InvalidInstance(f"qbar must be in [0, 1), got {qbar!r}")
        abar = float(np.mean(instance.areas))
        return cls(-math.log1p(-qbar) / abar)

    def q(self, instance: RigidInstance) -> np.ndarray:
        """Failure probability of one attempt of each job: ``q_j = 1 - exp(-lambda a_j)``.

        Raises ``InvalidInstance`` if some ``q_j`` rounds to 1 (the job would never succeed).
        """
        q = -np.expm1(-self.lam * instance.areas)
        if np.any(q >= 1.0):
            j = int(np.argmax(q))
            raise InvalidInstance(
                f"{instance.job_label(j)}: failure probability rounds to 1 (lambda a_j = "
                f"{self.lam * instance.areas[j]:.3g}); the job would never succeed"
            )
        return q

    def probability(self, instance: RigidInstance, scenario: FailureScenario) -> float:
        """``Q(f) = prod_j q_j^{f_j} (1 - q_j)``."""
        scenario.check(instance)
        q = self.q(instance)
        f = np.asarray(scenario.failures, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):  # 0 * log(0) when q_j = 0, replaced below
            logp = f * np.log(q) + np.log1p(-q)
        logp = np.where(f == 0, np.log1p(-q), logp)
        return float(np.exp(logp.sum()))

    def sample(self, instance: RigidInstance, *, size: int, seed: Seed = None) -> np.ndarray:
        """``size`` scenarios as an int array of shape ``(size, n)`` (geometric failures).

        ``size`` and ``seed`` are keyword-only: ``model.sample(instance, size=100, seed=1)``.
        """
        rng = as_generator(seed)
        q = self.q(instance)
        # numpy's geometric counts trials up to the first success (>= 1)
        return rng.geometric(1.0 - q, size=(size, instance.n)).astype(np.int64) - 1

    def scenarios(self, instance: RigidInstance, *, size: int, seed: Seed = None) -> list[FailureScenario]:
        """:meth:`sample` as a list of :class:`FailureScenario` (the same draws for the same seed)."""
        rows = self.sample(instance, size=size, seed=seed)
        return [FailureScenario(tuple(int(x) for x in row)) for row in rows]


def rigid_instance(jobs: Sequence[tuple[int, float]], P: int, *, name: str | None = None) -> RigidInstance:
    """Convenience: an instance from ``(procs, time)`` pairs."""
    return RigidInstance(tuple(RigidJob(int(p), float(t)) for p, t in jobs), P, name)


__all__.append("rigid_instance")
