"""Exceptions of the toolkit.

Every message names the item and the offending value, so that the CLI can print it
on one line (``coschedule: error: <message>``) and exit with status 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "CampaignError",
    "CoscheduleError",
    "InvalidInstance",
    "InvalidSchedule",
    "PolicyError",
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


class PolicyError(CoscheduleError, RuntimeError):
    """A policy broke a rule of the simulation engine (a start on a down or busy node, before the
    job's submission, ...) or raised: the message names the policy, the time, the job and the rule."""


class FormatError(CoscheduleError, ValueError):
    """A file cannot be read: malformed JSON, wrong ``format`` or ``version``, missing field."""


class SolverUnavailable(CoscheduleError, RuntimeError):
    """An optional backend (HiGHS, rustworkx, ...) is not installed, or cannot take this model."""


class CampaignError(CoscheduleError, ValueError):
    """A campaign cannot start: bad spec, unreadable source, a database of another spec (defined
    here, not in :mod:`coschedule.campaign`, so that the command line reports it without importing
    the campaign engine; :mod:`coschedule.campaign` exports it too)."""


class UnknownName(CoscheduleError, ValueError):
    """A name (solver, heuristic, method, ...) is not in its registry; the message lists the valid ones."""


def unknown_name(kind: str, name: str, valid: "Iterable[str]", *, context: str = "") -> UnknownName:
    """Build the standard error for a name missing from a registry.

    The message suggests the closest valid name when the given one looks like a typo:

    >>> print(unknown_name("heuristic", "pak-approx", ["pack-approx", "one-pack"]))
    unknown heuristic 'pak-approx' (did you mean 'pack-approx'?); valid: one-pack, pack-approx
    """
    names = sorted(set(valid))
    lowered = {v.lower(): v for v in names}
    close = difflib.get_close_matches(str(name).lower(), list(lowered), n=1, cutoff=0.6)
    hint = f" (did you mean {lowered[close[0]]!r}?)" if close else ""
    where = f" {context}" if context else ""
    return UnknownName(f"unknown {kind} {name!r}{where}{hint}; valid: {', '.join(names)}")
