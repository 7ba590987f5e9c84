"""The CLI: results agree with the library, bad input gives one line and exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from coschedule.cli import main
from coschedule.generators import random_instance
from coschedule.io import instance_to_dict, load_coschedule, load_instance, save_instance
from coschedule.validate import validate_coschedule
from coschedule.exact.exhaustive import solve_exhaustive

ROOT = Path(__file__).resolve().parents[2]
FIG = ROOT / "instances" / "kinp" / "figure-1-1.json"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, name: str, data) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_solve_json_matches_exhaustive_and_validates(capsys, tmp_path):
    code, out, _ = run(capsys, "solve", str(FIG), "--k", "3", "--json", "-o", str(tmp_path / "s.json"))
    assert code == 0
    data = json.loads(out)
    inst = load_instance(FIG)
    ref = solve_exhaustive(inst, 3).objective
    assert data["result"]["status"] == "optimal"
    assert data["result"]["objective"] == pytest.approx(ref, rel=1e-9)
    cs, header = load_coschedule(tmp_path / "s.json")
    assert validate_coschedule(inst, cs, 3, claimed_cost=header["cost"]) == pytest.approx(ref)


def test_solve_text_states_proof_and_compares(capsys):
    code, out, _ = run(capsys, "solve", str(FIG), "--k", "3", "--compare")
    assert code == 0
    assert "optimal: 114" in out
    assert "pack-approx" in out and "ratio to optimum" in out


def test_time_limited_ilp_never_claims_optimal(capsys, tmp_path):
    inst = random_instance(8, 8, seed=3)
    path = tmp_path / "i.json"
    save_instance(inst, path)
    code, out, _ = run(capsys, "solve", str(path), "--k", "3", "--method", "ilp",
                       "--solver", "cbc", "--time-limit", "0.5", "--json")
    assert code == 0
    status = json.loads(out)["result"]["status"]
    assert status in ("feasible", "unknown")


def test_without_k_the_output_says_k_is_p(capsys):
    code, out, _ = run(capsys, "run", "pack-approx", str(FIG))
    assert code == 0 and ", k = 8 (no --k given: k = p, no limit on the tasks per pack)" in out.splitlines()[0]
    code, out, _ = run(capsys, "run", "pack-approx", str(FIG), "--k", "3")
    assert code == 0 and out.splitlines()[0].endswith(", k = 3")


def test_top_level_help_names_the_five_problems(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "for five problems" in text
    for name in ("k-in-p", "R-List", "conservative backfilling", "torus", "malleable"):
        assert name in text


def test_run_reports_ratio_at_least_one(capsys):
    code, out, _ = run(capsys, "run", "pack-approx", str(FIG), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["optimum"]["status"] == "optimal"
    assert data["ratio"] >= 1 - 1e-9
    assert data["ratio"] <= 3 + 1e-9  # Thm 1.6, p-in-p (k defaults to p)


def test_generate_is_seeded(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["generate", "synthetic", "--n", "5", "--p", "8", "--seed", "4", "-o", str(a)]) == 0
    assert main(["generate", "synthetic", "--n", "5", "--p", "8", "--seed", "4", "-o", str(b)]) == 0
    assert a.read_text() == b.read_text()
    assert load_instance(a).n == 5


def test_verify_accepts_and_rejects(capsys, tmp_path):
    sol = tmp_path / "s.json"
    assert main(["solve", str(FIG), "--k", "3", "-o", str(sol)]) == 0
    capsys.readouterr()
    code, out, _ = run(capsys, "verify", str(FIG), str(sol))
    assert code == 0 and out.startswith("valid")
    data = json.loads(sol.read_text())
    data["packs"][0]["tasks"].pop()  # drop a task
    bad = write(tmp_path, "bad.json", data)
    code, out, _ = run(capsys, "verify", str(FIG), bad)
    assert code == 1 and "INVALID" in out and "no pack" in out


GOOD = instance_to_dict(random_instance(3, 4, seed=1))


def _mutated(**changes):
    data = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if key == "times1":
            data["tasks"][1]["times"] = value
        elif key == "min0":
            data["tasks"][0]["min_procs"] = value
        else:
            data[key] = value
    return data


BAD_INPUTS = [
    ("malformed", '{"format": "coschedule/moldable-instance", "p": 4,', "malformed JSON"),
    ("not-monotone", _mutated(times1=[5, 6, 7, 8]), "tasks[1]: time increases"),
    ("work-decreases", _mutated(times1=[8, 2, 1, 1]), "violating (1.2)"),
    ("negative", _mutated(times1=[5, -1, 1, 1]), "tasks[1].times[1]: negative time"),
    ("not-a-number", _mutated(times1=[5, "x", 1, 1]), "tasks[1].times[1]: not a number"),
    ("too-wide", _mutated(min0=9), "platform has p = 4"),
    ("wrong-format", _mutated(format="other"), "format is 'other'"),
    ("bad-version", _mutated(version=7), "unsupported version 7"),
    ("missing-p", {k: v for k, v in GOOD.items() if k != "p"}, "missing field 'p'"),
]


@pytest.mark.parametrize("name,content,message", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
@pytest.mark.parametrize("command", ["solve", "run"])
def test_bad_instance_one_line_exit_2(capsys, tmp_path, name, content, message, command):
    path = write(tmp_path, f"{name}.json", content)
    argv = ["solve", path] if command == "solve" else ["run", "pack-approx", path]
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert message in err and path in err


@pytest.mark.parametrize(
    "argv,message",
    [
        (["solve", str(FIG), "--solver", "gurobi"], "unknown solver 'gurobi'"),
        (["solve", str(FIG), "--method", "magic"], "unknown method 'magic'"),
        (["run", "best-fit", str(FIG)], "unknown heuristic 'best-fit'"),
        (["solve", str(FIG), "--k", "2", "--method", "matching", "--solver", "highs"],
         "unknown solver for matching"),
        (["solve", "/nonexistent/x.json"], "no such file"),
    ],
)
def test_bad_names_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["solve", str(FIG), "--k", "0"], ["solve", str(FIG), "--k", "-1"],
                                  ["solve", str(FIG), "--time-limit", "-3"],
                                  ["counterexample", "prop3", "--P", "-8"],
                                  ["counterexample", "prop3", "--P=-8"]])
def test_bad_numbers_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "expected a positive" in err or "expected one argument" in err
    assert err.count("\n") == 1, err  # one line, no usage block
    assert err.startswith(f"coschedule {argv[0]}: error: ")


@pytest.mark.parametrize("argv", [["solve"], ["solve", str(FIG), "--nope"], ["frobnicate"], []])
def test_usage_errors_are_one_line(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err and "usage:" not in err, err


def test_console_script_exit_status_and_help():
    exe = [sys.executable, "-m", "coschedule.cli"]
    res = subprocess.run(exe + ["solve", "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and "examples:" in res.stdout
    res = subprocess.run(exe + ["run", "nope", str(FIG)], capture_output=True, text=True)
    assert res.returncode == 2 and "Traceback" not in res.stderr


def test_plot_written(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "p.png"
    assert main(["solve", str(FIG), "--k", "3", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
