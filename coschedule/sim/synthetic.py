"""Seeded synthetic months shaped like the Mira and Intrepid months of [Du2024] §5.2.

The node-stealing paper runs its experiments on three months of the Argonne logs: Mira (49,152
nodes) in June 2017 and March 2018, Intrepid (40,960 nodes) in June 2013. **Those logs are not
available here** (they are not in ``instances/traces/``, and this toolkit fetches nothing), so this
module draws workloads that match what the paper *publishes* about them: the job counts per size
class of its Table 2, the stress of §5.2 and the length statistics of its Table 3. They are
stand-ins for benchmarks and experiments at the paper's scale, not the paper's traces: what the
tables do not say (the real sizes inside a class, the correlation of size and length, the users'
estimates, the arrival pattern) is chosen below, and every choice is written down.

What is matched
---------------
* **Platform and counts.** ``n_nodes`` and the number of jobs; the jobs of each size class of
  Table 2 (the class counts exactly).
* **Sizes** (choice). Mira and Intrepid allocate partitions whose sizes are powers of two, so
  within a class a job gets one of the powers of two the class holds, each with probability 1/2:
  Table 2's intervals ``[2^a, 2^(a+2)]`` are read as half-open, ``[2^a, 2^(a+2))``, holding
  ``2^a`` and ``2^(a+1)``; the class ``1`` is 1 node; the class ``2^15`` is 32,768 nodes; the
  last class (``49152``: the whole machine) is capped as the paper does (§5.2): 49,000 nodes on
  Mira, 40,900 on Intrepid. Table 2 has jobs below Mira's 512-node minimum partition (1 to 256
  nodes); they are kept with those sizes, as the table counts them.
* **Lengths** (the failure-free run times, Table 3's min, max, mean and median). Lognormal:
  ``L = median * exp(sigma * (z - median(z)))`` for standard normal draws ``z`` (so the sample
  median is the table's), clipped to ``[min, max]``, with ``sigma`` chosen by bisection so that
  the clipped sample mean is the table's; then the shortest job gets exactly ``min`` and the
  longest exactly ``max``.
* **Stress** (§5.2, footnote 2): the sum over the jobs submitted in the month of length × nodes,
  divided by ``n_nodes`` × the month's duration (June: 30 days, March: 31 days), computed on the
  returned workload (the capped sizes). With sizes and lengths drawn independently it would be far
  below the paper's (about 60 % instead of 89.63 % for June 2017): on these machines the large
  jobs run longer. So lengths are paired with sizes through a Gaussian copula (choice): the
  lengths, sorted, go to the jobs in the order of ``rho * zs + sqrt(1 - rho^2) * e``, ``zs`` the
  standardised log sizes and ``e`` standard normal noise, with ``rho`` in [0, 1] found by
  bisection; the remaining gap (one pairing step) is closed by scaling every length strictly
  between ``min`` and ``max`` by one factor (clipped to ``[min, max]``; a change of the order of
  0.01 %, so Table 3's mean and median move by as little). Lengths are then whole seconds, as in
  the logs; the stress is within 0.01 % of the paper's.
* **Wall times** (choice; the real logs have the users' estimates): ``length × F``, ``F``
  log-uniform on ``[1, 4]`` (a median over-estimation of 2×), rounded up to a whole minute.
* **Submissions** (choice): a homogeneous Poisson process over the month: given the count, the
  submit times are independent and uniform on ``[0, month)`` (whole seconds), sorted; job ids
  ``"1" .. "n"`` in submission order. No daily cycle.

The same seed gives the same workload on every machine (one ``numpy`` generator, PCG64).

Reference: [Du2024] Y. Du, L. Marchal, G. Pallez, Y. Robert, "Doing better for jobs that failed:
node stealing from a batch scheduler's perspective", §5.2, Tables 2 and 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..rng import Seed, as_generator
from .workload import Workload

__all__ = ["MONTHS", "MonthSpec", "intrepid_like", "mira_like", "scale_workload", "stress", "synthetic_month"]

DAY = 86400.0
HOUR = 3600.0


@dataclass(frozen=True)
class MonthSpec:
    """What [Du2024] §5.2 publishes about one month: Table 2's counts per size class (``counts``,
    in the order of :attr:`classes`), the stress, Table 3's length statistics (seconds), the
    platform and the cap on the largest jobs."""

    name: str
    n_nodes: int
    days: int
    counts: tuple[int, ...]
    stress: float
    length_min: float
    length_max: float
    length_mean: float
    length_median: float
    cap: int

    @property
    def n(self) -> int:
        return sum(self.counts)

    @property
    def duration(self) -> float:
        """The month in seconds."""
        return self.days * DAY

    @property
    def classes(self) -> tuple[tuple[int, ...], ...]:
        """The sizes a job of each class of Table 2 may get (module docstring)."""
        return ((1,), (2, 4), (8, 16), (32, 64), (128, 256), (512, 1024), (2048, 4096),
                (8192, 16384), (32768,), (self.cap,))


def _h(hours: float) -> float:
    return round(hours * HOUR)


#: Table 2 (counts per class: 1, [2^1,2^3), [2^3,2^5), [2^5,2^7), [2^7,2^9), [2^9,2^11),
#: [2^11,2^13), [2^13,2^15), 2^15, the whole machine), §5.2's stress and Table 3's lengths
MONTHS: dict[str, MonthSpec] = {
    "mira-2017-06": MonthSpec("mira-like-2017-06", 49152, 30, (8, 2, 6, 10, 74, 2103, 809, 269, 22, 8),
                              0.8963, 55.0, _h(49.88), _h(2.64), _h(0.88), 49000),
    "mira-2018-03": MonthSpec("mira-like-2018-03", 49152, 31, (31, 3, 6, 69, 117, 2481, 923, 350, 31, 13),
                              0.9778, 26.0, _h(24.02), _h(2.79), _h(1.07), 49000),
    "intrepid-2013-06": MonthSpec("intrepid-like-2013-06", 40960, 30, (0, 0, 0, 0, 0, 2001, 574, 362, 31, 2),
                                  0.8955, 26.0, _h(47.08), _h(2.55), _h(0.42), 40900),
}


def stress(workload: Workload, duration: float) -> float:
    """[Du2024] §5.2's stress: sum of length × nodes over ``n_nodes`` × ``duration``."""
    return float(np.dot(workload.length, workload.nodes.astype(np.float64))) / (workload.n_nodes * duration)


def _lengths(spec: MonthSpec, rng: np.random.Generator) -> np.ndarray:
    """Lognormal lengths with Table 3's median and mean, clipped to [min, max] (module docstring)."""
    n = spec.n
    z = rng.standard_normal(n)
    z -= np.median(z)
    lo, hi = spec.length_min, spec.length_max

    def draw(sigma: float) -> np.ndarray:
        return np.clip(spec.length_median * np.exp(sigma * z), lo, hi)

    a, b = 1e-3, 6.0
    for _ in range(60):  # the clipped mean grows with sigma on this range
        mid = 0.5 * (a + b)
        if draw(mid).mean() < spec.length_mean:
            a = mid
        else:
            b = mid
    out = draw(0.5 * (a + b))
    out[np.argmin(out)] = lo
    out[np.argmax(out)] = hi
    return out


def _pair(lengths: np.ndarray, sizes: np.ndarray, target: float, rng: np.random.Generator) -> np.ndarray:
    """Lengths reordered to the jobs so that ``sum(length * size)`` is about ``target``
    (Gaussian copula, module docstring), then scaled to hit it."""
    ls = np.log(sizes.astype(np.float64))
    sd = ls.std()
    zs = (ls - ls.mean()) / (sd if sd > 0 else 1.0)
    e = rng.standard_normal(sizes.size)
    ordered = np.sort(lengths)
    w = sizes.astype(np.float64)

    def assign(rho: float) -> np.ndarray:
        score = rho * zs + math.sqrt(max(1.0 - rho * rho, 0.0)) * e
        out = np.empty_like(ordered)
        out[np.argsort(score, kind="stable")] = ordered
        return out

    a, b = 0.0, 1.0
    if float(assign(0.0) @ w) < target:
        for _ in range(50):
            mid = 0.5 * (a + b)
            if float(assign(mid) @ w) < target:
                a = mid
            else:
                b = mid
    low, high = assign(a), assign(b)
    out = low if abs(float(low @ w) - target) <= abs(float(high @ w) - target) else high
    return _scale(out, w, target, ordered[0], ordered[-1])


def _scale(lengths: np.ndarray, w: np.ndarray, target: float, lo: float, hi: float) -> np.ndarray:
    """Scale the lengths strictly inside ``(lo, hi)`` by one factor (clipped) so that
    ``sum(length * w)`` is ``target``; the extremes stay."""
    inner = (lengths > lo) & (lengths < hi)
    fixed = float(lengths[~inner] @ w[~inner])
    base = lengths[inner]
    wi = w[inner]

    def total(f: float) -> float:
        return fixed + float(np.clip(base * f, lo, hi) @ wi)

    a, b = 0.5, 2.0
    for _ in range(80):
        mid = 0.5 * (a + b)
        if total(mid) < target:
            a = mid
        else:
            b = mid
    out = lengths.copy()
    out[inner] = np.clip(base * 0.5 * (a + b), lo, hi)
    return out


def synthetic_month(spec: MonthSpec, seed: Seed = None) -> Workload:
    """A workload matched to ``spec`` (module docstring); the same seed, the same workload."""
    rng = as_generator(seed)
    sizes = np.concatenate([
        np.asarray(choices, dtype=np.int64)[rng.integers(0, len(choices), size=count)]
        for choices, count in zip(spec.classes, spec.counts)
    ])
    sizes = sizes[rng.permutation(sizes.size)]
    target = spec.stress * spec.n_nodes * spec.duration
    lengths = np.rint(_pair(_lengths(spec, rng), sizes, target, rng))
    factor = np.exp(rng.uniform(0.0, math.log(4.0), size=sizes.size))
    walltime = np.maximum(np.ceil(lengths * factor / 60.0) * 60.0, lengths)
    submit = np.sort(np.floor(rng.uniform(0.0, spec.duration, size=sizes.size)))
    ids = tuple(str(k + 1) for k in range(sizes.size))
    return Workload(ids=ids, submit=submit, nodes=sizes, walltime=walltime, length=lengths,
                    n_nodes=spec.n_nodes, name=spec.name)


def mira_like(month: str = "2017-06", seed: Seed = None) -> Workload:
    """A Mira-like month (49,152 nodes): ``month`` ``"2017-06"`` (3,311 jobs, stress 89.63 %) or
    ``"2018-03"`` (4,024 jobs, stress 97.78 %), drawn from ``seed`` (module docstring: matched
    to [Du2024] Tables 2 and 3; the real Mira log is not available here).

    >>> w = mira_like("2017-06", seed=1)
    >>> w.n, w.n_nodes, int(w.nodes.max())
    (3311, 49152, 49000)
    >>> round(stress(w, 30 * 86400.0), 4)
    0.8963
    """
    key = f"mira-{month}"
    if key not in MONTHS:
        raise ValueError(f"unknown Mira month {month!r}; valid: 2017-06, 2018-03")
    return synthetic_month(MONTHS[key], seed)


def intrepid_like(seed: Seed = None) -> Workload:
    """An Intrepid-like June 2013 (40,960 nodes, 2,970 jobs, none below 512 nodes, stress
    89.55 %, the whole-machine jobs capped at 40,900 nodes), drawn from ``seed`` (module
    docstring; the real Intrepid log is not available here)."""
    return synthetic_month(MONTHS["intrepid-2013-06"], seed)


#: [Du2024] Table 6: ``n_i`` jobs of ``2^i`` nodes, ``i = 0 .. 6``
TABLE6_COUNTS: tuple[int, ...] = (504, 198, 108, 65, 55, 42, 28)
#: §6.3: the mean inter-arrival time (seconds) that makes the stress 95 % by eq. (3)
TABLE6_INTERARRIVAL = 174.0


def table6_workload(seed: Seed = None, *, mean_interarrival: float = TABLE6_INTERARRIVAL) -> Workload:
    """The synthetic workload of [Du2024] §6.3 (Table 6): 1,000 jobs on 128 nodes, ``n_i`` of
    ``2^i`` nodes (504, 198, 108, 65, 55, 42, 28 for ``i = 0 .. 6``) in a random order; each
    length uniform in [1, 119] minutes (whole seconds), its wall time ``alpha`` × length with
    ``alpha`` uniform in [1, 5] (whole seconds, rounded up); submissions a Poisson process of
    mean inter-arrival ``mean_interarrival`` seconds from 0 (174 s: a stress of 95 % by eq. (3),
    ``(1 / 174) × Σ n_i 2^i 3600 / (128 × 1000) = 0.9485``). The paper's experiment runs it with
    a platform MTBF of 30 minutes (node MTBF 128 × 1800 s), C = R = 5 minutes, D = 10 minutes.

    >>> w = table6_workload(seed=1)
    >>> w.n, w.n_nodes, [int((w.nodes == 2**i).sum()) for i in range(7)]
    (1000, 128, [504, 198, 108, 65, 55, 42, 28])
    """
    if not (math.isfinite(mean_interarrival) and mean_interarrival > 0):
        raise ValueError(f"mean_interarrival must be a number > 0, got {mean_interarrival!r}")
    rng = as_generator(seed)
    sizes = np.repeat(2 ** np.arange(7, dtype=np.int64), TABLE6_COUNTS)
    sizes = sizes[rng.permutation(sizes.size)]
    lengths = np.rint(rng.uniform(60.0, 119 * 60.0, size=sizes.size))
    walltime = np.ceil(lengths * rng.uniform(1.0, 5.0, size=sizes.size))
    submit = np.floor(np.cumsum(rng.exponential(mean_interarrival, size=sizes.size)))
    submit -= submit[0]
    ids = tuple(str(k + 1) for k in range(sizes.size))
    return Workload(ids=ids, submit=submit, nodes=sizes, walltime=np.maximum(walltime, lengths), length=lengths,
                    n_nodes=128, name="du2024-table6")


#: the mean length (seconds) and sizes of :func:`scale_workload`'s jobs
SCALE_MEAN_LENGTH = 600.0
SCALE_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)


def scale_workload(jobs: int, n_nodes: int = 1024, seed: Seed = None, *, load: float = 0.8) -> Workload:
    """A large generated workload for measuring the batch simulator at scale (``coschedule bench
    batch``'s scale cases): ``jobs`` jobs of 1 to 64 nodes (powers of two, uniform), lengths
    exponential of mean 10 min in whole seconds (at least 1), wall times 1 to 3 times the length
    rounded up to the minute, submitted as a Poisson process whose rate offers ``load`` of the
    ``n_nodes`` nodes' time; whole seconds everywhere, so that it can be written as SWF. The same
    seed, the same workload.

    >>> w = scale_workload(1000, seed=1)
    >>> w.n, w.n_nodes, int(w.nodes.max()) <= 64
    (1000, 1024, True)
    """
    if jobs < 1 or n_nodes < max(SCALE_SIZES) or not 0 < load:
        raise ValueError(f"scale_workload needs jobs >= 1, n_nodes >= {max(SCALE_SIZES)} and load > 0")
    rng = as_generator(seed)
    sizes = np.asarray(SCALE_SIZES, dtype=np.int64)[rng.integers(0, len(SCALE_SIZES), size=jobs)]
    lengths = np.maximum(1.0, np.ceil(rng.exponential(SCALE_MEAN_LENGTH, size=jobs)))
    walltime = np.ceil(lengths * rng.uniform(1.0, 3.0, size=jobs) / 60.0) * 60.0
    rate = load * n_nodes / (float(np.mean(SCALE_SIZES)) * SCALE_MEAN_LENGTH)  # jobs per second
    submit = np.floor(np.cumsum(rng.exponential(1.0 / rate, size=jobs)))
    ids = tuple(str(k + 1) for k in range(jobs))
    return Workload(ids=ids, submit=submit, nodes=sizes, walltime=walltime, length=lengths, n_nodes=n_nodes,
                    name=f"scale-{jobs}")
