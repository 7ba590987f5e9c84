"""The expected makespan (7) of any algorithm under the exponential error model
([Benoit2021] §3.4): :func:`expected_makespan_mc` by sampling scenarios,
:func:`expected_makespan_exact` by enumerating them, with a sound bound on what it neglects.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterator

from coschedule.rigid import FailureScenario, RigidInstance, SilentErrors
from coschedule.rng import Seed

#: an algorithm: the makespan it reaches on an instance under a failure scenario
Algorithm = Callable[[RigidInstance, FailureScenario], float]


def expected_makespan_mc(
    instance: RigidInstance,
    model: SilentErrors,
    algorithm: Algorithm,
    *,
    samples: int = 1000,
    seed: Seed = None,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Monte Carlo estimate of ``E(T_ALG) = sum_f Q(f) T_ALG(f)`` (7).

    Draws ``samples`` scenarios from ``model`` (§3.4) and returns ``(mean, half_width)``: the
    sample mean and the half width ``z s / sqrt(samples)`` of the normal-approximation
    confidence interval at level ``confidence`` (``s`` the sample standard deviation).
    ``samples`` calls of ``algorithm``.
    """
    if samples < 2:
        raise ValueError(f"samples must be >= 2 for a confidence interval, got {samples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    values = [float(algorithm(instance, f)) for f in model.scenarios(instance, size=samples, seed=seed)]
    mean = math.fsum(values) / samples
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    return mean, z * statistics.stdev(values, mean) / math.sqrt(samples)


def _compositions(n: int, total: int) -> Iterator[tuple[int, ...]]:
    """All ``f`` in ``N^n`` with ``sum(f) <= total``, in lexicographic order."""
    if n == 0:
        yield ()
        return
    for first in range(total + 1):
        for rest in _compositions(n - 1, total - first):
            yield (first, *rest)


def expected_makespan_exact(
    instance: RigidInstance,
    model: SilentErrors,
    algorithm: Algorithm,
    *,
    max_failures: int,
) -> tuple[float, float, float]:
    """``E(T_ALG)`` (7) summed over every scenario with at most ``max_failures`` failures
    in total, with what the truncation neglects.

    Returns ``(value, neglected_mass, error_bound)``:

    * ``value = sum_{|f| <= m} Q(f) T(f)``, a lower bound on ``E(T_ALG)`` (``T >= 0``);
    * ``neglected_mass = P(|f| > m) = 1 - sum_{|f| <= m} Q(f)``;
    * ``error_bound``: ``E(T_ALG) <= value + error_bound``, valid when
      ``T(f) <= W(f) = sum_j (f_j + 1) t_j`` for every ``f`` -- true of any algorithm that
      keeps at least one attempt running until the end (every list or shelf schedule, and
      ``T_OPT``). Then the neglected part is at most
      ``E[W 1{|f| > m}] = sum_j t_j / (1 - q_j) - sum_{|f| <= m} Q(f) W(f)``, in closed form.
      If an enumerated scenario violates ``T(f) <= W(f)`` the bound is ``inf``.

    ``C(n + m, n)`` scenarios; ``algorithm`` runs on those of positive probability.
    """
    if max_failures < 0:
        raise ValueError(f"max_failures must be >= 0, got {max_failures}")
    q = [float(x) for x in model.q(instance)]
    times = [job.time for job in instance.jobs]
    base = math.prod(1.0 - x for x in q)
    terms, probs, works = [], [], []
    assumption = True
    for f in _compositions(instance.n, max_failures):
        prob = base * math.prod(qj**fj for qj, fj in zip(q, f))
        if prob == 0.0:
            continue
        work = math.fsum((fj + 1) * tj for fj, tj in zip(f, times))
        value = float(algorithm(instance, FailureScenario(f)))
        if value > work * (1 + 1e-9):
            assumption = False
        terms.append(prob * value)
        probs.append(prob)
        works.append(prob * work)
    neglected = max(0.0, 1.0 - math.fsum(probs))
    if not assumption or any(x >= 1.0 for x in q):
        return math.fsum(terms), neglected, math.inf
    mean_work = math.fsum(t / (1.0 - x) for t, x in zip(times, q))
    tail = max(0.0, mean_work - math.fsum(works)) + 1e-12 * mean_work
    return math.fsum(terms), neglected, tail
