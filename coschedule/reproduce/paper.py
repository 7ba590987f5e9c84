"""What one paper's reproduction is: its campaigns (full and quick), its figures, its claims.

Each paper has one module in :mod:`coschedule.reproduce.papers` that defines ``PAPER``, a
:class:`Paper`; :mod:`coschedule.reproduce.registry` finds them by their ``key``
(``coschedule reproduce --list``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .claims import Claim

if TYPE_CHECKING:
    from .results import Results

__all__ = ["Campaign", "Figure", "Paper"]


@dataclass(frozen=True)
class Campaign:
    """A bundled campaign spec the reproduction runs (``name``: ``campaigns/NAME.toml``), and the
    changes to its TOML keys that make the quick run's reduced grid (``quick``: key -> value;
    empty: the quick run runs the full spec)."""

    name: str
    quick: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Figure:
    """A figure of the paper, redrawn: ``key`` (a file name: ``fig1-4``), ``title`` (the paper's
    caption, shortened), ``campaigns`` it reads, ``draw(results)`` a matplotlib figure in the
    paper's layout."""

    key: str
    title: str
    campaigns: tuple[str, ...]
    draw: Callable[[Results], Any]


@dataclass(frozen=True)
class Paper:
    """One paper's reproduction.

    ``key`` the name ``coschedule reproduce`` takes (``aupy2017``); ``cite`` its reference key
    (``[Aupy2017]``); ``title``; ``section`` the experimental section reproduced; ``doc`` the
    documentation page of the reproduction; ``campaigns``, ``figures``, ``claims``; ``full_wall``
    the measured wall time of the full run on 2 cores, as ``--help`` and the report state it;
    ``quick_note`` what the quick run reduces."""

    key: str
    cite: str
    title: str
    section: str
    doc: str
    campaigns: tuple[Campaign, ...]
    figures: tuple[Figure, ...]
    claims: tuple[Claim, ...]
    full_wall: str
    quick_note: str

    def __post_init__(self) -> None:
        keys = [c.key for c in self.claims]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.key}: claim keys must be unique")
        names = {c.name for c in self.campaigns}
        figures = {f.key for f in self.figures}
        for c in self.claims:
            if not set(c.campaigns) <= names:
                raise ValueError(f"{self.key}: claim {c.key} reads a campaign the paper does not run")
            if c.figure is not None and c.figure not in figures:
                raise ValueError(f"{self.key}: claim {c.key} names an unknown figure {c.figure!r}")
        for f in self.figures:
            if not set(f.campaigns) <= names:
                raise ValueError(f"{self.key}: figure {f.key} reads a campaign the paper does not run")
