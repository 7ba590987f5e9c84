"""``coschedule batch --optimal``: the clairvoyant optimum beside a policy's run (the §3 toy
example), its JSON, an honest time limit, and one-line errors (exit 2) for what the model
refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coschedule.cli import main

ROOT = Path(__file__).resolve().parents[2]
TOY = str(ROOT / "instances" / "batch" / "toy.json")
TOY_FAILURES = str(ROOT / "instances" / "batch" / "toy-failures.csv")
TOY_RUN = ["batch", TOY, "--failures", TOY_FAILURES, "--downtime", "5"]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def fails(capsys, *argv) -> str:
    try:
        code, _, err = run(capsys, *argv)
    except SystemExit as e:
        code, err = e.code, capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("policy, objective, lines", [
    ("conservative", "max", [("clairvoyant optimum of the max flow: 20 s (optimal; one attempt per job suffices: "
                              "without checkpoints a stopped attempt saves nothing)"),
                             "conservative / optimum: 25 / 20 = 1.250"]),
    ("conservative", "weighted", [("clairvoyant optimum of the weighted mean flow: 13.53 s (optimal; one attempt "
                                   "per job suffices: without checkpoints a stopped attempt saves nothing)"),
                                  "conservative / optimum: 17.07 / 13.53 = 1.261"]),
    ("sfsj", "max", [("clairvoyant optimum of the max flow: 20 s (optimal; one attempt per job suffices: "
                      "without checkpoints a stopped attempt saves nothing)"),
                     "sfsj / optimum: 21 / 20 = 1.050"]),
])
def test_toy_optimum_beside_the_run(capsys, policy, objective, lines):
    """Baseline's max flow 25 and weighted mean 256/15, SFSJ's max flow 21, against the optimum 20
    and 203/15."""
    code, out, err = run(capsys, *TOY_RUN, "--policy", policy, "--optimal", objective)
    assert code == 0 and err == ""
    assert out.splitlines()[-2:] == lines
    plain = run(capsys, *TOY_RUN, "--policy", policy)[1]
    assert out.startswith(plain)  # the run's own output is unchanged


def test_toy_optimum_json(capsys):
    code, out, _ = run(capsys, *TOY_RUN, "--policy", "easy", "--optimal", "weighted", "--json")
    assert code == 0
    opt = json.loads(out)["optimal"]
    assert opt["status"] == "optimal" and opt["unconditional"] is True and opt["gap"] == 0
    assert opt["value"] == pytest.approx(203 / 15) and opt["bound"] == opt["value"]
    assert opt["ratio"] == pytest.approx(opt["policy_value"] / opt["value"]) and opt["ratio"] >= 1
    flows = opt["flows"]
    assert sum(f * p for f, p in zip(flows.values(), [1, 1, 6, 6, 1])) == pytest.approx(203)
    assert len(opt["schedule"]) == 5 and all(a["outcome"] == "completed" for a in opt["schedule"])
    assert opt["time_unit"] == 1.0 and opt["time_limit_reached"] is None


def test_time_limit_is_reported_not_called_optimal(capsys, tmp_path):
    """Eight 2-node jobs with checkpoints and four failures: a limit of 0 gives the best schedule
    known (the policy's run, converted) with its gap, never "optimal"."""
    jobs = [{"id": f"j{k}", "subtime": k, "res": 2, "walltime": 12 + k, "profile": f"p{k}"} for k in range(8)]
    profiles = {f"p{k}": {"type": "delay", "delay": 12 + k} for k in range(8)}
    (tmp_path / "w.json").write_text(json.dumps({"nb_res": 8, "jobs": jobs, "profiles": profiles}))
    (tmp_path / "f.csv").write_text("time,node\n3,0\n7,2\n11,5\n15,7\n")
    # period sqrt(2 * 16 / 2 * 1) = 4 for the 2-node jobs: integer
    code, out, err = run(capsys, "batch", tmp_path / "w.json", "--policy", "conservative", "--failures",
                         tmp_path / "f.csv", "--downtime", "5", "--node-mtbf", "16", "--checkpoint-cost", "1",
                         "--optimal", "max", "--time-limit", "0.001")
    assert code == 0, err
    head, ratio = out.splitlines()[-2:]
    assert head.startswith("clairvoyant optimum of the max flow: between ") and "(feasible, gap " in head
    assert "time limit reached" in head and "optimal among schedules of at most 2 attempts per job" in head
    assert "optimal;" not in head
    assert ratio.startswith("conservative / best found: ") and "(to the optimum: at most " in ratio


@pytest.mark.parametrize("extra, message", [
    (["--optimal", "max", "--nodes", "9"], "clairvoyant optimum: 9 nodes, more than 8: the model is for tiny instances"),
    (["--optimal", "max", "--time-limit", "0"], "argument --time-limit: expected a positive duration, got 0"),
    (["--time-limit", "5"], "--time-limit applies to the clairvoyant optimum: give --optimal max or --optimal weighted"),
    (["--max-attempts", "3"], "--max-attempts applies to the clairvoyant optimum"),
    (["--optimal", "mean"], "argument --optimal: invalid choice: 'mean'"),
])
def test_bad_input_is_one_line(capsys, extra, message):
    err = fails(capsys, "batch", TOY, "--policy", "easy", *extra)
    assert message in err


def test_off_grid_and_drawn_failures_are_one_line(capsys, tmp_path):
    (tmp_path / "f.csv").write_text("time,node\n1.0001,2\n")
    err = fails(capsys, *TOY_RUN[:2], "--policy", "easy", "--failures", tmp_path / "f.csv", "--optimal", "max")
    assert "clairvoyant optimum: the failure time of node 2 (1.0001 s) is not a multiple of a common time unit" in err
    err = fails(capsys, "batch", TOY, "--policy", "easy", "--node-mtbf", "100", "--optimal", "max")
    assert "--optimal needs integer failure times: give the failures in a file (--failures FILE)" in err
    # an irrational Young/Daly period for jobs that checkpoint
    err = fails(capsys, *TOY_RUN, "--policy", "easy", "--node-mtbf", "100", "--checkpoint-cost", "1",
                "--optimal", "max")
    assert "checkpoint block T + C" in err and "is not a multiple of a common time unit" in err


def test_too_many_jobs_is_one_line(capsys, tmp_path):
    jobs = [{"id": f"j{k}", "subtime": 0, "res": 1, "profile": "p"} for k in range(9)]
    (tmp_path / "w.json").write_text(json.dumps({"nb_res": 2, "jobs": jobs, "profiles": {"p": {"type": "delay", "delay": 1}}}))
    err = fails(capsys, "batch", tmp_path / "w.json", "--policy", "fcfs", "--optimal", "weighted")
    assert err == ("coschedule batch: error: clairvoyant optimum: 9 jobs, more than 8: the model is for tiny "
                   "instances (max_size lifts the limit)\n")


def test_help_shows_the_option(capsys):
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    out = capsys.readouterr().out
    assert "--optimal {max,weighted}" in out and "--time-limit T" in out and "--optimal max" in out
