"""Node sets as interval strings, the notation of Batsim's ``jobs.csv`` and of procset/evalys.

``"0-3 7 10-12"`` is the nodes 0, 1, 2, 3, 7, 10, 11, 12: space-separated intervals ``a-b``
(``a <= b``) or single nodes, in increasing order, maximal (adjacent intervals are merged), with
0-based node indices. The empty set is ``""``.

>>> format_nodes([7, 0, 1, 2, 3, 11, 10, 12])
'0-3 7 10-12'
>>> parse_nodes("0-3 7")
[0, 1, 2, 3, 7]
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import FormatError

__all__ = ["format_nodes", "parse_nodes"]


def format_nodes(nodes: Iterable[int]) -> str:
    """The interval string of a set of node indices (duplicates ignored; order irrelevant)."""
    values = sorted({int(x) for x in nodes})
    if values and values[0] < 0:
        raise ValueError(f"node indices must be >= 0, got {values[0]}")
    parts: list[str] = []
    k = 0
    while k < len(values):
        start = values[k]
        while k + 1 < len(values) and values[k + 1] == values[k] + 1:
            k += 1
        parts.append(str(start) if values[k] == start else f"{start}-{values[k]}")
        k += 1
    return " ".join(parts)


def parse_nodes(text: str, *, where: str = "node set") -> list[int]:
    """The sorted node indices of an interval string; accepts any order and overlaps (as procset
    does) and reports a malformed token with ``where``."""
    out: set[int] = set()
    for token in text.split():
        a, dash, b = token.partition("-")
        try:
            lo = int(a)
            hi = int(b) if dash else lo
        except ValueError:
            raise FormatError(f"{where}: {token!r} is not a node index or an interval a-b") from None
        if lo < 0 or hi < lo or not a.isdigit() or (dash and not b.isdigit()):
            raise FormatError(f"{where}: {token!r} is not a node index or an interval a-b with 0 <= a <= b")
        out.update(range(lo, hi + 1))
    return sorted(out)
