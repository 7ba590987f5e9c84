"""Seeded instance generators.

* :func:`synthetic_profile` / :func:`synthetic_instance`: the synthetic application model of
  [Aupy2017] eq. (1.13), with ``f = 0.08`` and problem sizes ``m``
  drawn uniformly in ``[m_inf, m_sup]`` (§1.5.4).
* :func:`random_profile` / :func:`random_instance`: arbitrary profiles that satisfy (1.1) and
  (1.2), including plateaus and perfectly linear stretches, for property tests.
* :func:`synthetic_rigid`: the synthetic rigid jobs of [Benoit2021] §5.1;
  :func:`random_rigid`: small random rigid instances for tests.

Every generator takes a keyword-only ``seed`` (an int or a ``numpy.random.Generator``;
``random_rigid(8, 8, seed=3)``); the same seed gives the same instance on every machine.
"""

from __future__ import annotations

import math

import numpy as np

from .model import MoldableInstance, MoldableTask
from .rigid import RigidInstance, RigidJob
from .rng import Seed, as_generator

__all__ = [
    "SYNTHETIC_F",
    "M_INF",
    "M_SUP",
    "synthetic_profile",
    "synthetic_instance",
    "random_profile",
    "random_instance",
    "SYNTHETIC_RIGID_PROCS",
    "SYNTHETIC_RIGID_TIMES",
    "synthetic_rigid",
    "random_rigid",
]

#: sequential fraction f of eq. (1.13)
SYNTHETIC_F = 0.08
#: default range of the problem size m (§1.5.4)
M_INF, M_SUP = 1_500_000, 2_500_000


def synthetic_profile(m: float, p: int, *, f: float = SYNTHETIC_F) -> tuple[float, ...]:
    """Execution times ``t(m, q)``, ``q = 1..p``, of eq. (1.13).

    ``t(m, 1) = 2 m log2(m)`` and
    ``t(m, q) = f t(m, 1) + (1 - f) t(m, 1) / q + (m / q) log2(m)``.
    Time decreases and work ``q t(m, q) = f t(m,1) q + (1-f) t(m,1) + m log2 m`` increases with
    ``q``, so (1.1) and (1.2) hold for ``m > 1`` and ``0 <= f <= 1``.
    """
    if m <= 1:
        raise ValueError(f"problem size m must be > 1, got {m}")
    if not 0 <= f <= 1:
        raise ValueError(f"sequential fraction f must be in [0, 1], got {f}")
    t1 = 2 * m * math.log2(m)
    q = np.arange(1, p + 1, dtype=float)
    times = f * t1 + (1 - f) * t1 / q + (m / q) * math.log2(m)
    return tuple(float(t) for t in times)


def synthetic_instance(
    n: int,
    p: int,
    *,
    seed: Seed = None,
    m_inf: int = M_INF,
    m_sup: int = M_SUP,
    f: float = SYNTHETIC_F,
) -> MoldableInstance:
    """``n`` tasks of the eq. (1.13) model, ``m_i ~ U{m_inf..m_sup}``; memory footprint ``m_i``."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not 1 < m_inf <= m_sup:
        raise ValueError(f"need 1 < m_inf <= m_sup, got {m_inf}, {m_sup}")
    rng = as_generator(seed)
    sizes = rng.integers(m_inf, m_sup, endpoint=True, size=n)
    tasks = tuple(
        MoldableTask(synthetic_profile(int(m), p, f=f), memory=float(m), name=f"T{i}")
        for i, m in enumerate(sizes)
    )
    return MoldableInstance(tasks, p, name=f"synthetic-n{n}-p{p}")


def random_profile(
    p: int,
    *,
    seed: Seed = None,
    t1: tuple[float, float] = (1.0, 100.0),
    min_procs: int = 1,
    integral: bool = False,
) -> tuple[float, ...]:
    """A random profile over ``1..p`` satisfying (1.1)–(1.2).

    Each step keeps ``t(j+1) / t(j)`` in ``[j / (j+1), 1]``; with probability 1/4 the step is a
    plateau (ratio 1) and with 1/4 perfectly linear (ratio j/(j+1)), so that ties and boundary
    cases are common. Entries below ``min_procs`` are ``inf``. With ``integral=True`` the times
    are rounded up to integers *before* the check and repaired to stay valid (useful for exact
    integer comparisons).
    """
    rng = as_generator(seed)
    times = [math.inf] * (min_procs - 1)
    t = float(rng.uniform(*t1))
    if integral:
        t = float(math.ceil(t))
    times.append(t)
    for j in range(min_procs, p):
        u = rng.random()
        lo = j / (j + 1)
        ratio = 1.0 if u < 0.25 else lo if u < 0.5 else float(rng.uniform(lo, 1.0))
        nxt = t * ratio
        if integral:
            # smallest integer >= j t / (j+1) that does not exceed t keeps both properties
            nxt = float(min(t, max(math.ceil(nxt), math.ceil(j * t / (j + 1) - 1e-9))))
        t = nxt
        times.append(t)
    return tuple(times)


def random_instance(
    n: int,
    p: int,
    *,
    seed: Seed = None,
    with_min_procs: bool = False,
    integral: bool = False,
) -> MoldableInstance:
    """``n`` tasks with random valid profiles; optionally random minimum processor counts."""
    rng = as_generator(seed)
    tasks = []
    for i in range(n):
        mp = int(rng.integers(1, max(1, p // 2), endpoint=True)) if with_min_procs else 1
        prof = random_profile(p, seed=rng, min_procs=mp, integral=integral)
        tasks.append(MoldableTask(prof, min_procs=mp, name=f"T{i}"))
    return MoldableInstance(tuple(tasks), p, name=f"random-n{n}-p{p}")


# ---------------------------------------------------------------- rigid jobs

#: processor allocations of the synthetic rigid jobs, uniform integers (§5.1)
SYNTHETIC_RIGID_PROCS = (50, 2000)
#: error-free execution times of the synthetic rigid jobs in seconds, uniform reals (§5.1)
SYNTHETIC_RIGID_TIMES = (100.0, 20000.0)


def synthetic_rigid(
    n: int = 100,
    P: int = 10000,
    *,
    seed: Seed = None,
    procs: tuple[int, int] = SYNTHETIC_RIGID_PROCS,
    times: tuple[float, float] = SYNTHETIC_RIGID_TIMES,
) -> RigidInstance:
    """The synthetic rigid jobs of [Benoit2021] §5.1.

    ``n`` jobs on ``P`` processors; ``p_j`` uniform integer in ``[procs[0], procs[1]]``
    (both ends included) and ``t_j`` uniform real in ``[times[0], times[1])``. The paper's
    setting is the default: 100 jobs, ``P = 10000``, ``p_j in [50, 2000]``,
    ``t_j in [100, 20000]`` seconds (30 such sets per experiment, ``P`` varied from 5000 to
    20000).

    Raises
    ------
    ValueError
        if ``n < 1`` or a range is empty, or if ``procs[1] > P`` (choose a smaller ``procs``
        range for small platforms rather than have jobs silently clipped).

    >>> inst = synthetic_rigid(seed=1)
    >>> inst.n, inst.P, 50 <= int(inst.procs.min()) and int(inst.procs.max()) <= 2000
    (100, 10000, True)
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    lo, hi = procs
    if not 1 <= lo <= hi:
        raise ValueError(f"need 1 <= procs[0] <= procs[1], got {procs}")
    if hi > P:
        raise ValueError(f"procs range {procs} exceeds the platform size P = {P}")
    tlo, thi = times
    if not 0 < tlo <= thi < math.inf:
        raise ValueError(f"need 0 < times[0] <= times[1] < inf, got {times}")
    rng = as_generator(seed)
    p = rng.integers(lo, hi, endpoint=True, size=n)
    t = rng.uniform(tlo, thi, size=n)
    jobs = tuple(RigidJob(int(pj), float(tj), name=f"J{j}") for j, (pj, tj) in enumerate(zip(p, t)))
    return RigidInstance(jobs, P, name=f"synthetic-rigid-n{n}-P{P}")


def random_rigid(n: int, P: int, *, seed: Seed = None, integral: bool = False) -> RigidInstance:
    """``n`` random rigid jobs on ``P`` processors, for tests.

    ``p_j`` uniform in ``1..P``; ``t_j`` uniform real in ``[1, 10)``, or, with
    ``integral=True``, a uniform integer in ``1..10`` (stored as a float) so that sums of
    times are exact.
    """
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if P < 1:
        raise ValueError(f"P must be >= 1, got {P}")
    rng = as_generator(seed)
    p = rng.integers(1, P, endpoint=True, size=n)
    t = rng.integers(1, 10, endpoint=True, size=n).astype(float) if integral else rng.uniform(1.0, 10.0, size=n)
    jobs = tuple(RigidJob(int(pj), float(tj), name=f"J{j}") for j, (pj, tj) in enumerate(zip(p, t)))
    return RigidInstance(jobs, P, name=f"random-rigid-n{n}-P{P}")
