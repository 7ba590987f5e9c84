"""Exceptions of the toolkit.

Every message names the item and the offending value, so that the CLI can print it
on one line (``coschedule: error: <message>``) and exit with status 2.
"""

from __future__ import annotations

__all__ = [
    "CoscheduleError",
    "InvalidInstance",
    "InvalidSchedule",
    "FormatError",
    "SolverUnavailable",
    "UnknownName",
]


class CoscheduleError(Exception):
    """Base class of every error the toolkit raises on purpose."""


class InvalidInstance(CoscheduleError, ValueError):
    """An instance violates the model's invariants (e.g. ``task 3: time increases at j=5``)."""


class InvalidSchedule(CoscheduleError, ValueError):
    """A schedule fails validation; the message says which constraint and where."""


class FormatError(CoscheduleError, ValueError):
    """A file cannot be read: malformed JSON, wrong ``format`` or ``version``, missing field."""


class SolverUnavailable(CoscheduleError, RuntimeError):
    """An optional backend (HiGHS, rustworkx, ...) is not installed, or cannot take this model."""


class UnknownName(CoscheduleError, ValueError):
    """A name (solver, heuristic, method, ...) is not in its registry; the message lists the valid ones."""


def unknown_name(kind: str, name: str, valid: "list[str] | tuple[str, ...]") -> UnknownName:
    """Build the standard error for a name missing from a registry."""
    return UnknownName(f"unknown {kind} {name!r}; valid: {', '.join(sorted(valid))}")
