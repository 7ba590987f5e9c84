"""Failure logs for the torus: a given number of failures over a log's period ([Oliner2004]
§6.2), clustered in time and space (:func:`clustered_failures`, the default) or uniform
(:func:`~coschedule.sim.failures.uniform_failures`).

The paper scaled one real year-long trace of 350 nodes to the same number of failures per node
and per day, a trace with "many instances of multiple failure events, simultaneously reported
from different nodes" (§7.1), where a burst hitting one partition costs its job once. That trace
is not public. The clustered default imitates it: bursts of simultaneous failures on
neighbouring nodes. Uniform failures are the other reading of "K failures over the period"; on
the shipped NASA log, 4,000 of them (one every 33 minutes on 128 units) keep killing the long
jobs, which restart from scratch (§6.1), and the queue runs away (a mean wait of a month); the
same count in bursts of four hits about a thousand times, close to the paper's regime.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import InvalidInstance, unknown_name
from ..rng import Seed, as_generator
from ..sim.failures import FailureTrace, uniform_failures
from .geometry import check_dims

__all__ = ["FAILURE_MODELS", "clustered_failures", "count_failures"]

#: the ways :func:`count_failures` spreads its failures
FAILURE_MODELS = ("clustered", "uniform")


#: the most failures a run draws: past it the trace alone would fill memory, and the run not end
MAX_FAILURES = 10_000_000


def clustered_failures(dims: Sequence[int], count: int, *, start: float, end: float, seed: Seed = None,
                       burst: float = 4.0, spread: float = 0.0) -> FailureTrace:
    """Exactly ``count`` failures in bursts: each burst has ``1 + Poisson(burst - 1)`` failures
    (mean ``burst``; the last one cut to the count), starts at a uniform time of ``[start,
    end)`` on a uniform node, and its other failures strike distinct other nodes of the
    ``3×3×3`` neighbourhood of the first (wrapping; drawn without replacement, so a burst is at
    most that neighbourhood), at the same instant by default ("simultaneously reported from different nodes", §7.1: a job hit by a
    burst is lost once), or, with ``spread > 0``, after exponential delays of mean ``spread``
    seconds, kept inside the period."""
    X, Y, Z = check_dims(dims)
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise InvalidInstance(f"failure count must be an integer >= 0, got {count!r}")
    if not (math.isfinite(start) and math.isfinite(end) and 0 <= start <= end):
        raise InvalidInstance(f"failure period must be finite with 0 <= start <= end, got [{start!r}, {end!r})")
    if not (burst >= 1 and math.isfinite(burst)) or not (spread >= 0 and math.isfinite(spread)):
        raise InvalidInstance(f"burst must be >= 1 and spread >= 0, got {burst!r} and {spread!r}")
    rng = as_generator(seed)
    times: list[float] = []
    nodes: list[int] = []
    last = np.nextafter(end, -math.inf) if end > start else start
    while len(times) < count:
        k = min(1 + int(rng.poisson(burst - 1.0)), count - len(times))
        t0 = float(rng.uniform(start, end)) if end > start else float(start)
        ci, cj, ck = int(rng.integers(X)), int(rng.integers(Y)), int(rng.integers(Z))
        times.append(t0)
        nodes.append((ci * Y + cj) * Z + ck)
        t = t0
        hood = sorted({(((ci + a) % X) * Y + (cj + b) % Y) * Z + (ck + c) % Z
                       for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1)} - {nodes[-1]})
        others: list[int] = rng.permutation(len(hood))[:k - 1].tolist() if hood else []
        k = 1 + len(others)  # a burst on a tiny torus has at most its distinct neighbours
        for m in others:
            t = min(t + float(rng.exponential(spread)) if spread > 0 else t, float(last))
            times.append(t)
            nodes.append(hood[int(m)])
    return FailureTrace(np.array(times), np.array(nodes, dtype=np.int64), X * Y * Z)


def count_failures(dims: Sequence[int], count: int, *, start: float, end: float, seed: Seed = None,
                   model: str = "clustered") -> FailureTrace:
    """``count`` failures on ``[start, end)``, ``model`` ``"clustered"`` (default) or
    ``"uniform"`` (module docstring); at most :data:`MAX_FAILURES`."""
    if count > MAX_FAILURES:
        raise InvalidInstance(f"failure count {count:,} is more than {MAX_FAILURES:,} (the paper draws 1,000 to "
                              "10,000 over a log; each failure is an event the simulation replays)")
    if model == "uniform":
        return uniform_failures(math.prod(check_dims(dims)), count, start=start, end=end, seed=seed)
    if model == "clustered":
        return clustered_failures(dims, count, start=start, end=end, seed=seed)
    raise unknown_name("failure model", str(model), FAILURE_MODELS)
