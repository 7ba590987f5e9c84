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

Your own rule
-------------
Wherever a rule name is taken (``priority=`` of every rigid heuristic, ``coschedule run ...
--priority``), a rule of your own may be named ``path/to/file.py:function``,
``package.module:function`` or by an installed package's entry point in
``coschedule.policies.priority`` (:mod:`coschedule.plugins`, docs/own-policy.md). It is a
function ``rule(instance, rng) -> keys``: ``instance`` the
:class:`~coschedule.rigid.RigidInstance` (``n``, ``P``, ``times``, ``procs``, ``areas``),
``rng`` a :class:`numpy.random.Generator` from the run's seed, ``keys`` one finite number per
job (lower runs first; ties by job index). It is called once per run, before the first job
starts; an exception, keys of the wrong shape or a key that is not a finite number is a
one-line :class:`~coschedule.errors.PolicyError` naming it. A built-in name wins over a
registered one; a :class:`~coschedule.plugins.PolicySource` (resolved elsewhere, e.g. with a
campaign's folder as its base) is taken as well.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from coschedule import plugins
from coschedule.errors import InvalidInstance, PolicyError, unknown_name
from coschedule.rigid import RigidInstance
from coschedule.rng import Seed, as_generator

__all__ = ["PRIORITIES", "PriorityRule", "is_large", "priority_keys", "priority_order", "priority_source"]

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


def priority_source(rule: object) -> plugins.PolicySource | None:
    """``rule`` as a user's rule (:func:`coschedule.plugins.resolve`, kind ``priority``), None
    for a built-in name (or an unknown one, or a callable)."""
    if isinstance(rule, plugins.PolicySource):
        return rule
    if not isinstance(rule, str) or rule.upper() in PRIORITIES:
        return None
    return plugins.resolve(rule, "priority")


def priority_keys(instance: RigidInstance, rule: str | PriorityRule | plugins.PolicySource, *,
                  seed: Seed = None) -> np.ndarray:
    """One key per job (lower = higher priority) for a rule name, a user's rule (module
    docstring, "Your own rule") or a callable."""
    rng = as_generator(seed)
    src = priority_source(rule)
    if src is not None:
        return _user_keys(src, instance, rng)
    if callable(rule):
        fn = rule
    else:
        try:
            fn = PRIORITIES[str(rule).upper()]
        except KeyError:
            err = unknown_name("priority", str(rule), list(PRIORITIES))
            raise type(err)(f"{err}; or your own: FILE.py:FUNCTION, MODULE:FUNCTION (coschedule policies)") from None
    keys = np.asarray(fn(instance, rng), dtype=float)
    if keys.shape != (instance.n,):
        raise ValueError(f"priority rule returned shape {keys.shape}, expected ({instance.n},)")
    return keys


def _user_keys(src: plugins.PolicySource, instance: RigidInstance, rng: np.random.Generator) -> np.ndarray:
    fn = plugins.load(src)
    if not callable(fn):
        raise InvalidInstance(f"policy {src.ref!r}: {src.attr!r} is not a function (it is a {type(fn).__name__}); "
                              "a priority rule is rule(instance, rng) -> one key per job")
    try:
        raw = fn(instance, rng)
    except Exception as e:
        raise plugins.raised(src, e, during=f"its keys of {instance.name or 'the instance'}") from e
    try:
        keys = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise PolicyError(f"policy {src.ref!r}: returned {type(raw).__name__}, not numbers: a priority rule "
                          f"returns one key per job ({instance.n})") from None
    if keys.shape != (instance.n,):
        raise PolicyError(f"policy {src.ref!r}: returned keys of shape {keys.shape}, expected one per job: "
                          f"({instance.n},)")
    bad = np.flatnonzero(~np.isfinite(keys))
    if bad.size:
        j = int(bad[0])
        raise PolicyError(f"policy {src.ref!r}: the key of job {j} (0-based) is {float(keys[j])!r}, not a finite number")
    return keys


def priority_order(instance: RigidInstance, rule: str | PriorityRule | plugins.PolicySource, *,
                   seed: Seed = None) -> np.ndarray:
    """``rank[j]``: the position of job ``j`` in the queue (0 = head); ties by index."""
    keys = priority_keys(instance, rule, seed=seed)
    order = np.lexsort((np.arange(instance.n), keys))
    rank = np.empty(instance.n, dtype=np.int64)
    rank[order] = np.arange(instance.n)
    return rank
