"""Edge-case inputs that used to end in a traceback or run without end (issue 27): each is now a
one-line error with exit status 2, before any work."""

from __future__ import annotations

import pytest

from coschedule.cli import main

CASES = [
    (["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "100", "--seed", "-1"],
     "argument --seed: expected an integer >= 0, got -1"),
    (["torus", "simulate", "batch/toy.json", "--shape", "2x2x2", "--policy", "fcfs", "--failure-count", "3", "--seed",
      "-1"], "argument --seed: expected an integer >= 0, got -1"),
    (["redistrib", "generate", "--n", "5", "--P", "16", "--seed", "-1"],
     "argument --seed: expected an integer >= 0, got -1"),
    (["batch", "batch/toy.json", "--policy", "easy", "--nodes", "1000000000000000000"],
     "a platform of 1,000,000,000,000,000,000 nodes, more than 10,000,000"),
    (["batch", "batch/toy.json", "--policy", "easy", "--nodes", "99999999999999999999"],
     "a platform of 99,999,999,999,999,999,999 nodes, more than 10,000,000"),
    (["redistrib", "generate", "--n", "100000000000", "--P", "1000000000000"], "not enough memory: cannot allocate"),
    (["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "1e-300"],
     "job J3 (6 nodes, 10 s) expects inf restarts per run at --node-mtbf 1e-300 s (the limit is 10000): the run "
     "would not end"),
    (["batch", "KTH-SP2-1996-2.1-cln", "--policy", "easy", "--node-mtbf", "100000"],
     "job 10504 (64 nodes, 179220 s) expects 6.52e+49 restarts per run at --node-mtbf 1.16 d (100,000 s)"),
    (["batch", "KTH-SP2-1996-2.1-cln", "--policy", "easy", "--node-mtbf", "1e7", "--downtime", "1e13"],
     "job 2324 waits for 100 of the 100 nodes up at once, a chance of 0 with --downtime 3.17e+05 y (1e+13 s)"),
    (["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "1e7", "--checkpoint-cost", "1e18"],
     "restarts per checkpoint period at --node-mtbf 116 d (10,000,000 s) (the limit is 10000): the run would not end; raise "
     "--node-mtbf or lower --checkpoint-cost"),
    (["redistrib", "synthetic-n20-p100", "--at-end", "greedy", "--at-failure", "iterated", "--node-mtbf", "1d"],
     "application T3 expects 8.05e+27 restarts of a checkpoint period even at its best processor count (46) at "
     "--node-mtbf 1 d (the limit is 10000): the run would not end"),
    (["redistrib", "synthetic-n20-p100", "--at-end", "greedy", "--at-failure", "iterated", "--node-mtbf", "1e-300"],
     "at a processor MTBF of 1e-300 s a checkpoint period holds its checkpoint and no work"),
    (["simulate", "demo", "--dask", "notanaddress"], "cannot reach the Dask scheduler at notanaddress"),
    (["batch", "batch/toy.json", "--policy", "easy", "--plot", "run.xyz"],
     "argument --plot: run.xyz: .xyz is not a picture format"),
    (["redistrib", "synthetic-n20-p100", "--at-end", "none", "--at-failure", "none", "--plot", "run.csv"],
     ".csv is not a picture format"),
    (["batch", "batch/toy.json", "--policy", "easy", "-o", "nodir/jobs.csv"],
     "nodir/jobs.csv: no such directory: nodir"),
    (["torus", "simulate", "batch/toy.json", "--shape", "2x2x2", "--policy", "fcfs", "--failure-count",
      "1000000000000"], "failure count 1,000,000,000,000 is more than 10,000,000"),
    (["torus", "simulate", "batch/toy.json", "--shape", "1000x1000x1000", "--policy", "fcfs"],
     "torus shape 1000x1000x1000: 1,000,000,000 nodes, more than 4,194,304"),
    (["torus", "mfp", "--shape", "2000x2000x2000", "--occupied", "torus/example-8x8x8.txt"],
     "torus shape 2000x2000x2000: 8,000,000,000 nodes, more than 4,194,304"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(a[:2]) + f" #{k}" for k, (a, _) in enumerate(CASES)])
def test_one_line_exit_2(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's errors
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # nothing written


def test_checkpoints_make_the_same_mtbf_feasible(capsys):
    """The refusal is about restarts per segment: with checkpoints the segment is a period."""
    assert main(["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "1e4", "--checkpoint-cost", "1"]) == 0


def test_a_folder_as_the_output_is_refused_and_left_alone(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "out")
    for target in ("out", "link"):
        assert main(["batch", "batch/toy.json", "--policy", "easy", "-o", target]) == 2
        err = capsys.readouterr().err
        assert err == f"coschedule batch: error: {target}: is a directory, expected a file to write\n"
    assert (tmp_path / "link").is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["link", "out"]
    assert not list((tmp_path / "out").iterdir())


def test_a_dotted_name_with_digits_is_a_figure_name(capsys, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    assert main(["batch", "batch/toy.json", "--policy", "easy", "--plot", "fig.v2"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig.v2.png", "fig.v2.svg"]


def test_times_a_float_cannot_hold_are_refused(capsys, tmp_path):
    """A job at 1e18 s used to get flow 0 and its work vanished from the utilization; a load scale
    of 1e300 reported nan. Both are one-line errors now."""
    import json

    jobs = [{"id": "a", "subtime": 0, "res": 2, "walltime": 100, "profile": "p"},
            {"id": "b", "subtime": 1e18, "res": 2, "walltime": 100, "profile": "p"}]
    path = tmp_path / "far.json"
    path.write_text(json.dumps({"nb_res": 4, "jobs": jobs, "profiles": {"p": {"type": "delay", "delay": 50}}}))
    assert main(["batch", str(path), "--policy", "easy"]) == 2
    assert "job b: submit time plus wall time 1e+18 s is beyond 1e+15 s" in capsys.readouterr().err
    assert main(["torus", "simulate", "batch/toy.json", "--shape", "2x2x2", "--policy", "fcfs", "--load-scale",
                 "1e300"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is beyond 1e+15 s" in err


def test_a_short_job_late_in_time_is_refused_not_blurred():
    from coschedule.errors import InvalidInstance
    from coschedule.sim.workload import Workload

    with pytest.raises(InvalidInstance, match="cannot hold its length 0.001 s to 0.1 %"):
        Workload(("a",), [1e14], [1], [0.001], [0.001], 1)
    Workload(("a",), [1e9], [1], [0.001], [0.001], 1)  # a millisecond at 30 years: kept


def test_convert_of_a_trace_without_a_usable_job_writes_nothing(capsys, tmp_path):
    swf = tmp_path / "empty.swf"
    swf.write_text("; MaxProcs: 4\n1 0 0 -1 4 -1 -1 4 10 -1 1 1 1 1 1 1 -1 -1\n")
    assert main(["convert", str(swf), "--to", "batsim", "-o", str(tmp_path / "e.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no usable job (1 dropped: run time or size unknown); nothing written" in err
    assert not (tmp_path / "e.json").exists()


MESSAGES = [  # (files to write, argv, the one line's end)
    ({"bigint.swf": "; MaxProcs: 4\n1 0 0 10 1000000000000000000 -1 -1 4 10 -1 1 1 1 1 1 1 -1 -1\n"},
     ["batch", "bigint.swf", "--policy", "easy"],
     "bigint.swf:2: field 5 (allocated processors) is too large: 1000000000000000000 (at most 2^53)"),
    ({}, ["batch", "batch/toy.json", "--policy", "easy", "--window", "-5:-1"],
     "argument --window: expected START:END (seconds, or with units: 10d:30d) with 0 <= START < END, got '-5:-1'"),
    ({"db/x": ""}, ["report", "db"], "db: is a directory, expected a campaign database (a .sqlite file)"),
    ({"bad.toml": 'simulator = "batch"\nname = "bad"\npolicies = ["easy"]\nprune = 0.7\n[[source]]\n'
                  'kind = "batsim"\npath = "TOY"\n'},
     ["simulate", "bad.toml", "--dry-run"], "bad.toml: prune must be a fraction in [0, 0.5), got 0.7"),
    ({"neg.json": '{"nb_res": 4, "jobs": [{"id": "a", "subtime": -5, "res": 2, "walltime": 100, "profile": "p"}], '
                  '"profiles": {"p": {"type": "delay", "delay": 50}}}'},
     ["batch", "neg.json", "--policy", "easy"], "got -5.0"),
]


@pytest.mark.parametrize(("files", "argv", "message"), MESSAGES, ids=[m[1][0] + f" #{k}" for k, m in enumerate(MESSAGES)])
def test_messages_say_what_is_wrong_in_the_users_terms(capsys, tmp_path, monkeypatch, files, argv, message):
    from coschedule.data import instances_dir

    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text.replace("TOY", str(instances_dir() / "batch" / "toy.json")))
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.rstrip("\n").endswith(message), err
    assert "np.float64" not in err


def test_a_torus_spec_with_too_many_failures_fails_before_its_database(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.toml").write_text('simulator = "torus"\nname = "big"\npolicies = ["fcfs"]\nshape = "4x4x8"\n'
                                       'failure_count = [1000000000000]\n[[source]]\nkind = "swf"\n'
                                       'path = "NASA-iPSC-1993-3.1-cln"\n')
    assert main(["simulate", "big.toml"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "failure_count: 1,000,000,000,000 failures is more than 10,000,000" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.toml"]  # no database


@pytest.mark.parametrize(("change", "message"), [
    ({"seq": 1e300}, "t(1) at most 1e+15 s (31.7 million years), got 1e+300"),
    ({"par": 1e300}, "t(1) at most 1e+15 s"),
    ({"memory": 10**18}, "memory must be a finite number in [0, 1e+15], got 1e+18"),
    ({"p": 10**18}, "p = 1,000,000,000,000,000,000 processors, more than 10,000,000"),
], ids=["seq", "par", "memory", "p"])
def test_a_pack_that_would_run_without_end_is_refused(capsys, tmp_path, change, message):
    """Each of these ran until killed (issue 27, point 2)."""
    import json

    pack = {"format": "coschedule/malleable-pack", "version": 1, "p": 16, "applications": [
        {"name": "T0", "memory": 1973189, "seq": 6602163.4, "par": 117188400.2},
        {"name": "T1", "memory": 2011822, "seq": 6740431.4, "par": 119642656.6}]}
    if "p" in change:
        pack["p"] = change["p"]
    else:
        pack["applications"][0].update(change)
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(pack))
    assert main(["redistrib", str(path), "--at-end", "greedy", "--at-failure", "iterated"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_redistribution_downtime_past_the_horizon_is_refused(capsys):
    assert main(["redistrib", "synthetic-n20-p100", "--at-end", "greedy", "--at-failure", "iterated",
                 "--downtime", "1e18"]) == 2
    assert "downtime 1e+18 s is beyond 1e+15 s" in capsys.readouterr().err


def test_an_array_past_numpys_largest_size_is_one_line(capsys, monkeypatch):
    """numpy says "Maximum allowed dimension exceeded" (a ValueError, not a MemoryError) for an
    array past its index range: one line, exit 2; any other ValueError is a bug, and surfaces."""
    import coschedule.cli.batch as cb

    def huge(*_args, **_kwargs):
        raise ValueError("Maximum allowed dimension exceeded")

    monkeypatch.setattr(cb, "_refuse_endless", huge)
    assert main(["batch", "batch/toy.json", "--policy", "easy"]) == 2
    err = capsys.readouterr().err
    assert err == "coschedule batch: error: not enough memory: an array past numpy's largest size; use smaller sizes\n"

    def bug(*_args, **_kwargs):
        raise ValueError("a bug")

    monkeypatch.setattr(cb, "_refuse_endless", bug)
    with pytest.raises(ValueError, match="a bug"):
        main(["batch", "batch/toy.json", "--policy", "easy"])


def test_a_failure_trace_that_would_not_end_is_refused(capsys, tmp_path, monkeypatch):
    """A job of 1e13 s with checkpoints expects few restarts per period, but its failure trace,
    drawn a day at a time, spans 290 million days (it ran until stopped); a pack whose application
    needs 1e12 s at best likewise."""
    import json

    from coschedule.data import instances_dir

    monkeypatch.chdir(tmp_path)
    (tmp_path / "long.swf").write_text("; MaxProcs: 8\n1 0 -1 10000000000000 2 -1 -1 2 10000000000000 -1 1 1 1 1 -1 -1 "
                                       "-1 -1\n")
    pack = json.loads((instances_dir() / "redistribution" / "synthetic-n20-p100.json").read_text())
    pack["applications"][0].update(seq=1e12, par=1e14)
    (tmp_path / "long.json").write_text(json.dumps(pack))
    for argv, message in [
        (["batch", "long.swf", "--policy", "easy", "--node-mtbf", "1e9", "--checkpoint-cost", "60", "-o", "j.csv"],
         "long.swf: its failure trace would span 7.93e+05 y (2.5e+13 s), more than the 1,000 years a trace may span: "
         "the run would not end; shorten its jobs or give it more nodes"),
        (["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "0.01", "--checkpoint-cost", "1e-9",
          "--recovery-cost", "0"],
         "its failure trace would hold 6.92e+07 failures (8 nodes for 1 d at a node MTBF of 0.01 s), more than the "
         "1e+07 a trace may hold: the run would not end; raise --node-mtbf"),
        (["redistrib", "long.json", "--at-end", "greedy", "--at-failure", "iterated", "--seed", "1"],
         "long.json: its failure trace would span 1.27e+05 y (4e+12 s), more than the 1,000 years"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["long.json", "long.swf"]
