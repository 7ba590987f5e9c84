"""Expected-makespan ratios (the open question at the end of [Benoit2021]
§4.4): :func:`expected_ratio`, a Monte Carlo proxy of ``E(T_ALG) / E(T_OPT)`` on one
instance, and :func:`expected_ratio_search` over tiny instances and error rates."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance, SilentErrors, lower_bound
from coschedule.rng import Seed, as_generator
from coschedule.schedule import Schedule

from .engine import RATIO_EPS, Improvement, Progress, _check_sizes, _Engine
from .result import _num
from .rigid import _Rigid, _RigidProblem, _solve_rigid


@dataclass(frozen=True)
class ExpectedRatioEstimate:
    """Monte Carlo estimate of the expected-makespan ratios of one instance (:func:`expected_ratio`).

    ``ratio_opt = mean(T_ALG(f_i)) / mean(T_OPT(f_i))`` and
    ``ratio_L = mean(T_ALG(f_i)) / mean(L(f_i))`` over the same ``samples`` scenarios, with
    the half widths of their delta-method confidence intervals (paired samples).
    ``T_OPT(f_i)`` is the validated upper bound of each solve, so ``ratio_opt`` estimates a
    lower bound on ``E(T_ALG) / E(T_OPT)``; ``ratio_L >= ratio_opt`` since ``L <= T_OPT``.
    ``unproved`` counts scenarios whose optimum was not proved within the time limit.
    """

    ratio_opt: float
    half_width_opt: float
    ratio_L: float
    half_width_L: float
    mean_alg: float
    mean_opt: float
    mean_L: float
    samples: int
    distinct_scenarios: int
    unproved: int
    confidence: float


def _ratio_ci(a: list[float], b: list[float], z: float) -> tuple[float, float]:
    """``mean(a) / mean(b)`` and the half width ``z sd(a - R b) / (sqrt(m) mean(b))``."""
    m = len(a)
    ma, mb = math.fsum(a) / m, math.fsum(b) / m
    r = ma / mb
    if m < 2:
        return r, math.inf
    d = [x - r * y for x, y in zip(a, b)]
    return r, z * statistics.stdev(d) / (math.sqrt(m) * mb)


class _OptCache:
    """``T_OPT(f)`` per (instance, scenario), shared across candidates of a search."""

    def __init__(self, time_limit: float | None, threads: int) -> None:
        self.values: dict[tuple[Any, ...], tuple[float, bool]] = {}
        self.time_limit = time_limit
        self.threads = threads
        self.solves = 0

    def get(self, instance: RigidInstance, scenario: FailureScenario, alg: Schedule) -> tuple[float, bool]:
        """A validated upper bound on ``T_OPT(f)`` and whether it is proved optimal."""
        from coschedule.heuristics import r_list

        key = (instance.P, tuple(instance.procs.tolist()), tuple(instance.times.tolist()), scenario.failures)
        hit = self.values.get(key)
        if hit is not None:
            return hit
        L = lower_bound(instance, scenario)
        greedy = r_list(instance, scenario, m=0, priority="LPT").makespan
        upper = min(alg.makespan, greedy)
        if upper <= L * (1 + RATIO_EPS):
            value = (upper, True)
        else:
            res = _solve_rigid(instance, scenario, alg, self.time_limit, self.threads)
            self.solves += 1
            obj = res.objective if res.objective is not None else upper
            value = (min(obj, upper), res.status is Status.OPTIMAL)
        self.values[key] = value
        return value


def expected_ratio(
    heuristic: str,
    instance: RigidInstance,
    model: SilentErrors,
    *,
    priority: str = "LPT",
    samples: int = 200,
    seed: Seed = None,
    confidence: float = 0.95,
    time_limit_per_solve: float | None = 5.0,
    threads: int = 1,
    _cache: _OptCache | None = None,
) -> ExpectedRatioEstimate:
    """Estimate ``E(T_ALG) / E(T_OPT)`` and ``E(T_ALG) / E(L(f))`` under the exponential model.

    A **proxy**, for tiny instances (``n <= 5``): ``samples`` scenarios are drawn from
    ``model`` (§3.4); on each, the heuristic runs and ``T_OPT(f)`` is solved
    (:func:`coschedule.exact.rigid.solve_rigid_opt`; skipped when R-List-0 or the heuristic meets
    ``L(f)``; cached per scenario). Here ``E(T_OPT) = sum_f Q(f) T_OPT(f)``, the expectation
    of the clairvoyant optimum, as in the proof of (8); an optimal *dynamic* policy has a
    larger expectation, so this ratio over-estimates the ratio against it. The ratio of
    sample means is a consistent but biased estimator; the confidence interval is the
    delta-method one for paired samples.
    """
    from coschedule.heuristics import get_rigid_heuristic

    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    fn = get_rigid_heuristic(heuristic)
    cache = _cache if _cache is not None else _OptCache(time_limit_per_solve, threads)
    alg, opt, low = [], [], []
    unproved = 0
    seen: set[tuple[int, ...]] = set()
    for f in model.scenarios(instance, size=samples, seed=seed):
        schedule = fn(instance, f, priority=priority, seed=0)
        value, proved = cache.get(instance, f, schedule)
        if f.failures not in seen:
            seen.add(f.failures)
            unproved += not proved
        alg.append(schedule.makespan)
        opt.append(value)
        low.append(lower_bound(instance, f))
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    r_opt, h_opt = _ratio_ci(alg, opt, z)
    r_L, h_L = _ratio_ci(alg, low, z)
    m = len(alg)
    return ExpectedRatioEstimate(
        r_opt, h_opt, r_L, h_L, math.fsum(alg) / m, math.fsum(opt) / m, math.fsum(low) / m, m,
        len(seen), unproved, confidence,
    )


@dataclass(frozen=True)
class ExpectedRatioResult:
    """:func:`expected_ratio_search`: the instance and error rate with the largest estimated
    expected-makespan ratio.

    ``search_ratio`` is the estimate that the search maximised (on its fixed sample set, so
    biased upwards by the selection); ``final`` re-estimates it on ``final_samples`` fresh
    scenarios -- report that one.
    """

    heuristic: str
    priority: str
    instance: RigidInstance
    qbar: float
    lam: float
    search_ratio: float
    final: ExpectedRatioEstimate
    evaluations: int
    solves: int
    history: tuple[Improvement, ...]
    seed: int | None
    options: dict[str, Any] = field(default_factory=dict)

    def compact(self) -> str:
        jobs = " ".join(f"({job.procs},{_num(job.time)})" for job in self.instance.jobs)
        return f"P={self.instance.P} qbar={self.qbar:.4g} lambda={self.lam:.4g} | (p,t): {jobs}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "heuristic": self.heuristic, "priority": self.priority, "instance": self.compact(),
            "qbar": self.qbar, "lambda": self.lam, "search_ratio": self.search_ratio,
            "final": asdict(self.final),
            "evaluations": self.evaluations, "solves": self.solves, "seed": self.seed,
            "options": self.options, "history": [imp._asdict() for imp in self.history],
        }

    def write(self, directory: str | Path) -> list[Path]:
        """``instance.json`` and ``summary.json`` in ``directory``."""
        from coschedule.io import save_json, save_rigid_instance

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        save_rigid_instance(self.instance, out / "instance.json")
        save_json(self.to_dict(), out / "summary.json")
        return [out / "instance.json", out / "summary.json"]


@dataclass(frozen=True)
class _Stochastic:
    jobs: _Rigid  # failures unused (all 0)
    qbar: float


class _ExpectedProblem:
    """Instances and error rates for :func:`expected_ratio_search` (failures are random)."""

    def __init__(self, heuristic: str, priority: str, n: int, P: int, *, max_time: int,
                 qbar_range: tuple[float, float], samples: int, sample_seed: int,
                 time_limit: float | None, threads: int) -> None:
        self.jobs = _RigidProblem(heuristic, priority, n, P, max_failures=0, integral=True,
                                  max_time=max_time, time_limit=time_limit, threads=threads,
                                  heuristic_seed=0)
        self.heuristic, self.priority = heuristic, priority
        self.P = P
        self.qbar_range = qbar_range
        self.samples = samples
        self.sample_seed = sample_seed
        self.cache = _OptCache(time_limit, threads)
        self.estimates: dict[_Stochastic, ExpectedRatioEstimate] = {}

    def _qbar(self, rng: np.random.Generator) -> float:
        lo, hi = self.qbar_range
        return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))

    def random(self, rng: np.random.Generator) -> _Stochastic:
        return _Stochastic(self.jobs.random(rng), self._qbar(rng))

    def neighbour(self, c: _Stochastic, rng: np.random.Generator) -> _Stochastic:
        if rng.random() < 0.25:
            lo, hi = self.qbar_range
            q = min(hi, max(lo, c.qbar * math.exp(rng.normal(0.0, 0.5))))
            if q != c.qbar:
                return _Stochastic(c.jobs, q)
        return _Stochastic(self.jobs.neighbour(c.jobs, rng), c.qbar)

    def estimate(self, c: _Stochastic) -> ExpectedRatioEstimate:
        est = self.estimates.get(c)
        if est is None:
            inst = c.jobs.instance(self.P)
            model = SilentErrors.from_qbar(inst, c.qbar)
            # common random numbers: every candidate is estimated from the same stream
            est = expected_ratio(self.heuristic, inst, model, priority=self.priority,
                                 samples=self.samples, seed=self.sample_seed, _cache=self.cache)
            self.estimates[c] = est
        return est

    # The engine maximises makespan / optimum: it sees the estimated ratio r as a makespan r
    # against an optimum of 1 (lower bound 1, objective 1), so its ratio is r itself.
    def run_heuristic(self, c: _Stochastic) -> tuple[None, float, float]:
        return None, self.estimate(c).ratio_opt, 1.0

    def solve(self, c: _Stochastic, schedule: None) -> ExactResult:
        return ExactResult(Status.FEASIBLE, 1.0, 1.0, None, "monte-carlo", "cpsat", 0.0)

    def size(self, c: _Stochastic) -> int:
        return len(c.jobs.procs)

    def shrink_moves(self, c: _Stochastic) -> Iterator[_Stochastic]:
        return iter(())


def expected_ratio_search(
    heuristic: str = "r-shelf-nb",
    *,
    priority: str = "LPT",
    n: int = 4,
    P: int = 4,
    restarts: int = 2,
    steps: int = 10,
    seed: int = 0,
    samples: int = 200,
    final_samples: int = 1000,
    qbar_range: tuple[float, float] = (0.01, 0.6),
    max_time: int = 20,
    time_limit_per_solve: float = 2.0,
    threads: int = 1,
    progress: Callable[[Progress], None] | None = None,
    on_improvement: Callable[[Improvement], None] | None = None,
) -> ExpectedRatioResult:
    """Search tiny instances and error rates for a large *expected*-makespan ratio (§4.4).

    The open question of §4.4: does any shelf algorithm have a constant ratio
    ``E(T_ALG) / E(T_OPT)`` under the exponential model? Neither expectation is computable
    exactly here, so this is a cheap, clearly approximate starting point: the same local
    search as :func:`search_worst` (jobs with integer times on ``P`` processors, no failure
    scenario: failures are random) plus a move on ``qbar`` (the mean failure probability,
    ``lambda = -ln(1 - qbar) / abar``, log-uniform in ``qbar_range``), maximising the Monte
    Carlo ratio of :func:`expected_ratio` on ``samples`` scenarios drawn from one fixed stream
    (common random numbers, so candidates are compared on the same draws). The winner is then
    re-estimated on ``final_samples`` fresh scenarios, with confidence intervals
    (``result.final``): the search estimate is biased upwards by the selection.

    Keep ``n <= 5``: every distinct scenario may cost one CP-SAT solve.
    """
    _check_sizes(n=n, P=P, restarts=restarts, steps=steps)
    lo, hi = qbar_range
    if not 0 < lo <= hi < 1:
        raise ValueError(f"qbar_range must satisfy 0 < lo <= hi < 1, got {qbar_range}")
    rng = as_generator(seed)
    sample_seed, final_seed = (int(x) for x in rng.integers(0, 2**63 - 1, size=2))
    problem = _ExpectedProblem(heuristic, priority, n, P, max_time=max_time, qbar_range=qbar_range,
                               samples=samples, sample_seed=sample_seed,
                               time_limit=time_limit_per_solve, threads=threads)
    engine: _Engine[_Stochastic] = _Engine(problem, progress, on_improvement)
    best, _ = engine.search(rng, restarts, steps, 0.0)
    search_est = problem.estimate(best)
    inst = best.jobs.instance(P, name=f"expected-{heuristic.lower()}-{priority.lower()}-P{P}")
    model = SilentErrors.from_qbar(inst, best.qbar)
    final = expected_ratio(heuristic, inst, model, priority=priority, samples=final_samples,
                           seed=final_seed, _cache=problem.cache)
    options = {"n": n, "P": P, "restarts": restarts, "steps": steps, "samples": samples,
               "final_samples": final_samples, "qbar_range": list(qbar_range), "max_time": max_time,
               "time_limit_per_solve": time_limit_per_solve, "threads": threads,
               "search_estimate": asdict(search_est)}
    return ExpectedRatioResult(
        heuristic.lower(), priority, inst, best.qbar, model.lam, search_est.ratio_opt, final,
        engine.evaluations, problem.cache.solves, tuple(engine.history),
        seed if isinstance(seed, int) else None, options,
    )
