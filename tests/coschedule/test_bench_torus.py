"""``coschedule bench torus`` on tiny tori: the rows say what was measured (results identical,
ratios = time / fast's time, runs, 'not measured' with its reason), the cases, the CLI's text and
JSON, and exit status 1 when the finders disagree. No timing is asserted."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coschedule import bench_torus as bt
from coschedule.cli import main
from coschedule.errors import UnknownName
from coschedule.torus import free_partitions, max_free_partition, random_occupancy


def test_free_row_is_consistent():
    row = bt.bench_free("tiny", (4, 4, 4), 8, fraction=0.25, seed=3, repeat=3)
    occ = random_occupancy((4, 4, 4), 0.25, seed=3)
    assert row.kind == "free" and row.size == 8 and row.dims == (4, 4, 4) and row.agree
    assert row.result == len(free_partitions(occ, 8)) > 0
    assert row.runs == {"fast": 3, "appendix": 1, "appendix-early": 1}
    assert row.shapes == 7  # 1x2x4, 1x4x2, 2x1x4, 2x2x2, 2x4x1, 4x1x2, 4x2x1
    for m in ("appendix", "appendix-early"):
        assert row.seconds[m] > 0 and row.ratio(m) == row.seconds[m] / row.seconds["fast"]
    d = row.to_dict()
    assert d["ratios"] == {"appendix": row.ratio("appendix"), "appendix-early": row.ratio("appendix-early")}
    assert d["notes"] == {} and json.loads(json.dumps(d)) == d


def test_mfp_row_and_what_is_not_measured():
    occ = random_occupancy((4, 4, 4), 0.5, seed=0)
    row = bt.bench_mfp("tiny", (4, 4, 4), methods=("fast", "appendix-early"), skip=("appendix",),
                       skip_hint="--cases tiny-appendix measures it", repeat=2)
    assert row.kind == "mfp" and row.result == max_free_partition(occ).size and row.agree
    assert row.seconds["appendix"] is None and row.ratio("appendix") is None
    assert "appendix" not in row.runs
    checks = bt.appendix_mfp_checks(occ, row.result)
    assert row.notes == {"appendix": f"{checks:.3g} node checks; --cases tiny-appendix measures it"}
    assert row.to_dict()["notes"]["appendix"].startswith("not measured: ")
    full = bt.bench_mfp("tiny", (3, 3, 3), methods=("fast", "appendix", "appendix-early", "naive"), repeat=1)
    assert full.agree and set(full.seconds) == {"fast", "appendix", "appendix-early", "naive"}


def test_appendix_mfp_checks_by_hand():
    empty = np.zeros((2, 3, 4), dtype=bool)
    assert bt.appendix_mfp_checks(empty, 24) == 24  # one box, the whole torus
    assert bt.appendix_mfp_checks(np.ones((2, 3, 4), dtype=bool), 0) == 0
    line = np.zeros((1, 1, 4), dtype=bool)
    line[0, 0, 1] = True
    assert bt.appendix_mfp_checks(line, 3) == 3 * 4  # size 3: shape 1x1x3 at 4 bases
    # 1x2x4 with one node busy: sizes from the free count (7) down to the MFP (6, 1x2x3 at k = 1):
    # 7 has no shape, 6 is 1x2x3 at 4 bases (j is full)
    two = np.zeros((1, 2, 4), dtype=bool)
    two[0, 0, 0] = True
    assert max_free_partition(two).size == 6
    assert bt.appendix_mfp_checks(two, 6) == 6 * 4
    # down to 2: 4 (1x1x4 at 2 bases, 1x2x2 at 4), 3 (1x1x3 at 8) and 2 (1x1x2 at 8, 1x2x1 at 4); 5: none
    assert bt.appendix_mfp_checks(two, 2) == 6 * 4 + 4 * (2 + 4) + 3 * 8 + 2 * (8 + 4)


def test_cases():
    assert set(bt.DEFAULT_CASES) == set(bt.TORUS_CASES) - {"mfp-16-appendix"}
    assert list(bt.TORUS_CASES)[:3] == ["free-8", "free-64", "free-512"]
    with pytest.raises(UnknownName, match="unknown torus benchmark case 'free-9'"):
        bt.bench_torus(["free-9"])
    with pytest.raises(ValueError, match="repeat must be >= 1"):
        bt.bench_torus(["free-8"], repeat=0)


@pytest.fixture
def tiny_cases(monkeypatch):
    """The default cases on tiny tori (the same functions, smaller arguments)."""
    monkeypatch.setitem(bt.TORUS_CASES, "free-8", lambda r, p: bt.bench_free("free-8", (4, 4, 4), 8, repeat=r,
                                                                              progress=p))
    monkeypatch.setitem(bt.TORUS_CASES, "mfp-16", lambda r, p: bt.bench_mfp(
        "mfp-16", (4, 4, 4), methods=("fast", "appendix-early"), skip=("appendix",),
        skip_hint="--cases mfp-16-appendix measures it", repeat=r, progress=p))
    monkeypatch.setitem(bt.TORUS_CASES, "mfp-bgl", lambda r, p: bt.bench_mfp("mfp-bgl", (4, 4, 8), repeat=r,
                                                                              progress=p))


def test_cli_text(capsys, tiny_cases):
    assert main(["bench", "torus", "--cases", "free-8,mfp-bgl,mfp-16", "--repeat", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("torus partition finders on random occupancies") and "least of 2 runs" in out[0]
    assert out[1] == "free partitions of s nodes:"
    assert out[2].split() == ["torus", "busy", "s", "shapes", "found", "fast", "appendix", "ratio", "appendix-early",
                              "ratio", "identical"]
    assert out[3].split()[:5] == ["4x4x4", "50%", "8", "7", str(len(free_partitions(
        random_occupancy((4, 4, 4), 0.5, seed=0), 8)))]
    assert out[3].endswith("yes")
    assert out[4] == "maximal free partition:"
    bgl, m16 = out[6].split(), out[7].split()
    assert bgl[:2] == ["4x4x8", "50%"] and bgl[4:] == ["-"] * 4 + ["yes"]
    assert m16[:2] == ["4x4x4", "50%"] and m16[4:6] == ["n/m", "n/m"] and m16[-1] == "yes"
    assert out[8].startswith("n/m: mfp-16 by appendix: not measured: ") and out[8].endswith(
        "node checks; --cases mfp-16-appendix measures it")


def test_cli_json(capsys, tiny_cases):
    assert main(["bench", "torus", "--cases", "free-8,mfp-16", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["torus"]
    assert data["repeat"] == 5
    free, mfp = data["rows"]
    assert free["case"] == "free-8" and free["agree"] and free["runs"]["fast"] == 5
    assert free["ratios"]["appendix"] == free["seconds"]["appendix"] / free["seconds"]["fast"]
    assert mfp["seconds"]["appendix"] is None and mfp["ratios"]["appendix"] is None
    assert mfp["notes"]["appendix"].startswith("not measured: ")


def test_cli_exits_1_when_the_finders_disagree(capsys, monkeypatch):
    def wrong(repeat, progress):
        row = bt.bench_free("free-8", (2, 2, 2), 2, repeat=1)
        return bt.FinderRow(**{**row.__dict__, "agree": False})

    monkeypatch.setitem(bt.TORUS_CASES, "free-8", wrong)
    assert main(["bench", "torus", "--cases", "free-8"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[3].endswith("NO")
    assert err == "coschedule bench: the finders disagree on free-8\n"


def test_cli_unknown_case_is_one_line(capsys):
    assert main(["bench", "torus", "--cases", "mfp-99"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("coschedule bench: error: unknown torus benchmark case 'mfp-99'") and err.count("\n") == 1


def test_simulation_row_on_a_small_log(capsys, monkeypatch):
    """A whole simulation's row: the run validated, CPU and wall measured, the ratio to the
    target; the CLI prints it in its own table (a small log stands in for NASA)."""
    from coschedule.sim.workload import Workload
    from coschedule.torus.metrics import torus_metrics
    from coschedule.torus.run import run_torus
    from coschedule.torus.workload import torus_workload

    rng = np.random.default_rng(2)
    n = 60
    w = Workload(tuple(map(str, range(n))), np.sort(rng.uniform(0, 3000, n)), rng.choice([1, 2, 4, 8, 16], n),
                 np.full(n, 400.0), rng.uniform(10, 400, n), 128, name="small")
    jobs = torus_workload(w, (4, 4, 8))
    row = bt.bench_simulation("sim-small", "balancing", jobs=jobs, failure_count=40, confidence=0.5, repeat=2)
    assert row.kind == "sim" and row.agree and row.jobs == n and row.failures == 40 and row.runs == 2
    assert row.cpu > 0 and row.wall > 0 and row.ratio() == row.cpu / bt.SIM_TARGET
    ref = run_torus(jobs, "balancing", failure_count=40, seed=0, confidence=0.5)
    assert row.mean_bsld == torus_metrics(ref).mean_bsld
    assert json.loads(json.dumps(row.to_dict()))["ratio_to_target"] == row.ratio()
    monkeypatch.setitem(bt.TORUS_CASES, "sim-nasa", lambda repeat, progress: row)
    assert main(["bench", "torus", "--cases", "sim-nasa"]) == 0
    out = capsys.readouterr().out
    assert "one whole simulation" in out and "sim-small" in out and "/ target" in out
    assert "partition finders" not in out


def test_the_whole_command_row(monkeypatch, capsys):
    """A torus whole-command case: `coschedule torus simulate` in a fresh process beside the
    run_torus it calls (the toy workload on 2x2x2 here, for speed), printed in its own section."""
    from coschedule.bench.common import measure_command

    def toy(repeat, progress):
        return measure_command("sim-toy-command", ["torus", "simulate", "batch/toy.json", "--policy", "fcfs",
                                                   "--shape", "2x2x2"], "coschedule.heuristics.torus.run:run_torus")

    monkeypatch.setitem(bt.TORUS_CASES, "sim-toy-command", toy)
    assert "sim-nasa-command" in bt.DEFAULT_CASES
    assert main(["bench", "torus", "--cases", "sim-toy-command"]) == 0
    out = capsys.readouterr().out
    assert "partition finders" not in out and "the whole command, in a fresh process" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("sim-toy-command"))
    assert "whole/simulation" in line and "target: none set" in line
    assert "$ coschedule torus simulate batch/toy.json --policy fcfs --shape 2x2x2" in out
    assert main(["bench", "torus", "--cases", "sim-toy-command", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["torus"]["rows"]
    assert row["kind"] == "command" and 0 < row["sim_cpu_s"] < row["whole_cpu_s"] and row["met"] is None
