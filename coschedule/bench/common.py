"""What every benchmark of ``coschedule bench`` shares: a comparison it cannot make is printed as
:data:`NOT_MEASURED`, never estimated."""

from __future__ import annotations

__all__ = ["NOT_MEASURED"]


#: what a benchmark prints for a comparison it did not make
NOT_MEASURED = "not measured"
