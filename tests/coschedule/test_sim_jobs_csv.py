"""Batsim's jobs.csv: our rows are what evalys reads (evalys is a test dependency, a real peer)."""

from __future__ import annotations

import csv

import pytest

from coschedule.errors import InvalidSchedule
from coschedule.sim.jobs_csv import COLUMNS, JobRecord, write_jobs_csv

RECORDS = [
    # submit, start, finish, nodes: J1 on 0-3, J2 waits for it, J3 backfilled on 4-5
    JobRecord("1", 0.0, 4, 10.0, 0.0, 8.0, [0, 1, 2, 3]),
    JobRecord("2", 1.0, 6, 20.0, 8.0, 13.0, range(6)),
    JobRecord("3", 2.0, 2, 5.0, 2.0, 5.0, [4, 5], final_state="COMPLETED_KILLED"),
]


def test_columns_and_derived_values(tmp_path):
    path = tmp_path / "jobs.csv"
    assert write_jobs_csv(RECORDS, path) == 3
    rows = list(csv.DictReader(path.open()))
    assert tuple(rows[0]) == COLUMNS
    r = rows[1]
    assert r["allocated_resources"] == "0-5" and r["success"] == "1"
    assert float(r["waiting_time"]) == 7.0 and float(r["execution_time"]) == 5.0
    assert float(r["turnaround_time"]) == 12.0 and float(r["stretch"]) == pytest.approx(12 / 5)
    assert rows[2]["success"] == "0" and rows[2]["allocated_resources"] == "4-5"


def test_evalys_reads_our_jobs_csv(tmp_path):
    from evalys.jobset import JobSet  # in the test extra: a missing evalys fails, never skips

    path = tmp_path / "jobs.csv"
    write_jobs_csv(RECORDS, path)
    js = JobSet.from_csv(str(path))
    df = js.df.sort_values("jobID")
    assert df["jobID"].astype(str).tolist() == ["1", "2", "3"]
    assert df["proc_alloc"].tolist() == [4, 6, 2]
    assert df["waiting_time"].tolist() == [0.0, 7.0, 0.0]
    assert js.MaxProcs == 6  # nodes 0..5 used
    # evalys' utilisation: 4 nodes on [0, 8), 2 more on [2, 5), 6 on [8, 13), none after
    util = js.utilisation
    assert util.index.tolist() == [0.0, 2.0, 5.0, 8.0, 13.0]
    assert util["load"].tolist() == [4, 6, 4, 6, 0]


def test_bad_records_are_refused():
    with pytest.raises(InvalidSchedule, match="job 9: needs submission <= start <= finish"):
        JobRecord("9", 5.0, 1, 1.0, 4.0, 6.0, [0])
    with pytest.raises(InvalidSchedule, match="final_state 'DONE'"):
        JobRecord("9", 0.0, 1, 1.0, 0.0, 1.0, [0], final_state="DONE")
