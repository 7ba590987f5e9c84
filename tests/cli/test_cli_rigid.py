"""The CLI on rigid jobs: numbers agree with the library, bad input gives exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coschedule.cli import main
from coschedule.io import load_rigid_instance, load_scenario, load_schedule
from coschedule.rigid import lower_bound
from coschedule.validate import validate_rigid
from coschedule.heuristics import r_list

ROOT = Path(__file__).resolve().parents[2]
RIGID = ROOT / "instances" / "rigid"
SMALL = RIGID / "small-n8-P8.json"
SYN = RIGID / "synthetic-n20-P10000.json"
SYN_F = RIGID / "synthetic-n20-P10000.qbar0.3-seed7.scenario.json"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_with_scenario_matches_library(capsys, tmp_path):
    out_file = tmp_path / "s.json"
    code, out, _ = run(capsys, "run", "r-list-0", SYN, "--scenario", SYN_F, "--optimum", "never",
                       "--json", "-o", out_file)
    assert code == 0
    data = json.loads(out)
    inst = load_rigid_instance(SYN)
    scen = load_scenario(SYN_F, inst)
    expected = validate_rigid(inst, scen, r_list(inst, scen, m=0, priority="LPT"))
    assert data["makespan"] == pytest.approx(expected, rel=1e-12)
    assert data["lower_bound"] == pytest.approx(lower_bound(inst, scen))
    schedule, header = load_schedule(out_file)
    assert validate_rigid(inst, scen, schedule) == pytest.approx(expected)


def test_run_qbar_is_seeded_and_optimum_bounds_the_heuristic(capsys):
    a = json.loads(run(capsys, "run", "r-shelf-nb", SMALL, "--qbar", "0.4", "--seed", "3", "--json")[1])
    b = json.loads(run(capsys, "run", "r-shelf-nb", SMALL, "--qbar", "0.4", "--seed", "3", "--json")[1])
    assert a["failures"] == b["failures"] and a["makespan"] == b["makespan"]
    opt = a["optimum"]
    assert opt is not None and opt["status"] == "optimal"
    assert a["lower_bound"] <= opt["objective"] + opt["tolerance"]
    assert opt["objective"] <= a["makespan"] + opt["tolerance"]


def test_solve_rigid_states_proof(capsys):
    code, out, _ = run(capsys, "solve", SMALL, "--qbar", "0.3", "--seed", "1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["result"]["status"] == "optimal"
    assert data["result"]["objective"] >= data["lower_bound"] * (1 - 1e-9)


def test_counterexample_prop3_ratio_is_harmonic(capsys, tmp_path):
    code, out, _ = run(capsys, "counterexample", "prop3", "--P", "4", "--json", "--out", tmp_path)
    assert code == 0
    data = json.loads(out)
    H4 = 1 + 1 / 2 + 1 / 3 + 1 / 4
    assert data["makespan"] == pytest.approx(H4)
    assert data["ratio_lower"] == pytest.approx(H4, rel=1e-6)
    inst = load_rigid_instance(tmp_path / "instance.json")
    scen = load_scenario(tmp_path / "scenario.json", inst)
    sched, _ = load_schedule(tmp_path / "heuristic-schedule.json")
    assert validate_rigid(inst, scen, sched) == pytest.approx(H4)


def test_counterexample_prop4_certified_without_solver(capsys):
    code, out, _ = run(capsys, "counterexample", "prop4", "--P", "2")
    assert code == 0
    assert "certified" in out and "ratio" in out


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "argv,message",
    [
        (["run", "r-list-0", SMALL, "--qbar", "1.5"], "qbar must be in [0, 1)"),
        (["run", "r-list-9", SMALL], "unknown heuristic 'r-list-9' for a rigid-job instance"),
        (["run", "r-list-0", SMALL, "--priority", "FIFO"], "unknown priority 'FIFO'"),
        (["run", "r-list-0", SMALL, "--qbar", "0.2", "--scenario", SYN_F], "either --scenario or --qbar"),
        (["run", "r-list-0", SMALL, "--scenario", SYN_F], "scenario"),
        (["counterexample", "prop3", "--P", "0"], "expected a positive integer"),
    ],
)
def test_bad_rigid_input_exit_2(capsys, argv, message):
    try:
        code, _, err = run(capsys, *argv)
    except SystemExit as e:  # argparse errors
        code, err = e.code, capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err


def test_job_wider_than_platform(capsys, tmp_path):
    data = json.loads(SMALL.read_text())
    data["jobs"][2]["procs"] = data["P"] + 1
    path = _write(tmp_path, "wide.json", data)
    code, _, err = run(capsys, "run", "r-list-0", path)
    assert code == 2 and "jobs[2]" in err and f"> P {data['P']}" in err


def test_counterexample_search_writes_validated_worst_case(capsys, tmp_path):
    code, out, _ = run(capsys, "counterexample", "search", "--heuristic", "r-shelf-nb", "--P", "3",
                       "--n", "3", "--restarts", "1", "--steps", "5", "--seed", "1", "--out", tmp_path,
                       "--json")
    assert code == 0
    data = json.loads(out)
    assert data["ratio"] >= 1.0
    inst = load_rigid_instance(tmp_path / "instance.json")
    scen = load_scenario(tmp_path / "scenario.json", inst)
    heur, _ = load_schedule(tmp_path / "heuristic-schedule.json")
    opt, _ = load_schedule(tmp_path / "optimum-schedule.json")
    ratio = validate_rigid(inst, scen, heur) / validate_rigid(inst, scen, opt)
    assert ratio == pytest.approx(data["ratio"], rel=1e-9)


def test_counterexample_search_needs_a_heuristic(capsys):
    code, _, err = run(capsys, "counterexample", "search", "--P", "3")
    assert code == 2 and "needs --heuristic" in err
