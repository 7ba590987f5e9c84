"""One CLI, one vocabulary: one spelling per concept (old ones as hidden aliases), options of
the other problem kind refused, heuristics matched to the instance, every schedule kind the
toolkit writes verified, SWF traces read by run/solve/verify and written as instances."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from coschedule.cli import build_parser, main
from coschedule.io import load_rigid_instance, load_schedule
from coschedule.rigid import FailureScenario
from coschedule.validate import validate_rigid

ROOT = Path(__file__).resolve().parents[2]
FIG = str(ROOT / "instances" / "kinp" / "figure-1-1.json")
SMALL = str(ROOT / "instances" / "rigid" / "small-n8-P8.json")

# a tiny SWF log: no UnixStartTime, so day k = floor(submit / 86400); jobs 3 (run time 0) and 6
# (processors -1) are not usable
SWF = """; Version: 2.2
; MaxProcs: 8
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 10 0 50 4 -1 -1 4 60 -1 1 1 1 1 1 -1 -1 -1
3 20 0 0 1 -1 -1 1 60 -1 0 1 1 1 1 -1 -1 -1
4 86400 0 30 8 -1 -1 8 60 -1 1 1 1 1 1 -1 -1 -1
5 86500 0 70 3 -1 -1 3 80 -1 5 1 1 1 1 -1 -1 -1
6 86600 0 70 -1 -1 -1 -1 80 -1 1 1 1 1 1 -1 -1 -1
"""


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


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
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.swf.gz"
    path.write_bytes(gzip.compress(SWF.encode()))
    return path


# ---------------------------------------------------------------- spellings


def test_old_spellings_are_hidden_aliases(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "generate", "rigid", "--n", "5", "--P", "3000", "--seed", "3", "-o", a)[0] == 0
    assert run(capsys, "generate", "rigid", "--n", "5", "--p", "3000", "--seed", "3", "-o", b)[0] == 0
    assert a.read_text() == b.read_text()
    assert run(capsys, "generate", "rigid", "--n", "5", "--p=3000", "--seed", "3", "-o", b)[0] == 0
    assert a.read_text() == b.read_text()
    sub = next(x for x in build_parser()._actions if hasattr(x, "choices") and x.choices)
    generate_help = sub.choices["generate"].format_help()
    assert "--P" in generate_help and "--p " not in generate_help
    simulate_help = sub.choices["simulate"].format_help()
    for canonical, old in (("--heuristic", "--heuristics"), ("--priority", "--priorities"), ("--n", "--jobs")):
        assert canonical in simulate_help and old not in simulate_help


def test_simulate_dry_run_same_grid_with_either_spelling(capsys, tmp_path):
    new = ("--synthetic", "2", "--n", "10", "--heuristic", "r-list-0,r-shelf-nb", "--priority", "LPT,LA")
    old = ("--synthetic", "2", "--jobs", "10", "--heuristics", "r-list-0,r-shelf-nb", "--priorities", "LPT,LA")
    outs = []
    for flags in (new, old):
        code, out, _ = run(capsys, "simulate", *flags, "--db", tmp_path / "x.sqlite", "--dry-run", "--json")
        assert code == 0
        outs.append(json.loads(out))
    assert outs[0] == outs[1]
    assert outs[0]["heuristics"] == 2 and outs[0]["priorities"] == 2


def test_generate_json_is_a_summary_of_what_was_written(capsys, tmp_path):
    path = tmp_path / "g.json"
    code, out, _ = run(capsys, "generate", "synthetic", "--n", "4", "--P", "8", "--seed", "1", "-o", path, "--json")
    assert code == 0
    summary = json.loads(out)
    written = json.loads(path.read_text())
    assert summary["output"] == str(path) and summary["format"] == written["format"]
    assert summary["n"] == 4 == len(written["tasks"]) and summary["P"] == 8 == written["p"]


# ---------------------------------------------------------------- the instance's kind decides


def test_heuristic_of_the_other_kind_is_named(capsys):
    err = fails(capsys, "run", "r-list-0", FIG)
    assert "'r-list-0' needs a rigid-job instance" in err and "pack-approx" in err
    err = fails(capsys, "run", "pack-approx", SMALL)
    assert "'pack-approx' needs a moldable (k-in-p) instance" in err and "r-list-0" in err


@pytest.mark.parametrize("typo, suggestion, path", [("pak-approx", "pack-approx", FIG),
                                                    ("r-shelf-bb", "r-shelf-b", SMALL)])
def test_typo_gets_the_closest_name(capsys, typo, suggestion, path):
    assert f"did you mean {suggestion!r}" in fails(capsys, "run", typo, path)


@pytest.mark.parametrize("argv, flags", [
    (["solve", SMALL, "--k", "3"], "--k"),
    (["solve", SMALL, "--compare", "--method", "ilp"], "--compare, --method"),
    (["run", "r-list-0", SMALL, "--k", "2"], "--k"),
    (["solve", FIG, "--qbar", "0.2"], "--qbar"),
    (["run", "pack-approx", FIG, "--priority", "LA", "--seed", "3"], "--seed, --priority"),
    (["solve", FIG, "--shelf"], "--shelf"),
    (["verify", SMALL, SMALL, "--k", "2"], "--k"),
    (["verify", FIG, FIG, "--contiguous"], "--contiguous"),
])
def test_options_of_the_other_kind_are_refused(capsys, argv, flags):
    err = fails(capsys, *argv)
    assert f"{flags} cannot apply to" in err


# ---------------------------------------------------------------- verify every kind


def test_verify_accepts_what_run_writes_and_catches_a_missing_attempt(capsys, tmp_path):
    out = tmp_path / "s.json"
    assert run(capsys, "run", "r-list-0", SMALL, "--qbar", "0.4", "--seed", "2", "-o", out)[0] == 0
    data = json.loads(out.read_text())
    assert sum(data["failures"]) > 0  # the scenario travels with the schedule
    code, text, _ = run(capsys, "verify", SMALL, out, "--json")
    assert code == 0 and json.loads(text)["valid"] and json.loads(text)["failures"] == sum(data["failures"])
    # without the header's scenario, the schedule's own attempts are the scenario (and said so)
    failures = data.pop("failures")
    out.write_text(json.dumps(data))
    code, text, _ = run(capsys, "verify", SMALL, out)
    assert code == 0 and "its own failed attempts" in text
    # drop one failed attempt (and renumber, so that the attempts alone look complete): the
    # header's scenario catches it
    failed = next(i for i, e in enumerate(data["executions"]) if e["outcome"] == "failure")
    job = data["executions"].pop(failed)["job"]
    for e in data["executions"]:
        if e["job"] == job:
            e["attempt"] -= 1
    data.pop("makespan")
    data["failures"] = failures
    out.write_text(json.dumps(data))
    code, text, _ = run(capsys, "verify", SMALL, out)
    assert code == 1 and text.startswith("INVALID")


def test_verify_a_solve_schedule_against_a_scenario_file(capsys, tmp_path):
    out, scen = tmp_path / "opt.json", tmp_path / "f.json"
    inst = load_rigid_instance(SMALL)
    scen.write_text(json.dumps({"format": "coschedule/failure-scenario", "version": 1,
                                "failures": [1] + [0] * (inst.n - 1)}))
    assert run(capsys, "solve", SMALL, "--scenario", scen, "--time-limit", "20", "-o", out)[0] == 0
    code, text, _ = run(capsys, "verify", SMALL, out, "--scenario", scen)
    assert code == 0 and text.startswith("valid:")
    scen.write_text(json.dumps({"format": "coschedule/failure-scenario", "version": 1,
                                "failures": [0] * inst.n}))
    code, text, _ = run(capsys, "verify", SMALL, out, "--scenario", scen)
    assert code == 1 and "INVALID" in text


# ---------------------------------------------------------------- SWF traces


def test_convert_a_day_and_run_it_directly_give_the_same(capsys, tmp_path, trace):
    day1 = tmp_path / "day1.json"
    code, out, _ = run(capsys, "convert", trace, "--day", "1", "-o", day1)
    assert code == 0 and "2 jobs of day 1" in out
    inst = load_rigid_instance(day1)
    assert [(j.procs, j.time) for j in inst.jobs] == [(8, 30.0), (3, 70.0)] and inst.P == 8
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "run", "r-list-0", day1, "--qbar", "0.5", "--seed", "4", "-o", a)[0] == 0
    assert run(capsys, "run", "r-list-0", trace, "--day", "1", "--qbar", "0.5", "--seed", "4", "-o", b)[0] == 0
    sa, ha = load_schedule(a)
    sb, hb = load_schedule(b)
    assert sa == sb and ha["failures"] == hb["failures"]
    assert validate_rigid(inst, FailureScenario(tuple(ha["failures"])), sb) == pytest.approx(ha["makespan"])
    assert run(capsys, "verify", trace, "--day", "1", b)[0] == 0


def test_whole_trace_and_bad_days(capsys, tmp_path, trace):
    code, out, _ = run(capsys, "solve", trace, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["result"]["status"] == "optimal"
    # usable jobs (procs, time) on P = 8: (2, 100), (4, 50), (8, 30), (3, 70); the 8-wide job runs
    # alone (30); the other three never fit together (9 > 8), and the best pair order ends at 120
    assert data["result"]["objective"] == pytest.approx(150.0)
    assert "day 5 has no usable job" in fails(capsys, "run", "r-list-0", trace, "--day", "5")
    assert "--day applies to SWF traces" in fails(capsys, "run", "r-list-0", SMALL, "--day", "1")
    assert "expected an integer >= 0" in fails(capsys, "run", "r-list-0", trace, "--day", "-1")
    assert "expected an SWF trace" in fails(capsys, "convert", SMALL, "-o", tmp_path / "x.json")
