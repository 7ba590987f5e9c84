"""numba for the fast kernels, when it is installed: ``njit`` (a stand-in without numba) and
:data:`HAVE_NUMBA`."""

from __future__ import annotations

from typing import Any

__all__ = ["HAVE_NUMBA", "njit"]

try:  # optional: without numba, makespans() falls back to the reference implementation
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_NUMBA = False

    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """Stand-in for ``numba.njit``: the kernels stay plain (unused) Python functions."""
        if args and callable(args[0]):
            return args[0]
        return lambda fn: fn
