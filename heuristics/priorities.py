"""Job priority rules shared by every list and shelf heuristic ([Benoit2021] §4.2.1, §5.1).

A rule maps an instance (and a random generator, for RANDOM) to one *key* per job; the queue is
ordered by increasing key, ties broken by job index. A failed job is re-inserted with its own
key, so it goes back to the place its priority gives it (among equal keys, by index).

======  ============================================================================
LPT     longest processing time first (key ``-t_j``)
SPT     shortest processing time first (``t_j``)
HPA     highest processor allocation first (``-p_j``)
LPA     lowest processor allocation first (``p_j``)
LA      largest area first (``-a_j``)
SA      smallest area first (``a_j``)
RANDOM  a random order, drawn once per job from the seed (not redrawn after failures)
LJF     large jobs first (Prop. 1): jobs with ``p_j >= (P+1)/2`` first, by decreasing
        ``p_j``; then the small jobs, by decreasing ``t_j`` (LPT; the paper leaves this free)
======  ============================================================================
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from coschedule.errors import unknown_name
from coschedule.rigid import RigidInstance
from coschedule.rng import Seed, as_generator

__all__ = ["PRIORITIES", "PriorityRule", "priority_keys", "priority_order", "is_large"]

PriorityRule = Callable[[RigidInstance, np.random.Generator], np.ndarray]


def is_large(instance: RigidInstance) -> np.ndarray:
    """Large jobs of Prop. 1: ``p_j >= (P + 1) / 2``."""
    return 2 * instance.procs >= instance.P + 1


def _ljf(instance: RigidInstance, rng: np.random.Generator) -> np.ndarray:
    large = is_large(instance)
    # large jobs: key in [-2P, -P) by decreasing procs; small jobs: LPT keys above 0
    t = instance.times
    small_key = 1.0 + (t.max() - t) / max(float(t.max()), 1.0)
    return np.where(large, -2.0 * instance.P + (instance.P - instance.procs), small_key)


PRIORITIES: dict[str, PriorityRule] = {
    "LPT": lambda inst, rng: -inst.times,
    "SPT": lambda inst, rng: inst.times.copy(),
    "HPA": lambda inst, rng: -inst.procs.astype(float),
    "LPA": lambda inst, rng: inst.procs.astype(float),
    "LA": lambda inst, rng: -inst.areas,
    "SA": lambda inst, rng: inst.areas.copy(),
    "RANDOM": lambda inst, rng: rng.permutation(inst.n).astype(float),
    "LJF": _ljf,
}


def priority_keys(instance: RigidInstance, rule: str | PriorityRule, *, seed: Seed = None) -> np.ndarray:
    """One key per job (lower = higher priority) for a rule name or callable."""
    rng = as_generator(seed)
    if callable(rule):
        fn = rule
    else:
        try:
            fn = PRIORITIES[rule.upper()]
        except KeyError:
            raise unknown_name("priority", rule, list(PRIORITIES)) from None
    keys = np.asarray(fn(instance, rng), dtype=float)
    if keys.shape != (instance.n,):
        raise ValueError(f"priority rule returned shape {keys.shape}, expected ({instance.n},)")
    return keys


def priority_order(instance: RigidInstance, rule: str | PriorityRule, *, seed: Seed = None) -> np.ndarray:
    """``rank[j]``: the position of job ``j`` in the queue (0 = head); ties by index."""
    keys = priority_keys(instance, rule, seed=seed)
    order = np.lexsort((np.arange(instance.n), keys))
    rank = np.empty(instance.n, dtype=np.int64)
    rank[order] = np.arange(instance.n)
    return rank
