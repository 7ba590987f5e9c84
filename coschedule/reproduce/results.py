"""The campaign results a reproduction's claims and figures read.

:class:`Results` opens each campaign's SQLite database once and keeps its rows; ``groups(name)``
is the simulator's own summary (``coschedule report``'s tables), so a claim reads the numbers a
user sees in the report of the same database.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["Results"]


class Results:
    """The rows of each campaign of a reproduction, by the campaign's name (its bundled spec)."""

    def __init__(self, databases: dict[str, Path], *, quick: bool = False) -> None:
        self.databases = dict(databases)
        self.quick = quick
        self._rows: dict[str, list[dict[str, Any]]] = {}
        self._groups: dict[str, list[Any]] = {}
        self._simulator: dict[str, str] = {}

    @classmethod
    def of_rows(cls, rows: dict[str, list[dict[str, Any]]], simulators: dict[str, str], *,
                quick: bool = False) -> Results:
        """Results held in memory: ``rows`` and the ``simulators`` (``rigid``, ``batch``, ``torus``,
        ``redistrib``) by campaign name (for tests of a claim's computation on hand-made rows)."""
        out = cls({}, quick=quick)
        out._rows = {k: list(v) for k, v in rows.items()}
        out._simulator = dict(simulators)
        return out

    def rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every stored row of ``campaign``."""
        if campaign not in self._rows:
            from coschedule.campaign import ResultStore

            if campaign not in self.databases:  # pragma: no cover - a paper reads only its campaigns
                raise KeyError(f"campaign {campaign} is not among this reproduction's results")
            with ResultStore.open(self.databases[campaign]) as store:
                self._rows[campaign] = list(store.rows())
                self._simulator[campaign] = store.simulator
        return self._rows[campaign]

    def simulator(self, campaign: str) -> str:
        self.rows(campaign)
        return self._simulator[campaign]

    def groups(self, campaign: str) -> list[Any]:
        """The simulator's summary groups of ``campaign`` (``coschedule report``'s)."""
        if campaign not in self._groups:
            from coschedule.campaign.registry import get_simulator

            self._groups[campaign] = get_simulator(self.simulator(campaign)).summarize(self.rows(campaign))
        return self._groups[campaign]
