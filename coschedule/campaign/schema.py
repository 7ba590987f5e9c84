"""The ``cells`` table of a simulator's results database: :class:`ResultSchema` (which each
simulator of :mod:`.registry` declares) and the rigid simulator's, :data:`RIGID_SCHEMA` (the
layout :mod:`.store` describes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["COLUMNS", "RIGID_SCHEMA", "ResultSchema"]


#: the scalar columns of ``cells``, in order (the blobs follow)
COLUMNS = (
    "id", "source", "instance", "n", "P", "P_grid", "qbar", "heuristic", "priority", "scenarios",
    "seed", "mean_ratio", "std_ratio", "min_ratio", "max_ratio", "mean_makespan", "mean_lb",
    "mean_failures", "seconds",
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS cells (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL, instance TEXT NOT NULL, n INTEGER NOT NULL,
    P INTEGER NOT NULL, P_grid INTEGER, qbar REAL NOT NULL,
    heuristic TEXT NOT NULL, priority TEXT NOT NULL, scenarios INTEGER NOT NULL, seed TEXT NOT NULL,
    mean_ratio REAL NOT NULL, std_ratio REAL NOT NULL, min_ratio REAL NOT NULL, max_ratio REAL NOT NULL,
    mean_makespan REAL NOT NULL, mean_lb REAL NOT NULL, mean_failures REAL NOT NULL,
    seconds REAL NOT NULL, makespans BLOB, lower_bounds BLOB
);
"""


@dataclass(frozen=True)
class ResultSchema:
    """The ``cells`` table of one simulator's databases.

    ``columns``: the scalar columns in order (CSV, DataFrames); ``create``: the SQL that creates
    the tables; ``json``: columns holding a JSON document, decoded on read (always); ``arrays``:
    float64 blobs, decoded with ``with_arrays``; ``nullable_ints``: integer columns that may be
    NULL (nullable ``Int64`` in DataFrames); ``version``: the ``meta`` version written;
    ``results``: what the result columns mean (``meta`` key ``results``; a database that records
    another is not resumed), ``None`` for the rigid databases, which never recorded one.
    """

    columns: tuple[str, ...]
    create: str
    json: tuple[str, ...] = ()
    arrays: tuple[str, ...] = ()
    nullable_ints: tuple[str, ...] = ()
    version: int = 1
    results: str | None = None

    @classmethod
    def table(cls, columns: tuple[tuple[str, str], ...], **kw: Any) -> ResultSchema:
        """A schema whose ``cells`` table has ``columns`` (``(name, SQL type)``, the first the
        primary key), then the ``json`` columns as TEXT."""
        decl = [f"{name} {kind}" for name, kind in columns] + [f"{name} TEXT NOT NULL" for name in kw.get("json", ())]
        create = ("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);\n"
                  f"CREATE TABLE IF NOT EXISTS cells (\n    {', '.join(decl)}\n);\n")
        return cls(tuple(name for name, _ in columns), create, **kw)


#: the resilient rigid-job simulator's table (the only one before there were several)
RIGID_SCHEMA = ResultSchema(COLUMNS, _SCHEMA, arrays=("makespans", "lower_bounds"), nullable_ints=("P_grid",))
