"""jobs.csv written from node intervals (coschedule.sim.jobs_csv.records_of: the rows from the
run's columns, node sets as intervals) is byte for byte the file the former writer made (one
JobRecord per attempt, its node tuple formatted id by id: reference_rows below, its code before
issue 22), on slices of every bundled trace with failures and node stealing, and on random runs
from the kernel and from the reference event loop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from test_sim_validate_vs_reference import runs  # the random runs of the validator's comparison

from coschedule.data import traces_dir
from coschedule.heuristics.batch.run import run_batch
from coschedule.sim.jobs_csv import JobRecord, write_jobs_csv
from coschedule.sim.metrics import job_records
from coschedule.sim.result import SimulationResult
from coschedule.sim.workload import Workload, workload_from_swf
from coschedule.swf import read_swf

_STATE = {"completed": "COMPLETED_SUCCESSFULLY", "failed": "COMPLETED_KILLED",
          "interrupted": "COMPLETED_KILLED", "checkpointed": "COMPLETED_KILLED", "migrated": "COMPLETED_KILLED"}


def reference_rows(result: SimulationResult) -> list[JobRecord]:
    """coschedule.sim.metrics.job_records as it was, on node tuples."""
    wl = result.workload
    name = wl.name or "w0"
    by_job: dict[int, list] = {}
    for a in result.attempts:
        by_job.setdefault(a.job, []).append(a)
    records = []
    for j in sorted(by_job):
        previous_end = float(wl.submit[j])
        for a in sorted(by_job[j], key=lambda a: a.index):
            job_id = wl.ids[j] if a.index == 0 else f"{wl.ids[j]}#{a.index}"
            records.append(JobRecord(
                job_id=job_id, submission_time=previous_end, requested_nodes=int(wl.nodes[j]),
                requested_time=float(a.recovery + result.walltime[j] - a.saved_before),
                starting_time=float(a.start), finish_time=float(a.end), nodes=tuple(a.nodes),
                final_state=_STATE[a.outcome], workload_name=name, metadata=a.outcome,
            ))
            previous_end = float(a.end)
    return records


def same_file(result: SimulationResult, tmp_path) -> None:
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    assert write_jobs_csv(reference_rows(result), old) == write_jobs_csv(job_records(result), new)
    assert old.read_bytes() == new.read_bytes()
    assert [r.row() for r in job_records(result)] == [r.row() for r in reference_rows(result)]


@pytest.mark.parametrize("trace", sorted(p.name.removesuffix(".swf.gz") for p in traces_dir().glob("*.swf.gz")))
@pytest.mark.parametrize("policy", ["easy", "conservative", "sfsj"])
def test_bundled_traces_byte_for_byte(trace, policy, tmp_path):
    """The first 800 jobs of each bundled trace, failures of a platform MTBF of a day, D = 1 h,
    C = 5 min."""
    w = workload_from_swf(read_swf(traces_dir() / f"{trace}.swf.gz"))
    k = min(800, w.n)
    head = Workload(w.ids[:k], w.submit[:k], w.nodes[:k], w.walltime[:k], w.length[:k], w.n_nodes, name=w.name)
    result = run_batch(head, policy, node_mtbf=head.n_nodes * 86400.0, seed=2, downtime=3600.0,
                       checkpoint_cost=300.0)
    assert any(a.outcome != "completed" for a in result.attempts)
    same_file(result, tmp_path)


@given(run=runs())
def test_random_runs_byte_for_byte(run, tmp_path_factory):
    result, _ = run
    same_file(result, tmp_path_factory.mktemp("csv"))


def test_a_run_the_records_refuse_is_refused_the_same_way(tmp_path):
    """A start before the attempt's submission: the rows from columns give way to the records,
    which raise."""
    import dataclasses

    from coschedule.errors import InvalidSchedule

    w = Workload(("A",), [5.0], [1], [10.0], [4.0], 2)
    result = run_batch(w, "easy")
    bad = dataclasses.replace(result, attempts=(dataclasses.replace(result.attempts[0], start=4.0, end=8.0),))
    with pytest.raises(InvalidSchedule, match="needs submission <= start <= finish"):
        write_jobs_csv(job_records(bad), tmp_path / "x.csv")
    assert np.isclose(result.attempts[0].start, 5.0)


def test_ids_that_csv_quotes(tmp_path):
    """Job ids or a workload name with a comma, a quote or a line end: the rows go through csv,
    which quotes them, as before."""
    for ids, name in ((("a,b", 'say "x"', "c"), "w"), (("1", "2", "3"), "a,b"), (("1", "2\n", "3"), "w")):
        w = Workload(ids, [0.0, 1.0, 2.0], [1, 2, 1], [10.0, 10.0, 10.0], [5.0, 6.0, 7.0], 2, name=name)
        result = run_batch(w, "easy")
        same_file(result, tmp_path)
        assert job_records(result).text() is None


@pytest.mark.parametrize("at_once", [1, 7])
def test_rows_made_a_chunk_at_a_time_give_the_same_file(at_once, tmp_path, monkeypatch):
    """A run's rows are made ROWS_AT_ONCE at a time (memory at a million attempts); cut in
    chunks of 1 or 7 rows, the file is the same, through both the f-string and the csv paths."""
    from coschedule.sim import jobs_csv

    w = Workload(tuple(str(k) for k in range(20)), np.arange(20.0), np.tile([1, 2, 1, 3], 5), np.full(20, 30.0),
                 np.full(20, 12.0), 4)
    result = run_batch(w, "easy", node_mtbf=200.0, seed=3, checkpoint_cost=1.0)
    whole = tmp_path / "whole.csv"
    write_jobs_csv(job_records(result), whole)
    monkeypatch.setattr(jobs_csv, "ROWS_AT_ONCE", at_once)
    same_file(result, tmp_path)
    assert (tmp_path / "new.csv").read_bytes() == whole.read_bytes()
    quoted = run_batch(Workload(tuple(f"j,{k}" for k in range(20)), w.submit, w.nodes, w.walltime, w.length, 4),
                       "easy")
    assert job_records(quoted).text() is None  # the csv path, chunked too
    same_file(quoted, tmp_path)
