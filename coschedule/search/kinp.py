"""Pack-Approx against the exact k-in-p optimum ([Aupy2017]):
:func:`search_worst_kinp` over moldable instances whose profiles keep (1.1)-(1.2)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from coschedule.errors import InvalidInstance, unknown_name
from coschedule.model import CoSchedule, MoldableInstance, MoldableTask
from coschedule.results import ExactResult
from coschedule.rng import as_generator

from .engine import Improvement, Progress, _check_sizes, _Engine, _integral
from .result import SearchResult

KINP_HEURISTICS = ("pack-approx",)


@dataclass(frozen=True)
class _Kinp:
    """A co-scheduling candidate: one profile ``t(i, 1..p)`` per task (hashable)."""

    profiles: tuple[tuple[float, ...], ...]

    def instance(self, p: int, name: str | None = None) -> MoldableInstance:
        tasks = tuple(MoldableTask(prof, name=f"T{i}") for i, prof in enumerate(self.profiles))
        return MoldableInstance(tasks, p, name)


def _valid_profile(prof: tuple[float, ...]) -> bool:
    try:
        MoldableTask(prof)
    except InvalidInstance:
        return False
    return True


class _KinpProblem:
    """Pack-Approx against the exact k-in-p optimum, ``1 <= tasks <= n`` on ``p`` processors."""

    def __init__(self, heuristic: str, n: int, p: int, k: int, *, integral: bool, max_time: int) -> None:
        from coschedule.heuristics import get_heuristic

        if heuristic.lower() not in KINP_HEURISTICS:
            raise unknown_name("co-scheduling heuristic with an exact search", heuristic, KINP_HEURISTICS)
        self.name = heuristic.lower()
        self.fn = get_heuristic(heuristic)
        self.n, self.p, self.k = n, p, k
        self.integral = integral
        self.max_time = max_time

    def _profile(self, rng: np.random.Generator) -> tuple[float, ...]:
        from coschedule.generators import random_profile

        return random_profile(self.p, seed=rng, t1=(1.0, float(self.max_time)), integral=self.integral)

    def random(self, rng: np.random.Generator) -> _Kinp:
        count = int(rng.integers(min(2, self.n), self.n, endpoint=True))
        return _Kinp(tuple(self._profile(rng) for _ in range(count)))

    def _perturb(self, prof: tuple[float, ...], rng: np.random.Generator) -> tuple[float, ...]:
        """One entry ``t(q)`` moved inside the interval (1.1)-(1.2) allow given its neighbours:
        ``max(t(q+1), (q-1) t(q-1) / q) <= t(q) <= min(t(q-1), (q+1) t(q+1) / q)``."""
        p = len(prof)
        q = int(rng.integers(1, p + 1))  # 1-based processor count
        lo, hi = 0.0, math.inf
        if q > 1:
            lo, hi = max(lo, (q - 1) * prof[q - 2] / q), min(hi, prof[q - 2])
        if q < p:
            lo, hi = max(lo, prof[q]), min(hi, (q + 1) * prof[q] / q)
        if math.isinf(hi):
            hi = 2.0 * prof[q - 1]
        if self.integral:
            a, b = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
            a = max(a, 1)
            if a > b:
                return prof
            value = float(rng.integers(a, b, endpoint=True))
        else:
            value = float(rng.uniform(max(lo, 1e-9), hi))
        new = prof[: q - 1] + (value,) + prof[q:]
        return new if _valid_profile(new) else prof

    def neighbour(self, c: _Kinp, rng: np.random.Generator) -> _Kinp:
        count = len(c.profiles)
        moves = ["regenerate", "perturb", "scale"]
        if count >= 2:
            moves.append("swap")
        if count < self.n:
            moves.append("duplicate")
        if count > 1:
            moves.append("remove")
        profs = list(c.profiles)
        new = c
        for _ in range(32):
            move = moves[int(rng.integers(len(moves)))]
            i = int(rng.integers(count))
            out = list(profs)
            if move == "regenerate":
                out[i] = self._profile(rng)
            elif move == "perturb":
                out[i] = self._perturb(profs[i], rng)
            elif move == "scale":  # a positive factor keeps (1.1)-(1.2)
                factor = float(rng.integers(2, 3, endpoint=True)) if self.integral else math.exp(rng.normal(0, 0.5))
                if self.integral and rng.random() < 0.5:
                    if all(t % factor == 0 for t in profs[i]):
                        out[i] = tuple(t / factor for t in profs[i])
                else:
                    out[i] = tuple(t * factor for t in profs[i])
            elif move == "swap":
                j = int(rng.integers(count))
                out[i], out[j] = out[j], out[i]
            elif move == "duplicate":
                out.insert(int(rng.integers(count + 1)), profs[i])
            else:
                del out[i]
            new = _Kinp(tuple(out))
            if new != c:
                return new
        return new

    def run_heuristic(self, c: _Kinp) -> tuple[CoSchedule, float, float]:
        inst = c.instance(self.p)
        cs = self.fn(inst, self.k)
        T = inst.time_matrix
        # OPT >= the longest task on p processors, and >= total minimum work / p (1.2)
        lower = max(float(T[:, self.p].max()), math.fsum(float(x) for x in T[:, 1]) / self.p)
        return cs, cs.cost(inst), lower

    def solve(self, c: _Kinp, schedule: CoSchedule) -> ExactResult:
        from coschedule.exact import solve_kinp

        inst = c.instance(self.p)
        method = "subsetdp" if inst.n <= 15 else "auto"
        return solve_kinp(inst, self.k, method=method)

    def size(self, c: _Kinp) -> int:
        return len(c.profiles)

    def shrink_moves(self, c: _Kinp) -> Iterator[_Kinp]:
        count = len(c.profiles)
        if count > 1:
            for i in reversed(range(count)):
                yield _Kinp(c.profiles[:i] + c.profiles[i + 1:])
        flat = [t for prof in c.profiles for t in prof]
        if _integral(flat):
            g = math.gcd(*(int(t) for t in flat))
            if g > 1:
                yield _Kinp(tuple(tuple(t / g for t in prof) for prof in c.profiles))
            return
        for digits in (0, 1, 2):
            for i, prof in enumerate(c.profiles):
                r = tuple(max(10.0**-digits, round(t, digits)) for t in prof)
                if r != prof and _valid_profile(r):
                    yield _Kinp(c.profiles[:i] + (r,) + c.profiles[i + 1:])


def search_worst_kinp(
    heuristic: str = "pack-approx",
    *,
    n: int,
    p: int,
    k: int | None = None,
    restarts: int,
    steps: int,
    seed: int,
    integral_times: bool = True,
    max_time: int = 100,
    temperature: float = 0.0,
    shrink: bool = True,
    progress: Callable[[Progress], None] | None = None,
    on_improvement: Callable[[Improvement], None] | None = None,
) -> SearchResult:
    """Search moldable instances maximising ``Pack-Approx / OPT`` for k-in-p co-scheduling.

    ``k`` defaults to ``p`` (p-in-p, where Pack-Approx is a 3-approximation, Thm 1.6). The
    optimum comes from :func:`coschedule.exact.solve_kinp` with the subset DP (proved by construction;
    ``n <= 15``). Moves keep (1.1)-(1.2): regenerate one profile
    (:func:`coschedule.generators.random_profile`), move one entry inside the interval its
    neighbours allow, scale a profile, swap, duplicate or remove a task. Shrinking removes
    tasks and normalises or rounds times. Same engine, caching and determinism as
    :func:`search_worst` (the subset DP is deterministic and has no time limit).
    """
    _check_sizes(n=n, p=p, restarts=restarts, steps=steps)
    kk = p if k is None else k
    if isinstance(kk, bool) or not isinstance(kk, int) or kk < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    if n > 15:
        raise ValueError(f"n = {n} tasks: the exact subset DP of the search needs n <= 15")
    problem = _KinpProblem(heuristic, n, p, kk, integral=integral_times, max_time=max_time)
    engine: _Engine[_Kinp] = _Engine(problem, progress, on_improvement)
    rng = as_generator(seed)
    best, ratio = engine.search(rng, restarts, steps, temperature)
    searched = len(best.profiles)
    if shrink:
        best, ratio = engine.shrink(best, ratio)
    ev, res = engine.exact_for(best)
    instance = best.instance(p, name=f"worst-{problem.name}-n{len(best.profiles)}-p{p}-k{kk}")
    from coschedule.validate import validate_coschedule

    cost = validate_coschedule(instance, ev.schedule, kk)
    assert res.solution is not None
    opt = validate_coschedule(instance, res.solution, kk)
    assert ev.upper is not None
    options = {
        "n": n, "p": p, "k": kk, "restarts": restarts, "steps": steps, "integral_times": integral_times,
        "max_time": max_time, "temperature": temperature, "shrink": shrink, "jobs_before_shrink": searched,
    }
    return SearchResult(
        "kinp", problem.name, None, kk, cost / min(opt, cost), ev.upper, instance, None, ev.schedule, cost,
        res.solution, res, engine.evaluations, engine.solves, tuple(engine.history),
        seed if isinstance(seed, int) else None, options,
    )
