"""Short reprs for big model objects.

A dataclass repr lists every field, so an instance with thousands of jobs prints pages in a
notebook or a traceback. The model classes print every field while they hold at most
:data:`REPR_MAX_ITEMS` items, and a one-line summary beyond (``RigidInstance(n=2000, P=10000,
name='day-3')``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["REPR_MAX_ITEMS", "full_repr", "summary_repr"]

#: objects with more items (jobs, tasks, executions, packs) than this print a one-line summary
REPR_MAX_ITEMS = 10


def full_repr(obj: Any) -> str:
    """The repr ``@dataclass`` would generate: every field, in order."""
    fields = ", ".join(f"{f.name}={getattr(obj, f.name)!r}" for f in dataclasses.fields(obj) if f.repr)
    return f"{type(obj).__name__}({fields})"


def summary_repr(obj: Any, **items: Any) -> str:
    """``Name(key=value, ...)``: the summary of a big object."""
    return f"{type(obj).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in items.items()) + ")"
