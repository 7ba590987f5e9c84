"""The one place where seeds become random generators."""

from __future__ import annotations

import numpy as np

__all__ = ["as_generator", "Seed"]

Seed = int | np.random.Generator | None


def as_generator(seed: Seed) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``seed``.

    An ``int`` (or ``None``) seeds a fresh PCG64 generator, so the same integer gives the same
    numbers on every machine; a ``Generator`` is returned as is, so that callers can share one
    stream.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise TypeError(f"seed must be an int, a numpy Generator or None, not {seed!r}")
    return np.random.default_rng(seed)
