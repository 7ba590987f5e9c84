"""``coschedule redistrib``: one pack run (text and JSON) against the library, the timeline CSV
against the run's phases, failures from a file and drawn ones replayed, the picture, the
``generate`` subcommand and the pack format's round trip, and a one-line error (exit 2) for each
bad input."""

from __future__ import annotations

import csv
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from coschedule.heuristics.redistribution import (
    AT_END,
    AT_FAILURE,
    resilient_optimal_1_pack,
    run_pack,
)
from coschedule_testing import cli_fails as fails
from coschedule_testing import cli_run as run

from coschedule.io.pack import (
    PACK_FORMAT,
    TIMELINE_COLUMNS,
    load_pack,
    pack_from_dict,
    pack_to_dict,
    save_pack,
)
from coschedule.redistribution import YEAR, MalleablePack, PackModel, Resilience
from coschedule.sim.failures import FailureTrace, write_failures
from coschedule.sim.nodesets import parse_nodes

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def same_pack(a: MalleablePack, b: MalleablePack) -> bool:
    def eq(x: np.ndarray | None, y: np.ndarray | None) -> bool:
        return (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y))

    return (a.p == b.p and a.names == b.names and a.name == b.name and eq(a.memory, b.memory)
            and eq(a.seq, b.seq) and eq(a.par, b.par) and eq(a.table, b.table) and eq(a.min_procs, b.min_procs))


@pytest.fixture
def pack_file(tmp_path: Path, capsys) -> Path:
    """Six synthetic applications on 24 processors, written by the generate subcommand."""
    path = tmp_path / "pack.json"
    code, out, _ = run(capsys, "redistrib", "generate", "--n", "6", "--P", "24", "--seed", "5", "-o", path)
    assert code == 0 and out.startswith(f"wrote {path}: synthetic pack")
    return path


# ---------------------------------------------------------------- the run


def test_json_matches_the_library(capsys, pack_file: Path) -> None:
    code, out, err = run(capsys, "redistrib", pack_file, "--at-end", "greedy", "--at-failure", "saf",
                         "--mtbf-years", "0.5", "--seed", "4", "--json")
    assert code == 0, err
    got = json.loads(out)
    lib = run_pack(load_pack(pack_file), Resilience(node_mtbf=0.5 * YEAR), at_end="greedy", at_failure="saf", seed=4)
    for key, value in lib.to_json().items():
        assert got[key] == value, key
    assert got["policy"] == "EndGreedy+ShortestApplicationsFirst"
    assert got["heuristics"] == {"at_end": "EndGreedy", "at_failure": "ShortestApplicationsFirst"}
    assert got["makespan_days"] == pytest.approx(lib.makespan / 86400)
    assert got["ends"] == lib.ends.tolist() and got["initial"] == lib.initial.tolist()
    assert got["resilience"]["node_mtbf"] == 0.5 * YEAR and got["resilience"]["downtime"] == 60.0
    assert got["failure_source"] == {"file": None, "seed": 4, "fault_free": False,
                                     "trace_horizon": lib.trace_horizon}
    assert got["failures"] > 5 and 0 < got["failures_hit"] <= got["failures"]
    assert got["outputs"] == {}
    code, text, _ = run(capsys, "redistrib", pack_file, "--at-end", "greedy", "--at-failure", "saf",
                        "--mtbf-years", "0.5", "--seed", "4")
    lines = text.splitlines()
    assert lines[0] == (f"pack synthetic-n6-p24-seed5: 6 applications on 24 processors; Resilient Optimal-1-pack "
                        f"gives them {lib.initial.min()} to {lib.initial.max()} each ({lib.initial.sum()} used)")
    assert lines[1] == "policy EndGreedy+ShortestApplicationsFirst (--at-end greedy, --at-failure saf)"
    assert lines[2].startswith("failures drawn with a processor MTBF of 0.5 years, seed 4; failure model simulation")
    assert f"makespan                         {lib.makespan:,.1f} s ({lib.makespan / 86400:,.2f} days)" in lines
    assert f"failures (hit / total)           {lib.failures_hit} / {len(lib.failures)} (" in text
    assert f"redistributions                  {lib.redistributions}" in lines
    assert f"allocation changes               {int(lib.changes.sum())}" in lines


def test_same_seed_same_output_another_seed_another(capsys, pack_file: Path) -> None:
    argv = ("redistrib", pack_file, "--at-end", "local", "--at-failure", "iterated", "--mtbf-years", "0.5")
    outs = [run(capsys, *argv, "--seed", str(s))[1] for s in (7, 7, 8)]
    assert outs[0] == outs[1] and outs[0] != outs[2]
    assert run(capsys, *argv)[1] == run(capsys, *argv, "--seed", "0")[1]  # the default seed is 0


def test_fault_free_without_redistribution_is_the_expected_formula(capsys, pack_file: Path) -> None:
    """lambda = 0 in the run, no redistribution: max_i (t_{i,sigma(i)} + N^ff C_{i,sigma(i)}) for
    Optimal-1-pack's sigma (issue 14, §3)."""
    code, out, err = run(capsys, "redistrib", pack_file, "--at-end", "none", "--at-failure", "none", "--fault-free",
                         "--mtbf-years", "2", "--json")
    assert code == 0, err
    got = json.loads(out)
    pack, res = load_pack(pack_file), Resilience(node_mtbf=2 * YEAR)
    model = PackModel(pack, res)
    sigma = resilient_optimal_1_pack(pack, res)
    expected = max(model.fault_free(i, int(sigma[i]), 1.0) for i in range(pack.n))
    assert got["makespan"] == pytest.approx(expected, rel=1e-12)
    assert got["failures"] == 0 and got["redistributions"] == 0
    assert got["failure_source"] == {"file": None, "seed": None, "fault_free": True, "trace_horizon": None}


def test_timeline_csv_rows_are_the_phases(capsys, pack_file: Path, tmp_path: Path) -> None:
    timeline = tmp_path / "timeline.csv"
    code, out, err = run(capsys, "redistrib", pack_file, "--at-end", "greedy", "--at-failure", "iterated",
                         "--mtbf-years", "0.5", "--seed", "2", "-o", timeline, "--json")
    assert code == 0, err
    lib = run_pack(load_pack(pack_file), Resilience(node_mtbf=0.5 * YEAR), at_end="greedy",
                   at_failure="iterated", seed=2)
    with timeline.open(newline="") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames or ()) == TIMELINE_COLUMNS
        rows = list(reader)
    assert err == f"wrote {timeline}: {len(rows)} rows, one per phase of an application\n"
    assert json.loads(out)["outputs"] == {"timeline": str(timeline)}
    phases = sorted(lib.phases, key=lambda ph: (ph.app, ph.start))
    assert len(rows) == len(phases) and {r["kind"] for r in rows} >= {"compute", "recovery", "redistribution"}
    names = load_pack(pack_file).names
    for r, ph in zip(rows, phases):
        assert (int(r["app"]), r["name"], r["kind"], r["outcome"]) == (ph.app, names[ph.app], ph.kind, ph.outcome)
        assert (float(r["start"]), float(r["end"])) == (ph.start, ph.end)  # repr: exact
        assert (float(r["alpha_start"]), float(r["alpha_end"])) == (ph.alpha_start, ph.alpha_end)
        assert parse_nodes(r["nodes"]) == sorted(ph.procs) and int(r["procs"]) == len(ph.procs)
    # per application: the phases follow one another, and the work done adds up to all of it
    for i in range(len(names)):
        mine = [r for r in rows if int(r["app"]) == i]
        assert all(float(a["end"]) <= float(b["start"]) + 1e-6 for a, b in itertools.pairwise(mine))
        assert mine[0]["alpha_start"] == "1.0" and mine[-1]["outcome"] == "completed"
        assert float(mine[-1]["alpha_end"]) == 0.0 and float(mine[-1]["end"]) == lib.ends[i]


def test_failures_from_a_file_and_drawn_ones_replayed(capsys, pack_file: Path, tmp_path: Path) -> None:
    pack = load_pack(pack_file)
    trace = FailureTrace(np.array([1.0e6, 2.0e6, 2.0e6, 5.0e6, 9.0e6]), np.array([0, 3, 23, 10, 1]), pack.p)
    path = tmp_path / "f.csv"
    write_failures(trace, path)
    code, out, err = run(capsys, "redistrib", pack_file, "--at-end", "local", "--at-failure", "saf",
                         "--failures", path, "--json")
    assert code == 0, err
    got = json.loads(out)
    lib = run_pack(pack, Resilience(), at_end="local", at_failure="saf", failures=trace)
    assert got["makespan"] == lib.makespan and got["failures"] == len(lib.failures) == 5
    assert got["failure_source"]["file"] == str(path) and got["failure_source"]["seed"] is None
    code, text, _ = run(capsys, "redistrib", pack_file, "--at-end", "local", "--at-failure", "saf", "--failures", path)
    assert f"failures from {path} (periods for a processor MTBF of 100 years)" in text
    # drawn failures written, then read back: the same run, for any policy
    drawn = tmp_path / "drawn.csv"
    base = ("redistrib", pack_file, "--at-failure", "iterated", "--mtbf-years", "0.5", "--json")
    code, out, err = run(capsys, *base, "--at-end", "greedy", "--seed", "9", "--failures-out", drawn)
    assert code == 0 and f"wrote {drawn}: " in err
    first = json.loads(out)
    code, out, _ = run(capsys, *base, "--at-end", "greedy", "--failures", drawn)
    again = json.loads(out)
    for key in ("makespan", "failures", "failures_hit", "redistributions", "ends"):
        assert again[key] == first[key], key
    code, out, _ = run(capsys, *base, "--at-end", "none", "--failures", drawn)
    code, out2, _ = run(capsys, *base, "--at-end", "none", "--seed", "9")
    assert json.loads(out)["makespan"] == json.loads(out2)["makespan"]


def test_a_moldable_instance_and_the_bundled_pack_by_name(capsys, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # names do not depend on the current folder
    code, out, err = run(capsys, "redistrib", "synthetic-n12-p32", "--at-end", "greedy", "--at-failure", "none",
                         "--fault-free", "--json")
    assert code == 0, err
    assert json.loads(out)["applications"] == 12 and json.loads(out)["processors"] == 32
    code, out, err = run(capsys, "redistrib", "synthetic-n20-p100", "--at-end", "local", "--at-failure", "saf")
    assert code == 0, err
    assert out.startswith("pack synthetic-n20-p100-seed1: 20 applications on 100 processors")
    bundled = load_pack(ROOT / "instances" / "redistribution" / "synthetic-n20-p100.json")
    assert same_pack(bundled, pack_from_dict(pack_to_dict(MalleablePack.synthetic(20, 100, seed=1)) | {
        "name": "synthetic-n20-p100-seed1"}))


def test_plot_writes_a_png_small_and_large(capsys, pack_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "run.png"
    code, out, err = run(capsys, "redistrib", pack_file, "--at-end", "greedy", "--at-failure", "saf",
                         "--mtbf-years", "0.5", "--plot", png, "--json")
    assert code == 0, err
    assert err == f"wrote figure: {png}\n" and json.loads(out)["outputs"] == {"plot": [str(png)]}
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 20_000
    from coschedule.redistribution_plot import plot_pack_run

    big = run_pack(MalleablePack.synthetic(12, 40, seed=3), Resilience(node_mtbf=YEAR), at_end="local",
                   at_failure="iterated", seed=1)
    fig = plot_pack_run(big, tmp_path / "big.png", max_rows=8)  # the processor map, and 8 rows
    assert len(fig.axes) == 3 and (tmp_path / "big.png").read_bytes()[:8] == PNG
    assert fig.axes[0].images  # the map of every application's processors
    labels = [t.get_text() for t in fig.axes[1].get_yticklabels()]
    order = np.argsort(big.ends, kind="stable")
    assert labels == [big.pack.names[int(i)] for i in order[-8:]]  # the last to end, at the top


# ---------------------------------------------------------------- generate and the format


def test_generate_round_trip_and_options(capsys, tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    code, out, err = run(capsys, "redistrib", "generate", "--n", "7", "--p", "30", "--seed", "2", "--m-inf", "1500",
                         "-o", path, "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["output"] == str(path) and summary["format"] == PACK_FORMAT and summary["P"] == 30
    pack = load_pack(path)
    lib = MalleablePack.synthetic(7, 30, seed=2, m_inf=1500)
    assert np.array_equal(pack.seq, lib.seq) and np.array_equal(pack.par, lib.par)
    assert np.array_equal(pack.memory, lib.memory) and pack.name == "synthetic-n7-p30-seed2"
    assert same_pack(pack_from_dict(pack_to_dict(pack)), pack)
    code, out, _ = run(capsys, "redistrib", "generate", "--n", "7", "--P", "30", "--seed", "2", "--m-inf", "1500")
    assert json.loads(out) == json.loads(path.read_text())  # no -o: the pack on stdout
    with pytest.raises(SystemExit) as e:
        run(capsys, "redistrib", "generate", "--help")
    assert e.value.code == 0 and "coschedule redistrib generate" in capsys.readouterr().out


def test_pack_format_round_trips_tables_and_minimums(tmp_path: Path) -> None:
    table = MalleablePack(p=12, memory=np.array([1000.0, 2000.5, 0.0]), names=("a", "b", "c"),
                          table=np.array([[90.0, 50.0, 40.0, 30.0], [900.0, 460.0, 320.0, 250.5],
                                          [8.0, 4.0, 4.0, 4.0]]), min_procs=np.array([1, 3, 2]), name="tab")
    save_pack(table, tmp_path / "t.json")
    back = load_pack(tmp_path / "t.json")
    assert same_pack(back, table) and back.min_procs.tolist() == [2, 4, 2]
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["applications"][1] == {"name": "b", "memory": 2000.5, "times": [900, 460, 320, 250.5], "min_procs": 4}
    closed = MalleablePack(p=8, memory=np.array([5.0, 6.0]), seq=np.array([1.5, 0.0]), par=np.array([10.0, 3.0]))
    assert same_pack(pack_from_dict(pack_to_dict(closed)), closed)
    ragged = pack_from_dict({"format": PACK_FORMAT, "version": 1, "p": 8, "applications": [
        {"memory": 1, "times": [10, 6]}, {"memory": 1, "times": [20, 11, 8, 7]}]})
    assert ragged.table.tolist() == [[10, 6, 6, 6], [20, 11, 8, 7]] and ragged.names == ("T0", "T1")


# ---------------------------------------------------------------- errors


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _pack(apps: list[object], p: int = 8) -> dict[str, object]:
    return {"format": PACK_FORMAT, "version": 1, "p": p, "applications": apps}


@pytest.mark.parametrize("data, message", [
    ('{"format": "coschedule/malleable-pack", "version": 1,', "malformed JSON"),
    (_pack([{"memory": 1, "seq": 1, "par": 2}] * 5, p=8),
     "5 applications need 10 processors (two each at least, in pairs) but p = 8"),
    (_pack([{"memory": 1, "seq": 1, "par": 2}, {"memory": -3, "seq": 1, "par": 2}]),
     "applications[1].memory: expected a number >= 0, got -3"),
    (_pack([{"memory": 1, "seq": 1, "par": 2}, {"seq": 1, "par": 2}]), "applications[1]: missing field 'memory'"),
    (_pack([{"memory": 1, "seq": 1, "par": 2}, {"memory": 1, "times": [3, 2]}]),
     "applications[1]: the pack mixes closed-form (seq, par) and tabulated (times) applications"),
    (_pack([{"memory": 1, "times": [3, "x"]}]), "applications[0].times[1]: not a number: 'x'"),
    (_pack([{"memory": 1, "seq": 1}]), "applications[0]: missing field 'par'"),
    (_pack([{"memory": 1}]), "applications[0]: give either seq and par (t_j = seq + par/j) or times, got neither"),
    (_pack([{"memory": 1, "seq": 0, "par": 0}]), "applications[0]: seq and par are both 0"),
    (_pack([{"memory": 1, "seq": 1, "par": 1}], p=1), ".p: expected an integer >= 2"),
    ({"format": "coschedule/rigid-instance", "version": 1},
     "expected 'coschedule/malleable-pack' or 'coschedule/moldable-instance'"),
    ({"format": "coschedule/moldable-instance", "version": 1, "p": 4, "tasks": [{"times": [3, 2]}] * 3},
     "3 applications need 6 processors"),
])
def test_bad_packs_are_one_line(capsys, tmp_path: Path, data: object, message: str) -> None:
    path = _write(tmp_path, "bad.json", data)
    err = fails(capsys, "redistrib", path, "--at-end", "none", "--at-failure", "none")
    assert err.startswith(f"coschedule redistrib: error: {path}") and message in err, err


@pytest.mark.parametrize("argv, message", [
    (["--at-end", "gredy", "--at-failure", "none"],
     ("unknown end heuristic 'gredy' (--at-end) (did you mean 'greedy'?); valid: greedy, local, none; or your own: "
      "FILE.py:CLASS, MODULE:CLASS (coschedule policies)\n")),
    (["--at-end", "none", "--at-failure", "shortest"],
     ("unknown failure heuristic 'shortest' (--at-failure); valid: iterated, none, saf; or your own: FILE.py:CLASS, "
      "MODULE:CLASS (coschedule policies)\n")),
    (["--at-end", "none"], "the following arguments are required: --at-failure"),
    (["--at-end", "none", "--at-failure", "none", "--mtbf-years", "-5"],
     "argument --mtbf-years: expected a positive number, got -5"),
    (["--at-end", "none", "--at-failure", "none", "--mtbf-years", "0"], "expected a positive number, got 0"),
    (["--at-end", "none", "--at-failure", "none", "--c", "-1"], "argument --c: expected a number >= 0, got -1"),
    (["--at-end", "none", "--at-failure", "none", "--seed", "-1"], "argument --seed: expected an integer >= 0"),
    (["--at-end", "none", "--at-failure", "none", "--model", "exact"], "argument --model: invalid choice"),
    (["--at-end", "none", "--at-failure", "none", "--fault-free", "--seed", "3"],
     "--seed draws failures: it cannot go with --failures or --fault-free"),
    (["--at-end", "none", "--at-failure", "none", "--fault-free", "--failures-out", "x.csv"],
     "--failures-out writes drawn failures"),
])
def test_bad_options_are_one_line(capsys, pack_file: Path, argv: list[str], message: str) -> None:
    assert message in fails(capsys, "redistrib", pack_file, *argv)


def test_bad_files_are_one_line(capsys, pack_file: Path, tmp_path: Path) -> None:
    assert fails(capsys, "redistrib", tmp_path / "none.json", "--at-end", "none", "--at-failure", "none") == (
        f"coschedule redistrib: error: {tmp_path / 'none.json'}: no such file\n")
    bad = _write(tmp_path, "f.csv", "time,node\n5,3\n7,24\n")
    err = fails(capsys, "redistrib", pack_file, "--at-end", "none", "--at-failure", "none", "--failures", bad)
    assert err == f"coschedule redistrib: error: {bad}:3: node 24 does not exist (the platform has nodes 0..23)\n"
    err = fails(capsys, "redistrib", pack_file, "--at-end", "none", "--at-failure", "none", "--failures", bad,
                "--fault-free")
    assert "--fault-free runs without failures" in err
    err = fails(capsys, "redistrib", "generate", "--n", "3", "--P", "8", "--m-inf", "10", "--m-sup", "5")
    assert "need 1 < --m-inf <= --m-sup, got 10, 5" in err
    err = fails(capsys, "redistrib", "generate", "--n", "5", "--P", "8")
    assert "5 applications need 10 processors" in err
    err = fails(capsys, "redistrib", "generate", "--n", "0", "--P", "8")
    assert "argument --n: expected a positive integer, got 0" in err


def test_the_parser_lists_the_library_names() -> None:
    from coschedule.cli import build_parser

    sub = next(x for x in build_parser()._actions if hasattr(x, "choices") and x.choices)
    text = sub.choices["redistrib"].format_help()
    assert all(name in text for name in AT_END + AT_FAILURE)
    assert "coschedule redistrib generate --n N --P P" in text
    assert math.isclose(Resilience().node_mtbf, 100 * YEAR)  # the documented default
