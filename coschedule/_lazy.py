"""Lazy package attributes (PEP 562): a package names what it exports and from which module, and
each module is imported the first time one of its names is read. ``import coschedule`` and ``import
coschedule.sim`` then cost what their light parts cost, so that ``coschedule --help`` does not
import numpy, numba and the simulation core only to print a help text (docs/benchmarks.md,
"Start-up"). ``from coschedule.sim import summarize`` works as before, and so does ``dir()``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["attach", "built_on_first_read"]


def attach(package: str, exports: Mapping[str, Iterable[str]]
           ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps a module (relative, such as
    ``".model"``) to the names it gives the package."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(importlib.import_module(package), name, value)  # the next read is a plain lookup
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(importlib.import_module(package))) | set(where))

    return __getattr__, __dir__


def built_on_first_read(package: str, name: str, build: Callable[[], Any]) -> Callable[[str], Any]:
    """``__getattr__`` for ``package`` whose attribute ``name`` is ``build()``, called the first
    time it is read (a campaign simulator's ``SIMULATOR``: its adapter and report modules are
    imported then, not when the registry lists the simulators)."""

    def __getattr__(attr: str) -> Any:
        if attr != name:
            raise AttributeError(f"module {package!r} has no attribute {attr!r}")
        value = build()
        setattr(importlib.import_module(package), name, value)  # the next read is a plain lookup
        return value

    return __getattr__
