"""``coschedule batch``: the §3 toy example of [Du2024] through the command line, the policies,
drawn failures replayed from the file they were written to, checkpointing options, jobs.csv,
the Gantt chart, ``convert --to batsim``, and a one-line error (exit 2) for each bad input."""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from coschedule.cli import main
from coschedule.sim import read_batsim, workload_from_swf
from coschedule.swf import read_swf

ROOT = Path(__file__).resolve().parents[2]
TOY = str(ROOT / "instances" / "batch" / "toy.json")
TOY_FAILURES = str(ROOT / "instances" / "batch" / "toy-failures.csv")
TOY_RUN = ["batch", TOY, "--policy", "conservative", "--failures", TOY_FAILURES, "--downtime", "5"]

# job 3 never ran (run time 0): dropped; no MaxProcs, so the machine size is MaxNodes
SWF = """; Version: 2.2
; MaxNodes: 8
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 10 0 70 4 -1 -1 4 60 -1 0 1 1 1 1 -1 -1 -1
3 20 0 0 1 -1 -1 1 60 -1 5 1 1 1 1 -1 -1 -1
4 30 0 50 8 -1 -1 8 60 -1 1 1 1 1 1 -1 -1 -1
5 40 0 30 3 -1 -1 3 -1 -1 1 1 1 1 1 -1 -1 -1
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def fails(capsys, *argv) -> str:
    """The one-line error of a command that must exit 2."""
    try:
        code, _, err = run(capsys, *argv)
    except SystemExit as e:
        code, err = e.code, capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def swf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.swf.gz"
    path.write_bytes(gzip.compress(SWF.encode()))
    return path


# ---------------------------------------------------------------- the toy example (§3, Table 1)


def test_toy_example_gives_table_1(capsys):
    """Flows without node stealing: 8, 5, 15, 25, 3; mean 11.2, weighted mean 256/15 ("17")."""
    code, out, err = run(capsys, *TOY_RUN)
    # nothing on stderr, but when this run is the first the line saying the kernels compile and the
    # progress of the step they lengthen ("coschedule batch: simulating ...: 5 s so far")
    assert code == 0 and [x for x in err.splitlines()
                          if not x.startswith("coschedule: compiling")
                          and not (x.startswith("coschedule batch: simulating ") and x.endswith(" s so far"))] == []
    lines = out.splitlines()
    assert lines[0] == (f"workload toy: 5 jobs on 8 nodes; failures from {TOY_FAILURES}, downtime 5 s; "
                        "no checkpointing")
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:7]}
    assert {j: float(r[4]) for j, r in rows.items()} == {"J1": 8, "J2": 5, "J3": 15, "J4": 25, "J5": 3}
    assert rows["J3"][-1] == "2" and rows["J5"][2] == "1"  # J3 ran twice; J5 backfilled at t = 1
    assert lines[7] == "makespan 25 s"
    # then the metrics' table (coschedule.sim.metrics.Summary.table), all jobs kept by default
    assert lines[8] == "policy conservative, 8 nodes, 5 jobs, 5 kept (no pruning), Γ = 10 s"
    assert lines[10].split() == ["all", "5", "25.00", "11.20", "17.07"]
    assert lines[-1].startswith("failures: 1 applied, 1 hit a job, 1 restarts;")


def test_toy_example_json(capsys):
    data = run_json(capsys, *TOY_RUN)
    assert data["flows"] == {"J1": 8.0, "J2": 5.0, "J3": 15.0, "J4": 25.0, "J5": 3.0}
    s = data["summary"]
    assert s["flow"]["mean"] == pytest.approx(11.2) and s["flow"]["max"] == 25
    assert s["flow"]["weighted_mean"] == pytest.approx(256 / 15)
    u = s["utilization"]
    assert (u["failures"], u["failures_hit"], u["restarts"], data["makespan"]) == (1, 1, 1, 25)
    assert u["node_seconds"]["downtime"] == 5 and u["node_seconds"]["lost"] == 6  # J3 lost 1 s on 6 nodes
    assert data["nodes"] == 8 and data["failures"]["downtime"] == 5 and data["checkpointing"]["cost"] == 0


def test_prune_and_window_reach_the_metrics(capsys):
    data = run_json(capsys, *TOY_RUN, "--prune", "0.2", "--window", "0:10")
    s = data["summary"]
    assert (s["jobs"], s["jobs_kept"], s["prune"]) == (5, 3, 0.2)  # J1 and J5 left out
    assert s["flow"]["mean"] == pytest.approx((5 + 15 + 25) / 3)
    assert s["utilization"]["window"] == [0, 10] and s["utilization"]["capacity"] == 80
    assert data["flows"]["J1"] == 8.0  # every job's flow, whatever the pruning


def test_toy_by_bundled_names_and_policy_alias(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no instances/ here: the names are the bundled files
    by_name = run_json(capsys, "batch", "batch/toy.json", "--policy", "baseline",
                       "--failures", "batch/toy-failures.csv", "--downtime", "5")
    assert by_name["flows"] == run_json(capsys, *TOY_RUN)["flows"]


def test_failure_free_toy_and_the_policies(capsys):
    flows = {p: run_json(capsys, "batch", TOY, "--policy", p)["flows"] for p in ("fcfs", "easy", "conservative")}
    # conservative: J4 reserved at 10 on nodes 0-5, J5 backfilled at 5 (Fig. 2a)
    assert flows["conservative"] == {"J1": 8.0, "J2": 5.0, "J3": 10.0, "J4": 20.0, "J5": 7.0}
    # FCFS: J5 does not overtake J4, it starts beside it at 10
    assert flows["fcfs"]["J5"] == 12.0 and flows["fcfs"]["J4"] == 20.0
    assert flows["easy"] == flows["conservative"]


def test_known_downtime_and_transient_failures(capsys):
    default = run_json(capsys, *TOY_RUN)
    assert default["knows_downtime"] is False  # the library's default: down nodes out until back
    known = run_json(capsys, *TOY_RUN, "--known-downtime")
    assert known["knows_downtime"] is True and known["flows"] == default["flows"]  # the toy: same flows
    assert run_json(capsys, *TOY_RUN, "--unknown-downtime") == default
    assert default["release"] == "resubmission"
    first = run_json(capsys, *TOY_RUN, "--release", "first")
    assert first["release"] == "first" and first["flows"] == default["flows"]  # one failure: nothing to order
    transient = run_json(capsys, "batch", TOY, "--policy", "conservative", "--failures", TOY_FAILURES)
    assert transient["failures"]["downtime"] == 0 and transient["flows"]["J3"] == 11.0  # restarted at once


# ---------------------------------------------------------------- drawn failures, one trace for all policies


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative"])
def test_drawn_failures_written_then_replayed_give_the_same_run(capsys, tmp_path, swf, policy):
    out = tmp_path / "f.csv"
    common = ["--policy", policy, "--node-mtbf", "2000", "--downtime", "20", "--checkpoint-cost", "5"]
    drawn = run_json(capsys, "batch", swf, *common, "--seed", "3", "--failures-out", out, "-o", tmp_path / "a.csv")
    assert drawn["summary"]["utilization"]["failures"] > 0 and drawn["failures"]["seed"] == 3
    replay = run_json(capsys, "batch", swf, *common, "--failures", out, "-o", tmp_path / "b.csv")
    assert replay["flows"] == drawn["flows"] and replay["summary"] == drawn["summary"]
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()  # every attempt
    assert out.read_text().startswith("time,node\n")


def test_default_seed_is_0(capsys, swf, tmp_path):
    common = ["batch", swf, "--policy", "easy", "--node-mtbf", "1000"]
    assert run_json(capsys, *common)["flows"] == run_json(capsys, *common, "--seed", "0")["flows"]
    assert run_json(capsys, *common)["failures"]["seed"] == 0


def test_checkpointing_options_reach_the_model(capsys, swf):
    base = ["batch", swf, "--policy", "conservative", "--node-mtbf", "1e4"]
    assert run_json(capsys, *base)["checkpointing"] == {"cost": 0.0, "recovery": 0.0, "final_checkpoint": False}
    ck = run_json(capsys, *base, "--checkpoint-cost", "5")
    assert ck["checkpointing"] == {"cost": 5.0, "recovery": 5.0, "final_checkpoint": False}  # R = C
    assert run_json(capsys, *base, "--checkpoint-cost", "5", "--recovery-cost", "2")["checkpointing"]["recovery"] == 2
    final = run_json(capsys, *base, "--checkpoint-cost", "5", "--final-checkpoint")
    assert final["checkpointing"]["final_checkpoint"] is True


def test_final_checkpoint_lengthens_every_job_without_failures(capsys, tmp_path, swf):
    empty = tmp_path / "none.csv"
    empty.write_text("time,node\n")
    base = ["batch", swf, "--policy", "fcfs", "--failures", empty, "--node-mtbf", "1e4", "--checkpoint-cost", "5"]
    plain = run_json(capsys, *base)
    final = run_json(capsys, *base, "--final-checkpoint")
    assert all(final["flows"][j] > plain["flows"][j] for j in plain["flows"])


def test_recovery_cost_without_checkpointing(capsys):
    data = run_json(capsys, *TOY_RUN, "--recovery-cost", "2")
    assert data["checkpointing"] == {"cost": 0.0, "recovery": 2.0, "final_checkpoint": False}
    assert data["flows"]["J3"] == 17.0  # restarted at 5 from scratch, after a recovery of 2


# ---------------------------------------------------------------- SWF input, --nodes


def test_swf_platform_from_the_header_and_nodes_override(capsys, swf):
    data = run_json(capsys, "batch", swf, "--policy", "fcfs")
    assert (data["jobs"], data["nodes"], data["dropped"]) == (4, 8, 1)
    assert data["flows"] == {"1": 100.0, "2": 70.0, "4": 120.0, "5": 140.0}  # 4 waits for 1, 5 for 4
    wide = run_json(capsys, "batch", swf, "--policy", "fcfs", "--nodes", "16")
    assert wide["nodes"] == 16 and wide["flows"]["4"] == 50.0


def test_plain_swf_and_bundled_trace_name(capsys, tmp_path):
    path = tmp_path / "t.swf"
    path.write_text(SWF)
    assert run_json(capsys, "batch", path, "--policy", "easy")["jobs"] == 4


def test_bundled_trace_by_name_prints_no_job_table(capsys):
    code, out, _ = run(capsys, "batch", "HPC2N-subset-3171", "--policy", "fcfs")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("workload HPC2N-subset-3171: ") and lines[1].startswith("makespan ")


# ---------------------------------------------------------------- jobs.csv


def test_jobs_csv_has_one_row_per_attempt(capsys, tmp_path):
    out = tmp_path / "jobs.csv"
    code, _, err = run(capsys, *TOY_RUN, "-o", out)
    assert code == 0 and err == f"wrote {out}: 6 rows, one per attempt\n"
    rows = {r["job_id"]: r for r in csv.DictReader(out.open())}
    assert sorted(rows) == ["J1", "J2", "J3", "J3#1", "J4", "J5"]
    assert rows["J3"]["final_state"] == "COMPLETED_KILLED" and rows["J3"]["success"] == "0"
    assert rows["J3"]["allocated_resources"] == "2-7" and float(rows["J3"]["finish_time"]) == 1.0
    again = rows["J3#1"]
    assert float(again["submission_time"]) == 1.0 and float(again["starting_time"]) == 5.0
    assert again["allocated_resources"] == "1 3-7" and again["final_state"] == "COMPLETED_SUCCESSFULLY"


def test_the_run_is_validated_before_anything_is_written(capsys, tmp_path, monkeypatch):
    import coschedule.sim.validate
    from coschedule.errors import InvalidSchedule

    def invalid(result, *, failures=None):
        raise InvalidSchedule("job J3, attempt 1: starts before its node 2 is back")

    monkeypatch.setattr(coschedule.sim.validate, "validate_run", invalid)
    err = fails(capsys, *TOY_RUN, "-o", tmp_path / "jobs.csv")
    assert "job J3, attempt 1: starts before its node 2 is back" in err
    assert not (tmp_path / "jobs.csv").exists()


def test_jobs_csv_is_read_by_evalys(capsys, tmp_path):
    evalys = pytest.importorskip("evalys.jobset")
    out = tmp_path / "jobs.csv"
    assert run(capsys, *TOY_RUN, "-o", out)[0] == 0
    js = evalys.JobSet.from_csv(str(out))
    assert len(js.df) == 6 and js.df["execution_time"].sum() == pytest.approx(8 + 5 + 1 + 10 + 10 + 2)


def test_jobs_csv_of_a_rerun_requests_its_remaining_wall_time(capsys, tmp_path, swf):
    out = tmp_path / "jobs.csv"
    data = run_json(capsys, "batch", swf, "--policy", "easy", "--node-mtbf", "300", "--seed", "2",
                    "--checkpoint-cost", "4", "--recovery-cost", "3", "-o", out)
    restarts = data["summary"]["utilization"]["restarts"]
    assert restarts > 0
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 4 + restarts
    reruns = [r for r in rows if "#" in r["job_id"]]
    assert reruns and all(float(r["submission_time"]) <= float(r["starting_time"]) for r in rows)
    killed = sum(r["final_state"] == "COMPLETED_KILLED" for r in rows)
    assert killed == restarts


# ---------------------------------------------------------------- the Gantt chart


def test_gantt_by_suffix(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    for name in ("toy.png", "toy.svg", "toy.pdf"):
        code, _, err = run(capsys, *TOY_RUN, "--gantt", tmp_path / name)
        assert code == 0 and err == f"wrote figure: {tmp_path / name}\n"
        assert (tmp_path / name).stat().st_size > 1000
    svg = (tmp_path / "toy.svg").read_text()
    assert all(f">{label}<" in svg or label in svg for label in ("J1", "J5"))


def test_gantt_without_matplotlib_is_one_line_before_the_run(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails
    err = fails(capsys, *TOY_RUN, "--gantt", tmp_path / "g.png", "-o", tmp_path / "jobs.csv")
    assert "matplotlib" in err and "pip install" in err
    assert not (tmp_path / "jobs.csv").exists()


def _toy_result():
    from coschedule.batch import run_batch
    from coschedule.sim import read_failures

    w = read_batsim(TOY)
    return run_batch(w, "conservative", failures=read_failures(TOY_FAILURES, n_nodes=8), downtime=5)


def test_gantt_figure_of_the_toy():
    pytest.importorskip("matplotlib")
    from matplotlib.collections import PathCollection, PolyCollection

    from coschedule.plot import plot_batch_run

    fig = plot_batch_run(_toy_result())
    (ax,) = fig.axes
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    # completed attempts: J3's rerun on nodes 1 and 3-7 is two rectangles; then the failed one;
    # then the downtime of node 2, [1, 6)
    assert [len(c.get_paths()) for c in polys] == [6, 1, 1]
    assert polys[1].get_hatch() == "///"
    down = polys[2].get_paths()[0].vertices
    assert (down[:, 0].min(), down[:, 0].max(), down[:, 1].min(), down[:, 1].max()) == (1, 6, 2, 3)
    (marks,) = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert marks.get_offsets().tolist() == [[1.0, 2.5]]  # the failure: node 2 at t = 1
    labels = sorted(t.get_text() for t in ax.texts if t.get_gid() == "label")
    assert labels == ["J1", "J2", "J3", "J3", "J3\nfailed", "J4", "J5"]
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "node" and ax.get_ylim() == (0, 8)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "completed attempt", "failed attempt", "failure", "node down"]


def test_gantt_of_a_large_run_draws_node_ranges_without_labels():
    pytest.importorskip("matplotlib")
    from matplotlib.collections import PolyCollection

    from coschedule.batch import run_batch
    from coschedule.plot import BATCH_DETAIL_NODES, plot_batch_run
    from coschedule.sim import FailureTrace, Workload

    N = BATCH_DETAIL_NODES + 1
    w = Workload(("a", "b", "c"), [0, 0, 5], [1500, 400, N], [10, 10, 10], [10, 10, 10], N)
    # a on 0-1499 and b on 1500-1899; node 700 fails: a restarts on its nodes but 700, plus node 1900
    failures = FailureTrace(np.array([2.0]), np.array([700]), N)
    result = run_batch(w, "easy", failures=failures, downtime=1)
    fig = plot_batch_run(result)
    (ax,) = fig.axes
    polys = [c for c in ax.collections if isinstance(c, PolyCollection)]
    # completed: a's rerun in three ranges (0-699, 701-1499, 1900), b, c; failed: a's first attempt
    assert [len(c.get_paths()) for c in polys[:2]] == [5, 1]
    assert all(c.get_rasterized() and not c.get_linewidths().any() for c in polys[:2])
    assert not [t for t in ax.texts if t.get_gid() == "label"]


# ---------------------------------------------------------------- convert --to batsim


def test_convert_swf_to_batsim_runs_the_same(capsys, tmp_path, swf):
    out = tmp_path / "w.json"
    code, text, _ = run(capsys, "convert", swf, "--to", "batsim", "-o", out)
    assert code == 0 and text == f"wrote {out}: Batsim workload tiny, 4 jobs (1 dropped: run time or size unknown), 8 nodes\n"
    assert read_batsim(out) == workload_from_swf(read_swf(swf))
    a = run_json(capsys, "batch", swf, "--policy", "easy", "--node-mtbf", "500", "--downtime", "9")
    b = run_json(capsys, "batch", out, "--policy", "easy", "--node-mtbf", "500", "--downtime", "9")
    assert a["flows"] == b["flows"] and a["summary"] == b["summary"]
    summary = run_json(capsys, "convert", swf, "--to", "batsim", "--nodes", "12", "-o", out)
    assert summary == {"output": str(out), "format": "batsim", "name": "tiny", "n": 4, "nodes": 12, "dropped": 1}


def test_convert_keeps_rigid_by_default_and_refuses_mixed_options(capsys, tmp_path, swf):
    out = tmp_path / "r.json"
    assert run(capsys, "convert", swf, "-o", out)[0] == 0
    assert json.loads(out.read_text())["format"] == "coschedule/rigid-instance"
    assert "--day applies to --to rigid" in fails(capsys, "convert", swf, "--to", "batsim", "--day", "0", "-o", out)
    assert "--nodes applies to --to batsim" in fails(capsys, "convert", swf, "--nodes", "9", "-o", out)
    assert "job 4: 8 processors > 4 nodes" in fails(capsys, "convert", swf, "--to", "batsim", "--nodes", "4", "-o", out)


# ---------------------------------------------------------------- bad input: one line, exit 2


def _toy_with(tmp_path: Path, **changes) -> Path:
    doc = json.loads(Path(TOY).read_text())
    for key, value in changes.items():
        k, field = key.split("__")
        doc["jobs"][int(k)][field] = value
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    return path


@pytest.mark.parametrize("text, where", [
    ("; MaxProcs: 8\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1\n", "t.swf:2: expected 18 fields, found 17"),
    ("; MaxProcs: 8\n1 0 0 abc 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n", "t.swf:2: field 4 (run time) is not a number"),
    ("; MaxProcs: 8\n1 -5 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n", "t.swf:2: field 2 (submit time) is negative"),
    ("; MaxProcs: 8\n1 0 0 100 12 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n", "t.swf:2: job 1: 12 processors > 8 nodes"),
    ("; MaxProcs: 8\n", "t.swf: no jobs"),
    ("; MaxProcs: 8\n1 0 0 0 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1\n", "t.swf: no job to run"),
])
def test_bad_swf(capsys, tmp_path, text, where):
    path = tmp_path / "t.swf"
    path.write_text(text)
    assert where in fails(capsys, "batch", path, "--policy", "easy")


def test_bad_gzip(capsys, tmp_path):
    path = tmp_path / "t.swf.gz"
    path.write_bytes(gzip.compress(SWF.encode())[:30])
    assert "t.swf.gz: corrupt gzip data" in fails(capsys, "batch", path, "--policy", "easy")


def test_bad_batsim(capsys, tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"nb_res": 8, "jobs": [')
    assert "w.json:1:24: invalid JSON" in fails(capsys, "batch", path, "--policy", "easy")
    path.write_text('{"nb_res": 8, "jobs": [{"id": "a", "subtime": 0, "res": 1, "profile": "p"}], "profiles": {}}')
    assert "w.json: job a: profile 'p' is not in profiles" in fails(capsys, "batch", path, "--policy", "easy")


def test_negative_times(capsys, tmp_path):
    err = fails(capsys, "batch", _toy_with(tmp_path, **{"1__subtime": -3}), "--policy", "easy")
    assert "w.json: job J2: submit must be a finite number >= 0" in err
    doc = json.loads(Path(TOY).read_text())
    doc["profiles"]["delay8.0"]["delay"] = -8.0
    path = tmp_path / "neg.json"
    path.write_text(json.dumps(doc))
    assert "neg.json: job J1: length must be a finite number > 0" in fails(capsys, "batch", path, "--policy", "easy")
    failures = tmp_path / "f.csv"
    failures.write_text("time,node\n1,2\n-4,3\n")
    assert "f.csv:3: time: expected a number >= 0, got '-4'" in fails(capsys, "batch", TOY, "--policy", "easy",
                                                                       "--failures", failures)


def test_job_wider_than_the_platform(capsys, tmp_path):
    err = fails(capsys, "batch", TOY, "--policy", "easy", "--nodes", "4")
    assert "toy.json: job J3: nodes 6 not in 1..4 (the platform) (--nodes 4)" in err
    err = fails(capsys, "batch", _toy_with(tmp_path, **{"2__res": 9}), "--policy", "easy")
    assert "w.json: job J3: nodes 9 not in 1..8" in err


def test_failure_on_a_node_that_does_not_exist(capsys, tmp_path):
    failures = tmp_path / "f.csv"
    failures.write_text("time,node\n1,2\n3,8\n")
    err = fails(capsys, "batch", TOY, "--policy", "easy", "--failures", failures)
    assert "f.csv:3: node 8 does not exist (the platform has nodes 0..7)" in err
    failures.write_text("t,n\n1,2\n")
    assert "f.csv:1: expected the header 'time,node'" in fails(capsys, "batch", TOY, "--policy", "easy",
                                                               "--failures", failures)


def test_unknown_policy_and_missing_files(capsys, tmp_path):
    err = fails(capsys, "batch", TOY, "--policy", "eazy")
    assert "unknown batch policy 'eazy' (did you mean 'easy'?); valid: baseline, conservative, easy, fcfs" in err
    assert "nope.json: no such file" in fails(capsys, "batch", tmp_path / "nope.json", "--policy", "easy")
    assert "no-such.csv: no such file" in fails(capsys, "batch", TOY, "--policy", "easy",
                                                "--failures", tmp_path / "no-such.csv")
    assert "the following arguments are required: --policy" in fails(capsys, "batch", TOY)


def test_reservations_on_counts_or_on_nodes(capsys):
    """The toy example of §3 gives the paper's flows (Table 1) under both readings, Baseline and
    SFSJ; the JSON says which one ran (the library's default when not given: nodes)."""
    from coschedule.heuristics.batch.backfilling import default_reservations

    default = run_json(capsys, *TOY_RUN)
    assert default["reservations"] == default_reservations(default["policy"]) == "nodes"
    for policy, flows in (("conservative", [8.0, 5.0, 15.0, 25.0, 3.0]), ("sfsj", [8.0, 11.0, 11.0, 21.0, 10.0])):
        for reading in ("count", "nodes"):
            out = run_json(capsys, "batch", TOY, "--policy", policy, "--failures", TOY_FAILURES, "--downtime", "5",
                           "--reservations", reading)
            assert out["reservations"] == reading and list(out["flows"].values()) == flows
    assert "reservations" not in run_json(capsys, "batch", TOY, "--policy", "easy")


@pytest.mark.parametrize("argv, message", [
    (["--reservations", "count"], "--reservations is an option of conservative backfilling and node stealing"),
    (["--reservations", "machines"], "argument --reservations: invalid choice: 'machines'"),
    (["--checkpoint-cost", "300"], "--checkpoint-cost needs --node-mtbf"),
    (["--failures", TOY_FAILURES, "--seed", "1"], "--seed draws failures"),
    (["--seed", "1"], "--seed draws failures"),
    (["--failures", TOY_FAILURES, "--failures-out", "x.csv"], "--failures-out writes drawn failures"),
    (["--failures", TOY_FAILURES, "--node-mtbf", "100"], "--node-mtbf with --failures only sets the checkpoint period"),
    (["--node-mtbf", "100", "--final-checkpoint"], "--final-checkpoint needs --checkpoint-cost"),
    (["--downtime", "5"], "--downtime applies to failures"),
    (["--unknown-downtime"], "--unknown-downtime applies to failures"),
    (["--known-downtime"], "--known-downtime applies to failures"),
    (["--release", "first"], "--release applies to failures"),
    (["--release", "latest", "--node-mtbf", "9"], "argument --release: invalid choice: 'latest'"),
    (["--known-downtime", "--unknown-downtime", "--node-mtbf", "9"], "not allowed with argument --known-downtime"),
    (["--node-mtbf", "0"], "argument --node-mtbf: expected a positive duration, got 0"),
    (["--downtime", "-1", "--node-mtbf", "9"], "argument --downtime: expected a duration >= 0, got -1"),
    (["--nodes", "0"], "argument --nodes: expected a positive integer, got 0"),
    (["--checkpoint-cost", "nan", "--node-mtbf", "9"], "argument --checkpoint-cost: expected a duration (a number of seconds"),
])
def test_options_that_mean_nothing_together(capsys, argv, message):
    assert message in fails(capsys, "batch", TOY, "--policy", "easy", *argv)


def test_infinite_mtbf_is_refused(capsys):
    assert "expected a positive duration, got inf" in fails(capsys, "batch", TOY, "--policy", "easy",
                                                           "--node-mtbf", "inf")
