"""The benchmark's rows report what the solvers proved, and their numbers are right."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from coschedule.bench import bench_kinp, bench_matching
from coschedule.exact import solve_kinp
from coschedule.exact.exhaustive import solve_exhaustive
from coschedule.generators import synthetic_instance


def test_kinp_rows_match_exhaustive_search():
    rows = list(bench_kinp({"3": [4], "n": [5]}, p=4, time_limit=30))
    assert [(r.k, r.n) for r in rows] == [("3", 4), ("n", 5)]
    for row in rows:
        k = row.n if row.k == "n" else int(row.k)
        ref = solve_exhaustive(synthetic_instance(row.n, 4, seed=row.n), k).objective
        assert row.default_status == "optimal"
        assert row.default_objective == pytest.approx(ref, rel=1e-9)
        if row.ilp_status == "optimal":
            assert row.ilp_objective == pytest.approx(ref, rel=1e-6)
            assert not row.speedup.startswith(">")
        else:
            assert row.ilp_status in ("feasible", "unknown") and row.speedup.startswith(">")


def test_ilp_not_rerun_after_it_fails_to_prove():
    rows = list(bench_kinp({"3": [7, 8]}, p=8, time_limit=0.5))
    assert rows[0].ilp_status in ("feasible", "unknown")
    assert rows[1].ilp_time is None and rows[1].ilp_status.startswith("skipped")
    assert rows[1].default_status == "optimal"


def test_matching_rows_are_optimal():
    (row,) = list(bench_matching([12], p=8, solver="networkx"))
    ref = solve_kinp(synthetic_instance(12, 8, seed=12), 2, method="subsetdp").objective
    assert row.status == "optimal" and row.solver == "networkx"
    assert row.objective == pytest.approx(ref, rel=1e-9)


TINY_SPEC = ('scenarios = 7\nheuristics = ["r-list-0", "r-shelf-b", "r-list-q"]\nqbar = [0, 0.2]\n'
             'priorities = ["LPT", "RANDOM"]\n'
             '[[source]]\nkind = "synthetic"\nsets = 2\nn = 8\nprocs = [1, 10]\nP = 20\n')


@pytest.fixture
def standin(tmp_path):
    """An executable with the authors' simulator's interface: the Python stand-in (NOT their code)."""
    script = Path(__file__).with_name("standin_authors_simulator.py")
    exe = tmp_path / "standin-authors-simulator"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{script}" "$@"\n')
    exe.chmod(0o755)
    return str(exe)


def test_bench_campaign_measures_and_says_what_it_did_not(tmp_path, capsys):
    from coschedule.bench import NOT_MEASURED, bench_campaign
    from coschedule.cli import main

    spec = tmp_path / "tiny.toml"
    spec.write_text(TINY_SPEC)
    row = bench_campaign(str(spec), workers=1)
    assert row.cells == 2 * 3 * 2 * 2 and row.simulations == row.cells * 7
    assert row.baseline is None and row.compute_seconds > 0
    assert not list(tmp_path.glob("*.sqlite"))  # a temporary database, removed afterwards
    assert main(["bench", "campaign", "--spec", str(spec), "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["campaign"]
    assert data["simulations"] == 168 and data["workers"] == 1 and data["baseline"] == NOT_MEASURED
    assert not {"speedup", "baseline_seconds"} & set(data)  # no estimate presented as a comparison
    assert main(["bench", "campaign", "--spec", str(spec), "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "not measured" in out and "C++ baseline for as many" not in out and "13 h" not in out
    assert main(["bench", "campaign", "--spec", str(tmp_path / "none.toml")]) == 2


def test_baseline_files_and_parsing(tmp_path, standin):
    """Our side of the exchange with the authors' simulator, checked with the stand-in."""
    from coschedule.baseline import BaselineError, run_baseline, write_failures, write_instance
    from coschedule.generators import synthetic_rigid
    from coschedule.heuristics.fast import makespans
    from coschedule.rigid import SilentErrors

    inst = synthetic_rigid(15, 2000, seed=4)
    f = SilentErrors.from_qbar(inst, 0.4).sample(inst, size=12, seed=5)
    write_instance(tmp_path / "i.txt", inst, "r-shelf-nb", "LA")
    lines = (tmp_path / "i.txt").read_text().splitlines()
    assert lines[0] == "0 2000 0 area 0 1 1" and len(lines) == 16
    assert lines[1].split()[1] == "rgd" and int(lines[1].split()[3]) == inst.jobs[0].procs
    write_failures(tmp_path / "f.txt", f)
    assert [list(map(int, row.split())) for row in (tmp_path / "f.txt").read_text().splitlines()] == f.tolist()
    for heuristic in ("r-list-0", "r-shelf-b", "r-shelf-nb"):
        for priority in ("LPT", "SA"):
            run = run_baseline(standin, inst, f, heuristic, priority)
            ours = makespans(inst, f, heuristic, priority=priority)
            assert run.scenarios == 12 and run.cpu_s >= 0 and run.wall_s > 0
            assert np.allclose(run.makespans, ours, rtol=1e-5, atol=0), (heuristic, priority)
    with pytest.raises(BaselineError, match="r-list-q needs a binary whose main passes m = 'all'"):
        run_baseline(standin, inst, f, "r-list-q", "LPT")
    with pytest.raises(BaselineError, match="r-shelffill-b is not reachable through the binary's interface"):
        run_baseline(standin, inst, f, "r-shelffill-b", "LPT", reserves="all")
    with pytest.raises(BaselineError, match="not an executable file"):
        run_baseline(tmp_path / "i.txt", inst, f, "r-list-0", "LPT")
    liar = tmp_path / "liar"
    liar.write_text("#!/bin/sh\necho 1 2 3\n")
    liar.chmod(0o755)
    with pytest.raises(BaselineError, match="printed 1 result lines for 12 scenarios"):
        run_baseline(liar, inst, f, "r-list-0", "LPT")


def test_bench_rlist_with_a_baseline_binary(standin, capsys):
    from coschedule.bench import NOT_MEASURED, RLIST_HEURISTICS, bench_rlist
    from coschedule.cli import main

    assert RLIST_HEURISTICS == ("r-list-0", "r-list-1", "r-list-q", "r-shelf-b", "r-shelf-nb",
                                "r-shelffill-b", "r-shelffill-nb")
    rows = {r.heuristic: r for r in bench_rlist(("r-list-0", "r-shelf-b", "r-shelffill-b"), n=12, P=4000,
                                                 scenarios=20, reference_scenarios=5, repeat=1,
                                                 baseline=standin)}
    for h in ("r-list-0", "r-shelf-b"):
        assert rows[h].baseline == "measured" and rows[h].baseline_agree == 20
        assert rows[h].baseline_ms > 0 and rows[h].baseline_ratio is not None
    assert rows["r-shelffill-b"].baseline.startswith(NOT_MEASURED + ": r-shelffill-b is not reachable")
    assert rows["r-shelffill-b"].baseline_ms is None
    (plain,) = bench_rlist(("r-list-0",), n=12, P=4000, scenarios=5, reference_scenarios=2, repeat=1)
    assert plain.baseline == NOT_MEASURED and "target_ms" not in plain.to_dict()
    code = main(["bench", "rlist", "--quick", "--jobs", "12", "--p", "4000", "--heuristics", "r-list-0,r-list-q"])
    out = capsys.readouterr().out
    assert code == 0 and "not measured" in out and "r-list-q" in out
    code = main(["bench", "rlist", "--quick", "--jobs", "12", "--p", "4000", "--heuristics", "r-list-0,r-list-q",
                 "--baseline-binary", standin, "--json"])
    data = json.loads(capsys.readouterr().out)["rlist"]
    assert code == 0 and [r["baseline"] == "measured" for r in data] == [True, False]
    assert data[0]["baseline_agree"] == 100


def test_bench_campaign_with_a_baseline_binary(tmp_path, standin):
    from coschedule.bench import bench_campaign
    from coschedule.bench.campaign import _campaign_baseline
    from coschedule.campaign import ResultStore, load_spec

    spec = tmp_path / "tiny.toml"
    spec.write_text(TINY_SPEC)
    row = bench_campaign(str(spec), workers=1, baseline=standin, db=str(tmp_path / "kept.sqlite"))
    b = row.baseline
    # r-list-0 and r-shelf-b, both priorities, 2 sets x 2 qbar; RANDOM is timed, not compared
    assert b.cells == 2 * 2 * 2 * 2 and b.scenarios == b.cells * 7
    assert b.compared == b.cells // 2 and b.agree == b.compared
    assert b.skipped == "r-list-q" and b.ours_s > 0 and b.ratio is not None
    # a binary whose main passes m = "all" runs the R-List-Q cells only (the stand-in, which
    # reserves nothing, stands in for its interface, not its schedules)
    with ResultStore.open(str(tmp_path / "kept.sqlite")) as store:
        rows = {r["id"]: r for r in store.rows()}
    q = _campaign_baseline(standin, load_spec(str(spec)).normalized(), rows, "all")
    assert q.cells == 2 * 2 * 2 and q.skipped == "r-list-0, r-shelf-b" and q.compared == 4


def test_baseline_reserves_say_what_the_binary_runs(tmp_path, standin, capsys):
    """``--baseline-reserves``: the m an edited main passes (zero, one, all) picks the heuristics
    the binary is run for; the instance file is R-List's (no shelf, no naive); the flag without
    a binary is a one-line error."""
    from coschedule.bench.baseline import supported, write_instance
    from coschedule.cli import main
    from coschedule.generators import synthetic_rigid

    assert supported("r-list-q", "LPT", "all") is None and supported("r-list-1", "SA", "one") is None
    assert "m = 'zero' (this one: 'all'" in supported("r-list-0", "LPT", "all")
    assert "m = 'one'" in supported("r-list-1", "LPT")
    assert "is not one of the binary's (zero, one, all)" in supported("r-list-0", "LPT", "some")
    inst = synthetic_rigid(6, 2500, seed=2)
    write_instance(tmp_path / "i.txt", inst, "r-list-q", "HPA", "all")
    assert (tmp_path / "i.txt").read_text().splitlines()[0] == "0 2500 0 procs 0 0 0"
    argv = ["bench", "rlist", "--quick", "--jobs", "12", "--p", "4000", "--heuristics", "r-list-q,r-list-0"]
    assert main([*argv, "--baseline-binary", standin, "--baseline-reserves", "all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["rlist"]
    assert [r["baseline"] == "measured" for r in data] == [True, False]
    assert 0 <= data[0]["baseline_agree"] <= 100 and "m = 'zero'" in data[1]["baseline"]
    assert main([*argv, "--baseline-reserves", "all"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--baseline-reserves" in err and "--baseline-binary" in err and "\n" not in err


def test_bench_kinp_quick_caps_at_10_s(capsys):
    from coschedule.cli import main

    assert main(["bench", "kinp", "--quick", "--n3", "4", "--nn", "4", "--no-ilp", "--matching-p", "8"]) == 0
    out = capsys.readouterr().out
    assert "cap 10 s each" in out and out.count("optimal") >= 4


def test_a_sigterm_swallowed_where_it_landed_still_ends_the_command():
    """A SIGTERM whose SystemExit is swallowed where it lands (as inside numba's compiler-cache
    callback from C: "Exception ignored on calling ctypes callback function") still exits 143
    when the guarded body is left; without a signal the body's result stands."""
    from coschedule.cli.bench import EXIT_SIGTERM, _sigterm_exits

    done = []
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as exc, _sigterm_exits():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1.0)  # the handler runs here
        except SystemExit:
            pass  # swallowed, as a C callback does
        done.append("the body went on")
    assert exc.value.code == EXIT_SIGTERM == 143 and done == ["the body went on"]
    with _sigterm_exits():
        done.append("no signal")
    assert done[-1] == "no signal" and signal.getsignal(signal.SIGTERM) == before  # the old handler is back


def test_sigterm_removes_the_temporary_database(tmp_path):
    """``bench campaign`` stopped by SIGTERM removes its database, as on Ctrl-C, and exits 143."""
    spec = tmp_path / "slow.toml"
    spec.write_text('scenarios = 400\nheuristics = ["r-list-q"]\nqbar = [0.3, 0.5, 0.7]\n'
                    '[[source]]\nkind = "synthetic"\nsets = 6\nn = 60\n')
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    proc = subprocess.Popen([sys.executable, "-m", "coschedule", "bench", "campaign", "--spec", str(spec),
                             "--workers", "1"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list(tmpdir.glob("coschedule-bench-*/bench.sqlite")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the database never appeared"
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err.decode()
    assert b"terminated (SIGTERM)" in err
    assert list(tmpdir.iterdir()) == []  # the temporary directory and its database are gone


def test_time_limit_rows_run_the_command_and_judge_its_wall(monkeypatch, capsys):
    """The time-limit case at a size that hits a 1 s limit quickly (n = 20, P = 100, k = 4, CBC):
    the whole command's wall against limit + margin, its status not optimal, the limit said."""
    from coschedule.bench import kinp
    from coschedule.cli import main

    monkeypatch.setitem(kinp.TIME_LIMIT_CASE, "n", 20)
    monkeypatch.setitem(kinp.TIME_LIMIT_CASE, "P", 100)
    monkeypatch.setitem(kinp.TIME_LIMIT_CASE, "limit", 1.0)
    (row,) = kinp.bench_time_limits(["cbc"])
    assert row.solver == "cbc" and row.limit == 1.0 and row.margin == 1.0
    assert row.status in ("feasible", "unknown") and row.reached and "time limit reached" in row.reached
    assert row.met == (row.wall <= 2.0) and abs(row.reported - row.wall) <= 0.5
    monkeypatch.setattr(kinp, "bench_time_limits", lambda progress=None: [row])
    monkeypatch.setattr(kinp, "MATCHING_SIZES", [20])
    assert main(["bench", "kinp", "--n3", "4", "--nn", "4", "--no-ilp"]) == 0
    out = capsys.readouterr().out
    assert "time limits: the paper's ILP of `generate synthetic --n 20 --P 100 --seed 1` for k = 4" in out
    assert f"cbc    wall {row.wall:6.2f} s (limit + 1 s: {'met' if row.met else 'NOT met'})" in out
