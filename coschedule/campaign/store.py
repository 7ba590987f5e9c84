"""The results database of a campaign: one SQLite file, one row per completed cell.

Rows are written and committed one by one as cells complete (WAL journal), so a campaign
killed at any moment (Ctrl-C, SIGKILL, power cut) keeps every committed cell and leaves a
consistent file; running it again skips the cells already there. The file also keeps the spec
it was made for (``meta`` table): a different spec is refused before any work.

Tables
------
``meta(key, value)``
    ``format``, ``version``, ``spec`` (canonical JSON), ``digest`` (its SHA-256), ``created``,
    ``cells`` (the number of cells of the grid, so that a report can say how many are missing;
    databases written before it was recorded lack it).
``cells``
    One row per cell: ``id`` (primary key, from the cell's values), ``source``, ``instance``,
    ``n``, ``P`` (the platform size used), ``P_grid`` (the grid's value, NULL for the instance's
    own), ``qbar``, ``heuristic``, ``priority``, ``scenarios``, ``seed`` (the scenario seed, as
    a JSON list), then over the scenarios: ``mean_ratio``, ``std_ratio``, ``min_ratio``,
    ``max_ratio`` (makespan / L(f)), ``mean_makespan``, ``mean_lb`` (mean of L(f)),
    ``mean_failures`` (failures per scenario), ``seconds`` (compute time), and with
    ``keep_makespans`` the arrays ``makespans`` and ``lower_bounds`` (little-endian float64 blobs).

Those are the columns of the rigid simulator (:data:`RIGID_SCHEMA`). A campaign of another
simulator (the spec's ``simulator`` key, e.g. ``"batch"``) has the columns of that simulator's
:class:`ResultSchema`; the store learns which from the spec in ``meta`` (no ``simulator`` key: the
rigid one, as in every file written before there were others). A rigid database is written exactly
as before (``version`` 1, so older coschedule reads it); another simulator's is ``version`` 2, which
older coschedule refuses cleanly, and records in ``results`` what its result columns mean, so that
a database is not resumed by code that computes them differently.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Self

import numpy as np

from ..errors import SolverUnavailable
from .schema import COLUMNS, RIGID_SCHEMA, ResultSchema
from .spec import SPEC_FORMAT, CampaignError, CampaignSpec

__all__ = ["COLUMNS", "DB_FORMAT", "RIGID_SCHEMA", "ResultSchema", "ResultStore", "require_pandas"]

DB_FORMAT = "coschedule/campaign-results"
#: the newest ``version`` this code reads (rigid databases are still written as 1)
DB_VERSION = 2

def simulator_name(spec: dict[str, Any]) -> str:
    """The simulator a stored spec is for (``rigid`` when it does not say)."""
    return str(spec.get("simulator", "rigid"))


def schema_for(spec: dict[str, Any]) -> ResultSchema:
    from coschedule.campaign.registry import get_simulator

    return get_simulator(simulator_name(spec)).schema


class ResultStore:
    """An open results database (use as a context manager)."""

    def __init__(self, path: str | Path, conn: sqlite3.Connection, spec_dict: dict[str, Any],
                 grid_cells: int | None = None):
        self.path = str(path)
        self.conn = conn
        self.spec_dict = spec_dict
        #: cells in the campaign's grid (``None`` if the database does not say)
        self.grid_cells = grid_cells
        #: the simulator of the campaign (``rigid``, ``batch``) and its table
        self.simulator = simulator_name(spec_dict)
        self.schema = schema_for(spec_dict)

    @property
    def columns(self) -> tuple[str, ...]:
        """The scalar columns of ``cells`` (:data:`COLUMNS` for a rigid campaign)."""
        return self.schema.columns

    # ------------------------------------------------------------------------ opening

    @classmethod
    def create_or_resume(cls, path: str | Path, spec: CampaignSpec | Any) -> ResultStore:
        """Open ``path`` for ``spec`` (of any simulator): create it, or resume it if it was made
        for the same spec."""
        p = Path(path)
        existed = p.exists() and p.stat().st_size > 0
        schema = schema_for(spec.to_dict())
        conn = _connect(p)
        grid = spec.n_cells()
        try:
            if existed:
                meta = _meta(conn, p)
                if meta.get("digest") != spec.digest():
                    old = json.loads(meta.get("spec", "{}"))
                    changed = _changed_policy(old, spec.to_dict())
                    if changed:
                        raise CampaignError(f"{p}: {changed}")
                    raise CampaignError(
                        f"{p}: this database was written by a different campaign spec "
                        f"({_difference(old, spec.to_dict())}); use another --db, or delete it to start over"
                    )
                if meta.get("results") != schema.results:
                    raise CampaignError(
                        f"{p}: its result columns are {meta.get('results')!r}, this coschedule computes "
                        f"{schema.results!r}; use another --db (the file stays readable by coschedule report)"
                    )
                if "cells" not in meta:
                    with conn:
                        conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", ("cells", str(grid)))
            else:
                extra = [] if schema.results is None else [("results", schema.results)]
                with conn:
                    conn.executescript(schema.create)
                    conn.executemany(
                        "INSERT OR REPLACE INTO meta VALUES (?, ?)",
                        [("format", DB_FORMAT), ("version", str(schema.version)),
                         ("spec", json.dumps(spec.to_dict(), sort_keys=True)), ("digest", spec.digest()),
                         ("created", time.strftime("%Y-%m-%dT%H:%M:%S%z")), ("cells", str(grid)), *extra],
                    )
        except BaseException:
            conn.close()
            raise
        return cls(p, conn, spec.to_dict(), grid)

    @classmethod
    def open(cls, path: str | Path) -> ResultStore:
        """Open an existing database to read it."""
        p = Path(path)
        if not p.exists():
            raise CampaignError(f"{p}: no such file")
        conn = _connect(p)
        try:
            meta = _meta(conn, p)
        except BaseException:
            conn.close()
            raise
        spec = json.loads(meta["spec"])
        grid = int(meta["cells"]) if meta.get("cells", "").isdigit() else _synthetic_grid(spec)
        try:
            return cls(p, conn, spec, grid)
        except BaseException:
            conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------- writing

    def has(self, cell_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM cells WHERE id = ?", (cell_id,)).fetchone() is not None

    def ids(self) -> Iterator[str]:
        """The ids of the cells already there."""
        for (cell_id,) in self.conn.execute("SELECT id FROM cells"):
            yield cell_id

    def count(self) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0])

    def add(self, row: dict[str, Any]) -> None:
        """Insert one cell's row and commit (a cell already there is left as it is)."""
        sc = self.schema
        names = [*sc.columns, *sc.json, *sc.arrays]
        values = ([row[c] for c in sc.columns] + [json.dumps(row[c], allow_nan=False) for c in sc.json]
                  + [_blob(row.get(c)) for c in sc.arrays])
        with self.conn:
            self.conn.execute(
                f"INSERT OR IGNORE INTO cells ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", values
            )

    # ------------------------------------------------------------------------- reading

    def rows(self, *, with_arrays: bool = False) -> Iterator[dict[str, Any]]:
        """Every cell's row, ordered by id: the scalar columns, the JSON columns decoded, and the
        arrays decoded when asked for."""
        sc = self.schema
        cols = [*sc.columns, *sc.json, *(sc.arrays if with_arrays else ())]
        cur = self.conn.execute(f"SELECT {', '.join(cols)} FROM cells ORDER BY id")
        for rec in cur:
            row = dict(zip(cols, rec))
            for c in sc.json:
                row[c] = json.loads(row[c])
            if with_arrays:
                for c in sc.arrays:
                    row[c] = _unblob(row[c])
            yield row

    def to_dataframe(self, *, with_arrays: bool = False) -> Any:
        """Every cell's row as a :class:`pandas.DataFrame`, one row per cell in id order, the
        columns of :data:`COLUMNS` (``P_grid`` as a nullable integer, ``<NA>`` for the instances'
        own P; ``seed`` as stored, a JSON list), and with ``with_arrays`` the object columns
        ``makespans`` and ``lower_bounds`` (numpy arrays, ``None`` unless the campaign kept them).
        Another simulator's campaign: its scalar columns (:attr:`columns`; its nullable integers
        as ``Int64``), and with ``with_arrays`` its JSON columns as objects.

        Needs pandas (the extra ``pandas``); raises :class:`~coschedule.errors.SolverUnavailable`
        without it.
        """
        pd = require_pandas()
        sc = self.schema
        cols = list(sc.columns) + ([*sc.arrays, *sc.json] if with_arrays else [])
        df = pd.DataFrame.from_records(list(self.rows(with_arrays=with_arrays)), columns=cols)
        for c in sc.nullable_ints:
            df[c] = df[c].astype("Int64")
        return df


def require_pandas() -> Any:
    """The ``pandas`` module, or :class:`~coschedule.errors.SolverUnavailable` naming the extra."""
    try:
        import pandas
    except ImportError as e:
        raise SolverUnavailable(
            f"DataFrames need pandas ({e}); install it with: pip install 'coschedule-hpc[pandas]'"
        ) from None
    return pandas


def _connect(p: Path) -> sqlite3.Connection:
    if p.is_dir():
        raise CampaignError(f"{p}: is a directory, expected a campaign database (a .sqlite file)")
    try:
        conn = sqlite3.connect(str(p), timeout=30.0)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.DatabaseError as e:
        raise CampaignError(f"{p}: not a campaign database ({e})") from None
    return conn


def _meta(conn: sqlite3.Connection, p: Path) -> dict[str, str]:
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        raise CampaignError(f"{p}: not a campaign database (no meta table)") from None
    if meta.get("format") != DB_FORMAT:
        raise CampaignError(f"{p}: not a campaign database (format {meta.get('format')!r})")
    if int(meta.get("version", "0")) > DB_VERSION:
        raise CampaignError(f"{p}: written by a newer coschedule (version {meta.get('version')})")
    spec = json.loads(meta.get("spec", "{}"))
    if spec.get("format") != SPEC_FORMAT:
        raise CampaignError(f"{p}: its spec has format {spec.get('format')!r}")
    return meta


def _synthetic_grid(spec: dict[str, Any]) -> int | None:
    """The grid's size from a stored spec whose sources are all synthetic (their number of sets
    is in the spec); ``None`` otherwise (files and traces would have to be read again)."""
    try:
        sources = spec["sources"]
        if not sources or any(src.get("kind") != "synthetic" for src in sources):
            return None
        instances = sum(int(src["sets"]) for src in sources)
        return (instances * len(spec["heuristics"]) * len(spec["priorities"]) * len(spec["qbar"])
                * max(1, len(spec.get("P") or ())))
    except (KeyError, TypeError, ValueError):
        return None


def _changed_policy(old: dict[str, Any], new: dict[str, Any]) -> str:
    """Why a resume is refused when only a user's policy file changed (its SHA-256 in the spec's
    ``policy_sources``), else ``""``."""
    was, now = old.get("policy_sources") or {}, new.get("policy_sources") or {}
    if was == now or {k: v for k, v in old.items() if k != "policy_sources"} != \
            {k: v for k, v in new.items() if k != "policy_sources"}:
        return ""
    ref = next(r for r in sorted(set(was) | set(now)) if was.get(r) != now.get(r))
    return (f"policy {ref!r} changed since these results were computed (its source's SHA-256 was "
            f"{str(was.get(ref))[:12]}..., now {str(now.get(ref))[:12]}...): resuming would mix two policies; "
            "restore the file, or use another --db")


def _difference(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if k != "name" and old.get(k) != new.get(k)]
    if not keys:
        return "same keys, other values"
    k = keys[0]
    return f"{k}: {json.dumps(old.get(k))} there, {json.dumps(new.get(k))} here"


def _blob(arr: Any) -> bytes | None:
    if arr is None:
        return None
    return np.ascontiguousarray(arr, dtype="<f8").tobytes()


def _unblob(data: bytes | None) -> np.ndarray | None:
    if data is None:
        return None
    return np.frombuffer(data, dtype="<f8").copy()
