"""``coschedule torus simulate``: a run's metrics (text and JSON) against the library, jobs.csv
with box partitions (read back by evalys), drawn failures replayed from the file they were
written to, the picture, and a one-line error (exit 2) for each bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from coschedule_testing import cli_fails as fails
from coschedule_testing import cli_run as run

from coschedule.sim.nodesets import parse_nodes
from coschedule.sim.workload import Workload, write_batsim
from coschedule.torus import box_from_nodes
from coschedule.torus.metrics import torus_metrics
from coschedule.torus.run import run_torus
from coschedule.torus.workload import torus_workload

ROOT = Path(__file__).resolve().parents[2]
TOY = str(ROOT / "instances" / "batch" / "toy.json")
TOY_FAILURES = str(ROOT / "instances" / "batch" / "toy-failures.csv")


@pytest.fixture
def log(tmp_path: Path) -> Path:
    """40 jobs of 1 to 16 units on a 16-unit machine, as a Batsim workload (5 units has no box
    on 2x2x4: those run on 6)."""
    import numpy as np

    rng = np.random.default_rng(4)
    n = 40
    length = rng.uniform(10, 300, n)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.uniform(0, 2000, n)), rng.choice([1, 2, 5, 4, 8, 16], n),
                 length * 1.5, length, 16, name="small")
    path = tmp_path / "small.json"
    write_batsim(w, path)
    return path


def test_metrics_match_the_library(capsys, log: Path) -> None:
    code, out, err = run(capsys, "torus", "simulate", log, "--shape", "2x2x4", "--policy", "balancing",
                         "--confidence", "0.5", "--failure-count", "30", "--seed", "3", "--json")
    assert code == 0, err
    got = json.loads(out)
    from coschedule.sim.workload import read_batsim

    lib = run_torus(torus_workload(read_batsim(log), (2, 2, 4)), "balancing", confidence=0.5, failure_count=30,
                    seed=3)
    assert got["metrics"] == pytest.approx(torus_metrics(lib).to_dict())
    fives = int((read_batsim(log).nodes == 5).sum())
    assert fives > 0 and got["torus"] == "2x2x4" and got["units"] == 16 and got["rounded"] == fives
    assert got["failures"] == {"file": None, "count": 30, "model": "clustered", "seed": 3, "downtime": 0.0}
    code, text, _ = run(capsys, "torus", "simulate", log, "--shape", "2x2x4", "--policy", "balancing",
                        "--confidence", "0.5", "--failure-count", "30", "--seed", "3")
    assert f"{got['metrics']['mean_bounded_slowdown']:,.3f}" in text
    assert f"{fives} rounded up to a size with a box shape" in text
    assert "30 failures (clustered, seed 3)" in text


def test_migration_and_slowdown_time_options(capsys, log: Path) -> None:
    """The defaults are the paper's system (migration, §5.2.1) and the slowdown over the run time
    (§3.4); --no-migration and --bsld-time request give the other readings, as the library does."""
    from coschedule.sim.workload import read_batsim

    jobs = torus_workload(read_batsim(log), (2, 2, 4))
    base = ["torus", "simulate", log, "--shape", "2x2x4", "--policy", "fcfs", "--failure-count", "30", "--seed", "2",
            "--json"]
    for flags, migration, time in (([], True, "run"), (["--no-migration", "--bsld-time", "request"], False, "request"),
                                   (["--migration", "--bsld-time", "run"], True, "run")):
        code, out, err = run(capsys, *base, *flags)
        assert code == 0, err
        got = json.loads(out)
        lib = run_torus(jobs, "fcfs", failure_count=30, seed=2, migration=migration)
        assert got["migration"] is migration and got["metrics"]["bounded_slowdown_time"] == time
        assert got["metrics"] == pytest.approx(torus_metrics(lib, bsld_time=time).to_dict())
    code, text, _ = run(capsys, *base[:-1], "--no-migration")
    assert "no migration" in text and "max(run time, Γ)" in text and "mean response" in text


def test_jobs_csv_partitions_and_replayed_failures(capsys, log: Path, tmp_path: Path) -> None:
    jobs_csv, drawn = tmp_path / "jobs.csv", tmp_path / "f.csv"
    base = ["torus", "simulate", log, "--shape", "2x2x4", "--policy", "tiebreak", "--accuracy", "0.7", "--json"]
    code, out, err = run(capsys, *base, "--failure-count", "25", "--seed", "1", "--failures-out", drawn,
                         "-o", jobs_csv)
    assert code == 0, err
    first = json.loads(out)
    rows = list(csv.DictReader(jobs_csv.open()))
    assert len({r["job_id"].split("#")[0] for r in rows}) == 40
    assert any("#" in r["job_id"] for r in rows)  # a failed attempt, rerun
    for r in rows:  # every allocation is a box of the job's size
        nodes = parse_nodes(r["allocated_resources"])
        box = box_from_nodes(nodes, (2, 2, 4))
        assert box is not None and box.size == int(r["requested_number_of_resources"])
    # the drawn failures replayed from their file give the same run
    code, out, err = run(capsys, "torus", "simulate", log, "--shape", "2x2x4", "--policy", "fcfs", "--json",
                         "--failures", drawn)
    replay = json.loads(out)
    code, out, err = run(capsys, "torus", "simulate", log, "--shape", "2x2x4", "--policy", "fcfs", "--json",
                         "--failure-count", "25", "--seed", "1")
    assert json.loads(out)["metrics"] == replay["metrics"]
    assert first["metrics"]["failures"] == 25
    evalys = pytest.importorskip("evalys.jobset")
    js = evalys.JobSet.from_csv(str(jobs_csv))
    assert len(js.df) == len(rows)


def test_plot_and_migration(capsys, log: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "t.png"
    code, out, err = run(capsys, "torus", "simulate", log, "--shape", "2x2x4", "--policy", "fcfs", "--migration",
                         "--migration-cost", "5", "--plot", png, "--plot-at", "900")
    assert code == 0, err
    assert png.stat().st_size > 10_000
    assert "migration (" in out and "5 s a move" in out


def test_toy_by_name(capsys) -> None:
    code, out, err = run(capsys, "torus", "simulate", "batch/toy.json", "--shape", "2x2x2", "--policy", "fcfs")
    assert code == 0, err
    assert "5 jobs on the torus 2x2x2 (8 units" in out


@pytest.mark.parametrize("argv,message", [
    (["--policy", "fcfs", "--accuracy", "0.3"], "--accuracy is the tie-breaking predictor's"),
    (["--policy", "tiebreak", "--confidence", "0.3"], "--confidence is the balancing predictor's"),
    (["--policy", "balancing", "--confidence", "1.5"], "expected a number in [0, 1]"),
    (["--policy", "fcfs", "--shape", "0x2x2"], "torus shape '0x2x2'"),
    (["--policy", "fcfs", "--seed", "3"], "--seed draws failures: it needs --failure-count"),
    (["--policy", "fcfs", "--failures", TOY_FAILURES, "--failure-count", "3"], "not both"),
    (["--policy", "fcfs", "--no-migration", "--migration-cost", "3"],
     "--migration-cost applies to migration, which --no-migration turns off"),
    (["--policy", "fcfs", "--bsld-time", "wall"], "argument --bsld-time: invalid choice: 'wall'"),
    (["--policy", "fcfs", "--plot-at", "3"], "--plot-at chooses the instant of --plot"),
    (["--policy", "best"], "unknown torus policy 'best'"),
    (["--policy", "fcfs", "--unit", "0"], "--unit"),
])
def test_bad_options(capsys, argv: list[str], message: str) -> None:
    assert message in fails(capsys, "torus", "simulate", TOY, "--shape", "2x2x2", *argv)


def test_bad_files(capsys, tmp_path: Path) -> None:
    assert "no such file" in fails(capsys, "torus", "simulate", tmp_path / "none.swf", "--policy", "fcfs")
    bad = tmp_path / "bad.csv"
    bad.write_text("time,node\n5,99\n")
    assert "node 99 does not exist" in fails(capsys, "torus", "simulate", TOY, "--shape", "2x2x2", "--policy",
                                             "fcfs", "--failures", bad)
    wide = tmp_path / "wide.json"
    wide.write_text(json.dumps({"nb_res": 64, "jobs": [{"id": "a", "subtime": 0, "res": 64, "profile": "p"}],
                                "profiles": {"p": {"type": "delay", "delay": 5}}}))
    assert "every job is wider than the torus 2x2x2" in fails(
        capsys, "torus", "simulate", wide, "--shape", "2x2x2", "--policy", "fcfs", "--unit", "1")
