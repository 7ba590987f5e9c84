"""Databases written before the campaign engine ran several simulators stay readable, resumable and
reportable, with the same numbers.

``test_campaign_fixtures/rigid-v1.sqlite`` was written by the campaign code of commit eaa9a75 (the
rigid-only engine) with :func:`fixture_spec` below and ``run_campaign(..., workers=1,
max_cells=10)``: 10 of its 16 cells, with ``keep_makespans``. It is never regenerated: it is the
proof that files of that code keep working.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from coschedule.campaign import CampaignSpec, ResultStore, SyntheticSource, run_campaign, summarize
from coschedule.cli import main

FIXTURE = Path(__file__).parent / "test_campaign_fixtures" / "rigid-v1.sqlite"


def fixture_spec() -> CampaignSpec:
    return CampaignSpec(sources=(SyntheticSource(sets=2, n=8, procs=(1, 40), times=(1.0, 50.0), P=64),),
                        heuristics=("r-list-0", "r-shelffill-b"), priorities=("LPT", "RANDOM"),
                        qbar=(0.0, 0.3), scenarios=12, seed=11, name="rigid-v1", keep_makespans=True)


def _rows(db: Path) -> dict[str, dict]:
    with ResultStore.open(db) as store:
        return {r["id"]: {k: v for k, v in r.items() if k != "seconds"} for r in store.rows(with_arrays=True)}


def _equal(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a)


def _schema(db: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    db = tmp_path / "rigid-v1.sqlite"
    shutil.copyfile(FIXTURE, db)
    return db


def test_old_database_reads(old_db):
    with ResultStore.open(old_db) as store:
        assert store.count() == 10 and store.grid_cells == 16
        assert store.spec_dict["name"] == "rigid-v1" and "simulator" not in store.spec_dict
        rows = list(store.rows(with_arrays=True))
    assert all(r["makespans"].shape == (12,) for r in rows)
    assert len(summarize(rows)) >= 1


def test_old_database_resumes_to_the_numbers_of_a_fresh_run(old_db, tmp_path):
    spec = fixture_spec()
    with sqlite3.connect(old_db) as conn:
        assert dict(conn.execute("SELECT key, value FROM meta"))["digest"] == spec.digest()
    before = _rows(old_db)
    schema = _schema(old_db)
    summary = run_campaign(spec, str(old_db), workers=1)
    assert (summary.skipped, summary.computed) == (10, 6)
    fresh = tmp_path / "fresh.sqlite"
    run_campaign(spec, str(fresh), workers=1)
    after, new = _rows(old_db), _rows(fresh)
    assert after.keys() == new.keys() and len(new) == 16
    assert all(_equal(after[k], new[k]) for k in new)
    assert all(_equal(before[k], new[k]) for k in before)  # the old numbers are today's numbers
    # the file keeps its format: what the old code reads, it still reads
    assert _schema(old_db) == schema
    with sqlite3.connect(old_db) as conn:
        assert dict(conn.execute("SELECT key, value FROM meta"))["version"] == "1"


def test_old_database_reports(old_db, capsys):
    assert main(["report", str(old_db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("campaign rigid-v1: 10 of 16 cells, 12 scenarios each") and "R-List-0" in out
    assert main(["report", str(old_db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["grid_cells"], data["done_cells"], len(data["cells"])) == (16, 10, 10)
