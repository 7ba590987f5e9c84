"""Durations as people write and read them.

Every option of the command line that takes a duration (an MTBF, a downtime, a checkpoint or
recovery cost, a time limit, a window) reads it with :func:`seconds`: a plain number is seconds
(``300``, ``2.5e6``), or a number with a unit (``5min``, ``1h``, ``7d``, ``5y``); tables print
durations with :func:`format_duration` in the largest unit that keeps the number at least 1
(``5.61 y`` rather than ``1.76947e+08``). JSON keeps seconds.

A year is 365 days (the unit of the redistribution paper's processor MTBFs, "100 years"), a
day 86,400 s.
"""

from __future__ import annotations

import math
import re

__all__ = ["MAX_TIME", "UNITS", "format_duration", "format_seconds", "seconds"]

#: the latest time, and the longest duration, the simulators take, in seconds (31.7 million
#: years): past it a float no longer holds a second exactly, and a run would not end
MAX_TIME = 1e15

#: unit -> seconds, in the order :func:`format_duration` tries them (largest first)
UNITS: dict[str, float] = {"y": 365 * 86400.0, "w": 7 * 86400.0, "d": 86400.0, "h": 3600.0, "min": 60.0,
                           "s": 1.0}

#: other spellings a reader may type
_SPELLINGS = {"yr": "y", "year": "y", "years": "y", "wk": "w", "week": "w", "weeks": "w", "day": "d",
              "days": "d", "hr": "h", "hour": "h", "hours": "h", "m": "min", "mn": "min", "mins": "min",
              "minute": "min", "minutes": "min", "sec": "s", "secs": "s", "second": "s", "seconds": "s"}

_DURATION = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]*)\s*$")

#: what an error says a duration is
FORMS = "a number of seconds, or a number with a unit s, min, h, d, w, y (e.g. 300, 5min, 1h, 7d, 5y)"


def seconds(text: str | float) -> float:
    """The duration ``text`` in seconds: ``"300"`` -> 300.0, ``"5min"`` -> 300.0, ``"1.5h"`` ->
    5400.0, ``"7d"``, ``"5y"`` (years of 365 days); ``inf`` is infinite. A number passes through.

    >>> seconds("300"), seconds("5min"), seconds("1h"), seconds("2d"), seconds("1y") / 86400
    (300.0, 300.0, 3600.0, 172800.0, 365.0)

    Raises ``ValueError`` naming the text and the forms accepted (``5parsecs``, ``1 h 30``)."""
    if isinstance(text, (int, float)):
        return float(text)
    if text.strip().lower() in ("inf", "+inf", "infinity"):
        return math.inf
    m = _DURATION.match(text)
    unit = (m.group(2).lower() if m else "") or "s"
    unit = _SPELLINGS.get(unit, unit)
    if m is None or unit not in UNITS:
        raise ValueError(f"{text!r} is not a duration: {FORMS}")
    return float(m.group(1)) * UNITS[unit]


def format_duration(value: float, digits: int = 3) -> str:
    """``value`` seconds in the largest unit that keeps the number at least 1, with ``digits``
    significant digits: ``format_duration(1.76947e8)`` is ``'5.61 y'``, ``3600`` is ``'1 h'``,
    ``300`` is ``'5 min'``, ``42`` is ``'42 s'``; ``inf`` is ``'inf'``.

    >>> format_duration(176947200.0), format_duration(3600), format_duration(300), format_duration(0.5)
    ('5.61 y', '1 h', '5 min', '0.5 s')
    """
    if math.isinf(value) or math.isnan(value):
        return str(value)
    for unit, size in UNITS.items():
        if unit == "w":  # weeks are for typing; tables read days
            continue
        if abs(value) >= size or unit == "s":
            return f"{value / size:.{digits}g} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover


def format_seconds(value: float) -> str:
    """A duration in seconds as a person reads it, the exact seconds beside a larger unit:
    ``300 s``, ``57.9 d (5,000,000 s)``.

    >>> format_seconds(42), format_seconds(5e6)
    ('42 s', '57.9 d (5,000,000 s)')
    """
    readable = format_duration(value)
    return f"{value:,.10g} s" if readable.endswith(" s") else f"{readable} ({value:,.10g} s)"
